//! The coordinator's faults, committed from outside it: [`handle_into`]
//! runs one step of a correct [`Coordinator`] and turns it into the step of
//! a faulty one, by editing the input it is given, the effects it answers
//! with and its turn state. The scenario driver takes it as any other step
//! function ([`crate::scenario::Step`]): `RunOptions::from(faults)` hands it
//! in, and with no fault on the options are the default ones, under which
//! the driver calls the coordinator's own step and nothing of this module.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;

use crate::model::ask_user;
use crate::model::cache_key::CacheKey;
use crate::model::coordinator::{
    Coordinator, CoordinatorError, Effect, Input, ResponseKind, RouteTaken,
};
use crate::model::routing;
use crate::model::tool::{AnswerReusePolicy, Outcome, Question};
use crate::profile::{RecordScope, Rules};
use crate::scenario::{RunOptions, Step};
use crate::wire::{
    Event, EventKind, InquiryAnswerReusePolicy, InquiryResponse, InquirySource, Opaque,
};

/// Faults the model can be told to commit, so that tests can show each
/// invariant check catches the fault it exists for. All off by default; the
/// model is only correct with all off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Faults {
    /// Hold the request back until its response is recorded (after the
    /// prompt was shown or the backend called).
    pub record_after_routing: bool,
    /// Record nothing when the cached answer short-circuits.
    pub skip_record_on_cache_hit: bool,
    /// Restart the attempt counter at every cycle instead of every turn.
    pub attempt_counter_per_cycle: bool,
    /// Record a secret answer as `Answered`.
    pub persist_secret: bool,
    /// Remember a cancelled question's (null) answer for the turn.
    pub cache_cancelled: bool,
    /// Remember secret answers for the turn.
    pub cache_secret: bool,
    /// Read and write the cache for `persistence: none` questions.
    pub ignore_persistence_gate: bool,
    /// Let configuration (`prompt_label = "Assistant"`) set the persisted
    /// source (committed on the tool's return, where the source the driver
    /// resolved reaches the coordinator).
    pub config_sets_source: bool,
    /// Route exclusive questions as if they were not (to the backend).
    pub exclusive_to_backend: bool,
    /// Leave the request unpaired when the inquiry backend fails.
    pub no_response_on_backend_error: bool,
    /// Write tool answers into the permission map (the two maps share a caller).
    pub shared_cache_maps: bool,
    /// Write tool-call requests with their `id` twice (a stream that does not
    /// read back).
    pub unreadable_write: bool,
    /// Hand tools their answers in hash order instead of answer order (a
    /// trace that differs from run to run).
    pub nondeterministic_answers: bool,
}

impl Faults {
    /// No fault, then every fault switch on its own: the rows of the fault
    /// matrix (rule `INV-FAULTS-CAUGHT`). The destructuring below names every
    /// field, so a new switch fails to compile until it is listed here.
    pub fn each_alone() -> Vec<Faults> {
        let Faults {
            record_after_routing: _,
            skip_record_on_cache_hit: _,
            attempt_counter_per_cycle: _,
            persist_secret: _,
            cache_cancelled: _,
            cache_secret: _,
            ignore_persistence_gate: _,
            config_sets_source: _,
            exclusive_to_backend: _,
            no_response_on_backend_error: _,
            shared_cache_maps: _,
            unreadable_write: _,
            nondeterministic_answers: _,
        } = Faults::default();
        let sets: [fn(&mut Faults); 13] = [
            |f| f.record_after_routing = true,
            |f| f.skip_record_on_cache_hit = true,
            |f| f.attempt_counter_per_cycle = true,
            |f| f.persist_secret = true,
            |f| f.cache_cancelled = true,
            |f| f.cache_secret = true,
            |f| f.ignore_persistence_gate = true,
            |f| f.config_sets_source = true,
            |f| f.exclusive_to_backend = true,
            |f| f.no_response_on_backend_error = true,
            |f| f.shared_cache_maps = true,
            |f| f.unreadable_write = true,
            |f| f.nondeterministic_answers = true,
        ];
        let mut out = vec![Faults::default()];
        out.extend(sets.iter().map(|set| {
            let mut f = Faults::default();
            set(&mut f);
            f
        }));
        out
    }
}

/// The driver's options for a run under `faults`: the default options (the
/// coordinator's own step) when none is on, else the faulty step.
impl From<Faults> for RunOptions {
    fn from(faults: Faults) -> Self {
        if faults == Faults::default() {
            RunOptions::default()
        } else {
            RunOptions::with_step(FaultyStep {
                faults,
                state: FaultState::default(),
            })
        }
    }
}

/// The step function of a coordinator under `faults` ([`handle_into`]).
#[derive(Debug, Clone, PartialEq)]
struct FaultyStep {
    faults: Faults,
    state: FaultState,
}

impl Step for FaultyStep {
    fn handle_into(
        &mut self,
        coordinator: &mut Coordinator,
        input: Input,
        effects: &mut Vec<Effect>,
    ) -> Result<(), CoordinatorError> {
        handle_into(self.faults, &mut self.state, coordinator, input, effects)
    }

    fn clone_box(&self) -> Box<dyn Step> {
        Box::new(self.clone())
    }

    fn state_key(&self, mut h: &mut dyn std::hash::Hasher) {
        self.state.state_key(&mut h);
    }
}

/// What a faulty coordinator carries from step to step beyond the correct
/// one's state: the requests held back (`record_after_routing`) and how
/// many of the events the coordinator counted as persisted never reached
/// the stream.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct FaultState {
    /// Held-back inquiry requests, with the call that asked.
    held: Vec<(usize, Event)>,
    /// Requests and responses left out of the stream.
    dropped: usize,
}

impl FaultState {
    /// Hashes the state structurally (the held requests by their wire
    /// serialization), for a state search's key.
    pub(crate) fn state_key<H: std::hash::Hasher>(&self, h: &mut H) {
        let FaultState { held, dropped } = self;
        h.write_usize(held.len());
        for (call, event) in held {
            h.write_usize(*call);
            crate::scenario::state_key::hash_serialized(event, h);
        }
        h.write_usize(*dropped);
    }

    /// How many persisted events the coordinator counted that the stream
    /// does not hold (yet).
    fn offset(&self) -> usize {
        self.held.len() + self.dropped
    }
}

/// One step of the coordinator under `faults`: the effects are appended to
/// `fx`, as [`Coordinator::handle_into`] does.
pub(crate) fn handle_into(
    faults: Faults,
    state: &mut FaultState,
    c: &mut Coordinator,
    mut input: Input,
    fx: &mut Vec<Effect>,
) -> Result<(), CoordinatorError> {
    if faults == Faults::default() {
        return c.handle_into(input, fx);
    }
    let rules = *c.rules();
    // The question this step is about, and its call.
    let in_play = in_play(c, &input);
    let key = in_play.as_ref().and_then(|(call, q)| {
        Some(CacheKey::answer(&c.view().executing.get(*call)?.call.tool, &q.id).key())
    });
    let cached_before = key.as_ref().and_then(|k| {
        c.turn_state()
            .and_then(|t| t.cache.tool_answers().get(k).cloned())
    });
    let remembered = match &input {
        Input::PromptAnswered {
            answer,
            remember: true,
            ..
        } => Some(answer.clone()),
        _ => None,
    };

    // Before the step: the faults that change what the coordinator is told.
    if let Input::ToolReturned {
        call,
        outcome: Outcome::NeedsInput { question },
        source,
    } = &mut input
        && faults.config_sets_source
        && configured_label(c, *call, &question.id) == Some(ask_user::PROMPT_LABEL)
    {
        // Configuration leaks into provenance.
        *source = InquirySource::Assistant;
    }
    if faults.attempt_counter_per_cycle
        && matches!(input, Input::BeginCycle { .. })
        && c.cycle_done()
        && let Some(turn) = c.turn_state_mut()
    {
        turn.attempts.clear();
    }
    let (mut restore_exclusive, mut restore_no_reuse) = (false, false);
    if let Input::ToolReturned {
        outcome: Outcome::NeedsInput { question },
        ..
    } = &mut input
    {
        let secret = routing::is_secret(question, &rules);
        // The question loses its guard; its persisted shape keeps `exclusive`.
        if faults.exclusive_to_backend && rules.exclusive && question.exclusive && !secret {
            Arc::make_mut(question).exclusive = false;
            restore_exclusive = true;
        }
        // The cache is read for a `persistence: none` question; its
        // persisted shape keeps `none`.
        if faults.ignore_persistence_gate
            && rules.persistence_gate
            && matches!(question.persistence, AnswerReusePolicy::None)
            && !secret
            && cached_before.is_some()
        {
            Arc::make_mut(question).persistence = AnswerReusePolicy::Turn;
            restore_no_reuse = true;
        }
    }

    let start = fx.len();
    let faithful_start = c.persisted_len() - state.offset();
    c.handle_into(input, fx)?;
    let batch: Vec<Effect> = fx.drain(start..).collect();

    // After the step: the faults that change what it answers with.
    let call_in_play = in_play.as_ref().map(|(call, _)| *call);
    let cache_hit = batch.iter().any(|e| {
        matches!(
            e,
            Effect::Resolved {
                route: RouteTaken::Cached,
                ..
            }
        )
    });
    let failed_inquiry = batch.iter().any(|e| {
        matches!(
            e,
            Effect::Respond {
                kind: ResponseKind::InquiryFailed,
                ..
            }
        )
    });
    let handed: Option<Value> = in_play.as_ref().and_then(|(_, q)| {
        batch.iter().find_map(|e| match e {
            Effect::Invoke { answers, .. } => answers.get(&q.id).cloned(),
            _ => None,
        })
    });
    let mut written = faithful_start;
    for effect in batch {
        match effect {
            Effect::Persist(mut e) => {
                match &mut e.kind {
                    EventKind::InquiryRequest(request) => {
                        if restore_exclusive {
                            request.question.exclusive = true;
                        }
                        if restore_no_reuse {
                            request.question.persistence = InquiryAnswerReusePolicy::None;
                        }
                        if faults.skip_record_on_cache_hit && cache_hit {
                            state.dropped += 1;
                            continue;
                        }
                        if let (true, RecordScope::EveryRoundTrip, Some(call)) =
                            (faults.record_after_routing, rules.record, call_in_play)
                        {
                            state.held.push((call, e));
                            continue;
                        }
                    }
                    EventKind::InquiryResponse(response) => {
                        if faults.skip_record_on_cache_hit && cache_hit {
                            state.dropped += 1;
                            continue;
                        }
                        release(state, call_in_play, fx, &mut written);
                        if faults.no_response_on_backend_error
                            && failed_inquiry
                            && matches!(response, InquiryResponse::Cancelled { .. })
                        {
                            state.dropped += 1;
                            continue;
                        }
                        if let (true, InquiryResponse::Redacted { id }, Some(answer)) =
                            (faults.persist_secret, &*response, &handed)
                        {
                            *response = InquiryResponse::Answered {
                                id: id.clone(),
                                answer: answer.clone(),
                            };
                        }
                    }
                    EventKind::ToolCallRequest(request) => {
                        if faults.unreadable_write {
                            let id = Opaque::from_value(&Value::String(request.id.clone()));
                            e.extra.push(("id".to_owned(), id));
                        }
                    }
                    EventKind::TurnStart
                    | EventKind::ChatRequest
                    | EventKind::ChatResponse
                    | EventKind::ToolCallResponse(_)
                    | EventKind::Other(_) => {}
                }
                written += 1;
                fx.push(Effect::Persist(e));
            }
            Effect::Resolved {
                call,
                question_id,
                route,
                recorded,
            } => fx.push(Effect::Resolved {
                call,
                question_id,
                route,
                recorded: recorded && !(faults.skip_record_on_cache_hit && cache_hit),
            }),
            Effect::Invoke { call, answers } => {
                release(state, Some(call), fx, &mut written);
                let answers = if faults.nondeterministic_answers {
                    let shuffled: std::collections::HashMap<String, Value> =
                        answers.into_iter().collect();
                    shuffled.into_iter().collect()
                } else {
                    answers
                };
                fx.push(Effect::Invoke { call, answers });
            }
            Effect::Respond {
                call,
                content,
                is_error,
                kind,
            } => {
                release(state, Some(call), fx, &mut written);
                fx.push(Effect::Respond {
                    call,
                    content,
                    is_error,
                    kind,
                });
            }
            Effect::Inquire { call, mut backend } => {
                // The clone starts from what the stream holds.
                backend.cloned_events = written;
                fx.push(Effect::Inquire { call, backend });
            }
            e @ (Effect::AskPermission { .. }
            | Effect::AskDelivery { .. }
            | Effect::Prompt { .. }) => fx.push(e),
        }
    }

    // And the faults that change what the turn remembers.
    let (Some((call, question)), Some(key)) = (in_play, key) else {
        return Ok(());
    };
    let responded_non_answer = fx[start..].iter().any(|e| match e {
        Effect::Respond { call: c, kind, .. } if *c == call => non_answer(*kind),
        _ => false,
    });
    let Some(turn) = c.turn_state_mut() else {
        return Ok(());
    };
    if let Some(value) = remembered {
        let secret = routing::is_secret(&question, &rules);
        let offered = routing::remember_offered(&question, &rules);
        let gate_off = Rules {
            persistence_gate: rules.persistence_gate && !faults.ignore_persistence_gate,
            ..rules
        };
        let faulty_offered =
            routing::remember_offered(&question, &gate_off) || (faults.cache_secret && secret);
        if faulty_offered {
            if faults.shared_cache_maps {
                // What the coordinator wrote goes to the other map.
                let answers = turn.cache.tool_answers_mut();
                match cached_before {
                    Some(before) => answers.insert(key.clone(), before),
                    None => answers.shift_remove(&key),
                };
                turn.cache
                    .permission_decisions_mut()
                    .insert(key.clone(), value);
            } else if !offered {
                turn.cache.tool_answers_mut().insert(key.clone(), value);
            }
        }
    }
    if faults.cache_cancelled && responded_non_answer {
        turn.cache.tool_answers_mut().insert(key, Value::Null);
    }
    Ok(())
}

/// The question a step is about and its call: the one a tool asks, or the
/// one whose answer (or non-answer) comes in.
fn in_play(c: &Coordinator, input: &Input) -> Option<(usize, Question)> {
    match input {
        Input::ToolReturned {
            call,
            outcome: Outcome::NeedsInput { question },
            ..
        } => Some((*call, Question::clone(question))),
        Input::PromptAnswered { call, .. }
        | Input::PromptCancelled { call, .. }
        | Input::PromptFailed { call, .. }
        | Input::InquiryResult { call, .. }
        | Input::InquiryRestarted { call } => {
            c.view().awaited_question(*call).map(|q| (*call, q.clone()))
        }
        Input::BeginTurn { .. }
        | Input::BeginCycle { .. }
        | Input::ToolReturned { .. }
        | Input::DeliveryAnswered { .. }
        | Input::PermissionAnswered { .. }
        | Input::EndTurn { .. } => None,
    }
}

/// The prompt label configured for question `question_id` of call `call`'s
/// tool.
fn configured_label<'c>(c: &'c Coordinator, call: usize, question_id: &str) -> Option<&'c str> {
    let view = c.view();
    let tool = &view.executing.get(call)?.call.tool;
    let config = view.tools.get(tool)?.questions.get(question_id)?;
    config.prompt_label.as_deref()
}

/// Whether a tool response reports a non-answer (RFD 082 step 6).
fn non_answer(kind: ResponseKind) -> bool {
    match kind {
        ResponseKind::CancelledByUser | ResponseKind::InquiryFailed | ResponseKind::Refused(_) => {
            true
        }
        ResponseKind::ToolSuccess
        | ResponseKind::ToolError
        | ResponseKind::PermissionDenied
        | ResponseKind::UnknownTool
        | ResponseKind::ResultWithheld => false,
    }
}

/// The held-back request of `call` lands now, just before what closes it.
fn release(state: &mut FaultState, call: Option<usize>, fx: &mut Vec<Effect>, written: &mut usize) {
    let Some(call) = call else { return };
    if let Some(at) = state.held.iter().position(|(c, _)| *c == call) {
        let (_, request) = state.held.remove(at);
        *written += 1;
        fx.push(Effect::Persist(request));
    }
}

#[cfg(test)]
mod fault_matrix_tests;
