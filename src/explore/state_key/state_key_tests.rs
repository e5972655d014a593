//! The coordinator's state key against the state it stands for: states
//! that differ only in the coordinator get different keys, and a key
//! stands for one coordinator state.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hasher};

use serde_json::Value;

use super::coordinator_key;
use crate::explore::{Family, root_at};
use crate::model::coordinator::Coordinator;
use crate::scenario::{RunOptions, Scenario, run_observed};

/// The key of `c` alone.
fn key(c: &Coordinator) -> u64 {
    let mut h = DefaultHasher::new();
    coordinator_key(c, &mut h);
    h.finish()
}

/// One `run = "ask"` tool `fs` asking one boolean `ok` in each of two
/// cycles of one turn, answered and remembered, its permission allowed
/// and remembered.
fn remembered_twice() -> Scenario {
    serde_json::from_value(serde_json::json!({
        "profile": "rfd083",
        "tty": true,
        "tools": {"fs": {
            "source": {"kind": "local"},
            "program": {"kind": "script",
                "asks": [{"question": {"id": "ok", "text": "Q?",
                    "answer_type": {"type": "boolean"}}}]},
            "run": "ask"}},
        "turns": [{"user": "go", "cycles": [
            [{"id": "call_1", "tool": "fs"}],
            [{"id": "call_2", "tool": "fs"}]]}],
        "prompter": [
            {"reply": "answer", "value": true, "remember": true},
            {"reply": "answer", "value": false, "remember": true}],
        "permissions": [{"reply": "allow", "remember": true}]
    }))
    .expect("the scenario reads")
}

/// Rule: INV-EXPLORE-COMPLETE — the state search's key holds the
/// coordinator's moving part (docs/decisions/exploration.md "Exploration:
/// deduplicated states hold their history"): a coordinator state of a run
/// and copies of it that differ in one thing only (one more turn-cache
/// entry in either map, an attempt counter one further, a remembered
/// answer changed) get pairwise different keys, and an unchanged copy
/// gets the same key.
#[test]
fn states_that_differ_only_in_the_coordinator_get_different_keys() {
    let mut met = None;
    run_observed(&remembered_twice(), RunOptions::default(), &mut |c, _| {
        if let Some(turn) = c.turn_state()
            && !turn.attempts.is_empty()
            && !turn.cache.tool_answers().is_empty()
        {
            met = Some(c.clone());
        }
    })
    .expect("the scenario runs");
    let base = met.expect("a step with an attempt and a remembered answer");
    type Edit = fn(&mut Coordinator);
    let edits: [(&str, Edit); 4] = [
        ("a tool answer remembered", |c| {
            let turn = c.turn_state_mut().expect("a turn");
            turn.cache
                .tool_answers_mut()
                .insert("fs.other".to_owned(), Value::Bool(true));
        }),
        ("a permission decision remembered", |c| {
            let turn = c.turn_state_mut().expect("a turn");
            turn.cache
                .permission_decisions_mut()
                .insert("other.__permission__".to_owned(), Value::Bool(true));
        }),
        ("an attempt counter further", |c| {
            let turn = c.turn_state_mut().expect("a turn");
            if let Some(n) = turn.attempts.values_mut().next() {
                *n += 1;
            }
        }),
        ("a remembered answer changed", |c| {
            let turn = c.turn_state_mut().expect("a turn");
            if let Some(v) = turn.cache.tool_answers_mut().values_mut().next() {
                *v = Value::Bool(v != &Value::Bool(true));
            }
        }),
    ];
    let mut keys = HashMap::new();
    keys.insert(key(&base), "unchanged");
    assert_eq!(key(&base.clone()), key(&base), "a copy keys the same");
    for (what, edit) in edits {
        let mut c = base.clone();
        edit(&mut c);
        assert_ne!(format!("{c:?}"), format!("{base:?}"), "{what}: no change");
        if let Some(other) = keys.insert(key(&c), what) {
            panic!("{what} and {other} share a key");
        }
    }
}

/// Rule: INV-EXPLORE-COMPLETE — a key stands for one coordinator state: over
/// every step of every interleaving of pairs roots (two parallel calls,
/// schedules of three picks below two), states with one key are one state
/// (their `Debug`, which shows every field but a secret answer's value,
/// is the same). States of one root only are compared: the key leaves out
/// the fixed part, the root's tools and rules.
#[test]
fn one_key_stands_for_one_coordinator_state() {
    let mut distinct = 0;
    for n in [0, 12_345, 33_596, 99_999] {
        let root = root_at(
            Family::Pairs,
            n % crate::explore::family_size(Family::Pairs),
        );
        let mut seen: HashMap<u64, String> = HashMap::new();
        for picks in 0..8u32 {
            let s = Scenario {
                schedule: (0..3).map(|i| (picks >> i) & 1).collect(),
                ..root.clone()
            };
            let _ = run_observed(&s, RunOptions::default(), &mut |c, _| {
                let shown = format!("{c:?}");
                let k = key(c);
                match seen.get(&k) {
                    Some(before) => assert_eq!(before, &shown, "root {n}: one key, two states"),
                    None => {
                        seen.insert(k, shown);
                    }
                }
            });
        }
        distinct += seen.len();
    }
    assert!(distinct > 20, "only {distinct} states met");
}
