//! The conformance runner against implementations written outside the
//! crate, from its public API only: a second implementation written from
//! the RFD tables without the coordinator, and the example adapter (the
//! runner's own failure modes are tested beside it, in
//! `src/conformance/runner_tests.rs`).

use crate::second_implementation;

use inquiry_model::conformance::{
    self, Vector, check_generated_from, check_vectors, core_scenario, core_scenarios,
};
use inquiry_model::profile::ProfileName;
use inquiry_model::scenario::{self, Scenario};
use serde_json::Value;

/// The committed vectors, read from `spec/vectors/` (not recomputed).
fn committed() -> Vec<Vector> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/vectors");
    inquiry_model::cli::conform_command::read_vectors(&dir).unwrap()
}

/// Rule: CONF-SECOND-IMPL — the second implementation, written from the RFD
/// tables without the coordinator, passes every committed vector of the
/// profiles it implements and 300 generated scenarios of each.
#[test]
fn the_second_implementation_passes() {
    let mut imp = second_implementation::Second;
    // It models RFD 082/083 and the core scenario language only
    // (`conformance::core_scenario`): the rest is filtered, not hidden.
    let vectors: Vec<Vector> = committed()
        .into_iter()
        .filter(|v| v.scenario.profile != ProfileName::Legacy)
        .filter(|v| core_scenario(&v.scenario))
        .collect();
    assert!(vectors.len() > 25, "{} vectors", vectors.len());
    let failures = check_vectors(&mut imp, &vectors);
    assert!(
        failures.is_empty(),
        "{} failures; first:\n{}",
        failures.len(),
        failures[0]
    );
    for p in [ProfileName::Rfd082, ProfileName::Rfd083] {
        let r = check_generated_from(&mut imp, core_scenarios(p), 300, 11);
        assert!(r.passed(), "{p}:\n{}", r.failure.unwrap());
    }
}

#[path = "../../../examples/conformance_adapter.rs"]
mod conformance_adapter_example;

/// Rule: CONF-ADAPTER-EXAMPLE — `examples/conformance_adapter.rs`, a
/// complete adapter that drives the coordinator state machine through the
/// README's environment and scheduler (not the model's driver) and reports
/// through `Record`s, passes every committed vector and generated
/// scenarios of every profile.
#[test]
fn the_example_adapter_passes() {
    let mut imp = conformance_adapter_example::CoordinatorAdapter;
    let core: Vec<Vector> = committed()
        .into_iter()
        .filter(|v| core_scenario(&v.scenario))
        .collect();
    assert!(core.len() > 30, "{} core vectors", core.len());
    let failures = check_vectors(&mut imp, &core);
    assert!(failures.is_empty(), "{}", failures[0]);
    for p in ProfileName::ALL {
        let r = check_generated_from(&mut imp, core_scenarios(p), 200, 9);
        assert!(r.passed(), "{p}: {}", r.failure.unwrap());
    }
}

/// The amendment `rfd-check --write-profile` writes from the revised RFD
/// 082 (`tests/suite/tooling/amendment_rows.rs`), as a scenario carries it.
fn revised_rfd082_amendment() -> serde_json::Map<String, Value> {
    match serde_json::json!({
        "switches": {"question_id_separator": "refused"},
        "tables": {"cancellation": {
            "prompter_failure:no_terminal": {"reason": "backend_error"},
            "prompter_failure:io": {"reason": "backend_error"}},
            "non_answer_response": {
            "prompter_failure:no_terminal": {"kind": "inquiry_failed"},
            "prompter_failure:io": {"kind": "inquiry_failed"}}}
    }) {
        Value::Object(m) => m,
        _ => unreachable!("an object"),
    }
}

/// The example adapter declaring the amendment but running the base
/// profile (`--amendment ignore`): an implementation of the unrevised RFD.
struct IgnoresTheAmendment;

impl inquiry_model::conformance::Implementation for IgnoresTheAmendment {
    fn run(
        &mut self,
        s: &Scenario,
    ) -> Result<inquiry_model::conformance::Observed, inquiry_model::conformance::ImplementationError>
    {
        conformance_adapter_example::drive_under(s, s.profile.rules())
            .map(inquiry_model::conformance::Observed::from_records)
    }
}

/// Rule: CONF-AMENDMENT — a scenario that carries an amendment runs under
/// it (the model's judgement and the example adapter following it, as
/// `conform --profile FILE` sends it to an adapter that declares it): the
/// example adapter following the amendment passes every core scenario,
/// and the same adapter running the base `rfd082` fails exactly on the
/// scenarios whose runs the amendment changes, which include a prompter
/// failure and a question ID holding `.`, and hold one or the other. A
/// secret question whose prompter fails with an I/O error is closed
/// `backend_error` under the amendment: the following adapter passes it
/// (the oracle judges with the amendment's rows; an oracle that ignores
/// them reports CHECK-REASON-BACKEND-ERROR there, as `conform` did on
/// `--generated 300 --seed 3` case 238).
#[test]
fn an_adapter_is_judged_against_the_amendment_it_implements() {
    let amendment = revised_rfd082_amendment();
    // The amendment is the file `rfd-check --write-profile` writes from the
    // revised RFD 082 built from the committed excerpt.
    assert_eq!(
        Value::Object(amendment.clone()),
        Value::Object(crate::tooling::amendment_rows::revised_amendment_without_from())
    );
    let secret_io: Scenario = serde_json::from_value(serde_json::json!({
        "profile": "rfd082", "tty": true,
        "tools": {"alpha": {"source": {"kind": "builtin", "hook": "default"},
            "program": {"kind": "script", "asks": [
                {"question": {"id": "q1", "text": "Question q1?", "answer_type": {"type": "secret"}}}
            ], "finish": {"with": "fail", "transient": false}},
            "run": "unattended"}},
        "turns": [{"user": "go", "cycles": [[{"id": "c1", "tool": "alpha", "arguments": {}}]]}],
        "prompter": [{"reply": "failure", "failure": "io"}],
        "amendment": Value::Object(amendment.clone())
    }))
    .expect("a scenario");
    let follows = conformance::check_one(
        &mut conformance_adapter_example::CoordinatorAdapter,
        "secret io",
        &secret_io,
    );
    assert!(follows.is_none(), "{}", follows.expect("a failure"));
    let trace = scenario::run(&secret_io).expect("runs");
    assert!(
        inquiry_model::check::check_events(
            &trace.stream,
            "m",
            inquiry_model::check::ProfileMode::Fixed(ProfileName::Rfd082)
        )
        .diagnostics
        .iter()
        .any(|d| d.rule == inquiry_model::check::Rule::CheckReasonBackendError),
        "the base's oracle reports the amended row"
    );
    let (mut changed, mut failure, mut separator) = (0, 0, 0);
    for (i, s) in inquiry_model::explore::scenarios(400, 150, 11)
        .into_iter()
        .filter(core_scenario)
        .enumerate()
    {
        let base = Scenario {
            profile: ProfileName::Rfd082,
            ..s
        };
        let amended = Scenario {
            amendment: Some(amendment.clone()),
            ..base.clone()
        };
        let (Ok(a), Ok(mut b)) = (scenario::run(&base), scenario::run(&amended)) else {
            continue;
        };
        b.rules = a.rules;
        let differs = a != b;
        let name = format!("case {i}");
        let follows = conformance::check_one(
            &mut conformance_adapter_example::CoordinatorAdapter,
            &name,
            &amended,
        );
        assert!(follows.is_none(), "{}", follows.expect("a failure"));
        let ignores = conformance::check_one(&mut IgnoresTheAmendment, &name, &amended);
        assert_eq!(
            ignores.is_some(),
            differs,
            "{}",
            serde_json::to_string(&amended).unwrap_or_default()
        );
        if differs {
            changed += 1;
            // The failures the amended rows name (the format failure keeps
            // its `user` row).
            let named = amended.prompter.iter().any(|r| {
                matches!(
                    r,
                    scenario::PrompterReply::Failure {
                        failure: inquiry_model::model::routing::PrompterFailure::Io
                            | inquiry_model::model::routing::PrompterFailure::NoTerminal
                    }
                )
            });
            let dotted = inquiry_model::invariants::holds_separator(&amended);
            assert!(
                named || dotted,
                "fails on neither a prompter failure nor a dotted ID: {}",
                serde_json::to_string(&amended).unwrap_or_default()
            );
            failure += usize::from(named);
            separator += usize::from(dotted);
        }
    }
    assert!(
        changed > 0 && failure > 0 && separator > 0,
        "{changed} {failure} {separator}"
    );
    // Unusable amendments are refused as profile files are.
    let bad = Scenario {
        amendment: Some(match serde_json::json!({"switches": {"exclusiv": true}}) {
            Value::Object(m) => m,
            _ => unreachable!("an object"),
        }),
        ..committed()[0].scenario.clone()
    };
    assert!(
        scenario::run(&bad).is_err_and(|e| e.message().contains("switches.exclusiv")),
        "the amendment's field is named"
    );
}
