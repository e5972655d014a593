//! Whole stream files: pre-082 streams (the committed corpus, and the real
//! streams when `INQUIRY_MODEL_REAL_STREAMS` names them), the bundled spec
//! examples, and generated streams, through both writers and back.

use std::fs::{self, File};
use std::io::BufReader;
use std::path::{Path, PathBuf};

use crate::generate::wire as strategy;
use crate::wire::{
    CancellationReason, Event, EventKind, EventReader, Format, InquiryAnswerReusePolicy,
    InquiryResponse, InquirySource, Stream,
};
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::external;

/// Every pre-082 stream file: the committed corpus (`tests/corpus/jp-like/`)
/// and, when `INQUIRY_MODEL_REAL_STREAMS` names their folder, the real ones.
fn fixture_files(test: &str) -> Vec<PathBuf> {
    external::legacy_stream_files(&format!("wire_stream_files::{test}"))
}

fn encode(s: &Stream, format: Format) -> Vec<u8> {
    strategy::encode(s, format).unwrap_or_else(|e| panic!("{format:?}: {e}"))
}

fn read_file(path: &Path) -> Stream {
    let f = File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Stream::read(BufReader::new(f), &path.display().to_string()).unwrap_or_else(|e| panic!("{e}"))
}

fn read_bytes(bytes: &[u8], origin: &str) -> Stream {
    Stream::from_slice(bytes, origin).unwrap_or_else(|e| panic!("{e}"))
}

/// Rule: WIRE-FIXTURES — every real stream reads without error, as a JSON
/// array, with one typed event per array element and the element's `type`.
#[test]
fn every_fixture_stream_reads() {
    let mut total = 0;
    for path in fixture_files("every_fixture_stream_reads") {
        let bytes = fs::read(&path).expect("readable fixture");
        let mut reader = EventReader::new(bytes.as_slice(), path.display().to_string());
        let first = reader.next();
        assert!(matches!(first, Some(Ok(_))), "{}", path.display());
        assert_eq!(reader.format(), Some(Format::Array));

        let s = read_file(&path);
        let Value::Array(elements) = serde_json::from_slice::<Value>(&bytes).expect("valid JSON")
        else {
            panic!("{} is not an array", path.display())
        };
        assert_eq!(s.events.len(), elements.len(), "{}", path.display());
        for (e, v) in s.events.iter().zip(&elements) {
            assert_eq!(Some(e.kind.tag()), v["type"].as_str());
            assert_eq!(e.timestamp.as_deref(), v["timestamp"].as_str());
        }
        total += s.events.len();
    }
    assert!(
        total > 600,
        "the corpus alone holds over 600 events, read {total}"
    );
}

/// Rule: WIRE-RESP-LEGACY — the fixtures' untagged responses all read as
/// `Answered`, their two-segment IDs kept as written and paired with a
/// request of the same ID.
#[test]
fn fixture_legacy_responses_read_as_answered() {
    let mut responses = 0;
    let mut expected = 0;
    for path in fixture_files("fixture_legacy_responses_read_as_answered") {
        let bytes = fs::read(&path).expect("readable fixture");
        // Counted on the plain JSON, without the reader.
        let plain: Vec<Value> = serde_json::from_slice(&bytes).expect("a JSON array");
        expected += plain
            .iter()
            .filter(|e| e["type"] == "inquiry_response")
            .count();
        let raws: Vec<_> = EventReader::new(bytes.as_slice(), "f")
            .map(|r| r.expect("reads").0)
            .collect();
        let s = read_bytes(&bytes, "f");
        for (raw, e) in raws.iter().zip(&s.events) {
            if let Some(r) = e.as_inquiry_response() {
                responses += 1;
                assert!(raw.field("outcome").is_none(), "fixtures predate `outcome`");
                let InquiryResponse::Answered { id, .. } = r else {
                    panic!("legacy response read as {r:?}")
                };
                assert_eq!(
                    raw.field("id").map(|v| v.get().to_owned()),
                    Some(serde_json::to_string(id.as_str()).unwrap())
                );
                let asked = s
                    .events
                    .iter()
                    .filter_map(Event::as_inquiry_request)
                    .any(|q| &q.id == id);
                assert!(asked, "{id} has a request");
            }
        }
    }
    assert!(expected > 0, "the corpus holds inquiry responses");
    assert_eq!(responses, expected, "every inquiry response was read");
}

/// Rule: WIRE-STREAM-ROUNDTRIP — every real stream, written as an array and
/// as JSON Lines, reads back equal; a second write is byte-identical to the
/// first.
#[test]
fn fixture_streams_round_trip_through_both_writers() {
    for path in fixture_files("fixture_streams_round_trip_through_both_writers") {
        let s = read_file(&path);
        for format in [Format::Array, Format::JsonLines] {
            let first = encode(&s, format);
            let back = read_bytes(&first, "first write");
            assert_eq!(back, s, "{} as {format:?}", path.display());
            let second = encode(&back, format);
            assert!(
                first == second,
                "{} as {format:?}: the second write differs",
                path.display()
            );
        }
    }
}

/// Rule: WIRE-FIXTURES — re-writing a real stream keeps every field of
/// every event with its value; the only change is the `outcome` tag added to
/// legacy responses (rule WIRE-RESP-TAGGED).
#[test]
fn fixture_rewrite_keeps_every_field_and_only_tags_legacy_responses() {
    for path in fixture_files("fixture_rewrite_keeps_every_field_and_only_tags_legacy_responses") {
        let bytes = fs::read(&path).expect("readable fixture");
        let Value::Array(mut original) = serde_json::from_slice::<Value>(&bytes).unwrap() else {
            panic!("array expected")
        };
        for e in &mut original {
            if e["type"] == "inquiry_response" && e.get("outcome").is_none() {
                e.as_object_mut()
                    .unwrap()
                    .insert("outcome".into(), json!("answered"));
            }
        }
        let written = encode(&read_bytes(&bytes, "f"), Format::Array);
        let rewritten: Value = serde_json::from_slice(&written).unwrap();
        assert_eq!(rewritten, Value::Array(original), "{}", path.display());
    }
}

/// Rule: WIRE-JSONL-ONE-LINE — a real stream (whose opaque fields span many
/// lines) written as JSON Lines has exactly one line per event, each line
/// one event.
#[test]
fn fixture_json_lines_have_one_line_per_event() {
    for path in fixture_files("fixture_json_lines_have_one_line_per_event") {
        let s = read_file(&path);
        let text = String::from_utf8(encode(&s, Format::JsonLines)).expect("UTF-8");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), s.events.len(), "{}", path.display());
        for (line, e) in lines.iter().zip(&s.events) {
            let one: Event = serde_json::from_str(line).unwrap_or_else(|err| panic!("{err}"));
            assert_eq!(&one, e);
        }
    }
}

/// Rule: WIRE-STREAM-ROUNDTRIP — the bundled spec examples (an RFD 082/083
/// array and a legacy JSON Lines file) read as the RFDs describe and
/// round-trip.
#[test]
fn spec_examples_read_as_described_and_round_trip() {
    let mixed = read_file(Path::new("spec/examples/rfd083-mixed-routes.json"));
    let responses: Vec<&InquiryResponse> = mixed
        .events
        .iter()
        .filter_map(Event::as_inquiry_response)
        .collect();
    assert!(matches!(
        responses.as_slice(),
        [
            InquiryResponse::Answered {
                answer: Value::Bool(true),
                ..
            },
            InquiryResponse::Redacted { .. },
            InquiryResponse::Cancelled {
                reason: CancellationReason::User,
                ..
            },
            InquiryResponse::Answered {
                answer: Value::Bool(false),
                ..
            },
        ]
    ));
    let ask = mixed
        .events
        .iter()
        .filter_map(Event::as_inquiry_request)
        .find(|r| r.source == InquirySource::Assistant)
        .expect("an ask_user request");
    assert!(ask.question.exclusive);
    assert_eq!(ask.question.persistence, InquiryAnswerReusePolicy::None);

    let legacy_bytes = fs::read("spec/examples/legacy-backend-answered.jsonl").unwrap();
    let mut reader = EventReader::new(legacy_bytes.as_slice(), "legacy");
    assert!(reader.next().is_some());
    assert_eq!(reader.format(), Some(Format::JsonLines));
    let legacy = read_bytes(&legacy_bytes, "legacy");
    assert_eq!(legacy.events.len(), 7);
    assert!(matches!(
        legacy.events[4].kind,
        EventKind::InquiryResponse(InquiryResponse::Answered { .. })
    ));

    for s in [&mixed, &legacy] {
        for format in [Format::Array, Format::JsonLines] {
            assert_eq!(&read_bytes(&encode(s, format), "w"), s);
        }
    }
}

/// Rule: WIRE-JSONL-ONE-LINE — the legacy spec example, re-written as JSON
/// Lines: one tagged line per event, fields in canonical order.
#[test]
fn legacy_spec_example_rewritten_as_json_lines() {
    let legacy = read_file(Path::new("spec/examples/legacy-backend-answered.jsonl"));
    let text = String::from_utf8(encode(&legacy, Format::JsonLines)).unwrap();
    assert_eq!(text.lines().count(), legacy.events.len());
    insta::assert_snapshot!("legacy_example_as_json_lines", text);
}

proptest! {
    /// Rule: WIRE-STREAM-ROUNDTRIP — any stream written as a JSON array reads
    /// back equal, and writing it again gives the same bytes.
    #[test]
    fn stream_written_as_array_reads_back_equal(s in strategy::stream(12)) {
        let first = encode(&s, Format::Array);
        let back = Stream::from_slice(&first, "gen.json")
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&back, &s);
        prop_assert_eq!(encode(&back, Format::Array), first);
    }

    /// Rule: WIRE-STREAM-ROUNDTRIP — any non-empty stream written as JSON
    /// Lines reads back equal, and writing it again gives the same bytes; an
    /// empty one is refused by the writer, never written as a file the
    /// reader rejects.
    #[test]
    fn stream_written_as_json_lines_reads_back_equal(s in strategy::stream(12)) {
        if s.events.is_empty() {
            let err = strategy::encode(&s, Format::JsonLines).expect_err("no JSON Lines form");
            prop_assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
            return Ok(());
        }
        let first = encode(&s, Format::JsonLines);
        let back = Stream::from_slice(&first, "gen.jsonl")
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&back, &s);
        prop_assert_eq!(encode(&back, Format::JsonLines), first);
    }

    /// Rule: WIRE-JSONL-ONE-LINE — JSON Lines output has exactly one line
    /// per event, whatever whitespace the events' opaque fields hold.
    #[test]
    fn json_lines_output_has_exactly_one_line_per_event(
        s in prop::collection::vec(strategy::event(), 1..12).prop_map(Stream::new)
    ) {
        let text = String::from_utf8(encode(&s, Format::JsonLines)).unwrap();
        prop_assert_eq!(text.lines().count(), s.events.len());
        prop_assert!(text.ends_with('\n'));
        for (line, e) in text.lines().zip(&s.events) {
            let one: Event = serde_json::from_str(line).map_err(|err| TestCaseError::fail(err.to_string()))?;
            prop_assert_eq!(&one, e);
        }
    }

    /// Rule: WIRE-STREAM-ROUNDTRIP — reading a stream's array form and its
    /// JSON Lines form gives the same events, and the reader reports the
    /// layout it saw.
    #[test]
    fn both_layouts_read_as_the_same_events((s, format, bytes) in strategy::encoded_stream(8)) {
        let mut reader = EventReader::new(bytes.as_slice(), "gen");
        prop_assert!(matches!(reader.next(), Some(Ok(_))));
        prop_assert_eq!(reader.format(), Some(format));
        let other = match format {
            Format::Array => Format::JsonLines,
            Format::JsonLines => Format::Array,
        };
        let a = Stream::from_slice(&bytes, "a").map_err(|e| TestCaseError::fail(e.to_string()))?;
        let b = Stream::from_slice(&encode(&s, other), "b").map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(a, b);
    }
}
