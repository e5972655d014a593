//! The incremental checker's state key and the stream memo's bound.

use std::hash::{DefaultHasher, Hasher};

use super::*;
use crate::explore::{Family, scenario_at};
use crate::scenario::{RunOptions, run_observed};

/// The key of `checker` alone.
fn key(checker: &StepChecker) -> u64 {
    let mut h = DefaultHasher::new();
    checker.state_key(&mut h);
    h.finish()
}

/// Rule: INV-EXPLORE-COMPLETE — the state search hashes the incremental
/// checker's state (docs/decisions/exploration.md "Exploration:
/// deduplicated states hold their history"): the checker after every step
/// of a run, and copies of one that differ in one field each (the
/// invocations read, a secret learnt, an event's text, how far the texts
/// and the fixed coordinator state were scanned), get pairwise different
/// keys where they differ, and a copy gets the same key.
#[test]
fn checkers_that_differ_get_different_keys() {
    let s = scenario_at(Family::Pairs, 12_345);
    let mut checker = StepChecker::new();
    let mut keys = vec![key(&checker)];
    run_observed(&s, RunOptions::default(), &mut |c, t| {
        checker.step(c, t);
        keys.push(key(&checker));
    })
    .expect("the scenario runs");
    // A step that reads new invocations moves the key.
    keys.dedup();
    assert!(keys.len() > 2, "{keys:?}");
    assert_eq!(key(&checker.clone()), key(&checker));
    type Edit = fn(&mut StepChecker);
    let edits: [(&str, Edit); 5] = [
        ("invocations read", |c| c.invocations_seen += 1),
        ("a secret learnt", |c| c.secrets.push("a-secret".to_owned())),
        ("an event's text", |c| c.texts.push("{}".to_owned())),
        ("texts scanned", |c| c.texts_scanned_for += 1),
        ("fixed part scanned", |c| c.fixed_scanned_for += 1),
    ];
    let mut seen = std::collections::HashMap::new();
    seen.insert(key(&checker), "unchanged");
    for (what, edit) in edits {
        let mut c = checker.clone();
        edit(&mut c);
        if let Some(other) = seen.insert(key(&c), what) {
            panic!("{what} and {other} share a key");
        }
    }
}

/// Rule: INV-SECRET-NEVER-PERSISTED (the memo of its stream invariants) —
/// a memo made with a capacity keeps at most that many streams and then
/// forgets them all, as `StreamMemo::with_capacity` says; a capacity of 0
/// is 1. The default memo keeps all three streams here.
#[test]
fn a_memo_keeps_at_most_its_capacity() {
    let a = scenario_at(Family::Single, 0);
    let ta = run_observed(&a, RunOptions::default(), &mut |_, _| {}).expect("runs");
    let with_mark = |k: usize| {
        let mut t = ta.clone();
        t.stream
            .push(crate::wire::Event::new(EventKind::Other(format!(
                "mark_{k}"
            ))));
        t
    };
    let lens = |mut memo: StreamMemo| -> Vec<usize> {
        (0..3)
            .map(|k| {
                memo.stream_invariants(&with_mark(k));
                memo.len
            })
            .collect()
    };
    assert_eq!(lens(StreamMemo::with_capacity(2)), [1, 2, 1]);
    assert_eq!(lens(StreamMemo::with_capacity(0)), [1, 1, 1]);
    assert_eq!(lens(StreamMemo::new()), [1, 2, 3]);
}
