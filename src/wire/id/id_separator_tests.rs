//! RFD 082's joined IDs are not unique by construction: the model finds it.
//!
//! RFD 082 "Inquiry ID format" builds `<tool_call_id>.<question_id>.<attempt>`
//! and says "IDs are unique by construction within the turn"; "Splitting the
//! turn-cache state" keys remembered answers `<tool_name>.<question_id>`.
//! Both join their parts with `.`, which the parts may hold. The invariants
//! `INV-ID-UNIQUE` and `INV-CACHE-KEY-UNIQUE` judge what the writer knew
//! (call, question, attempt; tool, question) against the joined key; the
//! scenario generator draws dotted call IDs, question IDs and a dotted tool
//! name; the search finds and shrinks the collision on its own; the
//! amendment `spec/profiles/examples/question-id-without-separator.json`
//! removes it and changes nothing else.

use crate::check::Diagnostic;
use crate::generate::scenario::{sample, scenario_under, size};
use crate::invariants::{
    SEPARATOR_FLAW, cache_keys_unique, check_trace, holds_separator, ids_unique,
};
use crate::profile::ProfileName::{self, Rfd082, Rfd083};
use crate::review::amend::{self, diff_profiles, regressions, run_under};
use crate::review::profile_file::{self, RuleSet};
use crate::rule::Rule;
use crate::scenario::{self, Scenario};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestError, TestRng, TestRunner};
use serde_json::json;

const AMENDMENT: &str = "spec/profiles/examples/question-id-without-separator.json";

fn amendment() -> RuleSet {
    let path = format!("{}/{AMENDMENT}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("the amendment file exists");
    profile_file::parse(AMENDMENT, &text).expect("the amendment file reads")
}

/// A scripted tool asking one boolean question `id`, remembered for the turn.
fn asker(id: &str) -> serde_json::Value {
    json!({"source": {"kind": "local"}, "run": "unattended", "program": {"kind": "script",
        "asks": [{"question": {"id": id, "text": "Go?", "answer_type": {"type": "boolean"}}}],
        "finish": {"with": "succeed"}}})
}

fn yes(remember: bool) -> serde_json::Value {
    json!({"reply": "answer", "value": true, "remember": remember})
}

/// Two calls open at once in one cycle: call `a` of tool `t1` asking `q1`,
/// call `a.b` of tool `t2` asking `q2`.
fn two_open_calls(q1: &str, q2: &str) -> Scenario {
    serde_json::from_value(json!({
        "profile": "rfd083",
        "tools": {"t1": asker(q1), "t2": asker(q2)},
        "turns": [{"user": "go", "cycles": [[
            {"id": "a", "tool": "t1"}, {"id": "a.b", "tool": "t2"}
        ]]}],
        "prompter": [yes(false), yes(false)],
    }))
    .expect("a scenario")
}

/// Tool `a` asks `q1` (answered and remembered for the turn), then, in the
/// next cycle, tool `second` asks `q2`.
fn remembered_then_asked(second: &str, q1: &str, q2: &str) -> Scenario {
    serde_json::from_value(json!({
        "profile": "rfd083",
        "tools": {"a": asker(q1), second: asker(q2)},
        "turns": [{"user": "go", "cycles": [
            [{"id": "call_1", "tool": "a"}],
            [{"id": "call_2", "tool": second}]
        ]}],
        "prompter": [yes(true), yes(false)],
    }))
    .expect("a scenario")
}

fn rules_of(d: &[Diagnostic]) -> Vec<&'static str> {
    d.iter().map(|d| d.rule.id()).collect()
}

/// Rule: INV-ID-UNIQUE — hand-written: call `a` asking `b.1` and call
/// `a.b` asking `1`, both open, record `a.b.1.1` twice; the invariant names
/// both triples, and the oracle's CHECK-TURN-UNIQUE-ID agrees. The same
/// calls asking `b` and `1` (`a.b.1`, `a.b.1.1`) are clean.
#[test]
fn two_open_calls_recording_one_inquiry_id_are_reported() {
    let t = scenario::run(&two_open_calls("b.1", "1")).unwrap();
    let ids: Vec<String> = t
        .stream
        .iter()
        .filter_map(|e| e.as_inquiry_request().map(|r| r.id.to_string()))
        .collect();
    assert_eq!(ids, ["a.b.1.1", "a.b.1.1"], "RFD 082's format, joined");
    let found = ids_unique(&t);
    assert_eq!(rules_of(&found), ["INV-ID-UNIQUE"]);
    assert!(
        found[0]
            .message
            .contains("call `a.b` question `1` attempt 1")
            && found[0]
                .message
                .contains("call `a` question `b.1` attempt 1"),
        "{}",
        found[0].message
    );
    let all = rules_of(&check_trace(&t, &two_open_calls("b.1", "1")));
    assert!(all.contains(&"CHECK-TURN-UNIQUE-ID"), "{all:?}");

    let clean = two_open_calls("b", "1");
    let t = scenario::run(&clean).unwrap();
    assert_eq!(check_trace(&t, &clean), vec![]);
}

/// Rule: INV-ID-UNIQUE — hand-written: the calls `a` (asking `b.1`) and
/// `a.b` (asking `1`) open beside `others` calls of a third tool, each
/// asking its own question: `a.b.1.1` is reported once however many
/// requests are recorded beside it (fewer than nine, which are searched
/// pair by pair first, or more).
#[test]
fn one_inquiry_id_recorded_twice_among_many_is_reported() {
    for others in [0, 6, 7, 12] {
        let mut calls = vec![
            json!({"id": "a", "tool": "t1"}),
            json!({"id": "a.b", "tool": "t2"}),
        ];
        calls.extend((0..others).map(|k| json!({"id": format!("c{k}"), "tool": "t3"})));
        let s: Scenario = serde_json::from_value(json!({
            "profile": "rfd083",
            "tools": {"t1": asker("b.1"), "t2": asker("1"), "t3": asker("q")},
            "turns": [{"user": "go", "cycles": [calls]}],
            "prompter": vec![yes(false); others + 2],
        }))
        .expect("a scenario");
        let t = scenario::run(&s).unwrap();
        let recorded = t
            .stream
            .iter()
            .filter(|e| e.as_inquiry_request().is_some())
            .count();
        assert_eq!(recorded, others + 2);
        let found = ids_unique(&t);
        assert_eq!(rules_of(&found), ["INV-ID-UNIQUE"], "{others} others");
        assert_eq!(found[0].ids, ["a.b.1.1"]);
    }
}

/// Rule: INV-CACHE-KEY-UNIQUE — hand-written: tool `a`'s remembered answer
/// to `b.c` is served to tool `a.b`'s question `c` (both keyed `a.b.c`),
/// and no prompt is shown for it; under another tool name the second
/// question reaches the prompter and nothing is reported.
#[test]
fn a_remembered_answer_served_to_another_tools_question_is_reported() {
    let s = remembered_then_asked("a.b", "b.c", "c");
    let t = scenario::run(&s).unwrap();
    assert_eq!(
        t.prompts.len(),
        1,
        "the second question came from the cache"
    );
    let found = cache_keys_unique(&t);
    assert_eq!(rules_of(&found), ["INV-CACHE-KEY-UNIQUE"]);
    assert_eq!(found[0].ids, ["a.b.c"]);
    assert!(
        found[0].message.contains("tool `a.b` question `c`")
            && found[0].message.contains("tool `a` question `b.c`"),
        "{}",
        found[0].message
    );

    let s = remembered_then_asked("ab", "b.c", "c");
    let t = scenario::run(&s).unwrap();
    assert_eq!(t.prompts.len(), 2);
    assert_eq!(check_trace(&t, &s), vec![]);
}

/// The search: the property "INV-`rule` holds" over generated rfd083
/// scenarios, with a fixed RNG; returns the shrunk counterexample.
fn search(rule: Rule, cases: u32) -> Scenario {
    let mut runner = TestRunner::new_with_rng(
        Config {
            cases,
            max_shrink_iters: 8192,
            failure_persistence: None,
            ..Config::default()
        },
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    let broken = |s: &Scenario| {
        let t = scenario::run(s).expect("generated scenarios are valid");
        check_trace(&t, s).into_iter().any(|d| d.rule == rule)
    };
    let seen = std::cell::Cell::new((0, 0));
    let result = runner.run(&scenario_under(Just(Rfd083)), |s| {
        let (n, h) = seen.get();
        seen.set((n + 1, h + usize::from(holds_separator(&s))));
        if broken(&s) {
            Err(TestCaseError::fail(rule.id()))
        } else {
            Ok(())
        }
    });
    println!("cases, holding the separator: {:?}", seen.get());
    match result {
        Err(TestError::Fail(_, minimal)) => {
            assert!(broken(&minimal));
            minimal
        }
        other => panic!("{} was not found: {other:?}", rule.id()),
    }
}

fn call_ids(s: &Scenario) -> Vec<&str> {
    s.turns
        .iter()
        .flat_map(|t| &t.cycles)
        .flatten()
        .map(|c| c.id.as_str())
        .collect()
}

/// Rule: INV-ID-UNIQUE — proptest finds RFD 082's inquiry-ID collision by
/// itself (deterministic RNG) and shrinks it to a small scenario whose call
/// IDs include one holding `.`, and whose run persists one ID for two
/// triples.
#[test]
fn the_search_finds_and_shrinks_the_inquiry_id_collision() {
    let s = search(Rule::InvIdUnique, 50_000);
    assert!(
        call_ids(&s).iter().any(|id| id.contains('.')),
        "{:?}",
        call_ids(&s)
    );
    assert!(size(&s) <= 8, "size {}: {s:?}", size(&s));
    let t = scenario::run(&s).unwrap();
    let found = ids_unique(&t);
    assert!(!found.is_empty());
    println!(
        "shrunk ({}): {}\n{}",
        size(&s),
        serde_json::to_string(&s).unwrap(),
        found[0]
    );
}

/// Rule: INV-CACHE-KEY-UNIQUE — proptest finds the turn-cache key collision
/// by itself (deterministic RNG) and shrinks it: the shrunk scenario
/// configures the dotted tool name `alpha.x`, and the cache answered it
/// with `alpha`'s remembered answer.
#[test]
fn the_search_finds_and_shrinks_the_cache_key_collision() {
    let s = search(Rule::InvCacheKeyUnique, 200_000);
    assert!(s.tools.contains_key("alpha.x"), "{:?}", s.tools.keys());
    assert!(size(&s) <= 8, "size {}: {s:?}", size(&s));
    let t = scenario::run(&s).unwrap();
    let found = cache_keys_unique(&t);
    assert!(
        found[0].message.contains("tool `alpha.x`"),
        "{}",
        found[0].message
    );
    println!(
        "shrunk ({}): {}\n{}",
        size(&s),
        serde_json::to_string(&s).unwrap(),
        found[0]
    );
}

/// Rules: INV-ID-UNIQUE, INV-CACHE-KEY-UNIQUE — the flaw is the separator's:
/// over 3000 sampled scenarios under both RFD profiles, the
/// separator-flaw rules fire only on scenarios whose IDs hold it, and do
/// fire on some (the generator reaches it).
#[test]
fn the_flaw_rules_fire_only_where_an_id_holds_the_separator() {
    let mut fired = 0;
    for s in sample(3000, 35) {
        for p in [Rfd082, Rfd083] {
            let s = Scenario {
                profile: p,
                ..s.clone()
            };
            let t = scenario::run(&s).unwrap();
            let flaw = check_trace(&t, &s)
                .into_iter()
                .any(|d| SEPARATOR_FLAW.contains(&d.rule));
            if flaw {
                assert!(holds_separator(&s), "{s:?}");
                fired += 1;
            }
        }
    }
    assert!(fired > 0, "the sample never reaches the collision");
}

/// Rules: INV-ID-UNIQUE, INV-CACHE-KEY-UNIQUE — under the amendment the
/// hand-written collisions are gone: the dotted question is refused at the
/// executor boundary (its call ends in a tool error, nothing recorded) and
/// the other question is asked as before.
#[test]
fn the_amendment_refuses_the_dotted_question_and_keeps_the_rest() {
    let a = amendment();
    let s = two_open_calls("b.1", "1");
    let t = run_under(&s, &a).unwrap();
    assert_eq!(check_trace(&t, &s), vec![]);
    let ids: Vec<String> = t
        .stream
        .iter()
        .filter_map(|e| e.as_inquiry_request().map(|r| r.id.to_string()))
        .collect();
    assert_eq!(ids, ["a.b.1.1"]);
    let refused: Vec<&str> = t
        .tool_responses
        .iter()
        .filter(|r| r.is_error)
        .map(|r| r.tool_call_id.as_str())
        .collect();
    assert_eq!(refused, ["a"]);

    let s = remembered_then_asked("a.b", "b.c", "c");
    let t = run_under(&s, &a).unwrap();
    assert_eq!(check_trace(&t, &s), vec![]);
    assert_eq!(t.prompts.len(), 1, "only `c` is asked, at the prompter");
}

/// The amendment tools' small-scope stride and a larger sample than the
/// committed matrix's, so that the collision shows several times.
fn corpus() -> Vec<Scenario> {
    amend::scenarios(61, 2000, 1)
}

/// Rule: AMEND-GATE — `diff-profiles` from rfd083 to the amendment: every
/// scenario that runs differently holds the separator in an ID (the
/// amendment changes nothing else), the amendment breaks no invariant
/// rfd083 keeps, and the separator-flaw rules that rfd083 breaks on this
/// corpus all hold under the amendment.
#[test]
fn diff_profiles_shows_the_amendment_removes_only_the_collision() {
    let scenarios = corpus();
    let a = amendment();
    let from = RuleSet::from(Rfd083);
    let report = diff_profiles(from.clone(), a.clone(), &scenarios);
    assert!(report.differing > 0);
    for c in &report.classes {
        assert!(
            holds_separator(&c.smallest),
            "{}: {:?}",
            c.class,
            c.smallest
        );
    }
    let mut differing = 0;
    for s in &scenarios {
        let (Ok(x), Ok(y)) = (run_under(s, &from), run_under(s, &a)) else {
            continue;
        };
        if !amend::classify(&x, &y).is_empty() {
            differing += 1;
            assert!(holds_separator(s), "{s:?}");
        }
    }
    assert_eq!(differing, report.differing);
    assert_eq!(regressions(&from, &a, &scenarios), vec![]);
    let broken = |set: RuleSet| -> Vec<String> {
        amend::invariants(set, &scenarios)
            .into_iter()
            .filter(|v| v.violating > 0)
            .map(|v| v.rule)
            .collect()
    };
    let under_083 = broken(from);
    for r in [
        "INV-ID-UNIQUE",
        "INV-CACHE-KEY-UNIQUE",
        "CHECK-TURN-UNIQUE-ID",
    ] {
        assert!(
            under_083.iter().any(|b| b == r),
            "rfd083 keeps {r}: {under_083:?}"
        );
    }
    assert_eq!(broken(a), Vec::<String>::new());
}

/// Rule: INV-ID-UNIQUE — the same under rfd082: the flaw is RFD 082's own.
#[test]
fn rfd082_records_the_colliding_ids_too() {
    let s = Scenario {
        profile: ProfileName::Rfd082,
        ..two_open_calls("b.1", "1")
    };
    let t = scenario::run(&s).unwrap();
    assert_eq!(rules_of(&ids_unique(&t)), ["INV-ID-UNIQUE"]);
}

/// Decision "IDs: an empty question ID runs" (RFD 082 does not forbid
/// it): a scripted ask and a local program holding a `needs_input` line with
/// an empty question ID run under rfd082 and rfd083; the request is recorded
/// `call_1..1` (RFD 082 "Inquiry ID format", the parts joined as written),
/// the oracle reads it back without a CHECK-ID-FORMAT finding under auto
/// and the run's profile, and no invariant breaks (one call: nothing
/// collides).
#[test]
fn an_empty_question_id_runs_and_checks_clean() {
    let scripted = |profile: &str| -> Scenario {
        serde_json::from_value(json!({
            "profile": profile,
            "tools": {"t": asker("")},
            "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "t"}]]}],
            "prompter": [yes(false)],
        }))
        .unwrap()
    };
    let local = |profile: &str| -> Scenario {
        serde_json::from_value(json!({
            "profile": profile,
            "tools": {"g": {"source": {"kind": "local"}, "run": "unattended", "program": {"kind": "local", "stdout": [
                "gamma raw output\n",
                json!({"type": "needs_input", "question": {"id": "", "text": "Go?", "answer_type": {"type": "boolean"}}}).to_string()
            ]}}},
            "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "g"}]]}],
            "prompter": [yes(false)],
        }))
        .unwrap()
    };
    for profile in [Rfd082, Rfd083] {
        let name = profile.to_string();
        // The local program's first line is its output: it runs, asking
        // nothing (what the refusal used to stop at scenario input).
        assert!(scenario::run(&local(&name)).is_ok(), "{name}");
        let s = scripted(&name);
        let t = scenario::run(&s).expect("an empty question ID runs");
        let ids: Vec<String> = t
            .stream
            .iter()
            .filter_map(|e| e.as_inquiry_request().map(|r| r.id.to_string()))
            .collect();
        assert_eq!(ids, ["call_1..1"], "{name}");
        assert_eq!(check_trace(&t, &s), vec![], "{name}");
        let bytes = crate::wire::Stream::new(t.stream.clone()).to_array_string();
        for mode in [
            crate::check::ProfileMode::Auto,
            crate::check::ProfileMode::Fixed(profile),
        ] {
            let c = crate::check::check_bytes(bytes.as_bytes(), "s.json", mode);
            assert!(c.error.is_none(), "{name}");
            assert_eq!(c.diagnostics, vec![], "{name} {mode}");
        }
    }
}
