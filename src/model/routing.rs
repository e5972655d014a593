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
pub use crate::profile::tables::Refusal;
use crate::profile::tables::{FIRST_REFUSAL, RouteTo, Tables};
use crate::wire::CancellationReason;

/// Whether a question may only be answered by a human (rule `LIFE-HUMAN-ONLY`):
/// [`Rules::human_only`] of the question's [`is_secret`] and `exclusive`.
pub(crate) fn human_only(question: &Question, rules: &Rules) -> bool {
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
pub(crate) fn cache_eligible(
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
pub(crate) fn remember_offered(question: &Question, rules: &Rules) -> bool {
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Route {
    /// Use the configured static answer; routing skipped entirely.
    Static,
    /// The interactive prompter.
    Prompter,
    /// The inquiry backend (RFD 028).
    Backend,
    /// Fail the tool: a routing guard refused the question (a row of
    /// [`REFUSALS`](crate::profile::tables::REFUSALS)).
    Refuse(Refusal),
}

impl Route {
    /// Every route, in declaration order (a refusal once per
    /// [`Refusal::ALL`]; [`route`] gives only the guards').
    pub fn all() -> Vec<Route> {
        let mut all = vec![Route::Static, Route::Prompter, Route::Backend];
        all.extend(Refusal::ALL.map(Route::Refuse));
        all
    }

    /// Its name in `spec/tables/route.md` (a refusal by its row's name).
    pub fn as_str(self) -> &'static str {
        match self {
            Route::Static => "static",
            Route::Prompter => "prompter",
            Route::Backend => "backend",
            Route::Refuse(refusal) => refusal.as_str(),
        }
    }
}

/// The route choice (rule `LIFE-ROUTE`; RFD 083 "Resolution precedence",
/// extended by RFD 082's secret guard; table `spec/tables/route.md`).
///
/// | static answer | target | TTY | human-only | route |
/// | --- | --- | --- | --- | --- |
/// | yes | any | any | any | static |
/// | no | user | yes | any | prompter |
/// | no | user | no | no | backend |
/// | no | user | no | yes | refused_no_tty |
/// | no | assistant | any | no | backend |
/// | no | assistant | any | yes | refused_assistant_target |
pub fn route(has_static: bool, target: QuestionTarget, tty: bool, human_only: bool) -> Route {
    route_in(&Tables::RFD, has_static, target, tty, human_only)
}

/// The row of the route table (`spec/tables/route.md`, [`ROUTE_ROWS`](crate::profile::tables::ROUTE_ROWS)) that
/// decides these inputs: the table's conditions, first match.
pub(crate) fn route_row(
    has_static: bool,
    target: QuestionTarget,
    tty: bool,
    human_only: bool,
) -> usize {
    match (has_static, target, tty, human_only) {
        (true, _, _, _) => 0,
        (false, QuestionTarget::User, true, _) => 1,
        (false, QuestionTarget::User, false, false) => 2,
        (false, QuestionTarget::User, false, true) => 3,
        (false, QuestionTarget::Assistant, _, false) => 4,
        (false, QuestionTarget::Assistant, _, true) => 5,
    }
}

/// [`route`] with the route table's outcomes read from `tables` (a
/// profile's, possibly amended row by row; rule `AMEND-TABLE-ROWS`).
pub(crate) fn route_in(
    tables: &Tables,
    has_static: bool,
    target: QuestionTarget,
    tty: bool,
    human_only: bool,
) -> Route {
    match tables.route(route_row(has_static, target, tty, human_only)) {
        RouteTo::Static => Route::Static,
        RouteTo::Prompter => Route::Prompter,
        RouteTo::Backend => Route::Backend,
        RouteTo::RefusedNoTty => Route::Refuse(Refusal::NoTty),
        RouteTo::RefusedAssistantTarget => Route::Refuse(Refusal::AssistantTarget),
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

impl PrompterFailure {
    /// Every failure, in declaration order.
    pub(crate) const ALL: [PrompterFailure; 3] = [
        PrompterFailure::NoTerminal,
        PrompterFailure::Io,
        PrompterFailure::Format,
    ];

    /// The snake_case name (as serialized).
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            PrompterFailure::NoTerminal => "no_terminal",
            PrompterFailure::Io => "io",
            PrompterFailure::Format => "format",
        }
    }
}

/// What the coordinator sees of a prompter failure: an originating event of
/// its own, so that the cancellation table has a row for it (an amendment
/// may map it elsewhere). Under the RFDs' table it records what Ctrl-C
/// records (RFD 082 step 6: prompter I/O errors "are indistinguishable from
/// Ctrl-C at the coordinator's vantage today and follow the same `User`
/// path"; decision in `spec/DECISIONS.md`: `user`, never `BackendError`,
/// whatever `BackendError`'s doc comment says).
pub(crate) fn prompter_failure_event(failure: PrompterFailure) -> NonAnswer {
    NonAnswer::PrompterFailed(failure)
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NonAnswer {
    /// `ExecutionEvent::PromptCancelled`: Ctrl-C or EOF at the prompt.
    PromptCancelled,
    /// The prompter failed otherwise (rule `LIFE-PROMPTER-FAILURE`).
    PrompterFailed(PrompterFailure),
    /// The inquiry backend returned an error.
    Inquiry(InquiryErrorKind),
    /// The coordinator refused the question itself (a row of [`REFUSALS`](crate::profile::tables::REFUSALS)).
    Refused(Refusal),
}

impl NonAnswer {
    /// Every originating event, in the order of `spec/tables/cancellation.md`:
    /// the prompter's ([`PrompterFailure::ALL`] after Ctrl-C/EOF), the
    /// inquiry backend's ([`InquiryErrorKind::ALL`]), then the refusals
    /// ([`Refusal::ALL`]).
    pub fn all() -> Vec<NonAnswer> {
        let mut all = vec![NonAnswer::PromptCancelled];
        all.extend(PrompterFailure::ALL.map(NonAnswer::PrompterFailed));
        all.extend(InquiryErrorKind::ALL.map(NonAnswer::Inquiry));
        all.extend(Refusal::ALL.map(NonAnswer::Refused));
        all
    }

    /// Its name in `spec/tables/` (`inquiry_error:<kind>` for the backend's).
    pub fn name(self) -> String {
        match self {
            NonAnswer::PromptCancelled => "prompt_cancelled".to_owned(),
            NonAnswer::PrompterFailed(f) => format!("prompter_failure:{}", f.as_str()),
            NonAnswer::Inquiry(kind) => format!("inquiry_error:{}", kind.as_str()),
            NonAnswer::Refused(refusal) => refusal.as_str().to_owned(),
        }
    }

    /// Its row in the event-keyed tables ([`EVENTS`](crate::profile::tables::EVENTS), the order of
    /// [`NonAnswer::all`]).
    pub(crate) fn row(self) -> usize {
        match self {
            NonAnswer::PromptCancelled => 0,
            NonAnswer::PrompterFailed(PrompterFailure::NoTerminal) => 1,
            NonAnswer::PrompterFailed(PrompterFailure::Io) => 2,
            NonAnswer::PrompterFailed(PrompterFailure::Format) => 3,
            NonAnswer::Inquiry(InquiryErrorKind::Cancelled) => 4,
            NonAnswer::Inquiry(InquiryErrorKind::Provider) => 5,
            NonAnswer::Inquiry(InquiryErrorKind::MissingStructuredData) => 6,
            NonAnswer::Inquiry(InquiryErrorKind::AnswerExtraction) => 7,
            NonAnswer::Inquiry(InquiryErrorKind::Other) => 8,
            NonAnswer::Refused(refusal) => FIRST_REFUSAL + refusal.index(),
        }
    }
}

impl InquiryErrorKind {
    /// Every kind, in declaration order.
    pub(crate) const ALL: [InquiryErrorKind; 5] = [
        InquiryErrorKind::Cancelled,
        InquiryErrorKind::Provider,
        InquiryErrorKind::MissingStructuredData,
        InquiryErrorKind::AnswerExtraction,
        InquiryErrorKind::Other,
    ];

    /// The snake_case name (as serialized).
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            InquiryErrorKind::Cancelled => "cancelled",
            InquiryErrorKind::Provider => "provider",
            InquiryErrorKind::MissingStructuredData => "missing_structured_data",
            InquiryErrorKind::AnswerExtraction => "answer_extraction",
            InquiryErrorKind::Other => "other",
        }
    }
}

/// The reason `tables` records for `event` (rule `LIFE-CANCEL-REASON`):
/// its row of the cancellation table, possibly amended (rule
/// `AMEND-TABLE-ROWS`). Under [`Tables::RFD`] it is RFD 082 "Recording
/// lifecycle" step 6 and RFD 083 "Persisted recording"
/// (`spec/tables/cancellation.md`; a test holds the two equal).
pub(crate) fn cancellation_reason_in(tables: &Tables, event: NonAnswer) -> CancellationReason {
    tables.reason(event.row()).to_wire()
}

pub use crate::predicates::AnswerMismatch;

/// Checks an answer against a model answer type (rule `LIFE-ANSWER-SHAPE`)
/// with the predicate the oracle shares ([`predicates::answer_fits`]): used by static-answer validation (RFD 083
/// step 6), by the inquiry backend's answer extraction (RFD 028) and by
/// `ask_user`'s checks of its `default` and of the accumulated answer (RFD
/// 083 "Arguments").
pub(crate) fn validate_answer(
    answer_type: &AnswerType,
    value: &Value,
) -> Result<(), AnswerMismatch> {
    let (kind, options): (AnswerKind, &[String]) = match answer_type {
        AnswerType::Boolean => (AnswerKind::Boolean, &[]),
        AnswerType::Select { options } => (AnswerKind::Select, options),
        AnswerType::Text => (AnswerKind::Text, &[]),
        AnswerType::Secret => (AnswerKind::Secret, &[]),
    };
    predicates::answer_fits(kind, options, value)
}

/// The tool-level error texts other than the refusals' (those are rows of
/// [`REFUSALS`](crate::profile::tables::REFUSALS)(crate::profile::tables::REFUSALS)).
pub mod messages {
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

#[cfg(test)]
mod decision_tables_tests;
