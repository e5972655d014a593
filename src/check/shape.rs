//! What an event shows on disk, beyond what its typed value keeps.
//!
//! The typed [`Event`] rightly forgets some on-disk facts: whether a response
//! was written tagged (`outcome`) or in the legacy flat form, whether a
//! `redacted` or `cancelled` response carried a stray `answer`, and whether a
//! question spelled out RFD 083's fields even at their defaults. The oracle
//! judges writers, so it needs those facts; [`Shape::of_raw`] reads them from
//! the [`RawEvent`] before it is typed. [`Shape::of_event`] gives the shape a
//! typed event is written with, for judging the model's own traces.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};

use super::Profile;
use crate::wire::{
    CancellationReason, Event, EventKind, InquiryAnswerReusePolicy, InquiryAnswerType,
    InquiryResponse, RawEvent, json_string,
};

/// The RFD 083 question fields ("Propagating to the persisted shape"), in the
/// order [`Shape::question_083`] reports them.
pub const QUESTION_083_FIELDS: [&str; 3] = ["context", "exclusive", "persistence"];

/// Which of [`QUESTION_083_FIELDS`] a question object names, read without
/// building its values (a question that is not an object names none).
struct Present083([bool; 3]);

impl<'de> Deserialize<'de> for Present083 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Present083;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a question object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Present083, A::Error> {
                let mut present = [false; 3];
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    if let Some(k) = QUESTION_083_FIELDS.iter().position(|f| *f == key) {
                        present[k] = true;
                    }
                    map.next_value::<IgnoredAny>()?;
                }
                Ok(Present083(present))
            }
        }
        d.deserialize_map(V)
    }
}

/// The on-disk facts of one event that the typed value does not keep.
///
/// Every field is `false` for events that are not inquiry events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Shape {
    /// `inquiry_response` only: written with an `outcome` tag (RFD 082), as
    /// opposed to the legacy flat `{id, answer}`.
    pub tagged: bool,
    /// `inquiry_response` only: an `answer` field is present on disk, whatever
    /// the outcome.
    pub answer_on_disk: bool,
    /// `inquiry_request` only: which of [`QUESTION_083_FIELDS`] the question
    /// writes, by position.
    pub question_083: [bool; 3],
}

impl Shape {
    /// Reads the shape from the raw fields, as written.
    pub fn of_raw(raw: &RawEvent) -> Shape {
        Shape::of_texts(|name: &str| raw.field(name).map(|v| v.get()))
    }

    /// Reads the shape from the text of each field, looked up by name.
    pub(crate) fn of_texts<'a>(field: impl Fn(&str) -> Option<&'a str>) -> Shape {
        let tag = field("type").and_then(json_string);
        match tag.as_deref() {
            Some("inquiry_response") => Shape {
                tagged: field("outcome").is_some(),
                answer_on_disk: field("answer").is_some(),
                question_083: [false; 3],
            },
            Some("inquiry_request") => {
                // A question that is not an object fails typing right after;
                // its shape does not matter then.
                let present = field("question")
                    .and_then(|q| serde_json::from_str::<Present083>(q).ok())
                    .map_or([false; 3], |p| p.0);
                Shape {
                    tagged: false,
                    answer_on_disk: false,
                    question_083: present,
                }
            }
            _ => Shape::default(),
        }
    }

    /// The shape `event` is written with by this crate's writer
    /// ([`Event`]'s `Serialize`): responses tagged, an `answer` only on
    /// `answered`, RFD 083 fields only when they differ from their defaults.
    pub fn of_event(event: &Event) -> Shape {
        match &event.kind {
            EventKind::InquiryResponse(r) => Shape {
                tagged: true,
                answer_on_disk: match r {
                    InquiryResponse::Answered { .. } => true,
                    InquiryResponse::Cancelled { .. } | InquiryResponse::Redacted { .. } => false,
                },
                question_083: [false; 3],
            },
            EventKind::InquiryRequest(r) => Shape {
                tagged: false,
                answer_on_disk: false,
                question_083: [
                    r.question.context.is_some(),
                    r.question.exclusive,
                    match r.question.persistence {
                        InquiryAnswerReusePolicy::None => true,
                        InquiryAnswerReusePolicy::Turn => false,
                    },
                ],
            },
            EventKind::TurnStart
            | EventKind::ChatRequest
            | EventKind::ChatResponse
            | EventKind::ToolCallRequest(_)
            | EventKind::ToolCallResponse(_)
            | EventKind::Other(_) => Shape::default(),
        }
    }

    /// The RFD 083 question fields this event writes, by name.
    pub fn question_083_fields(&self) -> impl Iterator<Item = &'static str> + '_ {
        QUESTION_083_FIELDS
            .iter()
            .zip(self.question_083)
            .filter_map(|(name, present)| present.then_some(*name))
    }

    /// What this event proves about the writer's RFD stage, if anything
    /// (the auto profile, decision "Oracle checks: auto profile per turn"):
    ///
    /// - a legacy flat response: exactly `Legacy` (an RFD 082 writer always
    ///   tags, RFD 082 "`InquiryResponse` serialization");
    /// - a tagged `cancelled` or `redacted` response or a `secret` answer
    ///   type: at least `Rfd082` (shapes only an RFD 082 writer records; a
    ///   tagged `answered` proves nothing, since an RFD 082 writer re-saves
    ///   legacy answers tagged);
    /// - an RFD 083 question field or `invalid_static_answer`: at least
    ///   `Rfd083` (RFD 083 "Persisted recording").
    ///
    /// Every other event proves nothing here; the checker adds what the
    /// request IDs show (decision "Oracle checks: a turn's writer is read
    /// from its request IDs").
    pub fn evidence(&self, event: &Event) -> Option<Profile> {
        match &event.kind {
            EventKind::InquiryRequest(r) => {
                if self.question_083.iter().any(|present| *present) {
                    return Some(Profile::Rfd083);
                }
                match r.question.answer_type {
                    InquiryAnswerType::Secret => Some(Profile::Rfd082),
                    InquiryAnswerType::Boolean
                    | InquiryAnswerType::Select { .. }
                    | InquiryAnswerType::Text => None,
                }
            }
            EventKind::InquiryResponse(r) => {
                if !self.tagged {
                    return Some(Profile::Legacy);
                }
                match r {
                    InquiryResponse::Cancelled {
                        reason: CancellationReason::InvalidStaticAnswer,
                        ..
                    } => Some(Profile::Rfd083),
                    InquiryResponse::Cancelled {
                        reason:
                            CancellationReason::User
                            | CancellationReason::BackendError
                            | CancellationReason::NoPromptBackend
                            | CancellationReason::AssistantRoutingDenied
                            | CancellationReason::Unknown(_),
                        ..
                    }
                    | InquiryResponse::Redacted { .. } => Some(Profile::Rfd082),
                    // An RFD 082 writer re-saves a legacy answer tagged (it
                    // rewrites the whole file; "every new write produces the
                    // tagged form"): a tagged answer shows who saved the
                    // file, not who recorded the turn.
                    InquiryResponse::Answered { .. } => None,
                }
            }
            EventKind::TurnStart
            | EventKind::ChatRequest
            | EventKind::ChatResponse
            | EventKind::ToolCallRequest(_)
            | EventKind::ToolCallResponse(_)
            | EventKind::Other(_) => None,
        }
    }
}
