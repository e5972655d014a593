//! insta snapshots of the trace of one scenario per routing path and per
//! cancellation reason, under every profile side by side, so a reviewer sees
//! what each stage persists and what the model is told.

use super::spec_common_tests as common;

use common::*;
use serde_json::{Value, json};

fn boolean_tool(extra: Value) -> Value {
    let mut t = json!({"source": {"kind": "local"}, "run": "unattended", "program": {"kind": "script", "asks": [
        {"question": {"id": "confirm", "text": "Apply the patch?", "answer_type": {"type": "boolean"}}}
    ]}});
    if let (Value::Object(t), Value::Object(e)) = (&mut t, extra) {
        t.extend(e);
    }
    t
}

fn secret_tool(extra: Value) -> Value {
    let mut t = json!({"run": "unattended", "program": {"kind": "script", "asks": [
        {"question": {"id": "passphrase", "text": "SSH key passphrase", "answer_type": {"type": "secret"}}}
    ]}});
    if let (Value::Object(t), Value::Object(e)) = (&mut t, extra) {
        t.extend(e);
    }
    t
}

fn exclusive_tool(extra: Value) -> Value {
    let mut t = json!({"run": "unattended", "program": {"kind": "script", "asks": [
        {"question": {"id": "drop", "text": "Drop the table?", "answer_type": {"type": "boolean"}, "exclusive": true}}
    ]}});
    if let (Value::Object(t), Value::Object(e)) = (&mut t, extra) {
        t.extend(e);
    }
    t
}

/// What the snapshot shows of a trace: the persisted stream as the profile
/// writes it, one event per line, and the model-visible outcome.
fn view(base: &Value) -> Value {
    let mut out = serde_json::Map::new();
    for profile in ["legacy", "rfd082", "rfd083"] {
        let mut s = base.clone();
        s["profile"] = json!(profile);
        let t = run(s);
        let stream: Vec<String> = t
            .persisted_json()
            .as_array()
            .expect("array")
            .iter()
            .map(|e| e.to_string())
            .collect();
        out.insert(
            profile.to_owned(),
            json!({
                "stream": stream,
                "prompts": t.prompts.iter().map(|p| p.presentation.render()).collect::<Vec<_>>(),
                "backend_calls": t.backend_calls.iter().map(|b| json!({
                    "inquiry_id": b.call.inquiry_id, "schema": b.call.schema()
                })).collect::<Vec<_>>(),
                "invocations": t.invocations.iter().map(|i| json!({
                    "call": i.tool_call_id, "n": i.invocation, "answers": i.answers
                })).collect::<Vec<_>>(),
                "tool_responses": t.tool_responses.iter().map(|r| json!({
                    "id": r.tool_call_id, "is_error": r.is_error, "content": r.content
                })).collect::<Vec<_>>(),
            }),
        );
    }
    Value::Object(out)
}

fn one_call(tool: Value, rest: Value) -> Value {
    let mut s = json!({
        "tools": {"t": tool},
        "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "t"}]]}]
    });
    if let (Value::Object(s), Value::Object(r)) = (&mut s, rest) {
        s.extend(r);
    }
    s
}

#[test]
fn route_cached() {
    let s = json!({
        "tools": {"t": boolean_tool(json!({}))},
        "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "t"}], [{"id": "call_2", "tool": "t"}]]}],
        "prompter": [{"reply": "answer", "value": true, "remember": true}]
    });
    insta::assert_json_snapshot!(view(&s));
}

#[test]
fn route_static() {
    let s = one_call(
        boolean_tool(json!({"questions": {"confirm": {"answer": true}}})),
        json!({}),
    );
    insta::assert_json_snapshot!(view(&s));
}

#[test]
fn route_prompter() {
    let s = one_call(
        boolean_tool(json!({})),
        json!({"prompter": [{"reply": "answer", "value": false}]}),
    );
    insta::assert_json_snapshot!(view(&s));
}

#[test]
fn route_backend_without_tty() {
    let s = one_call(
        boolean_tool(json!({})),
        json!({"tty": false, "backend": [{"reply": "answer", "value": true}]}),
    );
    insta::assert_json_snapshot!(view(&s));
}

#[test]
fn route_backend_assistant_target() {
    let s = one_call(
        boolean_tool(json!({"questions": {"confirm": {"target": "assistant"}}})),
        json!({"backend": [{"reply": "answer", "value": true}]}),
    );
    insta::assert_json_snapshot!(view(&s));
}

#[test]
fn reason_user_ctrl_c() {
    let s = one_call(
        boolean_tool(json!({})),
        json!({"prompter": [{"reply": "ctrl_c"}]}),
    );
    insta::assert_json_snapshot!(view(&s));
}

#[test]
fn reason_user_eof() {
    let s = one_call(
        boolean_tool(json!({})),
        json!({"prompter": [{"reply": "eof"}]}),
    );
    insta::assert_json_snapshot!(view(&s));
}

#[test]
fn reason_user_backend_cancellation_token() {
    let s = one_call(
        boolean_tool(json!({})),
        json!({"tty": false, "backend": [{"reply": "error", "error": "cancelled"}]}),
    );
    insta::assert_json_snapshot!(view(&s));
}

#[test]
fn reason_backend_error() {
    let s = one_call(
        boolean_tool(json!({})),
        json!({"tty": false, "backend": [{"reply": "answer", "value": "not a boolean"}]}),
    );
    insta::assert_json_snapshot!(view(&s));
}

#[test]
fn reason_no_prompt_backend_secret() {
    let s = one_call(
        secret_tool(json!({})),
        json!({"tty": false, "backend": [{"reply": "answer", "value": "leak"}]}),
    );
    insta::assert_json_snapshot!(view(&s));
}

#[test]
fn reason_no_prompt_backend_exclusive() {
    let s = one_call(
        exclusive_tool(json!({})),
        json!({"tty": false, "backend": [{"reply": "answer", "value": true}]}),
    );
    insta::assert_json_snapshot!(view(&s));
}

#[test]
fn reason_assistant_routing_denied_secret() {
    let s = one_call(
        secret_tool(json!({"questions": {"passphrase": {"target": "assistant"}}})),
        json!({"backend": [{"reply": "answer", "value": "leak"}]}),
    );
    insta::assert_json_snapshot!(view(&s));
}

#[test]
fn reason_invalid_static_answer() {
    let s = one_call(
        boolean_tool(json!({"questions": {"confirm": {"answer": "yes"}}})),
        json!({}),
    );
    insta::assert_json_snapshot!(view(&s));
}

#[test]
fn secret_answered_at_the_prompter() {
    let s = one_call(
        secret_tool(json!({})),
        json!({"prompter": [{"reply": "answer", "value": "hunter2"}]}),
    );
    let v = view(&s);
    // Only the pre-082 build (which has no Secret type) persists the answer.
    for profile in ["rfd082", "rfd083"] {
        assert!(
            !v[profile]["stream"].to_string().contains("hunter2"),
            "{profile}"
        );
    }
    insta::assert_json_snapshot!(v);
}
