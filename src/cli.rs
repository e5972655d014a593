//! The `inquiry-model` command line. The only module besides `src/bin` that
//! does I/O.
//!
//! Subcommands live in the private `Command` enum; each has its own argument struct and its
//! own function returning the exit code, so adding one is adding a variant,
//! a struct and a function.

use std::io::IsTerminal;

use clap::{ArgAction, Args, Parser, Subcommand, ValueEnum};

mod allocator;
mod broken_pipe;
pub(crate) mod check_command;
pub mod conform_command;
mod github;
pub mod model_commands;
mod paths;
pub(crate) mod profile_arg;
pub(crate) mod progress;
pub(crate) mod rfd_check_command;
pub(crate) mod sanitize_command;
mod shell_command;
pub(crate) mod summary_command;

pub use allocator::Allocator;
pub(crate) use paths::{CheckInput, expand_check_paths};
pub(crate) use paths::{open, open_input, origin};

/// Exit code: everything read, no rule violated.
pub(crate) const EXIT_OK: i32 = 0;
/// Exit code: rule violations found.
pub(crate) const EXIT_VIOLATIONS: i32 = 1;
/// Exit code: unusable input or usage.
pub(crate) const EXIT_UNUSABLE: i32 = 2;

/// The version of the `check --format json` document.
pub(crate) const CHECK_JSON_VERSION: u32 = 1;

/// The version of the `summary --format json` document.
pub(crate) const SUMMARY_JSON_VERSION: u32 = 1;

/// The version of the `explore --format json` document.
pub(crate) const EXPLORE_JSON_VERSION: u32 = 1;

/// The version of the `explain --format json` document.
pub(crate) const EXPLAIN_JSON_VERSION: u32 = 1;

/// The version of the `diff-profiles`, `invariants` and `rfd-check`
/// `--format json` documents.
pub(crate) const REVIEW_JSON_VERSION: u32 = 1;

/// `doc` as the JSON document a command prints: an object whose first
/// field is `"version"`, then `doc`'s own fields (a `doc` that is not an
/// object is its `items`).
pub(crate) fn versioned_json(version: u32, doc: &impl serde::Serialize) -> String {
    let mut out = serde_json::Map::new();
    out.insert("version".to_owned(), version.into());
    match serde_json::to_value(doc).unwrap_or_default() {
        serde_json::Value::Object(fields) => out.extend(fields),
        other => {
            out.insert("items".to_owned(), other);
        }
    }
    serde_json::to_string_pretty(&serde_json::Value::Object(out)).unwrap_or_default()
}

/// `--format` of `summary`, `explore` and `explain`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum TextOrJson {
    /// Lines for a person.
    #[default]
    Text,
    /// One JSON document with its `version` first, as `check --format json`.
    Json,
}

/// The JSON schema of SARIF 2.1.0 (OASIS, errata 01), named by
/// `check --format sarif`'s `$schema`.
pub(crate) const SARIF_SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

#[derive(Parser, Debug)]
#[command(
    name = "inquiry-model",
    // `-V`: the package version and, built from a git checkout, the commit
    // (build.rs).
    version = env!("INQUIRY_MODEL_VERSION"),
    about = "Reference model of the tool-inquiry recording lifecycle (RFD 082/083)"
)]
struct Cli {
    #[command(flatten)]
    global: GlobalArgs,
    #[command(subcommand)]
    command: Command,
}

/// The flags every subcommand takes, before or after its name, as cargo's
/// and ruff's do: how much to say on stderr, and whether to colour and
/// show progress. Every command reads them from here.
#[derive(Args, Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct GlobalArgs {
    /// Say nothing on stderr but errors: no progress, no notes.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub(crate) quiet: bool,
    /// Say more on stderr (what runs, and how long it took).
    #[arg(short, long, global = true, action = ArgAction::Count)]
    pub(crate) verbose: u8,
    /// Colour standard output (a text report's severities; a command
    /// whose output has no colour ignores it): `auto` colours on a terminal
    /// unless `NO_COLOR` is set (`CLICOLOR_FORCE` colours any output).
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t = When::Auto)]
    pub(crate) color: When,
    /// Progress of long runs on stderr: `auto` on a terminal only;
    /// `always` also into a pipe or a file (a line per update); `never`.
    /// `-q` means `never`. Standard output is the same either way.
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t = When::Auto)]
    pub(crate) progress: When,
}

/// `--color` and `--progress`: on a terminal only, always, or never.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum When {
    /// On a terminal only.
    #[default]
    Auto,
    /// Also into a pipe or a file.
    Always,
    /// Never.
    Never,
}

impl GlobalArgs {
    /// Whether to draw progress on stderr (`--progress`, `-q`).
    pub(crate) fn progress_on(&self) -> bool {
        !self.quiet
            && match self.progress {
                When::Auto => std::io::stderr().is_terminal() && !dumb_terminal(),
                When::Always => true,
                When::Never => false,
            }
    }

    /// Whether to colour standard output (`--color`; for `auto`, the
    /// conventions of no-color.org and bixense.com/clicolors: a non-empty
    /// `NO_COLOR` switches colour off, a `CLICOLOR_FORCE` other than `0` on).
    pub(crate) fn color_on(&self) -> bool {
        let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0");
        match self.color {
            When::Always => true,
            When::Never => false,
            When::Auto if std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()) => false,
            When::Auto if dumb_terminal() => false,
            When::Auto => set("CLICOLOR_FORCE") || std::io::stdout().is_terminal(),
        }
    }
}

/// `TERM=dumb`: a terminal that cannot move the cursor or show colour.
fn dumb_terminal() -> bool {
    std::env::var_os("TERM").is_some_and(|t| t == "dumb")
}

/// The parser of counts and durations that must be at least 1
/// (`--stride`, `--threads`, `--timeout`): 0 would mean nothing, everything
/// or forever, so it is refused as a usage error (exit 2) instead of being
/// given a meaning silently.
pub(crate) fn at_least_one<T>(s: &str) -> Result<T, String>
where
    T: std::str::FromStr + PartialEq + From<u8>,
    T::Err: std::fmt::Display,
{
    match s.trim().parse::<T>() {
        Ok(n) if n == T::from(0) => Err("must be at least 1".to_owned()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("`{s}` is not a whole number: {e}")),
    }
}

pub(crate) use crate::words::count;

#[derive(Subcommand, Debug)]
enum Command {
    /// Read stream files and print, per file, the events by kind and the
    /// inquiry pairs found. Exit 0: every input read; 2: unusable input.
    Summary(summary_command::SummaryArgs),
    /// Judge persisted streams against every CHECK-* rule (the conformance
    /// oracle). Exit 0: no violation; 1: violations; 2: unusable input.
    Check(check_command::CheckArgs),
    /// Repair one stream as RFD 082's turn-scoped sanitize does and write it
    /// out, with a report of every removal and injection. Exit 0: nothing to
    /// repair; 1: repaired; 2: unusable input.
    Sanitize(sanitize_command::SanitizeArgs),
    /// Run a scenario through the model and print the trace as JSON. Exit
    /// 0: the trace printed; 2: unusable scenario or usage.
    Run(model_commands::RunArgs),
    /// Write conformance vectors: scenario in, expected stream and
    /// tool-visible behaviour out. Exit 0: written; 2: cannot write, or
    /// usage.
    Vectors(model_commands::VectorsArgs),
    /// Run an implementation in any language (a JSON Lines subprocess) on
    /// the vectors and generated scenarios. Exit 0: pass; 1: a failure; 2:
    /// unusable adapter or usage.
    Conform(conform_command::ConformArgs),
    /// Print a rule of the catalog: its text, RFD source and tests. Exit 0:
    /// printed; 2: no such rule, or usage.
    Explain(model_commands::ExplainArgs),
    /// Enumerate the small scope exhaustively and check every invariant.
    /// Exit 0: none violated; 1: a violation (or a scenario the model
    /// refused); 2: usage.
    Explore(model_commands::ExploreArgs),
    /// Run the same scenarios under two profiles and classify the changes.
    /// Exit 0: the target keeps every invariant the base keeps; 1: it
    /// breaks one; 2: unusable profile or usage.
    DiffProfiles(model_commands::DiffArgs),
    /// Which invariants hold under a profile (or the whole matrix). Exit 0:
    /// all hold (always with --matrix); 1: one is violated; 2: unusable
    /// profile or usage.
    Invariants(model_commands::InvariantsArgs),
    /// Check an RFD's JSON examples and decision tables against a profile.
    /// Exit 0: they agree; 1: a row or example disagrees; 2: unusable input
    /// or nothing checked.
    RfdCheck(rfd_check_command::RfdCheckArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish,
    /// powershell). Exit 0: printed; 2: usage.
    Completions(shell_command::CompletionsArgs),
    /// Print the man page, or write every page into a folder. Exit 0:
    /// written; 2: cannot write, or usage.
    Man(shell_command::ManArgs),
}

/// Runs the command line with the process arguments; returns the exit code.
/// A closed standard output ends the process quietly with exit 0
/// ([`broken_pipe`]; in the process's entry only, not in [`run`], which a
/// library user may call in a process of their own). mimalloc, the
/// binary's allocator, purges freed memory at once (`allocator`).
pub fn main() -> i32 {
    allocator::purge_freed_memory_at_once();
    broken_pipe::exit_quietly_on_broken_stdout();
    run(std::env::args_os())
}

/// Runs the command line with the given arguments; returns the exit code.
pub(crate) fn run<I, T>(args: I) -> i32
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
    let g = &cli.global;
    match cli.command {
        Command::Summary(args) => summary_command::summary_command(args, g),
        Command::Check(args) => check_command::check_command(args, g),
        Command::Sanitize(args) => sanitize_command::sanitize_command(args),
        Command::Run(args) => model_commands::run_command(args),
        Command::Vectors(args) => model_commands::vectors_command(args),
        Command::Conform(args) => conform_command::conform_command(args, g),
        Command::Explain(args) => model_commands::explain_command(args),
        Command::Explore(args) => model_commands::explore_command(args, g),
        Command::DiffProfiles(args) => model_commands::diff_command(args, g),
        Command::Invariants(args) => model_commands::invariants_command(args, g),
        Command::RfdCheck(args) => rfd_check_command::rfd_check_command(args),
        Command::Completions(args) => shell_command::completions_command(args),
        Command::Man(args) => shell_command::man_command(args),
    }
}
