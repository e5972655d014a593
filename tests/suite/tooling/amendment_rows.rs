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
    let doc: serde_json::Value = serde_json::from_str(&written).expect("the file is JSON");
    assert_eq!(doc["base"], "rfd082", "{written}");
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

/// The revised RFD 082's amendment as a scenario carries it: the
/// `switches` and `tables` of the file `rfd-check --write-profile` writes
/// from it (over `rfd082`), and that file's path.
fn written_amendment(
    dir: &std::path::Path,
) -> (serde_json::Map<String, serde_json::Value>, String) {
    let rfd = dir.join("revised.md");
    std::fs::write(&rfd, revised_rfd082()).expect("writes");
    let file = dir.join("amended.json");
    let (r, f) = (
        rfd.to_str().expect("UTF-8").to_owned(),
        file.to_str().expect("UTF-8").to_owned(),
    );
    let w = run(&[
        "rfd-check",
        &r,
        "--profile",
        "rfd082",
        "--write-profile",
        &f,
    ]);
    assert_eq!(code(&w), 0, "{}", stderr(&w));
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("the file is written"))
            .expect("the file is JSON");
    let amendment = ["switches", "tables"]
        .into_iter()
        .filter_map(|k| doc.get(k).map(|v| (k.to_owned(), v.clone())))
        .collect();
    (amendment, f)
}

/// The written amendment without the rows' `from` (as a scenario that
/// states it by hand carries it).
pub(crate) fn revised_amendment_without_from() -> serde_json::Map<String, serde_json::Value> {
    let dir =
        std::env::temp_dir().join(format!("inquiry-model-without-from-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let (mut a, _) = written_amendment(&dir);
    let _ = std::fs::remove_dir_all(&dir);
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
    let dir = std::env::temp_dir().join(format!("inquiry-model-check-rows-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let (amendment, f) = written_amendment(&dir);
    let trace = scenario::run(&Scenario {
        amendment: Some(amendment),
        ..s
    })
    .expect("runs");
    assert_eq!(secret_backend_errors(&trace), 1);
    let stream = dir.join("stream.json");
    std::fs::write(&stream, trace.persisted_json().to_string()).expect("writes");
    let (st, f) = (stream.to_str().expect("UTF-8"), f.as_str());
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

/// Rule: AMEND-WRITE-PROFILE — on the command line, routing precedence
/// rows are written as route-table rows: `rfd-check` finds the edited RFD
/// 083 excerpt (the tool failed for a plain question without a TTY, a
/// plain assistant-targeted one prompted) disagreeing with `rfd083` (exit
/// 1), writes the file over `rfd083`, and agrees with the written file
/// (exit 0). Which rows are written, each from its line, is the unit test
/// beside the writer.
#[test]
fn write_profile_writes_routing_rows() {
    let text = routing_rows_edited();
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

/// Rule: AMEND-WRITE-PROFILE — on the command line, a routing table the
/// base's switches cannot follow row by row (RFD 083's read over
/// `rfd082`) is not written: exit 1, "nothing written to", no file. Which
/// rows are listed, and why, is the unit test beside the writer.
#[test]
fn write_profile_lists_routing_rows_a_switch_decides() {
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
