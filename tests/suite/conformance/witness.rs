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
use inquiry_model::profile::ProfileName;
use inquiry_model::scenario::Scenario;
use inquiry_model::testkit::Faults;
use serde_json::json;

/// The committed vectors, read from `spec/vectors/` (not recomputed).
fn committed() -> Vec<Vector> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/vectors");
    inquiry_model::cli::conform_command::read_vectors(&dir).unwrap()
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

/// The model (steered) with its observation rewritten and its
/// capabilities declared.
struct Variant {
    rewrite: fn(Observed) -> Observed,
    caps: Capabilities,
}

impl Implementation for Variant {
    fn run(&mut self, s: &Scenario) -> Result<Observed, ImplementationError> {
        Model::default().run(s).map(self.rewrite)
    }

    fn capabilities(&self) -> Capabilities {
        self.caps.clone()
    }
}

/// Rule: CONF-CAPABILITIES — an `init_ok` that names no capability, and
/// the library's default, is a steered adapter observing every kind (what
/// every adapter was before); named values are read, `persisted_line`
/// as `persisted`.
#[test]
fn capabilities_default_to_a_steered_adapter_that_observes_everything() {
    let none = Capabilities::from_init_ok(&json!({"type": "init_ok", "in_reply_to": 1})).unwrap();
    assert_eq!(none, Capabilities::default());
    assert_eq!(none.scheduler, SchedulerCapability::Steered);
    assert_eq!(none.observes, all_kinds());
    assert_eq!(Model::default().capabilities(), Capabilities::default());
    let some = Capabilities::from_init_ok(&json!({
        "scheduler": "free",
        "observes": ["persisted_line", "prompted"]
    }))
    .unwrap();
    assert_eq!(some.scheduler, SchedulerCapability::Free);
    assert_eq!(
        some.observes,
        BTreeSet::from([EntryKind::Persisted, EntryKind::Prompted])
    );
    assert_eq!(
        FreeModel::default().capabilities().scheduler,
        SchedulerCapability::Free
    );
}

/// Rule: CONF-CAPABILITIES — an adapter that reports no invocations and
/// no turn ends passes every committed vector when it says it does not
/// observe them, and fails when it claims to.
#[test]
fn kinds_not_observed_are_not_compared() {
    let vectors = committed();
    let blind = |mut o: Observed| {
        o.invocations.clear();
        o.remembered.clear();
        o
    };
    let mut says = Variant {
        rewrite: blind,
        caps: Capabilities {
            observes: BTreeSet::from([
                EntryKind::Persisted,
                EntryKind::Prompted,
                EntryKind::Responded,
                EntryKind::Inquired,
            ]),
            ..Capabilities::default()
        },
    };
    let failures = check_vectors(&mut says, &vectors);
    assert!(failures.is_empty(), "{}", failures[0]);
    let mut claims = Variant {
        rewrite: blind,
        caps: Capabilities::default(),
    };
    let failures = check_vectors(&mut claims, &vectors);
    assert!(
        failures.len() > vectors.len() / 2,
        "only {} of {} vectors failed",
        failures.len(),
        vectors.len()
    );
}

/// Rule: CONF-CAPABILITIES — prompts reported without call IDs are
/// attributed by order (the k-th to the model's k-th): the model without
/// them passes every committed vector; with the order of its prompts
/// reversed as well it fails where a scenario shows prompts of two calls.
#[test]
fn prompts_without_call_ids_are_attributed_by_order() {
    let vectors = committed();
    let mut anonymous = Variant {
        rewrite: |mut o| {
            for p in &mut o.prompts {
                p.tool_call_id.clear();
            }
            o
        },
        caps: Capabilities::default(),
    };
    let failures = check_vectors(&mut anonymous, &vectors);
    assert!(failures.is_empty(), "{}", failures[0]);
    let mut reversed = Variant {
        rewrite: |mut o| {
            for p in &mut o.prompts {
                p.tool_call_id.clear();
            }
            o.prompts.reverse();
            o
        },
        caps: Capabilities::default(),
    };
    let failures = check_vectors(&mut reversed, &vectors);
    let f = failures
        .iter()
        .find(|f| f.name == "parallel-interleaved")
        .expect("parallel-interleaved fails");
    let Verdict::Diverged(d) = &f.verdict else {
        panic!("{}", f.verdict)
    };
    assert_eq!(d.kind, "prompts", "{f}");
}

/// Rule: CONF-WITNESS — every fault of the wrong-implementation suite
/// (`Faults::each_alone`, but `nondeterministic_answers`, which only
/// reorders a JSON object's keys) still fails a committed vector when the
/// faulty model runs as a free implementation: no schedule explains it.
#[test]
fn every_fault_still_fails_when_run_free() {
    let vectors = committed();
    let mut missed = Vec::new();
    for faults in Faults::each_alone() {
        if faults == Faults::default() || faults.nondeterministic_answers {
            continue;
        }
        let failures = check_vectors(&mut FreeModel { faults, bug: None }, &vectors);
        match failures.first() {
            None => missed.push(faults),
            Some(f) => assert!(
                matches!(f.verdict, Verdict::DivergedEverySchedule { .. }),
                "{faults:?}: {}",
                f.verdict
            ),
        }
    }
    assert!(
        missed.is_empty(),
        "faults no vector catches when free: {missed:?}"
    );
}

/// Rule: CONF-WITNESS — cutting a run whose start cannot explain the
/// observation never loses a witness: on generated scenarios of every
/// profile the search with cuts finds one wherever the full search does,
/// for the correct free implementation (always found) and for the one with
/// an interleaving-only bug (often not), in no more schedules.
#[test]
fn cutting_never_loses_a_witness() {
    let scenarios = inquiry_model::generate::scenario::sample(1500, 11);
    let (mut searched, mut with_cut, mut without, mut exhausted) = (0, 0, 0, 0);
    for s in &scenarios {
        for bug in [None, Some(InterleavingBug::PromptBeforeRecordOutOfOrder)] {
            let actual = FreeModel {
                bug,
                ..FreeModel::default()
            }
            .run(s)
            .unwrap();
            let expected = Observed::of(&inquiry_model::scenario::run(s).unwrap());
            if witness::compare_observed(s, &expected, &actual, &all_kinds()).is_none() {
                continue;
            }
            let how = |cut| Search {
                observes: all_kinds(),
                budget: 100_000,
                cut,
            };
            let (a, sa) = witness::search(s, &actual, &how(true)).unwrap();
            let (b, sb) = witness::search(s, &actual, &how(false)).unwrap();
            assert_eq!(
                matches!(a, Outcome::Found { .. }),
                matches!(b, Outcome::Found { .. }),
                "{}",
                serde_json::to_string(s).unwrap()
            );
            assert!(!matches!(a, Outcome::Budget) && !matches!(b, Outcome::Budget));
            if bug.is_none() {
                assert!(matches!(a, Outcome::Found { .. }));
            } else if matches!(a, Outcome::Exhausted) {
                exhausted += 1;
            }
            assert!(sa.schedules <= sb.schedules);
            searched += 1;
            with_cut += sa.schedules;
            without += sb.schedules;
        }
    }
    println!(
        "{searched} searches ({exhausted} exhausted): {with_cut} schedules with cuts, {without} without"
    );
    assert!(searched >= 20, "only {searched} searches");
    assert!(exhausted >= 5, "only {exhausted} searches found nothing");
    assert!(with_cut < without);
}
