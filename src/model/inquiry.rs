//! The inquiry backend of RFD 028, as far as the trace can see it: the
//! structured-output schema per answer type, the cloned conversation with the
//! synthetic paused `ToolCallResponse` and the question appended, and answer
//! extraction with its errors.
//!
//! A `Secret` or exclusive question cannot reach this module: a
//! [`BackendQuestion`] can only be built from a question the guards let
//! through, and its answer type has no `Secret` variant (rule
//! `LIFE-HUMAN-ONLY-NEVER-BACKEND`).

use serde::Serialize;
use serde_json::{Value, json};

use crate::model::routing::{self, InquiryErrorKind};
use crate::model::tool::{AnswerType, Question};
use crate::profile::Rules;
use crate::wire::{Event, EventKind, Opaque, ToolCallResponse};

/// The answer types the backend can be asked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum BackendAnswerType {
    /// `{"type":"boolean"}`.
    Boolean,
    /// `{"type":"string","enum":[…]}`.
    Select {
        /// The options.
        options: Vec<String>,
    },
    /// `{"type":"string"}`.
    Text,
}

/// A question the guards allowed to reach the inquiry backend: the whole
/// question, as RFD 028's `inquire(…, question: &Question, …)` receives it
/// (rule `LIFE-BACKEND-WHOLE-QUESTION`), less what cannot reach it (a
/// `Secret` type).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BackendQuestion {
    /// The tool-local question ID.
    pub(crate) id: String,
    /// The question text.
    pub(crate) text: String,
    /// The context rendered above the question (`pre_amble` before RFD 083).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) context: Option<String>,
    /// The answer type (never secret).
    pub(crate) answer_type: BackendAnswerType,
    /// The tool author's display hint, verbatim.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) default: Option<Value>,
}

impl BackendQuestion {
    /// `None` for a human-only question: the type system keeps it out.
    pub(crate) fn new(question: &Question, rules: &Rules) -> Option<BackendQuestion> {
        if routing::human_only(question, rules) {
            return None;
        }
        let answer_type = match &question.answer_type {
            AnswerType::Boolean => BackendAnswerType::Boolean,
            AnswerType::Select { options } => BackendAnswerType::Select {
                options: options.clone(),
            },
            AnswerType::Text => BackendAnswerType::Text,
            // Only reachable where the profile has no `Secret` type, which
            // then reads as plain text (a pre-082 build never saw it).
            AnswerType::Secret => BackendAnswerType::Text,
        };
        Some(BackendQuestion {
            id: question.id.clone(),
            text: question.text.clone(),
            context: question.context.clone(),
            answer_type,
            default: question.default.clone(),
        })
    }
}

impl BackendAnswerType {
    fn as_answer_type(&self) -> AnswerType {
        match self {
            BackendAnswerType::Boolean => AnswerType::Boolean,
            BackendAnswerType::Select { options } => AnswerType::Select {
                options: options.clone(),
            },
            BackendAnswerType::Text => AnswerType::Text,
        }
    }
}

/// The structured-output schema for an inquiry (RFD 028 "Schema Generation",
/// rule `LIFE-BACKEND-SCHEMA`): the answer typed by the question, and the
/// inquiry ID pinned with `const`.
///
/// The two answer types without options take a prebuilt schema and pin the
/// ID in it (cloning the maps costs less than building and hashing them
/// again at every backend call); a select builds its own.
pub(crate) fn schema(inquiry_id: &str, answer_type: &BackendAnswerType) -> Value {
    let slot = match answer_type {
        BackendAnswerType::Boolean => 0,
        BackendAnswerType::Text => 1,
        BackendAnswerType::Select { .. } => return build_schema(inquiry_id, answer_type),
    };
    let mut schema = SCHEMA_TEMPLATES.with(|t| t[slot].clone());
    // (Not `pointer_mut`, which allocates each segment of its path.)
    if let Some(pinned) = schema
        .get_mut("properties")
        .and_then(|p| p.get_mut("inquiry_id"))
        .and_then(|i| i.get_mut("const"))
    {
        *pinned = Value::String(inquiry_id.to_owned());
    }
    schema
}

thread_local! {
    /// [`schema`]'s prebuilt schemas of `boolean` and `text` answers, their
    /// pinned ID left empty.
    static SCHEMA_TEMPLATES: [Value; 2] = [
        build_schema("", &BackendAnswerType::Boolean),
        build_schema("", &BackendAnswerType::Text),
    ];
}

/// [`schema`] as the JSON text `Opaque::from_value` writes of it, without
/// building the `Value` for the two answer types without options: their
/// prebuilt text around the pinned ID, which serde_json's string writer
/// writes in its place (rule `PERF-SCHEMA-TEXT`).
pub(crate) fn schema_text(inquiry_id: &str, answer_type: &BackendAnswerType) -> Opaque {
    let slot = match answer_type {
        BackendAnswerType::Boolean => 0,
        BackendAnswerType::Text => 1,
        BackendAnswerType::Select { .. } => {
            return Opaque::from_value(&build_schema(inquiry_id, answer_type));
        }
    };
    SCHEMA_TEXTS.with(|t| {
        let (before, after) = &t[slot];
        let mut out = Vec::with_capacity(before.len() + inquiry_id.len() + 2 + after.len());
        out.extend_from_slice(before.as_bytes());
        // Writing a `str` into a `Vec` cannot fail.
        serde_json::to_writer(&mut out, inquiry_id).expect("a str always serializes");
        out.extend_from_slice(after.as_bytes());
        Opaque::from_json_text(String::from_utf8(out).expect("serde_json writes UTF-8"))
    })
}

/// The place of the pinned ID in a prebuilt schema's text: a string no
/// schema holds elsewhere, written as serde_json writes it.
const PIN: &str = "\u{1}pinned\u{1}";

thread_local! {
    /// [`schema_text`]'s prebuilt texts of `boolean` and `text` schemas: the
    /// text before the pinned ID's JSON string, and after it.
    static SCHEMA_TEXTS: [(String, String); 2] = [
        split_at_pin(&BackendAnswerType::Boolean),
        split_at_pin(&BackendAnswerType::Text),
    ];
}

fn split_at_pin(answer_type: &BackendAnswerType) -> (String, String) {
    let text = build_schema(PIN, answer_type).to_string();
    let pin = Value::String(PIN.to_owned()).to_string();
    // The schema is built here from a fixed shape that holds the pin once.
    let (before, after) = text.split_once(&pin).expect("the schema holds its pin");
    (before.to_owned(), after.to_owned())
}

/// [`schema`], built from scratch.
fn build_schema(inquiry_id: &str, answer_type: &BackendAnswerType) -> Value {
    let answer = match answer_type {
        BackendAnswerType::Boolean => json!({ "type": "boolean" }),
        BackendAnswerType::Select { options } => json!({ "type": "string", "enum": options }),
        BackendAnswerType::Text => json!({ "type": "string" }),
    };
    json!({
        "type": "object",
        "properties": {
            "inquiry_id": { "type": "string", "const": inquiry_id },
            "answer": answer,
        },
        "required": ["inquiry_id", "answer"],
        "additionalProperties": false,
    })
}

/// One call of the inquiry backend, as the trace records it. Its
/// structured-output schema is a function of the pinned ID and the answer
/// type ([`BackendCall::schema`]), so it is not held: a trace serializes it
/// in its place (`inquiry_id`, `question`, `schema`, `cloned_events`,
/// `appended`), and the appended `ChatRequest` carries its text (rule
/// `PERF-SCHEMA-TEXT`).
#[derive(Debug, Clone, PartialEq)]
pub struct BackendCall {
    /// The ID pinned in the schema.
    pub inquiry_id: String,
    /// The question as the backend sees it.
    pub question: BackendQuestion,
    /// How many persisted events the cloned conversation starts with.
    pub cloned_events: usize,
    /// What the clone gets appended: the synthetic paused `ToolCallResponse`
    /// and the question as a `ChatRequest` carrying the schema (RFD 028
    /// "ToolCoordinator Integration").
    pub appended: Vec<Event>,
}

impl Serialize for BackendCall {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("BackendCall", 5)?;
        st.serialize_field("inquiry_id", &self.inquiry_id)?;
        st.serialize_field("question", &self.question)?;
        st.serialize_field("schema", &self.schema())?;
        st.serialize_field("cloned_events", &self.cloned_events)?;
        st.serialize_field("appended", &self.appended)?;
        st.end()
    }
}

impl BackendCall {
    /// Builds the call for `question`, asked by tool call `tool_call_id`,
    /// against a persisted stream of `persisted_len` events.
    pub(crate) fn new(
        inquiry_id: &str,
        tool_call_id: &str,
        tool: &str,
        question: BackendQuestion,
        persisted_len: usize,
    ) -> BackendCall {
        let schema = schema_text(inquiry_id, &question.answer_type);
        let paused = Event::new(EventKind::ToolCallResponse(ToolCallResponse {
            id: tool_call_id.to_owned(),
            content: Some(Opaque::from_text(
                &[
                    "Tool paused: ",
                    tool,
                    " is waiting for an answer to a question.",
                ]
                .concat(),
            )),
            is_error: Some(false),
        }));
        let mut ask = Event::new(EventKind::ChatRequest);
        ask.extra
            .push(("content".to_owned(), Opaque::from_text(&question.text)));
        ask.extra.push(("schema".to_owned(), schema));
        BackendCall {
            inquiry_id: inquiry_id.to_owned(),
            question,
            cloned_events: persisted_len,
            appended: vec![paused, ask],
        }
    }

    /// The structured-output schema of the call ([`schema`]).
    pub(crate) fn schema(&self) -> Value {
        schema(&self.inquiry_id, &self.question.answer_type)
    }

    /// Extracts and validates the answer from the backend's structured
    /// response (RFD 028 `inquire` step 4, rule `LIFE-BACKEND-EXTRACT`).
    pub fn extract(&self, structured: &Value) -> Result<Value, InquiryErrorKind> {
        extract(&self.inquiry_id, &self.question.answer_type, structured)
    }
}

/// [`BackendCall::extract`] from the two things it reads, the pinned
/// inquiry ID and the answer type, so that a caller waiting for the
/// backend need not keep (or clone) the whole call.
pub(crate) fn extract(
    inquiry_id: &str,
    answer_type: &BackendAnswerType,
    structured: &Value,
) -> Result<Value, InquiryErrorKind> {
    let Value::Object(map) = structured else {
        return Err(InquiryErrorKind::MissingStructuredData);
    };
    match map.get("inquiry_id") {
        Some(Value::String(id)) if id == inquiry_id => {}
        Some(_) | None => return Err(InquiryErrorKind::AnswerExtraction),
    }
    let Some(answer) = map.get("answer") else {
        return Err(InquiryErrorKind::AnswerExtraction);
    };
    routing::validate_answer(&answer_type.as_answer_type(), answer)
        .map_err(|_| InquiryErrorKind::AnswerExtraction)?;
    Ok(answer.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Rule: LIFE-BACKEND-SCHEMA — each call's schema pins its own ID and
    /// is written in the order RFD 028 "Schema Generation" lists the
    /// fields, however many schemas of the same answer type came before
    /// (the prebuilt ones are copied, never changed in place).
    #[test]
    fn prebuilt_schemas_pin_each_calls_own_id() {
        let text = |id: &str, answer: &str| {
            format!(
                r#"{{"type":"object","properties":{{"inquiry_id":{{"type":"string","const":"{id}"}},"answer":{answer}}},"required":["inquiry_id","answer"],"additionalProperties":false}}"#
            )
        };
        for (t, answer) in [
            (BackendAnswerType::Boolean, r#"{"type":"boolean"}"#),
            (BackendAnswerType::Text, r#"{"type":"string"}"#),
            (
                BackendAnswerType::Select {
                    options: vec!["x".to_owned()],
                },
                r#"{"type":"string","enum":["x"]}"#,
            ),
        ] {
            for id in ["c1.q.1", "c2.q.7", "c1.q.1", ""] {
                assert_eq!(schema(id, &t).to_string(), text(id, answer));
            }
        }
    }

    /// The schema's text written the plain way: the `Value`, then its text.
    fn plain_text(id: &str, t: &BackendAnswerType) -> String {
        Opaque::from_value(&build_schema(id, t)).get().to_owned()
    }

    fn answer_types() -> impl Strategy<Value = BackendAnswerType> {
        prop_oneof![
            Just(BackendAnswerType::Boolean),
            Just(BackendAnswerType::Text),
            proptest::collection::vec(any::<String>(), 0..3)
                .prop_map(|options| BackendAnswerType::Select { options }),
        ]
    }

    proptest! {
        /// Rule: PERF-SCHEMA-TEXT — invariant: for any inquiry ID (quotes,
        /// backslashes, control characters, any Unicode) and answer type,
        /// the schema text a backend call's `ChatRequest` carries is, byte
        /// for byte, the text of the schema `Value` built from scratch, and
        /// the call's `schema()` is that `Value`.
        #[test]
        fn a_schemas_text_is_its_values(id in any::<String>(), t in answer_types()) {
            let plain = plain_text(&id, &t);
            let text = schema_text(&id, &t);
            prop_assert_eq!(text.get(), plain.as_str());
            let q = BackendQuestion {
                id: "q".to_owned(),
                text: "Q?".to_owned(),
                context: None,
                answer_type: t.clone(),
                default: None,
            };
            let call = BackendCall::new(&id, "c", "tool", q, 0);
            prop_assert_eq!(call.schema(), build_schema(&id, &t));
            let carried = call.appended[1].extra.iter().find(|(k, _)| k == "schema");
            prop_assert_eq!(carried.map(|(_, v)| v.get()), Some(plain.as_str()));
        }
    }

    /// Rule: PERF-SCHEMA-TEXT — the comparison is byte for byte and can
    /// fail: a writer that puts the ID in without escaping it differs on an
    /// ID holding a quote.
    #[test]
    fn a_schema_writer_without_escapes_disagrees() {
        let unescaped = |id: &str| SCHEMA_TEXTS.with(|t| format!("{}\"{id}\"{}", t[0].0, t[0].1));
        let t = BackendAnswerType::Boolean;
        assert_eq!(unescaped("c1.q.1"), plain_text("c1.q.1", &t));
        assert_ne!(unescaped("c1.\"q\".1"), plain_text("c1.\"q\".1", &t));
        assert_eq!(
            schema_text("c1.\"q\".1", &t).get(),
            plain_text("c1.\"q\".1", &t)
        );
    }
}
