//! `check` reads past a malformed event (rule CHECK-EVENT-WELL-FORMED,
//! decision "Oracle checks: check reads past a malformed event"): the bad
//! event is a finding at its line and column, reading resumes at the next
//! line (JSON Lines) or event object (array), and the rest is judged. Only a
//! file that cannot be read as a stream at all is unusable.

use std::process::Command;

use inquiry_model::check::{Checked, ProfileMode, Rule, check_bytes};
use serde_json::Value;

const TURN: &str = r#"{"type":"turn_start","timestamp":"t"}"#;
const CALL: &str = r#"{"type":"tool_call_request","id":"c1","name":"fs","arguments":{}}"#;
const ASK: &str = r#"{"type":"inquiry_request","id":"c1.q.1","source":{"source":"tool","name":"fs"},"question":{"text":"Go?","answer_type":{"type":"boolean"}}}"#;
const DONE: &str = r#"{"type":"tool_call_response","id":"c1","content":"ok","is_error":false}"#;
const CHAT: &str = r#"{"type":"chat_request","content":"go"}"#;
/// `answered` without `answer`: not an event the RFDs describe.
const NO_ANSWER: &str = r#"{"type":"inquiry_response","id":"c1.q.1","outcome":"answered"}"#;
/// A response whose request never was (CHECK-PAIRED, an orphan).
const ORPHAN: &str =
    r#"{"type":"inquiry_response","id":"c9.z.1","outcome":"answered","answer":true}"#;

/// `(rule, line)` of every finding, in order.
fn found(c: &Checked) -> Vec<(Rule, usize)> {
    c.diagnostics
        .iter()
        .map(|d| (d.rule, d.position.map_or(0, |p| p.line)))
        .collect()
}

fn jsonl(lines: &[&str]) -> Vec<u8> {
    lines
        .iter()
        .flat_map(|l| [l.as_bytes(), b"\n"].concat())
        .collect()
}

fn array(lines: &[&str]) -> Vec<u8> {
    format!("[\n{}\n]\n", lines.join(",\n")).into_bytes()
}

/// The done-when case: line 5 is a response `answered` without `answer`,
/// a later line an orphan response. Both are reported (the malformed event
/// at line 5, column 1; the orphan at its line), with the request the bad
/// response would have closed left unpaired; the file reads to its end.
#[test]
fn a_malformed_event_and_a_later_orphan_are_both_reported() {
    let lines = [TURN, CHAT, CALL, ASK, NO_ANSWER, DONE, ORPHAN];
    for mode in [ProfileMode::Auto, "rfd083".parse().unwrap()] {
        let c = check_bytes(&jsonl(&lines), "s.jsonl", mode);
        assert!(c.error.is_none(), "{:?}", c.error);
        let f = found(&c);
        assert!(f.contains(&(Rule::CheckEventWellFormed, 5)), "{f:?}");
        let bad = c
            .diagnostics
            .iter()
            .find(|d| d.rule == Rule::CheckEventWellFormed)
            .unwrap();
        assert_eq!(bad.position.unwrap().column, 1);
        assert!(bad.message.contains("answer"), "{}", bad.message);
        assert!(
            f.iter()
                .any(|&(r, line)| r == Rule::CheckPaired && line == 7),
            "the orphan response on line 7: {f:?}"
        );
        assert!(
            f.iter()
                .any(|&(r, line)| r == Rule::CheckPaired && line == 4),
            "the request whose response was malformed: {f:?}"
        );
        assert_eq!(c.summary.events, lines.len());
        assert!(c.summary.errors >= 3);
    }
}

/// The same stream as a JSON array, one event per line: the same findings,
/// each at the line its event starts.
#[test]
fn an_array_reads_on_at_the_next_element() {
    let lines = [TURN, CHAT, CALL, ASK, NO_ANSWER, DONE, ORPHAN];
    let c = check_bytes(&array(&lines), "s.json", ProfileMode::Auto);
    assert!(c.error.is_none(), "{:?}", c.error);
    let f = found(&c);
    // Line 1 is `[`: event k starts on line k + 2.
    assert!(f.contains(&(Rule::CheckEventWellFormed, 6)), "{f:?}");
    assert!(f.contains(&(Rule::CheckPaired, 8)), "{f:?}");
}

/// Syntax errors: a JSON Lines line cut short (no closing `}`) resumes at
/// the next line, whose events are judged (the orphan after it is found);
/// a line holding an object with a syntax error inside is skipped whole;
/// a stray line that is no object is one finding. In an array, an element
/// left open resumes at the next line starting an event, and an element
/// whose JSON is broken inside is skipped whole.
#[test]
fn syntax_errors_resume_at_the_next_line_or_element() {
    let open = r#"{"type":"chat_request","content":"go""#;
    let broken = r#"{"type":"chat_request" "content":"go"}"#;
    for bad in [open, broken, "garbage"] {
        let lines = [TURN, CALL, bad, DONE, ORPHAN];
        let c = check_bytes(&jsonl(&lines), "s.jsonl", ProfileMode::Auto);
        assert!(c.error.is_none(), "{bad}: {:?}", c.error);
        let f = found(&c);
        assert_eq!(
            f.iter()
                .filter(|(r, _)| *r == Rule::CheckEventWellFormed)
                .count(),
            1,
            "{bad}: {f:?}"
        );
        assert!(
            f.iter()
                .any(|&(r, line)| r == Rule::CheckEventWellFormed && line == 3),
            "{bad}: {f:?}"
        );
        assert!(f.contains(&(Rule::CheckPaired, 5)), "{bad}: {f:?}");
        assert!(
            !f.iter().any(|(r, _)| *r == Rule::CheckToolPaired),
            "the call's response on line 4 was read: {bad}: {f:?}"
        );
    }
    // A pretty-printed array whose third element is left open.
    let pretty = format!(
        "[\n{TURN},\n{CALL},\n{{\n  \"type\": \"chat_request\",\n  \"content\": \"go\"\n,\n{DONE},\n{ORPHAN}\n]\n"
    );
    for bytes in [
        pretty.into_bytes(),
        array(&[TURN, CALL, broken, DONE, ORPHAN]),
    ] {
        let c = check_bytes(&bytes, "s.json", ProfileMode::Auto);
        assert!(c.error.is_none(), "{:?}", c.error);
        let f = found(&c);
        assert_eq!(
            f.iter()
                .filter(|(r, _)| *r == Rule::CheckEventWellFormed)
                .count(),
            1,
            "{f:?}"
        );
        assert!(
            f.iter().any(|(r, _)| *r == Rule::CheckPaired),
            "the orphan after the bad element is read: {f:?}"
        );
        assert!(!f.iter().any(|(r, _)| *r == Rule::CheckToolPaired), "{f:?}");
    }
}

/// A file none of whose events reads as an event, or with no stream layout,
/// is unusable input (the first error is returned): it cannot be read as a
/// stream at all. A stream cut short after good events is judged up to the
/// cut, with the cut as a finding, and its last turn's open calls are not
/// reported (the rest was never written).
#[test]
fn only_a_file_that_is_no_stream_is_unusable() {
    for bytes in [
        b"{\"id\":1}\n".to_vec(),
        b"[1,2,3]".to_vec(),
        b"hello".to_vec(),
        jsonl(&[NO_ANSWER, NO_ANSWER]),
        Vec::new(),
    ] {
        let c = check_bytes(&bytes, "s", ProfileMode::Auto);
        assert!(c.error.is_some(), "{:?}", String::from_utf8_lossy(&bytes));
        assert_eq!(c.diagnostics, vec![]);
    }
    let mut cut = jsonl(&[TURN, CALL, ASK]);
    cut.truncate(cut.len() - 10);
    let c = check_bytes(&cut, "s.jsonl", ProfileMode::Auto);
    assert!(c.error.is_none(), "{:?}", c.error);
    assert_eq!(found(&c), [(Rule::CheckEventWellFormed, 3)]);
}

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_inquiry-model"))
}

/// Through the command line: exit 1 (findings, not unusable input), the
/// malformed event in text with its line and column, in JSON as a
/// diagnostic with `line` and `column`, and in SARIF as a result with a
/// location (not a tool notification).
#[test]
fn the_cli_reports_the_malformed_event_in_every_format() {
    let dir = std::env::temp_dir().join(format!("oracle-recovery-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("s.jsonl");
    std::fs::write(
        &path,
        jsonl(&[TURN, CHAT, CALL, ASK, NO_ANSWER, DONE, ORPHAN]),
    )
    .unwrap();
    let p = path.to_str().unwrap();
    let text = bin().args(["check", p]).output().unwrap();
    assert_eq!(text.status.code(), Some(1), "{text:?}");
    let out = String::from_utf8_lossy(&text.stdout);
    assert!(
        out.contains("(line 5, column 1): error: CHECK-EVENT-WELL-FORMED: malformed event"),
        "{out}"
    );
    let json = bin()
        .args(["check", "--format", "json", p])
        .output()
        .unwrap();
    assert_eq!(json.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&json.stdout).unwrap();
    let text = doc.to_string();
    assert!(text.contains("CHECK-EVENT-WELL-FORMED"), "{text}");
    let sarif = bin()
        .args(["check", "--format", "sarif", p])
        .output()
        .unwrap();
    assert_eq!(sarif.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&sarif.stdout).unwrap();
    let run = &doc["runs"][0];
    let result = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleId"] == "CHECK-EVENT-WELL-FORMED")
        .expect("a SARIF result for the malformed event");
    let region = &result["locations"][0]["physicalLocation"]["region"];
    assert_eq!(region["startLine"], 5);
    assert_eq!(region["startColumn"], 1);
    let notes = &run["invocations"][0]["toolExecutionNotifications"];
    assert!(
        notes.as_array().is_none_or(|n| n.is_empty()),
        "no notification: {notes}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
