//! The secret scan's walk over the question a call waits on: a tool that
//! quotes a secret answer in its next question puts the secret in the
//! coordinator's state for as long as that question waits for the prompter
//! or the inquiry backend.

use crate::check::Diagnostic;
use crate::invariants::{IN_COORDINATOR_STATE, StepChecker, check_step};
use crate::model::coordinator::Status;
use crate::scenario::{RunOptions, Scenario, run_observed};

/// The secret the user gives; the tool's next question quotes it.
const SECRET: &str = "swordfish42";

/// One unattended scripted tool `vault` asking a secret `token` (answered
/// by the prompter with [`SECRET`]), then a boolean `confirm` whose text
/// quotes the answer, routed to `target` (`user`: the prompter answers it;
/// `assistant`: the inquiry backend does).
fn quoting(target: &str) -> Scenario {
    serde_json::from_value(serde_json::json!({
        "profile": "rfd083",
        "tty": true,
        "tools": {"vault": {
            "run": "unattended",
            "questions": {"confirm": {"target": target}},
            "program": {"kind": "script", "asks": [
                {"question": {"id": "token", "text": "Token?",
                    "answer_type": {"type": "secret"}}},
                {"question": {"id": "confirm", "text": format!("Store {SECRET} as your token?"),
                    "answer_type": {"type": "boolean"}}}
            ]}}},
        "turns": [{"user": "go", "cycles": [[{"id": "c1", "tool": "vault"}]]}],
        "prompter": [
            {"reply": "answer", "value": SECRET},
            {"reply": "answer", "value": true}],
        "backend": [{"reply": "answer", "value": true}]
    }))
    .expect("the scenario reads")
}

/// What a call waits on with a question: `("prompter" | "backend",
/// question ID)`.
fn waiting_question(status: &Status) -> Option<(&'static str, &str)> {
    match status {
        Status::AwaitingPrompt { question, .. } => Some(("prompter", question.id.as_str())),
        Status::AwaitingBackend { question, .. } => Some(("backend", question.id.as_str())),
        Status::AwaitingPermission
        | Status::Running
        | Status::AwaitingDelivery { .. }
        | Status::Done => None,
    }
}

/// Whether `found` reports a secret in the coordinator's state.
fn in_state(found: &[Diagnostic]) -> bool {
    found.iter().any(|d| d.message == IN_COORDINATOR_STATE)
}

/// Rule: INV-SECRET-NEVER-PERSISTED — "A secret answer appears nowhere in
/// ... the coordinator's state (but the answers held for a running tool and
/// the configured static answers)": a question waiting for the prompter or
/// the backend is neither, so a secret its text quotes is in the state. The
/// stateless `check_step` and the incremental `StepChecker` report it in
/// the coordinator's state at exactly the steps where the call waits on
/// the quoting question (the secret answer itself is held for the tool,
/// where it may live), whichever of the two the question waits for.
#[test]
fn a_secret_quoted_by_a_waiting_question_is_found_in_the_coordinator_state() {
    for (target, waits) in [("user", "prompter"), ("assistant", "backend")] {
        let s = quoting(target);
        let mut checker = StepChecker::new();
        // Per step: (the quoting question waits, stateless finds it in the
        // state, incremental finds it in the state).
        let mut steps: Vec<(bool, bool, bool)> = Vec::new();
        let mut right_wait = false;
        let trace = run_observed(&s, RunOptions::default(), &mut |c, t| {
            let on: Vec<_> = c
                .view()
                .executing
                .iter()
                .filter_map(|e| waiting_question(&e.status))
                .filter(|(_, id)| *id == "confirm")
                .collect();
            let waiting = !on.is_empty();
            right_wait |= on.iter().any(|(what, _)| *what == waits);
            steps.push((
                waiting,
                in_state(&check_step(c, t)),
                in_state(&{
                    let mut found = Vec::new();
                    checker.step(c, t, &mut found);
                    found
                }),
            ));
        })
        .expect("the scenario runs");
        assert!(right_wait, "{target}: confirm never waited on the {waits}");
        assert!(
            trace.invocations.len() >= 3,
            "{target}: the tool asked both questions"
        );
        let waiting: Vec<usize> = (0..steps.len()).filter(|&k| steps[k].0).collect();
        assert!(!waiting.is_empty(), "{target}: {steps:?}");
        for (k, &(waiting, stateless, incremental)) in steps.iter().enumerate() {
            assert_eq!(stateless, waiting, "{target}: check_step at step {k}");
            assert_eq!(incremental, waiting, "{target}: StepChecker at step {k}");
        }
    }
}
