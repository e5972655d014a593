//! `inquiry-model explain`: a rule of the catalog, its source and tests.

use super::*;

/// `inquiry-model explain`.
#[derive(Args, Debug)]
pub(crate) struct ExplainArgs {
    /// A rule ID from spec/RULES.md, e.g. LIFE-RECORD-FIRST or CHECK-PAIRED.
    #[arg(required_unless_present = "list")]
    pub(crate) rule: Option<String>,
    /// List every rule ID with its title (the first sentence of its text).
    #[arg(long, conflicts_with = "rule")]
    pub(crate) list: bool,
    /// `text`, or `json` (`{"version": 1, "rules": [{id, title}]}` for
    /// `--list`; `{"version": 1, id, section, rule, source, tests}` for a
    /// rule).
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    pub(crate) format: TextOrJson,
}

/// One row of the catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogRow {
    /// The section heading it sits under.
    pub(crate) section: String,
    /// The rule ID.
    pub id: String,
    /// The rule's text.
    pub rule: String,
    /// Its RFD source.
    pub source: String,
    /// The test functions that check it.
    pub tests: Vec<String>,
}

/// Parses the rule catalog's tables (`| ID | rule | source | tests |`).
pub fn catalog(markdown: &str) -> Vec<CatalogRow> {
    let mut section = String::new();
    let mut out = Vec::new();
    for line in markdown.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            section = h.trim().to_owned();
            continue;
        }
        let t = line.trim();
        if !t.starts_with('|') {
            continue;
        }
        let cells: Vec<&str> = t.trim_matches('|').split('|').map(str::trim).collect();
        if cells.len() < 4 || cells[0] == "ID" || cells[0].starts_with("---") {
            continue;
        }
        let tests = cells[3]
            .split('`')
            .enumerate()
            .filter(|(i, s)| i % 2 == 1 && !s.is_empty())
            .map(|(_, s)| s.to_owned())
            .collect();
        out.push(CatalogRow {
            section: section.clone(),
            id: cells[0].trim_matches('`').to_owned(),
            rule: cells[1].to_owned(),
            source: cells[2].to_owned(),
            tests,
        });
    }
    out
}

/// `explain`: prints a rule, its source and its tests.
pub(crate) fn explain_command(args: ExplainArgs) -> i32 {
    let rows = catalog(RULES_MD);
    let json = args.format == TextOrJson::Json;
    let Some(rule) = args.rule.filter(|_| !args.list) else {
        if json {
            let list: Vec<Value> = rows
                .iter()
                .map(|r| serde_json::json!({"id": r.id, "title": title(&r.rule)}))
                .collect();
            out!(
                "{}",
                serde_json::json!({"version": EXPLAIN_JSON_VERSION, "rules": list})
            );
            return EXIT_OK;
        }
        let width = rows.iter().map(|r| r.id.len()).max().unwrap_or(0);
        for r in &rows {
            out!("{:<width$}  {}", r.id, title(&r.rule));
        }
        return EXIT_OK;
    };
    let want = rule.trim().to_uppercase();
    match rows.iter().find(|r| r.id == want) {
        Some(r) if json => {
            out!(
                "{}",
                serde_json::json!({
                    "version": EXPLAIN_JSON_VERSION,
                    "id": r.id,
                    "section": r.section,
                    "rule": r.rule,
                    "source": r.source,
                    "tests": r.tests,
                })
            );
            EXIT_OK
        }
        Some(r) => {
            out!("{}  ({})", r.id, r.section);
            out!("rule:   {}", r.rule);
            out!("source: {}", r.source);
            out!("tests:  {}", r.tests.join(", "));
            EXIT_OK
        }
        None => {
            let prefix = want.split('-').next().unwrap_or("");
            let near: Vec<&str> = rows
                .iter()
                .filter(|r| r.id.starts_with(prefix))
                .map(|r| r.id.as_str())
                .take(12)
                .collect();
            eprintln!(
                "inquiry-model: no rule `{}` in the catalog (spec/RULES.md; `explain --list` lists them){}",
                rule,
                if near.is_empty() {
                    String::new()
                } else {
                    format!("; rules with that prefix: {}", near.join(", "))
                }
            );
            EXIT_UNUSABLE
        }
    }
}

/// A rule's title: the first sentence of its text, Markdown code marks
/// kept, at most 100 characters.
pub fn title(rule: &str) -> String {
    let end = rule
        .char_indices()
        .find(|&(i, c)| c == '.' && rule[i + 1..].starts_with(' '))
        .map_or(rule.len(), |(i, _)| i);
    let first = rule[..end].trim_end_matches('.');
    if first.chars().count() > 100 {
        let cut: String = first.chars().take(99).collect();
        format!("{cut}…")
    } else {
        first.to_owned()
    }
}
