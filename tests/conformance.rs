//! The conformance runner: the model passes its own vectors and generated
//! scenarios; every fault of the fault-injection switch is caught; the
//! committed vectors are what `inquiry-model vectors` writes.

use inquiry_model::conformance::{
    self, COMMITTED, Implementation, Model, check_generated, check_vectors, curated,
};
use inquiry_model::coordinator::Faults;
use inquiry_model::profile::ProfileName;
use inquiry_model::scenario::strategy::size;
use std::collections::BTreeSet;

/// Rule: CONF-MODEL-PASSES — the model passes every vector and 300
/// generated scenarios per profile.
#[test]
fn the_model_passes_its_vectors_and_generated_scenarios() {
    let vectors = conformance::vectors(COMMITTED.0, COMMITTED.1).unwrap();
    assert!(check_vectors(&mut Model::default(), &vectors).is_empty());
    for p in ProfileName::ALL {
        let f = check_generated(&mut Model::default(), p, 300, 7);
        assert!(f.is_none(), "{p}: {f:?}");
    }
}

/// Rule: CONF-FAULTS-CAUGHT — every fault makes the runner report a
/// divergence, on the curated vectors or, failing that, on generated
/// scenarios shrunk to a small one, with both streams side by side.
#[test]
fn every_fault_is_caught_by_the_runner() {
    let vectors = curated().unwrap();
    let faults = [
        Faults {
            record_after_routing: true,
            ..Faults::default()
        },
        Faults {
            skip_record_on_cache_hit: true,
            ..Faults::default()
        },
        Faults {
            attempt_counter_per_cycle: true,
            ..Faults::default()
        },
        Faults {
            persist_secret: true,
            ..Faults::default()
        },
        Faults {
            cache_cancelled: true,
            ..Faults::default()
        },
        Faults {
            cache_secret: true,
            ..Faults::default()
        },
        Faults {
            ignore_persistence_gate: true,
            ..Faults::default()
        },
        Faults {
            config_sets_source: true,
            ..Faults::default()
        },
        Faults {
            exclusive_to_backend: true,
            ..Faults::default()
        },
        Faults {
            no_response_on_backend_error: true,
            ..Faults::default()
        },
        Faults {
            shared_cache_maps: true,
            ..Faults::default()
        },
    ];
    for f in faults {
        let mut imp = Model { faults: f };
        let on_vectors = check_vectors(&mut imp, &vectors);
        if let Some(first) = on_vectors.first() {
            let d = &first.divergence;
            assert_ne!(d.expected, d.actual, "{f:?}");
            if d.part == "stream" {
                assert!(
                    first.side_by_side.contains('*'),
                    "{f:?}: no marked line\n{}",
                    first.side_by_side
                );
            }
            continue;
        }
        let g = check_generated(&mut imp, ProfileName::Rfd083, 1000, 3)
            .unwrap_or_else(|| panic!("fault {f:?} was not caught"));
        assert!(
            size(&g.scenario) <= 8,
            "{f:?}: shrunk only to size {}",
            size(&g.scenario)
        );
    }
}

/// Rule: CONF-VECTORS-COVER — the curated vectors reach every cancellation
/// reason and every route.
#[test]
fn curated_vectors_cover_every_reason_and_route() {
    let vectors = curated().unwrap();
    let text: String = vectors
        .iter()
        .map(|v| serde_json::to_string(&v.expected.stream).unwrap())
        .collect();
    for reason in [
        "user",
        "backend_error",
        "no_prompt_backend",
        "assistant_routing_denied",
        "invalid_static_answer",
    ] {
        assert!(
            text.contains(&format!("\"reason\":\"{reason}\"")),
            "no vector records {reason}"
        );
    }
    for outcome in ["answered", "cancelled", "redacted"] {
        assert!(
            text.contains(&format!("\"outcome\":\"{outcome}\"")),
            "no vector records {outcome}"
        );
    }
    let mut routes = BTreeSet::new();
    for v in &vectors {
        let t = inquiry_model::scenario::run(&v.scenario).unwrap();
        routes.extend(t.resolutions.iter().map(|r| format!("{:?}", r.route)));
    }
    assert_eq!(routes.len(), 7, "{routes:?}");
    let names: BTreeSet<&str> = vectors.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names.len(), vectors.len(), "vector names are unique");
}

/// Rule: CONF-VECTORS-CURRENT — `spec/vectors/` holds exactly what
/// `inquiry-model vectors --out spec/vectors --seed 1 --count 20` writes.
#[test]
fn committed_vectors_are_current() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/spec/vectors");
    let files = conformance::vector_files(&conformance::vectors(COMMITTED.0, COMMITTED.1).unwrap());
    let mut on_disk: BTreeSet<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    for (name, text) in &files {
        let committed = std::fs::read_to_string(format!("{dir}/{name}")).unwrap_or_default();
        assert!(
            committed == *text,
            "spec/vectors/{name} is stale or missing; run `make vectors`"
        );
        on_disk.remove(name);
    }
    assert!(
        on_disk.is_empty(),
        "spec/vectors has files the generator does not write: {on_disk:?}"
    );
}

/// Rule: CONF-RUN-ERROR — an implementation that cannot run a scenario is a
/// divergence, not a pass.
#[test]
fn an_implementation_that_fails_to_run_is_reported() {
    struct Broken;
    impl Implementation for Broken {
        fn run(
            &mut self,
            _: &inquiry_model::scenario::Scenario,
        ) -> Result<conformance::Observed, String> {
            Err("not implemented".to_owned())
        }
    }
    let f = check_vectors(&mut Broken, &curated().unwrap());
    assert_eq!(f.len(), curated().unwrap().len());
    assert_eq!(f[0].divergence.part, "run");
}
