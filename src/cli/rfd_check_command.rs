//! `inquiry-model rfd-check RFD.md [--profile P]`: an RFD's JSON examples
//! and decision tables against a profile (rule `AMEND-RFD-CHECK`). Exit 0:
//! something was checked and nothing disagrees; 1: a row or example
//! disagrees; 2: unusable input, or nothing in the file could be checked.

use std::path::PathBuf;

use clap::Args;

use super::{EXIT_OK, EXIT_UNUSABLE, EXIT_VIOLATIONS};
use crate::review::profile_file::RuleSet;
use crate::review::rfd_check;

/// `inquiry-model rfd-check`.
#[derive(Args, Debug)]
#[command(after_help = "\
Reads an RFD in Markdown. Every `InquiryResponse` in a fenced json block \
must read and be written back as shown; every table the model implements \
(routing precedence, cancellation reasons, remember rules, cache bypass) is \
compared row by row with the profile's decision. Disagreeing rows and examples are listed with their rule \
IDs; a table or row the model cannot map is listed as not checked.\n\n\
Exit 0: at least one row or example checked, none disagrees; 1: a row or \
example disagrees; 2: unusable input, or nothing checked (no table row the \
model decides and no example).")]
pub(crate) struct RfdCheckArgs {
    /// The RFD's Markdown text.
    pub rfd: PathBuf,
    /// The profile to check against: `legacy`, `rfd082`, `rfd083` or a
    /// profile file.
    #[arg(long, value_parser = super::profile_arg::RuleSetParser, default_value = "rfd083")]
    pub(crate) profile: RuleSet,
    /// `text` or `json`.
    #[arg(long, default_value = "text", value_parser = ["text", "json"])]
    pub(crate) format: String,
}

/// Runs `rfd-check`; returns the exit code.
pub(crate) fn rfd_check_command(args: RfdCheckArgs) -> i32 {
    let origin = args.rfd.display().to_string();
    let text = match std::fs::read_to_string(&args.rfd) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("inquiry-model: {origin}: cannot read: {e}");
            return EXIT_UNUSABLE;
        }
    };
    let report = rfd_check::check(&text, &args.profile);
    let printed = if args.format == "json" {
        super::versioned_json(super::REVIEW_JSON_VERSION, &report) + "\n"
    } else {
        report.text(&origin)
    };
    if std::io::Write::write_all(&mut std::io::stdout(), printed.as_bytes()).is_err() {
        return EXIT_UNUSABLE;
    }
    let judged = |v: &rfd_check::Verdict| match v {
        rfd_check::Verdict::Agrees | rfd_check::Verdict::Disagrees { .. } => true,
        rfd_check::Verdict::NotChecked { .. } => false,
    };
    let checked = report
        .tables
        .iter()
        .flat_map(|t| &t.rows)
        .filter(|r| judged(&r.verdict))
        .count()
        + report
            .examples
            .iter()
            .filter(|e| judged(&e.verdict))
            .count();
    if report.disagreements() > 0 {
        EXIT_VIOLATIONS
    } else if checked == 0 {
        // Agreement with nothing is no verdict: the file is not an RFD the
        // model can judge (or the wrong file).
        eprintln!(
            "inquiry-model: {origin}: nothing checked: no table row the model decides and no \
             `InquiryResponse` example in a json block"
        );
        EXIT_UNUSABLE
    } else {
        EXIT_OK
    }
}
