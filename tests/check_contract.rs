//! Kinds of stream the RFD texts forbid that a clean `check` used to pass:
//! each a hand-built violation with the exact findings, and its legal
//! neighbour clean. The RFD sentence that decides each is cited on the test.

mod check_support;

use check_support::*;
use inquiry_model::check::rules as r;
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
        assert_eq!(found(&s, R083), [(r::PROVENANCE, E, 0, 2)], "{source}");
        assert_eq!(found(&s, AUTO), [(r::PROVENANCE, E, 0, 2)], "{source}");
        let plain = in_call(|s| {
            s.ask_from("c1.q.1", source.clone(), boolean())
                .answer("c1.q.1", json!(true))
        });
        assert_eq!(found(&plain, AUTO), [(r::PROVENANCE, W, 0, 2)], "{source}");
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
        assert_eq!(found(s, R082), [(r::WRITER_FIELDS, E, 0, 3)]);
        assert_eq!(found(s, R083), [(r::WRITER_FIELDS, E, 0, 3)]);
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
    assert_eq!(found(&s, AUTO), [(r::ONE_QUESTION, E, 0, 4)]);
    assert_eq!(found(&s, R082), [(r::ONE_QUESTION, E, 0, 4)]);
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
