//! In-flight tool types (RFD 028, widened by RFD 082 and RFD 083 Phase 1).
//!
//! These are what a tool emits and what configuration says about its
//! questions, before anything is persisted. The persisted twins live in
//! [`crate::wire`]; the conversion at the recording boundary is
//! [`Question::to_inquiry_question`] (RFD 083 step 5), and provenance is
//! resolved once, at the executor boundary, by [`resolve_inquiry_source`]
//! (RFD 082 "Crossing the executor boundary").

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;

use crate::predicates;
use crate::profile::Provenance;
use crate::wire::{
    InquiryAnswerReusePolicy, InquiryAnswerType, InquiryQuestion, InquirySource, SelectOption,
};

/// The in-flight answer type, wire-tagged by `type` (RFD 082 Phase 3
/// "Secret-question handling").
///
/// `Secret` is free text by construction: a "secret boolean" cannot be said.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AnswerType {
    /// Yes or no.
    Boolean,
    /// One of the options.
    Select {
        /// The options, as strings.
        options: Vec<String>,
    },
    /// Free text.
    Text,
    /// Free text that is never echoed, cached or persisted.
    Secret,
}

/// How an answer may be reused within the turn (RFD 083 "Generic enrichments").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerReusePolicy {
    /// Re-ask every time; no "remember for turn" affordance.
    None,
    /// Booleans offer `Y`/`N` to remember for the turn (the default).
    #[default]
    Turn,
}

impl AnswerReusePolicy {
    fn is_turn(&self) -> bool {
        matches!(self, AnswerReusePolicy::Turn)
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A question a tool asks (RFD 028 `Question`, RFD 083 step 1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Question {
    /// The tool-local question ID; answers are keyed by it.
    pub id: String,
    /// The question text.
    pub text: String,
    /// Context rendered above the question (RFD 083 step 1 renames it from
    /// `pre_amble`, which is still read).
    #[serde(default, alias = "pre_amble", skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// The expected answer type.
    pub answer_type: AnswerType,
    /// A display hint: pre-selected option or suggested value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    /// Human-only (RFD 083): refuse the inquiry backend.
    #[serde(default, skip_serializing_if = "is_false")]
    pub exclusive: bool,
    /// Answer reuse policy (RFD 083).
    #[serde(default, skip_serializing_if = "AnswerReusePolicy::is_turn")]
    pub persistence: AnswerReusePolicy,
}

impl Question {
    fn with_type(id: impl Into<String>, text: impl Into<String>, answer_type: AnswerType) -> Self {
        Question {
            id: id.into(),
            text: text.into(),
            context: None,
            answer_type,
            default: None,
            exclusive: false,
            persistence: AnswerReusePolicy::Turn,
        }
    }

    /// A boolean question.
    pub fn boolean(id: impl Into<String>, text: impl Into<String>) -> Self {
        Question::with_type(id, text, AnswerType::Boolean)
    }

    /// A select question.
    pub fn select(id: impl Into<String>, text: impl Into<String>, options: Vec<String>) -> Self {
        Question::with_type(id, text, AnswerType::Select { options })
    }

    /// A free-text question.
    pub(crate) fn text(id: impl Into<String>, text: impl Into<String>) -> Self {
        Question::with_type(id, text, AnswerType::Text)
    }

    /// A secret question (RFD 082 `Question::secret`).
    pub fn secret(id: impl Into<String>, text: impl Into<String>) -> Self {
        Question::with_type(id, text, AnswerType::Secret)
    }

    /// Sets the context.
    pub(crate) fn with_context(mut self, context: impl Into<String>) -> Self {
        self.context = Some(context.into());
        self
    }

    /// Sets the default.
    pub(crate) fn with_default(mut self, default: Value) -> Self {
        self.default = Some(default);
        self
    }

    /// Sets `exclusive`.
    pub(crate) fn with_exclusive(mut self, exclusive: bool) -> Self {
        self.exclusive = exclusive;
        self
    }

    /// Sets `persistence`.
    pub(crate) fn with_persistence(mut self, persistence: AnswerReusePolicy) -> Self {
        self.persistence = persistence;
        self
    }

    /// Whether the question's answer type, as its tool wrote it, is
    /// `Secret`. Rules-blind on purpose: this is what the tool asked. Whether
    /// the lifecycle treats the question as secret depends on the profile and
    /// is `routing::is_secret`, built on this.
    pub(crate) fn is_secret(&self) -> bool {
        match self.answer_type {
            AnswerType::Secret => true,
            AnswerType::Boolean | AnswerType::Select { .. } | AnswerType::Text => false,
        }
    }

    /// The persisted shape, converted at the recording boundary (RFD 083
    /// step 5, rule `LIFE-REQUEST-SHAPE`): same answer type (including
    /// `Secret`), `default` verbatim, select options as `{value}` objects.
    pub fn to_inquiry_question(&self) -> InquiryQuestion {
        let answer_type = match &self.answer_type {
            AnswerType::Boolean => InquiryAnswerType::Boolean,
            AnswerType::Select { options } => InquiryAnswerType::Select {
                options: options
                    .iter()
                    .map(|o| SelectOption::new(Value::String(o.clone()), None))
                    .collect(),
            },
            AnswerType::Text => InquiryAnswerType::Text,
            AnswerType::Secret => InquiryAnswerType::Secret,
        };
        let persistence = match self.persistence {
            AnswerReusePolicy::None => InquiryAnswerReusePolicy::None,
            AnswerReusePolicy::Turn => InquiryAnswerReusePolicy::Turn,
        };
        InquiryQuestion {
            text: self.text.clone(),
            answer_type,
            default: self.default.clone(),
            context: self.context.clone(),
            exclusive: self.exclusive,
            persistence,
        }
    }
}

/// What one tool invocation returns (RFD 028 `Outcome`), wire-tagged by
/// `type` as local tools print it on stdout.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Outcome {
    /// Done; `content` goes to the model.
    Success {
        /// The tool's result.
        content: String,
    },
    /// Failed. `transient` is dropped at the executor boundary (RFD 082
    /// "Recording lifecycle"): retry guidance travels in the message.
    Error {
        /// The message the model sees.
        message: String,
        /// Whether a retry may help.
        #[serde(default)]
        transient: bool,
    },
    /// Needs an answer before it can go on.
    NeedsInput {
        /// The question, shared: it is several times the size of the other
        /// outcomes and an outcome is moved whole from tool to coordinator,
        /// and the tool's script, the invocation's record and the
        /// coordinator each hold it without a copy (rule
        /// `PERF-SHARED-QUESTION`).
        question: Arc<Question>,
    },
}

/// Who a question is routed to (RFD 034).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuestionTarget {
    /// The human, through the prompter (or the inquiry backend without a TTY).
    #[default]
    User,
    /// The assistant, through the inquiry backend.
    Assistant,
}

/// Whether the user is asked first, or the coordinator goes on unattended:
/// the one choice behind a tool's `run` (permission before the tool runs)
/// and its `result` (before the result goes to the model, rule
/// `LIFE-DELIVERY-PROMPT`), as RFD 083 "Tool configuration" writes both
/// (`run: Unattended`, `result: Unattended`). It has no default of its own:
/// what an unset key means is [`crate::model::config`]'s to decide, once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunPolicy {
    /// Go on without asking.
    Unattended,
    /// Ask the user first; `Y`/`N` remember the decision for the turn.
    Ask,
}

/// Per-question configuration (`conversation.tools.<tool>.questions.<id>`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuestionConfig {
    /// Routing target; `user` by default.
    #[serde(default)]
    pub target: QuestionTarget,
    /// A static answer: the question is never routed (RFD 082 static
    /// short-circuit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<Value>,
    /// Display-only "who's asking" header (RFD 083). Never affects routing
    /// or the persisted source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_label: Option<String>,
}

/// The provenance hook of a built-in tool (RFD 082 `BuiltinTool::inquiry_source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BuiltinHook {
    /// The trait default: `InquirySource::Tool { name }`.
    #[default]
    Default,
    /// An override returning `InquirySource::Assistant` (as `ask_user` has).
    Assistant,
}

/// Where a tool's code comes from (RFD 082 "Crossing the executor boundary").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ToolSource {
    /// Compiled in, with its provenance hook.
    Builtin {
        /// What its `inquiry_source()` returns.
        #[serde(default)]
        hook: BuiltinHook,
    },
    /// A shell command; sees accumulated answers as `tool.answers`.
    Local,
    /// An MCP server; never sees answers and cannot declare provenance.
    Mcp,
}

/// Resolves the persisted `InquirySource` from the tool's kind alone (RFD 082
/// "Source attribution", rule `LIFE-PROVENANCE`). Configuration is not an
/// input: there is no parameter through which it could be.
pub(crate) fn resolve_inquiry_source(source: ToolSource, name: &str) -> InquirySource {
    let assistant_override = match source {
        ToolSource::Builtin {
            hook: BuiltinHook::Assistant,
        } => true,
        ToolSource::Builtin {
            hook: BuiltinHook::Default,
        }
        | ToolSource::Local
        | ToolSource::Mcp => false,
    };
    predicates::recorded_source(assistant_override, name)
}

/// The persisted `InquirySource` under a profile's provenance rule: pre-082
/// the recording site hard-coded the tool's name (RFD 082 "Motivation",
/// rule `LIFE-PROVENANCE-LEGACY`); from RFD 082 Phase 1 on, the executor
/// resolves it from the tool's kind ([`resolve_inquiry_source`]).
pub fn inquiry_source_under(rule: Provenance, source: ToolSource, name: &str) -> InquirySource {
    match rule {
        Provenance::ToolName => InquirySource::tool(name),
        Provenance::Hook => resolve_inquiry_source(source, name),
    }
}

/// The answers a tool sees on re-invocation, keyed by bare question ID,
/// latest answer wins (RFD 082 "Inquiry ID format", rule `LIFE-ACCUMULATED`).
pub type Answers = Map<String, Value>;

/// The maps the model keys by tool name, question ID or cache key:
/// insertion-ordered, so every iteration is in the order the keys came,
/// and hashed with hashbrown's default hasher (foldhash, randomly
/// seeded) rather than std's SipHash, which cost the model about a
/// sixteenth of a step on keys this short (rule `PERF-MODEL-MAPS`). The
/// seed never reaches the output: nothing reads a map's hash or its order
/// but by insertion.
pub type Map<K, V> = indexmap::IndexMap<K, V, hashbrown::DefaultHashBuilder>;
