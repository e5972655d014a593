//! The bigger exhaustive scope: two families whose every interleaving the
//! reduced search ([`super::por`]) explores, under no fault and under every
//! fault of the fault matrix (`explore --scope bigger --states --por
//! --faults`).
//!
//! - **quads** — four tool calls in one cycle: `c1` and `c4` call the same
//!   built-in tool, `c2` a built-in with the `Assistant` hook, `c3` a local
//!   tool. The tools are `t1`, `t2`, `t3` asking `q` each, or `a`, `a.b`,
//!   `t3` asking `b.c`, `c`, `q`: `a`'s and `a.b`'s questions then share the
//!   turn-cache key `a.b.c` (RFD 082 "Splitting the turn-cache state" keys
//!   by `<tool_name>.<question_id>`). The built-ins' questions are each one
//!   of the 8 representative kinds, the local tool's one of 4 ×
//!   2 prompter replies × 2 backend replies × TTY on/off × 3 profiles
//!   ([`QUADS_DIMS`]: 12 288 roots). With dotted names
//!   a remembered answer of `a` serves `a.b`: the separator flaw
//!   (`INV-CACHE-KEY-UNIQUE`, rule table), which the searches count as
//!   known and do not fail.
//! - **turns2** — two turns of the same two parallel calls (call IDs `c1`,
//!   `c2` reused), `t1` a built-in asking an assistant-targeted question (4
//!   kinds), `t2` a local tool asking one of the 8 representative kinds;
//!   the inquiry backend's first or second reply is the cancellation token
//!   fired by one of its causes (hard quit, aborted turn, restart, tool
//!   cancel: rule `LIFE-TOKEN-CAUSE`), its other replies answer or fail
//!   with a provider error × 2 prompter replies × TTY on/off × 3 profiles.
//!   Which call takes the cancelling reply, and in which turn, is the
//!   interleaving's: the second turn runs on what the first left (attempt
//!   counters, remembered answers, a closed or restarted call).
//!
//! Neither family has scheduler choices: every scenario is a root, and the
//! searches pick.

use crate::model::tool::Map;
use serde_json::json;
use std::sync::Arc;

use super::{
    PROFILES, REPRESENTATIVE, call, family_scenario, representative, representative_replies,
    scripted_tool, turn,
};
use crate::generate::choice::Choices;
use crate::model::routing::TokenCause;
use crate::scenario::{BackendReply, Scenario, ScriptedAsk};

/// The quads family's choices, in the order its generator takes them: the
/// tool names (plain or dotted), the kind of `t1`/`a`'s question, of
/// `t2`/`a.b`'s ([`REPRESENTATIVE`]), of `t3`'s ([`LOCAL_KINDS`]),
/// prompter, backend, TTY, profile.
pub(crate) const QUADS_DIMS: [usize; 8] = [2, 8, 8, 4, 2, 2, 2, 3];

/// The turns2 family's choices, in the order its generator takes them: the
/// kind of `t1`'s assistant-targeted question ([`ASSISTANT_KINDS`]), of
/// `t2`'s ([`REPRESENTATIVE`]), the token's cause ([`CAUSES`]), whether
/// it is the backend's first or second reply, the other backend replies
/// (answer or provider error), prompter, TTY, profile.
pub(crate) const TURNS2_DIMS: [usize; 8] = [4, 8, 4, 2, 2, 2, 2, 3];

/// The quads family's kinds of the local tool's question: half of
/// [`REPRESENTATIVE`] (the whole scope in one CPU-hour), one of each
/// route: prompted and remembered, prompted and never remembered, a secret,
/// the inquiry backend.
const LOCAL_KINDS: [(usize, usize); 4] = [
    (0, 0), // plain boolean
    (8, 0), // boolean, persistence none
    (3, 0), // secret
    (0, 1), // boolean targeted at the assistant
];

/// The turns2 family's kinds of `t1`'s question, every one targeted at the
/// assistant so its call reaches the inquiry backend: `(question kind,
/// config)` into the single family's spaces as [`REPRESENTATIVE`] is.
const ASSISTANT_KINDS: [(usize, usize); 4] = [
    (0, 1), // boolean
    (8, 1), // boolean, persistence none
    (2, 5), // text, invalid static answer
    (3, 1), // secret
];

/// The token's causes, in the order the turns2 family (and the language
/// family) enumerate them.
const CAUSES: [TokenCause; 4] = [
    TokenCause::HardQuit,
    TokenCause::AbortedTurn,
    TokenCause::Restart,
    TokenCause::ToolCancel,
];

fn ask(
    kind: (usize, usize),
    id: &str,
    slot: &str,
) -> (ScriptedAsk, Map<String, crate::model::tool::QuestionConfig>) {
    let (q, c) = representative(id, kind, slot);
    (
        ScriptedAsk {
            question: Arc::new(q),
            reject_first: 0,
        },
        Map::from_iter([(id.to_owned(), c)]),
    )
}

/// The quads family's generator.
pub(crate) fn quads(ch: &mut impl Choices) -> Scenario {
    let dotted = ch.flip();
    let kinds = [
        REPRESENTATIVE[ch.choose(REPRESENTATIVE.len())],
        REPRESENTATIVE[ch.choose(REPRESENTATIVE.len())],
        LOCAL_KINDS[ch.choose(LOCAL_KINDS.len())],
    ];
    let (prompter_kind, backend_kind) = (ch.choose(2), ch.choose(2));
    let tty = ch.flip();
    let profile = ch.pick(&PROFILES);
    let (names, ids) = if dotted {
        (["a", "a.b", "t3"], ["b.c", "c", "q"])
    } else {
        (["t1", "t2", "t3"], ["q", "q", "q"])
    };
    let mut tools = Map::default();
    for t in 0..3 {
        let (a, questions) = ask(kinds[t], ids[t], names[t]);
        tools.insert(names[t].to_owned(), scripted_tool(t, vec![a], questions));
    }
    let (prompter, backend) = representative_replies(prompter_kind, backend_kind, 12, "qp");
    family_scenario(
        profile,
        tty,
        tools,
        vec![turn(vec![vec![
            call("c1", names[0]),
            call("c2", names[1]),
            call("c3", names[2]),
            call("c4", names[0]),
        ]])],
        prompter,
        backend,
        Vec::new(),
    )
}

/// The turns2 family's generator.
pub(crate) fn turns2(ch: &mut impl Choices) -> Scenario {
    let first = ch.choose(ASSISTANT_KINDS.len());
    let second = ch.choose(REPRESENTATIVE.len());
    let cause = ch.pick(&CAUSES);
    let at = ch.choose(2);
    let others_fail = ch.flip();
    let prompter_kind = ch.choose(2);
    let tty = ch.flip();
    let profile = ch.pick(&PROFILES);
    let mut tools = Map::default();
    let (a1, q1) = ask(ASSISTANT_KINDS[first], "q", "t1");
    // Tool kinds of the pairs and triples families: 1 is the built-in
    // with the `Assistant` hook, 2 the local tool.
    tools.insert("t1".to_owned(), scripted_tool(1, vec![a1], q1));
    let (a2, q2) = ask(REPRESENTATIVE[second], "q", "t2");
    tools.insert("t2".to_owned(), scripted_tool(2, vec![a2], q2));
    let (prompter, _) = representative_replies(prompter_kind, 0, 8, "tt");
    let backend = (0..8)
        .map(|i| {
            if i == at {
                BackendReply::Cancelled { cause }
            } else if others_fail {
                BackendReply::Error {
                    error: crate::model::routing::InquiryErrorKind::Provider,
                }
            } else {
                BackendReply::Answer { value: json!(true) }
            }
        })
        .collect();
    let cycle = || vec![vec![call("c1", "t1"), call("c2", "t2")]];
    family_scenario(
        profile,
        tty,
        tools,
        vec![turn(cycle()), turn(cycle())],
        prompter,
        backend,
        Vec::new(),
    )
}

/// What the reduced search found on a shard of roots under one fault row
/// of the fault matrix ([`super::por::fault_matrix`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub(crate) struct FaultRow {
    /// Roots searched under the fault.
    pub(crate) roots: usize,
    /// Complete runs (one per equivalence class).
    pub(crate) runs: usize,
    /// Roots where some run found a violation the search does not excuse
    /// (not a legacy known gap, not the separator flaw): the roots that
    /// catch the fault.
    pub(crate) detected: usize,
    /// Per rule ID, the roots where some run found it violated (excused
    /// findings left out).
    pub(crate) rules: std::collections::BTreeMap<String, usize>,
    /// Roots the model refused or crashed on under the fault.
    pub(crate) errors: usize,
}

impl FaultRow {
    /// Adds another shard's or worker's counts.
    pub(crate) fn merge(&mut self, other: &FaultRow) {
        self.roots += other.roots;
        self.runs += other.runs;
        self.detected += other.detected;
        for (k, v) in &other.rules {
            *self.rules.entry(k.clone()).or_default() += v;
        }
        self.errors += other.errors;
    }
}

/// Searches one root reduced by sleep sets under every row of `rows` (the
/// fault matrix, no fault first): under no fault as `explore --states
/// --por` does ([`super::search_one_por`], every finding not excused a
/// violation), under each fault counting in `report.fault_rows` the runs,
/// the roots that catch it and the rules they find.
pub(crate) fn sweep_one(
    root: &Scenario,
    family: &str,
    rows: &[(String, crate::scenario::RunOptions)],
    report: &mut super::Report,
    memo: &mut crate::invariants::StreamMemo,
) {
    for (i, (name, options)) in rows.iter().enumerate() {
        if i == 0 {
            super::search_one_por(
                root,
                family,
                super::por::Reduction::SleepSets,
                options.clone(),
                report,
                memo,
            );
            continue;
        }
        let mut found = std::collections::BTreeSet::new();
        let result = super::por::search(
            root,
            options.clone(),
            super::por::Reduction::SleepSets,
            memo,
            &mut |run| {
                found.extend(
                    super::unexcused(root, run.findings)
                        .into_iter()
                        .map(|r| r.id()),
                )
            },
        );
        let row = report.fault_rows.entry(name.clone()).or_default();
        row.roots += 1;
        match result {
            Ok(stats) => {
                row.runs += stats.runs;
                row.detected += usize::from(!found.is_empty());
                for rule in found {
                    *row.rules.entry(rule.to_owned()).or_default() += 1;
                }
            }
            Err(_) => row.errors += 1,
        }
    }
}
