//! Every finding is an error or a warning; `check` exits 1
//! on errors only unless `--strict`; text, JSON and SARIF carry the severity
//! (decision "Oracle checks: severity").

use super::check_support_tests as check_support;

use crate::rule::Rule;
use check_support::*;
use serde_json::json;

/// Rule: CHECK-PAIRED — a legacy backend failure leaving its request unpaired
/// is a warning (the known gap of a pre-082 writer) under auto and legacy;
/// the same orphan in a turn an RFD 082 writer recorded is an error.
#[test]
fn legacy_unanswered_request_is_a_warning_and_rfd082_one_an_error() {
    let s = legacy_backend_failure();
    assert_eq!(found(&s, AUTO), [(Rule::CheckPaired, W, 0, 4)]);
    assert_eq!(found(&s, LEGACY), [(Rule::CheckPaired, W, 0, 4)]);
    let s = in_call(|s| {
        s.ask("c1.apply.1", boolean())
            .answer("c1.apply.1", json!(true))
            .ask("c1.other.1", boolean())
    });
    assert_eq!(found(&s, AUTO), [(Rule::CheckPaired, E, 0, 4)]);
    assert_eq!(found(&s, R082), [(Rule::CheckPaired, E, 0, 4)]);
}

/// Rule: CHECK-REASON-KNOWN — an unknown cancellation tag is an error under
/// an explicit rfd082/rfd083 profile (a writer never writes `Unknown`) and a
/// warning under auto; a known tag is no finding.
#[test]
fn reason_known_is_an_error_under_explicit_profiles_and_a_warning_under_auto() {
    let s = in_call(|s| {
        s.ask("c1.q.1", boolean())
            .cancel("c1.q.1", "some_future_variant")
    });
    assert_eq!(found(&s, AUTO), [(Rule::CheckReasonKnown, W, 0, 3)]);
    assert_eq!(found(&s, R082), [(Rule::CheckReasonKnown, E, 0, 3)]);
    assert_eq!(found(&s, R083), [(Rule::CheckReasonKnown, E, 0, 3)]);
    for known in ["user", "backend_error"] {
        let s = S::new()
            .turn()
            .call("c1", "fs")
            .ask("c1.q.1", boolean())
            .cancel("c1.q.1", known)
            .failed("c1");
        clean(&s, R082);
    }
}

/// Rule: CLI-CHECK-SEVERITY — the summary counts errors and warnings apart, and
/// they add up to the diagnostics.
#[test]
fn summary_counts_errors_and_warnings() {
    let s = legacy_backend_failure()
        .turn()
        .call("c2", "fs")
        .ask("c2.q.1", boolean())
        .cancel("c2.q.1", "zzz")
        .done("c2");
    let c = run(&s, AUTO);
    assert_eq!(
        (c.summary.errors, c.summary.warnings),
        (0, 2),
        "{}",
        lines(&c)
    );
    let c = run(&s, R082);
    assert_eq!(c.summary.errors + c.summary.warnings, c.summary.diagnostics);
    assert!(c.summary.errors > 0);
}
