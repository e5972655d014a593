//! The subcommands that run the model: `run`, `vectors`, `explain`,
//! `explore`, `diff-profiles`, `invariants`.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use clap::builder::TypedValueParser;
use clap::{Args, ValueEnum};
use serde_json::Value;

use super::{EXIT_OK, EXIT_UNUSABLE, EXIT_VIOLATIONS};
use crate::amend;
use crate::conformance;
use crate::explore::{self, Family};
use crate::profile_file::RuleSet;
use crate::scenario::{self, Scenario};

/// The rule catalog, compiled in so `explain` works from any directory.
const RULES_MD: &str = include_str!("../../spec/RULES.md");

/// `println!` that ends the command with exit 2 instead of a panic when
/// stdout is closed (e.g. piped into `head`).
macro_rules! out {
    ($($arg:tt)*) => {
        if writeln!(std::io::stdout(), $($arg)*).is_err() {
            return EXIT_UNUSABLE;
        }
    };
}

/// `print!` with the same behaviour as [`out!`].
macro_rules! out_raw {
    ($($arg:tt)*) => {
        if write!(std::io::stdout(), $($arg)*).is_err() {
            return EXIT_UNUSABLE;
        }
    };
}

/// `inquiry-model run`.
#[derive(Args, Debug)]
#[command(after_help = "\
The scenario is a JSON document (see spec/vectors/*.json, field `scenario`, \
for examples). The trace printed is JSON: the persisted stream as the \
profile's writer puts it on disk, every tool invocation with the answers it \
received, every prompt shown, every inquiry-backend call, how each question \
was resolved, the remembered keys at each turn's end, and every tool \
response.")]
pub struct RunArgs {
    /// The scenario file (or a conformance vector, whose `scenario` is run),
    /// or `-` for stdin.
    pub scenario: PathBuf,
    /// Run under this profile (a built-in or a profile file) instead of the
    /// scenario's own.
    #[arg(long, value_parser = profile_parser())]
    pub profile: Option<RuleSet>,
    /// `json`: the trace; `mermaid`: a sequence diagram of the run (tool,
    /// coordinator, prompter, inquiry backend, persisted stream).
    #[arg(long, value_enum, default_value_t = RunFormat::Json)]
    pub format: RunFormat,
}

/// Output formats of `run`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RunFormat {
    /// The trace as JSON.
    Json,
    /// A Mermaid sequence diagram.
    Mermaid,
}

/// `inquiry-model vectors`.
#[derive(Args, Debug)]
#[command(after_help = "\
Writes one `<name>.json` per vector ({name, description, rules, scenario, \
expected}) and an `index.json`. The curated vectors cover every routing path, \
guard and cancellation reason; `--count` generated ones follow, drawn with \
`--seed`. The output is deterministic for its arguments; the committed set in \
spec/vectors/ is `--seed 1 --count 20`.")]
pub struct VectorsArgs {
    /// The folder to write to (created if missing).
    #[arg(long)]
    pub out: PathBuf,
    /// Seed of the generated vectors.
    #[arg(long, default_value_t = conformance::COMMITTED.0)]
    pub seed: u64,
    /// How many generated vectors.
    #[arg(long, default_value_t = conformance::COMMITTED.1)]
    pub count: usize,
}

/// `inquiry-model explain`.
#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// A rule ID from spec/RULES.md, e.g. LIFE-RECORD-FIRST or CHECK-PAIRED.
    #[arg(required_unless_present = "list")]
    pub rule: Option<String>,
    /// List every rule ID with its title (the first sentence of its text).
    #[arg(long, conflicts_with = "rule")]
    pub list: bool,
}

/// `inquiry-model explore`.
#[derive(Args, Debug)]
#[command(after_help = "\
Enumerates every scenario of the small scope (see src/explore.rs for the \
bounds: 680 448 scenarios in two families) and checks every invariant after \
every step and at the end. Exit 1 if any scenario violates an invariant \
(the legacy profile's known gaps are counted, not failed).")]
pub struct ExploreArgs {
    /// Check only every Nth scenario (1: the complete enumeration).
    #[arg(long, default_value_t = 1)]
    pub stride: usize,
}

/// Output formats of the amendment tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// Per class, the smallest scenario and both traces side by side.
    Text,
    /// A table to paste into an RFD discussion.
    Markdown,
    /// The whole report as JSON.
    Json,
}

/// `inquiry-model diff-profiles`.
#[derive(Args, Debug)]
#[command(after_help = "\
Runs the same scenarios (one in every --stride of the exhaustive small scope, \
plus --sample drawn with --seed) under both profiles and classifies every \
difference: events recorded or not, response outcomes and reasons, ID and \
response shapes, tool invocations and the answers tools saw, prompts, backend \
calls, and the tool response text. Per class: how many scenarios show it and \
the smallest one.")]
pub struct DiffArgs {
    /// The old rule set (a built-in or a profile file).
    #[arg(long, value_parser = profile_parser())]
    pub from: RuleSet,
    /// The new rule set (a built-in or a profile file).
    #[arg(long, value_parser = profile_parser())]
    pub to: RuleSet,
    /// Take one in every N scenarios of the small scope.
    #[arg(long, default_value_t = 7)]
    pub stride: usize,
    /// How many random scenarios to add.
    #[arg(long, default_value_t = 1000)]
    pub sample: usize,
    /// Seed of the random scenarios.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    pub format: ReportFormat,
}

/// `inquiry-model invariants`.
#[derive(Args, Debug)]
#[command(after_help = "\
Lists every invariant of the catalog with `holds` or the number of scenarios \
that violate it under the profile, and the smallest counterexample. \
`--matrix` prints the invariant x profile matrix committed as \
spec/invariants.md instead.")]
pub struct InvariantsArgs {
    /// The profile to judge (a built-in or a profile file).
    #[arg(long, value_parser = profile_parser(), required_unless_present = "matrix")]
    pub profile: Option<RuleSet>,
    /// Print the committed matrix (all profiles) instead.
    #[arg(long)]
    pub matrix: bool,
    /// Take one in every N scenarios of the small scope.
    #[arg(long, default_value_t = amend::MATRIX_SCENARIOS.0)]
    pub stride: usize,
    /// How many random scenarios to add.
    #[arg(long, default_value_t = amend::MATRIX_SCENARIOS.1)]
    pub sample: usize,
    /// Seed of the random scenarios.
    #[arg(long, default_value_t = amend::MATRIX_SCENARIOS.2)]
    pub seed: u64,
    /// Output format (`text` or `json`).
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    pub format: ReportFormat,
}

/// `--profile`, `--from`, `--to`: a built-in profile (listed in `--help`
/// and in the error for any other value) or a profile file.
fn profile_parser() -> impl TypedValueParser<Value = RuleSet> {
    super::profile_arg::RuleSetParser
}

fn read_input(path: &PathBuf) -> Result<String, String> {
    if path.as_os_str() == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
            .map_err(|e| format!("<stdin>: cannot read: {e}"))?;
        Ok(s)
    } else {
        std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))
    }
}

/// `run`: prints the trace of a scenario as JSON.
pub fn run_command(args: RunArgs) -> i32 {
    let name = if args.scenario.as_os_str() == "-" {
        "<stdin>".to_owned()
    } else {
        args.scenario.display().to_string()
    };
    let text = match read_input(&args.scenario) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("inquiry-model: {e}");
            return EXIT_UNUSABLE;
        }
    };
    // A conformance vector holds its scenario under `scenario`.
    let text = match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(mut m)) if m.contains_key("expected") && m.contains_key("scenario") => {
            m.remove("scenario").map(|v| v.to_string()).unwrap_or(text)
        }
        Ok(_) | Err(_) => text,
    };
    let mut s: Scenario = match serde_json::from_str(&text) {
        Ok(s) => s,
        Err(e) => {
            eprintln!(
                "inquiry-model: {name}: line {}, column {}: not a scenario: {}",
                e.line(),
                e.column(),
                strip(&e.to_string())
            );
            return EXIT_UNUSABLE;
        }
    };
    let rules = match &args.profile {
        Some(p) => {
            s.profile = p.judged_as;
            p.rules
        }
        None => s.profile.rules(),
    };
    if args.format == RunFormat::Mermaid {
        return match crate::mermaid::sequence(&s, rules) {
            Ok(d) => {
                out_raw!("{d}");
                EXIT_OK
            }
            Err(e) => {
                eprintln!("inquiry-model: {name}: the scenario cannot run: {e}");
                EXIT_UNUSABLE
            }
        };
    }
    match scenario::run_under(&s, rules, Default::default(), &mut |_, _| {}) {
        Ok(t) => {
            let mut v = serde_json::to_value(&t).unwrap_or(Value::Null);
            if let Value::Object(m) = &mut v {
                m.insert("stream".to_owned(), t.persisted_json());
            }
            out!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
            EXIT_OK
        }
        Err(e) => {
            eprintln!("inquiry-model: {name}: the scenario cannot run: {e}");
            EXIT_UNUSABLE
        }
    }
}

fn strip(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_owned(),
        None => msg.to_owned(),
    }
}

/// `vectors`: writes the conformance vectors.
pub fn vectors_command(args: VectorsArgs) -> i32 {
    let vectors = match conformance::vectors(args.seed, args.count) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("inquiry-model: {e}");
            return EXIT_UNUSABLE;
        }
    };
    if let Err(e) = std::fs::create_dir_all(&args.out) {
        eprintln!("inquiry-model: {}: cannot create: {e}", args.out.display());
        return EXIT_UNUSABLE;
    }
    let files = conformance::vector_files(&vectors);
    for (name, text) in &files {
        let path = args.out.join(name);
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("inquiry-model: {}: cannot write: {e}", path.display());
            return EXIT_UNUSABLE;
        }
    }
    out!(
        "wrote {} vectors ({} curated, {} generated with seed {}) to {}",
        vectors.len(),
        vectors.len() - args.count.min(vectors.len()),
        args.count,
        args.seed,
        args.out.display()
    );
    EXIT_OK
}

/// One row of the catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogRow {
    /// The section heading it sits under.
    pub section: String,
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
pub fn explain_command(args: ExplainArgs) -> i32 {
    let rows = catalog(RULES_MD);
    let Some(rule) = args.rule.filter(|_| !args.list) else {
        let width = rows.iter().map(|r| r.id.len()).max().unwrap_or(0);
        for r in &rows {
            out!("{:<width$}  {}", r.id, title(&r.rule));
        }
        return EXIT_OK;
    };
    let want = rule.trim().to_uppercase();
    match rows.iter().find(|r| r.id == want) {
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

/// `explore`: the exhaustive small-scope enumeration.
pub fn explore_command(args: ExploreArgs) -> i32 {
    let start = Instant::now();
    let report = explore::explore(&[Family::Single, Family::Pairs], args.stride);
    let secs = start.elapsed().as_secs_f64().max(1e-9);
    let total = report.total();
    out!(
        "checked {total} scenarios ({} single, {} pairs; stride {}) and {} coordinator steps in {:.1} s: {:.0} scenarios/s",
        report.scenarios.get("single").copied().unwrap_or(0),
        report.scenarios.get("pairs").copied().unwrap_or(0),
        args.stride,
        report.steps,
        secs,
        total as f64 / secs
    );
    out!(
        "per profile: {}",
        report
            .per_profile
            .iter()
            .map(|(p, n)| format!("{p} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    out!(
        "legacy known gaps (counted, not failed): {}",
        report
            .legacy_known_gaps
            .iter()
            .map(|(r, n)| format!("{r} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    out!(
        "violations: {}; scenarios the model refused: {}",
        report.violations.len(),
        report.errors.len()
    );
    for (s, v) in report.violations.iter().take(5) {
        out!(
            "violation: {}\n  scenario: {}",
            v.join("\n  "),
            serde_json::to_string(s).unwrap_or_default()
        );
    }
    for (s, e) in report.errors.iter().take(5) {
        out!(
            "refused: {e}\n  scenario: {}",
            serde_json::to_string(s).unwrap_or_default()
        );
    }
    if report.violations.is_empty() && report.errors.is_empty() {
        EXIT_OK
    } else {
        EXIT_VIOLATIONS
    }
}

/// `diff-profiles`.
pub fn diff_command(args: DiffArgs) -> i32 {
    let scenarios = amend::scenarios(args.stride, args.sample, args.seed);
    let mut report = amend::diff_profiles(args.from.clone(), args.to.clone(), &scenarios);
    report.broken_invariants = amend::regressions(&args.from, &args.to, &scenarios);
    match args.format {
        ReportFormat::Text => out_raw!("{}", report.text()),
        ReportFormat::Markdown => out_raw!("{}", report.markdown()),
        ReportFormat::Json => out!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        ),
    }
    // The CI gate (AMEND-GATE): the target breaks an invariant the base kept.
    if report.broken_invariants.is_empty() {
        EXIT_OK
    } else {
        EXIT_VIOLATIONS
    }
}

/// `invariants`.
pub fn invariants_command(args: InvariantsArgs) -> i32 {
    if args.matrix {
        out_raw!("{}", amend::committed_matrix());
        return EXIT_OK;
    }
    let Some(profile) = args.profile else {
        eprintln!("inquiry-model: --profile or --matrix is required");
        return EXIT_UNUSABLE;
    };
    let scenarios = amend::scenarios(args.stride, args.sample, args.seed);
    let verdicts = amend::invariants(profile.clone(), &scenarios);
    match args.format {
        ReportFormat::Json => out!(
            "{}",
            serde_json::to_string_pretty(&verdicts).unwrap_or_default()
        ),
        ReportFormat::Markdown => {
            out!(
                "### Invariants under `{profile}` ({} scenarios)\n",
                scenarios.len()
            );
            out!("| invariant | verdict | smallest counterexample |");
            out!("|---|---|---|");
            for v in &verdicts {
                match (&v.smallest, &v.example) {
                    (Some(s), Some(d)) => out!(
                        "| `{}` | violated in {} scenarios | {} <br> `{}` |",
                        v.rule,
                        v.violating,
                        markdown_cell(d),
                        markdown_cell(&serde_json::to_string(s).unwrap_or_default())
                    ),
                    _ => out!("| `{}` | holds | |", v.rule),
                }
            }
            for v in verdicts.iter().filter(|v| v.violating > 0) {
                out_raw!("\n{}", v.describe(true));
            }
        }
        ReportFormat::Text => {
            out!(
                "invariants under {profile} over {} scenarios:",
                scenarios.len()
            );
            for v in &verdicts {
                match (&v.smallest, &v.example) {
                    (Some(s), Some(d)) => out!(
                        "  {:<32} violated in {} scenarios; smallest:\n      {}\n      {}",
                        v.rule,
                        v.violating,
                        d,
                        serde_json::to_string(s).unwrap_or_default()
                    ),
                    _ => out!("  {:<32} holds", v.rule),
                }
            }
            for v in verdicts.iter().filter(|v| v.violating > 0) {
                let diagram = v.diagram.as_deref().unwrap_or_default();
                out_raw!("\ncounterexample of {} under {profile}:\n{diagram}", v.rule);
            }
        }
    }
    EXIT_OK
}

/// Text fit for one Markdown table cell: pipes escaped, line breaks as
/// `<br>`.
fn markdown_cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', "<br>")
}
