//! The conformance runner can fail, and fails only where the RFDs are
//! explicit (the second implementation and the example adapter, which use
//! the public API only, are run from the integration suite):
//!
//! - a wrong-implementation suite: every fault of the fault matrix
//!   (`testkit::Faults`), wrapped as an `Implementation`, is caught by
//!   `check_vectors` and by `check_generated`, and shrunk;
//! - variants with their own wording, JSON formatting or valid interleaving
//!   pass; variants that flip `is_error` or record after routing fail;
//! - a scenario the model refuses is a failure of its own kind.

use crate::conformance::{
    self, COMMITTED, Implementation, ImplementationError, Model, Observed, ResponseKind, Vector,
    Verdict, check_generated, check_vectors, curated,
};
use crate::generate::scenario::size;
use crate::model::coordinator::RouteTaken;
use crate::model::routing::Refusal;
use crate::profile::ProfileName;
use crate::scenario::Scenario;
use crate::testkit::Faults;
use crate::wire::CancellationReason;
use serde_json::Value;
use std::collections::BTreeSet;

/// The committed vectors as `spec/vectors/` holds them (read, not
/// recomputed): what the conformance unit tests run.
pub(super) fn committed() -> Vec<Vector> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/vectors");
    crate::cli::conform_command::read_vectors(&dir).unwrap()
}

fn faults() -> Vec<(&'static str, Faults)> {
    let d = Faults::default;
    vec![
        (
            "record_after_routing",
            Faults {
                record_after_routing: true,
                ..d()
            },
        ),
        (
            "skip_record_on_cache_hit",
            Faults {
                skip_record_on_cache_hit: true,
                ..d()
            },
        ),
        (
            "attempt_counter_per_cycle",
            Faults {
                attempt_counter_per_cycle: true,
                ..d()
            },
        ),
        (
            "persist_secret",
            Faults {
                persist_secret: true,
                ..d()
            },
        ),
        (
            "cache_cancelled",
            Faults {
                cache_cancelled: true,
                ..d()
            },
        ),
        (
            "cache_secret",
            Faults {
                cache_secret: true,
                ..d()
            },
        ),
        (
            "ignore_persistence_gate",
            Faults {
                ignore_persistence_gate: true,
                ..d()
            },
        ),
        (
            "config_sets_source",
            Faults {
                config_sets_source: true,
                ..d()
            },
        ),
        (
            "exclusive_to_backend",
            Faults {
                exclusive_to_backend: true,
                ..d()
            },
        ),
        (
            "no_response_on_backend_error",
            Faults {
                no_response_on_backend_error: true,
                ..d()
            },
        ),
        (
            "shared_cache_maps",
            Faults {
                shared_cache_maps: true,
                ..d()
            },
        ),
        (
            "unreadable_write",
            Faults {
                unreadable_write: true,
                ..d()
            },
        ),
    ]
}

/// Rule: CONF-FAULTS-CAUGHT — each fault of the fault matrix, as an
/// implementation, fails at least one committed vector with a divergence
/// (not a run failure), with the differing line marked side by side.
#[test]
fn every_fault_is_caught_by_the_vectors() {
    let vectors = committed();
    let mut missed = Vec::new();
    for (name, f) in faults() {
        let failures = check_vectors(&mut Model { faults: f }, &vectors);
        match failures.first() {
            None => missed.push(name),
            Some(first) => {
                assert!(
                    matches!(first.verdict, Verdict::Diverged(_)),
                    "{name}: {}",
                    first.verdict
                );
            }
        }
    }
    assert!(missed.is_empty(), "faults no vector catches: {missed:?}");
}

/// Rule: CONF-FAULTS-CAUGHT — each fault is caught by `check_generated` on
/// generated scenarios and shrunk to a scenario of size at most 8 that
/// still diverges the same way.
#[test]
fn every_fault_is_caught_by_generation_and_shrunk() {
    let mut report = String::new();
    for (name, f) in faults() {
        let r = check_generated(&mut Model { faults: f }, ProfileName::Rfd083, 4000, 3);
        let failure = r
            .failure
            .unwrap_or_else(|| panic!("{name}: not caught in {} cases", r.cases));
        let Verdict::Diverged(d) = &failure.verdict else {
            panic!("{name}: {}", failure.verdict)
        };
        let n = size(&failure.scenario);
        report.push_str(&format!("{name}: {} at {}, size {n}\n", d.kind, d.at));
        assert!(n <= 8, "{name}: shrunk only to size {n}\n{failure}");
        // The shrunk scenario fails the same way when run again.
        let again = conformance::check_one(&mut Model { faults: f }, "again", &failure.scenario)
            .expect("the shrunk scenario still fails");
        assert_eq!(again.verdict.kind(), failure.verdict.kind(), "{name}");
    }
    println!("{report}");
}

/// An implementation that rewrites the model's observation.
struct Variant<F: FnMut(&Scenario, Observed) -> Observed> {
    rewrite: F,
}

impl<F: FnMut(&Scenario, Observed) -> Observed> Implementation for Variant<F> {
    fn run(&mut self, s: &Scenario) -> Result<Observed, ImplementationError> {
        let o = Model::default().run(s)?;
        Ok((self.rewrite)(s, o))
    }
}

/// Its own wording for every response whose text no RFD quotes, in the
/// stream too; `ask_user`'s success body pretty-printed (same JSON value).
fn own_wording(_: &Scenario, mut o: Observed) -> Observed {
    let mut texts = std::collections::BTreeMap::new();
    for r in &mut o.tool_responses {
        let new = match r.kind {
            ResponseKind::ToolSuccess => match serde_json::from_str::<Value>(&r.content) {
                Ok(v @ Value::Object(_)) => serde_json::to_string_pretty(&v).unwrap(),
                _ => r.content.clone(),
            },
            ResponseKind::CancelledByUser => "The user stopped answering; nothing was done.".into(),
            ResponseKind::ResultWithheld => "The user kept this result to themselves.".into(),
            ResponseKind::ToolError
            | ResponseKind::InquiryFailed
            | ResponseKind::Refused(_)
            | ResponseKind::PermissionDenied
            | ResponseKind::UnknownTool => format!("error ({}): in my own words", r.kind.as_str()),
        };
        texts.insert(r.content.clone(), new.clone());
        r.content = new;
    }
    for e in &mut o.stream {
        if e["type"] == "tool_call_response"
            && let Some(new) = e["content"].as_str().and_then(|c| texts.get(c))
        {
            e["content"] = Value::String(new.clone());
        }
    }
    o
}

/// Its own valid interleaving: within each turn, each call's events are
/// persisted together, calls in reverse order of first appearance; every
/// prompt is shown after the same events of its own call.
fn own_interleaving(_: &Scenario, mut o: Observed) -> Observed {
    // Attribute every event to its call (ids; inquiry ids start with the
    // call id and a dot).
    let mut turns: Vec<Vec<(String, usize)>> = Vec::new(); // (call, old index)
    let mut calls_in_turn: Vec<String> = Vec::new();
    let mut call_at: Vec<String> = Vec::new(); // the call of each old index
    for (i, e) in o.stream.iter().enumerate() {
        let id = e["id"].as_str().unwrap_or("").to_owned();
        match e["type"].as_str() {
            Some("turn_start") => {
                turns.push(vec![(String::new(), i)]);
                calls_in_turn.clear();
                call_at.push(String::new());
                continue;
            }
            Some("tool_call_request") => calls_in_turn.push(id.clone()),
            _ => {}
        }
        let call = calls_in_turn
            .iter()
            .filter(|c| id == **c || id.starts_with(&format!("{c}.")))
            .max_by_key(|c| c.len())
            .cloned()
            .unwrap_or_default();
        call_at.push(call.clone());
        turns.last_mut().unwrap().push((call, i));
    }
    let mut order = Vec::new(); // old indices in new order
    for t in &turns {
        order.push(t[0].1);
        let mut calls: Vec<&String> = Vec::new();
        for (c, _) in &t[1..] {
            if !calls.contains(&c) {
                calls.push(c);
            }
        }
        for c in calls.into_iter().rev() {
            order.extend(t[1..].iter().filter(|(x, _)| x == c).map(|(_, i)| *i));
        }
    }
    let new_pos = |old: usize| order.iter().position(|&i| i == old).unwrap();
    for p in &mut o.prompts {
        // The last event persisted before the prompt, of its own call (as
        // attributed above: call `c1`'s events are not call `c1.x`'s).
        let own_last = (0..p.stream_position)
            .rev()
            .find(|&i| call_at[i] == p.tool_call_id);
        p.stream_position = own_last.map(|i| new_pos(i) + 1).unwrap_or(0);
    }
    o.stream = order.iter().map(|&i| o.stream[i].clone()).collect();
    o
}

/// Rule: CONF-EXACT-CLASS — an implementation with its own wording for
/// cancellations, failures, refusals and denials, and `ask_user`'s body in
/// other JSON formatting, passes every committed vector and generated
/// scenarios; the rewrite really changes what it reports.
#[test]
fn own_wording_passes() {
    let vectors = committed();
    let mut v = Variant {
        rewrite: own_wording,
    };
    let failures = check_vectors(&mut v, &vectors);
    assert!(failures.is_empty(), "{}", failures[0]);
    let s = &vectors
        .iter()
        .find(|v| v.name == "reason-user-ctrl-c")
        .unwrap();
    let o = v.run(&s.scenario).unwrap();
    assert_ne!(o.tool_responses, s.expected.tool_responses);
    let r = check_generated(&mut v, ProfileName::Rfd083, 300, 5);
    assert!(r.passed(), "{}", r.failure.unwrap());
}

/// Rule: CONF-PARTIAL-ORDER — an implementation that persists parallel
/// calls in its own valid order passes every committed vector; on the
/// parallel vector the stream it reports really is in another order.
#[test]
fn own_interleaving_passes() {
    let vectors = committed();
    let mut v = Variant {
        rewrite: own_interleaving,
    };
    let failures = check_vectors(&mut v, &vectors);
    assert!(failures.is_empty(), "{}", failures[0]);
    let p = vectors
        .iter()
        .find(|v| v.name == "parallel-interleaved")
        .unwrap();
    assert_ne!(v.run(&p.scenario).unwrap().stream, p.expected.stream);
    let r = check_generated(&mut v, ProfileName::Rfd083, 300, 5);
    assert!(r.passed(), "{}", r.failure.unwrap());
}

/// Rule: CONF-EXACT-CLASS — flipping `is_error` of a cancelled prompt's
/// response (the pre-RFD 082 success) fails `reason-user-ctrl-c`, and
/// `check_generated` finds and shrinks it.
#[test]
fn a_flipped_is_error_fails() {
    let flip = |_: &Scenario, mut o: Observed| {
        for r in &mut o.tool_responses {
            if r.kind == ResponseKind::CancelledByUser {
                r.is_error = true;
            }
        }
        o
    };
    let mut v = Variant { rewrite: flip };
    let failures = check_vectors(&mut v, &committed());
    let names: BTreeSet<&str> = failures.iter().map(|f| f.name.as_str()).collect();
    assert!(names.contains("reason-user-ctrl-c"), "{names:?}");
    assert!(names.contains("reason-user-eof"), "{names:?}");
    let r = check_generated(&mut v, ProfileName::Rfd083, 1000, 5);
    let f = r.failure.expect("caught");
    assert_eq!(f.verdict.kind(), "diverged:tool_responses/class", "{f}");
    assert!(size(&f.scenario) <= 4, "{f}");
}

/// Rule: CONF-PARTIAL-ORDER — showing a prompt before its request is
/// persisted (recorded after routing) fails, even though the stream itself
/// is the model's.
#[test]
fn recording_after_routing_fails() {
    let late = |_: &Scenario, mut o: Observed| {
        for p in &mut o.prompts {
            p.stream_position -= 1;
        }
        o
    };
    let failures = check_vectors(&mut Variant { rewrite: late }, &committed());
    let f = failures
        .iter()
        .find(|f| f.name == "route-prompter")
        .expect("route-prompter fails");
    assert_eq!(f.verdict.kind(), "diverged:prompts", "{f}");
}

/// Rule: CONF-GENERATED-LOUD — a scenario the model refuses is a failure of
/// its own kind, never a pass: `check_one` reports it as `model_refused`,
/// and `check_generated_from` fails a generator that produces such
/// scenarios (here: an MCP tool that asks, one case in two), even for the
/// model itself.
#[test]
fn a_refused_scenario_fails_loudly() {
    use proptest::prelude::*;
    let refused = |mcp: bool| -> Scenario {
        let source = if mcp { "mcp" } else { "local" };
        serde_json::from_value(serde_json::json!({
            "tools": {"m": {"source": {"kind": source}, "run": "unattended", "program": {"kind": "script", "asks": [
                {"question": {"id": "q", "text": "?", "answer_type": {"type": "boolean"}}}]}}},
            "turns": [{"cycles": [[{"id": "c", "tool": "m"}]]}],
            "prompter": [{"reply": "answer", "value": true}]
        }))
        .unwrap()
    };
    let f =
        conformance::check_one(&mut Model::default(), "refused", &refused(true)).expect("fails");
    assert!(matches!(f.verdict, Verdict::ModelRefused { .. }), "{f}");
    assert!(conformance::check_one(&mut Model::default(), "ok", &refused(false)).is_none());
    let generator = any::<bool>().prop_map(refused);
    let r = conformance::check_generated_from(&mut Model::default(), generator, 100, 1);
    let f = r.failure.expect("a refused scenario fails the run");
    assert_eq!(f.verdict.kind(), "model_refused", "{f}");
}

/// Rule: CONF-SHRINK-KEEPS-KIND — an implementation that diverges in two
/// ways (flips `is_error` after a cancelled prompt; fails to run any
/// scenario with two turns) is shrunk to a scenario of the kind it was first
/// caught with, never to the other kind.
#[test]
fn shrinking_keeps_the_kind() {
    struct Two;
    impl Implementation for Two {
        fn run(&mut self, s: &Scenario) -> Result<Observed, ImplementationError> {
            if s.turns.len() >= 2 {
                return Err(ImplementationError("two turns are not supported".into()));
            }
            let mut o = Model::default().run(s)?;
            for r in &mut o.tool_responses {
                if r.kind == ResponseKind::CancelledByUser {
                    r.is_error = true;
                }
            }
            Ok(o)
        }
    }
    for seed in 0..6 {
        let r = check_generated(&mut Two, ProfileName::Rfd083, 500, seed);
        let f = r.failure.expect("caught");
        match &f.verdict {
            Verdict::ImplementationFailed { .. } => assert!(f.scenario.turns.len() >= 2, "{f}"),
            Verdict::Diverged(d) => {
                assert_eq!(d.kind, "tool_responses/class", "{f}");
                assert!(f.scenario.turns.len() < 2, "{f}");
            }
            Verdict::ModelRefused { .. }
            | Verdict::DivergedEverySchedule { .. }
            | Verdict::NoWitness { .. }
            | Verdict::OracleFinding { .. }
            | Verdict::SecretPersisted { .. } => panic!("{f}"),
        }
    }
}

/// Rule: CONF-VECTORS-COVER — the curated vectors reach every cancellation
/// reason, every inquiry outcome, every route and every response kind but
/// `unknown_tool`. The reasons, routes and kinds come from the enums
/// (`CancellationReason::KNOWN`, `RouteTaken::all`, `ResponseKind::all`), so
/// a new variant fails here until a curated vector reaches it.
#[test]
fn curated_vectors_cover_every_reason_and_route() {
    let vectors = curated().unwrap();
    let text: String = vectors
        .iter()
        .map(|v| serde_json::to_string(&v.expected.stream).unwrap())
        .collect();
    let missing = uncovered(&vectors, &text);
    assert!(missing.is_empty(), "no curated vector reaches {missing:?}");
    for outcome in ["answered", "cancelled", "redacted"] {
        assert!(
            text.contains(&format!("\"outcome\":\"{outcome}\"")),
            "no vector records {outcome}"
        );
    }
    let names: BTreeSet<&str> = vectors.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names.len(), vectors.len(), "vector names are unique");
}

/// What no curated vector reaches: each known cancellation reason, route
/// and response kind (but `unknown_tool`) that `vectors` never record,
/// take or respond.
fn uncovered(vectors: &[Vector], stream_text: &str) -> Vec<String> {
    let mut missing = Vec::new();
    for reason in CancellationReason::KNOWN {
        if !stream_text.contains(&format!("\"reason\":\"{}\"", reason.as_str())) {
            missing.push(format!("reason {reason}"));
        }
    }
    let kinds: BTreeSet<ResponseKind> = vectors
        .iter()
        .flat_map(|v| v.expected.tool_responses.iter().map(|r| r.kind))
        .collect();
    for k in ResponseKind::all() {
        if !kinds.contains(&k) && k != ResponseKind::UnknownTool {
            missing.push(format!("response {}", k.as_str()));
        }
    }
    let mut routes = BTreeSet::new();
    for v in vectors {
        let t = crate::scenario::run(&v.scenario).unwrap();
        routes.extend(t.resolutions.iter().map(|r| r.route));
    }
    for r in RouteTaken::all() {
        if !routes.contains(&r) {
            missing.push(format!("route {}", r.as_str()));
        }
    }
    missing
}

/// Rule: CONF-VECTORS-COVER — the coverage check is not vacuous: without
/// the curated vectors that refuse a question (as when a refusal is added
/// and no vector reaches it), it names the refusal's reason, route and
/// response kind.
#[test]
fn coverage_check_names_a_refusal_no_vector_reaches() {
    let vectors: Vec<_> = curated()
        .unwrap()
        .into_iter()
        .filter(|v| {
            !v.expected
                .tool_responses
                .iter()
                .any(|r| r.kind == ResponseKind::Refused(Refusal::AssistantTarget))
        })
        .collect();
    let text: String = vectors
        .iter()
        .map(|v| serde_json::to_string(&v.expected.stream).unwrap())
        .collect();
    let missing = uncovered(&vectors, &text);
    for want in [
        "route refused_assistant_target",
        "response refused_assistant_target",
    ] {
        assert!(missing.iter().any(|m| m == want), "{want}: {missing:?}");
    }
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

/// Rule: CONF-RUN-ERROR — an implementation that cannot run a scenario
/// fails every vector as `implementation_failed`, told apart from a
/// divergence.
#[test]
fn an_implementation_that_fails_to_run_is_reported() {
    struct Broken;
    impl Implementation for Broken {
        fn run(&mut self, _: &Scenario) -> Result<Observed, ImplementationError> {
            Err(ImplementationError("not implemented".to_owned()))
        }
    }
    let f = check_vectors(&mut Broken, &curated().unwrap());
    assert_eq!(f.len(), curated().unwrap().len());
    assert_eq!(f[0].verdict.kind(), "implementation_failed");
    let r = check_generated(&mut Broken, ProfileName::Rfd083, 10, 1);
    assert_eq!(r.failure.unwrap().verdict.kind(), "implementation_failed");
}

fn committed_named(name: &str) -> Vector {
    committed()
        .into_iter()
        .find(|v| v.name == name)
        .unwrap_or_else(|| panic!("no vector {name}"))
}

/// Rule: CONF-EXACT-CLASS, CONF-GROUP-SIGNATURE — two `ask_user`
/// successes whose bodies differ are a `tool_responses/body` divergence
/// (RFD 083: "The success body is a stable JSON shape"), with the signature
/// `tool response tool_success: body differs`; a response of another kind
/// is a `tool_responses/class` divergence named by both kinds. Labelling
/// the first `class` (or the second `body`) fails here.
#[test]
fn a_success_body_difference_is_labelled_body_and_a_kind_difference_class() {
    let v = committed_named("ask-user-prompter");
    let mut body = v.expected.clone();
    body.tool_responses[0].content = r#"{"answer_type":"select","answer":"restore"}"#.to_owned();
    let d = conformance::compare(&v.scenario, &v.expected, &body).expect("a divergence");
    assert_eq!(d.kind, "tool_responses/body", "{d:?}");
    assert_eq!(d.signature.0, "tool response tool_success: body differs");
    let mut class = v.expected.clone();
    class.tool_responses[0].kind = ResponseKind::CancelledByUser;
    let d = conformance::compare(&v.scenario, &v.expected, &class).expect("a divergence");
    assert_eq!(d.kind, "tool_responses/class", "{d:?}");
    assert_eq!(
        d.signature.0,
        "tool response kind: tool_success → cancelled_by_user"
    );
}

/// Rule: CONF-RUN-TO-THE-END — every place names a turn as the side by
/// side and the remembered keys do, from `turn 0` for the first
/// `turn_start`: a call missing from the second turn is at `turn 1`
/// (`stream/calls`), an event differing there at `turn 1, call …`, its
/// remembered keys at `turn 1`.
#[test]
fn places_name_turns_alike() {
    let v = committed_named("attempt-turn-reset");
    let second = v
        .expected
        .stream
        .iter()
        .enumerate()
        .filter(|(_, e)| e["type"] == "turn_start")
        .map(|(i, _)| i)
        .nth(1)
        .expect("two turns");
    let mut calls = v.expected.clone();
    calls.stream.truncate(second + 1);
    let d = conformance::compare(&v.scenario, &v.expected, &calls).expect("a divergence");
    assert_eq!((d.kind.as_str(), d.at.as_str()), ("stream/calls", "turn 1"));
    let mut event = v.expected.clone();
    event.stream[second + 1]["name"] = Value::String("other".to_owned());
    let d = conformance::compare(&v.scenario, &v.expected, &event).expect("a divergence");
    assert!(d.at.starts_with("turn 1, call "), "{}", d.at);
    let mut remembered = v.expected.clone();
    remembered.remembered[1].tool_answers.push("k".to_owned());
    let d = conformance::compare(&v.scenario, &v.expected, &remembered).expect("a divergence");
    assert_eq!((d.kind.as_str(), d.at.as_str()), ("remembered", "turn 1"));
    let side = conformance::side_by_side(&v.expected, &calls);
    assert!(side.contains("-- turn 1 --"), "{side}");
}
