//! Which writer recorded a turn is read from its request
//! IDs, not from the response form, so a legacy conversation re-saved by an
//! RFD 082 writer checks clean (decision "Oracle checks: a turn's writer is
//! read from its request IDs").

use super::check_support_tests as check_support;

use crate::check::{Profile, TurnsByProfile};
use crate::rule::Rule;
use check_support::*;
use serde_json::json;

/// A legacy turn as an RFD 082 writer re-saves it: tagged `answered`
/// responses on two-segment IDs, a duplicate legacy ID paired by order.
fn resaved_legacy_turn() -> S {
    in_call(|s| {
        s.ask("c1.apply_changes", boolean())
            .answer("c1.apply_changes", json!(true))
            .ask("c1.apply_changes", boolean())
            .answer("c1.apply_changes", json!(false))
    })
    .reply()
}

/// Rule: CHECK-ID-FORMAT — a legacy turn re-saved by an RFD 082 writer
/// (tagged responses on two-segment IDs, duplicate IDs paired by order) is
/// clean under auto, judged legacy, and clean under the explicit `rfd082`
/// and `rfd083` profiles, whose writer is the one that saved it.
#[test]
fn resaved_legacy_turn_is_clean_under_auto_and_the_saving_writers_profile() {
    let s = resaved_legacy_turn();
    for mode in [AUTO, R082, R083] {
        clean(&s, mode);
    }
    let c = run(&s, AUTO);
    assert_eq!(c.summary.profile, Profile::Legacy);
    // The same turn followed by a turn the RFD 082 writer recorded: a mixed
    // stream, clean, one turn of each.
    let s = resaved_legacy_turn().turn().call("c2", "fs");
    let s = s
        .ask("c2.q.1", boolean())
        .cancel("c2.q.1", "user")
        .done("c2");
    for mode in [AUTO, R082, R083] {
        clean(&s, mode);
    }
    let c = run(&s, AUTO);
    assert!(c.summary.mixed);
    assert_eq!(
        c.summary.turns_by_profile,
        TurnsByProfile {
            legacy: 1,
            rfd082: 1,
            rfd083: 0
        }
    );
}

/// Rule: CHECK-ID-FORMAT — a two-segment ID in a turn that shows what only an
/// RFD 082 writer records (`cancelled`, `redacted`, `secret`) is the RFD 082
/// writer's own ID, malformed: reported under auto and rfd082.
#[test]
fn two_segment_id_in_a_turn_only_rfd082_records_is_id_format() {
    let s = in_call(|s| s.ask("c1.q", boolean()).cancel("c1.q", "user"));
    assert_eq!(found(&s, AUTO), [(Rule::CheckIdFormat, E, 0, 2)]);
    assert_eq!(found(&s, R082), [(Rule::CheckIdFormat, E, 0, 2)]);
    let s = in_call(|s| s.ask("c1.pass", secret()).redact("c1.pass"));
    assert_eq!(found(&s, AUTO), [(Rule::CheckIdFormat, E, 0, 2)]);
}

/// Rule: CHECK-ID-FORMAT — a turn a legacy writer saved (a flat response)
/// stays the legacy writer's under an explicit rfd082 profile: its IDs and
/// its flat response are both reported.
#[test]
fn flat_turn_under_rfd082_still_reports_its_ids() {
    let s = in_call(|s| s.ask("c1.q", boolean()).flat("c1.q", json!(true)));
    assert_eq!(
        found(&s, R082),
        [
            (Rule::CheckIdFormat, E, 0, 2),
            (Rule::CheckResponseTagged, E, 0, 3)
        ]
    );
    clean(&s, AUTO);
}

/// Rule: CHECK-TURN-ONE-WRITER — a turn whose requests switch from
/// three-segment to two-segment IDs is one error, at the switch, under every
/// profile; two-segment requests followed by three-segment ones (a turn
/// resumed across an upgrade) is a warning under auto and an error under an
/// explicit profile.
#[test]
fn turn_mixing_id_forms_is_one_finding_at_the_switch() {
    let downgrade = in_call(|s| {
        s.ask("c1.a.1", boolean())
            .answer("c1.a.1", json!(true))
            .ask("c1.b", boolean())
            .answer("c1.b", json!(true))
    });
    for mode in [AUTO, R082, R083] {
        assert_eq!(
            found(&downgrade, mode),
            [(Rule::CheckTurnOneWriter, E, 0, 4)]
        );
    }
    let upgrade = in_call(|s| {
        s.ask("c1.a", boolean())
            .flat("c1.a", json!(true))
            .ask("c1.b.1", boolean())
            .answer("c1.b.1", json!(true))
    });
    assert_eq!(found(&upgrade, AUTO), [(Rule::CheckTurnOneWriter, W, 0, 4)]);
    assert_eq!(
        found(&upgrade, R082),
        [
            (Rule::CheckResponseTagged, E, 0, 3),
            (Rule::CheckTurnOneWriter, E, 0, 4)
        ]
    );
    // More requests of the new form after the switch: still one finding, at
    // the first of them ("the request where the turn switched form").
    let longer = in_call(|s| {
        s.ask("c1.a.1", boolean())
            .answer("c1.a.1", json!(true))
            .ask("c1.b", boolean())
            .answer("c1.b", json!(true))
            .ask("c1.c", boolean())
            .answer("c1.c", json!(true))
            .ask("c1.d.1", boolean())
            .answer("c1.d.1", json!(true))
    });
    assert_eq!(found(&longer, R082), [(Rule::CheckTurnOneWriter, E, 0, 4)]);
}

/// Rule: CHECK-ID-FORMAT — IDs are read against the open call only to tell
/// the writer; a three-segment-looking legacy ID is not needed: a turn of
/// two-segment IDs is legacy whatever its responses' form.
#[test]
fn tagged_answers_alone_do_not_make_a_turn_rfd082() {
    let s = in_call(|s| s.ask("c1.q", boolean()).answer("c1.q", json!(1)));
    assert_eq!(run(&s, AUTO).summary.profile, Profile::Legacy);
    let s = in_call(|s| s.ask("c1.q.1", boolean()).answer("c1.q.1", json!(1)));
    assert_eq!(run(&s, AUTO).summary.profile, Profile::Rfd082);
}

/// The stream `s` through the library's turn-scoped sanitize, written back.
fn sanitized(s: &S) -> Vec<u8> {
    let stream = crate::wire::Stream::from_slice(&s.bytes(), "x").unwrap();
    let repaired = crate::stream::sanitize(stream.events);
    crate::wire::Stream::new(repaired.events)
        .to_array_string()
        .into_bytes()
}

/// Rule: CHECK-ID-ATTEMPT — removing an orphaned or reversed `…q.1` leaves
/// `…q.2` as the first attempt; the repaired stream is clean under auto and
/// rfd082 (not CHECK-ID-ATTEMPT), while the damaged
/// input had its own finding.
#[test]
fn attempts_after_removing_an_orphaned_attempt_are_clean() {
    let orphan = in_call(|s| {
        s.ask("c1.q.1", boolean())
            .ask("c1.q.2", boolean())
            .answer("c1.q.2", json!(true))
    });
    let reversed = in_call(|s| {
        s.answer("c1.q.1", json!(true))
            .ask("c1.q.1", boolean())
            .ask("c1.q.2", boolean())
            .answer("c1.q.2", json!(true))
    });
    let gap = in_call(|s| {
        s.ask("c1.q.1", boolean())
            .answer("c1.q.1", json!(true))
            .ask("c1.q.2", boolean())
            .ask("c1.q.3", boolean())
            .answer("c1.q.3", json!(true))
    });
    for damaged in [orphan, reversed, gap] {
        assert!(!run(&damaged, AUTO).diagnostics.is_empty());
        let bytes = sanitized(&damaged);
        for mode in [AUTO, R082, R083] {
            let c = crate::check::check_bytes(&bytes, "sanitized", mode);
            assert!(c.diagnostics.is_empty(), "{mode}: {}", lines(&c));
        }
    }
}

/// Rule: CHECK-ID-FORMAT — in a turn resumed across an upgrade (two-segment
/// requests, then three-segment ones), the two-segment part was written by
/// a pre-082 writer, which records only answers: a two-segment request
/// closed `cancelled` is an error at that request (the upgrade itself stays
/// a warning under auto). Found by the sanitize property: removing the
/// three-segment orphan of such a turn used to make the finding appear.
#[test]
fn two_segment_request_closed_cancelled_in_an_upgraded_turn_is_id_format() {
    let upgrade = in_call(|s| {
        s.ask("c1.a", boolean())
            .cancel("c1.a", "user")
            .ask("c1.b.1", boolean())
            .answer("c1.b.1", json!(true))
    });
    assert_eq!(
        found(&upgrade, AUTO),
        [
            (Rule::CheckIdFormat, E, 0, 2),
            (Rule::CheckTurnOneWriter, W, 0, 4)
        ]
    );
    assert_eq!(
        found(&upgrade, R082),
        [
            (Rule::CheckIdFormat, E, 0, 2),
            (Rule::CheckTurnOneWriter, E, 0, 4)
        ]
    );
    // Answered, the same turn is only the upgrade warning.
    let answered = in_call(|s| {
        s.ask("c1.a", boolean())
            .answer("c1.a", json!(true))
            .ask("c1.b.1", boolean())
            .answer("c1.b.1", json!(true))
    });
    assert_eq!(
        found(&answered, AUTO),
        [(Rule::CheckTurnOneWriter, W, 0, 4)]
    );
}
