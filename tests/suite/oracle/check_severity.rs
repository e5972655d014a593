//! Every finding is an error or a warning; `check` exits 1
//! on errors only unless `--strict`; text, JSON and SARIF carry the severity
//! (decision "Oracle checks: severity").

use crate::check_support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use check_support::*;
use inquiry_model::check::rules as r;
use serde_json::Value;

struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let d = std::env::temp_dir().join(format!(
            "inquiry-model-severity-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Dir(d)
    }
    fn write(&self, name: &str, s: &S) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, s.bytes()).unwrap();
        p
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn cli(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_inquiry-model"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Rule: CLI-CHECK-SEVERITY — warnings alone exit 0, and 1 under `--strict`;
/// errors exit 1; every text line carries its severity; the JSON document
/// carries it per diagnostic and counts it per file and in the summary.
#[test]
fn cli_exits_on_errors_only_unless_strict_and_prints_severity() {
    let d = Dir::new("exit");
    d.write("warn.jsonl", &legacy_backend_failure());
    let out = cli(&d.0, &["check", "warn.jsonl"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out)
            .starts_with("warn.jsonl: turn 0, event 4 (line 5, column 1): warning: CHECK-PAIRED: "),
        "{}",
        text(&out)
    );
    assert!(
        text(&out).contains("warn.jsonl: clean, 1 warning ("),
        "{}",
        text(&out)
    );
    let out = cli(&d.0, &["check", "--strict", "warn.jsonl"]);
    assert_eq!(out.status.code(), Some(1));
    d.write("err.jsonl", &in_call(|s| s.ask("c1.q.1", boolean())));
    let out = cli(&d.0, &["check", "err.jsonl"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).contains(": error: CHECK-PAIRED: "),
        "{}",
        text(&out)
    );
    let out = cli(
        &d.0,
        &["check", "--format", "json", "warn.jsonl", "err.jsonl"],
    );
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["files"][0]["diagnostics"][0]["severity"], "warning");
    assert_eq!(doc["files"][0]["status"], "clean");
    assert_eq!(doc["files"][0]["warnings"], 1);
    assert_eq!(doc["files"][1]["diagnostics"][0]["severity"], "error");
    assert_eq!(doc["files"][1]["status"], "violations");
    assert_eq!(doc["summary"]["errors"], 1);
    assert_eq!(doc["summary"]["warnings"], 1);
    assert_eq!(doc["summary"]["exit_code"], 1);
}

/// Rule: CLI-CHECK-SARIF — `--format sarif` writes a SARIF 2.1.0 log: the
/// 2.1.0 `$schema` and `version`, one run whose driver lists exactly the
/// catalogued rules, one result per diagnostic with its rule, level, message
/// and location (file URI, and the line and column where the event starts),
/// and unreadable input as a failed execution with a notification.
#[test]
fn cli_sarif_is_a_sarif_2_1_0_log() {
    let d = Dir::new("sarif");
    d.write("warn.jsonl", &legacy_backend_failure());
    d.write("err.jsonl", &in_call(|s| s.ask("c1.q.1", boolean())));
    std::fs::write(d.0.join("cut.jsonl"), b"{\"type\":").unwrap();
    let out = cli(
        &d.0,
        &[
            "check",
            "--format",
            "sarif",
            "warn.jsonl",
            "err.jsonl",
            "cut.jsonl",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let log: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        log["$schema"],
        "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
    );
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    let rules: Vec<&str> = run["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    let want: Vec<&str> = r::ALL.iter().map(|(id, _)| id.id()).collect();
    assert_eq!(rules, want);
    // The catalog's statement of each rule, read here from the catalog's
    // table independently of the binary.
    let catalog =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/RULES.md"))
            .unwrap();
    for rule in run["tool"]["driver"]["rules"].as_array().unwrap() {
        assert!(rule["shortDescription"]["text"].is_string());
        let id = rule["id"].as_str().unwrap();
        let row = catalog
            .lines()
            .find(|l| l.starts_with(&format!("| {id} | ")))
            .unwrap_or_else(|| panic!("{id} has a catalog row"));
        let statement = row.split(" | ").nth(1).unwrap().trim();
        assert_eq!(rule["fullDescription"]["text"], statement, "{id}");
        // No link into the tree the binary was built from.
        assert!(
            !rule["helpUri"].as_str().unwrap_or("").starts_with("file:"),
            "{rule}"
        );
        // SARIF 2.1.0 §3.50.3: reportingConfiguration.level, one of these.
        assert_eq!(rule["defaultConfiguration"]["level"], "error", "{id}");
        assert!(rule["help"]["text"].as_str().unwrap().contains(statement));
    }
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    let expect = [("warn.jsonl", "warning", 5), ("err.jsonl", "error", 3)];
    for (result, (uri, level, line)) in results.iter().zip(expect) {
        assert_eq!(result["ruleId"], "CHECK-PAIRED");
        assert_eq!(result["level"], level);
        assert!(
            result["message"]["text"]
                .as_str()
                .unwrap()
                .contains("has no response")
        );
        let loc = &result["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uri"], uri);
        // JSON Lines: event N starts on line N + 1, column 1.
        assert_eq!(loc["region"]["startLine"], line);
        assert_eq!(loc["region"]["startColumn"], 1);
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index], "CHECK-PAIRED");
    }
    let invocation = &run["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    let notes = invocation["toolExecutionNotifications"].as_array().unwrap();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0]["level"], "error");
    assert_eq!(
        notes[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "cut.jsonl"
    );
}

/// Rule: CLI-CHECK-SARIF — `--rules-uri` sets the catalog address every
/// rule's `helpUri` points into; a base without a scheme is a usage error
/// (exit 2), since SARIF 2.1.0 §3.49.12 wants an absolute URI.
#[test]
fn cli_sarif_rules_uri_is_absolute() {
    let d = Dir::new("sarif-uri");
    d.write("err.jsonl", &in_call(|s| s.ask("c1.q.1", boolean())));
    let base = "https://example.org/repo/blob/main/spec/RULES.md";
    let out = cli(
        &d.0,
        &[
            "check",
            "--format",
            "sarif",
            "--rules-uri",
            base,
            "err.jsonl",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let log: Value = serde_json::from_slice(&out.stdout).unwrap();
    for rule in log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
    {
        let id = rule["id"].as_str().unwrap().to_ascii_lowercase();
        assert_eq!(rule["helpUri"], format!("{base}#{id}"), "{rule}");
    }
    let out = cli(
        &d.0,
        &[
            "check",
            "--format",
            "sarif",
            "--rules-uri",
            "spec/RULES.md",
            "err.jsonl",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not an absolute URI"));
}

/// Rule: CLI-CHECK-SARIF — every rule links its own section of the rule
/// pages (`BASE#check-paired`), no two rules the same link and none a
/// `file:` URI; a relative path is a relative URI with `uriBaseId`
/// `%SRCROOT%` and no `./`; standard input is `stdin`.
#[test]
fn sarif_links_a_page_per_rule_and_locates_files_relatively() {
    let d = Dir::new("sarif-links");
    d.write("err.jsonl", &in_call(|s| s.ask("c1.q.1", boolean())));
    let base = "https://example.org/repo/blob/main/docs/check-rules.md";
    let out = cli(
        &d.0,
        &[
            "check",
            "--format",
            "sarif",
            "--rules-uri",
            base,
            "./err.jsonl",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let log: Value = serde_json::from_slice(&out.stdout).unwrap();
    let run = &log["runs"][0];
    let links: Vec<&str> = run["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["helpUri"].as_str().unwrap())
        .collect();
    let distinct: std::collections::BTreeSet<&&str> = links.iter().collect();
    assert_eq!(distinct.len(), links.len(), "one link per rule: {links:?}");
    let artifact = &run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(artifact["uri"], "err.jsonl");
    assert_eq!(artifact["uriBaseId"], "%SRCROOT%");

    let bytes = in_call(|s| s.ask("c1.q.1", boolean())).bytes();
    let mut child = Command::new(env!("CARGO_BIN_EXE_inquiry-model"))
        .current_dir(&d.0)
        .args(["check", "--format", "sarif", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(&bytes).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let log: Value = serde_json::from_slice(&out.stdout).unwrap();
    let artifact =
        &log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(artifact["uri"], "stdin", "{artifact}");
    for rule in log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
    {
        assert!(
            !rule["helpUri"].as_str().unwrap_or("").starts_with("file:"),
            "{rule}"
        );
    }
}

/// The rule pages every SARIF `helpUri` points into, `docs/check-rules.md`:
/// a section per `CHECK-*` rule whose heading is the rule ID (the anchor the
/// link names) and whose body is the title with where to read the rest,
/// in the catalog's order. `INQUIRY_MODEL_WRITE_DOCS=1` writes it.
#[test]
fn check_rule_pages_follow_the_catalog() {
    let mut want = String::from(
        "# The oracle's rules (`CHECK-*`)\n\n\
         A section per rule `inquiry-model check` reports, in the catalog's order: the\n\
         target of each rule's `helpUri` in `check --format sarif` (the anchor is the\n\
         rule ID in lower case). Each rule's statement, RFD source and tests are its\n\
         row of the catalog, [`spec/RULES.md`](../spec/RULES.md#oracle-checks-check-),\n\
         and `inquiry-model explain RULE` prints them. Written by the test\n\
         `check_rule_pages_follow_the_catalog`.\n",
    );
    for (rule, title) in r::ALL {
        let id = rule.id();
        want.push_str(&format!(
            "\n## {id}\n\n{title}. See the catalog row and `inquiry-model explain {id}`.\n"
        ));
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/check-rules.md");
    if std::env::var_os("INQUIRY_MODEL_WRITE_DOCS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(have, want, "docs/check-rules.md is stale");
}
