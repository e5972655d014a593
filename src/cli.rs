//! The `inquiry-model` command line. The only module besides `src/bin` that
//! does I/O.

use std::fs::File;
use std::io::{self, BufReader, Write};
use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand};

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
            let code = if e.use_stderr() { EXIT_UNUSABLE } else { EXIT_OK };
            let _ = e.print();
            return code;
        }
    };
    match cli.command {
        Command::Summary { paths } => summary(paths),
    }
}

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
    let files = match expand_paths(&paths, &|p| p.extension().is_some_and(|e| e == "json" || e == "jsonl")) {
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
            PairStep::OrphanResponse { turn } => {
                orphans.push(format!("  turn {turn}: unpaired response {} at event {i}", ids[i]))
            }
            PairStep::TurnEnded {
                turn,
                orphan_requests,
            } => orphans.extend(orphan_requests.into_iter().map(|r| {
                format!("  turn {turn}: unpaired request {} at event {r}", ids[r])
            })),
            PairStep::None | PairStep::Opened => {}
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
