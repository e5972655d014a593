//! A hard quit's observation, written by hand per profile (rule
//! `LIFE-TOKEN-CAUSE`): RFD 082 step 6 leaves the `ToolCallResponse`
//! "unchanged" and a hard quit stops the process, so the cancelled
//! inquiry's record is the last thing written and no call is answered —
//! under `legacy` as under `rfd082`. Before RFD 082 a cancelled inquiry
//! writes no response, so the legacy stream stops at the request.

use crate::conformance::{Observed, compare};
use crate::scenario::{self, Scenario};
use serde_json::{Value, json};

fn boolean_tool() -> Value {
    json!({"source": {"kind": "local"}, "run": "unattended", "program": {"kind": "script", "asks": [
        {"question": {"id": "confirm", "text": "Proceed?", "answer_type": {"type": "boolean"}}}
    ]}})
}

fn quit_scenario(profile: &str, parallel: bool) -> Scenario {
    let cycle = match parallel {
        true => json!([{"id": "call_1", "tool": "fs"}, {"id": "call_2", "tool": "fs"}]),
        false => json!([{"id": "call_1", "tool": "fs"}]),
    };
    serde_json::from_value(json!({
        "profile": profile, "tty": false,
        "tools": {"fs": boolean_tool()},
        "turns": [{"user": "go", "cycles": [cycle]}],
        "backend": [{"reply": "cancelled", "cause": "hard_quit"}]
    }))
    .expect("the scenario parses")
}

fn observed(s: &Scenario) -> Observed {
    Observed::of(&scenario::run(s).expect("the model runs it"))
}

fn expected(v: Value) -> Observed {
    serde_json::from_value(v).expect("the expected observation parses")
}

fn request(id: &str) -> Value {
    json!({"type": "inquiry_request", "id": id, "source": {"source": "tool", "name": "fs"},
        "question": {"text": "Proceed?", "answer_type": {"type": "boolean"}}})
}

fn invoked(call: &str) -> Value {
    json!({"tool_call_id": call, "tool": "fs", "answers": {}})
}

/// Rule: LIFE-TOKEN-CAUSE — legacy: the request is written, the cancelled
/// inquiry writes nothing (no response before RFD 082) and the call gets no
/// tool response: the LLM is never answered after a hard quit.
#[test]
fn a_legacy_hard_quit_answers_no_call() {
    let s = quit_scenario("legacy", false);
    let want = expected(json!({
        "stream": [
            {"type": "turn_start"},
            {"type": "tool_call_request", "id": "call_1", "name": "fs"},
            request("call_1.confirm"),
        ],
        "invocations": [invoked("call_1")],
        "tool_responses": [],
        "prompts": [],
        "remembered": []
    }));
    let got = observed(&s);
    assert_eq!(got, want);
    assert_eq!(compare(&s, &want, &got), None);
}

/// Rule: LIFE-TOKEN-CAUSE — legacy, two parallel calls: the quit cancels
/// the other open inquiry too, and neither call is answered.
#[test]
fn a_legacy_hard_quit_answers_neither_parallel_call() {
    let s = quit_scenario("legacy", true);
    let want = expected(json!({
        "stream": [
            {"type": "turn_start"},
            {"type": "tool_call_request", "id": "call_1", "name": "fs"},
            {"type": "tool_call_request", "id": "call_2", "name": "fs"},
            request("call_1.confirm"),
            request("call_2.confirm"),
        ],
        "invocations": [invoked("call_1"), invoked("call_2")],
        "tool_responses": [],
        "prompts": [],
        "remembered": []
    }));
    assert_eq!(observed(&s), want);
}

/// Rule: LIFE-TOKEN-CAUSE — rfd082, two parallel calls: each open inquiry
/// records `cancelled (user)`, and neither call is answered (the same
/// responses as legacy: none).
#[test]
fn an_rfd082_hard_quit_closes_both_inquiries_and_answers_no_call() {
    let s = quit_scenario("rfd082", true);
    let cancelled = |id: &str| json!({"type": "inquiry_response", "outcome": "cancelled", "id": id, "reason": "user"});
    let want = expected(json!({
        "stream": [
            {"type": "turn_start"},
            {"type": "tool_call_request", "id": "call_1", "name": "fs"},
            {"type": "tool_call_request", "id": "call_2", "name": "fs"},
            request("call_1.confirm.1"),
            request("call_2.confirm.1"),
            cancelled("call_1.confirm.1"),
            cancelled("call_2.confirm.1"),
        ],
        "invocations": [invoked("call_1"), invoked("call_2")],
        "tool_responses": [],
        "prompts": [],
        "remembered": []
    }));
    assert_eq!(observed(&s), want);
}
