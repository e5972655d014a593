//! The scenario driver as a resumable machine: the run loop of
//! [`super::run_scheduled`] cut at every scheduler choice, so that a search
//! can clone the whole run (coordinator, trace, driver) at a choice and take
//! each option from its own copy instead of replaying the prefix from the
//! root (`crate::explore::states`' forking search).
//!
//! It drives the same private steps as the run loop (`Driver::handle`,
//! `perform`, `drain`, the hard quit) in the same order; the test
//! `forking_reaches_every_trace_the_scheduled_run_does` (in
//! `crate::explore::por`) holds it to [`super::run`] on every interleaving
//! it produces.

#[cfg(feature = "cli")]
use std::borrow::Cow;

use super::*;
use crate::model::coordinator::{Status, View};

/// Where the machine is in the run loop.
#[cfg(feature = "cli")]
#[derive(Debug, Clone)]
enum Phase {
    /// Before turn `t`'s `BeginTurn` (at the end when `t` is past the last).
    BeginTurn(usize),
    /// Before cycle `c` of turn `t` (the turn's end when past the last).
    BeginCycle(usize, usize),
    /// Doing the current cycle's pending work.
    Work(usize, usize),
    /// A hard quit: answering the open inquiries left in `Machine::work`.
    Quit,
    /// Before turn `t`'s `EndTurn`.
    EndTurn(usize),
    /// The run is over.
    Done,
}

/// What kind of work a pending step is (each takes from its own reply
/// list, or runs the tool).
#[cfg(feature = "cli")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StepKind {
    /// Run the call's tool.
    Invoke,
    /// Show a prompt: takes the prompter's next reply.
    Prompt,
    /// Ask the inquiry backend: takes its next reply.
    Inquire,
    /// A permission prompt: takes the next permission reply.
    Permission,
    /// A delivery prompt: takes the next delivery reply.
    Delivery,
}

/// A pending step as a search needs to know it before taking it: whose it
/// is, what it reads and writes.
#[cfg(feature = "cli")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StepInfo<'a> {
    /// The call's index in the cycle.
    pub(crate) call: usize,
    /// The call's ID as the scenario gives it (two calls of one cycle may
    /// share it: they then share attempt counters and inquiry IDs).
    pub(crate) call_id: &'a str,
    /// The kind of work.
    pub(crate) kind: StepKind,
    /// The called tool's name (the turn cache's keys start with it).
    pub(crate) tool: &'a str,
    /// The question this step is about: for a prompt or a backend call the
    /// one it answers; for a tool run the one the tool asks next if it asks
    /// (its turn-cache key is read there); `None` for a permission or a
    /// delivery prompt and for a run that asks nothing.
    pub(crate) question: Option<std::borrow::Cow<'a, str>>,
    /// The tool is a local program (its output list is per tool, not per
    /// call).
    pub(crate) local_program: bool,
    /// The backend reply this step would take fires the turn's token (hard
    /// quit or aborted turn), which changes every other pending step.
    pub(crate) fires_token: bool,
}

/// A run of a scenario that stops wherever work pends (the caller picks,
/// [`Machine::take`]) and can be cloned there.
#[cfg(feature = "cli")]
pub(crate) struct Machine<'s> {
    driver: Driver<'s, 'static>,
    phase: Phase,
    calls: Vec<CallState<'s>>,
    work: Vec<Work>,
    /// The work list of the turn's `BeginTurn` (handed to its `EndTurn`, as
    /// the run loop does).
    turn_work: Vec<Work>,
    /// The pick at every choice so far (0 where one piece of work pended):
    /// with the scenario, a `schedule` that replays the run.
    schedule: Vec<u32>,
    /// The cycle a hard quit happened in.
    quit_at: At,
}

#[cfg(feature = "cli")]
impl Clone for Machine<'_> {
    fn clone(&self) -> Self {
        let d = &self.driver;
        Machine {
            driver: Driver {
                scenario: d.scenario,
                step: d.step.as_ref().map(|s| s.clone_box()),
                coordinator: d.coordinator.clone(),
                trace: d.trace.clone(),
                prompter: d.prompter.clone(),
                backend: d.backend.clone(),
                backend_by_id: d.backend_by_id.clone(),
                permissions: d.permissions.clone(),
                deliveries: d.deliveries.clone(),
                schedule: d.schedule.clone(),
                stop: d.stop,
                local_printed: d.local_printed.clone(),
                steps: d.steps,
                observer: None,
                effects: Vec::new(),
                scheduler: None,
            },
            phase: self.phase.clone(),
            calls: self.calls.clone(),
            work: self.work.clone(),
            turn_work: self.turn_work.clone(),
            schedule: self.schedule.clone(),
            quit_at: self.quit_at,
        }
    }
}

#[cfg(feature = "cli")]
impl<'s> Machine<'s> {
    /// A run of `scenario` (its `schedule` is not read: the caller picks)
    /// under `options`, before its first step.
    pub(crate) fn new(scenario: &'s Scenario, options: RunOptions) -> Result<Self, ScenarioError> {
        let mut driver = Driver::new(scenario, scenario.profile.rules(), options)?;
        driver.schedule.clear();
        Ok(Machine {
            driver,
            phase: Phase::BeginTurn(0),
            calls: Vec::new(),
            work: Vec::new(),
            turn_work: Vec::new(),
            schedule: Vec::new(),
            quit_at: At { turn: 0, cycle: 0 },
        })
    }

    /// The finished (or stopped) run's trace.
    pub(crate) fn into_trace(self) -> Trace {
        self.driver.trace
    }

    /// The pick at every choice so far.
    pub(crate) fn schedule(&self) -> &[u32] {
        &self.schedule
    }

    /// Coordinator steps so far.
    pub(crate) fn steps(&self) -> usize {
        self.driver.steps
    }

    /// The pending work, in the order the run loop's picks index it.
    pub(crate) fn pending(&self) -> impl Iterator<Item = StepInfo<'_>> {
        self.work.iter().map(|w| self.info(w))
    }

    fn info<'m>(&'m self, w: &Work) -> StepInfo<'m> {
        let (call, kind) = match w {
            Work::Invoke { call, .. } => (*call, StepKind::Invoke),
            Work::Prompt { call, .. } => (*call, StepKind::Prompt),
            Work::Inquire { call, .. } => (*call, StepKind::Inquire),
            Work::Permission { call } => (*call, StepKind::Permission),
            Work::Delivery { call } => (*call, StepKind::Delivery),
        };
        let call_id = self.calls[call].call.id.as_str();
        let tool = self.calls[call].call.tool.as_str();
        let question = match w {
            Work::Invoke { answers, .. } => self.asks_next(call, answers).map(Cow::Owned),
            Work::Prompt { .. } | Work::Inquire { .. } => self
                .driver
                .coordinator
                .view()
                .awaited_question(call)
                .map(|q| Cow::Borrowed(q.id.as_str())),
            Work::Permission { .. } | Work::Delivery { .. } => None,
        };
        let local_program = matches!(
            self.driver.scenario.tools.get(tool).map(|t| &t.program),
            Some(Program::Local { .. })
        );
        let fires_token = match w {
            Work::Inquire { backend, .. } => {
                let next = self
                    .driver
                    .backend_by_id
                    .get(&backend.inquiry_id)
                    .or_else(|| self.driver.backend.clone().next());
                matches!(next, Some(BackendReply::Cancelled { .. }))
            }
            Work::Invoke { .. } | Work::Prompt { .. } => false,
            Work::Permission { .. } | Work::Delivery { .. } => false,
        };
        StepInfo {
            call,
            call_id,
            kind,
            tool,
            question,
            local_program,
            fires_token,
        }
    }

    /// The ID of the question `call`'s tool would ask if run now with
    /// `answers` (the same pure programs `perform` runs, on copies: a
    /// script's state, a local program's next line, `ask_user`'s
    /// arguments), or `None` when the run would not ask.
    fn asks_next(&self, call: usize, answers: &Answers) -> Option<String> {
        let state = &self.calls[call];
        let name = state.call.tool.as_str();
        let setup = self.driver.scenario.tools.get(name)?;
        let outcome = match &setup.program {
            Program::Script { asks, finish } => {
                run_script(name, asks, *finish, answers, &mut state.script.clone())
            }
            Program::AskUser => ask_user::execute(&state.call.arguments, answers),
            Program::Local { stdout } => {
                let n = self.driver.local_printed.get(name).copied().unwrap_or(0);
                local_outcome(stdout.get(n).map(String::as_str).unwrap_or(""))
            }
        };
        match outcome {
            Outcome::NeedsInput { question } => Some(question.id.clone()),
            Outcome::Success { .. } | Outcome::Error { .. } => None,
        }
    }

    /// Runs on until pending work is to be picked (returns how many pieces
    /// pend, one or more) or the end of the run (returns `None`), calling
    /// `observe` after every input the coordinator handled.
    pub(crate) fn advance(
        &mut self,
        observe: &mut dyn FnMut(&Coordinator, &Trace),
    ) -> Result<Option<usize>, ScenarioError> {
        let scenario = self.driver.scenario;
        loop {
            match self.phase {
                Phase::Done => return Ok(None),
                Phase::BeginTurn(t) => {
                    let Some(turn) = scenario.turns.get(t) else {
                        self.phase = Phase::Done;
                        continue;
                    };
                    let at = At { turn: t, cycle: 0 };
                    self.turn_work = Vec::new();
                    let input = Input::BeginTurn {
                        content: turn.user.clone(),
                    };
                    self.driver.handle(input, at, &[], &mut self.turn_work)?;
                    observe(&self.driver.coordinator, &self.driver.trace);
                    self.phase = Phase::BeginCycle(t, 0);
                }
                Phase::BeginCycle(t, c) => {
                    let Some(cycle) = scenario.turns[t].cycles.get(c) else {
                        self.phase = Phase::EndTurn(t);
                        continue;
                    };
                    let at = At { turn: t, cycle: c };
                    self.calls = cycle
                        .iter()
                        .map(|call| CallState::new(scenario, call))
                        .collect();
                    self.work = Vec::new();
                    let input = Input::BeginCycle {
                        calls: cycle.clone(),
                    };
                    self.driver.handle(input, at, &self.calls, &mut self.work)?;
                    observe(&self.driver.coordinator, &self.driver.trace);
                    self.phase = Phase::Work(t, c);
                }
                Phase::Work(t, c) => match self.work.len() {
                    0 => {
                        self.phase = match self.driver.stop.take() {
                            Some(TokenCause::AbortedTurn) => Phase::EndTurn(t),
                            Some(
                                TokenCause::HardQuit | TokenCause::Restart | TokenCause::ToolCancel,
                            )
                            | None => Phase::BeginCycle(t, c + 1),
                        };
                    }
                    n => return Ok(Some(n)),
                },
                Phase::Quit => {
                    if self.work.is_empty() {
                        self.phase = Phase::Done;
                        continue;
                    }
                    let item = self.work.remove(0);
                    let input = match item {
                        Work::Prompt {
                            call, inquiry_id, ..
                        } => Input::PromptCancelled { call, inquiry_id },
                        Work::Inquire { call, .. } => Input::InquiryResult {
                            call,
                            result: Err(routing::token_error(TokenCause::HardQuit)),
                        },
                        Work::Invoke { .. } | Work::Permission { .. } | Work::Delivery { .. } => {
                            continue;
                        }
                    };
                    let at = self.at();
                    self.driver
                        .handle(input, at, &self.calls, &mut Vec::new())?;
                    observe(&self.driver.coordinator, &self.driver.trace);
                }
                Phase::EndTurn(t) => {
                    let at = At { turn: t, cycle: 0 };
                    if let Some(state) = self.driver.coordinator.turn_state() {
                        self.driver.trace.remembered.push(RememberedKeys {
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
                    let input = Input::EndTurn {
                        content: format!("turn {t} done"),
                    };
                    self.driver.handle(input, at, &[], &mut self.turn_work)?;
                    observe(&self.driver.coordinator, &self.driver.trace);
                    self.phase = Phase::BeginTurn(t + 1);
                }
            }
        }
    }

    /// Where the current cycle is (for the records of its steps).
    fn at(&self) -> At {
        match self.phase {
            Phase::Work(turn, cycle) => At { turn, cycle },
            Phase::Quit => self.quit_at,
            Phase::BeginTurn(turn) | Phase::EndTurn(turn) => At { turn, cycle: 0 },
            Phase::BeginCycle(turn, cycle) => At { turn, cycle },
            Phase::Done => At { turn: 0, cycle: 0 },
        }
    }

    /// Takes the pending work at `pick` (`< pending`): runs it
    /// and hands its input to the coordinator, calling `observe` after.
    pub(crate) fn take(
        &mut self,
        pick: usize,
        observe: &mut dyn FnMut(&Coordinator, &Trace),
    ) -> Result<(), ScenarioError> {
        if pick >= self.work.len() || !matches!(self.phase, Phase::Work(..)) {
            return Err(ScenarioError::Crash(format!(
                "the search picked {pick} of {} pending",
                self.work.len()
            )));
        }
        let at = self.at();
        self.schedule.push(pick as u32);
        let item = self.work.remove(pick);
        let input = match self.driver.stop {
            Some(TokenCause::AbortedTurn) => self.driver.drain(item, at, &mut self.calls)?,
            Some(TokenCause::HardQuit | TokenCause::Restart | TokenCause::ToolCancel) | None => {
                self.driver.perform(item, at, &mut self.calls)?
            }
        };
        self.driver.handle(input, at, &self.calls, &mut self.work)?;
        observe(&self.driver.coordinator, &self.driver.trace);
        if let Some(TokenCause::HardQuit) = self.driver.stop {
            self.driver.trace.interrupted = true;
            self.quit_at = at;
            self.phase = Phase::Quit;
        }
        Ok(())
    }
}

impl<'a> View<'a> {
    /// The question call `call` of the current cycle waits on an answer to
    /// (at the prompter or the inquiry backend), if it waits on one.
    pub(crate) fn awaited_question(&self, call: usize) -> Option<&'a Question> {
        match &self.executing.get(call)?.status {
            Status::AwaitingPrompt { question, .. } | Status::AwaitingBackend { question, .. } => {
                Some(question)
            }
            Status::AwaitingPermission
            | Status::Running
            | Status::AwaitingDelivery { .. }
            | Status::Done => None,
        }
    }
}
