//! The model's invariants over generated scenarios.
//!
//! Case counts follow `PROPTEST_CASES` (the Makefile sets 256 for `make
//! test`; raise it, e.g. `PROPTEST_CASES=20000 cargo test --release --test
//! properties`, for a longer search). Failures shrink to small scenarios and
//! are kept in `tests/proptest-regressions/spec/properties.txt`.

use crate::check::Diagnostic;
use crate::generate::scenario::{scenario, scenario_under};
use crate::invariants::{check_step, check_trace};
use crate::profile::ProfileName;
use crate::scenario::{self, RunOptions};
use proptest::prelude::*;

fn report(d: &[Diagnostic]) -> String {
    d.iter().map(|d| format!("{d}\n")).collect()
}

use crate::invariants::{known_violation, without_known};

proptest! {
    #![proptest_config(ProptestConfig { max_shrink_iters: 4096, ..ProptestConfig::default() })]

    /// Rules: INV-PAIRED, INV-RECORD-ALL, INV-RECORDED-BEFORE-ROUTED,
    /// INV-SECRET-NEVER-PERSISTED, INV-PROVENANCE, INV-HUMAN-ONLY-NEVER-BACKEND,
    /// INV-WIRE-ROUNDTRIP, INV-ID-UNIQUE, INV-CACHE-KEY-UNIQUE and every
    /// CHECK-* rule — every finished run under rfd082 and rfd083 satisfies
    /// the whole catalog, but for RFD 082's separator flaw where the
    /// scenario's IDs hold the separator (`invariants::SEPARATOR_FLAW`,
    /// shown found and shrunk in `src/wire/id/id_separator_tests.rs`).
    #[test]
    fn every_invariant_holds_after_every_run(s in scenario_under(prop_oneof![Just(ProfileName::Rfd082), Just(ProfileName::Rfd083)])) {
        let trace = scenario::run(&s).expect("generated scenarios are valid");
        let found = without_known(&s, &trace.rules, check_trace(&trace, &s));
        prop_assert!(found.is_empty(), "{}", report(&found));
    }

    /// Rules: INV-CACHE-HYGIENE, INV-SECRET-NEVER-PERSISTED (coordinator
    /// state), INV-RECORDED-BEFORE-ROUTED, INV-HUMAN-ONLY-NEVER-BACKEND — the
    /// state-machine view: the invariants hold after every single step, not
    /// only at the end.
    #[test]
    fn every_invariant_holds_after_every_step(s in scenario()) {
        let mut found: Vec<Diagnostic> = Vec::new();
        let mut steps = 0usize;
        scenario::run_observed(&s, RunOptions::default(), &mut |c, t| {
            steps += 1;
            found.extend(check_step(c, t).into_iter().filter(|d| {
                !known_violation(&s, &t.rules, d.rule)
            }));
        })
        .expect("generated scenarios are valid");
        prop_assert!(steps > 0);
        prop_assert!(found.is_empty(), "{}", report(&found));
    }

    /// Rule: INV-DETERMINISTIC — the same scenario gives the same trace, byte
    /// for byte.
    #[test]
    fn the_same_scenario_gives_the_same_trace(s in scenario()) {
        let a = serde_json::to_string(&scenario::run(&s).unwrap()).unwrap();
        let b = serde_json::to_string(&scenario::run(&s).unwrap()).unwrap();
        prop_assert_eq!(a, b);
    }

    /// Rule: INV-LEGACY-KNOWN-GAPS — under the legacy profile the only
    /// invariants that break are the ones RFD 082 names as its motivation
    /// (and, where the scenario's IDs hold the separator, the flaw every
    /// built-in profile shares).
    #[test]
    fn legacy_breaks_only_what_rfd082_fixes(s in scenario_under(Just(ProfileName::Legacy))) {
        let trace = scenario::run(&s).unwrap();
        let found = without_known(&s, &trace.rules, check_trace(&trace, &s));
        prop_assert!(found.is_empty(), "{}", report(&found));
    }

    /// Rule: INV-SCENARIO-SERDE — a scenario survives JSON, so every
    /// counterexample can be saved and replayed with `inquiry-model run`.
    #[test]
    fn scenarios_round_trip_through_json(s in scenario()) {
        let text = serde_json::to_string(&s).unwrap();
        let back: scenario::Scenario = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(back, s);
    }
}
