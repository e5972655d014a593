//! A complete conformance adapter, in Rust: it drives an implementation of
//! the recording lifecycle through a scenario, playing the environment the
//! scenario describes, and reports what happened as a log of
//! `conformance::Record`s.
//!
//! The implementation adapted here is this crate's `Coordinator` state
//! machine (inputs in, effects out), standing in for yours: replace
//! [`Driver::step`]'s calls into it with calls into your coordinator. The
//! environment — scripted tools, `ask_user`, the prompter, the inquiry
//! backend, the permission prompt and the scheduler — follows the README
//! ("Running your implementation on the vectors"), not the model's driver.
//!
//! ```text
//! cargo run --example conformance_adapter                  # vectors + generated, in process
//! cargo run --example conformance_adapter -- DIR           # vectors from DIR
//! inquiry-model conform --adapter 'target/debug/examples/conformance_adapter --serve'
//! inquiry-model conform --profile FILE --adapter '… --serve --amendment follow'
//! ```
//!
//! With `--amendment follow` it declares that it implements the amendment
//! `conform --profile FILE` announces, and runs each scenario under the
//! scenario's `amendment`; with `--amendment ignore` it declares it but runs
//! the base profile (an implementation of the unrevised RFD judged against
//! the revision).
//!
//! With `--serve` it speaks the JSON Lines protocol of
//! `spec/conform-protocol.md` on stdin/stdout, so `inquiry-model conform`
//! can run it like an adapter in any other language.

use std::collections::VecDeque;
use std::io::{BufRead, Write};
use std::sync::Arc;

use inquiry_model::conformance::{
    Implementation, ImplementationError, Invocation, Observed, Record, Remembered, ToolResponse,
    Vector, check_generated, check_vectors,
};
use inquiry_model::model::ask_user;
use inquiry_model::model::coordinator::{Coordinator, Effect, Input};
use inquiry_model::model::routing::InquiryErrorKind;
use inquiry_model::model::tool::{Answers, Outcome, ToolSource, inquiry_source_under};
use inquiry_model::profile::{ProfileName, ResponseForm, Rules};
use inquiry_model::scenario::{
    BackendReply, Finish, PermissionReply, Program, PrompterReply, Scenario, ScriptedAsk,
    executor_boundary,
};
use inquiry_model::wire::{EventKind, InquiryId, InquiryResponse};
use serde_json::{Value, json};

/// The adapter: an [`Implementation`] for the conformance runner.
pub struct CoordinatorAdapter;

impl Implementation for CoordinatorAdapter {
    fn run(&mut self, scenario: &Scenario) -> Result<Observed, ImplementationError> {
        Ok(Observed::from_records(drive(scenario)?))
    }
}

/// What `--serve` does with an amendment the runner announces (`--amendment
/// follow|ignore`; without the flag the adapter does not declare one and
/// is judged against the base profile).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AmendmentMode {
    /// Not declared: scenarios come without an amendment.
    Undeclared,
    /// Declared and followed: the scenario's `amendment` over its profile.
    Follow,
    /// Declared but not followed: an implementation of the base profile
    /// that claims the amendment (judged against it, it fails where the
    /// amendment changes something).
    Ignore,
}

/// Pending work of a cycle, in the order it arose (the README's scheduler).
enum Work {
    Invoke(usize, Answers),
    Prompt(usize, Option<InquiryId>, Value),
    Inquire(usize, String),
    Permission(usize),
}

/// A scripted tool's memory across the invocations of one call.
#[derive(Default)]
struct Script {
    accepted: Vec<String>,
    rejected: Vec<(String, u8)>,
}

struct Driver<'s> {
    s: &'s Scenario,
    /// The rules the implementation follows: the scenario's profile, amended
    /// by the scenario's `amendment` when it follows one.
    rules: Rules,
    coordinator: Coordinator,
    log: Vec<Record>,
    prompter: VecDeque<PrompterReply>,
    backend: VecDeque<BackendReply>,
    permissions: VecDeque<PermissionReply>,
    schedule: VecDeque<u32>,
    calls: Vec<(inquiry_model::model::coordinator::Call, Script)>,
    work: Vec<Work>,
}

/// Runs one scenario; the log of what happened.
pub fn drive(s: &Scenario) -> Result<Vec<Record>, ImplementationError> {
    let rules = s
        .rules()
        .map_err(|e| ImplementationError(format!("amendment: {}", e.message())))?;
    drive_under(s, rules)
}

/// Runs one scenario under `rules`; the log of what happened.
pub fn drive_under(s: &Scenario, rules: Rules) -> Result<Vec<Record>, ImplementationError> {
    if !inquiry_model::conformance::core_scenario(s) {
        return Err(ImplementationError(
            "this adapter covers the core scenario language only (conformance::core_scenario)"
                .to_owned(),
        ));
    }
    let configured = inquiry_model::scenario::configured_tools(s)
        .map_err(|e| ImplementationError(format!("configuration: {e}")))?;
    let tools = s
        .tools
        .iter()
        .filter_map(|(n, t)| Some((n.clone(), t.spec(n, configured.get(n)?))))
        .collect();
    let mut d = Driver {
        s,
        rules,
        coordinator: Coordinator::new(rules, s.tty, tools),
        log: Vec::new(),
        prompter: s.prompter.iter().cloned().collect(),
        backend: s.backend.iter().cloned().collect(),
        permissions: s.permissions.iter().copied().collect(),
        schedule: s.schedule.iter().copied().collect(),
        calls: Vec::new(),
        work: Vec::new(),
    };
    for turn in &s.turns {
        d.step(Input::BeginTurn {
            content: turn.user.clone(),
        })?;
        for cycle in &turn.cycles {
            d.calls = cycle
                .iter()
                .map(|c| (c.clone(), Script::default()))
                .collect();
            d.step(Input::BeginCycle {
                calls: cycle.clone(),
            })?;
            while !d.work.is_empty() {
                let pick = d
                    .schedule
                    .pop_front()
                    .map(|c| c as usize % d.work.len())
                    .unwrap_or(0);
                let item = d.work.remove(pick);
                let input = d.perform(item);
                d.step(input)?;
            }
        }
        let (tool_answers, permission_decisions) = match d.coordinator.turn_state() {
            Some(t) => (
                t.cache.tool_answers().keys().cloned().collect(),
                t.cache.permission_decisions().keys().cloned().collect(),
            ),
            None => (Vec::new(), Vec::new()),
        };
        d.log.push(Record::TurnEnded(Remembered {
            tool_answers,
            permission_decisions,
        }));
        d.step(Input::EndTurn {
            content: "done".to_owned(),
        })?;
    }
    Ok(d.log)
}

impl Driver<'_> {
    /// One input into the implementation; its effects become records or
    /// pending work.
    fn step(&mut self, input: Input) -> Result<(), ImplementationError> {
        let effects = self
            .coordinator
            .handle(input)
            .map_err(|e| ImplementationError(e.to_string()))?;
        for effect in effects {
            match effect {
                Effect::Persist(event) => {
                    // What a writer of this profile puts on disk: the flat
                    // legacy form for answered responses before RFD 082.
                    let flat = matches!(self.rules.response_form, ResponseForm::Flat)
                        && matches!(
                            event.kind,
                            EventKind::InquiryResponse(InquiryResponse::Answered { .. })
                        );
                    let line = match (flat, serde_json::to_value(&event)) {
                        (true, Ok(Value::Object(mut m))) => {
                            m.shift_remove("outcome");
                            Value::Object(m).to_string()
                        }
                        _ => serde_json::to_string(&event)
                            .map_err(|e| ImplementationError(e.to_string()))?,
                    };
                    self.log.push(Record::PersistedLine(line));
                }
                Effect::Invoke { call, answers } => self.work.push(Work::Invoke(call, answers)),
                Effect::AskPermission { call } => self.work.push(Work::Permission(call)),
                // Outside the core language (`result = "ask"`): refused in
                // `drive`, so no tool here ever asks.
                Effect::AskDelivery { call } => {
                    return Err(ImplementationError(format!(
                        "call {call}: result delivery prompts are not covered"
                    )));
                }
                Effect::Prompt {
                    call,
                    inquiry_id,
                    presentation,
                } => {
                    let shown = serde_json::to_value(&presentation).unwrap_or(Value::Null);
                    self.work.push(Work::Prompt(call, inquiry_id, shown));
                }
                Effect::Inquire { call, backend } => self
                    .work
                    .push(Work::Inquire(call, backend.inquiry_id.clone())),
                Effect::Resolved { .. } => {}
                Effect::Respond {
                    call,
                    content,
                    is_error,
                    kind,
                } => self.log.push(Record::Responded(ToolResponse {
                    tool_call_id: self.calls[call].0.id.clone(),
                    tool: self.calls[call].0.tool.clone(),
                    is_error,
                    kind,
                    content,
                })),
            }
        }
        Ok(())
    }

    /// The environment does one piece of work and answers with an input.
    fn perform(&mut self, item: Work) -> Input {
        match item {
            Work::Invoke(call, answers) => {
                let (c, script) = &mut self.calls[call];
                let setup = &self.s.tools[&c.tool];
                // RFD 083 "Built-in aliasing": found by the config key; an
                // alias has no executor and its call fails.
                let executor = setup.executor(&c.tool);
                let answers = match executor {
                    Err(_) | Ok(ToolSource::Mcp) => Answers::default(),
                    Ok(ToolSource::Builtin { .. } | ToolSource::Local) => answers,
                };
                self.log.push(Record::Invoked(Invocation {
                    tool_call_id: c.id.clone(),
                    tool: c.tool.clone(),
                    answers: serde_json::to_value(&answers).unwrap_or(Value::Null),
                }));
                let outcome = match (&executor, &setup.program) {
                    (Err(_), _) => Outcome::Error {
                        message: format!("{}: not found", c.tool),
                        transient: false,
                    },
                    (Ok(_), Program::Script { asks, finish }) => {
                        scripted(&c.tool, asks, *finish, &answers, script)
                    }
                    (Ok(_), Program::AskUser) => ask_user::execute(&c.arguments, &answers),
                    // Outside the core language: refused in `drive`.
                    (Ok(_), Program::Local { .. }) => Outcome::Error {
                        message: format!("{}: local programs are not covered", c.tool),
                        transient: false,
                    },
                };
                // What crosses the executor boundary (a question ID the
                // rules refuse becomes the tool's error).
                let outcome = executor_boundary(&self.rules, &c.tool, outcome);
                let source = executor.unwrap_or(ToolSource::Local);
                Input::ToolReturned {
                    call,
                    outcome,
                    // Before RFD 082 the source was the tool's own name
                    // (the profile's `provenance` switch).
                    source: inquiry_source_under(self.rules.provenance, source, &c.tool),
                }
            }
            Work::Prompt(call, inquiry_id, shown) => {
                self.log.push(Record::Prompted {
                    tool_call_id: self.calls[call].0.id.clone(),
                    presentation: shown,
                });
                match self.prompter.pop_front().unwrap_or(PrompterReply::Eof) {
                    PrompterReply::Answer { value, remember } => Input::PromptAnswered {
                        call,
                        inquiry_id,
                        answer: value,
                        remember,
                    },
                    PrompterReply::CtrlC | PrompterReply::Eof => {
                        Input::PromptCancelled { call, inquiry_id }
                    }
                    // The coordinator's cancellation table decides what a
                    // prompter failure records (RFD 082 step 6: `user`).
                    PrompterReply::Failure { failure } => Input::PromptFailed {
                        call,
                        inquiry_id,
                        failure,
                    },
                }
            }
            Work::Inquire(call, inquiry_id) => {
                let result = match self.backend.pop_front() {
                    Some(BackendReply::Answer { value }) => {
                        Ok(json!({"inquiry_id": inquiry_id, "answer": value}))
                    }
                    Some(BackendReply::Raw { structured }) => Ok(structured),
                    Some(BackendReply::Error { error }) => Err(error),
                    // Outside the core language: refused in `drive`.
                    Some(BackendReply::Cancelled { .. }) => Err(InquiryErrorKind::Cancelled),
                    None => Err(InquiryErrorKind::Other),
                };
                Input::InquiryResult { call, result }
            }
            Work::Permission(call) => {
                let (allow, remember) = match self.permissions.pop_front() {
                    Some(PermissionReply::Allow { remember }) => (true, remember),
                    Some(PermissionReply::Deny { remember }) => (false, remember),
                    None => (false, false),
                };
                Input::PermissionAnswered {
                    call,
                    allow,
                    remember,
                }
            }
        }
    }
}

/// The README's scripted tool.
fn scripted(
    name: &str,
    asks: &[ScriptedAsk],
    finish: Finish,
    answers: &Answers,
    state: &mut Script,
) -> Outcome {
    for ask in asks {
        let id = &ask.question.id;
        if state.accepted.contains(id) {
            continue;
        }
        if answers.contains_key(id) {
            let seen = match state.rejected.iter_mut().find(|(q, _)| q == id) {
                Some((_, n)) => n,
                None => {
                    state.rejected.push((id.clone(), 0));
                    &mut state.rejected.last_mut().expect("just pushed").1
                }
            };
            if *seen < ask.reject_first {
                *seen += 1;
            } else {
                state.accepted.push(id.clone());
                continue;
            }
        }
        return Outcome::NeedsInput {
            question: Arc::clone(&ask.question),
        };
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

/// `--serve`: the JSON Lines protocol on stdin/stdout.
fn serve(mode: AmendmentMode) -> i32 {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { return 2 };
        if line.trim().is_empty() {
            continue;
        }
        let msg: Value = match serde_json::from_str(&line) {
            Ok(v) => v,
            Err(e) => json!({"type": "bad", "error": e.to_string()}),
        };
        let id = msg.get("id").cloned().unwrap_or(Value::Null);
        let reply = match msg.get("type").and_then(Value::as_str) {
            Some("init") => {
                let mut ok = json!({"type": "init_ok", "in_reply_to": id,
                "name": "conformance_adapter (Coordinator)", "profiles": ["legacy", "rfd082", "rfd083"],
                // It refuses scenarios outside the core language (see
                // `drive`), so it says so and is not sent them.
                "language": "core"});
                if mode != AmendmentMode::Undeclared && msg.get("amendment").is_some() {
                    ok["amendment"] = json!(true);
                }
                ok
            }
            Some("run") => match serde_json::from_value::<Scenario>(
                msg.get("scenario").cloned().unwrap_or(Value::Null),
            )
            .map_err(|e| ImplementationError(format!("not a scenario: {e}")))
            .and_then(|s| match mode {
                AmendmentMode::Undeclared | AmendmentMode::Follow => drive(&s),
                AmendmentMode::Ignore => drive_under(&s, s.profile.rules()),
            }) {
                Ok(log) => json!({"type": "run_ok", "in_reply_to": id, "log": log}),
                Err(e) => json!({"type": "error", "in_reply_to": id, "text": e.0}),
            },
            _ => {
                json!({"type": "error", "in_reply_to": id, "text": format!("unexpected message: {line}")})
            }
        };
        if writeln!(out, "{reply}").and_then(|()| out.flush()).is_err() {
            return 2;
        }
    }
    0
}

/// In process: the vectors of `dir`, then 200 generated scenarios per profile.
fn check_in_process(dir: &str) -> i32 {
    let mut vectors: Vec<Vector> = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        eprintln!("{dir}: cannot read the vectors");
        return 2;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "json") {
            match std::fs::read_to_string(&p)
                .map_err(|e| e.to_string())
                .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
            {
                Ok(v) => vectors.push(v),
                Err(e) => {
                    eprintln!("{}: {e}", p.display());
                    return 2;
                }
            }
        }
    }
    let mut failed = 0;
    for f in check_vectors(&mut CoordinatorAdapter, &vectors) {
        println!("FAIL {f}");
        failed += 1;
    }
    println!("vectors: {} run, {failed} failed", vectors.len());
    for p in ProfileName::ALL {
        let r = check_generated(&mut CoordinatorAdapter, p, 200, 1);
        match r.failure {
            None => println!("generated {p}: {} passed", r.cases),
            Some(f) => {
                println!("FAIL {f}");
                failed += 1;
            }
        }
    }
    i32::from(failed > 0)
}

#[allow(dead_code)] // Also compiled into tests/suite/conformance/runner.rs, which has its own main.
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match args.first().map(String::as_str) {
        Some("--serve") => serve(
            match (
                args.get(1).map(String::as_str),
                args.get(2).map(String::as_str),
            ) {
                (Some("--amendment"), Some("follow")) => AmendmentMode::Follow,
                (Some("--amendment"), Some("ignore")) => AmendmentMode::Ignore,
                (None, _) => AmendmentMode::Undeclared,
                (Some(other), _) => {
                    eprintln!(
                        "conformance_adapter: unknown argument {other}; --serve [--amendment follow|ignore]"
                    );
                    std::process::exit(2);
                }
            },
        ),
        Some(dir) => check_in_process(dir),
        None => check_in_process(concat!(env!("CARGO_MANIFEST_DIR"), "/spec/vectors")),
    };
    std::process::exit(code);
}
