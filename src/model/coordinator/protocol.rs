//! The coordinator's protocol: the [`Input`]s a driver feeds it, the
//! [`Effect`]s it answers with, and the classes of what it reports.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::inquiry::BackendCall;
use crate::model::prompt::Presentation;
use crate::model::routing::{InquiryErrorKind, PrompterFailure, Refusal};
use crate::model::tool::{Answers, Outcome};
use crate::wire::{CancellationReason, Event, InquiryId, InquirySource};

/// A tool call the assistant made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Call {
    /// The provider's tool-call ID (may repeat across cycles and turns).
    pub id: String,
    /// The tool's name.
    pub tool: String,
    /// The arguments (an empty object when a scenario gives none).
    #[serde(default = "empty_object")]
    pub arguments: Value,
}

fn empty_object() -> Value {
    Value::Object(serde_json::Map::new())
}

/// What the driver tells the coordinator.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// A new turn with the user's message.
    BeginTurn {
        /// The user's message.
        content: String,
    },
    /// The assistant emitted these tool calls (one cycle; parallel calls).
    BeginCycle {
        /// The calls, in emitted order.
        calls: Vec<Call>,
    },
    /// A tool invocation returned (RFD 082 `ExecutorResult`): the source was
    /// resolved at the executor boundary from the tool's kind.
    ToolReturned {
        /// Index of the call in the cycle.
        call: usize,
        /// What the tool returned.
        outcome: Outcome,
        /// The provenance the executor resolved.
        source: InquirySource,
    },
    /// The user answered a prompt (RFD 082 `ExecutionEvent::PromptAnswer`).
    PromptAnswered {
        /// Index of the call.
        call: usize,
        /// The ID allocated when the request was recorded, threaded verbatim.
        inquiry_id: Option<InquiryId>,
        /// The answer.
        answer: Value,
        /// `Y`/`N` rather than `y`/`n`.
        remember: bool,
    },
    /// Ctrl-C or EOF at a prompt (RFD 082 `ExecutionEvent::PromptCancelled`).
    PromptCancelled {
        /// Index of the call.
        call: usize,
        /// The ID allocated when the request was recorded.
        inquiry_id: Option<InquiryId>,
    },
    /// The prompter failed otherwise than by Ctrl-C or EOF (no terminal,
    /// terminal I/O, rendering; rule `LIFE-PROMPTER-FAILURE`).
    PromptFailed {
        /// Index of the call.
        call: usize,
        /// The ID allocated when the request was recorded.
        inquiry_id: Option<InquiryId>,
        /// What failed.
        failure: PrompterFailure,
    },
    /// The inquiry backend finished (RFD 028 `InquiryResult`).
    InquiryResult {
        /// Index of the call.
        call: usize,
        /// The structured response, or the backend's error.
        result: Result<Value, InquiryErrorKind>,
    },
    /// The cancellation token fired for `InterruptAction::RestartTool`
    /// while the call's inquiry ran (rule `LIFE-TOKEN-CAUSE`): the
    /// inquiry records `cancelled (user)` and the tool runs again from
    /// scratch, in the same call.
    InquiryRestarted {
        /// Index of the call.
        call: usize,
    },
    /// The user answered the result-delivery prompt (rule
    /// `LIFE-DELIVERY-PROMPT`).
    DeliveryAnswered {
        /// Index of the call.
        call: usize,
        /// Deliver the tool's response (`false`: withhold it).
        deliver: bool,
    },
    /// The user answered a permission prompt.
    PermissionAnswered {
        /// Index of the call.
        call: usize,
        /// Allowed to run.
        allow: bool,
        /// Remember for the turn.
        remember: bool,
    },
    /// The assistant's final message; the turn ends.
    EndTurn {
        /// The assistant's message.
        content: String,
    },
}

/// What the coordinator asks of the world.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Append this event to the persisted stream.
    Persist(Event),
    /// Run the tool with these accumulated answers.
    Invoke {
        /// Index of the call.
        call: usize,
        /// The answers the tool sees (`tool.answers` for local tools).
        answers: Answers,
    },
    /// Ask the user whether the tool may run.
    AskPermission {
        /// Index of the call.
        call: usize,
    },
    /// Ask the user whether the finished tool's result goes to the
    /// assistant (the `DeliverToolResult` prompt, `result = "ask"`).
    AskDelivery {
        /// Index of the call.
        call: usize,
    },
    /// Show a question at the prompter.
    Prompt {
        /// Index of the call.
        call: usize,
        /// The ID to thread back with the answer.
        inquiry_id: Option<InquiryId>,
        /// What the user sees (boxed, as the backend's call below: it is
        /// the largest effect, and every effect is moved on its way to the
        /// driver).
        presentation: Box<Presentation>,
    },
    /// Call the inquiry backend.
    Inquire {
        /// Index of the call.
        call: usize,
        /// The call as the backend gets it.
        backend: Box<BackendCall>,
    },
    /// How a question was resolved (informative: for traces and amendment
    /// diffs, never persisted).
    Resolved {
        /// Index of the call.
        call: usize,
        /// The question's ID.
        question_id: String,
        /// The path it took.
        route: RouteTaken,
        /// Whether its request was recorded.
        recorded: bool,
    },
    /// The call is complete; this is what the model sees.
    Respond {
        /// Index of the call.
        call: usize,
        /// The text.
        content: String,
        /// Whether it is an error (always `kind.is_error()`).
        is_error: bool,
        /// Which outcome the response reports.
        kind: ResponseKind,
    },
}

/// Which outcome a tool response reports: the class the conformance runner
/// compares where the RFDs leave the wording to the implementation
/// (`spec/vector-format.md`). Serialized as its snake_case name
/// ([`ResponseKind::as_str`]); a refusal by its row's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ResponseKind {
    /// The tool's own `Outcome::Success`.
    ToolSuccess,
    /// The tool's own `Outcome::Error`.
    ToolError,
    /// The user cancelled a prompt (Ctrl-C or EOF).
    CancelledByUser,
    /// The inquiry backend failed (any `InquiryError`).
    InquiryFailed,
    /// The coordinator refused the question (a guard, or a static answer
    /// that does not fit): a row of [`REFUSALS`](crate::profile::tables::REFUSALS).
    Refused(Refusal),
    /// The user denied permission to run the tool.
    PermissionDenied,
    /// The assistant called a tool that is not configured.
    UnknownTool,
    /// The user withheld the tool's result at the delivery prompt.
    ResultWithheld,
}

impl ResponseKind {
    /// Every kind, in declaration order (a refusal once per [`Refusal::ALL`]).
    pub(crate) fn all() -> Vec<ResponseKind> {
        let mut all = vec![
            ResponseKind::ToolSuccess,
            ResponseKind::ToolError,
            ResponseKind::CancelledByUser,
            ResponseKind::InquiryFailed,
        ];
        all.extend(Refusal::ALL.map(ResponseKind::Refused));
        all.extend([
            ResponseKind::PermissionDenied,
            ResponseKind::UnknownTool,
            ResponseKind::ResultWithheld,
        ]);
        all
    }

    /// Whether a response of this kind is an error. After a non-answer it
    /// is the reason class's [`ReasonClass::fails_tool`](crate::wire::ReasonClass),
    /// the data the oracle reads too: a user-cancelled prompt is a success
    /// (RFD 082 step 6 leaves the tool response as it was, `Tool input
    /// cancelled by user.`), a failed inquiry reports its failure as
    /// `backend_error` does, even when the cancellation token closed it.
    pub(crate) fn is_error(self) -> bool {
        match self {
            // A withheld result is the user's choice, like a cancelled
            // prompt, not a failure of the tool (DECISIONS "Configuration
            // driving the lifecycle").
            ResponseKind::ToolSuccess | ResponseKind::ResultWithheld => false,
            ResponseKind::ToolError
            | ResponseKind::PermissionDenied
            | ResponseKind::UnknownTool => true,
            ResponseKind::CancelledByUser => CancellationReason::User.fails_tool(),
            ResponseKind::InquiryFailed => CancellationReason::BackendError.fails_tool(),
            ResponseKind::Refused(refusal) => refusal.row().reason.to_wire().fails_tool(),
        }
    }

    /// The snake_case name (as serialized).
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ResponseKind::ToolSuccess => "tool_success",
            ResponseKind::ToolError => "tool_error",
            ResponseKind::CancelledByUser => "cancelled_by_user",
            ResponseKind::InquiryFailed => "inquiry_failed",
            ResponseKind::Refused(refusal) => refusal.as_str(),
            ResponseKind::PermissionDenied => "permission_denied",
            ResponseKind::UnknownTool => "unknown_tool",
            ResponseKind::ResultWithheld => "result_withheld",
        }
    }
}

/// Writes `name` when it is one of `all`'s names, else an error naming
/// what `what` accepts (the words serde's derive used).
fn by_name<T: Copy, E: serde::de::Error>(
    all: &[T],
    name: &str,
    as_str: fn(T) -> &'static str,
) -> Result<T, E> {
    all.iter()
        .copied()
        .find(|v| as_str(*v) == name)
        .ok_or_else(|| {
            let names: Vec<&'static str> = all.iter().map(|v| as_str(*v)).collect();
            E::custom(format_args!(
                "unknown variant `{name}`, expected one of {}",
                names
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })
}

impl Serialize for ResponseKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ResponseKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = std::borrow::Cow::<'de, str>::deserialize(d)?;
        by_name(&ResponseKind::all(), &name, ResponseKind::as_str)
    }
}

/// The path a question took (RFD 082 "Recording lifecycle" steps 3–6).
/// Serialized as its snake_case name ([`RouteTaken::as_str`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RouteTaken {
    /// The turn cache answered.
    Cached,
    /// The configured static answer was used.
    Static,
    /// The user was prompted.
    Prompter,
    /// The inquiry backend was asked.
    Backend,
    /// The coordinator refused the question (a row of
    /// [`REFUSALS`](crate::profile::tables::REFUSALS)).
    Refused(Refusal),
}

impl RouteTaken {
    /// Every path, in declaration order (a refusal once per [`Refusal::ALL`]).
    pub(crate) fn all() -> Vec<RouteTaken> {
        let mut all = vec![
            RouteTaken::Cached,
            RouteTaken::Static,
            RouteTaken::Prompter,
            RouteTaken::Backend,
        ];
        all.extend(Refusal::ALL.map(RouteTaken::Refused));
        all
    }

    /// The snake_case name (as serialized).
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            RouteTaken::Cached => "cached",
            RouteTaken::Static => "static",
            RouteTaken::Prompter => "prompter",
            RouteTaken::Backend => "backend",
            RouteTaken::Refused(refusal) => refusal.as_str(),
        }
    }
}

impl Serialize for RouteTaken {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for RouteTaken {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = std::borrow::Cow::<'de, str>::deserialize(d)?;
        by_name(&RouteTaken::all(), &name, RouteTaken::as_str)
    }
}

/// An input that does not fit the coordinator's state (a driver bug, never
/// a spec outcome).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoordinatorError(pub String);

impl fmt::Display for CoordinatorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CoordinatorError {}
