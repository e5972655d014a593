//! The reduced search (`explore::por`) on the shapes its former
//! independence missed, on given scenario files, and its reported figures
//! against counts made by hand.

use crate::explore::por::{self, Independence, Reduction};
use crate::invariants::StreamMemo;
use crate::scenario::{RunOptions, Scenario};

/// The committed scenarios of the two shapes: tools `a` and `a.b` whose
/// questions `b.c` and `c` share the turn-cache key `a.b.c`, and one call ID
/// twice in one cycle.
const SHAPES: [&str; 2] = [
    "spec/scenarios/shared-cache-key.json",
    "spec/scenarios/call-id-twice-in-a-cycle.json",
];

fn load(path: &str) -> Scenario {
    let full = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    serde_json::from_str(&std::fs::read_to_string(full).expect("the file reads"))
        .expect("a scenario")
}

/// Rule: INV-EXPLORE-POR — the former independence (keys per tool name,
/// calls by their index) is unsound on both committed shapes: under some
/// row of the fault matrix (no fault for the shared key) the search reduced
/// by it misses an invariant every interleaving finds, where the
/// independence from what a step touches finds it.
#[test]
fn the_tool_identity_footprint_misses_what_every_interleaving_finds() {
    for file in SHAPES {
        let root = load(file);
        let mut missed = Vec::new();
        for (name, options) in por::fault_matrix() {
            let old = por::agreement_under(&root, options.clone(), Independence::ToolIdentity)
                .expect("runs");
            let new = por::agreement(&root, options).expect("runs");
            assert!(new.agrees(), "{file}, {name}: {new:?}");
            if !old.agrees() {
                missed.push((name, old.rules.0.difference(&old.rules.1).count()));
            }
        }
        assert!(
            !missed.is_empty(),
            "{file}: the old footprint agreed everywhere"
        );
        if file.contains("shared-cache-key") {
            assert!(missed.iter().any(|(n, _)| n == "none"), "{missed:?}");
        }
    }
}

/// The counts of one search of `root` under no fault.
fn stats(root: &Scenario, reduction: Reduction) -> (por::Stats, usize) {
    let mut runs = 0;
    let s = por::search(
        root,
        RunOptions::default(),
        reduction,
        &mut StreamMemo::new(),
        &mut |_| runs += 1,
    )
    .expect("runs");
    (s, runs)
}

/// A root with `n` parallel calls of `n` different unattended tools that
/// ask nothing: each call is one tool run, and no two runs touch a shared
/// key, list or ID.
fn independent_runs(n: usize) -> Scenario {
    let tools: serde_json::Map<String, serde_json::Value> = (1..=n)
        .map(|i| {
            (
                format!("t{i}"),
                serde_json::json!({"source": {"kind": "local"}, "run": "unattended",
                    "program": {"kind": "script", "asks": []}}),
            )
        })
        .collect();
    let calls: Vec<_> = (1..=n)
        .map(|i| serde_json::json!({"id": format!("c{i}"), "tool": format!("t{i}")}))
        .collect();
    serde_json::from_value(serde_json::json!({
        "tools": tools,
        "turns": [{"cycles": [calls]}],
    }))
    .expect("a scenario")
}

/// Rule: INV-EXPLORE-POR — the reported figures against counts made by
/// hand on three independent tool runs `t1`, `t2`, `t3` in one cycle.
///
/// Every interleaving: 3! = 6 runs; a choice among two or more pieces of
/// work at the root (3 pending) and at each of its 3 children (2 pending),
/// none below (1 pending): 4 choices; no cut. Coordinator steps, each run
/// once by forking: the turn's and the cycle's beginnings (2), one tool
/// run per edge of the tree (3 + 6 + 6 = 15) and the turn's end once per
/// run (6): 23.
///
/// Sleep sets: the root's children `t1`, `t2`, `t3` sleep on the options
/// taken before them (none, `t1`, `t1` and `t2`). Under `t1` (choice):
/// `t2` runs to the end (1 run), then `t3` with `t2` asleep leaves only
/// `t2`, asleep (1 cut). Under `t2` (choice, `t1` asleep): `t3`, then
/// only `t1`, asleep (1 cut). Under `t3` (choice, both asleep): a cut.
/// So 1 run, 4 choices, 3 cuts; steps 2 + tool runs 3 + (2 + 1) + 1 = 7,
/// plus one turn end: 10.
#[test]
fn the_reported_figures_match_a_count_by_hand() {
    let root = independent_runs(3);
    let (full, runs) = stats(&root, Reduction::Off);
    assert_eq!(runs, 6);
    assert_eq!(
        full,
        por::Stats {
            runs: 6,
            blocked: 0,
            steps: 23,
            choices: 4
        }
    );
    let (reduced, runs) = stats(&root, Reduction::SleepSets);
    assert_eq!(runs, 1);
    assert_eq!(
        reduced,
        por::Stats {
            runs: 1,
            blocked: 3,
            steps: 10,
            choices: 4
        }
    );
    assert_eq!(
        por::interleavings(&root, RunOptions::default()).expect("counts"),
        6
    );
}

/// Rule: INV-EXPLORE-POR — on a stride of the drawn roots (the language
/// family's and the full scenario generator's, `make explore-por-drawn`
/// compares them all), under no fault and every fault of the fault matrix,
/// the reduced search finds exactly the invariants violated that every
/// interleaving finds, no root is refused, and some row finds a violation.
#[test]
fn the_reduced_search_agrees_with_every_interleaving_on_drawn_roots() {
    let plan = crate::explore::Plan {
        stride: 97,
        shard: (0, 1),
        threads: 1,
    };
    let check = crate::explore::compare_drawn(plan, &|| {});
    assert!(check.disagreements.is_empty(), "{:?}", check.disagreements);
    assert!(check.errors.is_empty(), "{:?}", check.errors);
    assert!(check.roots >= 10, "{check:?}");
    assert!(check.violating > 0, "{check:?}");
}
