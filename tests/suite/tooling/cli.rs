//! The `inquiry-model` binary as a user and CI run it: real processes,
//! real files, exit codes, both output formats, garbage input.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

use crate::external;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_inquiry-model"))
}

fn run_in(dir: &Path, args: &[&str]) -> Output {
    let out = bin()
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs");
    no_panic(&out);
    out
}

fn run(args: &[&str]) -> Output {
    run_in(Path::new(env!("CARGO_MANIFEST_DIR")), args)
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exited with a code, not a signal")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn no_panic(o: &Output) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "the binary panicked:\n{err}");
}

/// A folder under the system temp dir, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let p =
            std::env::temp_dir().join(format!("inquiry-model-cli-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }

    fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let p = self.0.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, bytes).unwrap();
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn lines(events: &[Value]) -> String {
    events.iter().map(|e| format!("{e}\n")).collect()
}

/// One turn, one call of `fs`, one inquiry: answered when `answered`, else
/// left without a response (a CHECK-PAIRED violation at event 2).
fn stream(answered: bool) -> String {
    let mut ev = vec![
        json!({"type": "turn_start"}),
        json!({"type": "tool_call_request", "id": "c1", "name": "fs", "arguments": {}}),
        json!({"type": "inquiry_request", "id": "c1.q.1", "source": {"source": "tool", "name": "fs"},
               "question": {"text": "Apply?", "answer_type": {"type": "boolean"}}}),
    ];
    if answered {
        ev.push(json!({"type": "inquiry_response", "outcome": "answered", "id": "c1.q.1", "answer": true}));
    }
    ev.push(json!({"type": "tool_call_response", "id": "c1", "content": "ok"}));
    lines(&ev)
}

const ORPHAN_LINE: &str = "turn 0, event 2 (line 3, column 1): error: CHECK-PAIRED: inquiry request `c1.q.1` has no response in its turn";

// ---------------------------------------------------------------------------
// Help and subcommands
// ---------------------------------------------------------------------------

/// `--help` works on the binary and on every
/// subcommand, exits 0, and documents check's options.
#[test]
fn cli_help_on_every_subcommand() {
    let top = run(&["--help"]);
    assert_eq!(code(&top), 0);
    let text = stdout(&top);
    assert!(text.contains("summary") && text.contains("check"), "{text}");
    let check = run(&["check", "--help"]);
    assert_eq!(code(&check), 0);
    let text = stdout(&check);
    for needle in [
        "--profile",
        "--format",
        "auto",
        "rfd082",
        "json",
        "events.json",
    ] {
        assert!(
            text.contains(needle),
            "check --help lacks {needle}:\n{text}"
        );
    }
    let summary = run(&["summary", "--help"]);
    assert_eq!(code(&summary), 0);
    assert!(stdout(&summary).contains("Usage"));
}

/// `summary` still reads the bundled examples.
#[test]
fn cli_summary_still_works() {
    let out = run(&["summary", "spec/examples"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("legacy-backend-answered.jsonl: 7 events in 1 turn"),
        "{text}"
    );
    assert!(text.contains("inquiry pairs: 1"), "{text}");
}

/// Usage errors exit 2: no path, an unknown profile, an
/// unknown format, an unknown subcommand.
#[test]
fn cli_usage_errors_exit_2() {
    for args in [
        &["check"][..],
        &["check", "--profile", "rfd999", "spec/examples"],
        &["check", "--format", "xml", "spec/examples"],
        &["frobnicate"],
    ] {
        let out = run(args);
        assert_eq!(code(&out), 2, "{args:?}");
        assert!(!stderr(&out).is_empty(), "{args:?} explains itself");
    }
}

// ---------------------------------------------------------------------------
// check: exit codes and text output
// ---------------------------------------------------------------------------

/// Rule: CHECK-PAIRED — the fixture folder (files not named events.json) is
/// checked file by file: all clean, judged legacy, exit 0.
#[test]
fn cli_check_fixture_folder_is_clean() {
    for dir in external::legacy_stream_folders("cli::cli_check_fixture_folder_is_clean") {
        let n = external::json_files(&dir).len();
        let out = run(&["check", dir.to_str().unwrap()]);
        assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
        let text = stdout(&out);
        let clean: Vec<&str> = text.lines().filter(|l| l.contains(": clean (")).collect();
        assert_eq!(clean.len(), n, "{text}");
        assert!(
            clean.iter().all(|l| l.ends_with("judged legacy)")),
            "{text}"
        );
        assert_eq!(
            text.lines().last(),
            Some(
                format!(
                    "checked {n} files: {n} clean, 0 with violations, 0 unusable; 0 violations"
                )
                .as_str()
            )
        );
    }
    let bundled = run(&["check", "spec/examples"]);
    assert_eq!(code(&bundled), 0, "{}", stdout(&bundled));
}

/// Rule: CHECK-ID-FORMAT — an explicit profile changes the verdict: the
/// fixtures are a legacy writer's, so rfd082 finds violations (exit 1) and
/// legacy finds none (exit 0).
#[test]
fn cli_check_profile_flag() {
    for dir in external::legacy_stream_folders("cli::cli_check_profile_flag") {
        let dir = dir.to_str().unwrap();
        let strict = run(&["check", "--profile", "rfd082", dir]);
        assert_eq!(code(&strict), 1);
        assert!(stdout(&strict).contains(": CHECK-ID-FORMAT: "));
        assert!(stdout(&strict).contains(": CHECK-RESPONSE-TAGGED: "));
        let legacy = run(&["check", "--profile", "legacy", dir]);
        assert_eq!(code(&legacy), 0, "{}", stdout(&legacy));
    }
}

/// Rule: CHECK-PAIRED — a violating file exits 1 and prints one line per
/// violation naming file, turn, event and rule, then its status line.
#[test]
fn cli_check_violation_exits_1() {
    let dir = TempDir::new("violation");
    dir.write("bad.jsonl", stream(false));
    dir.write("good.jsonl", stream(true));
    let out = run_in(&dir.0, &["check", "bad.jsonl", "good.jsonl"]);
    assert_eq!(code(&out), 1);
    let text = stdout(&out);
    insta::assert_snapshot!(text);
    assert!(
        text.starts_with(&format!("bad.jsonl: {ORPHAN_LINE}\n")),
        "{text}"
    );
}

/// Unreadable input exits 2 even when another file has
/// violations; every file is still checked. A stream cut short inside its
/// last event is not unusable: the cut is a CHECK-EVENT-WELL-FORMED finding
/// naming the file, event, line and column (decision "Oracle checks: check
/// reads past a malformed event").
#[test]
fn cli_check_unusable_wins_over_violations() {
    let dir = TempDir::new("unusable");
    dir.write("bad.jsonl", stream(false));
    let mut cut = stream(true);
    cut.truncate(cut.len() - 10);
    dir.write("cut.jsonl", cut);
    dir.write("good.jsonl", stream(true));
    let out = run_in(
        &dir.0,
        &[
            "check",
            "bad.jsonl",
            "missing.json",
            "cut.jsonl",
            "good.jsonl",
        ],
    );
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(err.contains("missing.json: cannot open"), "{err}");
    assert!(!err.contains("cut.jsonl"), "{err}");
    let text = stdout(&out);
    assert!(
        text.contains("cut.jsonl: turn 0, event 4 (line 5, column ")
            && text.contains(
                "CHECK-EVENT-WELL-FORMED: malformed event (unexpected end of input): unexpected \
                 end of input inside an unterminated string"
            ),
        "{text}"
    );
    assert!(
        text.contains(&format!("bad.jsonl: {ORPHAN_LINE}")),
        "{text}"
    );
    assert!(text.contains("good.jsonl: clean"), "{text}");
    assert!(
        text.ends_with("checked 4 files: 1 clean, 2 with violations, 1 unusable; 2 violations\n"),
        "{text}"
    );
}

/// `-` reads the stream from stdin.
#[test]
fn cli_check_stdin() {
    for (body, want) in [(stream(false), 1), (stream(true), 0)] {
        let mut child = bin()
            .args(["check", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(body.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        no_panic(&out);
        assert_eq!(code(&out), want);
        let text = stdout(&out);
        if want == 1 {
            assert!(
                text.starts_with(&format!("<stdin>: {ORPHAN_LINE}\n")),
                "{text}"
            );
        } else {
            assert!(
                text.starts_with("<stdin>: clean (5 events, 1 turn, judged rfd082)"),
                "{text}"
            );
        }
    }
}

/// The stream as a JSON array, as a writer persists `events.json`.
fn array(answered: bool) -> String {
    format!("[{}]", stream(answered).trim_end().replace('\n', ","))
}

/// A folder is searched recursively: in a conversation
/// folder only `events.json` is taken (its `metadata.json` is not a stream),
/// elsewhere every `*.jsonl` and every `*.json` shaped like a stream (an
/// array of event objects); other JSON is skipped and counted, not
/// unusable; VCS and cache-tagged folders are not entered; a folder
/// without streams is unusable.
#[test]
fn cli_check_folder_argument() {
    let dir = TempDir::new("folders");
    dir.write("conversations/a/events.json", array(true));
    dir.write(
        "conversations/a/metadata.json",
        r#"{"title": "not a stream"}"#,
    );
    dir.write("conversations/b/events.json", stream(false));
    dir.write("loose/x.json", array(true));
    dir.write("loose/deeper/y.jsonl", stream(true));
    // A real writer may write `timestamp` before `type`: still a stream.
    dir.write(
        "loose/timestamp-first.json",
        r#"[{"timestamp": "2026-04-10 17:04:20.531233", "type": "turn_start"}]"#,
    );
    dir.write("loose/notes.md", "not json");
    dir.write("loose/config.json", r#"{"name": "not a stream"}"#);
    dir.write(
        "loose/commands.json",
        r#"[{"directory": "/", "file": "a.c"}]"#,
    );
    dir.write("loose/seed.json", r#"{"type": "turn_start"}"#);
    // Never entered: a VCS store and a cache folder (cargo's `target/`).
    dir.write("loose/.git/broken.jsonl", "{");
    dir.write(
        "loose/target/CACHEDIR.TAG",
        "Signature: 8a477f597d28d172789f06886806bc55",
    );
    dir.write("loose/target/broken.jsonl", "{");
    std::fs::create_dir_all(dir.0.join("empty")).unwrap();
    dir.write("config-only/settings.json", r#"{"a": 1}"#);

    let out = run_in(&dir.0, &["check", "conversations"]);
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("conversations/a/events.json: clean"),
        "{text}"
    );
    assert!(
        text.contains(&format!("conversations/b/events.json: {ORPHAN_LINE}")),
        "{text}"
    );
    assert!(!text.contains("metadata.json"), "{text}");
    assert!(text.contains("checked 2 files:"), "{text}");
    assert!(
        text.contains("skipped 1 file that is not a stream"),
        "{text}"
    );

    let out = run_in(&dir.0, &["check", "loose"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("loose/x.json: clean")
            && text.contains("loose/deeper/y.jsonl: clean")
            && text.contains("loose/timestamp-first.json: clean"),
        "{text}"
    );
    assert!(text.contains("checked 3 files:"), "{text}");
    assert!(
        text.contains("skipped 3 files that are not streams"),
        "{text}"
    );

    // A file named on the command line is read whatever its shape.
    let out = run_in(&dir.0, &["check", "loose/config.json"]);
    assert_eq!(code(&out), 2, "{}", stdout(&out));

    let out = run_in(&dir.0, &["check", "empty"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("empty: no stream files here"),
        "{}",
        stderr(&out)
    );
    let out = run_in(&dir.0, &["check", "config-only"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("skipped 1 file that is not a stream"),
        "{}",
        stderr(&out)
    );
}

/// `--include` adds files whatever their shape, `--exclude` removes files
/// and whole folders (and wins over `--include`); globs are relative to the
/// folder given, `**` crosses folders, a glob without `/` matches a name at
/// any depth.
#[test]
fn cli_check_include_and_exclude() {
    let dir = TempDir::new("globs");
    dir.write("s/a/events.json", array(false));
    dir.write("s/b/x.jsonl", stream(true));
    dir.write("s/b/seed.json", stream(true));
    dir.write("s/c/deep/z.jsonl", stream(false));

    let out = run_in(&dir.0, &["check", "s"]);
    assert_eq!(code(&out), 1);
    assert!(
        stdout(&out).contains("checked 3 files:"),
        "{}",
        stdout(&out)
    );

    // The JSON Lines stream in a `.json` file is read when included.
    let out = run_in(&dir.0, &["check", "--include", "b/*.json", "s"]);
    assert!(
        stdout(&out).contains("s/b/seed.json: clean"),
        "{}",
        stdout(&out)
    );
    assert!(
        stdout(&out).contains("checked 4 files:"),
        "{}",
        stdout(&out)
    );

    // Excluding the two folders with violations leaves a clean run.
    let out = run_in(
        &dir.0,
        &["check", "--exclude", "a", "--exclude", "c/**", "s"],
    );
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    let text = stdout(&out);
    assert!(text.contains("checked 1 file:"), "{text}");
    assert!(
        !text.contains("events.json") && !text.contains("z.jsonl"),
        "{text}"
    );

    // Exclude wins over include; a name glob matches at any depth.
    let out = run_in(
        &dir.0,
        &[
            "check",
            "--include",
            "*.json",
            "--exclude",
            "seed.json",
            "--exclude",
            "**/deep",
            "s",
        ],
    );
    let text = stdout(&out);
    assert!(
        !text.contains("seed.json:") && !text.contains("z.jsonl"),
        "{text}"
    );
    assert!(text.contains("checked 2 files:"), "{text}");
}

/// Rule: CLI-CHECK-WALK — in a git work tree, `check .` skips what
/// `.gitignore` names (a folder and a file glob), and `.ignore` files are
/// honoured too, as ripgrep's walker does; a file named on the command line
/// is read even when ignored.
#[test]
fn cli_check_honours_gitignore() {
    let dir = TempDir::new("gitignore");
    let git = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&dir.0)
        .status()
        .expect("git runs");
    assert!(git.success());
    dir.write(".gitignore", "/generated/\n*.tmp.jsonl\n");
    dir.write("kept/a.jsonl", stream(true));
    dir.write("generated/bad.jsonl", stream(false));
    dir.write("kept/scratch.tmp.jsonl", stream(false));
    dir.write("other/.ignore", "old/\n");
    dir.write("other/old/bad.jsonl", stream(false));
    dir.write("other/b.jsonl", stream(true));

    let out = run_in(&dir.0, &["check", "."]);
    let text = stdout(&out);
    assert_eq!(code(&out), 0, "{text}{}", stderr(&out));
    assert!(text.contains("checked 2 files:"), "{text}");
    assert!(
        !text.contains("generated") && !text.contains("scratch") && !text.contains("old/"),
        "{text}"
    );
    // Named explicitly, an ignored file is still read.
    let out = run_in(&dir.0, &["check", "generated/bad.jsonl"]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
}

/// The README's SARIF example, `check --format sarif .`, run on this
/// repository: it reads the streams (examples, corpora, seeds), skips the
/// rest (vectors, schemas, profiles, cargo's `target/`), and exits by its
/// findings (0 or 1), never 2.
#[test]
fn cli_check_sarif_on_the_repository_exits_by_its_findings() {
    let out = run_in(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &["check", "--format", "sarif", "."],
    );
    no_panic(&out);
    assert!(
        matches!(code(&out), 0 | 1),
        "exit {}: {}",
        code(&out),
        stderr(&out)
    );
    let log: Value = serde_json::from_slice(&out.stdout).expect("one SARIF document");
    let run = &log["runs"][0];
    assert_eq!(run["invocations"][0]["executionSuccessful"], true);
    assert_eq!(run["invocations"][0]["exitCode"], code(&out));
    let uris: Vec<&str> = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert!(
        !uris
            .iter()
            .any(|u| u.contains("spec/vectors/") || u.contains("target/")),
        "{uris:?}"
    );
}

// ---------------------------------------------------------------------------
// check --format json
// ---------------------------------------------------------------------------

/// `--format json` prints one version-1 document that
/// parses back, with every file, its diagnostics, and a summary whose exit
/// code is the process's.
#[test]
fn cli_check_json_document() {
    let dir = TempDir::new("json");
    dir.write("bad.jsonl", stream(false));
    dir.write("good.jsonl", stream(true));
    dir.write("empty.json", "");
    let out = run_in(
        &dir.0,
        &[
            "check",
            "--format",
            "json",
            "bad.jsonl",
            "good.jsonl",
            "empty.json",
        ],
    );
    assert_eq!(code(&out), 2);
    let doc: Value = serde_json::from_slice(&out.stdout).expect("stdout is one JSON document");
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["requested_profile"], "auto");
    assert_eq!(doc["files"].as_array().unwrap().len(), 3);
    let bad = &doc["files"][0];
    assert_eq!(bad["path"], "bad.jsonl");
    assert_eq!(bad["status"], "violations");
    assert_eq!(bad["diagnostics"][0]["rule"], "CHECK-PAIRED");
    assert_eq!(bad["diagnostics"][0]["turn"], 0);
    assert_eq!(bad["diagnostics"][0]["event_index"], 2);
    assert_eq!(bad["diagnostics"][0]["ids"], json!(["c1.q.1"]));
    assert_eq!(doc["files"][1]["status"], "clean");
    assert_eq!(doc["files"][2]["status"], "unusable");
    assert_eq!(doc["summary"]["exit_code"], 2);
    assert_eq!(doc["summary"]["by_rule"]["CHECK-PAIRED"], 1);
    insta::assert_json_snapshot!(doc);

    for dir in external::legacy_stream_folders("cli::cli_check_json_document") {
        let n = external::json_files(&dir).len();
        let clean = run(&["check", "--format", "json", dir.to_str().unwrap()]);
        assert_eq!(code(&clean), 0);
        let doc: Value = serde_json::from_slice(&clean.stdout).unwrap();
        assert_eq!(doc["summary"]["files"], n);
        assert_eq!(doc["summary"]["clean"], n);
        assert!(
            doc["files"]
                .as_array()
                .unwrap()
                .iter()
                .all(|f| f["profile"] == "legacy")
        );
    }
}

// ---------------------------------------------------------------------------
// Garbage and size
// ---------------------------------------------------------------------------

/// Garbage is rejected with a message naming the file
/// and position (exit 2), never a panic: empty, truncated, binary, 100 000
/// nested `[` (bare and inside an event), non-objects, an object without
/// `type`.
#[test]
fn cli_check_garbage_is_rejected_clearly() {
    let dir = TempDir::new("garbage");
    let mut binary: Vec<u8> = (0u8..=255).collect();
    binary.extend((0u8..=255).rev());
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty.json", Vec::new(), "empty input"),
        ("blank.jsonl", b"  \n\n".to_vec(), "empty input"),
        (
            "truncated.json",
            br#"[{"type":"turn_start","#.to_vec(),
            "event 0",
        ),
        ("binary.json", binary, "expected `[`"),
        (
            "nested.json",
            vec![b'['; 100_000],
            "expected an event object",
        ),
        (
            "nested_event.json",
            [
                &b"[{\"type\":\"x\",\"a\":"[..],
                &vec![b'['; 100_000],
                &vec![b']'; 100_000],
                b"}]",
            ]
            .concat(),
            "recursion limit",
        ),
        (
            "numbers.json",
            b"[1,2,3]".to_vec(),
            "expected an event object",
        ),
        ("untyped.jsonl", b"{\"id\":1}\n".to_vec(), "no `type`"),
        (
            "bad_utf8.jsonl",
            b"{\"type\":\"\xff\xfe\"}\n".to_vec(),
            "event 0",
        ),
    ];
    for (name, bytes, needle) in cases {
        dir.write(name, &bytes);
        let out = run_in(&dir.0, &["check", name]);
        assert_eq!(code(&out), 2, "{name}: {}", stdout(&out));
        let err = stderr(&out);
        assert!(err.starts_with(&format!("{name}: ")), "{name}: {err}");
        assert!(err.contains("line "), "{name}: {err}");
        assert!(err.contains(needle), "{name}: expected `{needle}` in {err}");
        assert_eq!(err.lines().count(), 1, "{name}: one line per error: {err}");
    }
}

/// Peak resident memory of a running process, in KiB (Linux only).
fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// Removes a file when dropped, so a failing test leaves no 100 MB behind.
struct TempFile(PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Rule: CHECK-PAIRED — a ~100 MB valid stream is judged to its last event
/// with memory that does not grow with the file (peak RSS far below the file
/// size), and the one violation planted in its last turn is found.
#[test]
fn cli_check_large_stream_in_bounded_memory() {
    let path = std::env::temp_dir().join(format!(
        "inquiry-model-cli-{}-large.jsonl",
        std::process::id()
    ));
    let file = TempFile(path.clone());
    let pad = "QUJDRA==".repeat(1024); // 8 KiB of base64-looking text
    let mut w = BufWriter::new(std::fs::File::create(&file.0).unwrap());
    let (mut events, mut turn, mut size) = (0usize, 0usize, 0usize);
    while size < 100 * 1024 * 1024 {
        let call = format!("toolu_{turn}");
        let lines = [
            format!(r#"{{"type":"turn_start","timestamp":"2026-05-12 10:00:00.{turn:06}"}}"#),
            format!(r#"{{"type":"chat_request","content":"{pad}"}}"#),
            format!(
                r#"{{"type":"tool_call_request","id":"{call}","name":"fs","arguments":"{pad}"}}"#
            ),
            format!(
                r#"{{"type":"inquiry_request","id":"{call}.q.1","source":{{"source":"tool","name":"fs"}},"question":{{"text":"Apply?","answer_type":{{"type":"boolean"}}}}}}"#
            ),
            format!(
                r#"{{"type":"inquiry_response","outcome":"answered","id":"{call}.q.1","answer":true}}"#
            ),
            format!(r#"{{"type":"tool_call_response","id":"{call}","content":"{pad}"}}"#),
            format!(r#"{{"type":"chat_response","message":"{pad}"}}"#),
        ];
        for l in &lines {
            w.write_all(l.as_bytes()).unwrap();
            w.write_all(b"\n").unwrap();
            size += l.len() + 1;
        }
        events += lines.len();
        turn += 1;
    }
    // The last turn: a request left without its response.
    for l in [
        r#"{"type":"turn_start"}"#.to_owned(),
        r#"{"type":"tool_call_request","id":"last","name":"fs"}"#.to_owned(),
        r#"{"type":"inquiry_request","id":"last.q.1","source":{"source":"tool","name":"fs"},"question":{"text":"?","answer_type":{"type":"text"}}}"#.to_owned(),
        r#"{"type":"tool_call_response","id":"last"}"#.to_owned(),
    ] {
        w.write_all(l.as_bytes()).unwrap();
        w.write_all(b"\n").unwrap();
    }
    w.flush().unwrap();
    drop(w);
    let orphan = events + 2;

    let mut child = bin()
        .args(["check".as_ref(), file.0.as_os_str()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut peak = 0u64;
    while child.try_wait().unwrap().is_none() {
        if let Some(kib) = peak_rss_kib(pid) {
            peak = peak.max(kib);
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let out = child.wait_with_output().unwrap();
    no_panic(&out);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let text = stdout(&out);
    let found: Vec<&str> = text.lines().filter(|l| l.contains(": CHECK-")).collect();
    assert_eq!(found.len(), 1, "{text}");
    assert!(
        found[0].ends_with(&format!(
            ": turn {turn}, event {orphan} (line {}, column 1): error: CHECK-PAIRED: inquiry request `last.q.1` has no response in its turn",
            orphan + 1
        )),
        "{}",
        found[0]
    );
    assert!(
        text.contains(&format!("{} events, {} turns", events + 4, turn + 1)),
        "{text}"
    );
    if cfg!(target_os = "linux") {
        assert!(peak > 0, "peak RSS was sampled");
        assert!(
            peak < 48 * 1024,
            "peak RSS {peak} KiB grows with the 100 MB file"
        );
    }
}

// ---------------------------------------------------------------------------
// sanitize
// ---------------------------------------------------------------------------

/// A stream with one of each repair: an inquiry request never answered, a
/// tool call never answered, an inquiry response with no request, and a
/// tool-call response with no request; plus a clean second turn.
fn needs_repair() -> Vec<inquiry_model::wire::Event> {
    use inquiry_model::generate::stream::*;
    use inquiry_model::wire::InquiryId;
    let id = InquiryId::new("toolu_a", "apply", 1);
    let stray = InquiryId::new("toolu_z", "apply", 1);
    vec![
        turn_start(),
        chat_request(),
        tool_call_request("toolu_a"),
        inquiry_request(id.clone()),
        answered(stray, json!(true)),
        chat_response(),
        tool_call_response("toolu_gone"),
        turn_start(),
        tool_call_request("toolu_b"),
        inquiry_request(id.clone()),
        answered(id, json!(false)),
        tool_call_response("toolu_b"),
        chat_response(),
    ]
}

/// Rule: CLI-SANITIZE — `sanitize` writes exactly the library's repair of
/// the stream (as JSON Lines), reports every removal and injection as the
/// library does (`--report json`), and exits 1 because it repaired.
#[test]
fn sanitize_writes_the_library_repair_and_exits_1() {
    use inquiry_model::stream::sanitize;
    use inquiry_model::wire::Stream;
    let events = needs_repair();
    let dir = TempDir::new("sanitize-repair");
    let mut input = Vec::new();
    Stream::new(events.clone())
        .write_json_lines(&mut input)
        .unwrap();
    let path = dir.write("in.jsonl", &input);
    let want = sanitize(events.clone());
    assert_eq!(want.removed.len(), 3, "the stream needs three removals");
    assert_eq!(want.injected.len(), 1, "and one injection");
    let mut want_bytes = Vec::new();
    Stream::new(want.events.clone())
        .write_json_lines(&mut want_bytes)
        .unwrap();

    let o = run(&["sanitize", path.to_str().unwrap(), "--report", "json"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert_eq!(stdout(&o), String::from_utf8(want_bytes).unwrap());
    let report: Value = serde_json::from_str(&stderr(&o)).expect("the report is JSON");
    assert_eq!(report["version"], 1);
    assert_eq!(report["events_in"], events.len());
    assert_eq!(report["events_out"], want.events.len());
    assert_eq!(
        report["removed"],
        serde_json::to_value(&want.removed).unwrap()
    );
    assert_eq!(
        report["injected"],
        serde_json::to_value(&want.injected).unwrap()
    );

    // The text report names every repair and sums them up.
    let o = run(&["sanitize", path.to_str().unwrap()]);
    assert_eq!(code(&o), 1);
    let err = stderr(&o);
    assert_eq!(err.matches(": removed: ").count(), 3, "{err}");
    assert_eq!(err.matches(": injected: ").count(), 1, "{err}");
    assert!(
        err.contains(&format!(
            "{} events in, {} out; 3 removed, 1 injected",
            events.len(),
            want.events.len()
        )),
        "{err}"
    );
}

/// Rule: CLI-SANITIZE — a clean stream (every real fixture is one) is
/// written back event for event, exit 0; `--format array --out FILE`
/// writes the same events as a JSON array.
#[test]
fn sanitize_of_a_clean_stream_is_the_stream_and_exits_0() {
    use inquiry_model::wire::Stream;
    let dir = TempDir::new("sanitize-clean");
    let fixtures =
        external::legacy_stream_files("cli::sanitize_of_a_clean_stream_is_the_stream_and_exits_0");
    for f in &fixtures {
        let input = Stream::from_slice(&std::fs::read(f).unwrap(), "fixture").unwrap();
        let o = run(&["sanitize", f.to_str().unwrap()]);
        assert_eq!(code(&o), 0, "{}: {}", f.display(), stderr(&o));
        let back = Stream::from_slice(&o.stdout, "out").expect("the output reads back");
        assert_eq!(back, input, "{}", f.display());
        assert!(
            stderr(&o).contains("0 removed, 0 injected"),
            "{}",
            stderr(&o)
        );

        let out = dir.0.join("out.json");
        let o = run(&[
            "sanitize",
            f.to_str().unwrap(),
            "--format",
            "array",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code(&o), 0);
        assert!(o.stdout.is_empty(), "--out leaves stdout empty");
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(text.trim_start().starts_with('['), "an array");
        assert_eq!(Stream::from_slice(text.as_bytes(), "out").unwrap(), input);
    }
}

/// Rule: CLI-SANITIZE — unusable input is exit 2 with the file, line and
/// column, and nothing on stdout; a missing file and an unwritable `--out`
/// are exit 2 too; `sanitize --help` answers.
#[test]
fn sanitize_refuses_unusable_input_with_its_position() {
    let dir = TempDir::new("sanitize-bad");
    let bad = dir.write("bad.jsonl", "{\"type\":\"turn_start\"}\n{\"type\":");
    let o = run(&["sanitize", bad.to_str().unwrap()]);
    assert_eq!(code(&o), 2);
    assert!(o.stdout.is_empty());
    let err = stderr(&o);
    assert!(
        err.contains("bad.jsonl") && err.contains("event 1") && err.contains("line 2"),
        "{err}"
    );

    let o = run(&["sanitize", dir.0.join("missing.jsonl").to_str().unwrap()]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("cannot open"), "{}", stderr(&o));

    let good = dir.write("good.jsonl", stream(true));
    let o = run(&[
        "sanitize",
        good.to_str().unwrap(),
        "--out",
        dir.0.join("no/such/folder/out.jsonl").to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("cannot create"), "{}", stderr(&o));

    let o = run(&["sanitize", "--help"]);
    assert_eq!(code(&o), 0);
    assert!(stdout(&o).contains("Usage"));
}

// ---------------------------------------------------------------------------
// Conventions: colour, JSON, messages, exit codes
// ---------------------------------------------------------------------------

/// Runs in `dir` with extra environment variables, the colour ones cleared.
fn run_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = bin();
    c.args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE");
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().expect("the binary runs");
    no_panic(&out);
    out
}

/// Rule: CLI-PROGRESS — `check --progress always` counts the bytes it
/// reads on stderr, ending with the whole count and the number of files;
/// `-v` prints that last count without `--progress`; `-q` silences it; stdout
/// and the exit code are the same in every case.
#[test]
fn check_counts_bytes_on_stderr() {
    let dir = TempDir::new("progress");
    let text = stream(false);
    dir.write("bad.jsonl", &text);
    let n = text.len();
    // Under 1 KiB a count is shown in bytes (`512 B`).
    assert!(n < 1024, "{n}");
    let plain = run_in(&dir.0, &["check", "bad.jsonl"]);
    let shown = run_in(&dir.0, &["check", "--progress", "always", "bad.jsonl"]);
    let quiet = run_in(
        &dir.0,
        &["check", "--progress", "always", "-q", "bad.jsonl"],
    );
    let verbose = run_in(&dir.0, &["check", "-v", "bad.jsonl"]);
    assert_eq!(code(&plain), 1);
    for o in [&shown, &verbose] {
        assert_eq!(code(o), code(&plain));
        assert_eq!(o.stdout, plain.stdout, "stdout is the same");
    }
    // `-q` drops the line per file only (CLI-CHECK-QUIET).
    assert_eq!(code(&quiet), code(&plain));
    assert!(plain.stderr.is_empty(), "{}", stderr(&plain));
    assert!(quiet.stderr.is_empty(), "-q: {}", stderr(&quiet));
    let whole = format!("check: {n} B/{n} B 1 file in ");
    for o in [&shown, &verbose] {
        let err = stderr(o);
        assert!(
            err.lines()
                .last()
                .is_some_and(|l| l.starts_with(&whole) && l.ends_with(" s")),
            "{err}"
        );
    }
}

/// Rule: CLI-COLOR — `check`'s severities are coloured with `--color
/// always` and with `CLICOLOR_FORCE` into a pipe, and not with `auto` into
/// a pipe, `--color never`, or `NO_COLOR` (which wins over
/// `CLICOLOR_FORCE`); the coloured line is the plain one plus the codes.
#[test]
fn check_colours_severities_as_told() {
    let dir = TempDir::new("colour");
    dir.write("bad.jsonl", stream(false));
    let red = "\x1b[1;31merror\x1b[0m";
    /// Flags, environment, whether coloured.
    type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], bool);
    let cases: [Case; 6] = [
        (&["--color", "always"], &[], true),
        (&[], &[("CLICOLOR_FORCE", "1")], true),
        (&[], &[], false),
        (&["--color", "never"], &[("CLICOLOR_FORCE", "1")], false),
        (&[], &[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")], false),
        (&["--color", "auto"], &[("NO_COLOR", "1")], false),
    ];
    for (flags, env, coloured) in cases {
        let args = [&["check", "bad.jsonl"][..], flags].concat();
        let o = run_env(&dir.0, &args, env);
        assert_eq!(code(&o), 1);
        let text = stdout(&o);
        assert_eq!(text.contains(red), coloured, "{flags:?} {env:?}: {text}");
        assert_eq!(text.contains('\x1b'), coloured, "{flags:?} {env:?}");
        let plain = text.replace("\x1b[1;31m", "").replace("\x1b[0m", "");
        assert!(
            plain.starts_with(&format!("bad.jsonl: {ORPHAN_LINE}\n")),
            "{plain}"
        );
    }
}

/// Rule: CLI-JSON — `summary --format json` is one document with
/// `"version": 1` first; per input its counts and pairs, or the error that
/// made it unusable (exit 2).
#[test]
fn summary_prints_versioned_json() {
    let o = run(&[
        "summary",
        "--format",
        "json",
        "spec/examples/legacy-backend-answered.jsonl",
        "no-such-file.json",
    ]);
    assert_eq!(code(&o), 2);
    let text = stdout(&o);
    assert!(text.starts_with("{\"version\":1,"), "{text}");
    let v: Value = serde_json::from_str(&text).unwrap();
    let files = v["files"].as_array().unwrap();
    assert_eq!(files[0]["events"], 7);
    assert_eq!(files[0]["turns"], 1);
    assert_eq!(files[0]["pairs"][0]["outcome"], "answered true");
    assert_eq!(files[1]["path"], "no-such-file.json");
    assert!(files[1]["error"].as_str().is_some_and(|e| !e.is_empty()));
}

/// Rule: WIRE-READ-ERRORS — an unterminated string is reported as one,
/// with where it opens (line 1 of a one-line file whose newline the string
/// swallowed), the error itself at the end of input as every truncation's.
#[test]
fn an_unterminated_string_is_named_where_it_opens() {
    let dir = TempDir::new("unterminated");
    dir.write("cut.jsonl", "{\"type\":\"turn_start\",\"x\":\"abc}\n");
    let o = run_in(&dir.0, &["summary", "cut.jsonl"]);
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert!(
        err.contains(
            "cut.jsonl: event 0 (line 2, column 1): unexpected end of input inside an \
             unterminated string (opened at line 1, column 26;"
        ),
        "{err}"
    );
    assert!(!err.contains("inside an event object"), "{err}");
}

/// Rule: WIRE-READ-ERRORS — UTF-16 input (either byte-order mark, or none
/// with NUL bytes beside the characters) is refused with a hint that it
/// looks like UTF-16 and streams are UTF-8.
#[test]
fn utf16_input_gets_a_hint() {
    let dir = TempDir::new("utf16");
    let text = stream(true);
    let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
    for (name, bytes) in [
        ("le-bom.jsonl", [&[0xFF, 0xFE][..], &le].concat()),
        ("be-bom.jsonl", [&[0xFE, 0xFF][..], &be].concat()),
        ("le.jsonl", le.clone()),
        ("be.jsonl", be.clone()),
    ] {
        dir.write(name, bytes);
        let o = run_in(&dir.0, &["check", name]);
        assert_eq!(code(&o), 2, "{name}");
        let err = stderr(&o);
        assert!(
            err.contains(name) && err.contains("looks like UTF-16") && err.contains("UTF-8"),
            "{name}: {err}"
        );
    }
}

/// Rule: CLI-EXIT-CODES — `rfd-check` on a file with nothing it can check
/// (no table, no example) exits 2 and says so, instead of "0 agree, 0
/// disagree" and exit 0.
#[test]
fn rfd_check_with_nothing_to_check_exits_2() {
    let dir = TempDir::new("rfd-nothing");
    dir.write("notes.md", "# Notes\n\nNo table here, no json block.\n");
    let o = run_in(&dir.0, &["rfd-check", "notes.md"]);
    assert_eq!(code(&o), 2, "{}", stdout(&o));
    assert!(stderr(&o).contains("nothing checked"), "{}", stderr(&o));
}

/// The exit codes a command's one-line help states (`Exit 0: ...; 1: ...;
/// 2: ...`), from the top-level `--help`.
fn documented_codes(help: &str, command: &str) -> Vec<i32> {
    let line = help
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{command} ")))
        .unwrap_or_else(|| panic!("{command} is listed in --help"));
    let exit = line
        .split_once("Exit ")
        .unwrap_or_else(|| panic!("{command}'s help states its exit codes: {line}"))
        .1;
    exit.split(';')
        .filter_map(|part| part.trim().split(':').next()?.trim().parse().ok())
        .collect()
}

/// Rule: CLI-EXIT-CODES — every command's help states its exit codes, and
/// each stated code is what the command returns in a case that calls for
/// it (and no case returns a code its help does not state); the README
/// states the codes of `make run`, `rfd-check` and `invariants` as they
/// are.
#[test]
fn every_command_exits_as_its_help_says() {
    let dir = TempDir::new("exit-codes");
    dir.write("bad.jsonl", stream(false));
    dir.write("good.jsonl", stream(true));
    dir.write("notes.md", "# Notes\n");
    let root = env!("CARGO_MANIFEST_DIR");
    let ex = format!("{root}/spec/examples/legacy-backend-answered.jsonl");
    // A file where `vectors --out` needs a folder.
    dir.write("not-a-folder", "x");
    let vector = dir.0.join("not-a-folder").to_str().unwrap().to_owned();
    let vectors_dir = dir.0.join("vectors");
    let rfd083 = format!("{root}/tests/rfd/rfd083-excerpt.md");
    // No sampled scenarios: some draw the RFD 083 ID collision the README
    // describes, which `invariants --profile rfd083` reports.
    let small = ["--stride", "50000", "--sample", "0"];
    let some_vector = std::fs::read_dir(format!("{root}/spec/vectors"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .next()
        .unwrap();
    let some_vector = some_vector.to_str().unwrap();
    let out = vectors_dir.to_str().unwrap();
    let cases: Vec<(&str, Vec<&str>, i32)> = vec![
        ("summary", vec!["summary", "good.jsonl"], 0),
        ("summary", vec!["summary", "missing.jsonl"], 2),
        ("check", vec!["check", "good.jsonl"], 0),
        ("check", vec!["check", "bad.jsonl"], 1),
        ("check", vec!["check", "missing.jsonl"], 2),
        ("sanitize", vec!["sanitize", "good.jsonl"], 0),
        ("sanitize", vec!["sanitize", "bad.jsonl"], 1),
        ("sanitize", vec!["sanitize", "missing.jsonl"], 2),
        ("run", vec!["run", some_vector], 0),
        ("run", vec!["run", &ex], 2),
        ("vectors", vec!["vectors", "--out", out, "--count", "0"], 0),
        ("vectors", vec!["vectors", "--out", &vector], 2),
        (
            "conform",
            vec![
                "conform",
                "--adapter",
                "python3 examples/conform_adapter.py",
                "--generated",
                "2",
            ],
            0,
        ),
        (
            "conform",
            vec![
                "conform",
                "--adapter",
                r#"read l; echo '{"type":"init_ok","in_reply_to":1}'; while read l; do echo nope; done"#,
                "--timeout",
                "5",
                "--no-vectors",
                "--generated",
                "1",
            ],
            1,
        ),
        ("conform", vec!["conform", "--adapter", "exit 3"], 2),
        ("explain", vec!["explain", "CHECK-PAIRED"], 0),
        ("explain", vec!["explain", "NO-SUCH-RULE"], 2),
        (
            "explore",
            vec!["explore", "--scope", "single", "--stride", "50000"],
            0,
        ),
        ("explore", vec!["explore", "--stride", "0"], 2),
        (
            "diff-profiles",
            [
                &["diff-profiles", "--from", "rfd082", "--to", "rfd083"][..],
                &small,
            ]
            .concat(),
            0,
        ),
        (
            "diff-profiles",
            [
                &["diff-profiles", "--from", "rfd083", "--to", "legacy"][..],
                &small,
            ]
            .concat(),
            1,
        ),
        (
            "diff-profiles",
            vec!["diff-profiles", "--from", "x", "--to", "legacy"],
            2,
        ),
        (
            "invariants",
            [&["invariants", "--profile", "rfd083"][..], &small].concat(),
            0,
        ),
        (
            "invariants",
            [&["invariants", "--profile", "legacy"][..], &small].concat(),
            1,
        ),
        ("invariants", vec!["invariants", "--profile", "."], 2),
        ("rfd-check", vec!["rfd-check", &rfd083], 0),
        (
            "rfd-check",
            vec!["rfd-check", &rfd083, "--profile", "rfd082"],
            1,
        ),
        ("rfd-check", vec!["rfd-check", "notes.md"], 2),
    ];
    let help = stdout(&run(&["--help"]));
    for command in [
        "summary",
        "check",
        "sanitize",
        "run",
        "vectors",
        "conform",
        "explain",
        "explore",
        "diff-profiles",
        "invariants",
        "rfd-check",
    ] {
        let stated = documented_codes(&help, command);
        let mut seen: Vec<i32> = Vec::new();
        for (_, args, want) in cases.iter().filter(|(c, _, _)| *c == command) {
            // The passing conform case runs the example Python adapter,
            // from the repository root.
            let o = if args.iter().any(|a| a.contains("examples/")) {
                run(args)
            } else {
                run_in(&dir.0, args)
            };
            assert_eq!(code(&o), *want, "{args:?}: {}", stderr(&o));
            assert!(
                stated.contains(want),
                "{command} states {stated:?}, returns {want}"
            );
            seen.push(*want);
        }
        // The model keeps every invariant on the explored scope, so no
        // command line makes `explore` find a violation (the state search
        // is shown to find injected faults in src/explore/state_search_tests.rs).
        if command == "explore" {
            seen.push(1);
        }
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen, stated, "{command}: every stated code has a case");
    }
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    let readme = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    for says in [
        "so `make run` exits 0 or 2",
        "exits 2 when nothing in the file could be checked",
        "`invariants` exits 1 when an invariant is violated",
    ] {
        assert!(readme.contains(says), "README: {says}");
    }
}

/// Rule: CLI-CHECK-SELECT — on a stream whose only findings are
/// CHECK-PAIRED, `--ignore CHECK-PAIRED` exits 0 and prints no finding,
/// `--select CHECK-PAIRED` (or its prefix `CHECK`) exits 1, `--select` of
/// another rule exits 0; `--exit-zero` exits 0 with the findings printed; a
/// selector naming no rule is a usage error.
#[test]
fn check_selects_and_ignores_rules() {
    let dir = TempDir::new("select");
    dir.write("bad.jsonl", stream(false));
    let out = run_in(&dir.0, &["check", "--ignore", "CHECK-PAIRED", "bad.jsonl"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(!stdout(&out).contains("CHECK-PAIRED"), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("bad.jsonl: clean"),
        "{}",
        stdout(&out)
    );
    for select in ["CHECK-PAIRED", "check", "CHECK-TOOL-PAIRED,CHECK-PAIRED"] {
        let out = run_in(&dir.0, &["check", "--select", select, "bad.jsonl"]);
        assert_eq!(code(&out), 1, "--select {select}: {}", stdout(&out));
        assert!(stdout(&out).contains(ORPHAN_LINE), "{}", stdout(&out));
    }
    let out = run_in(&dir.0, &["check", "--select", "CHECK-TOOL", "bad.jsonl"]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    let out = run_in(&dir.0, &["check", "--exit-zero", "bad.jsonl"]);
    assert_eq!(code(&out), 0);
    assert!(stdout(&out).contains(ORPHAN_LINE), "{}", stdout(&out));
    // JSON counts only what is reported.
    let out = run_in(
        &dir.0,
        &[
            "check",
            "--format",
            "json",
            "--ignore",
            "CHECK",
            "bad.jsonl",
        ],
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["summary"]["errors"], 0, "{doc}");
    assert_eq!(doc["files"][0]["status"], "clean", "{doc}");
    for bad in ["check-pair", "INV-CACHE-KEY-UNIQUE", "nonsense"] {
        let out = run_in(&dir.0, &["check", "--select", bad, "bad.jsonl"]);
        assert_eq!(code(&out), 2, "--select {bad}");
        assert!(
            stderr(&out).contains("names no CHECK-* rule"),
            "{}",
            stderr(&out)
        );
    }
}

/// Rule: CLI-CHECK-SELECT — `inquiry-model.toml` (or
/// `.inquiry-model.toml`) in the checked folder or a folder above it sets
/// `select`/`ignore`/`strict`; `--select` replaces the file's selection,
/// `--isolated` reads no file, `--config` names one; an unknown key or a
/// bad selector in the file is unusable (exit 2) and named.
#[test]
fn check_reads_the_nearest_configuration_file() {
    let dir = TempDir::new("config");
    dir.write("streams/deep/bad.jsonl", stream(false));
    dir.write(
        "inquiry-model.toml",
        "[check]\nignore = [\"CHECK-PAIRED\"]\n",
    );
    let out = run_in(&dir.0, &["check", "streams/deep"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let out = run_in(&dir.0.join("streams"), &["check", "deep/bad.jsonl"]);
    assert_eq!(code(&out), 0, "found from a file's folder upward");
    let out = run_in(&dir.0, &["check", "--select", "CHECK-PAIRED", "streams"]);
    assert_eq!(code(&out), 1, "--select replaces the file's selection");
    let out = run_in(&dir.0, &["check", "--isolated", "streams"]);
    assert_eq!(code(&out), 1, "--isolated reads no file");
    dir.write(
        "streams/.inquiry-model.toml",
        "[check]\nselect = [\"ALL\"]\n",
    );
    let out = run_in(&dir.0, &["check", "streams"]);
    assert_eq!(code(&out), 1, "the nearest file wins");
    let other = dir.write("other.toml", "[check]\nignore = [\"CHECK\"]\n");
    let out = run_in(
        &dir.0,
        &["check", "--config", other.to_str().unwrap(), "streams"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    dir.write(
        "streams/.inquiry-model.toml",
        "[check]\nselcet = [\"ALL\"]\n",
    );
    let out = run_in(&dir.0, &["check", "streams"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains(".inquiry-model.toml") && stderr(&out).contains("selcet"),
        "{}",
        stderr(&out)
    );
    dir.write(
        "streams/.inquiry-model.toml",
        "[check]\nignore = [\"check-nope\"]\n",
    );
    let out = run_in(&dir.0, &["check", "streams"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("names no CHECK-* rule"),
        "{}",
        stderr(&out)
    );
}

/// Rule: CLI-CHECK-SELECT — `--statistics` prints a count per rule (most
/// first) and the total line, no finding and no line per file; it is text
/// only.
#[test]
fn check_statistics_counts_per_rule() {
    let dir = TempDir::new("statistics");
    dir.write("a.jsonl", stream(false));
    dir.write("b.jsonl", stream(false));
    dir.write("c.jsonl", stream(true));
    let out = run_in(&dir.0, &["check", "--statistics", "."]);
    assert_eq!(code(&out), 1);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert_eq!(
        lines[0].split_whitespace().take(2).collect::<Vec<_>>(),
        ["2", "CHECK-PAIRED"],
        "{text}"
    );
    assert!(lines[1].starts_with("checked 3 files:"), "{text}");
    let out = run_in(&dir.0, &["check", "--statistics", "--format", "json", "."]);
    assert_eq!(code(&out), 2);
}

/// Rule: CLI-CHECK-GITHUB — `check --format github` writes one GitHub
/// Actions workflow command per finding (`::error` for an error,
/// `::warning` for a warning, file, line, column, the rule as title) and one
/// per unusable input, nothing else; exit codes as in text.
#[test]
fn check_writes_github_annotations() {
    let dir = TempDir::new("github");
    dir.write("bad.jsonl", stream(false));
    dir.write("good.jsonl", stream(true));
    dir.write("cut.jsonl", "{\"type\":");
    let out = run_in(
        &dir.0,
        &["check", "--format", "github", "./bad.jsonl", "good.jsonl"],
    );
    assert_eq!(code(&out), 1);
    assert_eq!(
        stdout(&out),
        format!(
            "::error file=bad.jsonl,line=3,col=1,title=CHECK-PAIRED::turn 0, event 2: \
             inquiry request `c1.q.1` has no response in its turn ({})\n",
            inquiry_model::rule::Rule::CheckPaired.title()
        )
    );
    let out = run_in(&dir.0, &["check", "--format", "github", "cut.jsonl"]);
    assert_eq!(code(&out), 2);
    assert!(
        stdout(&out).starts_with("::error file=cut.jsonl,line=1,col="),
        "{}",
        stdout(&out)
    );
}

/// Rule: CLI-CHECK-QUIET — `check -q` prints the findings and the total
/// line only: no line for a clean file, nor a status line per file.
#[test]
fn check_quiet_prints_findings_and_the_total_only() {
    let dir = TempDir::new("quiet");
    dir.write("bad.jsonl", stream(false));
    dir.write("good.jsonl", stream(true));
    let out = run_in(&dir.0, &["check", "-q", "bad.jsonl", "good.jsonl"]);
    assert_eq!(code(&out), 1);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert_eq!(lines[0], format!("bad.jsonl: {ORPHAN_LINE}"));
    assert!(lines[1].starts_with("checked 2 files: 1 clean"), "{text}");
    assert!(!text.contains("good.jsonl"), "{text}");
}

/// Rule: CLI-CHECK-TERMINAL — `check spec/examples` rendered on an
/// 80-column pseudo-terminal (`script`, the screen read back through the
/// `vt100` emulator, the bar drawn at once) ends showing its total line and
/// every file's line: the bar never overwrites stdout.
#[test]
fn check_on_a_terminal_keeps_its_summary() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: no `script` to make a pseudo-terminal");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bin = env!("CARGO_BIN_EXE_inquiry-model");
    let out = Command::new("script")
        .args([
            "-qec",
            &format!("stty cols 80 rows 40; '{bin}' check spec/examples"),
            "/dev/null",
        ])
        .current_dir(root)
        .env("INQUIRY_MODEL_PROGRESS_DELAY_MS", "0")
        .env("TERM", "xterm")
        .env_remove("NO_COLOR")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let mut screen = vt100::Parser::new(40, 80, 0);
    screen.process(&out.stdout);
    let text = screen.screen().contents();
    let plain = run_in(root, &["check", "spec/examples"]);
    for line in stdout(&plain).lines() {
        assert!(text.contains(line), "{line:?} is not on screen:\n{text}");
    }
    assert!(text.contains("checked "), "{text}");
    assert!(!text.contains("check: ["), "the bar is gone:\n{text}");
}
