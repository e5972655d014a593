//! Generators of every persisted (wire) type, shared by the property
//! tests, the other modules' tests and the fuzz targets: written once
//! against [`Choices`](super::choice::Choices) in [`draw`] (one plain
//! function per type), and driven here by proptest (the strategies below,
//! each a thin wrapper of the generator of the same name), fuzz bytes
//! (`from_bytes`, compiled for tests) and a seed ([`sample`]).
//!
//! Each covers every variant of its type (see [`draw`]); test
//! `the_wire_generators_reach_every_shape` lists what they reach and fails
//! naming whatever a generator stops producing.

#[cfg(test)]
use arbitrary::Unstructured;
use proptest::prelude::*;

#[cfg(test)]
use super::choice::Bytes;
use super::choice::{self, Seeded};
use crate::wire::{
    CancellationReason, Event, EventKind, Format, InquiryAnswerReusePolicy, InquiryAnswerType,
    InquiryId, InquiryQuestion, InquiryRequest, InquiryResponse, InquirySource, Opaque,
    SelectOption, Stream, ToolCallRequest, ToolCallResponse,
};

pub(crate) mod draw;

/// The `type` tags the reader types; an [`EventKind::Other`] must hold none
/// of them, or it would read back as the typed kind.
pub const KNOWN_KINDS: [&str; 7] = [
    "turn_start",
    "chat_request",
    "chat_response",
    "tool_call_request",
    "tool_call_response",
    "inquiry_request",
    "inquiry_response",
];

/// An event decoded from fuzz bytes ([`draw::event`] under the
/// [`Bytes`] driver): total, any bytes (the empty slice included) decode,
/// and the same bytes always give the same event.
#[cfg(test)]
pub(crate) fn from_bytes(u: &mut Unstructured<'_>) -> Event {
    draw::event(&mut Bytes::new(u))
}

/// `count` events sampled with `seed` ([`draw::event`] under the
/// [`Seeded`] driver): deterministic for its arguments, and independent of
/// proptest's version.
pub fn sample(count: usize, seed: u64) -> Vec<Event> {
    choice::sample(count, seed, |c: &mut Seeded| draw::event(c))
}

/// How many choices a proptest draw of each generator reads (a fixed
/// number: shrinking lowers them toward 0 rather than dropping them). Each
/// covers what nearly every value takes (measured with the seeded driver:
/// test `the_choice_budgets_cover_nearly_every_value`); a value that needs
/// more reads 0 past the end, its simplest choices.
mod budget {
    /// A string, an ID, a tag, a timestamp.
    pub(crate) const SMALL: usize = 64;
    /// A JSON value, a select option, an answer type, a reason.
    pub(crate) const VALUE: usize = 256;
    /// A question, a request, a response, an event kind, an event.
    pub(crate) const EVENT: usize = 768;
}

strategies! {
    /// Strings, weighted towards the ones that stress a JSON writer
    /// ([`draw::json_string`]).
    json_string -> String = budget::SMALL;
    /// JSON scalars ([`draw::json_scalar`]).
    json_scalar -> serde_json::Value = budget::SMALL;
    /// Finite floats of up to ten significant digits ([`draw::json_float`]).
    json_float -> serde_json::Value = budget::SMALL;
    /// Any JSON value a few levels deep ([`draw::json_value`]).
    json_value -> serde_json::Value = budget::VALUE;
    /// Opaque JSON, compact or pretty-printed ([`draw::opaque`]).
    opaque -> Opaque = budget::VALUE;
    /// Provider tool-call IDs in the shapes real providers use
    /// ([`draw::tool_call_id`]).
    tool_call_id -> String = budget::SMALL;
    /// Question IDs, dots included ([`draw::question_id`]).
    question_id -> String = budget::SMALL;
    /// Inquiry IDs of every form ([`draw::inquiry_id`]).
    inquiry_id -> InquiryId = budget::SMALL;
    /// Every persisted source ([`draw::inquiry_source`]).
    inquiry_source -> InquirySource = budget::SMALL;
    /// A select option, with and without a description
    /// ([`draw::select_option`]).
    select_option -> SelectOption = budget::VALUE;
    /// Every persisted answer type ([`draw::inquiry_answer_type`]).
    inquiry_answer_type -> InquiryAnswerType = budget::VALUE;
    /// Both reuse policies ([`draw::inquiry_answer_reuse_policy`]).
    inquiry_answer_reuse_policy -> InquiryAnswerReusePolicy = budget::SMALL;
    /// A question with every optional field present or absent
    /// ([`draw::inquiry_question`]).
    inquiry_question -> InquiryQuestion = budget::EVENT;
    /// A question as written before RFD 083 ([`draw::pre_083_question`]).
    pre_083_question -> InquiryQuestion = budget::EVENT;
    /// An `inquiry_request` payload ([`draw::inquiry_request`]).
    inquiry_request -> InquiryRequest = budget::EVENT;
    /// A reason tag this build does not know ([`draw::unknown_reason_tag`]).
    unknown_reason_tag -> String = budget::SMALL;
    /// A known reason ([`draw::known_reason`]).
    known_reason -> CancellationReason = budget::SMALL;
    /// Every reason, known and unknown ([`draw::cancellation_reason`]).
    cancellation_reason -> CancellationReason = budget::SMALL;
    /// Every response variant ([`draw::inquiry_response`]).
    inquiry_response -> InquiryResponse = budget::EVENT;
    /// A `tool_call_request` payload ([`draw::tool_call_request`]).
    tool_call_request -> ToolCallRequest = budget::EVENT;
    /// A `tool_call_response` payload ([`draw::tool_call_response`]).
    tool_call_response -> ToolCallResponse = budget::EVENT;
    /// An event kind this build does not type ([`draw::other_kind_tag`]).
    other_kind_tag -> String = budget::SMALL;
    /// Every event kind with its payload ([`draw::event_kind`]).
    event_kind -> EventKind = budget::EVENT;
    /// Names for extra fields ([`draw::extra_field_name`]).
    extra_field_name -> String = budget::SMALL;
    /// Timestamps, the fixtures' format and arbitrary strings
    /// ([`draw::timestamp`]).
    timestamp -> String = budget::SMALL;
    /// Any event ([`draw::event`]).
    event -> Event = budget::EVENT;
    /// Both stream layouts ([`draw::format`]).
    format -> Format = 1;
    /// One edit of a byte string ([`draw::mutation`]).
    mutation -> Mutation = budget::SMALL;
}

pub(crate) use crate::wire::typed_field_names;

/// A stream of up to `max_len` events ([`draw::stream`]).
pub fn stream(max_len: usize) -> BoxedStrategy<Stream> {
    let budget = budget::EVENT * max_len.max(1);
    choice::strategy(budget, budget, move |c| draw::stream(c, max_len)).boxed()
}

/// Writes `stream` in `format` to bytes. Fails only for an empty stream as
/// JSON Lines, which has no such form (see [`Stream::write_json_lines`]).
pub fn encode(stream: &Stream, format: Format) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    match format {
        Format::Array => stream.write_array(&mut out)?,
        Format::JsonLines => stream.write_json_lines(&mut out)?,
    }
    Ok(out)
}

/// A stream (of at least one event), a layout, and its bytes in that
/// layout ([`draw::encoded_stream`]).
pub fn encoded_stream(max_len: usize) -> BoxedStrategy<(Stream, Format, Vec<u8>)> {
    let budget = budget::EVENT * max_len.max(1);
    choice::strategy(budget, budget, move |c| draw::encoded_stream(c, max_len)).boxed()
}

/// One edit of a byte string, positions taken modulo its length.
#[derive(Debug, Clone)]
pub enum Mutation {
    /// Replace the byte at a position.
    Set(usize, u8),
    /// Insert a byte before a position.
    Insert(usize, u8),
    /// Remove up to `n` bytes from a position.
    Remove(usize, usize),
    /// Cut everything from a position on.
    Truncate(usize),
    /// Copy a range of up to `n` bytes from one position to another.
    Duplicate(usize, usize, usize),
}

impl Mutation {
    /// Applies the edit in place.
    pub(crate) fn apply(&self, bytes: &mut Vec<u8>) {
        let len = bytes.len();
        let at = |i: usize| if len == 0 { 0 } else { i % len };
        match *self {
            Mutation::Set(i, b) => {
                if len > 0 {
                    bytes[at(i)] = b;
                }
            }
            Mutation::Insert(i, b) => bytes.insert(at(i), b),
            Mutation::Remove(i, n) => {
                let start = at(i);
                let end = start.saturating_add(n).min(len);
                bytes.drain(start..end);
            }
            Mutation::Truncate(i) => bytes.truncate(at(i)),
            Mutation::Duplicate(from, n, to) => {
                let start = at(from);
                let end = start.saturating_add(n).min(len);
                let copy = bytes[start..end].to_vec();
                let to = at(to);
                bytes.splice(to..to, copy);
            }
        }
    }
}

/// The bytes of a valid stream with one to four random edits applied
/// ([`draw::mutated_stream_bytes`]).
pub fn mutated_stream_bytes(max_len: usize) -> BoxedStrategy<Vec<u8>> {
    let budget = budget::EVENT * max_len.max(1) + 4 * budget::SMALL;
    choice::strategy(budget, budget, move |c| {
        draw::mutated_stream_bytes(c, max_len)
    })
    .boxed()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use serde_json::Value;

    use super::*;
    use crate::generate::choice::Log;

    /// Every shape the wire generators reach, as named in the list
    /// [`REACH`] below, written down from the proptest combinators before
    /// they were rewritten against `Choices` (GEN-ONE-INTERFACE: reach must
    /// not shrink).
    const REACH: [&str; 100] = [
        // Event kinds, typed and not.
        "kind turn_start",
        "kind chat_request",
        "kind chat_response",
        "kind tool_call_request",
        "kind tool_call_response",
        "kind inquiry_request",
        "kind inquiry_response",
        "kind other",
        "other config_delta",
        "other conversation_summary",
        "other lowercase tag",
        "other arbitrary tag",
        // Timestamps and extra fields.
        "timestamp none",
        "timestamp fixture format",
        "timestamp arbitrary",
        "extra none",
        "extra some",
        "extra several",
        "extra content",
        "extra message",
        "extra reasoning",
        "extra metadata",
        "extra delta",
        "extra lowercase name",
        "extra arbitrary name",
        "opaque pretty",
        "opaque compact container",
        // Tool calls.
        "tool id call_",
        "tool id toolu_",
        "tool id plain",
        "arguments some",
        "arguments none",
        "content some",
        "content none",
        "is_error none",
        "is_error true",
        "is_error false",
        // Inquiry IDs and sources.
        "inquiry id three segments",
        "inquiry id two segments",
        "inquiry id opaque",
        "inquiry id attempt 1",
        "inquiry id attempt 4",
        "question id with a dot",
        "source tool",
        "source assistant",
        "source user",
        "source other",
        // Questions.
        "answer type boolean",
        "answer type select empty",
        "answer type select with options",
        "answer type text",
        "answer type secret",
        "option description some",
        "option description none",
        "context some",
        "context none",
        "default none",
        "default null",
        "default value",
        "exclusive true",
        "exclusive false",
        "persistence none",
        "persistence turn",
        // Responses and reasons.
        "response answered",
        "response cancelled",
        "response redacted",
        // (and every known reason, by its tag: `known_reason_labels`)
        "reason unknown some_future_variant",
        "reason unknown timeout",
        "reason unknown User",
        "reason unknown empty",
        "reason unknown arbitrary",
        // JSON values.
        "value null",
        "value true",
        "value false",
        "value negative integer",
        "value integer above i64::MAX",
        "value zero float",
        "value negative zero",
        "value fractional float",
        "value float at least 1e15",
        "value float below 1e-5",
        "value empty array",
        "value array",
        "value empty object",
        "value object",
        "value nested three deep",
        // Strings.
        "string empty",
        "string quote",
        "string backslash",
        "string newline",
        "string tab",
        "string carriage return",
        "string nul",
        "string other control",
        "string two-byte UTF-8",
        "string three-byte UTF-8",
        "string four-byte UTF-8",
        "string line separator",
        "string lone ASCII",
        "string long",
    ];

    /// A shape's name and whether a value has it.
    type Shape<T> = (&'static str, fn(&T) -> bool);

    /// Records the shapes of one generated value.
    #[derive(Default)]
    struct Seen(BTreeSet<&'static str>);

    impl Seen {
        fn add(&mut self, shape: &'static str) {
            self.0.insert(shape);
        }

        fn string(&mut self, s: &str) {
            let checks: [Shape<str>; 14] = [
                ("string empty", str::is_empty),
                ("string quote", |s| s.contains('"')),
                ("string backslash", |s| s.contains('\\')),
                ("string newline", |s| s.contains('\n')),
                ("string tab", |s| s.contains('\t')),
                ("string carriage return", |s| s.contains('\r')),
                ("string nul", |s| s.contains('\0')),
                ("string other control", |s| {
                    s.chars().any(|c| c.is_control() && !"\n\t\r\0".contains(c))
                }),
                ("string two-byte UTF-8", |s| {
                    s.chars().any(|c| c.len_utf8() == 2)
                }),
                ("string three-byte UTF-8", |s| {
                    s.chars().any(|c| c.len_utf8() == 3)
                }),
                ("string four-byte UTF-8", |s| {
                    s.chars().any(|c| c.len_utf8() == 4)
                }),
                ("string line separator", |s| s.contains('\u{2028}')),
                ("string lone ASCII", |s| s.len() == 1),
                ("string long", |s| s.chars().count() >= 20),
            ];
            for (name, holds) in checks {
                if holds(s) {
                    self.add(name);
                }
            }
        }

        fn value(&mut self, v: &Value, depth: usize) {
            if depth >= 3 {
                self.add("value nested three deep");
            }
            match v {
                Value::Null => self.add("value null"),
                Value::Bool(true) => self.add("value true"),
                Value::Bool(false) => self.add("value false"),
                Value::Number(n) => self.number(n),
                Value::String(s) => self.string(s),
                Value::Array(items) => {
                    self.add(if items.is_empty() {
                        "value empty array"
                    } else {
                        "value array"
                    });
                    for item in items {
                        self.value(item, depth + 1);
                    }
                }
                Value::Object(members) => {
                    self.add(if members.is_empty() {
                        "value empty object"
                    } else {
                        "value object"
                    });
                    for (k, item) in members {
                        self.string(k);
                        self.value(item, depth + 1);
                    }
                }
            }
        }

        fn number(&mut self, n: &serde_json::Number) {
            if n.as_i64().is_some_and(|i| i < 0) {
                self.add("value negative integer");
            }
            if n.as_u64().is_some_and(|u| u > i64::MAX as u64) {
                self.add("value integer above i64::MAX");
            }
            if !n.is_f64() {
                return;
            }
            let f = n.as_f64().unwrap_or(f64::NAN);
            let a = f.abs();
            let checks = [
                ("value zero float", f == 0.0 && f.is_sign_positive()),
                ("value negative zero", f == 0.0 && f.is_sign_negative()),
                ("value fractional float", f.fract() != 0.0),
                ("value float at least 1e15", a >= 1e15),
                ("value float below 1e-5", a > 0.0 && a < 1e-5),
            ];
            for (name, holds) in checks {
                if holds {
                    self.add(name);
                }
            }
        }

        fn opaque(&mut self, o: &Opaque) {
            let text = o.get();
            let v: Value = serde_json::from_str(text).expect("opaque text is JSON");
            if text.contains('\n') {
                self.add("opaque pretty");
            } else if v.is_array() || v.is_object() {
                self.add("opaque compact container");
            }
            self.value(&v, 0);
        }

        fn maybe_opaque(&mut self, o: &Option<Opaque>, [some, none]: [&'static str; 2]) {
            match o {
                Some(o) => {
                    self.add(some);
                    self.opaque(o);
                }
                None => self.add(none),
            }
        }

        fn tool_call_id(&mut self, id: &str) {
            self.add(if id.starts_with("call_") {
                "tool id call_"
            } else if id.starts_with("toolu_") {
                "tool id toolu_"
            } else {
                "tool id plain"
            });
        }

        fn inquiry_id(&mut self, id: &InquiryId) {
            let id = id.as_str();
            let parts: Vec<&str> = id.split('.').collect();
            let idish = |p: &str| {
                !p.is_empty()
                    && p.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"_-".contains(&b))
            };
            let attempt = parts.last().and_then(|p| p.parse::<u32>().ok());
            match (parts.len(), attempt) {
                (3.., Some(a @ 1..=4)) if parts.iter().all(|p| idish(p)) => {
                    self.add("inquiry id three segments");
                    if parts.len() > 3 {
                        self.add("question id with a dot");
                    }
                    if a == 1 {
                        self.add("inquiry id attempt 1");
                    }
                    if a == 4 {
                        self.add("inquiry id attempt 4");
                    }
                }
                (2, _) if parts.iter().all(|p| idish(p)) => self.add("inquiry id two segments"),
                _ if !id.is_ascii() || id.is_empty() || id.contains(' ') => {
                    self.add("inquiry id opaque")
                }
                _ => {}
            }
            self.string(id);
        }

        fn question(&mut self, q: &InquiryQuestion) {
            self.string(&q.text);
            match &q.answer_type {
                InquiryAnswerType::Boolean => self.add("answer type boolean"),
                InquiryAnswerType::Select { options } => {
                    self.add(if options.is_empty() {
                        "answer type select empty"
                    } else {
                        "answer type select with options"
                    });
                    for o in options {
                        self.value(&o.value, 0);
                        match &o.description {
                            Some(d) => {
                                self.add("option description some");
                                self.string(d);
                            }
                            None => self.add("option description none"),
                        }
                    }
                }
                InquiryAnswerType::Text => self.add("answer type text"),
                InquiryAnswerType::Secret => self.add("answer type secret"),
            }
            match &q.default {
                None => self.add("default none"),
                Some(Value::Null) => self.add("default null"),
                Some(v) => {
                    self.add("default value");
                    self.value(v, 0);
                }
            }
            match &q.context {
                Some(c) => {
                    self.add("context some");
                    self.string(c);
                }
                None => self.add("context none"),
            }
            self.add(if q.exclusive {
                "exclusive true"
            } else {
                "exclusive false"
            });
            self.add(match q.persistence {
                InquiryAnswerReusePolicy::None => "persistence none",
                InquiryAnswerReusePolicy::Turn => "persistence turn",
            });
        }

        fn reason(&mut self, r: &CancellationReason) {
            self.add(match r {
                CancellationReason::Unknown(tag) => match tag.as_str() {
                    "some_future_variant" => "reason unknown some_future_variant",
                    "timeout" => "reason unknown timeout",
                    "User" => "reason unknown User",
                    "" => "reason unknown empty",
                    _ => "reason unknown arbitrary",
                },
                known => crate::generate::known_reason_label(known)
                    .expect("every reason but `Unknown` is known"),
            });
        }

        fn event(&mut self, e: &Event) {
            match &e.timestamp {
                None => self.add("timestamp none"),
                Some(t) => {
                    let fixture = t.len() >= 21
                        && t.starts_with("2026-0")
                        && t.as_bytes()[10] == b' '
                        && t.as_bytes()[19] == b'.'
                        && t.as_bytes()[20..].iter().all(u8::is_ascii_digit);
                    self.add(if fixture {
                        "timestamp fixture format"
                    } else {
                        "timestamp arbitrary"
                    });
                }
            }
            self.add(match e.extra.len() {
                0 => "extra none",
                1 => "extra some",
                _ => "extra several",
            });
            for (name, value) in &e.extra {
                self.add(match name.as_str() {
                    "content" => "extra content",
                    "message" => "extra message",
                    "reasoning" => "extra reasoning",
                    "metadata" => "extra metadata",
                    "delta" => "extra delta",
                    n if n.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') => {
                        "extra lowercase name"
                    }
                    _ => "extra arbitrary name",
                });
                self.string(name);
                self.opaque(value);
            }
            self.kind(&e.kind);
        }

        fn kind(&mut self, k: &EventKind) {
            match k {
                EventKind::TurnStart => self.add("kind turn_start"),
                EventKind::ChatRequest => self.add("kind chat_request"),
                EventKind::ChatResponse => self.add("kind chat_response"),
                EventKind::ToolCallRequest(r) => {
                    self.add("kind tool_call_request");
                    self.tool_call_id(&r.id);
                    self.maybe_opaque(&r.arguments, ["arguments some", "arguments none"]);
                }
                EventKind::ToolCallResponse(r) => {
                    self.add("kind tool_call_response");
                    self.tool_call_id(&r.id);
                    self.maybe_opaque(&r.content, ["content some", "content none"]);
                    self.add(match r.is_error {
                        None => "is_error none",
                        Some(true) => "is_error true",
                        Some(false) => "is_error false",
                    });
                }
                EventKind::InquiryRequest(r) => {
                    self.add("kind inquiry_request");
                    self.inquiry_id(&r.id);
                    match &r.source {
                        InquirySource::Tool { name } => {
                            self.add("source tool");
                            self.string(name);
                        }
                        InquirySource::Assistant => self.add("source assistant"),
                        InquirySource::User => self.add("source user"),
                        InquirySource::Other { name } => {
                            self.add("source other");
                            self.string(name);
                        }
                    }
                    self.question(&r.question);
                }
                EventKind::InquiryResponse(r) => {
                    self.add("kind inquiry_response");
                    match r {
                        InquiryResponse::Answered { id, answer } => {
                            self.add("response answered");
                            self.inquiry_id(id);
                            self.value(answer, 0);
                        }
                        InquiryResponse::Cancelled { id, reason } => {
                            self.add("response cancelled");
                            self.inquiry_id(id);
                            self.reason(reason);
                        }
                        InquiryResponse::Redacted { id } => {
                            self.add("response redacted");
                            self.inquiry_id(id);
                        }
                    }
                }
                EventKind::Other(tag) => {
                    self.add("kind other");
                    self.add(match tag.as_str() {
                        "config_delta" => "other config_delta",
                        "conversation_summary" => "other conversation_summary",
                        t if !t.is_empty()
                            && t.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') =>
                        {
                            "other lowercase tag"
                        }
                        _ => "other arbitrary tag",
                    });
                    self.string(tag);
                }
            }
        }
    }

    /// The shapes of [`REACH`] that `events` never reach.
    fn unreached(events: &[Event]) -> Vec<&'static str> {
        let mut seen = Seen::default();
        for e in events {
            seen.event(e);
        }
        REACH
            .into_iter()
            .chain(crate::generate::known_reason_labels())
            .filter(|shape| !seen.0.contains(shape))
            .collect()
    }

    /// Rule: GEN-ONE-INTERFACE — the wire generators reach every shape
    /// the proptest combinators they replace reached (every event kind,
    /// response variant, reason, ID form, source, answer type, optional
    /// field state, JSON value and string shape of [`REACH`]) in 4 000
    /// events of the seeded driver, and in 2 000 of the proptest driver.
    /// Deleting a branch of a generator fails here, naming its shape.
    #[test]
    fn the_wire_generators_reach_every_shape() {
        let missing = unreached(&sample(4_000, 18));
        assert!(missing.is_empty(), "seeded: never reached {missing:?}");
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let drawn: Vec<Event> = (0..2_000)
            .map(|_| event().new_tree(&mut runner).expect("a value").current())
            .collect();
        let missing = unreached(&drawn);
        assert!(missing.is_empty(), "proptest: never reached {missing:?}");
    }

    /// Rule: GEN-ONE-INTERFACE — the reach measure can fail: a sample of
    /// one kind of event reaches only that kind's shapes.
    #[test]
    fn the_reach_measure_reports_only_what_was_generated() {
        let plain = vec![Event::new(EventKind::TurnStart); 10];
        let missing = unreached(&plain);
        let reached: Vec<&str> = REACH.into_iter().filter(|s| !missing.contains(s)).collect();
        assert_eq!(reached, ["kind turn_start", "timestamp none", "extra none"]);
    }

    /// Rule: WIRE-STREAM-ROUNDTRIP — generated extra fields never shadow a
    /// typed field, an `Other` kind never holds a known one and an
    /// `Unknown` reason never a known tag, so every event reads back as
    /// written.
    #[test]
    fn generated_events_are_ones_the_writer_round_trips() {
        for e in sample(2_000, 3) {
            for (name, _) in &e.extra {
                assert!(name != "type" && name != "timestamp");
                assert!(
                    !typed_field_names(&e.kind).contains(&name.as_str()),
                    "{name}"
                );
            }
            if let EventKind::Other(tag) = &e.kind {
                assert!(!KNOWN_KINDS.contains(&tag.as_str()), "{tag}");
            }
            let text = serde_json::to_string(&e).expect("writes");
            let back: Event = serde_json::from_str(&text).expect("reads back");
            assert_eq!(back, e, "{text}");
        }
    }

    /// Rule: GEN-ONE-INTERFACE — `from_bytes` is total (the empty slice
    /// included) and a function of its bytes, and different bytes reach
    /// different events.
    #[test]
    fn from_bytes_is_total_and_deterministic() {
        let decode = |b: &[u8]| from_bytes(&mut Unstructured::new(b));
        assert_eq!(decode(&[]), Event::new(EventKind::TurnStart));
        let bytes: Vec<u8> = (0u8..=255).cycle().take(4096).collect();
        assert_eq!(decode(&bytes), decode(&bytes));
        let drawn: BTreeSet<String> = (0u8..16)
            .map(|b| {
                serde_json::to_string(&decode(&[b, b.wrapping_mul(37), 200, 3])).expect("writes")
            })
            .collect();
        assert!(drawn.len() >= 6, "{drawn:?}");
    }

    /// Rule: GEN-ONE-INTERFACE — the proptest strategies read a fixed
    /// number of choices; nearly every value takes no more than that, so a
    /// draw is rarely cut short (cut short, it ends in the simplest
    /// choices, still a valid value).
    #[test]
    fn the_choice_budgets_cover_nearly_every_value() {
        fn over<T>(budget: usize, generate: impl Fn(&mut Log<Seeded>) -> T) -> usize {
            (0..1_000u64)
                .filter(|&seed| {
                    let mut log = Log::new(Seeded::new(seed));
                    generate(&mut log);
                    log.taken.len() > budget
                })
                .count()
        }
        assert!(over(budget::SMALL, draw::json_string) <= 10);
        assert!(over(budget::SMALL, draw::inquiry_id) <= 10);
        assert!(over(budget::SMALL, draw::timestamp) <= 10);
        assert!(over(budget::VALUE, draw::json_value) <= 10);
        assert!(over(budget::EVENT, draw::inquiry_request) <= 10);
        assert!(over(budget::EVENT, draw::event) <= 10);
    }
}
