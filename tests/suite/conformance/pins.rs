//! Vectors that pin the model's own decisions (rule `CONF-PINS`), a denied
//! permission's `is_error` left uncompared (rule `CONF-EXACT-CLASS`), and
//! divergences that read as labelled fields.

use std::collections::BTreeMap;
use std::process::Command;

use inquiry_model::conformance::{
    self, Observed, PINS, Pin, ResponseKind, Vector, compare, skip_pinned,
};
use serde_json::Value;

fn curated() -> Vec<Vector> {
    conformance::curated().expect("curated vectors build")
}

fn vector(name: &str) -> Vector {
    curated()
        .into_iter()
        .find(|v| v.name == name)
        .unwrap_or_else(|| panic!("no curated vector {name}"))
}

/// Rule: CONF-PINS — the curated vectors pin exactly these decisions
/// (listed by hand from what each scenario reaches); every other curated
/// vector is pure RFD.
#[test]
fn curated_vectors_pin_exactly_the_listed_decisions() {
    let want: BTreeMap<&str, Vec<Pin>> = [
        (
            "delivery-prompt-withheld",
            vec![Pin::DeliveryWithheldResponse],
        ),
        ("inquiry-model-choice", vec![Pin::BackendModelChoice]),
        ("token-aborted-turn", vec![Pin::AbortedTurnToken]),
        (
            "token-aborted-turn-cancels-parallel",
            vec![Pin::AbortedTurnToken],
        ),
        ("token-hard-quit", vec![Pin::HardQuitAftermath]),
        ("token-restart", vec![Pin::RestartRerunsTool]),
        (
            "toggles-disable-all-spares-ask-user",
            vec![Pin::DisabledToolUnknown],
        ),
        ("config-merge-layers", vec![Pin::DisabledToolUnknown]),
        (
            "permission-no-terminal",
            vec![Pin::PermissionPromptNoTerminal],
        ),
    ]
    .into_iter()
    .collect();
    let vectors = curated();
    for v in &vectors {
        let expected = want.get(v.name.as_str()).cloned().unwrap_or_default();
        assert_eq!(v.pins, expected, "{}", v.name);
    }
    for name in want.keys() {
        assert!(vectors.iter().any(|v| v.name == *name), "{name}");
    }
}

/// Rule: CONF-PINS — every decision of the table is pinned by at least one
/// curated vector, and its IDs round-trip.
#[test]
fn every_pin_is_reached_and_named_once() {
    let vectors = curated();
    for p in PINS {
        assert_eq!(Pin::from_id(p.pin.id()), Some(p.pin));
        assert_eq!(p.pin.info(), &p);
        assert!(
            vectors.iter().any(|v| v.pins.contains(&p.pin)),
            "{} is pinned by no curated vector",
            p.pin
        );
    }
    assert_eq!(Pin::from_id("no-such-pin"), None);
}

/// Rule: CONF-PINS — opting out skips the vectors that pin the decision,
/// counted per decision; opting out of nothing keeps them all.
#[test]
fn skipping_pins_counts_per_decision() {
    let all = curated();
    let n = all.len();
    let none = skip_pinned(all.clone(), &[]);
    assert_eq!(none.kept.len(), n);
    assert_eq!(none.summary(), None);
    let one = skip_pinned(all.clone(), &[Pin::AbortedTurnToken]);
    assert_eq!(one.kept.len(), n - 2);
    assert_eq!(
        one.summary().as_deref(),
        Some("2 skipped (pin a model decision: aborted-turn-token ×2)")
    );
    let every: Vec<Pin> = PINS.iter().map(|p| p.pin).collect();
    let rfd_only = skip_pinned(all, &every);
    assert_eq!(rfd_only.skipped_vectors, 9);
    assert!(rfd_only.kept.iter().all(|v| v.pins.is_empty()));
}

/// Flips `is_error` of every tool response of `call` (log and stream).
fn flip_is_error(o: &Observed, call: &str) -> Observed {
    let mut o = o.clone();
    for r in &mut o.tool_responses {
        if r.tool_call_id == call {
            r.is_error = !r.is_error;
        }
    }
    for e in &mut o.stream {
        if e.get("type").and_then(Value::as_str) == Some("tool_call_response")
            && e.get("id").and_then(Value::as_str) == Some(call)
        {
            let b = e["is_error"].as_bool().unwrap();
            e["is_error"] = Value::Bool(!b);
        }
    }
    o
}

/// Rule: CONF-EXACT-CLASS — a denied permission's `is_error` is not
/// compared (RFD 082 Non-Goals keep permission prompts out of scope): an
/// implementation answering the denial as a success passes; one that runs
/// the tool anyway still fails, and so does a flipped `is_error` of any
/// other kind of response.
#[test]
fn a_denied_permissions_is_error_is_not_compared() {
    let v = vector("permission-denied");
    assert_eq!(
        v.expected.tool_responses[0].kind,
        ResponseKind::PermissionDenied
    );
    let success = flip_is_error(&v.expected, "call_1");
    assert_eq!(compare(&v.scenario, &v.expected, &success), None);
    let mut ran = success.clone();
    ran.tool_responses[0].kind = ResponseKind::ToolSuccess;
    assert!(compare(&v.scenario, &v.expected, &ran).is_some());

    let c = vector("reason-user-ctrl-c");
    let flipped = flip_is_error(&c.expected, "call_1");
    let d = compare(&c.scenario, &c.expected, &flipped).expect("diverges");
    assert!(d.kind.starts_with("stream/"), "{d:?}");
}

/// Rule: CONF-EXACT-CLASS — a difference reads as labelled fields, not as
/// a bare tuple: a tool response's class, a prompt's position; the
/// divergence kinds stay as they were.
#[test]
fn divergences_read_as_labelled_fields() {
    let c = vector("reason-user-ctrl-c");
    let mut wrong = c.expected.clone();
    wrong.tool_responses[0].is_error = true;
    let d = compare(&c.scenario, &c.expected, &wrong).expect("diverges");
    assert_eq!(d.kind, "tool_responses/class");
    assert_eq!(d.expected, "is_error: false, kind: cancelled_by_user");
    assert_eq!(d.actual, "is_error: true, kind: cancelled_by_user");

    let mut early = c.expected.clone();
    early.prompts[0].stream_position -= 1;
    let d = compare(&c.scenario, &c.expected, &early).expect("diverges");
    assert_eq!(d.kind, "prompts");
    assert!(
        d.expected
            .starts_with("events of its call persisted before the prompt: 2, presentation: {"),
        "{}",
        d.expected
    );
    assert!(
        d.actual
            .starts_with("events of its call persisted before the prompt: 1, presentation: {"),
        "{}",
        d.actual
    );

    let mut none = c.expected.clone();
    none.tool_responses.clear();
    let d = compare(&c.scenario, &c.expected, &none).expect("diverges");
    assert_eq!(d.actual, "(nothing)");

    let a = vector("route-static");
    let mut other = a.expected.clone();
    other.invocations[1].answers = serde_json::json!({"confirm": false});
    let d = compare(&a.scenario, &a.expected, &other).expect("diverges");
    assert_eq!(d.kind, "invocations");
    assert_eq!(d.expected, "tool: fs, answers: {\"confirm\":true}");
}

/// Rule: CONF-PINS — `conform --rfd-only` skips the committed vectors that
/// pin a decision and says how many and which; `--skip-pin` names one, an
/// unknown ID is a usage error.
#[test]
fn conform_rfd_only_skips_the_pinned_vectors() {
    if Command::new("python3").arg("--version").output().is_err() {
        println!("SKIPPED: python3 is not available; the --rfd-only CLI test did not run");
        return;
    }
    // An adapter of every profile that cannot run anything: each vector it
    // is given fails as `implementation_failed`, so the counts show which
    // ran.
    let adapter = r#"python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    t = "init_ok" if m["type"] == "init" else "error"
    print(json.dumps({"type": t, "in_reply_to": m["id"], "text": "no"}), flush=True)
'"#;
    let run = |extra: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_inquiry-model"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["conform", "--adapter", adapter])
            .args(extra)
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (code, all, _) = run(&[]);
    assert_eq!(code, Some(1), "{all}");
    assert!(!all.contains("pin a model decision"), "{all}");
    let (code, out, _) = run(&["--rfd-only"]);
    assert_eq!(code, Some(1), "{out}");
    let line = out
        .lines()
        .find(|l| l.contains("skipped (pin a model decision:"))
        .unwrap_or_else(|| panic!("no pin line in:\n{out}"));
    let skipped: usize = line
        .trim_start_matches("vectors: ")
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(skipped >= 8, "{line}");
    for p in PINS {
        assert!(line.contains(p.pin.id()), "{line}");
    }
    let ran = |text: &str| -> usize {
        // `vectors (built-in): N run, ...`
        let l = text.lines().find(|l| l.contains(" run, ")).unwrap();
        l.split_once("): ")
            .map_or(l, |(_, rest)| rest)
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    assert_eq!(ran(&out) + skipped, ran(&all));
    let (code, _, err) = run(&["--skip-pin", "no-such-pin"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("restart-reruns-tool"), "{err}");
    // How many committed vectors pin the restart decision, read from the
    // files themselves (the generated ones change with the generator).
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/vectors");
    let restart = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name() != "index.json")
        .filter(|e| {
            let v: Value =
                serde_json::from_str(&std::fs::read_to_string(e.path()).unwrap()).unwrap();
            v["pins"]
                .as_array()
                .is_some_and(|p| p.iter().any(|p| p == "restart-reruns-tool"))
        })
        .count();
    assert!(restart >= 1);
    let (_, one, _) = run(&["--skip-pin", "restart-reruns-tool"]);
    let want = format!(
        "vectors: {restart} skipped (pin a model decision: restart-reruns-tool ×{restart})"
    );
    assert!(one.contains(&want), "{want}\n{one}");
}
