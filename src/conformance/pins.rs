//! The model's own decisions a vector pins (rule `CONF-PINS`).
//!
//! Where the RFDs leave an outcome open and a scenario reaches it, the
//! model decided (each decision is a section of `spec/DECISIONS.md`), and a
//! vector whose expected behaviour follows from such a decision pins it. A
//! vector that pins nothing is pure RFD. [`PINS`] is the one table of
//! them; [`pins_of`] reads from a run which ones its expectation rests on,
//! and `conform --rfd-only` (or `--skip-pin ID`) skips the vectors that pin
//! them, counted by decision.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::Vector;
use crate::coordinator::ResponseKind;
use crate::routing::TokenCause;
use crate::scenario::{BackendReply, Scenario, Trace};

/// One decision of the model that the RFDs leave open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pin {
    /// A result withheld at the delivery prompt answers its call with a
    /// success of kind `result_withheld`.
    DeliveryWithheldResponse,
    /// Which model the inquiry backend asks: the question's own
    /// `assistant.<id>.model`, else the scenario's `inquiry_model`.
    BackendModelChoice,
    /// An aborted turn's token cancels every inquiry left in its cycle and
    /// skips the turn's later cycles.
    AbortedTurnToken,
    /// After a hard quit the other open inquiries record `cancelled (user)`
    /// and nothing else is written: no tool response, no later event.
    HardQuitAftermath,
    /// A restart runs the tool again from scratch in the same call, without
    /// a tool response in between; its question takes the next attempt.
    RestartRerunsTool,
    /// A configured tool switched off (`enable`, `-t`/`-T`) is answered as
    /// an unknown tool and records nothing.
    DisabledToolUnknown,
}

/// A pinned decision: its ID, what the model does, and the
/// `spec/DECISIONS.md` section it rests on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PinInfo {
    /// The decision.
    pub pin: Pin,
    /// What the model does, in one line.
    pub statement: &'static str,
    /// The `spec/DECISIONS.md` heading that records it (its start, without
    /// `## `).
    pub decision: &'static str,
}

/// Every decision a vector can pin, in a stable order.
pub const PINS: [PinInfo; 6] = [
    PinInfo {
        pin: Pin::DeliveryWithheldResponse,
        statement: "a result withheld at the delivery prompt answers the call with a success (is_error false, kind result_withheld); RFD 082's Non-Goals only keep the prompt out of the stream",
        decision: "Configuration driving the lifecycle",
    },
    PinInfo {
        pin: Pin::BackendModelChoice,
        statement: "the backend asks the question's own assistant.<id>.model, else the scenario's inquiry_model; per-question models come from RFD 034, not among the RFDs here, and RFD 028 sets the model \"once per turn\"",
        decision: "The inquiry backend",
    },
    PinInfo {
        pin: Pin::AbortedTurnToken,
        statement: "an aborted turn's token cancels every inquiry left in the cycle (cancelled (user)), each call is answered, no later cycle runs; an aborted turn is not among RFD 082's token causes",
        decision: "Prompter failures and the cancellation token",
    },
    PinInfo {
        pin: Pin::HardQuitAftermath,
        statement: "after a hard quit every other open inquiry records cancelled (user) and nothing else is written (no tool response, no chat_response); RFD 082 fixes only the reason user",
        decision: "Lifecycle: a hard quit leaves its tool calls open",
    },
    PinInfo {
        pin: Pin::RestartRerunsTool,
        statement: "a restart runs the tool again from scratch in the same call, with no tool response in between, and its question takes the next attempt; RFD 082 fixes only the reason user",
        decision: "Prompter failures and the cancellation token",
    },
    PinInfo {
        pin: Pin::DisabledToolUnknown,
        statement: "a configured tool switched off by enable or -t/-T is answered like an unconfigured tool (kind unknown_tool) and records nothing",
        decision: "Configuration driving the lifecycle",
    },
];

impl Pin {
    /// Its row of [`PINS`].
    pub fn info(self) -> &'static PinInfo {
        let i = match self {
            Pin::DeliveryWithheldResponse => 0,
            Pin::BackendModelChoice => 1,
            Pin::AbortedTurnToken => 2,
            Pin::HardQuitAftermath => 3,
            Pin::RestartRerunsTool => 4,
            Pin::DisabledToolUnknown => 5,
        };
        &PINS[i]
    }

    /// Its ID as written in vectors and on the command line.
    pub fn id(self) -> &'static str {
        match self {
            Pin::DeliveryWithheldResponse => "delivery-withheld-response",
            Pin::BackendModelChoice => "backend-model-choice",
            Pin::AbortedTurnToken => "aborted-turn-token",
            Pin::HardQuitAftermath => "hard-quit-aftermath",
            Pin::RestartRerunsTool => "restart-reruns-tool",
            Pin::DisabledToolUnknown => "disabled-tool-unknown",
        }
    }

    /// The pin with this ID.
    pub fn from_id(id: &str) -> Option<Pin> {
        PINS.iter().map(|p| p.pin).find(|p| p.id() == id)
    }
}

impl fmt::Display for Pin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// The decisions a run's expected behaviour rests on, sorted: what the run
/// did, not what the scenario could do (a reply never consumed pins
/// nothing).
pub(crate) fn pins_of(scenario: &Scenario, trace: &Trace) -> Vec<Pin> {
    let mut out = Vec::new();
    for r in &trace.tool_responses {
        match r.kind {
            ResponseKind::ResultWithheld => out.push(Pin::DeliveryWithheldResponse),
            ResponseKind::UnknownTool if scenario.tools.contains_key(&r.tool) => {
                out.push(Pin::DisabledToolUnknown)
            }
            ResponseKind::UnknownTool
            | ResponseKind::ToolSuccess
            | ResponseKind::ToolError
            | ResponseKind::CancelledByUser
            | ResponseKind::InquiryFailed
            | ResponseKind::RefusedNoTty
            | ResponseKind::RefusedAssistantTarget
            | ResponseKind::InvalidStaticAnswer
            | ResponseKind::PermissionDenied => {}
        }
    }
    for b in &trace.backend_calls {
        if b.model.is_some() {
            out.push(Pin::BackendModelChoice);
        }
        match &b.reply {
            BackendReply::Cancelled { cause } => match cause {
                TokenCause::AbortedTurn => out.push(Pin::AbortedTurnToken),
                TokenCause::HardQuit => out.push(Pin::HardQuitAftermath),
                TokenCause::Restart => out.push(Pin::RestartRerunsTool),
                // A tool cancel ends the call like any cancelled inquiry
                // (RFD 082 step 6): nothing beyond the RFD.
                TokenCause::ToolCancel => {}
            },
            BackendReply::Answer { .. } | BackendReply::Raw { .. } | BackendReply::Error { .. } => {
            }
        }
    }
    if trace.interrupted {
        out.push(Pin::HardQuitAftermath);
    }
    out.sort();
    out.dedup();
    out
}

/// Which vectors an implementation opted out of: those pinning a decision
/// in `skip`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PinFilter {
    /// The vectors kept.
    pub kept: Vec<Vector>,
    /// Per skipped decision, how many vectors pinned it (a vector pinning
    /// two counts under each).
    pub skipped: BTreeMap<Pin, usize>,
    /// How many vectors were skipped.
    pub skipped_vectors: usize,
    /// The names of the vectors skipped, in order.
    pub skipped_names: Vec<String>,
}

impl PinFilter {
    /// `N skipped (pin a model decision: id ×k, …)`, or `None` when none was.
    pub fn summary(&self) -> Option<String> {
        (self.skipped_vectors > 0).then(|| {
            let per: Vec<String> = self
                .skipped
                .iter()
                .map(|(p, n)| format!("{p} ×{n}"))
                .collect();
            format!(
                "{} skipped (pin a model decision: {})",
                self.skipped_vectors,
                per.join(", ")
            )
        })
    }
}

/// Splits `vectors` into those kept and those pinning a decision in `skip`.
pub fn skip_pinned(vectors: Vec<Vector>, skip: &[Pin]) -> PinFilter {
    let mut f = PinFilter::default();
    for v in vectors {
        let hit: Vec<Pin> = v
            .pins
            .iter()
            .copied()
            .filter(|p| skip.contains(p))
            .collect();
        if hit.is_empty() {
            f.kept.push(v);
        } else {
            f.skipped_vectors += 1;
            f.skipped_names.push(v.name.clone());
            for p in hit {
                *f.skipped.entry(p).or_default() += 1;
            }
        }
    }
    f
}
