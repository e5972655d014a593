//! An amendment that breaks an invariant is obvious (rule
//! `AMEND-GATE`): the gate `diff-profiles` runs finds the invariant the
//! target breaks and the base kept, with the counterexample's diagram, and
//! lists the invariants an amendment restores. The command line
//! (`diff-profiles` exiting 1, `invariants --profile FILE`, replaying a
//! printed counterexample) is tested in `tests/suite/tooling/amendment_gate.rs`.

use crate::model::tool::AnswerType;
use crate::profile::ProfileName::{Legacy, Rfd082, Rfd083};
use crate::review::amend::{self, regressions};
use crate::review::mermaid;
use crate::review::profile_file::{self, RuleSet};
use crate::scenario::Scenario;

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
    // The answer it records is printed `<secret 1>` (rule CLI-NO-SECRET).
    assert_eq!(
        diagram,
        &mermaid::sequence(s, dropped().rules).expect("runs"),
        "the diagram is the counterexample's run under the file, secrets masked"
    );
    assert!(diagram.contains(" answered "), "{diagram}");
    assert!(
        diagram.contains("answered \"#lt;secret 1#gt;\""),
        "{diagram}"
    );
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

/// RFD 082 with one remembered map for tool answers and permission
/// decisions (the pre-082 shape).
fn combined() -> RuleSet {
    profile_file::parse(
        "turn-cache-combined.json",
        r#"{"title": "One remembered map", "amends": "RFD 082 \"Splitting the turn-cache state\"",
            "base": "rfd082", "switches": {"turn_cache": "combined"}}"#,
    )
    .expect("reads")
}

/// The report `diff-profiles` prints, with both lists of invariants.
fn full_report(from: &RuleSet, to: &RuleSet, c: &[Scenario]) -> amend::DiffReport {
    let mut report = amend::diff_profiles(from.clone(), to.clone(), c);
    let changes = amend::changes(from, to, c, &mut || {});
    report.broken_invariants = changes.broken;
    report.restored_invariants = changes.restored;
    report
}

/// Rule: AMEND-RESTORED — joining the two remembered maps
/// (`turn_cache: combined`) changes only what the maps hold at a turn's
/// end: `diff-profiles` reports it as the class `remembered_keys` (its
/// only class: without it the report said no scenario differs) in every
/// format. INV-CACHE-HYGIENE reads a key's caller from the map it is in
/// (spec/DECISIONS.md "Invariants: the cache's caller is its map"), so one
/// map that both callers own breaks no invariant and splitting it restores
/// none: the class is the reviewer's only sign, and a profile against
/// itself lists neither broken nor restored invariants.
#[test]
fn joining_the_remembered_maps_is_a_class_of_its_own() {
    let c = corpus();
    let from = RuleSet::from(Rfd082);
    let report = full_report(&from, &combined(), &c);
    let names: Vec<&str> = report.classes.iter().map(|k| k.class.as_str()).collect();
    assert_eq!(names, ["remembered_keys"]);
    let class = &report.classes[0];
    assert_eq!(class.scenarios, report.differing);
    assert!(class.scenarios > 0);
    assert_eq!(class.switches, ["turn_cache"]);
    assert!(
        class.evidence.starts_with("turn 0: tool answers ["),
        "{}",
        class.evidence
    );
    assert!(report.text().contains("== remembered_keys"));
    assert!(report.markdown().contains("| `remembered_keys` |"));
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["classes"][0]["class"], "remembered_keys");
    // The old classification (every class but this one) sees nothing.
    for s in c.iter().take(400) {
        let (Ok(a), Ok(b)) = (amend::run_under(s, &from), amend::run_under(s, &combined())) else {
            continue;
        };
        let mut classes = amend::classify(&a, &b);
        classes.remove(&amend::Class::RememberedKeys);
        assert!(classes.is_empty(), "{classes:?}");
    }
    for (a, b) in [(&from, &combined()), (&combined(), &from)] {
        let r = full_report(a, b, &c);
        assert!(r.broken_invariants.is_empty(), "{:?}", r.broken_invariants);
        assert!(
            r.restored_invariants.is_empty(),
            "{:?}",
            r.restored_invariants
        );
    }
    let same = full_report(&from, &from, &c);
    assert!(same.broken_invariants.is_empty() && same.restored_invariants.is_empty());
}

const WITHOUT_SEPARATOR: &str = "spec/profiles/examples/question-id-without-separator.json";

/// Rule: AMEND-RESTORED — the example amendment that refuses question IDs
/// holding the separator restores INV-ID-UNIQUE, which rfd083 breaks when
/// call `a` asks `b.1` and call `a.b` asks `1` (both record `a.b.1.1`):
/// the report lists it restored with rfd083's counterexample, in every
/// format, and not as broken.
#[test]
fn refusing_the_separator_restores_id_uniqueness() {
    let text = std::fs::read_to_string(format!(
        "{}/{WITHOUT_SEPARATOR}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("the example file");
    let to = profile_file::parse(WITHOUT_SEPARATOR, &text).expect("reads");
    let asker = |id: &str| {
        serde_json::json!({"source": {"kind": "local"}, "run": "unattended", "program": {"kind": "script",
            "asks": [{"question": {"id": id, "text": "Go?", "answer_type": {"type": "boolean"}}}],
            "finish": {"with": "succeed"}}})
    };
    let s: Scenario = serde_json::from_value(serde_json::json!({
        "profile": "rfd083",
        "tools": {"t1": asker("b.1"), "t2": asker("1")},
        "turns": [{"user": "go", "cycles": [[{"id": "a", "tool": "t1"}, {"id": "a.b", "tool": "t2"}]]}],
        "prompter": [{"reply": "answer", "value": true}, {"reply": "answer", "value": true}],
    }))
    .expect("a scenario");
    let from = RuleSet::from(Rfd083);
    let report = full_report(&from, &to, std::slice::from_ref(&s));
    let restored: Vec<&str> = report
        .restored_invariants
        .iter()
        .map(|v| v.rule.as_str())
        .collect();
    assert!(restored.contains(&"INV-ID-UNIQUE"), "{restored:?}");
    assert!(report.broken_invariants.is_empty());
    assert_eq!(
        amend::restorations(&from, &to, std::slice::from_ref(&s)),
        report.restored_invariants
    );
    assert!(report.text().contains(&format!(
        "++ {WITHOUT_SEPARATOR} restores an invariant rfd083 breaks"
    )));
    assert!(
        report
            .text()
            .contains("INV-ID-UNIQUE violated in 1 scenario")
    );
    assert!(
        report
            .markdown()
            .contains("#### `INV-ID-UNIQUE`: violated in 1 scenario")
    );
    let json = serde_json::to_value(&report).unwrap();
    assert!(
        json["restored_invariants"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v["rule"] == "INV-ID-UNIQUE")
    );
    // The other direction breaks it: the gate's list, not this one.
    let back = full_report(&to, &from, &[s]);
    assert!(
        back.restored_invariants
            .iter()
            .all(|v| v.rule != "INV-ID-UNIQUE")
    );
    assert!(
        back.broken_invariants
            .iter()
            .any(|v| v.rule == "INV-ID-UNIQUE")
    );
}

/// Rule: AMEND-RESTORED — of four hand-made verdicts (the rules' names
/// are labels here), one kept by both sides, one broken by both, one only
/// the base breaks and one only the target breaks, the target breaks
/// exactly the last and restores exactly the third: an invariant both
/// keep, or both break, is in neither list.
#[test]
fn only_an_invariant_one_side_keeps_and_the_other_breaks_is_broken_or_restored() {
    let verdict = |rule: &str, violating: usize| amend::Verdict {
        rule: rule.to_owned(),
        violating,
        smallest: None,
        replay: None,
        example: None,
        diagram: None,
    };
    let under_from = vec![
        verdict("INV-RECORD-ALL", 0),
        verdict("INV-CACHE-HYGIENE", 2),
        verdict("INV-ID-UNIQUE", 3),
        verdict("INV-SECRET-NEVER-PERSISTED", 0),
    ];
    let under_to = vec![
        verdict("INV-RECORD-ALL", 0),
        verdict("INV-CACHE-HYGIENE", 1),
        verdict("INV-ID-UNIQUE", 0),
        verdict("INV-SECRET-NEVER-PERSISTED", 4),
    ];
    let changes = amend::changes_of(under_from, under_to);
    let rules = |v: &[amend::Verdict]| v.iter().map(|v| v.rule.clone()).collect::<Vec<_>>();
    assert_eq!(rules(&changes.broken), ["INV-SECRET-NEVER-PERSISTED"]);
    assert_eq!(changes.broken[0].violating, 4, "the target's count");
    assert_eq!(rules(&changes.restored), ["INV-ID-UNIQUE"]);
    assert_eq!(changes.restored[0].violating, 3, "the base's count");
}
