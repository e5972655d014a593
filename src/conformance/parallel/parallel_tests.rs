//! The run's case loop at scale (`conformance::parallel`): several workers
//! give the outcomes of one, in plan order; a case the run was interrupted
//! under is not recorded; a declined case is skipped, never passed; and
//! `conform`'s generator draws only what the environment can produce and
//! shows the user prompts.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::conformance::environment::{
    Environment, PrompterAnswers, conform_scenarios, fit, fits, prompt_share,
};
use crate::conformance::parallel::{Planned, Shard, Stops, plan, run_planned};
use crate::conformance::run::{CaseResult, Outcome, draw};
use crate::conformance::{Attempt, Implementation, ImplementationError, Model, Observed, curated};
use crate::generate::scenario::scenario_under;
use crate::model::routing::InquiryErrorKind;
use crate::profile::ProfileName;
use crate::scenario::{BackendReply, Scenario};
use crate::testkit::Faults;
use proptest::prelude::*;
use proptest::strategy::{BoxedStrategy, ValueTree};

fn full(p: ProfileName) -> BoxedStrategy<Scenario> {
    scenario_under(Just(p)).boxed()
}

/// A model with a fault, so that some cases fail.
fn faulty() -> Model {
    Model {
        faults: Faults {
            persist_secret: true,
            ..Faults::default()
        },
    }
}

fn never() -> bool {
    false
}

const NEVER: Stops<'static> = Stops {
    stop: &never,
    interrupted: &never,
};

/// Runs `plan` with `jobs` faulty models.
fn run_jobs(jobs: usize, plan: &[Planned]) -> Vec<Outcome> {
    let vectors = curated().expect("the curated vectors");
    let mut models: Vec<Model> = (0..jobs).map(|_| faulty()).collect();
    let mut imps: Vec<&mut (dyn Implementation + Send)> = models
        .iter_mut()
        .map(|m| m as &mut (dyn Implementation + Send))
        .collect();
    let ran = run_planned(&mut imps, &vectors, plan, &full, &NEVER, &mut |_, _| {});
    assert!(ran.not_run.is_empty());
    ran.outcomes
}

/// The outcomes without their wall times.
fn timeless(outcomes: Vec<Outcome>) -> Vec<Outcome> {
    outcomes
        .into_iter()
        .map(|o| Outcome { seconds: 0.0, ..o })
        .collect()
}

/// Rule: CONF-JOBS — three workers give exactly the outcomes of one, case
/// by case and in plan order (whatever order they finished in), failures
/// included.
#[test]
fn three_workers_give_the_outcomes_of_one() {
    let vectors = curated().expect("the curated vectors").len();
    let plan = plan(
        vectors,
        &[ProfileName::Rfd082, ProfileName::Rfd083],
        0..25,
        7,
        Shard::WHOLE,
    );
    let one = timeless(run_jobs(1, &plan));
    let three = timeless(run_jobs(3, &plan));
    assert_eq!(one.len(), plan.len());
    assert!(
        one.iter()
            .any(|o| matches!(o.result, CaseResult::Failed(_))),
        "the fault shows"
    );
    assert_eq!(one, three);
}

/// An implementation killed under its `k`-th case by an interruption: it
/// sets the flag, then fails as a killed adapter does.
struct KilledAt {
    k: usize,
    runs: AtomicUsize,
    flag: &'static AtomicBool,
}

impl Implementation for KilledAt {
    fn run(&mut self, s: &Scenario) -> Result<Observed, ImplementationError> {
        if self.runs.fetch_add(1, Ordering::SeqCst) == self.k {
            self.flag.store(true, Ordering::SeqCst);
            return Err(ImplementationError(
                "the adapter exited (stdout closed)".to_owned(),
            ));
        }
        Model::default().run(s)
    }
}

/// Rule: CONF-INTERRUPT-NOT-A-VERDICT — the case an interruption killed
/// the implementation under is not recorded (it is not run), nor is any
/// case after it; the cases before it are. A loop that does not ask
/// (`interrupted` never holds: the wrong implementation) records the
/// killed case as a failure.
#[test]
fn the_case_interrupted_is_not_recorded() {
    static FLAG: AtomicBool = AtomicBool::new(false);
    static WRONG_FLAG: AtomicBool = AtomicBool::new(false);
    let plan = plan(0, &[ProfileName::Rfd083], 0..10, 1, Shard::WHOLE);
    let interrupted = || FLAG.load(Ordering::SeqCst);
    let mut imp = KilledAt {
        k: 4,
        runs: AtomicUsize::new(0),
        flag: &FLAG,
    };
    let ran = run_planned(
        &mut [&mut imp],
        &[],
        &plan,
        &full,
        &Stops {
            stop: &interrupted,
            interrupted: &interrupted,
        },
        &mut |_, _| {},
    );
    assert_eq!(ran.outcomes.len(), 4);
    assert_eq!(ran.not_run.len(), 6);
    assert!(
        ran.outcomes
            .iter()
            .all(|o| matches!(o.result, CaseResult::Passed))
    );
    // The wrong implementation: the interruption is never asked about.
    let stopped = || WRONG_FLAG.load(Ordering::SeqCst);
    let mut imp = KilledAt {
        k: 4,
        runs: AtomicUsize::new(0),
        flag: &WRONG_FLAG,
    };
    let wrong = run_planned(
        &mut [&mut imp],
        &[],
        &plan,
        &full,
        &Stops {
            stop: &stopped,
            interrupted: &never,
        },
        &mut |_, _| {},
    );
    assert!(
        wrong
            .outcomes
            .iter()
            .any(|o| matches!(o.result, CaseResult::Failed(_))),
        "the check can fail"
    );
}

/// Declines every scenario without a terminal.
struct NeedsATerminal;

impl Implementation for NeedsATerminal {
    fn run(&mut self, s: &Scenario) -> Result<Observed, ImplementationError> {
        Model::default().run(s)
    }

    fn attempt(&mut self, s: &Scenario) -> Attempt {
        match s.tty {
            true => Attempt::Ran(self.run(s)),
            false => Attempt::Unsupported("this environment always has a terminal".to_owned()),
        }
    }
}

/// Rule: CONF-UNSUPPORTED — a scenario the implementation declines is
/// counted as unsupported, never as passed, with the reason it gave.
#[test]
fn a_declined_scenario_is_skipped_not_passed() {
    let plan = plan(0, &[ProfileName::Rfd083], 0..30, 2, Shard::WHOLE);
    let ran = run_planned(
        &mut [&mut NeedsATerminal],
        &[],
        &plan,
        &full,
        &NEVER,
        &mut |_, _| {},
    );
    let strategy = full(ProfileName::Rfd083);
    let mut declined = 0;
    for o in &ran.outcomes {
        let crate::conformance::run::CaseId::Generated { index, .. } = o.case else {
            panic!("a generated case")
        };
        let s = draw(&strategy, 2, index).expect("drawn").current();
        match (&o.result, s.tty) {
            (CaseResult::Passed, true) => {}
            (CaseResult::Unsupported { reason }, false) => {
                declined += 1;
                assert!(reason.contains("terminal"));
            }
            (other, tty) => panic!("tty {tty}: {other:?}"),
        }
    }
    assert!(declined > 0 && declined < 30, "{declined}");
}

/// Rule: CONF-ENVIRONMENT — every scenario `conform` draws under the
/// default environment fits it: prompter answers of the shown question's
/// type only, no backend `cancelled` error. The raw generator (the wrong
/// implementation: nothing fitted) draws scenarios that do not fit.
#[test]
fn the_generator_draws_only_what_the_environment_gives() {
    let env = Environment::default();
    let mut unfit_raw = 0;
    for p in ProfileName::ALL {
        let fitted = conform_scenarios(p, false, &env);
        let raw = full(p);
        for index in 0..60 {
            let s = draw(&fitted, 4, index).expect("drawn").current();
            assert!(fits(&env, &s), "{}", serde_json::to_string(&s).unwrap());
            let r = draw(&raw, 4, index).expect("drawn").current();
            unfit_raw += usize::from(!fits(&env, &r));
        }
    }
    assert!(unfit_raw > 0, "the raw generator draws unfit scenarios");
}

/// Rule: CONF-ENVIRONMENT — a declared environment narrows the draws: a
/// backend that raises only `provider` and fires no token cause gets no
/// other error and no `cancelled` reply; a scripted prompter (`any`)
/// keeps the answers as drawn.
#[test]
fn a_declaration_narrows_the_draws() {
    let env = Environment {
        prompter_answers: PrompterAnswers::Any,
        backend_errors: vec![InquiryErrorKind::Provider],
        token_causes: Vec::new(),
    };
    let mut errors = 0;
    for index in 0..200 {
        let raw = draw(&full(ProfileName::Rfd083), 9, index)
            .expect("drawn")
            .current();
        let s = fit(&env, raw.clone());
        assert_eq!(s.prompter, raw.prompter, "`any` keeps the prompter");
        for r in s.backend.iter().chain(s.backend_by_id.values()) {
            match r {
                BackendReply::Error { error } => {
                    errors += 1;
                    assert_eq!(*error, InquiryErrorKind::Provider);
                }
                BackendReply::Cancelled { cause } => panic!("token fired: {cause:?}"),
                BackendReply::Answer { .. } | BackendReply::Raw { .. } => {}
            }
        }
    }
    assert!(errors > 0, "errors are still drawn");
}

/// Rule: CONF-PROMPTS-EXERCISED — `conform`'s scenarios show the user a
/// question prompt at least twice as often as the raw generator's (300
/// per language, seed 1; measured figures in
/// docs/conformance-measurements.md).
#[test]
fn generated_scenarios_show_prompts() {
    let profiles = ProfileName::ALL;
    let raw = prompt_share(full, &profiles, 100, 1);
    let env = Environment::default();
    let conform = prompt_share(|p| conform_scenarios(p, false, &env), &profiles, 100, 1);
    assert_eq!(raw.drawn, 300);
    assert_eq!(conform.drawn, 300);
    assert!(
        conform.prompted >= 2 * raw.prompted && conform.prompted >= 60,
        "raw {raw:?}, conform {conform:?}"
    );
    assert!(conform.tty > raw.tty, "raw {raw:?}, conform {conform:?}");
}

/// Records the profile of every scenario it is asked to run, then runs it
/// on the model.
struct Recording {
    model: Model,
    seen: Vec<(ProfileName, Scenario)>,
}

impl Implementation for Recording {
    fn run(&mut self, scenario: &Scenario) -> Result<Observed, ImplementationError> {
        self.seen.push((scenario.profile, scenario.clone()));
        self.model.run(scenario)
    }
}

/// Rule: CONF-JOBS — every generated case runs the scenario its own
/// profile's strategy draws at its seed and index, whichever profile's
/// cases the worker ran before (a worker keeps one strategy per profile).
#[test]
fn each_generated_case_runs_its_own_profiles_scenario() {
    let profiles = [
        ProfileName::Rfd082,
        ProfileName::Rfd083,
        ProfileName::Legacy,
    ];
    let plan = plan(0, &profiles, 0..3, 11, Shard::WHOLE);
    let mut one = Recording {
        model: Model::default(),
        seen: Vec::new(),
    };
    let mut imps: Vec<&mut (dyn Implementation + Send)> = vec![&mut one];
    let ran = run_planned(&mut imps, &[], &plan, &full, &NEVER, &mut |_, _| {});
    assert_eq!(ran.outcomes.len(), plan.len());
    let mut expected = Vec::new();
    for p in &plan {
        let Planned::Generated {
            profile,
            seed,
            index,
        } = *p
        else {
            panic!("only generated cases were planned");
        };
        let tree = draw(&full(profile), seed, index).expect("a scenario");
        expected.push((profile, tree.current()));
    }
    // The conformance run may run a scenario more than once (witness
    // search, shrinking); the first run of each case is the drawn one.
    let mut firsts = Vec::new();
    for (profile, s) in &one.seen {
        if firsts.last() != Some(&(*profile, s.clone())) {
            firsts.push((*profile, s.clone()));
        }
    }
    assert_eq!(firsts.len(), expected.len(), "{firsts:#?}");
    for (k, (got, want)) in firsts.iter().zip(&expected).enumerate() {
        assert_eq!(got.0, want.0, "case {k}: profile");
        assert_eq!(got.1, want.1, "case {k}: scenario");
    }
}

/// Rule: CONF-JOBS — progress is told once per case, counting the cases
/// done and the failures so far; its last word is the whole plan and every
/// failure the outcomes hold.
#[test]
fn progress_counts_each_case_and_each_failure() {
    let vectors = curated().expect("the curated vectors");
    let plan = plan(
        vectors.len(),
        &[ProfileName::Rfd082],
        0..12,
        5,
        Shard::WHOLE,
    );
    let mut models = [faulty(), faulty()];
    let mut imps: Vec<&mut (dyn Implementation + Send)> = models
        .iter_mut()
        .map(|m| m as &mut (dyn Implementation + Send))
        .collect();
    let mut told = Vec::new();
    let ran = run_planned(
        &mut imps,
        &vectors,
        &plan,
        &full,
        &NEVER,
        &mut |done, failures| told.push((done, failures)),
    );
    let failed = ran
        .outcomes
        .iter()
        .filter(|o| {
            matches!(
                o.result,
                CaseResult::Failed(_) | CaseResult::HarnessError { .. }
            )
        })
        .count();
    assert!(failed > 1, "the faulty model fails more than one case");
    assert_eq!(told.len(), plan.len());
    for (k, &(done, failures)) in told.iter().enumerate() {
        assert_eq!(done, k + 1, "{told:?}");
        assert!(failures <= done, "{told:?}");
        if k > 0 {
            assert!(failures - told[k - 1].1 <= 1, "{told:?}");
        }
    }
    assert_eq!(told.last(), Some(&(plan.len(), failed)));
}
