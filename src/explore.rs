//! Exhaustive small-scope exploration: every scenario within stated bounds,
//! each run and checked against every invariant after every step and at the
//! end.
//!
//! Two families, both enumerated completely:
//!
//! - **single** — one tool asking one question, over the whole per-question
//!   space: 4 answer types × `exclusive` × `persistence` (16 questions) ×
//!   target user/assistant × no/valid/invalid static answer (6 configs) ×
//!   3 tool kinds (built-in, built-in with the `Assistant` hook, local) ×
//!   re-asked once or not × 4 prompter replies (answer, answer + remember,
//!   Ctrl-C, EOF) × 7 backend replies (answer, mistyped answer, and each of
//!   the 5 `InquiryError` kinds) × 5 shapes (one call; the same call ID in two
//!   cycles; the same call ID in two turns; two parallel calls, in both
//!   orders) × TTY on/off × 3 profiles.
//! - **pairs** — two tools asking two questions each, each question one of 8
//!   representative kinds (plain boolean, `persistence: none` boolean,
//!   select with a valid static answer, text with an invalid static answer,
//!   secret, exclusive boolean, boolean targeted at the assistant, secret
//!   targeted at the assistant) × 2 prompter replies (answer + remember,
//!   Ctrl-C) × 2 backend replies (answer, provider error) × parallel in both
//!   orders × TTY on/off × 3 profiles.
//!
//! - **triples** (the big scope; `explore --scope big`) — three
//!   tools of the three kinds (built-in, built-in with the `Assistant` hook,
//!   local), one question each of the 8 representative kinds, in two turns
//!   of the same three parallel calls (call IDs reused across turns) × every
//!   choice of the scheduler's first five picks among the pending work
//!   (3^5; later picks take the oldest) × 2 prompter replies × 2 backend
//!   replies × TTY on/off × 3 profiles: 2 985 984 scenarios, about 19
//!   coordinator steps each.
//!
//! `explore_plan` runs a shard of the enumeration (`k` modulo `n`) over
//! worker threads. The end-of-run stream invariants are remembered per
//! worker by their input ([`crate::invariants::StreamMemo`]): a scenario
//! that ends in a stream already judged (same events, profile, rules and
//! interruption) is not judged again, and the report counts the distinct
//! streams. The step invariants run on every step of every scenario
//! (incrementally, [`crate::invariants::StepChecker`]).
//!
//! `explore_states` searches instead each family's roots (its scenarios
//! without their scheduler picks, `root_indices`) as state graphs: every
//! interleaving of each run to the end, a state already expanded not
//! expanded again (`states`; the state holds its history, see there).
//! Shards and worker threads split the roots. `explore_por_with` searches the
//! same roots by forking instead of replaying, one interleaving per
//! equivalence class of independent steps (`por`, sleep sets), and
//! `compare_por` holds it to every interleaving under every fault.
//!
//! Beside the families, the **language** roots (`language_root`, 360)
//! reach the parts of the scenario language the families leave out (tools
//! `a` and `a.b` sharing a turn-cache key, a call ID twice in a cycle and
//! again in a later one, every cause of the cancellation token, `ask_user`
//! beside a permission and a delivery prompt in one cycle); with roots of
//! the full scenario generator they are the drawn roots
//! (`compare_drawn`), where the reduced search is held to every
//! interleaving under every fault (`make explore-por-drawn`).
//! `explore_given` and `compare_given` do the same searches on one
//! given scenario (`explore --scenario FILE`).
//!
//! The **bigger** scope ([`bigger`]: `quads`, four calls in one cycle with
//! plain or dotted tool names, and `turns2`, two turns with each cause of
//! the cancellation token) has no scheduler picks: every scenario is a
//! root, searched reduced under no fault and every fault of the fault
//! matrix (`explore_faults_with`, `make explore-bigger`).
//!
//! The legacy profile is held to the invariants it keeps; the ones RFD 082
//! exists to fix (`LEGACY_KNOWN_GAPS`) are counted, not failed, and so is
//! the separator flaw on dotted names (rule `INV-CACHE-KEY-UNIQUE`: RFD
//! 082's joined keys collide) where the profile lets the names through.

pub(crate) mod bigger;
pub(crate) mod por;
pub(crate) mod state_key;
pub(crate) mod states;

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::model::tool::Map;
use serde::Serialize;
use serde_json::{Value, json};

use crate::check::Diagnostic;
use crate::generate::choice::{Choices, Radix};
use crate::generate::scenario as generated;
use crate::invariants::{Known, StreamMemo, check_runs};
use crate::model::coordinator::{Call, RunPolicy};
use crate::model::routing::InquiryErrorKind;
use crate::model::tool::{AnswerType, Question, QuestionConfig, QuestionTarget};
use crate::profile::ProfileName;
use crate::scenario::{
    BackendReply, Finish, Program, PrompterReply, RunOptions, Scenario, ScenarioError, ScriptedAsk,
    ToolSetup, TurnScript,
};

/// Which family to enumerate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Family {
    /// One tool, one question, the whole per-question space.
    Single,
    /// Two tools, two questions each, representative question kinds.
    Pairs,
    /// Three tools of the three kinds, one question each, in two turns of
    /// three parallel calls, under every choice of the scheduler's first
    /// five picks (the big scope; not in the default run).
    Triples,
    /// Four calls in one cycle, two of them of one tool, plain or dotted
    /// tool names ([`bigger`]; every scenario a root).
    Quads,
    /// Two turns of two calls, the backend's first or second reply the
    /// token fired by each cause ([`bigger`]; every scenario a root).
    Turns2,
}

impl Family {
    /// The family's name on the command line and in reports.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Family::Single => "single",
            Family::Pairs => "pairs",
            Family::Triples => "triples",
            Family::Quads => "quads",
            Family::Turns2 => "turns2",
        }
    }
}

/// The outcome of an exploration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Report {
    /// Scenarios enumerated and checked, per family.
    pub(crate) scenarios: BTreeMap<String, usize>,
    /// Scenarios per profile.
    pub(crate) per_profile: BTreeMap<String, usize>,
    /// Coordinator steps checked.
    pub(crate) steps: usize,
    /// Distinct persisted streams judged by the stream invariants (per
    /// worker: a stream met by two workers counts twice); the other
    /// scenarios ended in a stream already judged (see
    /// [`crate::invariants::StreamMemo`]).
    pub(crate) distinct_streams: usize,
    /// State-graph search (`explore_states`): root scenarios searched per
    /// family (empty for the schedule enumeration, where `scenarios`
    /// counts the scenarios; in a state search `scenarios` counts the
    /// complete runs, each a root with one interleaving).
    pub(crate) roots: BTreeMap<String, usize>,
    /// State-graph search: distinct states expanded (choices among two or
    /// more pieces of work met for the first time within their root).
    pub(crate) distinct_states: usize,
    /// State-graph search: choices that reached a state already expanded
    /// and were not expanded again (what deduplication saved).
    pub(crate) revisited_states: usize,
    /// Forking search (`explore_por_with`): prefixes cut because every
    /// pending step slept (with sleep sets; each run is then one
    /// equivalence class).
    pub(crate) blocked_runs: usize,
    /// Forking search: every interleaving of the roots searched, by the
    /// multinomial count of their calls' work ([`por::interleavings`]), to
    /// set the runs against.
    pub(crate) interleavings: u64,
    /// Legacy-profile findings of the invariants RFD 082 fixes, per rule.
    pub(crate) legacy_known_gaps: BTreeMap<String, usize>,
    /// Findings of the separator flaw (RFD 082's joined keys and IDs
    /// colliding on dotted names; counted, not failed), per rule.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) separator_flaw: BTreeMap<String, usize>,
    /// The reduced search under each fault of the fault matrix
    /// (`explore --states --por --faults`), by the fault's name.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) fault_rows: BTreeMap<String, bigger::FaultRow>,
    /// Every other violation, with its scenario (none expected).
    pub(crate) violations: Vec<(Scenario, Vec<String>)>,
    /// Scenarios the model refused to run (none expected).
    pub(crate) errors: Vec<(Scenario, String)>,
}

impl Report {
    fn new() -> Self {
        Report {
            scenarios: BTreeMap::new(),
            per_profile: BTreeMap::new(),
            steps: 0,
            distinct_streams: 0,
            roots: BTreeMap::new(),
            distinct_states: 0,
            revisited_states: 0,
            blocked_runs: 0,
            interleavings: 0,
            legacy_known_gaps: BTreeMap::new(),
            separator_flaw: BTreeMap::new(),
            fault_rows: BTreeMap::new(),
            violations: Vec::new(),
            errors: Vec::new(),
        }
    }

    /// Total scenarios checked.
    pub(crate) fn total(&self) -> usize {
        self.scenarios.values().sum()
    }

    /// Adds another worker's report to this one.
    fn merge(&mut self, other: Report) {
        for (k, v) in other.scenarios {
            *self.scenarios.entry(k).or_default() += v;
        }
        for (k, v) in other.per_profile {
            *self.per_profile.entry(k).or_default() += v;
        }
        self.steps += other.steps;
        self.distinct_streams += other.distinct_streams;
        for (k, v) in other.roots {
            *self.roots.entry(k).or_default() += v;
        }
        self.distinct_states += other.distinct_states;
        self.revisited_states += other.revisited_states;
        self.blocked_runs += other.blocked_runs;
        self.interleavings += other.interleavings;
        for (k, v) in other.legacy_known_gaps {
            *self.legacy_known_gaps.entry(k).or_default() += v;
        }
        for (k, v) in other.separator_flaw {
            *self.separator_flaw.entry(k).or_default() += v;
        }
        for (k, v) in other.fault_rows {
            self.fault_rows.entry(k).or_default().merge(&v);
        }
        self.violations.extend(other.violations);
        self.errors.extend(other.errors);
    }
}

/// Which part of the enumeration to check, and with how many threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Plan {
    /// Check every `stride`-th scenario of each family (1: all of them).
    pub(crate) stride: usize,
    /// `(k, n)`: check only the scenarios whose position in the (strided)
    /// enumeration is `k` modulo `n` (`0 <= k < n`); `(0, 1)` is all of
    /// them. The `n` shards of one enumeration are disjoint and together
    /// are the whole, so `n` CI jobs can split it.
    pub(crate) shard: (usize, usize),
    /// Worker threads (at least 1).
    pub(crate) threads: usize,
}

impl Default for Plan {
    fn default() -> Self {
        Plan {
            stride: 1,
            shard: (0, 1),
            threads: 1,
        }
    }
}

/// How many scenarios a family holds: the product of its choices, which
/// the family generators take in this order, whatever the index.
pub(crate) fn family_size(family: Family) -> usize {
    dims(family).iter().product()
}

fn dims(family: Family) -> Vec<usize> {
    match family {
        // question (type 4 × exclusive 2 × persistence 2), config (target 2
        // × static answer 3), kind, reask, prompter, backend, shape, tty,
        // profile
        Family::Single => vec![16, 6, 3, 2, 4, 7, 5, 2, 3],
        // 4 question slots, prompter, backend, order, tty, profile
        Family::Pairs => vec![8, 8, 8, 8, 2, 2, 2, 2, 3],
        // 3 question slots, prompter, backend, 6 scheduler picks, tty,
        // profile
        Family::Triples => vec![8, 8, 8, 2, 2, 3, 3, 3, 3, 3, 2, 3],
        Family::Quads => bigger::QUADS_DIMS.to_vec(),
        Family::Turns2 => bigger::TURNS2_DIMS.to_vec(),
    }
}

/// The scenario at index `n` of a family (`n < family_size(family)`): the
/// family's generator driven by `n` read as a mixed-radix number, the first
/// choice the least significant digit (`generate::choice::Radix`).
pub(crate) fn scenario_at(family: Family, n: usize) -> Scenario {
    generate(family, &mut Radix::new(n))
}

/// The scenarios the reviewer's commands (`diff-profiles`, `invariants`)
/// run: every `stride`-th scenario of the small scope (single, then pairs),
/// then `sample_size` scenarios drawn with `seed` from the full scenario
/// generator. Deterministic for its arguments.
pub fn scenarios(stride: usize, sample_size: usize, seed: u64) -> Vec<Scenario> {
    let mut out = Vec::new();
    for family in [Family::Single, Family::Pairs] {
        let mut n = 0;
        while n < family_size(family) {
            out.push(scenario_at(family, n));
            n += stride.max(1);
        }
    }
    out.extend(crate::generate::scenario::sample(sample_size, seed));
    out
}

/// The place value of a family's profile choice: each family's generator
/// picks the profile last (its most significant digit, of
/// [`ProfileName::ALL`]'s length) and the profile sets the scenario's
/// `profile` and nothing else, so the scenario at `n` is the one at `n %
/// profile_place(family)` with the profile `ProfileName::ALL[n /
/// profile_place(family)]` (a test holds it on samples of each family).
pub(crate) fn profile_place(family: Family) -> usize {
    let dims = dims(family);
    debug_assert_eq!(dims.last(), Some(&PROFILES.len()));
    dims[..dims.len() - 1].iter().product()
}

/// A family's generator, written against the choice interface so the
/// exhaustive driver ([`crate::generate::choice::Odometer`]) enumerates it
/// too; the question space is the scenario generator's own
/// ([`generated::core_question`], [`generated::source`]).
pub(crate) fn generate(family: Family, c: &mut impl Choices) -> Scenario {
    match family {
        Family::Single => single(c),
        Family::Pairs => pairs(c),
        Family::Triples => triples(c),
        Family::Quads => bigger::quads(c),
        Family::Turns2 => bigger::turns2(c),
    }
}

const PROFILES: [ProfileName; 3] = ProfileName::ALL;

/// An answer that fits the question, unique per slot so secrets are findable.
fn fitting(q: &Question, slot: &str) -> Value {
    match &q.answer_type {
        AnswerType::Boolean => json!(true),
        AnswerType::Select { .. } => json!("a"),
        AnswerType::Text => json!(format!("text-{slot}-answer")),
        AnswerType::Secret => json!(format!("secret-{slot}-marker")),
    }
}

fn misfit(q: &Question) -> Value {
    match &q.answer_type {
        AnswerType::Boolean => json!("yes"),
        AnswerType::Select { .. } => json!("z"),
        AnswerType::Text | AnswerType::Secret => json!(42),
    }
}

/// A configuration: target user or assistant, then no, a fitting or a
/// misfitting static answer (6 in all).
fn config(c: &mut impl Choices, q: &Question, slot: &str) -> QuestionConfig {
    let target = if c.flip() {
        QuestionTarget::Assistant
    } else {
        QuestionTarget::User
    };
    let answer = match c.choose(3) {
        0 => None,
        1 => Some(fitting(q, &format!("static-{slot}"))),
        _ => Some(misfit(q)),
    };
    QuestionConfig {
        target,
        answer,
        prompt_label: None,
    }
}

fn prompter(q: &Question, k: usize, n: usize) -> Vec<PrompterReply> {
    (0..n)
        .map(|i| match k {
            0 => PrompterReply::Answer {
                value: fitting(q, &format!("p{i}")),
                remember: false,
            },
            1 => PrompterReply::Answer {
                value: fitting(q, &format!("p{i}")),
                remember: true,
            },
            2 => PrompterReply::CtrlC,
            _ => PrompterReply::Eof,
        })
        .collect()
}

fn backend(q: &Question, k: usize, n: usize) -> Vec<BackendReply> {
    let kinds = [
        InquiryErrorKind::Cancelled,
        InquiryErrorKind::Provider,
        InquiryErrorKind::MissingStructuredData,
        InquiryErrorKind::AnswerExtraction,
        InquiryErrorKind::Other,
    ];
    (0..n)
        .map(|i| match k {
            0 => BackendReply::Answer {
                value: fitting(q, &format!("b{i}")),
            },
            1 => BackendReply::Answer { value: misfit(q) },
            e => BackendReply::Error {
                error: kinds[e - 2],
            },
        })
        .collect()
}

fn call(id: &str, tool: &str) -> Call {
    Call {
        id: id.to_owned(),
        tool: tool.to_owned(),
        arguments: json!({}),
    }
}

fn single(ch: &mut impl Choices) -> Scenario {
    let q = generated::core_question(ch, "q");
    let c = config(ch, &q, "t");
    let source = generated::source(ch, 3);
    let reject_first = ch.choose(2) as u8;
    let (prompter_kind, backend_kind, shape) = (ch.choose(4), ch.choose(7), ch.choose(5));
    let tty = ch.flip();
    let profile = ch.pick(&PROFILES);
    let tool = ToolSetup {
        source: Some(source),
        questions: Map::from_iter([("q".to_owned(), c)]).into(),
        run: Some(RunPolicy::Unattended),
        ..ToolSetup::new(Program::Script {
            asks: vec![ScriptedAsk {
                question: Arc::new(q.clone()),
                reject_first,
            }],
            finish: Finish::Succeed,
        })
    };
    let (turns, schedule) = match shape {
        0 => (vec![turn(vec![vec![call("c1", "t")]])], vec![]),
        1 => (
            vec![turn(vec![vec![call("c1", "t")], vec![call("c1", "t")]])],
            vec![],
        ),
        2 => (
            vec![
                turn(vec![vec![call("c1", "t")]]),
                turn(vec![vec![call("c1", "t")]]),
            ],
            vec![],
        ),
        3 => (
            vec![turn(vec![vec![call("c1", "t"), call("c2", "t")]])],
            vec![],
        ),
        _ => (
            vec![turn(vec![vec![call("c1", "t"), call("c2", "t")]])],
            vec![1; 16],
        ),
    };
    family_scenario(
        profile,
        tty,
        Map::from_iter([("t".to_owned(), tool)]),
        turns,
        prompter(&q, prompter_kind, 8),
        backend(&q, backend_kind, 8),
        schedule,
    )
}

/// A family's scenario from what the families vary; nothing else is set
/// (no permission or delivery replies, no per-ID backend replies, inquiry
/// model, toggles or amendment).
fn family_scenario(
    profile: ProfileName,
    tty: bool,
    tools: Map<String, ToolSetup>,
    turns: Vec<TurnScript>,
    prompter: Vec<PrompterReply>,
    backend: Vec<BackendReply>,
    schedule: Vec<u32>,
) -> Scenario {
    Scenario {
        profile,
        tty,
        tools,
        turns,
        prompter,
        backend,
        permissions: Vec::new(),
        deliveries: Vec::new(),
        schedule,
        backend_by_id: Map::default(),
        inquiry_model: None,
        toggles: Vec::new(),
        amendment: None,
    }
}

fn turn(cycles: Vec<Vec<Call>>) -> TurnScript {
    TurnScript {
        user: "go".to_owned(),
        cycles,
    }
}

/// The 8 representative question kinds of the pairs family: `(question
/// kind index, config index)` into the single family's spaces (each index
/// read back through the same generators, [`Radix`]).
const REPRESENTATIVE: [(usize, usize); 8] = [
    (0, 0), // plain boolean
    (8, 0), // boolean, persistence none
    (1, 2), // select, valid static answer
    (2, 4), // text, invalid static answer
    (3, 0), // secret
    (4, 0), // exclusive boolean
    (0, 1), // boolean targeted at the assistant
    (3, 1), // secret targeted at the assistant
];

/// Question `id` of kind `k` (`0..16`) with configuration `config_kind`
/// (`0..6`) for `slot`, as the single family builds them.
fn representative(
    id: &str,
    (k, config_kind): (usize, usize),
    slot: &str,
) -> (Question, QuestionConfig) {
    let q = generated::core_question(&mut Radix::new(k), id);
    let c = config(&mut Radix::new(config_kind), &q, slot);
    (q, c)
}

/// Tool `t` of the pairs and triples families: the `t`-th tool kind
/// ([`generated::source`]), asking `asks` in order, unattended.
fn scripted_tool(
    t: usize,
    asks: Vec<ScriptedAsk>,
    questions: Map<String, QuestionConfig>,
) -> ToolSetup {
    ToolSetup {
        source: Some(generated::source(&mut Radix::new(t), 3)),
        questions: questions.into(),
        run: Some(RunPolicy::Unattended),
        ..ToolSetup::new(Program::Script {
            asks,
            finish: Finish::Succeed,
        })
    }
}

/// `n` prompter and backend replies of the pairs and triples families:
/// the prompter answers and remembers (alternately `true` and a unique
/// text tagged `tag`) or is cancelled; the backend answers `true` or fails
/// with a provider error.
fn representative_replies(
    prompter_kind: usize,
    backend_kind: usize,
    n: usize,
    tag: &str,
) -> (Vec<PrompterReply>, Vec<BackendReply>) {
    let probe = generated::core_question(&mut Radix::new(3), "q");
    let prompter = (0..n)
        .map(|i| match prompter_kind {
            0 => PrompterReply::Answer {
                value: if i % 2 == 0 {
                    json!(true)
                } else {
                    fitting(&probe, &format!("{tag}{i}"))
                },
                remember: true,
            },
            _ => PrompterReply::CtrlC,
        })
        .collect();
    let backend = (0..n)
        .map(|_| match backend_kind {
            0 => BackendReply::Answer { value: json!(true) },
            _ => BackendReply::Error {
                error: InquiryErrorKind::Provider,
            },
        })
        .collect();
    (prompter, backend)
}

fn pairs(ch: &mut impl Choices) -> Scenario {
    let slots: Vec<usize> = (0..4).map(|_| ch.choose(REPRESENTATIVE.len())).collect();
    let (prompter_kind, backend_kind, order) = (ch.choose(2), ch.choose(2), ch.choose(2));
    let tty = ch.flip();
    let profile = ch.pick(&PROFILES);
    let mut tools = Map::default();
    for (t, name) in ["t1", "t2"].iter().enumerate() {
        let mut asks = Vec::new();
        let mut questions = Map::default();
        for (i, id) in ["q1", "q2"].iter().enumerate() {
            let kind = REPRESENTATIVE[slots[t * 2 + i]];
            let (q, c) = representative(id, kind, &format!("{name}-{id}"));
            questions.insert((*id).to_owned(), c);
            asks.push(ScriptedAsk {
                question: Arc::new(q),
                reject_first: 0,
            });
        }
        tools.insert((*name).to_owned(), scripted_tool(t, asks, questions));
    }
    let (prompter, backend) = representative_replies(prompter_kind, backend_kind, 8, "pp");
    family_scenario(
        profile,
        tty,
        tools,
        vec![turn(vec![vec![call("c1", "t1"), call("c2", "t2")]])],
        prompter,
        backend,
        if order == 1 { vec![1; 16] } else { vec![] },
    )
}

/// The scheduler picks the triples family enumerates: the first five
/// choices among the pending work (each `0..3`, taken modulo the pending
/// count); later choices take the oldest work.
const TRIPLE_PICKS: usize = 5;

fn triples(ch: &mut impl Choices) -> Scenario {
    let slots: Vec<usize> = (0..3).map(|_| ch.choose(REPRESENTATIVE.len())).collect();
    let (prompter_kind, backend_kind) = (ch.choose(2), ch.choose(2));
    let schedule: Vec<u32> = (0..TRIPLE_PICKS).map(|_| ch.choose(3) as u32).collect();
    let tty = ch.flip();
    let profile = ch.pick(&PROFILES);
    let names = ["t1", "t2", "t3"];
    let mut tools = Map::default();
    for (t, name) in names.iter().enumerate() {
        let (q, c) = representative("q", REPRESENTATIVE[slots[t]], name);
        let asks = vec![ScriptedAsk {
            question: Arc::new(q),
            reject_first: 0,
        }];
        let questions = Map::from_iter([("q".to_owned(), c)]);
        tools.insert((*name).to_owned(), scripted_tool(t, asks, questions));
    }
    let (prompter, backend) = representative_replies(prompter_kind, backend_kind, 12, "tp");
    let cycle = || vec![vec![call("c1", "t1"), call("c2", "t2"), call("c3", "t3")]];
    family_scenario(
        profile,
        tty,
        tools,
        vec![turn(cycle()), turn(cycle())],
        prompter,
        backend,
        schedule,
    )
}

/// Runs and checks one scenario as a worker does ([`check_runs`]), counting
/// it under `name` in the report, remembering the stream invariants'
/// results in `memo`.
fn check_named(s: &Scenario, name: &str, report: &mut Report, memo: &mut StreamMemo) {
    let misses = memo.misses;
    check_runs([s], memo, |s, steps, result| {
        record(s, name, steps, result, report);
    });
    report.distinct_streams += memo.misses - misses;
}

/// Counts one checked run of `s` under `name` in the report: its steps,
/// and its findings or why it could not run. The distinct streams are
/// counted by the caller, from the memo.
fn record(
    s: &Scenario,
    name: &str,
    steps: usize,
    result: Result<Vec<Diagnostic>, ScenarioError>,
    report: &mut Report,
) {
    *report.scenarios.entry(name.to_owned()).or_default() += 1;
    *report.per_profile.entry(s.profile.to_string()).or_default() += 1;
    report.steps += steps;
    match result {
        Ok(found) => classify(s, found.iter(), report, &mut |s| s.clone()),
        Err(e) => report.errors.push((s.clone(), e.to_string())),
    }
}

/// A scenario of a family, as a worker checks it ([`check_runs`]).
struct Item(Family, Scenario);

impl std::borrow::Borrow<Scenario> for Item {
    fn borrow(&self) -> &Scenario {
        &self.1
    }
}

/// Counts a run's legacy known gaps and its findings of the separator
/// flaw ([`Report::separator_flaw`]), and records its other findings as a
/// violation of `scenario(s)` (built only when there is one).
fn classify<'d>(
    s: &Scenario,
    found: impl Iterator<Item = &'d Diagnostic>,
    report: &mut Report,
    scenario: &mut dyn FnMut(&Scenario) -> Scenario,
) {
    let found: Vec<&Diagnostic> = found.collect();
    if found.is_empty() {
        return;
    }
    let kinds = known(s, &found);
    let mut bad = Vec::new();
    for (d, known) in found.into_iter().zip(kinds) {
        let counts = match known {
            Some(Known::LegacyGap) => &mut report.legacy_known_gaps,
            Some(Known::SeparatorFlaw) => &mut report.separator_flaw,
            None => {
                bad.push(d.to_string());
                continue;
            }
        };
        *counts.entry(d.rule.id().to_owned()).or_default() += 1;
    }
    if !bad.is_empty() {
        bad.dedup();
        report.violations.push((scenario(s), bad));
    }
}

/// Why each of a run's findings is excused, as
/// [`crate::invariants::without_known`] excuses them (a legacy gap, the
/// separator flaw), or `None` for a violation.
fn known(s: &Scenario, found: &[&Diagnostic]) -> Vec<Option<Known>> {
    match s.rules() {
        Ok(rules) => crate::invariants::known_kinds(s, &rules, found),
        Err(_) => vec![None; found.len()],
    }
}

/// The rules of a run's findings that the searches do not excuse: not a
/// legacy known gap, not the separator flaw ([`classify`] counts those).
fn unexcused(s: &Scenario, found: &[Diagnostic]) -> Vec<crate::rule::Rule> {
    let refs: Vec<&Diagnostic> = found.iter().collect();
    found
        .iter()
        .zip(known(s, &refs))
        .filter_map(|(d, known)| known.is_none().then_some(d.rule))
        .collect()
}

/// Whether the scenario at index `n` of a family is a root of the state
/// search: its scheduler choices at their first value (the search branches
/// over every interleaving itself). Single: every shape but the fifth (the
/// fourth with the other order); pairs: the first order; triples: the first
/// value of each of the five picks.
fn is_root(family: Family, n: usize) -> bool {
    let mut digits = Vec::new();
    let mut rest = n;
    for d in dims(family) {
        digits.push(rest % d);
        rest /= d;
    }
    match family {
        Family::Single => digits[6] != 4,
        Family::Pairs => digits[6] == 0,
        Family::Triples => digits[5..10].iter().all(|&p| p == 0),
        Family::Quads => true,
        Family::Turns2 => true,
    }
}

/// The indices of a family's roots, in enumeration order: its scenarios
/// with their scheduler choices at their first value (single without its
/// fifth shape, pairs without its order choice, triples without its five
/// picks).
pub(crate) fn root_indices(family: Family) -> Vec<usize> {
    (0..family_size(family))
        .filter(|&n| is_root(family, n))
        .collect()
}

/// The root scenario at index `n` of a family: its scenario with no
/// schedule.
pub(crate) fn root_at(family: Family, n: usize) -> Scenario {
    Scenario {
        schedule: Vec::new(),
        ..scenario_at(family, n)
    }
}

/// Searches one root's every interleaving, adding to the report: each
/// complete run counts as a scenario (a violation names the root with the
/// run's schedule, which replays it).
pub(crate) fn search_one(
    root: &Scenario,
    family: &str,
    dedup: states::Dedup,
    report: &mut Report,
    memo: &mut StreamMemo,
) {
    let misses = memo.misses;
    let mut paths = Report::new();
    let result = states::search(root, RunOptions::default(), dedup, memo, &mut |leaf| {
        classify(root, leaf.findings.iter(), &mut paths, &mut |r| {
            leaf.scenario(r)
        });
    });
    report.distinct_streams += memo.misses - misses;
    *report.roots.entry(family.to_owned()).or_default() += 1;
    match result {
        Ok(stats) => {
            *report.scenarios.entry(family.to_owned()).or_default() += stats.paths;
            *report
                .per_profile
                .entry(root.profile.to_string())
                .or_default() += stats.paths;
            report.steps += stats.steps;
            report.distinct_states += stats.states;
            report.revisited_states += stats.revisited;
            report.merge(paths);
        }
        Err(e) => report.errors.push((root.clone(), e.to_string())),
    }
}

/// The state-graph search over the families' roots (every interleaving of
/// each, [`states::search`]): `plan`'s shard of the roots (`k` modulo `n`
/// over the strided root order) over its worker threads, deduplicating as
/// `dedup` says.
#[cfg(test)]
pub(crate) fn explore_states(families: &[Family], plan: Plan, dedup: states::Dedup) -> Report {
    explore_states_with(families, plan, dedup, &|| {})
}

/// `explore_states`, calling `done` after each root is searched (from
/// the worker threads; for a progress count).
pub(crate) fn explore_states_with(
    families: &[Family],
    plan: Plan,
    dedup: states::Dedup,
    done: &(dyn Fn() + Sync),
) -> Report {
    over_roots(families, plan, done, &|root, f, report, memo| {
        search_one(root, f.name(), dedup, report, memo)
    })
}

/// `plan`'s shard of the families' roots (`k` modulo `n` over the strided
/// root order), each given to `search` on one of `plan.threads` workers
/// with that worker's report and stream memo, `done` called after each;
/// the workers' reports summed.
fn over_roots(
    families: &[Family],
    plan: Plan,
    done: &(dyn Fn() + Sync),
    search: &(dyn Fn(&Scenario, Family, &mut Report, &mut StreamMemo) + Sync),
) -> Report {
    let threads = plan.threads.max(1);
    let work = shard_of(families, plan, |f| Box::new(root_indices(f).into_iter()));
    let worker = |w: usize| {
        let mut report = Report::new();
        let mut memo = StreamMemo::new();
        for &(f, i) in work.iter().skip(w).step_by(threads) {
            search(&root_at(f, i), f, &mut report, &mut memo);
            done();
        }
        report
    };
    in_threads(threads, &worker)
}

/// Searches one root's every interleaving by forking, reduced as
/// `reduction` says, under `options`, adding to the report as
/// [`search_one`] does (each complete run counts as a scenario).
pub(crate) fn search_one_por(
    root: &Scenario,
    family: &str,
    reduction: por::Reduction,
    options: RunOptions,
    report: &mut Report,
    memo: &mut StreamMemo,
) {
    let misses = memo.misses;
    let mut paths = Report::new();
    let result = por::search(root, options.clone(), reduction, memo, &mut |run| {
        classify(root, run.findings.iter(), &mut paths, &mut |r| {
            run.scenario(r)
        });
    });
    report.distinct_streams += memo.misses - misses;
    *report.roots.entry(family.to_owned()).or_default() += 1;
    let counted = por::interleavings(root, options);
    match (result, counted) {
        (Ok(stats), Ok(n)) => {
            *report.scenarios.entry(family.to_owned()).or_default() += stats.runs;
            *report
                .per_profile
                .entry(root.profile.to_string())
                .or_default() += stats.runs;
            report.steps += stats.steps;
            report.distinct_states += stats.choices;
            report.blocked_runs += stats.blocked;
            report.interleavings += n;
            report.merge(paths);
        }
        (Err(e), _) | (_, Err(e)) => report.errors.push((root.clone(), e.to_string())),
    }
}

/// The forking search over the families' roots (every interleaving of
/// each, [`por::search`], reduced as `reduction` says), sharded and
/// threaded as the state search. `distinct_states` counts the choices
/// met (a forking search keeps no set of states).
/// Calls `done` after each root is searched (from the worker threads;
/// for a progress count).
pub(crate) fn explore_por_with(
    families: &[Family],
    plan: Plan,
    reduction: por::Reduction,
    done: &(dyn Fn() + Sync),
) -> Report {
    over_roots(families, plan, done, &|root, f, report, memo| {
        search_one_por(
            root,
            f.name(),
            reduction,
            RunOptions::default(),
            report,
            memo,
        )
    })
}

/// The reduced search over the families' roots under no fault and every
/// fault of the fault matrix ([`bigger::sweep_one`]), sharded and threaded
/// as the state search; `done` is called after each root's every row.
pub(crate) fn explore_faults_with(
    families: &[Family],
    plan: Plan,
    done: &(dyn Fn() + Sync),
) -> Report {
    let rows = por::fault_matrix();
    over_roots(families, plan, done, &|root, f, report, memo| {
        bigger::sweep_one(root, f.name(), &rows, report, memo)
    })
}

/// The reduced search held to every interleaving (`compare_por`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PorCheck {
    /// Roots searched.
    pub(crate) roots: usize,
    /// Roots skipped for having more interleavings than the cap (the
    /// drawn-root comparison only).
    pub(crate) skipped: usize,
    /// Every interleaving of the roots searched, by the multinomial count
    /// ([`por::interleavings`]; the drawn-root comparison only).
    pub(crate) interleavings: u64,
    /// Rows of the fault matrix each root was searched under.
    pub(crate) rows: usize,
    /// Runs of the full searches, and of the reduced ones.
    pub(crate) full_runs: usize,
    /// Runs of the reduced searches.
    pub(crate) reduced_runs: usize,
    /// (root, fault row) pairs where the full search found a violation.
    pub(crate) violating: usize,
    /// Where the two found different invariants violated: the fault row,
    /// the root and both sets.
    pub(crate) disagreements: Vec<String>,
    /// Roots the model refused or crashed on.
    pub(crate) errors: Vec<String>,
}

/// Every root of `plan`'s shard, under every row of the fault matrix
/// ([`por::fault_matrix`]): the reduced search must find exactly the
/// invariants violated that every interleaving finds ([`por::agreement`]).
#[cfg(test)]
pub(crate) fn compare_por(families: &[Family], plan: Plan) -> PorCheck {
    compare_por_with(families, plan, &|| {})
}

/// `compare_por`, calling `done` after each root is compared under every
/// row (from the worker threads; for a progress count).
pub(crate) fn compare_por_with(
    families: &[Family],
    plan: Plan,
    done: &(dyn Fn() + Sync),
) -> PorCheck {
    let threads = plan.threads.max(1);
    let work = shard_of(families, plan, |f| Box::new(root_indices(f).into_iter()));
    let rows = por::fault_matrix();
    let worker = |w: usize| {
        let mut check = PorCheck {
            rows: rows.len(),
            ..PorCheck::default()
        };
        for &(f, i) in work.iter().skip(w).step_by(threads) {
            let label = format!("{} root {i}", f.name());
            compare_root(&root_at(f, i), &label, &rows, &mut check);
            done();
        }
        check
    };
    sum_checks(threads, rows.len(), &worker)
}

/// How many roots the language family holds ([`language_root`]).
pub(crate) const LANGUAGE_ROOTS: usize = 2 * 3 * 5 * 2 * 2 * 3;

/// The language family's root `n` (`n < LANGUAGE_ROOTS`): the shapes of the
/// scenario language the pairs and triples families leave out, each a
/// digit of `n` ([`Radix`]): tool names `t1`/`t2` asking `q`, or `a`/`a.b`
/// asking `b.c`/`c` (one turn-cache key, `a.b.c`); call IDs `c1`,`c2`, or
/// `c1` twice in one cycle, or `c1`,`c2` then `c1` again in a second cycle;
/// the inquiry backend answering the first tool's assistant-targeted
/// question, or the token fired by each cause (hard quit, aborted turn,
/// restart, tool cancel); the prompter remembering or not; alone, or with
/// an `ask_user` call in the cycle beside a permission prompt (the first
/// tool runs on `ask`) and a delivery prompt (the second tool's result on
/// `ask`); each profile. No schedule: the searches pick.
pub(crate) fn language_root(n: usize) -> Scenario {
    let mut r = Radix::new(n);
    let dotted = r.flip();
    let ids = r.choose(3);
    let backend = r.choose(5);
    let remember = r.flip();
    let extras = r.flip();
    let profile = r.pick(&PROFILES);
    let (names, questions) = match dotted {
        true => (["a", "a.b"], ["b.c", "c"]),
        false => (["t1", "t2"], ["q", "q"]),
    };
    let tool = |i: usize| {
        let mut t = json!({
            "source": {"kind": "local"},
            "run": "unattended",
            "program": {"kind": "script", "asks": [{"question": {
                "id": questions[i], "text": "Proceed?", "answer_type": {"type": "boolean"}}}]},
        });
        if i == 0 {
            t["questions"] = json!({questions[0]: {"target": "assistant"}});
        }
        if extras && i == 0 {
            t["run"] = json!("ask");
        }
        if extras && i == 1 {
            t["result"] = json!("ask");
        }
        t
    };
    let second = match ids {
        1 => "c1",
        _ => "c2",
    };
    let mut cycle = vec![
        json!({"id": "c1", "tool": names[0]}),
        json!({"id": second, "tool": names[1]}),
    ];
    if extras {
        cycle.push(json!({"id": "c3", "tool": "ask_user",
            "arguments": {"question": "Proceed?", "answer_type": "boolean"}}));
    }
    let mut cycles = vec![json!(cycle)];
    if ids == 2 {
        cycles.push(json!([{"id": "c1", "tool": names[1]}]));
    }
    const CAUSES: [&str; 4] = ["hard_quit", "aborted_turn", "restart", "tool_cancel"];
    let reply = match backend {
        0 => json!({"reply": "answer", "value": true}),
        k => json!({"reply": "cancelled", "cause": CAUSES[(k - 1) % CAUSES.len()]}),
    };
    let prompter: Vec<Value> = (0..4)
        .map(|i| json!({"reply": "answer", "value": i % 2 == 0, "remember": remember}))
        .collect();
    let value = json!({
        "profile": profile,
        "tools": {names[0]: tool(0), names[1]: tool(1),
            "ask_user": {"program": {"kind": "ask_user"}}},
        "turns": [{"user": "go", "cycles": cycles}],
        "prompter": prompter,
        "backend": [reply, {"reply": "answer", "value": false}],
        "permissions": [{"reply": "allow", "remember": remember}],
        "deliveries": [{"reply": "deliver"}],
    });
    match serde_json::from_value(value) {
        Ok(s) => s,
        Err(e) => unreachable!("the language family builds scenarios: {e}"),
    }
}

/// The seed of the full scenario generator's roots in the drawn-root
/// comparison ([`compare_drawn`]).
pub(crate) const DRAWN_SEED: u64 = 0x0082_0083;

/// How many roots the drawn-root comparison draws from the full scenario
/// generator ([`crate::generate::scenario::sample`]).
pub(crate) const DRAWN_ROOTS: usize = 1_000;

/// A drawn root with more interleavings than this (by
/// [`por::interleavings`]) is skipped, and counted as skipped.
pub(crate) const DRAWN_CAP: u64 = 2_000;

/// The roots of the drawn-root comparison, labelled: every root of the
/// language family, then [`DRAWN_ROOTS`] scenarios of the full scenario
/// generator drawn with [`DRAWN_SEED`], each without its schedule.
pub(crate) fn drawn_roots() -> Vec<(String, Scenario)> {
    let language = (0..LANGUAGE_ROOTS).map(|n| (format!("language root {n}"), language_root(n)));
    let drawn = generated::sample(DRAWN_ROOTS, DRAWN_SEED)
        .into_iter()
        .enumerate()
        .map(|(i, s)| {
            let root = Scenario {
                schedule: Vec::new(),
                ..s
            };
            (format!("drawn root {i} (seed {DRAWN_SEED:#x})"), root)
        });
    language.chain(drawn).collect()
}

/// The reduced search against every interleaving on `plan`'s shard of the
/// drawn roots ([`drawn_roots`], every `stride`-th, then `k` modulo `n`),
/// under no fault and every fault of the fault matrix; roots above
/// [`DRAWN_CAP`] interleavings are skipped. `done` is called after each
/// root.
pub(crate) fn compare_drawn(plan: Plan, done: &(dyn Fn() + Sync)) -> PorCheck {
    let rows = por::fault_matrix();
    let roots = drawn_roots();
    let stride = plan.stride.max(1);
    let (k, n) = (plan.shard.0, plan.shard.1.max(1));
    let mine: Vec<&(String, Scenario)> = roots
        .iter()
        .step_by(stride)
        .enumerate()
        .filter(|(g, _)| g % n == k)
        .map(|(_, x)| x)
        .collect();
    let threads = plan.threads.max(1);
    let worker = |w: usize| {
        let mut check = PorCheck {
            rows: rows.len(),
            ..PorCheck::default()
        };
        for (label, root) in mine.iter().skip(w).step_by(threads) {
            match por::interleavings(root, RunOptions::default()) {
                Ok(count) if count > DRAWN_CAP => check.skipped += 1,
                Ok(count) => {
                    check.interleavings += count;
                    compare_root(root, label, &rows, &mut check);
                }
                Err(e) => check.errors.push(format!("{label}: {e}")),
            }
            done();
        }
        check
    };
    sum_checks(threads, rows.len(), &worker)
}

/// Runs `worker(0..threads)` and sums their comparisons.
fn sum_checks(
    threads: usize,
    rows: usize,
    worker: &(dyn Fn(usize) -> PorCheck + Sync),
) -> PorCheck {
    let parts: Vec<PorCheck> = if threads == 1 {
        vec![worker(0)]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|w| scope.spawn(move || worker(w)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a comparison worker panicked"))
                .collect()
        })
    };
    let mut all = PorCheck {
        rows,
        ..PorCheck::default()
    };
    for p in parts {
        all.roots += p.roots;
        all.skipped += p.skipped;
        all.interleavings += p.interleavings;
        all.full_runs += p.full_runs;
        all.reduced_runs += p.reduced_runs;
        all.violating += p.violating;
        all.disagreements.extend(p.disagreements);
        all.errors.extend(p.errors);
    }
    all
}

/// Compares the full and the reduced search of one root under every row of
/// `rows` (the fault matrix), adding to `check`; `label` names the root in
/// the disagreements and errors.
fn compare_root(root: &Scenario, label: &str, rows: &[(String, RunOptions)], check: &mut PorCheck) {
    check.roots += 1;
    for (name, options) in rows {
        match por::agreement(root, options.clone()) {
            Ok(a) => {
                check.full_runs += a.runs.0;
                check.reduced_runs += a.runs.1;
                check.violating += usize::from(!a.rules.0.is_empty());
                if !a.agrees() {
                    check.disagreements.push(format!(
                        "fault {name}, {label}: every interleaving {:?}, reduced {:?}",
                        a.rules.0, a.rules.1
                    ));
                }
            }
            Err(e) => check.errors.push(format!("{label}: {e}")),
        }
    }
}

/// `compare_por` on one given root (`explore --scenario FILE
/// --states --por --por-check`): under no fault and every fault of the
/// fault matrix, the reduced search against every interleaving.
pub(crate) fn compare_given(root: &Scenario, label: &str) -> PorCheck {
    let rows = por::fault_matrix();
    let mut check = PorCheck {
        rows: rows.len(),
        ..PorCheck::default()
    };
    let root = Scenario {
        schedule: Vec::new(),
        ..root.clone()
    };
    compare_root(&root, label, &rows, &mut check);
    check
}

/// How `explore --scenario FILE` searches its one scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GivenSearch {
    /// The scenario as given, with its own schedule: one run.
    Scheduled,
    /// Every interleaving as a state graph ([`states::search`]).
    States(states::Dedup),
    /// Every interleaving by forking ([`por::search`]), reduced or not.
    Forking(por::Reduction),
}

/// Explores one given scenario as `how` says (its schedule ignored but for
/// [`GivenSearch::Scheduled`]), counting it under `name`; the report reads
/// as the families' do.
pub(crate) fn explore_given(s: &Scenario, name: &str, how: GivenSearch) -> Report {
    let mut report = Report::new();
    let mut memo = StreamMemo::new();
    let root = Scenario {
        schedule: Vec::new(),
        ..s.clone()
    };
    match how {
        GivenSearch::Scheduled => check_named(s, name, &mut report, &mut memo),
        GivenSearch::States(dedup) => search_one(&root, name, dedup, &mut report, &mut memo),
        GivenSearch::Forking(reduction) => search_one_por(
            &root,
            name,
            reduction,
            RunOptions::default(),
            &mut report,
            &mut memo,
        ),
    }
    report
}

/// `plan`'s shard of the families' items as (family, index), in
/// enumeration order: every `stride`-th of the items `indices` lists for
/// each family, then the `k`-th of every `n` of those (decision "Exploration:
/// shards are k modulo n"), so shards are disjoint and together the whole.
fn shard_of(
    families: &[Family],
    plan: Plan,
    indices: impl Fn(Family) -> Box<dyn Iterator<Item = usize>>,
) -> Vec<(Family, usize)> {
    let stride = plan.stride.max(1);
    let (k, n) = (plan.shard.0, plan.shard.1.max(1));
    families
        .iter()
        .flat_map(|&f| indices(f).step_by(stride).map(move |i| (f, i)))
        .enumerate()
        .filter(|(g, _)| g % n == k)
        .map(|(_, x)| x)
        .collect()
}

/// Runs `worker(0..threads)` and sums their reports.
fn in_threads(threads: usize, worker: &(dyn Fn(usize) -> Report + Sync)) -> Report {
    if threads == 1 {
        return worker(0);
    }
    let reports: Vec<Report> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|w| scope.spawn(move || worker(w)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("an exploration worker panicked"))
            .collect()
    });
    let mut report = Report::new();
    for r in reports {
        report.merge(r);
    }
    report
}

/// Enumerates the families, checking every `stride`-th scenario (1 for the
/// complete enumeration), and reports.
#[cfg(test)]
pub(crate) fn explore(families: &[Family], stride: usize) -> Report {
    explore_plan(
        families,
        Plan {
            stride,
            ..Plan::default()
        },
    )
}

/// Enumerates the families as `plan` says: its shard of the strided
/// enumeration, over its worker threads (worker `w` takes every
/// `threads`-th scenario of the shard from its `w`-th). The report is the
/// same whatever the number of threads, but for the order of the violations
/// and `distinct_streams` (each worker remembers its own streams).
#[cfg(test)]
pub(crate) fn explore_plan(families: &[Family], plan: Plan) -> Report {
    explore_plan_with(families, plan, &|| {})
}

/// `explore_plan`, calling `done` after each scenario is checked (from
/// the worker threads; for a progress count).
pub(crate) fn explore_plan_with(
    families: &[Family],
    plan: Plan,
    done: &(dyn Fn() + Sync),
) -> Report {
    let threads = plan.threads.max(1);
    let work = shard_of(families, plan, |f| Box::new(0..family_size(f)));
    let worker = |w: usize| {
        let mut report = Report::new();
        let mut memo = StreamMemo::new();
        let items = work.iter().skip(w).step_by(threads);
        let items = items.map(|&(f, i)| Item(f, scenario_at(f, i)));
        check_runs(items, &mut memo, |Item(f, s), steps, result| {
            record(&s, f.name(), steps, result, &mut report);
            done();
        });
        report.distinct_streams += memo.misses;
        report
    };
    in_threads(threads, &worker)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::choice::Odometer;

    /// Rule: GEN-ONE-INTERFACE — the exhaustive driver enumerates the pairs
    /// family's generator to exactly the family's size (the product of its
    /// choices, which `scenario_at` indexes), ending where the last index
    /// does.
    #[test]
    fn the_odometer_enumerates_the_pairs_family() {
        let mut o = Odometer::new();
        let mut count = 1;
        let mut last = generate(Family::Pairs, &mut o);
        while o.advance() {
            last = generate(Family::Pairs, &mut o);
            count += 1;
        }
        assert_eq!(count, family_size(Family::Pairs));
        assert!(last == scenario_at(Family::Pairs, family_size(Family::Pairs) - 1));
        assert!(generate(Family::Pairs, &mut Odometer::new()) == scenario_at(Family::Pairs, 0));
    }
}

#[cfg(test)]
mod plan_tests {
    use super::*;

    /// Rule: GEN-ONE-INTERFACE — the `n` shards of a (strided) enumeration
    /// are disjoint and together the whole, and worker threads change no
    /// count.
    #[test]
    fn shards_partition_the_enumeration_and_threads_change_no_count() {
        let fams = [Family::Single, Family::Pairs];
        let whole = explore(&fams, 2003);
        let mut parts = Report::new();
        for k in 0..3 {
            let plan = Plan {
                stride: 2003,
                shard: (k, 3),
                threads: 2,
            };
            parts.merge(explore_plan(&fams, plan));
        }
        assert_eq!(parts.scenarios, whole.scenarios);
        assert_eq!(parts.per_profile, whole.per_profile);
        assert_eq!(parts.steps, whole.steps);
        assert_eq!(parts.legacy_known_gaps, whole.legacy_known_gaps);
        let expected: usize = fams.iter().map(|&f| family_size(f).div_ceil(2003)).sum();
        assert_eq!(whole.total(), expected);
    }

    /// Rule: INV-EXPLORE-COMPLETE — the state search's shards split the
    /// roots (disjoint, together the whole: the same roots, runs, states
    /// and steps), worker threads change no count, and the roots are the
    /// family's scenarios without their scheduler picks: the pairs family
    /// has half its scenarios as roots (its order choice dropped), the
    /// triples family one in 3^5.
    #[test]
    fn state_search_shards_split_the_roots_and_threads_change_no_count() {
        let fams = [Family::Single, Family::Pairs];
        let dedup = states::Dedup::Full;
        let plan = |k, n, threads| Plan {
            stride: 1009,
            shard: (k, n),
            threads,
        };
        let whole = explore_states(&fams, plan(0, 1, 1), dedup);
        let mut parts = Report::new();
        for k in 0..3 {
            parts.merge(explore_states(&fams, plan(k, 3, 2), dedup));
        }
        assert_eq!(parts.roots, whole.roots);
        assert_eq!(parts.scenarios, whole.scenarios);
        assert_eq!(parts.steps, whole.steps);
        assert_eq!(parts.distinct_states, whole.distinct_states);
        assert_eq!(parts.revisited_states, whole.revisited_states);
        assert!(whole.violations.is_empty() && whole.errors.is_empty());
        assert!(whole.distinct_states > 0);
        assert!(whole.total() > whole.roots.values().sum::<usize>());
        assert_eq!(
            root_indices(Family::Pairs).len() * 2,
            family_size(Family::Pairs)
        );
        assert_eq!(
            root_indices(Family::Triples).len() * 243,
            family_size(Family::Triples)
        );
        assert!(
            root_indices(Family::Pairs)
                .iter()
                .all(|&n| root_at(Family::Pairs, n).schedule.is_empty())
        );
    }
}

#[cfg(test)]
mod bigger_tests;
#[cfg(test)]
mod explore_sample_tests;
#[cfg(test)]
mod por_agreement_tests;
#[cfg(test)]
mod state_search_tests;
