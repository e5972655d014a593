//! The subcommands that run the model: `run`, `vectors`, `explain`,
//! `explore`, `diff-profiles`, `invariants`, one file each; what they share
//! (the output macros, the profile parser, input reading, output formats)
//! is here. The macros are defined before the submodules so they see them.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use clap::builder::TypedValueParser;
use clap::{Args, ValueEnum};
use serde_json::Value;

use super::progress::Progress;
use super::{
    EXIT_OK, EXIT_UNUSABLE, EXIT_VIOLATIONS, EXPLAIN_JSON_VERSION, EXPLORE_JSON_VERSION,
    GlobalArgs, TextOrJson,
};
use crate::conformance;
use crate::explore::{self, Family};
use crate::review::amend;
use crate::review::profile_file::RuleSet;
use crate::scenario::{self, Scenario, ScenarioError};

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

mod diff_command;
mod explain_command;
mod explore_command;
mod invariants_command;
mod run_command;
mod vectors_command;

pub(crate) use diff_command::{DiffArgs, diff_command};
pub use explain_command::{CatalogRow, catalog, title};
pub(crate) use explain_command::{ExplainArgs, explain_command};
pub(crate) use explore_command::{ExploreArgs, explore_command};
pub(crate) use invariants_command::{InvariantsArgs, invariants_command};
pub(crate) use run_command::{RunArgs, run_command};
pub(crate) use vectors_command::{VectorsArgs, vectors_command};

/// Output formats of the amendment tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ReportFormat {
    /// Lines for a person (`diff-profiles`: per class, the smallest
    /// scenario and both traces side by side; `invariants`: each verdict
    /// with its smallest counterexample).
    Text,
    /// Tables to paste into an RFD discussion or a pull request.
    Markdown,
    /// One JSON document, its `version` first.
    Json,
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

/// Text fit for one Markdown table cell: pipes escaped, line breaks as
/// `<br>`.
fn markdown_cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', "<br>")
}
