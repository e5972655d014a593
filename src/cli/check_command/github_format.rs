//! `check --format github`: one GitHub Actions workflow command per
//! diagnostic (`::error` for an error, `::warning` for a warning; the rule
//! ID as the title; the file, line and column where the event starts) and
//! one `::error` per unusable input, so a workflow step annotates the
//! files it checked. Nothing else is written to stdout.

use std::io::{self, Write};

use super::{InputError, Reporter, Totals};
use crate::check::{Diagnostic, FileSummary, Severity};
use crate::cli::github::{Annotation, Level, command};

/// The reporter; it keeps no state.
pub(super) struct GithubReporter;

/// The annotation's file: the path as given, none for standard input.
fn file(origin: &str) -> Option<&str> {
    (origin != "<stdin>").then_some(origin)
}

impl Reporter for GithubReporter {
    fn begin(&mut self, _: &mut dyn Write) -> io::Result<()> {
        Ok(())
    }

    fn file_begin(&mut self, _: &mut dyn Write, _: &str) -> io::Result<()> {
        Ok(())
    }

    fn diagnostic(&mut self, out: &mut dyn Write, d: &Diagnostic) -> io::Result<()> {
        let level = match d.severity {
            Severity::Error => Level::Error,
            Severity::Warning => Level::Warning,
        };
        let message = format!(
            "turn {}, event {}: {} ({})",
            d.turn,
            d.event_index,
            d.message,
            d.rule.title()
        );
        let a = Annotation {
            file: file(&d.origin),
            line: d.position.map(|p| p.line),
            col: d.position.map(|p| p.column),
            title: d.rule.id(),
            message: &message,
        };
        writeln!(out, "{}", command(level, &a))
    }

    fn file_end(
        &mut self,
        out: &mut dyn Write,
        origin: &str,
        _: Option<&FileSummary>,
        error: Option<&InputError>,
    ) -> io::Result<()> {
        let Some(e) = error else {
            return Ok(());
        };
        let a = Annotation {
            file: file(origin),
            line: e.line,
            col: e.column,
            title: "unusable input",
            message: &e.message,
        };
        writeln!(out, "{}", command(Level::Error, &a))
    }

    fn end(&mut self, _: &mut dyn Write, _: &Totals) -> io::Result<()> {
        Ok(())
    }
}
