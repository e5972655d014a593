//! Every interleaving of a root scenario by forking, reduced by sleep sets.
//!
//! **Fork, don't replay.** The search walks the interleavings depth first
//! on a [`Machine`]: at a choice it clones the run (coordinator, trace,
//! driver) with the incremental checker and the findings so far, and takes
//! each option from its own copy. No prefix is run twice; the replaying
//! search ([`super::states`]) runs each prefix again from the root.
//!
//! **Independence** (docs/decisions/exploration.md "Exploration: forking search reduced
//! by sleep sets over an independence of calls"). A step is one piece of pending
//! work of one call of the cycle; its [`Footprint`] is what it reads and
//! writes beyond its own call, read from the concrete strings it touches,
//! never from whose tool it is:
//!
//! - a reply list it takes the next reply of (prompter, inquiry backend,
//!   permission, delivery): two steps that take from one list are
//!   dependent (the order decides who gets which reply);
//! - the turn-cache key it may read or write, as the cache spells it
//!   (`<tool_name>.<question_id>`, `<tool_name>.__permission__`, RFD 082
//!   "Splitting the turn-cache state"): a tool run reads the key of the
//!   question it asks next (and may write it: a refusal or an invalid
//!   static answer resolves it), a prompt or a backend call writes the key
//!   of the question it answers, a permission prompt its tool's permission
//!   key. Keys are compared as strings, so tools `a` and `a.b` asking `b.c`
//!   and `c` share `a.b.c`, and a permission key equals a question
//!   `__permission__`'s (one combined map before RFD 082): two steps are
//!   dependent when they touch one key and either may write it;
//! - the stem `<tool_call_id>.<question_id>` of the inquiry IDs it may
//!   record (equal IDs have equal stems: the attempt segment holds no
//!   separator): the oracle pairs inquiry events by ID, so two steps that
//!   may record one ID are dependent;
//! - the call's ID: calls of one cycle that share it share their attempt
//!   counters (keyed by call ID and question ID) and their tool-call
//!   pairing in the stream, so their steps are dependent, as two steps of
//!   one call are;
//! - a local program's output list, per tool name: its runs take the next
//!   line in turn;
//! - the turn's token: a backend reply that cancels (hard quit, aborted
//!   turn, restart, tool cancel) changes what every other pending step
//!   does, so that step is dependent with every step.
//!
//! Strings are compared by a 64-bit fingerprint ([`Touched`]): two equal
//! strings always match, and two different ones that collide only make a
//! pair dependent, which costs reduction, never soundness. Everything
//! else a step changes is its own call's: its executing state (by the
//! call's index), its script state, its records in the trace, and its
//! events in the persisted stream, whose order relative to another call's
//! events is the one thing that differs between two interleavings of a
//! class. RFD 082 fixes no order between calls (the conformance
//! comparison's partial order, rule `CONF-PARTIAL-ORDER`: per turn, each
//! call's own events in order), and every invariant's verdict reads only
//! that: each judges a call's own events and records in their order
//! (pairing, recorded before routed, provenance, attempts, round trips), a
//! set over the turn (unique IDs and cache keys, secrets never persisted,
//! cache hygiene at every step: a cached secret or cancelled answer stays
//! cached for the turn once written), or events outside a cycle's parallel
//! work (turn and chat events, which are not choices); the oracle pairs by
//! ID, and equal IDs are dependent above. What does read the order across
//! calls is the findings' *text*: event indices and counts in messages. So
//! a class's verdict is compared per rule ID, and the property test
//! `every_interleaving_of_a_class_gives_the_same_verdict` (rule
//! `INV-EXPLORE-POR`) checks it on generated roots under every fault; the
//! drawn-root property checks the reduced search against every
//! interleaving on roots of the full scenario generator.
//!
//! **Sleep sets** (Godefroid, "Partial-Order Methods for the Verification of
//! Concurrent Systems", 1996, ch. 5): at a choice, the options are taken in
//! order; the child of option `t` sleeps on every earlier option and every
//! sleeping step of the parent that is independent of `t`, and a sleeping
//! step is not taken until a dependent step wakes it. Without state caching
//! this runs exactly one interleaving of every equivalence class
//! (Mazurkiewicz trace) of the independence, and cuts a prefix whose every
//! pending step sleeps ([`Stats::blocked`]).

use crate::check::Diagnostic;
use crate::invariants::{StepChecker, StreamMemo, check_trace_memo};
use crate::model::cache_key::CacheKey;
use crate::scenario::machine::{Machine, StepInfo, StepKind};
use crate::scenario::{RunOptions, Scenario, ScenarioError, Trace};

/// Whether the search reduces by sleep sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reduction {
    /// Every interleaving.
    Off,
    /// One interleaving per equivalence class (sleep sets).
    SleepSets,
}

/// A reply list a step takes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Queue {
    /// The prompter's replies.
    Prompter,
    /// The inquiry backend's replies (the keyed ones included).
    Backend,
    /// The permission prompt's replies.
    Permission,
    /// The delivery prompt's replies.
    Delivery,
}

/// Which independence the reduction uses: the one derived from what each
/// step touches, or (kept to show a test failing, never used by a command)
/// the former one derived from tool identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Independence {
    /// Concrete keys, reply lists and call IDs (the module documentation).
    Touched,
    /// Keys per tool name and calls by their index in the cycle: unsound
    /// where tools `a` and `a.b` share a key, or two calls of a cycle share
    /// an ID. For tests only.
    #[cfg_attr(not(test), allow(dead_code))]
    ToolIdentity,
}

/// A fingerprint of a string a step touches (a turn-cache key, an inquiry
/// ID's stem, a call ID, a local program's name). Two equal strings have
/// equal fingerprints; two different strings that happen to share one only
/// make two steps dependent that are not, which costs reduction, never
/// soundness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Touched(u64);

impl Touched {
    fn of(text: &str) -> Touched {
        use std::hash::{Hash, Hasher};
        // SipHash with fixed keys: the same fingerprint in every run.
        let mut h = std::hash::DefaultHasher::new();
        text.hash(&mut h);
        Touched(h.finish())
    }
}

/// What one step reads and writes beyond its own call (see the module
/// documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Footprint {
    /// The call's index in the cycle.
    pub(crate) call: usize,
    /// The kind of work: with the call, the step's identity among the
    /// pending work.
    pub(crate) kind: StepKind,
    /// The call's ID: calls of one cycle that share it share their attempt
    /// counters, their inquiry IDs and their tool-call pairing, so their
    /// steps are dependent.
    pub(crate) call_id: Touched,
    /// The turn-cache key (`<tool_name>.<question_id>` or
    /// `<tool_name>.__permission__`, as the cache spells it) the step may
    /// read or write.
    pub(crate) key: Option<Touched>,
    /// The step may write `key` (every step that resolves a question or a
    /// permission may remember it).
    pub(crate) writes_key: bool,
    /// The stem `<tool_call_id>.<question_id>` of the inquiry IDs the step
    /// may record: equal stems give equal IDs, which the oracle pairs by.
    pub(crate) stem: Option<Touched>,
    /// A local program's output list (per tool name) the step takes from.
    pub(crate) output: Option<Touched>,
    /// The reply list it takes from.
    pub(crate) queue: Option<Queue>,
    /// It fires the turn's token: dependent with every step.
    pub(crate) global: bool,
}

impl Footprint {
    /// The footprint of a pending step of a run, from the keys and lists it
    /// touches.
    pub(crate) fn of(step: &StepInfo<'_>) -> Footprint {
        let tool = step.tool;
        let question = step.question.as_deref();
        let (queue, key) = match step.kind {
            StepKind::Invoke => (None, question.map(|q| CacheKey::answer(tool, q).key())),
            StepKind::Prompt => (
                Some(Queue::Prompter),
                question.map(|q| CacheKey::answer(tool, q).key()),
            ),
            StepKind::Inquire => (
                Some(Queue::Backend),
                question.map(|q| CacheKey::answer(tool, q).key()),
            ),
            StepKind::Permission => (
                Some(Queue::Permission),
                Some(CacheKey::permission(tool).key()),
            ),
            StepKind::Delivery => (Some(Queue::Delivery), None),
        };
        let output = match (step.kind, step.local_program) {
            (StepKind::Invoke, true) => Some(Touched::of(tool)),
            (StepKind::Invoke, false)
            | (
                StepKind::Prompt | StepKind::Inquire | StepKind::Permission | StepKind::Delivery,
                _,
            ) => None,
        };
        Footprint {
            call: step.call,
            kind: step.kind,
            call_id: Touched::of(step.call_id),
            key: key.as_deref().map(Touched::of),
            writes_key: key.is_some(),
            stem: question.map(|q| Touched::of(&format!("{}.{q}", step.call_id))),
            output,
            queue,
            global: step.fires_token,
        }
    }

    /// The footprint the reduction used before it read what a step
    /// touches: the tool's identity stands for its keys (`key` is the
    /// tool's name, written by every step but a script's run), the call's
    /// index for the call, no inquiry stems. Kept for the test that shows
    /// it unsound on the shapes [`Footprint::of`] covers.
    #[doc(hidden)]
    pub(crate) fn by_tool_identity(step: &StepInfo<'_>) -> Footprint {
        let (queue, writes_tool) = match step.kind {
            StepKind::Invoke => (None, step.local_program),
            StepKind::Prompt => (Some(Queue::Prompter), true),
            StepKind::Inquire => (Some(Queue::Backend), true),
            StepKind::Permission => (Some(Queue::Permission), true),
            StepKind::Delivery => (Some(Queue::Delivery), true),
        };
        Footprint {
            call: step.call,
            kind: step.kind,
            call_id: Touched(step.call as u64),
            key: Some(Touched::of(step.tool)),
            writes_key: writes_tool,
            stem: None,
            output: None,
            queue,
            global: step.fires_token,
        }
    }

    /// The same pending step (its call and kind).
    pub(crate) fn same_step(&self, other: &Footprint) -> bool {
        self.call == other.call && self.kind == other.kind
    }

    /// Whether the order of the two steps can matter.
    pub(crate) fn dependent(&self, other: &Footprint) -> bool {
        let both = |a: Option<Touched>, b: Option<Touched>| a.is_some() && a == b;
        self.call == other.call
            || self.call_id == other.call_id
            || self.global
            || other.global
            || (self.queue.is_some() && self.queue == other.queue)
            || both(self.output, other.output)
            || both(self.stem, other.stem)
            || (both(self.key, other.key) && (self.writes_key || other.writes_key))
    }
}

/// One complete run of the search.
pub(crate) struct Run<'a> {
    /// The pick at every choice (0 where one piece of work pended): with
    /// the root, a scenario whose `schedule` replays the run.
    pub(crate) schedule: &'a [u32],
    /// Every step's footprint, in order (read by the tests).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) steps: &'a [Footprint],
    /// The finished trace (read by the tests).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) trace: &'a Trace,
    /// Every finding: after every step, then at the end.
    pub(crate) findings: &'a [Diagnostic],
}

impl Run<'_> {
    /// The root with this run's schedule.
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
    /// Complete runs; with sleep sets, one per equivalence class.
    pub(crate) runs: usize,
    /// Prefixes cut because every pending step slept.
    pub(crate) blocked: usize,
    /// Coordinator steps run (each once: no replay).
    pub(crate) steps: usize,
    /// Choices among two or more pieces of work.
    pub(crate) choices: usize,
}

/// A point of the walk: the run and its checker, cloned at a choice.
#[derive(Clone)]
struct Node<'s> {
    machine: Machine<'s>,
    checker: StepChecker,
    found: Vec<Diagnostic>,
    steps: Vec<Footprint>,
}

struct Walk<'r, 'l> {
    root: &'r Scenario,
    reduction: Reduction,
    independence: Independence,
    memo: &'r mut StreamMemo,
    run: &'l mut dyn FnMut(Run<'_>),
    stats: Stats,
}

impl Walk<'_, '_> {
    fn node(&mut self, mut node: Node<'_>, sleep: Vec<Footprint>) -> Result<(), ScenarioError> {
        let n = {
            let Node {
                machine,
                checker,
                found,
                ..
            } = &mut node;
            let before = machine.steps();
            let n = machine.advance(&mut |c, t| checker.step(c, t, found))?;
            self.stats.steps += machine.steps() - before;
            n
        };
        let Some(n) = n else {
            self.stats.runs += 1;
            let Node {
                machine,
                checker,
                mut found,
                steps,
            } = node;
            let schedule = machine.schedule().to_vec();
            let trace = machine.into_trace();
            found.extend(check_trace_memo(
                &trace,
                self.root,
                self.memo,
                Some(&checker),
            ));
            (self.run)(Run {
                schedule: &schedule,
                steps: &steps,
                trace: &trace,
                findings: &found,
            });
            return Ok(());
        };
        if n > 1 {
            self.stats.choices += 1;
        }
        let footprint = match self.independence {
            Independence::Touched => Footprint::of,
            Independence::ToolIdentity => Footprint::by_tool_identity,
        };
        let options: Vec<Footprint> = node.machine.pending().map(|s| footprint(&s)).collect();
        let awake: Vec<usize> = (0..n)
            .filter(|&i| !sleep.iter().any(|u| u.same_step(&options[i])))
            .collect();
        let Some(&last) = awake.last() else {
            self.stats.blocked += 1;
            return Ok(());
        };
        let mut done: Vec<Footprint> = Vec::new();
        let mut node = Some(node);
        for &i in &awake {
            let t = options[i];
            let child_sleep = match self.reduction {
                Reduction::Off => Vec::new(),
                Reduction::SleepSets => sleep
                    .iter()
                    .chain(&done)
                    .filter(|u| !u.dependent(&t))
                    .copied()
                    .collect(),
            };
            // The last option takes the node itself: no clone.
            let child = match i == last {
                true => node.take(),
                false => node.clone(),
            };
            let Some(mut child) = child else {
                return Err(ScenarioError::Crash(
                    "the search took a node twice".to_owned(),
                ));
            };
            let before = child.machine.steps();
            {
                let Node {
                    machine,
                    checker,
                    found,
                    steps,
                } = &mut child;
                machine.take(i, &mut |c, tr| checker.step(c, tr, found))?;
                steps.push(t);
            }
            self.stats.steps += child.machine.steps() - before;
            self.node(child, child_sleep)?;
            done.push(t);
        }
        Ok(())
    }
}

/// Searches every interleaving of `root` (its `schedule` is ignored) under
/// `options`, forking at every choice, reduced as `reduction` says, calling
/// `run` for every complete run; the end-of-run stream invariants are
/// remembered in `memo`. Errors (a scenario the model refuses or a model
/// crash) end the search.
pub(crate) fn search(
    root: &Scenario,
    options: RunOptions,
    reduction: Reduction,
    memo: &mut StreamMemo,
    run: &mut dyn FnMut(Run<'_>),
) -> Result<Stats, ScenarioError> {
    search_under(root, options, reduction, Independence::Touched, memo, run)
}

/// [`search`] under a chosen independence (the tests hold the former one,
/// [`Independence::ToolIdentity`], to what it misses).
pub(crate) fn search_under(
    root: &Scenario,
    options: RunOptions,
    reduction: Reduction,
    independence: Independence,
    memo: &mut StreamMemo,
    run: &mut dyn FnMut(Run<'_>),
) -> Result<Stats, ScenarioError> {
    let node = Node {
        machine: Machine::new(root, options)?,
        checker: StepChecker::new(),
        found: Vec::new(),
        steps: Vec::new(),
    };
    let mut walk = Walk {
        root,
        reduction,
        independence,
        memo,
        run,
        stats: Stats::default(),
    };
    walk.node(node, Vec::new())?;
    Ok(walk.stats)
}

/// A step named within its run: its call, its kind, and how many steps of
/// that call and kind came before it, plus one.
#[cfg(test)]
pub(crate) type StepName = (usize, StepKind, usize);

/// A run's equivalence class under the independence: its steps (each named
/// by its call, kind and how many steps of that call and kind came before),
/// and for every dependent pair of steps which came first. Two runs are
/// equivalent (one is the other with independent neighbours swapped) when
/// these are equal.
#[cfg(test)]
pub(crate) fn class_of(steps: &[Footprint]) -> Vec<(StepName, StepName)> {
    let mut seen: std::collections::HashMap<(usize, StepKind), usize> = Default::default();
    let named: Vec<StepName> = steps
        .iter()
        .map(|s| {
            let k = seen.entry((s.call, s.kind)).or_default();
            *k += 1;
            (s.call, s.kind, *k)
        })
        .collect();
    let mut pairs = Vec::new();
    for (i, a) in steps.iter().enumerate() {
        for (j, b) in steps.iter().enumerate().skip(i + 1) {
            if a.dependent(b) {
                pairs.push((named[i], named[j]));
            }
        }
    }
    pairs.sort();
    pairs
}

/// How many interleavings `root` has, counted from one run without
/// searching: per cycle, the multinomial number of ways to interleave the
/// calls' sequences of work (invocations, prompts, backend calls,
/// permission and delivery prompts), each call by its index in the cycle
/// (a permission or delivery prompt by its call's ID and tool: two calls
/// of one cycle with one ID and one tool count as one). Exact where no call's amount of work
/// depends on the order (the pairs and triples families' roots: their
/// calls ask different tools, so no remembered answer of one serves
/// another); the reduction factor is set against it.
pub(crate) fn interleavings(root: &Scenario, options: RunOptions) -> Result<u64, ScenarioError> {
    use std::collections::BTreeMap;
    let trace = crate::scenario::run_with(
        &Scenario {
            schedule: Vec::new(),
            ..root.clone()
        },
        options,
    )?;
    // Work per cycle, per call by its index in the cycle (two calls of a
    // cycle may share an ID); a permission or delivery prompt names its
    // call by ID and tool, found in the root's cycle.
    let mut work: BTreeMap<(usize, usize), BTreeMap<usize, u64>> = BTreeMap::new();
    let mut add = |at: crate::scenario::At, call: usize| {
        *work
            .entry((at.turn, at.cycle))
            .or_default()
            .entry(call)
            .or_default() += 1;
    };
    let index_of = |at: crate::scenario::At, id: &str, tool: &str| {
        root.turns
            .get(at.turn)
            .and_then(|t| t.cycles.get(at.cycle))
            .and_then(|c| c.iter().position(|call| call.id == id && call.tool == tool))
            .unwrap_or(usize::MAX)
    };
    trace
        .invocations
        .iter()
        .for_each(|r| add(r.at, r.call_index));
    trace.prompts.iter().for_each(|r| add(r.at, r.call_index));
    trace
        .backend_calls
        .iter()
        .for_each(|r| add(r.at, r.call_index));
    trace
        .permission_prompts
        .iter()
        .for_each(|r| add(r.at, index_of(r.at, &r.tool_call_id, &r.tool)));
    trace
        .delivery_prompts
        .iter()
        .for_each(|r| add(r.at, index_of(r.at, &r.tool_call_id, &r.tool)));
    let mut total: u64 = 1;
    for calls in work.values() {
        // (a + b + …)! / (a! b! …), one binomial at a time.
        let mut placed: u64 = 0;
        for &n in calls.values() {
            for i in 1..=n {
                total = total.saturating_mul(placed + i) / i;
            }
            placed += n;
        }
    }
    Ok(total)
}

/// The rows of the fault matrix the reduced search is held to: no fault,
/// then every fault on its own, each named. The one place this module
/// reads the model's fault switches.
pub(crate) fn fault_matrix() -> Vec<(String, RunOptions)> {
    crate::testkit::Faults::each_alone()
        .into_iter()
        .map(|faults| {
            let name = serde_json::to_value(faults)
                .ok()
                .and_then(|v| {
                    v.as_object()?
                        .iter()
                        .find(|(_, on)| on.as_bool() == Some(true))
                        .map(|(k, _)| k.clone())
                })
                .unwrap_or_else(|| "none".to_owned());
            (name, RunOptions::from(faults))
        })
        .collect()
}

/// What the full and the reduced search of one root found, under one row
/// of the fault matrix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Agreement {
    /// The full search's runs and the reduced search's.
    pub(crate) runs: (usize, usize),
    /// The rule IDs the full search found violated, and the reduced.
    pub(crate) rules: (
        std::collections::BTreeSet<&'static str>,
        std::collections::BTreeSet<&'static str>,
    ),
}

impl Agreement {
    /// The two searches found the same invariants violated.
    pub(crate) fn agrees(&self) -> bool {
        self.rules.0 == self.rules.1
    }
}

/// Searches `root` under `options` with every interleaving and with sleep
/// sets, and says what each found (rule IDs over every run: a violation is
/// named by its invariant and by its root, the scenario without its
/// schedule, which is what every violating interleaving shrinks to under
/// the schedule).
pub(crate) fn agreement(root: &Scenario, options: RunOptions) -> Result<Agreement, ScenarioError> {
    agreement_under(root, options, Independence::Touched)
}

/// [`agreement`] with the reduced search under `independence`.
pub(crate) fn agreement_under(
    root: &Scenario,
    options: RunOptions,
    independence: Independence,
) -> Result<Agreement, ScenarioError> {
    let found = |reduction| {
        let mut rules = std::collections::BTreeSet::new();
        let mut memo = StreamMemo::new();
        let stats = search_under(
            root,
            options.clone(),
            reduction,
            independence,
            &mut memo,
            &mut |r| {
                rules.extend(r.findings.iter().map(|d| d.rule.id()));
            },
        )?;
        Ok::<_, ScenarioError>((stats.runs, rules))
    };
    let (full_runs, full) = found(Reduction::Off)?;
    let (reduced_runs, reduced) = found(Reduction::SleepSets)?;
    Ok(Agreement {
        runs: (full_runs, reduced_runs),
        rules: (full, reduced),
    })
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use proptest::prelude::*;

    use super::*;
    use crate::explore::states::{self, Dedup};
    use crate::explore::{Family, root_at, root_indices};
    use crate::scenario;
    use crate::testkit::Faults;

    /// Rule: INV-EXPLORE-POR — the counted interleavings (a multinomial per
    /// cycle) are the runs the search without reduction makes, on pairs
    /// roots, where the count is exact (their calls ask different tools)
    /// and each call has several pieces of work (invocations, prompts,
    /// backend calls), so the count's every factor is read.
    #[test]
    fn the_counted_interleavings_are_the_runs_of_every_interleaving() {
        let runs = |root: &Scenario| {
            let stats = search(
                root,
                RunOptions::default(),
                Reduction::Off,
                &mut StreamMemo::new(),
                &mut |_| {},
            )
            .expect("runs");
            stats.runs as u64
        };
        let mut several = 0;
        for n in root_indices(Family::Pairs).into_iter().step_by(4_999) {
            let root = root_at(Family::Pairs, n);
            let counted = interleavings(&root, RunOptions::default()).expect("counts");
            assert_eq!(counted, runs(&root), "pairs root {n}");
            several += usize::from(counted > 2);
        }
        assert!(several > 0, "some root interleaves more than two steps");
        // Permission and delivery prompts, each counted for the call its
        // tool-call ID and tool name find: the language family's roots with
        // plain names, a backend that answers (no token cuts a call's work
        // short), the first tool behind a permission prompt and the second's
        // result behind a delivery prompt.
        let mut prompted = 0;
        for n in 0..crate::explore::LANGUAGE_ROOTS {
            let root = crate::explore::language_root(n);
            let plain = !root.tools.contains_key("a.b");
            let answers = matches!(
                root.backend.first(),
                Some(crate::scenario::BackendReply::Answer { .. })
            );
            let extras = root
                .tools
                .get("t1")
                .is_some_and(|t| t.run == Some(crate::model::coordinator::RunPolicy::Ask));
            if !(plain && answers && extras) {
                continue;
            }
            let counted = interleavings(&root, RunOptions::default()).expect("counts");
            assert_eq!(counted, runs(&root), "language root {n}");
            prompted += 1;
        }
        assert!(prompted > 0);
    }

    /// A step of call `call` that touches nothing beyond its own call.
    fn lone(call: usize, kind: StepKind) -> Footprint {
        Footprint {
            call,
            kind,
            call_id: Touched::of(&format!("c{call}")),
            key: None,
            writes_key: false,
            stem: None,
            output: None,
            queue: None,
            global: false,
        }
    }

    /// Rule: INV-EXPLORE-POR — each thing two steps may share makes them
    /// dependent alone, whichever of the two asks: the call, the call ID,
    /// the token (fired by either), a reply list, a local program's output
    /// list, an inquiry ID's stem (equal stems give equal IDs, which the
    /// oracle pairs by: RFD 082 "Inquiry ID format"), a turn-cache key one
    /// of them may write. Two steps sharing none, or only a key neither
    /// writes, or taking from different reply lists, are independent.
    #[test]
    fn each_shared_touch_alone_makes_two_steps_dependent() {
        let (a, b) = (lone(0, StepKind::Prompt), lone(1, StepKind::Inquire));
        let x = Touched::of("x");
        let dependent = [
            ("the same call", Footprint { call: 1, ..a }, b),
            (
                "the same call ID",
                Footprint {
                    call_id: b.call_id,
                    ..a
                },
                b,
            ),
            ("a fired token", Footprint { global: true, ..a }, b),
            (
                "one reply list",
                Footprint {
                    queue: Some(Queue::Backend),
                    ..a
                },
                Footprint {
                    queue: Some(Queue::Backend),
                    ..b
                },
            ),
            (
                "one program's output",
                Footprint {
                    output: Some(x),
                    ..a
                },
                Footprint {
                    output: Some(x),
                    ..b
                },
            ),
            (
                "one inquiry stem",
                Footprint { stem: Some(x), ..a },
                Footprint { stem: Some(x), ..b },
            ),
            (
                "one key, written by one",
                Footprint {
                    key: Some(x),
                    writes_key: true,
                    ..a
                },
                Footprint { key: Some(x), ..b },
            ),
        ];
        for (what, p, q) in dependent {
            assert!(p.dependent(&q), "{what}");
            assert!(q.dependent(&p), "{what}, asked the other way");
        }
        let independent = [
            ("nothing shared", a, b),
            (
                "one key, written by neither",
                Footprint { key: Some(x), ..a },
                Footprint { key: Some(x), ..b },
            ),
            (
                "two reply lists",
                Footprint {
                    queue: Some(Queue::Prompter),
                    ..a
                },
                Footprint {
                    queue: Some(Queue::Backend),
                    ..b
                },
            ),
        ];
        for (what, p, q) in independent {
            assert!(!p.dependent(&q) && !q.dependent(&p), "{what}");
        }
    }

    /// The rule IDs a run's findings name: its verdict, invariant by
    /// invariant (the messages cite event positions, which differ between
    /// equivalent interleavings).
    fn verdict(findings: &[Diagnostic]) -> BTreeSet<&'static str> {
        findings.iter().map(|d| d.rule.id()).collect()
    }

    /// A single-family root with two parallel calls of one tool asking one
    /// remembered question (the calls share the tool's cache keys).
    fn single_parallel(question: usize, prompter: usize, profile: usize) -> Scenario {
        let digits = [
            (question, 16),
            (0, 6),
            (0, 3),
            (1, 2),
            (prompter, 4),
            (0, 7),
            (3, 5),
            (1, 2),
            (profile, 3),
        ];
        let n = digits.iter().rev().fold(0, |n, &(d, r)| n * r + d);
        root_at(Family::Single, n)
    }

    fn sample() -> Vec<Scenario> {
        let mut roots: Vec<Scenario> = root_indices(Family::Pairs)
            .into_iter()
            .step_by(4_999)
            .map(|n| root_at(Family::Pairs, n))
            .collect();
        roots.extend([single_parallel(0, 1, 2), single_parallel(3, 1, 1)]);
        roots
    }

    /// Rule: INV-EXPLORE-COMPLETE — the forking search without reduction
    /// runs exactly the interleavings the replaying search runs (the same
    /// schedules), and each of its runs, replayed through the scenario's
    /// own scheduler by `scenario::run`, ends in the same trace: cloning at
    /// a choice loses and adds nothing.
    #[test]
    fn forking_reaches_every_trace_the_scheduled_run_does() {
        for root in sample() {
            let mut forked = BTreeSet::new();
            let stats = search(
                &root,
                RunOptions::default(),
                Reduction::Off,
                &mut StreamMemo::new(),
                &mut |r| {
                    let again = scenario::run(&r.scenario(&root)).expect("replays");
                    assert!(again == *r.trace, "{:?}", r.schedule);
                    assert!(forked.insert(r.schedule.to_vec()));
                },
            )
            .expect("runs");
            let mut replayed = BTreeSet::new();
            let replay = states::search(
                &root,
                RunOptions::default(),
                Dedup::Off,
                &mut StreamMemo::new(),
                &mut |l| {
                    replayed.insert(l.schedule.to_vec());
                },
            )
            .expect("runs");
            assert_eq!(forked, replayed);
            assert_eq!(stats.runs, replay.paths);
            assert!(stats.steps < replay.steps || replay.paths == 1, "{stats:?}");
        }
    }

    /// Every run of `root` under `faults` without reduction, grouped by
    /// class: the verdicts its runs gave; and the classes the reduced
    /// search ran, with how many runs it made.
    fn classes(root: &Scenario, faults: Faults) -> ClassReport {
        let options = RunOptions::from(faults);
        let mut full: BTreeMap<_, BTreeSet<BTreeSet<&'static str>>> = BTreeMap::new();
        search(
            root,
            options.clone(),
            Reduction::Off,
            &mut StreamMemo::new(),
            &mut |r| {
                full.entry(class_of(r.steps))
                    .or_default()
                    .insert(verdict(r.findings));
            },
        )
        .expect("runs");
        let mut reduced = Vec::new();
        let stats = search(
            root,
            options,
            Reduction::SleepSets,
            &mut StreamMemo::new(),
            &mut |r| reduced.push(class_of(r.steps)),
        )
        .expect("runs");
        ClassReport {
            full,
            reduced,
            stats,
        }
    }

    type ClassKey = Vec<(StepName, StepName)>;

    struct ClassReport {
        full: BTreeMap<ClassKey, BTreeSet<BTreeSet<&'static str>>>,
        reduced: Vec<ClassKey>,
        stats: Stats,
    }

    fn root_strategy() -> impl Strategy<Value = Scenario> {
        let pairs = root_indices(Family::Pairs);
        prop_oneof![
            3 => (0..pairs.len()).prop_map(move |i| root_at(Family::Pairs, pairs[i])),
            1 => (0..16usize, 0..4usize, 0..3usize)
                .prop_map(|(q, p, profile)| single_parallel(q, p, profile)),
        ]
    }

    proptest! {
        /// Rule: INV-EXPLORE-POR — for generated roots (pairs-family roots,
        /// and two parallel calls of one tool sharing its cache keys) under
        /// no fault and every fault of the fault matrix, every interleaving
        /// of one equivalence class of the independence gives the same
        /// verdict of every invariant (the same rule IDs found), and the
        /// sleep-set search runs exactly one interleaving of every class.
        #[test]
        fn every_interleaving_of_a_class_gives_the_same_verdict(
            root in root_strategy(),
            fault in 0..Faults::each_alone().len(),
        ) {
            let faults = Faults::each_alone()[fault];
            let r = classes(&root, faults);
            for (class, verdicts) in &r.full {
                prop_assert!(verdicts.len() == 1, "class {class:?}: verdicts {verdicts:?}");
            }
            let ran: BTreeSet<_> = r.reduced.iter().cloned().collect();
            prop_assert_eq!(ran.len(), r.reduced.len(), "a class ran twice");
            prop_assert!(ran == r.full.keys().cloned().collect::<BTreeSet<_>>());
            prop_assert_eq!(r.stats.runs, r.full.len());
        }
    }

    /// Rule: INV-EXPLORE-POR — under no fault and every fault of the fault
    /// matrix, on a stride of the pairs family's roots and on two parallel
    /// calls of one tool, the reduced search finds exactly the invariants
    /// violated that every interleaving finds (`make explore-por-check`
    /// compares the whole family); and the faults are found at all, so
    /// "the same" is not "none on both sides".
    #[test]
    fn the_reduced_search_finds_what_every_interleaving_finds_under_every_fault() {
        let plan = crate::explore::Plan {
            stride: 4_999,
            shard: (0, 1),
            threads: 1,
        };
        let check = crate::explore::compare_por(&[Family::Pairs], plan);
        assert!(check.disagreements.is_empty(), "{:?}", check.disagreements);
        assert!(check.errors.is_empty(), "{:?}", check.errors);
        assert_eq!(check.rows, fault_matrix().len());
        assert!(
            check.violating > 0 && check.reduced_runs < check.full_runs,
            "{check:?}"
        );
        for root in [
            single_parallel(0, 1, 2),
            single_parallel(3, 1, 1),
            single_parallel(8, 1, 1),
        ] {
            for (name, options) in fault_matrix() {
                let a = agreement(&root, options).expect("runs");
                assert!(a.agrees(), "{name}: {a:?}");
            }
        }
    }
}
