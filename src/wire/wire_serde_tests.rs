//! The persisted vocabulary's serde: RFD 082 Phase 2 serialization tests,
//! the RFD's JSON examples as snapshots, one event of every kind as
//! snapshots, and round-trip properties for every wire type.

use crate::generate::wire as strategy;
use crate::wire::{
    CancellationReason, Event, EventKind, InquiryAnswerReusePolicy, InquiryAnswerType, InquiryId,
    InquiryQuestion, InquiryRequest, InquiryResponse, InquirySource, Opaque, SelectOption, Stream,
};
use proptest::prelude::*;
use serde_json::{Value, json};

/// RFD 082's JSON examples, kept as data (`spec/rfd-examples/`, checked
/// against the RFD text by `src/wire/rfd_examples_tests.rs`).
const RFD_082_EXAMPLES: [&str; 2] = [
    "spec/rfd-examples/rfd082-inquiryresponse-serialization-1.json",
    "spec/rfd-examples/rfd082-inquiryresponse-serialization-2.json",
];

fn id(s: &str) -> InquiryId {
    InquiryId::from_opaque(s)
}

fn response(json: &str) -> Result<InquiryResponse, serde_json::Error> {
    serde_json::from_str(json)
}

fn compact<T: serde::Serialize>(x: &T) -> String {
    serde_json::to_string(x).expect("wire types serialize")
}

fn keys(json: &str) -> Vec<String> {
    match serde_json::from_str::<Value>(json).expect("valid JSON") {
        Value::Object(m) => m.keys().cloned().collect(),
        other => panic!("expected an object, got {other}"),
    }
}

// ---------------------------------------------------------------------------
// RFD 082 Phase 2 serialization tests, named after the RFD's list.
// ---------------------------------------------------------------------------

/// Rule: WIRE-RESP-LEGACY — "Backward-compat round-trip": a pre-082 answered
/// response (no `outcome`) reads as `Answered` and is re-written tagged.
#[test]
fn backward_compat_round_trip_reads_legacy_answer_as_answered() {
    let legacy = r#"{"id":"call_1.answer","answer":true}"#;
    let read = response(legacy).expect("the legacy form reads");
    assert_eq!(
        read,
        InquiryResponse::Answered {
            id: id("call_1.answer"),
            answer: json!(true)
        }
    );
    assert_eq!(
        compact(&read),
        r#"{"outcome":"answered","id":"call_1.answer","answer":true}"#
    );

    // The same through the event reader, as the fixtures store it.
    let event = r#"{"type":"inquiry_response","timestamp":"t","id":"toolu_01.apply_changes","answer":{"a":[1,2]}}"#;
    let s = Stream::from_slice(event.as_bytes(), "legacy.jsonl").expect("reads");
    assert_eq!(
        s.events[0].as_inquiry_response(),
        Some(&InquiryResponse::Answered {
            id: id("toolu_01.apply_changes"),
            answer: json!({"a": [1, 2]})
        })
    );
}

/// Rule: WIRE-RESP-TAGGED — "Tagged serialization": `Answered`,
/// `Cancelled { User }`, `Cancelled { BackendError }` and `Redacted` each
/// write their own tagged shape, with `outcome` first.
#[test]
fn tagged_serialization_gives_each_variant_its_distinct_shape() {
    let cases = [
        (
            InquiryResponse::Answered {
                id: id("call_1.confirm.1"),
                answer: json!(true),
            },
            r#"{"outcome":"answered","id":"call_1.confirm.1","answer":true}"#,
        ),
        (
            InquiryResponse::Cancelled {
                id: id("call_1.confirm.1"),
                reason: CancellationReason::User,
            },
            r#"{"outcome":"cancelled","id":"call_1.confirm.1","reason":"user"}"#,
        ),
        (
            InquiryResponse::Cancelled {
                id: id("call_1.confirm.1"),
                reason: CancellationReason::BackendError,
            },
            r#"{"outcome":"cancelled","id":"call_1.confirm.1","reason":"backend_error"}"#,
        ),
        (
            InquiryResponse::Redacted {
                id: id("call_1.passphrase.1"),
            },
            r#"{"outcome":"redacted","id":"call_1.passphrase.1"}"#,
        ),
    ];
    let mut written = Vec::new();
    for (value, expected) in &cases {
        let text = compact(value);
        assert_eq!(&text, expected);
        assert_eq!(&response(&text).expect("reads back"), value);
        written.push(text);
    }
    written.sort();
    written.dedup();
    assert_eq!(
        written.len(),
        cases.len(),
        "every variant has its own shape"
    );
}

/// Rule: WIRE-RESP-REASON-DEFAULT — "Missing `reason` defaults to `User`".
#[test]
fn missing_reason_defaults_to_user() {
    let read = response(r#"{"outcome":"cancelled","id":"call_1.confirm.1"}"#).expect("reads");
    assert_eq!(
        read,
        InquiryResponse::Cancelled {
            id: id("call_1.confirm.1"),
            reason: CancellationReason::User
        }
    );
}

/// Rule: WIRE-RESP-INVALID — a response is a JSON object; the array form
/// serde accepts for derived structs is not a response.
#[test]
fn array_is_not_a_response() {
    for input in [r#"["x","answered",true,null]"#, r#"["x"]"#, "true"] {
        let err = response(input).expect_err(input).to_string();
        assert!(err.contains("expected an inquiry_response object"), "{err}");
    }
}

/// Rule: WIRE-REASON-UNKNOWN — "Unknown `reason` round-trips through
/// `Unknown(String)`": the RFD's exact input reads as `Unknown` and writes
/// back byte for byte.
#[test]
fn unknown_reason_round_trips_byte_for_byte() {
    let input = r#"{"outcome":"cancelled","id":"call_1.confirm.1","reason":"some_future_variant"}"#;
    let read = response(input).expect("an unknown reason is not an error");
    assert_eq!(
        read,
        InquiryResponse::Cancelled {
            id: id("call_1.confirm.1"),
            reason: CancellationReason::Unknown("some_future_variant".into())
        }
    );
    assert_eq!(compact(&read), input);

    // And as a whole event, through the stream reader and writer.
    let event = r#"{"type":"inquiry_response","timestamp":"t","outcome":"cancelled","id":"call_1.confirm.1","reason":"some_future_variant"}"#;
    let s = Stream::from_slice(event.as_bytes(), "e.jsonl").expect("reads");
    let mut out = Vec::new();
    s.write_json_lines(&mut out).expect("writes");
    assert_eq!(String::from_utf8(out).expect("utf-8"), format!("{event}\n"));
}

/// Rule: WIRE-RESP-REDACTED-NO-ANSWER — "`Redacted` carries no answer":
/// serializing writes no `answer` key, and an `answer` found on a redacted
/// event on disk is never materialised (nor written back).
#[test]
fn redacted_carries_no_answer() {
    let redacted = InquiryResponse::Redacted {
        id: id("call_1.passphrase.1"),
    };
    assert_eq!(keys(&compact(&redacted)), ["outcome", "id"]);

    let leaked = r#"{"outcome":"redacted","id":"call_1.passphrase.1","answer":"hunter2"}"#;
    assert_eq!(response(leaked).expect("reads"), redacted);

    let event = r#"{"type":"inquiry_response","outcome":"redacted","id":"call_1.passphrase.1","answer":"hunter2"}"#;
    let s = Stream::from_slice(event.as_bytes(), "e.jsonl").expect("reads");
    assert_eq!(s.events[0].as_inquiry_response(), Some(&redacted));
    assert!(
        s.events[0].extra.is_empty(),
        "the answer is not kept as an extra"
    );
    let rewritten = s.to_array_string();
    assert!(!rewritten.contains("hunter2"), "{rewritten}");
}

/// Rule: WIRE-RESP-INVALID — "Invalid shape": no `outcome` and no `answer`
/// is an error that says what was expected.
#[test]
fn invalid_shape_without_outcome_or_answer_is_an_error() {
    for input in [
        r#"{"id":"call_1.confirm.1"}"#,
        r#"{"id":"x","reason":"user"}"#,
    ] {
        let err = response(input).expect_err(input).to_string();
        assert!(err.contains("neither `outcome` nor `answer`"), "{err}");
        assert!(err.contains("expected"), "{err}");
    }
}

/// Rule: WIRE-RESP-INVALID — an `outcome` this build does not know is an
/// error (unlike reasons, outcomes have no landing pad).
#[test]
fn unknown_outcome_is_an_error() {
    let err = response(r#"{"outcome":"deferred","id":"x","answer":1}"#)
        .expect_err("unknown outcome")
        .to_string();
    assert!(
        err.contains("unknown inquiry_response outcome `deferred`"),
        "{err}"
    );
    assert!(err.contains("`answered`, `cancelled`, `redacted`"), "{err}");
}

/// Rule: WIRE-RESP-INVALID — `outcome: answered` without an `answer` is an
/// error, not an answer of `null`.
#[test]
fn answered_without_answer_is_an_error() {
    let err = response(r#"{"outcome":"answered","id":"x"}"#)
        .expect_err("no answer")
        .to_string();
    assert!(err.contains("missing `answer`"), "{err}");
}

/// Rule: WIRE-RESP-LEGACY — a legacy `"answer": null` is a present answer
/// whose value is `null`, not a missing one.
#[test]
fn legacy_null_answer_is_a_present_null_answer() {
    let read = response(r#"{"id":"call_1.answer","answer":null}"#).expect("reads");
    assert_eq!(
        read,
        InquiryResponse::Answered {
            id: id("call_1.answer"),
            answer: Value::Null
        }
    );
    let tagged = response(r#"{"outcome":"answered","id":"x","answer":null}"#).expect("reads");
    assert_eq!(
        tagged,
        InquiryResponse::Answered {
            id: id("x"),
            answer: Value::Null
        }
    );
}

/// Rule: WIRE-RESP-INVALID — a reason that is not a string is an error
/// naming the expected type.
#[test]
fn non_string_reason_is_an_error() {
    let err = response(r#"{"outcome":"cancelled","id":"x","reason":7}"#)
        .expect_err("integer reason")
        .to_string();
    assert!(err.contains("cancellation reason tag"), "{err}");
}

/// Rule: WIRE-REASON-TAGS — the known reasons are written with the tags of
/// RFD 082 (and RFD 083's `invalid_static_answer`) and read back from them:
/// the tags as the response oracle transcribes them from the RFDs, by hand
/// and apart from `wire` (one independent statement, read here and by the
/// fuzz targets).
#[cfg(feature = "testkit")]
#[test]
fn known_reasons_use_the_rfd_tags() {
    let tags = crate::fuzzing::response_oracle::RFD_REASON_TAGS;
    assert_eq!(CancellationReason::KNOWN.len(), tags.len());
    for (reason, tag) in CancellationReason::KNOWN.iter().zip(tags) {
        assert_eq!(compact(reason), format!("\"{tag}\""));
        assert_eq!(reason.to_string(), tag);
        let back: CancellationReason =
            serde_json::from_str(&format!("\"{tag}\"")).expect("a known tag reads");
        assert_eq!(&back, reason);
        assert!(!matches!(back, CancellationReason::Unknown(_)));
    }
}

// ---------------------------------------------------------------------------
// Snapshots: RFD 082's JSON examples (spec/rfd-examples/, from the RFD text).
// ---------------------------------------------------------------------------

/// The JSON code blocks of RFD 082's "`InquiryResponse` serialization"
/// section, each split into its top-level objects (exact text).
fn rfd082_serialization_examples() -> Vec<Vec<String>> {
    RFD_082_EXAMPLES
        .iter()
        .map(|path| {
            let body = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
            let mut objects = Vec::new();
            let mut current = String::new();
            for line in body.lines() {
                current.push_str(line);
                current.push('\n');
                if line == "}" {
                    objects.push(current.trim_end().to_owned());
                    current.clear();
                }
            }
            assert!(current.trim().is_empty(), "unterminated example: {current}");
            objects
        })
        .collect()
}

/// Rule: WIRE-RESP-TAGGED — every tagged example of RFD 082 "`InquiryResponse`
/// serialization" reads as the variant the RFD describes and is written back
/// exactly as the RFD prints it.
#[test]
fn rfd082_tagged_examples_read_and_write_back_exactly() {
    let blocks = rfd082_serialization_examples();
    assert_eq!(blocks.len(), 2, "one tagged block, one legacy block");
    let tagged = &blocks[0];
    let expected = [
        InquiryResponse::Answered {
            id: id("call_1.confirm.1"),
            answer: json!(true),
        },
        InquiryResponse::Cancelled {
            id: id("call_1.confirm.1"),
            reason: CancellationReason::User,
        },
        InquiryResponse::Cancelled {
            id: id("call_1.confirm.1"),
            reason: CancellationReason::BackendError,
        },
        InquiryResponse::Cancelled {
            id: id("call_1.passphrase.1"),
            reason: CancellationReason::NoPromptBackend,
        },
        InquiryResponse::Cancelled {
            id: id("call_1.passphrase.1"),
            reason: CancellationReason::AssistantRoutingDenied,
        },
        InquiryResponse::Cancelled {
            id: id("call_1.confirm.1"),
            reason: CancellationReason::Unknown("some_future_variant".into()),
        },
        InquiryResponse::Redacted {
            id: id("call_1.passphrase.1"),
        },
    ];
    assert_eq!(tagged.len(), expected.len(), "seven tagged examples");
    for (i, (example, want)) in tagged.iter().zip(&expected).enumerate() {
        let read = response(example).unwrap_or_else(|e| panic!("example {i}: {e}"));
        assert_eq!(&read, want, "example {i}");
        let pretty = serde_json::to_string_pretty(&read).expect("serializes");
        assert_eq!(
            &pretty, example,
            "example {i} is written as the RFD prints it"
        );
        insta::assert_snapshot!(format!("rfd082_tagged_example_{i}"), pretty);
    }
}

/// Rule: WIRE-RESP-LEGACY — the legacy flat example of RFD 082 reads as
/// `Answered` and is re-written in the tagged form.
#[test]
fn rfd082_legacy_example_is_rewritten_tagged() {
    let blocks = rfd082_serialization_examples();
    let legacy = &blocks[1];
    assert_eq!(legacy.len(), 1, "one legacy example");
    let read = response(&legacy[0]).expect("the legacy example reads");
    assert_eq!(
        read,
        InquiryResponse::Answered {
            id: id("call_1.answer"),
            answer: json!(true)
        }
    );
    let pretty = serde_json::to_string_pretty(&read).expect("serializes");
    assert_eq!(keys(&pretty), ["outcome", "id", "answer"]);
    insta::assert_snapshot!("rfd082_legacy_example_rewritten", pretty);
}

// ---------------------------------------------------------------------------
// Snapshots: one event of every kind, read from fixture-style input.
// ---------------------------------------------------------------------------

/// Rule: WIRE-EVENT-ORDER — one event of every kind, read from input in the
/// fixtures' style (fields in any order, `timestamp` sometimes first) and
/// written in the canonical order: `type`, `timestamp`, the kind's typed
/// fields, then the other fields in read order.
#[test]
fn every_event_kind_is_written_in_canonical_order() {
    let cases: [(&str, &str, &[&str]); 8] = [
        (
            "turn_start",
            r#"{"timestamp":"2026-04-10 17:04:20.531233","type":"turn_start"}"#,
            &["type", "timestamp"],
        ),
        (
            "chat_request",
            r#"{"timestamp":"2026-04-10 17:04:20.531236","type":"chat_request","content":"Why is the date missing?"}"#,
            &["type", "timestamp", "content"],
        ),
        (
            "chat_response",
            r#"{"type":"chat_response","timestamp":"2026-03-05 22:27:50.1","reasoning":"Looking…","metadata":{"anthropic_thinking_signature":"c2ln"}}"#,
            &["type", "timestamp", "reasoning", "metadata"],
        ),
        (
            "tool_call_request",
            r#"{"type":"tool_call_request","timestamp":"2026-03-05 22:29:40.0","arguments":{"path":"ZG9jcy9yZmQvaW5kZXgubWQ="},"name":"fs_modify_file","id":"toolu_01B5"}"#,
            &["type", "timestamp", "id", "name", "arguments"],
        ),
        (
            "tool_call_response",
            r#"{"type":"tool_call_response","timestamp":"2026-03-05 22:29:46.6","id":"toolu_01B5","content":"UGF0Y2ggYXBwbGllZA==","is_error":false}"#,
            &["type", "timestamp", "id", "content", "is_error"],
        ),
        (
            "inquiry_request",
            r#"{"type":"inquiry_request","timestamp":"2026-05-12 10:05:03.1","id":"call_2.answer.1","source":{"source":"assistant"},"question":{"text":"Keep the staging copy?","answer_type":{"type":"select","options":[{"value":"keep","description":"Leave it"},{"value":"drop"}]},"default":"keep","context":"Staging is 2 GB.","exclusive":true,"persistence":"none"}}"#,
            &["type", "timestamp", "id", "source", "question"],
        ),
        (
            "inquiry_response",
            r#"{"type":"inquiry_response","timestamp":"2026-05-12 10:05:06.0","id":"call_2.answer.1","reason":"no_prompt_backend","outcome":"cancelled","trace":"abc"}"#,
            &["type", "timestamp", "outcome", "id", "reason", "trace"],
        ),
        (
            "other_config_delta",
            r#"{"type":"config_delta","timestamp":"2026-01-02 23:36:11.839424","delta":{"inherit":true,"extends":["config.d/**/*"]}}"#,
            &["type", "timestamp", "delta"],
        ),
    ];
    for (name, input, order) in cases {
        let s = Stream::from_slice(input.as_bytes(), name).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.events.len(), 1);
        let e = &s.events[0];
        let pretty = serde_json::to_string_pretty(e).expect("serializes");
        assert_eq!(keys(&pretty), order, "{name}");
        // Nothing is lost: the same fields and values, only reordered.
        assert_eq!(
            serde_json::from_str::<Value>(&pretty).expect("valid"),
            serde_json::from_str::<Value>(input).expect("valid"),
            "{name}"
        );
        let back: Event = serde_json::from_str(&pretty).expect("reads back");
        assert_eq!(&back, e, "{name}");
        insta::assert_snapshot!(format!("event_{name}"), pretty);
    }
}

/// Rule: WIRE-EVENT-UNKNOWN-KIND — a kind this build does not know reads as
/// `Other` with its tag and keeps every field verbatim.
#[test]
fn unknown_event_kind_is_kept_verbatim() {
    let input = r#"{"type":"config_delta","timestamp":"t","delta":{"b": 1, "a": [1.50, 2e3]}}"#;
    let s = Stream::from_slice(input.as_bytes(), "c.jsonl").expect("reads");
    let e = &s.events[0];
    assert_eq!(e.kind, EventKind::Other("config_delta".into()));
    assert_eq!(e.kind.tag(), "config_delta");
    assert_eq!(e.extra.len(), 1);
    assert_eq!(e.extra[0].0, "delta");
    // Number spellings and key order survive, as written.
    assert_eq!(e.extra[0].1.get(), r#"{"b": 1, "a": [1.50, 2e3]}"#);
}

// ---------------------------------------------------------------------------
// Shapes of the smaller types.
// ---------------------------------------------------------------------------

/// Rule: WIRE-SOURCE-SHAPE — `InquirySource` is tagged by `source` (RFD 082
/// "Source attribution"); the read-only `user` and `other` shapes read too.
#[test]
fn inquiry_sources_have_their_tagged_shapes() {
    let cases = [
        (
            InquirySource::tool("fs_modify_file"),
            r#"{"source":"tool","name":"fs_modify_file"}"#,
        ),
        (InquirySource::Assistant, r#"{"source":"assistant"}"#),
        (InquirySource::User, r#"{"source":"user"}"#),
        (
            InquirySource::Other {
                name: "scheduler".into(),
            },
            r#"{"source":"other","name":"scheduler"}"#,
        ),
    ];
    for (source, text) in cases {
        assert_eq!(compact(&source), text);
        assert_eq!(
            serde_json::from_str::<InquirySource>(text).expect("reads"),
            source
        );
    }
    assert!(serde_json::from_str::<InquirySource>(r#"{"source":"tool"}"#).is_err());
    assert!(serde_json::from_str::<InquirySource>(r#"{"name":"x"}"#).is_err());
}

/// Rule: WIRE-ANSWER-TYPE-SHAPE — answer types are tagged by `type`, `secret`
/// included (RFD 082 "Secret questions"); select options are `{value}`
/// objects with an optional `description`.
#[test]
fn answer_types_have_their_tagged_shapes() {
    let cases = [
        (InquiryAnswerType::Boolean, r#"{"type":"boolean"}"#),
        (InquiryAnswerType::Text, r#"{"type":"text"}"#),
        (InquiryAnswerType::Secret, r#"{"type":"secret"}"#),
        (
            InquiryAnswerType::Select {
                options: vec![
                    SelectOption::new(json!("keep"), Some("Leave it".into())),
                    SelectOption::new(json!(2), None),
                ],
            },
            r#"{"type":"select","options":[{"value":"keep","description":"Leave it"},{"value":2}]}"#,
        ),
    ];
    for (ty, text) in cases {
        assert_eq!(compact(&ty), text);
        assert_eq!(
            serde_json::from_str::<InquiryAnswerType>(text).expect("reads"),
            ty
        );
    }
    assert!(serde_json::from_str::<InquiryAnswerType>(r#"{"type":"password"}"#).is_err());
}

/// Rule: WIRE-QUESTION-DEFAULTS — a question with `exclusive: true` and
/// `persistence: none` (RFD 083's `ask_user`) writes both fields and reads
/// them back.
#[test]
fn exclusive_question_with_persistence_none_round_trips_with_fields_present() {
    let q = InquiryQuestion {
        text: "Keep the staging copy?".into(),
        answer_type: InquiryAnswerType::Boolean,
        default: None,
        context: Some("Staging holds last week's build.".into()),
        exclusive: true,
        persistence: InquiryAnswerReusePolicy::None,
    };
    let text = compact(&q);
    assert_eq!(
        text,
        r#"{"text":"Keep the staging copy?","answer_type":{"type":"boolean"},"context":"Staging holds last week's build.","exclusive":true,"persistence":"none"}"#
    );
    assert_eq!(
        serde_json::from_str::<InquiryQuestion>(&text).expect("reads"),
        q
    );
}

/// Rule: WIRE-QUESTION-DEFAULTS — a written `"default": null` reads back as a
/// present `null` and is written back, not dropped.
#[test]
fn question_default_null_survives_a_round_trip() {
    let text = r#"{"text":"Name?","answer_type":{"type":"text"},"default":null}"#;
    let q: InquiryQuestion = serde_json::from_str(text).expect("reads");
    assert_eq!(q.default, Some(Value::Null));
    assert_eq!(compact(&q), text);
}

/// Rule: WIRE-ID-OPAQUE — an inquiry ID is written as the bare string it
/// was built from and read back unchanged, whatever its segments.
#[test]
fn inquiry_id_constructors_write_the_rfd_shapes() {
    assert_eq!(
        compact(&InquiryId::new("call_1", "confirm", 2)),
        r#""call_1.confirm.2""#
    );
    assert_eq!(
        compact(&InquiryId::legacy("call_1", "answer")),
        r#""call_1.answer""#
    );
    let odd = InquiryId::from_opaque("a.b.c.d");
    assert_eq!(odd.as_str(), "a.b.c.d");
    assert_eq!(odd.to_string(), "a.b.c.d");
    assert!(serde_json::from_str::<InquiryId>("3").is_err());
}

/// Rule: WIRE-OPAQUE-EQ — opaque values compare equal across re-indentation
/// but not across changes inside strings.
#[test]
fn opaque_equality_ignores_only_whitespace_outside_strings() {
    let o = |t: &str| serde_json::from_str::<Opaque>(t).expect("valid JSON");
    assert_eq!(
        o(r#"{"a": [1, 2]}"#),
        o("{\n  \"a\": [\n    1,\n    2\n  ]\n}")
    );
    assert_ne!(o(r#""a b""#), o(r#""ab""#));
    assert_ne!(o(r#"["a\" b"]"#), o(r#"["a\"b"]"#));
    assert_ne!(o(r#"{"a":1}"#), o(r#"{"a":10}"#));
    assert_ne!(o("1.0"), o("1"));
}

/// Rule: WIRE-OPAQUE-VALID — text a `Value` cannot hold (nesting past 128
/// levels, a lone surrogate escape, a number outside `f64` range) is not
/// accepted as an `Opaque`, so `to_value` never fails on read data.
#[test]
fn opaque_rejects_what_a_value_cannot_hold() {
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    for bad in [deep.as_str(), r#""\ud800""#, "1e400", r#"{"\udc00":1}"#] {
        let err = serde_json::from_str::<Opaque>(bad);
        assert!(err.is_err(), "accepted {bad:.40}");
    }
    let fine = format!("{}{}", "[".repeat(100), "]".repeat(100));
    let o: Opaque = serde_json::from_str(&fine).expect("100 levels are fine");
    assert_eq!(
        o.to_value(),
        serde_json::from_str::<Value>(&fine).expect("valid")
    );
}

/// Rule: WIRE-VISIBILITY — exactly `chat_request`, `chat_response`,
/// `tool_call_request` and `tool_call_response` are provider-visible
/// (RFD 004/005 draft "Event Visibility": an allowlist).
#[test]
fn provider_visibility_is_exactly_the_four_chat_and_tool_kinds() {
    let text = r#"
        {"type":"turn_start"}
        {"type":"chat_request","content":"hi"}
        {"type":"chat_response","message":"hello"}
        {"type":"tool_call_request","id":"c","name":"n"}
        {"type":"tool_call_response","id":"c"}
        {"type":"inquiry_request","id":"c.q.1","source":{"source":"assistant"},"question":{"text":"?","answer_type":{"type":"text"}}}
        {"type":"inquiry_response","outcome":"redacted","id":"c.q.1"}
        {"type":"config_delta","delta":{}}
        {"type":"chat_request_v2"}
        {"type":"Chat_Request"}
    "#;
    let s = Stream::from_slice(text.as_bytes(), "kinds.jsonl").expect("reads");
    let visible: Vec<&str> = s
        .events
        .iter()
        .filter(|e| e.is_provider_visible())
        .map(|e| e.kind.tag())
        .collect();
    assert_eq!(
        visible,
        [
            "chat_request",
            "chat_response",
            "tool_call_request",
            "tool_call_response"
        ]
    );
    assert_eq!(s.events.len(), 10);
}

// ---------------------------------------------------------------------------
// Round-trip properties.
// ---------------------------------------------------------------------------

fn round_trip<T>(x: &T) -> T
where
    T: serde::Serialize + serde::de::DeserializeOwned,
{
    let text = serde_json::to_string(x).expect("serializes");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

proptest! {
    /// Rule: WIRE-ID-OPAQUE — deserialize(serialize(id)) == id for any ID,
    /// written as the bare JSON string of `as_str`.
    #[test]
    fn inquiry_id_round_trips_as_the_bare_string_written(x in strategy::inquiry_id()) {
        prop_assert_eq!(serde_json::to_string(&x).unwrap(), serde_json::to_string(x.as_str()).unwrap());
        prop_assert_eq!(round_trip(&x), x);
    }

    /// Rule: WIRE-TYPES-ROUNDTRIP — deserialize(serialize(x)) == x for every
    /// `InquirySource`.
    #[test]
    fn inquiry_source_round_trips(x in strategy::inquiry_source()) {
        prop_assert_eq!(round_trip(&x), x);
    }

    /// Rule: WIRE-TYPES-ROUNDTRIP — deserialize(serialize(x)) == x for every
    /// `InquiryAnswerType`, select options with and without descriptions.
    #[test]
    fn inquiry_answer_type_round_trips(x in strategy::inquiry_answer_type()) {
        prop_assert_eq!(round_trip(&x), x);
    }

    /// Rule: WIRE-TYPES-ROUNDTRIP — deserialize(serialize(x)) == x for both
    /// `InquiryAnswerReusePolicy` values.
    #[test]
    fn inquiry_answer_reuse_policy_round_trips(x in strategy::inquiry_answer_reuse_policy()) {
        prop_assert_eq!(round_trip(&x), x);
    }

    /// Rule: WIRE-TYPES-ROUNDTRIP — deserialize(serialize(q)) == q for every
    /// `InquiryQuestion`, each optional field present or absent; a field at
    /// its default is not written.
    #[test]
    fn inquiry_question_round_trips(q in strategy::inquiry_question()) {
        let text = serde_json::to_string(&q).unwrap();
        let k = keys(&text);
        prop_assert_eq!(k.contains(&"context".to_owned()), q.context.is_some());
        prop_assert_eq!(k.contains(&"exclusive".to_owned()), q.exclusive);
        prop_assert_eq!(
            k.contains(&"persistence".to_owned()),
            q.persistence == InquiryAnswerReusePolicy::None
        );
        prop_assert_eq!(k.contains(&"default".to_owned()), q.default.is_some());
        prop_assert_eq!(round_trip(&q), q);
    }

    /// Rule: WIRE-QUESTION-DEFAULTS — a pre-083 question payload (written
    /// without `context`, `exclusive`, `persistence`) reads with the defaults
    /// and writes back byte-identical.
    #[test]
    fn pre_083_question_reads_with_defaults_and_writes_back_byte_identical(
        q in strategy::pre_083_question()
    ) {
        // Built as the pre-083 writer would, independently of our Serialize.
        let mut obj = serde_json::Map::new();
        obj.insert("text".into(), Value::String(q.text.clone()));
        obj.insert("answer_type".into(), serde_json::to_value(&q.answer_type).unwrap());
        if let Some(d) = &q.default {
            obj.insert("default".into(), d.clone());
        }
        let written = serde_json::to_string(&Value::Object(obj)).unwrap();
        let read: InquiryQuestion = serde_json::from_str(&written).unwrap();
        prop_assert_eq!(read.context.as_deref(), None);
        prop_assert!(!read.exclusive);
        prop_assert_eq!(read.persistence, InquiryAnswerReusePolicy::Turn);
        prop_assert_eq!(&read, &q);
        prop_assert_eq!(serde_json::to_string(&read).unwrap(), written);
    }

    /// Rule: WIRE-TYPES-ROUNDTRIP — deserialize(serialize(r)) == r for every
    /// `InquiryRequest`.
    #[test]
    fn inquiry_request_round_trips(r in strategy::inquiry_request()) {
        prop_assert_eq!(round_trip::<InquiryRequest>(&r), r);
    }

    /// Rule: WIRE-TYPES-ROUNDTRIP — deserialize(serialize(r)) == r for every
    /// `InquiryResponse`, unknown reasons included; the write is always
    /// tagged (rule WIRE-RESP-TAGGED).
    #[test]
    fn inquiry_response_round_trips_and_is_always_tagged(r in strategy::inquiry_response()) {
        let text = serde_json::to_string(&r).unwrap();
        let k = keys(&text);
        prop_assert_eq!(k.first().map(String::as_str), Some("outcome"));
        prop_assert_eq!(round_trip(&r), r);
    }

    /// Rule: WIRE-TYPES-ROUNDTRIP — deserialize(serialize(c)) == c for every
    /// `CancellationReason`, `Unknown` included.
    #[test]
    fn cancellation_reason_round_trips(c in strategy::cancellation_reason()) {
        prop_assert_eq!(round_trip(&c), c);
    }

    /// Rule: WIRE-REASON-UNKNOWN — any tag that is not a known one reads as
    /// `Unknown(tag)` and is written back verbatim.
    #[test]
    fn unknown_reason_tag_reads_as_unknown_and_writes_verbatim(tag in strategy::unknown_reason_tag()) {
        let text = serde_json::to_string(&tag).unwrap();
        let read: CancellationReason = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(&read, &CancellationReason::Unknown(tag.clone()));
        prop_assert_eq!(serde_json::to_string(&read).unwrap(), text);
    }

    /// Rule: WIRE-TYPES-ROUNDTRIP — deserialize(serialize(e)) == e for every
    /// `Event`: every kind, `Other` kinds, extra opaque fields.
    #[test]
    fn event_round_trips(e in strategy::event()) {
        prop_assert_eq!(round_trip(&e), e);
    }

    /// Rule: WIRE-RESP-TAGGED — the event writer writes an `inquiry_response`
    /// payload exactly as the standalone `InquiryResponse` serializer does.
    #[test]
    fn event_writes_inquiry_responses_like_the_standalone_type(
        r in strategy::inquiry_response(),
        ts in proptest::option::of(strategy::timestamp()),
    ) {
        let mut e = Event::new(EventKind::InquiryResponse(r.clone()));
        e.timestamp = ts.clone();
        let written: Value = serde_json::from_str(&serde_json::to_string(&e).unwrap()).unwrap();
        let Value::Object(mut m) = written else { panic!("an event is an object") };
        prop_assert_eq!(m.shift_remove("type"), Some(json!("inquiry_response")));
        prop_assert_eq!(m.shift_remove("timestamp"), ts.map(Value::String));
        let standalone = serde_json::to_string(&r).unwrap();
        prop_assert_eq!(serde_json::to_string(&Value::Object(m)).unwrap(), standalone);
    }

    /// Rule: WIRE-VISIBILITY — for every kind, generated ones included,
    /// `is_provider_visible` holds exactly for the four allowlisted tags.
    #[test]
    fn only_allowlisted_kinds_are_provider_visible(k in strategy::event_kind()) {
        let allowlisted = matches!(
            k.tag(),
            "chat_request" | "chat_response" | "tool_call_request" | "tool_call_response"
        ) && !matches!(k, EventKind::Other(_));
        prop_assert_eq!(k.is_provider_visible(), allowlisted);
    }
}

/// Rule: WIRE-OPAQUE-EQ — an opaque value's `Debug` is its text as read,
/// whitespace and a number's spelling included, so a failing comparison
/// (an `assert_eq!`, a proptest report) shows the two texts it compared.
#[test]
fn an_opaque_value_debugs_as_its_text_as_read() {
    let e: Event =
        serde_json::from_str(r#"{"type":"x","v": [1.50, "a b"] ,"w":{"k" : null}}"#).unwrap();
    let shown: Vec<String> = e.extra.iter().map(|(k, v)| format!("{k}={v:?}")).collect();
    assert_eq!(shown, [r#"v=[1.50, "a b"]"#, r#"w={"k" : null}"#]);
}

/// An event's `Debug` shows its timestamp, kind and kept extra fields (what
/// its equality compares), and not the number text it keeps for writing
/// (rule WIRE-NUMBER-TEXT: how a value is spelled, not what it is).
#[test]
fn an_event_debugs_as_what_it_compares() {
    let e: Event = serde_json::from_str(
        r#"{"type":"inquiry_response","timestamp":"t","id":"c.q.1","answer":1.50,"v":[2]}"#,
    )
    .unwrap();
    let shown = format!("{e:?}");
    assert!(
        shown.starts_with(r#"Event { timestamp: Some("t"), kind: InquiryResponse("#)
            && shown.ends_with(r#", extra: [("v", [2])] }"#)
            && !shown.contains("value_text"),
        "{shown}"
    );
}

/// Rule: WIRE-EVENT-SHAPE — a raw event's tag is its `type` field's string,
/// escapes decoded; absent or not a string, there is none (the fuzz target
/// `event` holds it equal to the typed kind's tag).
#[test]
fn a_raw_events_tag_is_its_type_string_decoded() {
    for (text, tag) in [
        (r#"{"type":"turn_start"}"#, Some("turn_start")),
        (
            r#"{"timestamp":"t","type":"in\u0071uiry_request"}"#,
            Some("inquiry_request"),
        ),
        (r#"{"type":""}"#, Some("")),
        (r#"{"type":1}"#, None),
        (r#"{"kind":"turn_start"}"#, None),
    ] {
        let raw: crate::wire::RawEvent = serde_json::from_str(text).expect("reads");
        assert_eq!(raw.tag().as_deref(), tag, "{text}");
    }
}

/// Rule: WIRE-EVENT-SHAPE — read by serde directly (the fuzz target
/// `event`, a user's own reader) rather than by the stream reader, a value
/// that is not an object is refused as not an event, saying what was
/// expected.
#[test]
fn a_value_that_is_not_an_object_is_refused_as_not_an_event() {
    for text in ["1", "[1]", r#""turn_start""#, "null", "true"] {
        let raw = serde_json::from_str::<crate::wire::RawEvent>(text).unwrap_err();
        assert!(
            raw.to_string().contains("expected an event object"),
            "{text}: {raw}"
        );
        let typed = serde_json::from_str::<Event>(text).unwrap_err();
        assert!(
            typed.to_string().contains("expected an event object"),
            "{text}: {typed}"
        );
    }
}
