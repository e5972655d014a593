//! The seed corpus: RFD 082's JSON examples, small hand-made vectors at
//! the edges of the format, streams built with [`crate::generate::stream`], and
//! for the structured targets byte strings in their encodings
//! ([`crate::generate::stream::flat`], [`crate::generate::scenario::from_bytes`]), all as data, no I/O.
//!
//! `examples/fuzz_corpus.rs` (`make fuzz-corpus`) writes [`generated`] as
//! `fuzz/corpus/<target>/seed-*` and [`from_examples`] over `spec/examples/`
//! as `example-*`; `src/fuzzing/fuzz_corpus_replay_tests.rs` checks that the committed
//! `seed-*` files are exactly what [`generated`] gives. Other files in a
//! corpus folder (`crash-*`, `regression-*`) are kept by hand.

use serde_json::{Value, json};

use crate::generate::stream as arb;
use crate::wire::{
    CancellationReason, Event, EventKind, EventReader, InquiryId, InquiryResponse, RawEvent, Stream,
};

/// One corpus file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seed {
    /// The target (corpus folder) it belongs to.
    pub target: &'static str,
    /// The file name, unique within the folder.
    pub name: String,
    /// The content.
    pub bytes: Vec<u8>,
}

/// The targets that read one `InquiryResponse` object.
const RESPONSE_TARGETS: [&str; 3] = [
    "inquiry_response",
    "roundtrip_response",
    "response_differential",
];
/// The targets that read one event object.
const EVENT_TARGETS: [&str; 2] = ["event", "roundtrip_event"];
/// The targets that read a whole stream file.
const STREAM_TARGETS: [&str; 3] = ["stream_reader", "roundtrip_stream", "check_bytes"];

/// RFD 082 "`InquiryResponse` serialization": the seven tagged examples, as
/// printed there.
pub(crate) const RFD082_TAGGED: [&str; 7] = [
    "{\n  \"outcome\": \"answered\",\n  \"id\": \"call_1.confirm.1\",\n  \"answer\": true\n}",
    "{\n  \"outcome\": \"cancelled\",\n  \"id\": \"call_1.confirm.1\",\n  \"reason\": \"user\"\n}",
    "{\n  \"outcome\": \"cancelled\",\n  \"id\": \"call_1.confirm.1\",\n  \"reason\": \"backend_error\"\n}",
    "{\n  \"outcome\": \"cancelled\",\n  \"id\": \"call_1.passphrase.1\",\n  \"reason\": \"no_prompt_backend\"\n}",
    "{\n  \"outcome\": \"cancelled\",\n  \"id\": \"call_1.passphrase.1\",\n  \"reason\": \"assistant_routing_denied\"\n}",
    "{\n  \"outcome\": \"cancelled\",\n  \"id\": \"call_1.confirm.1\",\n  \"reason\": \"some_future_variant\"\n}",
    "{\n  \"outcome\": \"redacted\",\n  \"id\": \"call_1.passphrase.1\"\n}",
];

/// RFD 082: the legacy flat form written by pre-082 code.
pub(crate) const RFD082_LEGACY: &str = "{\n  \"id\": \"call_1.answer\",\n  \"answer\": true\n}";

/// Responses at the edges of the read rules, named.
pub(crate) const RESPONSE_EDGES: [(&str, &str); 27] = [
    (
        "answered-null",
        r#"{"outcome":"answered","id":"x","answer":null}"#,
    ),
    ("legacy-null", r#"{"id":"call_1.answer","answer":null}"#),
    (
        "cancelled-no-reason",
        r#"{"outcome":"cancelled","id":"call_1.confirm.1"}"#,
    ),
    (
        "cancelled-invalid-static",
        r#"{"outcome":"cancelled","id":"c.q.1","reason":"invalid_static_answer"}"#,
    ),
    (
        "cancelled-with-answer",
        r#"{"outcome":"cancelled","id":"c.q.1","reason":"user","answer":true}"#,
    ),
    (
        "redacted-with-answer",
        r#"{"outcome":"redacted","id":"call_1.passphrase.1","answer":"hunter2"}"#,
    ),
    (
        "answered-with-reason",
        r#"{"outcome":"answered","id":"x","answer":1,"reason":"user"}"#,
    ),
    (
        "unknown-outcome",
        r#"{"outcome":"deferred","id":"x","answer":1}"#,
    ),
    (
        "capital-outcome",
        r#"{"outcome":"Answered","id":"x","answer":1}"#,
    ),
    ("answered-no-answer", r#"{"outcome":"answered","id":"x"}"#),
    ("id-only", r#"{"id":"call_1.confirm.1"}"#),
    ("reason-only", r#"{"id":"x","reason":"user"}"#),
    ("id-number", r#"{"id":7,"answer":true}"#),
    ("no-id", r#"{"outcome":"redacted"}"#),
    (
        "reason-number",
        r#"{"outcome":"cancelled","id":"x","reason":7}"#,
    ),
    ("outcome-number", r#"{"outcome":1,"id":"x","answer":true}"#),
    (
        "nested-answer",
        r#"{"outcome":"answered","id":"x","answer":{"k":[1,2.5,-0,"s",null,{"z":false}]},"extra":{"ignored":[1e308]}}"#,
    ),
    ("duplicate-id", r#"{"id":"a","answer":1,"id":"b"}"#),
    ("duplicate-extra", r#"{"id":"a","answer":1,"x":1,"x":2}"#),
    (
        "escaped-keys",
        r#"{"\u0069d":"a","outc\u006fme":"cancelled","reason":"us\u0065r"}"#,
    ),
    (
        "unicode",
        r#"{"outcome":"answered","id":"call_\u00e9.q.1","answer":"\ud83d\ude00 \u2028"}"#,
    ),
    ("empty-object", "{}"),
    ("not-an-object", "true"),
    ("truncated", r#"{"outcome":"answered","id":"x","answ"#),
    ("outcome-null", r#"{"id":"a","outcome":null,"answer":1}"#),
    (
        "reason-null",
        r#"{"outcome":"cancelled","id":"a","reason":null}"#,
    ),
    ("array-form", r#"["call_1.confirm.1", null, true]"#),
];

/// Cancellation reasons as JSON texts beside every tag this build knows
/// (derived from [`CancellationReason::KNOWN`] in [`generated`]): unknown
/// ones, escapes, and non-strings.
const REASONS: [(&str, &str); 9] = [
    ("future", r#""some_future_variant""#),
    ("empty", r#""""#),
    ("escaped-user", r#""us\u0065r""#),
    ("control", r#""\u0000\n""#),
    ("null", "null"),
    ("number", "7"),
    ("object", r#"{"reason":"user"}"#),
    ("array", r#"["user"]"#),
    ("padded", " \"user\"\n"),
];

/// Raw tags (and `id NUL tag` pairs) for the `reason_tag` target.
const TAGS: [(&str, &[u8]); 8] = [
    ("user", b"user"),
    ("backend-error", b"backend_error"),
    ("future", b"some_future_variant"),
    ("with-id", b"call_9.passphrase.2\0no_prompt_backend"),
    ("quotes", b"quote\"back\\slash/"),
    ("controls", b"tab\tnew\nline\x01"),
    ("unicode", "r\u{e9}sum\u{e9} \u{1f600} \u{2028}".as_bytes()),
    ("invalid-utf8", b"\xff\xfe\0\xc3"),
];

/// Inquiry request payloads: every source and answer type, the RFD 083
/// fields, and shapes the reader must refuse.
const REQUESTS: [(&str, &str); 12] = [
    (
        "boolean-default",
        r#"{"id":"call_1.confirm.1","source":{"source":"tool","name":"deploy"},"question":{"text":"Deploy?","answer_type":{"type":"boolean"},"default":false}}"#,
    ),
    (
        "select-options",
        r#"{"id":"c.env.1","source":{"source":"tool","name":"deploy"},"question":{"text":"Where?","answer_type":{"type":"select","options":[{"value":"prod","description":"Production"},{"value":2}]}}}"#,
    ),
    (
        "secret",
        r#"{"id":"c.passphrase.1","source":{"source":"tool","name":"ssh"},"question":{"text":"Passphrase","answer_type":{"type":"secret"}}}"#,
    ),
    (
        "assistant-083",
        r#"{"id":"c.answer.1","source":{"source":"assistant"},"question":{"text":"Proceed?","answer_type":{"type":"text"},"context":"Why","exclusive":true,"persistence":"none"}}"#,
    ),
    (
        "user-source",
        r#"{"id":"c.q.1","source":{"source":"user"},"question":{"text":"?","answer_type":{"type":"text"}}}"#,
    ),
    (
        "other-source",
        r#"{"id":"c.q.1","source":{"source":"other","name":"x"},"question":{"text":"?","answer_type":{"type":"boolean"}}}"#,
    ),
    (
        "default-null",
        r#"{"id":"c.q.1","source":{"source":"assistant"},"question":{"text":"?","answer_type":{"type":"text"},"default":null}}"#,
    ),
    (
        "explicit-defaults",
        r#"{"id":"c.q.1","source":{"source":"assistant"},"question":{"text":"?","answer_type":{"type":"text"},"exclusive":false,"persistence":"turn"}}"#,
    ),
    (
        "unknown-answer-type",
        r#"{"id":"c.q.1","source":{"source":"assistant"},"question":{"text":"?","answer_type":{"type":"date"}}}"#,
    ),
    (
        "select-no-options",
        r#"{"id":"c.q.1","source":{"source":"assistant"},"question":{"text":"?","answer_type":{"type":"select"}}}"#,
    ),
    (
        "option-extra-field",
        r#"{"id":"c.q.1","source":{"source":"assistant"},"question":{"text":"?","answer_type":{"type":"select","options":[{"value":1,"label":"x"}]}}}"#,
    ),
    (
        "id-number",
        r#"{"id":1,"source":{"source":"assistant"},"question":{"text":"?","answer_type":{"type":"text"}}}"#,
    ),
];

/// Single events at the edges of the envelope.
const EVENTS: [(&str, &str); 14] = [
    (
        "config-delta",
        r#"{"type":"config_delta","timestamp":"2026-03-05 21:00:00.000000","delta":{"model":"x"}}"#,
    ),
    ("no-type", r#"{"timestamp":"t","content":"x"}"#),
    ("type-number", r#"{"type":7}"#),
    (
        "timestamp-number",
        r#"{"type":"turn_start","timestamp":1741208400}"#,
    ),
    (
        "duplicate-field",
        r#"{"type":"chat_request","content":"a","content":"b"}"#,
    ),
    (
        "is-error-string",
        r#"{"type":"tool_call_response","id":"call_1","content":"x","is_error":"yes"}"#,
    ),
    (
        "tool-call-no-name",
        r#"{"type":"tool_call_request","id":"call_1","arguments":{}}"#,
    ),
    (
        "legacy-response",
        r#"{"type":"inquiry_response","timestamp":"t","id":"toolu_01.apply_changes","answer":true}"#,
    ),
    (
        "response-extras",
        r#"{"type":"inquiry_response","outcome":"cancelled","id":"c.q.1","reason":"future","metadata":{"k":[1,2]}}"#,
    ),
    (
        "lone-surrogate-extra",
        r#"{"type":"chat_request","content":"\ud800"}"#,
    ),
    (
        "huge-number-extra",
        r#"{"type":"chat_response","message":1e400}"#,
    ),
    (
        "deep-extra",
        "{\"type\":\"chat_request\",\"content\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}",
    ),
    (
        "pretty",
        "{\n  \"type\": \"tool_call_request\",\n  \"id\": \"call_1\",\n  \"name\": \"deploy\",\n  \"arguments\": {\n    \"target\": \"prod\"\n  }\n}",
    ),
    ("not-an-object", r#"["turn_start"]"#),
];

/// Whole stream files at the edges of the layouts.
const STREAM_TEXTS: [(&str, &str); 12] = [
    ("empty-array", "[]"),
    ("empty", ""),
    ("whitespace", " \n\t "),
    ("trailing-comma", r#"[{"type":"turn_start"},]"#),
    ("trailing-data", r#"[{"type":"turn_start"}] x"#),
    (
        "jsonl-no-newline",
        r#"{"type":"turn_start"}{"type":"chat_request","content":"x"}"#,
    ),
    ("non-object-element", r#"[{"type":"turn_start"}, 1]"#),
    ("unclosed-array", r#"[{"type":"turn_start"}"#),
    (
        "unclosed-object",
        "{\"type\":\"turn_start\",\n\"x\":\"}\\\"{\"",
    ),
    ("bom", "\u{feff}[]"),
    (
        "mixed-legacy-then-tagged",
        concat!(
            r#"{"type":"turn_start"}"#,
            "\n",
            r#"{"type":"tool_call_request","id":"call_1","name":"fs","arguments":{}}"#,
            "\n",
            r#"{"type":"inquiry_request","id":"call_1.apply","source":{"source":"tool","name":"fs"},"question":{"text":"Apply?","answer_type":{"type":"boolean"}}}"#,
            "\n",
            r#"{"type":"inquiry_response","id":"call_1.apply","answer":true}"#,
            "\n",
            r#"{"type":"tool_call_response","id":"call_1","content":"ok","is_error":false}"#,
            "\n",
            r#"{"type":"turn_start"}"#,
            "\n",
            r#"{"type":"tool_call_request","id":"call_1","name":"ssh","arguments":{}}"#,
            "\n",
            r#"{"type":"inquiry_request","id":"call_1.pass.1","source":{"source":"tool","name":"ssh"},"question":{"text":"Pass","answer_type":{"type":"secret"}}}"#,
            "\n",
            r#"{"type":"inquiry_response","outcome":"redacted","id":"call_1.pass.1","answer":"leaked"}"#,
            "\n",
            r#"{"type":"inquiry_response","outcome":"cancelled","id":"call_1.pass.1","reason":"some_future_variant"}"#,
            "\n",
            r#"{"type":"tool_call_response","id":"call_1","content":"ok"}"#,
            "\n",
        ),
    ),
    (
        "cross-turn-legacy",
        concat!(
            "[\n",
            r#"{"type":"turn_start","timestamp":"1"},"#,
            "\n",
            r#"{"type":"tool_call_request","id":"toolu_01","name":"fs_modify_file","arguments":{}},"#,
            "\n",
            r#"{"type":"inquiry_request","id":"toolu_01.apply_changes","source":{"source":"tool","name":"fs_modify_file"},"question":{"text":"Apply?","answer_type":{"type":"boolean"}}},"#,
            "\n",
            r#"{"type":"tool_call_response","id":"toolu_01","content":"x"},"#,
            "\n",
            r#"{"type":"turn_start","timestamp":"2"},"#,
            "\n",
            r#"{"type":"inquiry_response","id":"toolu_01.apply_changes","answer":false}"#,
            "\n",
            "]\n",
        ),
    ),
];

/// A byte of the `sanitize` encoding: event kind, tool-call ID index and
/// question index (see [`crate::generate::stream::flat`]).
const fn ev(kind: u8, call: u8, question: u8) -> u8 {
    kind | (call << 3) | (question << 5)
}

/// The second byte of an inquiry event: attempt (0 = legacy ID), outcome
/// (0 answered, 1 cancelled, 2 redacted), and answer/reason pick.
const fn inq(attempt: u8, outcome: u8, pick: u8) -> u8 {
    attempt + 3 * outcome + 9 * pick
}

/// Streams in the `sanitize` encoding, after RFD 082 Phase 3's tests.
fn sanitize_seeds() -> Vec<(&'static str, Vec<u8>)> {
    let (turn, chat_req, chat_resp, other) = (ev(0, 0, 0), ev(1, 0, 0), ev(2, 0, 0), ev(3, 0, 0));
    let (tcq, tcr) = (|c| ev(4, c, 0), |c| ev(5, c, 0));
    let (iq, ir) = (|c, q| ev(6, c, q), |c, q| ev(7, c, q));
    vec![
        // One clean exchange: nothing to repair.
        (
            "clean-exchange",
            vec![
                1,
                turn,
                chat_req,
                tcq(0),
                iq(0, 0),
                inq(1, 0, 0),
                ir(0, 0),
                inq(1, 0, 0),
                tcr(0),
                chat_resp,
            ],
        ),
        // "Legacy duplicate IDs within a turn under sanitize": two requests
        // with one legacy ID, one response: the by-order pair stays.
        (
            "legacy-duplicates",
            vec![
                0,
                turn,
                tcq(0),
                iq(0, 0),
                inq(0, 0, 0),
                iq(0, 0),
                inq(0, 0, 0),
                ir(0, 0),
                inq(0, 0, 0),
                tcr(0),
            ],
        ),
        // "Cross-turn ID collision under sanitize": the request of turn 1
        // and the response of turn 2 never pair.
        (
            "cross-turn-collision",
            vec![
                0,
                turn,
                tcq(0),
                iq(0, 0),
                inq(0, 0, 0),
                tcr(0),
                turn,
                tcq(0),
                ir(0, 0),
                inq(0, 0, 0),
                tcr(0),
            ],
        ),
        // Orphans of every kind, with events before the first turn.
        (
            "every-orphan",
            vec![
                1,
                ir(1, 1),
                inq(2, 1, 3),
                turn,
                tcq(1),
                chat_resp,
                tcr(2),
                iq(2, 0),
                inq(1, 0, 0),
                other,
                turn,
                tcq(0),
                tcq(0),
                tcr(0),
            ],
        ),
        // A reused tool-call ID across cycles, one cycle left open.
        (
            "reused-call-id",
            vec![
                0,
                turn,
                tcq(0),
                tcr(0),
                chat_resp,
                tcq(0),
                iq(0, 1),
                inq(1, 2, 0),
                ir(0, 1),
                inq(1, 2, 0),
                chat_resp,
                tcq(0),
                tcr(0),
            ],
        ),
    ]
}

/// Deterministic pseudo-random bytes (a 64-bit LCG), for the structured
/// targets' seeds.
pub(crate) fn lcg_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed;
    (0..len)
        .map(|_| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (x >> 56) as u8
        })
        .collect()
}

/// Streams built with the [`arb`] builders, for the stream targets.
fn built_streams() -> Vec<(&'static str, Stream)> {
    let legacy = |c: &str| InquiryId::legacy(c, "apply_changes");
    let new = |c: &str, a| InquiryId::new(c, "apply_changes", a);
    let with_ts = |mut events: Vec<Event>| {
        for (i, e) in events.iter_mut().enumerate() {
            e.timestamp = Some(format!("2026-03-05 21:00:{i:02}.000000"));
        }
        Stream::new(events)
    };
    vec![
        (
            "legacy-duplicate-ids",
            with_ts(vec![
                arb::turn_start(),
                arb::chat_request(),
                arb::tool_call_request("call_a"),
                arb::inquiry_request(legacy("call_a")),
                arb::answered(legacy("call_a"), json!(true)),
                arb::inquiry_request(legacy("call_a")),
                arb::answered(legacy("call_a"), json!(false)),
                arb::tool_call_response("call_a"),
                arb::chat_response(),
            ]),
        ),
        (
            "every-outcome",
            with_ts(vec![
                arb::turn_start(),
                arb::chat_request(),
                arb::tool_call_request("call_b"),
                arb::inquiry_request(new("call_b", 1)),
                arb::inquiry_response(InquiryResponse::Cancelled {
                    id: new("call_b", 1),
                    reason: CancellationReason::BackendError,
                }),
                arb::inquiry_request(new("call_b", 2)),
                arb::inquiry_response(InquiryResponse::Redacted {
                    id: new("call_b", 2),
                }),
                arb::inquiry_request(new("call_b", 3)),
                arb::inquiry_response(InquiryResponse::Cancelled {
                    id: new("call_b", 3),
                    reason: CancellationReason::from_tag("some_future_variant"),
                }),
                arb::tool_call_response("call_b"),
                arb::other("config_delta"),
                arb::chat_response(),
            ]),
        ),
        (
            "orphans",
            Stream::new(vec![
                arb::answered(new("call_c", 1), Value::Null),
                arb::turn_start(),
                arb::tool_call_request("call_c"),
                arb::inquiry_request(new("call_c", 1)),
                arb::chat_response(),
                arb::tool_call_response("call_a"),
            ]),
        ),
    ]
}

fn seed(target: &'static str, name: String, bytes: impl Into<Vec<u8>>) -> Seed {
    Seed {
        target,
        name,
        bytes: bytes.into(),
    }
}

/// The generated seeds, every target covered, deterministic.
pub fn generated() -> Vec<Seed> {
    let mut out = Vec::new();
    for target in RESPONSE_TARGETS {
        for (i, text) in RFD082_TAGGED.iter().enumerate() {
            out.push(seed(target, format!("seed-rfd082-tagged-{i}.json"), *text));
        }
        out.push(seed(
            target,
            "seed-rfd082-legacy.json".to_owned(),
            RFD082_LEGACY,
        ));
        for (name, text) in RESPONSE_EDGES {
            out.push(seed(target, format!("seed-{name}.json"), text));
        }
    }
    for reason in CancellationReason::KNOWN {
        let tag = reason.as_str();
        out.push(seed(
            "cancellation_reason",
            format!("seed-{}.json", tag.replace('_', "-")),
            format!("\"{tag}\""),
        ));
    }
    for (name, text) in REASONS {
        out.push(seed(
            "cancellation_reason",
            format!("seed-{name}.json"),
            text,
        ));
    }
    for (name, bytes) in TAGS {
        out.push(seed("reason_tag", format!("seed-{name}.bin"), bytes));
    }
    for (name, text) in REQUESTS {
        out.push(seed("inquiry_request", format!("seed-{name}.json"), text));
    }
    for target in EVENT_TARGETS {
        for (name, text) in EVENTS {
            out.push(seed(target, format!("seed-{name}.json"), text));
        }
    }
    for target in STREAM_TARGETS {
        for (name, text) in STREAM_TEXTS {
            out.push(seed(target, format!("seed-{name}.txt"), text));
        }
        for (name, s) in built_streams() {
            out.push(seed(
                target,
                format!("seed-{name}.json"),
                s.to_array_string(),
            ));
            let mut lines = Vec::new();
            // Writing to a Vec fails only for an empty stream; none is.
            if s.write_json_lines(&mut lines).is_ok() {
                out.push(seed(target, format!("seed-{name}.jsonl"), lines));
            }
        }
    }
    for (name, bytes) in sanitize_seeds() {
        out.push(seed("sanitize", format!("seed-{name}.bin"), bytes));
    }
    for (i, len) in [16usize, 64, 256].into_iter().enumerate() {
        out.push(seed(
            "sanitize",
            format!("seed-lcg-{len}.bin"),
            lcg_bytes(i as u64 + 1, len),
        ));
    }
    for (i, len) in [0usize, 8, 24, 48, 96, 160, 256, 384, 512]
        .into_iter()
        .enumerate()
    {
        out.push(seed(
            "scenario",
            format!("seed-lcg-{len}.bin"),
            lcg_bytes(100 + i as u64, len),
        ));
    }
    out
}

/// A file name's stem made safe for a seed name.
fn stem(name: &str) -> String {
    let base = name.rsplit('/').next().unwrap_or(name);
    let base = base.split('.').next().unwrap_or(base);
    base.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// What shape an event has, for keeping one seed per shape: its `type`,
/// its field names and its `outcome`.
fn signature(raw: &RawEvent) -> String {
    let names: Vec<&str> = raw.fields.iter().map(|(k, _)| k.as_str()).collect();
    let outcome = raw
        .field("outcome")
        .map(|v| v.get().to_owned())
        .unwrap_or_default();
    format!(
        "{}|{}|{outcome}",
        raw.tag().unwrap_or_default(),
        names.join(",")
    )
}

/// Seeds from the project's example streams (`spec/examples/`), given as
/// `(file name, content)`: each whole file in its own layout and in the
/// other one (stream targets), one event per shape (event targets), and the
/// inquiry payloads as written (request and response targets). Files that
/// do not read are used whole only.
pub fn from_examples(examples: &[(String, Vec<u8>)]) -> Vec<Seed> {
    let mut out = Vec::new();
    let mut shapes: Vec<String> = Vec::new();
    for (file, bytes) in examples {
        let stem = stem(file);
        for target in STREAM_TARGETS {
            out.push(seed(target, format!("example-{stem}.txt"), bytes.clone()));
        }
        let Ok(stream) = Stream::from_slice(bytes, file) else {
            continue;
        };
        let other = match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'[') => {
                let mut lines = Vec::new();
                stream
                    .write_json_lines(&mut lines)
                    .ok()
                    .map(|()| ("jsonl", lines))
            }
            _ => Some(("array", stream.to_array_string().into_bytes())),
        };
        if let Some((layout, text)) = other {
            for target in STREAM_TARGETS {
                out.push(seed(
                    target,
                    format!("example-{stem}-as-{layout}.txt"),
                    text.clone(),
                ));
            }
        }
        for (i, raw) in EventReader::new(&bytes[..], file)
            .flatten()
            .map(|(r, _, _)| r)
            .enumerate()
        {
            let sig = signature(&raw);
            if shapes.contains(&sig) {
                continue;
            }
            shapes.push(sig);
            let Ok(text) = serde_json::to_vec(&raw) else {
                continue;
            };
            for target in EVENT_TARGETS {
                out.push(seed(
                    target,
                    format!("example-{stem}-{i}.json"),
                    text.clone(),
                ));
            }
            let payload = RawEvent {
                fields: raw
                    .fields
                    .iter()
                    .filter(|(k, _)| k != "type" && k != "timestamp")
                    .cloned()
                    .collect(),
            };
            let Ok(payload) = serde_json::to_vec(&payload) else {
                continue;
            };
            let targets: &[&'static str] = match raw.clone().into_event().map(|e| e.kind) {
                Ok(EventKind::InquiryRequest(_)) => &["inquiry_request"],
                Ok(EventKind::InquiryResponse(_)) => &RESPONSE_TARGETS,
                _ => &[],
            };
            for target in targets {
                out.push(seed(
                    target,
                    format!("example-{stem}-{i}.json"),
                    payload.clone(),
                ));
            }
        }
    }
    out
}
