//! Typing an event from its fields: the serde impls of [`Event`] and
//! [`RawEvent`], field typing with its number texts, and JSON string
//! escapes (rules `WIRE-EVENT-*`, `WIRE-NUMBER-TEXT`).
//!
//! This is codec, not vocabulary: the types it builds live in [`super`];
//! the fast reader beside this file hands it field texts.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::opaque::check_raw;
use super::*;

/// A field's value as typing sees it: its JSON text, and what the typed
/// event keeps of it.
pub(crate) trait FieldValue {
    /// The JSON text as written.
    fn text(&self) -> &str;
    /// The value the typed event keeps, if it keeps opaque values at all.
    fn keep(self) -> Option<Opaque>;
    /// Whether the typed event keeps the timestamp and the opaque values
    /// (they are checked anyway).
    const KEEPS_TIMESTAMP: bool;
}

impl FieldValue for Opaque {
    fn text(&self) -> &str {
        self.get()
    }

    fn keep(self) -> Option<Opaque> {
        Some(self)
    }

    const KEEPS_TIMESTAMP: bool = true;
}

/// A field's text borrowed from the bytes it was read from: typed and
/// checked like an owned one, but the typed event keeps no opaque value
/// (`arguments`, `content` and extra fields come out absent) and no
/// timestamp. Only the
/// oracle uses this, and it never reads opaque values; the bytes of big
/// contents are then never copied.
impl FieldValue for &str {
    fn text(&self) -> &str {
        self
    }

    fn keep(self) -> Option<Opaque> {
        None
    }

    const KEEPS_TIMESTAMP: bool = false;
}

/// Types an event from its fields in written order (rules `WIRE-EVENT-*`):
/// [`RawEvent::into_event`], and the oracle's borrowed variant.
pub(crate) fn type_fields<K, V>(fields: Vec<(K, V)>) -> Result<Event, String>
where
    K: AsRef<str> + Into<String>,
    V: FieldValue,
{
    type_fields_seen(&mut { fields }, &mut |_| {})
}

/// What is handed an `inquiry_request`'s question members, as the fast
/// typing splits them ([`type_fields_seen`]).
pub(crate) type QuestionSeen<'a> = dyn FnMut(&[(Cow<'_, str>, &str)]) + 'a;

/// [`type_fields`], handing an `inquiry_request`'s question members to
/// `seen` when the fast typing splits them
/// ([`typing::inquiry_request_seen`]; rule `PERF-CHECK-SPLIT-ONCE`). The
/// fields are moved out of `fields`, which keeps its buffer (the reader
/// reads the next event into it).
pub(crate) fn type_fields_seen<K, V>(
    fields: &mut Vec<(K, V)>,
    seen: &mut QuestionSeen<'_>,
) -> Result<Event, String>
where
    K: AsRef<str> + Into<String>,
    V: FieldValue,
{
    // The envelope first, in written order (the first bad `type` or
    // `timestamp` is the error); the fields are then moved once, with no
    // intermediate list (the oracle's borrowed path allocates nothing here,
    // and its field list keeps its buffer).
    // The last `type` is the one typed (a repeated field is refused
    // before typing; serde's map keeps the last).
    let mut tag = None;
    let mut timestamp: Option<String> = None;
    for (k, v) in fields.iter() {
        match k.as_ref() {
            "type" => {
                let Some(text) = json_string(v.text()) else {
                    return Err(format!("`type` must be a string, found {}", v.text()));
                };
                tag = Some(text);
            }
            "timestamp" => {
                let ts = json_string(v.text())
                    .ok_or_else(|| format!("`timestamp` must be a string, found {}", v.text()))?;
                if V::KEEPS_TIMESTAMP {
                    timestamp = Some(ts.into_owned());
                }
            }
            _ => {}
        }
    }
    // The tag text borrows the fields, which are drained below: it is
    // dropped with this statement.
    let tag = match tag.ok_or_else(|| untyped_event(fields))?.as_ref() {
        "turn_start" => Ok(Typed::TurnStart),
        "chat_request" => Ok(Typed::ChatRequest),
        "chat_response" => Ok(Typed::ChatResponse),
        "tool_call_request" => Ok(Typed::ToolCallRequest),
        "tool_call_response" => Ok(Typed::ToolCallResponse),
        "inquiry_request" => Ok(Typed::InquiryRequest),
        "inquiry_response" => Ok(Typed::InquiryResponse),
        other => Err(other.to_owned()),
    };
    let rest = fields
        .drain(..)
        .filter(|(k, _)| !matches!(k.as_ref(), "type" | "timestamp"));
    let mut value_text = None;
    let (kind, extra) = match tag {
        Ok(Typed::TurnStart) => (EventKind::TurnStart, kept(rest)),
        Ok(Typed::ChatRequest) => (EventKind::ChatRequest, kept(rest)),
        Ok(Typed::ChatResponse) => (EventKind::ChatResponse, kept(rest)),
        Ok(Typed::ToolCallRequest) => {
            let (mut t, extra) = take(rest, &TOOL_CALL_REQUEST_FIELDS);
            let id = req_string(&mut t, 0, "tool_call_request", "id")?;
            let name = req_string(&mut t, 1, "tool_call_request", "name")?;
            let arguments = t[2].take().and_then(FieldValue::keep);
            (
                EventKind::ToolCallRequest(ToolCallRequest {
                    id,
                    name,
                    arguments,
                }),
                extra,
            )
        }
        Ok(Typed::ToolCallResponse) => {
            let (mut t, extra) = take(rest, &TOOL_CALL_RESPONSE_FIELDS);
            let id = req_string(&mut t, 0, "tool_call_response", "id")?;
            let content = t[1].take().and_then(FieldValue::keep);
            let is_error = match t[2].take() {
                None => None,
                Some(v) => Some(serde_json::from_str::<bool>(v.text()).map_err(|_| {
                    format!(
                        "tool_call_response `is_error` must be a boolean, found {}",
                        v.text()
                    )
                })?),
            };
            (
                EventKind::ToolCallResponse(ToolCallResponse {
                    id,
                    content,
                    is_error,
                }),
                extra,
            )
        }
        Ok(Typed::InquiryRequest) => {
            let (mut t, extra) = take(rest, &INQUIRY_REQUEST_FIELDS);
            let fast = match &t {
                [Some(id), Some(source), Some(question)] => {
                    typing::inquiry_request_seen(id.text(), source.text(), question.text(), seen)
                }
                _ => None,
            };
            let req: InquiryRequest = match fast {
                Some(req) => req,
                None => {
                    typing::note_serde_typing();
                    from_fields(&INQUIRY_REQUEST_FIELDS, &t)
                        .map_err(|e| invalid("inquiry_request", &e))?
                }
            };
            value_text = number_text(t[2].take());
            (EventKind::InquiryRequest(Box::new(req)), extra)
        }
        Ok(Typed::InquiryResponse) => {
            let (mut t, extra) = take(rest, &RESPONSE_FIELDS);
            let fast = typing::inquiry_response([0, 1, 2, 3].map(|i| t[i].as_ref().map(V::text)));
            let resp: InquiryResponse = match fast {
                Some(resp) => resp,
                None => {
                    typing::note_serde_typing();
                    from_fields(&RESPONSE_FIELDS, &t)
                        .map_err(|e| invalid("inquiry_response", &e))?
                }
            };
            if let InquiryResponse::Answered { .. } = resp {
                value_text = number_text(t[2].take());
            }
            (EventKind::InquiryResponse(resp), extra)
        }
        Err(other) => (EventKind::Other(other), kept(rest)),
    };
    let extra = extra
        .into_iter()
        .filter_map(|(k, v)| v.keep().map(|v| (k.into(), v)))
        .collect();
    Ok(Event {
        timestamp,
        kind,
        extra,
        value_text,
    })
}

/// The kinds [`type_fields`] types by their fields (the others are
/// [`EventKind::Other`]).
#[derive(Debug, Clone, Copy)]
enum Typed {
    TurnStart,
    ChatRequest,
    ChatResponse,
    ToolCallRequest,
    ToolCallResponse,
    InquiryRequest,
    InquiryResponse,
}

/// A serde refusal of an inquiry payload: serde_json's position is inside
/// the object built by [`from_fields`], not the file, so it is dropped (the
/// reader reports its own).
fn invalid(kind: &str, e: &serde_json::Error) -> String {
    format!("invalid {kind}: {}", reader::strip_position(&e.to_string()))
}

/// Why an object without `type` is not an event. The older jp conversation
/// format (`{timestamp, message, reply}` objects, before typed events) is
/// named, so its reader knows it has the wrong file, not a damaged one (rule
/// `WIRE-OLD-FORMAT`).
fn untyped_event<K: AsRef<str>, V>(rest: &[(K, V)]) -> String {
    let has = |name: &str| rest.iter().any(|(k, _)| k.as_ref() == name);
    if has("message") || has("reply") {
        "event has no `type` field: this is the older jp conversation format \
         (`{timestamp, message, reply}` objects), which predates typed events; \
         only streams of typed events (RFD 004/005) can be read"
            .to_owned()
    } else {
        "event has no `type` field".to_owned()
    }
}

/// The text of a typed value-bearing field, kept when it holds a number
/// (rule `WIRE-NUMBER-TEXT`) and the typed event keeps opaque text at all
/// (asked first: the borrowed typing keeps none, so it does not scan the
/// question for a number).
fn number_text<V: FieldValue>(field: Option<V>) -> Option<Opaque> {
    field
        .filter(|v| V::KEEPS_TIMESTAMP && has_number(v.text().as_bytes()))
        .and_then(FieldValue::keep)
}

/// Whether a JSON text holds a number token: outside strings, a digit or a
/// minus sign starts one (the literals `true`, `false`, `null` hold
/// neither).
pub(crate) fn has_number(text: &[u8]) -> bool {
    let mut in_string = false;
    let mut escape = false;
    for &b in text {
        if in_string {
            if escape {
                escape = false;
            } else if b == b'\\' {
                escape = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else if b == b'"' {
            in_string = true;
        } else if b == b'-' || b.is_ascii_digit() {
            return true;
        }
    }
    false
}

/// Splits `fields` into the named ones (by position in `names`) and the
/// rest, which is only gathered when the typed event keeps it.
fn take<K: AsRef<str>, V: FieldValue, const N: usize>(
    fields: impl Iterator<Item = (K, V)>,
    names: &[&str; N],
) -> ([Option<V>; N], Vec<(K, V)>) {
    let mut taken: [Option<V>; N] = std::array::from_fn(|_| None);
    let mut rest = Vec::new();
    for (k, v) in fields {
        // The first byte first: the names of one kind mostly differ there,
        // so a field is compared in full with one name at most.
        let key = k.as_ref().as_bytes();
        let named = names
            .iter()
            .position(|n| n.as_bytes().first() == key.first() && n.as_bytes() == key);
        match named {
            Some(i) => taken[i] = Some(v),
            None if V::KEEPS_TIMESTAMP => rest.push((k, v)),
            None => {}
        }
    }
    (taken, rest)
}

/// The fields a kind does not type, gathered only when the typed event
/// keeps them.
fn kept<K, V: FieldValue>(fields: impl Iterator<Item = (K, V)>) -> Vec<(K, V)> {
    if V::KEEPS_TIMESTAMP {
        fields.collect()
    } else {
        Vec::new()
    }
}

fn req_string<V: FieldValue>(
    t: &mut [Option<V>],
    i: usize,
    kind: &str,
    name: &str,
) -> Result<String, String> {
    match t[i].take() {
        None => Err(format!("{kind} is missing `{name}`")),
        Some(v) => json_string(v.text())
            .map(Cow::into_owned)
            .ok_or_else(|| format!("{kind} `{name}` must be a string, found {}", v.text())),
    }
}

/// The string a JSON text holds, if it is a string. `text` is one valid JSON
/// value (every field text is), so a string without escapes is its content
/// as written, borrowed; serde decodes the others.
pub(crate) fn json_string(text: &str) -> Option<Cow<'_, str>> {
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    // Most strings read here are short tags, names and IDs: a word at a
    // time costs less than `memchr`'s set-up; a long text takes `memchr`.
    let escaped = match inner.len() {
        0..=SHORT_STRING => has_backslash(inner.as_bytes()),
        _ => memchr::memchr(b'\\', inner.as_bytes()).is_some(),
    };
    if escaped {
        unescape(inner)
            .or_else(|| serde_json::from_str::<String>(text).ok())
            .map(Cow::Owned)
    } else {
        Some(Cow::Borrowed(inner))
    }
}

/// The longest string content [`json_string`] searches for a backslash a
/// word at a time rather than with `memchr`.
const SHORT_STRING: usize = 64;

/// Whether `bytes` holds a backslash, eight bytes at a time (a byte equal
/// to it becomes zero, and a zero byte sets its high bit in
/// `(x - 0x01..) & !x & 0x80..`; a borrow only runs upward from a zero
/// byte, so there is no false hit without a true one).
#[inline]
pub(crate) fn has_backslash(bytes: &[u8]) -> bool {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let x = u64::from_le_bytes(word.try_into().expect("8 bytes")) ^ (ONES * u64::from(b'\\'));
        if x.wrapping_sub(ONES) & !x & HIGH != 0 {
            return true;
        }
    }
    // At most seven bytes: a loop, not `contains`' `memchr` set-up.
    for &b in words.remainder() {
        if b == b'\\' {
            return true;
        }
    }
    false
}

/// The content of a JSON string that holds escapes, `inner` being the
/// content of a valid JSON string ([`json_string`]'s precondition: no raw
/// `"` or control character, every escape well formed). Decoded here; a
/// surrogate escape that is not half of a pair, or anything unexpected,
/// gives way (`None`) to serde, which decides. What it returns is what
/// serde_json decodes (`unescape_is_serdes`).
pub(super) fn unescape(inner: &str) -> Option<String> {
    let bytes = inner.as_bytes();
    let mut out = String::with_capacity(inner.len());
    let mut from = 0;
    while let Some(k) = memchr::memchr(b'\\', &bytes[from..]) {
        let at = from + k;
        // Both ends are ASCII bytes: character boundaries.
        out.push_str(&inner[from..at]);
        let (c, used) = match *bytes.get(at + 1)? {
            b'"' => ('"', 2),
            b'\\' => ('\\', 2),
            b'/' => ('/', 2),
            b'b' => ('\u{8}', 2),
            b'f' => ('\u{c}', 2),
            b'n' => ('\n', 2),
            b'r' => ('\r', 2),
            b't' => ('\t', 2),
            b'u' => {
                let unit = hex4(inner.get(at + 2..at + 6)?)?;
                match unit {
                    0xD800..=0xDBFF => {
                        if inner.get(at + 6..at + 8) != Some("\\u") {
                            return None;
                        }
                        let low = hex4(inner.get(at + 8..at + 12)?)?;
                        if !(0xDC00..=0xDFFF).contains(&low) {
                            return None;
                        }
                        let code = 0x10000
                            + ((u32::from(unit) - 0xD800) << 10)
                            + (u32::from(low) - 0xDC00);
                        (char::from_u32(code)?, 12)
                    }
                    // A lone low half (0xDC00..=0xDFFF) is no `char`:
                    // `from_u32` gives way to serde.
                    _ => (char::from_u32(u32::from(unit))?, 6),
                }
            }
            _ => return None,
        };
        out.push(c);
        from = at + used;
    }
    out.push_str(inner.get(from..)?);
    Some(out)
}

/// Four hex digits: `digits` is the four bytes after `\u` (the caller's
/// slice); `from_str_radix` alone would also take a sign.
fn hex4(digits: &str) -> Option<u16> {
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u16::from_str_radix(digits, 16).ok()
}

/// Deserializes a struct from named raw fields, via a JSON object built from
/// them (only the handful of inquiry fields ever goes through here).
pub(super) fn from_fields<T: for<'de> Deserialize<'de>, V: FieldValue>(
    names: &[&str],
    values: &[Option<V>],
) -> Result<T, serde_json::Error> {
    let mut obj = String::from("{");
    let mut first = true;
    for (name, v) in names.iter().zip(values) {
        if let Some(v) = v {
            if !first {
                obj.push(',');
            }
            first = false;
            obj.push('"');
            obj.push_str(name);
            obj.push_str("\":");
            obj.push_str(v.text());
        }
    }
    obj.push('}');
    serde_json::from_str(&obj)
}

/// Above this many fields, repeated names are found through a set rather
/// than by comparing with every earlier field, so an event with a huge
/// number of fields is still read in linear time.
const FIELDS_SCANNED: usize = 16;

/// Whether `key` names a field already read (rule `WIRE-EVENT-DUPLICATE`);
/// records it otherwise.
#[inline]
pub(crate) fn is_repeated<K: AsRef<str>, V>(
    fields: &[(K, V)],
    names: &mut Option<std::collections::HashSet<String>>,
    key: &str,
) -> bool {
    match names {
        Some(set) => !set.insert(key.to_owned()),
        None if fields.iter().any(|(name, _)| same_name(name.as_ref(), key)) => true,
        None => {
            if fields.len() == FIELDS_SCANNED {
                let mut set: std::collections::HashSet<String> = fields
                    .iter()
                    .map(|(name, _)| name.as_ref().to_owned())
                    .collect();
                set.insert(key.to_owned());
                *names = Some(set);
            }
            false
        }
    }
}

/// `a == b`, the length and the first byte compared before the bytes: an
/// event's field names of one length mostly differ at once (`type` and
/// `name`), so the comparison of a new name with the earlier ones seldom
/// reaches `memcmp`.
#[inline]
fn same_name(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.as_bytes().first() == b.as_bytes().first() && a == b
}

impl<'de> Deserialize<'de> for RawEvent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawEvent;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an event object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawEvent, A::Error> {
                let mut fields: Fields = Vec::new();
                let mut names = None;
                while let Some(k) = map.next_key::<String>()? {
                    // WIRE-EVENT-DUPLICATE: a field written twice is ambiguous.
                    if is_repeated(&fields, &mut names, &k) {
                        return Err(de::Error::custom(format_args!("duplicate field `{k}`")));
                    }
                    let v: Box<RawValue> = map.next_value()?;
                    // WIRE-OPAQUE-VALID: every kept field is a readable value.
                    check_raw(&v)
                        .map_err(|m| de::Error::custom(format_args!("field `{k}`: {m}")))?;
                    fields.push((k, Opaque::from_raw(v)));
                }
                Ok(RawEvent { fields })
            }
        }
        d.deserialize_map(V)
    }
}

impl Serialize for RawEvent {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.fields.len()))?;
        for (k, v) in &self.fields {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for Event {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        RawEvent::deserialize(d)?
            .into_event()
            .map_err(de::Error::custom)
    }
}

impl Serialize for Event {
    /// Writes `type`, then `timestamp`, then the kind's fields, then the
    /// extras in their read order: one canonical shape, so a second write is
    /// byte-identical to the first (rule `WIRE-STREAM-ROUNDTRIP`).
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("type", self.kind.tag())?;
        if let Some(ts) = &self.timestamp {
            m.serialize_entry("timestamp", ts)?;
        }
        match &self.kind {
            EventKind::TurnStart
            | EventKind::ChatRequest
            | EventKind::ChatResponse
            | EventKind::Other(_) => {}
            EventKind::ToolCallRequest(r) => {
                m.serialize_entry("id", &r.id)?;
                m.serialize_entry("name", &r.name)?;
                if let Some(a) = &r.arguments {
                    m.serialize_entry("arguments", a)?;
                }
            }
            EventKind::ToolCallResponse(r) => {
                m.serialize_entry("id", &r.id)?;
                if let Some(c) = &r.content {
                    m.serialize_entry("content", c)?;
                }
                if let Some(e) = &r.is_error {
                    m.serialize_entry("is_error", e)?;
                }
            }
            EventKind::InquiryRequest(r) => {
                m.serialize_entry("id", &r.id)?;
                m.serialize_entry("source", &r.source)?;
                // WIRE-NUMBER-TEXT: numbers as they were written.
                match self.question_text(&r.question) {
                    Some(text) => m.serialize_entry("question", text)?,
                    None => m.serialize_entry("question", &r.question)?,
                }
            }
            EventKind::InquiryResponse(r) => match r {
                InquiryResponse::Answered { id, answer } => {
                    m.serialize_entry("outcome", "answered")?;
                    m.serialize_entry("id", id)?;
                    // WIRE-NUMBER-TEXT: numbers as they were written.
                    match self.answer_text(answer) {
                        Some(text) => m.serialize_entry("answer", text)?,
                        None => m.serialize_entry("answer", answer)?,
                    }
                }
                InquiryResponse::Cancelled { id, reason } => {
                    m.serialize_entry("outcome", "cancelled")?;
                    m.serialize_entry("id", id)?;
                    m.serialize_entry("reason", reason)?;
                }
                InquiryResponse::Redacted { id } => {
                    m.serialize_entry("outcome", "redacted")?;
                    m.serialize_entry("id", id)?;
                }
            },
        }
        for (k, v) in &self.extra {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}
