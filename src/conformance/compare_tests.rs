//! The root causes `compare` groups divergences by (rule
//! `CONF-GROUP-SIGNATURE`), each written by hand from the signature's
//! documented shape and checked on a run of the model whose observation is
//! changed in one place.

use serde_json::{Value, json};

use crate::conformance::compare::compare;
use crate::conformance::{Implementation, Model, Observed};
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

/// The signature `compare` gives the model's run of `s` against the same
/// run with `change` made to its observation.
fn signature(s: &Scenario, change: impl FnOnce(&mut Observed)) -> String {
    let expected = Model::default().run(s).unwrap();
    let mut actual = expected.clone();
    change(&mut actual);
    let d = compare(s, &expected, &actual).expect("a divergence");
    d.signature.0
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
