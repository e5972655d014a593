//! The persisted event vocabulary and its serde.
//!
//! Everything here is what lands on disk in a conversation stream: the inquiry
//! events of RFD 004/005 as widened by RFD 082 ("`InquiryResponse`
//! serialization") and RFD 083 ("Propagating to the persisted shape"), and the
//! event envelope that carries every kind of event. Other Rust
//! implementations may depend on these paths.
//!
//! Reading is lenient where the RFDs say "read both" (legacy flat responses,
//! missing cancellation reasons, unknown reason tags, unknown event kinds) and
//! strict everywhere else: a shape the spec does not describe is an error that
//! says what was expected, never a silent guess.
//!
//! This file is the vocabulary: the types and the serde that is their
//! persisted shape. The codec lives beside the reader in `src/wire/`:
//! [`Opaque`] and its byte checks (`opaque.rs`), typing an event from its
//! fields, number texts and string escapes (`codec.rs`), the fast typing of
//! inquiry payloads (`typing.rs`) and the event reader (`reader.rs`).

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

/// The correlation key of an `InquiryRequest`/`InquiryResponse` pair.
///
/// Opaque to readers (RFD 082 "Inquiry ID format", rule `WIRE-ID-OPAQUE`):
/// there is deliberately no accessor for its segments. Writers build it with
/// [`InquiryId::new`]; readers only compare, hash and print it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct InquiryId(String);

impl InquiryId {
    /// Writer-side constructor: `<tool_call_id>.<question_id>.<attempt>`
    /// (RFD 082 "Inquiry ID format", rule `LIFE-ID-FORMAT`). `attempt` is
    /// 1-indexed per `(tool_call_id, question_id)` per turn.
    pub fn new(tool_call_id: &str, question_id: &str, attempt: u32) -> Self {
        InquiryId(id::three_segment(tool_call_id, question_id, attempt))
    }

    /// Writer-side constructor of the pre-082 two-segment form
    /// `<tool_call_id>.<question_id>`, used only by the `legacy` profile.
    pub fn legacy(tool_call_id: &str, question_id: &str) -> Self {
        InquiryId(id::two_segment(tool_call_id, question_id))
    }

    /// Wraps an ID read from elsewhere (a stream, a test) without looking
    /// inside it.
    pub fn from_opaque(id: impl Into<String>) -> Self {
        InquiryId(id.into())
    }

    /// The ID as written, for display and comparison only.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for InquiryId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Who asked the question, as persisted (RFD 082 "Source attribution").
///
/// Internally tagged by `source`. `User` and `Other` are never produced by the
/// model; they are read because real streams may carry them.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "source", rename_all = "snake_case")]
pub enum InquirySource {
    /// A tool's own question: `{"source":"tool","name":…}`.
    Tool {
        /// The tool's name.
        name: String,
    },
    /// The assistant's question (RFD 083 `ask_user`): `{"source":"assistant"}`.
    Assistant,
    /// A user-originated inquiry (read only).
    User,
    /// Any other named source (read only).
    Other {
        /// The source's name.
        name: String,
    },
}

impl InquirySource {
    /// `InquirySource::Tool { name }`.
    pub fn tool(name: impl Into<String>) -> Self {
        InquirySource::Tool { name: name.into() }
    }
}

/// One persisted select option: the `{value, description?}` object this
/// crate writes (RFD 005 shape, kept by RFD 082/083), or any shape the real
/// writer writes (decision "Wire: a select option is read in the writer's
/// shapes"): RFD 082 Phase 3 says `jp_tool`'s select wire shape "matches
/// `InquiryAnswerType`", and `jp_tool` writes `Select { options:
/// Vec<String> }`. A bare option (a string, a number, any JSON that is not
/// an object) is its own `value`; an object's `value` is its `value` member,
/// whatever other members it has.
#[derive(Debug, Clone, PartialEq)]
pub struct SelectOption {
    /// The value the answer takes when this option is chosen.
    pub(crate) value: Value,
    /// Optional human description.
    pub(crate) description: Option<String>,
    /// The option as written, when that is not the `{value, description?}`
    /// object this crate writes (a bare option, members in another order or
    /// beside them, a `null` description): written back as read while it
    /// still reads as `value` and `description`, so the real writer's
    /// shapes round-trip byte for byte (rule `WIRE-ANSWER-TYPE-SHAPE`).
    /// `None` for an option this crate builds.
    pub(crate) written: Option<Value>,
}

impl SelectOption {
    /// The `{value, description?}` option.
    pub(crate) fn new(value: Value, description: Option<String>) -> Self {
        SelectOption {
            value,
            description,
            written: None,
        }
    }

    /// Reads an option of any shape the real writer writes; an object
    /// without a `value`, or with a `description` that is neither a string
    /// nor `null`, is refused with what was expected.
    pub(crate) fn read(v: Value) -> Result<SelectOption, String> {
        let members = match &v {
            Value::Object(members) => members,
            Value::String(_) | Value::Number(_) => {
                return Ok(SelectOption {
                    value: v.clone(),
                    description: None,
                    written: Some(v),
                });
            }
            Value::Null | Value::Bool(_) | Value::Array(_) => {
                return Err(
                    "a select option is an object `{value, description?}`, a string or a number"
                        .to_owned(),
                );
            }
        };
        let value = members
            .get("value")
            .cloned()
            .ok_or("a select option object has no `value` (expected `{value, description?}` or a bare value)")?;
        let description = match members.get("description") {
            None | Some(Value::Null) => None,
            Some(Value::String(d)) => Some(d.clone()),
            Some(_) => {
                return Err("a select option's `description` is not a string".to_owned());
            }
        };
        let canonical = SelectOption::new(value, description);
        let written =
            (canonical.as_written() != v || !same_order(&canonical.as_written(), &v)).then_some(v);
        Ok(SelectOption {
            written,
            ..canonical
        })
    }

    /// The `{value, description?}` object for `value` and `description`.
    fn as_written(&self) -> Value {
        let mut m = serde_json::Map::new();
        m.insert("value".to_owned(), self.value.clone());
        if let Some(d) = &self.description {
            m.insert("description".to_owned(), Value::String(d.clone()));
        }
        Value::Object(m)
    }

    /// What is written: the option as read while it still reads as this
    /// option, else the `{value, description?}` object.
    fn to_written(&self) -> Value {
        match &self.written {
            Some(w)
                if SelectOption::read(w.clone())
                    .is_ok_and(|o| o.value == self.value && o.description == self.description) =>
            {
                w.clone()
            }
            Some(_) | None => self.as_written(),
        }
    }
}

/// Whether two objects name their members in the same order (`Value`'s
/// equality ignores the order; the written bytes do not).
fn same_order(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => a.keys().eq(b.keys()),
        _ => false,
    }
}

impl Serialize for SelectOption {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_written().serialize(s)
    }
}

impl<'de> Deserialize<'de> for SelectOption {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        SelectOption::read(Value::deserialize(d)?).map_err(de::Error::custom)
    }
}

/// The persisted answer type (RFD 082 "Secret questions"), tagged by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum InquiryAnswerType {
    /// `{"type":"boolean"}`.
    Boolean,
    /// `{"type":"select","options":[…]}`.
    Select {
        /// The options offered.
        #[serde(deserialize_with = "option_objects")]
        options: Vec<SelectOption>,
    },
    /// `{"type":"text"}`.
    Text,
    /// `{"type":"secret"}`: free text whose answer is never persisted.
    Secret,
}

/// Whether an answer may be remembered for the turn (RFD 083 "Propagating to
/// the persisted shape"). Defaults to `Turn`, today's behaviour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InquiryAnswerReusePolicy {
    /// Re-ask every time.
    None,
    /// May be remembered for the rest of the turn.
    #[default]
    Turn,
}

impl InquiryAnswerReusePolicy {
    /// `true` for the default, so serde can skip it (rule `WIRE-QUESTION-DEFAULTS`).
    pub(crate) fn is_turn(&self) -> bool {
        matches!(self, InquiryAnswerReusePolicy::Turn)
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The persisted question (RFD 005, widened by RFD 083 step 5).
///
/// The RFD 083 fields are defaulted on read and skipped on write when they
/// hold their default, so pre-083 payloads read and write unchanged (rule
/// `WIRE-QUESTION-DEFAULTS`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InquiryQuestion {
    /// The question text.
    pub text: String,
    /// What kind of answer is expected.
    #[serde(deserialize_with = "from_object")]
    pub answer_type: InquiryAnswerType,
    /// Tool-author display hint, copied verbatim (RFD 082: never redacted).
    /// A written `"default": null` reads back as `Some(Null)`, so it survives
    /// a read/write cycle (rule `WIRE-QUESTION-DEFAULTS`).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub default: Option<Value>,
    /// Context rendered above the question (RFD 083).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// Human-only question (RFD 083).
    #[serde(default, skip_serializing_if = "is_false")]
    pub exclusive: bool,
    /// Answer reuse policy (RFD 083).
    #[serde(
        default,
        deserialize_with = "reuse_policy",
        skip_serializing_if = "InquiryAnswerReusePolicy::is_turn"
    )]
    pub persistence: InquiryAnswerReusePolicy,
}

/// Reads `T` only from a JSON object. serde's derive also takes an array of
/// the fields in order, a shape no RFD describes and no schema accepts (rule
/// `WIRE-EVENT-SHAPE`); inquiry payloads are rare, so the detour through a
/// `Value` costs nothing that matters.
fn from_object<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: de::DeserializeOwned,
{
    // Through the raw text rather than a `Value`, so that a field written
    // twice is still refused (rule `WIRE-EVENT-DUPLICATE`).
    let raw = Box::<RawValue>::deserialize(d)?;
    if raw.get().trim_start().starts_with('{') {
        serde_json::from_str(raw.get())
            .map_err(|e| de::Error::custom(strip_position(&e.to_string())))
    } else {
        let v: Value = serde_json::from_str(raw.get()).map_err(de::Error::custom)?;
        Err(de::Error::invalid_type(unexpected(&v), &"a JSON object"))
    }
}

fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_owned(),
        None => msg.to_owned(),
    }
}

/// Select options: an array, each item read by [`SelectOption::read`].
fn option_objects<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<SelectOption>, D::Error> {
    // A `Value`, not raw text: `InquiryAnswerType` is internally tagged, so
    // serde has already buffered this field and raw text is gone.
    match Value::deserialize(d)? {
        Value::Array(items) => items
            .into_iter()
            .map(|item| SelectOption::read(item).map_err(de::Error::custom))
            .collect(),
        other => Err(de::Error::invalid_type(
            unexpected(&other),
            &"an array of select options",
        )),
    }
}

/// `"none"` or `"turn"`, and nothing else (serde's derive would also take
/// `{"none": null}`).
fn reuse_policy<'de, D: Deserializer<'de>>(d: D) -> Result<InquiryAnswerReusePolicy, D::Error> {
    match Value::deserialize(d)? {
        Value::String(s) if s == "none" => Ok(InquiryAnswerReusePolicy::None),
        Value::String(s) if s == "turn" => Ok(InquiryAnswerReusePolicy::Turn),
        Value::String(s) => Err(de::Error::unknown_variant(&s, &["none", "turn"])),
        other => Err(de::Error::invalid_type(
            unexpected(&other),
            &"`persistence`: \"none\" or \"turn\"",
        )),
    }
}

fn unexpected(v: &Value) -> de::Unexpected<'_> {
    match v {
        Value::Null => de::Unexpected::Unit,
        Value::Bool(b) => de::Unexpected::Bool(*b),
        Value::Number(_) => de::Unexpected::Other("a number"),
        Value::String(s) => de::Unexpected::Str(s),
        Value::Array(_) => de::Unexpected::Seq,
        Value::Object(_) => de::Unexpected::Map,
    }
}

/// `inquiry_request` event payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InquiryRequest {
    /// Correlation key.
    pub id: InquiryId,
    /// Provenance, resolved from tool kind (RFD 082 "Source attribution").
    #[serde(deserialize_with = "from_object")]
    pub source: InquirySource,
    /// The question as asked.
    #[serde(deserialize_with = "from_object")]
    pub question: InquiryQuestion,
}

/// Why an inquiry closed without an answer (RFD 082 "`InquiryResponse`
/// serialization", RFD 083 step 7).
///
/// On disk it is a bare string tag. Unknown tags read as `Unknown(tag)` and
/// write back verbatim (rule `WIRE-REASON-UNKNOWN`). The model never writes
/// `Unknown`; an `Unknown` holding a known tag reads back as that known
/// variant, so build values with [`CancellationReason::from_tag`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CancellationReason {
    /// The user cancelled (Ctrl-C or EOF at the prompt, or the cancellation
    /// token fired).
    User,
    /// The routing backend returned an error instead of an answer.
    BackendError,
    /// A human-only question found no interactive terminal.
    NoPromptBackend,
    /// A human-only question was configured with `target = "assistant"`.
    AssistantRoutingDenied,
    /// A configured static answer did not fit the question (RFD 083).
    InvalidStaticAnswer,
    /// A tag this build does not know, preserved verbatim. Readers must not
    /// branch on its contents.
    Unknown(String),
}

impl CancellationReason {
    /// Every variant this build knows by name, in declaration order.
    pub const KNOWN: [CancellationReason; 5] = [
        CancellationReason::User,
        CancellationReason::BackendError,
        CancellationReason::NoPromptBackend,
        CancellationReason::AssistantRoutingDenied,
        CancellationReason::InvalidStaticAnswer,
    ];

    /// The serde tag (RFD 082 "Reader behavior": `as_str` helper).
    pub(crate) fn as_str(&self) -> &str {
        match self {
            CancellationReason::User => "user",
            CancellationReason::BackendError => "backend_error",
            CancellationReason::NoPromptBackend => "no_prompt_backend",
            CancellationReason::AssistantRoutingDenied => "assistant_routing_denied",
            CancellationReason::InvalidStaticAnswer => "invalid_static_answer",
            CancellationReason::Unknown(tag) => tag,
        }
    }

    /// Reads a tag: a known one gives its variant, anything else `Unknown`.
    pub(crate) fn from_tag(tag: &str) -> Self {
        match tag {
            "user" => CancellationReason::User,
            "backend_error" => CancellationReason::BackendError,
            "no_prompt_backend" => CancellationReason::NoPromptBackend,
            "assistant_routing_denied" => CancellationReason::AssistantRoutingDenied,
            "invalid_static_answer" => CancellationReason::InvalidStaticAnswer,
            other => CancellationReason::Unknown(other.to_owned()),
        }
    }
}

/// What a known cancellation reason says about the question it closes and
/// the call that asked it: the reason classes the model (its tool responses)
/// and the oracle (CHECK-REASON-FAILS-TOOL, CHECK-REASON-HUMAN-ONLY,
/// CHECK-REASON-BACKEND-ERROR, CHECK-ONE-QUESTION) both read, stated once
/// here. `src/model/routing/decision_tables_tests.rs` checks each against the RFD sentence
/// that fixes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct ReasonClass {
    /// The call ends with a tool-level error: the routing guards "fail the
    /// tool with a tool-level error" (RFD 082 "Secret questions", RFD 083
    /// "Non-interactive behavior"), an invalid static answer is an
    /// `Outcome::Error` (RFD 083 step 6), and a backend failure keeps the
    /// error it always was (RFD 082 step 6: the response is "unchanged").
    pub(crate) fails_tool: bool,
    /// Which questions the reason may close.
    pub(crate) closes: ClosesQuestions,
}

/// Which questions a cancellation reason may close, by whether they need a
/// human answer (`Secret`, or RFD 083's `exclusive`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ClosesQuestions {
    /// Only a routing guard records it, and the guards refuse only
    /// human-only questions (RFD 082 "Secret questions" step 3).
    OnlyHumanOnly,
    /// Only a failing inquiry backend records it, and a human-only question
    /// never reaches the backend ("cannot be routed to the inquiry backend,
    /// full stop", RFD 082 "Secret questions").
    NeverHumanOnly,
    /// Any question.
    Any,
}

impl CancellationReason {
    /// The reason's class; `None` for `Unknown`, which readers "MUST NOT
    /// branch on" (RFD 082 "`InquiryResponse` serialization").
    pub(crate) fn class(&self) -> Option<ReasonClass> {
        let (fails_tool, closes) = match self {
            CancellationReason::User => (false, ClosesQuestions::Any),
            CancellationReason::BackendError => (true, ClosesQuestions::NeverHumanOnly),
            CancellationReason::NoPromptBackend => (true, ClosesQuestions::OnlyHumanOnly),
            CancellationReason::AssistantRoutingDenied => (true, ClosesQuestions::OnlyHumanOnly),
            CancellationReason::InvalidStaticAnswer => (true, ClosesQuestions::Any),
            CancellationReason::Unknown(_) => return None,
        };
        Some(ReasonClass { fails_tool, closes })
    }

    /// Whether the reason fails the tool ([`ReasonClass::fails_tool`];
    /// `false` for `Unknown`).
    pub(crate) fn fails_tool(&self) -> bool {
        self.class().is_some_and(|c| c.fails_tool)
    }

    /// Whether only a routing guard records the reason
    /// ([`ClosesQuestions::OnlyHumanOnly`]).
    #[cfg(test)]
    pub(crate) fn is_guard(&self) -> bool {
        self.class()
            .is_some_and(|c| c.closes == ClosesQuestions::OnlyHumanOnly)
    }
}

impl fmt::Display for CancellationReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for CancellationReason {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for CancellationReason {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = CancellationReason;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a cancellation reason tag (a string)")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(CancellationReason::from_tag(v))
            }
        }
        d.deserialize_str(V)
    }
}

/// `inquiry_response` event payload (RFD 082 "`InquiryResponse`
/// serialization").
///
/// Writes the tagged form (`outcome`); reads the tagged form and the legacy
/// flat `{id, answer}` form. See [`InquiryResponse`'s `Deserialize`
/// impl](#impl-Deserialize<'de>-for-InquiryResponse) for the exact rules.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum InquiryResponse {
    /// The question was answered and the answer is persisted.
    Answered {
        /// Correlation key.
        id: InquiryId,
        /// The answer as the tool received it.
        answer: Value,
    },
    /// The inquiry closed without an answer.
    Cancelled {
        /// Correlation key.
        id: InquiryId,
        /// Why.
        reason: CancellationReason,
    },
    /// Answered, but deliberately not persisted (secret questions).
    Redacted {
        /// Correlation key.
        id: InquiryId,
    },
}

impl InquiryResponse {
    /// The correlation key, whatever the outcome.
    pub fn id(&self) -> &InquiryId {
        match self {
            InquiryResponse::Answered { id, .. }
            | InquiryResponse::Cancelled { id, .. }
            | InquiryResponse::Redacted { id } => id,
        }
    }
}

/// Deserializes `Some(value)` even when the value is `null`, so that a present
/// `"answer": null` is told apart from an absent `answer`.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// The fields `inquiry_response` reads; other fields are ignored by the
/// standalone type and kept as envelope extras by [`Event`].
const RESPONSE_FIELDS: [&str; 4] = ["id", "outcome", "answer", "reason"];

/// The fields `tool_call_request` reads, in the order the reader takes them.
const TOOL_CALL_REQUEST_FIELDS: [&str; 3] = ["id", "name", "arguments"];

/// The fields `tool_call_response` reads, in the order the reader takes them.
const TOOL_CALL_RESPONSE_FIELDS: [&str; 3] = ["id", "content", "is_error"];

/// The fields `inquiry_request` reads, in the order the reader takes them.
const INQUIRY_REQUEST_FIELDS: [&str; 3] = ["id", "source", "question"];

/// The field names a kind types (besides `type` and `timestamp`): an extra
/// field with one of these names would be read back as the typed field.
pub(crate) fn typed_field_names(kind: &EventKind) -> &'static [&'static str] {
    match kind {
        EventKind::TurnStart
        | EventKind::ChatRequest
        | EventKind::ChatResponse
        | EventKind::Other(_) => &[],
        EventKind::ToolCallRequest(_) => &TOOL_CALL_REQUEST_FIELDS,
        EventKind::ToolCallResponse(_) => &TOOL_CALL_RESPONSE_FIELDS,
        EventKind::InquiryRequest(_) => &INQUIRY_REQUEST_FIELDS,
        EventKind::InquiryResponse(_) => &RESPONSE_FIELDS,
    }
}

/// The response fields as read. A `null` `outcome` or `reason` reads as
/// absent (rule `WIRE-RESP-NULL-ABSENT`, decision "Wire: a null reason or
/// outcome reads as absent"): RFD 082 reads as legacy "events without an
/// `outcome` field" and defaults a missing reason to `user`, and one odd
/// `null` must not make a whole real conversation unreadable. A present
/// `"answer": null` is still an answer.
#[derive(Deserialize)]
struct ResponseRepr {
    id: InquiryId,
    #[serde(default)]
    outcome: Option<String>,
    #[serde(default, deserialize_with = "present")]
    answer: Option<Value>,
    #[serde(default)]
    reason: Option<CancellationReason>,
}

impl TryFrom<ResponseRepr> for InquiryResponse {
    type Error = String;

    /// The read rules of RFD 082 "`InquiryResponse` serialization", one arm
    /// per case (rules `WIRE-RESP-*`).
    fn try_from(r: ResponseRepr) -> Result<Self, String> {
        match (r.outcome.as_deref(), r.answer) {
            // WIRE-RESP-LEGACY: no `outcome` but an `answer` is a pre-082 answer.
            (None, Some(answer)) => Ok(InquiryResponse::Answered { id: r.id, answer }),
            // WIRE-RESP-INVALID: neither tag nor answer.
            (None, None) => Err(
                "inquiry_response has neither `outcome` nor `answer`; expected a tagged \
                 response (`outcome`: answered|cancelled|redacted) or a legacy `{id, answer}`"
                    .to_owned(),
            ),
            (Some("answered"), Some(answer)) => Ok(InquiryResponse::Answered { id: r.id, answer }),
            (Some("answered"), None) => {
                Err("inquiry_response with `outcome: answered` is missing `answer`".to_owned())
            }
            // WIRE-RESP-REASON-DEFAULT: a missing reason reads as `user`.
            (Some("cancelled"), _) => Ok(InquiryResponse::Cancelled {
                id: r.id,
                reason: r.reason.unwrap_or(CancellationReason::User),
            }),
            // WIRE-RESP-REDACTED-NO-ANSWER: an answer on disk is never materialised.
            (Some("redacted"), _) => Ok(InquiryResponse::Redacted { id: r.id }),
            (Some(other), _) => Err(format!(
                "unknown inquiry_response outcome `{other}`; expected one of \
                 `answered`, `cancelled`, `redacted`"
            )),
        }
    }
}

impl<'de> Deserialize<'de> for InquiryResponse {
    /// Reads an `InquiryResponse` as RFD 082 prescribes:
    ///
    /// | `outcome` | `answer` | result |
    /// | --- | --- | --- |
    /// | absent or `null` | present | `Answered` (legacy flat form) |
    /// | absent or `null` | absent | error |
    /// | `answered` | present | `Answered` |
    /// | `answered` | absent | error |
    /// | `cancelled` | any | `Cancelled`, `reason` (absent or `null`) defaulting to `User` |
    /// | `redacted` | any | `Redacted`, any answer dropped |
    /// | other | any | error |
    ///
    /// A response is a JSON object: the array form serde's derive would
    /// accept for a struct is not a shape the RFD describes (rule
    /// `WIRE-RESP-INVALID`). A `null` `outcome` or `reason` reads as absent
    /// (rule `WIRE-RESP-NULL-ABSENT`); any other non-string is an error.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = InquiryResponse;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an inquiry_response object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<InquiryResponse, A::Error> {
                let repr = ResponseRepr::deserialize(de::value::MapAccessDeserializer::new(map))?;
                InquiryResponse::try_from(repr).map_err(de::Error::custom)
            }
        }
        d.deserialize_map(V)
    }
}

/// An event's fields in written order, each kept as written.
pub(crate) type Fields = Vec<(String, Opaque)>;

/// `tool_call_request` payload. Only the fields the model reasons about are
/// typed; `arguments` stays opaque (the fixtures hold base64 text there).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallRequest {
    /// The provider's tool-call ID (may repeat across cycles and turns).
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments, opaque.
    pub arguments: Option<Opaque>,
}

/// `tool_call_response` payload.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallResponse {
    /// The tool-call ID it answers.
    pub id: String,
    /// The content the provider sees, opaque.
    pub content: Option<Opaque>,
    /// Whether the call failed, when written.
    pub is_error: Option<bool>,
}

/// The kind of an event and the fields the model types for it.
#[derive(Debug, Clone, PartialEq)]
pub enum EventKind {
    /// `turn_start`: opens a turn.
    TurnStart,
    /// `chat_request`: the user's message (fields opaque).
    ChatRequest,
    /// `chat_response`: the assistant's message (fields opaque).
    ChatResponse,
    /// `tool_call_request`.
    ToolCallRequest(ToolCallRequest),
    /// `tool_call_response`.
    ToolCallResponse(ToolCallResponse),
    /// `inquiry_request`, boxed: its question makes it the largest kind by
    /// far, and every event is moved several times on its way into a
    /// stream.
    InquiryRequest(Box<InquiryRequest>),
    /// `inquiry_response`.
    InquiryResponse(InquiryResponse),
    /// Any other `type` (e.g. `config_delta`), kept verbatim.
    Other(String),
}

impl EventKind {
    /// The `type` tag.
    pub fn tag(&self) -> &str {
        match self {
            EventKind::TurnStart => "turn_start",
            EventKind::ChatRequest => "chat_request",
            EventKind::ChatResponse => "chat_response",
            EventKind::ToolCallRequest(_) => "tool_call_request",
            EventKind::ToolCallResponse(_) => "tool_call_response",
            EventKind::InquiryRequest(_) => "inquiry_request",
            EventKind::InquiryResponse(_) => "inquiry_response",
            EventKind::Other(tag) => tag,
        }
    }

    /// Whether providers may see this event (RFD 004/005 draft "Event
    /// Visibility", rule `WIRE-VISIBILITY`): an allowlist, so any kind this
    /// build does not know is hidden.
    pub(crate) fn is_provider_visible(&self) -> bool {
        match self {
            EventKind::ChatRequest
            | EventKind::ChatResponse
            | EventKind::ToolCallRequest(_)
            | EventKind::ToolCallResponse(_) => true,
            EventKind::TurnStart
            | EventKind::InquiryRequest(_)
            | EventKind::InquiryResponse(_)
            | EventKind::Other(_) => false,
        }
    }
}

/// One persisted event: the `type` tag, an optional `timestamp` kept as
/// written, the kind's typed fields, and every other field verbatim.
///
/// A typed field that holds JSON values (the `answer` of an answered
/// response, the `question` of a request: its `default` and option values)
/// keeps its text as read when it holds a number, and is written back with
/// it as long as it still reads as the typed value: a [`Value`] keeps a
/// number only as an `f64` or a 64-bit integer, and writing it would change
/// its text (`123456789012345678901234567890` would come back as
/// `1.2345678901234568e29`; rule `WIRE-NUMBER-TEXT`). Equality ignores that
/// text: two events are equal when their values are.
#[derive(Clone)]
pub struct Event {
    /// The timestamp string as written, if any.
    pub timestamp: Option<String>,
    /// The kind and its typed fields.
    pub kind: EventKind,
    /// Fields the kind does not type, in written order, kept verbatim.
    pub extra: Fields,
    /// The text of the kind's value-bearing field as read, when it holds a
    /// number (rule `WIRE-NUMBER-TEXT`); written only while it still reads
    /// as the typed value, so changing `kind` never writes stale text.
    value_text: Option<Opaque>,
}

impl PartialEq for Event {
    /// The typed values and the extras; the kept number text is how a value
    /// is spelled, not what it is.
    fn eq(&self, other: &Self) -> bool {
        self.timestamp == other.timestamp && self.kind == other.kind && self.extra == other.extra
    }
}

impl fmt::Debug for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Event")
            .field("timestamp", &self.timestamp)
            .field("kind", &self.kind)
            .field("extra", &self.extra)
            .finish()
    }
}

impl Event {
    /// An event with no timestamp and no extra fields.
    pub fn new(kind: EventKind) -> Self {
        Event::with(None, kind, Vec::new())
    }

    /// An event from its parts (an event built, not read, keeps no number
    /// text: its values are written as serde_json writes them).
    pub(crate) fn with(timestamp: Option<String>, kind: EventKind, extra: Fields) -> Self {
        Event {
            timestamp,
            kind,
            extra,
            value_text: None,
        }
    }

    /// The kept text of the answer, if it still reads as `answer`.
    fn answer_text(&self, answer: &Value) -> Option<&Opaque> {
        let text = self.value_text.as_ref()?;
        serde_json::from_str::<Value>(text.get())
            .is_ok_and(|v| v == *answer)
            .then_some(text)
    }

    /// The kept text of the question, if it still reads as `question`.
    fn question_text(&self, question: &InquiryQuestion) -> Option<&Opaque> {
        let text = self.value_text.as_ref()?;
        serde_json::from_str::<InquiryQuestion>(text.get())
            .is_ok_and(|q| q == *question)
            .then_some(text)
    }

    /// See [`EventKind::is_provider_visible`].
    pub(crate) fn is_provider_visible(&self) -> bool {
        self.kind.is_provider_visible()
    }

    /// The inquiry request, if this is one.
    pub fn as_inquiry_request(&self) -> Option<&InquiryRequest> {
        match &self.kind {
            EventKind::InquiryRequest(r) => Some(r),
            _ => None,
        }
    }

    /// The inquiry response, if this is one.
    pub fn as_inquiry_response(&self) -> Option<&InquiryResponse> {
        match &self.kind {
            EventKind::InquiryResponse(r) => Some(r),
            _ => None,
        }
    }
}

/// An event read as its raw fields, before the kind is typed.
///
/// The oracle looks at raw shapes (a legacy untagged response, a `redacted`
/// event that carries an `answer` on disk) that the typed [`Event`] rightly
/// forgets; both come from this one reader.
#[derive(Debug, Clone, PartialEq)]
pub struct RawEvent {
    /// Every field in written order, `type` and `timestamp` included.
    pub(crate) fields: Fields,
}

impl RawEvent {
    /// The raw text of a field, if present.
    pub fn field(&self, name: &str) -> Option<&Opaque> {
        self.fields.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }

    /// The `type` tag, if it is a JSON string.
    pub fn tag(&self) -> Option<String> {
        self.field("type")
            .and_then(|v| serde_json::from_str::<String>(v.get()).ok())
    }

    /// Types the event (rules `WIRE-EVENT-*`).
    pub(crate) fn into_event(self) -> Result<Event, String> {
        type_fields(self.fields)
    }
}

mod codec;
mod exact;
pub mod id;
mod opaque;
mod reader;
mod typing;
pub(crate) use codec::{has_backslash, is_repeated, json_string, type_fields, type_fields_seen};
pub(crate) use exact::{Exact, key as memo_key, same_bytes};
pub use opaque::Opaque;
pub(crate) use opaque::significant_bytes;
pub(crate) use reader::FieldsRef;
pub(crate) use reader::object_members;
#[cfg(test)]
pub(crate) use reader::object_members_plain;
pub use reader::{EventReader, Format, ReadError, ReadErrorKind, Stream};
pub(crate) use reader::{Resume, Rewind};

#[cfg(all(test, feature = "cli"))]
mod rfd_examples_tests;
#[cfg(all(test, feature = "cli"))]
mod schema_tests;
#[cfg(all(test, feature = "testkit"))]
mod wire_serde_tests;
#[cfg(all(test, feature = "cli"))]
mod wire_stream_files_tests;
