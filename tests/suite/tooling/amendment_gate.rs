//! An amendment that breaks an invariant is obvious (rule
//! `AMEND-GATE`): `diff-profiles` exits 1 when the target breaks an
//! invariant the base kept, with the counterexample's diagram, and
//! `invariants --profile FILE` draws each failing invariant's smallest
//! counterexample.

use crate::binary;

use binary::{code, run, stderr, stdout};
use inquiry_model::amend::{self, regressions};
use inquiry_model::mermaid;
use inquiry_model::profile::ProfileName::{Legacy, Rfd082, Rfd083};
use inquiry_model::profile_file::{self, RuleSet};
use inquiry_model::scenario::Scenario;
use inquiry_model::tool::AnswerType;

const DROPPED: &str = "spec/profiles/examples/secret-type-dropped.json";

fn dropped() -> RuleSet {
    let text = std::fs::read_to_string(format!("{}/{DROPPED}", env!("CARGO_MANIFEST_DIR")))
        .expect("the example file");
    profile_file::parse(DROPPED, &text).expect("reads")
}

/// The small scope only, one in 300: small counterexamples, quick.
fn corpus() -> Vec<Scenario> {
    amend::scenarios(300, 0, 1)
}

/// Whether the scenario asks a `secret` question anywhere (independent of
/// the model: read from the scenario's JSON).
fn asks_a_secret(s: &Scenario) -> bool {
    let v = serde_json::to_value(s).expect("serializes");
    let text = v.to_string();
    text.contains(
        &serde_json::to_string(&AnswerType::Secret)
            .expect("serializes")
            .replace(['{', '}'], ""),
    )
}

/// Rule: AMEND-GATE — RFD 082 without the secret type breaks
/// `INV-SECRET-NEVER-PERSISTED`, which `rfd082` keeps: the regression names
/// it with a counterexample that asks a secret question, and whose diagram
/// (the run under the file's switches) shows the answer recorded
/// `answered`, never `redacted`. The gate is directed: RFD 083 breaks
/// nothing RFD 082 kept, a profile breaks nothing against itself, `legacy`
/// breaks what `rfd082` keeps and not the other way round.
#[test]
fn dropping_the_secret_type_breaks_secret_never_persisted() {
    let c = corpus();
    let broken = regressions(&Rfd082.into(), &dropped(), &c);
    let rules: Vec<&str> = broken.iter().map(|v| v.rule.as_str()).collect();
    assert!(rules.contains(&"INV-SECRET-NEVER-PERSISTED"), "{rules:?}");
    let v = broken
        .iter()
        .find(|v| v.rule == "INV-SECRET-NEVER-PERSISTED")
        .expect("found");
    let s = v.smallest.as_ref().expect("a counterexample");
    assert!(asks_a_secret(s), "the counterexample asks no secret");
    let diagram = v.diagram.as_ref().expect("a diagram");
    // The answer it records is printed `<secret>` (rule CLI-NO-SECRET).
    let secrets =
        inquiry_model::invariants::trace_secrets(&amend::run_under(s, &dropped()).expect("runs"));
    assert_eq!(
        diagram,
        &secrets.mask_diagram(&mermaid::sequence(s, dropped().rules).expect("runs")),
        "the diagram is the counterexample's run under the file, secrets masked"
    );
    assert!(diagram.contains(" answered "), "{diagram}");
    assert!(diagram.contains("#lt;secret#gt;"), "{diagram}");
    assert!(!diagram.contains(" redacted"), "{diagram}");
    // Directed.
    assert!(regressions(&Rfd082.into(), &Rfd083.into(), &c).is_empty());
    assert!(regressions(&Rfd082.into(), &Rfd082.into(), &c).is_empty());
    let back: Vec<String> = regressions(&Rfd082.into(), &Legacy.into(), &c)
        .into_iter()
        .map(|v| v.rule)
        .collect();
    assert!(back.contains(&"INV-PAIRED".to_owned()), "{back:?}");
    assert!(regressions(&Legacy.into(), &Rfd082.into(), &c).is_empty());
}

/// Rule: AMEND-GATE — `diff-profiles` is a CI gate: exit 1 with the broken
/// invariant and its counterexample's diagram (text and Markdown, where the
/// diagram is a fenced `mermaid` block under the invariant); exit 0 for an
/// amendment that breaks nothing the base kept.
#[test]
fn diff_profiles_exits_1_with_the_counterexample_diagram() {
    let args = |to: &str, format: &str| {
        run(&[
            "diff-profiles",
            "--from",
            "rfd082",
            "--to",
            to,
            "--stride",
            "300",
            "--sample",
            "0",
            "--format",
            format,
        ])
    };
    let o = args(DROPPED, "text");
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let out = stdout(&o);
    let at = out
        .find("breaks an invariant rfd082 keeps: INV-SECRET-NEVER-PERSISTED")
        .unwrap_or_else(|| panic!("{out}"));
    assert!(out[at..].contains("sequenceDiagram\n    participant T as tool"));
    let o = args(DROPPED, "markdown");
    assert_eq!(code(&o), 1);
    let md = stdout(&o);
    let at = md
        .find("#### `INV-SECRET-NEVER-PERSISTED`")
        .unwrap_or_else(|| panic!("{md}"));
    assert!(md[at..].contains("```mermaid\nsequenceDiagram"));
    let o = args(DROPPED, "json");
    assert_eq!(code(&o), 1);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert!(
        v["broken_invariants"]
            .as_array()
            .is_some_and(|b| b.iter().any(|x| x["rule"] == "INV-SECRET-NEVER-PERSISTED"))
    );
    let o = args("spec/profiles/examples/rfd083-over-rfd082.json", "text");
    assert_eq!(code(&o), 0, "RFD 083 breaks nothing RFD 082 kept");
}

/// Rule: AMEND-GATE — `invariants --profile FILE` lists every failing
/// invariant and draws its smallest counterexample.
#[test]
fn invariants_of_a_file_draw_each_counterexample() {
    let o = run(&[
        "invariants",
        "--profile",
        DROPPED,
        "--stride",
        "300",
        "--sample",
        "0",
    ]);
    assert_eq!(code(&o), 1, "violations found: {}", stderr(&o));
    let out = stdout(&o);
    for rule in ["INV-SECRET-NEVER-PERSISTED", "INV-HUMAN-ONLY-NEVER-BACKEND"] {
        assert!(
            out.contains(&format!(
                "counterexample of {rule} under {DROPPED}:\nsequenceDiagram\n"
            )),
            "{rule}: {out}"
        );
    }
    // A rule that holds gets no diagram.
    assert!(!out.contains("counterexample of INV-WIRE-ROUNDTRIP"));
}
