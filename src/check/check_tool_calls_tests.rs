//! CHECK-TOOL-PAIRED, tool-call pairing within a turn
//! (RFD 082 Phase 3: repair "within each turn's event window").

use super::check_support_tests as check_support;

use crate::rule::Rule;
use check_support::*;

/// Rule: CHECK-TOOL-PAIRED — a call with no response in its turn is reported
/// at the request, under every profile (a call never carries over a turn).
/// (No chat event follows it here: that would be CHECK-TOOL-ADJACENT too.)
#[test]
fn tool_paired_reports_unanswered_call() {
    let s = S::new().turn().chat().call("c1", "fs");
    for mode in [AUTO, LEGACY, R082, R083] {
        assert_eq!(
            found(&s, mode),
            [(Rule::CheckToolPaired, E, 0, 2)],
            "{mode}"
        );
    }
}

/// Rule: CHECK-TOOL-PAIRED — a response before its request is one finding,
/// at the response; the request is not reported again.
#[test]
fn tool_paired_reports_response_before_request() {
    let s = S::new().turn().done("c1").call("c1", "fs");
    assert_eq!(found(&s, AUTO), [(Rule::CheckToolPaired, E, 0, 1)]);
    let c = run(&s, AUTO);
    assert!(
        c.diagnostics[0]
            .message
            .contains("before its tool_call_request (event 2)"),
        "{}",
        lines(&c)
    );
}

/// Rule: CHECK-TOOL-PAIRED — a second response to an answered call is
/// reported at the second response.
#[test]
fn tool_paired_reports_duplicate_response() {
    let s = S::new().turn().call("c1", "fs").done("c1").done("c1");
    assert_eq!(found(&s, AUTO), [(Rule::CheckToolPaired, E, 0, 3)]);
    assert!(
        run(&s, AUTO).diagnostics[0]
            .message
            .contains("already answered")
    );
}

/// Rule: CHECK-TOOL-PAIRED — a response in the turn after its call's: the
/// call is reported in its turn, the response in its own.
#[test]
fn tool_paired_reports_response_in_another_turn() {
    let s = S::new().turn().call("c1", "fs").turn().done("c1");
    assert_eq!(
        found(&s, AUTO),
        [
            (Rule::CheckToolPaired, E, 0, 1),
            (Rule::CheckToolPaired, E, 1, 3)
        ]
    );
    assert!(run(&s, AUTO).diagnostics[1].message.contains("of turn 0"));
}

/// Rule: CHECK-TOOL-PAIRED — repeated call IDs in a turn pair by order
/// (Gemini reuses IDs across cycles); the same ID in the next turn is a new
/// call; parallel calls may close in any order.
#[test]
fn tool_paired_accepts_repeated_ids_by_order_and_parallel_calls() {
    let s = S::new()
        .turn()
        .call("c1", "fs")
        .done("c1")
        .call("c1", "fs")
        .done("c1")
        .call("a", "fs")
        .call("b", "git")
        .done("b")
        .done("a")
        .turn()
        .call("c1", "fs")
        .done("c1");
    for mode in [AUTO, LEGACY, R082, R083] {
        clean(&s, mode);
    }
    // Two open calls of one ID, one response: the second call is unanswered.
    let s = S::new().turn().call("c1", "fs").call("c1", "fs").done("c1");
    assert_eq!(found(&s, AUTO), [(Rule::CheckToolPaired, E, 0, 2)]);
}

/// Rule: CHECK-TOOL-PAIRED — a response with no call of its ID anywhere.
#[test]
fn tool_paired_reports_response_without_request() {
    let s = S::new().turn().call("c1", "fs").done("c1").done("zz");
    assert_eq!(found(&s, AUTO), [(Rule::CheckToolPaired, E, 0, 3)]);
}

/// Rule: CHECK-TOOL-PAIRED — every real stream in the fixture folder (when
/// `INQUIRY_MODEL_REAL_STREAMS` names it) and every bundled example is
/// clean: real writers pair their tool calls.
#[test]
fn tool_paired_real_and_bundled_streams_are_clean() {
    // From the crate root, whatever the working directory.
    let mut dirs = vec![std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/examples")];
    if let Some(d) = std::env::var_os("INQUIRY_MODEL_REAL_STREAMS") {
        dirs.push(d.into());
    }
    for dir in dirs {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if !p.extension().is_some_and(|x| x == "json" || x == "jsonl") {
                continue;
            }
            let bytes = std::fs::read(&p).unwrap();
            let c = crate::check::check_bytes(&bytes, &p.display().to_string(), AUTO);
            assert_eq!(c.error, None);
            assert!(c.diagnostics.is_empty(), "{}", lines(&c));
        }
    }
}

/// Rule: CHECK-TOOL-PAIRED — a response is "before its request" only when a
/// later call has its ID: an early response of one ID and an unanswered
/// later call of another are two findings, each of its own kind.
#[test]
fn tool_paired_matches_an_early_response_only_to_a_later_call_of_its_id() {
    let s = S::new().turn().done("a").call("b", "fs");
    assert_eq!(
        found(&s, AUTO),
        [
            (Rule::CheckToolPaired, E, 0, 1),
            (Rule::CheckToolPaired, E, 0, 2)
        ]
    );
    let c = run(&s, AUTO);
    assert!(
        c.diagnostics[0]
            .message
            .contains("answers no tool_call_request"),
        "{}",
        lines(&c)
    );
    assert!(
        c.diagnostics[1]
            .message
            .contains("`b` has no tool_call_response")
    );
}

/// Rule: CHECK-TOOL-PAIRED — every call a turn leaves open is remembered
/// into the next turn, not only the last: both late responses name the
/// call of turn 0 they answer.
#[test]
fn tool_paired_carries_every_unanswered_call_of_a_turn() {
    let s = S::new()
        .turn()
        .call("a", "fs")
        .call("b", "fs")
        .turn()
        .done("a")
        .done("b");
    assert_eq!(
        found(&s, AUTO),
        [
            (Rule::CheckToolPaired, E, 0, 1),
            (Rule::CheckToolPaired, E, 0, 2),
            (Rule::CheckToolPaired, E, 1, 4),
            (Rule::CheckToolPaired, E, 1, 5)
        ]
    );
    let c = run(&s, AUTO);
    for (d, at) in c.diagnostics[2..]
        .iter()
        .zip(["event 1 of turn 0", "event 2 of turn 0"])
    {
        assert!(d.message.contains(at), "{}", lines(&c));
    }
}
