//! An amendment end to end on the command line: a revised copy of RFD 082
//! (a prompter failure records `BackendError`; "`question_id` MUST NOT
//! contain `.`") built from the committed excerpt, written as a profile file
//! by `rfd-check --write-profile`, read by `check --profile` and announced by
//! `conform --profile`. The library's side (the tables as data, the
//! amendment written from the text, its diff against `rfd082`, the model's
//! streams under it) is unit tests beside the module
//! (`src/review/amend/amendment_rows_tests.rs`). Rules `AMEND-TABLE-ROWS`,
//! `AMEND-WRITE-PROFILE`, `AMEND-RFD-PROSE`.

use crate::binary::{code, run, stderr, stdout};
use crate::external;

use inquiry_model::profile::ProfileName::{self, Rfd082};
use inquiry_model::review::profile_file;
use inquiry_model::review::rfd_check::{self, check};
use inquiry_model::scenario::{self, Scenario};

use super::revised_rfd082::*;

/// Rule: AMEND-WRITE-PROFILE — on the command line: the file is written,
/// passes the reader, names each row's line, and the text checked against
/// it exits 0; the report lists the unchecked sentences with their lines.
#[test]
fn write_profile_on_the_command_line() {
    let dir = std::env::temp_dir().join(format!("inquiry-model-write-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let rfd = dir.join("revised.md");
    let text = revised_rfd082();
    std::fs::write(&rfd, &text).expect("writes");
    let out = dir.join("amended.json");
    let (r, o) = (rfd.to_str().expect("UTF-8"), out.to_str().expect("UTF-8"));
    let before = run(&["rfd-check", r, "--profile", "rfd082"]);
    assert_eq!(code(&before), 1, "{}", stderr(&before));
    let p = run(&["rfd-check", r, "--profile", "rfd082", "--write-profile", o]);
    assert_eq!(code(&p), 0, "{}{}", stdout(&p), stderr(&p));
    let written = std::fs::read_to_string(&out).expect("the file is written");
    let set = profile_file::parse(o, &written).expect("reads back");
    assert_eq!(set.judged_as, Rfd082);
    let row_line = line_of(&text, "Prompter failure (I/O error, no TTY)");
    assert!(
        written.contains(&format!("\"from\": \"{r}:{row_line}\"")),
        "{written}"
    );
    let report = stdout(&p);
    let always = line_of(&text, "The on-disk shape is always");
    assert!(
        report.contains(&format!("{r}:{always}: sentence")) && report.contains("not checked"),
        "{report}"
    );
    let after = run(&["rfd-check", r, "--profile", o]);
    assert_eq!(code(&after), 0, "{}", stdout(&after));
    let _ = std::fs::remove_dir_all(&dir);
}

/// [`revised_amendment`] without the rows' `from` (as a scenario that
/// states it by hand carries it).
pub(crate) fn revised_amendment_without_from() -> serde_json::Map<String, serde_json::Value> {
    let mut a = revised_amendment();
    if let Some(serde_json::Value::Object(tables)) = a.get_mut("tables") {
        for rows in tables.values_mut() {
            if let serde_json::Value::Object(rows) = rows {
                for row in rows.values_mut() {
                    if let serde_json::Value::Object(row) = row {
                        row.remove("from");
                    }
                }
            }
        }
    }
    a
}

/// Rules: CHECK-REASON-BACKEND-ERROR, AMEND-PROFILE-FILE — `check --profile
/// FILE` judges with the file's table rows: the model's stream under the
/// revised amendment, which closes a secret question `backend_error` after
/// a prompter I/O failure, is clean judged with the written file and a
/// CHECK-REASON-BACKEND-ERROR finding judged as `rfd082` (exit 1); the
/// note names only the switch the oracle judges as `rfd082`'s, not the rows.
#[test]
fn check_with_the_written_profile_reads_its_rows() {
    let s: Scenario = serde_json::from_value(serde_json::json!({
        "profile": "rfd082", "tty": true,
        "tools": {"alpha": {"source": {"kind": "builtin", "hook": "default"},
            "program": {"kind": "script", "asks": [
                {"question": {"id": "q1", "text": "Question q1?", "answer_type": {"type": "secret"}}}
            ], "finish": {"with": "fail", "transient": false}},
            "run": "unattended"}},
        "turns": [{"user": "go", "cycles": [[{"id": "c1", "tool": "alpha", "arguments": {}}]]}],
        "prompter": [{"reply": "failure", "failure": "io"}]
    }))
    .expect("a scenario");
    let trace = scenario::run(&amended(s)).expect("runs");
    assert_eq!(secret_backend_errors(&trace), 1);
    let dir = std::env::temp_dir().join(format!("inquiry-model-check-rows-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let stream = dir.join("stream.json");
    std::fs::write(&stream, trace.persisted_json().to_string()).expect("writes");
    let rfd = dir.join("revised.md");
    std::fs::write(&rfd, revised_rfd082()).expect("writes");
    let file = dir.join("amended.json");
    let (st, r, f) = (
        stream.to_str().expect("UTF-8"),
        rfd.to_str().expect("UTF-8"),
        file.to_str().expect("UTF-8"),
    );
    let w = run(&["rfd-check", r, "--profile", "rfd082", "--write-profile", f]);
    assert_eq!(code(&w), 0, "{}", stderr(&w));
    let base = run(&["check", "--profile", "rfd082", st]);
    assert_eq!(code(&base), 1, "{}", stdout(&base));
    assert!(
        stdout(&base).contains("CHECK-REASON-BACKEND-ERROR"),
        "{}",
        stdout(&base)
    );
    let with_rows = run(&["check", "--profile", f, st]);
    assert_eq!(
        code(&with_rows),
        0,
        "{}{}",
        stdout(&with_rows),
        stderr(&with_rows)
    );
    let note = stderr(&with_rows);
    assert!(
        note.contains("question_id_separator = \"refused\"") && !note.contains("cancellation."),
        "{note}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Rule: AMEND-WRITE-PROFILE — routing precedence rows are written as
/// route-table rows: a copy of the committed RFD 083 excerpt whose table
/// fails the tool for a plain question without a TTY and prompts for a
/// plain assistant-targeted one gives, over `rfd083`, exactly the rows
/// `route.user_no_tty = refused_no_tty` and `route.assistant = prompter`,
/// each from its row's line, nothing listed as not written; the text
/// disagrees with `rfd083` on those two rows and agrees with the written
/// file, on the command line too (exit 1, then 0).
#[test]
fn write_profile_writes_routing_rows() {
    let text = read("tests/rfd/rfd083-excerpt.md");
    let text = edit(
        &text,
        "| `target = \"user\"`, no TTY, `exclusive = false` | Route to inquiry backend (existing behavior).        |",
        "| `target = \"user\"`, no TTY, `exclusive = false` | **Fail the tool**.        |",
    );
    let text = edit(
        &text,
        "| `target = \"assistant\"`, `exclusive = false`    | Route to inquiry backend (existing behavior).        |",
        "| `target = \"assistant\"`, `exclusive = false`    | Prompt the user.        |",
    );
    let base = ProfileName::Rfd083;
    let a = rfd_check::amendment(&text, &base.rules(), "route.md");
    assert!(a.not_written.is_empty(), "{:?}", a.not_written);
    let from: Vec<(String, String)> = a.from.clone().into_iter().collect();
    assert_eq!(
        from,
        [
            (
                "route.assistant".to_owned(),
                format!("route.md:{}", line_of(&text, "| Prompt the user.")),
            ),
            (
                "route.user_no_tty".to_owned(),
                format!("route.md:{}", line_of(&text, "| **Fail the tool**.  ")),
            ),
        ]
    );
    let doc = profile_file::to_amendment_file("route", "RFD 083", None, base, &a.rules, &a.from);
    let set = profile_file::parse("route.json", &doc.to_string()).expect("reads back");
    let flips: Vec<String> = set
        .flips()
        .into_iter()
        .map(|(k, _, v)| format!("{k}={v}"))
        .collect();
    assert_eq!(
        flips,
        [
            "route.user_no_tty=\"refused_no_tty\"",
            "route.assistant=\"prompter\""
        ]
    );
    assert_eq!(check(&text, &base.into()).disagreements(), 2);
    let r = check(&text, &set);
    assert_eq!(r.disagreements(), 0, "{}", r.text("r"));

    let dir = std::env::temp_dir().join(format!("inquiry-model-route-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let (md, json) = (dir.join("route.md"), dir.join("route.json"));
    std::fs::write(&md, &text).expect("writes");
    let (m, j) = (md.to_str().expect("UTF-8"), json.to_str().expect("UTF-8"));
    let before = run(&["rfd-check", m, "--profile", "rfd083"]);
    assert_eq!(code(&before), 1, "{}", stdout(&before));
    let w = run(&["rfd-check", m, "--profile", "rfd083", "--write-profile", j]);
    assert_eq!(code(&w), 0, "{}{}", stdout(&w), stderr(&w));
    let after = run(&["rfd-check", m, "--profile", j]);
    assert_eq!(code(&after), 0, "{}", stdout(&after));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Rule: AMEND-WRITE-PROFILE — a routing table the base's switches cannot
/// follow row by row is not written: RFD 083's table read over `rfd082`
/// (no `exclusive` switch, so a plain and an `exclusive` question take the
/// same route row) decides the `user_no_tty` and `assistant` rows two ways;
/// each deciding row is listed as not written with that reason, and
/// nothing is written (exit 1).
#[test]
fn write_profile_lists_routing_rows_a_switch_decides() {
    let text = read("tests/rfd/rfd083-excerpt.md");
    let a = rfd_check::amendment(&text, &Rfd082.rules(), "r.md");
    let routing: Vec<usize> = a
        .not_written
        .iter()
        .filter(|(_, why)| why.contains("two ways"))
        .map(|(line, _)| *line)
        .collect();
    assert_eq!(
        routing,
        [
            line_of(&text, "no TTY, `exclusive = false`"),
            line_of(&text, "| `target = \"assistant\"`, `exclusive = false`"),
        ]
    );
    assert!(a.from.is_empty(), "{:?}", a.from);
    let dir = std::env::temp_dir().join(format!("inquiry-model-nothing-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let out = dir.join("none.json");
    let p = run(&[
        "rfd-check",
        &external::root()
            .join("tests/rfd/rfd083-excerpt.md")
            .to_string_lossy(),
        "--profile",
        "rfd082",
        "--write-profile",
        out.to_str().expect("UTF-8"),
    ]);
    assert_eq!(code(&p), 1, "{}", stderr(&p));
    assert!(stdout(&p).contains("nothing written to"), "{}", stdout(&p));
    assert!(!out.exists(), "no file is written");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Rule: CONF-AMENDMENT — on the command line, `conform --profile` the
/// written amendment with the shipped Python adapter (which does not
/// declare amendments) reports, in JSON, the file, the announcement (its
/// base and the amended rows), that the adapter does not declare it and
/// that it was judged against the base; JUnit carries the same as
/// properties; the run passes (the adapter implements the base).
#[test]
fn conform_reports_the_amendment_in_every_format() {
    let python = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !python {
        println!("SKIPPED: python3 is not available");
        return;
    }
    let dir = std::env::temp_dir().join(format!(
        "inquiry-model-conform-amend-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let (md, json) = (dir.join("revised.md"), dir.join("amended.json"));
    std::fs::write(&md, revised_rfd082()).expect("writes");
    let (m, j) = (md.to_str().expect("UTF-8"), json.to_str().expect("UTF-8"));
    let w = run(&["rfd-check", m, "--profile", "rfd082", "--write-profile", j]);
    assert_eq!(code(&w), 0, "{}", stderr(&w));
    let args = |format: &'static str| {
        [
            "conform",
            "--adapter",
            "python3 examples/conform_adapter.py",
            "--profile",
            j,
            "--generated",
            "2",
            "--no-vectors",
            "--format",
            format,
        ]
    };
    let o = run(&args("json"));
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    let a = &doc["amendment"];
    assert_eq!(a["file"], j, "{a}");
    assert_eq!(a["adapter_declares"], false, "{a}");
    assert_eq!(a["judged_against"], "base", "{a}");
    assert_eq!(a["announced"]["base"], "rfd082", "{a}");
    assert_eq!(
        a["announced"]["tables"]["cancellation"]["prompter_failure:io"]["reason"], "backend_error",
        "{a}"
    );
    let o = run(&args("junit"));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let xml = stdout(&o);
    assert!(
        xml.contains("<property name=\"amendment.judged_against\" value=\"base\"/>")
            && xml.contains("<property name=\"amendment.adapter_declares\" value=\"false\"/>"),
        "{xml}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
