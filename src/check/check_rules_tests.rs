//! The oracle's rules, one violating and one conforming hand-built stream per
//! `CHECK-*` rule, plus the real fixtures, the bundled examples and damaged
//! copies of a fixture.
//!
//! Every negative test asserts the exact list of `(rule, turn, event index)`
//! the checker reports; every positive test asserts it reports nothing.

use std::path::{Path, PathBuf};

use crate::check::rules::{self as r};
use crate::check::{
    Checked, Diagnostic, Position, Profile, ProfileMode, Rule, TurnsByProfile, check_bytes,
    check_events,
};
use crate::wire::{InquiryId, Stream};
use serde_json::{Value, json};

const AUTO: ProfileMode = ProfileMode::Auto;
const LEGACY: ProfileMode = ProfileMode::Fixed(Profile::Legacy);
const R082: ProfileMode = ProfileMode::Fixed(Profile::Rfd082);
const R083: ProfileMode = ProfileMode::Fixed(Profile::Rfd083);

use crate::external;

/// The bundled example streams, relative to the crate root (`stream_files`
/// resolves it from there, not from the working directory).
const EXAMPLES: &str = "spec/examples";

/// A hand-built stream, one JSON object per event.
#[derive(Debug, Clone, Default)]
struct S(Vec<Value>);

fn boolean() -> Value {
    json!({"text": "Apply the patch?", "answer_type": {"type": "boolean"}, "default": true})
}

fn secret() -> Value {
    json!({"text": "SSH key passphrase", "answer_type": {"type": "secret"}})
}

fn exclusive() -> Value {
    json!({"text": "Keep the copy?", "answer_type": {"type": "boolean"}, "exclusive": true, "persistence": "none"})
}

impl S {
    fn new() -> S {
        S::default()
    }
    fn push(mut self, v: Value) -> S {
        self.0.push(v);
        self
    }
    fn turn(self) -> S {
        self.push(json!({"type": "turn_start", "timestamp": "2026-05-12 10:00:00.000000"}))
    }
    fn chat(self) -> S {
        self.push(json!({"type": "chat_request", "content": "go"}))
    }
    fn call(self, id: &str, name: &str) -> S {
        self.push(json!({"type": "tool_call_request", "id": id, "name": name, "arguments": {}}))
    }
    fn done(self, id: &str) -> S {
        self.push(
            // No `is_error`: the tool's outcome is left unsaid, so the
            // streams below that cancel an inquiry are not also judged by
            // CHECK-REASON-FAILS-TOOL.
            json!({"type": "tool_call_response", "id": id, "content": "ok"}),
        )
    }
    /// A request from tool `fs`.
    fn ask(self, id: &str, question: Value) -> S {
        self.ask_from(id, json!({"source": "tool", "name": "fs"}), question)
    }
    fn ask_from(self, id: &str, source: Value, question: Value) -> S {
        self.push(
            json!({"type": "inquiry_request", "id": id, "source": source, "question": question}),
        )
    }
    fn answer(self, id: &str, answer: Value) -> S {
        self.push(
            json!({"type": "inquiry_response", "outcome": "answered", "id": id, "answer": answer}),
        )
    }
    fn flat(self, id: &str, answer: Value) -> S {
        self.push(json!({"type": "inquiry_response", "id": id, "answer": answer}))
    }
    fn cancel(self, id: &str, reason: &str) -> S {
        self.push(
            json!({"type": "inquiry_response", "outcome": "cancelled", "id": id, "reason": reason}),
        )
    }
    fn redact(self, id: &str) -> S {
        self.push(json!({"type": "inquiry_response", "outcome": "redacted", "id": id}))
    }
    fn bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for v in &self.0 {
            out.extend(serde_json::to_vec(v).unwrap());
            out.push(b'\n');
        }
        out
    }
}

/// A one-call turn of tool `fs`: `turn_start`, the call, `body`, the call's end.
/// Event 0 is the marker, 1 the call; the body starts at 2.
fn in_call(body: impl FnOnce(S) -> S) -> S {
    body(S::new().turn().call("c1", "fs")).done("c1")
}

fn run(s: &S, mode: ProfileMode) -> Checked {
    let c = check_bytes(&s.bytes(), "test.jsonl", mode);
    assert_eq!(c.error, None, "hand-built stream must read");
    c
}

fn found(s: &S, mode: ProfileMode) -> Vec<(crate::check::Rule, usize, usize)> {
    run(s, mode)
        .diagnostics
        .iter()
        .map(|d| (d.rule, d.turn, d.event_index))
        .collect()
}

fn clean(s: &S, mode: ProfileMode) {
    let c = run(s, mode);
    assert!(
        c.diagnostics.is_empty(),
        "expected no diagnostic under {mode}, got:\n{}",
        lines(&c)
    );
}

fn lines(c: &Checked) -> String {
    c.diagnostics
        .iter()
        .map(|d| format!("{d}\n"))
        .collect::<String>()
}

// ---------------------------------------------------------------------------
// CHECK-PAIRED
// ---------------------------------------------------------------------------

/// Rule: CHECK-PAIRED — a request with no response in its turn is reported at
/// the request.
#[test]
fn paired_reports_request_without_response() {
    let s = in_call(|s| s.ask("c1.q.1", boolean()));
    for mode in [AUTO, LEGACY, R082, R083] {
        assert_eq!(found(&s, mode), [(Rule::CheckPaired, 0, 2)], "{mode}");
    }
}

/// Rule: CHECK-PAIRED — an unanswered request is reported whatever the
/// writer, but in a turn that shows a legacy writer (or under `--profile
/// legacy`) the message names the known pre-082 gap (RFD 082 "Motivation":
/// a failed inquiry-backend call left its request unanswered).
#[test]
fn paired_message_names_the_legacy_gap() {
    let gap = "a pre-082 writer leaves a failed inquiry-backend request unanswered";
    let legacy = in_call(|s| {
        s.ask("c1.a", boolean())
            .flat("c1.a", json!(true))
            .ask("c1.b", boolean())
    });
    let tagged = in_call(|s| {
        s.ask("c1.a.1", boolean())
            .answer("c1.a.1", json!(true))
            .ask("c1.b.1", boolean())
    });
    let bare = in_call(|s| s.ask("c1.b.1", boolean()));
    for (s, mode, named) in [
        (&legacy, AUTO, true),
        (&legacy, LEGACY, true),
        (&bare, LEGACY, true),
        (&tagged, AUTO, false),
        (&tagged, R082, false),
        (&bare, AUTO, false),
    ] {
        let c = run(s, mode);
        assert_eq!(c.diagnostics.len(), 1, "{}", lines(&c));
        assert_eq!(c.diagnostics[0].rule, Rule::CheckPaired);
        assert_eq!(
            c.diagnostics[0].message.contains(gap),
            named,
            "{mode}: {}",
            lines(&c)
        );
    }
}

/// Rule: CHECK-PAIRED — a response that answers no request is reported.
#[test]
fn paired_reports_response_without_request() {
    let s = in_call(|s| s.answer("c1.q.1", json!(true)));
    assert_eq!(found(&s, R082), [(Rule::CheckPaired, 0, 2)]);
}

/// Rule: CHECK-PAIRED — a second response to an answered request is reported.
#[test]
fn paired_reports_second_response() {
    let s = in_call(|s| {
        s.ask("c1.q.1", boolean())
            .answer("c1.q.1", json!(true))
            .answer("c1.q.1", json!(false))
    });
    assert_eq!(found(&s, R082), [(Rule::CheckPaired, 0, 4)]);
}

/// Rule: CHECK-PAIRED — answered, redacted and cancelled all close a request.
#[test]
fn paired_accepts_every_outcome() {
    let s = in_call(|s| {
        s.ask("c1.confirm.1", boolean())
            .answer("c1.confirm.1", json!(true))
            .ask("c1.pass.1", secret())
            .redact("c1.pass.1")
            .ask("c1.again.1", boolean())
            .cancel("c1.again.1", "user")
    });
    for mode in [AUTO, R082, R083] {
        clean(&s, mode);
    }
}

// ---------------------------------------------------------------------------
// CHECK-RESPONSE-AFTER-REQUEST
// ---------------------------------------------------------------------------

/// Rule: CHECK-RESPONSE-AFTER-REQUEST — a response before its request is
/// reported once, at the response.
#[test]
fn response_after_request_reports_early_response() {
    let s = in_call(|s| s.answer("c1.q.1", json!(true)).ask("c1.q.1", boolean()));
    assert_eq!(found(&s, R082), [(Rule::CheckResponseAfterRequest, 0, 2)]);
    assert_eq!(found(&s, AUTO), [(Rule::CheckResponseAfterRequest, 0, 2)]);
}

/// Rule: CHECK-RESPONSE-AFTER-REQUEST — the same pair in order is clean.
#[test]
fn response_after_request_accepts_ordered_pair() {
    let s = in_call(|s| s.ask("c1.q.1", boolean()).answer("c1.q.1", json!(true)));
    clean(&s, R082);
}

// ---------------------------------------------------------------------------
// CHECK-TURN-SCOPED
// ---------------------------------------------------------------------------

/// Rule: CHECK-TURN-SCOPED — a response in turn 1 to a request of turn 0 is
/// reported at the response; the request is unpaired in its own turn.
#[test]
fn turn_scoped_reports_pair_across_turns() {
    let s = in_call(|s| s.ask("c1.q.1", boolean()))
        .turn()
        .call("c1", "fs")
        .answer("c1.q.1", json!(true))
        .done("c1");
    assert_eq!(
        found(&s, R082),
        [(Rule::CheckPaired, 0, 2), (Rule::CheckTurnScoped, 1, 6)]
    );
}

/// Rule: CHECK-TURN-SCOPED — every request a turn leaves unanswered is
/// remembered into the next turn, not only the last: both late responses
/// are reported as crossing the boundary, not as answering nothing.
#[test]
fn turn_scoped_reports_each_request_carried_from_the_turn_before() {
    let s = S::new()
        .turn()
        .call("c1", "fs")
        .call("c2", "fs")
        .ask("c1.q.1", boolean())
        .ask("c2.q.1", boolean())
        .done("c1")
        .done("c2")
        .turn()
        .call("c1", "fs")
        .call("c2", "fs")
        .answer("c1.q.1", json!(true))
        .answer("c2.q.1", json!(true))
        .done("c1")
        .done("c2");
    assert_eq!(
        found(&s, R082),
        [
            (Rule::CheckPaired, 0, 3),
            (Rule::CheckPaired, 0, 4),
            (Rule::CheckTurnScoped, 1, 10),
            (Rule::CheckTurnScoped, 1, 11)
        ]
    );
}

/// Rule: CHECK-TURN-SCOPED — the same IDs reused in the next turn, each pair
/// in its own turn, are clean (RFD 082: unique within a turn only).
#[test]
fn turn_scoped_accepts_id_reuse_across_turns() {
    let one = |s: S| s.ask("c1.q.1", boolean()).answer("c1.q.1", json!(true));
    let s = in_call(one).turn().call("c1", "fs");
    let s = one(s).done("c1");
    for mode in [AUTO, R082, R083] {
        clean(&s, mode);
    }
}

// ---------------------------------------------------------------------------
// CHECK-PLACEMENT, CHECK-PLACEMENT-SOURCE, CHECK-PLACEMENT-CLOSED
// ---------------------------------------------------------------------------

/// Rule: CHECK-PLACEMENT — a request outside any open tool call is reported.
#[test]
fn placement_reports_request_outside_call() {
    let s = S::new()
        .turn()
        .ask("c1.q.1", boolean())
        .answer("c1.q.1", json!(true));
    assert_eq!(found(&s, R082), [(Rule::CheckPlacement, 0, 1)]);
}

/// Rule: CHECK-PLACEMENT — a call left open in the previous turn does not
/// hold a request of the next turn.
#[test]
fn placement_reports_call_open_in_previous_turn() {
    let s = S::new()
        .turn()
        .call("c1", "fs")
        .turn()
        .ask("c1.q.1", boolean())
        .answer("c1.q.1", json!(true));
    assert_eq!(
        found(&s, AUTO),
        [(Rule::CheckToolPaired, 0, 1), (Rule::CheckPlacement, 1, 3)]
    );
}

/// Rule: CHECK-PLACEMENT — a request inside its call is clean.
#[test]
fn placement_accepts_request_inside_call() {
    clean(
        &in_call(|s| s.ask("c1.q.1", boolean()).answer("c1.q.1", json!(true))),
        R082,
    );
}

/// Rule: CHECK-PLACEMENT-SOURCE — `source: tool {name}` with no open call of
/// that tool is reported.
#[test]
fn placement_source_reports_wrong_tool() {
    let s = S::new()
        .turn()
        .call("c1", "fs_read")
        .ask_from(
            "c1.q.1",
            json!({"source": "tool", "name": "fs_modify_file"}),
            boolean(),
        )
        .answer("c1.q.1", json!(true))
        .done("c1");
    assert_eq!(found(&s, R082), [(Rule::CheckPlacementSource, 0, 2)]);
}

/// Rule: CHECK-PLACEMENT-SOURCE — with parallel calls open, the call of the
/// named tool holds the request; an assistant question may sit in any call.
#[test]
fn placement_source_accepts_named_tool_among_parallel_calls() {
    let s = S::new()
        .turn()
        .call("c1", "fs_read")
        .call("c2", "fs_modify_file")
        .ask_from(
            "c2.apply.1",
            json!({"source": "tool", "name": "fs_modify_file"}),
            boolean(),
        )
        .call("c3", "ask_user")
        .ask_from("c3.answer.1", json!({"source": "assistant"}), exclusive())
        .answer("c3.answer.1", json!(false))
        .done("c3")
        .done("c1")
        .answer("c2.apply.1", json!(true))
        .done("c2");
    for mode in [AUTO, R083] {
        clean(&s, mode);
    }
}

/// Rule: CHECK-PLACEMENT-CLOSED — a response after its call's
/// `tool_call_response` is reported at the response.
#[test]
fn placement_closed_reports_response_after_call_end() {
    let s = S::new()
        .turn()
        .call("c1", "fs")
        .ask("c1.q.1", boolean())
        .done("c1")
        .answer("c1.q.1", json!(true));
    assert_eq!(found(&s, R082), [(Rule::CheckPlacementClosed, 0, 4)]);
    let c = run(&s, R082);
    assert_eq!(c.diagnostics[0].ids, ["c1.q.1", "c1"]);
}

/// Rule: CHECK-PLACEMENT-CLOSED — with two open calls of the same tool, a
/// response is late only once the last call its request could belong to
/// has ended: for a conforming ID, the call it names (`c2`); for a pre-082
/// two-segment ID, which names none, either call, so the response between
/// the two `tool_call_response`s is clean, not late when the first ends.
#[test]
fn placement_closed_waits_for_the_last_call_a_request_could_belong_to() {
    for (id, mode) in [("c2.q.1", R082), ("c2.confirm", AUTO)] {
        // Both calls open, the request asked, the first call ended.
        let first_ended = || {
            S::new()
                .turn()
                .call("c1", "fs")
                .call("c2", "fs")
                .ask(id, boolean())
                .done("c1")
        };
        clean(&first_ended().answer(id, json!(true)).done("c2"), mode);
        let late = first_ended().done("c2").answer(id, json!(true));
        assert_eq!(
            found(&late, mode),
            [(Rule::CheckPlacementClosed, 0, 6)],
            "{id}"
        );
        assert_eq!(run(&late, mode).diagnostics[0].ids, [id, "c2"]);
    }
}

// ---------------------------------------------------------------------------
// CHECK-TURN-UNIQUE-ID
// ---------------------------------------------------------------------------

fn repeated(answer: fn(S, &str) -> S, id: &str) -> S {
    in_call(|s| {
        let s = answer(s.ask(id, boolean()), id);
        answer(s.ask(id, boolean()), id)
    })
}

/// Rule: CHECK-TURN-UNIQUE-ID — an RFD 082 ID requested twice in a turn is
/// reported once, at the repeat, and nothing else (pairs by order).
#[test]
fn turn_unique_id_reports_repeat_under_rfd082() {
    let s = repeated(|s, id| s.answer(id, json!(true)), "c1.q.1");
    assert_eq!(found(&s, R082), [(Rule::CheckTurnUniqueId, 0, 4)]);
    // Tagged responses make auto judge the turn as RFD 082's.
    assert_eq!(found(&s, AUTO), [(Rule::CheckTurnUniqueId, 0, 4)]);
}

/// Rule: CHECK-TURN-UNIQUE-ID — legacy streams may repeat two-segment IDs;
/// they pair by order, under the legacy profile and under auto.
#[test]
fn turn_unique_id_accepts_legacy_repeat() {
    let s = repeated(|s, id| s.flat(id, json!(true)), "c1.q");
    clean(&s, LEGACY);
    clean(&s, AUTO);
    assert_eq!(run(&s, AUTO).summary.profile, Profile::Legacy);
}

// ---------------------------------------------------------------------------
// CHECK-ID-FORMAT
// ---------------------------------------------------------------------------

/// Rule: CHECK-ID-FORMAT — wrong-call, zero, leading-zero, and
/// signed-attempt IDs, and an ID that is only the call, are each reported at the request under RFD 082 (the attempt
/// is a number from 1 in its plain decimal form).
#[test]
fn id_format_reports_malformed_ids() {
    for id in [
        "c2.q.1", "c1.q.0", "c1.q.01", "c1.q.x", "c1.q.", "c1.q.+1", "c1",
    ] {
        let s = in_call(|s| s.ask(id, boolean()).answer(id, json!(true)));
        assert_eq!(found(&s, R082), [(Rule::CheckIdFormat, 0, 2)], "{id}");
        assert_eq!(found(&s, R083), [(Rule::CheckIdFormat, 0, 2)], "{id}");
    }
}

/// Rule: CHECK-ID-FORMAT — decision "Oracle checks: an attempt past
/// `u32::MAX`": the attempt `u32::MAX` is conforming; one past it is
/// reported under RFD 082 and RFD 083 with a message that says so, not as a
/// malformed number.
#[test]
fn id_format_reports_an_attempt_past_u32_max_as_such() {
    let last = format!("c1.q.{}", u32::MAX);
    let s = in_call(|s| s.ask(&last, boolean()).answer(&last, json!(true)));
    clean(&s, R082);
    clean(&s, R083);
    let past = format!("c1.q.{}", u64::from(u32::MAX) + 1);
    let s = in_call(|s| s.ask(&past, boolean()).answer(&past, json!(true)));
    for mode in [R082, R083] {
        assert_eq!(found(&s, mode), [(Rule::CheckIdFormat, 0, 2)]);
        let c = run(&s, mode);
        let message = &c.diagnostics[0].message;
        assert!(
            message.contains(&format!("is past {}", u32::MAX))
                && !message.contains("leading zeros"),
            "{message}"
        );
    }
}

/// Rule: CHECK-ID-FORMAT — an ID that is the call's ID and a dot is that
/// call's pre-082 two-segment ID with an empty question ID (decision "IDs:
/// an empty question ID runs": RFD 082's format does not forbid an empty
/// part), judged in every mode as the two-segment `c1.q` is (clean where
/// the turn shows no RFD 082 writer: an RFD 082 writer re-saves legacy
/// answers tagged).
#[test]
fn id_format_reads_the_call_and_a_dot_as_a_two_segment_id() {
    let s = in_call(|s| s.ask("c1.", boolean()).answer("c1.", json!(true)));
    clean(&s, R082);
    clean(&s, AUTO);
    let legacy = in_call(|s| s.ask("c1.", boolean()).flat("c1.", json!(true)));
    clean(&legacy, LEGACY);
    let q = in_call(|s| s.ask("c1.q", boolean()).answer("c1.q", json!(true)));
    for mode in [AUTO, R082, R083] {
        let rules = |s: &S| -> Vec<Rule> { found(s, mode).into_iter().map(|f| f.0).collect() };
        assert_eq!(rules(&s), rules(&q), "{mode}");
    }
}

/// Rule: CHECK-ID-FORMAT — conforming IDs, including dotted call and
/// question IDs, are clean; the legacy profile does not judge the format.
#[test]
fn id_format_accepts_conforming_ids() {
    let s = S::new()
        .turn()
        .call("call.a", "fs")
        .ask("call.a.ns.q.1", boolean())
        .answer("call.a.ns.q.1", json!(true))
        .done("call.a");
    clean(&s, R082);
    // An empty question ID (decision "IDs: an empty question ID runs").
    let empty = in_call(|s| s.ask("c1..1", boolean()).answer("c1..1", json!(true)));
    clean(&empty, R082);
    clean(&empty, R083);
    let legacy = in_call(|s| s.ask("c1.q", boolean()).flat("c1.q", json!(true)));
    clean(&legacy, LEGACY);
}

// ---------------------------------------------------------------------------
// CHECK-ID-ATTEMPT
// ---------------------------------------------------------------------------

/// Rule: CHECK-ID-ATTEMPT — `rules::id_attempt` as its contract states:
/// an attempt that does not grow past the question's highest so far is a
/// finding, the same attempt included; a higher one, or a first, is not.
#[test]
fn id_attempt_reports_an_attempt_that_does_not_grow() {
    let id = InquiryId::new("c1", "q", 2);
    let parts = r::IdParts {
        tool_call_id: "c1".to_owned(),
        question_id: "q".to_owned(),
        attempt: 2,
    };
    for (previous, finding) in [
        (None, false),
        (Some(1), false),
        (Some(2), true),
        (Some(3), true),
    ] {
        let f = r::id_attempt(&id, &parts, previous);
        assert_eq!(f.is_some(), finding, "after {previous:?}");
        assert!(f.is_none_or(|f| f.rule == Rule::CheckIdAttempt));
    }
}

/// Rule: CHECK-ID-ATTEMPT — an attempt lower than an earlier one of the same
/// question in the same call and turn is reported at the request; a gap, or
/// a first attempt above 1 (what removing an orphaned attempt leaves), is
/// not (decision "Oracle checks: attempts after a repair").
#[test]
fn id_attempt_reports_attempt_that_goes_back() {
    let back = in_call(|s| {
        s.ask("c1.q.2", boolean())
            .answer("c1.q.2", json!(true))
            .ask("c1.q.1", boolean())
            .answer("c1.q.1", json!(true))
    });
    assert_eq!(found(&back, R082), [(Rule::CheckIdAttempt, 0, 4)]);
    assert_eq!(found(&back, AUTO), [(Rule::CheckIdAttempt, 0, 4)]);
    let gap = in_call(|s| {
        s.ask("c1.q.1", boolean())
            .answer("c1.q.1", json!(true))
            .ask("c1.q.3", boolean())
            .answer("c1.q.3", json!(true))
    });
    clean(&gap, R082);
    let start = in_call(|s| s.ask("c1.q.2", boolean()).answer("c1.q.2", json!(true)));
    clean(&start, R082);
}

/// Rule: CHECK-ID-ATTEMPT — attempts 1, 2 within a call, continuing across a
/// reused tool-call ID in the same turn (Gemini), and restarting at 1 in the
/// next turn, are clean.
#[test]
fn id_attempt_accepts_counter_per_key_per_turn() {
    let pair = |s: S, id: &str| s.ask(id, boolean()).answer(id, json!(true));
    let s = S::new().turn().call("c1", "fs");
    let s = pair(pair(s, "c1.q.1"), "c1.q.2")
        .done("c1")
        .call("c1", "fs");
    let s = pair(pair(s, "c1.q.3"), "c1.other.1").done("c1");
    let s = pair(s.turn().call("c1", "fs"), "c1.q.1").done("c1");
    clean(&s, R082);
    clean(&s, AUTO);
}

// ---------------------------------------------------------------------------
// CHECK-SECRET-NOT-ANSWERED
// ---------------------------------------------------------------------------

/// Rule: CHECK-SECRET-NOT-ANSWERED — a secret answered (tagged or flat) is
/// reported at the response, without repeating the secret.
#[test]
fn secret_not_answered_reports_answered_secret() {
    let tagged = in_call(|s| {
        s.ask("c1.pass.1", secret())
            .answer("c1.pass.1", json!("hunter2"))
    });
    let flat = in_call(|s| {
        s.ask("c1.pass.1", secret())
            .flat("c1.pass.1", json!("hunter2"))
    });
    for (s, mode) in [
        (&tagged, AUTO),
        (&tagged, R082),
        (&flat, AUTO),
        (&flat, LEGACY),
    ] {
        let c = run(s, mode);
        let want = match mode {
            // Before RFD 082 there is no secret type: the question is out of profile.
            ProfileMode::Fixed(Profile::Legacy) => {
                vec![
                    (Rule::CheckProfileShape, 0, 2),
                    (Rule::CheckSecretNotAnswered, 0, 3),
                ]
            }
            _ => vec![(Rule::CheckSecretNotAnswered, 0, 3)],
        };
        assert_eq!(found(s, mode), want, "{mode}");
        assert!(!lines(&c).contains("hunter2"), "the secret leaked");
    }
    // An explicit RFD 082 writer also owes the tagged form.
    assert_eq!(
        found(&flat, R082),
        [
            (Rule::CheckResponseTagged, 0, 3),
            (Rule::CheckSecretNotAnswered, 0, 3)
        ]
    );
}

/// Rule: CHECK-SECRET-NOT-ANSWERED — a secret redacted, or refused by the
/// guard, is clean.
#[test]
fn secret_not_answered_accepts_redacted_and_cancelled() {
    let s = in_call(|s| {
        s.ask("c1.pass.1", secret())
            .redact("c1.pass.1")
            .ask("c1.pass.2", secret())
            .cancel("c1.pass.2", "no_prompt_backend")
    });
    clean(&s, R082);
    clean(&s, AUTO);
}

// ---------------------------------------------------------------------------
// CHECK-REDACTED-NO-ANSWER, CHECK-CANCELLED-NO-ANSWER, CHECK-REDACTED-ONLY-SECRET
// ---------------------------------------------------------------------------

/// Rule: CHECK-REDACTED-NO-ANSWER — a `redacted` event with an `answer` on
/// disk is reported, without repeating the value.
#[test]
fn redacted_no_answer_reports_answer_on_disk() {
    let s = in_call(|s| {
        s.ask("c1.pass.1", secret()).push(
            json!({"type": "inquiry_response", "outcome": "redacted", "id": "c1.pass.1", "answer": "hunter2"}),
        )
    });
    for mode in [AUTO, R082, R083] {
        assert_eq!(found(&s, mode), [(Rule::CheckRedactedNoAnswer, 0, 3)]);
        assert!(!lines(&run(&s, mode)).contains("hunter2"));
    }
}

/// Rule: CHECK-REDACTED-NO-ANSWER — a bare `redacted` event is clean.
#[test]
fn redacted_no_answer_accepts_bare_redacted() {
    clean(
        &in_call(|s| s.ask("c1.pass.1", secret()).redact("c1.pass.1")),
        R082,
    );
}

/// Rule: CHECK-CANCELLED-NO-ANSWER — a `cancelled` event with an `answer` on
/// disk is reported.
#[test]
fn cancelled_no_answer_reports_answer_on_disk() {
    let s = in_call(|s| {
        s.ask("c1.q.1", boolean()).push(
            json!({"type": "inquiry_response", "outcome": "cancelled", "id": "c1.q.1", "reason": "user", "answer": true}),
        )
    });
    assert_eq!(found(&s, R082), [(Rule::CheckCancelledNoAnswer, 0, 3)]);
}

/// Rule: CHECK-CANCELLED-NO-ANSWER — a `cancelled` event with only a reason
/// (or none, read as `user`) is clean.
#[test]
fn cancelled_no_answer_accepts_reason_only() {
    let s = in_call(|s| {
        s.ask("c1.q.1", boolean())
            .cancel("c1.q.1", "user")
            .ask("c1.q.2", boolean())
            .push(json!({"type": "inquiry_response", "outcome": "cancelled", "id": "c1.q.2"}))
    });
    // Auto: a missing `reason` reads as `user`; an explicit rfd082 writer
    // always writes one (CHECK-WRITER-FIELDS).
    clean(&s, AUTO);
}

/// Rule: CHECK-REDACTED-ONLY-SECRET — a non-secret question's response
/// recorded `redacted` is reported.
#[test]
fn redacted_only_secret_reports_redacted_boolean() {
    let s = in_call(|s| s.ask("c1.q.1", boolean()).redact("c1.q.1"));
    assert_eq!(found(&s, R082), [(Rule::CheckRedactedOnlySecret, 0, 3)]);
}

/// Rule: CHECK-REDACTED-ONLY-SECRET — a secret question's `redacted` is clean.
#[test]
fn redacted_only_secret_accepts_redacted_secret() {
    clean(
        &in_call(|s| s.ask("c1.pass.1", secret()).redact("c1.pass.1")),
        AUTO,
    );
}

// ---------------------------------------------------------------------------
// CHECK-REASON-*
// ---------------------------------------------------------------------------

/// Rule: CHECK-REASON-HUMAN-ONLY — the guard reasons on a question that is
/// neither secret nor (under RFD 083) exclusive are reported.
#[test]
fn reason_human_only_reports_guard_reason_on_plain_question() {
    for reason in ["no_prompt_backend", "assistant_routing_denied"] {
        let s = in_call(|s| s.ask("c1.q.1", boolean()).cancel("c1.q.1", reason));
        for mode in [AUTO, R082, R083] {
            assert_eq!(
                found(&s, mode),
                [(Rule::CheckReasonHumanOnly, 0, 3)],
                "{reason} {mode}"
            );
        }
    }
    // Before RFD 083 `exclusive` does not exist: the guard reason on an
    // exclusive question is out of profile, and so is the field.
    let s = in_call(|s| {
        s.ask("c1.q.1", exclusive())
            .cancel("c1.q.1", "no_prompt_backend")
    });
    assert_eq!(
        found(&s, R082),
        [
            (Rule::CheckProfileShape, 0, 2),
            (Rule::CheckReasonHumanOnly, 0, 3)
        ]
    );
}

/// Rule: CHECK-REASON-HUMAN-ONLY — the guard reasons on a secret question,
/// or an exclusive one under RFD 083, are clean.
#[test]
fn reason_human_only_accepts_secret_and_exclusive() {
    let s = in_call(|s| {
        s.ask("c1.pass.1", secret())
            .cancel("c1.pass.1", "no_prompt_backend")
            // A guard fails the call: the next question is the call's next
            // cycle (CHECK-ONE-QUESTION).
            .done("c1")
            .call("c1", "fs")
            .ask("c1.pass.2", secret())
            .cancel("c1.pass.2", "assistant_routing_denied")
    });
    clean(&s, R082);
    let s = in_call(|s| {
        s.ask("c1.keep.1", exclusive())
            .cancel("c1.keep.1", "assistant_routing_denied")
            .done("c1")
            .call("c1", "fs")
            .ask("c1.keep.2", exclusive())
            .cancel("c1.keep.2", "no_prompt_backend")
    });
    clean(&s, R083);
    clean(&s, AUTO);
}

/// Rule: CHECK-REASON-BACKEND-ERROR — `backend_error` on a secret question,
/// or an exclusive one under RFD 083, is reported.
#[test]
fn reason_backend_error_reports_human_only_question() {
    let s = in_call(|s| {
        s.ask("c1.pass.1", secret())
            .cancel("c1.pass.1", "backend_error")
    });
    assert_eq!(found(&s, R082), [(Rule::CheckReasonBackendError, 0, 3)]);
    let s = in_call(|s| {
        s.ask("c1.keep.1", exclusive())
            .cancel("c1.keep.1", "backend_error")
    });
    assert_eq!(found(&s, R083), [(Rule::CheckReasonBackendError, 0, 3)]);
    assert_eq!(found(&s, AUTO), [(Rule::CheckReasonBackendError, 0, 3)]);
}

/// Rule: CHECK-REASON-BACKEND-ERROR — `backend_error` on a plain question is
/// clean, and unknown reasons are legal on any question.
#[test]
fn reason_backend_error_accepts_plain_question_and_unknown_reasons() {
    // Two calls: `backend_error` ends its call (CHECK-ONE-QUESTION).
    let s = in_call(|s| s.ask("c1.q.1", boolean()).cancel("c1.q.1", "backend_error"))
        .call("c2", "fs")
        .ask("c2.pass.1", secret())
        .cancel("c2.pass.1", "some_future_variant")
        .done("c2");
    for mode in [AUTO, R082, R083] {
        // The unknown tag is judged by CHECK-REASON-KNOWN alone.
        assert_eq!(found(&s, mode), [(Rule::CheckReasonKnown, 0, 7)]);
    }
}

/// Rule: CHECK-REASON-INVALID-STATIC — `invalid_static_answer` under an
/// explicit pre-083 profile is reported.
#[test]
fn reason_invalid_static_reports_before_rfd083() {
    let s = in_call(|s| {
        s.ask("c1.q.1", boolean())
            .cancel("c1.q.1", "invalid_static_answer")
    });
    assert_eq!(found(&s, R082), [(Rule::CheckReasonInvalidStatic, 0, 3)]);
}

/// Rule: CHECK-REASON-INVALID-STATIC — under RFD 083, and under auto (which
/// judges the turn as RFD 083's), it is clean, on any question.
#[test]
fn reason_invalid_static_accepts_rfd083() {
    let s = in_call(|s| {
        s.ask("c1.q.1", boolean())
            .cancel("c1.q.1", "invalid_static_answer")
            .done("c1")
            .call("c1", "fs")
            .ask("c1.pass.1", secret())
            .cancel("c1.pass.1", "invalid_static_answer")
    });
    clean(&s, R083);
    clean(&s, AUTO);
    assert_eq!(run(&s, AUTO).summary.profile, Profile::Rfd083);
}

// ---------------------------------------------------------------------------
// CHECK-PROFILE-SHAPE, CHECK-RESPONSE-TAGGED
// ---------------------------------------------------------------------------

/// Rule: CHECK-PROFILE-SHAPE — shapes newer than the explicit profile are
/// reported where they are written: tagged responses and `secret` under
/// legacy, RFD 083 question fields (even at their defaults) under RFD 082.
#[test]
fn profile_shape_reports_newer_shapes() {
    let tagged = in_call(|s| s.ask("c1.q", boolean()).answer("c1.q", json!(true)));
    assert_eq!(found(&tagged, LEGACY), [(Rule::CheckProfileShape, 0, 3)]);
    let secret_q = in_call(|s| s.ask("c1.q", secret()).flat("c1.q", json!("x")));
    assert_eq!(
        found(&secret_q, LEGACY),
        [
            (Rule::CheckProfileShape, 0, 2),
            (Rule::CheckSecretNotAnswered, 0, 3)
        ]
    );
    let defaults = json!({"text": "t", "answer_type": {"type": "text"}, "context": "c", "persistence": "turn"});
    let fields = in_call(|s| s.ask("c1.q.1", defaults).answer("c1.q.1", json!("a")));
    assert_eq!(found(&fields, R082), [(Rule::CheckProfileShape, 0, 2)]);
    assert!(
        run(&fields, R082).diagnostics[0]
            .message
            .contains("`context`, `persistence`")
    );
}

/// Rule: CHECK-PROFILE-SHAPE — every shape is in profile under RFD 083, and
/// the flat form under legacy.
#[test]
fn profile_shape_accepts_shapes_of_the_profile() {
    let s = in_call(|s| {
        s.ask("c1.keep.1", exclusive())
            .answer("c1.keep.1", json!(true))
            .ask("c1.pass.1", secret())
            .redact("c1.pass.1")
    });
    clean(&s, R083);
    let legacy = in_call(|s| s.ask("c1.q", boolean()).flat("c1.q", json!(true)));
    clean(&legacy, LEGACY);
}

/// Rule: CHECK-RESPONSE-TAGGED — a flat response under an explicit RFD
/// 082/083 profile is reported.
#[test]
fn response_tagged_reports_flat_response() {
    let s = in_call(|s| s.ask("c1.q.1", boolean()).flat("c1.q.1", json!(true)));
    assert_eq!(found(&s, R082), [(Rule::CheckResponseTagged, 0, 3)]);
    assert_eq!(found(&s, R083), [(Rule::CheckResponseTagged, 0, 3)]);
}

/// Rule: CHECK-RESPONSE-TAGGED — under auto and legacy the flat form is clean.
#[test]
fn response_tagged_accepts_flat_under_auto_and_legacy() {
    let s = in_call(|s| s.ask("c1.q.1", boolean()).flat("c1.q.1", json!(true)));
    clean(&s, AUTO);
    clean(&s, LEGACY);
}

// ---------------------------------------------------------------------------
// Profiles, auto resolution, unknowns
// ---------------------------------------------------------------------------

fn legacy_then_tagged() -> S {
    in_call(|s| s.ask("c1.q", boolean()).flat("c1.q", json!(true)))
        .turn()
        .call("c1", "fs")
        .ask("c1.q.1", boolean())
        .answer("c1.q.1", json!(true))
        .done("c1")
}

/// Rule: CHECK-ID-FORMAT — auto judges each turn by what it shows: a legacy
/// turn before an RFD 082 turn is clean (the stream healed), while an
/// explicit rfd082 judges the legacy turn as an RFD 082 writer's.
#[test]
fn auto_judges_each_turn_by_what_it_shows() {
    let s = legacy_then_tagged();
    let c = run(&s, AUTO);
    assert!(c.diagnostics.is_empty(), "{}", lines(&c));
    assert_eq!(c.summary.profile, Profile::Rfd082);
    assert!(c.summary.mixed);
    assert_eq!(
        c.summary.turns_by_profile,
        TurnsByProfile {
            legacy: 1,
            rfd082: 1,
            rfd083: 0
        }
    );
    assert_eq!(
        found(&s, R082),
        [
            (Rule::CheckIdFormat, 0, 2),
            (Rule::CheckResponseTagged, 0, 3)
        ]
    );
}

/// Rule: CHECK-ID-FORMAT — under auto a turn that shows nothing (no response
/// written) is judged like the turn before it.
#[test]
fn auto_turn_without_evidence_inherits_previous_turn() {
    let s = in_call(|s| s.ask("c1.q.1", boolean()).answer("c1.q.1", json!(true)))
        .turn()
        .call("c2", "fs")
        .ask("c2.q.x", boolean())
        .done("c2");
    assert_eq!(
        found(&s, AUTO),
        [(Rule::CheckIdFormat, 1, 7), (Rule::CheckPaired, 1, 7)]
    );
    // The same orphan after a legacy turn is judged legacy: no format rule.
    let s = in_call(|s| s.ask("c1.q", boolean()).flat("c1.q", json!(true)))
        .turn()
        .call("c2", "fs")
        .ask("c2.q.x", boolean())
        .done("c2");
    assert_eq!(found(&s, AUTO), [(Rule::CheckPaired, 1, 7)]);
}

/// Rule: CHECK-TURN-UNIQUE-ID — a legacy turn after an RFD 082 turn (an older
/// writer on the same conversation) keeps the legacy rules under auto.
#[test]
fn auto_legacy_turn_after_tagged_turn_stays_legacy() {
    let s = in_call(|s| s.ask("c1.q.1", boolean()).answer("c1.q.1", json!(true)))
        .turn()
        .call("c2", "fs")
        .ask("c2.q", boolean())
        .flat("c2.q", json!(true))
        .ask("c2.q", boolean())
        .flat("c2.q", json!(false))
        .done("c2");
    clean(&s, AUTO);
}

/// Rule: CHECK-PAIRED — unknown event kinds are kept and judged by no rule.
#[test]
fn unknown_event_kinds_are_legal() {
    let s = in_call(|s| {
        s.push(json!({"type": "config_delta", "delta": {}}))
            .ask("c1.q.1", boolean())
            .push(json!({"type": "some_future_event", "x": [1, 2]}))
            .answer("c1.q.1", json!(true))
    })
    .chat();
    for mode in [AUTO, R082, R083] {
        clean(&s, mode);
    }
    assert_eq!(run(&s, AUTO).summary.events, 8);
}

/// Rule: CHECK-PAIRED — the implicit leading turn (events before the first
/// `turn_start`) is turn 0; the first marker then opens turn 1.
#[test]
fn turns_count_from_the_implicit_leading_turn() {
    let s = S::new()
        .push(json!({"type": "config_delta"}))
        .turn()
        .call("c1", "fs")
        .ask("c1.q.1", boolean())
        .done("c1");
    let c = run(&s, AUTO);
    assert_eq!(found(&s, AUTO), [(Rule::CheckPaired, 1, 3)]);
    assert_eq!(c.summary.turns, 2);
    assert_eq!(c.summary.events, 5);
}

/// Rule: CHECK-PAIRED — a stream cut inside its last event reports what
/// was found before the cut and the cut (CHECK-EVENT-WELL-FORMED, where the
/// cut event starts), but not the unpaired requests of the unfinished turn
/// (the rest was never written).
#[test]
fn read_error_keeps_earlier_findings() {
    let mut bytes = in_call(|s| s.ask("c1.q.1", boolean()).redact("c1.q.1"))
        .call("c2", "fs")
        .ask("c2.q.1", boolean())
        .bytes();
    bytes.extend_from_slice(b"{\"type\": \"inquiry_response\", \"id\": ");
    let c = check_bytes(&bytes, "cut.jsonl", R082);
    assert_eq!(c.error, None, "read past the cut");
    let got: Vec<_> = c
        .diagnostics
        .iter()
        .map(|d| (d.rule, d.turn, d.event_index))
        .collect();
    assert_eq!(
        got,
        [
            (Rule::CheckRedactedOnlySecret, 0, 3),
            (Rule::CheckEventWellFormed, 0, 7)
        ]
    );
    assert_eq!(c.diagnostics[1].position.map(|p| p.line), Some(8));
    assert_eq!(c.summary.events, 8);
}

/// Rule: CHECK-EVENT-WELL-FORMED — an event that reads as JSON but not as
/// an event (unknown outcome) is a finding naming the event, its line and
/// the reader's reason.
#[test]
fn typing_error_names_the_event() {
    let mut bytes = in_call(|s| s.ask("c1.q.1", boolean())).bytes();
    bytes.extend_from_slice(
        b"{\"type\":\"inquiry_response\",\"id\":\"c1.q.1\",\"outcome\":\"maybe\"}\n",
    );
    let c = check_bytes(&bytes, "bad.jsonl", AUTO);
    assert_eq!(c.error, None);
    let bad = c
        .diagnostics
        .iter()
        .find(|d| d.rule == Rule::CheckEventWellFormed)
        .expect("unknown outcome is a finding");
    assert_eq!(bad.event_index, 4);
    assert_eq!(bad.position.map(|p| p.line), Some(5));
    assert!(
        bad.message
            .contains("unknown inquiry_response outcome `maybe`"),
        "{}",
        bad.message
    );
}

/// Rule: CHECK-PAIRED — IDs holding control characters are escaped, so a
/// diagnostic still prints as one line; the `ids` keep the ID as written.
#[test]
fn diagnostics_stay_on_one_line() {
    let id = "c1.q\n2\u{1b}[31m.1";
    let s = in_call(|s| s.ask(id, boolean()));
    let c = run(&s, AUTO);
    assert_eq!(c.diagnostics.len(), 1);
    let d = &c.diagnostics[0];
    assert_eq!(d.ids, [id]);
    let line = d.to_string();
    assert_eq!(line.lines().count(), 1, "{line}");
    assert!(!line.contains('\u{1b}'), "{line}");
    assert!(line.contains("c1.q\\n2\\u{1b}[31m.1"), "{line}");
}

/// Rule: CHECK-PAIRED — the escaping that keeps a diagnostic on one line
/// looks at every character: for each Unicode scalar value, a message
/// holding it between two letters is escaped exactly when the character is
/// a control, a line or paragraph separator, or a bidi mark or override
/// (the list written out here again), whatever byte filter decides when
/// characters need decoding at all.
#[test]
fn every_character_that_breaks_a_line_is_escaped() {
    let breaks = |c: char| {
        c.is_control()
            || matches!(
                c as u32,
                0x2028 | 0x2029 | 0x061c | 0x200e | 0x200f | 0x202a..=0x202e | 0x2066..=0x2069
            )
    };
    let mut escaped = 0;
    for c in (0..=0x10_ffff).filter_map(char::from_u32) {
        let message = format!("a{c}b");
        let line = super::diagnostic::one_line(message.clone());
        assert_eq!(line != message, breaks(c), "U+{:04X}", c as u32);
        escaped += usize::from(line != message);
    }
    assert_eq!(escaped, 65 + 2 + 3 + 5 + 4);
}

// ---------------------------------------------------------------------------
// Fixtures and bundled examples
// ---------------------------------------------------------------------------

fn stream_files(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json" || e == "jsonl"))
        .collect();
    files.sort();
    files
}

fn check_file(path: &Path, mode: ProfileMode) -> Checked {
    let bytes = std::fs::read(path).unwrap();
    check_bytes(&bytes, &path.display().to_string(), mode)
}

/// Rule: CHECK-PAIRED — every pre-082 stream (the committed corpus, and
/// the real streams when enabled) is clean under auto and judged legacy (and
/// clean under an explicit legacy profile).
#[test]
fn fixtures_are_clean_and_judged_legacy() {
    for f in external::legacy_stream_files("check_rules::fixtures_are_clean_and_judged_legacy") {
        let c = check_file(&f, AUTO);
        assert_eq!(c.error, None, "{}", f.display());
        assert!(c.diagnostics.is_empty(), "{}", lines(&c));
        assert_eq!(c.summary.profile, Profile::Legacy, "{}", f.display());
        assert!(!c.summary.mixed);
        assert!(c.summary.events > 0);
        let legacy = check_file(&f, LEGACY);
        assert!(legacy.diagnostics.is_empty(), "{}", lines(&legacy));
    }
}

/// Rule: CHECK-ID-FORMAT — the fixtures were not written by an RFD 082
/// writer: judged as one, each inquiry is flagged (its ID and its flat
/// response), which shows the explicit profile is strict.
#[test]
fn fixtures_fail_an_explicit_rfd082_profile() {
    // The committed corpus: every request's two-segment ID (or, when a
    // question was asked again, its repeat in the turn) and every flat
    // response is one finding, found by a plain walk over the JSON.
    for f in external::corpus_files() {
        let events = fixture_events(&f);
        let mut seen = std::collections::HashSet::new();
        let want: Vec<_> = events
            .iter()
            .enumerate()
            .filter_map(|(i, e)| match e["type"].as_str() {
                Some("inquiry_request") => {
                    let first = seen.insert((turn_of(&events, i), e["id"].as_str().unwrap()));
                    let rule = if first {
                        Rule::CheckIdFormat
                    } else {
                        Rule::CheckTurnUniqueId
                    };
                    Some((rule, turn_of(&events, i), i))
                }
                Some("inquiry_response") => {
                    Some((Rule::CheckResponseTagged, turn_of(&events, i), i))
                }
                _ => None,
            })
            .collect();
        let got: Vec<_> = check_file(&f, R082)
            .diagnostics
            .iter()
            .map(|d| (d.rule, d.turn, d.event_index))
            .collect();
        assert_eq!(got, want, "{}", f.display());
    }
    // A real stream, positions read off the file by hand.
    let Some(dir) = external::real_streams("check_rules::fixtures_fail_an_explicit_rfd082_profile")
    else {
        return;
    };
    let f = dir.join("17727484633-preventing-rfd-summary-regeneration-churn.json");
    let got: Vec<_> = check_file(&f, R082)
        .diagnostics
        .iter()
        .map(|d| (d.rule, d.turn, d.event_index))
        .collect();
    assert_eq!(
        got,
        [
            (Rule::CheckIdFormat, 1, 17),
            (Rule::CheckResponseTagged, 1, 18),
            (Rule::CheckIdFormat, 1, 22),
            (Rule::CheckResponseTagged, 1, 23)
        ]
    );
}

/// Rule: CHECK-PAIRED — the bundled example streams are clean under auto and
/// under the profile their turns show.
#[test]
fn bundled_examples_are_clean() {
    let files = stream_files(EXAMPLES);
    assert!(!files.is_empty());
    for f in files {
        let c = check_file(&f, AUTO);
        assert_eq!(c.error, None);
        assert!(c.diagnostics.is_empty(), "{}", lines(&c));
        assert!(!c.summary.mixed);
        let fixed = check_file(&f, ProfileMode::Fixed(c.summary.profile));
        assert!(fixed.diagnostics.is_empty(), "{}", lines(&fixed));
    }
}

// ---------------------------------------------------------------------------
// Damaged copies of a fixture
// ---------------------------------------------------------------------------

/// The name damaged copies are checked under.
const DAMAGED: &str = "damaged.json";

/// The streams the damage tests start from: one of the committed corpus
/// (clean, legacy, with inquiries), and one real stream when
/// `INQUIRY_MODEL_REAL_STREAMS` names their folder.
fn damage_sources(test: &str) -> Vec<PathBuf> {
    let mut sources = vec![external::corpus_dir().join("01-read-and-modify.json")];
    if let Some(dir) = external::real_streams(test) {
        sources.push(dir.join("17727391057-managing-jp-conversations-in-git-worktrees.json"));
    }
    sources
}

fn fixture_events(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn to_bytes(events: &[Value]) -> Vec<u8> {
    serde_json::to_vec(events).unwrap()
}

fn is(e: &Value, kind: &str) -> bool {
    e["type"] == kind
}

/// The turn of event `i`, counted independently of the checker: every
/// `turn_start` after the first event opens the next turn.
fn turn_of(events: &[Value], i: usize) -> usize {
    events[1..=i].iter().filter(|e| is(e, "turn_start")).count()
}

fn first(events: &[Value], kind: &str) -> usize {
    events.iter().position(|e| is(e, kind)).unwrap()
}

/// The fixture as an RFD 082 writer would have written it: attempt `.1`
/// appended to every inquiry ID, every response tagged `answered`.
fn healed(path: &Path) -> Vec<Value> {
    let mut events = fixture_events(path);
    for e in &mut events {
        if is(e, "inquiry_request") || is(e, "inquiry_response") {
            let id = format!("{}.1", e["id"].as_str().unwrap());
            e["id"] = json!(id);
        }
        if is(e, "inquiry_response") {
            e["outcome"] = json!("answered");
        }
    }
    events
}

fn damaged_findings(events: &[Value], mode: ProfileMode) -> Vec<(Rule, usize, usize)> {
    let c = check_bytes(&to_bytes(events), DAMAGED, mode);
    assert_eq!(c.error, None);
    c.diagnostics
        .iter()
        .map(|d| (d.rule, d.turn, d.event_index))
        .collect()
}

/// Rule: CHECK-ID-FORMAT — the healed fixture is clean under RFD 082 (so the
/// damage tests below see only their damage).
#[test]
fn healed_fixture_is_clean_under_rfd082() {
    for src in damage_sources("check_rules::healed_fixture_is_clean_under_rfd082") {
        let events = healed(&src);
        assert!(damaged_findings(&events, R082).is_empty());
        assert!(damaged_findings(&events, AUTO).is_empty());
        let c = check_bytes(&to_bytes(&events), DAMAGED, AUTO);
        assert_eq!(c.summary.profile, Profile::Rfd082);
    }
}

/// Rule: CHECK-PAIRED — removing one response from the real fixture leaves
/// exactly one finding: its request, unpaired.
#[test]
fn damaged_fixture_orphaned_request() {
    for src in damage_sources("check_rules::damaged_fixture_orphaned_request") {
        let mut events = fixture_events(&src);
        let resp = first(&events, "inquiry_response");
        let req = first(&events, "inquiry_request");
        events.remove(resp);
        let want = [(Rule::CheckPaired, turn_of(&events, req), req)];
        assert_eq!(damaged_findings(&events, AUTO), want);
        assert_eq!(damaged_findings(&events, LEGACY), want);
    }
}

/// Rule: CHECK-TURN-UNIQUE-ID — a copy of one inquiry pair inserted right
/// after it (same ID, same call) is exactly one finding under RFD 082.
#[test]
fn damaged_fixture_duplicated_id_under_rfd082() {
    for src in damage_sources("check_rules::damaged_fixture_duplicated_id_under_rfd082") {
        let mut events = healed(&src);
        let req = first(&events, "inquiry_request");
        assert!(is(&events[req + 1], "inquiry_response"));
        let pair = [events[req].clone(), events[req + 1].clone()];
        events.splice(req + 2..req + 2, pair);
        let want = [(Rule::CheckTurnUniqueId, turn_of(&events, req + 2), req + 2)];
        assert_eq!(damaged_findings(&events, R082), want);
    }
}

/// Rule: CHECK-SECRET-NOT-ANSWERED — one question made secret while its
/// response stays `answered` is exactly one finding, at the response.
#[test]
fn damaged_fixture_secret_answered() {
    for src in damage_sources("check_rules::damaged_fixture_secret_answered") {
        let mut events = healed(&src);
        let req = first(&events, "inquiry_request");
        events[req]["question"]["answer_type"] = json!({"type": "secret"});
        let want = [(
            Rule::CheckSecretNotAnswered,
            turn_of(&events, req + 1),
            req + 1,
        )];
        assert_eq!(damaged_findings(&events, AUTO), want);
        assert_eq!(damaged_findings(&events, R082), want);
    }
}

/// Rule: CHECK-SECRET-NOT-ANSWERED — typed events (the model's traces) are
/// judged like the same events read from disk when written canonically.
#[test]
fn typed_events_are_judged_like_their_bytes() {
    for src in damage_sources("check_rules::typed_events_are_judged_like_their_bytes") {
        let mut secret = healed(&src);
        let req = first(&secret, "inquiry_request");
        secret[req]["question"]["answer_type"] = json!({"type": "secret"});
        for events in [healed(&src), secret] {
            let bytes = to_bytes(&events);
            let stream = Stream::from_slice(&bytes, DAMAGED).unwrap();
            for mode in [AUTO, R082, R083] {
                let typed = check_events(&stream.events, DAMAGED, mode);
                let raw = check_bytes(&bytes, DAMAGED, mode);
                // Only bytes have positions; the judgment is the same.
                assert!(typed.diagnostics.iter().all(|d| d.position.is_none()));
                assert!(raw.diagnostics.iter().all(|d| d.position.is_some()));
                let unplaced: Vec<_> = raw
                    .diagnostics
                    .into_iter()
                    .map(|d| Diagnostic {
                        position: None,
                        ..d
                    })
                    .collect();
                assert_eq!(typed.diagnostics, unplaced, "{mode}");
                assert_eq!(typed.summary, raw.summary, "{mode}");
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Messages and the catalog
// ---------------------------------------------------------------------------

/// Every rule's message as a person reads it, one
/// line each (snapshot, reviewed).
#[test]
fn diagnostic_lines_read_well() {
    let cases: Vec<(ProfileMode, S)> = vec![
        (R082, in_call(|s| s.ask("c1.q.1", boolean()))),
        (
            R083,
            S::new()
                .turn()
                .call("c1", "ask_user")
                .ask_from(
                    "c1.branch.1",
                    json!({"source": "assistant"}),
                    json!({"text": "Which branch?", "answer_type": {"type": "text"}, "exclusive": true, "persistence": "none"}),
                )
                .answer("c1.branch.1", json!("main"))
                .done("c1"),
        ),
        (
            R082,
            S::new()
                .turn()
                .call("c1", "fs")
                .push(json!({"type": "chat_response", "message": "b2s="}))
                .done("c1"),
        ),
        (
            R082,
            in_call(|s| s.answer("c1.q.1", json!(true)).ask("c1.q.1", boolean())),
        ),
        (
            R082,
            in_call(|s| s.ask("c1.q.1", boolean()))
                .turn()
                .call("c1", "fs")
                .answer("c1.q.1", json!(1))
                .done("c1"),
        ),
        (
            R082,
            S::new()
                .turn()
                .ask("c1.q.1", boolean())
                .answer("c1.q.1", json!(true)),
        ),
        (
            R082,
            S::new()
                .turn()
                .call("c1", "fs_read")
                .ask_from(
                    "c1.q.1",
                    json!({"source": "tool", "name": "fs_modify_file"}),
                    boolean(),
                )
                .answer("c1.q.1", json!(true))
                .done("c1"),
        ),
        (
            R082,
            S::new()
                .turn()
                .call("c1", "fs")
                .ask("c1.q.1", boolean())
                .done("c1")
                .answer("c1.q.1", json!(true)),
        ),
        (R082, repeated(|s, id| s.answer(id, json!(true)), "c1.q.1")),
        (
            R082,
            in_call(|s| s.ask("c1.q", boolean()).cancel("c1.q", "user")),
        ),
        (
            R082,
            in_call(|s| s.ask("c2.q.1", boolean()).answer("c2.q.1", json!(true))),
        ),
        (
            R082,
            in_call(|s| {
                s.ask("c1.q.2", boolean())
                    .answer("c1.q.2", json!(true))
                    .ask("c1.q.1", boolean())
                    .answer("c1.q.1", json!(true))
            }),
        ),
        (
            R082,
            in_call(|s| {
                s.ask("c1.pass.1", secret())
                    .answer("c1.pass.1", json!("hunter2"))
            }),
        ),
        (
            R082,
            in_call(|s| {
                s.ask("c1.pass.1", secret()).push(json!({"type": "inquiry_response", "outcome": "redacted", "id": "c1.pass.1", "answer": "hunter2"}))
            }),
        ),
        (
            R082,
            in_call(|s| {
                s.ask("c1.q.1", boolean()).push(json!({"type": "inquiry_response", "outcome": "cancelled", "id": "c1.q.1", "answer": true}))
            }),
        ),
        (
            R082,
            in_call(|s| s.ask("c1.q.1", boolean()).redact("c1.q.1")),
        ),
        (
            R083,
            in_call(|s| {
                s.ask("c1.q.1", boolean())
                    .cancel("c1.q.1", "no_prompt_backend")
            }),
        ),
        (
            R082,
            in_call(|s| {
                s.ask("c1.pass.1", secret())
                    .cancel("c1.pass.1", "backend_error")
            }),
        ),
        (
            R082,
            in_call(|s| {
                s.ask("c1.q.1", boolean())
                    .cancel("c1.q.1", "invalid_static_answer")
            }),
        ),
        (
            LEGACY,
            in_call(|s| s.ask("c1.q", secret()).answer("c1.q", json!("x"))),
        ),
        (
            R082,
            in_call(|s| {
                s.ask("c1.keep.1", exclusive())
                    .answer("c1.keep.1", json!(true))
            }),
        ),
        (
            R083,
            in_call(|s| s.ask("c1.q.1", boolean()).flat("c1.q.1", json!(true))),
        ),
        // The pairing, writer and shape rules.
        (
            AUTO,
            in_call(|s| {
                s.ask("c1.a.1", boolean())
                    .answer("c1.a.1", json!(true))
                    .ask("c1.b", boolean())
                    .answer("c1.b", json!(true))
            }),
        ),
        (AUTO, S::new().turn().call("c1", "fs").done("c1").done("c1")),
        (
            R082,
            in_call(|s| s.ask("c1.q.1", boolean()).cancel("c1.q.1", "zzz")),
        ),
        (
            R082,
            in_call(|s| {
                s.ask("c1.pass.1", secret()).push(json!({"type": "inquiry_response", "outcome": "redacted", "id": "c1.pass.1", "reason": "user"}))
            }),
        ),
        (
            AUTO,
            in_call(|s| s.ask("c1.q.1", boolean()).answer("c1.q.1", json!("hunter2"))),
        ),
        (
            AUTO,
            S::new()
                .turn()
                .call("c1", "ask_user")
                .ask_from("c1.q.1", json!({"source": "assistant"}), boolean())
                .cancel("c1.q.1", "user")
                .done("c1"),
        ),
        (
            AUTO,
            in_call(|s| {
                s.ask_from("c1.q.1", json!({"source": "assistant"}), exclusive())
                    .cancel("c1.q.1", "user")
            }),
        ),
        (
            AUTO,
            S::new()
                .turn()
                .call("c1", "fs")
                .ask("c1.q.1", boolean())
                .cancel("c1.q.1", "backend_error")
                .push(json!({"type": "tool_call_response", "id": "c1", "content": "ok", "is_error": false})),
        ),
        (
            AUTO,
            in_call(|s| {
                s.ask("c1.a.1", boolean())
                    .ask("c1.b.1", boolean())
                    .answer("c1.a.1", json!(true))
                    .answer("c1.b.1", json!(true))
            }),
        ),
        (
            R083,
            in_call(|s| {
                s.ask("c1.q.1", boolean())
                    .push(json!({"type": "inquiry_response", "outcome": "cancelled", "id": "c1.q.1"}))
            }),
        ),
        (
            AUTO,
            in_call(|s| {
                s.ask("c1.q.1", boolean())
                    .push(json!({"type": "inquiry_response", "outcome": "answered", "id": "c1.q.1"}))
            }),
        ),
    ];
    let mut out = String::new();
    for (mode, s) in cases {
        let c = check_bytes(&s.bytes(), "events.json", mode);
        assert!(!c.diagnostics.is_empty(), "every case breaks a rule");
        for d in &c.diagnostics {
            out.push_str(&format!("[{mode}] {d}\n"));
        }
    }
    assert!(!out.contains("hunter2"));
    let seen: std::collections::BTreeSet<&str> =
        out.lines().filter_map(|l| l.split(": ").nth(3)).collect();
    for (id, _) in r::ALL {
        assert!(seen.contains(id.id()), "no case shows {id}");
    }
    insta::assert_snapshot!(out);
}

/// The catalog section "Oracle checks" lists exactly the
/// rules the checker judges, each with a test that exists.
#[test]
fn catalog_lists_every_check_rule() {
    let catalog = std::fs::read_to_string("spec/RULES.md").unwrap();
    let start = catalog.find("## Oracle checks").expect("section exists");
    let section = &catalog[start..];
    let end = section[3..].find("\n## ").map_or(section.len(), |i| i + 3);
    let section = &section[..end];
    let rows: Vec<&str> = section
        .lines()
        .filter(|l| l.starts_with("| CHECK-"))
        .collect();
    let ids: Vec<&str> = rows
        .iter()
        .map(|l| l.trim_start_matches("| ").split(' ').next().unwrap())
        .collect();
    let mut want: Vec<&str> = r::ALL.iter().map(|(id, _)| id.id()).collect();
    let mut got = ids.clone();
    want.sort_unstable();
    got.sort_unstable();
    assert_eq!(got, want, "catalog rows vs check::rules::ALL");
    fn rust_files(dir: &std::path::Path, out: &mut String) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                rust_files(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push_str(&std::fs::read_to_string(p).unwrap());
            }
        }
    }
    let mut sources = String::new();
    rust_files(std::path::Path::new("tests"), &mut sources);
    // Unit-test modules of the crate (`src/**/*_tests.rs`) hold tests too.
    rust_files(std::path::Path::new("src"), &mut sources);
    for row in rows {
        let tests = row.rsplit('|').nth(1).unwrap();
        let names: Vec<&str> = tests.split('`').skip(1).step_by(2).collect();
        assert!(!names.is_empty(), "row without tests: {row}");
        for n in names {
            assert!(sources.contains(&format!("fn {n}(")), "missing test {n}");
        }
    }
}

/// Rules: PERF-CHECK-DEFERRED, CHECK-PLACEMENT, CHECK-PAIRED, CHECK-RESPONSE-AFTER-REQUEST — the
/// findings a huge turn holds as tags until the turn ends (a request in no
/// open call, a request left unanswered) are written at the flush, in event
/// order, each event's findings in the order found, beside findings written
/// when found; and with the ID of their own request, not a neighbour's.
#[test]
fn deferred_findings_flush_in_event_order_with_their_own_ids() {
    let s = S::new()
        .turn()
        .answer("x.q.1", json!(true)) // 1: before its request
        .ask("a.q.1", boolean()) // 2: no call, never answered
        .ask("x.q.1", boolean()) // 3: no call; answered early at 1
        .call("c1", "fs") // 4
        .ask("c1.q.1", boolean()) // 5: placed, answered at 6
        .answer("c1.q.1", json!(true)) // 6
        .done("c1") // 7
        .ask("b.q.1", boolean()) // 8: no call, never answered
        .turn() // 9
        .ask("a.q.1", boolean()); // 10: no call, never answered (last turn)
    let c = run(&s, R082);
    let got: Vec<(Rule, usize, usize, String)> = c
        .diagnostics
        .iter()
        .map(|d| (d.rule, d.turn, d.event_index, d.ids.join(",")))
        .collect();
    let want: Vec<(Rule, usize, usize, String)> = vec![
        (Rule::CheckResponseAfterRequest, 0, 1, "x.q.1".into()),
        (Rule::CheckPlacement, 0, 2, "a.q.1".into()),
        (Rule::CheckPaired, 0, 2, "a.q.1".into()),
        (Rule::CheckPlacement, 0, 3, "x.q.1".into()),
        (Rule::CheckPlacement, 0, 8, "b.q.1".into()),
        (Rule::CheckPaired, 0, 8, "b.q.1".into()),
        (Rule::CheckPlacement, 1, 10, "a.q.1".into()),
        (Rule::CheckPaired, 1, 10, "a.q.1".into()),
    ];
    assert_eq!(got, want);
    assert!(
        c.diagnostics[1]
            .message
            .contains("`a.q.1` is not inside an open tool call"),
        "{}",
        c.diagnostics[1].message
    );
    assert!(
        c.diagnostics[2]
            .message
            .contains("`a.q.1` has no response in its turn"),
        "{}",
        c.diagnostics[2].message
    );
    assert_eq!(c.summary.diagnostics, want.len());
}

/// Rule: CLI-CHECK-POSITIONS — a diagnostic names the line and byte column
/// where its event starts, counted as the reader counts them. The stream is
/// a pretty array written by hand, so the expected positions are read off
/// the text below, not computed by the reader.
#[test]
fn diagnostics_carry_the_position_of_their_event() {
    let text = concat!(
        "[\n",
        "  {\"type\": \"turn_start\"},\n",
        "  {\"type\": \"tool_call_request\", \"id\": \"c1\", \"name\": \"fs\"},\n",
        "    {\"type\": \"inquiry_request\", \"id\": \"c1.q.1\",\n",
        "     \"source\": {\"source\": \"tool\", \"name\": \"fs\"},\n",
        "     \"question\": {\"text\": \"?\", \"answer_type\": {\"type\": \"boolean\"}}},\n",
        "  {\"type\": \"tool_call_response\", \"id\": \"c1\"}\n",
        "]\n",
    );
    let c = check_bytes(text.as_bytes(), "pretty.json", R082);
    assert_eq!(c.error, None);
    let paired = c
        .diagnostics
        .iter()
        .find(|d| d.rule == Rule::CheckPaired)
        .expect("the request is unanswered");
    assert_eq!(paired.event_index, 2);
    assert_eq!(paired.position, Some(Position { line: 4, column: 5 }));
    assert!(
        paired
            .to_string()
            .starts_with("pretty.json: turn 0, event 2 (line 4, column 5): "),
        "{paired}"
    );
}
