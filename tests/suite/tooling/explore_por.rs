//! `explore --scenario FILE`: the reduced search run by the command line on
//! a given scenario file (the search itself is tested beside it, in
//! `src/explore/por_agreement_tests.rs`).

use std::process::{Command, Output};

fn bin(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_inquiry-model"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

/// The committed scenarios of the two shapes: tools `a` and `a.b` whose
/// questions `b.c` and `c` share the turn-cache key `a.b.c`, and one call ID
/// twice in one cycle.
const SHAPES: [&str; 2] = [
    "spec/scenarios/shared-cache-key.json",
    "spec/scenarios/call-id-twice-in-a-cycle.json",
];

/// Rule: INV-EXPLORE-POR — `explore --scenario FILE` on a file that is not
/// a scenario exits 2 naming the file, line and column; on a scenario the
/// model refuses it exits 2 with the model's reason; on a committed shape
/// searched by every interleaving it reports the violations it finds
/// (exit 1: a call ID twice in a cycle writes streams the oracle rejects).
#[test]
fn explore_scenario_reads_a_file_and_refuses_bad_input_clearly() {
    let dir =
        std::env::temp_dir().join(format!("inquiry-model-explore-por-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{\n  \"tools\": {},\n  \"turns\": [ 1 ]\n}\n").expect("writes");
    let o = bin(&[
        "explore",
        "--scenario",
        bad.to_str().expect("utf-8"),
        "--states",
        "--por",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("bad.json: line 3, column 14: not a scenario"),
        "{err}"
    );
    let refused = dir.join("refused.json");
    std::fs::write(
        &refused,
        r#"{"tools": {"m": {"source": {"kind": "mcp"}, "program": {"kind": "script", "asks":
            [{"question": {"id": "q", "text": "?", "answer_type": {"type": "boolean"}}}]}}},
            "turns": []}"#,
    )
    .expect("writes");
    let o = bin(&[
        "explore",
        "--scenario",
        refused.to_str().expect("utf-8"),
        "--states",
        "--por",
        "--por-check",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("the scenario cannot run: tool `m`"), "{err}");
    let o = bin(&[
        "explore",
        "--scenario",
        SHAPES[1],
        "--states",
        "--por",
        "--dedup",
        "off",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("CHECK-PLACEMENT-CLOSED"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Rule: INV-EXPLORE-POR — `explore --scenario FILE --states --por
/// --por-check` on each committed shape: under no fault and every fault of
/// the fault matrix the reduced search finds exactly the invariants
/// violated that every interleaving finds (exit 0, no disagreement), and
/// some row does find a violation, so "the same" is not "none on both
/// sides".
#[test]
fn the_reduced_search_agrees_with_every_interleaving_on_the_committed_shapes() {
    for file in SHAPES {
        let o = bin(&[
            "explore",
            "--scenario",
            file,
            "--states",
            "--por",
            "--por-check",
        ]);
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(0), "{file}: {out}");
        assert!(out.contains("disagreements: 0"), "{file}: {out}");
        assert!(
            !out.contains(" 0 (root, fault) pairs with violations"),
            "{file}: {out}"
        );
    }
}
