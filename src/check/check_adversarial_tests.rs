//! Kinds of violation an adversarial review found the
//! oracle passing under auto, each now a finding (and the legal neighbours
//! of each still clean).

use super::check_support_tests as check_support;

use crate::rule::Rule;
use check_support::*;
use serde_json::{Value, json};

fn ask_user_q(extra: Value) -> Value {
    let mut q = json!({"text": "Which branch?", "answer_type": {"type": "text"},
        "exclusive": true, "persistence": "none"});
    for (k, v) in extra.as_object().unwrap() {
        q[k] = v.clone();
    }
    q
}

fn assistant() -> Value {
    json!({"source": "assistant"})
}

/// A one-call turn of the `ask_user` built-in (call `c1`).
fn in_ask_user(body: impl FnOnce(S) -> S) -> S {
    body(S::new().turn().call("c1", "ask_user")).done("c1")
}

// ---------------------------------------------------------------------------
// CHECK-SECRET-LEAK
// ---------------------------------------------------------------------------

/// Rule: CHECK-SECRET-LEAK — an extra field or a `reason` on a `redacted`
/// response, or an `answer` on a secret question's request, is a warning
/// under auto and an error under rfd082/rfd083; the message never repeats
/// the value.
#[test]
fn secret_leak_reports_fields_beside_a_redaction() {
    let extra = in_call(|s| {
        s.ask("c1.pass.1", secret()).push(
            json!({"type": "inquiry_response", "outcome": "redacted", "id": "c1.pass.1", "value": "hunter2"}),
        )
    });
    let reason = in_call(|s| {
        s.ask("c1.pass.1", secret()).push(
            json!({"type": "inquiry_response", "outcome": "redacted", "id": "c1.pass.1", "reason": "user"}),
        )
    });
    let on_request = in_call(|s| {
        s.push(
            json!({"type": "inquiry_request", "id": "c1.pass.1", "source": tool("fs"),
            "question": secret(), "answer": "hunter2"}),
        )
        .redact("c1.pass.1")
    });
    let in_question = in_call(|s| {
        let mut q = secret();
        q["answer"] = json!("hunter2");
        s.ask("c1.pass.1", q).redact("c1.pass.1")
    });
    for (s, at) in [(extra, 3), (reason, 3), (on_request, 2), (in_question, 2)] {
        assert_eq!(found(&s, AUTO), [(Rule::CheckSecretLeak, W, 0, at)]);
        assert_eq!(found(&s, R082), [(Rule::CheckSecretLeak, E, 0, at)]);
        assert_eq!(found(&s, R083), [(Rule::CheckSecretLeak, E, 0, at)]);
        assert!(!lines(&run(&s, AUTO)).contains("hunter2"));
    }
}

/// Rule: CHECK-SECRET-LEAK — an extra field on a secret question's response
/// is a leak whatever the outcome: a `cancelled` one carries no secret by
/// design, so a field beside it is where one would be.
#[test]
fn secret_leak_reports_an_extra_field_on_a_cancelled_secret() {
    let s = in_call(|s| {
        s.ask("c1.pass.1", secret())
            .push(json!({"type": "inquiry_response",
            "outcome": "cancelled", "id": "c1.pass.1", "reason": "user", "value": "hunter2"}))
    });
    assert_eq!(found(&s, AUTO), [(Rule::CheckSecretLeak, W, 0, 3)]);
    assert_eq!(found(&s, R082), [(Rule::CheckSecretLeak, E, 0, 3)]);
    assert!(!lines(&run(&s, AUTO)).contains("hunter2"));
}

/// Rule: CHECK-SECRET-LEAK — a bare redaction is clean, and an extra field
/// on a non-secret question's response is kept without a finding (forward
/// compatibility).
#[test]
fn secret_leak_accepts_bare_redaction_and_extras_elsewhere() {
    let s = in_call(|s| {
        s.ask("c1.pass.1", secret()).redact("c1.pass.1").ask("c1.q.1", boolean()).push(
            json!({"type": "inquiry_response", "outcome": "answered", "id": "c1.q.1", "answer": true, "note": 1}),
        )
    });
    for mode in [AUTO, R082, R083] {
        clean(&s, mode);
    }
}

// ---------------------------------------------------------------------------
// CHECK-ANSWER-FITS
// ---------------------------------------------------------------------------

/// Rule: CHECK-ANSWER-FITS — a select answer not among the options, a string
/// for a boolean, a number for text are each an error at the response under
/// rfd083 (which validates static answers) and in a turn auto judges RFD
/// 083's; a warning in an earlier turn under auto; nothing under an explicit
/// rfd082 profile, whose static answers are recorded as configured.
#[test]
fn answer_fits_reports_answers_that_cannot_fit() {
    let cases = [
        (select(&["main", "dev"]), json!("prod")),
        (boolean(), json!("yes")),
        (text(), json!(42)),
    ];
    for (q, a) in cases {
        let s = in_call(|s| s.ask("c1.q.1", q.clone()).answer("c1.q.1", a.clone()));
        assert_eq!(
            found(&s, R083),
            [(Rule::CheckAnswerFits, E, 0, 3)],
            "{q} {a}"
        );
        assert_eq!(
            found(&s, AUTO),
            [(Rule::CheckAnswerFits, W, 0, 3)],
            "{q} {a}"
        );
        clean(&s, R082);
        let mut q083 = q.clone();
        q083["exclusive"] = json!(true);
        let s = in_call(|s| s.ask("c1.q.1", q083).answer("c1.q.1", a.clone()));
        assert_eq!(
            found(&s, AUTO),
            [(Rule::CheckAnswerFits, E, 0, 3)],
            "{q} {a}"
        );
    }
}

/// Rule: CHECK-ANSWER-FITS — answers of the right type and options are clean,
/// in the flat legacy form too.
#[test]
fn answer_fits_accepts_fitting_answers() {
    let s = in_call(|s| {
        s.ask("c1.a.1", select(&["main", "dev"]))
            .answer("c1.a.1", json!("dev"))
            .ask("c1.b.1", boolean())
            .answer("c1.b.1", json!(false))
            .ask("c1.c.1", text())
            .answer("c1.c.1", json!(""))
    });
    clean(&s, AUTO);
    let legacy = in_call(|s| s.ask("c1.b", boolean()).flat("c1.b", json!(true)));
    clean(&legacy, AUTO);
}

// ---------------------------------------------------------------------------
// CHECK-ASK-USER-SHAPE
// ---------------------------------------------------------------------------

/// Rule: CHECK-ASK-USER-SHAPE — an assistant question `ask_user` cannot
/// author (not exclusive, persistence other than none, secret, empty or
/// multi-line text, a select with no options, a default outside the options)
/// is an error under auto and rfd083.
#[test]
fn ask_user_shape_reports_questions_the_builtin_cannot_produce() {
    let bad = [
        ask_user_q(json!({"exclusive": false})),
        ask_user_q(json!({"persistence": "turn"})),
        ask_user_q(json!({"answer_type": {"type": "secret"}})),
        ask_user_q(json!({"text": ""})),
        ask_user_q(json!({"text": "Which\nbranch?"})),
        ask_user_q(json!({"answer_type": {"type": "select", "options": []}})),
        ask_user_q(
            json!({"answer_type": {"type": "select", "options": [{"value": "a"}]}, "default": "b"}),
        ),
        ask_user_q(json!({"answer_type": {"type": "boolean"}, "default": "yes"})),
    ];
    for q in bad {
        let s = in_ask_user(|s| {
            s.ask_from("c1.q.1", assistant(), q.clone())
                .cancel("c1.q.1", "user")
        });
        for mode in [AUTO, R083] {
            let got: Vec<_> = found(&s, mode).into_iter().map(|f| f.0).collect();
            assert!(
                got.contains(&Rule::CheckAskUserShape),
                "{mode} {q}: {got:?}"
            );
        }
    }
}

/// Rule: CHECK-ASK-USER-SHAPE — what `ask_user` does author is clean.
#[test]
fn ask_user_shape_accepts_the_builtins_questions() {
    let good = [
        ask_user_q(json!({})),
        ask_user_q(
            json!({"answer_type": {"type": "select", "options": [{"value": "a"}, {"value": "b"}]}, "default": "b"}),
        ),
        ask_user_q(
            json!({"answer_type": {"type": "boolean"}, "default": true, "context": "Two\nlines"}),
        ),
    ];
    for q in good {
        let s = in_ask_user(|s| {
            s.ask_from("c1.answer.1", assistant(), q.clone())
                .cancel("c1.answer.1", "user")
        });
        clean(&s, AUTO);
        clean(&s, R083);
    }
}

/// Rule: CHECK-ASK-USER-SHAPE — decision "Oracle checks: what a single
/// line is" (RFD 083 "Arguments": "`question` contains a newline" is
/// refused, "Must be single-line"): a line feed, a CRLF and a lone carriage
/// return each break the line a terminal prompt shows, and are reported;
/// U+2028 and U+2029, which a terminal does not break on, pass.
#[test]
fn ask_user_shape_single_line_is_the_terminals_line() {
    for (text, broken) in [
        ("Which\nbranch?", true),
        ("Which\r\nbranch?", true),
        ("Which branch?\r", true),
        ("Which\rbranch?", true),
        ("Which\u{2028}branch?", false),
        ("Which\u{2029}branch?", false),
    ] {
        let q = ask_user_q(json!({ "text": text }));
        let s = in_ask_user(|s| {
            s.ask_from("c1.answer.1", assistant(), q.clone())
                .cancel("c1.answer.1", "user")
        });
        for mode in [AUTO, R083] {
            let got: Vec<_> = found(&s, mode).into_iter().map(|f| f.0).collect();
            assert_eq!(
                got.contains(&Rule::CheckAskUserShape),
                broken,
                "{mode} {text:?}: {got:?}"
            );
        }
    }
}

// ---------------------------------------------------------------------------
// CHECK-PROVENANCE
// ---------------------------------------------------------------------------

/// Rule: CHECK-PROVENANCE — `source: assistant` on a call that is not the
/// `ask_user` built-in is forged: an error under an explicit profile, a
/// warning under auto (RFD 082's tests record it from a synthetic built-in);
/// under rfd082 any non-tool source is an error (RFD 082 ships no override).
#[test]
fn provenance_reports_forged_sources() {
    let forged = in_call(|s| {
        s.ask_from("c1.q.1", assistant(), ask_user_q(json!({})))
            .cancel("c1.q.1", "user")
    });
    assert_eq!(found(&forged, AUTO), [(Rule::CheckProvenance, W, 0, 2)]);
    assert_eq!(found(&forged, R083), [(Rule::CheckProvenance, E, 0, 2)]);
    let user = in_call(|s| {
        s.ask_from("c1.q.1", json!({"source": "user"}), boolean())
            .answer("c1.q.1", json!(true))
    });
    assert_eq!(found(&user, R082), [(Rule::CheckProvenance, E, 0, 2)]);
    let asked = in_ask_user(|s| {
        s.ask_from("c1.q.1", assistant(), boolean())
            .answer("c1.q.1", json!(true))
    });
    assert_eq!(found(&asked, R082), [(Rule::CheckProvenance, E, 0, 2)]);
}

/// Rule: CHECK-PROVENANCE — an `ask_user` call's assistant question and a
/// tool's own question are clean.
#[test]
fn provenance_accepts_ask_user_and_tool_sources() {
    let s = in_ask_user(|s| {
        s.ask_from("c1.answer.1", assistant(), ask_user_q(json!({})))
            .answer("c1.answer.1", json!("main"))
    });
    clean(&s, AUTO);
    clean(&s, R083);
    clean(
        &in_call(|s| s.ask("c1.q.1", boolean()).answer("c1.q.1", json!(true))),
        R082,
    );
}

// ---------------------------------------------------------------------------
// CHECK-REASON-FAILS-TOOL
// ---------------------------------------------------------------------------

/// Rule: CHECK-REASON-FAILS-TOOL — `no_prompt_backend`,
/// `assistant_routing_denied`, `invalid_static_answer` or `backend_error`,
/// then a successful `tool_call_response` for the call, is an error at the
/// tool response; an error response is clean.
#[test]
fn reason_fails_tool_reports_successful_tool_after_failure() {
    for (q, reason) in [
        (secret(), "no_prompt_backend"),
        (secret(), "assistant_routing_denied"),
        (boolean(), "invalid_static_answer"),
        (boolean(), "backend_error"),
    ] {
        let ok = S::new()
            .turn()
            .call("c1", "fs")
            .ask("c1.q.1", q.clone())
            .cancel("c1.q.1", reason)
            .push(json!({"type": "tool_call_response", "id": "c1", "content": "ok", "is_error": false}));
        assert_eq!(
            found(&ok, AUTO),
            [(Rule::CheckReasonFailsTool, E, 0, 4)],
            "{reason}"
        );
        let failed = S::new()
            .turn()
            .call("c1", "fs")
            .ask("c1.q.1", q)
            .cancel("c1.q.1", reason)
            .failed("c1");
        clean(&failed, AUTO);
    }
}

// ---------------------------------------------------------------------------
// CHECK-ONE-QUESTION
// ---------------------------------------------------------------------------

/// Rule: CHECK-ONE-QUESTION — two open questions in one call, or a new
/// question after a guard failed the call, are errors at the second request.
#[test]
fn one_question_reports_asking_twice_at_once() {
    let twice = in_call(|s| {
        s.ask("c1.a.1", boolean())
            .ask("c1.b.1", boolean())
            .answer("c1.a.1", json!(true))
            .answer("c1.b.1", json!(true))
    });
    assert_eq!(found(&twice, AUTO), [(Rule::CheckOneQuestion, E, 0, 3)]);
    let after_guard = S::new()
        .turn()
        .call("c1", "fs")
        .ask("c1.pass.1", secret())
        .cancel("c1.pass.1", "no_prompt_backend")
        .ask("c1.q.1", boolean())
        .answer("c1.q.1", json!(true))
        .failed("c1");
    assert_eq!(
        found(&after_guard, AUTO),
        [(Rule::CheckOneQuestion, E, 0, 4)]
    );
}

/// Rule: CHECK-ONE-QUESTION — questions one after another in a call, and
/// parallel calls each with an open question, are clean.
#[test]
fn one_question_accepts_sequential_and_parallel_questions() {
    let s = in_call(|s| {
        s.ask("c1.a.1", boolean())
            .answer("c1.a.1", json!(true))
            .ask("c1.a.2", boolean())
            .cancel("c1.a.2", "user")
    });
    clean(&s, AUTO);
    let parallel = S::new()
        .turn()
        .call("a", "fs")
        .call("b", "git")
        .ask_from("a.q.1", tool("fs"), boolean())
        .ask_from("b.q.1", tool("git"), boolean())
        .answer("a.q.1", json!(true))
        .answer("b.q.1", json!(true))
        .done("a")
        .done("b");
    clean(&parallel, AUTO);
}

// ---------------------------------------------------------------------------
// Explicit-profile strictness (CHECK-WRITER-FIELDS)
// ---------------------------------------------------------------------------

/// Rule: CHECK-WRITER-FIELDS — under explicit rfd082/rfd083, `cancelled`
/// without `reason` and `answered` with a `reason` are errors; under rfd083
/// an RFD 083 question field written at its default is one. Auto accepts
/// all three (a reader fills the defaults in).
#[test]
fn writer_fields_reports_what_an_explicit_writer_never_writes() {
    let no_reason = in_call(|s| {
        s.ask("c1.q.1", boolean())
            .push(json!({"type": "inquiry_response", "outcome": "cancelled", "id": "c1.q.1"}))
    });
    let with_reason = in_call(|s| {
        s.ask("c1.q.1", boolean()).push(
            json!({"type": "inquiry_response", "outcome": "answered", "id": "c1.q.1", "answer": true, "reason": "user"}),
        )
    });
    for s in [&no_reason, &with_reason] {
        assert_eq!(found(s, R082), [(Rule::CheckWriterFields, E, 0, 3)]);
        assert_eq!(found(s, R083), [(Rule::CheckWriterFields, E, 0, 3)]);
        clean(s, AUTO);
    }
    let mut q = boolean();
    q["exclusive"] = json!(false);
    q["persistence"] = json!("turn");
    let defaults = in_call(|s| s.ask("c1.q.1", q).answer("c1.q.1", json!(true)));
    assert_eq!(found(&defaults, R083), [(Rule::CheckWriterFields, E, 0, 2)]);
    clean(&defaults, AUTO);
    let mut q = boolean();
    q["exclusive"] = json!(true);
    q["persistence"] = json!("none");
    clean(
        &in_call(|s| s.ask("c1.q.1", q).answer("c1.q.1", json!(true))),
        R083,
    );
}

// ---------------------------------------------------------------------------
// Diagnostics
// ---------------------------------------------------------------------------

/// Rule: CHECK-RESPONSE-AFTER-REQUEST — a response before its request is
/// reported as CHECK-RESPONSE-AFTER-REQUEST, not CHECK-PAIRED, also when a
/// later response answers the request (the early one is then the extra).
#[test]
fn response_before_request_is_reported_as_such() {
    let s = in_call(|s| {
        s.answer("c1.q.1", json!(true))
            .ask("c1.q.1", boolean())
            .answer("c1.q.1", json!(true))
    });
    assert_eq!(
        found(&s, AUTO),
        [(Rule::CheckResponseAfterRequest, E, 0, 2)]
    );
}

/// Rule: CHECK-PAIRED — control and bidirectional characters in IDs (U+2028,
/// U+202E, U+0085) are escaped in printed diagnostics, so a line shows what
/// is in the stream and cannot be visually reordered or split.
#[test]
fn ids_with_control_and_bidi_characters_are_escaped() {
    for id in [
        "c1.q\u{2028}x.1",
        "c1.q\u{202e}x.1",
        "c1.q\u{0085}x.1",
        "c1.q\u{2066}x.1",
    ] {
        let s = in_call(|s| s.ask(id, boolean()));
        let c = run(&s, AUTO);
        let text = lines(&c);
        assert!(!c.diagnostics.is_empty());
        for ch in ['\u{2028}', '\u{202e}', '\u{0085}', '\u{2066}'] {
            assert!(!text.contains(ch), "{text:?}");
        }
        assert!(text.contains("\\u{"), "{text:?}");
    }
}

// ---------------------------------------------------------------------------
// Placement by ID
// ---------------------------------------------------------------------------

/// Rule: CHECK-ID-FORMAT — with calls `a` and `a.b` both open, `a.b.1` is
/// call `a`, question `b`, attempt 1: every open call that could hold the ID
/// is tried, so the longest prefix (`a.b`, leaving no attempt) is no false
/// alarm.
#[test]
fn id_format_tries_every_open_call_that_could_hold_the_id() {
    let s = S::new()
        .turn()
        .call("a", "fs")
        .call("a.b", "fs")
        .ask("a.b.1", boolean())
        .answer("a.b.1", json!(true))
        .done("a.b")
        .done("a");
    for mode in [AUTO, R082, R083] {
        clean(&s, mode);
    }
}

/// Rule: CHECK-PLACEMENT-CLOSED — a response after its own call (named by its
/// conforming ID) closed is reported even while another call of the same
/// tool, one with a prefix-compatible ID included, is still open.
#[test]
fn placement_closed_reads_the_call_from_a_conforming_id() {
    let s = S::new()
        .turn()
        .call("c1", "fs")
        .call("c2", "fs")
        .ask("c1.q.1", boolean())
        .done("c1")
        .answer("c1.q.1", json!(true))
        .done("c2");
    assert_eq!(found(&s, AUTO), [(Rule::CheckPlacementClosed, E, 0, 5)]);
    let s = S::new()
        .turn()
        .call("a", "fs")
        .call("a.b", "fs")
        .ask("a.b.1", boolean())
        .done("a")
        .answer("a.b.1", json!(true))
        .done("a.b");
    assert_eq!(found(&s, AUTO), [(Rule::CheckPlacementClosed, E, 0, 5)]);
}
