//! Conformance for an implementation the harness cannot steer or see
//! inside (rules `CONF-CAPABILITIES`, `CONF-WITNESS`).
//!
//! An implementation declares its [`Capabilities`]: whether it runs
//! parallel work in the order the scenario's `schedule` says
//! ([`SchedulerCapability::Steered`]) or in its own
//! ([`SchedulerCapability::Free`]), and which log entry kinds it can
//! report ([`EntryKind`]). Kinds it does not observe are blanked on both
//! sides before comparing ([`restrict`]); prompts reported without a call
//! ID are attributed by the model's run ([`attribute`]: the k-th prompt of
//! the implementation is the k-th prompt of the model).
//!
//! For a free scheduler the harness never controls the implementation: like
//! Knossos and Porcupine it takes what the implementation did and searches
//! for an order the model allows that explains it (a witness, [`search`]).
//! The search is a depth-first walk over the model's scheduler choices by
//! replay ([`scenario::run_scheduled`]): each run replays a prefix of picks,
//! takes the next option beyond it, and is cut as soon as what the model
//! has done so far cannot be the start of the observation (each call's
//! persisted events, invocations and responses so far a prefix of the
//! implementation's, the prompts so far those it showed first, no question
//! routed or prompt shown before what the log has before it, [`log_order`]).
//! A witness also keeps the order the log witnesses across calls: an
//! answer or a tool response the log persisted before another call's
//! question was routed (or its prompt shown) comes before it in the
//! witness too ([`explains`]). The search
//! is deterministic for a scenario and an observation, and runs at most
//! `budget` schedules.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::compare::{self, Divergence};
use super::observe::{Observed, Prompt};
use super::pins::Pin;
use crate::model::coordinator::ResponseKind;
use crate::scenario::{self, ChoicePoint, RunOptions, Scenario, ScenarioError, Scheduler};

/// Who orders the implementation's parallel work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SchedulerCapability {
    /// The implementation runs pending work in the order the scenario's
    /// `schedule` picks (`choice % pending`, then the oldest): compared
    /// with the model's run of that schedule.
    #[default]
    Steered,
    /// The implementation orders its parallel work itself: its observation
    /// passes when some schedule of the model explains it ([`search`]).
    Free,
}

/// A kind of log entry an adapter reports (`spec/conform-protocol.md`
/// "Capabilities").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// `persisted` / `persisted_line`: always observed (the persisted
    /// stream is what RFD 082 is about; nothing is compared without it).
    #[serde(alias = "persisted_line")]
    Persisted,
    /// `invoked`: the answers each tool was handed.
    Invoked,
    /// `prompted`: the question prompts shown.
    Prompted,
    /// `responded`: the tool responses the LLM saw.
    Responded,
    /// `turn_ended`: the turn's remembered keys.
    TurnEnded,
    /// `inquired`: the models the inquiry backend asked.
    Inquired,
}

impl EntryKind {
    /// Every kind, in protocol order.
    pub const ALL: [EntryKind; 6] = [
        EntryKind::Persisted,
        EntryKind::Invoked,
        EntryKind::Prompted,
        EntryKind::Responded,
        EntryKind::TurnEnded,
        EntryKind::Inquired,
    ];

    /// The name in `init_ok`'s `observes`.
    pub fn as_str(self) -> &'static str {
        match self {
            EntryKind::Persisted => "persisted",
            EntryKind::Invoked => "invoked",
            EntryKind::Prompted => "prompted",
            EntryKind::Responded => "responded",
            EntryKind::TurnEnded => "turn_ended",
            EntryKind::Inquired => "inquired",
        }
    }
}

/// The witness budget when none is given: schedules tried per scenario
/// (spec/DECISIONS.md "Witness search: a budget of 2 000 schedules").
pub const DEFAULT_WITNESS_BUDGET: usize = 2000;

/// What an implementation lets the harness steer and see, and how hard the
/// harness looks for a witness. The default is a steered implementation
/// that observes every entry kind: what every adapter was before
/// capabilities existed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capabilities {
    /// Who orders parallel work.
    pub scheduler: SchedulerCapability,
    /// The entry kinds reported; always holds [`EntryKind::Persisted`].
    pub observes: BTreeSet<EntryKind>,
    /// The most schedules of the model tried to explain one observation of
    /// a free implementation (the harness's side, not the adapter's).
    pub witness_budget: usize,
    /// The model's decisions not compared (`--rfd-only`, `--skip-pin`; the
    /// harness's side): what each covers in a run is blanked on both sides
    /// ([`super::pins::covers`]), or the other outcome is accepted
    /// ([`super::pins::alternative`]).
    pub skip_pins: BTreeSet<Pin>,
}

impl Default for Capabilities {
    fn default() -> Self {
        Capabilities {
            scheduler: SchedulerCapability::Steered,
            observes: EntryKind::ALL.into_iter().collect(),
            witness_budget: DEFAULT_WITNESS_BUDGET,
            skip_pins: BTreeSet::new(),
        }
    }
}

impl Capabilities {
    /// The capabilities an adapter declares in `init_ok` (`scheduler`,
    /// `observes`; each absent field keeps its default). An unknown value
    /// is an error naming the field and what is allowed.
    #[cfg(feature = "cli")]
    pub(crate) fn from_init_ok(init_ok: &Value) -> Result<Capabilities, String> {
        let mut caps = Capabilities::default();
        if let Some(s) = init_ok.get("scheduler") {
            caps.scheduler = serde_json::from_value(s.clone())
                .map_err(|_| format!("init_ok: `scheduler` is \"steered\" or \"free\", not {s}"))?;
        }
        if let Some(list) = init_ok.get("observes") {
            let names = || {
                EntryKind::ALL
                    .iter()
                    .map(|k| format!("\"{}\"", k.as_str()))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let Value::Array(items) = list else {
                return Err(format!(
                    "init_ok: `observes` is a list of entry kinds ({}), not {list}",
                    names()
                ));
            };
            let mut observes = BTreeSet::new();
            for item in items {
                let kind: EntryKind = serde_json::from_value(item.clone()).map_err(|_| {
                    format!(
                        "init_ok: `observes` holds {item}, which is not an entry kind ({})",
                        names()
                    )
                })?;
                observes.insert(kind);
            }
            if !observes.contains(&EntryKind::Persisted) {
                return Err(
                    "init_ok: `observes` must hold \"persisted\": the persisted stream is always compared"
                        .to_owned(),
                );
            }
            caps.observes = observes;
        }
        Ok(caps)
    }
}

/// `observed` with the entry kinds outside `observes` blanked (applied to
/// both sides before comparing, so a kind not observed is not compared).
pub(crate) fn restrict(mut observed: Observed, observes: &BTreeSet<EntryKind>) -> Observed {
    for kind in EntryKind::ALL {
        if observes.contains(&kind) {
            continue;
        }
        match kind {
            EntryKind::Persisted => {}
            EntryKind::Invoked => observed.invocations.clear(),
            EntryKind::Prompted => observed.prompts.clear(),
            EntryKind::Responded => observed.tool_responses.clear(),
            EntryKind::TurnEnded => observed.remembered.clear(),
            EntryKind::Inquired => observed.inquiry_models.clear(),
        }
    }
    observed
}

/// Gives every prompt of `actual` reported without a call ID (an empty
/// one) the call of the model's prompt at the same place in `expected`:
/// the k-th prompt shown is the k-th prompt of the run that explains it.
/// A prompt beyond the model's stays without a call and fails `compare`.
pub(crate) fn attribute(actual: &mut Observed, expected: &Observed) {
    for (p, e) in actual.prompts.iter_mut().zip(&expected.prompts) {
        if p.tool_call_id.is_empty() {
            p.tool_call_id = e.tool_call_id.clone();
        }
    }
}

/// Compares `actual` with `expected` on what `observes` covers, prompts
/// without a call ID attributed by `expected` (see [`attribute`]).
pub(crate) fn compare_observed(
    scenario: &Scenario,
    expected: &Observed,
    actual: &Observed,
    observes: &BTreeSet<EntryKind>,
) -> Option<Divergence> {
    compare::compare_under(scenario, expected, actual, observes)
}

/// Whether a persisted event of the log is a happens-before anchor: the
/// end of a call's work on shared state (an `inquiry_response`: an answer
/// resolved, and remembered when asked to be; a `tool_call_response`: the
/// call done). An entry of another call logged after it happened after it
/// (spec/DECISIONS.md "Witness search: the log's order across calls").
fn is_anchor(event: &Value) -> bool {
    matches!(
        event.get("type").and_then(Value::as_str),
        Some("inquiry_response" | "tool_call_response")
    )
}

/// Whether a persisted event reads the shared state: an `inquiry_request`
/// is recorded when its question is routed, which consults the turn's
/// remembered answers (RFD 082 steps 2 and 3).
fn is_read(event: &Value) -> bool {
    event.get("type").and_then(Value::as_str) == Some("inquiry_request")
}

/// An event's place in its call: `(turn, call, events of that call so far)`.
type Place = (usize, String, usize);

/// The places of a stream's events, by position, and the position of each
/// place.
fn places(stream: &[Value]) -> (Vec<Place>, HashMap<Place, usize>) {
    let (_, at) = compare::turns(stream);
    let index = at.iter().enumerate().map(|(i, p)| (p.clone(), i)).collect();
    (at, index)
}

/// A turn as a reader counts it (`turn 0` is the first `turn_start`).
fn turn_label(t: usize) -> String {
    match t {
        0 => "before the first turn_start".to_owned(),
        n => format!("turn {}", n - 1),
    }
}

/// The prompts of `actual` paired with those of `model`: each prompt's
/// call (attributed by `model` when not reported), its position in the
/// implementation's log and in the model's run. Prompts of one call pair in
/// order; those without a partner are left out (`compare` reports them).
fn prompt_pairs(actual: &Observed, model: &Observed) -> Vec<(String, usize, usize)> {
    let mut named: Vec<Prompt> = actual.prompts.clone();
    for (p, m) in named.iter_mut().zip(&model.prompts) {
        if p.tool_call_id.is_empty() {
            p.tool_call_id = m.tool_call_id.clone();
        }
    }
    let mut theirs: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for p in &model.prompts {
        theirs
            .entry(&p.tool_call_id)
            .or_default()
            .push(p.stream_position);
    }
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    let mut out = Vec::new();
    for p in &named {
        if p.tool_call_id.is_empty() {
            continue;
        }
        let n = seen.entry(&p.tool_call_id).or_default();
        if let Some(&m) = theirs.get(p.tool_call_id.as_str()).and_then(|v| v.get(*n)) {
            out.push((p.tool_call_id.clone(), p.stream_position, m));
        }
        *n += 1;
    }
    out
}

/// The first read of the implementation's log (a question routed, a prompt
/// shown) that the model's run (complete or a start of one) puts before an
/// anchor of another call of its turn which the log has before it: a
/// difference in the order the log witnesses across calls (rule
/// `CONF-WITNESS-ORDER`). `None` when every such order holds so far. Reads
/// and anchors are matched by their place in their call (a run whose calls'
/// events differ is `compare`'s to report); an anchor the model has not yet
/// persisted when it persisted the read is out of order.
pub(crate) fn log_order(
    model: &Observed,
    actual: &Observed,
    observes: &BTreeSet<EntryKind>,
) -> Option<Divergence> {
    let model = restrict(model.clone(), observes);
    let actual = restrict(actual.clone(), observes);
    let (mine, mine_at) = places(&model.stream);
    let (theirs, theirs_at) = places(&actual.stream);
    let stream = &actual.stream;
    // The log's anchors before position `j` of turn `t` not of `call`, each
    // with its place.
    let anchors_before = |j: usize, t: usize, call: &str| -> Vec<&Place> {
        theirs[..j.min(theirs.len())]
            .iter()
            .enumerate()
            .filter(|(i, (ti, ci, _))| {
                *ti == t && !ci.is_empty() && ci != call && is_anchor(&stream[*i])
            })
            .map(|(_, p)| p)
            .collect()
    };
    let late = |read_at: usize, x: &Place| mine_at.get(x).is_none_or(|&i| i >= read_at);
    for (k, y) in mine.iter().enumerate() {
        let (t, call, n) = y;
        if call.is_empty() || !is_read(&model.stream[k]) {
            continue;
        }
        let Some(&j) = theirs_at.get(y) else { continue };
        if let Some(x) = anchors_before(j, *t, call).into_iter().find(|x| late(k, x)) {
            return Some(Divergence {
                kind: "log_order".to_owned(),
                at: format!(
                    "{}, call {call:?}, event #{} of that call",
                    turn_label(*t),
                    n - 1
                ),
                expected: format!(
                    "routed before event #{} of call {:?} is persisted",
                    x.2 - 1,
                    x.1
                ),
                actual: format!(
                    "routed after event #{} of call {:?} (log position {j})",
                    x.2 - 1,
                    x.1
                ),
                signature: super::compare::Signature(
                    "log order: routed after another call's event the model routes it before"
                        .to_owned(),
                ),
            });
        }
    }
    for (call, p, q) in prompt_pairs(&actual, &model) {
        let t = match p.checked_sub(1).and_then(|i| theirs.get(i)) {
            Some((t, _, _)) => *t,
            None => continue,
        };
        if let Some(x) = anchors_before(p, t, &call).into_iter().find(|x| late(q, x)) {
            return Some(Divergence {
                kind: "log_order".to_owned(),
                at: format!("{}, call {call:?}, a prompt", turn_label(t)),
                expected: format!(
                    "shown before event #{} of call {:?} is persisted",
                    x.2 - 1,
                    x.1
                ),
                actual: format!(
                    "shown after event #{} of call {:?} (after {p} events)",
                    x.2 - 1,
                    x.1
                ),
                signature: super::compare::Signature(
                    "log order: prompt shown after another call's event the model shows it before"
                        .to_owned(),
                ),
            });
        }
    }
    None
}

/// Whether the model's run `model` (of the schedule tried) explains the
/// implementation's observation `actual`: equal under `compare` on
/// `observes` ([`compare_observed`]) and in the order the log witnesses
/// across calls ([`log_order`]). The first difference, or `None`.
pub fn explains(
    scenario: &Scenario,
    model: &Observed,
    actual: &Observed,
    observes: &BTreeSet<EntryKind>,
) -> Option<Divergence> {
    compare_observed(scenario, model, actual, observes)
        .or_else(|| log_order(model, actual, observes))
}

/// What a witness search found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A schedule of the model whose observation equals the
    /// implementation's under `compare`.
    Found {
        /// The witness: with the scenario, `scenario::run` replays it.
        schedule: Vec<u32>,
    },
    /// The budget ran out before the schedules did.
    Budget,
    /// Every schedule was tried (or cut): none explains the observation.
    Exhausted,
}

/// How much a search did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    /// Schedules tried: runs of the model, each cut or complete.
    pub schedules: usize,
    /// Runs cut before their end because their start could no longer
    /// explain the observation.
    pub cut: usize,
    /// Runs taken to the end and compared.
    pub complete: usize,
}

/// How to search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Search {
    /// The entry kinds compared.
    pub observes: BTreeSet<EntryKind>,
    /// The most schedules to try.
    pub budget: usize,
    /// Cut a run as soon as its start cannot explain the observation (on
    /// by default; off only to measure what cutting saves). Off by itself
    /// where a skipped pin may blank part of a run.
    pub cut: bool,
    /// The model's decisions not compared ([`Capabilities::skip_pins`]).
    pub skip_pins: BTreeSet<Pin>,
}

/// Searches the model's schedules of `scenario` for one whose observation
/// equals `actual` on `observes` (prompts without a call ID attributed by
/// that schedule's run). The first schedule tried is the scenario's own
/// `schedule`; then depth-first, each choice's options in order from the
/// scenario's pick. Deterministic for its arguments.
pub fn search(
    scenario: &Scenario,
    actual: &Observed,
    how: &Search,
) -> Result<(Outcome, Stats), ScenarioError> {
    let target = Target::new(actual, &how.observes);
    // A cut compares a run's start unblanked: not where a pin may blank.
    let cut = how.cut && !super::pins::may_cover(&how.skip_pins, scenario);
    let mut stats = Stats::default();
    // Option taken (counted from the scenario's pick) at every choice of
    // the run to replay.
    let mut prefix: Vec<usize> = Vec::new();
    loop {
        if stats.schedules >= how.budget {
            return Ok((Outcome::Budget, stats));
        }
        stats.schedules += 1;
        let mut replay = Replay {
            scenario,
            prefix: &prefix,
            path: Vec::new(),
            target: cut.then_some(&target),
            cut: false,
        };
        let trace =
            scenario::run_scheduled(scenario, RunOptions::default(), &mut |_, _| {}, &mut replay)?;
        let path = replay.path;
        if replay.cut {
            stats.cut += 1;
        } else {
            stats.complete += 1;
            let expected = Observed::of(&trace);
            let covers = super::pins::covers(&how.skip_pins, scenario, &trace);
            let theirs = super::pins::blank(&covers, &expected, actual);
            let expected = super::pins::blank(&covers, &expected, &expected);
            if explains(scenario, &expected, &theirs, &how.observes).is_none() {
                let schedule = path.iter().map(|c| c.pick as u32).collect();
                return Ok((Outcome::Found { schedule }, stats));
            }
        }
        // The deepest choice with an option left, one option further.
        let Some(d) = path.iter().rposition(|c| c.option + 1 < c.options) else {
            return Ok((Outcome::Exhausted, stats));
        };
        prefix = path[..d].iter().map(|c| c.option).collect();
        prefix.push(path[d].option + 1);
    }
}

/// One scheduler choice of a run: how many options, which was taken.
struct Choice {
    options: usize,
    option: usize,
    pick: usize,
}

/// Replays a prefix of options, then takes the first option at every
/// further choice; stops the run when its start cannot explain the target.
struct Replay<'a> {
    scenario: &'a Scenario,
    prefix: &'a [usize],
    path: Vec<Choice>,
    target: Option<&'a Target>,
    cut: bool,
}

impl Scheduler for Replay<'_> {
    fn pick(&mut self, choice: &ChoicePoint<'_>) -> Option<usize> {
        if let Some(target) = self.target
            && !target.may_start_with(&Observed::of(choice.trace()))
        {
            self.cut = true;
            return None;
        }
        let options = choice.pending();
        let d = self.path.len();
        let option = self.prefix.get(d).copied().unwrap_or(0);
        // Options counted from the scenario's own pick, so that the first
        // run is the scenario's schedule.
        let own = self
            .scenario
            .schedule
            .get(d)
            .map_or(0, |&c| c as usize % options);
        let pick = (own + option) % options;
        self.path.push(Choice {
            options,
            option,
            pick,
        });
        Some(pick)
    }
}

/// The observation to explain, cut up the way a partial run is compared
/// with it.
struct Target {
    observes: BTreeSet<EntryKind>,
    turns: Vec<compare::Turn>,
    invocations: BTreeMap<String, Vec<(String, Value)>>,
    responses: BTreeMap<String, Vec<(bool, ResponseKind)>>,
    /// The presentations shown, in order, when no prompt names its call
    /// (then the k-th prompt is attributed to the model's k-th); `None`
    /// when some prompt names one (prompts are then grouped by call and
    /// their order across calls is free, so no cut is sound).
    prompts: Option<Vec<Value>>,
    remembered: Vec<super::observe::Remembered>,
    /// The whole observation, for the order its log witnesses.
    actual: Observed,
}

impl Target {
    fn new(actual: &Observed, observes: &BTreeSet<EntryKind>) -> Target {
        let actual = restrict(actual.clone(), observes);
        let (turns, _) = compare::turns(&actual.stream);
        let mut invocations: BTreeMap<String, Vec<(String, Value)>> = BTreeMap::new();
        for i in &actual.invocations {
            invocations
                .entry(i.tool_call_id.clone())
                .or_default()
                .push((i.tool.clone(), i.answers.clone()));
        }
        let mut responses: BTreeMap<String, Vec<(bool, ResponseKind)>> = BTreeMap::new();
        for r in &actual.tool_responses {
            responses
                .entry(r.tool_call_id.clone())
                .or_default()
                .push((r.is_error, r.kind));
        }
        let prompts = actual
            .prompts
            .iter()
            .all(|p| p.tool_call_id.is_empty())
            .then(|| {
                actual
                    .prompts
                    .iter()
                    .map(|p| p.presentation.clone())
                    .collect()
            });
        Target {
            observes: observes.clone(),
            turns,
            invocations,
            responses,
            prompts,
            remembered: actual.remembered.clone(),
            actual,
        }
    }

    /// Whether a run that has observed `partial` so far can still end in
    /// an observation equal to the target. Only necessary conditions of
    /// `compare`'s equality, so a cut never loses a witness.
    fn may_start_with(&self, partial: &Observed) -> bool {
        let partial = restrict(partial.clone(), &self.observes);
        let (turns, _) = compare::turns(&partial.stream);
        if turns.len() > self.turns.len() {
            return false;
        }
        let prefix_of = |x: &[Value], y: Option<&Vec<Value>>| {
            y.is_some_and(|y| y.len() >= x.len() && y[..x.len()] == *x)
        };
        for (t, turn) in turns.iter().enumerate() {
            for (call, events) in &turn.calls {
                if !events.is_empty() && !prefix_of(events, self.turns[t].calls.get(call)) {
                    return false;
                }
            }
        }
        let mut invocations: BTreeMap<&str, usize> = BTreeMap::new();
        for i in &partial.invocations {
            let n = invocations.entry(&i.tool_call_id).or_default();
            let theirs = self
                .invocations
                .get(&i.tool_call_id)
                .and_then(|v| v.get(*n));
            if theirs != Some(&(i.tool.clone(), i.answers.clone())) {
                return false;
            }
            *n += 1;
        }
        let mut responses: BTreeMap<&str, usize> = BTreeMap::new();
        for r in &partial.tool_responses {
            let n = responses.entry(&r.tool_call_id).or_default();
            let theirs = self.responses.get(&r.tool_call_id).and_then(|v| v.get(*n));
            if theirs != Some(&(r.is_error, r.kind)) {
                return false;
            }
            *n += 1;
        }
        if let Some(shown) = &self.prompts
            && (partial.prompts.len() > shown.len()
                || partial
                    .prompts
                    .iter()
                    .zip(shown)
                    .any(|(p, s)| p.presentation != *s))
        {
            return false;
        }
        partial.remembered.len() <= self.remembered.len()
            && partial.remembered[..] == self.remembered[..partial.remembered.len()]
            && log_order(&partial, &self.actual, &self.observes).is_none()
    }
}

#[cfg(feature = "testkit")]
pub use testkit::{FreeModel, InterleavingBug};

#[cfg(feature = "testkit")]
mod testkit {
    use super::{Capabilities, SchedulerCapability};
    use crate::conformance::{Implementation, ImplementationError, Observed};
    use crate::scenario::{self, ChoicePoint, RunOptions, Scenario, Scheduler};
    use crate::testkit::Faults;

    /// A fault of a free implementation that shows only under some orders
    /// of its parallel work.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum InterleavingBug {
        /// When it runs a newer piece of pending work before the oldest
        /// one, a prompt that work raises is shown before its own last
        /// event (the inquiry request) is persisted: recorded after
        /// routed (RFD 082 step 2), but only in that order.
        PromptBeforeRecordOutOfOrder,
    }

    /// The model as a free-scheduler implementation: it orders its
    /// parallel work itself (a shuffle seeded by the scenario, ignoring
    /// `schedule`) and reports prompts without their call IDs, as a real
    /// implementation's prompter would. Optionally with faults injected
    /// (the wrong-implementation suite) or with one interleaving-only bug.
    #[derive(Debug, Clone, Copy, Default)]
    pub struct FreeModel {
        /// Faults to inject.
        pub faults: Faults,
        /// A bug that shows only under some interleavings.
        pub bug: Option<InterleavingBug>,
    }

    /// Its own order: a splitmix64 stream seeded by the scenario's JSON
    /// (deterministic, unrelated to `schedule`); records each pick and how
    /// many prompts had been shown when it was made.
    struct Shuffle {
        state: u64,
        picks: Vec<(usize, usize)>,
    }

    impl Scheduler for Shuffle {
        fn pick(&mut self, choice: &ChoicePoint<'_>) -> Option<usize> {
            let z = splitmix64(&mut self.state);
            let pending = choice.pending();
            let pick = (z % pending as u64) as usize;
            self.picks.push((pick, choice.trace().prompts.len()));
            Some(pick)
        }
    }

    /// The next value of the splitmix64 stream at `state` (Steele, Lea and
    /// Flood's generator as Vigna's reference `splitmix64.c` writes it).
    pub(super) fn splitmix64(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// The shuffle's seed: the 64-bit FNV-1a hash of the scenario's JSON,
    /// so each scenario has its own order.
    pub(super) fn seed(scenario: &Scenario) -> u64 {
        let text = serde_json::to_string(scenario).unwrap_or_default();
        text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        })
    }

    impl FreeModel {
        /// What it observes, each prompt still naming its tool call (the
        /// tests read which call the injected bug moved).
        pub(crate) fn run_attributed(
            &self,
            scenario: &Scenario,
        ) -> Result<Observed, ImplementationError> {
            let mut order = Shuffle {
                state: seed(scenario),
                picks: Vec::new(),
            };
            let trace = scenario::run_scheduled(
                scenario,
                RunOptions::from(self.faults),
                &mut |_, _| {},
                &mut order,
            )
            .map_err(|e| ImplementationError(e.to_string()))?;
            let mut o = Observed::of(&trace);
            match self.bug {
                None => {}
                Some(InterleavingBug::PromptBeforeRecordOutOfOrder) => {
                    let mut bounds: Vec<usize> = order.picks.iter().map(|p| p.1).collect();
                    bounds.push(o.prompts.len());
                    // A pick is below its pending count, so a lone pending
                    // piece of work is pick 0: only newer work taken before
                    // the oldest shows the bug.
                    for (k, &(pick, _)) in order.picks.iter().enumerate() {
                        if pick == 0 {
                            continue;
                        }
                        for p in &mut o.prompts[bounds[k]..bounds[k + 1]] {
                            let own = |e: &serde_json::Value| {
                                let id = e["id"].as_str().unwrap_or("");
                                id == p.tool_call_id
                                    || id.starts_with(&format!("{}.", p.tool_call_id))
                            };
                            if let Some(i) = o.stream[..p.stream_position].iter().rposition(own) {
                                p.stream_position = i;
                            }
                        }
                    }
                }
            }
            Ok(o)
        }
    }

    impl Implementation for FreeModel {
        fn run(&mut self, scenario: &Scenario) -> Result<Observed, ImplementationError> {
            let mut o = self.run_attributed(scenario)?;
            for p in &mut o.prompts {
                p.tool_call_id.clear();
            }
            Ok(o)
        }

        fn capabilities(&self) -> Capabilities {
            Capabilities {
                scheduler: SchedulerCapability::Free,
                ..Capabilities::default()
            }
        }
    }
}

#[cfg(all(test, feature = "cli"))]
mod witness_tests;
