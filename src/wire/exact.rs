//! An event compared exactly, and its memo key (rule
//! `PERF-MEMO-SAME-EXACTLY`).
//!
//! [`Exact::same`] compares every field of two events: each string and
//! opaque text byte for byte, each JSON value with its members in their
//! order and its numbers as held, each variant by its own tag, each
//! optional field whether it is there. Two events whose fields are all the
//! same write the same text (their `Serialize` reads nothing else), so a
//! memo hit confirmed by it stands for the same persisted text. It sees
//! more than `Event`'s equality does: the spelling of opaque values and of
//! numbers, and the order of a JSON object's members, which that equality
//! leaves out. Every struct is taken apart by name, so a field added to one
//! must be placed here before the crate builds.
//!
//! [`key`] feeds a hasher the fields that tell apart the streams a run
//! writes (the kind, the IDs and names, a call's arguments, a question's
//! text and small tags, an answer's value, a tool response's content) and
//! leaves out the rest (timestamps, extra fields, a question's default,
//! context and options beyond their presence and count, a kept number's
//! text): it only decides which remembered events are compared, and
//! costs a fraction of hashing every field.

use std::hash::Hasher;

use serde_json::{Number, Value};

use super::{
    CancellationReason, Event, EventKind, InquiryAnswerReusePolicy, InquiryAnswerType, InquiryId,
    InquiryQuestion, InquiryRequest, InquiryResponse, InquirySource, Opaque, SelectOption,
    ToolCallRequest, ToolCallResponse,
};

/// Compares every field of two values (see the module's doc).
pub(crate) trait Exact {
    /// Whether `self` and `other` are the same in every field, as written.
    fn same(&self, other: &Self) -> bool;
}

/// Byte-for-byte equality, strings of up to 16 bytes compared inline in
/// two overlapping loads from each end (the IDs, names and tags a stream
/// is mostly made of), longer ones by `memcmp`: a call costs more than the
/// comparison of a short string.
#[inline]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let eight = |s: &[u8], i: usize| s[i..i + 8].try_into().map(u64::from_ne_bytes).ok();
    let four = |s: &[u8], i: usize| s[i..i + 4].try_into().map(u32::from_ne_bytes).ok();
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => four(a, 0) == four(b, 0) && four(a, n - 4) == four(b, n - 4),
        8..=16 => eight(a, 0) == eight(b, 0) && eight(a, n - 8) == eight(b, n - 8),
        _ => a == b,
    }
}

impl Exact for str {
    fn same(&self, other: &Self) -> bool {
        same_bytes(self.as_bytes(), other.as_bytes())
    }
}

impl Exact for String {
    fn same(&self, other: &Self) -> bool {
        self.as_str().same(other.as_str())
    }
}

/// A borrowed value is compared as what it borrows: the invariants compare
/// IDs and names read in place (`Option<&str>`, `Option<&InquiryId>`).
impl<T: Exact + ?Sized> Exact for &T {
    fn same(&self, other: &Self) -> bool {
        (**self).same(&**other)
    }
}

impl Exact for bool {
    fn same(&self, other: &Self) -> bool {
        self == other
    }
}

impl<T: Exact> Exact for Option<T> {
    fn same(&self, other: &Self) -> bool {
        match (self, other) {
            (None, None) => true,
            (Some(a), Some(b)) => a.same(b),
            (None, Some(_)) | (Some(_), None) => false,
        }
    }
}

impl<T: Exact> Exact for [T] {
    fn same(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, b)| a.same(b))
    }
}

impl<T: Exact> Exact for Vec<T> {
    fn same(&self, other: &Self) -> bool {
        self.as_slice().same(other.as_slice())
    }
}

impl<T: Exact> Exact for Box<T> {
    fn same(&self, other: &Self) -> bool {
        (**self).same(&**other)
    }
}

impl<A: Exact, B: Exact> Exact for (A, B) {
    fn same(&self, other: &Self) -> bool {
        self.0.same(&other.0) && self.1.same(&other.1)
    }
}

impl Exact for Opaque {
    /// The text as held, spacing included.
    fn same(&self, other: &Self) -> bool {
        same_bytes(self.get().as_bytes(), other.get().as_bytes())
    }
}

impl Exact for InquiryId {
    fn same(&self, other: &Self) -> bool {
        same_bytes(self.as_str().as_bytes(), other.as_str().as_bytes())
    }
}

/// A number as serde_json holds it, which decides its text: an unsigned or
/// a signed 64-bit integer, or a float by its bits.
fn held(n: &Number) -> (u8, u64) {
    if let Some(u) = n.as_u64() {
        (0, u)
    } else if let Some(i) = n.as_i64() {
        (1, i as u64)
    } else {
        (2, n.as_f64().map_or(0, f64::to_bits))
    }
}

impl Exact for Value {
    /// Members in their order (the order they are written in); a number by
    /// the representation serde_json holds it in.
    fn same(&self, other: &Self) -> bool {
        match (self, other) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Number(a), Value::Number(b)) => held(a) == held(b),
            (Value::String(a), Value::String(b)) => a.same(b),
            (Value::Array(a), Value::Array(b)) => a.same(b),
            (Value::Object(a), Value::Object(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b)
                        .all(|((ka, va), (kb, vb))| ka.same(kb) && va.same(vb))
            }
            (
                Value::Null
                | Value::Bool(_)
                | Value::Number(_)
                | Value::String(_)
                | Value::Array(_)
                | Value::Object(_),
                _,
            ) => false,
        }
    }
}

impl Exact for Event {
    fn same(&self, other: &Self) -> bool {
        let Event {
            timestamp,
            kind,
            extra,
            value_text,
        } = self;
        timestamp.same(&other.timestamp)
            && kind.same(&other.kind)
            && extra.same(&other.extra)
            && value_text.same(&other.value_text)
    }
}

impl Exact for EventKind {
    fn same(&self, other: &Self) -> bool {
        match (self, other) {
            (EventKind::TurnStart, EventKind::TurnStart)
            | (EventKind::ChatRequest, EventKind::ChatRequest)
            | (EventKind::ChatResponse, EventKind::ChatResponse) => true,
            (EventKind::ToolCallRequest(a), EventKind::ToolCallRequest(b)) => a.same(b),
            (EventKind::ToolCallResponse(a), EventKind::ToolCallResponse(b)) => a.same(b),
            (EventKind::InquiryRequest(a), EventKind::InquiryRequest(b)) => a.same(b),
            (EventKind::InquiryResponse(a), EventKind::InquiryResponse(b)) => a.same(b),
            (EventKind::Other(a), EventKind::Other(b)) => a.same(b),
            (
                EventKind::TurnStart
                | EventKind::ChatRequest
                | EventKind::ChatResponse
                | EventKind::ToolCallRequest(_)
                | EventKind::ToolCallResponse(_)
                | EventKind::InquiryRequest(_)
                | EventKind::InquiryResponse(_)
                | EventKind::Other(_),
                _,
            ) => false,
        }
    }
}

impl Exact for ToolCallRequest {
    fn same(&self, other: &Self) -> bool {
        let ToolCallRequest {
            id,
            name,
            arguments,
        } = self;
        id.same(&other.id) && name.same(&other.name) && arguments.same(&other.arguments)
    }
}

impl Exact for ToolCallResponse {
    fn same(&self, other: &Self) -> bool {
        let ToolCallResponse {
            id,
            content,
            is_error,
        } = self;
        id.same(&other.id) && content.same(&other.content) && is_error.same(&other.is_error)
    }
}

impl Exact for InquiryRequest {
    fn same(&self, other: &Self) -> bool {
        let InquiryRequest {
            id,
            source,
            question,
        } = self;
        id.same(&other.id) && source.same(&other.source) && question.same(&other.question)
    }
}

impl Exact for InquirySource {
    fn same(&self, other: &Self) -> bool {
        match (self, other) {
            (InquirySource::Tool { name: a }, InquirySource::Tool { name: b })
            | (InquirySource::Other { name: a }, InquirySource::Other { name: b }) => a.same(b),
            (InquirySource::Assistant, InquirySource::Assistant)
            | (InquirySource::User, InquirySource::User) => true,
            (
                InquirySource::Tool { .. }
                | InquirySource::Assistant
                | InquirySource::User
                | InquirySource::Other { .. },
                _,
            ) => false,
        }
    }
}

impl Exact for InquiryQuestion {
    fn same(&self, other: &Self) -> bool {
        let InquiryQuestion {
            text,
            answer_type,
            default,
            context,
            exclusive,
            persistence,
        } = self;
        text.same(&other.text)
            && answer_type.same(&other.answer_type)
            && default.same(&other.default)
            && context.same(&other.context)
            && exclusive.same(&other.exclusive)
            && persistence.same(&other.persistence)
    }
}

impl Exact for InquiryAnswerType {
    fn same(&self, other: &Self) -> bool {
        match (self, other) {
            (InquiryAnswerType::Boolean, InquiryAnswerType::Boolean)
            | (InquiryAnswerType::Text, InquiryAnswerType::Text)
            | (InquiryAnswerType::Secret, InquiryAnswerType::Secret) => true,
            (
                InquiryAnswerType::Select { options: a },
                InquiryAnswerType::Select { options: b },
            ) => a.same(b),
            (
                InquiryAnswerType::Boolean
                | InquiryAnswerType::Select { .. }
                | InquiryAnswerType::Text
                | InquiryAnswerType::Secret,
                _,
            ) => false,
        }
    }
}

impl Exact for SelectOption {
    fn same(&self, other: &Self) -> bool {
        let SelectOption {
            value,
            description,
            written,
        } = self;
        value.same(&other.value)
            && description.same(&other.description)
            && written.same(&other.written)
    }
}

impl Exact for InquiryAnswerReusePolicy {
    fn same(&self, other: &Self) -> bool {
        match (self, other) {
            (InquiryAnswerReusePolicy::None, InquiryAnswerReusePolicy::None)
            | (InquiryAnswerReusePolicy::Turn, InquiryAnswerReusePolicy::Turn) => true,
            (InquiryAnswerReusePolicy::None | InquiryAnswerReusePolicy::Turn, _) => false,
        }
    }
}

impl Exact for InquiryResponse {
    fn same(&self, other: &Self) -> bool {
        match (self, other) {
            (
                InquiryResponse::Answered { id, answer },
                InquiryResponse::Answered {
                    id: id2,
                    answer: answer2,
                },
            ) => id.same(id2) && answer.same(answer2),
            (
                InquiryResponse::Cancelled { id, reason },
                InquiryResponse::Cancelled {
                    id: id2,
                    reason: reason2,
                },
            ) => id.same(id2) && reason.same(reason2),
            (InquiryResponse::Redacted { id }, InquiryResponse::Redacted { id: id2 }) => {
                id.same(id2)
            }
            (
                InquiryResponse::Answered { .. }
                | InquiryResponse::Cancelled { .. }
                | InquiryResponse::Redacted { .. },
                _,
            ) => false,
        }
    }
}

impl Exact for CancellationReason {
    fn same(&self, other: &Self) -> bool {
        match (self, other) {
            (CancellationReason::User, CancellationReason::User)
            | (CancellationReason::BackendError, CancellationReason::BackendError)
            | (CancellationReason::NoPromptBackend, CancellationReason::NoPromptBackend)
            | (
                CancellationReason::AssistantRoutingDenied,
                CancellationReason::AssistantRoutingDenied,
            )
            | (CancellationReason::InvalidStaticAnswer, CancellationReason::InvalidStaticAnswer) => {
                true
            }
            (CancellationReason::Unknown(a), CancellationReason::Unknown(b)) => a.same(b),
            (
                CancellationReason::User
                | CancellationReason::BackendError
                | CancellationReason::NoPromptBackend
                | CancellationReason::AssistantRoutingDenied
                | CancellationReason::InvalidStaticAnswer
                | CancellationReason::Unknown(_),
                _,
            ) => false,
        }
    }
}

/// Feeds `h` an event's memo key: the fields that tell explored streams
/// apart (see the module's doc). Events that are [`Exact::same`] have the
/// same key; events with the same key need not be the same.
pub(crate) fn key<H: Hasher>(event: &Event, h: &mut H) {
    match &event.kind {
        EventKind::TurnStart => h.write_u8(0),
        EventKind::ChatRequest => h.write_u8(1),
        EventKind::ChatResponse => h.write_u8(2),
        EventKind::ToolCallRequest(r) => {
            h.write_u8(3);
            h.write(r.id.as_bytes());
            h.write(r.name.as_bytes());
            h.write(r.arguments.as_ref().map_or("", Opaque::get).as_bytes());
        }
        EventKind::ToolCallResponse(r) => {
            h.write_u8(4);
            h.write(r.id.as_bytes());
            h.write(r.content.as_ref().map_or("", Opaque::get).as_bytes());
        }
        EventKind::InquiryRequest(r) => {
            let q = &r.question;
            let source = match &r.source {
                InquirySource::Tool { .. } => 0u64,
                InquirySource::Assistant => 1,
                InquirySource::User => 2,
                InquirySource::Other { .. } => 3,
            };
            let answer_type = match &q.answer_type {
                InquiryAnswerType::Boolean => 0u64,
                InquiryAnswerType::Text => 1,
                InquiryAnswerType::Secret => 2,
                InquiryAnswerType::Select { options } => 3 + options.len() as u64,
            };
            let persistence = match q.persistence {
                InquiryAnswerReusePolicy::None => 0u64,
                InquiryAnswerReusePolicy::Turn => 1,
            };
            // The small tags in one word, each in its own byte (a select's
            // option count from the third byte up).
            h.write_u64(
                5 | source << 8
                    | persistence << 16
                    | u64::from(q.exclusive) << 24
                    | u64::from(q.default.is_some()) << 32
                    | u64::from(q.context.is_some()) << 40
                    | answer_type << 48,
            );
            h.write(r.id.as_str().as_bytes());
            h.write(q.text.as_bytes());
        }
        EventKind::InquiryResponse(r) => match r {
            InquiryResponse::Answered { id, answer } => {
                h.write_u8(6);
                h.write(id.as_str().as_bytes());
                value_key(answer, h);
            }
            InquiryResponse::Cancelled { id, .. } => {
                h.write_u8(7);
                h.write(id.as_str().as_bytes());
            }
            InquiryResponse::Redacted { id } => {
                h.write_u8(8);
                h.write(id.as_str().as_bytes());
            }
        },
        EventKind::Other(tag) => {
            h.write_u8(9);
            h.write(tag.as_bytes());
        }
    }
}

/// Feeds `h` a JSON value's kind and, for a scalar, what it holds (an
/// array's or object's length only).
fn value_key<H: Hasher>(v: &Value, h: &mut H) {
    match v {
        Value::Null => h.write_u8(0),
        Value::Bool(b) => h.write_u8(1 + u8::from(*b)),
        Value::Number(n) => {
            let (kind, bits) = held(n);
            h.write_u8(3 + kind);
            h.write_u64(bits);
        }
        Value::String(s) => {
            h.write_u8(6);
            h.write(s.as_bytes());
        }
        Value::Array(items) => {
            h.write_u8(7);
            h.write_usize(items.len());
        }
        Value::Object(members) => {
            h.write_u8(8);
            h.write_usize(members.len());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::same_bytes;
    use proptest::prelude::*;

    proptest! {
        /// Rule: PERF-MEMO-SAME-EXACTLY — invariant: strings compared inline
        /// (up to 16 bytes, in overlapping loads) or by `memcmp` are the
        /// same exactly when their bytes are: for every length from 0 to
        /// 24, a string against itself copied, against a copy with any one
        /// byte changed, and against one a byte longer or shorter.
        #[test]
        fn short_and_long_strings_are_the_same_exactly_when_their_bytes_are(
            a in proptest::collection::vec(any::<u8>(), 0..25),
            at in any::<prop::sample::Index>(),
            flip in 1..=255u8,
        ) {
            let copy = a.clone();
            prop_assert!(same_bytes(&a, &copy));
            if !a.is_empty() {
                let mut changed = a.clone();
                changed[at.index(a.len())] ^= flip;
                prop_assert!(!same_bytes(&a, &changed));
                prop_assert!(!same_bytes(&changed, &a));
                prop_assert!(!same_bytes(&a, &a[..a.len() - 1]));
            }
            let mut longer = a.clone();
            longer.push(flip);
            prop_assert!(!same_bytes(&a, &longer));
        }
    }
}
