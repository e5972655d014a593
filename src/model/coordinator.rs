//! The tool coordinator as a state machine: the recording lifecycle of RFD 082
//! with RFD 083's enrichments, driven one [`Input`] at a time and answering
//! with [`Effect`]s.
//!
//! The coordinator never runs a tool, shows a prompt or calls a backend: it
//! asks for those through effects, and the driver ([`crate::scenario`], or a
//! property test) answers with the matching input. Everything it persists
//! leaves through [`Effect::Persist`], in order. The rule switches come from
//! a [`Rules`] value; nothing here asks which profile it runs under.
//!
//! Split along its seams: `protocol` (what goes in and out), `turn_cache`
//! (what a turn remembers), and the machine here. Every public path of the
//! protocol and the cache is re-exported.

mod protocol;
mod turn_cache;

pub use protocol::{Call, CoordinatorError, Effect, Input, ResponseKind, RouteTaken};
pub(crate) use turn_cache::{TurnCache, TurnState};

use std::fmt;
use std::sync::Arc;

use crate::model::tool::Map;
use serde_json::Value;

use crate::model::cache_key::CacheKey;
use crate::model::inquiry::{self, BackendAnswerType, BackendCall, BackendQuestion};
use crate::model::prompt;
use crate::model::routing::{self, InquiryErrorKind, NonAnswer, Refusal, Route};
pub use crate::model::tool::RunPolicy;
use crate::model::tool::{
    AnswerReusePolicy, AnswerType, Answers, Outcome, Question, QuestionConfig, QuestionTarget,
    ToolSource,
};
use crate::predicates;
use crate::profile::tables::{Response, Tables};
use crate::profile::{IdFormat, RecordScope, Rules, StaticDelivery};
use crate::wire::{
    Event, EventKind, InquiryId, InquiryRequest, InquiryResponse, InquirySource, Opaque,
    ToolCallRequest, ToolCallResponse,
};

/// What the coordinator knows of a tool: its kind and its configuration.
///
/// Its `Debug` shows configured static answers as `<configured>`: one of
/// them may answer a `Secret` question, and the coordinator's `Debug` output
/// must never carry a secret (rule `INV-SECRET-NEVER-PERSISTED`).
#[derive(Clone, PartialEq)]
pub struct ToolSpec {
    /// Where its code comes from.
    pub source: ToolSource,
    /// `conversation.tools.<tool>.questions`, shared: a scenario's runs
    /// read the map its tool holds (rule `PERF-SHARED-CONFIG`).
    pub questions: Arc<Map<String, QuestionConfig>>,
    /// The permission policy.
    pub run: RunPolicy,
    /// The result-delivery policy (`result`): `Ask` shows the
    /// `DeliverToolResult` prompt before the tool's own response is sent
    /// (rule `LIFE-DELIVERY-PROMPT`).
    pub result: RunPolicy,
}

impl ToolSpec {
    /// A tool of kind `source` with what no configuration layer sets
    /// resolved to its default ([`crate::model::config::ToolConfig`]): no
    /// questions configured, `run = "ask"`, `result = "unattended"`. Specs
    /// built by hand start here (`ToolSpec { run: …, ..ToolSpec::new(s) }`),
    /// so a new configuration key is a field and this one line.
    pub fn new(source: ToolSource) -> ToolSpec {
        ToolSpec {
            source,
            questions: Arc::default(),
            run: RunPolicy::Ask,
            result: RunPolicy::Unattended,
        }
    }
}

impl fmt::Debug for ToolSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let questions: Vec<(&String, QuestionTarget, bool, &Option<String>)> = self
            .questions
            .iter()
            .map(|(id, c)| (id, c.target, c.answer.is_some(), &c.prompt_label))
            .collect();
        f.debug_struct("ToolSpec")
            .field("source", &self.source)
            .field(
                "questions (id, target, static answer configured, label)",
                &questions,
            )
            .field("run", &self.run)
            .field("result", &self.result)
            .finish()
    }
}

/// An answer held for a tool in memory. Its `Debug` never shows a secret.
#[derive(Clone, PartialEq)]
pub(crate) struct Held {
    /// The answer.
    pub(crate) value: Value,
    /// Whether it answers a secret question.
    pub(crate) secret: bool,
}

impl fmt::Debug for Held {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.secret {
            f.write_str("<secret>")
        } else {
            write!(f, "{}", self.value)
        }
    }
}

/// Holds `held` as the answer to question `id` among a call's answers: in
/// place of an earlier answer to it (latest wins, rule `LIFE-ACCUMULATED`),
/// else after the others.
pub(crate) fn hold(answers: &mut Vec<(String, Held)>, id: &str, held: Held) {
    match answers.iter_mut().find(|(k, _)| k == id) {
        Some((_, h)) => *h = held,
        None => answers.push((id.to_owned(), held)),
    }
}

/// Where a tool call stands.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Status {
    AwaitingPermission,
    Running,
    AwaitingPrompt {
        inquiry_id: Option<InquiryId>,
        question: Arc<Question>,
    },
    /// Waiting for the inquiry backend; the call itself went out in
    /// [`Effect::Inquire`], and extracting its answer needs only the pinned
    /// ID and the answer type.
    AwaitingBackend {
        inquiry_id: Option<InquiryId>,
        question: Arc<Question>,
        answer_type: BackendAnswerType,
    },
    /// The tool finished; its response waits for the delivery prompt.
    AwaitingDelivery {
        content: String,
        kind: ResponseKind,
    },
    Done,
}

/// A tool call of the current cycle (RFD 082 `ExecutingTool`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ExecutingTool {
    /// The call.
    pub(crate) call: Call,
    /// Where the call's tool is among the coordinator's tools, found by its
    /// name once when the cycle begins (`None`: no such tool is configured);
    /// the steps after find its spec by this index (rule `PERF-MODEL-MAPS`).
    pub(crate) spec: Option<usize>,
    /// Answers keyed by bare question ID, latest wins (rule `LIFE-ACCUMULATED`),
    /// in the order each ID was first answered. A list, not a map: a call
    /// holds the answers to the few questions its tool asks, and a map's
    /// table cost a call two allocations more ([`hold`]).
    pub(crate) accumulated_answers: Vec<(String, Held)>,
    /// What it waits on.
    pub(crate) status: Status,
}

/// The text of a user-cancelled prompt's tool response: the wording of the
/// implementation before RFD 082, which step 6 leaves unchanged.
pub(crate) const CANCELLED_BY_USER: &str = "Tool input cancelled by user.";

/// The text of a tool response whose result the user withheld at the
/// delivery prompt. The wording is the model's: no RFD here quotes one
/// (`tool_responses.content[other]` is not compared).
pub(crate) const RESULT_WITHHELD: &str = "The user declined to deliver this tool's result.";

/// The tool response after a non-answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NonAnswerResponse {
    /// Which outcome it reports (and so whether it is an error).
    pub kind: ResponseKind,
    /// The model's text.
    pub(crate) content: String,
}

/// The tool response the LLM sees after a non-answer, for every non-answer
/// (rule `LIFE-NON-ANSWER-RESPONSE`; table
/// `spec/tables/non-answer-response.md`). RFD 082 "Recording lifecycle"
/// step 6: "The `ToolCallResponse` returned to the LLM is unchanged (existing
/// wording)": a cancelled prompt stays a success, a failed inquiry an error.
/// RFD 083 steps 6–7 fix the refusals and the static-answer error as
/// tool-level errors with quoted texts. The same under every profile: the
/// response did not change across them.
pub fn non_answer_response(why: NonAnswer, tool: &str, question_id: &str) -> NonAnswerResponse {
    non_answer_response_in(&Tables::RFD, why, tool, question_id)
}

/// [`non_answer_response`] with the kind read from `tables`' non-answer
/// response row (possibly amended; rule `AMEND-TABLE-ROWS`). A kind the
/// RFDs give the event keeps its text; an amended kind takes the kind's
/// text (a failed prompt's error names the prompter).
pub(crate) fn non_answer_response_in(
    tables: &Tables,
    why: NonAnswer,
    tool: &str,
    question_id: &str,
) -> NonAnswerResponse {
    match (tables.response(why.row()), why) {
        (Response::CancelledByUser, NonAnswer::Inquiry(_)) => NonAnswerResponse {
            kind: ResponseKind::CancelledByUser,
            content: CANCELLED_BY_USER.to_owned(),
        },
        (Response::InquiryFailed, NonAnswer::PromptCancelled | NonAnswer::PrompterFailed(_)) => {
            NonAnswerResponse {
                kind: ResponseKind::InquiryFailed,
                content: routing::messages::inquiry_failed(tool, "the prompter failed"),
            }
        }
        (
            Response::CancelledByUser | Response::InquiryFailed | Response::Refused,
            NonAnswer::PromptCancelled
            | NonAnswer::PrompterFailed(_)
            | NonAnswer::Inquiry(_)
            | NonAnswer::Refused(_),
        ) => rfd_non_answer_response(why, tool, question_id),
    }
}

/// The RFDs' response for `why` (table `spec/tables/non-answer-response.md`).
fn rfd_non_answer_response(why: NonAnswer, tool: &str, question_id: &str) -> NonAnswerResponse {
    let (kind, content) = match why {
        NonAnswer::PromptCancelled | NonAnswer::PrompterFailed(_) => {
            (ResponseKind::CancelledByUser, CANCELLED_BY_USER.to_owned())
        }
        NonAnswer::Inquiry(kind) => (
            ResponseKind::InquiryFailed,
            routing::messages::inquiry_failed(tool, inquiry_error_text(kind)),
        ),
        NonAnswer::Refused(refusal) => (
            ResponseKind::Refused(refusal),
            refusal.message(tool, question_id),
        ),
    };
    NonAnswerResponse { kind, content }
}

/// How a question was resolved, before any effect (pure).
#[derive(Debug, Clone, PartialEq)]
enum Resolution {
    Cached(Value),
    Static(Value),
    Refused(Refusal),
    Prompt,
    Backend(BackendQuestion),
}

/// Where an answer came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Via {
    Cache,
    Static,
    Prompter { remember: bool },
    Backend,
}

/// A moment of the lifecycle at which a profile may record an inquiry's
/// event ([`Coordinator::records`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Moment {
    /// Step 2: the request, before any routing decision.
    BeforeRouting,
    /// Step 4: the request, when the inquiry backend is called.
    BackendSpawned,
    /// Steps 3 and 5: the response to an answer from this source.
    Answered(Via),
    /// Step 6: the response to a non-answer.
    NonAnswer,
}

/// The coordinator's state as [`Coordinator::view`] lends it to the tools
/// that read the model.
#[derive(Debug, Clone, Copy)]
pub(crate) struct View<'a> {
    /// The tools it knows, with their configuration.
    pub(crate) tools: &'a Map<String, ToolSpec>,
    /// The current turn's state, if a turn is open.
    pub(crate) turn: Option<&'a TurnState>,
    /// The calls of the current cycle.
    pub(crate) executing: &'a [ExecutingTool],
}

/// The coordinator.
#[derive(Debug, Clone)]
pub struct Coordinator {
    rules: Rules,
    tty: bool,
    tools: Map<String, ToolSpec>,
    persisted: usize,
    turn: Option<TurnState>,
    executing: Vec<ExecutingTool>,
}

impl Coordinator {
    /// A coordinator under `rules`, with a TTY or not, knowing `tools`.
    pub fn new(rules: Rules, tty: bool, tools: Map<String, ToolSpec>) -> Self {
        Coordinator {
            rules,
            tty,
            tools,
            persisted: 0,
            turn: None,
            executing: Vec::new(),
        }
    }

    /// The coordinator's state, borrowed whole and read-only: the one way
    /// the tools that read the model see inside it (the oracle's secret
    /// scan in `crate::invariants`, the explorer's state keys, the scenario
    /// driver and the testkit's wrong implementations). The steps never use
    /// it.
    pub(crate) fn view(&self) -> View<'_> {
        // Destructured so that a new field must be shown.
        let Coordinator {
            // Read through `rules` and `persisted_len`.
            rules: _,
            persisted: _,
            // Fixed at construction, and no tool reads it.
            tty: _,
            tools,
            turn,
            executing,
        } = self;
        View {
            tools,
            turn: turn.as_ref(),
            executing,
        }
    }

    /// The rule switches it runs under (for tools that read the model).
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// How many events it has persisted (for tools that read the model).
    pub fn persisted_len(&self) -> usize {
        self.persisted
    }

    /// The current turn's state, to edit: the one write a tool may make
    /// from outside (a wrong implementation, such as the testkit's, edits
    /// the turn's remembered answers). The coordinator's own steps never
    /// need it.
    pub fn turn_state_mut(&mut self) -> Option<&mut TurnState> {
        self.turn.as_mut()
    }

    /// The current turn's state, if a turn is open.
    pub fn turn_state(&self) -> Option<&TurnState> {
        self.turn.as_ref()
    }

    /// The spec of call `call`'s tool, by the index its cycle found.
    fn spec(&self, call: usize) -> Option<&ToolSpec> {
        let index = self.executing.get(call)?.spec?;
        self.tools.get_index(index).map(|(_, spec)| spec)
    }

    /// Whether every call of the current cycle has responded.
    pub(crate) fn cycle_done(&self) -> bool {
        self.executing
            .iter()
            .all(|t| matches!(t.status, Status::Done))
    }

    /// Handles one input.
    pub fn handle(&mut self, input: Input) -> Result<Vec<Effect>, CoordinatorError> {
        let mut fx = Vec::new();
        self.handle_into(input, &mut fx)?;
        Ok(fx)
    }

    /// [`Coordinator::handle`], appending the effects to `fx`: a driver
    /// that drains one buffer step after step allocates it once.
    pub(crate) fn handle_into(
        &mut self,
        input: Input,
        fx: &mut Vec<Effect>,
    ) -> Result<(), CoordinatorError> {
        match input {
            Input::BeginTurn { content } => self.begin_turn(content, fx)?,
            Input::BeginCycle { calls } => self.begin_cycle(calls, fx)?,
            Input::ToolReturned {
                call,
                outcome,
                source,
            } => self.tool_returned(call, outcome, source, fx)?,
            Input::PromptAnswered {
                call,
                inquiry_id,
                answer,
                remember,
            } => {
                let question = self.take_prompt(call, &inquiry_id)?;
                self.answered(
                    call,
                    &question,
                    inquiry_id,
                    answer,
                    Via::Prompter { remember },
                    fx,
                );
            }
            Input::PromptCancelled { call, inquiry_id } => {
                let question = self.take_prompt(call, &inquiry_id)?;
                self.fail(call, &question, inquiry_id, NonAnswer::PromptCancelled, fx);
            }
            Input::PromptFailed {
                call,
                inquiry_id,
                failure,
            } => {
                let question = self.take_prompt(call, &inquiry_id)?;
                let why = routing::prompter_failure_event(failure);
                self.fail(call, &question, inquiry_id, why, fx);
            }
            Input::InquiryResult { call, result } => {
                if !matches!(
                    self.executing.get(call).map(|t| &t.status),
                    Some(Status::AwaitingBackend { .. })
                ) {
                    return Err(self.bad(call, "an inquiry result"));
                }
                // Taken, not cloned: `answered` and `fail` set the next status.
                let Status::AwaitingBackend {
                    inquiry_id,
                    question,
                    answer_type,
                } = std::mem::replace(&mut self.executing[call].status, Status::Running)
                else {
                    return Err(CoordinatorError(
                        "internal: the awaited backend call vanished".to_owned(),
                    ));
                };
                let pinned = inquiry_id.as_ref().map_or("", InquiryId::as_str);
                match result
                    .and_then(|structured| inquiry::extract(pinned, &answer_type, &structured))
                {
                    Ok(answer) => {
                        self.answered(call, &question, inquiry_id, answer, Via::Backend, fx)
                    }
                    Err(kind) => {
                        self.fail(call, &question, inquiry_id, NonAnswer::Inquiry(kind), fx)
                    }
                }
            }
            Input::InquiryRestarted { call } => self.restart(call, fx)?,
            Input::DeliveryAnswered { call, deliver } => {
                let (content, kind) = match self.executing.get(call).map(|t| &t.status) {
                    Some(Status::AwaitingDelivery { content, kind }) => (content.clone(), *kind),
                    _ => return Err(self.bad(call, "a delivery answer")),
                };
                if deliver {
                    self.respond_as(call, content, kind, fx);
                } else {
                    self.respond_as(
                        call,
                        RESULT_WITHHELD.to_owned(),
                        ResponseKind::ResultWithheld,
                        fx,
                    );
                }
            }
            Input::PermissionAnswered {
                call,
                allow,
                remember,
            } => {
                match self.executing.get(call).map(|t| &t.status) {
                    Some(Status::AwaitingPermission) => {}
                    _ => return Err(self.bad(call, "a permission answer")),
                }
                if remember {
                    let key = CacheKey::permission(&self.executing[call].call.tool).key();
                    let v = Value::String(if allow { "y" } else { "n" }.to_owned());
                    self.turn_mut()?
                        .cache
                        .permission_decisions_mut()
                        .insert(key, v);
                }
                self.permission_decided(call, allow, fx);
            }
            Input::EndTurn { content } => {
                if self.turn.is_none() {
                    return Err(CoordinatorError("EndTurn outside a turn".to_owned()));
                }
                if !self.cycle_done() {
                    return Err(CoordinatorError(
                        "EndTurn while tool calls are still running".to_owned(),
                    ));
                }
                // The one extra field, allocated at its size.
                let mut e = Event::new(EventKind::ChatResponse);
                e.extra = vec![("message".to_owned(), Opaque::from_text(&content))];
                self.persist(e, fx);
                self.executing.clear();
                self.turn = None;
            }
        }
        Ok(())
    }

    fn bad(&self, call: usize, what: &str) -> CoordinatorError {
        CoordinatorError(format!(
            "call {call} is not waiting for {what} (state: {:?})",
            self.executing.get(call).map(|t| &t.status)
        ))
    }

    fn turn_mut(&mut self) -> Result<&mut TurnState, CoordinatorError> {
        self.turn
            .as_mut()
            .ok_or_else(|| CoordinatorError("no turn is open".to_owned()))
    }

    fn persist(&mut self, e: Event, fx: &mut Vec<Effect>) {
        self.persisted += 1;
        fx.push(Effect::Persist(e));
    }

    fn begin_turn(
        &mut self,
        content: String,
        fx: &mut Vec<Effect>,
    ) -> Result<(), CoordinatorError> {
        if !self.cycle_done() {
            return Err(CoordinatorError(
                "BeginTurn while tool calls are still running".to_owned(),
            ));
        }
        // LIFE-ATTEMPT-RESET: a fresh TurnState per turn.
        self.turn = Some(TurnState {
            attempts: Map::default(),
            cache: TurnCache::new(self.rules.turn_cache),
        });
        self.executing.clear();
        self.persist(Event::new(EventKind::TurnStart), fx);
        let mut e = Event::new(EventKind::ChatRequest);
        e.extra = vec![("content".to_owned(), Opaque::from_text(&content))];
        self.persist(e, fx);
        Ok(())
    }

    fn begin_cycle(
        &mut self,
        calls: Vec<Call>,
        fx: &mut Vec<Effect>,
    ) -> Result<(), CoordinatorError> {
        if !self.cycle_done() {
            return Err(CoordinatorError(
                "BeginCycle while tool calls are still running".to_owned(),
            ));
        }
        self.turn_mut()?;
        // Refilled in place: the vector's room is kept from cycle to cycle.
        self.executing.clear();
        let tools = &self.tools;
        self.executing
            .extend(calls.into_iter().map(|call| ExecutingTool {
                spec: tools.get_index_of(&call.tool),
                call,
                accumulated_answers: Vec::new(),
                status: Status::Running,
            }));
        for i in 0..self.executing.len() {
            let call = &self.executing[i].call;
            let request = Event::new(EventKind::ToolCallRequest(ToolCallRequest {
                id: call.id.clone(),
                name: call.tool.clone(),
                arguments: Some(Opaque::from_value(&call.arguments)),
            }));
            self.persist(request, fx);
        }
        for i in 0..self.executing.len() {
            let tool = &self.executing[i].call.tool;
            let Some(run) = self.spec(i).map(|spec| spec.run) else {
                let content = format!("{tool}: no such tool is configured.");
                self.respond_as(i, content, ResponseKind::UnknownTool, fx);
                continue;
            };
            match run {
                RunPolicy::Unattended => self.start(i, fx),
                RunPolicy::Ask => {
                    let decided = self.turn.as_ref().and_then(|t| {
                        CacheKey::permission(tool)
                            .read(|key| t.cache.permission_decisions().get(key).cloned())
                    });
                    match decided.as_ref().and_then(Value::as_str) {
                        Some("y") => self.start(i, fx),
                        Some(_) => self.permission_decided(i, false, fx),
                        None => {
                            self.executing[i].status = Status::AwaitingPermission;
                            fx.push(Effect::AskPermission { call: i });
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn permission_decided(&mut self, call: usize, allow: bool, fx: &mut Vec<Effect>) {
        if allow {
            self.start(call, fx);
        } else {
            let tool = self.executing[call].call.tool.clone();
            self.respond_as(
                call,
                routing::messages::permission_denied(&tool),
                ResponseKind::PermissionDenied,
                fx,
            );
        }
    }

    /// First invocation. Pre-082, static answers are pre-seeded here (RFD 082
    /// "Pre-seed removal" removes exactly this, rule `LIFE-NO-PRESEED`).
    fn start(&mut self, call: usize, fx: &mut Vec<Effect>) {
        match self.rules.static_delivery {
            StaticDelivery::PreSeeded => {
                let t = &mut self.executing[call];
                // The coordinator's tools and the call are separate fields:
                // the spec's IDs are read in place while the call's answers
                // change.
                if let Some((_, spec)) = t.spec.and_then(|i| self.tools.get_index(i)) {
                    for (id, c) in spec.questions.iter() {
                        if let Some(value) = &c.answer {
                            let held = Held {
                                value: value.clone(),
                                secret: false,
                            };
                            hold(&mut t.accumulated_answers, id, held);
                        }
                    }
                }
            }
            StaticDelivery::OnNeedsInput => {}
        }
        self.executing[call].status = Status::Running;
        self.invoke(call, fx);
    }

    fn invoke(&mut self, call: usize, fx: &mut Vec<Effect>) {
        let answers: Answers = self.executing[call]
            .accumulated_answers
            .iter()
            .map(|(k, h)| (k.clone(), h.value.clone()))
            .collect();
        fx.push(Effect::Invoke { call, answers });
    }

    fn respond_as(
        &mut self,
        call: usize,
        content: String,
        kind: ResponseKind,
        fx: &mut Vec<Effect>,
    ) {
        let is_error = kind.is_error();
        let id = self.executing[call].call.id.clone();
        // The text goes into the event (written as a JSON string) and,
        // moved, into the effect.
        let opaque = Opaque::from_text(&content);
        self.persist(
            Event::new(EventKind::ToolCallResponse(ToolCallResponse {
                id,
                content: Some(opaque),
                is_error: Some(is_error),
            })),
            fx,
        );
        let t = &mut self.executing[call];
        t.status = Status::Done;
        // The tool is finished: its answers, secrets included, leave memory.
        t.accumulated_answers.clear();
        fx.push(Effect::Respond {
            call,
            content,
            is_error,
            kind,
        });
    }

    fn tool_returned(
        &mut self,
        call: usize,
        outcome: Outcome,
        source: InquirySource,
        fx: &mut Vec<Effect>,
    ) -> Result<(), CoordinatorError> {
        match self.executing.get(call).map(|t| &t.status) {
            Some(Status::Running) => {}
            _ => return Err(self.bad(call, "a tool result")),
        }
        match outcome {
            Outcome::Success { content } => {
                self.deliver(call, content, ResponseKind::ToolSuccess, fx)
            }
            // `transient` is dropped at the executor boundary (RFD 082).
            Outcome::Error { message, .. } => {
                self.deliver(call, message, ResponseKind::ToolError, fx)
            }
            Outcome::NeedsInput { question } => self.needs_input(call, question, source, fx)?,
        }
        Ok(())
    }

    /// The tool's own response, through the delivery prompt when its
    /// `result` policy asks (rule `LIFE-DELIVERY-PROMPT`). The prompt is not
    /// an inquiry: RFD 082 Non-Goals keep `DeliverToolResult` prompts out of
    /// the stream, so nothing is persisted until the response itself.
    fn deliver(&mut self, call: usize, content: String, kind: ResponseKind, fx: &mut Vec<Effect>) {
        let policy = self.spec(call).map(|s| s.result);
        match policy {
            Some(RunPolicy::Ask) => {
                self.executing[call].status = Status::AwaitingDelivery { content, kind };
                fx.push(Effect::AskDelivery { call });
            }
            Some(RunPolicy::Unattended) | None => self.respond_as(call, content, kind, fx),
        }
    }

    /// What this build knows of a question: features of later RFDs read as
    /// their defaults, as an older build would deserialize them.
    ///
    /// The question is copied only when this build reads it otherwise
    /// (rule `PERF-SHARED-QUESTION`).
    fn as_known(&self, mut q: Arc<Question>) -> Arc<Question> {
        if !self.rules.secret_type && matches!(q.answer_type, AnswerType::Secret) {
            Arc::make_mut(&mut q).answer_type = AnswerType::Text;
        }
        if !self.rules.exclusive && q.exclusive {
            Arc::make_mut(&mut q).exclusive = false;
        }
        if !self.rules.persistence_gate && q.persistence != AnswerReusePolicy::Turn {
            Arc::make_mut(&mut q).persistence = AnswerReusePolicy::Turn;
        }
        q
    }

    /// The lifecycle of one `NeedsInput`: RFD 082 "Recording lifecycle"
    /// steps 1 to 4, top to bottom. Steps 5 and 6 close the inquiry in
    /// [`Coordinator::answered`] and [`Coordinator::fail`]: here for an
    /// automatic answer or a refusal, later when the prompter or the
    /// inquiry backend replies.
    fn needs_input(
        &mut self,
        call: usize,
        question: Arc<Question>,
        source: InquirySource,
        fx: &mut Vec<Effect>,
    ) -> Result<(), CoordinatorError> {
        // Step 1 (RFD 082 Recording lifecycle): the `InquirySource` is read
        // as the executor boundary resolved it (`Input::ToolReturned`);
        // nothing here branches on the tool's kind. The question reads as
        // this build knows it.
        let question = self.as_known(question);

        // Step 2 (RFD 082 Recording lifecycle): record the request before
        // any routing decision, with its ID allocated once and threaded
        // through to the response (LIFE-RECORD-FIRST, LIFE-ID-FORMAT).
        let id = self.allocate_id(call, &question)?;
        let mut request = Some(Event::new(EventKind::InquiryRequest(Box::new(
            InquiryRequest {
                id: id.clone(),
                source,
                question: self.persisted_question(&question),
            },
        ))));
        // The ID itself is moved to where the route takes it (the response,
        // the prompt or the backend call), so it is copied only into the
        // request.
        let recorded_before = self.records(Moment::BeforeRouting);
        if recorded_before && let Some(request) = request.take() {
            self.persist(request, fx);
        }

        // Steps 3 and 4 decided at once, purely (LIFE-RESOLUTION-ORDER).
        let tool = &self.executing[call].call.tool;
        let unconfigured = QuestionConfig::default();
        let config = self
            .spec(call)
            .and_then(|s| s.questions.get(&question.id))
            .unwrap_or(&unconfigured);
        let label = if self.rules.prompt_label {
            config.prompt_label.clone()
        } else {
            None
        };
        let resolution = self.resolve(tool, &question, config)?;
        fx.push(Effect::Resolved {
            call,
            question_id: question.id.clone(),
            route: match &resolution {
                Resolution::Cached(_) => RouteTaken::Cached,
                Resolution::Static(_) => RouteTaken::Static,
                Resolution::Refused(refusal) => RouteTaken::Refused(*refusal),
                Resolution::Prompt => RouteTaken::Prompter,
                Resolution::Backend(_) => RouteTaken::Backend,
            },
            recorded: recorded_before || matches!(resolution, Resolution::Backend(_)),
        });
        match resolution {
            // Step 3 (RFD 082 Recording lifecycle): an automatic answer,
            // cached or static, resumes the tool; no prompt is shown.
            Resolution::Cached(v) => {
                let recorded_id = recorded_before.then_some(id);
                self.answered(call, &question, recorded_id, v, Via::Cache, fx)
            }
            Resolution::Static(v) => {
                let recorded_id = recorded_before.then_some(id);
                self.answered(call, &question, recorded_id, v, Via::Static, fx)
            }
            // RFD 083 steps 6-7: a static answer that does not fit, or a
            // human-only question with no human to ask, is a non-answer
            // (step 6 below).
            Resolution::Refused(refusal) => {
                let recorded_id = recorded_before.then_some(id);
                self.fail(
                    call,
                    &question,
                    recorded_id,
                    NonAnswer::Refused(refusal),
                    fx,
                )
            }
            // Step 4 (RFD 082 Recording lifecycle): otherwise route the
            // question, to the interactive prompter...
            Resolution::Prompt => {
                let presentation = prompt::present(&question, &self.rules, label.as_deref());
                let recorded_id = recorded_before.then_some(id);
                self.executing[call].status = Status::AwaitingPrompt {
                    inquiry_id: recorded_id.clone(),
                    question,
                };
                fx.push(Effect::Prompt {
                    call,
                    inquiry_id: recorded_id,
                    presentation: Box::new(presentation),
                });
            }
            // ... or to the inquiry backend.
            Resolution::Backend(bq) => {
                if let (true, Some(request)) = (self.records(Moment::BackendSpawned), request) {
                    self.persist(request, fx);
                }
                let answer_type = bq.answer_type.clone();
                let asking = &self.executing[call].call;
                let backend = Box::new(BackendCall::new(
                    id.as_str(),
                    &asking.id,
                    &asking.tool,
                    bq,
                    self.persisted,
                ));
                self.executing[call].status = Status::AwaitingBackend {
                    inquiry_id: Some(id),
                    question,
                    answer_type,
                };
                fx.push(Effect::Inquire { call, backend });
            }
        }
        Ok(())
    }

    /// The inquiry's ID, allocated once at the recording site (rules
    /// `LIFE-ID-FORMAT`, `LIFE-ATTEMPT-COUNTER`): the profile's `id_format`
    /// switch, consulted here only.
    fn allocate_id(
        &mut self,
        call: usize,
        question: &Question,
    ) -> Result<InquiryId, CoordinatorError> {
        Ok(match self.rules.id_format {
            IdFormat::Attempt => {
                let call_id = &self.executing[call].call.id;
                let turn = self
                    .turn
                    .as_mut()
                    .ok_or_else(|| CoordinatorError("no turn is open".to_owned()))?;
                // Looked up by the borrowed pair: the owned key is made
                // only when the pair is new to the turn.
                let n = match turn.attempts.get_mut(&AttemptKey(call_id, &question.id)) {
                    Some(n) => n,
                    None => turn
                        .attempts
                        .entry((call_id.clone(), question.id.clone()))
                        .or_insert(0),
                };
                *n += 1;
                InquiryId::new(call_id, &question.id, *n)
            }
            IdFormat::TwoSegment => InquiryId::legacy(&self.executing[call].call.id, &question.id),
        })
    }

    /// Whether an inquiry's event is recorded at `moment`: the profile's
    /// `record` switch, consulted here only. RFD 082 records every
    /// `NeedsInput`, the request before routing (step 2) and always a
    /// response (steps 3, 5 and 6); RFD 005 recorded inquiry-backend
    /// questions only, the request when the inquiry is spawned and the
    /// response only on success.
    fn records(&self, moment: Moment) -> bool {
        match (self.rules.record, moment) {
            (
                RecordScope::EveryRoundTrip,
                Moment::BeforeRouting | Moment::Answered(_) | Moment::NonAnswer,
            ) => true,
            // Already recorded before routing.
            (RecordScope::EveryRoundTrip, Moment::BackendSpawned) => false,
            (RecordScope::BackendOnly, Moment::BackendSpawned | Moment::Answered(Via::Backend)) => {
                true
            }
            (
                RecordScope::BackendOnly,
                Moment::BeforeRouting
                | Moment::NonAnswer
                | Moment::Answered(Via::Cache | Via::Static | Via::Prompter { .. }),
            ) => false,
        }
    }

    /// The persisted question: RFD 083's fields only where 083 is in force.
    fn persisted_question(&self, q: &Question) -> crate::wire::InquiryQuestion {
        let mut p = q.to_inquiry_question();
        if !self.rules.widened_question {
            p.context = None;
            p.exclusive = false;
            p.persistence = crate::wire::InquiryAnswerReusePolicy::Turn;
        }
        p
    }

    /// The resolution order (rule `LIFE-RESOLUTION-ORDER`): cached → static →
    /// guards → route. Pure: decides, does nothing.
    fn resolve(
        &self,
        tool: &str,
        q: &Question,
        config: &QuestionConfig,
    ) -> Result<Resolution, CoordinatorError> {
        let secret = routing::is_secret(q, &self.rules);
        // LIFE-CACHE-ELIGIBLE (read side).
        if routing::cache_eligible(secret, q.persistence, self.rules.persistence_gate) {
            let cached = self.turn.as_ref().and_then(|t| {
                CacheKey::answer(tool, &q.id).read(|key| t.cache.tool_answers().get(key).cloned())
            });
            if let Some(v) = cached {
                return Ok(Resolution::Cached(v));
            }
        }
        let human_only = routing::human_only(q, &self.rules);
        // LIFE-ROUTE: the RFD 083 precedence table.
        let route = routing::route_in(
            &self.rules.tables,
            config.answer.is_some(),
            config.target,
            self.tty,
            human_only,
        );
        Ok(match (route, &config.answer) {
            // LIFE-STATIC-VALIDATED: under RFD 083 a static answer is checked first.
            (Route::Static, Some(answer)) => {
                if predicates::validates_static_answers(&self.rules)
                    && routing::validate_answer(&q.answer_type, answer).is_err()
                {
                    Resolution::Refused(Refusal::InvalidStaticAnswer)
                } else {
                    Resolution::Static(answer.clone())
                }
            }
            (Route::Static, None) => {
                return Err(CoordinatorError(format!(
                    "internal: static route without a static answer for {tool}"
                )));
            }
            (Route::Prompter, _) => Resolution::Prompt,
            (Route::Backend, _) => match BackendQuestion::new(q, &self.rules) {
                Some(bq) => Resolution::Backend(bq),
                None => {
                    return Err(CoordinatorError(format!(
                        "internal: a human-only question of {tool} reached the backend route"
                    )));
                }
            },
            (Route::Refuse(refusal), _) => Resolution::Refused(refusal),
        })
    }

    /// The question of the prompt `call` waits for, taken out of its
    /// status (`answered` and `fail` set the next one).
    fn take_prompt(
        &mut self,
        call: usize,
        inquiry_id: &Option<InquiryId>,
    ) -> Result<Arc<Question>, CoordinatorError> {
        match self.executing.get(call).map(|t| &t.status) {
            Some(Status::AwaitingPrompt {
                inquiry_id: waiting,
                ..
            }) if waiting == inquiry_id => {}
            _ => return Err(self.bad(call, "this prompt's answer")),
        }
        match std::mem::replace(&mut self.executing[call].status, Status::Running) {
            Status::AwaitingPrompt { question, .. } => Ok(question),
            other => {
                self.executing[call].status = other;
                Err(self.bad(call, "this prompt's answer"))
            }
        }
    }

    /// Step 5 (RFD 082 Recording lifecycle), and the recording of step 3's
    /// automatic answers: hand the answer to the tool, record `Answered`
    /// or, for a secret, `Redacted` (LIFE-SECRET-REDACTED); remember it
    /// only if the prompter offered and the user chose it.
    fn answered(
        &mut self,
        call: usize,
        q: &Question,
        recorded: Option<InquiryId>,
        value: Value,
        via: Via,
        fx: &mut Vec<Effect>,
    ) {
        let secret = routing::is_secret(q, &self.rules);
        if let (true, Some(id)) = (self.records(Moment::Answered(via)), recorded) {
            let response = if secret {
                InquiryResponse::Redacted { id }
            } else {
                InquiryResponse::Answered {
                    id,
                    answer: value.clone(),
                }
            };
            self.persist(Event::new(EventKind::InquiryResponse(response)), fx);
        }
        // LIFE-CACHE-WRITE: only a prompter answer the user chose to remember,
        // only where the prompter offered it.
        if let (Via::Prompter { remember: true }, true) =
            (via, routing::remember_offered(q, &self.rules))
        {
            let key = CacheKey::answer(&self.executing[call].call.tool, &q.id).key();
            if let Some(turn) = self.turn.as_mut() {
                turn.cache.tool_answers_mut().insert(key, value.clone());
            }
        }
        let t = &mut self.executing[call];
        hold(&mut t.accumulated_answers, &q.id, Held { value, secret });
        t.status = Status::Running;
        self.invoke(call, fx);
    }

    /// Step 6 (RFD 082 Recording lifecycle) for a restart while the call's
    /// inquiry ran: close the inquiry as `cancelled (user)`
    /// (`InquiryError::Cancelled`), drop the call's answers and invoke the
    /// tool again; no tool response yet.
    fn restart(&mut self, call: usize, fx: &mut Vec<Effect>) -> Result<(), CoordinatorError> {
        let inquiry_id = match self.executing.get(call).map(|t| &t.status) {
            Some(Status::AwaitingBackend { inquiry_id, .. }) => inquiry_id.clone(),
            _ => return Err(self.bad(call, "a restart")),
        };
        if let (true, Some(id)) = (self.records(Moment::NonAnswer), inquiry_id) {
            let reason = routing::cancellation_reason_in(
                &self.rules.tables,
                NonAnswer::Inquiry(InquiryErrorKind::Cancelled),
            );
            self.persist(
                Event::new(EventKind::InquiryResponse(InquiryResponse::Cancelled {
                    id,
                    reason,
                })),
                fx,
            );
        }
        let t = &mut self.executing[call];
        t.accumulated_answers.clear();
        t.status = Status::Running;
        self.invoke(call, fx);
        Ok(())
    }

    /// Step 6 (RFD 082 Recording lifecycle): on a non-answer, record
    /// `Cancelled` with the mapped reason; the tool response is as
    /// [`non_answer_response`] decides.
    fn fail(
        &mut self,
        call: usize,
        q: &Question,
        recorded: Option<InquiryId>,
        why: NonAnswer,
        fx: &mut Vec<Effect>,
    ) {
        if let (true, Some(id)) = (self.records(Moment::NonAnswer), recorded) {
            let reason = routing::cancellation_reason_in(&self.rules.tables, why);
            self.persist(
                Event::new(EventKind::InquiryResponse(InquiryResponse::Cancelled {
                    id,
                    reason,
                })),
                fx,
            );
        }
        let response = non_answer_response_in(
            &self.rules.tables,
            why,
            &self.executing[call].call.tool,
            &q.id,
        );
        self.respond_as(call, response.content, response.kind, fx);
    }
}

fn inquiry_error_text(kind: InquiryErrorKind) -> &'static str {
    match kind {
        InquiryErrorKind::Cancelled => "the inquiry was cancelled",
        InquiryErrorKind::Provider => "the provider returned an error",
        InquiryErrorKind::MissingStructuredData => "the response carried no structured data",
        InquiryErrorKind::AnswerExtraction => "the answer could not be extracted from the response",
        InquiryErrorKind::Other => "the inquiry backend failed",
    }
}

/// A turn's attempt-counter key, `(tool_call_id, question_id)`, borrowed:
/// it hashes as the owned `(String, String)` does (a tuple hashes its
/// fields in order, a `String` as its `str`), so the counter is found
/// without copying either ID (rule `LIFE-ATTEMPT-COUNTER`).
#[derive(Hash)]
struct AttemptKey<'a>(&'a str, &'a str);

impl indexmap::Equivalent<(String, String)> for AttemptKey<'_> {
    fn equivalent(&self, key: &(String, String)) -> bool {
        self.0 == key.0 && self.1 == key.1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{self, RunOptions, Scenario};

    proptest::proptest! {
        /// Rule: LIFE-ACCUMULATED — invariant: a call's held answers, after
        /// any sequence of answers (IDs repeating, secret or not), are an
        /// insertion-ordered map's after the same inserts: one entry per
        /// question ID, where the ID was first answered, holding the latest
        /// answer.
        #[test]
        fn a_calls_held_answers_are_a_maps_inserts(
            answers in proptest::collection::vec(("[abc]", 0u8..4, proptest::bool::ANY), 0..12),
        ) {
            let mut held = Vec::new();
            let mut map: indexmap::IndexMap<String, (Value, bool)> = indexmap::IndexMap::new();
            for (id, n, secret) in answers {
                let value = Value::from(n);
                hold(&mut held, &id, Held { value: value.clone(), secret });
                map.insert(id, (value, secret));
            }
            let held: Vec<(String, (Value, bool))> =
                held.into_iter().map(|(k, h)| (k, (h.value, h.secret))).collect();
            let map: Vec<(String, (Value, bool))> = map.into_iter().collect();
            proptest::prop_assert_eq!(held, map);
        }
    }

    /// Every executing call's spec index is where its own tool's name
    /// finds it among the coordinator's tools, at every step (rule
    /// `PERF-MODEL-MAPS`): the calls name the second tool before the first
    /// and a tool that is not configured.
    #[test]
    fn each_calls_spec_index_is_its_tools() {
        let ask = |id: &str| {
            serde_json::json!({"program": {"kind": "script", "asks": [
                {"question": {"id": id, "text": "Go?", "answer_type": {"type": "boolean"}}}]},
                "questions": {id: {"target": "user"}}})
        };
        let s: Scenario = serde_json::from_value(serde_json::json!({
            "tools": {"first": ask("a"), "second": ask("b")},
            "turns": [{"cycles": [
                [{"id": "c1", "tool": "second"}, {"id": "c2", "tool": "nowhere"}],
                [{"id": "c3", "tool": "first"}, {"id": "c4", "tool": "second"}]
            ]}],
            "prompter": [
                {"reply": "answer", "value": true}, {"reply": "answer", "value": true},
                {"reply": "answer", "value": true}
            ]
        }))
        .expect("a scenario");
        let mut seen = Vec::new();
        let observe = &mut |c: &Coordinator, _: &scenario::Trace| {
            let view = c.view();
            for t in view.executing {
                let by_name = view.tools.get_index_of(&t.call.tool);
                assert_eq!(t.spec, by_name, "{}", t.call.tool);
                if !seen.contains(&by_name) {
                    seen.push(by_name);
                }
            }
        };
        scenario::run_observed(&s, RunOptions::default(), observe).expect("the scenario runs");
        seen.sort();
        assert_eq!(seen, [None, Some(0), Some(1)]);
    }

    /// Rule: PERF-SHARED-CONFIG — a run's spec of a tool under a key no
    /// built-in has holds the scenario's own questions map, not a copy, at
    /// every step, equal to it; a built-in's, which the configuration
    /// resolves from its layers (the registered one adds a question of its
    /// own), holds a map of its own, with the scenario's question in it.
    /// A scenario changed after the first run (its map copied on write)
    /// leaves that run's spec as it was.
    #[test]
    fn a_tools_questions_are_shared_with_its_runs() {
        let tool = |id: &str| {
            serde_json::json!({"run": "unattended", "program": {"kind": "script", "asks": [
                {"question": {"id": id, "text": "Go?", "answer_type": {"type": "boolean"}}}]},
                "questions": {id: {"target": "user", "prompt_label": "Label"}}})
        };
        let mut s: Scenario = serde_json::from_value(serde_json::json!({
            "profile": "rfd083",
            "tty": true,
            "tools": {"mine": tool("a"), "ask_user": tool("b")},
            "turns": [{"cycles": [[{"id": "c1", "tool": "mine"}, {"id": "c2", "tool": "ask_user"}]]}],
            "prompter": [{"reply": "answer", "value": true}, {"reply": "answer", "value": true}]
        }))
        .expect("a scenario");
        assert!(
            crate::model::builtins::find("ask_user").is_some()
                && crate::model::builtins::find("mine").is_none(),
            "one key a built-in has, one it has not"
        );
        let mut first = None;
        let mut steps = 0;
        scenario::run_observed(&s, RunOptions::default(), &mut |c, _| {
            steps += 1;
            let tools = c.view().tools;
            let (mine, builtin) = (&tools["mine"].questions, &tools["ask_user"].questions);
            assert!(
                Arc::ptr_eq(mine, &s.tools["mine"].questions),
                "step {steps}"
            );
            assert!(!Arc::ptr_eq(builtin, &s.tools["ask_user"].questions));
            assert_eq!(**mine, *s.tools["mine"].questions);
            assert_eq!(builtin.get("b"), s.tools["ask_user"].questions.get("b"));
            assert!(
                builtin.len() > 1,
                "the built-in's registered layer adds its own"
            );
            first.get_or_insert_with(|| Arc::clone(mine));
        })
        .expect("the scenario runs");
        assert!(steps > 2, "the calls ran");
        let first = first.expect("a step was observed");
        Arc::make_mut(&mut s.tools.get_mut("mine").expect("the tool").questions).shift_remove("a");
        assert_eq!(first.len(), 1, "the run's spec kept its question");
        assert!(s.tools["mine"].questions.is_empty());
    }

    /// A scripted question is one allocation from the script to the
    /// coordinator (rule `PERF-SHARED-QUESTION`): every invocation record's
    /// question is the script's own, and so is the question a prompt waits
    /// on while the profile reads it as written (RFD 083). A profile that
    /// reads it otherwise (RFD 082 knows no `exclusive`) waits on a copy
    /// that reads so, and the script and the records keep the question as
    /// the tool wrote it: the same scenario (its question shared, not
    /// copied) run under RFD 083 after RFD 082 gives the trace of the
    /// first run.
    #[test]
    fn a_scripted_question_is_shared_and_copied_only_when_read_otherwise() {
        let rfd083: Scenario = serde_json::from_value(serde_json::json!({
            "profile": "rfd083",
            "tty": true,
            "tools": {"t": {"run": "unattended", "program": {"kind": "script", "asks": [{
                "question": {"id": "a", "text": "Go?", "exclusive": true,
                    "answer_type": {"type": "boolean"}},
                "reject_first": 1}]}}},
            "turns": [{"cycles": [[{"id": "c1", "tool": "t"}]]}],
            "prompter": [
                {"reply": "answer", "value": true}, {"reply": "answer", "value": true}
            ]
        }))
        .expect("a scenario");
        let asked = |s: &Scenario| match &s.tools["t"].program {
            scenario::Program::Script { asks, .. } => Arc::clone(&asks[0].question),
            other => panic!("a script, not {other:?}"),
        };
        // How the questions the prompts waited on stood: (the script's own,
        // exclusive as the coordinator reads it).
        let run = |s: &Scenario| {
            let script = asked(s);
            let mut waited = Vec::new();
            let observe = &mut |c: &Coordinator, _: &scenario::Trace| {
                for t in c.view().executing {
                    if let Status::AwaitingPrompt { question, .. } = &t.status {
                        waited.push((Arc::ptr_eq(question, &script), question.exclusive));
                    }
                }
            };
            let trace = scenario::run_observed(s, RunOptions::default(), observe)
                .expect("the scenario runs");
            assert_eq!(trace.invocations.len(), 3, "{:?}", trace.invocations);
            for inv in &trace.invocations[..2] {
                match &inv.outcome {
                    Outcome::NeedsInput { question } => {
                        assert!(Arc::ptr_eq(question, &script), "the record's question")
                    }
                    other => panic!("asked, not {other:?}"),
                }
            }
            (trace, waited)
        };
        let (first, waited) = run(&rfd083);
        assert_eq!(waited, [(true, true), (true, true)]);
        // The same script under the older profile: a clone shares the
        // question.
        let mut rfd082 = rfd083.clone();
        rfd082.profile = crate::profile::ProfileName::Rfd082;
        assert!(Arc::ptr_eq(&asked(&rfd082), &asked(&rfd083)));
        let (_, waited) = run(&rfd082);
        assert_eq!(waited, [(false, false), (false, false)]);
        assert!(asked(&rfd083).exclusive, "the script keeps its question");
        let (again, _) = run(&rfd083);
        assert_eq!(first, again);
    }

    proptest::proptest! {
        /// A borrowed attempt key finds the counter its owned pair was
        /// filed under, and no other pair's (rule `PERF-MODEL-MAPS`): it
        /// hashes and compares as the owned pair does.
        #[test]
        fn a_borrowed_attempt_key_finds_its_owned_pair(
            pairs in proptest::collection::vec(("[a.b]{0,3}", "[a.b]{0,3}"), 1..8),
            probe in ("[a.b]{0,3}", "[a.b]{0,3}"),
        ) {
            let mut attempts: Map<(String, String), u32> = Map::default();
            for (i, (call, question)) in pairs.iter().enumerate() {
                attempts.entry((call.clone(), question.clone())).or_insert(i as u32);
            }
            for (call, question) in pairs.iter().chain([&probe]) {
                let owned = attempts.get(&(call.clone(), question.clone()));
                proptest::prop_assert_eq!(attempts.get(&AttemptKey(call, question)), owned);
            }
        }
    }
}
