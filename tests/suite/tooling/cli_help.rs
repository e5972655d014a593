//! A new user's first ten minutes with the binary: the help lists the
//! allowed values, `explain` lists and cites only what a clone holds,
//! `invariants --format markdown` prints Markdown, and `summary` takes paths
//! and ends as `check` does.

use crate::binary;

use std::path::{Path, PathBuf};

use binary::{code, run, run_in, stderr, stdout};

/// The rule IDs of `spec/RULES.md`, read here with a plain scan of its
/// table rows (not with the binary's catalog parser).
fn catalog_ids() -> Vec<String> {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/RULES.md"))
        .unwrap();
    text.lines()
        .filter_map(|l| l.strip_prefix("| "))
        .filter_map(|l| l.split(" |").next())
        .filter(|id| {
            id.split('-').count() >= 2
                && id.starts_with(|c: char| c.is_ascii_uppercase())
                && id
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '-')
        })
        .map(str::to_owned)
        .collect()
}

/// A folder under the system temp dir, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let p =
            std::env::temp_dir().join(format!("inquiry-model-help-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Rule: CLI-HELP — every option that takes a profile names the built-ins
/// and profile files in its own `--help` text (no `[possible values: …]`,
/// which would leave files out), and a wrong value is refused with the
/// built-ins (exit 2).
#[test]
fn profile_options_list_their_values() {
    // The option's own text names every built-in and profile files; no
    // `[possible values: …]`, which would say the built-ins are all it takes.
    let cases: [(&[&str], &str); 7] = [
        (&["check", "--help"], "--profile"),
        (&["diff-profiles", "--help"], "--from"),
        (&["diff-profiles", "--help"], "--to"),
        (&["invariants", "--help"], "--profile"),
        (&["run", "--help"], "--profile"),
        (&["rfd-check", "--help"], "--profile"),
        (&["conform", "--help"], "--profile"),
    ];
    for (args, option) in cases {
        let out = run(args);
        assert_eq!(code(&out), 0);
        let text = stdout(&out);
        let at = text
            .find(&format!("\n      {option} <"))
            .unwrap_or_else(|| panic!("{args:?}: no {option}"));
        let own = text[at..].split("\n\n").next().unwrap_or_default();
        for p in inquiry_model::profile::ProfileName::ALL {
            assert!(
                own.contains(&format!("`{}`", p.as_str())),
                "{args:?}: {option} does not name {p:?}:\n{own}"
            );
        }
        assert!(own.contains("profile file"), "{args:?}: {option}:\n{own}");
        assert!(
            !own.contains("[possible values:"),
            "{args:?}: {option} lists possible values:\n{own}"
        );
    }
    for args in [
        &["diff-profiles", "--from", "rfd999", "--to", "rfd082"][..],
        &["diff-profiles", "--from", "legacy", "--to", "nope"][..],
        &["invariants", "--profile", "rfd084"][..],
        &["check", "--profile", "rfd084", "spec/examples"][..],
    ] {
        let out = run(args);
        assert_eq!(code(&out), 2, "{args:?}");
        assert!(
            stderr(&out).contains("legacy, rfd082, rfd083"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
}

/// Rule: CLI-EXPLAIN — `explain --list` prints every rule of the catalog
/// once, in catalog order, each with a title; and no rule's explanation
/// cites a file outside the repository.
#[test]
fn explain_lists_every_rule_and_cites_only_the_repository() {
    let ids = catalog_ids();
    assert!(ids.len() > 150, "{} rules", ids.len());
    let out = run(&["explain", "--list"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    let listed: Vec<&str> = text
        .lines()
        .map(|l| l.split_whitespace().next().unwrap_or(""))
        .collect();
    assert_eq!(listed, ids);
    for line in text.lines() {
        let title = line.split_once(' ').map_or("", |(_, t)| t.trim());
        assert!(!title.is_empty(), "no title: {line}");
    }
    for id in &ids {
        let out = run(&["explain", id]);
        assert_eq!(code(&out), 0, "{id}");
        let text = stdout(&out);
        assert!(text.starts_with(id.as_str()), "{text}");
        assert!(
            !text.contains("../"),
            "{id} cites outside the repository:\n{text}"
        );
    }
    // Every repository path it cites exists.
    let rules =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/RULES.md"))
            .unwrap();
    for cited in rules.split('`').skip(1).step_by(2) {
        let looks_like_path = (cited.starts_with("spec/")
            || cited.starts_with("src/")
            || cited.starts_with("tests/")
            || cited.starts_with("examples/"))
            && !cited.contains(' ')
            && !cited.contains('*');
        if looks_like_path {
            let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(cited.trim_end_matches('/'));
            assert!(
                p.exists(),
                "spec/RULES.md cites {cited}, which does not exist"
            );
        }
    }
    let none = run(&["explain"]);
    assert_eq!(code(&none), 2);
    let unknown_id = format!("CHECK-{}", "NOPE");
    let unknown = run(&["explain", &unknown_id]);
    assert_eq!(code(&unknown), 2);
    assert!(stderr(&unknown).contains("--list"), "{}", stderr(&unknown));
}

/// Rule: CLI-HELP — `invariants --format markdown` prints a Markdown table:
/// a heading, a header row, a separator, then one row per invariant with
/// the same number of cells (pipes inside cells escaped).
#[test]
fn invariants_markdown_is_a_table() {
    let out = run(&[
        "invariants",
        "--profile",
        "legacy",
        "--format",
        "markdown",
        "--stride",
        "2000",
        "--sample",
        "30",
    ]);
    // Legacy violates invariants RFD 082 fixes: a finding, exit 1.
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let text = stdout(&out);
    // The table, then each failing invariant's counterexample drawn
    // (AMEND-GATE) under its own heading.
    let (table, pictures) = text.split_once("\n#### ").unwrap_or((&text, ""));
    assert!(pictures.contains("```mermaid\nsequenceDiagram"), "{text}");
    let lines: Vec<&str> = table.lines().filter(|l| !l.is_empty()).collect();
    assert!(lines[0].starts_with("### "), "{text}");
    assert_eq!(
        lines[1],
        "| invariant | verdict | smallest counterexample |"
    );
    assert_eq!(lines[2], "|---|---|---|");
    let cells = |l: &str| l.replace("\\|", "").matches('|').count();
    assert!(lines.len() > 5, "{text}");
    for row in &lines[3..] {
        assert!(row.starts_with("| `") && row.ends_with('|'), "{row}");
        assert_eq!(cells(row), 4, "{row}");
    }
    // Under legacy some invariant fails (the pre-082 gaps), so a
    // counterexample cell is exercised.
    assert!(
        lines[3..].iter().any(|l| l.contains("violated in")),
        "{text}"
    );
}

/// Rule: CLI-SUMMARY-PATHS — `summary` walks paths as `check` does and ends
/// like it: a folder with no stream is exit 2 naming the folder, a
/// conversation folder yields only its `events.json`, no path is a usage
/// error (2), and it works from any working directory.
#[test]
fn summary_takes_paths_like_check() {
    let dir = TempDir::new("summary");
    let empty = dir.0.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::write(empty.join("notes.txt"), "not a stream").unwrap();
    let out = run(&["summary", empty.to_str().unwrap()]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains(empty.to_str().unwrap()),
        "{}",
        stderr(&out)
    );
    let check = run(&["check", empty.to_str().unwrap()]);
    assert_eq!(code(&check), 2);

    let conv = dir.0.join("conv");
    std::fs::create_dir_all(&conv).unwrap();
    std::fs::write(
        conv.join("events.json"),
        r#"[{"type":"turn_start"},{"type":"chat_request","content":"hi"}]"#,
    )
    .unwrap();
    std::fs::write(conv.join("metadata.json"), r#"{"title":"x"}"#).unwrap();
    // From another working directory, with an absolute path.
    let out = run_in(&dir.0, &["summary", conv.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("events.json: 2 events in 1 turn"), "{text}");
    assert!(!text.contains("metadata.json"), "{text}");
    // And with a relative one.
    let out = run_in(&dir.0, &["summary", "conv"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));

    // One unusable input among good ones: 2, the good ones still printed.
    let out = run(&[
        "summary",
        conv.to_str().unwrap(),
        dir.0.join("missing.json").to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 2);
    assert!(stdout(&out).contains("2 events"), "{}", stdout(&out));
    assert!(stderr(&out).contains("missing.json"), "{}", stderr(&out));

    let none = run(&["summary"]);
    assert_eq!(code(&none), 2);
}
