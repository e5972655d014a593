//! Kinds of stream the RFD texts forbid that a clean `check` used to pass:
//! each a hand-built violation with the exact findings, and its legal
//! neighbour clean. The RFD sentence that decides each is cited on the test.

use super::check_support_tests as check_support;

use crate::rule::Rule;
use check_support::*;
use serde_json::{Value, json};

/// An RFD 083 question (its `context` shows an RFD 083 writer under auto).
fn q083() -> Value {
    json!({"text": "Apply the patch?", "answer_type": {"type": "boolean"}, "context": "diff"})
}

// ---------------------------------------------------------------------------
// CHECK-PROVENANCE: `source: user` and `source: other`
// ---------------------------------------------------------------------------

/// Rule: CHECK-PROVENANCE — RFD 082 "Source attribution": "For MCP tools
/// and local tools, the wrapping code path always constructs
/// `InquirySource::Tool { name }`", and only RFD 083's `ask_user` overrides
/// the built-in default to `Assistant`; so `source: user` and `source:
/// other` are errors under rfd083 and in a turn auto judges RFD 083's, a
/// warning in another auto turn. The same question from `source: tool` is
/// clean.
#[test]
fn provenance_reports_user_and_other_sources_under_rfd083() {
    for source in [
        json!({"source": "user"}),
        json!({"source": "other", "name": "ci"}),
    ] {
        let s = in_call(|s| {
            s.ask_from("c1.q.1", source.clone(), q083())
                .answer("c1.q.1", json!(true))
        });
        assert_eq!(
            found(&s, R083),
            [(Rule::CheckProvenance, E, 0, 2)],
            "{source}"
        );
        assert_eq!(
            found(&s, AUTO),
            [(Rule::CheckProvenance, E, 0, 2)],
            "{source}"
        );
        let plain = in_call(|s| {
            s.ask_from("c1.q.1", source.clone(), boolean())
                .answer("c1.q.1", json!(true))
        });
        assert_eq!(
            found(&plain, AUTO),
            [(Rule::CheckProvenance, W, 0, 2)],
            "{source}"
        );
    }
    let tool = in_call(|s| s.ask("c1.q.1", q083()).answer("c1.q.1", json!(true)));
    clean(&tool, R083);
    clean(&tool, AUTO);
}

// ---------------------------------------------------------------------------
// CHECK-WRITER-FIELDS: `null` for `reason` or `outcome`
// ---------------------------------------------------------------------------

/// Rule: CHECK-WRITER-FIELDS — RFD 082 "`InquiryResponse` serialization":
/// "The on-disk shape is always `{"reason": "<tag>"}`" and "every new write
/// produces the tagged form". A `"reason": null` or `"outcome": null` reads
/// as absent (decision "Wire: a null reason or outcome reads as absent"),
/// so auto accepts it, but an explicit rfd082/rfd083 writer never writes
/// it: an error there. The string forms are clean.
#[test]
fn writer_fields_reports_null_reason_and_outcome_under_explicit_profiles() {
    let null_reason = in_call(|s| {
        s.ask("c1.q.1", boolean()).push(
            json!({"type": "inquiry_response", "outcome": "cancelled", "id": "c1.q.1", "reason": null}),
        )
    });
    let null_outcome = in_call(|s| {
        s.ask("c1.q.1", boolean()).push(
            json!({"type": "inquiry_response", "outcome": null, "id": "c1.q.1", "answer": true}),
        )
    });
    for s in [&null_reason, &null_outcome] {
        assert_eq!(found(s, R082), [(Rule::CheckWriterFields, E, 0, 3)]);
        assert_eq!(found(s, R083), [(Rule::CheckWriterFields, E, 0, 3)]);
        clean(s, AUTO);
    }
    let tagged = in_call(|s| s.ask("c1.q.1", boolean()).cancel("c1.q.1", "user"));
    clean(&tagged, R082);
}

// ---------------------------------------------------------------------------
// CHECK-ONE-QUESTION: no question after `backend_error`
// ---------------------------------------------------------------------------

/// Rule: CHECK-ONE-QUESTION — RFD 028 "On failure, mark the tool as
/// completed with an error" (RFD 082 "Recording lifecycle" step 6 records
/// the failure as `backend_error`): the call is over, so the same call
/// asking again is an error at the second request, as after a routing
/// guard. Asking again after a `user` cancellation (the tool runs again
/// and may ask, decision "Oracle checks: a `user` cancellation says
/// nothing about the tool's outcome") stays clean.
#[test]
fn one_question_reports_a_question_after_backend_error() {
    let s = S::new()
        .turn()
        .call("c1", "fs")
        .ask("c1.q.1", boolean())
        .cancel("c1.q.1", "backend_error")
        .ask("c1.q.2", boolean())
        .answer("c1.q.2", json!(true))
        .failed("c1");
    assert_eq!(found(&s, AUTO), [(Rule::CheckOneQuestion, E, 0, 4)]);
    assert_eq!(found(&s, R082), [(Rule::CheckOneQuestion, E, 0, 4)]);
    let user = S::new()
        .turn()
        .call("c1", "fs")
        .ask("c1.q.1", boolean())
        .cancel("c1.q.1", "user")
        .ask("c1.q.2", boolean())
        .answer("c1.q.2", json!(true))
        .done("c1");
    clean(&user, AUTO);
}

// ---------------------------------------------------------------------------
// CHECK-TOOL-ADJACENT
// ---------------------------------------------------------------------------

/// Rule: CHECK-TOOL-ADJACENT — RFD 004/005 draft: the provider contract
/// "requires tool call requests to be immediately followed by tool call
/// responses". A `chat_response` or `chat_request` between a call's
/// request and its response is an error under every profile, at the chat
/// event, once per call (a call left open across two chat events is
/// reported at the first).
#[test]
fn tool_adjacent_reports_a_chat_event_inside_a_call() {
    for chat in [
        json!({"type": "chat_response", "message": "thinking"}),
        json!({"type": "chat_request", "content": "go on"}),
    ] {
        let s = S::new()
            .turn()
            .call("c1", "fs")
            .push(chat.clone())
            .push(chat.clone())
            .done("c1");
        for mode in [AUTO, LEGACY, R082, R083] {
            assert_eq!(
                found(&s, mode),
                [(Rule::CheckToolAdjacent, E, 0, 2)],
                "{chat}"
            );
        }
    }
    // An interrupted call followed by the turn's chat: unanswered, and
    // spanning the chat event.
    let open = S::new().turn().call("c1", "fs").reply();
    assert_eq!(
        found(&open, AUTO),
        [
            (Rule::CheckToolPaired, E, 0, 1),
            (Rule::CheckToolAdjacent, E, 0, 2)
        ]
    );
}

/// Rule: CHECK-TOOL-ADJACENT — what may sit between a call's request and
/// its response: its inquiry pairs (RFD 082 records them there and filters
/// them from the provider's view), other calls of the same assistant
/// message (parallel calls, answered in any order), and kinds no provider
/// sees (`config_delta`, RFD 004/005 draft "Event Visibility"). A chat event
/// after the response is the next cycle.
#[test]
fn tool_adjacent_accepts_inquiries_parallel_calls_and_invisible_kinds() {
    let s = S::new()
        .turn()
        .chat()
        .call("a", "fs")
        .call("b", "git")
        .ask_from("a.q.1", tool("fs"), boolean())
        .answer("a.q.1", json!(true))
        .push(json!({"type": "config_delta", "delta": {}}))
        .done("b")
        .done("a")
        .reply()
        .call("a", "fs")
        .done("a")
        .reply();
    // (Not legacy: a pre-082 writer writes the answer flat.)
    for mode in [AUTO, R082, R083] {
        clean(&s, mode);
    }
}

// ---------------------------------------------------------------------------
// Select options in the real writer's shapes
// ---------------------------------------------------------------------------

/// The options as `jp_tool` and others write them: plain strings (RFD 082
/// Phase 3: `jp_tool`'s select wire shape "matches `InquiryAnswerType`",
/// whose options are `Vec<String>`), a number, an object with a member this
/// crate does not know, members in another order, a `null` description.
const OPTIONS: &str = r#"["main",2,{"label":"Dev","value":"dev"},{"description":"X","value":"x"},{"value":"y","description":null}]"#;

fn select_request(options: &str) -> String {
    format!(
        r#"{{"type":"inquiry_request","id":"c1.q.1","source":{{"source":"tool","name":"fs"}},"question":{{"text":"Branch?","answer_type":{{"type":"select","options":{options}}}}}}}"#
    )
}

fn select_stream(answer: &str) -> String {
    [
        r#"{"type":"turn_start"}"#.to_owned(),
        r#"{"type":"tool_call_request","id":"c1","name":"fs","arguments":{}}"#.to_owned(),
        select_request(OPTIONS),
        format!(
            r#"{{"type":"inquiry_response","outcome":"answered","id":"c1.q.1","answer":{answer}}}"#
        ),
        r#"{"type":"tool_call_response","id":"c1","content":"ok","is_error":false}"#.to_owned(),
    ]
    .join("\n")
        + "\n"
}

/// Rule: WIRE-ANSWER-TYPE-SHAPE — a select question whose options are in
/// the real writer's shapes reads (it made the whole file unusable, exit
/// 2), and the crate's writers and `sanitize` write each option back byte
/// for byte as read.
#[test]
fn select_options_in_the_writers_shapes_read_and_round_trip_byte_for_byte() {
    use crate::wire::Stream;
    let text = select_stream(r#""main""#);
    let stream = Stream::from_slice(text.as_bytes(), "x").expect("the writer's shapes read");
    let mut lines = Vec::new();
    stream.write_json_lines(&mut lines).unwrap();
    let lines = String::from_utf8(lines).unwrap();
    assert!(
        lines.contains(&format!(r#""options":{OPTIONS}"#)),
        "options written as read:\n{lines}"
    );
    let mut array = Vec::new();
    stream.write_array(&mut array).unwrap();
    let again = Stream::from_slice(&array, "y").unwrap();
    assert_eq!(again.events, stream.events);
    let repaired = crate::stream::sanitize(stream.events.clone());
    assert!(repaired.is_unchanged());
    let mut out = Vec::new();
    Stream::new(repaired.events)
        .write_json_lines(&mut out)
        .unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), lines);
    // A select option that is neither an object, a string nor a number is
    // still refused, with what was expected.
    let bad = select_request("[true]");
    let err = Stream::from_slice(bad.as_bytes(), "bad")
        .unwrap_err()
        .to_string();
    assert!(err.contains("a string or a number"), "{err}");
}

/// Rule: CHECK-ANSWER-FITS — the value of a plain string or number option
/// is itself, of an object option its `value` member (decision "Wire: a
/// select option is read in the writer's shapes"): an answer that is one
/// of them fits, another does not (judged under rfd083, where the rule
/// binds; auto would make it a warning in this pre-083 turn).
#[test]
fn answer_fits_judges_an_answer_against_options_of_every_shape() {
    for fits in [r#""main""#, "2", r#""dev""#, r#""x""#, r#""y""#] {
        let c = crate::check::check_bytes(select_stream(fits).as_bytes(), "t", R083);
        assert_eq!(c.error, None);
        assert!(c.diagnostics.is_empty(), "{fits}: {:?}", c.diagnostics);
    }
    for stray in [r#""Dev""#, r#""label""#, r#""2""#, "null"] {
        let c = crate::check::check_bytes(select_stream(stray).as_bytes(), "t", R083);
        let rules: Vec<_> = c
            .diagnostics
            .iter()
            .map(|d| (d.rule, d.event_index))
            .collect();
        assert_eq!(rules, [(Rule::CheckAnswerFits, 3)], "{stray}");
    }
}

// ---------------------------------------------------------------------------
// CHECK-ASK-USER-RECORD
// ---------------------------------------------------------------------------

/// The question `ask_user` authors (RFD 083 "Execution flow": `exclusive:
/// true`, `persistence: none`; the RFD 083 fields show its writer).
fn ask_user_q() -> Value {
    json!({"text": "Which branch?", "answer_type": {"type": "text"},
        "exclusive": true, "persistence": "none"})
}

fn assistant() -> Value {
    json!({"source": "assistant"})
}

/// `{"answer_type":"text","answer":"main"}`, base64-encoded as real
/// streams store tool contents.
const MAIN_BODY_BASE64: &str = "eyJhbnN3ZXJfdHlwZSI6InRleHQiLCJhbnN3ZXIiOiJtYWluIn0=";

/// A successful `ask_user` response with `content`.
fn succeeds(s: S, content: &str) -> S {
    s.push(json!({"type": "tool_call_response", "id": "c1", "content": content, "is_error": false}))
}

fn body(answer_type: &str, answer: Value) -> String {
    json!({"answer_type": answer_type, "answer": answer}).to_string()
}

/// Rule: CHECK-ASK-USER-RECORD — RFD 083 "Execution flow": "The built-in
/// always emits a single question with `id: "answer"`", and its second
/// invocation returns `Outcome::Success { content: <JSON-encoded answer> }`
/// as `{"answer_type": …, "answer": …}`. Each of these is an error under
/// rfd083 and in a turn auto judges RFD 083's: another question ID; a
/// second question after the first was answered; a success body whose
/// answer differs from the recorded one (plain or base64 content), or
/// follows a cancelled question; and a success body in a call that asked
/// nothing (a warning under auto here, where no RFD 083 field shows the
/// turn's writer).
#[test]
fn ask_user_record_reports_results_that_contradict_the_record() {
    let call = || S::new().turn().call("c1", "ask_user");
    let other_id = succeeds(
        call()
            .ask_from("c1.branch.1", assistant(), ask_user_q())
            .answer("c1.branch.1", json!("main")),
        "ok",
    );
    let second = succeeds(
        call()
            .ask_from("c1.answer.1", assistant(), ask_user_q())
            .answer("c1.answer.1", json!("main"))
            .ask_from("c1.answer.2", assistant(), ask_user_q())
            .answer("c1.answer.2", json!("dev")),
        "ok",
    );
    let asked = || {
        call()
            .ask_from("c1.answer.1", assistant(), ask_user_q())
            .answer("c1.answer.1", json!("dev"))
    };
    let contradicts = succeeds(asked(), &body("text", json!("main")));
    let contradicts_base64 = succeeds(asked(), MAIN_BODY_BASE64);
    let wrong_type = succeeds(asked(), &body("select", json!("dev")));
    let after_cancel = succeeds(
        call()
            .ask_from("c1.answer.1", assistant(), ask_user_q())
            .cancel("c1.answer.1", "user"),
        &body("text", json!("main")),
    );
    for (s, at) in [
        (&other_id, 2),
        (&second, 4),
        (&contradicts, 4),
        (&contradicts_base64, 4),
        (&wrong_type, 4),
        (&after_cancel, 4),
    ] {
        assert_eq!(
            found(s, R083),
            [(Rule::CheckAskUserRecord, E, 0, at)],
            "{:?}",
            s.0
        );
        assert_eq!(
            found(s, AUTO),
            [(Rule::CheckAskUserRecord, E, 0, at)],
            "{:?}",
            s.0
        );
        // `ask_user` arrives with RFD 083: not judged under rfd082.
        assert!(
            found(s, R082)
                .iter()
                .all(|f| f.0 != Rule::CheckAskUserRecord)
        );
    }
    let unasked = succeeds(call(), &body("text", json!("main")));
    assert_eq!(found(&unasked, R083), [(Rule::CheckAskUserRecord, E, 0, 2)]);
    assert_eq!(found(&unasked, AUTO), [(Rule::CheckAskUserRecord, W, 0, 2)]);
}

/// Rule: CHECK-ASK-USER-RECORD — the built-in's own records are clean: its
/// answer body carrying the recorded answer (plain or base64), a cancelled
/// prompt's success that is no answer body (`Tool input cancelled by
/// user.`), and an answered question whose call fails.
#[test]
fn ask_user_record_accepts_what_the_builtin_records() {
    let asked = || {
        S::new()
            .turn()
            .call("c1", "ask_user")
            .ask_from("c1.answer.1", assistant(), ask_user_q())
    };
    let answered = || asked().answer("c1.answer.1", json!("main"));
    for s in [
        succeeds(answered(), &body("text", json!("main"))),
        succeeds(answered(), MAIN_BODY_BASE64),
        succeeds(
            asked().cancel("c1.answer.1", "user"),
            "Tool input cancelled by user.",
        ),
        answered().failed("c1"),
    ] {
        clean(&s, R083);
        clean(&s, AUTO);
    }
}

/// An `ask_user` response with `content` persisted as an error.
fn errs(s: S, content: &str) -> S {
    s.push(json!({"type": "tool_call_response", "id": "c1", "content": content, "is_error": true}))
}

/// Rule: CHECK-ASK-USER-RECORD — RFD 083 "Execution flow": the second
/// invocation "returns `Outcome::Success { content: <JSON-encoded answer>
/// }`", so the answer body persisted with `is_error: true` (plain or
/// base64, after an answered question or none) is an error under rfd083
/// and under auto, and not judged under rfd082 (no `ask_user` there). An
/// error response that is no answer body (a tool-level failure) stays
/// clean.
#[test]
fn ask_user_record_reports_an_answer_body_persisted_as_an_error() {
    let answered = || {
        S::new()
            .turn()
            .call("c1", "ask_user")
            .ask_from("c1.answer.1", assistant(), ask_user_q())
            .answer("c1.answer.1", json!("main"))
    };
    for s in [
        errs(answered(), &body("text", json!("main"))),
        errs(answered(), MAIN_BODY_BASE64),
    ] {
        assert_eq!(found(&s, R083), [(Rule::CheckAskUserRecord, E, 0, 4)]);
        assert_eq!(found(&s, AUTO), [(Rule::CheckAskUserRecord, E, 0, 4)]);
        assert!(
            found(&s, R082)
                .iter()
                .all(|f| f.0 != Rule::CheckAskUserRecord)
        );
    }
    let failed = errs(answered(), "the terminal went away");
    clean(&failed, R083);
    clean(&failed, AUTO);
}

// ---------------------------------------------------------------------------
// CHECK-ID-FORMAT without RFD 082 writer evidence
// ---------------------------------------------------------------------------

/// Rule: CHECK-ID-FORMAT — RFD 082 "Inquiry ID format": pre-082 IDs are
/// `<tool_call_id>.<question_id>`, RFD 082's `<tool_call_id>.<question_id>.<attempt>`:
/// under any writer an ID starts with the asking call's ID. So a request
/// whose ID names a closed call, or another tool's open call, is an error
/// also in a turn auto does not judge an RFD 082 writer's, and under the
/// legacy profile. A two-segment ID of the asking call stays clean there.
#[test]
fn id_format_reports_an_id_naming_another_call_without_writer_evidence() {
    let closed = S::new()
        .turn()
        .call("c0", "fs")
        .done("c0")
        .call("c1", "fs")
        .ask("c0.apply", boolean())
        .flat("c0.apply", json!(true))
        .done("c1");
    let other_tool = S::new()
        .turn()
        .call("a", "fs")
        .call("b", "git")
        .ask_from("b.apply", tool("fs"), boolean())
        .flat("b.apply", json!(true))
        .done("a")
        .done("b");
    for (s, at) in [(&closed, 4), (&other_tool, 3)] {
        assert_eq!(found(s, AUTO), [(Rule::CheckIdFormat, E, 0, at)]);
        assert_eq!(found(s, LEGACY), [(Rule::CheckIdFormat, E, 0, at)]);
    }
    let own = S::new()
        .turn()
        .call("a", "fs")
        .call("b", "git")
        .ask_from("a.apply", tool("fs"), boolean())
        .flat("a.apply", json!(true))
        .done("a")
        .done("b");
    clean(&own, AUTO);
    clean(&own, LEGACY);
}

/// Rule: CHECK-ASK-USER-SHAPE — RFD 083 "Arguments": `question` "missing or
/// empty" is refused by the built-in; text of only whitespace is empty
/// (decision "Decided by the RFD text: whitespace `ask_user` questions, MCP
/// questions, `backend_error` on a secret"), so a recorded one is not what
/// `ask_user` authors.
#[test]
fn ask_user_shape_reports_a_whitespace_only_question() {
    let mut q = ask_user_q();
    q["text"] = json!(" \t ");
    let s = succeeds(
        S::new()
            .turn()
            .call("c1", "ask_user")
            .ask_from("c1.answer.1", assistant(), q)
            .answer("c1.answer.1", json!("main")),
        "ok",
    );
    assert_eq!(found(&s, R083), [(Rule::CheckAskUserShape, E, 0, 2)]);
}

/// Rule: CHECK-ID-FORMAT — decision "Oracle checks: the RFD 004 draft's
/// example IDs are no writer's": a request with the draft's ID `inq_1`
/// starts with no open call's ID, so it is an error under auto and legacy
/// (every writer RFD 082 describes writes `<tool_call_id>.` first) — while
/// pairing still reads the ID as opaque: the response with the same ID
/// closes it (no CHECK-PAIRED).
#[test]
fn the_rfd_004_drafts_example_id_is_an_id_format_error_and_still_pairs() {
    let s = in_call(|s| s.ask("inq_1", boolean()).flat("inq_1", json!(true)));
    for mode in [AUTO, LEGACY] {
        assert_eq!(found(&s, mode), [(Rule::CheckIdFormat, E, 0, 2)], "{mode}");
    }
}
