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
pub mod sanitize_command;

use crate::check::{self, Diagnostic, FileSummary, Profile, ProfileMode};
use crate::stream::{PairStep, Pairer};
use crate::wire::{EventReader, ReadError};

/// Exit code: everything read, no rule violated.
pub const EXIT_OK: i32 = 0;
/// Exit code: rule violations found.
pub const EXIT_VIOLATIONS: i32 = 1;
/// Exit code: unusable input or usage.
pub const EXIT_UNUSABLE: i32 = 2;

/// The bundled example streams, relative to the crate root.
pub const BUNDLED_EXAMPLES: &str = "spec/examples";

/// The version of the `check --format json` document.
pub const CHECK_JSON_VERSION: u32 = 1;

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
    /// inquiry pairs found.
    Summary {
        /// Stream files (JSON array or JSON Lines), folders (searched for
        /// `*.json`), or `-` for stdin. Default: the bundled examples.
        paths: Vec<PathBuf>,
    },
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
}

/// `inquiry-model check`.
#[derive(Args, Debug)]
#[command(after_help = "\
Folders are searched recursively. A folder holding an `events.json` is a \
conversation folder: only its `events.json` is checked (its other files are \
metadata). In any other folder every `*.json` and `*.jsonl` file is checked.\n\n\
Diagnostics go to stdout, one per line (`FILE: turn T, event E: RULE: message`, \
turns and events counted from 0), followed by one status line per file and a \
total. Files that cannot be read are reported on stderr with the event, line \
and column, and the other files are still checked.")]
struct CheckArgs {
    /// Stream files (JSON array or JSON Lines), folders, or `-` for stdin.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// The writer the streams are judged as: `auto` decides per turn from the
    /// shapes the turn shows (a stream may hold legacy turns before RFD 082
    /// ones); an explicit profile judges every turn as that writer's.
    #[arg(long, value_enum, default_value_t = ProfileArg::Auto)]
    profile: ProfileArg,
    /// `text`: one line per diagnostic; `json`: one document (version 1)
    /// with every file, its diagnostics and a summary.
    #[arg(long, value_enum, default_value_t = FormatArg::Text)]
    format: FormatArg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ProfileArg {
    Auto,
    Legacy,
    Rfd082,
    Rfd083,
}

impl From<ProfileArg> for ProfileMode {
    fn from(p: ProfileArg) -> Self {
        match p {
            ProfileArg::Auto => ProfileMode::Auto,
            ProfileArg::Legacy => ProfileMode::Fixed(Profile::Legacy),
            ProfileArg::Rfd082 => ProfileMode::Fixed(Profile::Rfd082),
            ProfileArg::Rfd083 => ProfileMode::Fixed(Profile::Rfd083),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum FormatArg {
    Text,
    Json,
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
        Command::Summary { paths } => summary(paths),
        Command::Check(args) => check_command(args),
        Command::Sanitize(args) => sanitize_command::sanitize_command(args),
        Command::Run(args) => model_commands::run_command(args),
        Command::Vectors(args) => model_commands::vectors_command(args),
        Command::Conform(args) => conform_command::conform_command(args),
        Command::Explain(args) => model_commands::explain_command(args),
        Command::Explore(args) => model_commands::explore_command(args),
        Command::DiffProfiles(args) => model_commands::diff_command(args),
        Command::Invariants(args) => model_commands::invariants_command(args),
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
    fn origin(&self) -> String {
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
    by_rule: BTreeMap<&'static str, usize>,
    exit_code: i32,
}

impl Totals {
    fn exit_code(&self) -> i32 {
        if self.unusable > 0 {
            EXIT_UNUSABLE
        } else if self.diagnostics > 0 {
            EXIT_VIOLATIONS
        } else {
            EXIT_OK
        }
    }
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

struct TextReporter;

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
        let found = count(s.diagnostics, "violation");
        match (error, s.diagnostics) {
            (Some(_), _) => writeln!(
                out,
                "{origin}: unusable ({found} before the read error; {counts})"
            ),
            (None, 0) => writeln!(out, "{origin}: clean ({counts})"),
            (None, _) => writeln!(out, "{origin}: {found} ({counts})"),
        }
    }

    fn end(&mut self, out: &mut dyn Write, t: &Totals) -> io::Result<()> {
        writeln!(
            out,
            "checked {}: {} clean, {} with violations, {} unusable; {}",
            count(t.files, "file"),
            t.clean,
            t.violations,
            t.unusable,
            count(t.diagnostics, "violation")
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
            status: status(summary, error),
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

fn status(summary: Option<&FileSummary>, error: Option<&InputError>) -> Status {
    match (summary, error) {
        (_, Some(_)) | (None, None) => Status::Unusable,
        (Some(s), None) if s.diagnostics > 0 => Status::Violations,
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

fn open_input(input: &CheckInput) -> Result<(Box<dyn BufRead>, Option<u64>), String> {
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
    let mode = ProfileMode::from(args.profile);
    let inputs = expand_check_paths(&args.paths);
    let mut reporter: Box<dyn Reporter> = match args.format {
        FormatArg::Text => Box::new(TextReporter),
        FormatArg::Json => Box::new(JsonReporter {
            mode,
            files: 0,
            diagnostics_in_file: 0,
        }),
    };
    let show_progress = io::stderr().is_terminal();
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    match check_inputs(&inputs, mode, show_progress, reporter.as_mut(), &mut out) {
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
    show_progress: bool,
    reporter: &mut dyn Reporter,
    out: &mut dyn Write,
) -> io::Result<i32> {
    let mut totals = Totals::default();
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
        match status(summary.as_ref(), error.as_ref()) {
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
// summary
// ---------------------------------------------------------------------------

/// Expands the paths: folders become the `.json` files beneath them, sorted.
pub fn expand_paths(paths: &[PathBuf], want: &dyn Fn(&Path) -> bool) -> io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.as_os_str() == "-" || !p.is_dir() {
            out.push(p.clone());
            continue;
        }
        let mut stack = vec![p.clone()];
        let mut found = Vec::new();
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir)? {
                let path = entry?.path();
                if path.is_dir() {
                    stack.push(path);
                } else if want(&path) {
                    found.push(path);
                }
            }
        }
        found.sort();
        out.extend(found);
    }
    Ok(out)
}

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

fn summary(paths: Vec<PathBuf>) -> i32 {
    let paths = if paths.is_empty() {
        vec![PathBuf::from(BUNDLED_EXAMPLES)]
    } else {
        paths
    };
    let files = match expand_paths(&paths, &|p| {
        p.extension().is_some_and(|e| e == "json" || e == "jsonl")
    }) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("inquiry-model: {e}");
            return EXIT_UNUSABLE;
        }
    };
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut code = EXIT_OK;
    for file in files {
        match summarize(&file) {
            Ok(text) => {
                let _ = out.write_all(text.as_bytes());
            }
            Err(e) => {
                eprintln!("{e}");
                code = EXIT_UNUSABLE;
            }
        }
    }
    code
}

/// The summary of one file, as printed.
pub fn summarize(path: &Path) -> Result<String, String> {
    let reader = open(path)?;
    let name = origin(path);
    let mut kinds: indexmap::IndexMap<String, usize> = indexmap::IndexMap::new();
    let mut ids: Vec<String> = Vec::new();
    let mut pairer = Pairer::new();
    let mut lines: Vec<String> = Vec::new();
    let mut orphans: Vec<String> = Vec::new();
    let mut turns = 0usize;
    for (i, ev) in EventReader::new(reader, name.clone()).typed().enumerate() {
        let ev = ev.map_err(|e: ReadError| e.to_string())?;
        if i == 0 || matches!(ev.kind, crate::wire::EventKind::TurnStart) {
            turns += 1;
        }
        *kinds.entry(ev.kind.tag().to_owned()).or_default() += 1;
        let id = ev
            .as_inquiry_request()
            .map(|r| r.id.to_string())
            .or_else(|| ev.as_inquiry_response().map(|r| r.id().to_string()));
        ids.push(id.unwrap_or_default());
        match pairer.push(i, &ev) {
            PairStep::Paired(p) => {
                let outcome = match ev.as_inquiry_response() {
                    Some(crate::wire::InquiryResponse::Answered { answer, .. }) => {
                        format!("answered {answer}")
                    }
                    Some(crate::wire::InquiryResponse::Cancelled { reason, .. }) => {
                        format!("cancelled ({reason})")
                    }
                    Some(crate::wire::InquiryResponse::Redacted { .. }) => "redacted".to_owned(),
                    None => String::new(),
                };
                lines.push(format!(
                    "  turn {}: {} events {} -> {}: {}",
                    p.turn, ids[p.request], p.request, p.response, outcome
                ));
            }
            PairStep::OrphanResponse { turn } => orphans.push(format!(
                "  turn {turn}: unpaired response {} at event {i}",
                ids[i]
            )),
            PairStep::TurnEnded {
                turn,
                orphan_requests,
            } => orphans.extend(
                orphan_requests
                    .into_iter()
                    .map(|r| format!("  turn {turn}: unpaired request {} at event {r}", ids[r])),
            ),
            PairStep::None | PairStep::Opened { .. } => {}
        }
    }
    let turn = pairer.turn();
    orphans.extend(
        pairer
            .finish()
            .into_iter()
            .map(|r| format!("  turn {turn}: unpaired request {} at event {r}", ids[r])),
    );
    let total: usize = kinds.values().sum();
    let mut s = format!("{name}: {total} events in {turns} turns\n");
    for (k, n) in &kinds {
        s.push_str(&format!("  {k}: {n}\n"));
    }
    s.push_str(&format!("inquiry pairs: {}\n", lines.len()));
    for l in lines {
        s.push_str(&l);
        s.push('\n');
    }
    if !orphans.is_empty() {
        s.push_str(&format!("unpaired: {}\n", orphans.len()));
        for l in orphans {
            s.push_str(&l);
            s.push('\n');
        }
    }
    Ok(s)
}
