//! Pure routing decisions, each a `match` that reads like the RFD table it
//! implements. The same tables are written out in `spec/tables/`, and a test
//! enumerates every input combination and compares the two.
//!
//! Order for every `NeedsInput`, after the request is recorded (RFD 082
//! "Recording lifecycle" steps 2–4, RFD 083 "Resolution precedence"):
//! cached answer → static answer → human-only guards → route.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::tool::{AnswerReusePolicy, AnswerType, Question, QuestionTarget};
use crate::predicates::{self, AnswerKind};
use crate::profile::Rules;
use crate::wire::CancellationReason;

/// Whether a question may only be answered by a human (rule `LIFE-HUMAN-ONLY`):
/// [`Rules::human_only`] of the question's [`is_secret`] and `exclusive`.
pub fn human_only(question: &Question, rules: &Rules) -> bool {
    rules.human_only(is_secret(question, rules), question.exclusive)
}

/// Whether the turn cache may be read for, or written with, this question
/// (rule `LIFE-CACHE-ELIGIBLE`; table `spec/tables/cache.md`). The same
/// predicate serves both sides (RFD 083 step 6: "The write side of the cache
/// uses the same predicate").
///
/// | secret | persistence | persistence gate | cache |
/// | --- | --- | --- | --- |
/// | yes | any | any | no |
/// | no | turn | any | yes |
/// | no | none | on | no |
/// | no | none | off | yes |
pub fn cache_eligible(
    secret: bool,
    persistence: AnswerReusePolicy,
    persistence_gate: bool,
) -> bool {
    match (secret, persistence, persistence_gate) {
        (true, _, _) => false,
        (false, AnswerReusePolicy::Turn, _) => true,
        (false, AnswerReusePolicy::None, true) => false,
        (false, AnswerReusePolicy::None, false) => true,
    }
}

/// Whether the lifecycle treats a question as secret under these rules (RFD
/// 082 "Secret questions"): its answer type is `Secret` and the type exists
/// (`secret_type`, RFD 082 on; an older build reads the question as text).
/// The one place the model decides it; the prompter's no-echo input, the
/// redaction, the cache and the routing guard all ask here.
pub(crate) fn is_secret(question: &Question, rules: &Rules) -> bool {
    rules.secret_type && question.is_secret()
}

/// Whether the prompter offers `y`/`Y`/`n`/`N` "remember for turn" (rule
/// `LIFE-REMEMBER`; table `spec/tables/remember.md`): booleans only, and only
/// where the cache would take the answer. The one place it is decided: the
/// prompter's presentation ([`crate::model::prompt::present`]) and the cache write
/// both ask here.
pub fn remember_offered(question: &Question, rules: &Rules) -> bool {
    match question.answer_type {
        AnswerType::Boolean => cache_eligible(
            is_secret(question, rules),
            question.persistence,
            rules.persistence_gate,
        ),
        AnswerType::Select { .. } | AnswerType::Text | AnswerType::Secret => false,
    }
}

/// Where a question goes once no cached answer applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Route {
    /// Use the configured static answer; routing skipped entirely.
    Static,
    /// The interactive prompter.
    Prompter,
    /// The inquiry backend (RFD 028).
    Backend,
    /// Fail the tool: no TTY for a human-only question.
    RefuseNoTty,
    /// Fail the tool: a human-only question targeted at the assistant.
    RefuseAssistantTarget,
}

/// The route choice (rule `LIFE-ROUTE`; RFD 083 "Resolution precedence",
/// extended by RFD 082's secret guard; table `spec/tables/route.md`).
///
/// | static answer | target | TTY | human-only | route |
/// | --- | --- | --- | --- | --- |
/// | yes | any | any | any | static |
/// | no | user | yes | any | prompter |
/// | no | user | no | no | backend |
/// | no | user | no | yes | refuse_no_tty |
/// | no | assistant | any | no | backend |
/// | no | assistant | any | yes | refuse_assistant_target |
pub fn route(has_static: bool, target: QuestionTarget, tty: bool, human_only: bool) -> Route {
    match (has_static, target, tty, human_only) {
        (true, _, _, _) => Route::Static,
        (false, QuestionTarget::User, true, _) => Route::Prompter,
        (false, QuestionTarget::User, false, false) => Route::Backend,
        (false, QuestionTarget::User, false, true) => Route::RefuseNoTty,
        (false, QuestionTarget::Assistant, _, false) => Route::Backend,
        (false, QuestionTarget::Assistant, _, true) => Route::RefuseAssistantTarget,
    }
}

/// The error kinds of the inquiry backend (RFD 028 `InquiryError`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InquiryErrorKind {
    /// The cancellation token fired (user restart, tool cancel, hard quit).
    Cancelled,
    /// The provider call failed.
    Provider,
    /// The structured response carried no data.
    MissingStructuredData,
    /// The answer could not be extracted or did not fit the schema.
    AnswerExtraction,
    /// Anything else (the mock backend's catch-all).
    Other,
}

/// A prompter failure other than Ctrl-C and EOF (rule
/// `LIFE-PROMPTER-FAILURE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PrompterFailure {
    /// The prompter could not open a terminal (stdout is one, the input side
    /// is not: RFD 083 detects the TTY on stdout).
    NoTerminal,
    /// Reading or writing the terminal failed mid-prompt.
    Io,
    /// The prompt could not be rendered (a formatting error).
    Format,
}

/// What the coordinator sees of a prompter failure (RFD 082 step 6: prompter
/// I/O errors "are indistinguishable from Ctrl-C at the coordinator's
/// vantage today and follow the same `User` path"). Decision in
/// `spec/DECISIONS.md`: every prompter failure is a `PromptCancelled`,
/// never a `BackendError`, whatever `BackendError`'s doc comment says.
pub(crate) fn prompter_failure_event(failure: PrompterFailure) -> NonAnswer {
    match failure {
        PrompterFailure::NoTerminal => NonAnswer::PromptCancelled,
        PrompterFailure::Io => NonAnswer::PromptCancelled,
        PrompterFailure::Format => NonAnswer::PromptCancelled,
    }
}

/// What fires the inquiry backend's cancellation token (RFD 082 step 6:
/// "user restart, tool cancel, hard quit"; an aborted turn cancels its
/// in-flight work the same way). Rule `LIFE-TOKEN-CAUSE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenCause {
    /// `InterruptAction::RestartTool`: the tool is to be re-run.
    Restart,
    /// `ToolCancelled`: the user cancels this tool.
    ToolCancel,
    /// Hard quit: the process stops after recording.
    HardQuit,
    /// The turn is aborted: no further cycle of it runs.
    AbortedTurn,
}

/// The backend error every token cause produces: `InquiryError::Cancelled`,
/// which records `user` (RFD 082 step 6 table).
pub(crate) fn token_error(cause: TokenCause) -> InquiryErrorKind {
    match cause {
        TokenCause::Restart => InquiryErrorKind::Cancelled,
        TokenCause::ToolCancel => InquiryErrorKind::Cancelled,
        TokenCause::HardQuit => InquiryErrorKind::Cancelled,
        TokenCause::AbortedTurn => InquiryErrorKind::Cancelled,
    }
}

/// What closed an inquiry without an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "event", content = "kind")]
pub enum NonAnswer {
    /// `ExecutionEvent::PromptCancelled`: Ctrl-C or EOF at the prompt.
    PromptCancelled,
    /// The inquiry backend returned an error.
    Inquiry(InquiryErrorKind),
    /// The no-TTY guard refused a human-only question.
    GuardNoTty,
    /// The assistant-target guard refused a human-only question.
    GuardAssistantTarget,
    /// A configured static answer did not fit the question (RFD 083 step 6).
    InvalidStaticAnswer,
}

/// The cancellation-reason mapping (rule `LIFE-CANCEL-REASON`; RFD 082
/// "Recording lifecycle" table, RFD 083 "Persisted recording" table;
/// `spec/tables/cancellation.md`).
pub fn cancellation_reason(event: NonAnswer) -> CancellationReason {
    match event {
        NonAnswer::PromptCancelled => CancellationReason::User,
        NonAnswer::Inquiry(InquiryErrorKind::Cancelled) => CancellationReason::User,
        NonAnswer::Inquiry(InquiryErrorKind::Provider) => CancellationReason::BackendError,
        NonAnswer::Inquiry(InquiryErrorKind::MissingStructuredData) => {
            CancellationReason::BackendError
        }
        NonAnswer::Inquiry(InquiryErrorKind::AnswerExtraction) => CancellationReason::BackendError,
        NonAnswer::Inquiry(InquiryErrorKind::Other) => CancellationReason::BackendError,
        NonAnswer::GuardNoTty => CancellationReason::NoPromptBackend,
        NonAnswer::GuardAssistantTarget => CancellationReason::AssistantRoutingDenied,
        NonAnswer::InvalidStaticAnswer => CancellationReason::InvalidStaticAnswer,
    }
}

pub use crate::predicates::AnswerMismatch;

/// Checks an answer against a model answer type (rule `LIFE-ANSWER-SHAPE`)
/// with the predicate the oracle shares ([`predicates::answer_fits`]): used by static-answer validation (RFD 083
/// step 6), by the inquiry backend's answer extraction (RFD 028) and by
/// `ask_user`'s checks of its `default` and of the accumulated answer (RFD
/// 083 "Arguments").
pub fn validate_answer(answer_type: &AnswerType, value: &Value) -> Result<(), AnswerMismatch> {
    let (kind, options): (AnswerKind, &[String]) = match answer_type {
        AnswerType::Boolean => (AnswerKind::Boolean, &[]),
        AnswerType::Select { options } => (AnswerKind::Select, options),
        AnswerType::Text => (AnswerKind::Text, &[]),
        AnswerType::Secret => (AnswerKind::Secret, &[]),
    };
    predicates::answer_fits(kind, options, value)
}

/// The tool-level error texts of RFD 083 (rule `LIFE-GUARD-MESSAGES`), used
/// for `Secret` (RFD 082) and `exclusive` (RFD 083) alike.
pub(crate) mod messages {
    /// RFD 083 step 7, no-TTY refusal.
    pub(crate) fn no_tty(tool: &str) -> String {
        format!(
            "{tool} cannot run because no interactive terminal is available. Do not retry this \
             tool call in this turn; continue without user input or explain what information \
             is missing."
        )
    }

    /// RFD 083 step 7, assistant-target refusal.
    pub(crate) fn assistant_target(tool: &str) -> String {
        format!(
            "{tool} requires a human answer and cannot be routed to the assistant. Do not retry \
             this tool call in this turn."
        )
    }

    /// RFD 083 step 6, the source-aware static-answer error.
    pub(crate) fn invalid_static_answer(tool: &str, question_id: &str) -> String {
        format!(
            "{tool}: the configured conversation.tools.{tool}.questions.{question_id}.answer \
             value does not match the question's answer_type. Update the configuration; do \
             not retry."
        )
    }

    /// The inquiry backend failed.
    pub(crate) fn inquiry_failed(tool: &str, error: &str) -> String {
        [
            tool,
            ": the inquiry for the tool's question failed: ",
            error,
        ]
        .concat()
    }

    /// No executor is registered under the tool's config key (RFD 083
    /// "Built-in aliasing": `ToolError::NotFound` at execution time). The
    /// RFD does not quote the wording; this is the model's.
    pub(crate) fn tool_not_found(tool: &str) -> String {
        format!(
            "{tool}: tool not found (no built-in executor is registered under the \
             configuration key `{tool}`)."
        )
    }

    /// The user denied permission to run the tool.
    pub(crate) fn permission_denied(tool: &str) -> String {
        format!("{tool}: the user denied permission to run this tool.")
    }
}
