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
        r#"{"tools": {"m": {"source": {"kind": "mcp"}, "run": "unattended", "program": {"kind": "script", "asks": [
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
    use inquiry_model::model::coordinator::CoordinatorError;
    use inquiry_model::scenario::{self, Scenario, ScenarioError};
    let parse = |text: &str| -> Scenario { serde_json::from_str(text).unwrap() };
    let mcp_asks = parse(
        r#"{"tools": {"m": {"source": {"kind": "mcp"}, "run": "unattended", "program": {"kind": "script", "asks": [
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

/// Rule: AMEND-PARALLEL — `diff-profiles` writes the same bytes with one
/// worker thread as with three.
#[test]
fn diff_profiles_writes_the_same_bytes_on_any_number_of_threads() {
    let args = [
        "diff-profiles",
        "--from",
        "legacy",
        "--to",
        "rfd083",
        "--stride",
        "997",
        "--sample",
        "40",
        "--format",
        "markdown",
    ];
    let one = bin(&[&args[..], &["--threads", "1"]].concat());
    let three = bin(&[&args[..], &["--threads", "3"]].concat());
    assert_eq!(one.status.code(), three.status.code());
    assert!(stdout(&one).contains("| class |"), "{}", stdout(&one));
    assert_eq!(stdout(&one), stdout(&three));
}

/// Rule: AMEND-INVARIANTS-PARALLEL — `invariants --profile` writes the
/// same bytes with one worker thread as with three.
#[test]
fn invariants_writes_the_same_bytes_on_any_number_of_threads() {
    let args = [
        "invariants",
        "--profile",
        "legacy",
        "--stride",
        "997",
        "--sample",
        "40",
        "--format",
        "markdown",
    ];
    let one = bin(&[&args[..], &["--threads", "1"]].concat());
    let three = bin(&[&args[..], &["--threads", "3"]].concat());
    assert_eq!(one.status.code(), Some(1), "{}", stdout(&one));
    assert_eq!(three.status.code(), Some(1));
    assert!(stdout(&one).contains("violated in"), "{}", stdout(&one));
    assert_eq!(stdout(&one), stdout(&three));
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
/// prints the committed matrix with `--matrix`; a violated invariant exits
/// 1 (legacy breaks INV-RECORD-ALL).
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
    assert_eq!(
        o.status.code(),
        Some(1),
        "a violated invariant is a finding"
    );
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

/// The lines of stderr that count progress (`what: N/M ...`).
fn counting_lines<'a>(err: &'a str, what: &str) -> Vec<&'a str> {
    err.lines()
        .filter(|l| {
            l.strip_prefix(what)
                .and_then(|r| r.strip_prefix(": "))
                .and_then(|r| r.split_once('/'))
                .is_some_and(|(n, _)| n.parse::<u64>().is_ok())
        })
        .collect()
}

/// Rule: CLI-PROGRESS — `--progress always` counts on stderr even into a
/// pipe (the count of the whole plan last, with the rate), `-q` silences
/// it, and stdout is byte-identical with and without it.
#[test]
fn progress_counts_on_stderr_and_never_touches_stdout() {
    let args = [
        "invariants",
        "--profile",
        "rfd083",
        "--stride",
        "50000",
        "--sample",
        "5",
    ];
    let quiet = bin(&args);
    let shown = bin(&[&args[..], &["--progress", "always"]].concat());
    let silenced = bin(&[&args[..], &["--progress", "always", "-q"]].concat());
    assert_eq!(quiet.status.code(), shown.status.code());
    assert_eq!(
        quiet.stdout, shown.stdout,
        "stdout is the same with progress"
    );
    assert_eq!(quiet.stdout, silenced.stdout);
    assert!(quiet.stderr.is_empty(), "{}", stderr(&quiet));
    assert!(silenced.stderr.is_empty(), "-q: {}", stderr(&silenced));
    let err = stderr(&shown);
    let lines = counting_lines(&err, "invariants");
    // 2 families strided by 50 000 (10 + 4 scenarios) plus 5 sampled.
    assert!(
        lines
            .last()
            .is_some_and(|l| l.starts_with("invariants: 19/19 scenarios")),
        "{err}"
    );
    // Every command that runs long counts the same way.
    let o = bin(&[
        "explore",
        "--scope",
        "single",
        "--stride",
        "50000",
        "--progress",
        "always",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let err = stderr(&o);
    assert!(
        counting_lines(&err, "explore")
            .last()
            .is_some_and(|l| l.starts_with("explore: 10/10 scenarios")),
        "{err}"
    );
    // The forking search and its check count roots as they finish (the
    // pairs family strided by 4 999 has 20 roots).
    let por = [
        "explore",
        "--scope",
        "pairs",
        "--states",
        "--stride",
        "4999",
        "--threads",
        "1",
        "--por",
        "--progress",
        "always",
    ];
    for (extra, what) in [
        (&[][..], "explore --states"),
        (&["--por-check"][..], "explore --por-check"),
    ] {
        let o = bin(&[&por[..], extra].concat());
        assert_eq!(o.status.code(), Some(0), "{extra:?}");
        let err = stderr(&o);
        assert!(
            counting_lines(&err, what)
                .last()
                .is_some_and(|l| l.starts_with(&format!("{what}: 20/20 root scenarios"))),
            "{extra:?}: {err}"
        );
    }
    let o = bin(&[
        "diff-profiles",
        "--from",
        "rfd082",
        "--to",
        "rfd083",
        "--stride",
        "100000",
        "--sample",
        "2",
        "--progress",
        "always",
    ]);
    let err = stderr(&o);
    assert!(
        !counting_lines(&err, "diff-profiles").is_empty() && err.contains("/s"),
        "{err}"
    );
}

/// Rule: CLI-COUNTS — `--stride`, `--threads` and `conform --timeout` of 0
/// are usage errors (exit 2) naming the flag, not "everything" or
/// "forever".
#[test]
fn zero_counts_are_usage_errors() {
    for args in [
        &["explore", "--stride", "0"][..],
        &["explore", "--threads", "0"],
        &[
            "diff-profiles",
            "--from",
            "rfd082",
            "--to",
            "rfd083",
            "--stride",
            "0",
        ],
        &["invariants", "--profile", "rfd083", "--stride", "0"],
        &["conform", "--adapter", "true", "--timeout", "0"],
    ] {
        let o = bin(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = stderr(&o);
        let flag = args[args.len() - 2];
        assert!(
            err.contains(flag) && err.contains("must be at least 1"),
            "{args:?}: {err}"
        );
    }
}

/// Rule: CLI-JSON — `explore`, `explain` (a rule, and `--list`) print one
/// JSON document with `"version": 1` first.
#[test]
fn explore_and_explain_print_versioned_json() {
    let o = bin(&[
        "explore", "--scope", "single", "--stride", "50000", "--format", "json",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert!(out.starts_with("{\"version\":1,"), "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["report"]["scenarios"]["single"], 10);
    assert_eq!(v["report"]["violations"], serde_json::json!([]));
    let o = bin(&["explain", "CHECK-PAIRED", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(stdout(&o).starts_with("{\"version\":1,"));
    assert_eq!(v["id"], "CHECK-PAIRED");
    assert!(
        v["source"].as_str().is_some_and(|s| s.contains("RFD")),
        "{v}"
    );
    let o = bin(&["explain", "--list", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(
        v["rules"]
            .as_array()
            .is_some_and(|r| r.iter().any(|r| r["id"] == "CHECK-PAIRED")),
        "{v}"
    );
}

/// Rule: CLI-MESSAGES — `run` on a stream says it is not a scenario but a
/// stream and names `check`; `--profile` naming a folder says it is a
/// folder.
#[test]
fn run_on_a_stream_and_a_profile_folder_say_what_they_are() {
    for stream in [
        "spec/examples/legacy-backend-answered.jsonl",
        "spec/examples/rfd083-mixed-routes.json",
    ] {
        let o = bin(&["run", stream]);
        assert_eq!(o.status.code(), Some(2));
        let err = stderr(&o);
        assert!(
            err.contains("not a scenario")
                && err.contains("looks like an event stream")
                && err.contains("inquiry-model check")
                && !err.contains("unknown variant")
                && !err.contains("unknown field"),
            "{err}"
        );
    }
    let o = bin(&["invariants", "--profile", "spec/profiles"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("is a directory") && !err.contains("no file"),
        "{err}"
    );
}

/// Rule: CLI-MESSAGES — counts of one are singular: `1 thread`, `1 root
/// scenario`, and a scenario count in `invariants`.
#[test]
fn counts_of_one_are_singular() {
    let o = bin(&[
        "explore",
        "--scope",
        "single",
        "--stride",
        "50000",
        "--threads",
        "1",
    ]);
    let out = stdout(&o);
    assert!(out.contains(", 1 thread)"), "{out}");
    let o = bin(&[
        "invariants",
        "--profile",
        "rfd083",
        "--stride",
        "1000000",
        "--sample",
        "0",
    ]);
    let out = stdout(&o);
    assert!(out.contains("over 2 scenarios:"), "{out}");
    assert!(!out.contains(" 1 scenarios"), "{out}");
}
