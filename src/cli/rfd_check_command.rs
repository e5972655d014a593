//! `inquiry-model rfd-check RFD.md [--profile P]`: an RFD's JSON examples
//! and decision tables against a profile (rule `AMEND-RFD-CHECK`). Exit 0:
//! something was checked and nothing disagrees; 1: a row or example
//! disagrees; 2: unusable input, or nothing in the file could be checked.

use std::path::PathBuf;

use clap::Args;

use super::{EXIT_OK, EXIT_UNUSABLE, EXIT_VIOLATIONS};
use crate::review::profile_file::{self, Origin, RuleSet};
use crate::review::rfd_check;

/// `inquiry-model rfd-check`.
#[derive(Args, Debug)]
#[command(after_help = "\
Reads an RFD in Markdown. Every `InquiryResponse` in a fenced json block \
must read and be written back as shown; every table the model implements \
(routing precedence, cancellation reasons, remember rules, cache bypass) is \
compared row by row with the profile's decision. Disagreeing rows and examples are listed with their rule \
IDs; a table or row the model cannot map is listed as not checked.\n\n\
Normative sentences of the prose (MUST, MUST NOT, SHOULD, never, always) are \
listed with their line: tied to a switch where the tool can, else not checked.\n\n\
--write-profile FILE writes the profile file that agrees with the text (rule \
AMEND-WRITE-PROFILE) and checks the text against it.\n\n\
Exit 0: at least one row or example checked, none disagrees; 1: a row or \
example disagrees (with --write-profile: with the written profile); 2: \
unusable input, or nothing checked (no table row the model decides and no \
example).")]
pub(crate) struct RfdCheckArgs {
    /// The RFD's Markdown text.
    pub(crate) rfd: PathBuf,
    /// The profile to check against: `legacy`, `rfd082`, `rfd083` or a
    /// profile file.
    #[arg(long, value_parser = super::profile_arg::RuleSetParser, default_value = "rfd083")]
    pub(crate) profile: RuleSet,
    /// `text` or `json`.
    #[arg(long, default_value = "text", value_parser = ["text", "json"])]
    pub(crate) format: String,
    /// Write the profile file whose tables agree with the text: the
    /// profile (its base, for a profile file) with each disagreeing
    /// cancellation row amended and each sentence tied to a switch set,
    /// each with the line it came from. The text is then checked against
    /// the written profile.
    #[arg(long, value_name = "FILE")]
    pub(crate) write_profile: Option<PathBuf>,
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
    if let Some(out) = &args.write_profile {
        return write_profile(&origin, &text, &args.profile, out);
    }
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

/// `--write-profile`: the amendment of the profile's base that agrees with
/// the text, written to `out`; then the text checked against it.
fn write_profile(origin: &str, text: &str, profile: &RuleSet, out: &std::path::Path) -> i32 {
    let base = match &profile.origin {
        Origin::File {
            base: Some(base), ..
        } => *base,
        Origin::File { base: None, .. } | Origin::Builtin => profile.judged_as,
    };
    let amendment = rfd_check::amendment(text, &profile.rules, origin);
    if amendment.from.is_empty() {
        // No row or switch to write: a profile file that amends nothing
        // is no amendment (the reader refuses it), so none is written.
        let report = rfd_check::check(text, profile);
        let mut printed = report.text(origin);
        printed.push_str(&format!(
            "nothing written to {}: no disagreeing row or sentence of {origin} is one a profile file over {base} can state\n",
            out.display()
        ));
        for (line, why) in &amendment.not_written {
            printed.push_str(&format!("{origin}:{line}: not written: {why}\n"));
        }
        if std::io::Write::write_all(&mut std::io::stdout(), printed.as_bytes()).is_err() {
            return EXIT_UNUSABLE;
        }
        return if report.disagreements() > 0 {
            EXIT_VIOLATIONS
        } else {
            EXIT_OK
        };
    }
    let title = std::path::Path::new(origin)
        .file_name()
        .map_or_else(|| origin.to_owned(), |n| n.to_string_lossy().into_owned());
    let sources: Vec<String> = amendment
        .from
        .iter()
        .map(|(k, v)| format!("{k} from {v}"))
        .collect();
    let description = format!(
        "Written by `inquiry-model rfd-check --profile {} --write-profile` from {origin}: {}.",
        profile.label,
        if sources.is_empty() {
            "nothing disagrees".to_owned()
        } else {
            sources.join("; ")
        }
    );
    let doc = profile_file::to_amendment_file(
        &format!("{title} as an amendment of {}", profile.label),
        &format!("{} (as {origin} states it)", profile.label),
        Some(&description),
        base,
        &amendment.rules,
        &amendment.from,
    );
    let written = out.display().to_string();
    let body = match serde_json::to_string_pretty(&doc) {
        Ok(b) => b + "\n",
        Err(e) => {
            eprintln!("inquiry-model: {written}: {e}");
            return EXIT_UNUSABLE;
        }
    };
    // Read back as any profile file is: what is written is what runs.
    let set = match profile_file::parse(&written, &body) {
        Ok(set) => set,
        Err(e) => {
            eprintln!("inquiry-model: the written profile does not read back: {e}");
            return EXIT_UNUSABLE;
        }
    };
    if let Err(e) = std::fs::write(out, &body) {
        eprintln!("inquiry-model: {written}: cannot write: {e}");
        return EXIT_UNUSABLE;
    }
    let report = rfd_check::check(text, &set);
    let mut printed = report.text(origin);
    printed.push_str(&format!(
        "wrote {written} (base {base}): {} amended\n",
        if amendment.from.is_empty() {
            "nothing".to_owned()
        } else {
            amendment
                .from
                .keys()
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        }
    ));
    for (line, why) in &amendment.not_written {
        printed.push_str(&format!("{origin}:{line}: not written: {why}\n"));
    }
    if std::io::Write::write_all(&mut std::io::stdout(), printed.as_bytes()).is_err() {
        return EXIT_UNUSABLE;
    }
    if report.disagreements() > 0 {
        EXIT_VIOLATIONS
    } else {
        EXIT_OK
    }
}
