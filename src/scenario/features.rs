//! The scenario language's features, declared in one list (rule
//! `CONF-FEATURES-REACHED`): every input kind, prompter failure, token cause,
//! backend reply kind, tool kind, question shape and configuration shape a
//! scenario can say. [`reached`] names the features one run actually
//! reached (a reply counts only once it was consumed, a question only once
//! a tool asked it), so a test can draw scenarios from a generator and show
//! that it reaches every entry of [`Feature::ALL`].
//!
//! Adding a variant to an input enum (a reply, a failure, a cause) breaks
//! the build here until the feature is declared: the mappings are
//! exhaustive matches.

use std::collections::BTreeSet;

use serde::Serialize;

use super::{
    BackendReply, DeliveryReply, PermissionReply, Program, PrompterReply, Scenario, Trace,
};
use crate::model::config::Toggle;
use crate::model::coordinator::RunPolicy;
use crate::model::routing::{InquiryErrorKind, PrompterFailure, TokenCause, validate_answer};
use crate::model::tool::{
    AnswerReusePolicy, AnswerType, BuiltinHook, Outcome, QuestionTarget, ToolSource,
};
use crate::profile::ProfileName;

/// One thing a scenario can say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Feature {
    /// Run under `legacy`.
    ProfileLegacy,
    /// Run under `rfd082`.
    ProfileRfd082,
    /// Run under `rfd083`.
    ProfileRfd083,
    /// No TTY.
    NoTty,
    /// Two calls in one cycle.
    ParallelCalls,
    /// Two turns.
    TwoTurns,
    /// A tool-call ID reused in a later cycle or turn.
    ReusedCallId,
    /// A built-in with the default provenance hook ran.
    ToolBuiltinDefault,
    /// A built-in with the `Assistant` hook ran.
    ToolBuiltinAssistant,
    /// A local-kind tool ran.
    ToolLocal,
    /// An MCP tool ran.
    ToolMcp,
    /// The `ask_user` program ran.
    ProgramAskUser,
    /// A local program (stdout protocol) ran.
    ProgramLocal,
    /// A local program printed raw text (not an outcome).
    LocalRawStdout,
    /// A built-in looked up under an alias: `NotFound`.
    AliasedBuiltin,
    /// `ask_user` refused its arguments.
    AskUserMalformedArguments,
    /// A boolean question was asked.
    QuestionBoolean,
    /// A select question was asked.
    QuestionSelect,
    /// A text question was asked.
    QuestionText,
    /// A secret question was asked.
    QuestionSecret,
    /// An exclusive question was asked.
    QuestionExclusive,
    /// A `persistence: none` question was asked.
    QuestionPersistenceNone,
    /// A question with `context` was asked.
    QuestionContext,
    /// A question with a `default` was asked.
    QuestionDefault,
    /// A tool re-asked a question it rejected.
    QuestionReasked,
    /// `target = "assistant"` configured for an asked question.
    ConfigTargetAssistant,
    /// A static answer that fits the asked question.
    ConfigStaticValid,
    /// A static answer that does not fit the asked question.
    ConfigStaticInvalid,
    /// A prompt label configured for an asked question.
    ConfigPromptLabel,
    /// `run = ask`.
    ConfigRunAsk,
    /// The prompter answered.
    PrompterAnswer,
    /// The prompter answered with `Y`/`N`.
    PrompterRemember,
    /// Ctrl-C.
    PrompterCtrlC,
    /// EOF.
    PrompterEof,
    /// The prompter found no terminal.
    PrompterFailureNoTerminal,
    /// A terminal I/O error.
    PrompterFailureIo,
    /// A prompt format error.
    PrompterFailureFormat,
    /// The backend answered (well-formed).
    BackendAnswer,
    /// The backend returned a raw structured response (RFD 028 extraction).
    BackendRaw,
    /// `InquiryError::Cancelled` as a plain error.
    BackendErrorCancelled,
    /// `InquiryError::Provider`.
    BackendErrorProvider,
    /// `InquiryError::MissingStructuredData`.
    BackendErrorMissingStructuredData,
    /// `InquiryError::AnswerExtraction`.
    BackendErrorAnswerExtraction,
    /// `InquiryError::Other`.
    BackendErrorOther,
    /// The token fired for a restart.
    TokenRestart,
    /// The token fired for a tool cancel.
    TokenToolCancel,
    /// The token fired for a hard quit.
    TokenHardQuit,
    /// The token fired for an aborted turn.
    TokenAbortedTurn,
    /// The mock backend answered an inquiry by its ID.
    BackendReplyById,
    /// The backend asked the dedicated inquiry model.
    InquiryModelDedicated,
    /// The backend asked a question's own assistant-target model.
    InquiryModelPerQuestion,
    /// A call named a tool that `enable` and the toggles turned off.
    ConfigToolDisabled,
    /// A bare `-t`/`-T` flag.
    ConfigToggleBulk,
    /// A named `-t NAME`/`-T NAME` flag.
    ConfigToggleNamed,
    /// A permission prompt was allowed.
    PermissionAllow,
    /// A permission prompt was denied.
    PermissionDeny,
    /// A result-delivery prompt delivered the tool's response.
    DeliveryDeliver,
    /// A result-delivery prompt withheld the tool's response.
    DeliveryWithhold,
}

impl Feature {
    /// Every feature, in declaration order.
    pub const ALL: [Feature; 58] = [
        Feature::ProfileLegacy,
        Feature::ProfileRfd082,
        Feature::ProfileRfd083,
        Feature::NoTty,
        Feature::ParallelCalls,
        Feature::TwoTurns,
        Feature::ReusedCallId,
        Feature::ToolBuiltinDefault,
        Feature::ToolBuiltinAssistant,
        Feature::ToolLocal,
        Feature::ToolMcp,
        Feature::ProgramAskUser,
        Feature::ProgramLocal,
        Feature::LocalRawStdout,
        Feature::AliasedBuiltin,
        Feature::AskUserMalformedArguments,
        Feature::QuestionBoolean,
        Feature::QuestionSelect,
        Feature::QuestionText,
        Feature::QuestionSecret,
        Feature::QuestionExclusive,
        Feature::QuestionPersistenceNone,
        Feature::QuestionContext,
        Feature::QuestionDefault,
        Feature::QuestionReasked,
        Feature::ConfigTargetAssistant,
        Feature::ConfigStaticValid,
        Feature::ConfigStaticInvalid,
        Feature::ConfigPromptLabel,
        Feature::ConfigRunAsk,
        Feature::PrompterAnswer,
        Feature::PrompterRemember,
        Feature::PrompterCtrlC,
        Feature::PrompterEof,
        Feature::PrompterFailureNoTerminal,
        Feature::PrompterFailureIo,
        Feature::PrompterFailureFormat,
        Feature::BackendAnswer,
        Feature::BackendRaw,
        Feature::BackendErrorCancelled,
        Feature::BackendErrorProvider,
        Feature::BackendErrorMissingStructuredData,
        Feature::BackendErrorAnswerExtraction,
        Feature::BackendErrorOther,
        Feature::TokenRestart,
        Feature::TokenToolCancel,
        Feature::TokenHardQuit,
        Feature::TokenAbortedTurn,
        Feature::BackendReplyById,
        Feature::InquiryModelDedicated,
        Feature::InquiryModelPerQuestion,
        Feature::ConfigToolDisabled,
        Feature::ConfigToggleBulk,
        Feature::ConfigToggleNamed,
        Feature::PermissionAllow,
        Feature::PermissionDeny,
        Feature::DeliveryDeliver,
        Feature::DeliveryWithhold,
    ];

    /// The feature's position in [`Feature::ALL`]: an exhaustive match, so a
    /// new variant cannot be left out of the list unnoticed (a unit test
    /// checks the positions).
    pub fn position(self) -> usize {
        match self {
            Feature::ProfileLegacy => 0,
            Feature::ProfileRfd082 => 1,
            Feature::ProfileRfd083 => 2,
            Feature::NoTty => 3,
            Feature::ParallelCalls => 4,
            Feature::TwoTurns => 5,
            Feature::ReusedCallId => 6,
            Feature::ToolBuiltinDefault => 7,
            Feature::ToolBuiltinAssistant => 8,
            Feature::ToolLocal => 9,
            Feature::ToolMcp => 10,
            Feature::ProgramAskUser => 11,
            Feature::ProgramLocal => 12,
            Feature::LocalRawStdout => 13,
            Feature::AliasedBuiltin => 14,
            Feature::AskUserMalformedArguments => 15,
            Feature::QuestionBoolean => 16,
            Feature::QuestionSelect => 17,
            Feature::QuestionText => 18,
            Feature::QuestionSecret => 19,
            Feature::QuestionExclusive => 20,
            Feature::QuestionPersistenceNone => 21,
            Feature::QuestionContext => 22,
            Feature::QuestionDefault => 23,
            Feature::QuestionReasked => 24,
            Feature::ConfigTargetAssistant => 25,
            Feature::ConfigStaticValid => 26,
            Feature::ConfigStaticInvalid => 27,
            Feature::ConfigPromptLabel => 28,
            Feature::ConfigRunAsk => 29,
            Feature::PrompterAnswer => 30,
            Feature::PrompterRemember => 31,
            Feature::PrompterCtrlC => 32,
            Feature::PrompterEof => 33,
            Feature::PrompterFailureNoTerminal => 34,
            Feature::PrompterFailureIo => 35,
            Feature::PrompterFailureFormat => 36,
            Feature::BackendAnswer => 37,
            Feature::BackendRaw => 38,
            Feature::BackendErrorCancelled => 39,
            Feature::BackendErrorProvider => 40,
            Feature::BackendErrorMissingStructuredData => 41,
            Feature::BackendErrorAnswerExtraction => 42,
            Feature::BackendErrorOther => 43,
            Feature::TokenRestart => 44,
            Feature::TokenToolCancel => 45,
            Feature::TokenHardQuit => 46,
            Feature::TokenAbortedTurn => 47,
            Feature::BackendReplyById => 48,
            Feature::InquiryModelDedicated => 49,
            Feature::InquiryModelPerQuestion => 50,
            Feature::ConfigToolDisabled => 51,
            Feature::ConfigToggleBulk => 52,
            Feature::ConfigToggleNamed => 53,
            Feature::PermissionAllow => 54,
            Feature::PermissionDeny => 55,
            Feature::DeliveryDeliver => 56,
            Feature::DeliveryWithhold => 57,
        }
    }

    /// The feature of a profile.
    pub(crate) fn of_profile(p: ProfileName) -> Feature {
        match p {
            ProfileName::Legacy => Feature::ProfileLegacy,
            ProfileName::Rfd082 => Feature::ProfileRfd082,
            ProfileName::Rfd083 => Feature::ProfileRfd083,
        }
    }

    /// The feature of a prompter reply.
    pub(crate) fn of_prompter(r: &PrompterReply) -> Feature {
        match r {
            PrompterReply::Answer { .. } => Feature::PrompterAnswer,
            PrompterReply::CtrlC => Feature::PrompterCtrlC,
            PrompterReply::Eof => Feature::PrompterEof,
            PrompterReply::Failure { failure } => match failure {
                PrompterFailure::NoTerminal => Feature::PrompterFailureNoTerminal,
                PrompterFailure::Io => Feature::PrompterFailureIo,
                PrompterFailure::Format => Feature::PrompterFailureFormat,
            },
        }
    }

    /// The feature of a backend reply.
    pub(crate) fn of_backend(r: &BackendReply) -> Feature {
        match r {
            BackendReply::Answer { .. } => Feature::BackendAnswer,
            BackendReply::Raw { .. } => Feature::BackendRaw,
            BackendReply::Error { error } => match error {
                InquiryErrorKind::Cancelled => Feature::BackendErrorCancelled,
                InquiryErrorKind::Provider => Feature::BackendErrorProvider,
                InquiryErrorKind::MissingStructuredData => {
                    Feature::BackendErrorMissingStructuredData
                }
                InquiryErrorKind::AnswerExtraction => Feature::BackendErrorAnswerExtraction,
                InquiryErrorKind::Other => Feature::BackendErrorOther,
            },
            BackendReply::Cancelled { cause } => match cause {
                TokenCause::Restart => Feature::TokenRestart,
                TokenCause::ToolCancel => Feature::TokenToolCancel,
                TokenCause::HardQuit => Feature::TokenHardQuit,
                TokenCause::AbortedTurn => Feature::TokenAbortedTurn,
            },
        }
    }

    /// The feature of a tool kind.
    pub(crate) fn of_kind(k: ToolSource) -> Feature {
        match k {
            ToolSource::Builtin {
                hook: BuiltinHook::Default,
            } => Feature::ToolBuiltinDefault,
            ToolSource::Builtin {
                hook: BuiltinHook::Assistant,
            } => Feature::ToolBuiltinAssistant,
            ToolSource::Local => Feature::ToolLocal,
            ToolSource::Mcp => Feature::ToolMcp,
        }
    }
}

/// The features one run of `scenario` reached (its `trace`).
pub fn reached(scenario: &Scenario, trace: &Trace) -> BTreeSet<Feature> {
    let mut out = BTreeSet::new();
    out.insert(Feature::of_profile(scenario.profile));
    if !scenario.tty {
        out.insert(Feature::NoTty);
    }
    if scenario.turns.len() > 1 {
        out.insert(Feature::TwoTurns);
    }
    for t in &scenario.toggles {
        match Toggle::parse(t) {
            Ok(Toggle::EnableAll | Toggle::DisableAll) => {
                out.insert(Feature::ConfigToggleBulk);
            }
            Ok(Toggle::Enable(_) | Toggle::Disable(_)) => {
                out.insert(Feature::ConfigToggleNamed);
            }
            Err(_) => {}
        }
    }
    if let Ok(enabled) = super::enabled_tools(scenario) {
        let called_off = scenario
            .turns
            .iter()
            .flat_map(|t| &t.cycles)
            .flatten()
            .any(|c| enabled.get(&c.tool).is_some_and(|e| !e.state));
        if called_off {
            out.insert(Feature::ConfigToolDisabled);
        }
    }
    let mut ids = BTreeSet::new();
    for turn in &scenario.turns {
        for cycle in &turn.cycles {
            if cycle.len() > 1 {
                out.insert(Feature::ParallelCalls);
            }
            for call in cycle {
                if !ids.insert(call.id.clone()) {
                    out.insert(Feature::ReusedCallId);
                }
            }
        }
    }
    let configured = super::configured_tools(scenario).unwrap_or_default();
    for inv in &trace.invocations {
        let (Some(setup), Some(config)) =
            (scenario.tools.get(&inv.tool), configured.get(&inv.tool))
        else {
            continue;
        };
        match setup.executor(&inv.tool) {
            Ok(kind) => {
                out.insert(Feature::of_kind(kind));
            }
            Err(_) => {
                // No executor ran: its program's features are not reached.
                out.insert(Feature::AliasedBuiltin);
                continue;
            }
        }
        match (&setup.program, &inv.outcome) {
            (Program::AskUser, Outcome::Error { .. }) => {
                out.insert(Feature::ProgramAskUser);
                out.insert(Feature::AskUserMalformedArguments);
            }
            (Program::AskUser, Outcome::Success { .. } | Outcome::NeedsInput { .. }) => {
                out.insert(Feature::ProgramAskUser);
            }
            (Program::Local { .. }, Outcome::Success { content }) => {
                out.insert(Feature::ProgramLocal);
                if !content.is_empty() {
                    out.insert(Feature::LocalRawStdout);
                }
            }
            (Program::Local { .. }, Outcome::Error { .. } | Outcome::NeedsInput { .. }) => {
                out.insert(Feature::ProgramLocal);
            }
            (Program::Script { .. }, _) => {}
        }
        if config.run == RunPolicy::Ask {
            out.insert(Feature::ConfigRunAsk);
        }
        let Outcome::NeedsInput { question: q } = &inv.outcome else {
            continue;
        };
        out.insert(match q.answer_type {
            AnswerType::Boolean => Feature::QuestionBoolean,
            AnswerType::Select { .. } => Feature::QuestionSelect,
            AnswerType::Text => Feature::QuestionText,
            AnswerType::Secret => Feature::QuestionSecret,
        });
        if q.exclusive {
            out.insert(Feature::QuestionExclusive);
        }
        if q.persistence == AnswerReusePolicy::None {
            out.insert(Feature::QuestionPersistenceNone);
        }
        if q.context.is_some() {
            out.insert(Feature::QuestionContext);
        }
        if q.default.is_some() {
            out.insert(Feature::QuestionDefault);
        }
        if inv.answers.contains_key(&q.id) {
            out.insert(Feature::QuestionReasked);
        }
        if let Some(c) = config.questions.get(&q.id) {
            if c.target == QuestionTarget::Assistant {
                out.insert(Feature::ConfigTargetAssistant);
            }
            if let Some(a) = &c.answer {
                out.insert(match validate_answer(&q.answer_type, a) {
                    Ok(()) => Feature::ConfigStaticValid,
                    Err(_) => Feature::ConfigStaticInvalid,
                });
            }
            if c.prompt_label.is_some() && !matches!(setup.program, Program::AskUser) {
                out.insert(Feature::ConfigPromptLabel);
            }
        }
    }
    for p in &trace.prompts {
        out.insert(Feature::of_prompter(&p.reply));
        if let PrompterReply::Answer { remember: true, .. } = p.reply {
            out.insert(Feature::PrompterRemember);
        }
    }
    for b in &trace.backend_calls {
        out.insert(Feature::of_backend(&b.reply));
        if scenario.backend_by_id.contains_key(&b.call.inquiry_id) {
            out.insert(Feature::BackendReplyById);
        }
        let own = scenario
            .tools
            .get(&b.tool)
            .and_then(|t| t.assistant.get(&b.call.question.id))
            .and_then(|a| a.model.as_ref());
        match (own, &b.model) {
            (Some(_), Some(_)) => {
                out.insert(Feature::InquiryModelPerQuestion);
            }
            (None, Some(_)) => {
                out.insert(Feature::InquiryModelDedicated);
            }
            (_, None) => {}
        }
    }
    for p in &trace.permission_prompts {
        out.insert(match p.reply {
            PermissionReply::Allow { .. } => Feature::PermissionAllow,
            PermissionReply::Deny { .. } => Feature::PermissionDeny,
        });
    }
    for d in &trace.delivery_prompts {
        out.insert(match d.reply {
            DeliveryReply::Deliver => Feature::DeliveryDeliver,
            DeliveryReply::Withhold => Feature::DeliveryWithhold,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rule: CONF-FEATURES-REACHED — `Feature::ALL` lists every feature once,
    /// at the position its exhaustive match gives.
    #[test]
    fn the_feature_list_is_complete_and_ordered() {
        for (i, f) in Feature::ALL.iter().enumerate() {
            assert_eq!(f.position(), i, "{f:?}");
        }
        let set: BTreeSet<Feature> = Feature::ALL.into_iter().collect();
        assert_eq!(set.len(), Feature::ALL.len());
    }
}
