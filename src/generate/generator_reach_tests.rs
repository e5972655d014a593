//! The proptest scenario generator reaches every feature the scenario
//! language declares (CONF-FEATURES-REACHED).

use std::collections::{BTreeMap, BTreeSet};

use crate::fuzzing::seeds;
use crate::generate;
use crate::scenario::{self, Scenario, features::Feature};
use arbitrary::Unstructured;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// The features of `Feature::ALL` no scenario of `scenarios` reaches.
fn never_reached(scenarios: impl IntoIterator<Item = Scenario>) -> Vec<Feature> {
    let mut seen: BTreeSet<Feature> = BTreeSet::new();
    for s in scenarios {
        let trace = scenario::run(&s).expect("generated scenarios are valid");
        seen.extend(scenario::features::reached(&s, &trace));
    }
    Feature::ALL
        .into_iter()
        .filter(|f| !seen.contains(f))
        .collect()
}

/// Rule: CONF-FEATURES-REACHED — the one scenario generator reaches every
/// declared feature under its other drivers too: fuzz bytes (2 000 inputs
/// of pseudo-random bytes, as the `scenario` fuzz target decodes them) and
/// proptest (2 000 cases, fixed seed).
#[test]
fn every_driver_reaches_every_declared_feature() {
    let fuzzed = (0..2_000u64).map(|seed| {
        let bytes = seeds::lcg_bytes(seed, 512);
        generate::scenario::from_bytes(&mut Unstructured::new(&bytes))
    });
    let missing = never_reached(fuzzed);
    assert!(missing.is_empty(), "fuzz bytes never reached: {missing:?}");
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    let strategy = generate::scenario::scenario();
    let drawn = (0..2_000).map(|_| strategy.new_tree(&mut runner).expect("a value").current());
    let missing = never_reached(drawn.collect::<Vec<_>>());
    assert!(missing.is_empty(), "proptest never reached: {missing:?}");
}

/// Rule: CONF-FEATURES-REACHED — in 2 000 scenarios drawn from
/// `generate::scenario::sample` (the seeded driver, fixed seed), every entry of `Feature::ALL` is
/// reached by at least one run: question defaults, raw backend replies
/// (RFD 028 answer extraction), malformed `ask_user` arguments, every
/// prompter failure and token cause, the local-tool protocol, an aliased
/// built-in, and the rest. A generator that stops producing any of them
/// fails here, naming it.
#[test]
fn the_scenario_generator_reaches_every_declared_feature() {
    let mut counts: BTreeMap<Feature, usize> = BTreeMap::new();
    for s in crate::generate::scenario::sample(2_000, 17) {
        let trace = scenario::run(&s).expect("generated scenarios are valid");
        for f in scenario::features::reached(&s, &trace) {
            *counts.entry(f).or_default() += 1;
        }
    }
    let missing: Vec<Feature> = Feature::ALL
        .into_iter()
        .filter(|f| !counts.contains_key(f))
        .collect();
    assert!(
        missing.is_empty(),
        "never reached: {missing:?}\ncounts: {counts:?}"
    );
}

/// Rule: CONF-FEATURES-REACHED — the reach measure itself can fail: a
/// scenario with only one boolean prompt reaches none of the generator's
/// harder features, and the features it does reach are the ones it says.
#[test]
fn a_plain_scenario_reaches_only_its_own_features() {
    let s: scenario::Scenario = serde_json::from_value(serde_json::json!({
        "tools": {"fs": {"source": {"kind": "local"}, "run": "unattended", "program": {"kind": "script", "asks": [
            {"question": {"id": "q", "text": "Q?", "answer_type": {"type": "boolean"}}}]}}},
        "turns": [{"cycles": [[{"id": "c1", "tool": "fs"}]]}],
        "prompter": [{"reply": "answer", "value": true}]
    }))
    .unwrap();
    let reached = scenario::features::reached(&s, &scenario::run(&s).unwrap());
    let expected: BTreeSet<Feature> = [
        Feature::ProfileRfd083,
        Feature::ToolLocal,
        Feature::QuestionBoolean,
        Feature::PrompterAnswer,
    ]
    .into_iter()
    .collect();
    assert_eq!(reached, expected);
}

/// Rule: CONF-FEATURES-REACHED — an aliased `ask_user` reaches the alias
/// feature only: its program never ran, so neither `ask_user` nor its
/// argument validation counts as reached, even with malformed arguments.
#[test]
fn an_alias_reaches_no_program_feature() {
    let s: scenario::Scenario = serde_json::from_value(serde_json::json!({
        "tools": {"ask": {"run": "unattended", "program": {"kind": "ask_user"}}},
        "turns": [{"cycles": [[{"id": "c1", "tool": "ask", "arguments": "not an object"}]]}]
    }))
    .unwrap();
    let reached = scenario::features::reached(&s, &scenario::run(&s).unwrap());
    let expected: BTreeSet<Feature> = [Feature::ProfileRfd083, Feature::AliasedBuiltin]
        .into_iter()
        .collect();
    assert_eq!(reached, expected);
}
