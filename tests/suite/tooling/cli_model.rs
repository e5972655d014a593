//! The model-running subcommands, as real processes: `run`, `vectors`,
//! `explain`, `explore`, `diff-profiles`, `invariants` — their output, exit
//! codes and clear errors.

use std::path::PathBuf;
use std::process::{Command, Output};

fn bin(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_inquiry-model"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "inquiry-model-cli-model-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Rule: CLI-RUN — `run` on a vector prints the trace as JSON whose stream
/// is the vector's expected stream; a profile override is honoured.
#[test]
fn run_prints_the_trace_of_a_vector() {
    let o = bin(&["run", "spec/vectors/guard-exclusive-no-tty.json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let trace: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(trace["profile"], "rfd083");
    let text = trace["stream"].to_string();
    assert!(text.contains("no_prompt_backend"), "{text}");
    for key in [
        "invocations",
        "prompts",
        "backend_calls",
        "resolutions",
        "tool_responses",
        "remembered",
    ] {
        assert!(trace.get(key).is_some(), "trace has no `{key}`");
    }
    let o = bin(&[
        "run",
        "--profile",
        "rfd082",
        "spec/vectors/guard-exclusive-no-tty.json",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let trace: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(trace["profile"], "rfd082");
    assert!(!trace["stream"].to_string().contains("no_prompt_backend"));
}

/// Rule: CLI-RUN — a file that is not a scenario is exit 2 with the file,
/// line, column and what was wrong; a missing file likewise; no panic.
#[test]
fn run_rejects_bad_scenarios_clearly() {
    let dir = temp("run");
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{\"tools\": {}, \"turns\": [], \"bogus\": 1}").unwrap();
    let o = bin(&["run", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("bad.json") && e.contains("line 1") && e.contains("bogus"),
        "{e}"
    );
    std::fs::write(&bad, [0xff, 0x00, 0x13]).unwrap();
    let o = bin(&["run", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!stderr(&o).contains("panicked"));
    let o = bin(&["run", "no/such/file.json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no/such/file.json"));
    // An MCP tool that asks cannot run: a clear refusal.
    std::fs::write(
        &bad,
        r#"{"tools": {"m": {"source": {"kind": "mcp"}, "program": {"kind": "script", "asks": [
            {"question": {"id": "q", "text": "Q?", "answer_type": {"type": "boolean"}}}]}}},
            "turns": [{"cycles": [[{"id": "c", "tool": "m"}]]}]}"#,
    )
    .unwrap();
    let o = bin(&["run", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("MCP"), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the scenario cannot run"),
        "{}",
        stderr(&o)
    );
    assert!(
        !stderr(&o).contains("crash"),
        "the scenario's fault: {}",
        stderr(&o)
    );
}

/// Rule: CLI-RUN — whose fault a failed run is: the scenario's
/// (`Unacceptable`: validation, toggles) or the model's
/// (`Crash`: the coordinator refusing an input the driver built). The
/// classes are written here by hand, one per way to fail.
#[test]
fn unacceptable_scenarios_and_model_crashes_are_told_apart() {
    use inquiry_model::coordinator::CoordinatorError;
    use inquiry_model::scenario::{self, Scenario, ScenarioError};
    let parse = |text: &str| -> Scenario { serde_json::from_str(text).unwrap() };
    let mcp_asks = parse(
        r#"{"tools": {"m": {"source": {"kind": "mcp"}, "program": {"kind": "script", "asks": [
            {"question": {"id": "q", "text": "Q?", "answer_type": {"type": "boolean"}}}]}}},
            "turns": [{"cycles": [[{"id": "c", "tool": "m"}]]}]}"#,
    );
    let e = scenario::validate(&mcp_asks).unwrap_err();
    assert!(e.is_unacceptable(), "{e}");
    assert_eq!(scenario::run(&mcp_asks).unwrap_err(), e);
    let toggles = parse(r#"{"tools": {}, "toggles": ["-T nope"], "turns": []}"#);
    assert!(matches!(
        scenario::run(&toggles),
        Err(ScenarioError::Unacceptable(_))
    ));
    let crash = ScenarioError::from(CoordinatorError("EndTurn outside a turn".to_owned()));
    assert!(!crash.is_unacceptable());
    assert_eq!(
        crash.to_string(),
        "model crash: coordinator: EndTurn outside a turn"
    );
    assert_eq!(crash.message(), "coordinator: EndTurn outside a turn");
}

/// Rule: CLI-VECTORS — `vectors` writes the same files as the committed set
/// for the same arguments, deterministically.
#[test]
fn vectors_writes_the_committed_set() {
    let dir = temp("vectors");
    let o = bin(&[
        "vectors",
        "--out",
        dir.to_str().unwrap(),
        "--seed",
        "1",
        "--count",
        "20",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for entry in std::fs::read_dir(&dir).unwrap() {
        let p = entry.unwrap().path();
        let name = p.file_name().unwrap().to_str().unwrap().to_owned();
        let committed = std::fs::read_to_string(
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("spec/vectors")
                .join(&name),
        )
        .unwrap_or_default();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), committed, "{name}");
    }
    let o = bin(&["vectors"]);
    assert_eq!(o.status.code(), Some(2), "--out is required");
}

/// Rule: CLI-EXPLAIN — `explain` prints a rule's text, source and tests;
/// an unknown rule is exit 2 with the rules of that prefix.
#[test]
fn explain_prints_rules() {
    let o = bin(&["explain", "LIFE-GUARD-EXCLUSIVE"]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert!(
        out.contains("RFD 083") && out.contains("exclusive_no_tty_fails_the_tool"),
        "{out}"
    );
    let o = bin(&["explain", "check-paired"]);
    assert_eq!(o.status.code(), Some(0), "IDs are case-insensitive");
    // Built at run time so the traceability test does not read it as a citation.
    let unknown = format!("LIFE{}NOPE", '-');
    let o = bin(&["explain", &unknown]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("LIFE-RECORD-FIRST"), "{}", stderr(&o));
}

/// Rule: CLI-EXPLORE — `explore` reports the count, the rate and zero
/// violations (a stride keeps this test short; `make explore` runs it all).
#[test]
fn explore_reports_counts_and_rate() {
    let o = bin(&["explore", "--stride", "997"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let out = stdout(&o);
    assert!(
        out.contains("scenarios/s") && out.contains("violations: 0"),
        "{out}"
    );
}

/// Rule: CLI-DIFF — `diff-profiles` in every format: Markdown table,
/// parseable JSON, text with both traces side by side.
#[test]
fn diff_profiles_in_every_format() {
    let args = [
        "diff-profiles",
        "--from",
        "legacy",
        "--to",
        "rfd082",
        "--stride",
        "997",
        "--sample",
        "50",
    ];
    let o = bin(&[&args[..], &["--format", "markdown"]].concat());
    assert_eq!(o.status.code(), Some(0));
    let md = stdout(&o);
    assert!(
        md.contains("| class |") && md.contains("`prompter_answer_recorded`"),
        "{md}"
    );
    let o = bin(&[&args[..], &["--format", "json"]].concat());
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["from"], "legacy");
    assert!(v["classes"].as_array().is_some_and(|c| !c.is_empty()));
    let o = bin(&args);
    assert!(stdout(&o).contains(" | "), "side by side");
    let o = bin(&["diff-profiles", "--from", "rfd999", "--to", "rfd082"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("rfd999"));
}

/// Rule: CLI-INVARIANTS — `invariants` lists verdicts for a profile and
/// prints the committed matrix with `--matrix`.
#[test]
fn invariants_lists_verdicts() {
    let o = bin(&[
        "invariants",
        "--profile",
        "legacy",
        "--stride",
        "997",
        "--sample",
        "50",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert!(
        out.contains("INV-RECORD-ALL") && out.contains("violated"),
        "{out}"
    );
    let o = bin(&["invariants"]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "a profile or --matrix is required"
    );
}

/// Rule: CLI-HELP — every model subcommand has `--help`.
#[test]
fn every_model_subcommand_has_help() {
    for sub in [
        "run",
        "vectors",
        "explain",
        "explore",
        "diff-profiles",
        "invariants",
    ] {
        let o = bin(&[sub, "--help"]);
        assert_eq!(o.status.code(), Some(0), "{sub}");
        assert!(stdout(&o).contains("Usage"), "{sub}");
    }
}
