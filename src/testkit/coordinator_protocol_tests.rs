//! The coordinator's protocol types as implementers see them: the outcome
//! names a conformance vector spells, the error a driver gets when it
//! feeds the coordinator an input that does not fit its state, and the
//! `Debug` views the secret scan and the state search read.

use super::spec_common_tests as common;

use std::collections::BTreeSet;

use crate::model::coordinator::{Call, Coordinator, Input, ResponseKind};
use crate::model::tool::Map;
use crate::model::tool::ToolSource;
use crate::profile::ProfileName;
use crate::scenario::{self, RunOptions, Scenario};
use common::coordinator_under;

/// Rule CONF-KIND-NAMES: every response kind's name is one that
/// `spec/vector-format.md` lists for the `kind` field of `tool_responses`,
/// or one in the `kind` column of `spec/tables/non-answer-response.md`,
/// which the format names for a question closed without an answer (both
/// read from the documents, not from the code); it is the name serde writes
/// into a vector, and no two kinds share a name. An implementer's adapter
/// reports these names; a renamed or blank name would make every vector
/// that expects it fail for the wrong reason.
#[test]
fn response_kind_names_are_the_ones_the_vector_format_lists() {
    let read = |rel: &str| {
        std::fs::read_to_string(format!("{}/{rel}", env!("CARGO_MANIFEST_DIR")))
            .unwrap_or_else(|e| panic!("{rel} is in the repository: {e}"))
    };
    let doc = read("spec/vector-format.md");
    let start = doc
        .find("`kind` is which outcome the response reports:")
        .expect("vector-format.md describes the kind field");
    let end = start
        + doc[start..]
            .find(';')
            .expect("the list ends with a semicolon");
    let tail = &doc[end..end + doc[end..].find("\n- ").expect("the next field follows")];
    assert!(
        tail.contains("`kind` column") && tail.contains("spec/tables/non-answer-response.md"),
        "vector-format.md sends the non-answer kinds to the table: {tail}"
    );
    let mut listed: BTreeSet<String> = doc[start..end]
        .split('`')
        .skip(3) // "", "kind", " is which … reports: "
        .step_by(2)
        .map(str::to_owned)
        .collect();
    let table = read("spec/tables/non-answer-response.md");
    let rows: Vec<&str> = table
        .lines()
        .filter(|l| {
            l.starts_with("| ") && !l.starts_with("| originating") && !l.starts_with("| ---")
        })
        .collect();
    assert!(!rows.is_empty(), "non-answer-response.md has its table");
    for row in rows {
        let kind = row
            .split('|')
            .nth(2)
            .expect("a row has a kind column")
            .trim();
        listed.insert(kind.to_owned());
    }
    let listed: BTreeSet<&str> = listed.iter().map(String::as_str).collect();
    let names: BTreeSet<&str> = ResponseKind::all().iter().map(|k| k.as_str()).collect();
    assert_eq!(
        names.len(),
        ResponseKind::all().len(),
        "two kinds share a name"
    );
    assert_eq!(
        names, listed,
        "ResponseKind names differ from spec/vector-format.md and the non-answer table"
    );
    for kind in ResponseKind::all() {
        let serialized = serde_json::to_value(kind).expect("a kind serializes");
        assert_eq!(
            serialized.as_str(),
            Some(kind.as_str()),
            "{kind:?}: as_str and the serialized name differ"
        );
        let back: ResponseKind = serde_json::from_value(serialized).expect("a kind reads back");
        assert_eq!(back, kind, "{kind:?} does not read back");
    }
    let err = serde_json::from_value::<ResponseKind>(serde_json::json!("refused_by_mood"))
        .expect_err("an unknown kind is refused");
    assert!(
        err.to_string()
            .starts_with("unknown variant `refused_by_mood`, expected one of `tool_success`"),
        "{err}"
    );
}

/// Rule LIFE-DRIVER-MISUSE: a driver that ends a turn it never began gets an
/// error, not a panic, and the error's text says what went wrong (the
/// house rule: bad input gets a clear error). An empty message would leave
/// an implementer's driver bug unexplained.
#[test]
fn a_misused_coordinator_says_what_was_wrong() {
    let rules = ProfileName::Rfd082.rules();
    let mut c = Coordinator::new(rules, true, Map::default());
    let err = c
        .handle(Input::EndTurn {
            content: "done".to_owned(),
        })
        .expect_err("EndTurn before BeginTurn is refused");
    let text = err.to_string();
    assert!(
        text.contains("EndTurn") && text.contains("turn"),
        "the error names the input and the missing turn: {text:?}"
    );
}

/// Rule LIFE-DRIVER-MISUSE: while a call of the cycle has not responded,
/// the coordinator refuses to end the turn, to begin another cycle or to
/// begin another turn, each with an error that says calls are still
/// running. A coordinator that thought every cycle done would persist a
/// `chat_response` in the middle of a call's inquiries.
#[test]
fn a_cycle_with_a_call_still_running_cannot_be_left() {
    let mut c = coordinator_under(ProfileName::Rfd082, vec![("fs", ToolSource::Local)]);
    c.handle(Input::BeginTurn {
        content: "go".to_owned(),
    })
    .expect("a turn begins");
    let call = Call {
        id: "call_1".to_owned(),
        tool: "fs".to_owned(),
        arguments: serde_json::json!({}),
    };
    c.handle(Input::BeginCycle {
        calls: vec![call.clone()],
    })
    .expect("a cycle begins");
    assert!(!c.cycle_done(), "the call has not responded");
    let refused = [
        Input::EndTurn {
            content: "done".to_owned(),
        },
        Input::BeginCycle { calls: vec![call] },
        Input::BeginTurn {
            content: "again".to_owned(),
        },
    ];
    for input in refused {
        let shown = format!("{input:?}");
        let err = c
            .handle(input)
            .expect_err("nothing may leave a cycle whose call still runs");
        assert!(err.to_string().contains("still running"), "{shown}: {err}");
    }
}

/// Runs the scenario (JSON, as `inquiry-model run` reads it) and returns
/// the coordinator's `Debug` after every step.
fn debug_after_each_step(scenario: &str) -> Vec<String> {
    let s: Scenario = serde_json::from_str(scenario).expect("the scenario reads");
    let mut seen = Vec::new();
    scenario::run_observed(&s, RunOptions::default(), &mut |c, _| {
        seen.push(format!("{c:?}"))
    })
    .expect("the scenario runs");
    seen
}

/// Rule INV-SECRET-NEVER-PERSISTED: the coordinator's `Debug` (what a
/// panic message or a test failure shows) shows the answers a tool holds, a
/// text answer by its value and a secret as `<secret>`, never its text.
#[test]
fn the_coordinators_debug_shows_held_answers_but_no_secret() {
    let scenario = r#"{"profile": "rfd083", "tty": true,
        "tools": {"fs": {"source": {"kind": "local"}, "run": "unattended", "program": {"kind": "script",
            "asks": [{"question": {"id": "passphrase", "text": "Passphrase?", "answer_type": {"type": "secret"}}},
                     {"question": {"id": "colour", "text": "Colour?", "answer_type": {"type": "text"}}}],
            "finish": {"with": "succeed"}}}},
        "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "fs", "arguments": {}}]]}],
        "prompter": [{"reply": "answer", "value": "correct-horse-battery", "remember": false},
                     {"reply": "answer", "value": "teal-ochre", "remember": false}],
        "backend": [], "permissions": [], "schedule": []}"#;
    let steps = debug_after_each_step(scenario);
    assert!(steps.len() > 4, "the run takes steps");
    for whole in &steps {
        assert!(
            !whole.contains("correct-horse-battery"),
            "a secret in the coordinator's Debug: {whole}"
        );
    }
    assert!(
        steps.iter().any(|m| m.contains("teal-ochre")),
        "the held text answer is never shown"
    );
    assert!(
        steps.iter().any(|m| m.contains("<secret>")),
        "the held secret is never shown as <secret>"
    );
}

/// Rule INV-SECRET-NEVER-PERSISTED: a tool's configuration shows in the
/// coordinator's `Debug` by question (its ID, and that a static answer is
/// configured) but never the static answer itself, which may answer a
/// secret question.
#[test]
fn a_tools_debug_names_its_questions_but_not_their_static_answers() {
    let scenario = r#"{"profile": "rfd083", "tty": true,
        "tools": {"fs": {"source": {"kind": "local"}, "run": "unattended", "program": {"kind": "script",
            "asks": [{"question": {"id": "passphrase", "text": "Passphrase?", "answer_type": {"type": "secret"}}}],
            "finish": {"with": "succeed"}},
            "questions": {"passphrase": {"target": "user", "answer": "static-passphrase"}}}},
        "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "fs", "arguments": {}}]]}],
        "prompter": [], "backend": [], "permissions": [], "schedule": []}"#;
    let steps = debug_after_each_step(scenario);
    let fixed = &steps[0];
    assert!(
        fixed.contains("\"passphrase\"") && fixed.contains("true"),
        "the question and that a static answer is configured: {fixed}"
    );
    for whole in &steps {
        assert!(
            !whole.contains("static-passphrase"),
            "a static answer in the coordinator's Debug: {whole}"
        );
    }
}

/// Rule: PERF-MOVED-BOXED — the values a step moves whole keep their large
/// parts behind a box, so that moving one is a few register stores, not a
/// call to `memcpy`: an event of 272 bytes (its inquiry request inline), an
/// input of 216 (a tool's question inline) or an effect of 272 cost the
/// bare model 15% of its instructions in copies.
#[cfg(target_pointer_width = "64")]
#[test]
fn the_values_a_step_moves_keep_their_large_parts_boxed() {
    use std::mem::size_of;
    let sizes = [
        ("Outcome", size_of::<crate::model::tool::Outcome>(), 32),
        ("Input", size_of::<Input>(), 112),
        ("EventKind", size_of::<crate::wire::EventKind>(), 96),
        ("Event", size_of::<crate::wire::Event>(), 160),
        (
            "Effect",
            size_of::<crate::model::coordinator::Effect>(),
            160,
        ),
        ("Status", size_of::<crate::model::coordinator::Status>(), 64),
        ("the driver's work", size_of::<crate::scenario::Work>(), 80),
    ];
    for (name, size, most) in sizes {
        assert!(size <= most, "{name} takes {size} bytes (at most {most})");
    }
}

/// Rule: PERF-MODEL-MAPS — the maps the model and its scenarios key by
/// tool name, question ID or cache key are hashed by hashbrown's default
/// hasher, not std's SipHash, which cost the bare model a sixteenth of its
/// instructions on keys this short; what a run gives does not depend on the
/// hasher's seed (rule `INV-DETERMINISTIC` runs every scenario twice).
#[test]
fn the_models_maps_are_not_hashed_by_siphash() {
    use std::any::TypeId;
    fn hasher<K, V, S: 'static>(_: &indexmap::IndexMap<K, V, S>) -> TypeId {
        TypeId::of::<S>()
    }
    let fast = TypeId::of::<hashbrown::DefaultHashBuilder>();
    let s: Scenario = serde_json::from_str(
        r#"{"profile": "rfd082", "tty": true,
        "tools": {"fs": {"source": {"kind": "local"}, "run": "unattended",
            "questions": {"overwrite": {"target": "user", "answer": true}},
            "program": {"kind": "script",
            "asks": [{"question": {"id": "overwrite", "text": "Overwrite?", "answer_type": {"type": "boolean"}}}],
            "finish": {"with": "succeed"}}}},
        "backend_by_id": {"c1.overwrite.1": {"reply": "answer", "value": true}},
        "turns": [{"user": "go", "cycles": [[{"id": "c1", "tool": "fs", "arguments": {}}]]}],
        "prompter": [], "backend": [], "permissions": [], "schedule": []}"#,
    )
    .expect("the scenario reads");
    let mut maps = vec![
        ("a scenario's tools", hasher(&s.tools)),
        (
            "a scenario's backend replies by ID",
            hasher(&s.backend_by_id),
        ),
        ("a tool's questions", hasher(&s.tools["fs"].questions)),
        (
            "a call's answers",
            hasher(&crate::model::tool::Answers::default()),
        ),
    ];
    let (mut seen_turn, mut seen_call) = (false, false);
    scenario::run_observed(&s, RunOptions::default(), &mut |c, _| {
        if let Some(t) = c.turn_state() {
            seen_turn = true;
            maps.push(("the turn's attempt counts", hasher(&t.attempts)));
            maps.push((
                "the turn's remembered answers",
                hasher(t.cache.tool_answers()),
            ));
        }
        maps.push(("the coordinator's tools", hasher(c.view().tools)));
        seen_call |= !c.view().executing.is_empty();
    })
    .expect("the scenario runs");
    assert!(
        seen_turn && seen_call,
        "the scenario opens a turn and runs a call"
    );
    for (name, h) in maps {
        assert!(
            h == fast,
            "{name}: not hashed by hashbrown's default hasher"
        );
    }
}
