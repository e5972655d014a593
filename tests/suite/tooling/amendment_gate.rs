//! An amendment that breaks an invariant is obvious (rule
//! `AMEND-GATE`): `diff-profiles` exits 1 when the target breaks an
//! invariant the base kept, with the counterexample's diagram, and
//! `invariants --profile FILE` draws each failing invariant's smallest
//! counterexample.

use crate::binary;

use binary::{code, run, stderr, stdout};
use inquiry_model::model::tool::AnswerType;
use inquiry_model::profile::ProfileName::{Legacy, Rfd082, Rfd083};
use inquiry_model::review::amend::{self, regressions};
use inquiry_model::review::mermaid;
use inquiry_model::review::profile_file::{self, RuleSet};
use inquiry_model::scenario::Scenario;

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
    // Violations are findings: exit 1 (README, `invariants --help`).
    assert_eq!(code(&o), 1, "{}", stderr(&o));
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

/// The outcomes of the persisted `inquiry_response`s of a trace printed by
/// `run` (read from its JSON, not through the model).
fn response_outcomes(trace: &str) -> Vec<String> {
    let t: serde_json::Value = serde_json::from_str(trace).expect("a trace");
    t["stream"]
        .as_array()
        .expect("a stream")
        .iter()
        .filter(|e| e["type"] == "inquiry_response")
        .map(|e| e["outcome"].as_str().unwrap_or("").to_owned())
        .collect()
}

/// Runs a printed replay command (`inquiry-model run --profile P
/// scenario.json`) with `scenario.json` standing for `file`.
fn replay(command: &str, file: &std::path::Path) -> String {
    let words: Vec<&str> = command.split_whitespace().collect();
    assert_eq!(words.first(), Some(&"inquiry-model"), "{command}");
    let file = file.to_str().expect("a UTF-8 path");
    let args: Vec<&str> = words[1..]
        .iter()
        .map(|w| if *w == amend::REPLAY_FILE { file } else { w })
        .collect();
    let o = run(&args);
    assert_eq!(code(&o), 0, "{command}: {}", stderr(&o));
    stdout(&o)
}

/// Rule: AMEND-MINIMAL — a counterexample printed by `diff-profiles` replays
/// as printed: its scenario saved as `scenario.json` and run with the
/// printed command under the profile file shows the violation (the secret
/// answer persisted `answered`, never `redacted`), where the scenario alone
/// — labelled with the file's built-in, which has the secret type — does
/// not; and each class's two commands show its difference (here the
/// `redacted` responses).
#[test]
fn printed_counterexamples_replay_with_the_printed_command() {
    let o = run(&[
        "diff-profiles",
        "--from",
        "rfd082",
        "--to",
        DROPPED,
        "--stride",
        "300",
        "--sample",
        "0",
        "--format",
        "json",
    ]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    let dir = std::env::temp_dir().join(format!("inquiry-model-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let file = dir.join(amend::REPLAY_FILE);

    let broken = report["broken_invariants"]
        .as_array()
        .expect("broken invariants")
        .iter()
        .find(|v| v["rule"] == "INV-SECRET-NEVER-PERSISTED")
        .expect("the secret rule is broken");
    std::fs::write(&file, broken["smallest"].to_string()).expect("written");
    let command = broken["replay"].as_str().expect("a replay command");
    assert!(command.contains(DROPPED), "{command}");
    let under_file = response_outcomes(&replay(command, &file));
    assert!(under_file.iter().any(|o| o == "answered"), "{under_file:?}");
    assert!(
        !under_file.iter().any(|o| o == "redacted"),
        "{under_file:?}"
    );
    // The scenario's own label is the file's built-in: not enough alone.
    let as_labelled = response_outcomes(&replay("inquiry-model run scenario.json", &file));
    assert!(
        as_labelled.iter().any(|o| o == "redacted"),
        "{as_labelled:?}"
    );

    let class = report["classes"]
        .as_array()
        .expect("classes")
        .iter()
        .find(|c| c["class"] == "redacted_recorded")
        .expect("the redacted responses differ");
    std::fs::write(&file, class["smallest"].to_string()).expect("written");
    let redacted = |command: &serde_json::Value| {
        response_outcomes(&replay(command.as_str().expect("a command"), &file))
            .iter()
            .filter(|o| *o == "redacted")
            .count()
    };
    assert_ne!(
        redacted(&class["replay_from"]),
        redacted(&class["replay_to"]),
        "{class}"
    );
    let _ = std::fs::remove_dir_all(&dir);
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
