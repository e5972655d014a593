//! `make mutants`' table: reads every `outcomes.json` cargo-mutants wrote
//! under the given folders (one folder per file and pass, any number of
//! shards, downloaded CI artifacts alike) and prints one Markdown row per
//! module: caught, missed, unviable, timed out, and the score.
//!
//! ```text
//! cargo run --example mutants_table -- mutants.out [more folders...]
//! ```
//!
//! A mutant seen in several outcome files (the selective first pass and the
//! whole-suite second pass of `scripts/mutants.sh`) keeps its best outcome:
//! caught beats timed out beats missed. The score is `(caught + timed out) /
//! viable`, viable being every mutant that built: a mutant that makes a test
//! hang did not let the suite pass (docs/mutants.md).
//!
//! `--equivalent FILE` (`spec/mutants-equivalent.tsv`) names the mutants
//! argued equivalent: a missed one is counted in its own column and left
//! out of the score (rule `MUT-EQUIVALENT`); a listed one that a test
//! catches is reported, since the list is then wrong.
//!
//! Exit status: 0; 1 when `--min-score P` is given and a module scores
//! below P percent, or when a mutant listed as equivalent was caught; 2
//! when no outcome file is found or one does not read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::Value;

/// What happened to one mutant, ordered from worst to best for the merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Fate {
    /// It did not build.
    Unviable,
    /// Every selected test passed with it.
    Missed,
    /// A test ran past the timeout.
    Timeout,
    /// A test failed.
    Caught,
}

impl Fate {
    /// The fate of an outcome's `summary`, or `None` for the baseline's
    /// `Success`/`Failure`.
    pub fn of_summary(summary: &str) -> Option<Fate> {
        match summary {
            "CaughtMutant" => Some(Fate::Caught),
            "MissedMutant" => Some(Fate::Missed),
            "Unviable" => Some(Fate::Unviable),
            "Timeout" => Some(Fate::Timeout),
            _ => None,
        }
    }
}

/// One mutant's identity and outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MutantOutcome {
    /// The source file, e.g. `src/model/routing.rs`.
    pub file: String,
    /// A name unique within the run (file, line, column, replacement).
    pub name: String,
    /// What happened.
    pub fate: Fate,
}

/// The mutants of one `outcomes.json` text. Errors name what was expected.
pub fn parse_outcomes(text: &str) -> Result<Vec<MutantOutcome>, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let outcomes = v
        .get("outcomes")
        .and_then(Value::as_array)
        .ok_or("no `outcomes` array")?;
    let mut out = Vec::new();
    for (i, o) in outcomes.iter().enumerate() {
        let Some(mutant) = o.get("scenario").and_then(|s| s.get("Mutant")) else {
            continue; // the baseline
        };
        let summary = o
            .get("summary")
            .and_then(Value::as_str)
            .ok_or(format!("outcome {i}: no `summary`"))?;
        let fate =
            Fate::of_summary(summary).ok_or(format!("outcome {i}: unknown summary {summary:?}"))?;
        let file = mutant
            .get("file")
            .and_then(Value::as_str)
            .ok_or(format!("outcome {i}: mutant without `file`"))?
            .to_owned();
        let name = match mutant.get("name").and_then(Value::as_str) {
            Some(n) => n.to_owned(),
            None => {
                let span = mutant.get("span").cloned().unwrap_or(Value::Null);
                let line = span.pointer("/start/line").cloned().unwrap_or(Value::Null);
                let col = span
                    .pointer("/start/column")
                    .cloned()
                    .unwrap_or(Value::Null);
                let fun = mutant
                    .pointer("/function/function_name")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let repl = mutant
                    .get("replacement")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                format!("{file}:{line}:{col}: {fun}: {repl}")
            }
        };
        out.push(MutantOutcome { file, name, fate });
    }
    Ok(out)
}

/// Merges outcomes: one per mutant name, the best fate.
pub fn merge(all: impl IntoIterator<Item = MutantOutcome>) -> BTreeMap<String, MutantOutcome> {
    let mut by_name: BTreeMap<String, MutantOutcome> = BTreeMap::new();
    for m in all {
        match by_name.get(&m.name) {
            Some(old) if old.fate >= m.fate => {}
            Some(_) | None => {
                by_name.insert(m.name.clone(), m);
            }
        }
    }
    by_name
}

/// Counts per module.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Caught by a failing test.
    pub caught: usize,
    /// Survived every test.
    pub missed: usize,
    /// Did not build.
    pub unviable: usize,
    /// Timed out.
    pub timeout: usize,
    /// Survived every test and listed as equivalent.
    pub equivalent: usize,
}

impl Counts {
    /// `(caught + timeout) / viable` in percent, `None` with no viable
    /// mutant; an equivalent mutant is not counted as viable.
    pub fn score(&self) -> Option<f64> {
        let viable = self.caught + self.missed + self.timeout;
        (viable > 0).then(|| 100.0 * (self.caught + self.timeout) as f64 / viable as f64)
    }
}

/// The module of a source file: `src/check/rules.rs` → `check/rules`.
pub fn module(file: &str) -> String {
    let f = file.strip_prefix("src/").unwrap_or(file);
    f.strip_suffix(".rs").unwrap_or(f).to_owned()
}

/// The names of `spec/mutants-equivalent.tsv`'s text: one mutant per line,
/// `name<TAB>reason`, `#` comments and blank lines skipped. A line without
/// a reason is an error naming its line number.
pub fn parse_equivalents(text: &str) -> Result<BTreeSet<String>, String> {
    let mut out = BTreeSet::new();
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        match line.split_once('\t') {
            Some((name, reason)) if !name.trim().is_empty() && !reason.trim().is_empty() => {
                out.insert(name.to_owned());
            }
            Some(_) | None => {
                return Err(format!(
                    "line {}: expected `mutant name<TAB>reason`, found {line:?}",
                    i + 1
                ));
            }
        }
    }
    Ok(out)
}

/// The mutants listed as equivalent that a test caught (or that timed
/// out): the list is wrong about them.
pub fn wrongly_listed(
    merged: &BTreeMap<String, MutantOutcome>,
    equivalent: &BTreeSet<String>,
) -> Vec<String> {
    equivalent
        .iter()
        .filter(|n| {
            merged
                .get(*n)
                .is_some_and(|m| matches!(m.fate, Fate::Caught | Fate::Timeout))
        })
        .cloned()
        .collect()
}

/// Counts per module of merged outcomes; a missed mutant named in
/// `equivalent` is counted as equivalent.
pub fn counts(
    merged: &BTreeMap<String, MutantOutcome>,
    equivalent: &BTreeSet<String>,
) -> BTreeMap<String, Counts> {
    let mut out: BTreeMap<String, Counts> = BTreeMap::new();
    for m in merged.values() {
        let c = out.entry(module(&m.file)).or_default();
        match m.fate {
            Fate::Caught => c.caught += 1,
            Fate::Missed if equivalent.contains(&m.name) => c.equivalent += 1,
            Fate::Missed => c.missed += 1,
            Fate::Unviable => c.unviable += 1,
            Fate::Timeout => c.timeout += 1,
        }
    }
    out
}

/// The Markdown table, one row per module and a total.
pub fn table(counts: &BTreeMap<String, Counts>) -> String {
    let mut s = String::from(
        "| module | caught | missed | equivalent | unviable | timed out | score |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    let mut total = Counts::default();
    let row = |name: &str, c: &Counts| {
        let score = c.score().map_or("n/a".to_owned(), |p| format!("{p:.1}%"));
        format!(
            "| {name} | {} | {} | {} | {} | {} | {score} |\n",
            c.caught, c.missed, c.equivalent, c.unviable, c.timeout
        )
    };
    for (m, c) in counts {
        s.push_str(&row(m, c));
        total.caught += c.caught;
        total.missed += c.missed;
        total.unviable += c.unviable;
        total.timeout += c.timeout;
        total.equivalent += c.equivalent;
    }
    s.push_str(&row("**total**", &total));
    s
}

/// The modules whose score is below `min` (none without a minimum).
pub fn below(counts: &BTreeMap<String, Counts>, min: Option<f64>) -> Vec<String> {
    let Some(min) = min else {
        return Vec::new();
    };
    counts
        .iter()
        .filter(|(_, c)| c.score().is_some_and(|s| s < min))
        .map(|(m, _)| m.clone())
        .collect()
}

/// The mutants of every `outcomes.json` under `dirs`, at any depth: the
/// table job's download (`shards/mutants-shard-K/<group>/mutants.out/`) and
/// `make mutants`' own folder alike. No outcome file at all is an error, as
/// is one that does not read; both name what they looked at.
pub fn read_outcomes(dirs: &[PathBuf]) -> Result<Vec<MutantOutcome>, String> {
    let mut files = Vec::new();
    for d in dirs {
        outcome_files(d, &mut files);
    }
    if files.is_empty() {
        return Err(format!("no outcomes.json under {dirs:?}"));
    }
    let mut all = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
        all.extend(parse_outcomes(&text).map_err(|e| format!("{}: {e}", f.display()))?);
    }
    Ok(all)
}

/// Every `outcomes.json` under `dir`, in path order.
fn outcome_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            outcome_files(&p, out);
        } else if p.file_name().is_some_and(|n| n == "outcomes.json") {
            out.push(p);
        }
    }
}

#[allow(dead_code)]
fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut min_score = None;
    let mut equivalent = BTreeSet::new();
    loop {
        match args.first().map(String::as_str) {
            Some("--min-score") => match args.get(1).and_then(|v| v.parse::<f64>().ok()) {
                Some(v) => min_score = Some(v),
                None => {
                    eprintln!("mutants_table: --min-score takes a percentage");
                    return ExitCode::from(2);
                }
            },
            Some("--equivalent") => {
                let Some(path) = args.get(1) else {
                    eprintln!("mutants_table: --equivalent takes a file");
                    return ExitCode::from(2);
                };
                let read = std::fs::read_to_string(path)
                    .map_err(|e| e.to_string())
                    .and_then(|t| parse_equivalents(&t));
                match read {
                    Ok(names) => equivalent = names,
                    Err(e) => {
                        eprintln!("mutants_table: {path}: {e}");
                        return ExitCode::from(2);
                    }
                }
            }
            _ => break,
        }
        args.drain(..2);
    }
    let dirs: Vec<PathBuf> = args.into_iter().map(PathBuf::from).collect();
    if dirs.is_empty() {
        eprintln!(
            "usage: mutants_table [--min-score PERCENT] [--equivalent FILE] <folder with outcomes.json files>..."
        );
        return ExitCode::from(2);
    }
    let all = match read_outcomes(&dirs) {
        Ok(all) => all,
        Err(e) => {
            eprintln!("mutants_table: {e}");
            return ExitCode::from(2);
        }
    };
    let merged = merge(all);
    let per_module = counts(&merged, &equivalent);
    print!("{}", table(&per_module));
    let missed: Vec<&str> = merged
        .values()
        .filter(|m| m.fate == Fate::Missed && !equivalent.contains(&m.name))
        .map(|m| m.name.as_str())
        .collect();
    if !missed.is_empty() {
        println!(
            "\nMissed ({}), each to be killed by a test or listed in docs/mutants.md:",
            missed.len()
        );
        for m in missed {
            println!("- {m}");
        }
    }
    let wrong = wrongly_listed(&merged, &equivalent);
    if !wrong.is_empty() {
        println!(
            "\nListed as equivalent but detected ({}): remove them from the list:",
            wrong.len()
        );
        for m in &wrong {
            println!("- {m}");
        }
    }
    let below = below(&per_module, min_score);
    if !below.is_empty() {
        println!(
            "\nBelow {}%: {}",
            min_score.unwrap_or(0.0),
            below.join(", ")
        );
    }
    if below.is_empty() && wrong.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
