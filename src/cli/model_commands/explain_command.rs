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
                .map(|r| serde_json::json!({"id": r.id, "title": first_sentence(&r.rule)}))
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
            if let Some(near) = nearest(&want, &rows) {
                eprintln!(
                    "inquiry-model: no rule `{rule}` in the catalog (spec/RULES.md); did you mean {}?",
                    near.join(" or ")
                );
                return EXIT_UNUSABLE;
            }
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

/// The rule IDs nearest to `want` by edit distance, when a typo explains
/// it: at most 2 edits, and fewer than a third of its characters (a
/// different rule is not offered as a correction).
fn nearest<'a>(want: &str, rows: &'a [CatalogRow]) -> Option<Vec<&'a str>> {
    let limit = (want.chars().count() / 3).clamp(1, 2);
    let scored: Vec<(usize, &str)> = rows
        .iter()
        .map(|r| (edit_distance(want, &r.id), r.id.as_str()))
        .filter(|&(d, _)| d <= limit)
        .collect();
    let best = scored.iter().map(|&(d, _)| d).min()?;
    Some(
        scored
            .into_iter()
            .filter(|&(d, _)| d == best)
            .map(|(_, id)| id)
            .collect(),
    )
}

/// Levenshtein distance (insertions, deletions and substitutions of
/// characters).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

/// A rule's first sentence, whole, Markdown code marks kept: it ends at
/// the first `. ` outside parentheses and code spans (so `(e.g. …)` and
/// `` `a.b. c` `` do not end it).
pub(crate) fn first_sentence(rule: &str) -> String {
    let (mut depth, mut code) = (0usize, false);
    let mut end = rule.len();
    for (i, c) in rule.char_indices() {
        match c {
            '`' => code = !code,
            '(' if !code => depth += 1,
            ')' if !code => depth = depth.saturating_sub(1),
            '.' if !code && depth == 0 && rule[i + 1..].starts_with(' ') => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    rule[..end].trim_end_matches('.').to_owned()
}

/// A rule's title: [`first_sentence`], at most 100 characters (`…` where
/// it was cut).
pub fn title(rule: &str) -> String {
    let first = first_sentence(rule);
    if first.chars().count() > 100 {
        let cut: String = first.chars().take(99).collect();
        format!("{cut}…")
    } else {
        first
    }
}
