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
