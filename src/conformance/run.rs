//! A conformance run that goes to the end: every vector and every generated
//! case is run (none hides another), failures are grouped by the kind of
//! their first difference ([`Verdict::kind`]), and one representative per
//! group is shrunk, within a budget of steps and a per-scenario time limit,
//! to a small scenario that fails the same way (rule `CONF-RUN-TO-THE-END`).
//!
//! Each generated case is drawn from its own random source, seeded by the
//! run's seed and the case's index, so a failing case is named by profile,
//! seed and index and can be drawn again alone ([`CaseId::Generated`]).
//! A scenario the model refuses, or a generator that cannot draw, is a
//! harness error ([`CaseResult::HarnessError`]), never blamed on the
//! implementation (rule `CONF-HARNESS-ERROR`).
//!
//! The run loop does no I/O of its own: the caller passes a stop predicate
//! (checked between scenarios and between shrink steps) and a progress
//! callback.

use std::fmt;
use std::time::{Duration, Instant};

use indexmap::IndexMap;
use proptest::strategy::{BoxedStrategy, Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde::Serialize;

use super::{Failure, Implementation, Vector, Verdict, check_one, judge};
use crate::generate::scenario::size;
use crate::profile::ProfileName;
use crate::scenario::Scenario;
use crate::scenario::strip::strip;
pub use crate::scenario::strip::unused_tools;

/// Which case: a vector by name, or a generated case by profile, seed and
/// index (drawn again alone by [`draw`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "source", rename_all = "snake_case")]
pub enum CaseId {
    /// A conformance vector.
    Vector {
        /// Its name (file stem).
        name: String,
    },
    /// A generated scenario.
    Generated {
        /// The profile it was drawn under.
        profile: ProfileName,
        /// The run's seed.
        seed: u64,
        /// Its index among the profile's cases, from 0.
        index: u32,
    },
}

impl fmt::Display for CaseId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CaseId::Vector { name } => write!(f, "vector {name}"),
            CaseId::Generated {
                profile,
                seed,
                index,
            } => write!(f, "generated {profile} seed {seed} case {index}"),
        }
    }
}

/// How one case ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum CaseResult {
    /// The implementation did what the model does, on what is compared.
    Passed,
    /// The implementation diverged or could not run the scenario.
    Failed(Failure),
    /// The harness could not judge the case: the generator could not draw
    /// it, or the model refused it. Never the implementation's fault.
    HarnessError {
        /// What went wrong.
        error: String,
        /// The scenario, when one was drawn.
        scenario: Option<Scenario>,
    },
}

/// One case run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outcome {
    /// Which case.
    pub case: CaseId,
    /// Wall time of the run, in seconds (shrinking not included).
    pub seconds: f64,
    /// How it ended.
    #[serde(flatten)]
    pub result: CaseResult,
}

/// Why shrinking stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ShrinkEnd {
    /// No smaller scenario fails the same way (along the generator's
    /// shrinking).
    Done,
    /// The step budget (`shrink_steps`) ran out.
    StepBudget,
    /// The per-scenario time limit ran out.
    TimeLimit,
    /// The run was told to stop.
    Stopped,
    /// Shrinking was switched off (`shrink_steps` 0).
    Off,
}

/// How a group's example was shrunk.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Shrink {
    /// [`size`] of the scenario as first drawn.
    pub from_size: usize,
    /// Scenarios tried while shrinking.
    pub steps: u32,
    /// Tools no call uses that were dropped after shrinking (the scenario
    /// still failing the same way without them).
    pub dropped_tools: Vec<String>,
    /// Why it stopped.
    pub end: ShrinkEnd,
}

/// Failures of one kind of first difference.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Group {
    /// The kind ([`Verdict::kind`]).
    pub kind: String,
    /// The failing cases, in the order they ran.
    pub cases: Vec<CaseId>,
    /// The case the example comes from.
    pub example_case: CaseId,
    /// The smallest example: the smallest failing vector, or the smallest
    /// failing generated case shrunk, whichever is smaller.
    pub example: Failure,
    /// How the example was shrunk (generated examples only).
    pub shrink: Option<Shrink>,
}

/// What a run found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunReport {
    /// Every case run, in order.
    pub outcomes: Vec<Outcome>,
    /// The failures grouped by kind, in the order each kind first failed.
    pub groups: Vec<Group>,
    /// Whether the run was stopped before its end (what ran is reported).
    pub stopped: bool,
    /// Wall time of the whole run, shrinking included, in seconds.
    pub seconds: f64,
}

impl RunReport {
    /// Cases that passed.
    pub fn passed(&self) -> usize {
        self.count(|r| matches!(r, CaseResult::Passed))
    }

    /// Cases that failed.
    pub fn failed(&self) -> usize {
        self.count(|r| matches!(r, CaseResult::Failed(_)))
    }

    /// Cases the harness could not judge.
    pub fn harness_errors(&self) -> usize {
        self.count(|r| matches!(r, CaseResult::HarnessError { .. }))
    }

    fn count(&self, f: impl Fn(&CaseResult) -> bool) -> usize {
        self.outcomes.iter().filter(|o| f(&o.result)).count()
    }
}

/// Where a run is, for a progress line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    /// Cases run so far.
    pub done: usize,
    /// Cases the run will have run.
    pub total: usize,
    /// Failures so far.
    pub failures: usize,
    /// Since the run started.
    pub elapsed: Duration,
    /// `Some(k)` while shrinking the k-th group's example (from 1).
    pub shrinking: Option<usize>,
}

/// The limits of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Scenarios tried per shrink, at most; 0 switches shrinking off.
    pub shrink_steps: u32,
    /// One scenario's time, its shrinking included: shrinking stops at it
    /// (a single run is bounded by the implementation, e.g. the adapter's
    /// reply timeout).
    pub scenario_time: Duration,
}

/// Generated scenarios per profile: the generator a run draws from.
pub(crate) type Generator<'a> = &'a dyn Fn(ProfileName) -> BoxedStrategy<Scenario>;

/// A run in progress: add vectors and generated cases, then [`Run::finish`]
/// groups and shrinks.
pub struct Run<'a> {
    imp: &'a mut dyn Implementation,
    generator: Generator<'a>,
    limits: Limits,
    stop: &'a dyn Fn() -> bool,
    progress: &'a mut dyn FnMut(Progress),
    total: usize,
    started: Instant,
    outcomes: Vec<Outcome>,
    failures: usize,
    shrinking: Option<usize>,
    stopped: bool,
}

/// The random source of generated case `index` of a run seeded `seed`:
/// one per case, so a case is drawn the same alone or among others.
fn case_runner(seed: u64, index: u32) -> TestRunner {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    bytes[8..12].copy_from_slice(&index.to_le_bytes());
    TestRunner::new_with_rng(
        Config {
            failure_persistence: None,
            ..Config::default()
        },
        TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
    )
}

/// Generated case `index` of a run seeded `seed` drawn from `strategy`,
/// as its shrinkable tree; an error if the generator cannot draw it.
pub fn draw<S: Strategy<Value = Scenario>>(
    strategy: &S,
    seed: u64,
    index: u32,
) -> Result<S::Tree, String> {
    strategy
        .new_tree(&mut case_runner(seed, index))
        .map_err(|e| format!("the generator could not draw the scenario: {e}"))
}

/// Whether a verdict is the harness's own error rather than the
/// implementation's (rule `CONF-HARNESS-ERROR`).
fn harness_error(v: &Verdict) -> bool {
    match v {
        Verdict::Diverged(_)
        | Verdict::ImplementationFailed { .. }
        | Verdict::NoWitness { .. }
        | Verdict::DivergedEverySchedule { .. }
        | Verdict::OracleFinding { .. }
        | Verdict::SecretPersisted { .. } => false,
        Verdict::ModelRefused { .. } => true,
    }
}

/// A failure as a case result: a refused scenario is a harness error.
fn result_of(f: Option<Failure>) -> CaseResult {
    match f {
        None => CaseResult::Passed,
        Some(f) if harness_error(&f.verdict) => CaseResult::HarnessError {
            error: f.verdict.to_string(),
            scenario: Some(f.scenario),
        },
        Some(f) => CaseResult::Failed(f),
    }
}

impl<'a> Run<'a> {
    /// A run of `total` cases (for progress) of `imp`, generated cases drawn
    /// from `generator`.
    pub fn new(
        imp: &'a mut dyn Implementation,
        generator: Generator<'a>,
        limits: Limits,
        stop: &'a dyn Fn() -> bool,
        progress: &'a mut dyn FnMut(Progress),
        total: usize,
    ) -> Self {
        Run {
            imp,
            generator,
            limits,
            stop,
            progress,
            total,
            started: Instant::now(),
            outcomes: Vec::new(),
            failures: 0,
            shrinking: None,
            stopped: false,
        }
    }

    /// Whether to go on (asks the stop predicate once stopped stays so).
    fn go_on(&mut self) -> bool {
        if !self.stopped && (self.stop)() {
            self.stopped = true;
        }
        !self.stopped
    }

    fn record(&mut self, case: CaseId, started: Instant, result: CaseResult) {
        match result {
            CaseResult::Passed => {}
            CaseResult::Failed(_) | CaseResult::HarnessError { .. } => self.failures += 1,
        }
        self.outcomes.push(Outcome {
            case,
            seconds: started.elapsed().as_secs_f64(),
            result,
        });
        self.report();
    }

    fn report(&mut self) {
        (self.progress)(Progress {
            done: self.outcomes.len(),
            total: self.total,
            failures: self.failures,
            elapsed: self.started.elapsed(),
            shrinking: self.shrinking,
        });
    }

    /// Runs every vector (until stopped), comparing with its `expected`.
    pub fn vectors(&mut self, vectors: &[Vector]) {
        for v in vectors {
            if !self.go_on() {
                return;
            }
            let started = Instant::now();
            let caps = self.imp.capabilities();
            let f = judge(
                &v.name,
                &v.scenario,
                &v.expected,
                self.imp.run(&v.scenario),
                &caps,
            );
            let case = CaseId::Vector {
                name: v.name.clone(),
            };
            self.record(case, started, result_of(f));
        }
    }

    /// Runs generated cases `0..cases` of `profile` seeded `seed` (until
    /// stopped), comparing with the model.
    pub fn generated(&mut self, profile: ProfileName, cases: u32, seed: u64) {
        self.generated_cases(profile, 0..cases, seed);
    }

    /// Runs generated cases `indices` of `profile` seeded `seed` (one case
    /// replays a failure by the index the report named).
    pub(crate) fn generated_cases(
        &mut self,
        profile: ProfileName,
        indices: std::ops::Range<u32>,
        seed: u64,
    ) {
        let strategy = (self.generator)(profile);
        for index in indices {
            if !self.go_on() {
                return;
            }
            let started = Instant::now();
            let case = CaseId::Generated {
                profile,
                seed,
                index,
            };
            let result = match draw(&strategy, seed, index) {
                Err(error) => CaseResult::HarnessError {
                    error,
                    scenario: None,
                },
                Ok(tree) => result_of(check_one(
                    &mut *self.imp,
                    &case.to_string(),
                    &tree.current(),
                )),
            };
            self.record(case, started, result);
        }
    }

    /// Groups the failures by kind and shrinks one example per group.
    pub fn finish(mut self) -> RunReport {
        let mut groups: IndexMap<String, Vec<(CaseId, Failure, f64)>> = IndexMap::new();
        for o in &self.outcomes {
            if let CaseResult::Failed(f) = &o.result {
                groups.entry(f.verdict.kind()).or_default().push((
                    o.case.clone(),
                    f.clone(),
                    o.seconds,
                ));
            }
        }
        let mut out = Vec::new();
        for (k, (kind, failures)) in groups.into_iter().enumerate() {
            self.shrinking = Some(k + 1);
            self.report();
            out.extend(self.group(kind, failures));
        }
        RunReport {
            outcomes: self.outcomes,
            groups: out,
            stopped: self.stopped,
            seconds: self.started.elapsed().as_secs_f64(),
        }
    }

    /// One group: its smallest vector, or its smallest generated case
    /// shrunk, whichever ends smaller.
    fn group(&mut self, kind: String, failures: Vec<(CaseId, Failure, f64)>) -> Option<Group> {
        let cases: Vec<CaseId> = failures.iter().map(|(c, _, _)| c.clone()).collect();
        let smallest = |generated: bool| {
            failures
                .iter()
                .filter(|(c, _, _)| matches!(c, CaseId::Generated { .. }) == generated)
                .min_by_key(|(_, f, _)| size(&f.scenario))
                .cloned()
        };
        let vector = smallest(false);
        let generated = smallest(true).map(|(case, f, seconds)| {
            let (f, shrink) = self.shrink(&case, f, &kind, seconds);
            (case, f, shrink)
        });
        let (example_case, example, shrink) = match (vector, generated) {
            (Some((vc, vf, _)), Some((gc, gf, shrink))) => {
                if size(&gf.scenario) < size(&vf.scenario) {
                    (gc, gf, Some(shrink))
                } else {
                    (vc, vf, None)
                }
            }
            (Some((vc, vf, _)), None) => (vc, vf, None),
            (None, Some((gc, gf, shrink))) => (gc, gf, Some(shrink)),
            (None, None) => return None,
        };
        Some(Group {
            kind,
            cases,
            example_case,
            example,
            shrink,
        })
    }

    /// Shrinks generated case `case` failing as `failure` (of `kind`),
    /// keeping the kind (rule `CONF-SHRINK-KEEPS-KIND`), within the step
    /// budget and what is left of the case's time limit after its first run
    /// (`spent` seconds); then drops the tools no call uses if it still
    /// fails the same way without them.
    fn shrink(
        &mut self,
        case: &CaseId,
        failure: Failure,
        kind: &str,
        spent: f64,
    ) -> (Failure, Shrink) {
        let from_size = size(&failure.scenario);
        let CaseId::Generated {
            profile,
            seed,
            index,
        } = case
        else {
            return (
                failure,
                Shrink {
                    from_size,
                    steps: 0,
                    dropped_tools: Vec::new(),
                    end: ShrinkEnd::Off,
                },
            );
        };
        let name = case.to_string();
        let deadline = Instant::now()
            + self
                .limits
                .scenario_time
                .saturating_sub(Duration::from_secs_f64(spent));
        let mut best = failure;
        let mut steps = 0u32;
        let strategy = (self.generator)(*profile);
        let end = if self.limits.shrink_steps == 0 {
            ShrinkEnd::Off
        } else {
            match draw(&strategy, *seed, *index) {
                // Drawn once already: cannot fail now; nothing to shrink.
                Err(_) => ShrinkEnd::Done,
                Ok(mut tree) => {
                    let mut end = ShrinkEnd::Done;
                    let mut more = tree.simplify();
                    while more {
                        if steps >= self.limits.shrink_steps {
                            end = ShrinkEnd::StepBudget;
                            break;
                        }
                        if Instant::now() >= deadline {
                            end = ShrinkEnd::TimeLimit;
                            break;
                        }
                        if !self.go_on() {
                            end = ShrinkEnd::Stopped;
                            break;
                        }
                        steps += 1;
                        self.report();
                        match check_one(&mut *self.imp, &name, &tree.current()) {
                            Some(f) if f.verdict.kind() == kind => {
                                best = f;
                                more = tree.simplify();
                            }
                            Some(_) | None => more = tree.complicate(),
                        }
                    }
                    end
                }
            }
        };
        let (best, dropped_tools) = match end {
            // Switched off, out of time or stopped: as far as it got.
            ShrinkEnd::Off | ShrinkEnd::TimeLimit | ShrinkEnd::Stopped => (best, Vec::new()),
            ShrinkEnd::Done | ShrinkEnd::StepBudget => self.after_shrinking(&name, best, kind),
        };
        (
            best,
            Shrink {
                from_size,
                steps,
                dropped_tools,
                end,
            },
        )
    }

    /// `failure` after the strip pass ([`crate::scenario::strip::strip`]):
    /// without the tools no call uses, then without each turn, reply,
    /// schedule pick and call it still fails the same way without. Every
    /// candidate is run again: a removal is kept only if the kind stays
    /// (rule `CONF-SHRINK-KEEPS-KIND`).
    fn after_shrinking(
        &mut self,
        name: &str,
        failure: Failure,
        kind: &str,
    ) -> (Failure, Vec<String>) {
        strip(failure, |f| &f.scenario, |s| self.same_kind(name, s, kind))
    }

    /// `s`'s failure, if it fails as `kind`.
    fn same_kind(&mut self, name: &str, s: &Scenario, kind: &str) -> Option<Failure> {
        check_one(&mut *self.imp, name, s).filter(|f| f.verdict.kind() == kind)
    }
}

/// What "size" counts ([`size`]), for reports.
pub const SIZE_MEANS: &str =
    "calls + scripted questions + prompter, backend, permission and delivery replies";
