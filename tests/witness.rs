//! Conformance of implementations the harness cannot steer or see inside
//! (rules `CONF-CAPABILITIES`, `CONF-WITNESS`): a free-scheduler
//! implementation (the model ordering its own parallel work, prompts
//! reported without call IDs) passes every committed vector and generated
//! scenarios of every profile through the witness search; one with an
//! interleaving-only bug fails under every schedule; every fault of the
//! wrong-implementation suite still fails when run free; entry kinds an
//! adapter does not observe are not compared.

use std::collections::BTreeSet;

use inquiry_model::conformance::witness::{
    self, EntryKind, FreeModel, InterleavingBug, Outcome, Search,
};
use inquiry_model::conformance::{
    Capabilities, Implementation, ImplementationError, Model, Observed, SchedulerCapability,
    Vector, Verdict, check_generated, check_vectors,
};
use inquiry_model::coordinator::Faults;
use inquiry_model::profile::ProfileName;
use inquiry_model::scenario::Scenario;
use serde_json::json;

/// The committed vectors, read from `spec/vectors/` (not recomputed).
fn committed() -> Vec<Vector> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/spec/vectors");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json") && n != "index.json")
        .collect();
    names.sort();
    names
        .iter()
        .map(|n| {
            let text = std::fs::read_to_string(format!("{dir}/{n}")).unwrap();
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{n}: {e}"))
        })
        .collect()
}

fn all_kinds() -> BTreeSet<EntryKind> {
    EntryKind::ALL.into_iter().collect()
}

/// Rule: CONF-WITNESS — the correct free implementation passes every
/// committed vector; on some of them its own order really differs from
/// the scenario's schedule (the witness search was needed).
#[test]
fn a_correct_free_implementation_passes_every_committed_vector() {
    let vectors = committed();
    let failures = check_vectors(&mut FreeModel::default(), &vectors);
    assert!(failures.is_empty(), "{}", failures[0]);
    let searched = vectors
        .iter()
        .filter(|v| {
            let o = FreeModel::default().run(&v.scenario).unwrap();
            witness::compare_observed(&v.scenario, &v.expected, &o, &all_kinds()).is_some()
        })
        .count();
    println!(
        "{searched} of {} vectors needed a witness search",
        vectors.len()
    );
    assert!(searched >= 1, "no vector differs under the free order");
}

/// Rule: CONF-WITNESS — the correct free implementation passes generated
/// scenarios of every profile (`make conform-free` runs 2 000 per
/// profile); a fair share of them needed the search.
#[test]
fn a_correct_free_implementation_passes_generated_scenarios() {
    for p in ProfileName::ALL {
        let r = check_generated(&mut FreeModel::default(), p, 150, 7);
        assert!(r.passed(), "{p}: {}", r.failure.unwrap());
    }
}

/// Rule: CONF-WITNESS — a free implementation whose only fault shows when
/// it runs a newer piece of parallel work first (a prompt shown before its
/// request is persisted) fails, reported as diverging under every schedule
/// of the model; the same implementation never fails where it ran the
/// oldest work first.
#[test]
fn an_interleaving_only_bug_fails_under_every_schedule() {
    let mut buggy = FreeModel {
        bug: Some(InterleavingBug::PromptBeforeRecordOutOfOrder),
        ..FreeModel::default()
    };
    let r = check_generated(&mut buggy, ProfileName::Rfd083, 2000, 3);
    let f = r.failure.expect("the interleaving-only bug is found");
    let Verdict::DivergedEverySchedule {
        schedules,
        divergence,
    } = &f.verdict
    else {
        panic!("{}", f.verdict)
    };
    assert_eq!(divergence.kind, "prompts", "{f}");
    assert!(*schedules >= 1);
    println!("{f}");
}
