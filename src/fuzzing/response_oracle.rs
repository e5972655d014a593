//! An independent reading of RFD 082 "`InquiryResponse` serialization", for
//! the differential fuzz target (rule `FUZZ-RESPONSE-DIFFERENTIAL`).
//!
//! [`decide`] is written from the RFD's text over `serde_json::Value`, not
//! from `crate::wire`: the typed reader is what it checks. Where the RFD is
//! silent the oracle takes the decisions recorded in `docs/decisions/fuzzing.md`
//! ("Fuzzing: the independent `InquiryResponse` decision"):
//!
//! - a response is a JSON object; any other JSON value is rejected;
//! - a field of the response (`id`, `outcome`, `answer`, `reason`) written
//!   twice is rejected; any other field is ignored, whatever it holds and
//!   however often it is written;
//! - `outcome`, when present, is a string; `reason`, when present, is a
//!   string (RFD: "The on-disk shape is always `{"reason": "<tag>"}`") on
//!   every outcome; a present `null` reads as absent (decision "Wire: a
//!   null reason or outcome reads as absent": `{"outcome": null, "answer":
//!   …}` is the legacy form, `{"outcome": "cancelled", "reason": null}` is
//!   reason `user`).
//!
//! [`compare`] sets the typed reader's result against the decision.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::wire::{CancellationReason, InquiryResponse};

/// The cancellation tags the RFDs name: RFD 082's four
/// (`CancellationReason` "round-trips as") and RFD 083's
/// `invalid_static_answer`. Any other string is a tag from a newer writer.
pub(crate) const RFD_REASON_TAGS: [&str; 5] = [
    "user",
    "backend_error",
    "no_prompt_backend",
    "assistant_routing_denied",
    "invalid_static_answer",
];

/// What the RFD says an accepted response is, in the oracle's own terms.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Expected {
    /// `Answered { id, answer }`.
    Answered {
        /// The ID as written.
        id: String,
        /// The answer, `null` included.
        answer: Value,
    },
    /// `Cancelled { id, reason }`.
    Cancelled {
        /// The ID as written.
        id: String,
        /// The reason tag (`user` when the field is missing).
        reason: String,
        /// Whether the tag is one the RFDs name (else it is `Unknown`).
        known: bool,
    },
    /// `Redacted { id }`.
    Redacted {
        /// The ID as written.
        id: String,
    },
}

impl Expected {
    /// The typed reader's value, projected into the oracle's terms.
    pub(crate) fn of(r: &InquiryResponse) -> Self {
        match r {
            InquiryResponse::Answered { id, answer } => Expected::Answered {
                id: id.as_str().to_owned(),
                answer: answer.clone(),
            },
            InquiryResponse::Cancelled { id, reason } => Expected::Cancelled {
                id: id.as_str().to_owned(),
                reason: reason.as_str().to_owned(),
                known: match reason {
                    CancellationReason::Unknown(_) => false,
                    CancellationReason::User
                    | CancellationReason::BackendError
                    | CancellationReason::NoPromptBackend
                    | CancellationReason::AssistantRoutingDenied
                    | CancellationReason::InvalidStaticAnswer => true,
                },
            },
            InquiryResponse::Redacted { id } => Expected::Redacted {
                id: id.as_str().to_owned(),
            },
        }
    }
}

/// Why the oracle rejects an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Rejection {
    /// Not one JSON text, or a response field a `Value` cannot hold.
    NotJson,
    /// A JSON value other than an object.
    NotObject,
    /// `id`, `outcome`, `answer` or `reason` written twice.
    DuplicateField,
    /// No `id`.
    MissingId,
    /// An `id` that is not a string (`InquiryId` is a string).
    IdNotString,
    /// An `outcome` that is not a string.
    OutcomeNotString,
    /// An `outcome` other than `answered`, `cancelled`, `redacted`.
    UnknownOutcome,
    /// `outcome: answered` without `answer`.
    AnsweredWithoutAnswer,
    /// "The absence of `outcome`, `answer`, and a `Redacted`-shaped payload
    /// is a deserialization error."
    NeitherOutcomeNorAnswer,
    /// A `reason` that is not a string.
    ReasonNotString,
}

/// The oracle's verdict.
pub(crate) type Decision = Result<Expected, Rejection>;

/// The top level of a JSON text as the oracle reads it: an object's fields
/// in written order (duplicates kept), the response's own fields as
/// `Value`s and every other field skipped; or the fact that it is some
/// other JSON value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Top {
    /// A JSON object.
    Object(Vec<(String, Option<Value>)>),
    /// Any other JSON value.
    Other,
}

/// The four fields a response defines.
const RESPONSE_FIELDS: [&str; 4] = ["id", "outcome", "answer", "reason"];

impl<'de> Deserialize<'de> for Top {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Top;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Top, E> {
                Ok(Top::Other)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Top, E> {
                Ok(Top::Other)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Top, E> {
                Ok(Top::Other)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Top, E> {
                Ok(Top::Other)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Top, E> {
                Ok(Top::Other)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Top, E> {
                Ok(Top::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Top, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Top::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Top, A::Error> {
                let mut fields = Vec::new();
                while let Some(k) = map.next_key::<String>()? {
                    if RESPONSE_FIELDS.contains(&k.as_str()) {
                        let v: Value = map.next_value()?;
                        fields.push((k, Some(v)));
                    } else {
                        map.next_value::<IgnoredAny>()?;
                        fields.push((k, None));
                    }
                }
                Ok(Top::Object(fields))
            }
        }
        d.deserialize_any(V)
    }
}

/// Reads the top level of `bytes`, or `None` if they are not one JSON text.
pub(crate) fn top(bytes: &[u8]) -> Option<Top> {
    serde_json::from_slice(bytes).ok()
}

/// The RFD's decision on raw bytes.
pub(crate) fn decide(bytes: &[u8]) -> Decision {
    match top(bytes) {
        None => Err(Rejection::NotJson),
        Some(t) => decide_top(&t),
    }
}

/// The RFD's decision on a parsed top level.
pub(crate) fn decide_top(top: &Top) -> Decision {
    let fields = match top {
        Top::Object(fields) => fields,
        Top::Other => return Err(Rejection::NotObject),
    };
    let mut slots: [Option<&Value>; 4] = [None; 4];
    for (k, v) in fields {
        let (Some(i), Some(v)) = (RESPONSE_FIELDS.iter().position(|f| f == k), v) else {
            continue;
        };
        if slots[i].replace(v).is_some() {
            return Err(Rejection::DuplicateField);
        }
    }
    let [id, outcome, answer, reason] = slots;
    let id = match id {
        None => return Err(Rejection::MissingId),
        Some(Value::String(s)) => s.clone(),
        Some(_) => return Err(Rejection::IdNotString),
    };
    // Decision "Wire: a null reason or outcome reads as absent": a `null`
    // is read as the field not written (RFD 082 defines both absences).
    let reason = match reason {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.as_str()),
        Some(_) => return Err(Rejection::ReasonNotString),
    };
    let outcome = outcome.filter(|o| !o.is_null());
    match outcome {
        // "Legacy events without an `outcome` field deserialize as
        // `InquiryResponse::Answered`."
        None => match answer {
            Some(a) => Ok(Expected::Answered {
                id,
                answer: a.clone(),
            }),
            None => Err(Rejection::NeitherOutcomeNorAnswer),
        },
        Some(Value::String(o)) => match o.as_str() {
            "answered" => match answer {
                Some(a) => Ok(Expected::Answered {
                    id,
                    answer: a.clone(),
                }),
                None => Err(Rejection::AnsweredWithoutAnswer),
            },
            // "When `outcome == "cancelled"` is present but the `reason`
            // field is missing, the custom `Deserialize` defaults the reason
            // to `CancellationReason::User`."
            "cancelled" => {
                let reason = reason.unwrap_or("user");
                Ok(Expected::Cancelled {
                    id,
                    known: RFD_REASON_TAGS.contains(&reason),
                    reason: reason.to_owned(),
                })
            }
            // "`Redacted` carries only `id`": an answer on disk is dropped.
            "redacted" => Ok(Expected::Redacted { id }),
            _ => Err(Rejection::UnknownOutcome),
        },
        Some(_) => Err(Rejection::OutcomeNotString),
    }
}

/// The typed reader and the oracle disagree.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Disagreement {
    /// What the typed reader gave (its error as text).
    pub(crate) typed: Result<Expected, String>,
    /// What the oracle decided.
    pub(crate) oracle: Decision,
}

impl fmt::Display for Disagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "typed reader: {:?}; RFD 082 oracle: {:?}",
            self.typed, self.oracle
        )
    }
}

/// Agreement on accept/reject and, when both accept, on the value.
pub(crate) fn compare(
    typed: &Result<InquiryResponse, serde_json::Error>,
    oracle: &Decision,
) -> Result<(), Box<Disagreement>> {
    let agree = match (typed, oracle) {
        (Ok(r), Ok(e)) => Expected::of(r) == *e,
        (Err(_), Err(_)) => true,
        (Ok(_), Err(_)) | (Err(_), Ok(_)) => false,
    };
    if agree {
        return Ok(());
    }
    Err(Box::new(Disagreement {
        typed: typed.as_ref().map(Expected::of).map_err(|e| e.to_string()),
        oracle: oracle.clone(),
    }))
}
