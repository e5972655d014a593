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
use crate::predicates;
use crate::profile::{RecordScope, ResponseForm};
use crate::wire::{
    Event, EventKind, InquiryAnswerReusePolicy, InquiryAnswerType, InquiryResponse, RawEvent,
    json_string,
};

/// The RFD 083 question fields ("Propagating to the persisted shape"), in the
/// order [`Shape::question_083`] reports them.
pub(crate) const QUESTION_083_FIELDS: [&str; 3] = ["context", "exclusive", "persistence"];

/// Which of [`QUESTION_083_FIELDS`] a question object names, and whether
/// each is written at its default (`context: null`, `exclusive: false`,
/// `persistence: "turn"`), and whether it names `answer`; read without
/// building the other values (a question that is not an object names none).
#[derive(Debug, PartialEq)]
pub(crate) struct Present083 {
    present: [bool; 3],
    at_default: [bool; 3],
    answer: bool,
}

impl<'de> Deserialize<'de> for Present083 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Present083;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a question object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Present083, A::Error> {
                let mut out = Present083 {
                    present: [false; 3],
                    at_default: [false; 3],
                    answer: false,
                };
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    match QUESTION_083_FIELDS.iter().position(|f| *f == key) {
                        Some(k) => {
                            let v = map.next_value::<serde_json::Value>()?;
                            out.present[k] = true;
                            out.at_default[k] = match k {
                                0 => v.is_null(),
                                1 => v == serde_json::Value::Bool(false),
                                _ => v == serde_json::Value::String("turn".to_owned()),
                            };
                        }
                        None => {
                            out.answer |= key == "answer";
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(out)
            }
        }
        d.deserialize_map(V)
    }
}

impl Present083 {
    /// Read from the question's members as the reader's single pass splits
    /// them (no value built), or through serde where that pass gives way (a
    /// repeated member, deep nesting, not an object): the same facts either
    /// way (`present_083_agrees_with_serde`).
    pub(crate) fn of_text(text: &str) -> Option<Present083> {
        let Some(members) = crate::wire::object_members(text) else {
            return serde_json::from_str(text).ok();
        };
        Some(Present083::of_members(&members))
    }

    /// Read from the question's members as the reader's single pass splits
    /// them (what [`Present083::of_text`] reads once it has split them).
    pub(crate) fn of_members(members: &[(Cow<'_, str>, &str)]) -> Present083 {
        let mut out = Present083 {
            present: [false; 3],
            at_default: [false; 3],
            answer: false,
        };
        for (key, v) in members {
            match QUESTION_083_FIELDS.iter().position(|f| *f == key.as_ref()) {
                Some(k) => {
                    out.present[k] = true;
                    out.at_default[k] = match k {
                        0 => *v == "null",
                        1 => *v == "false",
                        _ => json_string(v).is_some_and(|s| s == "turn"),
                    };
                }
                None => out.answer |= key.as_ref() == "answer",
            }
        }
        out
    }
}

/// The fields an RFD 082 writer writes on an `inquiry_response` (RFD 082
/// "`InquiryResponse` serialization"), besides the event envelope.
const RESPONSE_FIELDS: [&str; 6] = ["type", "timestamp", "outcome", "id", "answer", "reason"];

/// Whether an `inquiry_response`'s field names include one outside
/// [`RESPONSE_FIELDS`] (`Shape::extra_on_response`, read from text or from
/// a typed event's kept extra fields alike).
fn names_a_field_no_writer_writes<'a>(mut names: impl Iterator<Item = &'a str>) -> bool {
    names.any(|n| !RESPONSE_FIELDS.contains(&n))
}

/// The on-disk facts of one event that the typed value does not keep.
///
/// Every field is `false` for events that are not inquiry events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Shape {
    /// `inquiry_response` only: written with an `outcome` tag (RFD 082), as
    /// opposed to the legacy flat `{id, answer}`.
    pub(crate) tagged: bool,
    /// `inquiry_response` only: an `answer` field is present on disk, whatever
    /// the outcome.
    pub(crate) answer_on_disk: bool,
    /// `inquiry_response` only: a `reason` field is present on disk.
    pub(crate) reason_on_disk: bool,
    /// `inquiry_response` only: `outcome` or `reason` is written as `null`,
    /// which the reader takes as the field not written (decision "Wire: a
    /// null reason or outcome reads as absent") but no RFD 082 writer
    /// writes (CHECK-WRITER-FIELDS).
    pub(crate) null_on_disk: bool,
    /// `inquiry_response` only: a field other than `type`, `timestamp`,
    /// `outcome`, `id`, `answer`, `reason` is present (kept for forward
    /// compatibility, but on a secret's response it is where a secret leaks).
    pub(crate) extra_on_response: bool,
    /// `inquiry_request` only: an `answer` field on the event or on its
    /// question (no writer writes one; on a secret question it is a leak).
    pub(crate) answer_on_request: bool,
    /// `inquiry_request` only: which of [`QUESTION_083_FIELDS`] the question
    /// writes, by position.
    pub(crate) question_083: [bool; 3],
    /// `inquiry_request` only: which of them are written at their default.
    pub(crate) question_083_default: [bool; 3],
}

impl Shape {
    /// Reads the shape from the raw fields, as written.
    pub(crate) fn of_raw(raw: &RawEvent) -> Shape {
        Shape::of_texts(
            |name: &str| raw.field(name).map(|v| v.get()),
            &mut raw.fields.iter().map(|(k, _)| k.as_str()),
        )
    }

    /// Reads the shape from the text of each field, looked up by name, and
    /// the fields' names.
    pub(crate) fn of_texts<'a>(
        field: impl Fn(&str) -> Option<&'a str>,
        names: &mut dyn Iterator<Item = &str>,
    ) -> Shape {
        let shape = Shape::of_texts_but_question(&field, names);
        match field("type").and_then(json_string).as_deref() {
            // A question that is not an object fails typing right after;
            // its shape does not matter then.
            Some("inquiry_request") => {
                shape.with_question(field("question").and_then(Present083::of_text).as_ref())
            }
            _ => shape,
        }
    }

    /// [`Shape::of_texts`] but for an `inquiry_request`'s question, whose
    /// facts [`Shape::with_question`] adds: read from the members the
    /// typing split (rule `PERF-CHECK-SPLIT-ONCE`), or from its text.
    pub(crate) fn of_texts_but_question<'a>(
        field: impl Fn(&str) -> Option<&'a str>,
        names: &mut dyn Iterator<Item = &str>,
    ) -> Shape {
        let tag = field("type").and_then(json_string);
        match tag.as_deref() {
            Some("inquiry_response") => Shape {
                tagged: field("outcome").is_some(),
                answer_on_disk: field("answer").is_some(),
                reason_on_disk: field("reason").is_some(),
                null_on_disk: [field("outcome"), field("reason")]
                    .into_iter()
                    .flatten()
                    .any(|t| t.trim() == "null"),
                extra_on_response: names_a_field_no_writer_writes(names),
                ..Shape::default()
            },
            Some("inquiry_request") => Shape {
                answer_on_request: field("answer").is_some(),
                ..Shape::default()
            },
            _ => Shape::default(),
        }
    }

    /// An `inquiry_request`'s shape with its question's facts (none when
    /// the question is not an object).
    pub(crate) fn with_question(self, q: Option<&Present083>) -> Shape {
        Shape {
            answer_on_request: self.answer_on_request || q.is_some_and(|q| q.answer),
            question_083: q.map_or([false; 3], |q| q.present),
            question_083_default: q.map_or([false; 3], |q| q.at_default),
            ..self
        }
    }

    /// The shape `event` is written with by this crate's writer
    /// ([`Event`]'s `Serialize`): responses tagged, an `answer` only on
    /// `answered`, a `reason` only on `cancelled`, RFD 083 fields only when
    /// they differ from their defaults; and the event's kept extra fields,
    /// which the writer writes back verbatim.
    pub(crate) fn of_event(event: &Event) -> Shape {
        let extra = |name: &str| event.extra.iter().any(|(n, _)| n == name);
        match &event.kind {
            EventKind::InquiryResponse(r) => Shape {
                tagged: true,
                answer_on_disk: extra("answer")
                    || match r {
                        InquiryResponse::Answered { .. } => true,
                        InquiryResponse::Cancelled { .. } | InquiryResponse::Redacted { .. } => {
                            false
                        }
                    },
                reason_on_disk: extra("reason")
                    || match r {
                        InquiryResponse::Cancelled { .. } => true,
                        InquiryResponse::Answered { .. } | InquiryResponse::Redacted { .. } => {
                            false
                        }
                    },
                extra_on_response: names_a_field_no_writer_writes(
                    event.extra.iter().map(|(n, _)| n.as_str()),
                ),
                ..Shape::default()
            },
            EventKind::InquiryRequest(r) => Shape {
                answer_on_request: extra("answer"),
                question_083: [
                    r.question.context.is_some(),
                    r.question.exclusive,
                    match r.question.persistence {
                        InquiryAnswerReusePolicy::None => true,
                        InquiryAnswerReusePolicy::Turn => false,
                    },
                ],
                ..Shape::default()
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
    pub(crate) fn question_083_fields(&self) -> impl Iterator<Item = &'static str> + '_ {
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
    ///
    /// Each stage is derived from the profiles' switches
    /// ([`Profile::first_with`]), never named here: the stage that proves a
    /// shape is the first whose writer has the switch that writes it.
    pub(crate) fn evidence(&self, event: &Event) -> Option<Profile> {
        match &event.kind {
            EventKind::InquiryRequest(r) => {
                if self.question_083.iter().any(|present| *present) {
                    return Profile::first_with(|r| r.widened_question);
                }
                match r.question.answer_type {
                    InquiryAnswerType::Secret => Profile::first_with(|r| r.secret_type),
                    InquiryAnswerType::Boolean
                    | InquiryAnswerType::Select { .. }
                    | InquiryAnswerType::Text => None,
                }
            }
            EventKind::InquiryResponse(r) => {
                if !self.tagged {
                    return Profile::last_with(|r| r.response_form == ResponseForm::Flat);
                }
                match r {
                    // A reason that comes with a switch (`invalid_static_answer`
                    // with static-answer validation) shows the switch; any
                    // other cancellation, a writer that records every round
                    // trip.
                    InquiryResponse::Cancelled { reason, .. } => {
                        match predicates::reason_needs(reason) {
                            Some(needs) => Profile::first_with(needs),
                            None => {
                                Profile::first_with(|r| r.record == RecordScope::EveryRoundTrip)
                            }
                        }
                    }
                    InquiryResponse::Redacted { .. } => Profile::first_with(|r| r.secret_type),
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::collection::vec;
    use proptest::prelude::*;

    /// A question-like JSON text: members drawn from RFD 083's fields at and
    /// off their defaults (escaped spellings too), `answer`, other members,
    /// repeats; sometimes not an object.
    fn question_text() -> impl Strategy<Value = String> {
        let member = prop::sample::select(vec![
            r#""context":null"#,
            r#""context":"c""#,
            r#""context":1"#,
            r#""exclusive":false"#,
            r#""exclusive":true"#,
            r#""exclusive":"false""#,
            r#""persistence":"turn""#,
            r#""persistence":"tu\u0072n""#,
            r#""persistence":"none""#,
            r#""persistence":null"#,
            r#""answer":"leak""#,
            r#""\u0061nswer":1"#,
            r#""text":"Apply?""#,
            r#""answer_type":{"type":"boolean","exclusive":true}"#,
            r#""default":[{"context":null}]"#,
        ]);
        (vec(member, 0..6), 0..12u8).prop_map(|(members, shape)| match shape {
            0 => format!("[{}]", members.len()),
            _ => format!("{{ {} }}", members.join(", ")),
        })
    }

    proptest! {
        /// Rule: PERF-TYPE-SAME — what a question shows of RFD 083's fields
        /// (present, at their default, an `answer`) is the same read from the
        /// reader's split of its members as read through serde.
        #[test]
        fn present_083_agrees_with_serde(text in question_text()) {
            prop_assert_eq!(
                Present083::of_text(&text),
                serde_json::from_str::<Present083>(&text).ok()
            );
        }

        /// Rule: PERF-CHECK-SPLIT-ONCE — the question members the typing
        /// hands over (`type_fields_seen`) show the RFD 083 facts the
        /// question's text shows (`Present083::of_text`, which splits it
        /// again, and serde), and the shape built from them is
        /// `Shape::of_texts`' (every question that splits as an object is
        /// handed over, whether the typing then refuses it or not).
        #[test]
        fn the_question_the_typing_splits_shows_its_texts_facts(
            text in question_text(),
            answer in proptest::option::of(Just(r#""yes""#)),
        ) {
            let mut fields: Vec<(&str, &str)> = vec![
                ("type", r#""inquiry_request""#),
                ("id", r#""c1.q.1""#),
                ("source", r#"{"source":"tool","name":"fs"}"#),
                ("question", &text),
            ];
            fields.extend(answer.map(|a| ("answer", a)));
            let field = |name: &str| fields.iter().find(|(k, _)| *k == name).map(|(_, v)| *v);
            let mut seen = None;
            let typed = crate::wire::type_fields_seen(&mut fields.clone(), &mut |members| {
                seen = Some(Present083::of_members(members));
            });
            let split = crate::wire::object_members(&text).is_some();
            prop_assert_eq!(seen.is_some(), split, "{}", text);
            if let Some(seen) = &seen {
                let from_text = Present083::of_text(&text);
                let from_serde = serde_json::from_str::<Present083>(&text).ok();
                prop_assert_eq!(Some(seen), from_text.as_ref());
                prop_assert_eq!(Some(seen), from_serde.as_ref());
            }
            let q = seen.or_else(|| Present083::of_text(&text));
            let shared = Shape::of_texts_but_question(field, &mut fields.iter().map(|(k, _)| *k))
                .with_question(q.as_ref());
            prop_assert_eq!(
                shared,
                Shape::of_texts(field, &mut fields.iter().map(|(k, _)| *k)),
                "{} typed {:?}", text, typed.is_ok()
            );
            // The same shape spelled out from serde's reading of the question.
            let serde = serde_json::from_str::<Present083>(&text).ok();
            let expected = Shape {
                answer_on_request: answer.is_some() || serde.as_ref().is_some_and(|q| q.answer),
                question_083: serde.as_ref().map_or([false; 3], |q| q.present),
                question_083_default: serde.as_ref().map_or([false; 3], |q| q.at_default),
                ..Shape::default()
            };
            prop_assert_eq!(shared, expected, "{}", text);
        }

        /// Rule: PERF-CHECK-SAME — `Checker::push_event` judges an event by
        /// the shape this crate's writer gives it on disk: `Shape::of_event`
        /// is the shape read back from the event's written text, for every
        /// kind of event and every outcome, reason and RFD 083 field, with
        /// kept extra fields (an `answer` beside a request among them).
        #[test]
        fn the_shape_of_an_event_is_the_shape_of_its_written_text(
            e in prop_oneof![
                crate::generate::wire::event(),
                crate::generate::wire::inquiry_request()
                    .prop_map(|r| Event::new(EventKind::InquiryRequest(Box::new(r)))),
                crate::generate::wire::inquiry_response()
                    .prop_map(|r| Event::new(EventKind::InquiryResponse(r))),
                // An `answer` kept beside a request (where a secret leaks).
                crate::generate::wire::inquiry_request().prop_map(|r| {
                    let e = Event::new(EventKind::InquiryRequest(Box::new(r)));
                    crate::check::tests::with_extra_fields(vec![e], &[true]).remove(0)
                }),
            ]
        ) {
            let text = serde_json::to_string(&e).expect("events serialize");
            let raw: RawEvent = serde_json::from_str(&text).expect("written text reads");
            prop_assert_eq!(Shape::of_event(&e), Shape::of_raw(&raw), "{}", text);
        }
    }
}
