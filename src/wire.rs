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

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
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
    pub fn new(value: Value, description: Option<String>) -> Self {
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
    pub fn as_str(&self) -> &str {
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
    pub fn from_tag(tag: &str) -> Self {
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
/// here. `tests/suite/spec/decision_tables.rs` checks each against the RFD sentence
/// that fixes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReasonClass {
    /// The call ends with a tool-level error: the routing guards "fail the
    /// tool with a tool-level error" (RFD 082 "Secret questions", RFD 083
    /// "Non-interactive behavior"), an invalid static answer is an
    /// `Outcome::Error` (RFD 083 step 6), and a backend failure keeps the
    /// error it always was (RFD 082 step 6: the response is "unchanged").
    pub fails_tool: bool,
    /// Which questions the reason may close.
    pub closes: ClosesQuestions,
}

/// Which questions a cancellation reason may close, by whether they need a
/// human answer (`Secret`, or RFD 083's `exclusive`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClosesQuestions {
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
    pub fn class(&self) -> Option<ReasonClass> {
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
    pub fn fails_tool(&self) -> bool {
        self.class().is_some_and(|c| c.fails_tool)
    }

    /// Whether only a routing guard records the reason
    /// ([`ClosesQuestions::OnlyHumanOnly`]).
    pub fn is_guard(&self) -> bool {
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

/// A JSON value kept exactly as it was written (bytes included), for the
/// parts of an event the model treats as opaque (tool arguments, chat
/// contents, unknown fields).
///
/// Every `Opaque` the reader builds holds text a [`Value`] can represent (at
/// most 128 levels deep, no lone surrogate escapes, numbers within `f64`
/// range; rule `WIRE-OPAQUE-VALID`), so [`Opaque::to_value`] never fails on
/// read data. Two `Opaque`s are equal when their texts differ only in
/// whitespace outside strings: re-indenting a stream (a pretty array written
/// back as JSON Lines) does not change its values (rule `WIRE-OPAQUE-EQ`).
///
/// The text is held as a plain string (serde_json's `RawValue` would need a
/// second parse to build, or `unsafe`): the reader builds it in the same pass
/// that checks it, and writing borrows a `RawValue` from it.
#[derive(Clone)]
pub struct Opaque(Box<str>);

impl Opaque {
    /// Wraps a value, written compactly.
    pub fn from_value(v: &Value) -> Self {
        // Serializing a `Value` to JSON cannot fail: its keys are strings.
        Opaque(
            serde_json::value::to_raw_value(v)
                .expect("a Value always serializes")
                .into(),
        )
    }

    /// The JSON text as written.
    pub fn get(&self) -> &str {
        &self.0
    }

    /// Parses the text into a `Value`.
    pub fn to_value(&self) -> Value {
        // Read text was checked by `check_raw` when the `Opaque` was built;
        // `from_value` text comes from a `Value`.
        serde_json::from_str(&self.0).expect("Opaque holds valid JSON")
    }

    /// Wraps raw text already checked by [`check_raw`].
    fn from_raw(raw: Box<RawValue>) -> Self {
        Opaque(raw.into())
    }
}

/// Checks that raw JSON text is something a [`Value`] can hold (depth limit,
/// valid escapes, finite numbers) without building the tree: `RawValue`
/// alone skips over its input and accepts all three (rule
/// `WIRE-OPAQUE-VALID`).
fn check_raw(raw: &RawValue) -> Result<(), String> {
    serde_json::from_str::<Checked>(raw.get())
        .map(|Checked| ())
        .map_err(|e| reader::strip_position(&e.to_string()))
}

/// A JSON value read only to check that serde_json can represent it.
struct Checked;

impl<'de> Deserialize<'de> for Checked {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Checked;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Checked, E> {
                Ok(Checked)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Checked, E> {
                Ok(Checked)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Checked, E> {
                Ok(Checked)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Checked, E> {
                Ok(Checked)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Checked, E> {
                Ok(Checked)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Checked, E> {
                Ok(Checked)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Checked, A::Error> {
                while seq.next_element::<Checked>()?.is_some() {}
                Ok(Checked)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Checked, A::Error> {
                while map.next_key::<Checked>()?.is_some() {
                    map.next_value::<Checked>()?;
                }
                Ok(Checked)
            }
        }
        d.deserialize_any(V)
    }
}

/// The bytes of a JSON text that carry meaning: all of them except
/// whitespace outside strings. Raw control characters cannot occur inside a
/// valid JSON string, so dropping them never changes a value.
pub(crate) fn significant_bytes(text: &[u8]) -> impl Iterator<Item = u8> + '_ {
    let mut in_string = false;
    let mut escape = false;
    text.iter().copied().filter(move |&b| {
        if in_string {
            if escape {
                escape = false;
            } else if b == b'\\' {
                escape = true;
            } else if b == b'"' {
                in_string = false;
            }
            true
        } else if b == b'"' {
            in_string = true;
            true
        } else {
            !matches!(b, b' ' | b'\t' | b'\n' | b'\r')
        }
    })
}

impl PartialEq for Opaque {
    /// Equal up to whitespace outside strings (see the type's docs).
    fn eq(&self, other: &Self) -> bool {
        significant_bytes(self.get().as_bytes()).eq(significant_bytes(other.get().as_bytes()))
    }
}

impl fmt::Debug for Opaque {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.get())
    }
}

impl Serialize for Opaque {
    /// Writes the text verbatim, through a `RawValue` borrowed from it.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let raw: &RawValue = serde_json::from_str(&self.0)
            .map_err(|e| serde::ser::Error::custom(format_args!("opaque text: {e}")))?;
        raw.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Opaque {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(d)?;
        check_raw(&raw).map_err(de::Error::custom)?;
        Ok(Opaque::from_raw(raw))
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
    /// `inquiry_request`.
    InquiryRequest(InquiryRequest),
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
    pub fn is_provider_visible(&self) -> bool {
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
    pub fn is_provider_visible(&self) -> bool {
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
    // The envelope first, in written order (the first bad `type` or
    // `timestamp` is the error); the fields are then moved once, with no
    // intermediate list (the oracle's borrowed path allocates nothing here).
    let mut tag_at = None;
    let mut timestamp: Option<String> = None;
    for (i, (k, v)) in fields.iter().enumerate() {
        match k.as_ref() {
            "type" => {
                if json_string(v.text()).is_none() {
                    return Err(format!("`type` must be a string, found {}", v.text()));
                }
                tag_at = Some(i);
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
    let tag_at = tag_at.ok_or_else(|| untyped_event(&fields))?;
    let tag = json_string(fields[tag_at].1.text()).expect("checked above");
    // The tag text borrows the fields, which are moved below.
    let tag = match tag.as_ref() {
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
        .into_iter()
        .filter(|(k, _)| !matches!(k.as_ref(), "type" | "timestamp"));
    let mut value_text = None;
    let (kind, extra) = match tag {
        Ok(Typed::TurnStart) => (EventKind::TurnStart, kept(rest)),
        Ok(Typed::ChatRequest) => (EventKind::ChatRequest, kept(rest)),
        Ok(Typed::ChatResponse) => (EventKind::ChatResponse, kept(rest)),
        Ok(Typed::ToolCallRequest) => {
            let (mut t, extra) = take(rest, &["id", "name", "arguments"]);
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
            let (mut t, extra) = take(rest, &["id", "content", "is_error"]);
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
            let names = ["id", "source", "question"];
            let (mut t, extra) = take(rest, &names);
            let fast = match &t {
                [Some(id), Some(source), Some(question)] => {
                    typing::inquiry_request(id.text(), source.text(), question.text())
                }
                _ => None,
            };
            let req: InquiryRequest = match fast {
                Some(req) => req,
                None => {
                    typing::note_serde_typing();
                    from_fields(&names, &t).map_err(|e| invalid("inquiry_request", &e))?
                }
            };
            value_text = number_text(t[2].take());
            (EventKind::InquiryRequest(req), extra)
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
/// (rule `WIRE-NUMBER-TEXT`) and the typed event keeps opaque text at all.
fn number_text<V: FieldValue>(field: Option<V>) -> Option<Opaque> {
    field
        .filter(|v| has_number(v.text().as_bytes()))
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
    if memchr::memchr(b'\\', inner.as_bytes()).is_some() {
        unescape(inner)
            .or_else(|| serde_json::from_str::<String>(text).ok())
            .map(Cow::Owned)
    } else {
        Some(Cow::Borrowed(inner))
    }
}

/// The content of a JSON string that holds escapes, `inner` being the
/// content of a valid JSON string ([`json_string`]'s precondition: no raw
/// `"` or control character, every escape well formed). Decoded here; a
/// surrogate escape that is not half of a pair, or anything unexpected,
/// gives way (`None`) to serde, which decides. What it returns is what
/// serde_json decodes (`unescape_is_serdes`).
fn unescape(inner: &str) -> Option<String> {
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
fn from_fields<T: for<'de> Deserialize<'de>, V: FieldValue>(
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
pub(crate) fn is_repeated<K: AsRef<str>, V>(
    fields: &[(K, V)],
    names: &mut Option<std::collections::HashSet<String>>,
    key: &str,
) -> bool {
    match names {
        Some(set) => !set.insert(key.to_owned()),
        None if fields.iter().any(|(name, _)| name.as_ref() == key) => true,
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

pub mod id;
mod reader;
mod typing;
pub(crate) use reader::FieldsRef;
pub(crate) use reader::object_members;
pub use reader::{EventReader, Format, ReadError, ReadErrorKind, Stream};
pub(crate) use reader::{Resume, Rewind};
