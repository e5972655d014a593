//! A conformance run that goes to the end: every vector and every generated
//! case is run (none hides another), failures are grouped by their root
//! cause ([`Verdict::signature`], rule `CONF-GROUP-SIGNATURE`), and one
//! representative per group is shrunk to a small scenario that fails with
//! the same signature (rule `CONF-RUN-TO-THE-END`). Shrinking first removes
//! what nothing uses, always; then, largest groups first, it spends at most
//! as many adapter runs in all as the run itself did (by default), within a
//! budget of steps per group and a per-scenario time limit (rule
//! `CONF-SHRINK-BUDGET`).
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

use super::{
    Failure, Implementation, ImplementationError, Observed, Signature, Vector, Verdict, check_one,
    judge,
};
use crate::generate::scenario::size;
use crate::profile::ProfileName;
use crate::scenario::Scenario;
use crate::scenario::strip::{strip, strip_candidates};
pub use crate::scenario::strip::{unused_tools, without_unused};

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
    /// The implementation declined the scenario as one its environment
    /// cannot set up (rule `CONF-UNSUPPORTED`): skipped, never passed.
    Unsupported {
        /// Why, as the adapter said.
        reason: String,
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
    /// The group's share of the run's shrinking budget (adapter runs) ran
    /// out ([`Limits::shrink_runs`]).
    RunBudget,
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
    /// Smaller scenarios tried while shrinking (the generator's and the
    /// strip pass's), each one adapter run.
    pub steps: u32,
    /// Adapter runs spent on this example, the checks of the removal of
    /// unused parts included.
    pub adapter_runs: u64,
    /// The adapter runs this group was allowed (its share of the run's
    /// shrinking budget).
    pub allowance: u64,
    /// Wall time spent shrinking it, in seconds.
    pub(crate) seconds: f64,
    /// The tools of the drawn scenario the example no longer has.
    pub(crate) dropped_tools: Vec<String>,
    /// What nothing used and was removed ([`without_unused`]), each
    /// removal confirmed by the implementation failing with the same
    /// signature.
    pub unused_removed: Vec<String>,
    /// Why it stopped.
    pub end: ShrinkEnd,
}

/// What all shrinking together spent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct ShrinkSpent {
    /// Adapter runs spent shrinking.
    pub adapter_runs: u64,
    /// The most it could spend ([`Limits::shrink_runs`]).
    pub budget: u64,
    /// Wall time spent shrinking, in seconds.
    pub(crate) seconds: f64,
}

/// Failures of one root cause.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Group {
    /// The root cause ([`Verdict::signature`]).
    pub signature: Signature,
    /// The kind of the example's first difference ([`Verdict::kind`]).
    pub(crate) kind: String,
    /// The kinds of first difference its failures showed, with how many
    /// showed each, in the order first seen.
    pub kinds: Vec<(String, usize)>,
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
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RunReport {
    /// Every case run, in order.
    pub outcomes: Vec<Outcome>,
    /// The failures grouped by root cause, largest group first (ties: the
    /// group that failed first).
    pub groups: Vec<Group>,
    /// Adapter runs the cases took (shrinking not included).
    pub adapter_runs: u64,
    /// What shrinking spent.
    pub shrinking: ShrinkSpent,
    /// Whether the run was stopped before its end (what ran is reported).
    pub stopped: bool,
    /// Wall time of the whole run, shrinking included, in seconds.
    pub(crate) seconds: f64,
}

#[cfg(feature = "cli")]
impl RunReport {
    /// Cases that passed.
    pub(crate) fn passed(&self) -> usize {
        self.count(|r| matches!(r, CaseResult::Passed))
    }

    /// Cases that failed.
    pub(crate) fn failed(&self) -> usize {
        self.count(|r| matches!(r, CaseResult::Failed(_)))
    }

    /// Cases the harness could not judge.
    pub(crate) fn harness_errors(&self) -> usize {
        self.count(|r| matches!(r, CaseResult::HarnessError { .. }))
    }

    /// Cases the implementation declined as unsupported (skipped).
    pub(crate) fn unsupported(&self) -> usize {
        self.count(|r| matches!(r, CaseResult::Unsupported { .. }))
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
    pub(crate) total: usize,
    /// Failures so far.
    pub(crate) failures: usize,
    /// Since the run started.
    pub(crate) elapsed: Duration,
    /// `Some(k)` while shrinking the k-th group's example (from 1).
    pub(crate) shrinking: Option<usize>,
}

/// How many adapter runs all shrinking together may spend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShrinkRuns {
    /// As many as the run's cases took (the default).
    AsTheRun,
    /// At most this many.
    AtMost(u64),
}

/// The limits of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Scenarios tried per shrink, at most; 0 switches the generator's
    /// shrinking and the strip pass off (unused parts are still removed).
    pub shrink_steps: u32,
    /// Adapter runs all shrinking together may spend; shared among the
    /// groups, largest first, each a fair share of what is left.
    pub shrink_runs: ShrinkRuns,
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
    imp: Counted<'a>,
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

/// An implementation whose runs are counted (what shrinking spends is
/// measured in adapter runs).
struct Counted<'a> {
    imp: &'a mut dyn Implementation,
    runs: u64,
}

impl Implementation for Counted<'_> {
    fn run(&mut self, scenario: &Scenario) -> Result<Observed, ImplementationError> {
        self.runs += 1;
        self.imp.run(scenario)
    }

    fn capabilities(&self) -> super::Capabilities {
        self.imp.capabilities()
    }
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
pub(crate) fn draw<S: Strategy<Value = Scenario>>(
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
            imp: Counted { imp, runs: 0 },
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
        self.push(Outcome {
            case,
            seconds: started.elapsed().as_secs_f64(),
            result,
        });
        self.report();
    }

    fn push(&mut self, outcome: Outcome) {
        match outcome.result {
            CaseResult::Passed | CaseResult::Unsupported { .. } => {}
            CaseResult::Failed(_) | CaseResult::HarnessError { .. } => self.failures += 1,
        }
        self.outcomes.push(outcome);
    }

    /// Takes the outcomes of cases run elsewhere (the parallel case loop,
    /// [`super::parallel`]), in case order, begun at `started`; `stopped`:
    /// that loop was stopped before its end; `adapter_runs`: the adapter
    /// runs those cases made, counted with the run's own (the default
    /// shrinking budget, rule `CONF-SHRINK-BUDGET`).
    #[cfg(feature = "cli")]
    pub(crate) fn extend(
        &mut self,
        started: Instant,
        outcomes: Vec<Outcome>,
        stopped: bool,
        adapter_runs: u64,
    ) {
        self.imp.runs += adapter_runs;
        self.started = self.started.min(started);
        self.stopped |= stopped;
        for o in outcomes {
            self.push(o);
        }
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
                Ok(tree) => result_of(check_one(&mut self.imp, &case.to_string(), &tree.current())),
            };
            self.record(case, started, result);
        }
    }

    /// Groups the failures by root cause ([`group_failures`]) and shrinks
    /// one example per group, largest group first, within the run's
    /// shrinking budget ([`Limits::shrink_runs`]): each group may spend a
    /// fair share of what is left of it (what a group leaves unspent goes
    /// to the groups after it).
    pub fn finish(mut self) -> RunReport {
        let ran = self.imp.runs;
        let budget = match self.limits.shrink_runs {
            ShrinkRuns::AsTheRun => ran,
            ShrinkRuns::AtMost(n) => n,
        };
        let pending = group_failures(&self.outcomes);
        let started = Instant::now();
        let count = pending.len();
        let mut out = Vec::new();
        for (k, p) in pending.into_iter().enumerate() {
            self.shrinking = Some(k + 1);
            self.report();
            let left = budget.saturating_sub(self.imp.runs - ran);
            let allowance = left / (count - k) as u64;
            out.extend(self.group(p, allowance));
        }
        RunReport {
            outcomes: self.outcomes,
            groups: out,
            stopped: self.stopped,
            seconds: self.started.elapsed().as_secs_f64(),
            adapter_runs: ran,
            shrinking: ShrinkSpent {
                adapter_runs: self.imp.runs - ran,
                budget,
                seconds: started.elapsed().as_secs_f64(),
            },
        }
    }

    /// One group: its smallest vector, or its smallest generated case
    /// shrunk within `allowance` adapter runs, whichever ends smaller.
    fn group(&mut self, p: Pending, allowance: u64) -> Option<Group> {
        let Pending {
            signature,
            kinds,
            failures,
        } = p;
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
            let (f, shrink) = self.shrink(&case, f, &signature, seconds, allowance);
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
            signature,
            kind: example.verdict.kind(),
            kinds,
            cases,
            example_case,
            example,
            shrink,
        })
    }

    /// Why shrinking must stop now, if it must: the step budget, the
    /// group's adapter runs (`allowance` since `runs0`), the time limit, a
    /// stop.
    fn must_stop(
        &mut self,
        steps: u32,
        runs0: u64,
        allowance: u64,
        deadline: Instant,
    ) -> Option<ShrinkEnd> {
        if steps >= self.limits.shrink_steps {
            Some(ShrinkEnd::StepBudget)
        } else if self.imp.runs - runs0 >= allowance {
            Some(ShrinkEnd::RunBudget)
        } else if Instant::now() >= deadline {
            Some(ShrinkEnd::TimeLimit)
        } else if !self.go_on() {
            Some(ShrinkEnd::Stopped)
        } else {
            None
        }
    }

    /// Shrinks generated case `case` failing as `failure` with `signature`,
    /// keeping the signature (rule `CONF-SHRINK-KEEPS-KIND`), spending at
    /// most `allowance` adapter runs: first without what nothing uses
    /// ([`without_unused`], one run to confirm), whatever the other
    /// limits; then along the generator's shrinking (each candidate without
    /// what nothing uses before it runs) and the strip pass, within the
    /// step budget and what is left of the case's time limit after its
    /// first run (`spent` seconds), one run kept back to remove what the
    /// strip pass left unused.
    fn shrink(
        &mut self,
        case: &CaseId,
        failure: Failure,
        signature: &Signature,
        spent: f64,
        allowance: u64,
    ) -> (Failure, Shrink) {
        let started = Instant::now();
        let runs0 = self.imp.runs;
        let drawn = failure.scenario.clone();
        let mut shrink = Shrink {
            from_size: size(&drawn),
            steps: 0,
            adapter_runs: 0,
            allowance,
            seconds: 0.0,
            dropped_tools: Vec::new(),
            unused_removed: Vec::new(),
            end: ShrinkEnd::Off,
        };
        let CaseId::Generated {
            profile,
            seed,
            index,
        } = case
        else {
            return (failure, shrink);
        };
        let name = case.to_string();
        let deadline = Instant::now()
            + self
                .limits
                .scenario_time
                .saturating_sub(Duration::from_secs_f64(spent));
        let mut best = failure;
        if allowance > 0 && self.go_on() {
            best = self.unused_removed(&name, best, signature, &mut shrink.unused_removed);
        }
        // One run kept back for the last removal of unused parts, and up to
        // half of the rest for the strip pass, which removes whole turns,
        // replies and calls in a few runs where the generator's shrinking
        // lowers one choice at a time.
        let loop_allowance = allowance.saturating_sub(1);
        let reserve = (strip_candidates(&best.scenario) as u64).min(loop_allowance / 2);
        let generator_allowance = loop_allowance - reserve;
        let strategy = (self.generator)(*profile);
        let mut steps = 0u32;
        shrink.end = if self.limits.shrink_steps == 0 {
            ShrinkEnd::Off
        } else {
            match draw(&strategy, *seed, *index) {
                // Drawn once already: cannot fail now; nothing to shrink.
                Err(_) => ShrinkEnd::Done,
                Ok(mut tree) => {
                    let mut end = ShrinkEnd::Done;
                    let mut more = tree.simplify();
                    while more {
                        if let Some(e) = self.must_stop(steps, runs0, generator_allowance, deadline)
                        {
                            end = e;
                            break;
                        }
                        steps += 1;
                        self.report();
                        let (candidate, _) = without_unused(&tree.current());
                        match self.same_signature(&name, &candidate, signature) {
                            Some(f) => {
                                best = f;
                                more = tree.simplify();
                            }
                            None => more = tree.complicate(),
                        }
                    }
                    end
                }
            }
        };
        if matches!(
            shrink.end,
            ShrinkEnd::Done | ShrinkEnd::StepBudget | ShrinkEnd::RunBudget
        ) {
            let mut end = None;
            let (stripped, _) = strip(
                best,
                |f| &f.scenario,
                |s| {
                    if end.is_none() {
                        end = self.must_stop(steps, runs0, loop_allowance, deadline);
                    }
                    if end.is_some() {
                        return None;
                    }
                    steps += 1;
                    self.same_signature(&name, s, signature)
                },
            );
            best = stripped;
            match end {
                // The strip pass's own step budget does not change why the
                // generator's shrinking ended.
                Some(ShrinkEnd::StepBudget) | None => {}
                Some(
                    e @ (ShrinkEnd::RunBudget
                    | ShrinkEnd::TimeLimit
                    | ShrinkEnd::Stopped
                    | ShrinkEnd::Done
                    | ShrinkEnd::Off),
                ) => shrink.end = e,
            }
        }
        if self.imp.runs - runs0 < allowance && !self.stopped {
            best = self.unused_removed(&name, best, signature, &mut shrink.unused_removed);
        }
        shrink.steps = steps;
        shrink.dropped_tools = drawn
            .tools
            .keys()
            .filter(|t| !best.scenario.tools.contains_key(*t))
            .cloned()
            .collect();
        shrink.adapter_runs = self.imp.runs - runs0;
        shrink.seconds = started.elapsed().as_secs_f64();
        (best, shrink)
    }

    /// `failure` without what nothing uses ([`without_unused`]), if the
    /// implementation still fails with `signature` without it (one adapter
    /// run; none when nothing is unused); what went is added to `removed`.
    fn unused_removed(
        &mut self,
        name: &str,
        failure: Failure,
        signature: &Signature,
        removed: &mut Vec<String>,
    ) -> Failure {
        let (s, gone) = without_unused(&failure.scenario);
        if gone.is_empty() {
            return failure;
        }
        match self.same_signature(name, &s, signature) {
            Some(f) => {
                removed.extend(gone);
                f
            }
            None => failure,
        }
    }

    /// `s`'s failure, if it fails with `signature`.
    fn same_signature(
        &mut self,
        name: &str,
        s: &Scenario,
        signature: &Signature,
    ) -> Option<Failure> {
        check_one(&mut self.imp, name, s).filter(|f| f.verdict.signature() == *signature)
    }
}

/// The failures of one root cause, before shrinking.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Pending {
    /// Their signature ([`Verdict::signature`]).
    pub(crate) signature: Signature,
    /// The kinds of first difference they showed, with counts, in the
    /// order first seen.
    pub(crate) kinds: Vec<(String, usize)>,
    /// Each failing case, its failure and its run's seconds, in the order
    /// the cases were run.
    pub(crate) failures: Vec<(CaseId, Failure, f64)>,
}

/// The failures among `outcomes` grouped by signature (rule
/// `CONF-GROUP-SIGNATURE`), largest group first (ties: the group that
/// failed first). Takes the finished list of outcomes, in case order, so
/// any loop that runs the cases can feed it.
pub(crate) fn group_failures(outcomes: &[Outcome]) -> Vec<Pending> {
    let mut groups: IndexMap<Signature, Pending> = IndexMap::new();
    for o in outcomes {
        if let CaseResult::Failed(f) = &o.result {
            let signature = f.verdict.signature();
            let p = groups.entry(signature.clone()).or_insert_with(|| Pending {
                signature,
                kinds: Vec::new(),
                failures: Vec::new(),
            });
            let kind = f.verdict.kind();
            match p.kinds.iter_mut().find(|(k, _)| *k == kind) {
                Some((_, n)) => *n += 1,
                None => p.kinds.push((kind, 1)),
            }
            p.failures.push((o.case.clone(), f.clone(), o.seconds));
        }
    }
    let mut out: Vec<Pending> = groups.into_values().collect();
    out.sort_by_key(|p| std::cmp::Reverse(p.failures.len()));
    out
}

/// What "size" counts ([`size`]), for reports.
#[cfg(feature = "cli")]
pub(crate) const SIZE_MEANS: &str =
    "calls + scripted questions + prompter, backend, permission and delivery replies";

#[cfg(all(test, feature = "testkit"))]
mod conform_run_tests;
