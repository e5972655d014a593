//! proptest strategies for every persisted (wire) type, shared by the
//! property tests, the other modules' tests and the fuzz targets.
//!
//! Each strategy covers every variant of its type, including the ones the
//! model only reads (`InquirySource::User`/`Other`,
//! `CancellationReason::Unknown` with tags that are not known tags, event
//! kinds it does not type such as `config_delta`) and the optional fields of
//! RFD 083 both present and absent. Every generated value is one the writer
//! can round-trip (rule `WIRE-STREAM-ROUNDTRIP`): floats are finite, an
//! `Unknown` reason never holds a known tag, an `Other` kind never holds a
//! known kind, and extra fields never reuse a name the kind types.
//!
//! The strategies are descriptions, not randomness: a proptest runner (or
//! [`sample`], for fuzzers) drives them. They are proptest combinators, not
//! [`super::choice::Choices`] generators: each exists once.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{Map, Number, Value};

use crate::wire::{
    CancellationReason, Event, EventKind, Format, InquiryAnswerReusePolicy, InquiryAnswerType,
    InquiryId, InquiryQuestion, InquiryRequest, InquiryResponse, InquirySource, Opaque,
    SelectOption, Stream, ToolCallRequest, ToolCallResponse,
};

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

/// Draws one value of `strategy` from `bytes`, for fuzz targets and corpus
/// generation: the same bytes always give the same value. The bytes seed a
/// ChaCha generator rather than being read as the random stream: proptest's
/// pass-through mode spins forever in some primitive strategies (strings,
/// floats) once it runs out of bytes and yields zeros. `None` when the
/// strategy rejects the draw.
pub fn sample<S: Strategy>(strategy: &S, bytes: &[u8]) -> Option<S::Value> {
    // Fold any number of bytes into a 32-byte seed (FNV-1a, one per lane).
    let mut seed = [0u8; 32];
    for (lane, chunk) in seed.chunks_mut(8).enumerate() {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ lane as u64;
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        h ^= bytes.len() as u64;
        chunk.copy_from_slice(&h.to_le_bytes());
    }
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    strategy.new_tree(&mut runner).ok().map(|t| t.current())
}

/// Strings, weighted towards the ones that stress a JSON writer: quotes,
/// backslashes, brackets, control characters, non-ASCII text.
pub fn json_string() -> BoxedStrategy<String> {
    prop_oneof![
        4 => any::<String>(),
        1 => Just(String::new()),
        1 => Just("quote \" backslash \\ brackets {}[] comma , colon :".to_owned()),
        1 => Just("line\nbreak\ttab\r\u{0}nul \u{1f} unit".to_owned()),
        1 => Just("naïve ☃ 𝄞 \u{2028}".to_owned()),
    ]
    .boxed()
}

/// JSON scalars: `null`, booleans, integers over the whole `i64` and `u64`
/// ranges, finite floats ([`json_float`]: JSON has no NaN or infinity) and
/// strings.
pub fn json_scalar() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        json_float(),
        json_string().prop_map(Value::String),
    ]
    .boxed()
}

/// Finite floats of up to ten significant digits, from `1e-20` to `1e20`
/// in magnitude, zero and negative zero included.
///
/// Limited since before serde_json's `float_roundtrip` feature was enabled
/// (without it some 16- and 17-digit floats read back one ulp off); with
/// it, wider floats would round-trip too, and widening the range is a
/// separate change (see `spec/DECISIONS.md`, "Wire: float round-trips").
pub fn json_float() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(0.0),
        Just(-0.0),
        (any::<i32>(), -20i32..=20).prop_map(|(m, e)| {
            format!("{m}e{e}")
                .parse::<f64>()
                .expect("a decimal literal parses")
        }),
    ]
    .prop_map(|f| Number::from_f64(f).map_or(Value::Null, Value::Number))
    .boxed()
}

/// Any JSON value up to a few levels deep (well under serde_json's recursion
/// limit of 128).
pub fn json_value() -> BoxedStrategy<Value> {
    json_scalar()
        .prop_recursive(4, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec((json_string(), inner), 0..4)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
            ]
        })
        .boxed()
}

/// Opaque JSON, written compactly or pretty-printed (as in real
/// `events.json` files, whose opaque fields span several lines).
pub fn opaque() -> BoxedStrategy<Opaque> {
    (json_value(), any::<bool>())
        .prop_map(|(v, pretty)| {
            if pretty {
                let text = serde_json::to_string_pretty(&v).expect("a Value always serializes");
                serde_json::from_str::<Opaque>(&text).expect("pretty text of a Value is valid JSON")
            } else {
                Opaque::from_value(&v)
            }
        })
        .boxed()
}

/// Provider tool-call IDs in the shapes real providers use.
pub fn tool_call_id() -> BoxedStrategy<String> {
    prop_oneof![
        "call_[A-Za-z0-9]{1,8}",
        "toolu_[A-Za-z0-9]{4,24}",
        "[a-z0-9_.-]{1,12}",
    ]
    .boxed()
}

/// Question IDs as tools write them (dots included: readers must not split
/// on them, rule `WIRE-ID-OPAQUE`).
pub fn question_id() -> BoxedStrategy<String> {
    "[a-z_][a-z0-9_.]{0,12}".boxed()
}

/// Inquiry IDs: the RFD 082 three-segment form, the legacy two-segment form,
/// and arbitrary strings (an ID is opaque, so any string must survive).
pub fn inquiry_id() -> BoxedStrategy<InquiryId> {
    prop_oneof![
        3 => (tool_call_id(), question_id(), 1u32..=4)
            .prop_map(|(t, q, a)| InquiryId::new(&t, &q, a)),
        2 => (tool_call_id(), question_id()).prop_map(|(t, q)| InquiryId::legacy(&t, &q)),
        1 => json_string().prop_map(InquiryId::from_opaque),
    ]
    .boxed()
}

/// Every persisted source, the read-only `User` and `Other` included.
pub fn inquiry_source() -> BoxedStrategy<InquirySource> {
    prop_oneof![
        "[a-z_]{1,16}".prop_map(InquirySource::tool),
        Just(InquirySource::Assistant),
        Just(InquirySource::User),
        json_string().prop_map(|name| InquirySource::Other { name }),
    ]
    .boxed()
}

/// A persisted select option, with and without a description.
pub fn select_option() -> BoxedStrategy<SelectOption> {
    (json_value(), prop::option::of(json_string()))
        .prop_map(|(value, description)| SelectOption { value, description })
        .boxed()
}

/// Every persisted answer type; selects with zero to three options.
pub fn inquiry_answer_type() -> BoxedStrategy<InquiryAnswerType> {
    prop_oneof![
        Just(InquiryAnswerType::Boolean),
        prop::collection::vec(select_option(), 0..4)
            .prop_map(|options| InquiryAnswerType::Select { options }),
        Just(InquiryAnswerType::Text),
        Just(InquiryAnswerType::Secret),
    ]
    .boxed()
}

/// Both reuse policies.
pub fn inquiry_answer_reuse_policy() -> BoxedStrategy<InquiryAnswerReusePolicy> {
    prop_oneof![
        Just(InquiryAnswerReusePolicy::None),
        Just(InquiryAnswerReusePolicy::Turn),
    ]
    .boxed()
}

/// A persisted question with every optional field independently present or
/// absent: `default` (a present `null` included), and RFD 083's `context`,
/// `exclusive` and `persistence`.
pub fn inquiry_question() -> BoxedStrategy<InquiryQuestion> {
    (
        json_string(),
        inquiry_answer_type(),
        prop::option::of(json_value()),
        prop::option::of(json_string()),
        any::<bool>(),
        inquiry_answer_reuse_policy(),
    )
        .prop_map(
            |(text, answer_type, default, context, exclusive, persistence)| InquiryQuestion {
                text,
                answer_type,
                default,
                context,
                exclusive,
                persistence,
            },
        )
        .boxed()
}

/// A question as written before RFD 083: no `context`, `exclusive: false`,
/// `persistence: turn` (all three absent on disk).
pub fn pre_083_question() -> BoxedStrategy<InquiryQuestion> {
    (
        json_string(),
        inquiry_answer_type(),
        prop::option::of(json_value()),
    )
        .prop_map(|(text, answer_type, default)| InquiryQuestion {
            text,
            answer_type,
            default,
            context: None,
            exclusive: false,
            persistence: InquiryAnswerReusePolicy::Turn,
        })
        .boxed()
}

/// An `inquiry_request` payload.
pub fn inquiry_request() -> BoxedStrategy<InquiryRequest> {
    (inquiry_id(), inquiry_source(), inquiry_question())
        .prop_map(|(id, source, question)| InquiryRequest {
            id,
            source,
            question,
        })
        .boxed()
}

/// A reason tag this build does not know: realistic future tags and
/// arbitrary strings (a generated string that happens to be a known tag is
/// suffixed, so the result is never a known tag).
pub fn unknown_reason_tag() -> BoxedStrategy<String> {
    prop_oneof![
        Just("some_future_variant".to_owned()),
        Just("timeout".to_owned()),
        Just("User".to_owned()),
        Just(String::new()),
        json_string(),
    ]
    .prop_map(|tag| match CancellationReason::from_tag(&tag) {
        CancellationReason::Unknown(tag) => tag,
        CancellationReason::User
        | CancellationReason::BackendError
        | CancellationReason::NoPromptBackend
        | CancellationReason::AssistantRoutingDenied
        | CancellationReason::InvalidStaticAnswer => format!("{tag}_v2"),
    })
    .boxed()
}

/// A known reason (any of [`CancellationReason::KNOWN`]).
pub fn known_reason() -> BoxedStrategy<CancellationReason> {
    prop::sample::select(CancellationReason::KNOWN.to_vec()).boxed()
}

/// Every reason: the known ones and `Unknown` with a tag that is not known.
pub fn cancellation_reason() -> BoxedStrategy<CancellationReason> {
    prop_oneof![
        3 => known_reason(),
        1 => unknown_reason_tag().prop_map(CancellationReason::Unknown),
    ]
    .boxed()
}

/// Every response variant.
pub fn inquiry_response() -> BoxedStrategy<InquiryResponse> {
    prop_oneof![
        (inquiry_id(), json_value())
            .prop_map(|(id, answer)| InquiryResponse::Answered { id, answer }),
        (inquiry_id(), cancellation_reason())
            .prop_map(|(id, reason)| InquiryResponse::Cancelled { id, reason }),
        inquiry_id().prop_map(|id| InquiryResponse::Redacted { id }),
    ]
    .boxed()
}

/// A `tool_call_request` payload, with and without arguments.
pub fn tool_call_request() -> BoxedStrategy<ToolCallRequest> {
    (tool_call_id(), "[a-z_]{1,16}", prop::option::of(opaque()))
        .prop_map(|(id, name, arguments)| ToolCallRequest {
            id,
            name,
            arguments,
        })
        .boxed()
}

/// A `tool_call_response` payload, with and without content and `is_error`.
pub fn tool_call_response() -> BoxedStrategy<ToolCallResponse> {
    (
        tool_call_id(),
        prop::option::of(opaque()),
        prop::option::of(any::<bool>()),
    )
        .prop_map(|(id, content, is_error)| ToolCallResponse {
            id,
            content,
            is_error,
        })
        .boxed()
}

/// An event kind this build does not type: `config_delta` (in every real
/// stream) and other plausible or arbitrary tags, never a known one.
pub fn other_kind_tag() -> BoxedStrategy<String> {
    prop_oneof![
        Just("config_delta".to_owned()),
        Just("conversation_summary".to_owned()),
        "[a-z][a-z_]{0,15}",
        json_string(),
    ]
    .prop_map(|tag| {
        if KNOWN_KINDS.contains(&tag.as_str()) {
            format!("{tag}_v2")
        } else {
            tag
        }
    })
    .boxed()
}

/// Every event kind, each with its typed payload.
pub fn event_kind() -> BoxedStrategy<EventKind> {
    prop_oneof![
        Just(EventKind::TurnStart),
        Just(EventKind::ChatRequest),
        Just(EventKind::ChatResponse),
        tool_call_request().prop_map(EventKind::ToolCallRequest),
        tool_call_response().prop_map(EventKind::ToolCallResponse),
        inquiry_request().prop_map(EventKind::InquiryRequest),
        inquiry_response().prop_map(EventKind::InquiryResponse),
        other_kind_tag().prop_map(EventKind::Other),
    ]
    .boxed()
}

/// The field names a kind types (besides `type` and `timestamp`): an extra
/// field with one of these names would be read back as the typed field.
pub fn typed_field_names(kind: &EventKind) -> &'static [&'static str] {
    match kind {
        EventKind::TurnStart
        | EventKind::ChatRequest
        | EventKind::ChatResponse
        | EventKind::Other(_) => &[],
        EventKind::ToolCallRequest(_) => &["id", "name", "arguments"],
        EventKind::ToolCallResponse(_) => &["id", "content", "is_error"],
        EventKind::InquiryRequest(_) => &["id", "source", "question"],
        EventKind::InquiryResponse(_) => &["id", "outcome", "answer", "reason"],
    }
}

/// Names for extra fields: the ones real streams carry (`content`,
/// `message`, `reasoning`, `metadata`, `delta`) and arbitrary ones.
pub fn extra_field_name() -> BoxedStrategy<String> {
    prop_oneof![
        Just("content".to_owned()),
        Just("message".to_owned()),
        Just("reasoning".to_owned()),
        Just("metadata".to_owned()),
        Just("delta".to_owned()),
        "[a-z_]{1,10}",
        json_string(),
    ]
    .boxed()
}

/// Zero to three opaque extra fields for `kind`, with distinct names that
/// are neither `type`, `timestamp` nor a field the kind types.
pub fn extra_fields(kind: &EventKind) -> BoxedStrategy<Vec<(String, Opaque)>> {
    let typed = typed_field_names(kind);
    prop::collection::vec((extra_field_name(), opaque()), 0..4)
        .prop_map(move |fields| {
            let mut out: Vec<(String, Opaque)> = Vec::with_capacity(fields.len());
            for (name, value) in fields {
                let reserved =
                    name == "type" || name == "timestamp" || typed.contains(&name.as_str());
                if !reserved && !out.iter().any(|(n, _)| *n == name) {
                    out.push((name, value));
                }
            }
            out
        })
        .boxed()
}

/// Timestamps in the fixtures' format, and arbitrary strings (the model
/// keeps the text and never parses it).
pub fn timestamp() -> BoxedStrategy<String> {
    prop_oneof![
        3 => "2026-0[1-9]-[0-2][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9]\\.[0-9]{1,6}",
        1 => json_string(),
    ]
    .boxed()
}

/// Any event: every kind, with or without a timestamp, with zero to three
/// opaque extra fields.
pub fn event() -> BoxedStrategy<Event> {
    event_kind()
        .prop_flat_map(|kind| {
            let extra = extra_fields(&kind);
            (Just(kind), prop::option::of(timestamp()), extra)
        })
        .prop_map(|(kind, timestamp, extra)| Event::with(timestamp, kind, extra))
        .boxed()
}

/// A stream of up to `max_len` events.
pub fn stream(max_len: usize) -> BoxedStrategy<Stream> {
    prop::collection::vec(event(), 0..=max_len)
        .prop_map(Stream::new)
        .boxed()
}

/// Both stream layouts.
pub fn format() -> BoxedStrategy<Format> {
    prop_oneof![Just(Format::Array), Just(Format::JsonLines)].boxed()
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

/// A stream (of at least one event), a layout, and its bytes in that layout.
pub fn encoded_stream(max_len: usize) -> BoxedStrategy<(Stream, Format, Vec<u8>)> {
    (
        prop::collection::vec(event(), 1..=max_len.max(1)).prop_map(Stream::new),
        format(),
    )
        .prop_map(|(s, f)| {
            let bytes = encode(&s, f).expect("a non-empty stream has both forms");
            (s, f, bytes)
        })
        .boxed()
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
    pub fn apply(&self, bytes: &mut Vec<u8>) {
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

/// Edits, weighted towards the JSON structural bytes that make a reader
/// take a different path.
pub fn mutation() -> BoxedStrategy<Mutation> {
    let byte = prop_oneof![
        3 => prop::sample::select(b"{}[],:\"\\ \n0tfn-eE.u".to_vec()),
        1 => any::<u8>(),
    ];
    prop_oneof![
        (any::<usize>(), byte.clone()).prop_map(|(i, b)| Mutation::Set(i, b)),
        (any::<usize>(), byte).prop_map(|(i, b)| Mutation::Insert(i, b)),
        (any::<usize>(), 1usize..16).prop_map(|(i, n)| Mutation::Remove(i, n)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), 1usize..32, any::<usize>())
            .prop_map(|(f, n, t)| Mutation::Duplicate(f, n, t)),
    ]
    .boxed()
}

/// The bytes of a valid stream with one to four random edits applied.
pub fn mutated_stream_bytes(max_len: usize) -> BoxedStrategy<Vec<u8>> {
    (
        encoded_stream(max_len),
        prop::collection::vec(mutation(), 1..5),
    )
        .prop_map(|((_, _, mut bytes), edits)| {
            for m in &edits {
                m.apply(&mut bytes);
            }
            bytes
        })
        .boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Draws `n` values of `s` from a fixed-seed runner.
    fn draw<S: Strategy>(s: S, n: usize) -> Vec<S::Value> {
        let mut runner = TestRunner::deterministic();
        (0..n)
            .map(|_| s.new_tree(&mut runner).expect("no rejection").current())
            .collect()
    }

    /// The strategies reach every variant and every optional field state
    /// their docs promise (what makes the round-trip properties mean
    /// anything).
    #[test]
    fn strategies_cover_every_variant() {
        let events = draw(event(), 3000);
        let mut tags: Vec<&str> = events
            .iter()
            .map(|e| match &e.kind {
                EventKind::Other(_) => "other",
                k => k.tag(),
            })
            .collect();
        tags.sort();
        tags.dedup();
        assert_eq!(tags.len(), 8, "{tags:?}");
        assert!(
            events
                .iter()
                .any(|e| e.kind == EventKind::Other("config_delta".into()))
        );
        assert!(events.iter().any(|e| !e.extra.is_empty()));
        assert!(events.iter().any(|e| e.timestamp.is_none()));
        assert!(
            events
                .iter()
                .flat_map(|e| &e.extra)
                .any(|(_, v)| v.get().contains('\n')),
            "some opaque fields are pretty-printed"
        );

        let reasons = draw(cancellation_reason(), 500);
        for known in CancellationReason::KNOWN {
            assert!(reasons.contains(&known), "{known}");
        }
        assert!(
            reasons
                .iter()
                .any(|r| matches!(r, CancellationReason::Unknown(_)))
        );
        for r in &reasons {
            if let CancellationReason::Unknown(tag) = r {
                assert!(matches!(
                    CancellationReason::from_tag(tag),
                    CancellationReason::Unknown(_)
                ));
            }
        }

        let sources = draw(inquiry_source(), 200);
        assert!(sources.contains(&InquirySource::User));
        assert!(sources.contains(&InquirySource::Assistant));
        assert!(
            sources
                .iter()
                .any(|s| matches!(s, InquirySource::Other { .. }))
        );
        assert!(
            sources
                .iter()
                .any(|s| matches!(s, InquirySource::Tool { .. }))
        );

        let responses = draw(inquiry_response(), 300);
        assert!(
            responses
                .iter()
                .any(|r| matches!(r, InquiryResponse::Answered { .. }))
        );
        assert!(
            responses
                .iter()
                .any(|r| matches!(r, InquiryResponse::Cancelled { .. }))
        );
        assert!(
            responses
                .iter()
                .any(|r| matches!(r, InquiryResponse::Redacted { .. }))
        );

        let questions = draw(inquiry_question(), 500);
        for (present, absent) in [
            (
                questions.iter().any(|q| q.context.is_some()),
                questions.iter().any(|q| q.context.is_none()),
            ),
            (
                questions.iter().any(|q| q.default.is_some()),
                questions.iter().any(|q| q.default.is_none()),
            ),
            (
                questions.iter().any(|q| q.exclusive),
                questions.iter().any(|q| !q.exclusive),
            ),
            (
                questions
                    .iter()
                    .any(|q| q.persistence == InquiryAnswerReusePolicy::None),
                questions
                    .iter()
                    .any(|q| q.persistence == InquiryAnswerReusePolicy::Turn),
            ),
        ] {
            assert!(present && absent);
        }
        let options: Vec<SelectOption> = draw(inquiry_answer_type(), 500)
            .into_iter()
            .flat_map(|t| match t {
                InquiryAnswerType::Select { options } => options,
                InquiryAnswerType::Boolean
                | InquiryAnswerType::Text
                | InquiryAnswerType::Secret => Vec::new(),
            })
            .collect();
        assert!(options.iter().any(|o| o.description.is_some()));
        assert!(options.iter().any(|o| o.description.is_none()));

        let ids = draw(inquiry_id(), 200);
        assert!(ids.iter().any(|i| i.as_str().matches('.').count() == 1));
        assert!(ids.iter().any(|i| i.as_str().matches('.').count() == 2));
    }

    /// Extra fields never shadow a typed field, so events round-trip.
    #[test]
    fn extra_fields_avoid_typed_names() {
        for e in draw(event(), 1000) {
            for (name, _) in &e.extra {
                assert!(name != "type" && name != "timestamp");
                assert!(
                    !typed_field_names(&e.kind).contains(&name.as_str()),
                    "{name}"
                );
            }
        }
    }

    /// `sample` is a pure function of its bytes, terminates on any bytes
    /// (empty ones included), and different bytes reach different values.
    #[test]
    fn sample_is_deterministic_in_its_bytes() {
        let bytes: Vec<u8> = (0u8..=255).cycle().take(4096).collect();
        let a = sample(&stream(4), &bytes);
        assert!(a.is_some());
        assert_eq!(a, sample(&stream(4), &bytes));
        assert!(sample(&stream(4), &[]).is_some());
        let drawn: Vec<Stream> = (0u8..16).filter_map(|b| sample(&stream(4), &[b])).collect();
        assert_eq!(drawn.len(), 16);
        assert!(drawn.iter().any(|s| *s != drawn[0]));
    }
}
