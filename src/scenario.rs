//! The input language of the model and the driver that runs it.
//!
//! A [`Scenario`] fixes the whole environment: the profile, whether a TTY is
//! present, each tool's kind, configuration and behaviour (a small program),
//! the turns and their cycles of tool calls, the answers the prompter, the
//! inquiry backend and the permission prompt will give, in order, and the
//! scheduler's choices among parallel work. [`run`] drives the
//! [`Coordinator`] through it and returns the [`Trace`]: the persisted stream
//! and everything the tools, the user and the backend saw. The same scenario
//! gives the same trace, byte for byte.

pub mod features;
#[cfg(feature = "testkit")]
pub(crate) mod machine;
#[cfg(feature = "testkit")]
pub(crate) mod state_key;
#[cfg(feature = "testkit")]
pub(crate) mod strip;

use std::collections::VecDeque;
use std::fmt;
#[cfg(feature = "cli")]
use std::hash::Hash;
use std::hash::Hasher;
use std::sync::Arc;

use crate::model::tool::Map;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::model::ask_user;
use crate::model::config::{
    self, ConfigError, ConfigSource, Enable, PartialEnable, PartialQuestionConfig,
    PartialToolConfig, Toggle, ToolConfig, ToolSettings,
};
use crate::model::coordinator::{
    Call, Coordinator, CoordinatorError, Effect, Input, ResponseKind, RouteTaken, RunPolicy,
    ToolSpec,
};
use crate::model::inquiry::BackendCall;
use crate::model::prompt::Presentation;
use crate::model::routing::{self, InquiryErrorKind, PrompterFailure, TokenCause};
use crate::model::tool::{
    Answers, BuiltinHook, Outcome, Question, QuestionConfig, ToolSource, inquiry_source_under,
};
use crate::profile::{ProfileName, ResponseForm, Rules, SeparatorPolicy};
use crate::wire::{Event, EventKind, InquiryResponse};
#[cfg(feature = "cli")]
use state_key::hash_serialized;

fn yes() -> bool {
    true
}

/// A whole run of the model, described as data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// The rule set (default `rfd083`).
    #[serde(default)]
    pub profile: ProfileName,
    /// Whether an interactive terminal is present (default yes).
    #[serde(default = "yes")]
    pub tty: bool,
    /// The tools, by name.
    pub tools: Map<String, ToolSetup>,
    /// The turns.
    pub turns: Vec<TurnScript>,
    /// The prompter's replies, consumed in order; when they run out the
    /// prompter reads EOF.
    #[serde(default)]
    pub prompter: Vec<PrompterReply>,
    /// The inquiry backend's replies, consumed in order; when they run out
    /// the mock backend fails with `Other`.
    #[serde(default)]
    pub backend: Vec<BackendReply>,
    /// The mock backend's replies by inquiry ID (RFD 028 "A
    /// `MockInquiryBackend` returns pre-configured answers keyed by inquiry
    /// ID"; rule `LIFE-BACKEND-BY-ID`): an inquiry whose ID is here gets
    /// that reply whatever the schedule; any other takes the next of
    /// `backend`.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub backend_by_id: Map<String, BackendReply>,
    /// The dedicated inquiry model, when the backend does not use the
    /// conversation's (rule `LIFE-BACKEND-MODEL`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inquiry_model: Option<String>,
    /// The permission prompt's replies; when they run out the user denies.
    #[serde(default)]
    pub permissions: Vec<PermissionReply>,
    /// The result-delivery prompt's replies, in order; when they run out
    /// the user withholds (rule `LIFE-DELIVERY-PROMPT`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deliveries: Vec<DeliveryReply>,
    /// The command line's `-t`/`-T` flags, in order (`"-T"`, `"-t NAME"`…),
    /// applied to the tools' `enable` (rules `CONFIG-ENABLE-LIFECYCLE`,
    /// `CONFIG-SCENARIO-LAYER`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub toggles: Vec<String>,
    /// Scheduler choices: at each step the pending piece of work at
    /// `choice % pending` runs next; when they run out, the oldest runs.
    #[serde(default)]
    pub schedule: Vec<u32>,
    /// An amendment of `profile` the run follows: a profile file's
    /// `switches` and `tables` over `profile` as its base (`conform
    /// --profile FILE` sets it for an adapter that implements the
    /// amendment; rule `CONF-AMENDMENT`). Absent: the profile's own rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amendment: Option<serde_json::Map<String, Value>>,
}

impl Scenario {
    /// The rules the scenario runs under: its profile's, amended by
    /// [`Scenario::amendment`] when it has one (read as a profile file over
    /// `profile`, so an unusable amendment is refused as a file is).
    pub fn rules(&self) -> Result<Rules, ScenarioError> {
        let Some(a) = &self.amendment else {
            return Ok(self.profile.rules());
        };
        let mut doc = a.clone();
        for (k, v) in [
            ("title", "the scenario's amendment"),
            ("amends", self.profile.as_str()),
            ("base", self.profile.as_str()),
        ] {
            doc.insert(k.to_owned(), Value::String(v.to_owned()));
        }
        crate::review::profile_file::parse("amendment", &Value::Object(doc).to_string())
            .map(|set| set.rules)
            .map_err(|e| ScenarioError::Unacceptable(e.to_string()))
    }
}

/// One tool: its kind, its configuration, its behaviour.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolSetup {
    /// Where its code comes from; defaults to a built-in with the default
    /// provenance hook (for `ask_user`, its own `Assistant` hook).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) source: Option<ToolSource>,
    /// What it does when invoked.
    pub program: Program,
    /// `conversation.tools.<tool>.questions`.
    /// Shared with the spec of every run (rule `PERF-SHARED-CONFIG`): a
    /// run reads them, none changes them.
    #[serde(default, skip_serializing_if = "no_questions")]
    pub(crate) questions: Arc<Map<String, QuestionConfig>>,
    /// The permission policy, when this layer sets it; unset, the layers
    /// below decide (`ask_user`'s registration: unattended; no layer: ask,
    /// [`crate::model::config`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) run: Option<RunPolicy>,
    /// The result-delivery policy, when this layer sets it: `ask` shows the
    /// `DeliverToolResult` prompt once the tool finishes (rule
    /// `LIFE-DELIVERY-PROMPT`); unset, the layers below decide.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) result: Option<RunPolicy>,
    /// `enable` (RFD 081 shapes and the pre-081 strings), merged over the
    /// built-in's registered `enable` for `ask_user`. A tool that ends up
    /// off after the toggles is not offered: a call to it fails as to an
    /// unconfigured tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) enable: Option<PartialEnable>,
    /// Per-question assistant-target configuration (RFD 034's assistant
    /// target config, as RFD 028's backend uses it), by question ID.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub(crate) assistant: Map<String, AssistantTarget>,
}

/// What the inquiry backend uses for one question (rule
/// `LIFE-BACKEND-MODEL`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AssistantTarget {
    /// The model asked; overrides the scenario's `inquiry_model`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) model: Option<String>,
}

/// A tool's behaviour.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Program {
    /// Asks its questions in order, then finishes.
    Script {
        /// The questions, in the order asked.
        #[serde(default)]
        asks: Vec<ScriptedAsk>,
        /// How it ends once every question has an accepted answer.
        #[serde(default)]
        finish: Finish,
    },
    /// The `ask_user` built-in of RFD 083, driven by the call's arguments.
    AskUser,
    /// A local (shell-command) tool, as the local-tool protocol sees it
    /// (rule `LIFE-LOCAL-STDOUT`): what the command prints on stdout at each of
    /// the tool's invocations, in run order across every call. A line that
    /// is an `Outcome` (`{"type":"needs_input","question":…}`,
    /// `{"type":"success","content":…}`, `{"type":"error",…}`) is that
    /// outcome; any other text is the tool's output, verbatim. Once the
    /// list runs out the command prints nothing (an empty success). The
    /// command gets its answers in the `tool.answers` context.
    Local {
        /// Stdout of each invocation.
        #[serde(default)]
        stdout: Vec<String>,
    },
}

/// One question of a scripted tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedAsk {
    /// The question, shared with every outcome that asks it (rule
    /// `PERF-SHARED-QUESTION`).
    pub question: Arc<Question>,
    /// How many answers the tool rejects (re-asking each time) before it
    /// accepts one.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reject_first: u8,
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

/// How a scripted tool ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(tag = "with", rename_all = "snake_case", deny_unknown_fields)]
pub enum Finish {
    /// `Outcome::Success`.
    #[default]
    Succeed,
    /// `Outcome::Error`.
    Fail {
        /// The (dropped) `transient` flag.
        #[serde(default)]
        transient: bool,
    },
}

/// One turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnScript {
    /// The user's message.
    #[serde(default)]
    pub user: String,
    /// The cycles: each the tool calls the assistant emits at once.
    #[serde(default)]
    pub cycles: Vec<Vec<Call>>,
}

/// What the user does at a question prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "reply", rename_all = "snake_case", deny_unknown_fields)]
pub enum PrompterReply {
    /// Answers; `remember` is the uppercase `Y`/`N` (honoured only where
    /// offered).
    Answer {
        /// The answer.
        value: Value,
        /// Remember for the turn.
        #[serde(default)]
        remember: bool,
    },
    /// Ctrl-C.
    CtrlC,
    /// EOF on stdin.
    Eof,
    /// Another prompter failure (rule `LIFE-PROMPTER-FAILURE`): the
    /// coordinator sees a cancelled prompt, as for Ctrl-C.
    Failure {
        /// Which.
        failure: PrompterFailure,
    },
}

/// What the inquiry backend does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "reply", rename_all = "snake_case", deny_unknown_fields)]
pub enum BackendReply {
    /// A well-formed structured response with this answer (which is still
    /// validated against the question).
    Answer {
        /// The answer.
        value: Value,
    },
    /// A structured response exactly as given (to exercise extraction).
    Raw {
        /// The response object.
        structured: Value,
    },
    /// An `InquiryError`.
    Error {
        /// Which.
        error: InquiryErrorKind,
    },
    /// The cancellation token fires while the backend works (rule
    /// `LIFE-TOKEN-CAUSE`): the inquiry records `cancelled (user)`, then the
    /// cause acts on the run. `tool_cancel` ends the call like any cancelled
    /// inquiry; `restart` runs the tool again from scratch in the same call
    /// (its question takes the next attempt); `aborted_turn` ends the call,
    /// cancels every other inquiry of the cycle, open or opened later, and
    /// skips the turn's remaining cycles; `hard_quit` closes every open
    /// inquiry and writes nothing after.
    Cancelled {
        /// What fired it.
        cause: TokenCause,
    },
}

/// What the user does at a permission prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reply", rename_all = "snake_case", deny_unknown_fields)]
pub enum PermissionReply {
    /// `y`, or `Y` to remember.
    Allow {
        /// Remember for the turn.
        #[serde(default)]
        remember: bool,
    },
    /// `n`, or `N` to remember.
    Deny {
        /// Remember for the turn.
        #[serde(default)]
        remember: bool,
    },
}

/// What the user does at the result-delivery prompt (`result = "ask"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reply", rename_all = "snake_case", deny_unknown_fields)]
pub enum DeliveryReply {
    /// The tool's response goes to the assistant as it is.
    Deliver,
    /// The assistant gets a withheld-result response instead.
    Withhold,
}

/// One result-delivery prompt.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeliveryRecord {
    /// When.
    #[serde(flatten)]
    pub(crate) at: At,
    /// The tool-call ID.
    pub(crate) tool_call_id: String,
    /// The tool.
    pub(crate) tool: String,
    /// How many events were persisted when the prompt was shown (none is
    /// written for it: RFD 082 Non-Goals).
    pub stream_position: usize,
    /// What the user did.
    pub reply: DeliveryReply,
}

/// Where in the run something happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct At {
    /// 0-based turn.
    pub turn: usize,
    /// 0-based cycle within the turn.
    pub cycle: usize,
}

/// One tool invocation, with the answers it received.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InvocationRecord {
    /// When.
    #[serde(flatten)]
    pub at: At,
    /// The tool-call ID.
    pub tool_call_id: String,
    /// The tool.
    pub tool: String,
    /// Which call of its cycle (0-based), to tell apart calls that share an ID.
    pub call_index: usize,
    /// 1-based invocation number within the call.
    pub invocation: u32,
    /// How many events were persisted when the tool was invoked.
    pub(crate) stream_position: usize,
    /// The stream index of the inquiry request its question produced, if one
    /// was recorded.
    pub(crate) request_event: Option<usize>,
    /// The accumulated answers it saw (empty for MCP tools).
    pub answers: Answers,
    /// For a local program: the context its command gets (`{"tool":
    /// {"name", "arguments", "answers"}}`, rule `LIFE-LOCAL-CONTEXT`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<Value>,
    /// What it returned.
    pub(crate) outcome: Outcome,
}

/// One question shown at the prompter.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PromptRecord {
    /// When.
    #[serde(flatten)]
    pub at: At,
    /// The tool-call ID.
    pub(crate) tool_call_id: String,
    /// Which call of its cycle (0-based).
    pub call_index: usize,
    /// The inquiry ID threaded with the prompt (none pre-082).
    pub(crate) inquiry_id: Option<String>,
    /// How many events were persisted when the prompt was shown.
    pub(crate) stream_position: usize,
    /// What the user saw.
    pub presentation: Presentation,
    /// What the user did.
    pub reply: PrompterReply,
    /// The question shown is one its tool asks as `Secret`, whatever the
    /// profile makes of it (what printing masks; not part of the
    /// serialized trace).
    #[serde(skip)]
    pub(crate) secret: bool,
}

/// One permission prompt.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PermissionRecord {
    /// When.
    #[serde(flatten)]
    pub(crate) at: At,
    /// The tool-call ID.
    pub tool_call_id: String,
    /// The tool.
    pub(crate) tool: String,
    /// What the user did.
    pub(crate) reply: PermissionReply,
}

/// One inquiry-backend call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BackendRecord {
    /// When.
    #[serde(flatten)]
    pub at: At,
    /// The tool-call ID.
    pub(crate) tool_call_id: String,
    /// The tool.
    pub(crate) tool: String,
    /// Which call of its cycle (0-based).
    pub call_index: usize,
    /// The call.
    pub call: BackendCall,
    /// The model asked: the question's assistant target, else the
    /// dedicated inquiry model, else (none) the conversation's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// What the backend did.
    pub reply: BackendReply,
    /// The question is one its tool asks as `Secret`, whatever the profile
    /// makes of it (what printing masks; not part of the serialized trace).
    #[serde(skip)]
    pub(crate) secret: bool,
}

/// What the turn cache held when a turn ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RememberedKeys {
    /// The turn.
    pub(crate) turn: usize,
    /// Keys of the remembered tool answers (`<tool>.<question>`).
    pub tool_answers: Vec<String>,
    /// Keys of the remembered permission decisions (the same map pre-082).
    pub(crate) permission_decisions: Vec<String>,
}

/// How one question was resolved.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResolutionRecord {
    /// When.
    #[serde(flatten)]
    pub(crate) at: At,
    /// The tool-call ID.
    pub(crate) tool_call_id: String,
    /// Which call of its cycle (0-based).
    pub(crate) call_index: usize,
    /// The question's ID.
    pub(crate) question_id: String,
    /// The path it took.
    pub route: RouteTaken,
    /// Whether its request was recorded.
    pub recorded: bool,
}

/// One `ToolCallResponse` as the model sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolResponseRecord {
    /// When.
    #[serde(flatten)]
    pub(crate) at: At,
    /// The tool-call ID.
    pub tool_call_id: String,
    /// The tool.
    pub tool: String,
    /// The text.
    pub content: String,
    /// Whether it is an error.
    pub is_error: bool,
    /// Which outcome it reports (conformance compares this class; not part
    /// of the serialized trace).
    #[serde(skip)]
    pub kind: ResponseKind,
}

/// Everything a run produced.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Trace {
    /// The profile it ran under.
    pub(crate) profile: ProfileName,
    /// The switches it ran under: `profile`'s, unless run with other rules
    /// ([`run_under`], a profile file).
    #[serde(skip)]
    pub rules: Rules,
    /// The persisted stream.
    #[serde(serialize_with = "serialize_stream")]
    pub stream: Vec<Event>,
    /// Every tool invocation.
    pub invocations: Vec<InvocationRecord>,
    /// Every question prompt.
    pub prompts: Vec<PromptRecord>,
    /// Every permission prompt.
    pub permission_prompts: Vec<PermissionRecord>,
    /// Every result-delivery prompt.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub delivery_prompts: Vec<DeliveryRecord>,
    /// Every inquiry-backend call.
    pub backend_calls: Vec<BackendRecord>,
    /// How every question was resolved.
    pub resolutions: Vec<ResolutionRecord>,
    /// The keys of the turn's remembered maps when each turn ended (values
    /// are not shown: the maps must never hold a secret, and keys suffice to
    /// see what was remembered).
    pub remembered: Vec<RememberedKeys>,
    /// Every tool response.
    pub tool_responses: Vec<ToolResponseRecord>,
    /// The run ended in a hard quit (rule `LIFE-TOKEN-CAUSE`): the process
    /// stopped with tool calls of its last turn still open, and nothing was
    /// written after. Such a stream is what RFD 082 Phase 3's sanitize
    /// repairs on the next load.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
}

fn serialize_stream<S: serde::Serializer>(events: &[Event], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(events)
}

impl Trace {
    /// The stream as the profile's writer puts it on disk: pre-082 writers
    /// write answered responses in the flat `{id, answer}` form.
    pub fn persisted_json(&self) -> Value {
        let events: Vec<Value> = self
            .stream
            .iter()
            .map(|e| {
                let mut v = serde_json::to_value(e).unwrap_or(Value::Null);
                let legacy_answer = matches!(self.rules.response_form, ResponseForm::Flat)
                    && matches!(
                        e.kind,
                        EventKind::InquiryResponse(InquiryResponse::Answered { .. })
                    );
                if let (true, Value::Object(m)) = (legacy_answer, &mut v) {
                    m.shift_remove("outcome");
                }
                v
            })
            .collect();
        Value::Array(events)
    }
}

/// Why a scenario could not run: the scenario is to blame, or the model.
///
/// The two are different answers for a user. An [`Unacceptable`] scenario is
/// input the model does not take (an MCP tool that asks, an unknown toggle,
/// a call of a tool the scenario does not define): fix the scenario. A
/// [`Crash`] is the model failing on a scenario it accepted (the coordinator
/// refused an input the driver built, a run that does not end): a bug in
/// the model, to report.
///
/// [`Unacceptable`]: ScenarioError::Unacceptable
/// [`Crash`]: ScenarioError::Crash
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScenarioError {
    /// The scenario is not one the model can run; the message names the
    /// part to blame.
    Unacceptable(String),
    /// The model failed on a scenario it accepted.
    Crash(String),
}

impl ScenarioError {
    /// The message, without saying who is to blame.
    pub fn message(&self) -> &str {
        match self {
            ScenarioError::Unacceptable(m) | ScenarioError::Crash(m) => m,
        }
    }

    /// Whether the scenario is to blame (rather than the model).
    pub fn is_unacceptable(&self) -> bool {
        match self {
            ScenarioError::Unacceptable(_) => true,
            ScenarioError::Crash(_) => false,
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScenarioError::Unacceptable(m) => f.write_str(m),
            ScenarioError::Crash(m) => write!(f, "model crash: {m}"),
        }
    }
}

impl std::error::Error for ScenarioError {}

/// The coordinator refusing an input the driver built is the model's
/// error: the driver only builds inputs of an accepted scenario.
impl From<CoordinatorError> for ScenarioError {
    fn from(e: CoordinatorError) -> Self {
        ScenarioError::Crash(format!("coordinator: {e}"))
    }
}

/// The most steps a run may take; scenarios are finite by construction, this
/// only turns a driver bug into an error instead of a hang.
pub(crate) const MAX_STEPS: usize = 100_000;

/// Whether a tool configures no question (its `questions` not written).
fn no_questions(questions: &Arc<Map<String, QuestionConfig>>) -> bool {
    questions.is_empty()
}

impl ToolSetup {
    /// A tool that runs `program` and configures nothing else: no source
    /// override, no questions, no assistant targets, and `run`, `result`
    /// and `enable` unset, so the layers below decide them. Every tool the
    /// crate builds starts here (`ToolSetup { run: …, ..ToolSetup::new(p) }`),
    /// so a new configuration key is a field and this one line, not an edit
    /// at every place a tool is drawn.
    #[cfg(feature = "testkit")]
    pub(crate) fn new(program: Program) -> ToolSetup {
        ToolSetup {
            source: None,
            program,
            questions: Arc::default(),
            run: None,
            result: None,
            enable: None,
            assistant: Map::default(),
        }
    }

    /// The executor behind the tool configured under `key`, and so its kind
    /// and provenance hook (RFD 082 "Crossing the executor boundary").
    ///
    /// An explicit `source` installs that executor directly (a test
    /// executor, as RFD 082 lets `TestExecutorSource` do). Without one, a
    /// scripted tool is a synthetic built-in with the default hook, and
    /// `ask_user`'s program is a built-in looked up by the config key (RFD
    /// 083 "Built-in aliasing", rule `CONFIG-BUILTIN-ALIAS-NOT-FOUND`): under
    /// any key but `ask_user` there is no executor, and running the tool
    /// fails with `NotFound`.
    pub fn executor(&self, key: &str) -> Result<ToolSource, ConfigError> {
        match (self.source, &self.program) {
            (Some(s), _) => Ok(s),
            (None, Program::AskUser) => ConfigSource::Builtin { tool: None }.executor(key),
            (None, Program::Script { .. }) => Ok(ToolSource::Builtin {
                hook: BuiltinHook::Default,
            }),
            (None, Program::Local { .. }) => Ok(ToolSource::Local),
        }
    }

    /// This tool's entry in the user's configuration
    /// (`conversation.tools.<key>`): what the scenario sets and nothing
    /// more, so that [`crate::model::config`] layers it over the built-ins exactly
    /// as it layers any user's file (RFD 083 Phase 1 step 3).
    ///
    /// `source` is the configuration's string form of the executor's kind:
    /// `builtin` for a built-in (and for a scripted tool, a synthetic
    /// built-in), `local`, `mcp.<key>`. Configuration never reads the
    /// executor from it (rule `CONFIG-SOURCE-EXECUTOR`); the driver installs
    /// the executor by [`ToolSetup::executor`].
    pub(crate) fn layer(&self, key: &str) -> PartialToolConfig {
        let source = match (self.source, &self.program) {
            (Some(ToolSource::Builtin { .. }), _)
            | (None, Program::AskUser | Program::Script { .. }) => {
                ConfigSource::Builtin { tool: None }
            }
            (Some(ToolSource::Local), _) | (None, Program::Local { .. }) => ConfigSource::Local,
            (Some(ToolSource::Mcp), _) => ConfigSource::Mcp {
                server: key.to_owned(),
                tool: None,
            },
        };
        PartialToolConfig {
            source: Some(source),
            enable: self.enable,
            run: self.run,
            result: self.result,
            style: None,
            questions: self
                .questions
                .iter()
                .map(|(id, q)| {
                    let layer = PartialQuestionConfig {
                        target: Some(q.target),
                        answer: q.answer.clone(),
                        prompt_label: q.prompt_label.clone(),
                    };
                    (id.clone(), layer)
                })
                .collect(),
            description: None,
            parameters: None,
        }
    }

    /// What the coordinator knows of the tool configured under `key`: its
    /// executor's kind, and its configuration as [`configured_tools`]
    /// resolved it.
    ///
    /// A tool with no executor (an alias, see [`ToolSetup::executor`]) is
    /// still configured: the coordinator offers it and the driver answers
    /// `NotFound` when it runs; its spec shows it as a default built-in,
    /// which nothing reads but `Debug`.
    pub fn spec(&self, key: &str, config: &ToolConfig) -> ToolSpec {
        self.spec_of(key, config.settings())
    }

    /// [`ToolSetup::spec`] from the settings a run resolved
    /// ([`configured_settings`]), taken rather than copied.
    /// What the coordinator knows of the tool under `key`, a key no
    /// built-in is registered under, or `None` where it is off: its layer
    /// ([`ToolSetup::layer`]) is then the whole configuration, so it is read
    /// straight from the setup, its questions copied once rather than built
    /// into a layer and resolved out of it (rule `PERF-RUN-TOOLS`; the
    /// layer's `source` is always set, so resolving it cannot fail).
    fn own_spec(&self, key: &str) -> Option<ToolSpec> {
        let enable = self.enable.unwrap_or_default().resolve();
        enable.state.then(|| ToolSpec {
            source: self.executor(key).unwrap_or(ToolSource::Builtin {
                hook: BuiltinHook::Default,
            }),
            questions: Arc::clone(&self.questions),
            run: config::run_or_default(self.run),
            result: config::result_or_default(self.result),
        })
    }

    fn spec_of(&self, key: &str, settings: ToolSettings) -> ToolSpec {
        ToolSpec {
            source: self.executor(key).unwrap_or(ToolSource::Builtin {
                hook: BuiltinHook::Default,
            }),
            questions: Arc::new(settings.questions),
            run: settings.run,
            result: settings.result,
        }
    }
}

/// Every scenario tool's configuration: the scenario's tools as the user's
/// layer over the built-ins, resolved, then the scenario's `-t`/`-T` flags
/// applied, by [`config::effective_tools`], the path every model run takes
/// (RFD 083 "Tool configuration", Phase 1 step 3; rules
/// `CONFIG-MERGE-UNDER`, `CONFIG-TOGGLE`, `CONFIG-ENABLE-LIFECYCLE`). In the
/// scenario's order, and only its tools: a built-in the scenario does not
/// list has no program in the run, so the run has no such tool.
pub fn configured_tools(scenario: &Scenario) -> Result<Map<String, ToolConfig>, ScenarioError> {
    let (user, toggles) = user_layer(scenario)?;
    let effective = config::effective_tools(&user, &toggles)
        .map_err(|e| ScenarioError::Unacceptable(e.to_string()))?;
    scenario_tools_of(scenario, effective)
}

/// [`configured_tools`] of the fields a run reads, resolved by
/// [`config::effective_settings`] without the rest (rule
/// `PERF-MODEL-SETTINGS`): what every run of the model starts from.
fn configured_settings(scenario: &Scenario) -> Result<Map<String, ToolSettings>, ScenarioError> {
    let (user, toggles) = user_layer(scenario)?;
    let effective = config::effective_settings(&user, &toggles)
        .map_err(|e| ScenarioError::Unacceptable(e.to_string()))?;
    scenario_tools_of(scenario, effective)
}

/// The tools a run's coordinator knows: each enabled scenario tool's spec,
/// in the scenario's order, from [`configured_settings`].
fn run_tools_plain(scenario: &Scenario) -> Result<Map<String, ToolSpec>, ScenarioError> {
    Ok(configured_settings(scenario)?
        .into_iter()
        .filter(|(_, settings)| settings.enable.state)
        .filter_map(|(n, settings)| {
            let spec = scenario.tools.get(&n)?.spec_of(&n, settings);
            Some((n, spec))
        })
        .collect())
}

/// [`run_tools_plain`], built in one map (rule `PERF-RUN-TOOLS`): without
/// `-t`/`-T` flags no tool's settings depend on another's, so each
/// scenario tool is resolved alone by [`config::untoggled_settings`] and
/// the built-ins it does not list are never built. With flags, the plain
/// path.
fn run_tools(scenario: &Scenario) -> Result<Map<String, ToolSpec>, ScenarioError> {
    if !scenario.toggles.is_empty() {
        return run_tools_plain(scenario);
    }
    let mut tools = Map::with_capacity_and_hasher(scenario.tools.len(), Default::default());
    for (name, setup) in &scenario.tools {
        let spec = match crate::model::builtins::find(name) {
            None => setup.own_spec(name),
            Some(_) => {
                let settings = config::untoggled_settings(name, setup.layer(name))
                    .map_err(|e| ScenarioError::Unacceptable(e.to_string()))?;
                settings.enable.state.then(|| setup.spec_of(name, settings))
            }
        };
        if let Some(spec) = spec {
            tools.insert(name.clone(), spec);
        }
    }
    Ok(tools)
}

/// The scenario's tools as the user's configuration layer, and its
/// `-t`/`-T` flags parsed.
fn user_layer(
    scenario: &Scenario,
) -> Result<(Map<String, PartialToolConfig>, Vec<Toggle>), ScenarioError> {
    let toggles = scenario
        .toggles
        .iter()
        .map(|t| Toggle::parse(t))
        .collect::<Result<Vec<_>, String>>()
        .map_err(ScenarioError::Unacceptable)?;
    let user = scenario
        .tools
        .iter()
        .map(|(n, t)| (n.clone(), t.layer(n)))
        .collect();
    Ok((user, toggles))
}

/// The scenario's tools, in its order, out of every tool resolved.
fn scenario_tools_of<T>(
    scenario: &Scenario,
    mut effective: Map<String, T>,
) -> Result<Map<String, T>, ScenarioError> {
    scenario
        .tools
        .keys()
        .map(|n| {
            effective
                .swap_remove(n)
                .map(|c| (n.clone(), c))
                .ok_or_else(|| ScenarioError::Crash(format!("configuration lost the tool `{n}`")))
        })
        .collect()
}

/// A scripted tool's memory across the invocations of one call: the IDs
/// it has accepted an answer to and how many answers it rejected, each ID
/// borrowed from the script (rule `PERF-MODEL-MAPS`).
#[derive(Debug, Clone, Default)]
struct ScriptState<'s> {
    accepted: Vec<&'s str>,
    /// How many answers to each question ID it rejected, in the order the
    /// IDs were first answered: a list, as a script asks few questions.
    rejections: Vec<(&'s str, u8)>,
}

/// The executor boundary under `rules` (for an implementation's own
/// environment, as the example adapter plays it): a tool's outcome as it
/// reaches the coordinator ([`SeparatorPolicy::Refused`] below).
///
/// The executor boundary under [`SeparatorPolicy::Refused`]: a question
/// whose ID is empty or holds `.` (the separator of RFD 082's inquiry IDs and
/// turn-cache keys) does not reach the coordinator; the tool's invocation
/// ends in an error that names the ID. Under `Allowed` (RFD 082 as written)
/// every outcome passes unchanged.
pub fn executor_boundary(rules: &Rules, tool: &str, outcome: Outcome) -> Outcome {
    refuse_separator(rules.question_id_separator, tool, outcome)
}

fn refuse_separator(policy: SeparatorPolicy, tool: &str, outcome: Outcome) -> Outcome {
    match (policy, outcome) {
        (SeparatorPolicy::Refused, Outcome::NeedsInput { question })
            if question.id.is_empty() || question.id.contains('.') =>
        {
            Outcome::Error {
                message: format!(
                    "Tool `{tool}` asked a question with ID `{}`: a question ID must be non-empty \
                     and hold no `.`, the separator of inquiry IDs and turn-cache keys.",
                    question.id
                ),
                transient: false,
            }
        }
        (SeparatorPolicy::Allowed | SeparatorPolicy::Refused, outcome) => outcome,
    }
}

fn run_script<'s>(
    name: &str,
    asks: &'s [ScriptedAsk],
    finish: Finish,
    answers: &Answers,
    state: &mut ScriptState<'s>,
) -> Outcome {
    for ask in asks {
        let id = ask.question.id.as_str();
        if state.accepted.contains(&id) {
            continue;
        }
        if answers.contains_key(id) {
            let at = match state.rejections.iter().position(|&(r, _)| r == id) {
                Some(at) => at,
                None => {
                    state.rejections.push((id, 0));
                    state.rejections.len() - 1
                }
            };
            let n = &mut state.rejections[at].1;
            if *n < ask.reject_first {
                *n += 1;
                return Outcome::NeedsInput {
                    question: Arc::clone(&ask.question),
                };
            }
            state.accepted.push(id);
            continue;
        }
        return Outcome::NeedsInput {
            question: Arc::clone(&ask.question),
        };
    }
    match finish {
        Finish::Succeed => {
            // `<name> done: <id>=<answer>, …`, written into one string. A
            // tool that echoes answers must never echo a secret one.
            let mut content = String::with_capacity(name.len() + 8 + 24 * asks.len());
            content.push_str(name);
            content.push_str(" done: ");
            for (i, a) in asks.iter().enumerate() {
                if i > 0 {
                    content.push_str(", ");
                }
                content.push_str(&a.question.id);
                match (a.question.is_secret(), answers.get(&a.question.id)) {
                    (true, _) => content.push_str("=<secret received>"),
                    (false, Some(v)) => {
                        content.push('=');
                        crate::wire::Opaque::push_compact(&mut content, v);
                    }
                    (false, None) => content.push_str("=<none>"),
                }
            }
            Outcome::Success { content }
        }
        Finish::Fail { transient } => Outcome::Error {
            message: format!("{name} failed"),
            transient,
        },
    }
}

/// What a local tool's stdout means (rule `LIFE-LOCAL-STDOUT`): an `Outcome`
/// object is that outcome; anything else is the tool's output, verbatim.
pub(crate) fn local_outcome(stdout: &str) -> Outcome {
    match serde_json::from_str::<Outcome>(stdout.trim()) {
        Ok(outcome) => outcome,
        Err(_) => Outcome::Success {
            content: stdout.to_owned(),
        },
    }
}

/// A piece of work the driver can do next.
#[derive(Debug, Clone)]
pub(crate) enum Work {
    Invoke {
        call: usize,
        answers: Answers,
    },
    Prompt {
        call: usize,
        inquiry_id: Option<crate::wire::InquiryId>,
        presentation: Box<Presentation>,
    },
    Inquire {
        call: usize,
        backend: Box<BackendCall>,
    },
    Permission {
        call: usize,
    },
    Delivery {
        call: usize,
    },
}

/// Options that are not part of the scenario: which step function the
/// driver takes. The default is the model as specified,
/// [`Coordinator::handle_into`] itself, and no other code is on its path.
#[derive(Debug, Default)]
pub struct RunOptions {
    /// The step function, when it is not the coordinator's own.
    step: Option<Box<dyn Step>>,
}

impl RunOptions {
    /// Options under which every step is taken by `step` instead of the
    /// coordinator's own [`Coordinator::handle_into`] (a wrong
    /// implementation, to show that a check catches it). The driver clones
    /// it at the start of each run, so runs under the same options share no
    /// state.
    #[cfg(feature = "testkit")]
    pub(crate) fn with_step(step: impl Step + 'static) -> Self {
        RunOptions {
            step: Some(Box::new(step)),
        }
    }
}

impl Clone for RunOptions {
    fn clone(&self) -> Self {
        RunOptions {
            step: self.step.as_ref().map(|s| s.clone_box()),
        }
    }
}

/// A step function: how the driver has the coordinator handle one input.
/// The driver knows only this trait; the model as specified needs none
/// ([`RunOptions::default`]).
pub trait Step: fmt::Debug + Send + Sync {
    /// Handles `input` on `coordinator`, appending the effects to
    /// `effects`, as [`Coordinator::handle_into`] does.
    fn handle_into(
        &mut self,
        coordinator: &mut Coordinator,
        input: Input,
        effects: &mut Vec<Effect>,
    ) -> Result<(), CoordinatorError>;

    /// A copy with its own state (a run starts from a copy of the options'
    /// step; a state search clones runs at every branch).
    fn clone_box(&self) -> Box<dyn Step>;

    /// Hashes what the step carries from one step to the next, for a state
    /// search's key (nothing, for a step that carries nothing).
    fn state_key(&self, h: &mut dyn Hasher) {
        let _ = h;
    }
}

/// Runs a scenario under the model as specified.
///
/// # Examples
///
/// A `secret` question answered at the prompt: the answer is never
/// persisted (RFD 082: a secret's response is `redacted`).
///
/// ```
/// use inquiry_model::scenario::{self, Scenario};
/// use inquiry_model::wire::InquiryResponse;
///
/// let s: Scenario = serde_json::from_value(serde_json::json!({
///     "tools": {"vault": {"source": {"kind": "local"}, "run": "unattended", "program": {"kind": "script", "asks": [
///         {"question": {"id": "token", "text": "Token?", "answer_type": {"type": "secret"}}}]}}},
///     "turns": [{"cycles": [[{"id": "c1", "tool": "vault"}]]}],
///     "prompter": [{"reply": "answer", "value": "hunter2"}]
/// }))?;
/// let trace = scenario::run(&s)?;
/// let response = trace.stream.iter().find_map(|e| e.as_inquiry_response());
/// assert!(matches!(response, Some(InquiryResponse::Redacted { .. })));
/// assert!(!serde_json::to_string(&trace.stream)?.contains("hunter2"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn run(scenario: &Scenario) -> Result<Trace, ScenarioError> {
    run_with(scenario, RunOptions::default())
}

/// Runs a scenario, with options.
pub(crate) fn run_with(scenario: &Scenario, options: RunOptions) -> Result<Trace, ScenarioError> {
    let mut driver = Driver::new(scenario, scenario.rules()?, options)?;
    driver.run()?;
    Ok(driver.trace)
}

/// Runs a scenario step by step, calling `observe` after every input the
/// coordinator handled (for invariants checked at every step).
pub fn run_observed(
    scenario: &Scenario,
    options: RunOptions,
    observe: &mut dyn FnMut(&Coordinator, &Trace),
) -> Result<Trace, ScenarioError> {
    run_under(scenario, scenario.rules()?, options, observe)
}

/// [`run_observed`] under `rules` instead of the scenario's profile's (a
/// profile file's switches); the trace keeps the scenario's profile as the
/// writer that judges it.
pub(crate) fn run_under(
    scenario: &Scenario,
    rules: Rules,
    options: RunOptions,
    observe: &mut dyn FnMut(&Coordinator, &Trace),
) -> Result<Trace, ScenarioError> {
    let mut driver = Driver::new(scenario, rules, options)?;
    driver.observer = Some(observe);
    driver.run()?;
    Ok(driver.trace)
}

/// Who picks the next piece of work when several are pending: the
/// scenario's `schedule` by default; a state-graph search
/// (`crate::explore::states`) branches over every pick instead.
pub(crate) trait Scheduler {
    /// The index (`< choice.pending()`) of the pending work to run next, or
    /// `None` to stop the run here (the trace returned is then the prefix).
    fn pick(&mut self, choice: &ChoicePoint<'_>) -> Option<usize>;
}

/// The driver's whole state at a scheduler choice, for a scheduler to read
/// (and a state search to hash, [`ChoicePoint::state_key`]): the
/// coordinator, the trace so far, and the driver's own moving parts.
pub(crate) struct ChoicePoint<'a> {
    #[cfg(feature = "cli")]
    coordinator: &'a Coordinator,
    trace: &'a Trace,
    at: At,
    work: &'a [Work],
    calls: &'a [CallState<'a>],
    driver: DriverMoving<'a>,
    /// The step function, when it is not the coordinator's own.
    #[cfg(feature = "cli")]
    step: Option<&'a dyn Step>,
}

/// The driver's fields a step changes. The remaining replies are shown by
/// count: within one scenario they are always a suffix of its own lists.
struct DriverMoving<'a> {
    prompter_left: usize,
    backend_left: usize,
    backend_by_id_left: Vec<&'a String>,
    permissions_left: usize,
    deliveries_left: usize,
    schedule_left: usize,
    stop: Option<TokenCause>,
    local_printed: &'a Map<String, usize>,
    steps: usize,
}

impl ChoicePoint<'_> {
    /// How many pieces of work are pending (at least 1).
    pub(crate) fn pending(&self) -> usize {
        self.work.len()
    }

    /// The coordinator.
    #[cfg(feature = "cli")]
    pub(crate) fn coordinator(&self) -> &Coordinator {
        self.coordinator
    }

    /// The trace so far.
    pub(crate) fn trace(&self) -> &Trace {
        self.trace
    }

    /// Hashes the driver's state at this choice but the coordinator and the
    /// trace (which have their own keys): the turn and cycle, the pending
    /// work, each call's script state, how much of each reply list is left,
    /// the token, the local programs' output counts, the step count, and
    /// the step function's state. Structural: JSON values and wire types by
    /// their serialization, nothing by `Debug`.
    #[cfg(feature = "cli")]
    pub(crate) fn state_key<H: Hasher>(&self, h: &mut H) {
        // Destructured so that a new field must be placed here.
        let ChoicePoint {
            #[cfg(feature = "cli")]
                coordinator: _,
            trace: _,
            at: At { turn, cycle },
            work,
            calls,
            driver,
            #[cfg(feature = "cli")]
            step,
        } = self;
        (turn, cycle).hash(h);
        h.write_usize(work.len());
        for w in work.iter() {
            match w {
                Work::Invoke { call, answers } => {
                    h.write_u8(0);
                    call.hash(h);
                    h.write_usize(answers.len());
                    for (id, value) in answers {
                        id.hash(h);
                        hash_serialized(value, h);
                    }
                }
                Work::Prompt {
                    call,
                    inquiry_id,
                    presentation,
                } => {
                    h.write_u8(1);
                    call.hash(h);
                    inquiry_id.hash(h);
                    hash_serialized(presentation, h);
                }
                Work::Inquire { call, backend } => {
                    h.write_u8(2);
                    call.hash(h);
                    hash_serialized(backend, h);
                }
                Work::Permission { call } => {
                    h.write_u8(3);
                    call.hash(h);
                }
                Work::Delivery { call } => {
                    h.write_u8(4);
                    call.hash(h);
                }
            }
        }
        h.write_usize(calls.len());
        for c in calls.iter() {
            let CallState {
                call,
                // Found from `call.tool`, which is hashed with the call.
                setup: _,
                script:
                    ScriptState {
                        accepted,
                        rejections,
                    },
                invocations,
            } = c;
            hash_serialized(call, h);
            accepted.hash(h);
            h.write_usize(rejections.len());
            for (id, n) in rejections {
                (id, n).hash(h);
            }
            invocations.hash(h);
        }
        let DriverMoving {
            prompter_left,
            backend_left,
            backend_by_id_left,
            permissions_left,
            deliveries_left,
            schedule_left,
            stop,
            local_printed,
            steps,
        } = driver;
        (prompter_left, backend_left, backend_by_id_left).hash(h);
        (permissions_left, deliveries_left, schedule_left).hash(h);
        (stop, steps).hash(h);
        h.write_usize(local_printed.len());
        for (name, n) in local_printed.iter() {
            (name, n).hash(h);
        }
        if let Some(step) = step {
            step.state_key(h);
        }
    }
}

impl fmt::Debug for DriverMoving<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Destructured so that a new field must be shown.
        let DriverMoving {
            prompter_left,
            backend_left,
            backend_by_id_left,
            permissions_left,
            deliveries_left,
            schedule_left,
            stop,
            local_printed,
            steps,
        } = self;
        f.debug_struct("Driver")
            .field("prompter_left", prompter_left)
            .field("backend_left", backend_left)
            .field("backend_by_id_left", backend_by_id_left)
            .field("permissions_left", permissions_left)
            .field("deliveries_left", deliveries_left)
            .field("schedule_left", schedule_left)
            .field("stop", stop)
            .field("local_printed", local_printed)
            .field("steps", steps)
            .finish()
    }
}

/// Everything of the driver's state but the coordinator and the trace: the
/// turn and cycle, the pending work, each call's script state, how much of
/// each reply list is left, the token, the local programs' output counts.
impl fmt::Debug for ChoicePoint<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChoicePoint")
            .field("at", &self.at)
            .field("work", &self.work)
            .field("calls", &self.calls)
            .field("driver", &self.driver)
            .finish_non_exhaustive()
    }
}

/// Runs a scenario with `scheduler` choosing among pending work (instead of
/// the scenario's `schedule`), calling `observe` after every step. A run the
/// scheduler stops returns the trace so far.
pub(crate) fn run_scheduled(
    scenario: &Scenario,
    options: RunOptions,
    observe: &mut dyn FnMut(&Coordinator, &Trace),
    scheduler: &mut dyn Scheduler,
) -> Result<Trace, ScenarioError> {
    let mut driver = Driver::new(scenario, scenario.rules()?, options)?;
    driver.observer = Some(observe);
    driver.scheduler = Some(scheduler);
    driver.run()?;
    Ok(driver.trace)
}

struct Driver<'s, 'o> {
    scenario: &'s Scenario,
    /// The step function, when it is not the coordinator's own.
    step: Option<Box<dyn Step>>,
    coordinator: Coordinator,
    trace: Trace,
    /// The replies not yet taken, read in place (each cloned when taken).
    prompter: std::slice::Iter<'s, PrompterReply>,
    backend: std::slice::Iter<'s, BackendReply>,
    backend_by_id: Map<String, BackendReply>,
    permissions: std::slice::Iter<'s, PermissionReply>,
    deliveries: std::slice::Iter<'s, DeliveryReply>,
    schedule: VecDeque<u32>,
    /// Set by a token fired for `hard_quit` or `aborted_turn`.
    stop: Option<TokenCause>,
    /// How many stdout entries each local program has printed.
    local_printed: Map<String, usize>,
    steps: usize,
    observer: Option<&'o mut Observer<'o>>,
    /// The coordinator's effects of the current step (kept to reuse its
    /// allocation).
    effects: Vec<Effect>,
    /// Picks among pending work when set (else `schedule` does).
    scheduler: Option<&'o mut (dyn Scheduler + 'o)>,
}

/// The most records of one kind a run reserves room for up front.
const SIZE_HINT_CAP: usize = 4096;

/// The effects one step's buffer has room for from the start: a step
/// persists an event or two and hands on at most one piece of work per call
/// it touches.
const EFFECTS_ROOM: usize = 8;

/// How many calls and events a run is likely to record, so that the
/// trace's vectors are allocated once rather than grown step by step
/// (a hint only: they still grow past it).
struct SizeHint {
    calls: usize,
    /// The questions the calls' tools ask, counted from their scripts.
    asks: usize,
    events: usize,
}

impl SizeHint {
    fn of(scenario: &Scenario) -> SizeHint {
        let (mut calls, mut asks) = (0usize, 0usize);
        for call in scenario.turns.iter().flat_map(|t| &t.cycles).flatten() {
            calls += 1;
            // The questions a call's tool asks before it finishes, each
            // asked again for every answer it rejects (at least one: a
            // tool the scenario does not script may still ask).
            asks += match scenario.tools.get(&call.tool).map(|t| &t.program) {
                Some(Program::Script { asks, .. }) => asks
                    .iter()
                    .map(|a| 1 + usize::from(a.reject_first))
                    .sum::<usize>()
                    .max(1),
                Some(Program::AskUser | Program::Local { .. }) | None => 1,
            };
        }
        // Per turn: start, request, response; per call: its request and
        // response; per question asked: its inquiry's pair.
        let events = 3 * scenario.turns.len() + 2 * calls + 2 * asks;
        SizeHint {
            calls: calls.min(SIZE_HINT_CAP),
            asks: asks.min(SIZE_HINT_CAP),
            events: events.min(SIZE_HINT_CAP),
        }
    }

    /// The calls of the scenario's widest cycle: the room of a run's
    /// per-cycle buffers (its call states and its pending work).
    fn widest_cycle(scenario: &Scenario) -> usize {
        let widest = scenario
            .turns
            .iter()
            .flat_map(|t| &t.cycles)
            .map(Vec::len)
            .max();
        widest.unwrap_or(0).min(SIZE_HINT_CAP)
    }
}

/// What `run_observed` calls after every step.
type Observer<'o> = dyn FnMut(&Coordinator, &Trace) + 'o;

/// Per-call state of the current cycle.
#[derive(Debug, Clone)]
struct CallState<'s> {
    /// The call as the scenario gives it.
    call: &'s Call,
    /// Its tool's setup, found by name once when the cycle begins (`None`:
    /// the scenario defines no such tool; rule `PERF-MODEL-MAPS`).
    setup: Option<&'s ToolSetup>,
    script: ScriptState<'s>,
    invocations: u32,
}

impl<'s> CallState<'s> {
    /// A call of a cycle that begins, not yet run.
    fn new(scenario: &'s Scenario, call: &'s Call) -> Self {
        CallState {
            call,
            setup: scenario.tools.get(&call.tool),
            script: ScriptState::default(),
            invocations: 0,
        }
    }
}

impl<'s, 'o> Driver<'s, 'o> {
    fn new(
        scenario: &'s Scenario,
        rules: Rules,
        options: RunOptions,
    ) -> Result<Self, ScenarioError> {
        validate(scenario)?;
        let tools = run_tools(scenario)?;
        let sizes = SizeHint::of(scenario);
        Ok(Driver {
            scenario,
            step: options.step,
            coordinator: Coordinator::new(rules, scenario.tty, tools),
            trace: Trace {
                profile: scenario.profile,
                rules,
                stream: Vec::with_capacity(sizes.events),
                invocations: Vec::with_capacity(sizes.calls + sizes.asks),
                prompts: Vec::new(),
                permission_prompts: Vec::new(),
                delivery_prompts: Vec::new(),
                backend_calls: Vec::new(),
                resolutions: Vec::with_capacity(sizes.asks),
                remembered: Vec::with_capacity(scenario.turns.len().min(SIZE_HINT_CAP)),
                tool_responses: Vec::with_capacity(sizes.calls),
                interrupted: false,
            },
            prompter: scenario.prompter.iter(),
            backend: scenario.backend.iter(),
            backend_by_id: scenario.backend_by_id.clone(),
            permissions: scenario.permissions.iter(),
            deliveries: scenario.deliveries.iter(),
            schedule: scenario.schedule.iter().copied().collect(),
            local_printed: Map::default(),
            stop: None,
            steps: 0,
            observer: None,
            effects: Vec::with_capacity(EFFECTS_ROOM),
            scheduler: None,
        })
    }

    fn handle(
        &mut self,
        input: Input,
        at: At,
        calls: &[CallState<'_>],
        work: &mut Vec<Work>,
    ) -> Result<(), ScenarioError> {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return Err(ScenarioError::Crash(format!(
                "the run exceeded {MAX_STEPS} steps"
            )));
        }
        let returned = matches!(input, Input::ToolReturned { .. });
        // A hard quit (LIFE-TOKEN-CAUSE): the inquiry's response is the last
        // thing written.
        let quitting = matches!(self.stop, Some(TokenCause::HardQuit));
        // One effect buffer for the whole run, drained at every step.
        let mut effects = std::mem::take(&mut self.effects);
        match &mut self.step {
            None => self.coordinator.handle_into(input, &mut effects)?,
            Some(step) => step.handle_into(&mut self.coordinator, input, &mut effects)?,
        }
        for effect in effects.drain(..) {
            match effect {
                Effect::Persist(e) if quitting && e.as_inquiry_response().is_some() => {
                    self.trace.stream.push(e);
                    break;
                }
                // (A step function that holds a request back lands it just
                // before its response.)
                Effect::Persist(e) if quitting && e.as_inquiry_request().is_some() => {
                    self.trace.stream.push(e)
                }
                Effect::Persist(_) if quitting => {}
                // Nor is any call answered: the process stops (RFD 082 step
                // 6, the response "is unchanged", is never sent). Before
                // RFD 082 a cancelled inquiry writes no response, so no
                // `break` above stops the loop first.
                Effect::Respond { .. } if quitting => {}
                Effect::Persist(e) => {
                    if returned
                        && e.as_inquiry_request().is_some()
                        && let Some(inv) = self.trace.invocations.last_mut()
                    {
                        inv.request_event = Some(self.trace.stream.len());
                    }
                    self.trace.stream.push(e)
                }
                Effect::Invoke { call, answers } => work.push(Work::Invoke { call, answers }),
                Effect::AskPermission { call } => work.push(Work::Permission { call }),
                Effect::AskDelivery { call } => work.push(Work::Delivery { call }),
                Effect::Prompt {
                    call,
                    inquiry_id,
                    presentation,
                } => work.push(Work::Prompt {
                    call,
                    inquiry_id,
                    presentation,
                }),
                Effect::Inquire { call, backend } => work.push(Work::Inquire { call, backend }),
                Effect::Resolved {
                    call,
                    question_id,
                    route,
                    recorded,
                } => self.trace.resolutions.push(ResolutionRecord {
                    at,
                    tool_call_id: calls[call].call.id.clone(),
                    call_index: call,
                    question_id,
                    route,
                    recorded,
                }),
                Effect::Respond {
                    call,
                    content,
                    is_error,
                    kind,
                } => self.trace.tool_responses.push(ToolResponseRecord {
                    at,
                    tool_call_id: calls[call].call.id.clone(),
                    tool: calls[call].call.tool.clone(),
                    content,
                    is_error,
                    kind,
                }),
            }
        }
        self.effects = effects;
        if let Some(obs) = self.observer.as_mut() {
            obs(&self.coordinator, &self.trace);
        }
        Ok(())
    }

    fn run(&mut self) -> Result<(), ScenarioError> {
        let scenario = self.scenario;
        // The pending work and the cycle's call states, one buffer each for
        // the whole run (cleared, not allocated again, per turn and cycle).
        let room = SizeHint::widest_cycle(scenario);
        let mut work = Vec::with_capacity(room);
        let mut calls: Vec<CallState<'s>> = Vec::with_capacity(room);
        for (t, turn) in scenario.turns.iter().enumerate() {
            let at = At { turn: t, cycle: 0 };
            work.clear();
            self.handle(
                Input::BeginTurn {
                    content: turn.user.clone(),
                },
                at,
                &[],
                &mut work,
            )?;
            for (c, cycle) in turn.cycles.iter().enumerate() {
                let at = At { turn: t, cycle: c };
                calls.clear();
                calls.extend(cycle.iter().map(|call| CallState::new(scenario, call)));
                work.clear();
                self.handle(
                    Input::BeginCycle {
                        calls: cycle.clone(),
                    },
                    at,
                    &calls,
                    &mut work,
                )?;
                while !work.is_empty() {
                    let pick = match self.scheduler.take() {
                        Some(scheduler) => {
                            let choice = ChoicePoint {
                                #[cfg(feature = "cli")]
                                coordinator: &self.coordinator,
                                trace: &self.trace,
                                at,
                                work: &work,
                                calls: &calls,
                                driver: DriverMoving {
                                    prompter_left: self.prompter.len(),
                                    backend_left: self.backend.len(),
                                    backend_by_id_left: self.backend_by_id.keys().collect(),
                                    permissions_left: self.permissions.len(),
                                    deliveries_left: self.deliveries.len(),
                                    schedule_left: self.schedule.len(),
                                    stop: self.stop,
                                    local_printed: &self.local_printed,
                                    steps: self.steps,
                                },
                                #[cfg(feature = "cli")]
                                step: self.step.as_deref(),
                            };
                            let pick = scheduler.pick(&choice);
                            self.scheduler = Some(scheduler);
                            match pick {
                                Some(p) if p < work.len() => p,
                                Some(p) => {
                                    return Err(ScenarioError::Crash(format!(
                                        "the scheduler picked {p} of {} pending",
                                        work.len()
                                    )));
                                }
                                None => return Ok(()),
                            }
                        }
                        None => match self.schedule.pop_front() {
                            Some(choice) => choice as usize % work.len(),
                            None => 0,
                        },
                    };
                    let item = work.remove(pick);
                    let input = match self.stop {
                        Some(TokenCause::AbortedTurn) => self.drain(item, at, &mut calls)?,
                        Some(
                            TokenCause::HardQuit | TokenCause::Restart | TokenCause::ToolCancel,
                        )
                        | None => self.perform(item, at, &mut calls)?,
                    };
                    self.handle(input, at, &calls, &mut work)?;
                    if let Some(TokenCause::HardQuit) = self.stop {
                        return self.quit(at, &calls, std::mem::take(&mut work));
                    }
                }
                if let Some(TokenCause::AbortedTurn) = self.stop.take() {
                    break;
                }
            }
            if let Some(state) = self.coordinator.turn_state() {
                self.trace.remembered.push(RememberedKeys {
                    turn: t,
                    tool_answers: state.cache.tool_answers().keys().cloned().collect(),
                    permission_decisions: state
                        .cache
                        .permission_decisions()
                        .keys()
                        .cloned()
                        .collect(),
                });
            }
            // `turn {t} done`, without the formatting machinery.
            let mut content = String::with_capacity(16);
            content.push_str("turn ");
            crate::wire::id::push_decimal(&mut content, u64::try_from(t).unwrap_or(u64::MAX));
            content.push_str(" done");
            work.clear();
            self.handle(Input::EndTurn { content }, at, &[], &mut work)?;
        }
        Ok(())
    }

    /// A hard quit: the token cancels every other open inquiry too, each
    /// writes its `cancelled (user)` response (a pending prompt is
    /// interrupted like Ctrl-C), and nothing else is written.
    fn quit(
        &mut self,
        at: At,
        calls: &[CallState<'_>],
        work: Vec<Work>,
    ) -> Result<(), ScenarioError> {
        self.trace.interrupted = true;
        for item in work {
            let input = match item {
                Work::Prompt {
                    call, inquiry_id, ..
                } => Input::PromptCancelled { call, inquiry_id },
                Work::Inquire { call, .. } => Input::InquiryResult {
                    call,
                    result: Err(routing::token_error(TokenCause::HardQuit)),
                },
                Work::Invoke { .. } | Work::Permission { .. } | Work::Delivery { .. } => continue,
            };
            self.handle(input, at, calls, &mut Vec::new())?;
        }
        Ok(())
    }

    /// One piece of work after an aborted turn fired the token (rule
    /// `LIFE-TOKEN-CAUSE`). The token is one per turn and stays fired: a
    /// prompt on screen is interrupted like Ctrl-C and a backend call
    /// returns `InquiryError::Cancelled`, so every inquiry still open in
    /// the cycle, or opened later in it, records `cancelled (user)` and its
    /// call gets the usual non-answer response. Tool runs, permission and
    /// delivery prompts are not inquiries and go on as usual, so every call
    /// of the cycle still gets its response before the turn closes.
    fn drain(
        &mut self,
        item: Work,
        at: At,
        calls: &mut [CallState<'_>],
    ) -> Result<Input, ScenarioError> {
        match item {
            Work::Prompt {
                call, inquiry_id, ..
            } => Ok(Input::PromptCancelled { call, inquiry_id }),
            Work::Inquire { call, .. } => Ok(Input::InquiryResult {
                call,
                result: Err(routing::token_error(TokenCause::AbortedTurn)),
            }),
            item @ (Work::Invoke { .. } | Work::Permission { .. } | Work::Delivery { .. }) => {
                self.perform(item, at, calls)
            }
        }
    }

    /// Does one piece of work: runs a tool (the executor, which also resolves
    /// provenance from the tool's kind), or takes the next reply of the
    /// prompter, the backend or the permission prompt.
    /// Whether call `call` of the cycle at `at` waits on a question its tool
    /// asks as `Secret`: the question of the call's latest invocation (a
    /// prompt or backend call answers the question its tool just returned).
    fn asks_secret(&self, at: At, call: usize) -> bool {
        self.trace
            .invocations
            .iter()
            .rev()
            .find(|i| i.at == at && i.call_index == call)
            .is_some_and(|i| match &i.outcome {
                Outcome::NeedsInput { question } => question.is_secret(),
                Outcome::Success { .. } | Outcome::Error { .. } => false,
            })
    }

    fn perform(
        &mut self,
        item: Work,
        at: At,
        calls: &mut [CallState<'_>],
    ) -> Result<Input, ScenarioError> {
        match item {
            Work::Invoke { call, answers } => {
                let state = &mut calls[call];
                let name = state.call.tool.as_str();
                let setup = state.setup.ok_or_else(|| {
                    ScenarioError::Unacceptable(format!(
                        "a call names tool `{name}`, which the scenario does not define"
                    ))
                })?;
                // RFD 083 "Built-in aliasing": the executor is found by the
                // config key; an alias has none and fails with `NotFound`.
                let executor = setup.executor(name);
                let source = executor.clone().unwrap_or(ToolSource::Local);
                // MCP tools never see answers (RFD 082 "Pre-seed removal").
                let answers = match (&executor, source) {
                    (Err(_), _) | (Ok(_), ToolSource::Mcp) => Answers::default(),
                    (Ok(_), ToolSource::Builtin { .. } | ToolSource::Local) => answers,
                };
                let outcome = match (&executor, &setup.program) {
                    (Err(_), _) => Outcome::Error {
                        message: crate::model::routing::messages::tool_not_found(name),
                        transient: false,
                    },
                    (Ok(_), Program::Script { asks, finish }) => {
                        run_script(name, asks, *finish, &answers, &mut state.script)
                    }
                    (Ok(_), Program::AskUser) => ask_user::execute(&state.call.arguments, &answers),
                    (Ok(_), Program::Local { stdout }) => {
                        let n = self.local_printed.entry(name.to_owned()).or_insert(0);
                        let printed = stdout.get(*n).map(String::as_str).unwrap_or("");
                        *n += 1;
                        local_outcome(printed)
                    }
                };
                let outcome =
                    refuse_separator(self.trace.rules.question_id_separator, name, outcome);
                let context = match &setup.program {
                    Program::Local { .. } => Some(json!({"tool": {
                        "name": name,
                        "arguments": state.call.arguments,
                        "answers": answers,
                    }})),
                    Program::Script { .. } | Program::AskUser => None,
                };
                state.invocations += 1;
                self.trace.invocations.push(InvocationRecord {
                    at,
                    tool_call_id: state.call.id.clone(),
                    tool: name.to_owned(),
                    call_index: call,
                    invocation: state.invocations,
                    stream_position: self.trace.stream.len(),
                    request_event: None,
                    answers,
                    context,
                    outcome: outcome.clone(),
                });
                // LIFE-PROVENANCE: resolved at the executor boundary from the
                // tool's kind alone (pre-082: the tool's name,
                // LIFE-PROVENANCE-LEGACY).
                let source = inquiry_source_under(self.trace.rules.provenance, source, name);
                Ok(Input::ToolReturned {
                    call,
                    outcome,
                    source,
                })
            }
            Work::Prompt {
                call,
                inquiry_id,
                presentation,
            } => {
                let reply = self.prompter.next().cloned().unwrap_or(PrompterReply::Eof);
                self.trace.prompts.push(PromptRecord {
                    at,
                    tool_call_id: calls[call].call.id.clone(),
                    call_index: call,
                    inquiry_id: inquiry_id.as_ref().map(|i| i.as_str().to_owned()),
                    stream_position: self.trace.stream.len(),
                    presentation: *presentation,
                    reply: reply.clone(),
                    secret: self.asks_secret(at, call),
                });
                Ok(match reply {
                    PrompterReply::Answer { value, remember } => Input::PromptAnswered {
                        call,
                        inquiry_id,
                        answer: value,
                        remember,
                    },
                    PrompterReply::CtrlC | PrompterReply::Eof => {
                        Input::PromptCancelled { call, inquiry_id }
                    }
                    PrompterReply::Failure { failure } => Input::PromptFailed {
                        call,
                        inquiry_id,
                        failure,
                    },
                })
            }
            Work::Inquire { call, backend } => {
                let keyed = self.backend_by_id.shift_remove(&backend.inquiry_id);
                let reply =
                    keyed
                        .or_else(|| self.backend.next().cloned())
                        .unwrap_or(BackendReply::Error {
                            error: InquiryErrorKind::Other,
                        });
                let model = calls[call]
                    .setup
                    .and_then(|t| t.assistant.get(&backend.question.id))
                    .and_then(|a| a.model.clone())
                    .or_else(|| self.scenario.inquiry_model.clone());
                let restart = matches!(
                    reply,
                    BackendReply::Cancelled {
                        cause: TokenCause::Restart
                    }
                );
                let result = match &reply {
                    BackendReply::Answer { value } => Ok(json!({
                        "inquiry_id": backend.inquiry_id,
                        "answer": value,
                    })),
                    BackendReply::Raw { structured } => Ok(structured.clone()),
                    BackendReply::Error { error } => Err(*error),
                    BackendReply::Cancelled { cause } => {
                        match cause {
                            TokenCause::HardQuit | TokenCause::AbortedTurn => {
                                self.stop = Some(*cause)
                            }
                            TokenCause::Restart | TokenCause::ToolCancel => {}
                        }
                        Err(routing::token_error(*cause))
                    }
                };
                self.trace.backend_calls.push(BackendRecord {
                    at,
                    tool_call_id: calls[call].call.id.clone(),
                    tool: calls[call].call.tool.clone(),
                    call_index: call,
                    call: *backend,
                    model,
                    reply,
                    secret: self.asks_secret(at, call),
                });
                if restart {
                    // The tool runs again from scratch (its script too).
                    calls[call].script = ScriptState::default();
                    return Ok(Input::InquiryRestarted { call });
                }
                Ok(Input::InquiryResult { call, result })
            }
            Work::Permission { call } => {
                let reply = self
                    .permissions
                    .next()
                    .copied()
                    .unwrap_or(PermissionReply::Deny { remember: false });
                self.trace.permission_prompts.push(PermissionRecord {
                    at,
                    tool_call_id: calls[call].call.id.clone(),
                    tool: calls[call].call.tool.clone(),
                    reply,
                });
                let (allow, remember) = match reply {
                    PermissionReply::Allow { remember } => (true, remember),
                    PermissionReply::Deny { remember } => (false, remember),
                };
                Ok(Input::PermissionAnswered {
                    call,
                    allow,
                    remember,
                })
            }
            Work::Delivery { call } => {
                let reply = self
                    .deliveries
                    .next()
                    .copied()
                    .unwrap_or(DeliveryReply::Withhold);
                self.trace.delivery_prompts.push(DeliveryRecord {
                    at,
                    tool_call_id: calls[call].call.id.clone(),
                    tool: calls[call].call.tool.clone(),
                    stream_position: self.trace.stream.len(),
                    reply,
                });
                let deliver = match reply {
                    DeliveryReply::Deliver => true,
                    DeliveryReply::Withhold => false,
                };
                Ok(Input::DeliveryAnswered { call, deliver })
            }
        }
    }
}

/// Every tool's `enable` after the scenario's toggles (rule
/// `CONFIG-ENABLE-LIFECYCLE`).
pub(crate) fn enabled_tools(scenario: &Scenario) -> Result<Map<String, Enable>, ScenarioError> {
    Ok(configured_tools(scenario)?
        .into_iter()
        .map(|(n, c)| (n, c.enable))
        .collect())
}

/// Rejects scenarios the model cannot run, with a message naming the part
/// (always [`ScenarioError::Unacceptable`]).
pub fn validate(scenario: &Scenario) -> Result<(), ScenarioError> {
    for (name, tool) in &scenario.tools {
        match (&tool.program, tool.executor(name)) {
            (Program::Script { asks, .. }, Ok(ToolSource::Mcp)) if !asks.is_empty() => {
                return Err(ScenarioError::Unacceptable(format!(
                    "tool `{name}`: an MCP tool cannot ask questions (the MCP protocol has no NeedsInput)"
                )));
            }
            (Program::Local { .. }, Ok(ToolSource::Builtin { .. } | ToolSource::Mcp)) => {
                return Err(ScenarioError::Unacceptable(format!(
                    "tool `{name}`: a local program runs only as a local tool (source `local`)"
                )));
            }
            (Program::Script { .. } | Program::AskUser | Program::Local { .. }, _) => {}
        }
    }
    Ok(())
}

#[cfg(all(test, feature = "testkit"))]
mod run_tools_tests;
