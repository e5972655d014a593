//! Nothing lost on the way through (WIRE-NUMBER-TEXT): every number keeps its
//! text through a read and a write, and `sanitize` writes a stream back in
//! the layout it came in, `[]` included.

use crate::binary;

use binary::{code, run_stdin};

use inquiry_model::wire::Stream;
use proptest::collection::vec;
use proptest::prelude::*;

/// The number tokens of a JSON text, in order: outside strings, every
/// maximal run of `-+.eE` and digits. A second, deliberately naive scanner
/// (no grammar), so the property does not lean on the reader it tests.
fn number_tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let (mut in_string, mut escape) = (false, false);
    for c in text.chars() {
        if in_string {
            if escape {
                escape = false;
            } else if c == '\\' {
                escape = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        if c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E') {
            // `e` of `true`/`false` is never next to a digit run's start:
            // a run only starts at `-` or a digit.
            if !current.is_empty() || c == '-' || c.is_ascii_digit() {
                current.push(c);
                continue;
            }
        }
        if !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        if c == '"' {
            in_string = true;
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Per event (one JSON Lines line), the sorted number tokens: the writer
/// may reorder fields, never respell a number.
fn tokens_per_line(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut t = number_tokens(l);
            t.sort();
            t
        })
        .collect()
}

/// A JSON number as a writer may spell it, within `f64` range (the reader
/// refuses a number that overflows one, rule `WIRE-OPAQUE-VALID`): big
/// integers, trailing zeros, exponents of either case and sign, `-0`.
fn number() -> impl Strategy<Value = String> {
    let int = prop_oneof![
        Just("0".to_owned()),
        "[1-9][0-9]{0,40}",
        Just("123456789012345678901234567890".to_owned()),
        Just("18446744073709551616".to_owned()),
        Just("9007199254740993".to_owned()),
    ];
    (
        prop::bool::ANY,
        int,
        prop::option::of("[0-9]{1,20}"),
        prop::option::of("[eE][+-]?[0-9]{1,2}"),
    )
        .prop_map(|(neg, int, frac, exp)| {
            let mut s = String::new();
            if neg {
                s.push('-');
            }
            s.push_str(&int);
            if let Some(f) = frac {
                s.push('.');
                s.push_str(&f);
            }
            if let Some(e) = exp {
                s.push_str(&e);
            }
            s
        })
}

/// A JSON value holding numbers: a bare number, an array, an object.
fn value_with_numbers() -> impl Strategy<Value = String> {
    prop_oneof![
        number(),
        vec(number(), 0..4).prop_map(|ns| format!("[{}]", ns.join(", "))),
        vec(number(), 0..4).prop_map(|ns| {
            let fields: Vec<String> = ns
                .iter()
                .enumerate()
                .map(|(i, n)| format!("\"k{i}\": {n}"))
                .collect();
            format!("{{{}}}", fields.join(", "))
        }),
    ]
}

/// One event of a stream, as written by some writer, holding numbers in
/// every place an event can: an answer, a question's default and option
/// values, an extra field, a tool's arguments.
fn event_line() -> impl Strategy<Value = String> {
    prop_oneof![
        value_with_numbers().prop_map(|a| format!(
            r#"{{"type":"inquiry_response","id":"c.q.1","outcome":"answered","answer":{a}}}"#
        )),
        value_with_numbers()
            .prop_map(|a| format!(r#"{{"type":"inquiry_response","id":"c.q","answer":{a}}}"#)),
        (number(), vec(number(), 1..4)).prop_map(|(d, opts)| {
            let options: Vec<String> = opts.iter().map(|v| format!(r#"{{"value":{v}}}"#)).collect();
            format!(
                r#"{{"type":"inquiry_request","id":"c.q.1","source":{{"source":"tool","name":"t"}},"question":{{"default":{d},"text":"n?","answer_type":{{"type":"select","options":[{}]}}}}}}"#,
                options.join(",")
            )
        }),
        value_with_numbers()
            .prop_map(|x| format!(r#"{{"type":"config_delta","delta":{x},"n":-0}}"#)),
        value_with_numbers().prop_map(|x| format!(
            r#"{{"type":"tool_call_request","id":"c","name":"t","arguments":{x}}}"#
        )),
    ]
}

/// The stream written back through the public writer, as JSON Lines, and
/// as an array re-read and written as JSON Lines (one event per line, so
/// the tokens compare per event).
fn written_back(input: &str) -> (String, String) {
    let s = Stream::from_slice(input.as_bytes(), "in.jsonl").expect("the generated stream reads");
    let mut jsonl = Vec::new();
    s.write_json_lines(&mut jsonl).expect("writes");
    let array = s.to_array_string();
    let again = Stream::from_slice(array.as_bytes(), "out.json").expect("the array reads back");
    let mut via_array = Vec::new();
    again.write_json_lines(&mut via_array).expect("writes");
    (
        String::from_utf8(jsonl).expect("UTF-8"),
        String::from_utf8(via_array).expect("UTF-8"),
    )
}

proptest! {
    /// Rule: WIRE-NUMBER-TEXT — read then write preserves every number
    /// token of every event, as JSON Lines and through the array layout:
    /// the same tokens, spelled the same, per event.
    #[test]
    fn read_then_write_preserves_every_number_token(lines in vec(event_line(), 1..8)) {
        let input = lines.join("\n") + "\n";
        let want = tokens_per_line(&input);
        let (jsonl, via_array) = written_back(&input);
        prop_assert_eq!(tokens_per_line(&jsonl), want.clone(), "JSON Lines:\n{}", jsonl);
        prop_assert_eq!(tokens_per_line(&via_array), want, "via the array:\n{}", via_array);
    }
}

/// Rule: WIRE-NUMBER-TEXT — the scanner the property uses can see a lost
/// number: a `serde_json::Value` round trip (a writer that does not keep
/// the text) respells the big answer, and the property's check
/// would fail on it.
#[test]
fn a_value_round_trip_would_fail_the_property() {
    let line = r#"{"type":"inquiry_response","id":"c.q.1","outcome":"answered","answer":123456789012345678901234567890}"#;
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    let lossy = serde_json::to_string(&v).unwrap();
    assert_ne!(tokens_per_line(&lossy), tokens_per_line(line), "{lossy}");
    let (jsonl, _) = written_back(line);
    assert_eq!(tokens_per_line(&jsonl), tokens_per_line(line), "{jsonl}");
}

/// Rule: WIRE-NUMBER-TEXT — a value changed after reading is written as
/// the new value, never with the stale text it was read with.
#[test]
fn a_changed_answer_is_written_as_changed() {
    use inquiry_model::wire::{EventKind, InquiryResponse};
    let line = r#"{"type":"inquiry_response","id":"c.q.1","outcome":"answered","answer":1.50}"#;
    let mut s = Stream::from_slice(line.as_bytes(), "in.jsonl").unwrap();
    let EventKind::InquiryResponse(InquiryResponse::Answered { answer, .. }) =
        &mut s.events[0].kind
    else {
        panic!("an answered response");
    };
    *answer = serde_json::json!(2);
    let mut out = Vec::new();
    s.write_json_lines(&mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains(r#""answer":2"#), "{out}");
    assert!(!out.contains("1.50"), "{out}");
}

/// A clean legacy turn whose answer is a number no `f64` holds exactly.
const BIG_ANSWER: &str = concat!(
    r#"{"type":"turn_start"}"#,
    "\n",
    r#"{"type":"tool_call_request","id":"c","name":"t"}"#,
    "\n",
    r#"{"type":"inquiry_request","id":"c.q","source":{"source":"tool","name":"t"},"question":{"text":"n?","answer_type":{"type":"text"}}}"#,
    "\n",
    r#"{"type":"inquiry_response","id":"c.q","answer":123456789012345678901234567890}"#,
    "\n",
    r#"{"type":"tool_call_response","id":"c","content":"b2s="}"#,
    "\n",
);

/// Rule: CLI-SANITIZE, WIRE-NUMBER-TEXT — `sanitize` gives the big
/// answer back digit for digit (a respelt
/// `1.2345678901234568e+29` fails this), in both layouts.
#[test]
fn sanitize_keeps_a_thirty_digit_answer() {
    for format in ["jsonl", "array"] {
        let o = run_stdin(
            &["sanitize", "-", "--format", format],
            BIG_ANSWER.as_bytes(),
        );
        assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
        let out = String::from_utf8(o.stdout).unwrap();
        assert!(out.contains("123456789012345678901234567890"), "{out}");
        assert!(!out.contains("e+29") && !out.contains("e29"), "{out}");
    }
}

/// Rule: CLI-SANITIZE — `[]` (a real jp `events.json`: a conversation
/// with no events yet) is clean: `sanitize` writes `[]` and exits 0.
#[test]
fn sanitize_writes_an_empty_array_back() {
    for input in ["[]", "[]\n", "  [ ]  \n"] {
        let o = run_stdin(&["sanitize", "-"], input.as_bytes());
        assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
        let out = String::from_utf8(o.stdout).unwrap();
        assert_eq!(out.trim(), "[]", "{input:?}");
        let back = Stream::from_slice(out.as_bytes(), "out").expect("reads back");
        assert!(back.events.is_empty());
    }
}

/// Rule: CLI-SANITIZE — the output layout defaults to the input's: an array
/// in gives an array out, JSON Lines give JSON Lines; `--format` overrides.
#[test]
fn sanitize_writes_the_input_layout_unless_told() {
    let s = Stream::from_slice(BIG_ANSWER.as_bytes(), "in").unwrap();
    let array = s.to_array_string();
    let is_array = |out: &[u8]| String::from_utf8_lossy(out).trim_start().starts_with('[');
    let one_per_line = |out: &[u8]| {
        let text = String::from_utf8_lossy(out).into_owned();
        text.lines().count() == s.events.len() && text.lines().all(|l| l.starts_with('{'))
    };

    let o = run_stdin(&["sanitize", "-"], array.as_bytes());
    assert_eq!(code(&o), 0);
    assert!(is_array(&o.stdout), "array in, array out");
    let o = run_stdin(&["sanitize", "-"], BIG_ANSWER.as_bytes());
    assert_eq!(code(&o), 0);
    assert!(one_per_line(&o.stdout), "JSON Lines in, JSON Lines out");
    let o = run_stdin(&["sanitize", "-", "--format", "jsonl"], array.as_bytes());
    assert_eq!(code(&o), 0);
    assert!(one_per_line(&o.stdout), "--format jsonl overrides");
    let o = run_stdin(
        &["sanitize", "-", "--format", "array"],
        BIG_ANSWER.as_bytes(),
    );
    assert_eq!(code(&o), 0);
    assert!(is_array(&o.stdout), "--format array overrides");
}
