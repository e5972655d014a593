//! The root causes `compare` groups divergences by (rule
//! `CONF-GROUP-SIGNATURE`), each written by hand from the signature's
//! documented shape and checked on a run of the model whose observation is
//! changed in one place.

use serde_json::{Value, json};

use crate::conformance::compare::compare;
use crate::conformance::observe::InquiryModel;
use crate::conformance::{Implementation, Model, Observed};
use crate::model::coordinator::ResponseKind;
use crate::scenario::Scenario;

/// One call of a tool that asks one boolean question, prompted, the
/// prompter's reply `reply`.
fn one_question(reply: Value) -> Scenario {
    serde_json::from_value(json!({
        "tty": true,
        "tools": {"fs": {"source": {"kind": "local"}, "run": "unattended",
            "program": {"kind": "script", "asks": [{"question":
                {"id": "q", "text": "Go on?", "answer_type": {"type": "boolean"}}}],
                "finish": {"with": "succeed"}}}},
        "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "fs", "arguments": {}}]]}],
        "prompter": [reply],
    }))
    .unwrap()
}

/// The kind and signature of the divergence `compare` finds between the
/// model's run of `s` and the same run with `change` made to its
/// observation.
fn divergence(s: &Scenario, change: impl FnOnce(&mut Observed)) -> (String, String) {
    let expected = Model::default().run(s).unwrap();
    let mut actual = expected.clone();
    change(&mut actual);
    let d = compare(s, &expected, &actual).expect("a divergence");
    (d.kind, d.signature.0)
}

/// The signature of [`divergence`].
fn signature(s: &Scenario, change: impl FnOnce(&mut Observed)) -> String {
    divergence(s, change).1
}

/// `s`'s persisted `inquiry_response` in `o`.
fn response(o: &mut Observed) -> &mut Value {
    o.stream
        .iter_mut()
        .find(|e| e["type"] == "inquiry_response")
        .expect("an inquiry_response")
}

/// Rule: CONF-GROUP-SIGNATURE — two `inquiry_response` events of one call
/// that differ: by outcome, the outcomes; both cancelled for different
/// reasons, the reasons; same outcome and reason, the names of the fields
/// that differ.
#[test]
fn an_inquiry_responses_root_is_its_outcome_then_its_reason_then_its_fields() {
    let cancelled = one_question(json!({"reply": "ctrl_c"}));
    assert_eq!(
        signature(&cancelled, |o| {
            let r = response(o);
            assert_eq!(
                (&r["outcome"], &r["reason"]),
                (&json!("cancelled"), &json!("user"))
            );
            r["reason"] = json!("backend_error");
        }),
        "inquiry_response reason: user → backend_error"
    );
    assert_eq!(
        signature(&cancelled, |o| response(o)["note"] = json!("extra")),
        "inquiry_response note differs"
    );
    let answered = one_question(json!({"reply": "answer", "value": true}));
    assert_eq!(
        signature(&answered, |o| {
            let r = response(o);
            r["outcome"] = json!("cancelled");
            r["reason"] = json!("user");
        }),
        "inquiry_response outcome: answered → cancelled (user)"
    );
    assert_eq!(
        signature(&answered, |o| response(o)["answer"] = json!(false)),
        "inquiry_response answer differs"
    );
}

/// The `n`-th persisted event of type `ty` in `o`.
fn event<'o>(o: &'o mut Observed, ty: &str, n: usize) -> &'o mut Value {
    o.stream
        .iter_mut()
        .filter(|e| e["type"] == ty)
        .nth(n)
        .unwrap_or_else(|| panic!("{ty} #{n}"))
}

/// Rule: CONF-GROUP-SIGNATURE, CONF-PARTIAL-ORDER — the stream's own
/// divergences: a `turn_start` missing or extra; an event of another type
/// at a call's place; an event missing at the end of a call; a tool
/// response's `is_error` in the stream; a call whose events are extra in a
/// turn.
#[test]
fn the_streams_divergences_have_their_own_signatures() {
    let answered = one_question(json!({"reply": "answer", "value": true}));
    let turn_start = |o: &mut Observed| {
        o.stream
            .iter()
            .position(|e| e["type"] == "turn_start")
            .expect("a turn_start")
    };
    assert_eq!(
        divergence(&answered, |o| {
            let i = turn_start(o);
            o.stream.remove(i);
        }),
        ("stream/turns".to_owned(), "turn_start missing".to_owned())
    );
    assert_eq!(
        divergence(&answered, |o| {
            let i = turn_start(o);
            let t = o.stream[i].clone();
            o.stream.push(t);
        }),
        ("stream/turns".to_owned(), "turn_start extra".to_owned())
    );
    assert_eq!(
        divergence(&answered, |o| *event(o, "inquiry_response", 0) =
            json!({"type": "inquiry_request", "id": "call_1.q.1"})),
        (
            "stream/inquiry_response".to_owned(),
            "event inquiry_response → inquiry_request".to_owned()
        )
    );
    assert_eq!(
        divergence(&answered, |o| {
            let i = o
                .stream
                .iter()
                .position(|e| e["type"] == "tool_call_response")
                .unwrap();
            o.stream.remove(i);
        }),
        (
            "stream/tool_call_response".to_owned(),
            "tool_call_response missing".to_owned()
        )
    );
    assert_eq!(
        divergence(
            &answered,
            |o| event(o, "tool_call_response", 0)["is_error"] = json!(true)
        ),
        (
            "stream/tool_call_response".to_owned(),
            "tool_call_response is_error: false → true".to_owned()
        )
    );
    assert_eq!(
        divergence(&answered, |o| {
            let mut extra = event(o, "tool_call_request", 0).clone();
            extra["id"] = json!("call_9");
            o.stream.push(extra);
        }),
        (
            "stream/calls".to_owned(),
            "call's events extra in a turn".to_owned()
        )
    );
}

/// Rule: CONF-GROUP-SIGNATURE — what the tool received and returned: an
/// invocation's answers or tool; a tool response's kind, and its
/// `is_error` for the same kind (a `tool_responses/class` divergence even
/// between two successes: `is_error` is part of the class, [`MARKS`]); an
/// `ask_user` success's body (kind `tool_responses/body`); a response the
/// implementation never gave.
///
/// [`MARKS`]: crate::conformance::compare::MARKS
#[test]
fn invocations_and_responses_have_their_own_signatures() {
    let answered = one_question(json!({"reply": "answer", "value": true}));
    assert_eq!(
        divergence(&answered, |o| o.invocations[0].answers =
            json!({"q": false})),
        (
            "invocations".to_owned(),
            "invocation answers differ".to_owned()
        )
    );
    assert_eq!(
        divergence(&answered, |o| o.invocations[0].tool = "other".to_owned()),
        (
            "invocations".to_owned(),
            "invocation tool differs".to_owned()
        )
    );
    assert_eq!(
        divergence(&answered, |o| {
            o.tool_responses[0].kind = ResponseKind::ToolError;
        }),
        (
            "tool_responses/class".to_owned(),
            "tool response kind: tool_success → tool_error".to_owned()
        )
    );
    assert_eq!(
        divergence(&answered, |o| o.tool_responses[0].is_error = true),
        (
            "tool_responses/class".to_owned(),
            "tool response tool_success: is_error false → true".to_owned()
        )
    );
    assert_eq!(
        divergence(&answered, |o| {
            o.tool_responses.clear();
        }),
        (
            "tool_responses/class".to_owned(),
            "tool response missing".to_owned()
        )
    );
    let ask_user: Scenario = serde_json::from_value(json!({
        "tty": true,
        "tools": {"ask_user": {"program": {"kind": "ask_user"}}},
        "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "ask_user",
            "arguments": {"question": "Proceed?", "answer_type": "boolean"}}]]}],
        "prompter": [{"reply": "answer", "value": true}],
    }))
    .unwrap();
    assert_eq!(
        divergence(&ask_user, |o| {
            let r = &mut o.tool_responses[0];
            assert_eq!(r.kind, ResponseKind::ToolSuccess);
            r.content = r.content.replace("true", "false");
        }),
        (
            "tool_responses/body".to_owned(),
            "tool response tool_success: body differs".to_owned()
        )
    );
}

/// Rule: CONF-GROUP-SIGNATURE — prompts, backend models and remembered
/// keys: a prompt shown with more or fewer of its call's events persisted,
/// or with another presentation field; a prompt missing; the chosen models
/// differing; a turn's remembered tool answers differing.
#[test]
fn prompts_models_and_remembered_keys_have_their_own_signatures() {
    let answered = one_question(json!({"reply": "answer", "value": true}));
    assert_eq!(
        divergence(&answered, |o| o.prompts[0].stream_position += 1),
        (
            "prompts".to_owned(),
            "prompt shown with more of its call's events persisted".to_owned()
        )
    );
    assert_eq!(
        divergence(&answered, |o| o.prompts[0].stream_position -= 1),
        (
            "prompts".to_owned(),
            "prompt shown with fewer of its call's events persisted".to_owned()
        )
    );
    assert_eq!(
        divergence(&answered, |o| o.prompts[0].presentation["echo"] =
            json!("other")),
        (
            "prompts".to_owned(),
            "prompt presentation echo differs".to_owned()
        )
    );
    assert_eq!(
        divergence(&answered, |o| o.prompts.clear()),
        ("prompts".to_owned(), "prompt missing".to_owned())
    );
    assert_eq!(
        divergence(&answered, |o| {
            o.inquiry_models.push(InquiryModel {
                tool_call_id: "call_1".to_owned(),
                question_id: "q".to_owned(),
                model: "m".to_owned(),
            });
        }),
        (
            "inquiry_models".to_owned(),
            "inquiry models differ".to_owned()
        )
    );
    assert_eq!(
        divergence(&answered, |o| {
            assert!(!o.remembered.is_empty());
            o.remembered[0].tool_answers.push("call_1.q".to_owned());
        }),
        (
            "remembered".to_owned(),
            "remembered tool_answers keys differ".to_owned()
        )
    );
}
