//! `inquiry-model check`: judge stream files against every `CHECK-*` rule
//! and report as text, JSON (version 1) or SARIF 2.1.0.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use serde::Serialize;

use super::{
    CHECK_JSON_VERSION, CheckInput, EXIT_OK, EXIT_UNUSABLE, EXIT_VIOLATIONS, SARIF_SCHEMA, count,
    open_input,
    paths::{Selection, expand_check_paths_with, skipped_files},
    progress::Progress,
};
use crate::check::{self, Diagnostic, FileSummary, Profile, ProfileMode, Severity};
use crate::profile::tables::Tables;
use crate::wire::{EventReader, ReadError};

mod config;
mod github_format;
mod select;

/// `inquiry-model check`.
#[derive(Args, Debug)]
#[command(after_help = "\
Folders are searched recursively. A folder holding an `events.json` is a \
conversation folder: only its `events.json` is checked (its other files are \
metadata). In any other folder every `*.jsonl` file is checked, and every \
`*.json` file shaped like a persisted stream (a JSON array of event objects); \
other JSON is skipped and counted. VCS folders (.git, …) and cache folders \
(holding CACHEDIR.TAG, as cargo's target/) are not entered. Files named on \
the command line are always checked.\n\n\
Diagnostics go to stdout, one per line (`FILE: turn T, event E (line L, column C): \
SEVERITY: RULE: message`, turns and events counted from 0, lines and byte columns \
from 1, SEVERITY `error` or `warning`), \
followed by one status line per file and a total. Exit 1 on errors; on warnings \
(legal but suspect, or a known gap of the writer) only with --strict. Files that cannot be read are reported on stderr with the event, line \
and column, and the other files are still checked.")]
pub(crate) struct CheckArgs {
    /// Stream files (JSON array or JSON Lines), folders, or `-` for stdin.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// The writer the streams are judged as: `auto` decides per turn from the
    /// shapes the turn shows (a stream may hold legacy turns before RFD 082
    /// ones); an explicit profile judges every turn as that writer's.
    /// Takes `auto`, `legacy`, `rfd082`, `rfd083` or a profile file, which
    /// is judged as the writer of its built-in (see `diff-profiles`).
    #[arg(long, value_parser = super::profile_arg::CheckProfileParser, default_value = "auto")]
    profile: super::profile_arg::CheckProfile,
    /// `text`: one line per diagnostic; `json`: one document (version 1)
    /// with every file, its diagnostics and a summary; `sarif`: a SARIF 2.1.0
    /// log for CI code-scanning annotations; `github`: GitHub Actions
    /// `::error`/`::warning` workflow commands, one per diagnostic.
    #[arg(long, value_enum, default_value_t = FormatArg::Text)]
    format: FormatArg,
    /// Exit 1 on warnings too, not only on errors (configuration file:
    /// `strict`).
    #[arg(long)]
    strict: bool,
    /// Report only these rules: rule IDs or ID prefixes ending at a `-`
    /// (`CHECK-PLACEMENT` takes `CHECK-PLACEMENT-SOURCE`), or `ALL`;
    /// comma-separated or repeated. Replaces the configuration file's
    /// `select`. The most specific selector decides; `--ignore` wins a tie.
    #[arg(long, value_name = "RULE", value_delimiter = ',', value_parser = select::Selector::parse)]
    select: Option<Vec<select::Selector>>,
    /// Do not report these rules (IDs or prefixes, as `--select`); adds to
    /// the configuration file's `ignore` unless `--select` is given.
    #[arg(long, value_name = "RULE", value_delimiter = ',', value_parser = select::Selector::parse)]
    ignore: Vec<select::Selector>,
    /// Exit 0 even when violations are found (2 on unusable input stays).
    #[arg(long)]
    exit_zero: bool,
    /// Print how many findings each rule has (most first) instead of the
    /// findings; text format only.
    #[arg(long)]
    statistics: bool,
    /// Read this configuration file instead of searching for
    /// `inquiry-model.toml` or `.inquiry-model.toml` in the first path's
    /// folder and the folders above it.
    #[arg(long, value_name = "FILE", conflicts_with = "isolated")]
    config: Option<PathBuf>,
    /// Read no configuration file.
    #[arg(long)]
    isolated: bool,
    /// In folders, also check files matching this glob, whatever their
    /// name and shape (relative to the folder given; `*`, `?`, `**`,
    /// `[…]`; a glob without `/` matches a file or folder name at any
    /// depth). Repeatable.
    #[arg(long, value_name = "GLOB")]
    include: Vec<String>,
    /// SARIF only: the absolute URI of the rule pages each rule's `helpUri`
    /// points into (`BASE#check-paired`, one anchor per rule); by default
    /// `docs/check-rules.md` at the repository Cargo.toml names
    /// (configuration file: `rules-uri`).
    #[arg(long, value_name = "URI", value_parser = absolute_uri)]
    rules_uri: Option<String>,
    /// In folders, skip files and folders matching this glob (as
    /// `--include`; wins over it). Repeatable.
    #[arg(long, value_name = "GLOB")]
    exclude: Vec<String>,
}

/// SARIF 2.1.0 §3.49.12: `helpUri` is an absolute URI, so the base must
/// start with a scheme (RFC 3986 §3.1).
fn absolute_uri(s: &str) -> Result<String, String> {
    let scheme = s.split_once(':').map(|(scheme, _)| scheme);
    match scheme {
        Some(sc)
            if sc.starts_with(|c: char| c.is_ascii_alphabetic())
                && sc
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')) =>
        {
            Ok(s.to_owned())
        }
        _ => Err(format!(
            "`{s}` is not an absolute URI (SARIF's helpUri needs a scheme, e.g. https:)"
        )),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum FormatArg {
    Text,
    Json,
    Sarif,
    Github,
}

/// How one input ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum Status {
    Clean,
    Violations,
    Unusable,
}

/// Why an input is unusable, for the report.
#[derive(Debug, Clone, Serialize)]
struct InputError {
    /// The line printed on stderr.
    message: String,
    event_index: Option<usize>,
    line: Option<usize>,
    column: Option<usize>,
}

impl InputError {
    fn from_read(e: &ReadError) -> Self {
        InputError {
            message: e.to_string(),
            event_index: e.event_index(),
            line: Some(e.line()),
            column: Some(e.column()),
        }
    }

    fn plain(message: String) -> Self {
        InputError {
            message,
            event_index: None,
            line: None,
            column: None,
        }
    }
}

/// The end of one input's entry in the JSON document.
#[derive(Debug, Serialize)]
struct FileTail<'a> {
    status: Status,
    errors: usize,
    warnings: usize,
    profile: Option<Profile>,
    mixed: bool,
    events: usize,
    turns: usize,
    turns_by_profile: Option<check::TurnsByProfile>,
    error: Option<&'a InputError>,
}

#[derive(Debug, Default, Serialize)]
struct Totals {
    files: usize,
    clean: usize,
    violations: usize,
    unusable: usize,
    diagnostics: usize,
    errors: usize,
    warnings: usize,
    /// Files under the folders given that were not read: not streams, or
    /// excluded.
    skipped: usize,
    strict: bool,
    by_rule: BTreeMap<&'static str, usize>,
    exit_code: i32,
    /// `--exit-zero`: violations do not fail the run.
    #[serde(skip)]
    exit_zero: bool,
}

impl Totals {
    /// 2 on unusable input; 1 on errors, or on warnings under `--strict`,
    /// unless `--exit-zero`.
    fn exit_code(&self) -> i32 {
        if self.unusable > 0 {
            EXIT_UNUSABLE
        } else if !self.exit_zero && (self.errors > 0 || (self.strict && self.warnings > 0)) {
            EXIT_VIOLATIONS
        } else {
            EXIT_OK
        }
    }
}

/// Whether a file's findings fail it: errors, or warnings under `--strict`.
fn failing(s: &FileSummary, strict: bool) -> bool {
    s.errors > 0 || (strict && s.warnings > 0)
}

/// Writes the report as inputs are checked; text or JSON.
trait Reporter {
    fn begin(&mut self, out: &mut dyn Write) -> io::Result<()>;
    fn file_begin(&mut self, out: &mut dyn Write, origin: &str) -> io::Result<()>;
    fn diagnostic(&mut self, out: &mut dyn Write, d: &Diagnostic) -> io::Result<()>;
    fn file_end(
        &mut self,
        out: &mut dyn Write,
        origin: &str,
        summary: Option<&FileSummary>,
        error: Option<&InputError>,
    ) -> io::Result<()>;
    fn end(&mut self, out: &mut dyn Write, totals: &Totals) -> io::Result<()>;
}

struct TextReporter {
    strict: bool,
    /// Severities in colour (`--color`).
    color: bool,
    /// `-q`: no line per file, only the findings and the total.
    quiet: bool,
    /// `--statistics`: a count per rule instead of the findings.
    statistics: bool,
}

impl Reporter for TextReporter {
    fn begin(&mut self, _: &mut dyn Write) -> io::Result<()> {
        Ok(())
    }

    fn file_begin(&mut self, _: &mut dyn Write, _: &str) -> io::Result<()> {
        Ok(())
    }

    fn diagnostic(&mut self, out: &mut dyn Write, d: &Diagnostic) -> io::Result<()> {
        if self.statistics {
            return Ok(());
        }
        if !self.color {
            return writeln!(out, "{d}");
        }
        // The line `Display` writes, with the severity in colour (bold red
        // errors, bold yellow warnings, as compilers and linters show them).
        let paint = match d.severity {
            Severity::Error => "\x1b[1;31m",
            Severity::Warning => "\x1b[1;33m",
        };
        write!(
            out,
            "{}: turn {}, event {}",
            d.origin, d.turn, d.event_index
        )?;
        if let Some(p) = d.position {
            write!(out, " (line {}, column {})", p.line, p.column)?;
        }
        writeln!(
            out,
            ": {paint}{}\x1b[0m: {}: {}",
            d.severity, d.rule, d.message
        )
    }

    fn file_end(
        &mut self,
        out: &mut dyn Write,
        origin: &str,
        summary: Option<&FileSummary>,
        error: Option<&InputError>,
    ) -> io::Result<()> {
        if self.quiet || self.statistics {
            return Ok(());
        }
        let Some(s) = summary else {
            return writeln!(out, "{origin}: unusable");
        };
        let mut counts = format!("{}, {}", count(s.events, "event"), count(s.turns, "turn"));
        if s.turns > 0 {
            counts.push_str(&format!(", judged {}", s.profile));
        }
        if s.mixed {
            let t = s.turns_by_profile;
            counts.push_str(&format!(
                ": {} legacy, {} rfd082, {} rfd083 turns",
                t.legacy, t.rfd082, t.rfd083
            ));
        }
        let found = count(s.errors, "violation");
        let warned = match s.warnings {
            0 => String::new(),
            n => format!(", {}", count(n, "warning")),
        };
        match (error, failing(s, self.strict)) {
            (Some(_), _) => writeln!(
                out,
                "{origin}: unusable ({found}{warned} before the read error; {counts})"
            ),
            (None, false) => writeln!(out, "{origin}: clean{warned} ({counts})"),
            (None, true) => writeln!(out, "{origin}: {found}{warned} ({counts})"),
        }
    }

    fn end(&mut self, out: &mut dyn Write, t: &Totals) -> io::Result<()> {
        if self.statistics {
            let mut rows: Vec<(&str, usize)> = t.by_rule.iter().map(|(r, n)| (*r, *n)).collect();
            rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
            for (id, n) in rows {
                let title = crate::rule::Rule::from_id(id).map_or("", |r| r.title());
                writeln!(out, "{n:>6}  {id}  {title}")?;
            }
        }
        let warned = match t.warnings {
            0 => String::new(),
            n => format!(", {}", count(n, "warning")),
        };
        let skipped = match t.skipped {
            0 => String::new(),
            n => format!("; {}", skipped_files(n)),
        };
        writeln!(
            out,
            "checked {}: {} clean, {} with violations, {} unusable; {}{warned}{skipped}",
            count(t.files, "file"),
            t.clean,
            t.violations,
            t.unusable,
            count(t.errors, "violation")
        )
    }
}

/// Writes the version-1 document incrementally, so memory never holds the
/// diagnostics of a whole file:
///
/// ```text
/// {"version":1,"requested_profile":"auto","files":[
/// {"path":…,"diagnostics":[{"rule","origin","turn","event_index","ids","message"},…],
///  "status":"clean|violations|unusable","profile":…|null,"mixed":…,"events":…,"turns":…,
///  "turns_by_profile":{…}|null,"error":{"message","event_index","line","column"}|null},
/// …],
/// "summary":{"files","clean","violations","unusable","diagnostics","by_rule":{…},"exit_code"}}
/// ```
struct JsonReporter {
    mode: ProfileMode,
    strict: bool,
    files: usize,
    diagnostics_in_file: usize,
}

fn json<T: Serialize + ?Sized>(v: &T) -> io::Result<String> {
    serde_json::to_string(v).map_err(io::Error::other)
}

impl Reporter for JsonReporter {
    fn begin(&mut self, out: &mut dyn Write) -> io::Result<()> {
        write!(
            out,
            "{{\"version\":{CHECK_JSON_VERSION},\"requested_profile\":{},\"files\":[",
            json(&self.mode)?
        )
    }

    fn file_begin(&mut self, out: &mut dyn Write, origin: &str) -> io::Result<()> {
        let sep = if self.files == 0 { "" } else { "," };
        self.files += 1;
        self.diagnostics_in_file = 0;
        write!(out, "{sep}\n{{\"path\":{},\"diagnostics\":[", json(origin)?)
    }

    fn diagnostic(&mut self, out: &mut dyn Write, d: &Diagnostic) -> io::Result<()> {
        let sep = if self.diagnostics_in_file == 0 {
            ""
        } else {
            ","
        };
        self.diagnostics_in_file += 1;
        write!(out, "{sep}\n{}", json(d)?)
    }

    fn file_end(
        &mut self,
        out: &mut dyn Write,
        _: &str,
        summary: Option<&FileSummary>,
        error: Option<&InputError>,
    ) -> io::Result<()> {
        let tail = FileTail {
            status: status(summary, error, self.strict),
            errors: summary.map_or(0, |s| s.errors),
            warnings: summary.map_or(0, |s| s.warnings),
            // Nothing read, nothing judged: no profile to report.
            profile: summary.filter(|s| s.turns > 0).map(|s| s.profile),
            mixed: summary.is_some_and(|s| s.mixed),
            events: summary.map_or(0, |s| s.events),
            turns: summary.map_or(0, |s| s.turns),
            turns_by_profile: summary.map(|s| s.turns_by_profile),
            error,
        };
        // `tail` serializes as an object; splice its fields after the
        // diagnostics array.
        let tail = json(&tail)?;
        write!(out, "],{}", &tail[1..])
    }

    fn end(&mut self, out: &mut dyn Write, totals: &Totals) -> io::Result<()> {
        writeln!(out, "\n],\"summary\":{}}}", json(totals)?)
    }
}

/// Writes a SARIF 2.1.0 log (OASIS SARIF v2.1.0): one run whose driver lists
/// every `CHECK-*` rule (its catalog statement as `fullDescription`, its
/// catalog entry as `helpUri`, `error` as its default level), one result per
/// diagnostic (`level` its severity), located at the file and, for a file on
/// disk, the line and column where the event starts; unusable inputs are
/// tool execution notifications. The document is written as the inputs are
/// checked, in bounded memory: the rules first, then each result as its
/// diagnostic comes (SARIF fixes no order of a run's properties, so
/// `invocations`, which needs the exit code, comes last). Only diagnostics
/// whose event position fell out of the checker's window are held until
/// their file ends, when their positions are read again from it.
struct SarifReporter {
    /// The `helpUri` base: the rule pages' address (none: no `helpUri`).
    rules_uri: Option<String>,
    notifications: Vec<serde_json::Value>,
    held: Vec<Diagnostic>,
    uri: String,
    results: usize,
}

impl SarifReporter {
    fn new(rules_uri: Option<String>) -> Self {
        SarifReporter {
            rules_uri,
            notifications: Vec::new(),
            held: Vec::new(),
            uri: String::new(),
            results: 0,
        }
    }

    fn result(
        &mut self,
        out: &mut dyn Write,
        d: &Diagnostic,
        at: Option<(usize, usize)>,
    ) -> io::Result<()> {
        let mut physical = serde_json::json!({"artifactLocation": artifact(&self.uri)});
        if let Some((line, column)) = at {
            physical["region"] = serde_json::json!({"startLine": line, "startColumn": column});
        }
        let rule_index = check::rules::ALL.iter().position(|(id, _)| *id == d.rule);
        let result = serde_json::json!({
            "ruleId": d.rule,
            "ruleIndex": rule_index,
            "level": d.severity.to_string(),
            "message": {"text": d.message},
            "locations": [{"physicalLocation": physical}],
            "properties": {"turn": d.turn, "eventIndex": d.event_index, "ids": d.ids},
        });
        let sep = if self.results == 0 { "" } else { "," };
        self.results += 1;
        write!(out, "{sep}\n{}", json(&result)?)
    }
}

/// The default `helpUri` base: `docs/check-rules.md` (a section per rule,
/// its heading the rule ID) at the repository `Cargo.toml` names, on the
/// branch `main`; none when it names none, and then no rule carries a
/// `helpUri` rather than one that leads nowhere (decision "Oracle checks:
/// SARIF rule help links a page per rule").
fn default_rules_uri() -> Option<String> {
    match env!("CARGO_PKG_REPOSITORY").trim_end_matches('/') {
        "" => None,
        repo => Some(format!("{repo}/blob/main/docs/check-rules.md")),
    }
}

/// A rule's anchor on the rule pages: its heading, as Markdown renderers
/// derive anchors (lower case; `CHECK-PAIRED` is `check-paired`).
fn rule_anchor(id: &str) -> String {
    id.to_ascii_lowercase()
}

/// The base a relative artifact URI is resolved against: the folder
/// `check` ran in, which in CI is the repository's root (SARIF 2.1.0
/// §3.4.4; GitHub code scanning resolves `%SRCROOT%` to its checkout).
const SRCROOT: &str = "%SRCROOT%";

/// The `artifactLocation` of an input: a relative URI with `uriBaseId` for
/// a relative path, a `file:` URI for an absolute one, and `stdin` (with a
/// description) for standard input.
fn artifact(uri: &str) -> serde_json::Value {
    if uri == "<stdin>" {
        serde_json::json!({"uri": "stdin", "description": {"text": "standard input"}})
    } else if uri.starts_with("file:") {
        serde_json::json!({ "uri": uri })
    } else {
        serde_json::json!({"uri": uri, "uriBaseId": SRCROOT})
    }
}

/// A URI reference for a path: `/` separators, a leading `./` dropped, and
/// every byte outside RFC 3986's unreserved set and `/` percent-encoded;
/// standard input stays `<stdin>` (see [`artifact`]).
fn sarif_uri(path: &str) -> String {
    if path == "<stdin>" {
        return path.to_owned();
    }
    let path = path.replace('\\', "/");
    let mut path = path.as_str();
    while let Some(rest) = path.strip_prefix("./") {
        path = rest.trim_start_matches('/');
    }
    // An absolute path is a `file` URI; a relative one stays relative (to
    // the directory `check` ran in).
    let mut out = if path.starts_with('/') {
        "file://".to_owned()
    } else {
        String::new()
    };
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Where the events `wanted` start in the file `path` (line, column), read
/// again with the stream reader; empty if the file cannot be read.
fn event_positions(
    path: &Path,
    wanted: &std::collections::BTreeSet<usize>,
) -> std::collections::HashMap<usize, (usize, usize)> {
    let mut found = std::collections::HashMap::new();
    let (Some(&last), Ok(f)) = (wanted.last(), File::open(path)) else {
        return found;
    };
    let mut events = EventReader::new(BufReader::with_capacity(1 << 16, f), "");
    let mut index = 0;
    while let Some(Ok(((), line, column))) = events.next_with(|_, _, _| ()) {
        if wanted.contains(&index) {
            found.insert(index, (line, column));
        }
        if index >= last {
            break;
        }
        index += 1;
    }
    found
}

impl Reporter for SarifReporter {
    fn begin(&mut self, out: &mut dyn Write) -> io::Result<()> {
        let rules: Vec<serde_json::Value> = check::rules::ALL
            .iter()
            .map(|(rule, text)| {
                let id = rule.id();
                let full = match rule.description() {
                    "" => *text,
                    d => d,
                };
                let mut rule = serde_json::json!({
                    "id": id,
                    "shortDescription": {"text": text},
                    "fullDescription": {"text": full},
                    "help": {"text": format!(
                        "{full}\n\nThe rule's sources and tests: `inquiry-model explain {id}`."
                    )},
                    // Every CHECK-* rule is an error where it applies in
                    // full; a warning is the same rule downgraded by what
                    // the turn shows (decision "Oracle checks: severity"),
                    // and each result carries its own level.
                    "defaultConfiguration": {"level": "error"},
                });
                if let Some(base) = &self.rules_uri {
                    rule["helpUri"] = format!("{base}#{}", rule_anchor(id)).into();
                }
                rule
            })
            .collect();
        let driver = serde_json::json!({
            "name": "inquiry-model",
            "version": env!("CARGO_PKG_VERSION"),
            "rules": rules,
        });
        write!(
            out,
            "{{\"$schema\":{},\"version\":\"2.1.0\",\"runs\":[{{\"tool\":{{\"driver\":{}}},\"results\":[",
            json(SARIF_SCHEMA)?,
            json(&driver)?
        )
    }

    fn file_begin(&mut self, _: &mut dyn Write, origin: &str) -> io::Result<()> {
        self.held.clear();
        self.uri = sarif_uri(origin);
        Ok(())
    }

    fn diagnostic(&mut self, out: &mut dyn Write, d: &Diagnostic) -> io::Result<()> {
        match d.position {
            Some(p) => self.result(out, d, Some((p.line, p.column))),
            None => {
                self.held.push(d.clone());
                Ok(())
            }
        }
    }

    fn file_end(
        &mut self,
        out: &mut dyn Write,
        origin: &str,
        _: Option<&FileSummary>,
        error: Option<&InputError>,
    ) -> io::Result<()> {
        let on_disk = origin != "<stdin>";
        // A diagnostic about an event too far back in a huge turn
        // (`check::POSITION_WINDOW`) is placed by reading the file again.
        let wanted: std::collections::BTreeSet<usize> =
            self.held.iter().map(|d| d.event_index).collect();
        let positions = if on_disk && !wanted.is_empty() {
            event_positions(Path::new(origin), &wanted)
        } else {
            Default::default()
        };
        for d in std::mem::take(&mut self.held) {
            let at = positions.get(&d.event_index).copied();
            self.result(out, &d, at)?;
        }
        if let Some(e) = error {
            let mut physical = serde_json::json!({"artifactLocation": artifact(&self.uri)});
            if let (Some(line), Some(column)) = (e.line, e.column) {
                physical["region"] = serde_json::json!({"startLine": line, "startColumn": column});
            }
            self.notifications.push(serde_json::json!({
                "level": "error",
                "message": {"text": e.message},
                "locations": [{"physicalLocation": physical}],
            }));
        }
        Ok(())
    }

    fn end(&mut self, out: &mut dyn Write, totals: &Totals) -> io::Result<()> {
        let invocations = serde_json::json!([{
            "executionSuccessful": totals.unusable == 0,
            "exitCode": totals.exit_code,
            "toolExecutionNotifications": std::mem::take(&mut self.notifications),
        }]);
        writeln!(out, "\n],\"invocations\":{}}}]}}", json(&invocations)?)
    }
}

fn status(summary: Option<&FileSummary>, error: Option<&InputError>, strict: bool) -> Status {
    match (summary, error) {
        (_, Some(_)) | (None, None) => Status::Unusable,
        (Some(s), None) if failing(s, strict) => Status::Violations,
        (Some(_), None) => Status::Clean,
    }
}

/// A `BufRead` wrapper that counts the bytes the reader consumes into the
/// shared [`Progress`], in steps of [`Counted::STEP`] (and the rest when
/// dropped), so the count costs an addition per read.
struct Counted<'a, R> {
    inner: R,
    progress: &'a Progress,
    pending: u64,
}

impl<'a, R> Counted<'a, R> {
    const STEP: u64 = 1 << 16;

    fn new(inner: R, progress: &'a Progress) -> Self {
        Counted {
            inner,
            progress,
            pending: 0,
        }
    }

    fn add(&mut self, n: usize) {
        self.pending += n as u64;
        if self.pending >= Self::STEP {
            self.progress.inc(self.pending);
            self.pending = 0;
        }
    }
}

impl<R> Drop for Counted<'_, R> {
    fn drop(&mut self) {
        self.progress.inc(self.pending);
    }
}

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.add(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counted<'_, R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.inner.consume(amt);
        self.add(amt);
    }
}

/// Runs `check`; returns the exit code.
pub(crate) fn check_command(args: CheckArgs, global: &super::GlobalArgs) -> i32 {
    let mode = args.profile.mode;
    if let (Some(note), false) = (&args.profile.note, global.quiet) {
        eprintln!("inquiry-model: note: {note}");
    }
    if args.statistics && args.format != FormatArg::Text {
        eprintln!("inquiry-model: --statistics prints text; drop --format or use --format text");
        return EXIT_UNUSABLE;
    }
    let config = if args.isolated {
        Ok(config::Config::default())
    } else {
        match args
            .config
            .clone()
            .or_else(|| config::find(&config::search_start(&args.paths)))
        {
            Some(path) => config::load(&path),
            None => Ok(config::Config::default()),
        }
    };
    let config = match config {
        Ok(c) => c,
        Err(e) => {
            eprintln!("inquiry-model: configuration: {e}");
            return EXIT_UNUSABLE;
        }
    };
    if let (Some(path), true) = (&config.path, global.verbose > 0 && !global.quiet) {
        eprintln!("inquiry-model: configuration: {}", path.display());
    }
    let filter = select::RuleFilter::resolve(&[
        config.layer,
        select::Layer {
            select: args.select,
            ignore: args.ignore,
        },
    ]);
    let selection = Selection {
        include: args.include,
        exclude: args.exclude,
    };
    let expansion = expand_check_paths_with(&args.paths, &selection);
    let inputs = expansion.inputs;
    let strict = args.strict || config.strict.unwrap_or(false);
    let mut reporter: Box<dyn Reporter> = match args.format {
        FormatArg::Text => Box::new(TextReporter {
            strict,
            color: global.color_on(),
            quiet: global.quiet,
            statistics: args.statistics,
        }),
        FormatArg::Github => Box::new(github_format::GithubReporter),
        FormatArg::Json => Box::new(JsonReporter {
            mode,
            strict,
            files: 0,
            diagnostics_in_file: 0,
        }),
        FormatArg::Sarif => Box::new(SarifReporter::new(
            args.rules_uri
                .or(config.rules_uri)
                .or_else(default_rules_uri),
        )),
    };
    // The bytes of the files named or found (standard input's are counted
    // as read, its size unknown).
    let total = inputs
        .iter()
        .map(|i| match i {
            CheckInput::File(p) => std::fs::metadata(p).map_or(0, |m| m.len()),
            CheckInput::Stdin | CheckInput::Unusable { .. } => 0,
        })
        .sum();
    let progress = Progress::start_bytes(global, "check", total, "");
    let stdout = io::stdout();
    let mut out = super::progress::AboveProgress::new(&progress, io::BufWriter::new(stdout.lock()));
    let run = RunOptions {
        mode,
        tables: args.profile.tables,
        strict,
        exit_zero: args.exit_zero,
        filter,
    };
    let result = check_inputs(
        &inputs,
        expansion.skipped,
        &run,
        &progress,
        reporter.as_mut(),
        &mut out,
    );
    progress.finish();
    match result {
        Ok(code) => code,
        // A closed stdout (e.g. piped into `head`) ends the run quietly.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => EXIT_UNUSABLE,
        Err(e) => {
            eprintln!("inquiry-model: cannot write the report: {e}");
            EXIT_UNUSABLE
        }
    }
}

/// How `check` judges and when it fails.
struct RunOptions {
    mode: ProfileMode,
    /// A profile file's table rows, which the oracle reads.
    tables: Tables,
    strict: bool,
    exit_zero: bool,
    /// `--select`/`--ignore` and the configuration file's.
    filter: select::RuleFilter,
}

fn check_inputs(
    inputs: &[CheckInput],
    skipped: usize,
    run: &RunOptions,
    progress: &Progress,
    reporter: &mut dyn Reporter,
    out: &mut dyn Write,
) -> io::Result<i32> {
    let (mode, strict) = (run.mode, run.strict);
    let mut totals = Totals {
        strict,
        skipped,
        exit_zero: run.exit_zero,
        ..Totals::default()
    };
    reporter.begin(out)?;
    for input in inputs {
        let origin = input.origin();
        progress.set_message(origin.clone());
        reporter.file_begin(out, &origin)?;
        let (summary, error) = match open_input(input) {
            Err(message) => (None, Some(InputError::plain(message))),
            Ok((reader, _)) => {
                let mut write_error = None;
                // The findings of the rules selected, counted again here.
                let (mut errors, mut warnings) = (0, 0);
                let mut sink = |d: Diagnostic| {
                    if !run.filter.reports(d.rule) {
                        return;
                    }
                    match d.severity {
                        Severity::Error => errors += 1,
                        Severity::Warning => warnings += 1,
                    }
                    *totals.by_rule.entry(d.rule.id()).or_default() += 1;
                    if write_error.is_none() {
                        write_error = reporter.diagnostic(out, &d).err();
                    }
                };
                let (summary, read_error) = if progress.shown() {
                    let reader = Counted::new(reader, progress);
                    check::check_reader_in(reader, &origin, mode, run.tables, &mut sink)
                } else {
                    check::check_reader_in(reader, &origin, mode, run.tables, &mut sink)
                };
                if let Some(e) = write_error {
                    return Err(e);
                }
                let summary = FileSummary {
                    diagnostics: errors + warnings,
                    errors,
                    warnings,
                    ..summary
                };
                (
                    Some(summary),
                    read_error.as_ref().map(InputError::from_read),
                )
            }
        };
        if let Some(e) = &error {
            progress.suspend(|| eprintln!("{}", e.message));
        }
        totals.files += 1;
        totals.diagnostics += summary.as_ref().map_or(0, |s| s.diagnostics);
        totals.errors += summary.as_ref().map_or(0, |s| s.errors);
        totals.warnings += summary.as_ref().map_or(0, |s| s.warnings);
        match status(summary.as_ref(), error.as_ref(), strict) {
            Status::Clean => totals.clean += 1,
            Status::Violations => totals.violations += 1,
            Status::Unusable => totals.unusable += 1,
        }
        reporter.file_end(out, &origin, summary.as_ref(), error.as_ref())?;
    }
    progress.set_message(count(totals.files, "file"));
    out.flush()?;
    // The bar leaves before the last lines, so they end the screen.
    progress.clear();
    totals.exit_code = totals.exit_code();
    reporter.end(out, &totals)?;
    out.flush()?;
    Ok(totals.exit_code)
}
