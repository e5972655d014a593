//! The adapter writer's documents (`spec/vector-format.md`,
//! `spec/conform-protocol.md`) describe the whole scenario language (rule
//! `CONF-DOCS-COMPLETE`): every declared feature, every field name and tag
//! a generated scenario emits, every pin, and the core language exactly as
//! `conformance::outside_core` decides it (rule `CONF-CORE-LANGUAGE`).

use std::collections::BTreeSet;

use crate::conformance::{OutsideCore, PINS, core_scenario, outside_core};
use crate::scenario::{Scenario, features::Feature};
use serde_json::{Value, json};

fn read(path: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Both documents, one text.
fn docs() -> String {
    read("spec/vector-format.md") + &read("spec/conform-protocol.md")
}

/// Whether the docs name `word` as code: `` `word` ``, `` `word[]` `` (a
/// list) or `"word"`.
fn names(docs: &str, word: &str) -> bool {
    docs.contains(&format!("`{word}`"))
        || docs.contains(&format!("`{word}[]`"))
        || docs.contains(&format!("\"{word}\""))
}

/// What the docs must say for a feature: names and phrases an adapter
/// writer needs to produce it. Exhaustive, so a new feature cannot be
/// declared without its documentation being checked.
fn doc_terms(f: Feature) -> &'static [&'static str] {
    match f {
        Feature::ProfileLegacy => &["`legacy`"],
        Feature::ProfileRfd082 => &["`rfd082`"],
        Feature::ProfileRfd083 => &["`rfd083`"],
        Feature::NoTty => &["`tty`"],
        Feature::ParallelCalls => &["list of parallel tool calls"],
        Feature::TwoTurns => &["`turns[]`"],
        Feature::ReusedCallId => &["same tool_call_id", "`.2`"],
        Feature::ToolBuiltinDefault => &["\"hook\": \"default\""],
        Feature::ToolBuiltinAssistant => &["`assistant` hook"],
        Feature::ToolLocal => &["{\"kind\": \"local\"}"],
        Feature::ToolMcp => &["\"mcp\"", "MCP tools never see answers"],
        Feature::ProgramAskUser => &["{\"kind\": \"ask_user\"}"],
        Feature::ProgramLocal => &["{\"kind\": \"local\", \"stdout\": [", "one cursor per tool"],
        Feature::LocalRawStdout => &["**the tool's output, verbatim**", "malformed outcome"],
        Feature::AliasedBuiltin => &["**found by the configuration key**", "`NotFound`"],
        Feature::AskUserMalformedArguments => &["malformed arguments"],
        Feature::QuestionBoolean => &["{\"type\": \"boolean\"}"],
        Feature::QuestionSelect => &["{\"type\": \"select\", \"options\":"],
        Feature::QuestionText => &["{\"type\": \"text\"}"],
        Feature::QuestionSecret => &["{\"type\": \"secret\"}"],
        Feature::QuestionExclusive => &["`exclusive`"],
        Feature::QuestionPersistenceNone => &["`persistence`", "`none`"],
        Feature::QuestionContext => &["`context`", "`pre_amble`"],
        Feature::QuestionDefault => &["`default`"],
        Feature::QuestionReasked => &["`reject_first`"],
        Feature::ConfigTargetAssistant => &["`target`"],
        Feature::ConfigStaticValid | Feature::ConfigStaticInvalid => {
            &["`answer` (a static answer)"]
        }
        Feature::ConfigPromptLabel => &["`prompt_label`"],
        Feature::ConfigRunAsk => &["`run`: `ask` or `unattended`"],
        Feature::PrompterAnswer => &["{\"reply\": \"answer\", \"value\":"],
        Feature::PrompterRemember => &["`remember`"],
        Feature::PrompterCtrlC => &["{\"reply\": \"ctrl_c\"}"],
        Feature::PrompterEof => &["{\"reply\": \"eof\"}"],
        Feature::PrompterFailureNoTerminal
        | Feature::PrompterFailureIo
        | Feature::PrompterFailureFormat => {
            &["{\"reply\": \"failure\", \"failure\": \"no_terminal\" | \"io\" | \"format\"}"]
        }
        Feature::BackendAnswer => &["{\"reply\": \"answer\", \"value\": <JSON>}"],
        Feature::BackendRaw => &[
            "{\"reply\": \"raw\", \"structured\": <JSON>}",
            "`inquiry_id`",
        ],
        Feature::BackendErrorCancelled
        | Feature::BackendErrorProvider
        | Feature::BackendErrorMissingStructuredData
        | Feature::BackendErrorAnswerExtraction
        | Feature::BackendErrorOther => &[
            "{\"reply\": \"error\", \"error\": \"cancelled\" | \"provider\" |\n  \"missing_structured_data\" | \"answer_extraction\" | \"other\"}",
        ],
        Feature::TokenRestart => &["  - `restart`:", "A restart resets"],
        Feature::TokenToolCancel => &["  - `tool_cancel`:"],
        Feature::TokenHardQuit => &["  - `hard_quit`:", "not even Ctrl-C's response"],
        Feature::TokenAbortedTurn => &["  - `aborted_turn`:", "**not shown**"],
        Feature::BackendReplyById => &["`backend_by_id`", "**each entry is used once**"],
        Feature::InquiryModelDedicated => &["`inquiry_model`"],
        Feature::InquiryModelPerQuestion => &["`{\"model\": \"<name>\"}`"],
        Feature::ConfigToolDisabled => &["`enable`", "answered as unknown tools"],
        Feature::ConfigToggleBulk | Feature::ConfigToggleNamed => {
            &["`\"-t\"`, `\"-T\"`, `\"-t NAME\"`, `\"-T NAME\"`"]
        }
        Feature::PermissionAllow | Feature::PermissionDeny => {
            &["{\"reply\": \"allow\" | \"deny\",\n\"remember\": bool}"]
        }
        Feature::DeliveryDeliver => &["{\"reply\": \"deliver\"}"],
        Feature::DeliveryWithhold => &["{\"reply\": \"withhold\"}", "Only that call waits"],
    }
}

/// Rule: CONF-DOCS-COMPLETE — every feature the scenario language declares
/// is described where an adapter writer reads (each feature's terms, by an
/// exhaustive match); a term the docs lack fails, naming the feature.
#[test]
fn every_declared_feature_is_documented() {
    let docs = docs();
    let missing: Vec<String> = Feature::ALL
        .into_iter()
        .flat_map(|f| {
            doc_terms(f)
                .iter()
                .filter(|t| !docs.contains(**t))
                .map(move |t| format!("{f:?}: {t:?}"))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(missing.is_empty(), "undocumented:\n{}", missing.join("\n"));
    assert!(!docs.contains("no such feature text"), "the check can fail");
}

/// Keys whose object maps names to entries (the names are the scenario's).
const MAPS: [&str; 4] = ["tools", "questions", "assistant", "backend_by_id"];
/// Keys whose value is the scenario's data, passed through.
const DATA: [&str; 6] = [
    "arguments",
    "value",
    "structured",
    "answer",
    "default",
    "stdout",
];
/// Keys whose string value is a tag of the language.
const TAGS: [&str; 15] = [
    "profile",
    "kind",
    "hook",
    "reply",
    "with",
    "type",
    "failure",
    "cause",
    "error",
    "target",
    "persistence",
    "run",
    "result",
    "allow_toggle",
    "enable",
];

/// Every field name and tag value in `v` (see [`MAPS`], [`DATA`], [`TAGS`]).
fn walk(v: &Value, key: Option<&str>, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            let is_map = key.is_some_and(|k| MAPS.contains(&k));
            for (k, x) in m {
                match (is_map, DATA.contains(&k.as_str())) {
                    (true, _) => walk(x, None, out),
                    (false, true) => {
                        out.insert(k.clone());
                    }
                    (false, false) => {
                        out.insert(k.clone());
                        walk(x, Some(k), out);
                    }
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| walk(x, key, out)),
        Value::String(s) if key.is_some_and(|k| TAGS.contains(&k)) => {
            out.insert(s.clone());
        }
        Value::String(_) | Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Rule: CONF-DOCS-COMPLETE — every field name and tag value that 2 000
/// generated scenarios (the seeded sampler every vector comes from) emit is
/// named in the docs; a name they lack fails, listing it.
#[test]
fn every_field_and_tag_a_generated_scenario_emits_is_documented() {
    let mut seen = BTreeSet::new();
    for s in crate::generate::scenario::sample(2_000, 7) {
        walk(&serde_json::to_value(&s).unwrap(), None, &mut seen);
    }
    for needed in ["turns", "cycles", "schedule", "reject_first", "toggles"] {
        assert!(seen.contains(needed), "the sample never emits {needed}");
    }
    let docs = docs();
    let missing: Vec<&String> = seen.iter().filter(|w| !names(&docs, w)).collect();
    assert!(missing.is_empty(), "undocumented names: {missing:?}");
    assert!(!names(&docs, "an_undocumented_field"));
}

/// The `- \`id\`:` items of the "The core language" section.
fn documented_core_exclusions() -> BTreeSet<String> {
    let text = read("spec/conform-protocol.md");
    let start = text
        .find("## The core language")
        .expect("a section \"The core language\"");
    let section = &text[start + 3..];
    let section = &section[..section.find("\n## ").unwrap_or(section.len())];
    section
        .lines()
        .filter_map(|l| l.strip_prefix("- `"))
        .filter_map(|l| l.split_once("`:").map(|(id, _)| id.to_owned()))
        .collect()
}

fn scenario(v: Value) -> Scenario {
    serde_json::from_value(v).expect("scenario parses")
}

/// A core scenario with `extra` merged in (tools merged by name).
fn core_with(extra: Value) -> Scenario {
    let mut base = json!({
        "tools": {"fs": {"run": "unattended", "program": {"kind": "script", "asks": [
            {"question": {"id": "q", "text": "Q?", "answer_type": {"type": "boolean"}}}]}}},
        "turns": [{"cycles": [[{"id": "call_1", "tool": "fs"}]]}]
    });
    for (k, v) in extra.as_object().unwrap() {
        match (k.as_str(), v) {
            ("tools", Value::Object(t)) => {
                for (name, tool) in t {
                    base["tools"][name] = tool.clone();
                }
            }
            _ => base[k] = v.clone(),
        }
    }
    scenario(base)
}

/// Rule: CONF-CORE-LANGUAGE — the documented core language is exactly
/// `outside_core`'s: the section lists every reason by its ID and no
/// other, and a hand-written scenario per reason says that reason alone
/// (a core scenario, a configured but uncalled local program and a
/// `cancelled` reply keyed by ID are checked too).
#[test]
fn the_documented_core_language_is_core_scenarios() {
    let ids: BTreeSet<String> = OutsideCore::ALL.iter().map(|r| r.id().to_owned()).collect();
    assert_eq!(documented_core_exclusions(), ids);
    let base = core_with(json!({}));
    assert!(core_scenario(&base));
    let local = json!({"run": "unattended", "program": {"kind": "local", "stdout": ["done"]}});
    let cases: Vec<(OutsideCore, Value)> = vec![
        (
            OutsideCore::LocalProgram,
            json!({"tools": {"fs": local.clone()}}),
        ),
        (
            OutsideCore::TokenCause,
            json!({"tty": false, "backend": [{"reply": "cancelled", "cause": "tool_cancel"}]}),
        ),
        (
            OutsideCore::BackendById,
            json!({"tty": false, "backend_by_id": {"call_1.q.1": {"reply": "answer", "value": true}}}),
        ),
        (OutsideCore::InquiryModel, json!({"inquiry_model": "small"})),
        (
            OutsideCore::AssistantTarget,
            json!({"tools": {"fs": {"run": "unattended", "program": {"kind": "script"}, "assistant": {"q": {"model": "large"}}}}}),
        ),
        (
            OutsideCore::DeliveryPrompt,
            json!({"tools": {"fs": {"run": "unattended", "program": {"kind": "script"}, "result": "ask"}}}),
        ),
        (
            OutsideCore::DeliveryPrompt,
            json!({"deliveries": [{"reply": "deliver"}]}),
        ),
        (
            OutsideCore::Enable,
            json!({"tools": {"fs": {"run": "unattended", "program": {"kind": "script"}, "enable": true}}}),
        ),
        (OutsideCore::Toggles, json!({"toggles": ["-t"]})),
    ];
    let mut covered = BTreeSet::new();
    for (reason, extra) in cases {
        let s = core_with(extra.clone());
        assert_eq!(outside_core(&s), vec![reason], "{extra}");
        assert!(!core_scenario(&s));
        covered.insert(reason);
    }
    assert_eq!(covered.len(), OutsideCore::ALL.len());
    let uncalled = core_with(json!({"tools": {"sh": local}}));
    assert!(core_scenario(&uncalled));
    let keyed = core_with(
        json!({"tty": false, "backend_by_id": {"call_1.q.1": {"reply": "cancelled", "cause": "hard_quit"}}}),
    );
    assert_eq!(outside_core(&keyed), vec![OutsideCore::BackendById]);
}

/// Rule: CONF-PINS — every pin is in the docs' pin table, and the
/// `spec/DECISIONS.md` section each names exists.
#[test]
fn every_pin_is_documented_with_an_existing_decision() {
    let format = read("spec/vector-format.md");
    let decisions = read("spec/DECISIONS.md");
    for p in PINS {
        assert!(
            format.contains(&format!("| `{}` |", p.pin.id())),
            "{} is not in the pin table",
            p.pin
        );
        assert!(
            decisions.contains(&format!("\n## {}", p.decision)),
            "{}: no DECISIONS.md section {:?}",
            p.pin,
            p.decision
        );
    }
}
