//! An event's exact hash (rule `PERF-MEMO-EXACT-HASH`): every field of the
//! event, each string and opaque text byte for byte with its length, each
//! JSON value with its members in their order and its numbers as held,
//! each variant by its own tag, each optional field whether it is there.
//!
//! Two events whose fields are all the same write the same text (their
//! `Serialize` reads nothing else), so two events whose texts differ hash
//! differently but for a collision. The hash sees more than `Event`'s
//! equality does: the spelling of opaque values and of numbers, and the
//! order of a JSON object's members, which that equality leaves out. Every
//! struct is taken apart by name, so a field added to one must be placed
//! here before the crate builds.

use std::hash::Hasher;

use serde_json::Value;

use super::{
    CancellationReason, Event, EventKind, InquiryAnswerReusePolicy, InquiryAnswerType, InquiryId,
    InquiryQuestion, InquiryRequest, InquiryResponse, InquirySource, Opaque, SelectOption,
    ToolCallRequest, ToolCallResponse,
};

/// Feeds every field of a value to a hasher (see the module's doc).
pub(crate) trait Exact {
    /// Feeds `self` to `h`.
    fn exact<H: Hasher>(&self, h: &mut H);
}

impl Exact for str {
    fn exact<H: Hasher>(&self, h: &mut H) {
        h.write_usize(self.len());
        h.write(self.as_bytes());
    }
}

impl Exact for String {
    fn exact<H: Hasher>(&self, h: &mut H) {
        self.as_str().exact(h);
    }
}

impl Exact for bool {
    fn exact<H: Hasher>(&self, h: &mut H) {
        h.write_u8(u8::from(*self));
    }
}

impl<T: Exact> Exact for Option<T> {
    fn exact<H: Hasher>(&self, h: &mut H) {
        match self {
            None => h.write_u8(0),
            Some(v) => {
                h.write_u8(1);
                v.exact(h);
            }
        }
    }
}

impl<T: Exact> Exact for [T] {
    fn exact<H: Hasher>(&self, h: &mut H) {
        h.write_usize(self.len());
        for v in self {
            v.exact(h);
        }
    }
}

impl<A: Exact, B: Exact> Exact for (A, B) {
    fn exact<H: Hasher>(&self, h: &mut H) {
        self.0.exact(h);
        self.1.exact(h);
    }
}

impl Exact for Opaque {
    /// The text as held, spacing included.
    fn exact<H: Hasher>(&self, h: &mut H) {
        self.get().exact(h);
    }
}

impl Exact for InquiryId {
    fn exact<H: Hasher>(&self, h: &mut H) {
        self.as_str().exact(h);
    }
}

impl Exact for Value {
    /// Members in their order (the order they are written in); a number by
    /// the representation serde_json holds it in, which decides its text.
    fn exact<H: Hasher>(&self, h: &mut H) {
        match self {
            Value::Null => h.write_u8(0),
            Value::Bool(b) => {
                h.write_u8(1);
                b.exact(h);
            }
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    h.write_u8(2);
                    h.write_u64(u);
                } else if let Some(i) = n.as_i64() {
                    h.write_u8(3);
                    h.write_i64(i);
                } else {
                    h.write_u8(4);
                    h.write_u64(n.as_f64().map_or(0, f64::to_bits));
                }
            }
            Value::String(s) => {
                h.write_u8(5);
                s.exact(h);
            }
            Value::Array(items) => {
                h.write_u8(6);
                items.exact(h);
            }
            Value::Object(members) => {
                h.write_u8(7);
                h.write_usize(members.len());
                for (k, v) in members {
                    k.exact(h);
                    v.exact(h);
                }
            }
        }
    }
}

impl Exact for Event {
    fn exact<H: Hasher>(&self, h: &mut H) {
        let Event {
            timestamp,
            kind,
            extra,
            value_text,
        } = self;
        timestamp.exact(h);
        kind.exact(h);
        extra.exact(h);
        value_text.exact(h);
    }
}

impl Exact for EventKind {
    fn exact<H: Hasher>(&self, h: &mut H) {
        match self {
            EventKind::TurnStart => h.write_u8(0),
            EventKind::ChatRequest => h.write_u8(1),
            EventKind::ChatResponse => h.write_u8(2),
            EventKind::ToolCallRequest(r) => {
                h.write_u8(3);
                r.exact(h);
            }
            EventKind::ToolCallResponse(r) => {
                h.write_u8(4);
                r.exact(h);
            }
            EventKind::InquiryRequest(r) => {
                h.write_u8(5);
                r.exact(h);
            }
            EventKind::InquiryResponse(r) => {
                h.write_u8(6);
                r.exact(h);
            }
            EventKind::Other(tag) => {
                h.write_u8(7);
                tag.exact(h);
            }
        }
    }
}

impl Exact for ToolCallRequest {
    fn exact<H: Hasher>(&self, h: &mut H) {
        let ToolCallRequest {
            id,
            name,
            arguments,
        } = self;
        id.exact(h);
        name.exact(h);
        arguments.exact(h);
    }
}

impl Exact for ToolCallResponse {
    fn exact<H: Hasher>(&self, h: &mut H) {
        let ToolCallResponse {
            id,
            content,
            is_error,
        } = self;
        id.exact(h);
        content.exact(h);
        is_error.exact(h);
    }
}

impl Exact for InquiryRequest {
    fn exact<H: Hasher>(&self, h: &mut H) {
        let InquiryRequest {
            id,
            source,
            question,
        } = self;
        id.exact(h);
        source.exact(h);
        question.exact(h);
    }
}

impl Exact for InquirySource {
    fn exact<H: Hasher>(&self, h: &mut H) {
        match self {
            InquirySource::Tool { name } => {
                h.write_u8(0);
                name.exact(h);
            }
            InquirySource::Assistant => h.write_u8(1),
            InquirySource::User => h.write_u8(2),
            InquirySource::Other { name } => {
                h.write_u8(3);
                name.exact(h);
            }
        }
    }
}

impl Exact for InquiryQuestion {
    fn exact<H: Hasher>(&self, h: &mut H) {
        let InquiryQuestion {
            text,
            answer_type,
            default,
            context,
            exclusive,
            persistence,
        } = self;
        text.exact(h);
        answer_type.exact(h);
        default.exact(h);
        context.exact(h);
        exclusive.exact(h);
        persistence.exact(h);
    }
}

impl Exact for InquiryAnswerType {
    fn exact<H: Hasher>(&self, h: &mut H) {
        match self {
            InquiryAnswerType::Boolean => h.write_u8(0),
            InquiryAnswerType::Select { options } => {
                h.write_u8(1);
                options.exact(h);
            }
            InquiryAnswerType::Text => h.write_u8(2),
            InquiryAnswerType::Secret => h.write_u8(3),
        }
    }
}

impl Exact for SelectOption {
    fn exact<H: Hasher>(&self, h: &mut H) {
        let SelectOption {
            value,
            description,
            written,
        } = self;
        value.exact(h);
        description.exact(h);
        written.exact(h);
    }
}

impl Exact for InquiryAnswerReusePolicy {
    fn exact<H: Hasher>(&self, h: &mut H) {
        match self {
            InquiryAnswerReusePolicy::None => h.write_u8(0),
            InquiryAnswerReusePolicy::Turn => h.write_u8(1),
        }
    }
}

impl Exact for InquiryResponse {
    fn exact<H: Hasher>(&self, h: &mut H) {
        match self {
            InquiryResponse::Answered { id, answer } => {
                h.write_u8(0);
                id.exact(h);
                answer.exact(h);
            }
            InquiryResponse::Cancelled { id, reason } => {
                h.write_u8(1);
                id.exact(h);
                reason.exact(h);
            }
            InquiryResponse::Redacted { id } => {
                h.write_u8(2);
                id.exact(h);
            }
        }
    }
}

impl Exact for CancellationReason {
    fn exact<H: Hasher>(&self, h: &mut H) {
        match self {
            CancellationReason::User => h.write_u8(0),
            CancellationReason::BackendError => h.write_u8(1),
            CancellationReason::NoPromptBackend => h.write_u8(2),
            CancellationReason::AssistantRoutingDenied => h.write_u8(3),
            CancellationReason::InvalidStaticAnswer => h.write_u8(4),
            CancellationReason::Unknown(tag) => {
                h.write_u8(5);
                tag.exact(h);
            }
        }
    }
}
