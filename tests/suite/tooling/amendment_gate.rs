//! An amendment that breaks an invariant is obvious (rule
//! `AMEND-GATE`), on the command line: `diff-profiles` exits 1 when the
//! target breaks an invariant the base kept, with the counterexample's
//! diagram, `invariants --profile FILE` draws each failing invariant's
//! smallest counterexample, and a printed counterexample replays as
//! printed. The library's gate and its restored invariants are unit tests
//! beside the module (`src/review/amend/amendment_gate_tests.rs`).

use crate::binary;

use binary::{code, run, stderr, stdout};

const DROPPED: &str = "spec/profiles/examples/secret-type-dropped.json";

/// Rule: AMEND-GATE — `diff-profiles` is a CI gate: exit 1 with the broken
/// invariant and its counterexample's diagram (text and Markdown, where the
/// diagram is a fenced `mermaid` block under the invariant); exit 0 for an
/// amendment that breaks nothing the base kept.
#[test]
fn diff_profiles_exits_1_with_the_counterexample_diagram() {
    let args = |to: &str, format: &str| {
        run(&[
            "diff-profiles",
            "--from",
            "rfd082",
            "--to",
            to,
            "--stride",
            "300",
            "--sample",
            "0",
            "--format",
            format,
        ])
    };
    let o = args(DROPPED, "text");
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let out = stdout(&o);
    let at = out
        .find("breaks an invariant rfd082 keeps: INV-SECRET-NEVER-PERSISTED")
        .unwrap_or_else(|| panic!("{out}"));
    assert!(out[at..].contains("sequenceDiagram\n    participant T as tool"));
    let o = args(DROPPED, "markdown");
    assert_eq!(code(&o), 1);
    let md = stdout(&o);
    let at = md
        .find("#### `INV-SECRET-NEVER-PERSISTED`")
        .unwrap_or_else(|| panic!("{md}"));
    assert!(md[at..].contains("```mermaid\nsequenceDiagram"));
    let o = args(DROPPED, "json");
    assert_eq!(code(&o), 1);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert!(
        v["broken_invariants"]
            .as_array()
            .is_some_and(|b| b.iter().any(|x| x["rule"] == "INV-SECRET-NEVER-PERSISTED"))
    );
    let o = args("spec/profiles/examples/rfd083-over-rfd082.json", "text");
    assert_eq!(code(&o), 0, "RFD 083 breaks nothing RFD 082 kept");
}

/// Rule: AMEND-GATE — `invariants --profile FILE` lists every failing
/// invariant and draws its smallest counterexample.
#[test]
fn invariants_of_a_file_draw_each_counterexample() {
    let o = run(&[
        "invariants",
        "--profile",
        DROPPED,
        "--stride",
        "300",
        "--sample",
        "0",
    ]);
    // Violations are findings: exit 1 (README, `invariants --help`).
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let out = stdout(&o);
    for rule in ["INV-SECRET-NEVER-PERSISTED", "INV-HUMAN-ONLY-NEVER-BACKEND"] {
        assert!(
            out.contains(&format!(
                "counterexample of {rule} under {DROPPED}:\nsequenceDiagram\n"
            )),
            "{rule}: {out}"
        );
    }
    // A rule that holds gets no diagram.
    assert!(!out.contains("counterexample of INV-WIRE-ROUNDTRIP"));
}

/// The outcomes of the persisted `inquiry_response`s of a trace printed by
/// `run` (read from its JSON, not through the model).
fn response_outcomes(trace: &str) -> Vec<String> {
    let t: serde_json::Value = serde_json::from_str(trace).expect("a trace");
    t["stream"]
        .as_array()
        .expect("a stream")
        .iter()
        .filter(|e| e["type"] == "inquiry_response")
        .map(|e| e["outcome"].as_str().unwrap_or("").to_owned())
        .collect()
}

/// Runs a printed replay command (`inquiry-model run --profile P
/// scenario.json`) with its last word, the file the scenario is saved as,
/// standing for `file`.
fn replay(command: &str, file: &std::path::Path) -> String {
    let words: Vec<&str> = command.split_whitespace().collect();
    assert_eq!(words.first(), Some(&"inquiry-model"), "{command}");
    assert_eq!(words.last(), Some(&"scenario.json"), "{command}");
    let file = file.to_str().expect("a UTF-8 path");
    let mut args: Vec<&str> = words[1..].to_vec();
    *args.last_mut().expect("the scenario file") = file;
    let o = run(&args);
    assert_eq!(code(&o), 0, "{command}: {}", stderr(&o));
    stdout(&o)
}

/// Rule: AMEND-MINIMAL — a counterexample printed by `diff-profiles` replays
/// as printed: its scenario saved as `scenario.json` and run with the
/// printed command under the profile file shows the violation (the secret
/// answer persisted `answered`, never `redacted`), where the scenario alone
/// — labelled with the file's built-in, which has the secret type — does
/// not; and each class's two commands show its difference (here the
/// `redacted` responses).
#[test]
fn printed_counterexamples_replay_with_the_printed_command() {
    let o = run(&[
        "diff-profiles",
        "--from",
        "rfd082",
        "--to",
        DROPPED,
        "--stride",
        "300",
        "--sample",
        "0",
        "--format",
        "json",
    ]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    let dir = std::env::temp_dir().join(format!("inquiry-model-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let file = dir.join("scenario.json");

    let broken = report["broken_invariants"]
        .as_array()
        .expect("broken invariants")
        .iter()
        .find(|v| v["rule"] == "INV-SECRET-NEVER-PERSISTED")
        .expect("the secret rule is broken");
    std::fs::write(&file, broken["smallest"].to_string()).expect("written");
    let command = broken["replay"].as_str().expect("a replay command");
    assert!(command.contains(DROPPED), "{command}");
    let under_file = response_outcomes(&replay(command, &file));
    assert!(under_file.iter().any(|o| o == "answered"), "{under_file:?}");
    assert!(
        !under_file.iter().any(|o| o == "redacted"),
        "{under_file:?}"
    );
    // The scenario's own label is the file's built-in: not enough alone.
    let as_labelled = response_outcomes(&replay("inquiry-model run scenario.json", &file));
    assert!(
        as_labelled.iter().any(|o| o == "redacted"),
        "{as_labelled:?}"
    );

    let class = report["classes"]
        .as_array()
        .expect("classes")
        .iter()
        .find(|c| c["class"] == "redacted_recorded")
        .expect("the redacted responses differ");
    std::fs::write(&file, class["smallest"].to_string()).expect("written");
    let redacted = |command: &serde_json::Value| {
        response_outcomes(&replay(command.as_str().expect("a command"), &file))
            .iter()
            .filter(|o| *o == "redacted")
            .count()
    };
    assert_ne!(
        redacted(&class["replay_from"]),
        redacted(&class["replay_to"]),
        "{class}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
