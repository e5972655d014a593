//! A second, deliberately small implementation of the recording lifecycle
//! for the `rfd082` and `rfd083` profiles, written from the RFD tables
//! without the coordinator, the routing module or the scenario driver. It
//! shares only the environment (the scenario language, the `ask_user` tool
//! body, the wire types that serialize events) and drives itself through a
//! scenario with the documented scheduler (README "Running your
//! implementation on the vectors").
//!
//! Each decision is one `match` over the RFD table it comes from:
//! resolution order and routes (RFD 082 steps 2–4, RFD 083 "Resolution
//! precedence"), cancellation reasons and tool responses (RFD 082 step 6),
//! persisted shapes (RFD 082 step 5), cache eligibility (RFD 083 step 6).

use inquiry_model::conformance::{Implementation, ImplementationError, Observed, Recorder};
use inquiry_model::model::ask_user;
use inquiry_model::model::config::ToolConfig;
use inquiry_model::model::coordinator::{Call, ResponseKind, RunPolicy};
use inquiry_model::model::routing::Refusal;
use inquiry_model::model::tool::Map;
use inquiry_model::model::tool::{
    AnswerReusePolicy, AnswerType, BuiltinHook, Outcome, Question, QuestionTarget, ToolSource,
};
use inquiry_model::profile::ProfileName;
use inquiry_model::scenario::{
    BackendReply, Finish, PermissionReply, Program, PrompterReply, Scenario, ScriptedAsk,
    configured_tools,
};
use inquiry_model::wire::{
    CancellationReason, Event, EventKind, InquiryId, InquiryRequest, InquiryResponse,
    InquirySource, Opaque, ToolCallRequest, ToolCallResponse,
};
use serde_json::{Value, json};
use std::collections::VecDeque;

/// The implementation.
pub struct Second;

/// Pending work, in the order it arose.
enum Work {
    Invoke(usize),
    Prompt(usize, Question, InquiryId),
    Inquire(usize, Question, InquiryId),
    Permission(usize),
}

/// One call of the cycle.
struct Running {
    call: Call,
    answers: Map<String, Value>,
    accepted: Vec<String>,
    rejections: Map<String, u8>,
}

struct Run<'s> {
    s: &'s Scenario,
    /// Each tool's configuration, resolved by the environment's
    /// configuration code (built-ins under the scenario's layer).
    config: Map<String, ToolConfig>,
    v083: bool,
    rec: Recorder,
    prompter: VecDeque<PrompterReply>,
    backend: VecDeque<BackendReply>,
    permissions: VecDeque<PermissionReply>,
    schedule: VecDeque<u32>,
    attempts: Map<(String, String), u32>,
    tool_answers: Map<String, Value>,
    permission_decisions: Map<String, Value>,
    calls: Vec<Running>,
    work: Vec<Work>,
}

/// Why a question went unanswered (RFD 082 step 6 table's rows).
#[derive(Clone, Copy)]
enum Why {
    Prompt,
    Backend(Option<&'static str>),
    NoTty,
    Assistant,
    BadStatic,
}

impl Implementation for Second {
    fn run(&mut self, s: &Scenario) -> Result<Observed, ImplementationError> {
        let v083 = match s.profile {
            ProfileName::Rfd083 => true,
            ProfileName::Rfd082 => false,
            ProfileName::Legacy => {
                return Err(ImplementationError("legacy is not implemented".into()));
            }
        };
        let config =
            configured_tools(s).map_err(|e| ImplementationError(format!("configuration: {e}")))?;
        let mut r = Run {
            s,
            config,
            v083,
            rec: Recorder::new(),
            prompter: s.prompter.iter().cloned().collect(),
            backend: s.backend.iter().cloned().collect(),
            permissions: s.permissions.iter().copied().collect(),
            schedule: s.schedule.iter().copied().collect(),
            attempts: Map::default(),
            tool_answers: Map::default(),
            permission_decisions: Map::default(),
            calls: Vec::new(),
            work: Vec::new(),
        };
        for turn in &s.turns {
            r.attempts.clear();
            r.tool_answers.clear();
            r.permission_decisions.clear();
            r.persist(EventKind::TurnStart);
            for cycle in &turn.cycles {
                r.cycle(cycle)?;
            }
            r.rec.turn_ended(
                r.tool_answers.keys().cloned(),
                r.permission_decisions.keys().cloned(),
            );
        }
        Ok(r.rec.finish())
    }
}

impl Run<'_> {
    fn persist(&mut self, kind: EventKind) {
        let v = serde_json::to_value(Event::new(kind)).unwrap();
        self.rec.persisted(&v);
    }

    fn cycle(&mut self, cycle: &[Call]) -> Result<(), ImplementationError> {
        self.calls = cycle
            .iter()
            .map(|c| Running {
                call: c.clone(),
                answers: Map::default(),
                accepted: Vec::new(),
                rejections: Map::default(),
            })
            .collect();
        for c in cycle {
            self.persist(EventKind::ToolCallRequest(ToolCallRequest {
                id: c.id.clone(),
                name: c.tool.clone(),
                arguments: Some(Opaque::from_value(&c.arguments)),
            }));
        }
        for (i, c) in cycle.iter().enumerate() {
            let tool = c.tool.clone();
            let Some(config) = self.config.get(&tool) else {
                self.respond(i, ResponseKind::UnknownTool, "no such tool".into());
                continue;
            };
            match (
                config.run,
                self.permission_decisions
                    .get(&format!("{tool}.__permission__")),
            ) {
                (RunPolicy::Unattended, _) => self.work.push(Work::Invoke(i)),
                (RunPolicy::Ask, None) => self.work.push(Work::Permission(i)),
                (RunPolicy::Ask, Some(v)) if v == "y" => self.work.push(Work::Invoke(i)),
                (RunPolicy::Ask, Some(_)) => {
                    self.respond(i, ResponseKind::PermissionDenied, "denied".into())
                }
            }
        }
        // The documented scheduler: the pending item at `choice % pending`
        // runs next; the oldest once the choices run out.
        while !self.work.is_empty() {
            let pick = self
                .schedule
                .pop_front()
                .map(|c| c as usize % self.work.len())
                .unwrap_or(0);
            let w = self.work.remove(pick);
            self.perform(w)?;
        }
        Ok(())
    }

    fn respond(&mut self, i: usize, kind: ResponseKind, content: String) {
        let is_error = match kind {
            // Never produced here (outside the core language), but its class
            // is the same as a cancelled prompt's.
            ResponseKind::ToolSuccess
            | ResponseKind::CancelledByUser
            | ResponseKind::ResultWithheld => false,
            ResponseKind::ToolError
            | ResponseKind::InquiryFailed
            | ResponseKind::Refused(_)
            | ResponseKind::PermissionDenied
            | ResponseKind::UnknownTool => true,
        };
        let c = &self.calls[i].call;
        let (id, tool) = (c.id.clone(), c.tool.clone());
        self.persist(EventKind::ToolCallResponse(ToolCallResponse {
            id: id.clone(),
            content: Some(Opaque::from_value(&Value::String(content.clone()))),
            is_error: Some(is_error),
        }));
        self.rec.responded(&id, &tool, kind, is_error, &content);
    }

    fn perform(&mut self, w: Work) -> Result<(), ImplementationError> {
        match w {
            Work::Permission(i) => {
                let reply = self
                    .permissions
                    .pop_front()
                    .unwrap_or(PermissionReply::Deny { remember: false });
                let (allow, remember) = match reply {
                    PermissionReply::Allow { remember } => (true, remember),
                    PermissionReply::Deny { remember } => (false, remember),
                };
                if remember {
                    let key = format!("{}.__permission__", self.calls[i].call.tool);
                    self.permission_decisions
                        .insert(key, json!(if allow { "y" } else { "n" }));
                }
                if allow {
                    self.work.push(Work::Invoke(i));
                } else {
                    self.respond(i, ResponseKind::PermissionDenied, "denied".into());
                }
            }
            Work::Invoke(i) => self.invoke(i)?,
            Work::Prompt(i, q, id) => {
                match self.prompter.pop_front().unwrap_or(PrompterReply::Eof) {
                    PrompterReply::Answer { value, remember } => {
                        self.answered(i, &q, id, value, remember)
                    }
                    // RFD 082 step 6: every prompter failure is a user
                    // cancellation (decision "Prompter failures and the cancellation token").
                    PrompterReply::CtrlC | PrompterReply::Eof | PrompterReply::Failure { .. } => {
                        self.fail(i, id, Why::Prompt)
                    }
                }
            }
            Work::Inquire(i, q, id) => {
                let reply = self.backend.pop_front();
                // RFD 028: the structured response must carry this inquiry's
                // ID and an answer of the question's type.
                let structured = match reply {
                    None => Err(None),
                    Some(BackendReply::Error { error }) => Err(Some(error)),
                    Some(BackendReply::Answer { value }) => {
                        Ok(json!({"inquiry_id": id.as_str(), "answer": value}))
                    }
                    Some(BackendReply::Raw { structured }) => Ok(structured),
                    Some(BackendReply::Cancelled { cause }) => {
                        return Err(ImplementationError(format!(
                            "the second implementation does not model the token cause {cause:?} (see `conformance::core_scenario`)"
                        )));
                    }
                };
                let answer = match &structured {
                    Ok(Value::Object(m)) => match (m.get("inquiry_id"), m.get("answer")) {
                        (Some(Value::String(x)), Some(a)) if x == id.as_str() && fits(&q, a) => {
                            Some(a.clone())
                        }
                        _ => None,
                    },
                    Ok(_) | Err(_) => None,
                };
                use inquiry_model::model::routing::InquiryErrorKind as K;
                match (answer, structured) {
                    (Some(a), _) => self.answered(i, &q, id, a, false),
                    (None, Err(Some(K::Cancelled))) => {
                        self.fail(i, id, Why::Backend(Some("cancelled")))
                    }
                    (None, _) => self.fail(i, id, Why::Backend(None)),
                }
            }
        }
        Ok(())
    }

    fn invoke(&mut self, i: usize) -> Result<(), ImplementationError> {
        let tool = self.calls[i].call.tool.clone();
        let setup = &self.s.tools[&tool];
        // RFD 083 "Built-in aliasing": the executor is found by the config
        // key; an alias has none and its call fails.
        let Ok(source) = setup.executor(&tool) else {
            let id = self.calls[i].call.id.clone();
            self.rec.invoked(&id, &tool, json!({}));
            self.respond(i, ResponseKind::ToolError, format!("{tool}: not found"));
            return Ok(());
        };
        let answers = match source {
            ToolSource::Mcp => Map::default(),
            ToolSource::Builtin { .. } | ToolSource::Local => self.calls[i].answers.clone(),
        };
        let id = self.calls[i].call.id.clone();
        self.rec
            .invoked(&id, &tool, serde_json::to_value(&answers).unwrap());
        let outcome = match &setup.program {
            Program::Script { asks, finish } => {
                script(&tool, asks, *finish, &answers, &mut self.calls[i])
            }
            Program::AskUser => ask_user::execute(&self.calls[i].call.arguments, &answers),
            Program::Local { .. } => {
                return Err(ImplementationError(
                    "the second implementation does not model local programs (see `conformance::core_scenario`)".to_owned(),
                ));
            }
        };
        match outcome {
            Outcome::Success { content } => self.respond(i, ResponseKind::ToolSuccess, content),
            Outcome::Error { message, .. } => self.respond(i, ResponseKind::ToolError, message),
            Outcome::NeedsInput { question } => {
                let by = match source {
                    ToolSource::Builtin {
                        hook: BuiltinHook::Assistant,
                    } => InquirySource::Assistant,
                    ToolSource::Builtin {
                        hook: BuiltinHook::Default,
                    }
                    | ToolSource::Local
                    | ToolSource::Mcp => InquirySource::tool(&tool),
                };
                self.needs_input(i, std::sync::Arc::unwrap_or_clone(question), by);
            }
        }
        Ok(())
    }

    /// RFD 082 "Recording lifecycle".
    fn needs_input(&mut self, i: usize, mut q: Question, by: InquirySource) {
        if !self.v083 {
            // Fields 083 adds read as their defaults under 082.
            q.exclusive = false;
            q.persistence = AnswerReusePolicy::Turn;
        }
        let (call_id, tool) = (
            self.calls[i].call.id.clone(),
            self.calls[i].call.tool.clone(),
        );
        let n = self
            .attempts
            .entry((call_id.clone(), q.id.clone()))
            .or_insert(0);
        *n += 1;
        let id = InquiryId::new(&call_id, &q.id, *n);
        let mut persisted = q.to_inquiry_question();
        if !self.v083 {
            persisted.context = None;
        }
        // Step 2: record first.
        self.persist(EventKind::InquiryRequest(Box::new(InquiryRequest {
            id: id.clone(),
            source: by,
            question: persisted,
        })));
        let config = self.config[&tool]
            .questions
            .get(&q.id)
            .cloned()
            .unwrap_or_default();
        let secret = matches!(q.answer_type, AnswerType::Secret);
        let cacheable = !secret && (q.persistence == AnswerReusePolicy::Turn || !self.v083);
        let human_only = secret || q.exclusive;
        let key = format!("{tool}.{}", q.id);
        // Cached → static → guards → route.
        if let (true, Some(v)) = (cacheable, self.tool_answers.get(&key).cloned()) {
            return self.answered(i, &q, id, v, false);
        }
        match (&config.answer, config.target, self.s.tty, human_only) {
            (Some(a), _, _, _) if self.v083 && !fits(&q, a) => self.fail(i, id, Why::BadStatic),
            (Some(a), _, _, _) => self.answered(i, &q, id, a.clone(), false),
            (None, QuestionTarget::User, true, _) => {
                let label = config
                    .prompt_label
                    .filter(|l| self.v083 && !l.trim().is_empty());
                let input = match q.answer_type {
                    AnswerType::Boolean => "boolean",
                    AnswerType::Select { .. } => "select",
                    AnswerType::Text => "text",
                    AnswerType::Secret => "password",
                };
                let shown = json!({
                    "input": input,
                    "label": label,
                    "echo": !secret,
                    "remember_affordance": matches!(q.answer_type, AnswerType::Boolean)
                        && q.persistence == AnswerReusePolicy::Turn,
                });
                self.rec.prompted(&call_id, &shown);
                self.work.push(Work::Prompt(i, q, id));
            }
            (None, QuestionTarget::User, false, true) => self.fail(i, id, Why::NoTty),
            (None, QuestionTarget::Assistant, _, true) => self.fail(i, id, Why::Assistant),
            (None, QuestionTarget::User, false, false)
            | (None, QuestionTarget::Assistant, _, false) => {
                self.work.push(Work::Inquire(i, q, id))
            }
        }
    }

    /// Step 5: answered or redacted; remembered only from the prompter,
    /// for a boolean the cache may hold; the tool runs again.
    fn answered(&mut self, i: usize, q: &Question, id: InquiryId, v: Value, remember: bool) {
        let secret = matches!(q.answer_type, AnswerType::Secret);
        let response = if secret {
            InquiryResponse::Redacted { id }
        } else {
            InquiryResponse::Answered {
                id,
                answer: v.clone(),
            }
        };
        self.persist(EventKind::InquiryResponse(response));
        let offered = matches!(q.answer_type, AnswerType::Boolean)
            && (q.persistence == AnswerReusePolicy::Turn || !self.v083);
        if remember && offered {
            let key = format!("{}.{}", self.calls[i].call.tool, q.id);
            self.tool_answers.insert(key, v.clone());
        }
        self.calls[i].answers.insert(q.id.clone(), v);
        self.work.push(Work::Invoke(i));
    }

    /// Step 6: `Cancelled` with the reason of the table; the tool response
    /// as before RFD 082.
    fn fail(&mut self, i: usize, id: InquiryId, why: Why) {
        let (reason, kind) = match why {
            Why::Prompt => (CancellationReason::User, ResponseKind::CancelledByUser),
            Why::Backend(Some(_)) => (CancellationReason::User, ResponseKind::InquiryFailed),
            Why::Backend(None) => (
                CancellationReason::BackendError,
                ResponseKind::InquiryFailed,
            ),
            Why::NoTty => (
                CancellationReason::NoPromptBackend,
                ResponseKind::Refused(Refusal::NoTty),
            ),
            Why::Assistant => (
                CancellationReason::AssistantRoutingDenied,
                ResponseKind::Refused(Refusal::AssistantTarget),
            ),
            Why::BadStatic => (
                CancellationReason::InvalidStaticAnswer,
                ResponseKind::Refused(Refusal::InvalidStaticAnswer),
            ),
        };
        self.persist(EventKind::InquiryResponse(InquiryResponse::Cancelled {
            id,
            reason,
        }));
        self.respond(
            i,
            kind,
            "the question went unanswered (second implementation)".into(),
        );
    }
}

/// Whether an answer fits the question's type (RFD 083 step 6; RFD 028).
fn fits(q: &Question, a: &Value) -> bool {
    match (&q.answer_type, a) {
        (AnswerType::Boolean, Value::Bool(_)) => true,
        (AnswerType::Select { options }, Value::String(s)) => options.contains(s),
        (AnswerType::Text | AnswerType::Secret, Value::String(_)) => true,
        (
            AnswerType::Boolean | AnswerType::Select { .. } | AnswerType::Text | AnswerType::Secret,
            _,
        ) => false,
    }
}

/// The scripted tool of the scenario language (README): asks its questions
/// in order, rejecting the first `reject_first` answers of each, then ends.
fn script(
    name: &str,
    asks: &[ScriptedAsk],
    finish: Finish,
    answers: &Map<String, Value>,
    state: &mut Running,
) -> Outcome {
    for a in asks {
        let id = &a.question.id;
        if state.accepted.contains(id) {
            continue;
        }
        if !answers.contains_key(id) {
            return Outcome::NeedsInput {
                question: a.question.clone(),
            };
        }
        let n = state.rejections.entry(id.clone()).or_insert(0);
        if *n < a.reject_first {
            *n += 1;
            return Outcome::NeedsInput {
                question: a.question.clone(),
            };
        }
        state.accepted.push(id.clone());
    }
    match finish {
        Finish::Succeed => Outcome::Success {
            content: format!("{name} done"),
        },
        Finish::Fail { transient } => Outcome::Error {
            message: format!("{name} failed"),
            transient,
        },
    }
}
