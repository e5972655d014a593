//! Profiles as files (rule `AMEND-PROFILE-FILE`): the committed
//! built-in files are the code's profiles, every committed file passes the
//! schema (boon, draft 2020-12) and the reader, a bad file is refused naming
//! the file and the field, and a file's switches reach the coordinator. The
//! command line (exit 2, the README's worked example, `check` and `conform`
//! taking files) is tested in `tests/suite/tooling/profile_files.rs`.

use std::path::PathBuf;
use std::sync::LazyLock;

use crate::external::root;
use crate::profile::ProfileName::{self, Rfd082, Rfd083};
use crate::review::amend::{self, diff_profiles};
use crate::review::profile_file::{self, Origin, RuleSet};
use serde_json::Value;

const SCHEMA: &str = "spec/schema/profile.schema.json";

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn load(rel: &str) -> RuleSet {
    profile_file::parse(rel, &read(rel)).unwrap_or_else(|e| panic!("{e}"))
}

struct Validator {
    schemas: boon::Schemas,
    index: boon::SchemaIndex,
}

static VALIDATOR: LazyLock<Validator> = LazyLock::new(|| {
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    let loc = root().join(SCHEMA).to_str().expect("UTF-8 path").to_owned();
    let index = compiler
        .compile(&loc, &mut schemas)
        .unwrap_or_else(|e| panic!("{SCHEMA} does not compile: {e:#}"));
    Validator { schemas, index }
});

fn schema_accepts(v: &Value) -> Result<(), String> {
    VALIDATOR
        .schemas
        .validate(v, VALIDATOR.index)
        .map_err(|e| format!("{e}"))
}

/// Every `*.json` under `spec/profiles/`, sorted.
fn committed_files() -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root().join("spec/profiles")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let p: PathBuf = e.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "json") {
                out.push(
                    p.strip_prefix(root())
                        .expect("under the root")
                        .to_string_lossy()
                        .into_owned(),
                );
            }
        }
    }
    out.sort();
    out
}

/// Rule: AMEND-PROFILE-FILE — `spec/profiles/{legacy,rfd082,rfd083}.json`
/// read as the code's three profiles, each RFD stage written over the one
/// before it (legacy complete, rfd082 over legacy, rfd083 over rfd082) with
/// exactly the switches that stage flips, byte for byte as
/// `profile_file::to_file` writes them (`INQUIRY_MODEL_UPDATE_PROFILES=1`
/// rewrites them; review the diff).
#[test]
fn builtin_profile_files_equal_the_code() {
    let chain: [(ProfileName, Option<ProfileName>); 3] = [
        (ProfileName::Legacy, None),
        (Rfd082, Some(ProfileName::Legacy)),
        (Rfd083, Some(Rfd082)),
    ];
    for (p, want_base) in chain {
        let rel = format!("spec/profiles/{p}.json");
        if std::env::var_os("INQUIRY_MODEL_UPDATE_PROFILES").is_some() {
            // Keep the title and amends; write the code's switches.
            let mut v: Value = serde_json::from_str(&read(&rel)).expect("JSON");
            let text = profile_file::to_file(
                v["title"].as_str().expect("title"),
                v["amends"].as_str().expect("amends"),
                want_base,
                &p.rules(),
            );
            v = text;
            let mut text = serde_json::to_string_pretty(&v).expect("serializes");
            text.push('\n');
            std::fs::write(root().join(&rel), text).expect("writes");
        }
        let set = load(&rel);
        assert_eq!(set.rules, p.rules(), "{rel}: its switches are not {p}'s");
        assert_eq!(set.judged_as, p, "{rel}");
        assert_eq!(set.builtin_equal(), Some(p));
        let Origin::File {
            title,
            amends,
            base,
            ..
        } = &set.origin
        else {
            panic!("{rel}: read as a built-in");
        };
        assert_eq!(*base, want_base, "{rel}: base");
        let mut text =
            serde_json::to_string_pretty(&profile_file::to_file(title, amends, *base, &p.rules()))
                .expect("serializes");
        text.push('\n');
        assert_eq!(read(&rel), text, "{rel} is not what the code writes");
    }
    // The files state the RFDs' own deltas (independent of the code): RFD
    // 082 flips the recording scope, ID format and response form among
    // others; RFD 083 flips exactly its five Phase 1 switches.
    let flipped =
        |rel: &str| -> Vec<String> { load(rel).flips().into_iter().map(|(k, _, _)| k).collect() };
    assert_eq!(
        flipped("spec/profiles/rfd083.json"),
        [
            "exclusive",
            "persistence_gate",
            "static_validation",
            "prompt_label",
            "widened_question"
        ]
    );
    for k in [
        "record",
        "id_format",
        "response_form",
        "secret_type",
        "provenance",
    ] {
        assert!(
            flipped("spec/profiles/rfd082.json").iter().any(|f| f == k),
            "rfd082.json does not flip {k}"
        );
    }
}

/// Rule: AMEND-PROFILE-FILE — every committed profile file passes the
/// schema and the reader; the schema compiles (boon checks it against the
/// draft 2020-12 meta-schema).
#[test]
fn committed_profile_files_pass_schema_and_reader() {
    let files = committed_files();
    assert!(files.len() >= 5, "{files:?}");
    for rel in &files {
        let v: Value = serde_json::from_str(&read(rel)).expect("JSON");
        if let Err(e) = schema_accepts(&v) {
            panic!("{rel}: the schema refuses it: {e}");
        }
        load(rel);
    }
}

/// Hand-written bad files: each is refused by the reader naming the field,
/// and by the schema unless the case is one the schema cannot express
/// (a no-op flip, a base that flips nothing: named in its description).
const BAD: [(&str, &str, bool); 9] = [
    (
        r#"{"amends": "RFD 082", "base": "rfd082", "switches": {"exclusive": true}}"#,
        "title",
        true,
    ),
    (
        r#"{"title": "t", "amends": "RFD 082", "base": "rfd082", "switches": {"exclusiv": true}}"#,
        "switches.exclusiv",
        true,
    ),
    (
        r#"{"title": "t", "amends": "RFD 082", "base": "rfd082", "switches": {"record": "sometimes"}}"#,
        "switches.record",
        true,
    ),
    (
        r#"{"title": "t", "amends": "RFD 082", "base": "rfd082", "switches": {"exclusive": "yes"}}"#,
        "switches.exclusive",
        true,
    ),
    (
        r#"{"title": "t", "amends": "RFD 082", "base": "rfd084", "switches": {"exclusive": true}}"#,
        "base",
        true,
    ),
    (
        r#"{"title": "t", "amends": "RFD 082", "switches": {"exclusive": true}}"#,
        "switches",
        true,
    ),
    (
        r#"{"title": "t", "amends": "RFD 082", "base": "rfd082", "switches": {}, "extra": 1}"#,
        "extra",
        true,
    ),
    (
        r#"{"title": "t", "amends": "RFD 082", "base": "rfd082", "switches": {"secret_type": true}}"#,
        "switches.secret_type",
        false,
    ),
    (
        r#"{"title": "t", "amends": "RFD 083", "base": "rfd083", "switches": {}}"#,
        "switches",
        true,
    ),
];

/// Rule: AMEND-PROFILE-FILE — a bad profile file is refused by the reader
/// with the file and the field named, and by the schema too except where
/// the schema cannot say it.
#[test]
fn bad_profile_files_are_refused_naming_the_field() {
    for (text, field, schema_sees_it) in BAD {
        let e = profile_file::parse("bad.json", text).expect_err(text);
        assert_eq!(e.file, "bad.json");
        assert_eq!(e.field, field, "{text}: {e}");
        assert!(
            e.to_string()
                .starts_with(&format!("bad.json: field `{field}`: ")),
            "{e}"
        );
        let v: Value = serde_json::from_str(text).expect("JSON");
        assert_eq!(
            schema_accepts(&v).is_err(),
            schema_sees_it,
            "schema verdict on {text}"
        );
    }
    let e = profile_file::parse("x.json", "{\"title\": ").expect_err("not JSON");
    assert!(e.to_string().starts_with("x.json: line 1, column"), "{e}");
}

/// Rule: AMEND-PROFILE-FILE — a file's switches reach the coordinator: RFD
/// 083 with `exclusive` flipped back off differs from `rfd083` exactly in
/// what `exclusive` decides (exclusive questions routed to the backend, no
/// refusals), while the same file run as `run --profile` shows it on one
/// scenario. A reader that dropped the switches would show no difference.
#[test]
fn a_flipped_switch_changes_behaviour() {
    let text = r#"{"title": "083 without exclusive", "amends": "RFD 083 \"Non-interactive behavior\"", "base": "rfd083", "switches": {"exclusive": false}}"#;
    let set = profile_file::parse("no-exclusive.json", text).expect("reads");
    assert_eq!(
        set.judged_as, Rfd083,
        "no built-in has these rules: its base"
    );
    let r = diff_profiles(Rfd083, set, &amend::scenarios(61, 300, 1));
    let classes: Vec<&str> = r.classes.iter().map(|c| c.class.as_str()).collect();
    assert!(
        classes.contains(&"backend_called"),
        "exclusive questions reach the backend: {classes:?}"
    );
    assert!(
        classes
            .iter()
            .any(|c| c.starts_with("cancellation_recorded:")),
        "the exclusive refusals' cancellations go: {classes:?}"
    );
    assert!(!classes.contains(&"id_shape") && !classes.contains(&"response_shape"));
}

/// Rule: AMEND-PROFILE-FILE — the README's worked example: RFD 083 written
/// as a file over `rfd082` has `rfd083`'s rules and diffs from `rfd082`
/// exactly as the built-in `rfd083` does (same classes, counts, evidence
/// and smallest scenarios); only the replay command names the rule set as
/// given, the file here. The same through `diff-profiles` is the
/// command-line test's (`tests/suite/tooling/profile_files.rs`).
#[test]
fn readme_example_file_diffs_as_the_builtin() {
    const EXAMPLE: &str = "spec/profiles/examples/rfd083-over-rfd082.json";
    let set = load(EXAMPLE);
    assert_eq!(set.rules, Rfd083.rules());
    let corpus = amend::scenarios(97, 60, 1);
    let from_file = diff_profiles(Rfd082, set, &corpus);
    let builtin = diff_profiles(Rfd082, Rfd083, &corpus);
    assert!(!builtin.classes.is_empty());
    let without_replay = |r: &amend::DiffReport| {
        r.classes
            .iter()
            .cloned()
            .map(|mut c| {
                assert!(c.replay_to.contains(&r.to), "{}", c.replay_to);
                c.replay_to = String::new();
                c
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(without_replay(&from_file), without_replay(&builtin));
    assert_eq!(from_file.differing, builtin.differing);
}
