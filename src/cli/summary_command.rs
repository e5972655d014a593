//! `inquiry-model summary`: per stream file, the events by kind and the
//! inquiry pairs found. It takes paths exactly as `check` does (the same
//! walker, [`super::expand_check_paths`]) and ends like it: exit 0 when every
//! input was read, 2 when any was unusable (a missing file, a folder with no
//! stream files, bytes that are not a stream); the other inputs are still
//! summarised.

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;

use super::{CheckInput, EXIT_OK, EXIT_UNUSABLE, expand_check_paths, open_input};
use crate::stream::{self, PairStep, Pairer};
use crate::wire::{EventReader, InquiryAnswerType, InquiryResponse, ReadError};

/// `inquiry-model summary`.
#[derive(Args, Debug)]
#[command(after_help = "\
Folders are searched as `check` searches them: a folder holding an `events.json` \
yields only that file, any other folder every `*.json` and `*.jsonl` beneath it.\n\n\
Exit 0: every input read; 2: an input was unusable (reported on stderr with the \
event, line and column; the others are still summarised).")]
pub struct SummaryArgs {
    /// Stream files (JSON array or JSON Lines), folders, or `-` for stdin.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
}

/// Runs `summary`; returns the exit code.
pub fn summary_command(args: SummaryArgs, _global: &super::GlobalArgs) -> i32 {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut code = EXIT_OK;
    for input in expand_check_paths(&args.paths) {
        match summarize(&input) {
            Ok(text) => {
                if out.write_all(text.as_bytes()).is_err() {
                    return EXIT_UNUSABLE;
                }
            }
            Err(e) => {
                eprintln!("{e}");
                code = EXIT_UNUSABLE;
            }
        }
    }
    code
}

/// The summary of one input, as printed; the error names the input and,
/// for a read error, the event, line and column.
pub fn summarize(input: &CheckInput) -> Result<String, String> {
    let (reader, _) = open_input(input)?;
    let name = input.origin();
    let mut kinds: indexmap::IndexMap<String, usize> = indexmap::IndexMap::new();
    let mut ids: Vec<String> = Vec::new();
    // Per event: whether it is a request for a `secret` answer, whose
    // persisted answer is never printed (RFD 082 "Secret questions": the
    // answer "never touches disk"; a stream that holds one anyway does not
    // pass it on to a terminal or a CI log either).
    let mut secret: Vec<bool> = Vec::new();
    let mut pairer = Pairer::new();
    let mut lines: Vec<String> = Vec::new();
    let mut orphans: Vec<String> = Vec::new();
    let mut turns = stream::turns::Tracker::new();
    for (i, ev) in EventReader::new(reader, name.clone()).typed().enumerate() {
        let ev = ev.map_err(|e: ReadError| e.to_string())?;
        turns.push(&ev.kind);
        *kinds.entry(ev.kind.tag().to_owned()).or_default() += 1;
        let id = ev
            .as_inquiry_request()
            .map(|r| r.id.to_string())
            .or_else(|| ev.as_inquiry_response().map(|r| r.id().to_string()));
        ids.push(id.unwrap_or_default());
        secret.push(
            ev.as_inquiry_request()
                .is_some_and(|r| matches!(r.question.answer_type, InquiryAnswerType::Secret)),
        );
        match pairer.push(i, &ev) {
            PairStep::Paired(p) => {
                let outcome = match ev.as_inquiry_response() {
                    Some(InquiryResponse::Answered { .. })
                        if secret.get(p.request).copied().unwrap_or(false) =>
                    {
                        "answered (the answer to a secret question, not shown)".to_owned()
                    }
                    Some(InquiryResponse::Answered { answer, .. }) => {
                        format!("answered {answer}")
                    }
                    Some(InquiryResponse::Cancelled { reason, .. }) => {
                        format!("cancelled ({reason})")
                    }
                    Some(InquiryResponse::Redacted { .. }) => "redacted".to_owned(),
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
    let mut s = format!(
        "{name}: {} in {}\n",
        super::count(total, "event"),
        super::count(turns.count(), "turn")
    );
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
