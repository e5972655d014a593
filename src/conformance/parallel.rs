//! The run's case loop at scale: the cases of a run planned up front in
//! one order ([`plan`]), split into disjoint shards ([`Shard`]), and run by
//! several implementations at once ([`run_planned`]), one thread each,
//! with the outcomes reported in plan order whatever order they finished
//! in (rules `CONF-JOBS`, `CONF-SHARD`).
//!
//! A case's verdict depends only on the case and the implementation's
//! answer to it: each generated case is drawn from its own random source
//! ([`super::run::draw`]), so which worker runs it, and when, changes
//! nothing. Grouping and shrinking then take the finished outcome list
//! ([`super::run::Run::extend`]).

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use proptest::strategy::{BoxedStrategy, ValueTree};

use super::run::{CaseId, CaseResult, Outcome, draw};
use super::{Attempt, Capabilities, Failure, Implementation, Vector, Verdict, judge, judge_with};
use crate::profile::ProfileName;
use crate::scenario::{self, Scenario};

/// One case of a run, before it runs: a vector by its position in the
/// run's vector list, or a generated case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Planned {
    /// The vector at this position of the run's list.
    Vector(usize),
    /// Generated case `index` of `profile`, seeded `seed`.
    Generated {
        /// The profile it is drawn under.
        profile: ProfileName,
        /// The run's seed.
        seed: u64,
        /// Its index among the profile's cases.
        index: u32,
    },
}

/// Part `index` of `count` of a run (`--shard k/n`): the cases at the
/// positions `p` of the whole run's plan with `p mod count == index`. The
/// shards of one `count` are disjoint and together are the whole run
/// (rule `CONF-SHARD`); dealing round-robin keeps each shard a mix of the
/// vectors and every profile's generated cases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shard {
    /// `k`, from 0.
    pub(crate) index: u32,
    /// `n`, at least 1.
    pub(crate) count: u32,
}

impl Shard {
    /// The whole run.
    pub(crate) const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// Reads `k/n` (`0 <= k < n`).
    pub(crate) fn parse(s: &str) -> Result<Shard, String> {
        let bad = || format!("{s:?} is not a shard: write k/n with 0 <= k < n (e.g. 0/2 and 1/2)");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let index: u32 = k.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// Whether the case at `position` of the whole run's plan is this
    /// shard's.
    pub(crate) fn holds(self, position: usize) -> bool {
        position % self.count as usize == self.index as usize
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The whole run's cases in their one order (the vectors, then each
/// profile's generated cases `cases` seeded `seed`), keeping `shard`'s.
pub(crate) fn plan(
    vectors: usize,
    profiles: &[ProfileName],
    cases: std::ops::Range<u32>,
    seed: u64,
    shard: Shard,
) -> Vec<Planned> {
    let generated = profiles.iter().flat_map(|&profile| {
        cases.clone().map(move |index| Planned::Generated {
            profile,
            seed,
            index,
        })
    });
    (0..vectors)
        .map(Planned::Vector)
        .chain(generated)
        .enumerate()
        .filter(|(position, _)| shard.holds(*position))
        .map(|(_, p)| p)
        .collect()
}

/// A planned case's [`CaseId`].
pub(crate) fn case_id(p: Planned, vectors: &[Vector]) -> CaseId {
    match p {
        Planned::Vector(i) => CaseId::Vector {
            name: vectors.get(i).map(|v| v.name.clone()).unwrap_or_default(),
        },
        Planned::Generated {
            profile,
            seed,
            index,
        } => CaseId::Generated {
            profile,
            seed,
            index,
        },
    }
}

/// Generated scenarios per profile, shareable between the workers.
pub(crate) type SyncGenerator<'a> = &'a (dyn Fn(ProfileName) -> BoxedStrategy<Scenario> + Sync);

/// When to stop, shareable between the workers.
pub(crate) struct Stops<'a> {
    /// Checked before each case: no case starts once it holds.
    pub(crate) stop: &'a (dyn Fn() -> bool + Sync),
    /// Checked after each case: once it holds (the run was interrupted, the
    /// implementation killed under the case), a case that did not pass is
    /// not recorded (rule `CONF-INTERRUPT-NOT-A-VERDICT`).
    pub(crate) interrupted: &'a (dyn Fn() -> bool + Sync),
}

/// What the parallel loop ran.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Ran {
    /// The outcomes of the cases that ran, in plan order.
    pub outcomes: Vec<Outcome>,
    /// The planned cases that did not run (the run was stopped), in plan
    /// order.
    pub not_run: Vec<CaseId>,
    /// The adapter runs the cases made (what shrinking's default budget
    /// matches, rule `CONF-SHRINK-BUDGET`).
    pub(crate) adapter_runs: u64,
}

/// Runs `plan` with one worker thread per implementation of `imps` (each
/// runs one case at a time, taking the next case of the plan when done),
/// until the plan is done or `stops.stop` holds; `progress` is told
/// (cases done, failures so far) after each case. The outcomes come back
/// in plan order, so a run's report does not depend on how many workers
/// ran it (rule `CONF-JOBS`).
pub(crate) fn run_planned(
    imps: &mut [&mut (dyn Implementation + Send)],
    vectors: &[Vector],
    plan: &[Planned],
    generator: SyncGenerator<'_>,
    stops: &Stops<'_>,
    progress: &mut dyn FnMut(usize, usize),
) -> Ran {
    let next = AtomicUsize::new(0);
    let runs = AtomicU64::new(0);
    let slots: Mutex<Vec<Option<Outcome>>> = Mutex::new(vec![None; plan.len()]);
    let (tx, rx) = mpsc::channel::<bool>();
    std::thread::scope(|scope| {
        for imp in imps.iter_mut() {
            let tx = tx.clone();
            let (next, slots, runs) = (&next, &slots, &runs);
            scope.spawn(move || {
                let mut strategies: Vec<(ProfileName, BoxedStrategy<Scenario>)> = Vec::new();
                loop {
                    if (stops.stop)() {
                        return;
                    }
                    let position = next.fetch_add(1, Ordering::SeqCst);
                    let Some(&planned) = plan.get(position) else {
                        return;
                    };
                    let started = Instant::now();
                    let result = run_case(
                        &mut **imp,
                        planned,
                        vectors,
                        generator,
                        &mut strategies,
                        runs,
                    );
                    let passed = matches!(result, CaseResult::Passed);
                    if !passed && (stops.interrupted)() {
                        // Killed under the case: not a verdict on it.
                        return;
                    }
                    let failed = matches!(
                        result,
                        CaseResult::Failed(_) | CaseResult::HarnessError { .. }
                    );
                    let outcome = Outcome {
                        case: case_id(planned, vectors),
                        seconds: started.elapsed().as_secs_f64(),
                        result,
                    };
                    if let Ok(mut s) = slots.lock()
                        && let Some(slot) = s.get_mut(position)
                    {
                        *slot = Some(outcome);
                    }
                    if tx.send(failed).is_err() {
                        return;
                    }
                }
            });
        }
        drop(tx);
        let (mut done, mut failures) = (0, 0);
        for failed in rx {
            done += 1;
            failures += usize::from(failed);
            progress(done, failures);
        }
    });
    let slots = slots.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut ran = Ran {
        outcomes: Vec::new(),
        not_run: Vec::new(),
        adapter_runs: runs.into_inner(),
    };
    for (planned, slot) in plan.iter().zip(slots) {
        match slot {
            Some(o) => ran.outcomes.push(o),
            None => ran.not_run.push(case_id(*planned, vectors)),
        }
    }
    ran
}

/// Runs one planned case on `imp` (drawing a generated case from its
/// profile's strategy, made once per worker and profile).
fn run_case(
    imp: &mut (dyn Implementation + Send),
    planned: Planned,
    vectors: &[Vector],
    generator: SyncGenerator<'_>,
    strategies: &mut Vec<(ProfileName, BoxedStrategy<Scenario>)>,
    runs: &AtomicU64,
) -> CaseResult {
    match planned {
        Planned::Vector(i) => {
            let Some(v) = vectors.get(i) else {
                return CaseResult::HarnessError {
                    error: format!("no vector at position {i}"),
                    scenario: None,
                };
            };
            let caps = imp.capabilities();
            runs.fetch_add(1, Ordering::SeqCst);
            match imp.attempt(&v.scenario) {
                Attempt::Unsupported(reason) => CaseResult::Unsupported { reason },
                Attempt::Ran(actual) => {
                    result_of(judge(&v.name, &v.scenario, &v.expected, actual, &caps))
                }
            }
        }
        Planned::Generated {
            profile,
            seed,
            index,
        } => {
            let position = match strategies.iter().position(|(p, _)| *p == profile) {
                Some(k) => k,
                None => {
                    strategies.push((profile, generator(profile)));
                    strategies.len() - 1
                }
            };
            let name = case_id(planned, vectors).to_string();
            match draw(&strategies[position].1, seed, index) {
                Err(error) => CaseResult::HarnessError {
                    error,
                    scenario: None,
                },
                Ok(tree) => check(imp, &name, &tree.current(), runs),
            }
        }
    }
}

/// [`super::check_one`], with a declined scenario told apart.
fn check(
    imp: &mut (dyn Implementation + Send),
    name: &str,
    s: &Scenario,
    runs: &AtomicU64,
) -> CaseResult {
    match scenario::run(s) {
        Err(e) => CaseResult::HarnessError {
            error: Verdict::ModelRefused {
                error: e.to_string(),
            }
            .to_string(),
            scenario: Some(s.clone()),
        },
        Ok(t) => {
            let caps: Capabilities = imp.capabilities();
            runs.fetch_add(1, Ordering::SeqCst);
            match imp.attempt(s) {
                Attempt::Unsupported(reason) => CaseResult::Unsupported { reason },
                Attempt::Ran(actual) => result_of(judge_with(
                    name,
                    s,
                    &super::Observed::of(&t),
                    actual,
                    &caps,
                    Some(&t),
                )),
            }
        }
    }
}

/// A failure as a case result: a refused scenario is a harness error (rule
/// `CONF-HARNESS-ERROR`).
fn result_of(f: Option<Failure>) -> CaseResult {
    match f {
        None => CaseResult::Passed,
        Some(f) => match &f.verdict {
            Verdict::ModelRefused { .. } => CaseResult::HarnessError {
                error: f.verdict.to_string(),
                scenario: Some(f.scenario),
            },
            Verdict::Diverged(_)
            | Verdict::ImplementationFailed { .. }
            | Verdict::NoWitness { .. }
            | Verdict::DivergedEverySchedule { .. }
            | Verdict::OracleFinding { .. }
            | Verdict::SecretPersisted { .. } => CaseResult::Failed(f),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rule: CONF-SHARD — the shards of one count are disjoint and
    /// together are the whole plan, in its order.
    #[test]
    fn shards_partition_the_plan() {
        let profiles = [ProfileName::Rfd082, ProfileName::Rfd083];
        let whole = plan(7, &profiles, 0..5, 3, Shard::WHOLE);
        assert_eq!(whole.len(), 17);
        for n in 1..=5u32 {
            let mut seen = vec![0; whole.len()];
            for k in 0..n {
                for p in plan(7, &profiles, 0..5, 3, Shard { index: k, count: n }) {
                    let i = whole
                        .iter()
                        .position(|w| *w == p)
                        .expect("a case of the run");
                    seen[i] += 1;
                }
            }
            assert!(seen.iter().all(|&c| c == 1), "shards of {n}: {seen:?}");
        }
    }

    /// Rule: CONF-SHARD — `k/n` reads with `0 <= k < n`; anything else is
    /// refused with the form to write.
    #[test]
    fn shards_parse_k_of_n() {
        assert_eq!(Shard::parse("1/2"), Ok(Shard { index: 1, count: 2 }));
        assert_eq!(Shard::parse("0/1"), Ok(Shard::WHOLE));
        // The shard a report names reads back as itself.
        for shard in [Shard::WHOLE, Shard { index: 2, count: 5 }] {
            assert_eq!(Shard::parse(&shard.to_string()), Ok(shard));
        }
        for bad in ["2/2", "0/0", "1", "a/b", "-1/2", ""] {
            let e = Shard::parse(bad).expect_err(bad);
            assert!(e.contains("k/n"), "{bad}: {e}");
        }
    }
}

#[cfg(all(test, feature = "testkit"))]
mod parallel_tests;
