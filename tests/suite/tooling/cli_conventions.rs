//! The conventions a command-line user expects from any tool: shell
//! completions and a man page, `-V` naming the commit, a quiet exit when
//! the reader of standard output goes away, every JSON report an object
//! with its `version`, and replay hints that are commands to paste, one
//! each.

use crate::binary::{code, run, stderr, stdout};
use std::process::{Command, Stdio};

/// Rule: CLI-COMPLETIONS — `completions bash` prints a bash completion
/// script that completes the subcommands (`complete -F … inquiry-model`,
/// `check` and `conform` among the words); zsh and fish get theirs; an
/// unknown shell is a usage error.
#[test]
fn completions_bash_prints_a_completion_script() {
    let o = run(&["completions", "bash"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let script = stdout(&o);
    assert!(
        script.contains("complete -F") && script.contains("inquiry-model"),
        "{script}"
    );
    for word in ["check", "conform", "diff-profiles", "--format"] {
        assert!(script.contains(word), "{word} is not completed");
    }
    let zsh = stdout(&run(&["completions", "zsh"]));
    assert!(zsh.starts_with("#compdef inquiry-model"), "{zsh}");
    let fish = stdout(&run(&["completions", "fish"]));
    assert!(fish.contains("complete -c inquiry-model"), "{fish}");
    assert_eq!(code(&run(&["completions", "tcsh-ish"])), 2);
}

/// Rule: CLI-COMPLETIONS — `man` prints a roff page titled
/// `inquiry-model(1)` with the version `-V` prints; `man --dir` writes one
/// page per subcommand.
#[test]
fn man_prints_a_roff_page_and_writes_one_per_subcommand() {
    let o = run(&["man"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let page = stdout(&o);
    let version = stdout(&run(&["-V"]));
    let version = version.trim().trim_start_matches("inquiry-model ");
    assert!(
        page.contains(&format!(".TH inquiry-model 1  \"inquiry-model {version}\"")),
        "{page}"
    );
    assert!(
        page.contains(".SH NAME") && page.contains("check"),
        "{page}"
    );
    let dir = std::env::temp_dir().join(format!("inquiry-model-man-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let o = run(&["man", "--dir", dir.to_str().expect("UTF-8")]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    for page in [
        "inquiry-model.1",
        "inquiry-model-check.1",
        "inquiry-model-conform.1",
    ] {
        assert!(dir.join(page).is_file(), "{page} not written");
    }
    let o = run(&["man", "--dir", "no/such/folder"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("no/such/folder"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Rule: CLI-VERSION — `-V` prints the package version and, built from a
/// git checkout, the commit it was built from (the test runs in the
/// checkout it was built from; from a tarball, where `git` finds no
/// repository, the version alone).
#[test]
fn version_names_the_commit_of_a_checkout() {
    let o = run(&["-V"]);
    assert_eq!(code(&o), 0);
    let v = stdout(&o);
    let package = format!("inquiry-model {}", env!("CARGO_PKG_VERSION"));
    let head = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    match head {
        Some(commit) => assert_eq!(v, format!("{package} ({commit})\n")),
        None => assert_eq!(v, format!("{package}\n")),
    }
}

/// Rule: CLI-BROKEN-PIPE — a command whose standard output is a pipe with
/// no reader (`check . | head -1` after `head` exits) ends with exit 0 and
/// says nothing on stderr, for every command that writes to stdout.
#[test]
fn a_closed_stdout_ends_every_command_quietly() {
    let vector = "spec/vectors/guard-exclusive-no-tty.json";
    for args in [
        &["check", "spec/examples"][..],
        &["summary", "spec/examples"],
        &["explain", "--list"],
        &["explain", "CHECK-PAIRED"],
        &["run", vector],
        &["sanitize", "spec/examples/legacy-backend-answered.jsonl"],
        &["completions", "bash"],
        &["man"],
        &["explore", "--scope", "single", "--stride", "50000"],
        &["rfd-check", "tests/rfd/rfd083-excerpt.md"],
    ] {
        // The reading end is closed before the binary starts, so its first
        // write meets a broken pipe, whatever the timing.
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let o = Command::new(env!("CARGO_BIN_EXE_inquiry-model"))
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdin(Stdio::null())
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .expect("the binary runs");
        assert_eq!(o.status.code(), Some(0), "{args:?}: {:?}", o.status);
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            "",
            "{args:?} said something"
        );
    }
}

/// Rule: CLI-JSON — `diff-profiles`, `invariants` and `rfd-check` print one
/// JSON object whose first field is `"version": 1`, as the other commands'
/// JSON does.
#[test]
fn review_commands_print_versioned_json_objects() {
    let first = |out: &str| -> serde_json::Value {
        let v: serde_json::Value = serde_json::from_str(out).expect("JSON");
        assert!(v.is_object(), "{out}");
        assert_eq!(
            v.as_object()
                .and_then(|o| o.keys().next().cloned())
                .as_deref(),
            Some("version")
        );
        v
    };
    let o = run(&[
        "diff-profiles",
        "--from",
        "legacy",
        "--to",
        "rfd082",
        "--stride",
        "4999",
        "--sample",
        "5",
        "--format",
        "json",
    ]);
    let v = first(&stdout(&o));
    assert_eq!(v["version"], 1);
    assert_eq!(v["from"], "legacy");
    let o = run(&[
        "invariants",
        "--profile",
        "legacy",
        "--stride",
        "4999",
        "--sample",
        "20",
        "--format",
        "json",
    ]);
    assert_eq!(code(&o), 1, "legacy breaks INV-RECORD-ALL");
    let v = first(&stdout(&o));
    assert_eq!(v["version"], 1);
    assert_eq!(v["profile"], "legacy");
    assert!(
        v["invariants"]
            .as_array()
            .is_some_and(|a| a.iter().any(|i| i["rule"] == "INV-RECORD-ALL")),
        "{v}"
    );
    let o = run(&[
        "rfd-check",
        "tests/rfd/rfd083-excerpt.md",
        "--format",
        "json",
    ]);
    let v = first(&stdout(&o));
    assert_eq!(v["version"], 1);
    assert!(v["tables"].is_array(), "{v}");
}

/// Whether `line` holds a shell pipeline or command list: a `|`, `;` or
/// `&&` outside single quotes.
fn chains_commands(line: &str) -> bool {
    let mut quoted = false;
    let b = line.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'\'' => quoted = !quoted,
            b'|' | b';' if !quoted => return true,
            b'&' if !quoted && b.get(i + 1) == Some(&b'&') => return true,
            _ => {}
        }
    }
    false
}

#[test]
fn the_pipeline_detector_sees_a_pipeline() {
    assert!(chains_commands(
        "inquiry-model run --profile rfd082 scenario.json | inquiry-model run --profile rfd083 scenario.json"
    ));
    assert!(!chains_commands(
        "inquiry-model run --profile 'a|b.json' scenario.json"
    ));
}

/// Rule: CLI-REPLAY — every replay hint `diff-profiles` and `invariants`
/// print (text and Markdown) is one `inquiry-model run` command on its own,
/// never a pipeline: pasted, each runs the scenario under one profile.
#[test]
fn no_replay_hint_is_a_pipeline() {
    let mut hints = 0;
    for args in [
        &[
            "diff-profiles",
            "--from",
            "rfd082",
            "--to",
            "rfd083",
            "--stride",
            "997",
            "--sample",
            "30",
        ][..],
        &[
            "diff-profiles",
            "--from",
            "rfd082",
            "--to",
            "rfd083",
            "--stride",
            "997",
            "--sample",
            "30",
            "--format",
            "markdown",
            "--max-chars",
            "0",
        ],
        &[
            "invariants",
            "--profile",
            "legacy",
            "--stride",
            "997",
            "--sample",
            "30",
        ],
        &[
            "invariants",
            "--profile",
            "legacy",
            "--stride",
            "997",
            "--sample",
            "30",
            "--format",
            "markdown",
        ],
    ] {
        let out = stdout(&run(args));
        for line in out.lines().filter(|l| l.contains("inquiry-model run")) {
            // A Markdown hint is in backticks: judge each code span.
            let spans: Vec<&str> = if line.contains('`') {
                line.split('`')
                    .skip(1)
                    .step_by(2)
                    .filter(|s| s.contains("inquiry-model run"))
                    .collect()
            } else {
                vec![
                    line.find("inquiry-model run")
                        .map_or(line, |at| &line[at..]),
                ]
            };
            for span in spans {
                hints += 1;
                assert!(span.starts_with("inquiry-model run "), "{args:?}: {line}");
                assert!(!chains_commands(span), "{args:?}: a pipeline: {line}");
                assert_eq!(span.matches("inquiry-model").count(), 1, "{args:?}: {line}");
            }
        }
    }
    assert!(hints >= 4, "the runs printed replay hints ({hints})");
}

/// Rule: CLI-EXPLAIN — a mistyped ID gets the ID it was meant to be (edit
/// distance), not a list of the prefix's rules; `explain --list` titles
/// are the rule's first sentence, not cut inside `(e.g. …)`, and whole in
/// JSON.
#[test]
fn explain_titles_are_whole_sentences_and_typos_are_corrected() {
    // Built from parts: the catalog test reads rule IDs in this file.
    let typo = ["CHECK", "PAIRD"].join("-");
    let o = run(&["explain", &typo]);
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert!(err.contains("did you mean CHECK-PAIRED?"), "{err}");
    assert!(!err.contains("rules with that prefix"), "{err}");
    // Nothing near: the prefix's rules, as before.
    let far = ["CHECK", "NOTHING", "LIKE", "IT"].join("-");
    let err = stderr(&run(&["explain", &far]));
    assert!(err.contains("rules with that prefix: CHECK-"), "{err}");
    let text = stdout(&run(&["explain", "--list"]));
    let line = text
        .lines()
        .find(|l| l.starts_with("WIRE-EVENT-UNKNOWN-KIND "))
        .expect("listed");
    assert!(!line.trim_end().ends_with("(e.g"), "{line}");
    let o = run(&["explain", "--list", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    let rules = v["rules"].as_array().expect("rules");
    assert!(
        rules
            .iter()
            .all(|r| !r["title"].as_str().unwrap_or("…").ends_with('…')),
        "a JSON title is cut"
    );
    let wire = rules
        .iter()
        .find(|r| r["id"] == "WIRE-EVENT-UNKNOWN-KIND")
        .expect("listed");
    let title = wire["title"].as_str().expect("a title");
    assert_eq!(
        title.matches('(').count(),
        title.matches(')').count(),
        "cut inside parentheses: {title}"
    );
}

/// Rule: CLI-SANITIZE — `sanitize DIR` is refused (exit 2) saying it takes
/// one stream, naming the file to give and `check` for the folder, not
/// `I/O error: Is a directory`.
#[test]
fn sanitize_of_a_folder_says_what_to_run() {
    let o = run(&["sanitize", "spec/examples"]);
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert!(
        err.contains("spec/examples is a folder")
            && err.contains("spec/examples/events.json")
            && err.contains("inquiry-model check spec/examples"),
        "{err}"
    );
    assert!(!err.contains("Is a directory"), "{err}");
    assert!(stdout(&o).is_empty());
}

/// Rule: CLI-CONFORM — an adapter that crashes after its handshake is
/// reported with its exit status (here `exit status: 3`; a signal names the
/// signal), not only as a closed stdout: exit 1, an implementation failure.
#[test]
fn an_adapter_crash_gives_its_exit_status() {
    let adapter = r#"read l; echo '{"type":"init_ok","in_reply_to":1}'; read l; exit 3"#;
    let o = run(&[
        "conform",
        "--adapter",
        adapter,
        "--timeout",
        "5",
        "--jobs",
        "1",
    ]);
    let (out, err) = (stdout(&o), stderr(&o));
    assert_eq!(code(&o), 1, "{out}\n{err}");
    assert!(out.contains("exit status: 3"), "{out}\n{err}");
}

/// Rule: CLI-VECTORS — `vectors --language core` warns on stderr when it
/// leaves generated scenarios out (the generator draws from the whole
/// language), instead of a silent `0 generated`; without a filter, no
/// warning.
#[test]
fn vectors_warns_when_its_filters_leave_generated_scenarios_out() {
    let dir = std::env::temp_dir().join(format!("vectors-warn-{}", std::process::id()));
    let out = dir.to_str().expect("UTF-8");
    let o = run(&["vectors", "--out", out, "--language", "core"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("warning:") && err.contains("outside the core language asked"),
        "{err}"
    );
    let o = run(&["vectors", "--out", out]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Rule: AMEND-RFD-CHECK — `rfd-check`'s text names each example of a
/// block at its own line (not every one at the fence's), and a row whose
/// cells hold code marks is printed as one code span, with no doubled
/// backticks.
#[test]
fn rfd_check_names_each_example_at_its_line_and_prints_rows_as_one_span() {
    let dir = std::env::temp_dir().join(format!("rfd-check-lines-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let file = dir.join("t.md");
    std::fs::write(
        &file,
        "# T\n\n```json\n{\"id\": \"a.b.1\", \"outcome\": \"answered\", \"answer\": true}\n\n\
         {\"id\": \"a.b.2\", \"outcome\": \"cancelled\", \"reason\": \"user\"}\n```\n",
    )
    .expect("written");
    let path = file.to_str().expect("UTF-8");
    let out = stdout(&run(&["rfd-check", path]));
    assert!(out.contains(&format!("{path}:4: example 1 ")), "{out}");
    assert!(out.contains(&format!("{path}:6: example 2 ")), "{out}");
    let out = stdout(&run(&["rfd-check", "tests/rfd/rfd083-excerpt.md"]));
    assert!(out.contains(" row "), "{out}");
    assert!(!out.contains("``"), "doubled backticks:\n{out}");
    let _ = std::fs::remove_dir_all(&dir);
}
