//! Vectors that pin the model's own decisions (rule `CONF-PINS`), a denied
//! permission's `is_error` left uncompared (rule `CONF-EXACT-CLASS`), and
//! divergences that read as labelled fields.

use std::collections::BTreeMap;

use super::curated::{boolean, tool, with};
use super::runner_tests::committed;
use crate::conformance::pins::Cover;
use crate::conformance::{
    self, Capabilities, Implementation, ImplementationError, Model, Observed, PINS, Pin,
    ResponseKind, Vector, Verdict, check_generated, check_vectors, compare, skip_pinned,
};
use crate::profile::ProfileName;
use crate::scenario::{BackendReply, Scenario, Trace};
use serde_json::{Value, json};

fn curated() -> Vec<Vector> {
    conformance::curated().expect("curated vectors build")
}

fn vector(name: &str) -> Vector {
    curated()
        .into_iter()
        .find(|v| v.name == name)
        .unwrap_or_else(|| panic!("no curated vector {name}"))
}

/// Rule: CONF-PINS — the curated vectors pin exactly these decisions
/// (listed by hand from what each scenario reaches); every other curated
/// vector is pure RFD.
#[test]
fn curated_vectors_pin_exactly_the_listed_decisions() {
    let want: BTreeMap<&str, Vec<Pin>> = [
        (
            "delivery-prompt-withheld",
            vec![Pin::DeliveryWithheldResponse],
        ),
        ("inquiry-model-choice", vec![Pin::BackendModelChoice]),
        ("token-aborted-turn", vec![Pin::AbortedTurnToken]),
        (
            "token-aborted-turn-cancels-parallel",
            vec![Pin::AbortedTurnToken],
        ),
        ("token-hard-quit", vec![Pin::HardQuitAftermath]),
        ("token-restart", vec![Pin::RestartRerunsTool]),
        (
            "toggles-disable-all-spares-ask-user",
            vec![Pin::DisabledToolUnknown],
        ),
        ("config-merge-layers", vec![Pin::DisabledToolUnknown]),
        (
            "permission-no-terminal",
            vec![Pin::PermissionPromptNoTerminal],
        ),
    ]
    .into_iter()
    .collect();
    let vectors = curated();
    for v in &vectors {
        let expected = want.get(v.name.as_str()).cloned().unwrap_or_default();
        assert_eq!(v.pins, expected, "{}", v.name);
    }
    for name in want.keys() {
        assert!(vectors.iter().any(|v| v.name == *name), "{name}");
    }
}

/// Rule: CONF-PINS — every decision of the table is pinned by at least one
/// curated vector, and its IDs round-trip.
#[test]
fn every_pin_is_reached_and_named_once() {
    let vectors = curated();
    for p in PINS {
        assert_eq!(Pin::from_id(p.pin.id()), Some(p.pin));
        assert_eq!(p.pin.info(), &p);
        assert!(
            vectors.iter().any(|v| v.pins.contains(&p.pin)),
            "{} is pinned by no curated vector",
            p.pin
        );
    }
    assert_eq!(Pin::from_id("no-such-pin"), None);
}

/// Rule: CONF-PINS — opting out skips the vectors that pin the decision,
/// counted per decision; opting out of nothing keeps them all.
#[test]
fn skipping_pins_counts_per_decision() {
    let all = curated();
    let n = all.len();
    let none = skip_pinned(all.clone(), &[]);
    assert_eq!(none.kept.len(), n);
    assert_eq!(none.summary(), None);
    let one = skip_pinned(all.clone(), &[Pin::AbortedTurnToken]);
    assert_eq!(one.kept.len(), n - 2);
    assert_eq!(
        one.summary().as_deref(),
        Some("2 skipped (pin a model decision: aborted-turn-token ×2)")
    );
    let every: Vec<Pin> = PINS.iter().map(|p| p.pin).collect();
    let rfd_only = skip_pinned(all, &every);
    assert_eq!(rfd_only.skipped_vectors, 9);
    assert!(rfd_only.kept.iter().all(|v| v.pins.is_empty()));
}

/// Flips `is_error` of every tool response of `call` (log and stream).
fn flip_is_error(o: &Observed, call: &str) -> Observed {
    let mut o = o.clone();
    for r in &mut o.tool_responses {
        if r.tool_call_id == call {
            r.is_error = !r.is_error;
        }
    }
    for e in &mut o.stream {
        if e.get("type").and_then(Value::as_str) == Some("tool_call_response")
            && e.get("id").and_then(Value::as_str) == Some(call)
        {
            let b = e["is_error"].as_bool().unwrap();
            e["is_error"] = Value::Bool(!b);
        }
    }
    o
}

/// Rule: CONF-EXACT-CLASS — a denied permission's `is_error` is not
/// compared (RFD 082 Non-Goals keep permission prompts out of scope): an
/// implementation answering the denial as a success passes; one that runs
/// the tool anyway still fails, and so does a flipped `is_error` of any
/// other kind of response.
#[test]
fn a_denied_permissions_is_error_is_not_compared() {
    let v = vector("permission-denied");
    assert_eq!(
        v.expected.tool_responses[0].kind,
        ResponseKind::PermissionDenied
    );
    let success = flip_is_error(&v.expected, "call_1");
    assert_eq!(compare(&v.scenario, &v.expected, &success), None);
    let mut ran = success.clone();
    ran.tool_responses[0].kind = ResponseKind::ToolSuccess;
    assert!(compare(&v.scenario, &v.expected, &ran).is_some());

    let c = vector("reason-user-ctrl-c");
    let flipped = flip_is_error(&c.expected, "call_1");
    let d = compare(&c.scenario, &c.expected, &flipped).expect("diverges");
    assert!(d.kind.starts_with("stream/"), "{d:?}");
}

/// Rule: CONF-EXACT-CLASS — a difference reads as labelled fields, not as
/// a bare tuple: a tool response's class, a prompt's position; the
/// divergence kinds stay as they were.
#[test]
fn divergences_read_as_labelled_fields() {
    let c = vector("reason-user-ctrl-c");
    let mut wrong = c.expected.clone();
    wrong.tool_responses[0].is_error = true;
    let d = compare(&c.scenario, &c.expected, &wrong).expect("diverges");
    assert_eq!(d.kind, "tool_responses/class");
    assert_eq!(d.expected, "is_error: false, kind: cancelled_by_user");
    assert_eq!(d.actual, "is_error: true, kind: cancelled_by_user");

    let mut early = c.expected.clone();
    early.prompts[0].stream_position -= 1;
    let d = compare(&c.scenario, &c.expected, &early).expect("diverges");
    assert_eq!(d.kind, "prompts");
    assert!(
        d.expected
            .starts_with("events of its call persisted before the prompt: 2, presentation: {"),
        "{}",
        d.expected
    );
    assert!(
        d.actual
            .starts_with("events of its call persisted before the prompt: 1, presentation: {"),
        "{}",
        d.actual
    );

    let mut none = c.expected.clone();
    none.tool_responses.clear();
    let d = compare(&c.scenario, &c.expected, &none).expect("diverges");
    assert_eq!(d.actual, "(nothing)");

    let a = vector("route-static");
    let mut other = a.expected.clone();
    other.invocations[1].answers = serde_json::json!({"confirm": false});
    let d = compare(&a.scenario, &a.expected, &other).expect("diverges");
    assert_eq!(d.kind, "invocations");
    assert_eq!(d.expected, "tool: fs, answers: {\"confirm\":true}");
}

/// Every decision of the table: what `conform --rfd-only` skips.
fn every_pin() -> std::collections::BTreeSet<Pin> {
    PINS.iter().map(|p| p.pin).collect()
}

/// The model (steered) with its run's scenario and observation rewritten,
/// judged with the given pins skipped.
struct Rewritten {
    scenario: fn(&Scenario) -> Scenario,
    observed: fn(&Scenario, Observed) -> Observed,
    skip: std::collections::BTreeSet<Pin>,
}

impl Implementation for Rewritten {
    fn run(&mut self, s: &Scenario) -> Result<Observed, ImplementationError> {
        let o = Model::default().run(&(self.scenario)(s))?;
        Ok((self.observed)(s, o))
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            skip_pins: self.skip.clone(),
            ..Capabilities::default()
        }
    }
}

/// The response of every inquiry the cancellation token ended (its backend
/// call's reply is `cancelled` with a cause) recorded with reason
/// `backend_error` instead of `user`.
fn token_as_backend_error(s: &Scenario, mut o: Observed) -> Observed {
    let trace = crate::scenario::run(s).unwrap();
    let ended: Vec<String> = trace
        .backend_calls
        .iter()
        .filter(|b| matches!(b.reply, BackendReply::Cancelled { .. }))
        .map(|b| b.call.inquiry_id.clone())
        .collect();
    for e in &mut o.stream {
        if e["type"] == "inquiry_response"
            && e["reason"] == "user"
            && ended.iter().any(|id| e["id"] == id.as_str())
        {
            e["reason"] = Value::from("backend_error");
        }
    }
    o
}

/// Rule: CONF-PINS — pins cover fields, not vectors: an implementation
/// that records `backend_error` when the cancellation token fires (RFD 082
/// step 6 table: "`InquiryError::Cancelled` (cancellation token fired —
/// user restart, tool cancel, hard quit) | `User`") fails under
/// `--rfd-only` (every pin skipped) on each vector that reaches a hard
/// quit, a restart and an aborted turn, though each pins the aftermath,
/// and on generated scenarios; the model itself passes every committed
/// vector with every pin skipped.
#[test]
fn a_token_recorded_as_backend_error_fails_under_rfd_only() {
    let vectors = committed();
    let mut wrong = Rewritten {
        scenario: Scenario::clone,
        observed: token_as_backend_error,
        skip: every_pin(),
    };
    let failures = check_vectors(&mut wrong, &vectors);
    for name in ["token-hard-quit", "token-restart", "token-aborted-turn"] {
        let f = failures
            .iter()
            .find(|f| f.name == name)
            .unwrap_or_else(|| panic!("{name} passes"));
        let Verdict::Diverged(d) = &f.verdict else {
            panic!("{}", f.verdict)
        };
        assert_eq!(d.kind, "stream/inquiry_response", "{f}");
        assert!(d.actual.contains("backend_error"), "{f}");
    }
    let r = check_generated(&mut wrong, ProfileName::Rfd083, 300, 1);
    let f = r.failure.expect("a generated scenario reaches a token");
    assert!(f.verdict.kind().contains("inquiry_response"), "{f}");
    let mut right = Rewritten {
        scenario: Scenario::clone,
        observed: |_, o| o,
        skip: every_pin(),
    };
    let failures = check_vectors(&mut right, &vectors);
    assert!(failures.is_empty(), "{}", failures[0]);
}

/// After a hard quit, a tool response for the quitting call (the pinned
/// aftermath says none is written).
fn responds_after_hard_quit(_: &Scenario, mut o: Observed) -> Observed {
    o.stream.push(serde_json::json!({
        "type": "tool_call_response", "id": "call_1", "is_error": true, "content": "cancelled"
    }));
    o.tool_responses.push(crate::conformance::ToolResponse {
        tool_call_id: "call_1".to_owned(),
        tool: "fs".to_owned(),
        is_error: true,
        kind: ResponseKind::CancelledByUser,
        content: "cancelled".to_owned(),
    });
    o
}

/// Rule: CONF-PINS — what a skipped pin covers is not compared: after a
/// hard quit, an implementation that still answers the quitting call
/// passes `token-hard-quit` with `hard-quit-aftermath` skipped, and fails
/// it with the pin kept; the list of what was not compared names the pin.
#[test]
fn a_skipped_pin_leaves_only_its_fields_uncompared() {
    let v = committed()
        .into_iter()
        .find(|v| v.name == "token-hard-quit")
        .unwrap();
    let skip: std::collections::BTreeSet<Pin> = [Pin::HardQuitAftermath].into();
    let mut skipped = Rewritten {
        scenario: Scenario::clone,
        observed: responds_after_hard_quit,
        skip: skip.clone(),
    };
    let failures = check_vectors(&mut skipped, std::slice::from_ref(&v));
    assert!(failures.is_empty(), "{}", failures[0]);
    let mut kept = Rewritten {
        scenario: Scenario::clone,
        observed: responds_after_hard_quit,
        skip: Default::default(),
    };
    assert_eq!(check_vectors(&mut kept, std::slice::from_ref(&v)).len(), 1);
    let trace = crate::scenario::run(&v.scenario).unwrap();
    let covers = conformance::pins::covers(&skip, &v.scenario, &trace);
    assert_eq!(covers.len(), 1, "{covers:?}");
    assert_eq!(covers[0].pin(), Pin::HardQuitAftermath);
    let listed = conformance::not_compared(&skip);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].0, Pin::HardQuitAftermath);
    let line = conformance::pins::not_compared_summary(&skip).unwrap();
    assert!(line.contains("because pin hard-quit-aftermath"), "{line}");
    assert_eq!(
        conformance::pins::not_compared_summary(&Default::default()),
        None
    );
}

/// Without a terminal, every permission prompt allowed: the `run = ask`
/// tools run unasked.
fn unasked_without_terminal(s: &Scenario) -> Scenario {
    let mut s = s.clone();
    if !s.tty {
        s.permissions =
            vec![serde_json::from_value(serde_json::json!({"reply": "allow"})).unwrap(); 64];
    }
    s
}

/// Rule: CONF-PINS — the pin for a permission prompt without a terminal:
/// an implementation that runs `run = ask` tools unasked without a
/// terminal passes every committed vector and generated scenarios of every
/// profile under `--rfd-only`, and fails `permission-no-terminal` (and
/// some generated scenarios) with the pin kept.
#[test]
fn running_ask_tools_unasked_without_a_terminal_passes_under_rfd_only() {
    let vectors = committed();
    let mut unasked = Rewritten {
        scenario: unasked_without_terminal,
        observed: |_, o| o,
        skip: every_pin(),
    };
    let failures = check_vectors(&mut unasked, &vectors);
    assert!(failures.is_empty(), "{}", failures[0]);
    for p in ProfileName::ALL {
        let r = check_generated(&mut unasked, p, 150, 9);
        assert!(r.passed(), "{p}: {}", r.failure.unwrap());
    }
    let mut pinned = Rewritten {
        scenario: unasked_without_terminal,
        observed: |_, o| o,
        skip: Default::default(),
    };
    let failures = check_vectors(&mut pinned, &vectors);
    assert!(
        failures.iter().any(|f| f.name == "permission-no-terminal"),
        "permission-no-terminal passes with the pin kept"
    );
    let r = check_generated(&mut pinned, ProfileName::Rfd083, 300, 9);
    assert!(!r.passed(), "no generated scenario reaches the pin");
}

// The scenarios of the tests of `pins_of`, `covers` and `blank` below,
// built with the curated vectors' own pieces.

/// A tool that asks nothing.
fn plain() -> Value {
    tool(json!([]))
}

/// A tool that asks the boolean question `confirm`.
fn confirming() -> Value {
    tool(json!([boolean("confirm")]))
}

/// A tool that asks nothing, switched off (`enable`).
fn switched_off() -> Value {
    with(plain(), json!({"enable": {"state": false}}))
}

/// One cycle of one call per turn: `(call ID, tool)`, in order.
fn one_call_per_turn(calls: &[(&str, &str)]) -> Value {
    calls
        .iter()
        .enumerate()
        .map(|(t, (id, tool))| json!({"user": format!("turn {t}"), "cycles": [[{"id": id, "tool": tool}]]}))
        .collect()
}

/// `value` read as a scenario, and the model's run of it.
fn run_json(value: Value) -> (Scenario, Trace) {
    let s: Scenario = serde_json::from_value(value).expect("the scenario reads");
    let trace = crate::scenario::run(&s).expect("the scenario runs");
    (s, trace)
}

/// The covers of the model's run `trace` of `s` with `skip` skipped.
fn covers_of(s: &Scenario, trace: &Trace, skip: &[Pin]) -> Vec<Cover> {
    conformance::pins::covers(&skip.iter().copied().collect(), s, trace)
}

/// Rule: CONF-PINS — a call of a tool the scenario never configures is
/// answered as an unknown tool by RFD alone and pins nothing; the same call
/// of a configured tool switched off (`enable`) pins
/// `DisabledToolUnknown`. Both runs hold an unknown-tool response, so only
/// the configured-or-not test tells them apart.
#[test]
fn only_a_configured_tool_switched_off_pins_the_unknown_tool_answer() {
    let pins = |tools: Value| {
        let (s, trace) = run_json(json!({
            "tools": tools,
            "turns": one_call_per_turn(&[("call_1", "fs")]),
        }));
        assert!(
            trace
                .tool_responses
                .iter()
                .any(|r| r.kind == ResponseKind::UnknownTool),
            "{:?}",
            trace.tool_responses
        );
        conformance::pins::pins_of(&s, &trace)
    };
    assert_eq!(pins(json!({"other": plain()})), Vec::<Pin>::new());
    assert_eq!(
        pins(json!({"fs": switched_off()})),
        vec![Pin::DisabledToolUnknown]
    );
}

/// Rule: CONF-PINS — a switched-off tool's call is covered in the turn the
/// run answered it in, found among the persisted events by its own
/// response: here the second turn, after another call's response in the
/// first (the turn of the first response in the stream, or of a response
/// of another call, would be the first turn). Its description names that
/// turn as a reader counts it and the call.
#[test]
fn a_switched_off_tools_cover_is_in_its_own_turn_and_says_so() {
    let (s, trace) = run_json(json!({
        "tools": {"a": plain(), "fs": switched_off()},
        "turns": one_call_per_turn(&[("call_1", "a"), ("call_2", "fs")]),
    }));
    let covers = covers_of(&s, &trace, &[Pin::DisabledToolUnknown]);
    // `compare` counts 0 as before the first `turn_start`: the second turn is 2.
    assert_eq!(
        covers,
        vec![Cover::Call {
            pin: Pin::DisabledToolUnknown,
            turn: 2,
            call: "call_2".to_owned(),
        }]
    );
    let said = covers[0].describe();
    assert!(
        said.contains("call_2") && said.contains("turn 1") && !said.contains("turn 0"),
        "{said}"
    );
}

/// Rule: CONF-PINS — a run's covers come from the pins skipped and from
/// what the run did, nothing else: a withheld result is covered only when
/// `DeliveryWithheldResponse` is skipped, a switched-off tool's call only
/// when `DisabledToolUnknown` is, a backend's chosen model only when
/// `BackendModelChoice` is, and a call of a tool the scenario never
/// configured never (it is the RFD's unknown tool, not a decision of the
/// model).
#[test]
fn covers_come_only_from_the_skipped_pins_the_run_reached() {
    let pins_covered = |s: &Scenario, skip: &[Pin]| -> Vec<Pin> {
        let trace = crate::scenario::run(s).expect("the scenario runs");
        covers_of(s, &trace, skip).iter().map(Cover::pin).collect()
    };
    let calling_fs = |tools: Value| -> Scenario {
        run_json(json!({"tools": tools, "turns": one_call_per_turn(&[("call_1", "fs")])})).0
    };
    let withheld = vector("delivery-prompt-withheld").scenario;
    assert_eq!(
        pins_covered(&withheld, &[Pin::DeliveryWithheldResponse]),
        vec![Pin::DeliveryWithheldResponse]
    );
    assert_eq!(pins_covered(&withheld, &[Pin::DisabledToolUnknown]), vec![]);
    let off = calling_fs(json!({"fs": switched_off()}));
    assert_eq!(
        pins_covered(&off, &[Pin::DisabledToolUnknown]),
        vec![Pin::DisabledToolUnknown]
    );
    assert_eq!(pins_covered(&off, &[Pin::DeliveryWithheldResponse]), vec![]);
    let never_configured = calling_fs(json!({"other": plain()}));
    assert_eq!(
        pins_covered(&never_configured, &[Pin::DisabledToolUnknown]),
        vec![]
    );
    let chose = vector("inquiry-model-choice").scenario;
    assert_eq!(
        pins_covered(&chose, &[Pin::BackendModelChoice]),
        vec![Pin::BackendModelChoice]
    );
    assert_eq!(pins_covered(&chose, &[Pin::DisabledToolUnknown]), vec![]);
    assert_eq!(pins_covered(&withheld, &[Pin::BackendModelChoice]), vec![]);
}

/// Rule: CONF-PINS — a call ID used again in a later turn is covered at
/// its own response: the second response of `call_1` (0-based `n` 1), in
/// the second turn, for a result withheld and for a switched-off tool,
/// where the first `call_1` ran a plain tool in the first turn.
#[test]
fn a_reused_call_id_is_covered_at_its_own_response() {
    let twice = |second: Value, pin: Pin| {
        let (s, trace) = run_json(json!({
            "tools": {"a": plain(), "fs": second},
            "turns": one_call_per_turn(&[("call_1", "a"), ("call_1", "fs")]),
            "deliveries": [{"reply": "withhold"}],
        }));
        covers_of(&s, &trace, &[pin])
    };
    assert_eq!(
        twice(
            with(plain(), json!({"result": "ask"})),
            Pin::DeliveryWithheldResponse
        ),
        vec![Cover::Response {
            pin: Pin::DeliveryWithheldResponse,
            call: "call_1".to_owned(),
            n: 1,
        }]
    );
    assert_eq!(
        twice(switched_off(), Pin::DisabledToolUnknown),
        vec![Cover::Call {
            pin: Pin::DisabledToolUnknown,
            turn: 2,
            call: "call_1".to_owned(),
        }]
    );
}

/// The model's run of a plain call and a confirming call, one per turn in
/// `order` (`call_1` runs `a`, `call_2` runs `fs`), with no terminal: the
/// backend answers `fs`'s question with `backend`'s replies.
fn backend_run(order: &[(&str, &str)], backend: Value) -> (Scenario, Trace) {
    run_json(json!({
        "tty": false,
        "tools": {"a": plain(), "fs": confirming()},
        "turns": one_call_per_turn(order),
        "backend": backend,
    }))
}

/// The tool-call IDs of the tool responses of `o`.
fn responses(o: &Observed) -> Vec<&str> {
    o.tool_responses
        .iter()
        .map(|r| r.tool_call_id.as_str())
        .collect()
}

/// The tool-call IDs of the invocations of `o`.
fn invocations(o: &Observed) -> Vec<&str> {
    o.invocations
        .iter()
        .map(|i| i.tool_call_id.as_str())
        .collect()
}

/// How many of `ids` are `call`.
fn count(ids: Vec<&str>, call: &str) -> usize {
    ids.into_iter().filter(|c| *c == call).count()
}

/// Rule: CONF-PINS — the place a token leaves uncompared keeps what came
/// before it: a call that ran to its end in the first turn keeps its one
/// tool response and its one invocation, and the call whose inquiry the
/// token ended keeps the one run that routed the question (the cover is in
/// the second turn). For an aborted turn the cover is every call's; for a
/// restart only the restarted call's, whose second run (after the token)
/// is what the pin leaves uncompared.
#[test]
fn a_tokens_cover_keeps_what_came_before_it() {
    for (cause, pin, only) in [
        ("aborted_turn", Pin::AbortedTurnToken, None),
        ("restart", Pin::RestartRerunsTool, Some("call_2".to_owned())),
    ] {
        let (s, trace) = backend_run(
            &[("call_1", "a"), ("call_2", "fs")],
            json!([
                {"reply": "cancelled", "cause": cause},
                {"reply": "answer", "value": true},
            ]),
        );
        let covers = covers_of(&s, &trace, &[pin]);
        let [
            Cover::After {
                turn,
                only: covered_only,
                responses,
                invocations,
                prompts,
                later_turns,
                ..
            },
        ] = covers.as_slice()
        else {
            panic!("{cause}: one cover after the token: {covers:?}");
        };
        assert_eq!(
            (*turn, covered_only, *prompts, *later_turns),
            (2, &only, 0, false),
            "{cause}"
        );
        assert_eq!(responses.get("call_1"), Some(&1), "{cause}: {responses:?}");
        assert_eq!(responses.get("call_2"), None, "{cause}: {responses:?}");
        assert_eq!(
            invocations.get("call_1"),
            Some(&1),
            "{cause}: {invocations:?}"
        );
        assert_eq!(
            invocations.get("call_2"),
            Some(&1),
            "{cause}: {invocations:?}"
        );
    }
}

/// Rule: CONF-PINS — a restart's cover blanks only the restarted call:
/// the restarted call keeps the one run that routed its question and none
/// of its tool responses (all came after the token), while a call of a
/// later turn keeps its response and its run however few of them came
/// before the place.
#[test]
fn a_restarts_cover_blanks_only_the_restarted_call() {
    let (s, trace) = backend_run(
        &[("call_2", "fs"), ("call_1", "a")],
        json!([
            {"reply": "cancelled", "cause": "restart"},
            {"reply": "answer", "value": true},
        ]),
    );
    let covers = covers_of(&s, &trace, &[Pin::RestartRerunsTool]);
    assert_eq!(covers.len(), 1, "{covers:?}");
    let model = Observed::of(&trace);
    assert_eq!(count(responses(&model), "call_2"), 1);
    // The run that routed the question, and the runs after the restart.
    assert_eq!(count(invocations(&model), "call_2"), 3);
    let blanked = conformance::pins::blank(&covers, &model, &model);
    assert_eq!(count(responses(&blanked), "call_1"), 1);
    assert_eq!(count(invocations(&blanked), "call_1"), 1);
    assert_eq!(count(responses(&blanked), "call_2"), 0);
    assert_eq!(count(invocations(&blanked), "call_2"), 1);
}

/// Rule: CONF-PINS — the prompts a token's cover keeps are those shown
/// before its place, of the covered calls: a prompt another call showed in
/// the first turn is kept by an aborted turn's cover (every call's) and is
/// not counted by a restart's (the restarted call's own only, which showed
/// none: its question targets the assistant, the inquiry backend).
#[test]
fn a_tokens_cover_counts_the_covered_calls_earlier_prompts() {
    for (cause, pin, kept) in [
        ("aborted_turn", Pin::AbortedTurnToken, 1),
        ("restart", Pin::RestartRerunsTool, 0),
    ] {
        let (s, trace) = run_json(json!({
            "tools": {
                "a": tool(json!([boolean("ok")])),
                "fs": with(confirming(), json!({"questions": {"confirm": {"target": "assistant"}}})),
            },
            "turns": one_call_per_turn(&[("call_1", "a"), ("call_2", "fs")]),
            "prompter": [{"reply": "answer", "value": true}],
            "backend": [
                {"reply": "cancelled", "cause": cause},
                {"reply": "answer", "value": true},
            ],
        }));
        assert_eq!(trace.prompts.len(), 1, "{cause}: call_1's question only");
        let covers = covers_of(&s, &trace, &[pin]);
        let [Cover::After { prompts, .. }] = covers.as_slice() else {
            panic!("{cause}: one cover after the token: {covers:?}");
        };
        assert_eq!(*prompts, kept, "{cause}");
    }
}

/// Rule: CONF-PINS — an aborted turn's cover blanks only its own turn
/// after the place: the events of the turn before it and of the turn after
/// it are all kept (a hard quit's cover, which ends the run, is the one
/// that reaches later turns).
#[test]
fn an_aborted_turns_cover_keeps_the_turns_around_it() {
    let (s, trace) = backend_run(
        &[("call_1", "a"), ("call_2", "fs"), ("call_3", "a")],
        json!([{"reply": "cancelled", "cause": "aborted_turn"}]),
    );
    let covers = covers_of(&s, &trace, &[Pin::AbortedTurnToken]);
    assert_eq!(covers.len(), 1, "{covers:?}");
    let model = Observed::of(&trace);
    let blanked = conformance::pins::blank(&covers, &model, &model);
    // A request and a response each.
    assert_eq!(events_of(&model, "call_1"), 2);
    assert_eq!(events_of(&model, "call_3"), 2);
    assert_eq!(events_of(&blanked, "call_1"), 2);
    assert_eq!(events_of(&blanked, "call_3"), 2);
    assert_eq!(turn_starts(&blanked), 3);
    assert!(events_of(&blanked, "call_2") < events_of(&model, "call_2"));
}

/// Three turns: `call_1` and `call_2` in one cycle of the first, `call_3`
/// in the second, `call_4` in the third, each of a tool that asks two
/// boolean questions at a terminal. The model's run, observed, with each
/// turn's remembered keys set apart by hand (`k0`, `k1`, `k2`).
fn two_questions_three_turns() -> Observed {
    let (_, trace) = run_json(json!({
        "tools": {"a": tool(json!([boolean("q1"), boolean("q2")]))},
        "turns": [
            {"user": "turn 0", "cycles": [[{"id": "call_1", "tool": "a"}, {"id": "call_2", "tool": "a"}]]},
            {"user": "turn 1", "cycles": [[{"id": "call_3", "tool": "a"}]]},
            {"user": "turn 2", "cycles": [[{"id": "call_4", "tool": "a"}]]},
        ],
        "prompter": vec![json!({"reply": "answer", "value": true}); 8],
    }));
    let mut o = Observed::of(&trace);
    o.remembered = (0..3)
        .map(|t| conformance::Remembered {
            tool_answers: vec![format!("k{t}")],
            permission_decisions: Vec::new(),
        })
        .collect();
    o
}

/// The persisted events of `o` that name `call`.
fn events_of(o: &Observed, call: &str) -> usize {
    o.stream
        .iter()
        .filter(|e| e["id"].as_str() == Some(call))
        .count()
}

/// How many turns `o`'s stream starts.
fn turn_starts(o: &Observed) -> usize {
    o.stream
        .iter()
        .filter(|e| e["type"] == "turn_start")
        .count()
}

/// The prompts of `o` shown for `call`.
fn prompts_of(o: &Observed, call: &str) -> usize {
    o.prompts.iter().filter(|p| p.tool_call_id == call).count()
}

/// Rule: CONF-PINS — a cover after a token restricted to one call blanks
/// that call's entries past the place and nothing of another's, counted by
/// hand: of `call_2`, the one event and the one prompt up to the place are
/// kept and its tool responses and invocations (none up to the place) go;
/// `call_1`, in the same cycle, keeps every event, prompt, response and
/// invocation. The turn's remembered keys (scenario turn 0, as `compare`
/// counts it turn 1) are blanked and the other turns' kept.
#[test]
fn a_cover_for_one_call_blanks_that_calls_entries_and_its_turns_keys() {
    let model = two_questions_three_turns();
    assert_eq!(prompts_of(&model, "call_1"), 2);
    assert_eq!(prompts_of(&model, "call_2"), 2);
    assert!(events_of(&model, "call_2") > 1);
    let cover = Cover::After {
        pin: Pin::RestartRerunsTool,
        turn: 1,
        only: Some("call_2".to_owned()),
        events: [("call_2".to_owned(), 1)].into(),
        responses: BTreeMap::new(),
        invocations: BTreeMap::new(),
        prompts: 1,
        later_turns: false,
    };
    let blanked = conformance::pins::blank(&[cover], &model, &model);
    for call in ["call_1", "call_3", "call_4"] {
        assert_eq!(events_of(&blanked, call), events_of(&model, call), "{call}");
        assert_eq!(prompts_of(&blanked, call), 2, "{call}");
        assert_eq!(
            count(responses(&blanked), call),
            count(responses(&model), call),
            "{call}"
        );
        assert_eq!(
            count(invocations(&blanked), call),
            count(invocations(&model), call),
            "{call}"
        );
    }
    assert_eq!(events_of(&blanked, "call_2"), 1);
    assert_eq!(prompts_of(&blanked, "call_2"), 1);
    assert_eq!(count(responses(&blanked), "call_2"), 0);
    assert_eq!(count(invocations(&blanked), "call_2"), 0);
    let keys: Vec<Vec<String>> = blanked
        .remembered
        .iter()
        .map(|r| r.tool_answers.clone())
        .collect();
    assert_eq!(keys, [vec![], vec!["k1".to_owned()], vec!["k2".to_owned()]]);
}

/// Rule: CONF-PINS — a cover that reaches later turns (a hard quit's)
/// drops every later turn's remembered keys and events, and keeps the
/// turns before its own whole.
#[test]
fn a_cover_of_later_turns_drops_their_keys_and_events() {
    let model = two_questions_three_turns();
    let cover = Cover::After {
        pin: Pin::HardQuitAftermath,
        turn: 2,
        only: None,
        events: [("call_3".to_owned(), 1)].into(),
        responses: [("call_1".to_owned(), 1), ("call_2".to_owned(), 1)].into(),
        invocations: [("call_1".to_owned(), 1), ("call_2".to_owned(), 1)].into(),
        prompts: 4,
        later_turns: true,
    };
    let blanked = conformance::pins::blank(&[cover], &model, &model);
    assert_eq!(blanked.remembered.len(), 1);
    assert_eq!(blanked.remembered[0].tool_answers, ["k0"]);
    for call in ["call_1", "call_2"] {
        assert_eq!(events_of(&blanked, call), events_of(&model, call), "{call}");
        assert_eq!(prompts_of(&blanked, call), 2, "{call}");
    }
    assert_eq!(events_of(&blanked, "call_3"), 1);
    assert_eq!(events_of(&blanked, "call_4"), 0);
    assert_eq!(
        prompts_of(&blanked, "call_3") + prompts_of(&blanked, "call_4"),
        0
    );
    assert_eq!(turn_starts(&blanked), 2);
}

/// Rule: CONF-PINS — a call's cover keeps its request and nothing after
/// it, in its own turn: every other call's events, prompts, responses and
/// invocations are kept, and the covered call's go. Covered once alone in
/// its turn (`call_3`) and once beside another call of its cycle
/// (`call_2`, beside `call_1`).
#[test]
fn a_calls_cover_keeps_its_request_only() {
    let model = two_questions_three_turns();
    for (turn, call) in [(2, "call_3"), (1, "call_2")] {
        let cover = Cover::Call {
            pin: Pin::DisabledToolUnknown,
            turn,
            call: call.to_owned(),
        };
        let blanked = conformance::pins::blank(&[cover], &model, &model);
        let request = |o: &Observed| {
            o.stream
                .iter()
                .filter(|e| e["id"] == call && e["type"] == "tool_call_request")
                .count()
        };
        assert_eq!(request(&blanked), 1, "{call}");
        assert_eq!(events_of(&blanked, call), 1, "{call}");
        assert_eq!(prompts_of(&blanked, call), 0, "{call}");
        assert_eq!(count(responses(&blanked), call), 0, "{call}");
        assert_eq!(count(invocations(&blanked), call), 0, "{call}");
        for other in ["call_1", "call_2", "call_3", "call_4"] {
            if other == call {
                continue;
            }
            assert_eq!(
                events_of(&blanked, other),
                events_of(&model, other),
                "{call}: {other}"
            );
            assert_eq!(prompts_of(&blanked, other), 2, "{call}: {other}");
            assert_eq!(
                count(responses(&blanked), other),
                count(responses(&model), other),
                "{call}: {other}"
            );
        }
        // The call's inquiry events name it inside their own IDs.
        let naming = |o: &Observed| {
            o.stream
                .iter()
                .filter(|e| e.to_string().contains(call))
                .count()
        };
        assert!(naming(&model) > events_of(&model, call), "{call}");
        assert_eq!(naming(&blanked), 1, "{call}");
        assert_eq!(
            blanked.stream.len(),
            model.stream.len() - naming(&model) + 1,
            "{call}"
        );
    }
}

/// Rule: CONF-PINS — a response's cover drops exactly the `n`-th
/// (0-based) tool response of its call, as an event and as a `responded`
/// entry, and nothing else: with `call_1` reused in a second turn beside
/// `call_2` in the first, each of `call_1`'s two responses is dropped
/// alone, and `call_2`'s is never.
#[test]
fn a_responses_cover_drops_that_response_only() {
    let (_, trace) = run_json(json!({
        "tools": {"a": plain()},
        "turns": [
            {"user": "turn 0", "cycles": [[{"id": "call_1", "tool": "a"}, {"id": "call_2", "tool": "a"}]]},
            {"user": "turn 1", "cycles": [[{"id": "call_1", "tool": "a"}]]},
        ],
    }));
    let model = Observed::of(&trace);
    let at: Vec<usize> = model
        .stream
        .iter()
        .enumerate()
        .filter(|(_, e)| e["type"] == "tool_call_response" && e["id"] == "call_1")
        .map(|(i, _)| i)
        .collect();
    assert_eq!(at.len(), 2);
    let entries: Vec<usize> = model
        .tool_responses
        .iter()
        .enumerate()
        .filter(|(_, r)| r.tool_call_id == "call_1")
        .map(|(i, _)| i)
        .collect();
    assert_eq!(entries.len(), 2);
    for n in 0..2 {
        let cover = Cover::Response {
            pin: Pin::DeliveryWithheldResponse,
            call: "call_1".to_owned(),
            n,
        };
        let blanked = conformance::pins::blank(&[cover], &model, &model);
        let mut stream = model.stream.clone();
        stream.remove(at[n]);
        assert_eq!(blanked.stream, stream, "{n}");
        let mut tool_responses = model.tool_responses.clone();
        tool_responses.remove(entries[n]);
        assert_eq!(blanked.tool_responses, tool_responses, "{n}");
        assert_eq!(blanked.invocations, model.invocations, "{n}");
    }
}

/// Rule: CONF-PINS — no prompt the model shows sits exactly at a token's
/// place (right after the last event of the inquiry the token ended), so
/// whether `covers` counts the prompts before the place with `<` or `<=`
/// is not a choice its tests can see: after an aborted turn or a hard
/// quit nothing more is prompted, and a restarted call's own prompts
/// follow its new inquiry request. Another call's prompt can sit there
/// (`call_1`'s, in the second order, at a restart), and a restart's cover
/// counts its own call's prompts only. This holds the argument for the
/// equivalent mutant listed in spec/mutants-equivalent.tsv: if the model
/// changes so that it fails, that mutant can be killed.
#[test]
fn no_covered_prompt_sits_at_a_tokens_place() {
    let mut others_at_place = 0;
    for order in [
        [("call_1", "a"), ("call_2", "fs")],
        [("call_2", "fs"), ("call_1", "a")],
    ] {
        for cause in ["aborted_turn", "hard_quit", "restart"] {
            let cycle: Vec<Value> = order
                .iter()
                .map(|(id, t)| json!({"id": id, "tool": t}))
                .collect();
            let (_, trace) = run_json(json!({
                "tools": {
                    "a": tool(json!([boolean("ok")])),
                    "fs": with(confirming(), json!({"questions": {"confirm": {"target": "assistant"}}})),
                },
                "turns": [{"user": "t", "cycles": [cycle]}],
                "prompter": vec![json!({"reply": "answer", "value": true}); 2],
                "backend": [{"reply": "cancelled", "cause": cause}, {"reply": "answer", "value": true}],
            }));
            let stream: Vec<Value> = trace
                .stream
                .iter()
                .map(|e| serde_json::to_value(e).unwrap())
                .collect();
            let place = 1 + stream
                .iter()
                .rposition(|e| e["id"] == "call_2.confirm.1")
                .expect("the cancelled inquiry is persisted");
            for p in &trace.prompts {
                if p.stream_position != place {
                    continue;
                }
                assert!(
                    cause == "restart" && p.tool_call_id != "call_2",
                    "{order:?} {cause}: {} prompted at the place {place}",
                    p.tool_call_id
                );
                others_at_place += 1;
            }
        }
    }
    assert_eq!(others_at_place, 1, "the case the argument names is drawn");
}

/// `confirming` as tool `fs` with `extra` members, in a scenario of one
/// call of it with the scenario members `rest`.
fn one_fs_call(extra: Value, rest: Value) -> Scenario {
    let value = with(
        json!({
            "tools": {"fs": with(confirming(), extra)},
            "turns": one_call_per_turn(&[("call_1", "fs")]),
        }),
        rest,
    );
    serde_json::from_value(value).expect("the scenario reads")
}

/// Rule: CONF-PINS — which skipped decision may cover part of a run, read
/// from what the scenario says, one feature at a time. The table is
/// written from the decisions' own descriptions: a withheld response needs
/// a delivery prompt; the model a backend call asks needs an inquiry model
/// or a tool's chosen assistant model; the three token decisions need a
/// token's cause or backend replies by inquiry ID; an unknown-tool answer
/// for a configured tool needs `enable` or toggles; and the permission
/// prompt without a terminal covers nothing (it is judged against the
/// other run whole).
#[test]
fn may_cover_reads_each_decisions_own_features() {
    use Pin::*;
    let features: [(&str, Scenario, &[Pin]); 8] = [
        ("none", one_fs_call(json!({}), json!({})), &[]),
        (
            "delivery",
            one_fs_call(
                json!({"result": "ask"}),
                json!({"deliveries": [{"reply": "deliver"}]}),
            ),
            &[DeliveryWithheldResponse],
        ),
        (
            "inquiry model",
            one_fs_call(json!({}), json!({"inquiry_model": "inquiry-small"})),
            &[BackendModelChoice],
        ),
        (
            "assistant model",
            one_fs_call(
                json!({"assistant": {"confirm": {"model": "own-large"}}}),
                json!({}),
            ),
            &[BackendModelChoice],
        ),
        (
            "token cause",
            one_fs_call(
                json!({}),
                json!({"backend": [{"reply": "cancelled", "cause": "restart"}]}),
            ),
            &[AbortedTurnToken, HardQuitAftermath, RestartRerunsTool],
        ),
        (
            "backend by id",
            one_fs_call(
                json!({}),
                json!({"backend_by_id": {"call_1.confirm.1": {"reply": "answer", "value": true}}}),
            ),
            &[AbortedTurnToken, HardQuitAftermath, RestartRerunsTool],
        ),
        (
            "enable",
            one_fs_call(json!({"enable": {"state": false}}), json!({})),
            &[DisabledToolUnknown],
        ),
        (
            "toggles",
            one_fs_call(json!({}), json!({"toggles": ["-T"]})),
            &[DisabledToolUnknown],
        ),
    ];
    for (name, scenario, covering) in &features {
        for p in PINS {
            let skip = [p.pin].into();
            assert_eq!(
                conformance::pins::may_cover(&skip, scenario),
                covering.contains(&p.pin),
                "{name}: {}",
                p.pin
            );
        }
        let all = every_pin();
        assert_eq!(
            conformance::pins::may_cover(&all, scenario),
            !covering.is_empty(),
            "{name}: every pin"
        );
        assert!(!conformance::pins::may_cover(&Default::default(), scenario));
    }
}

/// Rule: CONF-PINS — the other run a skipped permission prompt without a
/// terminal allows exists only for a scenario without a terminal that has
/// a `run = ask` tool, and only when that decision is skipped; it allows
/// every permission prompt without remembering, more than the run can ask.
#[test]
fn the_other_run_is_drawn_only_for_an_ask_tool_without_a_terminal() {
    let ask = |tty: bool| one_fs_call(json!({"run": "ask"}), json!({"tty": tty}));
    let skip = [Pin::PermissionPromptNoTerminal].into();
    let other = conformance::pins::alternative(&skip, &ask(false)).expect("an ask tool, no tty");
    assert!(!other.tty);
    assert!(other.permissions.len() >= 4, "{:?}", other.permissions);
    for reply in &other.permissions {
        assert_eq!(
            serde_json::to_value(reply).unwrap(),
            json!({"reply": "allow", "remember": false})
        );
    }
    assert!(
        conformance::pins::alternative(&skip, &ask(true)).is_none(),
        "a terminal"
    );
    assert!(
        conformance::pins::alternative(&Default::default(), &ask(false)).is_none(),
        "the decision kept"
    );
    let unattended = one_fs_call(json!({}), json!({"tty": false}));
    assert!(
        conformance::pins::alternative(&skip, &unattended).is_none(),
        "no ask tool"
    );
}
