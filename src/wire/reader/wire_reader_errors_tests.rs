//! Reader robustness: every malformed input gives a `ReadError` (never a
//! panic) whose `Display` names the origin, the event index where one had
//! started, the line and column, and what was expected.

use std::io::{self, BufReader, Read};

use crate::generate::wire as strategy;
use crate::wire::{EventReader, Format, ReadError, ReadErrorKind, Stream};
use proptest::prelude::*;

/// One malformed input and the error it must give.
struct Case {
    name: &'static str,
    input: Vec<u8>,
    event_index: Option<usize>,
    line: usize,
    column: usize,
    /// A part of the message that says what was wrong or expected.
    says: &'static str,
}

fn case(
    name: &'static str,
    input: impl Into<Vec<u8>>,
    event_index: Option<usize>,
    (line, column): (usize, usize),
    says: &'static str,
) -> Case {
    Case {
        name,
        input: input.into(),
        event_index,
        line,
        column,
        says,
    }
}

fn cases() -> Vec<Case> {
    let deep_event = format!(
        "{{\"type\":\"x\",\"a\":{}{}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    vec![
        case(
            "empty input",
            "",
            None,
            (1, 1),
            "empty input: expected a JSON array of events or JSON Lines",
        ),
        case("whitespace only", "  \n\t ", None, (2, 3), "empty input"),
        case(
            "binary bytes",
            vec![0xff, 0xfe, 0x00, 0x01],
            None,
            (1, 1),
            "expected `[` (a JSON array of events) or `{` (JSON Lines), found byte 0xff",
        ),
        case("lone closing bracket", "]", None, (1, 1), "found `]`"),
        case(
            "100 000 nested arrays",
            "[".repeat(100_000),
            Some(0),
            (1, 2),
            "expected an event object `{`, found `[`",
        ),
        case(
            "100 000 nested objects",
            "{".repeat(100_000),
            Some(0),
            (1, 100_001),
            "unexpected end of input inside an event object (expected `}`)",
        ),
        case(
            "100 000 nested arrays inside an event",
            deep_event,
            Some(0),
            (1, 200_017),
            "field `a`: recursion limit exceeded",
        ),
        case(
            "only an opening bracket",
            "[",
            Some(0),
            (1, 2),
            "unexpected end of input: expected an event object",
        ),
        case(
            "trailing comma",
            r#"[{"type":"a"},]"#,
            Some(1),
            (1, 15),
            "trailing `,` before `]`: expected an event object",
        ),
        case(
            "data after the array",
            r#"[{"type":"a"}] x"#,
            None,
            (1, 16),
            "trailing data after the event array: found `x`",
        ),
        case(
            "non-object element",
            r#"[{"type":"a"}, 3]"#,
            Some(1),
            (1, 16),
            "expected an event object `{`, found `3`",
        ),
        case(
            "missing comma",
            "[{\"type\":\"a\"}\n {\"type\":\"b\"}]",
            Some(1),
            (2, 2),
            "expected `,` or `]` after an event, found `{`",
        ),
        case(
            "array not closed",
            "[{\"type\":\"a\"}\n\n",
            Some(1),
            (3, 1),
            "the event array is not closed (expected `]`)",
        ),
        case(
            "end of input inside an event",
            r#"[{"type":"a""#,
            Some(0),
            (1, 13),
            "unexpected end of input inside an event object",
        ),
        case(
            "mismatched closing bracket",
            r#"[{"type":"a"]]"#,
            Some(0),
            (1, 13),
            "expected `,` or `}`",
        ),
        case(
            "JSON Lines then a bracket",
            r#"{"type":"a"}]"#,
            Some(1),
            (1, 13),
            "expected an event object `{`, found `]`",
        ),
        case(
            "duplicate field, multi-line",
            "[\n  {\"type\": \"turn_start\"},\n  {\"type\": \"chat_request\",\n   \"type\": \"chat_response\"}\n]",
            Some(1),
            (4, 9),
            "duplicate field `type`",
        ),
        case(
            "non-string timestamp",
            r#"[{"type":"a","timestamp":5}]"#,
            Some(0),
            (1, 2),
            "`timestamp` must be a string, found 5",
        ),
        case(
            "missing type",
            r#"[{"timestamp":"2026-01-01"}]"#,
            Some(0),
            (1, 2),
            "event has no `type` field",
        ),
        case(
            "non-string type",
            r#"{"type":3}"#,
            Some(0),
            (1, 1),
            "`type` must be a string, found 3",
        ),
        case(
            "error inside the 3rd event (array)",
            "[\n  {\"type\":\"a\"},\n  {\"type\":\"b\"},\n  {\"type\":\"c\", \"x\": tru}\n]",
            Some(2),
            (4, 24),
            "expected ident",
        ),
        case(
            "error inside the 3rd event (JSON Lines)",
            "{\"type\":\"a\"}\n{\"type\":\"b\"}\n{\"type\":\"c\",\n \"x\": tru}\n",
            Some(2),
            (4, 10),
            "expected ident",
        ),
        case(
            "invalid UTF-8 in a string",
            b"{\"type\":\"\xff\"}".to_vec(),
            Some(0),
            (1, 10),
            "invalid unicode code point",
        ),
        // serde_json stops on the byte before the control character it peeked.
        case(
            "control character in a string",
            "{\"type\":\"a\u{1}\"}",
            Some(0),
            (1, 10),
            "control character",
        ),
        case(
            "lone surrogate in an opaque field",
            r#"{"type":"x","y":"\ud800"}"#,
            Some(0),
            (1, 25),
            "field `y`: unexpected end of hex escape",
        ),
        case(
            "number out of range in an answer",
            r#"{"type":"inquiry_response","id":"a","answer":1e400}"#,
            Some(0),
            (1, 51),
            "field `answer`: number out of range",
        ),
        case(
            "response without outcome or answer, 2nd line",
            "{\"type\":\"turn_start\"}\n  {\"type\":\"inquiry_response\",\"id\":\"x\"}\n",
            Some(1),
            (2, 3),
            "invalid inquiry_response: inquiry_response has neither `outcome` nor `answer`",
        ),
        case(
            "unknown outcome",
            r#"[{"type":"inquiry_response","id":"x","outcome":"maybe"}]"#,
            Some(0),
            (1, 2),
            "unknown inquiry_response outcome `maybe`",
        ),
        case(
            "tool call without id",
            r#"{"type":"tool_call_request","name":"n"}"#,
            Some(0),
            (1, 1),
            "tool_call_request is missing `id`",
        ),
        case(
            "non-boolean is_error",
            r#"{"type":"tool_call_response","id":"c","is_error":"no"}"#,
            Some(0),
            (1, 1),
            "`is_error` must be a boolean",
        ),
        case(
            "question without answer_type",
            r#"{"type":"inquiry_request","id":"c.q.1","source":{"source":"assistant"},"question":{"text":"?"}}"#,
            Some(0),
            (1, 1),
            "invalid inquiry_request: missing field `answer_type`",
        ),
    ]
}

fn read_err(input: &[u8], origin: &str) -> ReadError {
    match Stream::from_slice(input, origin) {
        Ok(s) => panic!("read {} events from invalid input", s.events.len()),
        Err(e) => e,
    }
}

/// The `Display` prefix a `ReadError` must have.
fn prefix(origin: &str, event_index: Option<usize>, line: usize, column: usize) -> String {
    match event_index {
        Some(i) => format!("{origin}: event {i} (line {line}, column {column}): "),
        None => format!("{origin}: (line {line}, column {column}): "),
    }
}

/// Rule: WIRE-READ-ERRORS — each malformed input in the table is a
/// `ReadError` at the exact event index, line and column, whose `Display`
/// names all three, the origin, and what was expected.
#[test]
fn malformed_inputs_give_located_read_errors() {
    for c in cases() {
        let origin = format!("conversations/{}.json", c.name.replace(' ', "-"));
        let e = read_err(&c.input, &origin);
        assert_eq!(
            (e.event_index(), e.line(), e.column()),
            (c.event_index, c.line, c.column),
            "{}: {e}",
            c.name
        );
        assert_eq!(e.origin(), origin);
        let shown = e.to_string();
        let want = prefix(&origin, c.event_index, c.line, c.column);
        assert!(shown.starts_with(&want), "{}: {shown}", c.name);
        assert!(shown.contains(c.says), "{}: {shown}", c.name);
        assert!(
            !shown.contains(" at line "),
            "{}: a second position: {shown}",
            c.name
        );
    }
}

/// Rule: WIRE-READ-ERRORS — the messages of the table, as a reviewer reads
/// them.
#[test]
fn read_error_messages_snapshot() {
    let shown: Vec<String> = cases()
        .iter()
        .map(|c| format!("{}\n    {}", c.name, read_err(&c.input, "events.json")))
        .collect();
    insta::assert_snapshot!("read_error_messages", shown.join("\n"));
}

/// Rule: WIRE-READ-ERRORS — a `ReadError` prints as one line even when its
/// origin or message quotes input holding line breaks or control
/// characters; they are shown escaped.
#[test]
fn read_error_display_is_one_line_even_when_quoting_input() {
    let cases: [(&[u8], &str); 3] = [
        (
            br#"{"type":"x","a\nb":1,"a\nb":2}"#,
            r"duplicate field `a\nb`",
        ),
        (
            br#"{"type":"inquiry_response","outcome":"x\ny\u0007","id":"c.q.1","answer":1}"#,
            r"outcome `x\ny\u{7}`",
        ),
        (
            br#"{"type":"x","\u2028":1,"\u2028":2}"#,
            r"duplicate field `\u{2028}`",
        ),
    ];
    for (input, says) in cases {
        let e = read_err(input, "dir\nname.json");
        assert!(
            e.message().contains(['\n', '\u{7}', '\u{2028}']),
            "{:?}",
            e.message()
        );
        let shown = e.to_string();
        assert_eq!(shown.lines().count(), 1, "{shown}");
        assert!(!shown.contains(['\u{7}', '\u{2028}']), "{shown}");
        assert!(
            shown.starts_with(r"dir\nname.json: event 0 (line 1, column "),
            "{shown}"
        );
        assert!(shown.contains(says), "{shown}");
    }
}

/// Rule: WIRE-READ-ERRORS — the reader yields the events before an error,
/// then the error, then nothing.
#[test]
fn reader_yields_events_before_an_error_then_stops() {
    let input = b"{\"type\":\"turn_start\"}\n{\"type\":\"chat_request\"}\n{\"type\":\"x\",}\n{\"type\":\"chat_response\"}\n";
    let mut typed = EventReader::new(&input[..], "s.jsonl").typed();
    assert_eq!(typed.next().unwrap().unwrap().kind.tag(), "turn_start");
    assert_eq!(typed.next().unwrap().unwrap().kind.tag(), "chat_request");
    let e = typed.next().unwrap().unwrap_err();
    assert_eq!((e.event_index(), e.line()), (Some(2), 3));
    assert!(typed.next().is_none());
    assert!(typed.next().is_none());
}

/// A reader that fails after its bytes run out. A failure that is not
/// `Interrupted` must not be retried: past a hundred, it panics (a retry
/// loop would otherwise hang the test rather than fail it).
struct Failing {
    bytes: &'static [u8],
    failures: usize,
}

impl Failing {
    fn new(bytes: &'static [u8]) -> Self {
        Failing { bytes, failures: 0 }
    }
}

impl Read for Failing {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.bytes.is_empty() {
            self.failures += 1;
            assert!(
                self.failures < 100,
                "an I/O error was retried as if interrupted"
            );
            return Err(io::Error::other("disk on fire"));
        }
        let n = buf.len().min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

/// Rule: WIRE-READ-ERRORS — an I/O error while reading is a `ReadError`
/// naming the event it interrupted, not a panic.
#[test]
fn io_error_is_a_read_error_naming_the_event() {
    let r = BufReader::with_capacity(4, Failing::new(b"[{\"type\":\"a\"},\n {\"ty"));
    let e = Stream::read(r, "net.json").expect_err("the source fails");
    assert_eq!(e.event_index(), Some(1));
    let shown = e.to_string();
    assert!(shown.starts_with("net.json: event 1 (line "), "{shown}");
    assert!(shown.contains("I/O error: disk on fire"), "{shown}");
    assert_eq!(e.kind(), ReadErrorKind::Io);
    let source = std::error::Error::source(&e).expect("an I/O error keeps its source");
    let io = source
        .downcast_ref::<io::Error>()
        .expect("the source is the io::Error");
    assert_eq!(io.to_string(), "disk on fire");
}

/// Rule: WIRE-READ-ERRORS — an I/O error is reported once, wherever it
/// falls: before the first byte, between events (while whitespace is
/// skipped) and inside an event, in both layouts. Only `Interrupted` is
/// retried (`an_interrupted_read_is_retried` in the reader's tests).
#[test]
fn an_io_error_anywhere_is_reported_not_retried() {
    let cuts: [&'static [u8]; 6] = [
        b"",
        b"  ",
        b"[{\"type\":\"a\"},\n ",
        b"[{\"type\":\"a\"}",
        b"{\"type\":\"a\"}\n",
        b"{\"type\":\"a\"}\n{\"type\"",
    ];
    for cut in cuts {
        let e = Stream::read(BufReader::with_capacity(4, Failing::new(cut)), "net.json")
            .expect_err("the source fails");
        assert_eq!(e.kind(), ReadErrorKind::Io, "{cut:?}: {e}");
        assert!(e.to_string().contains("disk on fire"), "{cut:?}: {e}");
    }
}

/// Rule: WIRE-READ-ERRORS — each failure has the kind a caller branches on:
/// bad grammar is `Syntax`, input that stops early is `UnexpectedEnd`, valid
/// JSON that is not an event is `Shape`; none of them has an I/O source.
/// The kinds are written here by hand, one input per way to fail.
#[test]
fn read_errors_have_their_kind() {
    use ReadErrorKind::{Shape, Syntax, UnexpectedEnd};
    let table: [(&[u8], ReadErrorKind); 16] = [
        (b"", UnexpectedEnd),
        (b"  \n", UnexpectedEnd),
        (b"[", UnexpectedEnd),
        (b"[{\"type\":\"a\"}", UnexpectedEnd),
        (b"{\"type\":", UnexpectedEnd),
        (b"x", Syntax),
        (b"[{\"type\":\"a\"},]", Syntax),
        (b"[{\"type\":\"a\"} {", Syntax),
        (b"[] x", Syntax),
        (b"\xEF\xBB[]", Syntax),
        (b"[1]", Syntax),
        (b"{\"type\":tru}", Syntax),
        (b"{\"kind\":\"a\"}", Shape),
        (b"{\"type\":\"a\",\"type\":\"b\"}", Shape),
        (b"{\"type\":\"tool_call_request\",\"name\":\"x\"}", Shape),
        (
            b"{\"type\":\"inquiry_response\",\"id\":\"a\",\"outcome\":\"maybe\"}",
            Shape,
        ),
    ];
    for (input, kind) in table {
        let e = read_err(input, "k");
        assert_eq!(e.kind(), kind, "{:?}: {e}", String::from_utf8_lossy(input));
        assert!(std::error::Error::source(&e).is_none(), "{e}");
    }
}

/// Line and column just past the end of `bytes` (1-based, columns in bytes).
fn end_position(bytes: &[u8]) -> (usize, usize) {
    let line = 1 + bytes.iter().filter(|&&b| b == b'\n').count();
    let column = 1 + bytes.iter().rev().take_while(|&&b| b != b'\n').count();
    (line, column)
}

/// What reading `prefix` (a cut of a valid stream of `n` events) must give:
/// `Ok(k)` events, or an error at the end of the prefix.
fn check_cut(full: &[u8], format: Format, n: usize, cut: usize) -> Result<(), String> {
    let prefix = &full[..cut];
    let whole = Stream::from_slice(full, "full").map_err(|e| e.to_string())?;
    let expected_ok: Option<usize> = match format {
        // Only a cut past the closing `]` is a whole array.
        Format::Array => {
            let close = full.iter().rposition(|&b| b == b']').expect("an array");
            (cut > close).then_some(n)
        }
        // A cut right after a line's `}` (or its newline) holds that many
        // whole events.
        Format::JsonLines => {
            let ends: Vec<usize> = full
                .iter()
                .enumerate()
                .filter(|&(_, &b)| b == b'\n')
                .map(|(i, _)| i)
                .collect();
            ends.iter()
                .position(|&nl| cut == nl || cut == nl + 1)
                .map(|j| j + 1)
        }
    };
    match (Stream::from_slice(prefix, "cut"), expected_ok) {
        (Ok(s), Some(k)) if s.events[..] == whole.events[..k] => Ok(()),
        (Ok(s), want) => Err(format!(
            "cut {cut}: read {} events, expected {want:?}",
            s.events.len()
        )),
        (Err(e), None) => {
            let at = end_position(prefix);
            if (e.line(), e.column()) != at {
                return Err(format!("cut {cut}: {e}, expected the error at {at:?}"));
            }
            if e.event_index().is_some_and(|i| i > n) {
                return Err(format!("cut {cut}: event index past the stream: {e}"));
            }
            Ok(())
        }
        (Err(e), Some(k)) => Err(format!("cut {cut}: {e}, expected {k} events")),
    }
}

/// Rule: WIRE-READ-ERRORS — every cut of the bundled examples, in both
/// layouts, reads either the whole events before the cut or an error
/// located exactly at the cut (truncated JSON).
#[test]
fn every_truncation_reads_whole_events_or_errors_at_the_cut() {
    let mut examples = Vec::new();
    for path in [
        "spec/examples/rfd083-mixed-routes.json",
        "spec/examples/legacy-backend-answered.jsonl",
    ] {
        let bytes = std::fs::read(path).expect("bundled example");
        let s = Stream::from_slice(&bytes, path).unwrap_or_else(|e| panic!("{e}"));
        for format in [Format::Array, Format::JsonLines] {
            examples.push((
                format,
                s.events.len(),
                strategy::encode(&s, format).unwrap(),
            ));
        }
    }
    for (format, n, bytes) in examples {
        for cut in 0..=bytes.len() {
            check_cut(&bytes, format, n, cut).unwrap_or_else(|e| panic!("{format:?}: {e}"));
        }
    }
}

/// The reader's contract on any input: events or a located error, and for
/// events, a stream both writers can write and read back.
fn events_or_located_error(bytes: &[u8]) -> Result<(), TestCaseError> {
    match Stream::from_slice(bytes, "fuzz") {
        Ok(s) => {
            for e in &s.events {
                for (_, v) in &e.extra {
                    let _ = v.to_value();
                }
            }
            let array = strategy::encode(&s, Format::Array).expect("arrays always write");
            let back = Stream::from_slice(&array, "rewrite")
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(&back, &s);
            if !s.events.is_empty() {
                let lines = strategy::encode(&s, Format::JsonLines).expect("non-empty writes");
                let back = Stream::from_slice(&lines, "rewrite")
                    .map_err(|e| TestCaseError::fail(e.to_string()))?;
                prop_assert_eq!(&back, &s);
            }
        }
        Err(e) => {
            let (max_line, _) = end_position(bytes);
            prop_assert_eq!(e.origin(), "fuzz");
            prop_assert!(e.line() >= 1 && e.line() <= max_line, "{}", e);
            prop_assert!(e.column() >= 1 && e.column() <= bytes.len() + 1, "{}", e);
            prop_assert!(e.event_index().is_none_or(|i| i <= bytes.len()), "{}", e);
            prop_assert!(!e.message().is_empty());
            let shown = e.to_string();
            let want = prefix("fuzz", e.event_index(), e.line(), e.column());
            prop_assert!(shown.starts_with(&want), "{}", shown);
            prop_assert!(!shown.contains(['\n', '\r']), "{}", shown);
        }
    }
    Ok(())
}

proptest! {
    /// Rule: WIRE-READ-TOTAL — the reader returns events or a located error
    /// for any bytes; it never panics.
    #[test]
    fn reader_returns_events_or_an_error_for_any_bytes(
        bytes in prop::collection::vec(any::<u8>(), 0..512)
    ) {
        events_or_located_error(&bytes)?;
    }

    /// Rule: WIRE-READ-TOTAL — the reader returns events or a located error
    /// for valid streams with random edits (flipped, inserted, removed,
    /// duplicated bytes, truncation); it never panics.
    #[test]
    fn reader_returns_events_or_an_error_for_mutated_streams(
        bytes in strategy::mutated_stream_bytes(6)
    ) {
        events_or_located_error(&bytes)?;
    }

    /// Rule: WIRE-READ-ERRORS — a generated stream cut anywhere reads the
    /// whole events before the cut or an error located at the cut.
    #[test]
    fn truncated_stream_reads_whole_events_or_errors_at_the_cut(
        (s, format, bytes) in strategy::encoded_stream(6),
        cut in any::<prop::sample::Index>(),
    ) {
        let cut = cut.index(bytes.len() + 1);
        check_cut(&bytes, format, s.events.len(), cut).map_err(TestCaseError::fail)?;
    }
}
