//! The own-bytes judge's helpers held to their contracts, by tests a
//! mutation run asked for (docs/mutants.md, `conformance/own_bytes`).

use serde_json::{Value, json};

use super::*;

fn request(id: &str) -> Value {
    json!({"type": "inquiry_request", "id": id})
}

fn turn_start() -> Value {
    json!({"type": "turn_start"})
}

fn turns(events: &[Value]) -> Vec<usize> {
    colliding_turns(events).into_iter().collect()
}

/// Rule: CONF-OWN-BYTES — the separator flaw's findings are waived only
/// in "the turns in which two inquiry requests share an ID", counted as
/// the oracle counts them: from 0 at the first `turn_start`, or from 0 at
/// the events before it when there are any. IDs are per turn, a response
/// with a request's ID is no second request, and a third request with the
/// same ID names the same turn once.
#[test]
fn colliding_turns_are_numbered_as_the_oracle_numbers_them() {
    let (a, b, c) = (request("t.a"), request("t.b"), request("t.c"));
    let response = json!({"type": "inquiry_response", "id": "t.a"});
    // No events before the first turn start: it is turn 0.
    assert_eq!(
        turns(&[
            turn_start(),
            a.clone(),
            a.clone(),
            a.clone(),
            turn_start(),
            b.clone(),
            c.clone(),
            turn_start(),
            a.clone(),
            response.clone(),
            b.clone(),
            b.clone(),
        ]),
        [0, 2]
    );
    // Events before the first turn start are turn 0; the turn after is 1.
    assert_eq!(turns(&[c.clone(), turn_start(), a.clone(), a.clone()]), [1]);
    assert_eq!(turns(&[c.clone(), c.clone(), turn_start(), a.clone()]), [0]);
    // IDs repeat across turns freely; a response is not a request.
    assert_eq!(
        turns(&[turn_start(), a.clone(), response, turn_start(), a.clone()]),
        [] as [usize; 0]
    );
    assert!(colliding_turns(&[]).is_empty());
}

/// Rule: CONF-OWN-BYTES — a typed secret is found "in every string and
/// member name the line holds" and reported at its JSON pointer: as a
/// whole string, as a part of one when it has at least [`SUBSTRING_MIN`]
/// characters (a shorter secret is part of many words), as a member
/// name (the pointer stops at the object); `~` and `/` in member names
/// are escaped as RFC 6901 says.
#[test]
fn a_secret_is_found_at_its_json_pointer() {
    let v = json!({"a": ["x", "pw: hunter22!"], "b/c~": {"hunter22": 1}, "d": "ab"});
    assert_eq!(holds(&v, "hunter22", ""), Some("/a/1".to_owned()));
    assert_eq!(holds(&v, "ab", ""), Some("/d".to_owned()));
    // Short: only a whole string (or member name) counts.
    assert_eq!(holds(&json!({"k": "xaby"}), "ab", ""), None);
    assert_eq!(
        holds(&json!({"ab": 1}), "ab", ""),
        Some("/, a member name".to_owned())
    );
    let named = json!({"b/c~": {"hunter22": 1}});
    assert_eq!(
        holds(&named, "hunter22", ""),
        Some("/b~1c~0/, a member name".to_owned())
    );
    assert_eq!(
        holds(&json!({"b/c~": ["hunter22"]}), "hunter22", ""),
        Some("/b~1c~0/0".to_owned())
    );
    assert_eq!(
        holds(&json!({"k": ["x", 1, null, true]}), "hunter22", ""),
        None
    );
    assert_eq!(holds(&json!("hunter2"), "hunter22", ""), None);
}

/// Rule: CONF-OWN-BYTES — a secret is also searched for "byte for byte"
/// in the line as written: [`escaped`] is the secret as it appears inside
/// a JSON string, without the quotes around it.
#[test]
fn a_secret_is_searched_for_as_json_writes_it() {
    assert_eq!(escaped("hunter22"), "hunter22");
    assert_eq!(escaped("say \"hi\"\n"), "say \\\"hi\\\"\\n");
    assert_eq!(escaped(""), "");
    let line = json!({"m": "x say \"hi\" y"}).to_string();
    assert!(line.contains(&escaped("say \"hi\"")));
}

/// Rule: CONF-OWN-BYTES — the typed secrets are the values typed at a
/// no-echo prompt "less any value the model's own stream persists":
/// a secret of at least [`SUBSTRING_MIN`] characters is dropped when the
/// model's own persisted stream holds it anywhere, even inside a longer
/// string (it is searched for as a part, so the model would fail its own
/// bytes); a shorter one is dropped only when persisted as a whole string,
/// never for being part of a word (`"e"` is in every event's `type`).
#[test]
fn a_typed_secret_is_dropped_only_where_the_models_own_stream_would_hold_it() {
    let vector = super::super::runner_tests::committed()
        .into_iter()
        .find(|v| v.name == "secret-prompter-redacted")
        .expect("the committed vector that types a secret");
    let model = crate::scenario::run(&vector.scenario).expect("the model runs it");
    let k = model
        .prompts
        .iter()
        .position(|p| !p.presentation.echo)
        .expect("a no-echo prompt");
    let own = model.persisted_json().to_string();
    let typed_as = |value: &str| {
        let mut t = model.clone();
        t.prompts[k].reply = PrompterReply::Answer {
            value: json!(value),
            remember: false,
        };
        typed_secrets(&t).contains(value)
    };
    assert!(own.contains("inquiry_req") && !own.contains("\"inquiry_req\""));
    assert!(!typed_as("inquiry_req"), "part of a persisted string");
    assert_eq!("inquir".chars().count(), SUBSTRING_MIN);
    assert!(
        !typed_as("inquir"),
        "searched for as a part from 6 characters"
    );
    assert!(own.contains('e'));
    assert!(
        typed_as("e"),
        "short: part of words, not a persisted string"
    );
    assert!(!own.contains("zz-not-persisted"));
    assert!(typed_as("zz-not-persisted"));
}

/// A one-call scenario under `profile` whose tool `alpha` asks the boolean
/// question `qid`, answered `true` at the prompt.
fn asked(profile: &str, qid: &str) -> Scenario {
    serde_json::from_value(json!({
        "profile": profile, "tty": true,
        "tools": {"alpha": {"source": {"kind": "local"}, "run": "unattended",
            "program": {"kind": "script", "asks": [
                {"question": {"id": qid, "text": "Go on?", "answer_type": {"type": "boolean"}}}],
                "finish": {"with": "succeed"}}}},
        "turns": [{"user": "go", "cycles": [[{"id": "c1", "tool": "alpha"}]]}],
        "prompter": [{"reply": "answer", "value": true, "remember": false}]
    }))
    .expect("a scenario")
}

/// The model's run of `s` and its persisted lines, `edit`ed.
fn written(s: &Scenario, edit: impl FnOnce(&mut Vec<Value>)) -> (Trace, Vec<String>) {
    let trace = crate::scenario::run(s).expect("runs");
    let mut events = trace.persisted_json().as_array().expect("an array").clone();
    edit(&mut events);
    let lines = events.iter().map(Value::to_string).collect();
    (trace, lines)
}

fn oracle_rule(f: Option<Finding>) -> Option<String> {
    match f {
        Some(Finding::Oracle { rule, .. }) => Some(rule),
        Some(Finding::Secret { .. }) | None => None,
    }
}

/// Rule: CONF-OWN-BYTES — the waiver of an unanswered tool call is as
/// narrow as its reason: a run the model did not interrupt whose written
/// stream leaves the last turn's tool call unanswered is a finding (the
/// waiver is for an interrupted run's last call only).
#[test]
fn an_unanswered_call_is_waived_only_in_an_interrupted_run() {
    // The model's own bytes pass: the edits below are what fails.
    let s = asked("rfd082", "q1");
    let (trace, lines) = written(&s, |_| {});
    assert!(!trace.interrupted);
    assert!(oracle(&s, &trace, &lines).is_none());
    // The tool call left unanswered (its response and what follows cut).
    let (trace, lines) = written(&s, |events| {
        let at = events
            .iter()
            .position(|e| e["type"] == "tool_call_response")
            .expect("a tool response");
        events.truncate(at);
    });
    assert_eq!(
        oracle_rule(oracle(&s, &trace, &lines)).as_deref(),
        Some("CHECK-TOOL-PAIRED")
    );
}

/// Rule: CONF-OWN-BYTES — the waiver of an answer that does not fit is as
/// narrow as its reason (what the user typed is the user's): under
/// `rfd083`, whose oracle reports an answer that cannot fit its question
/// (RFD 083 "Execution flow"), an answer the prompter never typed,
/// persisted `answered`, is a finding, with or without a question ID that
/// holds the separator (that waiver is for the turns whose IDs collide).
#[test]
fn an_answer_nobody_typed_that_does_not_fit_is_a_finding() {
    for qid in ["q1", "q.1"] {
        let s = asked("rfd083", qid);
        let (trace, lines) = written(&s, |_| {});
        assert!(
            oracle(&s, &trace, &lines).is_none(),
            "{qid}: the model's own bytes"
        );
        let (trace, lines) = written(&s, |events| {
            let response = events
                .iter_mut()
                .find(|e| e["type"] == "inquiry_response")
                .expect("a response");
            response["answer"] = json!("maybe");
        });
        assert_eq!(
            oracle_rule(oracle(&s, &trace, &lines)).as_deref(),
            Some("CHECK-ANSWER-FITS"),
            "{qid}"
        );
    }
}
