//! The model's own decisions a vector pins (rule `CONF-PINS`).
//!
//! Where the RFDs leave an outcome open and a scenario reaches it, the
//! model decided (each decision is a section of `spec/DECISIONS.md`), and a
//! vector whose expected behaviour follows from such a decision pins it. A
//! vector that pins nothing is pure RFD. [`PINS`] is the one table of
//! them; [`pins_of`] reads from a run which ones its expectation rests on,
//! and `conform --rfd-only` (or `--skip-pin ID`) skips the vectors that pin
//! them, counted by decision.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::{Deserialize, Serialize};

use serde_json::Value;

use super::Vector;
use super::observe::comparable;
use crate::model::coordinator::ResponseKind;
use crate::model::routing::TokenCause;
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
    /// A `run = ask` tool without a terminal still shows a permission
    /// prompt (and a denial answers the call without running the tool).
    PermissionPromptNoTerminal,
}

/// A pinned decision: its ID, what the model does, and the
/// `spec/DECISIONS.md` section it rests on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PinInfo {
    /// The decision.
    pub pin: Pin,
    /// What the model does, in one line.
    pub(crate) statement: &'static str,
    /// The `spec/DECISIONS.md` heading that records it (its start, without
    /// `## `).
    pub decision: &'static str,
}

/// Every decision a vector can pin, in a stable order.
pub const PINS: [PinInfo; 7] = [
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
    PinInfo {
        pin: Pin::PermissionPromptNoTerminal,
        statement: "a run = ask tool without a terminal still shows a permission prompt, and a denial answers the call without running the tool; RFD 082's Non-Goals leave RunTool prompts out",
        decision: "Conformance: pins cover fields, not vectors",
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
            Pin::PermissionPromptNoTerminal => 6,
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
            Pin::PermissionPromptNoTerminal => "permission-prompt-no-terminal",
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
            | ResponseKind::Refused(_)
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
    if !scenario.tty && !trace.permission_prompts.is_empty() {
        out.push(Pin::PermissionPromptNoTerminal);
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
    pub(crate) skipped: BTreeMap<Pin, usize>,
    /// How many vectors were skipped.
    pub skipped_vectors: usize,
    /// The names of the vectors skipped, in order.
    pub(crate) skipped_names: Vec<String>,
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

/// What a skipped pin leaves uncompared in one run of the model: entries of
/// the observation, at a place (rule `CONF-PINS`). Each is blanked on both
/// sides ([`blank`]); everything else, the RFD-fixed outcome of the
/// inquiry a token cancelled included, is still compared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cover {
    /// What happens after an inquiry the cancellation token ended (its
    /// response, or without one its request, is the place): every call's
    /// later persisted events of that turn (or one call's only), their
    /// later invocations, tool responses and prompts, the turn's remembered
    /// keys, and with `later_turns` every later turn.
    After {
        /// The decision.
        pin: Pin,
        /// The turn (as [`super::compare`](mod@super::compare) counts them:
        /// 0 is before the first `turn_start`).
        turn: usize,
        /// Only this call's entries; `None`: every call's.
        only: Option<String>,
        /// Per call, its events of the turn up to the place (kept).
        events: BTreeMap<String, usize>,
        /// Per call ID, its tool responses up to the place (kept).
        responses: BTreeMap<String, usize>,
        /// Per call ID, its invocations up to the place (kept).
        invocations: BTreeMap<String, usize>,
        /// Prompts shown up to the place (kept), of `only` or of all.
        prompts: usize,
        /// Later turns are covered too (a hard quit ends the run).
        later_turns: bool,
    },
    /// A call of a turn after its request: its later events, and its
    /// invocations, tool responses and prompts (by call ID).
    Call {
        /// The decision.
        pin: Pin,
        /// The turn (as [`super::compare`](mod@super::compare) counts them).
        turn: usize,
        /// The tool-call ID.
        call: String,
    },
    /// The `n`-th tool response of a call (0-based, by call ID): its
    /// `tool_call_response` event and its `responded` entry.
    Response {
        /// The decision.
        pin: Pin,
        /// The tool-call ID.
        call: String,
        /// Which of its responses.
        n: usize,
    },
    /// The models the inquiry backend asked (`inquired` entries).
    InquiryModels {
        /// The decision.
        pin: Pin,
    },
}

impl Cover {
    /// The decision it comes from.
    pub fn pin(&self) -> Pin {
        match self {
            Cover::After { pin, .. }
            | Cover::Call { pin, .. }
            | Cover::Response { pin, .. }
            | Cover::InquiryModels { pin } => *pin,
        }
    }

    /// What is not compared, in words (for a report's "not compared: …
    /// because pin X").
    pub fn describe(&self) -> String {
        let turn = |t: usize| match t {
            0 => "before the first turn".to_owned(),
            n => format!("turn {}", n - 1),
        };
        match self {
            Cover::After {
                turn: t,
                only,
                later_turns,
                ..
            } => format!(
                "{} after the inquiry the cancellation token ended in {}{}",
                match only {
                    Some(c) => format!("call {c}'s entries"),
                    None => "every entry".to_owned(),
                },
                turn(*t),
                if *later_turns {
                    " and every later turn"
                } else {
                    ""
                }
            ),
            Cover::Call { turn: t, call, .. } => {
                format!("call {call} in {} after its request", turn(*t))
            }
            Cover::Response { call, n, .. } => {
                format!("tool response #{n} of call {call}")
            }
            Cover::InquiryModels { .. } => "the models the inquiry backend asked".to_owned(),
        }
    }
}

/// What each skipped decision leaves uncompared, in words, whatever the
/// scenario: one line per pin in `skip`, in [`PINS`] order (for the report:
/// "not compared: … because pin X").
pub fn not_compared(skip: &BTreeSet<Pin>) -> Vec<(Pin, &'static str)> {
    PINS.iter()
        .filter(|p| skip.contains(&p.pin))
        .map(|p| {
            let what = match p.pin {
                Pin::DeliveryWithheldResponse => "the tool response of a call whose result was withheld at the delivery prompt",
                Pin::BackendModelChoice => "the models the inquiry backend asked (inquired entries)",
                Pin::AbortedTurnToken => "what follows, in its turn, an inquiry an aborted turn's token ended (the inquiry's own response is compared)",
                Pin::HardQuitAftermath => "what follows an inquiry a hard quit's token ended (the inquiry's own response is compared)",
                Pin::RestartRerunsTool => "what the restarted call does after the inquiry a restart's token ended (the inquiry's own response is compared)",
                Pin::DisabledToolUnknown => "a call of a switched-off tool after its request",
                Pin::PermissionPromptNoTerminal => "whether a run = ask tool without a terminal is asked: a run that runs it unasked is compared with the model's run of that choice",
            };
            (p.pin, what)
        })
        .collect()
}

/// `not compared (pin a model decision): id: what; …`, or `None` when no
/// pin is skipped: the report's line for [`not_compared`].
pub fn not_compared_summary(skip: &BTreeSet<Pin>) -> Option<String> {
    let items = not_compared(skip);
    (!items.is_empty()).then(|| {
        let per: Vec<String> = items
            .iter()
            .map(|(p, what)| format!("{what} because pin {p}"))
            .collect();
        format!("not compared: {}", per.join("; "))
    })
}

/// The comparable prefix of a model's stream up to stream index `point`
/// (exclusive).
fn comparable_prefix(trace: &Trace, point: usize) -> Vec<Value> {
    trace.stream[..point.min(trace.stream.len())]
        .iter()
        .filter_map(|e| serde_json::to_value(e).ok())
        .filter_map(|v| comparable(&v))
        .collect()
}

/// The covers of `skip` in the model's run `trace` of `scenario`, in the
/// order the run reached them.
pub fn covers(skip: &BTreeSet<Pin>, scenario: &Scenario, trace: &Trace) -> Vec<Cover> {
    let mut out = Vec::new();
    if skip.is_empty() {
        return out;
    }
    let model = super::Observed::of(trace);
    let (_, model_at) = super::compare::turns(&model.stream);
    // The turn of the n-th tool_call_response of a call.
    let response_turn = |call: &str, n: usize| {
        model
            .stream
            .iter()
            .enumerate()
            .filter(|(_, e)| {
                e.get("type").and_then(Value::as_str) == Some("tool_call_response")
                    && e.get("id").and_then(Value::as_str) == Some(call)
            })
            .nth(n)
            .map_or(0, |(i, _)| model_at[i].0)
    };
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for r in &trace.tool_responses {
        let n = seen.entry(&r.tool_call_id).or_default();
        match r.kind {
            ResponseKind::ResultWithheld if skip.contains(&Pin::DeliveryWithheldResponse) => out
                .push(Cover::Response {
                    pin: Pin::DeliveryWithheldResponse,
                    call: r.tool_call_id.clone(),
                    n: *n,
                }),
            ResponseKind::UnknownTool
                if scenario.tools.contains_key(&r.tool)
                    && skip.contains(&Pin::DisabledToolUnknown) =>
            {
                out.push(Cover::Call {
                    pin: Pin::DisabledToolUnknown,
                    turn: response_turn(&r.tool_call_id, *n),
                    call: r.tool_call_id.clone(),
                })
            }
            ResponseKind::ResultWithheld
            | ResponseKind::UnknownTool
            | ResponseKind::ToolSuccess
            | ResponseKind::ToolError
            | ResponseKind::CancelledByUser
            | ResponseKind::InquiryFailed
            | ResponseKind::Refused(_)
            | ResponseKind::PermissionDenied => {}
        }
        *n += 1;
    }
    if skip.contains(&Pin::BackendModelChoice)
        && trace.backend_calls.iter().any(|b| b.model.is_some())
    {
        out.push(Cover::InquiryModels {
            pin: Pin::BackendModelChoice,
        });
    }
    for b in &trace.backend_calls {
        let BackendReply::Cancelled { cause } = &b.reply else {
            continue;
        };
        let (pin, only, later_turns) = match cause {
            TokenCause::AbortedTurn => (Pin::AbortedTurnToken, None, false),
            TokenCause::HardQuit => (Pin::HardQuitAftermath, None, true),
            TokenCause::Restart => (Pin::RestartRerunsTool, Some(b.tool_call_id.clone()), false),
            TokenCause::ToolCancel => continue,
        };
        if !skip.contains(&pin) {
            continue;
        }
        // The place: the last event of the inquiry the token ended.
        let id = &b.call.inquiry_id;
        let Some(last) = trace.stream.iter().rposition(|e| {
            serde_json::to_value(e)
                .ok()
                .and_then(|v| v.get("id").and_then(Value::as_str).map(|i| i == id))
                .unwrap_or(false)
        }) else {
            continue;
        };
        let point = last + 1;
        let prefix = comparable_prefix(trace, point);
        let (turns, at) = super::compare::turns(&prefix);
        let turn = turns.len() - 1;
        let mut events = BTreeMap::new();
        for (t, c, n) in &at {
            if *t == turn {
                events.insert(c.clone(), *n);
            }
        }
        let mut responses: BTreeMap<String, usize> = BTreeMap::new();
        for e in &prefix {
            if e.get("type").and_then(Value::as_str) == Some("tool_call_response")
                && let Some(c) = e.get("id").and_then(Value::as_str)
            {
                *responses.entry(c.to_owned()).or_default() += 1;
            }
        }
        let mut invocations: BTreeMap<String, usize> = BTreeMap::new();
        for i in trace
            .invocations
            .iter()
            .filter(|i| i.stream_position < point)
        {
            *invocations.entry(i.tool_call_id.clone()).or_default() += 1;
        }
        let prompts = trace
            .prompts
            .iter()
            .filter(|p| p.stream_position < point)
            .filter(|p| only.as_ref().is_none_or(|c| *c == p.tool_call_id))
            .count();
        out.push(Cover::After {
            pin,
            turn,
            only,
            events,
            responses,
            invocations,
            prompts,
            later_turns,
        });
    }
    out
}

/// `observed` with what `covers` cover removed. Prompts without a call ID
/// are attributed by `model` first (the k-th to the model's k-th).
pub(crate) fn blank(
    covers: &[Cover],
    model: &super::Observed,
    observed: &super::Observed,
) -> super::Observed {
    let mut o = observed.clone();
    if covers.is_empty() {
        return o;
    }
    super::witness::attribute(&mut o, model);
    for cover in covers {
        blank_one(cover, &mut o);
    }
    o
}

/// An event's place in its turn: `(turn, call, events of that call so far)`.
type Place = (usize, String, usize);

fn blank_one(cover: &Cover, o: &mut super::Observed) {
    let (_, at) = super::compare::turns(&o.stream);
    let keep_stream = |keep: &dyn Fn(usize, &Value, &Place) -> bool, o: &mut super::Observed| {
        // Prompts keep their place among the events kept.
        let kept: Vec<bool> = o
            .stream
            .iter()
            .enumerate()
            .map(|(i, e)| keep(i, e, &at[i]))
            .collect();
        let before = |pos: usize| kept[..pos.min(kept.len())].iter().filter(|k| **k).count();
        for p in &mut o.prompts {
            p.stream_position = before(p.stream_position);
        }
        let mut k = kept.iter();
        o.stream.retain(|_| *k.next().unwrap_or(&true));
    };
    let truncate = |v: &[String], keep: &BTreeMap<String, usize>, only: &Option<String>| {
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        v.iter()
            .map(|c| {
                let n = seen.entry(c.clone()).or_default();
                *n += 1;
                let covered = only.as_ref().is_none_or(|x| x == c);
                !covered || *n <= keep.get(c).copied().unwrap_or(0)
            })
            .collect::<Vec<bool>>()
    };
    match cover {
        Cover::After {
            turn,
            only,
            events,
            responses,
            invocations,
            prompts,
            later_turns,
            ..
        } => {
            keep_stream(
                &|_, _, (t, c, n)| {
                    if *t < *turn || (*t > *turn && !*later_turns) {
                        return true;
                    }
                    if *t > *turn {
                        return false;
                    }
                    let covered = only.as_ref().is_none_or(|x| x == c);
                    !covered || *n <= events.get(c).copied().unwrap_or(0)
                },
                o,
            );
            let ids: Vec<String> = o
                .tool_responses
                .iter()
                .map(|r| r.tool_call_id.clone())
                .collect();
            let mut k = truncate(&ids, responses, only).into_iter();
            o.tool_responses.retain(|_| k.next().unwrap_or(true));
            let ids: Vec<String> = o
                .invocations
                .iter()
                .map(|r| r.tool_call_id.clone())
                .collect();
            let mut k = truncate(&ids, invocations, only).into_iter();
            o.invocations.retain(|_| k.next().unwrap_or(true));
            let mut n = 0;
            o.prompts.retain(|p| {
                if only.as_ref().is_some_and(|c| *c != p.tool_call_id) {
                    return true;
                }
                n += 1;
                n <= *prompts
            });
            // The turn's remembered keys (scenario turn `turn - 1`), and
            // later ones after a hard quit.
            if *turn >= 1 {
                let t = turn - 1;
                if *later_turns {
                    o.remembered.truncate(t);
                } else if let Some(r) = o.remembered.get_mut(t) {
                    *r = Default::default();
                }
            }
        }
        Cover::Call { turn, call, .. } => {
            keep_stream(
                &|_, e, (t, c, _)| {
                    t != turn
                        || c != call
                        || e.get("type").and_then(Value::as_str) == Some("tool_call_request")
                },
                o,
            );
            o.invocations.retain(|i| i.tool_call_id != *call);
            o.tool_responses.retain(|r| r.tool_call_id != *call);
            o.prompts.retain(|p| p.tool_call_id != *call);
        }
        Cover::Response { call, n, .. } => {
            let seen = std::cell::Cell::new(0);
            keep_stream(
                &|_, e, _| {
                    if e.get("type").and_then(Value::as_str) == Some("tool_call_response")
                        && e.get("id").and_then(Value::as_str) == Some(call)
                    {
                        seen.set(seen.get() + 1);
                        return seen.get() != n + 1;
                    }
                    true
                },
                o,
            );
            let mut seen = 0;
            o.tool_responses.retain(|r| {
                if r.tool_call_id != *call {
                    return true;
                }
                seen += 1;
                seen != n + 1
            });
        }
        Cover::InquiryModels { .. } => o.inquiry_models.clear(),
    }
}

/// The scenario whose model run is the other outcome a skipped decision
/// allows, when the decision is a choice between two runs: without a
/// terminal, every permission prompt allowed without remembering (the
/// `run = ask` tool run unasked). `None` when `skip` holds no such
/// decision or the scenario cannot reach it.
pub(crate) fn alternative(skip: &BTreeSet<Pin>, scenario: &Scenario) -> Option<Scenario> {
    use crate::model::coordinator::RunPolicy;
    use crate::scenario::PermissionReply;
    if !skip.contains(&Pin::PermissionPromptNoTerminal)
        || scenario.tty
        || !scenario
            .tools
            .values()
            .any(|t| matches!(t.run, Some(RunPolicy::Ask)))
    {
        return None;
    }
    let calls: usize = scenario
        .turns
        .iter()
        .flat_map(|t| &t.cycles)
        .map(Vec::len)
        .sum();
    let mut s = scenario.clone();
    // More than a run can ask: a restarted tool may be asked again.
    s.permissions = vec![PermissionReply::Allow { remember: false }; 4 * calls.max(1)];
    Some(s)
}

/// Whether a decision in `skip` may cover part of a run of `scenario`
/// (what the scenario says, whatever the schedule).
pub(crate) fn may_cover(skip: &BTreeSet<Pin>, scenario: &Scenario) -> bool {
    use super::OutsideCore;
    let outside = super::outside_core(scenario);
    let has = |r: OutsideCore| outside.contains(&r);
    skip.iter().any(|p| match p {
        Pin::DeliveryWithheldResponse => has(OutsideCore::DeliveryPrompt),
        Pin::BackendModelChoice => {
            has(OutsideCore::InquiryModel) || has(OutsideCore::AssistantTarget)
        }
        Pin::AbortedTurnToken | Pin::HardQuitAftermath | Pin::RestartRerunsTool => {
            has(OutsideCore::TokenCause) || has(OutsideCore::BackendById)
        }
        Pin::DisabledToolUnknown => has(OutsideCore::Enable) || has(OutsideCore::Toggles),
        // Judged against the other run whole ([`alternative`]): nothing is
        // blanked.
        Pin::PermissionPromptNoTerminal => false,
    })
}

/// `(model, implementation)` observations with what `skip` covers in the
/// model's run of `scenario` removed from both ([`covers`], [`blank`]);
/// the run is `model` when given, else the model runs the scenario (a
/// vector's expectation is the model's run of it).
pub(crate) fn blanked(
    skip: &BTreeSet<Pin>,
    scenario: &Scenario,
    model: Option<&Trace>,
    expected: &super::Observed,
    actual: &super::Observed,
) -> (super::Observed, super::Observed) {
    if !may_cover(skip, scenario) {
        return (expected.clone(), actual.clone());
    }
    let ran;
    let trace = match model {
        Some(t) => t,
        None => match crate::scenario::run(scenario) {
            Ok(t) => {
                ran = t;
                &ran
            }
            // The model refuses it: nothing is blanked, the comparison
            // reports what differs.
            Err(_) => return (expected.clone(), actual.clone()),
        },
    };
    let covers = covers(skip, scenario, trace);
    (
        blank(&covers, expected, expected),
        blank(&covers, expected, actual),
    )
}

/// Whether `actual` passes as the other outcome a skipped decision allows
/// ([`alternative`]): judged against the model's run of that scenario, the
/// decision then no longer skipped.
pub(crate) fn alternative_passes(
    name: &str,
    scenario: &Scenario,
    actual: &super::Observed,
    caps: &super::Capabilities,
) -> bool {
    let Some(other) = alternative(&caps.skip_pins, scenario) else {
        return false;
    };
    let Ok(trace) = crate::scenario::run(&other) else {
        return false;
    };
    let mut caps = caps.clone();
    caps.skip_pins.remove(&Pin::PermissionPromptNoTerminal);
    super::judge_with(
        name,
        &other,
        &super::Observed::of(&trace),
        Ok(actual.clone()),
        &caps,
        Some(&trace),
    )
    .is_none()
}
