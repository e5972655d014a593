//! `diff-profiles`' fast pass: scenarios made on demand and run once for
//! every profile they are drawn under, and the checked run of the
//! exploration (incremental step checker, remembered stream invariants),
//! each held to the plain path it replaces.

use std::collections::BTreeSet;

use super::review_scenarios::{ReviewScenarios, Unit};
use super::*;
use crate::explore::{self, Family};
use crate::profile::ProfileName::{Legacy, Rfd083};
use crate::testkit::Faults;

/// The amendment tools' drawn scenarios for a stride that divides the
/// single family's profile place (so its units have three members each)
/// and not the pairs family's (one member each).
const STRIDE: usize = 2520;

/// Rule: PERF-REVIEW-UNITS — the drawn scenarios made on demand are
/// [`scenarios`]' list, index by index, and the units partition the
/// indices: each index is a member of exactly one unit, whose base under
/// the member's profile is the scenario at that index (the exploration
/// families pick the profile last and it sets nothing else), and whose
/// base is labelled with one of its members' profiles.
#[test]
fn units_partition_the_drawn_scenarios_by_profile() {
    let listed = scenarios(STRIDE, 12, 5);
    let drawn = ReviewScenarios::drawn(STRIDE, 12, 5);
    assert_eq!(drawn.len(), listed.len());
    for (i, s) in listed.iter().enumerate() {
        assert_eq!(&drawn.at(i), s, "index {i}");
    }
    let mut seen = vec![0usize; listed.len()];
    let mut shared = 0;
    for u in 0..drawn.units() {
        let Some(unit) = drawn.unit(u) else { continue };
        shared += usize::from(unit.members.len() > 1);
        assert!(
            unit.members.iter().any(|&(_, p)| p == unit.base.profile),
            "unit {u}: base labelled {}, members {:?}",
            unit.base.profile,
            unit.members
        );
        for &(index, profile) in &unit.members {
            seen[index] += 1;
            assert_eq!(unit.scenario(profile), listed[index], "index {index}");
        }
    }
    assert!(seen.iter().all(|&n| n == 1), "every index in one unit");
    // Not vacuous: profiles share runs.
    assert!(shared > 0, "no unit has more than one member");
}

/// Rule: PERF-REVIEW-UNITS — `review` over the drawn scenarios, made on
/// demand and each unit run once, reports exactly what the reference loops
/// report over the list in memory ([`diff_profiles`], two bare runs per
/// scenario, and [`changes`], stateless checked runs), on one thread and
/// two. A review that ran each unit once and counted it once (its members
/// collapsed to the first) reports other counts, as the last assertion
/// shows.
#[test]
fn the_review_of_drawn_units_reports_what_the_reference_loops_report() {
    let (from, to) = (RuleSet::from(Legacy), RuleSet::from(Rfd083));
    let listed = scenarios(STRIDE, 20, 7);
    let reference = diff_profiles(from.clone(), to.clone(), &listed);
    let changes = changes(&from, &to, &listed, &mut || {});
    assert!(!reference.classes.is_empty());
    assert!(!changes.broken.is_empty() || !changes.restored.is_empty());
    let drawn = ReviewScenarios::drawn(STRIDE, 20, 7);
    for threads in [1, 2] {
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let (report, found) = review(&from, &to, &drawn, threads, &|| {
            calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        });
        assert_eq!(calls.into_inner(), listed.len(), "one tick per scenario");
        assert_eq!(report, reference, "{threads} threads");
        assert_eq!(found, changes, "{threads} threads");
    }
    // The wrong implementation: one count per unit.
    let firsts: Vec<Scenario> = (0..drawn.units())
        .filter_map(|u| drawn.unit(u))
        .map(|unit| unit.scenario(unit.members[0].1))
        .collect();
    let (collapsed, _) = review(&from, &to, &ReviewScenarios::Listed(&firsts), 1, &|| {});
    assert_ne!(collapsed, reference);
}

/// Each rule's first diagnostic of one checked run.
fn firsts(run: Option<(Trace, Vec<Diagnostic>)>) -> Option<(Trace, Vec<(String, String)>)> {
    run.map(|(t, diags)| {
        let f = first_by_rule(&diags);
        (t, f)
    })
}

/// The scenarios the checked-run properties judge: a stride of both
/// exploration families and a draw of the scenario generator.
fn checked_sample() -> Vec<Scenario> {
    let mut out: Vec<Scenario> = [Family::Single, Family::Pairs]
        .into_iter()
        .flat_map(|f| {
            (0..explore::family_size(f))
                .step_by(8191)
                .map(move |n| explore::scenario_at(f, n))
        })
        .collect();
    out.extend(crate::generate::scenario::sample(60, 0x8283));
    out
}

/// Rule: PERF-REVIEW-CHECKED — the review's checked run (the incremental
/// step checker and the remembered stream invariants, one memo across
/// runs) gives the same trace and, rule by rule in the order first found,
/// the same first diagnostic as the plain checked run (the stateless
/// `check_step` after every step, `check_trace` at the end), on a sample
/// of both families and the generator under every built-in profile, with
/// no fault and each planted fault of the model (which break invariants
/// for the checks to find).
#[test]
fn the_memo_checked_run_finds_what_the_plain_one_finds() {
    let mut memo = StreamMemo::with_capacity(64);
    let mut violated = BTreeSet::new();
    let sample = checked_sample();
    for faults in std::iter::once(Faults::default()).chain(Faults::each_alone()) {
        for p in ProfileName::ALL {
            let set = RuleSet::from(p);
            for s in &sample {
                let plain = firsts(checked_run_with(s, &set, faults.into()));
                let fast = firsts(checked_run_memo(s, &set, faults.into(), &mut memo));
                if let Some((_, f)) = &plain {
                    violated.extend(f.iter().map(|(rule, _)| rule.clone()));
                }
                assert_eq!(fast, plain, "{faults:?} {p} {s:?}");
            }
        }
    }
    // Not vacuous: the memo answered, and many invariants were broken.
    assert!(memo.hits > 0 && memo.misses > 0);
    assert!(violated.len() >= 8, "only {violated:?} broken");
}

/// Rule: PERF-REVIEW-CHECKED — the comparison above can fail: a checked
/// run that judges the finished trace only (no step checker) loses
/// findings only a step sees, on the same sample.
#[test]
fn a_checked_run_without_its_step_checks_disagrees() {
    let end_only = |s: &Scenario, set: &RuleSet, faults: Faults| {
        let s = under(s, set);
        let t = scenario::run_under(&s, set.rules, faults.into(), &mut |_, _| {}).ok()?;
        let diags = check_trace(&t, &s);
        Some((t, diags))
    };
    let sample = checked_sample();
    let disagree = Faults::each_alone().into_iter().any(|faults| {
        ProfileName::ALL.into_iter().any(|p| {
            let set = RuleSet::from(p);
            sample.iter().any(|s| {
                firsts(checked_run_with(s, &set, faults.into()))
                    != firsts(end_only(s, &set, faults))
            })
        })
    });
    assert!(disagree);
}

/// Rule: PERF-REVIEW-SHAPES — the response shapes counted from the events
/// are those of the persisted JSON (`flat_responses_written`), on every
/// sampled run under every built-in profile, with no fault and each planted
/// fault; both shapes occur. A count that ignores the profile's response
/// form (every answer flat) disagrees.
#[test]
fn response_shapes_are_counted_as_written() {
    let sample = checked_sample();
    let (mut flat, mut tagged, mut wrong) = (0, 0, 0);
    for faults in std::iter::once(Faults::default()).chain(Faults::each_alone()) {
        for p in ProfileName::ALL {
            let set = RuleSet::from(p);
            for s in &sample {
                let Some((t, _)) = checked_run_with(s, &set, faults.into()) else {
                    continue;
                };
                let written = flat_responses_written(&t);
                assert_eq!(flat_responses(&t), written, "{faults:?} {p} {s:?}");
                flat += written.0;
                tagged += written.1;
                let answers = t
                    .stream
                    .iter()
                    .filter(|e| {
                        matches!(
                            e.as_inquiry_response(),
                            Some(InquiryResponse::Answered { .. })
                        )
                    })
                    .count();
                let responses = t
                    .stream
                    .iter()
                    .filter(|e| e.as_inquiry_response().is_some())
                    .count();
                wrong += usize::from((answers, responses - answers) != written);
            }
        }
    }
    assert!(flat > 0 && tagged > 0, "{flat} flat, {tagged} tagged");
    assert!(wrong > 0);
}

/// Rule: PERF-REVIEW-UNITS — a member's weight reckoned from its unit's
/// base is the weight of the member's scenario as written, for every unit
/// of a drawn set and every profile. Reckoning that forgets the base's own
/// profile name (adding the member's to the base's length) is wrong on
/// every one of them.
#[test]
fn a_members_weight_is_its_written_scenarios() {
    let drawn = ReviewScenarios::drawn(STRIDE, 12, 5);
    let mut units = 0;
    for u in 0..drawn.units() {
        let Some(unit) = drawn.unit(u) else { continue };
        units += 1;
        let base = unit.base_weight();
        for p in ProfileName::ALL {
            let want = weight(&unit.scenario(p));
            assert_eq!(Unit::weight_as(base, p), want, "unit {u} under {p}");
            let name = serde_json::to_string(&p).unwrap().len();
            assert_ne!((base.0.0, base.0.1 + name), want);
        }
    }
    assert!(units > 0);
}
