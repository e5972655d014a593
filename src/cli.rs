//! The `inquiry-model` command line. The only module besides `src/bin` that
//! does I/O.
//!
//! Subcommands live in the private `Command` enum; each has its own argument struct and its
//! own function returning the exit code, so adding one is adding a variant,
//! a struct and a function.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::{Args, Parser, Subcommand, ValueEnum};
use serde::Serialize;

pub mod conform_command;
pub mod model_commands;
pub mod profile_arg;
pub mod rfd_check_command;
pub mod sanitize_command;
pub mod summary_command;

use crate::check::{self, Diagnostic, FileSummary, Profile, ProfileMode};
use crate::wire::{EventReader, ReadError};

/// Exit code: everything read, no rule violated.
pub const EXIT_OK: i32 = 0;
/// Exit code: rule violations found.
pub const EXIT_VIOLATIONS: i32 = 1;
/// Exit code: unusable input or usage.
pub const EXIT_UNUSABLE: i32 = 2;

/// The version of the `check --format json` document.
pub const CHECK_JSON_VERSION: u32 = 1;

/// The JSON schema of SARIF 2.1.0 (OASIS, errata 01), named by
/// `check --format sarif`'s `$schema`.
pub const SARIF_SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

#[derive(Parser, Debug)]
#[command(
    name = "inquiry-model",
    version,
    about = "Reference model of the tool-inquiry recording lifecycle (RFD 082/083)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Read stream files and print, per file, the events by kind and the
    /// inquiry pairs found. Exit 0: every input read; 2: unusable input.
    Summary(summary_command::SummaryArgs),
    /// Judge persisted streams against every CHECK-* rule (the conformance
    /// oracle). Exit 0: no violation; 1: violations; 2: unusable input.
    Check(CheckArgs),
    /// Repair one stream as RFD 082's turn-scoped sanitize does and write it
    /// out, with a report of every removal and injection. Exit 0: nothing to
    /// repair; 1: repaired; 2: unusable input.
    Sanitize(sanitize_command::SanitizeArgs),
    /// Run a scenario through the model and print the trace as JSON.
    Run(model_commands::RunArgs),
    /// Write conformance vectors: scenario in, expected stream and
    /// tool-visible behaviour out.
    Vectors(model_commands::VectorsArgs),
    /// Run an implementation in any language (a JSON Lines subprocess) on
    /// the vectors and generated scenarios. Exit 0: pass; 1: a failure; 2:
    /// unusable adapter or usage.
    Conform(conform_command::ConformArgs),
    /// Print a rule of the catalog: its text, RFD source and tests.
    Explain(model_commands::ExplainArgs),
    /// Enumerate the small scope exhaustively and check every invariant.
    Explore(model_commands::ExploreArgs),
    /// Run the same scenarios under two profiles and classify the changes.
    DiffProfiles(model_commands::DiffArgs),
    /// Which invariants hold under a profile (or the whole matrix).
    Invariants(model_commands::InvariantsArgs),
    /// Check an RFD's JSON examples and decision tables against a profile.
    /// Exit 0: they agree; 1: a row or example disagrees; 2: unusable input.
    RfdCheck(rfd_check_command::RfdCheckArgs),
}

/// `inquiry-model check`.
#[derive(Args, Debug)]
#[command(after_help = "\
Folders are searched recursively. A folder holding an `events.json` is a \
conversation folder: only its `events.json` is checked (its other files are \
metadata). In any other folder every `*.json` and `*.jsonl` file is checked.\n\n\
Diagnostics go to stdout, one per line (`FILE: turn T, event E: SEVERITY: RULE: \
message`, turns and events counted from 0, SEVERITY `error` or `warning`), \
followed by one status line per file and a total. Exit 1 on errors; on warnings \
(legal but suspect, or a known gap of the writer) only with --strict. Files that cannot be read are reported on stderr with the event, line \
and column, and the other files are still checked.")]
struct CheckArgs {
    /// Stream files (JSON array or JSON Lines), folders, or `-` for stdin.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// The writer the streams are judged as: `auto` decides per turn from the
    /// shapes the turn shows (a stream may hold legacy turns before RFD 082
    /// ones); an explicit profile judges every turn as that writer's.
    /// A profile file is judged as the writer of its built-in (see
    /// `diff-profiles`).
    #[arg(long, value_parser = profile_arg::CheckProfileParser, default_value = "auto")]
    profile: ProfileMode,
    /// `text`: one line per diagnostic; `json`: one document (version 1)
    /// with every file, its diagnostics and a summary; `sarif`: a SARIF 2.1.0
    /// log for CI code-scanning annotations.
    #[arg(long, value_enum, default_value_t = FormatArg::Text)]
    format: FormatArg,
    /// Exit 1 on warnings too, not only on errors.
    #[arg(long)]
    strict: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum FormatArg {
    Text,
    Json,
    Sarif,
}

/// Runs the command line with the process arguments; returns the exit code.
pub fn main() -> i32 {
    run(std::env::args_os())
}

/// Runs the command line with the given arguments; returns the exit code.
pub fn run<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() {
                EXIT_UNUSABLE
            } else {
                EXIT_OK
            };
            let _ = e.print();
            return code;
        }
    };
    match cli.command {
        Command::Summary(args) => summary_command::summary_command(args),
        Command::Check(args) => check_command(args),
        Command::Sanitize(args) => sanitize_command::sanitize_command(args),
        Command::Run(args) => model_commands::run_command(args),
        Command::Vectors(args) => model_commands::vectors_command(args),
        Command::Conform(args) => conform_command::conform_command(args),
        Command::Explain(args) => model_commands::explain_command(args),
        Command::Explore(args) => model_commands::explore_command(args),
        Command::DiffProfiles(args) => model_commands::diff_command(args),
        Command::Invariants(args) => model_commands::invariants_command(args),
        Command::RfdCheck(args) => rfd_check_command::rfd_check_command(args),
    }
}

// ---------------------------------------------------------------------------
// check
// ---------------------------------------------------------------------------

/// One input of `check`, after folders are expanded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckInput {
    /// Standard input (`-`).
    Stdin,
    /// A file to read.
    File(PathBuf),
    /// A path that yields nothing to read, with the reason.
    Unusable {
        /// The path as given.
        path: PathBuf,
        /// Why.
        message: String,
    },
}

impl CheckInput {
    /// The input's name in messages: the path as given, or `<stdin>`.
    pub fn origin(&self) -> String {
        match self {
            CheckInput::Stdin => "<stdin>".to_owned(),
            CheckInput::File(p) | CheckInput::Unusable { path: p, .. } => p.display().to_string(),
        }
    }
}

/// Expands `check`'s paths: `-` is stdin, a file is itself, a folder is the
/// stream files beneath it (decision "Oracle checks: which files a folder
/// yields"): in a folder holding `events.json` only that file, elsewhere every
/// `*.json` and `*.jsonl`; symlinked folders are not followed. Each folder's
/// files come sorted; a folder with none is unusable.
pub fn expand_check_paths(paths: &[PathBuf]) -> Vec<CheckInput> {
    let mut out = Vec::new();
    for p in paths {
        if p.as_os_str() == "-" {
            out.push(CheckInput::Stdin);
            continue;
        }
        if !p.is_dir() {
            out.push(CheckInput::File(p.clone()));
            continue;
        }
        match stream_files_under(p) {
            Ok(found) if found.is_empty() => out.push(CheckInput::Unusable {
                path: p.clone(),
                message: "no stream files here (events.json, *.json, *.jsonl)".to_owned(),
            }),
            Ok(found) => out.extend(found.into_iter().map(CheckInput::File)),
            Err(message) => out.push(CheckInput::Unusable {
                path: p.clone(),
                message,
            }),
        }
    }
    out
}

fn stream_files_under(root: &Path) -> Result<Vec<PathBuf>, String> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir)
            .map_err(|e| format!("cannot read folder {}: {e}", dir.display()))?;
        let mut files = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| format!("cannot read folder {}: {e}", dir.display()))?;
            let path = entry.path();
            let kind = entry
                .file_type()
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            if kind.is_dir() {
                stack.push(path);
            } else if path
                .extension()
                .is_some_and(|e| e == "json" || e == "jsonl")
            {
                files.push(path);
            }
        }
        let conversation = files
            .iter()
            .any(|f| f.file_name().is_some_and(|n| n == "events.json"));
        if conversation {
            files.retain(|f| f.file_name().is_some_and(|n| n == "events.json"));
        }
        found.extend(files);
    }
    found.sort();
    Ok(found)
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
            event_index: e.event_index,
            line: Some(e.line),
            column: Some(e.column),
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
    strict: bool,
    by_rule: BTreeMap<&'static str, usize>,
    exit_code: i32,
}

impl Totals {
    /// 2 on unusable input; 1 on errors, or on warnings under `--strict`.
    fn exit_code(&self) -> i32 {
        if self.unusable > 0 {
            EXIT_UNUSABLE
        } else if self.errors > 0 || (self.strict && self.warnings > 0) {
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
}

impl Reporter for TextReporter {
    fn begin(&mut self, _: &mut dyn Write) -> io::Result<()> {
        Ok(())
    }

    fn file_begin(&mut self, _: &mut dyn Write, _: &str) -> io::Result<()> {
        Ok(())
    }

    fn diagnostic(&mut self, out: &mut dyn Write, d: &Diagnostic) -> io::Result<()> {
        writeln!(out, "{d}")
    }

    fn file_end(
        &mut self,
        out: &mut dyn Write,
        origin: &str,
        summary: Option<&FileSummary>,
        error: Option<&InputError>,
    ) -> io::Result<()> {
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
        let warned = match t.warnings {
            0 => String::new(),
            n => format!(", {}", count(n, "warning")),
        };
        writeln!(
            out,
            "checked {}: {} clean, {} with violations, {} unusable; {}{warned}",
            count(t.files, "file"),
            t.clean,
            t.violations,
            t.unusable,
            count(t.errors, "violation")
        )
    }
}

/// `1 turn`, `2 turns`.
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("{n} {noun}")
    } else {
        format!("{n} {noun}s")
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
/// every `CHECK-*` rule, one result per diagnostic (`level` its severity),
/// located at the file and, for a file on disk, the line and column where
/// the event starts; unusable inputs are tool execution notifications. SARIF
/// is one document with the rules first, so each file's diagnostics are held
/// until the file ends (then its events' positions are read again from it).
#[derive(Default)]
struct SarifReporter {
    results: Vec<serde_json::Value>,
    notifications: Vec<serde_json::Value>,
    file: Vec<Diagnostic>,
}

/// A relative URI reference for a path: `/` separators, and every byte
/// outside RFC 3986's unreserved set and `/` percent-encoded.
fn sarif_uri(path: &str) -> String {
    let path = path.replace('\\', "/");
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
    while let Some(Ok(((), line, column))) = events.next_with(|_| ()) {
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
    fn begin(&mut self, _: &mut dyn Write) -> io::Result<()> {
        Ok(())
    }

    fn file_begin(&mut self, _: &mut dyn Write, _: &str) -> io::Result<()> {
        self.file.clear();
        Ok(())
    }

    fn diagnostic(&mut self, _: &mut dyn Write, d: &Diagnostic) -> io::Result<()> {
        self.file.push(d.clone());
        Ok(())
    }

    fn file_end(
        &mut self,
        _: &mut dyn Write,
        origin: &str,
        _: Option<&FileSummary>,
        error: Option<&InputError>,
    ) -> io::Result<()> {
        let on_disk = origin != "<stdin>";
        let wanted = self.file.iter().map(|d| d.event_index).collect();
        let positions = if on_disk {
            event_positions(Path::new(origin), &wanted)
        } else {
            Default::default()
        };
        let uri = sarif_uri(origin);
        for d in self.file.drain(..) {
            let mut physical = serde_json::json!({"artifactLocation": {"uri": uri}});
            if let Some((line, column)) = positions.get(&d.event_index) {
                physical["region"] = serde_json::json!({"startLine": line, "startColumn": column});
            }
            let rule_index = check::rules::ALL.iter().position(|(id, _)| *id == d.rule);
            self.results.push(serde_json::json!({
                "ruleId": d.rule,
                "ruleIndex": rule_index,
                "level": d.severity.to_string(),
                "message": {"text": d.message},
                "locations": [{"physicalLocation": physical}],
                "properties": {"turn": d.turn, "eventIndex": d.event_index, "ids": d.ids},
            }));
        }
        if let Some(e) = error {
            let mut physical = serde_json::json!({"artifactLocation": {"uri": uri}});
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
        let rules: Vec<serde_json::Value> = check::rules::ALL
            .iter()
            .map(|(id, text)| {
                serde_json::json!({
                    "id": id,
                    "shortDescription": {"text": text},
                    "help": {"text": format!("inquiry-model explain {id}")},
                })
            })
            .collect();
        let log = serde_json::json!({
            "$schema": SARIF_SCHEMA,
            "version": "2.1.0",
            "runs": [{
                "tool": {"driver": {
                    "name": "inquiry-model",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": rules,
                }},
                "invocations": [{
                    "executionSuccessful": totals.unusable == 0,
                    "exitCode": totals.exit_code,
                    "toolExecutionNotifications": std::mem::take(&mut self.notifications),
                }],
                "results": std::mem::take(&mut self.results),
            }],
        });
        writeln!(out, "{}", json(&log)?)
    }
}

fn status(summary: Option<&FileSummary>, error: Option<&InputError>, strict: bool) -> Status {
    match (summary, error) {
        (_, Some(_)) | (None, None) => Status::Unusable,
        (Some(s), None) if failing(s, strict) => Status::Violations,
        (Some(_), None) => Status::Clean,
    }
}

/// Shows progress on stderr for long runs when stderr is a terminal: a
/// `BufRead` wrapper that counts the bytes the reader consumes.
struct Progress<R> {
    inner: R,
    origin: String,
    total: Option<u64>,
    read: u64,
    next_look: u64,
    start: Instant,
    last: Option<Instant>,
}

impl<R> Progress<R> {
    const STEP: u64 = 1 << 22;

    fn new(inner: R, origin: String, total: Option<u64>) -> Self {
        Progress {
            inner,
            origin,
            total,
            read: 0,
            next_look: Self::STEP,
            start: Instant::now(),
            last: None,
        }
    }

    fn tick(&mut self) {
        if self.read < self.next_look {
            return;
        }
        self.next_look = self.read + Self::STEP;
        let now = Instant::now();
        let due = match self.last {
            None => now - self.start >= Duration::from_secs(1),
            Some(last) => now - last >= Duration::from_millis(250),
        };
        if !due {
            return;
        }
        self.last = Some(now);
        let mb = |b: u64| b as f64 / 1_048_576.0;
        let of = self
            .total
            .map(|t| format!(" of {:.0} MB", mb(t)))
            .unwrap_or_default();
        eprint!(
            "\r\x1b[2K{}: {:.0} MB{of} checked",
            self.origin,
            mb(self.read)
        );
    }
}

impl<R> Drop for Progress<R> {
    fn drop(&mut self) {
        if self.last.is_some() {
            eprint!("\r\x1b[2K");
        }
    }
}

impl<R: Read> Read for Progress<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        self.tick();
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Progress<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.inner.consume(amt);
        self.read += amt as u64;
        self.tick();
    }
}

pub(crate) fn open_input(input: &CheckInput) -> Result<(Box<dyn BufRead>, Option<u64>), String> {
    match input {
        CheckInput::Stdin => Ok((Box::new(BufReader::new(io::stdin())), None)),
        CheckInput::File(path) => {
            let f =
                File::open(path).map_err(|e| format!("{}: cannot open: {e}", path.display()))?;
            let size = f.metadata().ok().map(|m| m.len());
            Ok((Box::new(BufReader::with_capacity(1 << 16, f)), size))
        }
        CheckInput::Unusable { path, message } => Err(format!("{}: {message}", path.display())),
    }
}

fn check_command(args: CheckArgs) -> i32 {
    let mode = args.profile;
    let inputs = expand_check_paths(&args.paths);
    let strict = args.strict;
    let mut reporter: Box<dyn Reporter> = match args.format {
        FormatArg::Text => Box::new(TextReporter { strict }),
        FormatArg::Json => Box::new(JsonReporter {
            mode,
            strict,
            files: 0,
            diagnostics_in_file: 0,
        }),
        FormatArg::Sarif => Box::new(SarifReporter::default()),
    };
    let show_progress = io::stderr().is_terminal();
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    match check_inputs(
        &inputs,
        mode,
        strict,
        show_progress,
        reporter.as_mut(),
        &mut out,
    ) {
        Ok(code) => code,
        // A closed stdout (e.g. piped into `head`) ends the run quietly.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => EXIT_UNUSABLE,
        Err(e) => {
            eprintln!("inquiry-model: cannot write the report: {e}");
            EXIT_UNUSABLE
        }
    }
}

fn check_inputs(
    inputs: &[CheckInput],
    mode: ProfileMode,
    strict: bool,
    show_progress: bool,
    reporter: &mut dyn Reporter,
    out: &mut dyn Write,
) -> io::Result<i32> {
    let mut totals = Totals {
        strict,
        ..Totals::default()
    };
    reporter.begin(out)?;
    for input in inputs {
        let origin = input.origin();
        reporter.file_begin(out, &origin)?;
        let (summary, error) = match open_input(input) {
            Err(message) => (None, Some(InputError::plain(message))),
            Ok((reader, size)) => {
                let mut write_error = None;
                let mut sink = |d: Diagnostic| {
                    *totals.by_rule.entry(d.rule).or_default() += 1;
                    if write_error.is_none() {
                        write_error = reporter.diagnostic(out, &d).err();
                    }
                };
                let (summary, read_error) = if show_progress {
                    let reader = Progress::new(reader, origin.clone(), size);
                    check::check_reader(reader, &origin, mode, &mut sink)
                } else {
                    check::check_reader(reader, &origin, mode, &mut sink)
                };
                if let Some(e) = write_error {
                    return Err(e);
                }
                (
                    Some(summary),
                    read_error.as_ref().map(InputError::from_read),
                )
            }
        };
        if let Some(e) = &error {
            eprintln!("{}", e.message);
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
    totals.exit_code = totals.exit_code();
    reporter.end(out, &totals)?;
    out.flush()?;
    Ok(totals.exit_code)
}

// ---------------------------------------------------------------------------
// Shared by the one-file commands
// ---------------------------------------------------------------------------

fn open(path: &Path) -> Result<Box<dyn io::BufRead>, String> {
    if path.as_os_str() == "-" {
        return Ok(Box::new(BufReader::new(io::stdin())));
    }
    File::open(path)
        .map(|f| Box::new(BufReader::with_capacity(1 << 16, f)) as Box<dyn io::BufRead>)
        .map_err(|e| format!("{}: cannot open: {e}", path.display()))
}

fn origin(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "<stdin>".to_owned()
    } else {
        path.display().to_string()
    }
}
