//! The rule catalog (`spec/RULES.md`) and the code agree: every rule has a
//! test that exists, and every rule ID the code and tests cite is in the
//! catalog.

use inquiry_model::cli::model_commands::catalog;
use std::collections::BTreeSet;
use std::path::Path;

const PREFIXES: [&str; 14] = [
    "WIRE", "STREAM", "LIFE", "CLI", "SCHEMA", "PERF", "ASK", "PROMPT", "CONFIG", "CHECK", "INV",
    "AMEND", "CONF", "FUZZ",
];

fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push((
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap_or_default(),
            ));
        }
    }
}

/// Rule IDs cited in a text: a known prefix, `-`, then capitals, digits
/// and dashes, not ending in `-` (wildcards like `CHECK-*` are not IDs).
fn cited(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let bytes = text.as_bytes();
    for prefix in PREFIXES {
        let pat = format!("{prefix}-");
        let mut from = 0;
        while let Some(i) = text[from..].find(&pat) {
            let start = from + i;
            let before = start.checked_sub(1).map(|j| bytes[j]);
            let mut end = start + pat.len();
            while end < bytes.len()
                && (bytes[end].is_ascii_uppercase()
                    || bytes[end].is_ascii_digit()
                    || bytes[end] == b'-')
            {
                end += 1;
            }
            let id = text[start..end].trim_end_matches('-');
            let word_start =
                !before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
            let wildcard = bytes.get(end) == Some(&b'*');
            if word_start && !wildcard && id.len() > pat.len() {
                out.insert(id.to_owned());
            }
            from = end.max(start + 1);
        }
    }
    out
}

/// Rule: every row — each rule in the catalog names at least one test, and
/// every named test exists as a function (a Rust test, or a shell function
/// of a `.ci/` check).
#[test]
fn every_rule_has_a_test_that_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rules = catalog(&std::fs::read_to_string(root.join("spec/RULES.md")).unwrap());
    assert!(rules.len() > 100, "only {} rules parsed", rules.len());
    let mut files = Vec::new();
    sources(&root.join("tests"), &mut files);
    sources(&root.join("src"), &mut files);
    let all: String = files.iter().map(|(_, t)| t.as_str()).collect();
    // The repository checks `make test` runs from `.ci/` (they run cargo
    // themselves) are shell functions.
    let ci: String = std::fs::read_dir(root.join(".ci"))
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .collect();
    let mut missing = Vec::new();
    for r in &rules {
        if r.tests.is_empty() {
            missing.push(format!("{}: no test named", r.id));
        }
        for t in &r.tests {
            if !all.contains(&format!("fn {t}("))
                && !all.contains(&format!("fn {t}<"))
                && !ci.contains(&format!("\n{t}() {{"))
            {
                missing.push(format!("{}: test `{t}` does not exist", r.id));
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// Rule: every citation — each rule ID cited in `src/` or `tests/` is in the
/// catalog, and no ID is listed twice.
#[test]
fn every_cited_rule_is_in_the_catalog() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rules = catalog(&std::fs::read_to_string(root.join("spec/RULES.md")).unwrap());
    let ids: BTreeSet<&str> = rules.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids.len(), rules.len(), "a rule ID is listed twice");
    let mut files = Vec::new();
    sources(&root.join("tests"), &mut files);
    sources(&root.join("src"), &mut files);
    let mut unknown = Vec::new();
    for (path, text) in &files {
        for id in cited(text) {
            // A family name (`STREAM-SANITIZE`) is a prefix of catalog IDs.
            let family = ids.iter().any(|x| x.starts_with(&format!("{id}-")));
            if !ids.contains(id.as_str()) && !family {
                unknown.push(format!("{path}: {id}"));
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "rule IDs cited but not in spec/RULES.md:\n{}",
        unknown.join("\n")
    );
}

/// Rule: every citation — the `Rule` type and the catalog list the same
/// `CHECK-*` and `INV-*` IDs: each variant's ID is a row of
/// `spec/RULES.md`, and each `CHECK-`/`INV-` row is a variant, so a
/// diagnostic can only name a catalogued rule and no catalogued rule lacks
/// its name in code.
#[test]
fn rule_type_and_catalog_agree() {
    use inquiry_model::rule::Rule;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rules = catalog(&std::fs::read_to_string(root.join("spec/RULES.md")).unwrap());
    let rows: BTreeSet<&str> = rules
        .iter()
        .map(|r| r.id.as_str())
        .filter(|id| id.starts_with("CHECK-") || id.starts_with("INV-"))
        .collect();
    let variants: BTreeSet<&str> = Rule::ALL.iter().map(|r| r.id()).collect();
    assert_eq!(
        variants.len(),
        Rule::ALL.len(),
        "a variant's ID is repeated"
    );
    let missing_rows: Vec<_> = variants.difference(&rows).collect();
    let missing_variants: Vec<_> = rows.difference(&variants).collect();
    assert!(
        missing_rows.is_empty() && missing_variants.is_empty(),
        "variants without a catalog row: {missing_rows:?}; rows without a variant: {missing_variants:?}"
    );
    // The oracle's own list names exactly the `CHECK-*` variants.
    let checks: BTreeSet<&str> = inquiry_model::check::rules::ALL
        .iter()
        .map(|(r, _)| r.id())
        .collect();
    let check_variants: BTreeSet<&str> = variants
        .iter()
        .copied()
        .filter(|id| id.starts_with("CHECK-"))
        .collect();
    assert_eq!(checks, check_variants);
}

/// Text as a reader sees it: comment markers (`///`, `//!`, `//`) at the
/// start of a line dropped and every run of whitespace one space, so a copy
/// of a sentence is found however it was wrapped.
/// A comment that states the rule a test checks (`Rule: ID — …`, as the
/// house rule for property tests asks) is left out: it names its ID.
fn reading_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut stating_a_rule = false;
    for line in text.lines() {
        let t = line.trim_start();
        let comment = t.starts_with("//");
        stating_a_rule = comment && (stating_a_rule || t.contains("Rule: "));
        if stating_a_rule {
            continue;
        }
        let t = t
            .strip_prefix("///")
            .or_else(|| t.strip_prefix("//!"))
            .or_else(|| t.strip_prefix("//"))
            .unwrap_or(t);
        out.push_str(t.trim());
        out.push(' ');
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Every file a reader of the repository reads prose in, under `dir`:
/// Rust sources and Markdown, outside build output and fuzz corpora.
fn prose_files(dir: &Path, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if p.is_dir() {
            if !matches!(name, "target" | "corpus" | "findings" | "vectors" | "work") {
                prose_files(&p, out);
            }
        } else if ["rs", "md", "toml", "yml", "yaml", "sh", "py", "tsv", "json"]
            .iter()
            .any(|x| p.extension().is_some_and(|e| e == *x))
            || name == "Makefile"
            || name == "run"
        {
            out.push((
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap_or_default(),
            ));
        }
    }
}

/// Rule: every row — a rule's text lives once, in `spec/RULES.md`: the code
/// reads it from there (`Rule::description`, `Rule::source`, which a second
/// parser here confirms for every variant), each variant's doc comment is
/// only its ID and short title (`Rule::title`, shorter than the text), and
/// no other file of `src/`, `examples/`, `docs/` or the README holds a copy
/// of a rule's text that could drift from the catalog.
#[test]
fn rule_text_lives_once_in_the_catalog() {
    use inquiry_model::rule::Rule;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rules = catalog(&std::fs::read_to_string(root.join("spec/RULES.md")).unwrap());
    let mut wrong = Vec::new();

    // The code reads the catalog's own cells.
    for r in Rule::ALL {
        match rules.iter().find(|row| row.id == r.id()) {
            Some(row) => {
                if r.description() != row.rule {
                    wrong.push(format!("{}: description() is not its catalog text", r.id()));
                }
                if r.source() != row.source {
                    wrong.push(format!("{}: source() is not its catalog source", r.id()));
                }
                if r.title().len() >= row.rule.len() {
                    wrong.push(format!("{}: its title is as long as its text", r.id()));
                }
            }
            None => wrong.push(format!("{}: no catalog row", r.id())),
        }
    }

    // Each variant's doc comment is `ID`: title, and nothing else.
    let rule_rs = std::fs::read_to_string(root.join("src/rule.rs")).unwrap();
    let body = &rule_rs[rule_rs.find("pub enum Rule {").unwrap()..];
    let body = &body[..body.find("\n}\n").unwrap()];
    let mut doc = Vec::new();
    for line in body.lines().skip(1) {
        let t = line.trim();
        if let Some(d) = t.strip_prefix("///") {
            doc.push(d.trim().to_owned());
        } else if let Some(variant) = t.strip_suffix(',') {
            let Some(r) = Rule::ALL.iter().find(|r| format!("{r:?}") == variant) else {
                wrong.push(format!(
                    "src/rule.rs: variant {variant} is not in Rule::ALL"
                ));
                doc.clear();
                continue;
            };
            let expected = format!("`{}`: {}.", r.id(), r.title());
            let found = doc.join(" ");
            if found != expected {
                wrong.push(format!(
                    "src/rule.rs: {variant}'s doc comment is {found:?}, not {expected:?} (its text belongs in spec/RULES.md)"
                ));
            }
            doc.clear();
        }
    }

    // No copy of a rule's text elsewhere: a text long enough to be more
    // than a title is looked for by its first 100 characters.
    let mut files = Vec::new();
    for dir in ["src", "examples", "docs", "benches"] {
        prose_files(&root.join(dir), &mut files);
    }
    files.push((
        "README.md".to_owned(),
        std::fs::read_to_string(root.join("README.md")).unwrap(),
    ));
    let texts: Vec<(String, String)> = files
        .iter()
        .map(|(p, t)| (p.clone(), reading_text(t)))
        .collect();
    for row in &rules {
        let text = reading_text(&row.rule);
        if text.chars().count() <= 120 {
            continue;
        }
        let start: String = text.chars().take(100).collect();
        for (path, t) in &texts {
            if t.contains(&start) {
                wrong.push(format!(
                    "{path}: holds a copy of {}'s text (cite the ID; the text lives in spec/RULES.md)",
                    row.id
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Where a text cites a tracker, as (line, excerpt): the word `issue` or
/// `issues` followed by a number (`#` allowed, any case, a list or a
/// possessive after it), `goal` with a number and `of`, `PR` with `#` and a
/// number. The word alone ("an issue", "the goal of") is prose, not a
/// citation. (This comment spells no citation out, so the scan can read the
/// file it lives in; the examples are built at run time below.)
fn tracker_references(text: &str) -> Vec<(usize, String)> {
    let mut hits = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let lower = line.to_ascii_lowercase();
        let bytes = lower.as_bytes();
        let words: [(&str, bool); 3] = [("issue", true), ("pr", false), ("goal", true)];
        for (word, plural) in words {
            let mut from = 0;
            while let Some(i) = lower[from..].find(word) {
                let start = from + i;
                from = start + word.len();
                let before = start.checked_sub(1).map(|j| bytes[j]);
                if before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_') {
                    continue;
                }
                let mut k = start + word.len();
                if plural && bytes.get(k) == Some(&b's') {
                    k += 1;
                }
                // `PR` counts only with `#`: "pr 3" is rarely a citation.
                let hash_needed = word == "pr";
                let mut saw_gap = false;
                while bytes.get(k) == Some(&b' ') {
                    k += 1;
                    saw_gap = true;
                }
                let hash = bytes.get(k) == Some(&b'#');
                if hash {
                    k += 1;
                }
                let digit = bytes.get(k).is_some_and(u8::is_ascii_digit);
                let cites = digit && (saw_gap || hash) && (!hash_needed || hash);
                // `goal N` only as "goal N of ..." (a tracker's list).
                let cites = cites
                    && (word != "goal" || {
                        let mut e = k;
                        while bytes.get(e).is_some_and(u8::is_ascii_digit) {
                            e += 1;
                        }
                        lower[e..].starts_with(" of ")
                    });
                if cites {
                    hits.push((n + 1, line.trim().chars().take(120).collect()));
                }
            }
        }
    }
    hits
}

/// The tracker scan fires on each citation form and not on the word alone;
/// the citations are built at run time so this file never holds one.
#[test]
fn tracker_references_are_recognised() {
    let issue = "issue";
    for cited in [
        format!("see {issue} 12"),
        format!("({issue}s 8, 14)"),
        format!("{issue} #12"),
        format!("Is{} 19's goal", &issue[2..]),
        format!("{} 3 of {issue} 19", "goal"),
        format!("PR #{}", 4),
    ] {
        assert!(
            !tracker_references(&cited).is_empty(),
            "{cited:?} not found"
        );
    }
    for prose in [
        format!("an {issue} with the reader"),
        format!("the {issue}s a stream raises"),
        "the goal of 10x".to_owned(),
        "goal 2".to_owned(),
        "express 3 items".to_owned(),
        "tissue 4".to_owned(),
    ] {
        assert!(tracker_references(&prose).is_empty(), "{prose:?} flagged");
    }
}

/// Code and documents say what holds, not which tracker entry asked for it:
/// no file a reader of the repository reads (sources, tests, spec, docs,
/// examples, benches, scripts, fuzz targets, CI, the README, the Makefile,
/// Cargo.toml) cites a tracker number.
#[test]
fn no_tracker_numbers_in_code_or_documents() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in [
        "src", "tests", "spec", "docs", "examples", "benches", "scripts", "fuzz", ".github", ".ci",
    ] {
        prose_files(&root.join(dir), &mut files);
    }
    for name in ["README.md", "Makefile", "Cargo.toml", "build.rs"] {
        if let Ok(t) = std::fs::read_to_string(root.join(name)) {
            files.push((name.to_owned(), t));
        }
    }
    assert!(files.len() > 100, "only {} files scanned", files.len());
    let mut hits = Vec::new();
    for (path, text) in &files {
        for (line, excerpt) in tracker_references(text) {
            hits.push(format!("{path}:{line}: {excerpt}"));
        }
    }
    assert!(
        hits.is_empty(),
        "tracker references (say what holds instead):\n{}",
        hits.join("\n")
    );
}
