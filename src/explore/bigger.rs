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
//!   by `<tool_name>.<question_id>`). Each tool's question is one of the 8
//!   representative kinds (the dotted pair asks one kind for both, so the
//!   shared key holds one question's answers) × 2 prompter replies × 2
//!   backend replies × TTY on/off × 3 profiles: 2 × 8^3 ... see
//!   [`QUADS_DIMS`] (the dotted pair's shared kind makes its half 8^2).
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

use indexmap::IndexMap;
use serde_json::json;

use super::{
    PROFILES, REPRESENTATIVE, call, representative, representative_replies, scripted_tool, turn,
};
use crate::generate::choice::Choices;
use crate::model::routing::TokenCause;
use crate::scenario::{BackendReply, Scenario, ScriptedAsk};

/// The quads family's choices, in the order its generator takes them: the
/// tool names (plain or dotted), the kind of `t1`/`a`'s question, of
/// `t2`/`a.b`'s (plain names only: the dotted pair asks `a`'s kind), of
/// `t3`'s, prompter, backend, TTY, profile. The second digit is read for
/// both shapes (a bijection needs every digit read), and ignored by the
/// dotted shape: [`quads_canonical`] says which indices the family holds.
pub(crate) const QUADS_DIMS: [usize; 8] = [2, 8, 8, 8, 2, 2, 2, 3];

/// The turns2 family's choices, in the order its generator takes them: the
/// kind of `t1`'s assistant-targeted question ([`ASSISTANT_KINDS`]), of
/// `t2`'s ([`REPRESENTATIVE`]), the token's cause ([`CAUSES`]), whether
/// it is the backend's first or second reply, the other backend replies
/// (answer or provider error), prompter, TTY, profile.
pub(crate) const TURNS2_DIMS: [usize; 8] = [4, 8, 4, 2, 2, 2, 2, 3];

/// Whether the quads index `n` is one the family holds: the dotted shape
/// reads its second question kind from its first, so of its indices only
/// those whose second digit is 0 are kept (the others would repeat them).
pub(crate) fn quads_canonical(n: usize) -> bool {
    let dotted = n % QUADS_DIMS[0] == 1;
    let second = (n / QUADS_DIMS[0]) % QUADS_DIMS[1] % QUADS_DIMS[2];
    !dotted || second == 0
}

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

fn ask(kind: (usize, usize), id: &str, slot: &str) -> (ScriptedAsk, IndexMap<String, crate::model::tool::QuestionConfig>) {
    let (q, c) = representative(id, kind, slot);
    (
        ScriptedAsk {
            question: q,
            reject_first: 0,
        },
        IndexMap::from([(id.to_owned(), c)]),
    )
}

/// The quads family's generator.
pub(crate) fn quads(ch: &mut impl Choices) -> Scenario {
    let dotted = ch.flip();
    let kinds: Vec<usize> = (0..3).map(|_| ch.choose(REPRESENTATIVE.len())).collect();
    let (prompter_kind, backend_kind) = (ch.choose(2), ch.choose(2));
    let tty = ch.flip();
    let profile = ch.pick(&PROFILES);
    let (names, ids) = if dotted {
        (["a", "a.b", "t3"], ["b.c", "c", "q"])
    } else {
        (["t1", "t2", "t3"], ["q", "q", "q"])
    };
    let mut tools = IndexMap::new();
    for t in 0..3 {
        let (a, questions) = ask(REPRESENTATIVE[kinds[t]], ids[t], names[t]);
        tools.insert(names[t].to_owned(), scripted_tool(t, vec![a], questions));
    }
    let (prompter, backend) = representative_replies(prompter_kind, backend_kind, 12, "qp");
    Scenario {
        profile,
        tty,
        tools,
        turns: vec![turn(vec![vec![
            call("c1", names[0]),
            call("c2", names[1]),
            call("c3", names[2]),
            call("c4", names[0]),
        ]])],
        prompter,
        backend,
        permissions: vec![],
        deliveries: Vec::new(),
        schedule: Vec::new(),
        backend_by_id: IndexMap::new(),
        inquiry_model: None,
        toggles: Vec::new(),
        amendment: None,
    }
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
    let mut tools = IndexMap::new();
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
    Scenario {
        profile,
        tty,
        tools,
        turns: vec![turn(cycle()), turn(cycle())],
        prompter,
        backend,
        permissions: vec![],
        deliveries: Vec::new(),
        schedule: Vec::new(),
        backend_by_id: IndexMap::new(),
        inquiry_model: None,
        toggles: Vec::new(),
        amendment: None,
    }
}
