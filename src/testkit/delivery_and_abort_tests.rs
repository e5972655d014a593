//! The result-delivery prompt (`result = "ask"`) and the aborted turn's
//! token across a cycle, each against hand-written expectations,
//! and the conformance comparison catching an implementation that gets them
//! wrong.

use super::spec_common_tests as common;

use crate::conformance::{self, Observed, ResponseKind};
use crate::scenario::{self as model, DeliveryReply};
use crate::wire::{CancellationReason, InquiryResponse};
use common::{requests, responses, run};
use serde_json::{Value, json};

fn fs_with_result(result: &str, deliveries: Value) -> Value {
    json!({"tools": {"fs": {"source": {"kind": "local"}, "result": result,
            "run": "unattended", "program": {"kind": "script", "asks": [{"question": {"id": "confirm", "text": "Go?", "answer_type": {"type": "boolean"}}}]}}},
        "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "fs"}]]}],
        "prompter": [{"reply": "answer", "value": true}],
        "deliveries": deliveries})
}

fn kinds(t: &model::Trace) -> Vec<&str> {
    t.stream.iter().map(|e| e.kind.tag()).collect()
}

/// Rule: LIFE-DELIVERY-PROMPT — RFD 082 Non-Goals: a `DeliverToolResult`
/// prompt is not an inquiry event. Delivered, the stream is exactly the
/// stream of the same scenario without the prompt; the prompt comes after
/// the tool's question was answered and before its response.
#[test]
fn a_delivered_result_persists_exactly_what_an_unattended_one_does() {
    let asked = run(fs_with_result("ask", json!([{"reply": "deliver"}])));
    let plain = run(fs_with_result("unattended", json!([])));
    assert_eq!(asked.stream, plain.stream);
    assert_eq!(
        kinds(&asked),
        [
            "turn_start",
            "chat_request",
            "tool_call_request",
            "inquiry_request",
            "inquiry_response",
            "tool_call_response",
            "chat_response",
        ]
    );
    assert_eq!(asked.delivery_prompts.len(), 1);
    assert_eq!(asked.delivery_prompts[0].reply, DeliveryReply::Deliver);
    // Shown once the question's response was written, before the tool's.
    assert_eq!(asked.delivery_prompts[0].stream_position, 5);
    assert!(plain.delivery_prompts.is_empty());
    assert_eq!(asked.tool_responses[0].kind, ResponseKind::ToolSuccess);
}

/// Rule: LIFE-DELIVERY-PROMPT — withheld (or no reply left: the user
/// withholds), the call is still answered, as every call must be, with a
/// success that is not the tool's text, and still no inquiry event.
#[test]
fn a_withheld_result_answers_the_call_without_the_tools_text() {
    for deliveries in [json!([{"reply": "withhold"}]), json!([])] {
        let t = run(fs_with_result("ask", deliveries));
        assert_eq!(requests(&t).len(), 1, "only the tool's own question");
        assert_eq!(responses(&t).len(), 1);
        let r = &t.tool_responses[0];
        assert_eq!(r.kind, ResponseKind::ResultWithheld);
        assert!(!r.is_error);
        assert!(!r.content.contains("fs done"), "{}", r.content);
        assert_eq!(
            t.delivery_prompts[0].reply,
            DeliveryReply::Withhold,
            "no reply left means withheld"
        );
    }
}

/// Rule: LIFE-TOKEN-CAUSE — the token is one per turn: the aborted turn's
/// token interrupts the other call's prompt on screen (recorded `cancelled
/// (user)`, answered like Ctrl-C), the prompter's reply is never read, and
/// the turn's next cycle never runs.
#[test]
fn an_aborted_turn_cancels_the_prompt_open_beside_it() {
    let t = run(json!({
        "tools": {
            "a": {"source": {"kind": "local"}, "questions": {"confirm": {"target": "assistant"}},
                "run": "unattended", "program": {"kind": "script", "asks": [{"question": {"id": "confirm", "text": "A?", "answer_type": {"type": "boolean"}}}]}},
            "b": {"source": {"kind": "local"},
                "run": "unattended", "program": {"kind": "script", "asks": [{"question": {"id": "confirm", "text": "B?", "answer_type": {"type": "boolean"}}}]}}},
        "turns": [{"user": "go", "cycles": [
            [{"id": "call_1", "tool": "a"}, {"id": "call_2", "tool": "b"}],
            [{"id": "call_3", "tool": "b"}]]}],
        "backend": [{"reply": "cancelled", "cause": "aborted_turn"}],
        "prompter": [{"reply": "answer", "value": true}],
        // Run a's inquiry before b's prompt.
        "schedule": [0, 0, 0]
    }));
    let cancelled: Vec<&InquiryResponse> = responses(&t)
        .into_iter()
        .filter(|r| {
            matches!(
                r,
                InquiryResponse::Cancelled {
                    reason: CancellationReason::User,
                    ..
                }
            )
        })
        .collect();
    assert_eq!(cancelled.len(), 2, "{:#?}", t.stream);
    assert!(t.prompts.is_empty(), "the prompter was never read");
    let kinds: Vec<(&str, ResponseKind)> = t
        .tool_responses
        .iter()
        .map(|r| (r.tool_call_id.as_str(), r.kind))
        .collect();
    assert!(kinds.contains(&("call_1", ResponseKind::InquiryFailed)));
    assert!(kinds.contains(&("call_2", ResponseKind::CancelledByUser)));
    assert!(t.invocations.iter().all(|i| i.tool_call_id != "call_3"));
    assert!(!t.interrupted, "an aborted turn closes normally");
}

fn vector(name: &str) -> conformance::Vector {
    conformance::curated()
        .expect("curated vectors build")
        .into_iter()
        .find(|v| v.name == name)
        .unwrap_or_else(|| panic!("no curated vector {name}"))
}

/// Rule: LIFE-BACKEND-MODEL — the vector compares which model each backend
/// call asked: the model passes it, an implementation that asks the
/// dedicated model for every question fails it.
#[test]
fn the_inquiry_model_vector_catches_the_wrong_model() {
    let v = vector("inquiry-model-choice");
    let models: Vec<&str> = v
        .expected
        .inquiry_models
        .iter()
        .map(|m| m.model.as_str())
        .collect();
    assert_eq!(models, ["own-large", "inquiry-small"]);
    let actual = Observed::of(&model::run(&v.scenario).unwrap());
    assert_eq!(
        conformance::compare(&v.scenario, &v.expected, &actual),
        None
    );
    let mut wrong = actual.clone();
    for m in &mut wrong.inquiry_models {
        m.model = "inquiry-small".to_owned();
    }
    let d = conformance::compare(&v.scenario, &v.expected, &wrong).expect("diverges");
    assert_eq!(d.kind, "inquiry_models");
    let mut silent = actual;
    silent.inquiry_models.clear();
    assert!(conformance::compare(&v.scenario, &v.expected, &silent).is_some());
}

/// Rule: LIFE-DELIVERY-PROMPT — an implementation that sends the tool's
/// result although the user withheld it fails the vector.
#[test]
fn the_withheld_vector_catches_a_delivered_result() {
    let v = vector("delivery-prompt-withheld");
    let delivered = vector("delivery-prompt-deliver");
    assert_eq!(
        v.expected.tool_responses[0].kind,
        ResponseKind::ResultWithheld
    );
    let d = conformance::compare(&v.scenario, &v.expected, &delivered.expected)
        .expect("a delivered result is not a withheld one");
    assert!(d.kind.starts_with("tool_responses"), "{d:?}");
}

/// Rule: CONFIG-MERGE-LAYERS — the vector's third layer decides: without
/// the command line's `-t ask_user`, the user file's `state = false` keeps
/// `ask_user` off and its call fails as to an unconfigured tool.
#[test]
fn the_merge_layers_vector_depends_on_the_command_line_layer() {
    let v = vector("config-merge-layers");
    let on = &v.expected.tool_responses;
    assert!(
        on.iter()
            .any(|r| r.tool == "ask_user" && r.kind == ResponseKind::ToolSuccess)
    );
    let mut without: crate::scenario::Scenario = v.scenario.clone();
    without.toggles.retain(|t| t != "-t ask_user");
    let off = model::run(&without).unwrap();
    assert!(
        off.tool_responses
            .iter()
            .any(|r| r.tool == "ask_user" && r.kind == ResponseKind::UnknownTool)
    );
}
