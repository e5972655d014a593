//! The conformance run that goes to the end (`conformance::run`): every
//! case runs, failures are grouped by kind with one shrunk example each,
//! a stop predicate ends the run with what was found, shrinking keeps to
//! its budget and time limit, a case is drawn again by its index, and the
//! harness's own errors are told apart from the implementation's. Core
//! scenarios are drawn inside the core language by construction.

use std::cell::Cell;
use std::time::Duration;

use crate::conformance::run::{
    CaseId, CaseResult, Limits, Progress, Run, RunReport, ShrinkEnd, ShrinkRuns, draw,
    unused_tools, without_unused,
};
use crate::conformance::{
    self, ImplementationError, Model, Observed, Vector, core_scenario, core_scenarios,
};
use crate::generate::scenario::{scenario_under, size};
use crate::profile::ProfileName;
use crate::scenario::{self, Scenario};
use crate::testkit::Faults;
use proptest::prelude::*;
use proptest::strategy::{BoxedStrategy, ValueTree};

/// Two independent faults: a secret answer persisted, and a prompt shown
/// before its request is recorded.
fn two_faults() -> Model {
    Model {
        faults: Faults {
            persist_secret: true,
            record_after_routing: true,
            ..Faults::default()
        },
    }
}

fn full(p: ProfileName) -> BoxedStrategy<Scenario> {
    scenario_under(Just(p)).boxed()
}

const LIMITS: Limits = Limits {
    shrink_steps: 2000,
    scenario_time: Duration::from_secs(60),
    shrink_runs: ShrinkRuns::AsTheRun,
};

/// Runs `imp` on `vectors` and `n` generated cases of rfd083 (seed 3).
fn run_with(
    imp: &mut Model,
    generator: &dyn Fn(ProfileName) -> BoxedStrategy<Scenario>,
    limits: Limits,
    stop: &dyn Fn() -> bool,
    vectors: &[Vector],
    n: u32,
) -> RunReport {
    let mut progress = |_: Progress| {};
    let mut run = Run::new(
        imp,
        generator,
        limits,
        stop,
        &mut progress,
        vectors.len() + n as usize,
    );
    run.vectors(vectors);
    run.generated(ProfileName::Rfd083, n, 3);
    run.finish()
}

proptest! {
    /// Rule: CONF-CORE-BY-CONSTRUCTION — every scenario the core generator
    /// draws is inside the core scenario language
    /// (`conformance::core_scenario`) and the model runs it: no filter, so
    /// no draw is ever rejected.
    #[test]
    fn every_core_scenario_drawn_is_in_the_core_language(
        s in crate::generate::scenario::core_scenario_under(
            crate::generate::scenario::profile())
    ) {
        prop_assert!(core_scenario(&s), "{}", serde_json::to_string(&s).unwrap());
        prop_assert!(scenario::run(&s).is_ok());
    }
}

/// Rule: CONF-CORE-BY-CONSTRUCTION — 3 000 core cases per profile are
/// drawn from one proptest runner without a generator error (a filter
/// gives up once the runner's rejects add up: "Too many local rejects",
/// before 900 cases); each run case is also drawn by its own index.
#[test]
fn any_number_of_core_cases_can_be_drawn() {
    for p in ProfileName::ALL {
        let strategy = core_scenarios(p);
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        for k in 0..3000 {
            let tree = strategy
                .new_tree(&mut runner)
                .unwrap_or_else(|e| panic!("{p} #{k}: {e}"));
            assert!(core_scenario(&tree.current()));
        }
        for index in 0..100 {
            let tree = draw(&strategy, 1, index).unwrap_or_else(|e| panic!("{p} #{index}: {e}"));
            assert!(core_scenario(&tree.current()));
        }
    }
}

/// Rule: CONF-RUN-TO-THE-END, CONF-GROUP-SIGNATURE — an implementation
/// with two independent faults, on the committed vectors and 300 generated
/// cases: every case runs; each signature is one group whose count is the
/// number of failing cases with that signature; both faults' kinds are
/// there; each example still fails with its signature when run again,
/// generated examples are shrunk (no larger than drawn) and keep no tool
/// that no call uses.
#[test]
fn a_run_goes_to_the_end_and_groups_failures_by_signature() {
    let vectors = conformance::vectors(conformance::COMMITTED.0, 0).unwrap();
    let r = run_with(&mut two_faults(), &full, LIMITS, &|| false, &vectors, 300);
    assert_eq!(r.outcomes.len(), vectors.len() + 300);
    assert_eq!(r.adapter_runs, r.outcomes.len() as u64);
    assert!(!r.stopped);
    assert_eq!(r.harness_errors(), 0);
    let kinds: Vec<&str> = r
        .groups
        .iter()
        .flat_map(|g| g.kinds.iter().map(|(k, _)| k.as_str()))
        .collect();
    // `record_after_routing` shows as a prompt shown too early;
    // `persist_secret` as a different inquiry_response event.
    assert!(kinds.contains(&"diverged:prompts"), "{kinds:?}");
    assert!(
        kinds.contains(&"diverged:stream/inquiry_response"),
        "{kinds:?}"
    );
    let mut total = 0;
    for g in &r.groups {
        let failing = r
            .outcomes
            .iter()
            .filter(|o| {
                matches!(&o.result, CaseResult::Failed(f) if f.verdict.signature() == g.signature)
            })
            .count();
        assert_eq!(g.cases.len(), failing, "{}", g.signature);
        assert_eq!(
            g.kinds.iter().map(|(_, n)| n).sum::<usize>(),
            failing,
            "{}",
            g.signature
        );
        total += failing;
        let again = conformance::check_one(&mut two_faults(), "again", &g.example.scenario)
            .expect("the example still fails");
        assert_eq!(again.verdict.signature(), g.signature);
        if let Some(s) = &g.shrink {
            assert!(matches!(g.example_case, CaseId::Generated { .. }));
            assert!(size(&g.example.scenario) <= s.from_size, "{}", g.signature);
            assert!(s.steps > 0 && s.steps <= LIMITS.shrink_steps);
            assert_eq!(
                unused_tools(&g.example.scenario),
                Vec::<String>::new(),
                "{}",
                g.signature
            );
        }
    }
    assert_eq!(total, r.failed());
}

/// Rule: CONF-RUN-TO-THE-END — the stop predicate is asked between
/// scenarios: a run told to stop after 40 cases has run exactly 40, says it
/// was stopped, and still groups what it found.
#[test]
fn a_stopped_run_reports_what_it_found() {
    let ran = Cell::new(0usize);
    let mut imp = two_faults();
    let mut progress = |p: Progress| ran.set(p.done);
    let stop = || ran.get() >= 40;
    let mut run = Run::new(&mut imp, &full, LIMITS, &stop, &mut progress, 400);
    run.generated(ProfileName::Rfd083, 400, 3);
    let r = run.finish();
    assert_eq!(r.outcomes.len(), 40);
    assert!(r.stopped);
    assert!(r.failed() > 0, "seed 3 fails within 40 cases");
    assert_eq!(
        r.groups.iter().map(|g| g.cases.len()).sum::<usize>(),
        r.failed()
    );
}

/// Rule: CONF-RUN-TO-THE-END — shrinking keeps to its limits: switched off
/// it tries nothing and the example is the case as drawn (drawn again by
/// its index alone) without what nothing uses; with a budget of 3 steps it
/// tries at most 3; with no time left it tries none.
#[test]
fn shrinking_keeps_to_its_budget_and_time_limit() {
    let off = Limits {
        shrink_steps: 0,
        ..LIMITS
    };
    let r = run_with(&mut two_faults(), &full, off, &|| false, &[], 200);
    assert!(!r.groups.is_empty());
    for g in &r.groups {
        let s = g.shrink.as_ref().expect("a generated example");
        assert_eq!((s.steps, s.end), (0, ShrinkEnd::Off));
        let CaseId::Generated { seed, index, .. } = g.example_case else {
            panic!("{:?}", g.example_case)
        };
        let drawn = draw(&full(ProfileName::Rfd083), seed, index)
            .unwrap()
            .current();
        // Only what nothing uses may have been removed from the drawn case.
        let expected = if s.unused_removed.is_empty() {
            drawn
        } else {
            without_unused(&drawn).0
        };
        assert_eq!(g.example.scenario, expected, "{}", g.signature);
    }
    let three = Limits {
        shrink_steps: 3,
        ..LIMITS
    };
    let r = run_with(&mut two_faults(), &full, three, &|| false, &[], 200);
    for g in &r.groups {
        let s = g.shrink.as_ref().expect("a generated example");
        assert!(s.steps <= 3, "{}", s.steps);
        assert!(matches!(
            s.end,
            ShrinkEnd::StepBudget | ShrinkEnd::Done | ShrinkEnd::RunBudget
        ));
    }
    let no_time = Limits {
        scenario_time: Duration::ZERO,
        ..LIMITS
    };
    let r = run_with(&mut two_faults(), &full, no_time, &|| false, &[], 200);
    for g in &r.groups {
        let s = g.shrink.as_ref().expect("a generated example");
        assert_eq!((s.steps, s.end), (0, ShrinkEnd::TimeLimit));
    }
}

/// Rule: CONF-HARNESS-ERROR — a scenario the model refuses is the
/// harness's error, not a failure of the implementation: the case counts
/// as a harness error, no group blames the implementation.
#[test]
fn a_refused_scenario_is_a_harness_error() {
    let refused = |_: ProfileName| -> BoxedStrategy<Scenario> {
        Just(
            serde_json::from_value::<Scenario>(serde_json::json!({
                "tools": {"m": {"source": {"kind": "mcp"}, "run": "unattended", "program": {"kind": "script", "asks": [
                    {"question": {"id": "q", "text": "?", "answer_type": {"type": "boolean"}}}]}}},
                "turns": [{"cycles": [[{"id": "c", "tool": "m"}]]}]
            }))
            .unwrap(),
        )
        .boxed()
    };
    let r = run_with(&mut Model::default(), &refused, LIMITS, &|| false, &[], 5);
    assert_eq!(r.harness_errors(), 5);
    assert_eq!(r.failed(), 0);
    assert!(r.groups.is_empty());
    let CaseResult::HarnessError { error, scenario } = &r.outcomes[0].result else {
        panic!("{:?}", r.outcomes[0])
    };
    assert!(error.contains("refused"), "{error}");
    assert!(scenario.is_some());
}

/// Rule: CONF-RUN-TO-THE-END — a generated case is named by profile, seed
/// and index, and drawing that index alone gives the scenario the run ran.
#[test]
fn a_generated_case_is_drawn_again_by_its_index() {
    let strategy = full(ProfileName::Rfd083);
    let alone = draw(&strategy, 7, 41).unwrap().current();
    let again = draw(&strategy, 7, 41).unwrap().current();
    assert_eq!(alone, again);
    assert_ne!(alone, draw(&strategy, 7, 42).unwrap().current());
    assert_ne!(alone, draw(&strategy, 8, 41).unwrap().current());
    let id = CaseId::Generated {
        profile: ProfileName::Rfd083,
        seed: 7,
        index: 41,
    };
    assert_eq!(id.to_string(), "generated rfd083 seed 7 case 41");
}

/// The model with a second bug beside `faults`: every `user` cancellation
/// it persists is written as `backend_error` (prompter failures recorded
/// as backend errors), in the stream only.
struct UserAsBackendError(Model);

impl conformance::Implementation for UserAsBackendError {
    fn run(&mut self, s: &Scenario) -> Result<Observed, ImplementationError> {
        let mut o = self.0.run(s)?;
        for e in &mut o.stream {
            if e.get("type").and_then(|t| t.as_str()) == Some("inquiry_response")
                && e.get("reason").and_then(|r| r.as_str()) == Some("user")
            {
                e["reason"] = serde_json::json!("backend_error");
            }
        }
        Ok(o)
    }
}

/// The model, except that a call whose ID an earlier call of the scenario
/// already used is never run (dropped from its cycle).
struct ReusedIdNeverRun;

impl conformance::Implementation for ReusedIdNeverRun {
    fn run(&mut self, s: &Scenario) -> Result<Observed, ImplementationError> {
        let mut s = s.clone();
        let mut seen = std::collections::BTreeSet::new();
        for t in &mut s.turns {
            for c in &mut t.cycles {
                c.retain(|call| seen.insert(call.id.clone()));
            }
            t.cycles.retain(|c| !c.is_empty());
        }
        Model::default().run(&s)
    }
}

/// Counts the runs of the implementation it wraps.
struct Counting<I> {
    imp: I,
    runs: u64,
}

impl<I: conformance::Implementation> conformance::Implementation for Counting<I> {
    fn run(&mut self, s: &Scenario) -> Result<Observed, ImplementationError> {
        self.runs += 1;
        self.imp.run(s)
    }
}

fn run_dyn(
    imp: &mut dyn conformance::Implementation,
    limits: Limits,
    vectors: &[Vector],
    n: u32,
) -> RunReport {
    let mut progress = |_: Progress| {};
    let mut run = Run::new(
        imp,
        &full,
        limits,
        &|| false,
        &mut progress,
        vectors.len() + n as usize,
    );
    run.vectors(vectors);
    run.generated(ProfileName::Rfd083, n, 3);
    run.finish()
}

/// Rule: CONF-GROUP-SIGNATURE — two unrelated bugs that first show in the
/// same kind (`stream/inquiry_response`: a secret answer persisted, and a
/// `user` cancellation written as `backend_error`) are two groups, each
/// named by its differing values; grouped by kind (the wrong grouping)
/// they would be one, as the shared kind shows. Each example fails again
/// with its own signature.
#[test]
fn two_unrelated_bugs_in_one_kind_are_two_groups() {
    let vectors = conformance::vectors(conformance::COMMITTED.0, 0).unwrap();
    let mut imp = UserAsBackendError(Model {
        faults: Faults {
            persist_secret: true,
            ..Faults::default()
        },
    });
    let r = run_dyn(&mut imp, LIMITS, &vectors, 100);
    let sigs: Vec<&str> = r.groups.iter().map(|g| g.signature.0.as_str()).collect();
    let secret = r
        .groups
        .iter()
        .find(|g| g.signature.0 == "inquiry_response outcome: redacted → answered")
        .unwrap_or_else(|| panic!("{sigs:?}"));
    let reason = r
        .groups
        .iter()
        .find(|g| g.signature.0 == "inquiry_response reason: user → backend_error")
        .unwrap_or_else(|| panic!("{sigs:?}"));
    let kind = "diverged:stream/inquiry_response";
    for g in [secret, reason] {
        assert!(g.kinds.iter().any(|(k, _)| k == kind), "{:?}", g.kinds);
        let again = conformance::check_one(&mut imp, "again", &g.example.scenario)
            .expect("the example still fails");
        assert_eq!(again.verdict.signature(), g.signature);
        assert!(!g.example.verdict.signature().0.contains("secret"));
    }
    // Sorted largest first.
    assert!(
        r.groups
            .windows(2)
            .all(|w| w[0].cases.len() >= w[1].cases.len())
    );
}

/// Rule: CONF-GROUP-SIGNATURE — one bug (a reused call ID never run) that
/// first shows in several kinds (a missing request in one scenario, a
/// call missing from a turn in another) is one group, `call never run`,
/// holding every kind it showed as, each once with its count; grouped by kind (the wrong grouping)
/// it would be split, as its several kinds show.
#[test]
fn one_bug_in_several_kinds_is_one_group() {
    let vectors = conformance::vectors(conformance::COMMITTED.0, 0).unwrap();
    let r = run_dyn(&mut ReusedIdNeverRun, LIMITS, &vectors, 300);
    let never: Vec<_> = r
        .groups
        .iter()
        .filter(|g| g.signature.0 == "call never run")
        .collect();
    assert_eq!(
        never.len(),
        1,
        "{:?}",
        r.groups.iter().map(|g| &g.signature).collect::<Vec<_>>()
    );
    let g = never[0];
    // The two kinds the doc names, written by hand: the request missing at
    // the call's place, and the call's events missing from its turn.
    let mut names: Vec<&str> = g.kinds.iter().map(|(k, _)| k.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        ["diverged:stream/calls", "diverged:stream/tool_call_request"],
        "{:?}",
        g.kinds
    );
    assert_eq!(g.kinds.iter().map(|(_, n)| n).sum::<usize>(), g.cases.len());
    // Each kind once, in the order first seen, with how many of the
    // group's failures showed as it (recounted from the outcomes).
    let mut seen: Vec<(String, usize)> = Vec::new();
    for o in &r.outcomes {
        if let CaseResult::Failed(f) = &o.result
            && f.verdict.signature() == g.signature
        {
            match seen.iter_mut().find(|(k, _)| *k == f.verdict.kind()) {
                Some((_, n)) => *n += 1,
                None => seen.push((f.verdict.kind(), 1)),
            }
        }
    }
    assert_eq!(g.kinds, seen);
    // The largest group: most of the bug's failures show as it.
    assert_eq!(
        r.groups[0].signature, g.signature,
        "{:?}",
        r.groups[0].kinds
    );
}

/// Rule: CONF-SHRINK-BUDGET — by default all shrinking together spends at
/// most as many adapter runs as the run's cases took, counted by a wrapper
/// around the implementation (every run it makes, cases and shrinking);
/// the report's figures are those runs, per group and in all. Given a
/// budget far larger (the old unbounded shrinking), the same run spends
/// more than its cases took: the bound is what holds it.
#[test]
fn default_shrinking_spends_at_most_the_runs_of_the_run() {
    let mut imp = Counting {
        imp: two_faults(),
        runs: 0,
    };
    let r = run_dyn(&mut imp, LIMITS, &[], 150);
    assert!(r.groups.len() >= 2, "{}", r.groups.len());
    assert_eq!(r.adapter_runs, 150);
    assert_eq!(imp.runs, r.adapter_runs + r.shrinking.adapter_runs);
    assert!(
        r.shrinking.adapter_runs <= r.adapter_runs,
        "{:?}",
        r.shrinking
    );
    assert_eq!(r.shrinking.budget, r.adapter_runs);
    let per_group: u64 = r
        .groups
        .iter()
        .filter_map(|g| g.shrink.as_ref())
        .map(|s| s.adapter_runs)
        .sum();
    assert_eq!(per_group, r.shrinking.adapter_runs);
    for g in &r.groups {
        let s = g.shrink.as_ref().expect("generated");
        assert!(s.adapter_runs <= s.allowance, "{}: {s:?}", g.signature);
    }
    let unbounded = Limits {
        shrink_runs: ShrinkRuns::AtMost(u64::MAX),
        ..LIMITS
    };
    let mut imp = Counting {
        imp: two_faults(),
        runs: 0,
    };
    let r = run_dyn(&mut imp, unbounded, &[], 150);
    assert!(
        r.shrinking.adapter_runs > r.adapter_runs,
        "{:?}",
        r.shrinking
    );
}

/// Rule: CONF-SHRINK-UNUSED-FIRST — what nothing uses goes whatever the
/// other limits: with shrinking off, no generated example keeps a tool no
/// call names; and `without_unused` removes an unused tool, its
/// configuration and replies past the last consumed while the model's run
/// stays exactly the same.
#[test]
fn no_example_keeps_an_unused_tool() {
    let off = Limits {
        shrink_steps: 0,
        ..LIMITS
    };
    let r = run_with(&mut two_faults(), &full, off, &|| false, &[], 200);
    assert!(!r.groups.is_empty());
    for g in &r.groups {
        assert_eq!(
            unused_tools(&g.example.scenario),
            Vec::<String>::new(),
            "{}",
            g.signature
        );
    }
    let s: Scenario = serde_json::from_value(serde_json::json!({
        "tools": {
            "fs": {"source": {"kind": "local"}, "run": "unattended", "program": {"kind": "script", "asks": [
                {"question": {"id": "q", "text": "?", "answer_type": {"type": "boolean"}}}],
                "finish": {"with": "succeed"}}},
            "spare": {"source": {"kind": "local"}, "run": "unattended", "program": {"kind": "script", "asks": [],
                "finish": {"with": "succeed"}}}
        },
        "turns": [{"user": "go", "cycles": [[{"id": "c", "tool": "fs", "arguments": {}}]]}],
        "prompter": [
            {"reply": "answer", "value": true},
            {"reply": "answer", "value": false},
            {"reply": "eof"}
        ]
    }))
    .unwrap();
    let (stripped, gone) = without_unused(&s);
    assert!(!stripped.tools.contains_key("spare"), "{gone:?}");
    assert!(stripped.tools.contains_key("fs"));
    assert_eq!(stripped.prompter.len(), 1, "{gone:?}");
    assert_eq!(
        scenario::run(&stripped).unwrap(),
        scenario::run(&s).unwrap()
    );
}

/// Rule: CONF-UNSUPPORTED — a report counts each kind of result apart:
/// passed, declined as unsupported and the harness's own errors, on a
/// report written by hand.
#[test]
fn a_report_counts_each_kind_of_result_apart() {
    let outcome = |index: u32, result: CaseResult| conformance::run::Outcome {
        case: CaseId::Generated {
            profile: ProfileName::Rfd083,
            seed: 1,
            index,
        },
        seconds: 0.0,
        result,
    };
    let unsupported = || CaseResult::Unsupported {
        reason: "no terminal".to_owned(),
    };
    let harness = || CaseResult::HarnessError {
        error: "refused".to_owned(),
        scenario: None,
    };
    let r = RunReport {
        outcomes: vec![
            outcome(0, CaseResult::Passed),
            outcome(1, unsupported()),
            outcome(2, CaseResult::Passed),
            outcome(3, harness()),
            outcome(4, unsupported()),
            outcome(5, CaseResult::Passed),
            outcome(6, unsupported()),
        ],
        ..RunReport::default()
    };
    assert_eq!(
        (r.passed(), r.unsupported(), r.harness_errors(), r.failed()),
        (3, 3, 1, 0)
    );
}

/// The model, answering a hard quit's call after the quit (what the pinned
/// aftermath says is not written), with that decision skipped.
struct AnswersAfterHardQuit;

impl conformance::Implementation for AnswersAfterHardQuit {
    fn run(&mut self, s: &Scenario) -> Result<Observed, ImplementationError> {
        let mut o = Model::default().run(s)?;
        o.stream.push(serde_json::json!({
            "type": "tool_call_response", "id": "call_1", "is_error": true, "content": "cancelled"
        }));
        Ok(o)
    }

    fn capabilities(&self) -> conformance::Capabilities {
        conformance::Capabilities {
            skip_pins: [conformance::Pin::HardQuitAftermath].into(),
            ..conformance::Capabilities::default()
        }
    }
}

/// Rule: CONF-PINS — a run judges each case with the capabilities the
/// implementation declares: one that skips the hard quit's aftermath and
/// answers the quitting call passes `token-hard-quit` in a run, and fails
/// it judged without its capabilities.
#[test]
fn a_run_judges_with_the_implementations_capabilities() {
    let v = conformance::runner_tests::committed()
        .into_iter()
        .find(|v| v.name == "token-hard-quit")
        .expect("the hard quit's vector");
    let mut progress = |_: Progress| {};
    let mut imp = AnswersAfterHardQuit;
    let mut run = Run::new(&mut imp, &full, LIMITS, &|| false, &mut progress, 1);
    run.vectors(std::slice::from_ref(&v));
    let r = run.finish();
    assert_eq!(r.outcomes.len(), 1);
    assert_eq!(r.passed(), 1, "{:?}", r.groups);
    let without = conformance::judge(
        &v.name,
        &v.scenario,
        &v.expected,
        conformance::Implementation::run(&mut AnswersAfterHardQuit, &v.scenario),
        &conformance::Capabilities::default(),
    );
    assert!(
        without.is_some(),
        "the extra response is a divergence when compared"
    );
}

/// Rule: CONF-RUN-TO-THE-END — the progress a run reports counts its cases
/// and its failures as they come: after each case, `done` is the cases
/// run and `failures` the failed ones so far (the harness's errors among
/// them), ending at the report's own counts.
#[test]
fn progress_counts_cases_and_failures_as_they_come() {
    let vectors = conformance::vectors(conformance::COMMITTED.0, 0).unwrap();
    let seen = std::cell::RefCell::new(Vec::new());
    let mut progress = |p: Progress| seen.borrow_mut().push((p.done, p.failures));
    let mut imp = two_faults();
    let mut run = Run::new(
        &mut imp,
        &full,
        LIMITS,
        &|| false,
        &mut progress,
        vectors.len(),
    );
    run.vectors(&vectors);
    let r = run.finish();
    let seen = seen.into_inner();
    let mut failures = 0;
    for (k, o) in r.outcomes.iter().enumerate() {
        failures += usize::from(matches!(
            o.result,
            CaseResult::Failed(_) | CaseResult::HarnessError { .. }
        ));
        assert!(
            seen.contains(&(k + 1, failures)),
            "case {k}: {failures} failures so far, progress {seen:?}"
        );
    }
    assert!(failures > 0, "two faults fail some vector");
    assert_eq!(failures, r.failed() + r.harness_errors());
}

/// Rule: CONF-RUN-TO-THE-END — the outcomes of cases run elsewhere (the
/// parallel case loop) join the run's report in order, with that loop's
/// adapter runs added to the run's own and its stop kept; progress counts
/// their failures.
#[test]
fn cases_run_elsewhere_join_the_report() {
    let vectors = conformance::vectors(conformance::COMMITTED.0, 0).unwrap();
    let v = &vectors[0];
    let elsewhere = vec![
        conformance::run::Outcome {
            case: CaseId::Vector {
                name: "a".to_owned(),
            },
            seconds: 0.5,
            result: CaseResult::Passed,
        },
        conformance::run::Outcome {
            case: CaseId::Vector {
                name: "b".to_owned(),
            },
            seconds: 0.25,
            result: CaseResult::HarnessError {
                error: "refused".to_owned(),
                scenario: None,
            },
        },
    ];
    for stopped in [false, true] {
        let last = Cell::new((0, 0));
        let mut progress = |p: Progress| last.set((p.done, p.failures));
        let mut imp = Model::default();
        let mut run = Run::new(&mut imp, &full, LIMITS, &|| false, &mut progress, 3);
        run.vectors(std::slice::from_ref(v));
        run.extend(std::time::Instant::now(), elsewhere.clone(), stopped, 7);
        let r = run.finish();
        assert_eq!(r.outcomes.len(), 3);
        assert_eq!(r.outcomes[1..], elsewhere[..]);
        assert_eq!(r.adapter_runs, 1 + 7);
        assert_eq!(r.stopped, stopped);
        assert_eq!(last.get(), (3, 1));
    }
}

/// Rule: CONF-SHRINK-BUDGET — groups are shrunk one after another, the
/// progress naming each in turn (from 1), and each is allowed its share of
/// what the budget has left: what the groups before it did not spend,
/// divided among it and the groups after it (so the last group may spend
/// all that is left). The shares are recomputed here from each group's
/// spending.
#[test]
fn each_group_is_shrunk_in_turn_with_its_share_of_what_is_left() {
    let labels = std::cell::RefCell::new(Vec::new());
    let mut progress = |p: Progress| {
        let mut l = labels.borrow_mut();
        if let Some(k) = p.shrinking
            && l.last() != Some(&k)
        {
            l.push(k);
        }
    };
    let mut imp = two_faults();
    let mut run = Run::new(&mut imp, &full, LIMITS, &|| false, &mut progress, 150);
    run.generated(ProfileName::Rfd083, 150, 3);
    let r = run.finish();
    let count = r.groups.len();
    assert!(count >= 2, "{count}");
    assert_eq!(labels.into_inner(), (1..=count).collect::<Vec<_>>());
    let mut spent = 0;
    // Shrinking goes in the report's order, largest group first.
    for (k, g) in r.groups.iter().enumerate() {
        let s = g.shrink.as_ref().expect("generated");
        assert_eq!(
            s.allowance,
            (r.shrinking.budget - spent) / (count - k) as u64,
            "group {k}: {}",
            g.signature
        );
        spent += s.adapter_runs;
    }
}

/// Rule: CONF-GROUP-SIGNATURE — a group's example is its smallest failure:
/// the smallest vector of the group unless its generated example (with
/// shrinking off: the drawn case, at most less what nothing used) is
/// strictly smaller. Checked against the sizes of the failures themselves,
/// on groups that hold both vectors and generated cases.
#[test]
fn a_groups_example_is_its_smallest_failure() {
    let vectors = conformance::vectors(conformance::COMMITTED.0, 0).unwrap();
    let off = Limits {
        shrink_steps: 0,
        ..LIMITS
    };
    let r = run_with(&mut two_faults(), &full, off, &|| false, &vectors, 300);
    let (mut vector_won, mut generated_won) = (0, 0);
    for g in &r.groups {
        let sizes = |generated: bool| {
            r.outcomes
                .iter()
                .filter_map(|o| match &o.result {
                    CaseResult::Failed(f)
                        if f.verdict.signature() == g.signature
                            && matches!(o.case, CaseId::Generated { .. }) == generated =>
                    {
                        Some(size(&f.scenario))
                    }
                    _ => None,
                })
                .min()
        };
        let (Some(vmin), Some(gmin)) = (sizes(false), sizes(true)) else {
            continue;
        };
        let example = size(&g.example.scenario);
        match g.example_case {
            CaseId::Vector { .. } => {
                assert_eq!(example, vmin, "{}", g.signature);
                assert!(example <= gmin, "{}: {example} > {gmin}", g.signature);
                vector_won += 1;
            }
            CaseId::Generated { .. } => {
                assert!(example < vmin, "{}: {example} >= {vmin}", g.signature);
                generated_won += 1;
            }
        }
    }
    assert!(
        vector_won > 0 && generated_won > 0,
        "vectors won {vector_won}, generated cases {generated_won}"
    );
}

/// Rule: CONF-GROUP-SIGNATURE — between a vector and a generated case of
/// the same size, a group's example is the vector (it has a name): the
/// generator draws exactly a failing vector's scenario (with nothing
/// unused in it), so the group holds both at one size.
#[test]
fn a_vector_is_the_example_over_a_generated_case_of_its_size() {
    let vectors = conformance::vectors(conformance::COMMITTED.0, 0).unwrap();
    let failing = vectors
        .iter()
        .find(|v| conformance::check_one(&mut two_faults(), &v.name, &v.scenario).is_some())
        .expect("two faults fail a vector");
    let s = without_unused(&failing.scenario).0;
    let v = conformance::vector(&failing.name, "the same", &[], s.clone()).unwrap();
    let generator = move |_: ProfileName| Just(s.clone()).boxed();
    let r = run_with(
        &mut two_faults(),
        &generator,
        LIMITS,
        &|| false,
        std::slice::from_ref(&v),
        1,
    );
    assert_eq!(r.groups.len(), 1, "{:?}", r.groups);
    let g = &r.groups[0];
    assert_eq!(g.cases.len(), 2);
    assert_eq!(
        g.example_case,
        CaseId::Vector {
            name: v.name.clone()
        }
    );
}

/// Rule: CONF-SHRINK-BUDGET — a run whose shrinking budget is 0 spends no
/// adapter run shrinking: no group's example is shrunk or stripped of what
/// it does not use, each is the failure as drawn.
#[test]
fn a_budget_of_nothing_spends_nothing() {
    let nothing = Limits {
        shrink_runs: ShrinkRuns::AtMost(0),
        ..LIMITS
    };
    let r = run_with(&mut two_faults(), &full, nothing, &|| false, &[], 150);
    assert!(!r.groups.is_empty());
    assert_eq!(r.shrinking.adapter_runs, 0, "{:?}", r.shrinking);
    for g in &r.groups {
        let s = g.shrink.as_ref().expect("generated");
        assert_eq!((s.adapter_runs, s.allowance, s.steps), (0, 0, 0), "{s:?}");
        assert!(s.unused_removed.is_empty(), "{s:?}");
    }
}

/// Rule: CONF-SHRINK-BUDGET — every smaller scenario tried is one step and
/// one adapter run: a group's shrinking spends its steps plus at most the
/// two removals of unused parts (before and after shrinking), so a step
/// budget of 3 bounds its runs; and under a tight run budget no group
/// spends more than its allowance, the last removal of unused parts
/// included, and every group allowed a run ends with nothing unused (rule
/// CONF-SHRINK-UNUSED-FIRST: the run kept back for the last removal).
#[test]
fn each_step_is_one_run_and_no_group_spends_past_its_allowance() {
    let three = Limits {
        shrink_steps: 3,
        ..LIMITS
    };
    let r = run_with(&mut two_faults(), &full, three, &|| false, &[], 150);
    assert!(!r.groups.is_empty());
    for g in &r.groups {
        let s = g.shrink.as_ref().expect("generated");
        assert!(s.steps <= 3, "{s:?}");
        assert!(s.adapter_runs <= u64::from(s.steps) + 2, "{s:?}");
    }
    // With the default limits the strip pass runs too; its tries are
    // steps as well.
    let r = run_with(&mut two_faults(), &full, LIMITS, &|| false, &[], 150);
    for g in &r.groups {
        let s = g.shrink.as_ref().expect("generated");
        assert!(s.adapter_runs <= u64::from(s.steps) + 2, "{s:?}");
    }
    let mut tight_groups = 0;
    for budget in [1, 2, 3, 5, 8] {
        let tight = Limits {
            shrink_runs: ShrinkRuns::AtMost(budget),
            ..LIMITS
        };
        let r = run_with(&mut two_faults(), &full, tight, &|| false, &[], 150);
        assert!(r.shrinking.adapter_runs <= budget, "{:?}", r.shrinking);
        for g in &r.groups {
            let s = g.shrink.as_ref().expect("generated");
            assert!(s.adapter_runs <= s.allowance, "{budget}: {s:?}");
            if s.allowance > 0 {
                let (_, unused) = without_unused(&g.example.scenario);
                assert!(unused.is_empty(), "{budget}: {unused:?} {s:?}");
            }
            tight_groups += usize::from(s.allowance > 0 && s.adapter_runs == s.allowance);
        }
    }
    assert!(tight_groups > 0, "some group spends all it is allowed");
}

/// A scenario a secret-persisting model fails on: `c1` asks a secret, and
/// `c2`, of the tool `spare`, asks nothing, so removing `c2` keeps the
/// failure and leaves `spare` unused.
fn secret_beside_a_spare_call() -> Scenario {
    serde_json::from_value(serde_json::json!({
        "tty": true,
        "tools": {
            "fs": {"source": {"kind": "local"}, "run": "unattended", "program": {"kind": "script", "asks": [
                {"question": {"id": "token", "text": "Token?", "answer_type": {"type": "secret"}}}],
                "finish": {"with": "succeed"}}},
            "spare": {"source": {"kind": "local"}, "run": "unattended", "program": {"kind": "script", "asks": [],
                "finish": {"with": "succeed"}}}
        },
        "turns": [{"user": "go", "cycles": [[
            {"id": "c1", "tool": "fs", "arguments": {}}, {"id": "c2", "tool": "spare", "arguments": {}}
        ]]}],
        "prompter": [{"reply": "answer", "value": "s3cret"}]
    }))
    .unwrap()
}

/// A model that persists a secret answer (the one fault
/// [`secret_beside_a_spare_call`] fails on).
fn secret_persisting() -> Model {
    Model {
        faults: Faults {
            persist_secret: true,
            ..Faults::default()
        },
    }
}

/// Rule: CONF-SHRINK-UNUSED-FIRST, CONF-SHRINK-BUDGET — the run kept back
/// for the last removal of unused parts is spent on it: a generator that
/// draws one scenario (nothing to shrink) leaves the example to the strip
/// pass, which removes the spare call and so leaves its tool unused. Under
/// every run budget that allows a removal the example ends without the
/// tool, and the tool is reported dropped.
#[test]
fn the_last_removal_drops_what_the_strip_pass_left_unused() {
    let drawn = secret_beside_a_spare_call();
    let mut model = secret_persisting();
    assert!(
        conformance::check_one(&mut model, "drawn", &drawn).is_some(),
        "the model fails on it"
    );
    let one = |_: ProfileName| Just(secret_beside_a_spare_call()).boxed();
    let mut dropped_somewhere = false;
    for budget in 1..=12 {
        let limits = Limits {
            shrink_runs: ShrinkRuns::AtMost(budget),
            ..LIMITS
        };
        let r = run_with(&mut model, &one, limits, &|| false, &[], 1);
        assert_eq!(r.groups.len(), 1, "{budget}");
        let g = &r.groups[0];
        let s = g.shrink.as_ref().expect("generated");
        assert!(s.allowance > 0, "{budget}: {s:?}");
        let tools: Vec<&String> = g.example.scenario.tools.keys().collect();
        let calls = g.example.scenario.turns[0].cycles[0].len();
        match calls {
            1 => {
                assert_eq!(tools, ["fs"], "{budget}: {s:?}");
                assert_eq!(s.dropped_tools, ["spare"], "{budget}: {s:?}");
                dropped_somewhere = true;
            }
            2 => {
                assert_eq!(tools, ["fs", "spare"], "{budget}: {s:?}");
                assert!(s.dropped_tools.is_empty(), "{budget}: {s:?}");
            }
            n => panic!("{budget}: {n} calls"),
        }
    }
    assert!(dropped_somewhere, "some budget removes the spare call");
}

/// Rule: CONF-SHRINK-BUDGET — the strip pass keeps its share of a tight
/// budget: the generator here shrinks thirty numbers that do not change
/// the scenario, so its shrinking could spend every run it is given, each
/// one step. Up to half of the runs after the one kept back for the last
/// removal are the strip pass's, and it needs three tries to drop the
/// spare call (the turn, the reply, then the call); so from a budget of 7
/// every example has only the call that fails.
#[test]
fn the_strip_pass_keeps_its_share_of_a_tight_budget() {
    let mut model = secret_persisting();
    let long = |_: ProfileName| {
        proptest::collection::vec(0u32..1000, 30)
            .prop_map(|_| secret_beside_a_spare_call())
            .boxed()
    };
    for budget in 7..=12 {
        let limits = Limits {
            shrink_runs: ShrinkRuns::AtMost(budget),
            ..LIMITS
        };
        let r = run_with(&mut model, &long, limits, &|| false, &[], 1);
        assert_eq!(r.groups.len(), 1, "{budget}");
        let g = &r.groups[0];
        let s = g.shrink.as_ref().expect("generated");
        assert_eq!(s.allowance, budget, "{s:?}");
        assert_eq!(s.end, ShrinkEnd::RunBudget, "{budget}: {s:?}");
        assert_eq!(
            g.example.scenario.turns[0].cycles[0].len(),
            1,
            "{budget}: {s:?}"
        );
    }
}
