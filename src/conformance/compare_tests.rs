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

/// Asserts that `compare` finds, between the model's run of `s` and the
/// same run with `change` made to its observation, a divergence of `kind`
/// with `signature` (both written by hand from the documented shapes).
#[track_caller]
fn expect_divergence(
    s: &Scenario,
    change: impl FnOnce(&mut Observed),
    kind: &str,
    signature: &str,
) {
    assert_eq!(
        divergence(s, change),
        (kind.to_owned(), signature.to_owned())
    );
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

/// Appends to `o`'s stream the request of a call `call_9` the model never
/// made (a copy of its first `tool_call_request`).
fn push_extra_call(o: &mut Observed) {
    let mut extra = event(o, "tool_call_request", 0).clone();
    extra["id"] = json!("call_9");
    o.stream.push(extra);
}

/// Rule: CONF-GROUP-SIGNATURE, CONF-PARTIAL-ORDER — the stream's own
/// divergences: a `turn_start` missing or extra; an event of another type
/// at a call's place; an event missing at the end of a call; a tool
/// response's `is_error` in the stream, or with the same `is_error` the
/// fields that differ; a call whose events are extra in a turn.
#[test]
fn the_streams_divergences_have_their_own_signatures() {
    let answered = one_question(json!({"reply": "answer", "value": true}));
    let turn_start = |o: &mut Observed| {
        o.stream
            .iter()
            .position(|e| e["type"] == "turn_start")
            .expect("a turn_start")
    };
    expect_divergence(
        &answered,
        |o| {
            let i = turn_start(o);
            o.stream.remove(i);
        },
        "stream/turns",
        "turn_start missing",
    );
    expect_divergence(
        &answered,
        |o| {
            let i = turn_start(o);
            let t = o.stream[i].clone();
            o.stream.push(t);
        },
        "stream/turns",
        "turn_start extra",
    );
    expect_divergence(
        &answered,
        |o| {
            *event(o, "inquiry_response", 0) =
                json!({"type": "inquiry_request", "id": "call_1.q.1"})
        },
        "stream/inquiry_response",
        "event inquiry_response → inquiry_request",
    );
    expect_divergence(
        &answered,
        |o| {
            let i = o
                .stream
                .iter()
                .position(|e| e["type"] == "tool_call_response")
                .unwrap();
            o.stream.remove(i);
        },
        "stream/tool_call_response",
        "tool_call_response missing",
    );
    expect_divergence(
        &answered,
        |o| event(o, "tool_call_response", 0)["is_error"] = json!(true),
        "stream/tool_call_response",
        "tool_call_response is_error: false → true",
    );
    // The same `is_error`: the root is the fields that differ.
    expect_divergence(
        &answered,
        |o| event(o, "tool_call_response", 0)["note"] = json!("extra"),
        "stream/tool_call_response",
        "tool_call_response note differs",
    );
    expect_divergence(
        &answered,
        push_extra_call,
        "stream/calls",
        "call's events extra in a turn",
    );
    // The extra call is the one named, not a call both sides have: here
    // `call_1`'s tool response differs too, and its root would hide the
    // extra one.
    expect_divergence(
        &answered,
        |o| {
            push_extra_call(o);
            o.tool_responses[0].is_error = true;
        },
        "stream/calls",
        "call's events extra in a turn",
    );
}

/// Rule: CONF-GROUP-SIGNATURE — what the tool received and returned: an
/// invocation's answers or tool, or a call never run; a tool response's kind, and its
/// `is_error` for the same kind (a `tool_responses/class` divergence even
/// between two successes: `is_error` is part of the class, [`MARKS`]); an
/// `ask_user` success's body (kind `tool_responses/body`); a response the
/// implementation never gave.
///
/// [`MARKS`]: crate::conformance::compare::MARKS
#[test]
fn invocations_and_responses_have_their_own_signatures() {
    let answered = one_question(json!({"reply": "answer", "value": true}));
    expect_divergence(
        &answered,
        |o| o.invocations[0].answers = json!({"q": false}),
        "invocations",
        "invocation answers differ",
    );
    expect_divergence(
        &answered,
        |o| o.invocations[0].tool = "other".to_owned(),
        "invocations",
        "invocation tool differs",
    );
    // A call the implementation never ran is named so wherever it first
    // shows (the call's root, over the place's own `invocation missing`).
    expect_divergence(
        &answered,
        |o| o.invocations.clear(),
        "invocations",
        "call never run",
    );
    expect_divergence(
        &answered,
        |o| {
            o.tool_responses[0].kind = ResponseKind::ToolError;
        },
        "tool_responses/class",
        "tool response kind: tool_success → tool_error",
    );
    expect_divergence(
        &answered,
        |o| o.tool_responses[0].is_error = true,
        "tool_responses/class",
        "tool response tool_success: is_error false → true",
    );
    expect_divergence(
        &answered,
        |o| {
            o.tool_responses.clear();
        },
        "tool_responses/class",
        "tool response missing",
    );
    let ask_user: Scenario = serde_json::from_value(json!({
        "tty": true,
        "tools": {"ask_user": {"program": {"kind": "ask_user"}}},
        "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "ask_user",
            "arguments": {"question": "Proceed?", "answer_type": "boolean"}}]]}],
        "prompter": [{"reply": "answer", "value": true}],
    }))
    .unwrap();
    expect_divergence(
        &ask_user,
        |o| {
            let r = &mut o.tool_responses[0];
            assert_eq!(r.kind, ResponseKind::ToolSuccess);
            r.content = r.content.replace("true", "false");
        },
        "tool_responses/body",
        "tool response tool_success: body differs",
    );
}

/// Rule: CONF-GROUP-SIGNATURE — prompts, backend models and remembered
/// keys: a prompt shown with more or fewer of its call's events persisted,
/// or with another presentation field; a prompt missing; the chosen models
/// differing; a turn's remembered tool answers differing.
#[test]
fn prompts_models_and_remembered_keys_have_their_own_signatures() {
    let answered = one_question(json!({"reply": "answer", "value": true}));
    expect_divergence(
        &answered,
        |o| o.prompts[0].stream_position += 1,
        "prompts",
        "prompt shown with more of its call's events persisted",
    );
    expect_divergence(
        &answered,
        |o| o.prompts[0].stream_position -= 1,
        "prompts",
        "prompt shown with fewer of its call's events persisted",
    );
    expect_divergence(
        &answered,
        |o| o.prompts[0].presentation["echo"] = json!("other"),
        "prompts",
        "prompt presentation echo differs",
    );
    expect_divergence(
        &answered,
        |o| o.prompts.clear(),
        "prompts",
        "prompt missing",
    );
    expect_divergence(
        &answered,
        |o| {
            o.inquiry_models.push(InquiryModel {
                tool_call_id: "call_1".to_owned(),
                question_id: "q".to_owned(),
                model: "m".to_owned(),
            });
        },
        "inquiry_models",
        "inquiry models differ",
    );
    expect_divergence(
        &answered,
        |o| {
            assert!(!o.remembered.is_empty());
            o.remembered[0].tool_answers.push("call_1.q".to_owned());
        },
        "remembered",
        "remembered tool_answers keys differ",
    );
}

/// Rule: CONF-PARTIAL-ORDER — the stream is cut into turns at
/// `turn_start` and each turn into its calls' own events: an inquiry
/// event belongs to the longest tool-call ID of its turn that prefixes its
/// ID followed by `.` (RFD 082 "Inquiry ID format"), so under the calls `a`
/// and `a.b` the ID `a.b.q.1` is `a.b`'s and `a.bq.1` is `a`'s; an ID no
/// call prefixes, or a call of an earlier turn, belongs to no call (`""`);
/// events before the first `turn_start` form a turn of their own. Each
/// position is labelled with its turn, call and that call's count so far.
#[test]
fn the_stream_is_cut_per_turn_and_per_call_by_the_longest_call_id() {
    let stream = vec![
        json!({"type": "tool_call_request", "id": "early"}),
        json!({"type": "turn_start"}),
        json!({"type": "tool_call_request", "id": "a"}),
        json!({"type": "tool_call_request", "id": "a.b"}),
        json!({"type": "inquiry_request", "id": "a.b.q.1"}),
        json!({"type": "inquiry_request", "id": "a.bq.1"}),
        json!({"type": "inquiry_request", "id": "ab.q.1"}),
        json!({"type": "turn_start"}),
        json!({"type": "inquiry_response", "id": "a.q.1"}),
        json!({"type": "tool_call_response", "id": "a"}),
    ];
    let (turns, at) = crate::conformance::compare::turns(&stream);
    let calls = |t: usize| -> Vec<(&str, Vec<&Value>)> {
        turns[t]
            .calls
            .iter()
            .map(|(c, v)| (c.as_str(), v.iter().collect()))
            .collect()
    };
    assert_eq!(turns.len(), 3);
    assert_eq!(calls(0), [("early", vec![&stream[0]])]);
    assert_eq!(
        calls(1),
        [
            ("", vec![&stream[6]]),
            ("a", vec![&stream[2], &stream[5]]),
            ("a.b", vec![&stream[3], &stream[4]]),
        ]
    );
    assert_eq!(calls(2), [("", vec![&stream[8]]), ("a", vec![&stream[9]])]);
    let at: Vec<(usize, &str, usize)> = at.iter().map(|(t, c, n)| (*t, c.as_str(), *n)).collect();
    assert_eq!(
        at,
        [
            (0, "early", 1),
            (1, "", 0),
            (1, "a", 1),
            (1, "a.b", 1),
            (1, "a.b", 2),
            (1, "a", 2),
            (1, "", 1),
            (2, "", 0),
            (2, "", 1),
            (2, "a", 1),
        ]
    );
}

/// The side-by-side view of the FAIL report: a header, a line per turn
/// after the events before the first `turn_start`, a line per call, and
/// per event the model's and the implementation's, `*` where they differ,
/// each cut to 70 characters with `…`.
#[test]
fn side_by_side_shows_each_calls_events_and_marks_the_differences() {
    let long = "x".repeat(80);
    let expected = Observed {
        stream: vec![
            json!({"type": "turn_start"}),
            json!({"type": "tool_call_request", "id": "a"}),
            json!({"type": "inquiry_request", "id": "a.q.1", "note": long}),
        ],
        ..Observed::default()
    };
    let mut actual = expected.clone();
    actual.stream[2] = json!({"type": "inquiry_request", "id": "a.q.2"});
    actual
        .stream
        .push(json!({"type": "tool_call_response", "id": "a"}));
    let pad = |s: &str| format!("{s}{}", " ".repeat(70 - s.chars().count()));
    // JSON as written (the crate keeps an object's members in order).
    let request = r#"{"type":"tool_call_request","id":"a"}"#;
    let head = r#"{"type":"inquiry_request","id":"a.q.1","note":""#;
    let cut = format!("{head}{}…", "x".repeat(69 - head.len()));
    assert_eq!(cut.chars().count(), 70);
    let want = [
        format!("  {} | implementation", pad("model")),
        "  -- turn 0 --".to_owned(),
        r#"  [call "a"]"#.to_owned(),
        format!("  {} | {request}", pad(request)),
        format!(r#"* {cut} | {{"type":"inquiry_request","id":"a.q.2"}}"#),
        format!(
            r#"* {} | {{"type":"tool_call_response","id":"a"}}"#,
            pad("")
        ),
    ];
    let got = crate::conformance::compare::side_by_side(&expected, &actual);
    assert_eq!(got.lines().collect::<Vec<_>>(), want, "{got}");
    assert!(got.ends_with('\n'));
}

/// The side-by-side view cuts only what is wider than 70 characters: an
/// event written in exactly 70 is shown whole, without `…`.
#[test]
fn side_by_side_keeps_an_event_of_exactly_the_width_whole() {
    let head = r#"{"type":"inquiry_request","id":"a.q.1","note":""#;
    let note = "x".repeat(70 - head.len() - 2);
    let event = json!({"type": "inquiry_request", "id": "a.q.1", "note": note});
    let text = event.to_string();
    assert_eq!(text.chars().count(), 70);
    let expected = Observed {
        stream: vec![
            json!({"type": "turn_start"}),
            json!({"type": "tool_call_request", "id": "a"}),
            event,
        ],
        ..Observed::default()
    };
    let mut actual = expected.clone();
    actual.stream.pop();
    let got = crate::conformance::compare::side_by_side(&expected, &actual);
    assert!(got.lines().any(|l| l == format!("* {text} | ")), "{got}");
}

/// Each divergence shows both sides as its label is documented:
/// `tool: fs, answers: {…}` for an invocation; `is_error: false, kind:
/// tool_success` for a tool response's class; `events of its call
/// persisted before the prompt: n, presentation: {…}` for a prompt;
/// `tool_answers: [...], permission_decisions: [...]` for a turn's
/// remembered keys; `(nothing)` for a side without the entry.
#[test]
fn each_divergence_shows_both_sides_by_its_documented_label() {
    let answered = one_question(json!({"reply": "answer", "value": true}));
    let expected = Model::default().run(&answered).unwrap();
    let with = |change: &dyn Fn(&mut Observed)| {
        let mut actual = expected.clone();
        change(&mut actual);
        let d = compare(&answered, &expected, &actual).expect("a divergence");
        (d.expected, d.actual)
    };
    // The first run of the tool has no answers yet (RFD 082: the tool is
    // run again with the accumulated answers).
    assert_eq!(
        with(&|o| o.invocations[0].answers = json!({"q": false})),
        (
            "tool: fs, answers: {}".to_owned(),
            r#"tool: fs, answers: {"q":false}"#.to_owned()
        )
    );
    assert_eq!(
        with(&|o| o.tool_responses[0].kind = ResponseKind::ToolError),
        (
            "is_error: false, kind: tool_success".to_owned(),
            "is_error: false, kind: tool_error".to_owned()
        )
    );
    assert_eq!(
        with(&|o| o.tool_responses.clear()),
        (
            "is_error: false, kind: tool_success".to_owned(),
            "(nothing)".to_owned()
        )
    );
    let (model, theirs) = with(&|o| o.prompts[0].stream_position += 1);
    let before = |s: &str| -> usize {
        let rest = s
            .strip_prefix("events of its call persisted before the prompt: ")
            .unwrap_or_else(|| panic!("{s}"));
        let (n, presentation) = rest.split_once(", presentation: ").unwrap();
        assert!(presentation.starts_with('{'), "{s}");
        n.parse().unwrap()
    };
    assert_eq!(before(&theirs), before(&model) + 1);
    assert_eq!(
        expected.remembered.len(),
        1,
        "one turn: {:?}",
        expected.remembered
    );
    assert!(expected.remembered[0].tool_answers.is_empty());
    assert!(expected.remembered[0].permission_decisions.is_empty());
    assert_eq!(
        with(&|o| o.remembered[0].tool_answers.push("call_1.q".to_owned())),
        (
            "tool_answers: [], permission_decisions: []".to_owned(),
            r#"tool_answers: ["call_1.q"], permission_decisions: []"#.to_owned()
        )
    );
}

/// Rule: CONF-EXACT-CLASS — a select option is compared as the option it
/// is, in whichever shape it is written (spec/DECISIONS.md "Wire: a select
/// option is read in the writer's shapes"): the model's `{"value": …}`
/// objects written by an implementation as plain strings are no
/// divergence; another option is.
#[test]
fn a_select_option_is_compared_as_the_option_it_is() {
    let s: Scenario = serde_json::from_value(json!({
        "tty": true,
        "tools": {"ask_user": {"program": {"kind": "ask_user"}}},
        "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "ask_user",
            "arguments": {"question": "Which?", "answer_type": "select",
                "options": ["backup", "abort"]}}]]}],
        "prompter": [{"reply": "answer", "value": "backup"}],
    }))
    .unwrap();
    let expected = Model::default().run(&s).unwrap();
    fn options(o: &mut Observed) -> &mut Value {
        event(o, "inquiry_request", 0)
            .pointer_mut("/question/answer_type/options")
            .expect("options")
    }
    let mut plain = expected.clone();
    let written = options(&mut plain);
    assert_eq!(*written, json!([{"value": "backup"}, {"value": "abort"}]));
    *written = json!(["backup", "abort"]);
    assert_eq!(compare(&s, &expected, &plain), None);
    let mut other = expected.clone();
    *options(&mut other) = json!(["backup", "restore"]);
    assert!(compare(&s, &expected, &other).is_some());
}

/// Rule: CONF-GROUP-SIGNATURE — where a call's persisted events first
/// differ, its root is the first of its tool responses that differ: a
/// response event with an extra member, from a tool response of another
/// kind, is grouped by the kinds.
#[test]
fn a_calls_differing_response_is_its_root_over_its_event() {
    let answered = one_question(json!({"reply": "answer", "value": true}));
    expect_divergence(
        &answered,
        |o| {
            event(o, "tool_call_response", 0)["extra"] = json!(1);
            o.tool_responses[0].kind = ResponseKind::ToolError;
        },
        "stream/tool_call_response",
        "tool response kind: tool_success → tool_error",
    );
}
