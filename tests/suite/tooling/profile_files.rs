//! Profiles as files (rule `AMEND-PROFILE-FILE`) on the command line: a
//! bad file is refused naming the file and the field (exit 2), the README's
//! worked example (RFD 083 written as a file over `rfd082`) diffs exactly as
//! the built-in does, and `check` and `conform` take files. The library's
//! reader, the committed files and the schema are unit tests beside the
//! module (`src/review/profile_file/profile_files_tests.rs`), and so is
//! the library's diff of the worked example against the built-in.

use crate::binary;

use crate::external::root;
use binary::{code, run, stderr, stdout};
use serde_json::{Value, json};

const EXAMPLE: &str = "spec/profiles/examples/rfd083-over-rfd082.json";

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Rule: AMEND-PROFILE-FILE — on the command line a bad file is exit 2 with
/// the file and the field on stderr, for every command taking a profile.
#[test]
fn bad_profile_file_on_the_command_line_is_exit_2() {
    let dir = std::env::temp_dir().join(format!("inquiry-model-profile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        r#"{"title": "t", "amends": "RFD 082", "base": "rfd082", "switches": {"exclusiv": true}}"#,
    )
    .expect("writes");
    let b = bad.to_str().expect("UTF-8");
    for args in [
        &[
            "run",
            "--profile",
            b,
            "spec/examples/rfd083-mixed-routes.json",
        ][..],
        &["diff-profiles", "--from", "rfd082", "--to", b][..],
        &["invariants", "--profile", b][..],
        &["check", "--profile", b, "spec/examples"][..],
        &["conform", "--adapter", "true", "--profile", b][..],
    ] {
        let out = run(args);
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains(&format!("{b}: field `switches.exclusiv`")),
            "{args:?}: {err}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Rule: AMEND-PROFILE-FILE — the README's worked example through the
/// binary, as the README runs it: RFD 083 written as a file over `rfd082`
/// diffs from `rfd082` as the built-in `rfd083` does; the reports differ
/// only in the rule set's name, its `to_about` and the replay commands
/// that name it. (The library's diff of the two is the unit test beside
/// the reader.)
#[test]
fn readme_example_file_diffs_as_the_builtin() {
    let args = |to: &str| {
        run(&[
            "diff-profiles",
            "--from",
            "rfd082",
            "--to",
            to,
            "--stride",
            "997",
            "--sample",
            "40",
            "--format",
            "json",
        ])
    };
    let (a, b) = (args(EXAMPLE), args("rfd083"));
    assert_eq!(code(&a), 0, "{}", stderr(&a));
    let (mut va, mut vb): (Value, Value) = (
        serde_json::from_str(&stdout(&a)).expect("JSON"),
        serde_json::from_str(&stdout(&b)).expect("JSON"),
    );
    assert_eq!(va["to"], json!(EXAMPLE));
    va["to"] = json!("rfd083");
    // The file's title, amends and description are the report's only other
    // difference; a built-in has none.
    assert!(va["to_about"]["title"].is_string());
    assert!(vb["to_about"].is_null());
    va["to_about"] = Value::Null;
    for v in [&mut va, &mut vb] {
        for c in v["classes"].as_array_mut().expect("classes") {
            c["replay_to"] = Value::Null;
        }
    }
    assert_eq!(va, vb);
}

/// Rule: AMEND-PROFILE-FILE — `check` and `conform` take a profile file:
/// `check --profile spec/profiles/rfd082.json` judges exactly as `check
/// --profile rfd082`; a file whose switches no built-in has is judged as
/// its base with a note naming the switches on stderr; `conform` refuses
/// a complete file equal to no built-in (an adapter is told a base and an
/// amendment over it), exit 2.
#[test]
fn check_and_conform_take_profile_files() {
    let by_name = run(&["check", "--profile", "rfd082", "spec/examples"]);
    let by_file = run(&[
        "check",
        "--profile",
        "spec/profiles/rfd082.json",
        "spec/examples",
    ]);
    assert_eq!(code(&by_file), code(&by_name));
    assert_eq!(stdout(&by_file), stdout(&by_name));
    assert!(stderr(&by_file).is_empty(), "{}", stderr(&by_file));
    let dropped = "spec/profiles/examples/secret-type-dropped.json";
    let o = run(&["check", "--profile", dropped, "spec/examples"]);
    assert_eq!(stdout(&o), stdout(&by_name), "judged as its base rfd082");
    assert!(
        stderr(&o).contains("judged as the rfd082 writer")
            && stderr(&o).contains("secret_type = false"),
        "{}",
        stderr(&o)
    );
    // `-q` says nothing on stderr but errors, wherever it stands; its
    // stdout (findings and the total) is the built-in's under `-q`.
    let quiet_by_name = run(&["-q", "check", "--profile", "rfd082", "spec/examples"]);
    assert!(!stdout(&quiet_by_name).is_empty());
    for args in [
        &["-q", "check", "--profile", dropped, "spec/examples"][..],
        &["check", "--profile", dropped, "spec/examples", "-q"],
    ] {
        let o = run(args);
        assert_eq!(stdout(&o), stdout(&quiet_by_name), "{args:?}");
        assert!(stderr(&o).is_empty(), "{args:?}: {}", stderr(&o));
    }
    // `conform` takes an amendment over a base (rule `CONF-AMENDMENT`),
    // and refuses a complete file equal to no built-in: an adapter is told
    // a base and what changes over it.
    let dir = std::env::temp_dir().join(format!("inquiry-model-conform-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let complete = dir.join("complete.json");
    let mut doc: Value =
        serde_json::from_str(&read("spec/profiles/legacy.json")).expect("legacy.json");
    doc["switches"]["secret_type"] = json!(true);
    std::fs::write(&complete, doc.to_string()).expect("writes");
    let o = run(&[
        "conform",
        "--adapter",
        "true",
        "--profile",
        complete.to_str().expect("UTF-8"),
    ]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("names no `base`") && stderr(&o).contains("secret_type = true"),
        "{}",
        stderr(&o)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
