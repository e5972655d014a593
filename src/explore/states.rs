//! State-graph search over a scenario's interleavings:
//! from a root scenario (its configuration, scripts and replies, with no
//! fixed schedule) the search branches at every scheduler choice over
//! exactly the pending work (no redundant pick values), runs every
//! interleaving to the end of the run, and does not expand a state it has
//! already expanded.
//!
//! The search is a depth-first walk by replay: each run replays a prefix of
//! picks ([`Scheduler`]), takes the first pending work beyond it, and
//! records how many options every choice had; the next run's prefix is the
//! deepest choice with an option left, one option further (the
//! [`crate::generate::choice::Odometer`]'s order). Only choices among two or
//! more pieces of work branch.
//!
//! **What a state is** (the soundness argument, docs/decisions/exploration.md
//! "Exploration: deduplicated states hold their history"): the verdict
//! of a run reads its whole trace (the end-of-run invariants judge the whole
//! stream and every record), so a state must hold everything the rest of the
//! run and the verdict depend on. At a choice, [`Dedup::Full`] hashes:
//!
//! - the coordinator's moving part (`state_key::coordinator_key`, read
//!   through the coordinator's view; the
//!   fixed part is the root's, and states are compared within one root),
//! - the driver's moving parts ([`ChoicePoint::state_key`]: turn, cycle,
//!   pending work, each call's script state, how much of each reply list is
//!   left, the token, the step count, the step function's state),
//! - the incremental checker's state ([`StepChecker::state_key`]),
//! - the findings so far,
//! - the trace so far, every record of every list (a running digest per
//!   list, so where the run is cut into digests does not matter).
//!
//! Every part is hashed structurally, JSON values and records by their
//! serialization; nothing goes through `Debug` text.
//!
//! The digest is 128 bits: two SipHash lanes with distinct domain
//! separators, over length- and variant-delimited keys. Two states are taken for
//! equal when their digests are; the chance that two of `n` distinct states
//! of one root collide is at most `n² / 2^129` (under 10^-26 for a million
//! states), which the argument accepts instead of keeping every state.
//!
//! [`Dedup::Coordinator`] hashes the coordinator's state alone: it is
//! unsound (two histories that reach one coordinator state end in
//! different traces and verdicts), kept to show the differential test
//! failing on it. [`Dedup::Off`] hashes nothing: the plain DFS.

use std::cell::RefCell;
use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};

use serde::Serialize;

use crate::check::Diagnostic;
use crate::explore::state_key::coordinator_key;
use crate::invariants::{StepChecker, StreamMemo, check_trace_memo};
use crate::model::coordinator::Coordinator;
use crate::scenario::state_key::hash_serialized;
use crate::scenario::{self, ChoicePoint, RunOptions, Scenario, ScenarioError, Scheduler, Trace};

/// What the search hashes at a choice to recognise a state already
/// expanded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dedup {
    /// Coordinator, driver, checker, findings and trace so far: sound.
    Full,
    /// The coordinator's state alone: unsound, for the differential test.
    #[cfg_attr(not(test), allow(dead_code))]
    Coordinator,
    /// No deduplication: every interleaving is run to the end.
    Off,
}

/// One complete run of the search: a root and a schedule.
pub(crate) struct Leaf<'a> {
    /// The pick at every scheduler choice of the run (0 where only one
    /// piece of work was pending): with the root, a [`Scenario`] whose
    /// `schedule` replays this run ([`Leaf::scenario`]).
    pub(crate) schedule: &'a [u32],
    /// The finished trace (read by the tests).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) trace: &'a Trace,
    /// Every finding of the run: after every step, then at the end.
    pub(crate) findings: &'a [Diagnostic],
}

impl Leaf<'_> {
    /// The root with this run's schedule: `scenario::run` replays it.
    pub(crate) fn scenario(&self, root: &Scenario) -> Scenario {
        Scenario {
            schedule: self.schedule.to_vec(),
            ..root.clone()
        }
    }
}

/// What one root's search did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Stats {
    /// Complete runs (each a distinct interleaving, judged at the end).
    pub(crate) paths: usize,
    /// States expanded: choices among two or more pieces of work met for
    /// the first time (with [`Dedup::Off`], every such choice).
    pub(crate) states: usize,
    /// Choices met again and not expanded (their runs stopped there).
    pub(crate) revisited: usize,
    /// Coordinator steps run, replays included.
    pub(crate) steps: usize,
}

/// Writes into two SipHash lanes at once (a 128-bit digest).
#[derive(Clone)]
struct Lanes([DefaultHasher; 2]);

impl Lanes {
    fn new(domain: u8) -> Self {
        let mut a = DefaultHasher::new();
        let mut b = DefaultHasher::new();
        a.write_u8(domain);
        b.write_u8(domain);
        b.write(b"second lane");
        Lanes([a, b])
    }

    fn finish128(&self) -> u128 {
        (u128::from(self.0[0].finish()) << 64) | u128::from(self.0[1].finish())
    }

    /// One component: a tag, then what `key` writes (each key writes its
    /// lengths and variants, so consecutive components cannot run into each
    /// other).
    fn component(&mut self, tag: u8, key: impl FnOnce(&mut Lanes)) {
        self.write_u8(tag);
        key(self);
    }
}

impl Hasher for Lanes {
    fn finish(&self) -> u64 {
        self.0[0].finish()
    }

    fn write(&mut self, bytes: &[u8]) {
        for h in &mut self.0 {
            h.write(bytes);
        }
    }
}

/// A running digest of a trace: one per list, each fed every record once,
/// in order. The trace is append-only, so a digest at any point is the
/// digest of the whole trace so far.
struct TraceDigest {
    lists: Vec<(Lanes, usize)>,
}

impl TraceDigest {
    const LISTS: usize = 9;

    fn new() -> Self {
        TraceDigest {
            lists: (0..Self::LISTS)
                .map(|i| (Lanes::new(b'0' + i as u8), 0))
                .collect(),
        }
    }

    /// Feeds the records added since the last call, each by its
    /// serialization (the trace's own, RFD 082's wire form for events)
    /// and what `extra` adds of the fields the serialization leaves out.
    fn feed<T: Serialize>(slot: &mut (Lanes, usize), items: &[T], extra: impl Fn(&T, &mut Lanes)) {
        for item in &items[slot.1.min(items.len())..] {
            slot.0.component(b'r', |h| {
                hash_serialized(item, h);
                extra(item, h);
            });
        }
        slot.1 = items.len();
    }

    /// The digest of `trace`, fed with what it added since the last call.
    fn digest(&mut self, trace: &Trace, into: &mut Lanes) {
        // Destructured so that a new list of the trace must be placed here.
        let Trace {
            profile,
            rules,
            stream,
            invocations,
            prompts,
            permission_prompts,
            delivery_prompts,
            backend_calls,
            resolutions,
            remembered,
            tool_responses,
            interrupted,
        } = trace;
        let l = &mut self.lists;
        fn none<T>(_: &T, _: &mut Lanes) {}
        Self::feed(&mut l[0], stream, none);
        Self::feed(&mut l[1], invocations, none);
        Self::feed(&mut l[2], prompts, none);
        Self::feed(&mut l[3], permission_prompts, none);
        Self::feed(&mut l[4], delivery_prompts, none);
        Self::feed(&mut l[5], backend_calls, none);
        Self::feed(&mut l[6], resolutions, none);
        Self::feed(&mut l[7], remembered, none);
        // The response's kind is left out of the serialized trace.
        Self::feed(&mut l[8], tool_responses, |r, h| r.kind.hash(h));
        into.component(b'p', |h| (profile, rules, interrupted).hash(h));
        for (lanes, n) in l.iter() {
            into.component(b'l', |h| (lanes.finish128(), n).hash(h));
        }
    }
}

/// What the run's observer accumulates, shared with the scheduler (which
/// hashes it).
struct Observed {
    checker: StepChecker,
    found: Vec<Diagnostic>,
    steps: usize,
}

/// The depth-first scheduler of one run: replays `prefix` (picks at the
/// branching choices), then takes the first pending work, recording every
/// branching choice's pick and option count, and stops at a state already
/// expanded.
struct Dfs<'a> {
    /// `(pick, options)` at each branching choice to replay.
    prefix: &'a [(usize, usize)],
    /// `(pick, options)` at each branching choice so far.
    path: Vec<(usize, usize)>,
    /// The pick at every choice, branching or not.
    schedule: Vec<u32>,
    dedup: Dedup,
    seen: &'a mut HashSet<u128>,
    observed: &'a RefCell<Observed>,
    trace_digest: TraceDigest,
    stopped: bool,
    /// A replayed choice had another number of options than when it was
    /// first met: the model is not deterministic (rule `INV-DETERMINISTIC`),
    /// and a search by replay cannot be trusted.
    diverged: Option<String>,
    stats: &'a mut Stats,
}

impl Dfs<'_> {
    fn state(&mut self, choice: &ChoicePoint<'_>) -> u128 {
        let mut lanes = Lanes::new(b's');
        lanes.component(b'c', |h| coordinator_key(choice.coordinator(), h));
        match self.dedup {
            Dedup::Full => {
                let observed = self.observed.borrow();
                lanes.component(b'd', |h| choice.state_key(h));
                lanes.component(b'k', |h| observed.checker.state_key(h));
                lanes.component(b'f', |h| {
                    h.write_usize(observed.found.len());
                    for d in &observed.found {
                        hash_serialized(d, h);
                    }
                });
                self.trace_digest.digest(choice.trace(), &mut lanes);
            }
            Dedup::Coordinator | Dedup::Off => {}
        }
        lanes.finish128()
    }
}

impl Scheduler for Dfs<'_> {
    fn pick(&mut self, choice: &ChoicePoint<'_>) -> Option<usize> {
        let n = choice.pending();
        if n < 2 {
            self.schedule.push(0);
            return Some(0);
        }
        let k = self.path.len();
        let pick = match self.prefix.get(k) {
            Some(&(_, m)) if m != n => {
                self.diverged = Some(format!(
                    "choice {k} of a replayed run had {n} options, {m} when first met"
                ));
                self.stopped = true;
                return None;
            }
            Some(&(p, _)) => p,
            None => {
                // A choice beyond the replayed prefix: a state not met on
                // this branch of the walk before.
                match self.dedup {
                    Dedup::Off => {}
                    Dedup::Full | Dedup::Coordinator => {
                        let state = self.state(choice);
                        if !self.seen.insert(state) {
                            self.stats.revisited += 1;
                            self.stopped = true;
                            return None;
                        }
                    }
                }
                self.stats.states += 1;
                0
            }
        };
        self.path.push((pick, n));
        self.schedule.push(pick as u32);
        Some(pick)
    }
}

/// Searches every interleaving of `root` (its `schedule` is ignored) under
/// `options`, deduplicating as `dedup` says, calling `leaf` for every
/// complete run; the end-of-run stream invariants are remembered in `memo`.
/// Errors (a scenario the model refuses or a model crash) end the search.
pub(crate) fn search(
    root: &Scenario,
    options: RunOptions,
    dedup: Dedup,
    memo: &mut StreamMemo,
    leaf: &mut dyn FnMut(Leaf<'_>),
) -> Result<Stats, ScenarioError> {
    let mut stats = Stats::default();
    let mut seen = HashSet::new();
    let mut prefix: Vec<(usize, usize)> = Vec::new();
    loop {
        let observed = RefCell::new(Observed {
            checker: StepChecker::new(),
            found: Vec::new(),
            steps: 0,
        });
        let mut dfs = Dfs {
            prefix: &prefix,
            path: Vec::new(),
            schedule: Vec::new(),
            dedup,
            seen: &mut seen,
            observed: &observed,
            trace_digest: TraceDigest::new(),
            stopped: false,
            diverged: None,
            stats: &mut stats,
        };
        let trace = scenario::run_scheduled(
            root,
            options.clone(),
            &mut |c: &Coordinator, t: &Trace| {
                let mut o = observed.borrow_mut();
                o.steps += 1;
                let o = &mut *o;
                o.checker.step(c, t, &mut o.found);
            },
            &mut dfs,
        )?;
        let (mut path, schedule, stopped) = (dfs.path, dfs.schedule, dfs.stopped);
        if let Some(why) = dfs.diverged {
            return Err(ScenarioError::Crash(format!(
                "the model is not deterministic, so its interleavings cannot be searched by replay: {why}"
            )));
        }
        let Observed {
            checker,
            mut found,
            steps,
        } = observed.into_inner();
        stats.steps += steps;
        if !stopped {
            stats.paths += 1;
            found.extend(check_trace_memo(&trace, root, memo, Some(&checker)));
            leaf(Leaf {
                schedule: &schedule,
                trace: &trace,
                findings: &found,
            });
        }
        // The next branch: the deepest choice with an option left.
        loop {
            match path.pop() {
                Some((p, n)) if p + 1 < n => {
                    path.push((p + 1, n));
                    break;
                }
                Some(_) => {}
                None => return Ok(stats),
            }
        }
        prefix = path;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::{Family, scenario_at};

    /// Rule: INV-EXPLORE-COMPLETE — every complete run of the search is a
    /// scenario: the root with the run's schedule replays, through the
    /// scenario's own scheduler, to the same trace; and the runs are
    /// pairwise distinct interleavings.
    #[test]
    fn every_leaf_replays_through_the_scenarios_own_schedule() {
        let root = Scenario {
            schedule: vec![],
            ..scenario_at(Family::Pairs, 12_345)
        };
        let mut schedules = HashSet::new();
        let stats = search(
            &root,
            RunOptions::default(),
            Dedup::Full,
            &mut StreamMemo::new(),
            &mut |l| {
                let again = scenario::run(&l.scenario(&root)).expect("replays");
                assert!(again == *l.trace, "{:?}", l.schedule);
                assert!(schedules.insert(l.schedule.to_vec()));
            },
        )
        .expect("runs");
        assert!(stats.paths > 1, "{stats:?}");
        assert_eq!(stats.paths, schedules.len());
    }
}
