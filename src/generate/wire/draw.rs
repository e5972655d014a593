//! The wire generators themselves: one plain function per persisted type,
//! each `fn(&mut impl Choices) -> T`, so every driver of
//! [`crate::generate::choice`] runs them (the proptest strategies of
//! [`super`] are thin wrappers around them).
//!
//! Each covers every variant of its type, including the ones the model only
//! reads (`InquirySource::User`/`Other`, `CancellationReason::Unknown` with
//! tags that are not known tags, event kinds it does not type such as
//! `config_delta`) and the optional fields of RFD 083 both present and
//! absent. Every value is one the writer round-trips (rule
//! `WIRE-STREAM-ROUNDTRIP`): floats are finite, an `Unknown` reason never
//! holds a known tag, an `Other` kind never holds a known kind, and extra
//! fields never reuse a name the kind types. What they reach is checked in
//! `generate::wire`'s test `the_wire_generators_reach_every_shape`.
//!
//! Lists have explicit bounds (`count`), never [`Choices::more`]: a
//! replayed or fuzz-byte driver says "more" until its input is spent.

use serde_json::{Map, Number, Value};

use super::{KNOWN_KINDS, Mutation, encode, typed_field_names};
use crate::generate::choice::Choices;
use crate::wire::{
    CancellationReason, Event, EventKind, Format, InquiryAnswerReusePolicy, InquiryAnswerType,
    InquiryId, InquiryQuestion, InquiryRequest, InquiryResponse, InquirySource, Opaque,
    SelectOption, Stream, ToolCallRequest, ToolCallResponse,
};

/// `[a-z_]`.
const LOWER: &[u8] = b"abcdefghijklmnopqrstuvwxyz_";
/// `[A-Za-z0-9]`.
const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
/// `[a-z0-9_.-]`: provider IDs of no particular shape.
const ID_CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789_.-";
/// `[a-z0-9_.]`: the rest of a question ID.
const QUESTION_CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789_.";
/// `[0-9]`.
const DIGITS: &[u8] = b"0123456789";

/// Characters a JSON writer or reader must treat with care, one each:
/// the quote and backslash it escapes, DEL, the two line separators
/// JavaScript does not allow in strings, a byte-order mark, the replacement
/// character, the last BMP and the last Unicode scalar values.
pub(crate) const SPECIAL_CHARS: [char; 10] = [
    '"',
    '\\',
    '/',
    '\u{7f}',
    '\u{2028}',
    '\u{2029}',
    '\u{feff}',
    '\u{fffd}',
    '\u{ffff}',
    '\u{10ffff}',
];

/// `lo..=hi` characters of `alphabet` (the character classes of the
/// patterns real IDs and names follow).
pub(crate) fn word(c: &mut impl Choices, alphabet: &[u8], lo: usize, hi: usize) -> String {
    let n = c.count(lo, hi);
    (0..n)
        .map(|_| char::from(alphabet[c.choose(alphabet.len())]))
        .collect()
}

/// Any Unicode scalar value, by class: printable ASCII most often, then C0
/// controls, [`SPECIAL_CHARS`], the rest of the BMP below and above the
/// surrogates, and the supplementary planes.
pub(crate) fn any_char(c: &mut impl Choices) -> char {
    let code = match c.weighted(&[8, 2, 2, 2, 1, 1]) {
        0 => 0x20 + c.choose(95) as u32,
        1 => c.choose(0x20) as u32,
        2 => return c.pick(&SPECIAL_CHARS),
        3 => 0x80 + c.choose(0xD800 - 0x80) as u32,
        4 => 0xE000 + c.choose(0x2000) as u32,
        _ => 0x1_0000 + c.choose(0x10_0000) as u32,
    };
    // Every class above is a range of scalar values (no surrogate).
    char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER)
}

/// Any string of up to 24 characters ([`any_char`]).
pub(crate) fn any_string(c: &mut impl Choices) -> String {
    let n = c.count(0, 24);
    (0..n).map(|_| any_char(c)).collect()
}

/// Strings, weighted towards the ones that stress a JSON writer: quotes,
/// backslashes, brackets, control characters, non-ASCII text.
pub(crate) fn json_string(c: &mut impl Choices) -> String {
    match c.weighted(&[4, 1, 1, 1, 1]) {
        0 => any_string(c),
        1 => String::new(),
        2 => "quote \" backslash \\ brackets {}[] comma , colon :".to_owned(),
        3 => "line\nbreak\ttab\r\u{0}nul \u{1f} unit".to_owned(),
        _ => "naïve ☃ 𝄞 \u{2028}".to_owned(),
    }
}

/// `N` bytes, one choice each (so they shrink byte by byte toward 0).
fn bytes<const N: usize>(c: &mut impl Choices) -> [u8; N] {
    let mut b = [0u8; N];
    for x in &mut b {
        *x = c.choose(256) as u8;
    }
    b
}

/// Any `i64`: small ones (zigzag, 0 first), the edges of `i32` and `i64`,
/// or all 64 bits.
pub(crate) fn any_i64(c: &mut impl Choices) -> i64 {
    match c.weighted(&[2, 1, 2]) {
        0 => {
            let v = c.choose(256) as i64;
            (v >> 1) ^ -(v & 1)
        }
        1 => c.pick(&[
            0,
            -1,
            i64::from(i32::MIN),
            i64::from(i32::MAX),
            i64::MIN,
            i64::MAX,
        ]),
        _ => i64::from_le_bytes(bytes(c)),
    }
}

/// Any `u64`: small ones, the edges around `i64::MAX` and `u64::MAX`, or
/// all 64 bits (half of them above `i64::MAX`, which JSON readers must
/// keep unsigned).
pub(crate) fn any_u64(c: &mut impl Choices) -> u64 {
    match c.weighted(&[2, 1, 2]) {
        0 => c.choose(256) as u64,
        1 => c.pick(&[
            0,
            i64::MAX as u64,
            i64::MAX as u64 + 1,
            u64::from(u32::MAX) + 1,
            u64::MAX,
        ]),
        _ => u64::from_le_bytes(bytes(c)),
    }
}

/// Finite floats of up to ten significant digits, from `1e-20` to `1e20`
/// in magnitude times an `i32` mantissa, zero and negative zero included.
///
/// Limited since before serde_json's `float_roundtrip` feature was enabled
/// (without it some 16- and 17-digit floats read back one ulp off); with
/// it, wider floats would round-trip too, and widening the range is a
/// separate change (see `spec/DECISIONS.md`, "Wire: float round-trips").
pub(crate) fn json_float(c: &mut impl Choices) -> Value {
    let f = match c.choose(3) {
        0 => 0.0,
        1 => -0.0,
        _ => {
            let m = i32::from_le_bytes(bytes(c));
            let e = c.choose(41) as i32 - 20;
            format!("{m}e{e}")
                .parse::<f64>()
                .expect("a decimal literal parses")
        }
    };
    Number::from_f64(f).map_or(Value::Null, Value::Number)
}

/// JSON scalars: `null`, booleans, integers over the whole `i64` and `u64`
/// ranges, finite floats ([`json_float`]: JSON has no NaN or infinity) and
/// strings.
pub(crate) fn json_scalar(c: &mut impl Choices) -> Value {
    match c.choose(6) {
        0 => Value::Null,
        1 => Value::Bool(c.flip()),
        2 => Value::from(any_i64(c)),
        3 => Value::from(any_u64(c)),
        4 => json_float(c),
        _ => Value::String(json_string(c)),
    }
}

/// How deep [`json_value`] nests arrays and objects (well under
/// serde_json's recursion limit of 128).
pub(crate) const JSON_DEPTH: usize = 4;

/// Any JSON value, arrays and objects of up to three members nested up to
/// [`JSON_DEPTH`] levels (an object's repeated key keeps its last value).
pub(crate) fn json_value(c: &mut impl Choices) -> Value {
    json_value_within(c, JSON_DEPTH)
}

fn json_value_within(c: &mut impl Choices, depth: usize) -> Value {
    if depth == 0 {
        return json_scalar(c);
    }
    match c.weighted(&[3, 1, 1]) {
        0 => json_scalar(c),
        1 => {
            let n = c.count(0, 3);
            Value::Array((0..n).map(|_| json_value_within(c, depth - 1)).collect())
        }
        _ => {
            let n = c.count(0, 3);
            let members = (0..n).map(|_| (json_string(c), json_value_within(c, depth - 1)));
            Value::Object(members.collect::<Map<_, _>>())
        }
    }
}

/// Opaque JSON, written compactly or pretty-printed (as in real
/// `events.json` files, whose opaque fields span several lines).
pub(crate) fn opaque(c: &mut impl Choices) -> Opaque {
    let v = json_value(c);
    if c.flip() {
        let text = serde_json::to_string_pretty(&v).expect("a Value always serializes");
        serde_json::from_str::<Opaque>(&text).expect("pretty text of a Value is valid JSON")
    } else {
        Opaque::from_value(&v)
    }
}

/// `Some` of `value` or `None`, on a coin.
fn maybe<C: Choices, T>(c: &mut C, value: impl FnOnce(&mut C) -> T) -> Option<T> {
    c.flip().then(|| value(c))
}

/// Provider tool-call IDs in the shapes real providers use:
/// `call_[A-Za-z0-9]{1,8}`, `toolu_[A-Za-z0-9]{4,24}`, `[a-z0-9_.-]{1,12}`.
pub(crate) fn tool_call_id(c: &mut impl Choices) -> String {
    match c.choose(3) {
        0 => format!("call_{}", word(c, ALNUM, 1, 8)),
        1 => format!("toolu_{}", word(c, ALNUM, 4, 24)),
        _ => word(c, ID_CHARS, 1, 12),
    }
}

/// Question IDs as tools write them, `[a-z_][a-z0-9_.]{0,12}` (dots
/// included: readers must not split on them, rule `WIRE-ID-OPAQUE`).
pub(crate) fn question_id(c: &mut impl Choices) -> String {
    let first = word(c, LOWER, 1, 1);
    first + &word(c, QUESTION_CHARS, 0, 12)
}

/// Inquiry IDs: the RFD 082 three-segment form (attempts 1 to 4), the
/// legacy two-segment form, and arbitrary strings (an ID is opaque, so any
/// string must survive).
pub(crate) fn inquiry_id(c: &mut impl Choices) -> InquiryId {
    match c.weighted(&[3, 2, 1]) {
        0 => {
            let (t, q) = (tool_call_id(c), question_id(c));
            InquiryId::new(&t, &q, 1 + c.choose(4) as u32)
        }
        1 => {
            let (t, q) = (tool_call_id(c), question_id(c));
            InquiryId::legacy(&t, &q)
        }
        _ => InquiryId::from_opaque(json_string(c)),
    }
}

/// Every persisted source, the read-only `User` and `Other` included.
pub(crate) fn inquiry_source(c: &mut impl Choices) -> InquirySource {
    match c.choose(4) {
        0 => InquirySource::tool(word(c, LOWER, 1, 16)),
        1 => InquirySource::Assistant,
        2 => InquirySource::User,
        _ => InquirySource::Other {
            name: json_string(c),
        },
    }
}

/// A persisted select option, with and without a description.
pub(crate) fn select_option(c: &mut impl Choices) -> SelectOption {
    let value = json_value(c);
    let description = maybe(c, json_string);
    SelectOption::new(value, description)
}

/// Every persisted answer type; selects with zero to three options.
pub(crate) fn inquiry_answer_type(c: &mut impl Choices) -> InquiryAnswerType {
    match c.choose(4) {
        0 => InquiryAnswerType::Boolean,
        1 => {
            let n = c.count(0, 3);
            InquiryAnswerType::Select {
                options: (0..n).map(|_| select_option(c)).collect(),
            }
        }
        2 => InquiryAnswerType::Text,
        _ => InquiryAnswerType::Secret,
    }
}

/// Both reuse policies.
pub(crate) fn inquiry_answer_reuse_policy(c: &mut impl Choices) -> InquiryAnswerReusePolicy {
    if c.flip() {
        InquiryAnswerReusePolicy::None
    } else {
        InquiryAnswerReusePolicy::Turn
    }
}

/// A persisted question with every optional field independently present or
/// absent: `default` (a present `null` included), and RFD 083's `context`,
/// `exclusive` and `persistence`.
pub(crate) fn inquiry_question(c: &mut impl Choices) -> InquiryQuestion {
    let mut q = pre_083_question(c);
    q.context = maybe(c, json_string);
    q.exclusive = c.flip();
    q.persistence = inquiry_answer_reuse_policy(c);
    q
}

/// A question as written before RFD 083: no `context`, `exclusive: false`,
/// `persistence: turn` (all three absent on disk).
pub(crate) fn pre_083_question(c: &mut impl Choices) -> InquiryQuestion {
    let text = json_string(c);
    let answer_type = inquiry_answer_type(c);
    let default = maybe(c, json_value);
    InquiryQuestion {
        text,
        answer_type,
        default,
        context: None,
        exclusive: false,
        persistence: InquiryAnswerReusePolicy::Turn,
    }
}

/// An `inquiry_request` payload.
pub(crate) fn inquiry_request(c: &mut impl Choices) -> InquiryRequest {
    let id = inquiry_id(c);
    let source = inquiry_source(c);
    let question = inquiry_question(c);
    InquiryRequest {
        id,
        source,
        question,
    }
}

/// A reason tag this build does not know: realistic future tags and
/// arbitrary strings (one that happens to be a known tag is suffixed, so
/// the result is never a known tag).
pub(crate) fn unknown_reason_tag(c: &mut impl Choices) -> String {
    let tag = match c.choose(5) {
        0 => "some_future_variant".to_owned(),
        1 => "timeout".to_owned(),
        2 => "User".to_owned(),
        3 => String::new(),
        _ => json_string(c),
    };
    // Every known tag (whatever `KNOWN` holds) becomes its near miss.
    match CancellationReason::from_tag(&tag) {
        CancellationReason::Unknown(tag) => tag,
        known => format!("{}_v2", known.as_str()),
    }
}

/// A known reason (any of [`CancellationReason::KNOWN`]).
pub(crate) fn known_reason(c: &mut impl Choices) -> CancellationReason {
    c.pick(&CancellationReason::KNOWN)
}

/// Every reason: the known ones and `Unknown` with a tag that is not known.
pub(crate) fn cancellation_reason(c: &mut impl Choices) -> CancellationReason {
    match c.weighted(&[3, 1]) {
        0 => known_reason(c),
        _ => CancellationReason::Unknown(unknown_reason_tag(c)),
    }
}

/// Every response variant.
pub(crate) fn inquiry_response(c: &mut impl Choices) -> InquiryResponse {
    let outcome = c.choose(3);
    let id = inquiry_id(c);
    match outcome {
        0 => InquiryResponse::Answered {
            id,
            answer: json_value(c),
        },
        1 => InquiryResponse::Cancelled {
            id,
            reason: cancellation_reason(c),
        },
        _ => InquiryResponse::Redacted { id },
    }
}

/// A `tool_call_request` payload, with and without arguments.
pub(crate) fn tool_call_request(c: &mut impl Choices) -> ToolCallRequest {
    let id = tool_call_id(c);
    let name = word(c, LOWER, 1, 16);
    let arguments = maybe(c, opaque);
    ToolCallRequest {
        id,
        name,
        arguments,
    }
}

/// A `tool_call_response` payload, with and without content and `is_error`.
pub(crate) fn tool_call_response(c: &mut impl Choices) -> ToolCallResponse {
    let id = tool_call_id(c);
    let content = maybe(c, opaque);
    let is_error = maybe(c, |c| c.flip());
    ToolCallResponse {
        id,
        content,
        is_error,
    }
}

/// An event kind this build does not type: `config_delta` (in every real
/// stream), `conversation_summary`, `[a-z][a-z_]{0,15}` and arbitrary
/// strings, never a known kind (one is suffixed).
pub(crate) fn other_kind_tag(c: &mut impl Choices) -> String {
    let tag = match c.choose(4) {
        0 => "config_delta".to_owned(),
        1 => "conversation_summary".to_owned(),
        2 => word(c, &LOWER[..26], 1, 1) + &word(c, LOWER, 0, 15),
        _ => json_string(c),
    };
    if KNOWN_KINDS.contains(&tag.as_str()) {
        tag + "_v2"
    } else {
        tag
    }
}

/// Every event kind, each with its typed payload.
pub(crate) fn event_kind(c: &mut impl Choices) -> EventKind {
    match c.choose(8) {
        0 => EventKind::TurnStart,
        1 => EventKind::ChatRequest,
        2 => EventKind::ChatResponse,
        3 => EventKind::ToolCallRequest(tool_call_request(c)),
        4 => EventKind::ToolCallResponse(tool_call_response(c)),
        5 => EventKind::InquiryRequest(Box::new(inquiry_request(c))),
        6 => EventKind::InquiryResponse(inquiry_response(c)),
        _ => EventKind::Other(other_kind_tag(c)),
    }
}

/// Names for extra fields: the ones real streams carry (`content`,
/// `message`, `reasoning`, `metadata`, `delta`), `[a-z_]{1,10}` and
/// arbitrary ones.
pub(crate) fn extra_field_name(c: &mut impl Choices) -> String {
    const REAL: [&str; 5] = ["content", "message", "reasoning", "metadata", "delta"];
    match c.choose(REAL.len() + 2) {
        k if k < REAL.len() => REAL[k].to_owned(),
        5 => word(c, LOWER, 1, 10),
        _ => json_string(c),
    }
}

/// Zero to three opaque extra fields for `kind`, with distinct names that
/// are neither `type`, `timestamp` nor a field the kind types.
pub(crate) fn extra_fields(c: &mut impl Choices, kind: &EventKind) -> Vec<(String, Opaque)> {
    let typed = typed_field_names(kind);
    let n = c.count(0, 3);
    let mut out: Vec<(String, Opaque)> = Vec::with_capacity(n);
    for _ in 0..n {
        let (name, value) = (extra_field_name(c), opaque(c));
        let reserved = name == "type" || name == "timestamp" || typed.contains(&name.as_str());
        if !reserved && !out.iter().any(|(n, _)| *n == name) {
            out.push((name, value));
        }
    }
    out
}

/// Timestamps in the fixtures' format
/// (`2026-0[1-9]-[0-2][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9]{1,6}`),
/// and arbitrary strings (the model keeps the text and never parses it).
pub(crate) fn timestamp(c: &mut impl Choices) -> String {
    if c.weighted(&[3, 1]) == 1 {
        return json_string(c);
    }
    let mut d = |n: usize| c.choose(n);
    let date = format!("2026-0{}-{}{}", 1 + d(9), d(3), d(10));
    let time = format!("{}{}:{}{}:{}{}", d(3), d(10), d(6), d(10), d(6), d(10));
    format!("{date} {time}.{}", word(c, DIGITS, 1, 6))
}

/// Any event: every kind, with or without a timestamp, with zero to three
/// opaque extra fields.
pub(crate) fn event(c: &mut impl Choices) -> Event {
    let kind = event_kind(c);
    let timestamp = maybe(c, timestamp);
    let extra = extra_fields(c, &kind);
    Event::with(timestamp, kind, extra)
}

/// A stream of up to `max_len` events.
pub(crate) fn stream(c: &mut impl Choices, max_len: usize) -> Stream {
    let n = c.count(0, max_len);
    Stream::new((0..n).map(|_| event(c)).collect())
}

/// Both stream layouts.
pub(crate) fn format(c: &mut impl Choices) -> Format {
    if c.flip() {
        Format::JsonLines
    } else {
        Format::Array
    }
}

/// A stream of one to `max_len` events (at least one), a layout, and its
/// bytes in that layout.
pub(crate) fn encoded_stream(c: &mut impl Choices, max_len: usize) -> (Stream, Format, Vec<u8>) {
    let n = c.count(1, max_len.max(1));
    let s = Stream::new((0..n).map(|_| event(c)).collect());
    let f = format(c);
    let bytes = encode(&s, f).expect("a non-empty stream has both forms");
    (s, f, bytes)
}

/// A position in a byte string of any length (taken modulo its length).
fn position(c: &mut impl Choices) -> usize {
    u32::from_le_bytes(bytes(c)) as usize
}

/// A byte for an edit, weighted towards the JSON structural bytes that make
/// a reader take a different path.
fn edit_byte(c: &mut impl Choices) -> u8 {
    if c.weighted(&[3, 1]) == 0 {
        c.pick(&b"{}[],:\"\\ \n0tfn-eE.u"[..])
    } else {
        c.choose(256) as u8
    }
}

/// One edit of a byte string: every kind of [`Mutation`].
pub(crate) fn mutation(c: &mut impl Choices) -> Mutation {
    match c.choose(5) {
        0 => Mutation::Set(position(c), edit_byte(c)),
        1 => Mutation::Insert(position(c), edit_byte(c)),
        2 => Mutation::Remove(position(c), 1 + c.choose(15)),
        3 => Mutation::Truncate(position(c)),
        _ => Mutation::Duplicate(position(c), 1 + c.choose(31), position(c)),
    }
}

/// The bytes of a valid stream of up to `max_len` events with one to four
/// edits applied.
pub(crate) fn mutated_stream_bytes(c: &mut impl Choices, max_len: usize) -> Vec<u8> {
    let (_, _, mut bytes) = encoded_stream(c, max_len);
    let n = c.count(1, 4);
    for _ in 0..n {
        mutation(c).apply(&mut bytes);
    }
    bytes
}
