//! `inquiry-model summary`: per stream file, the events by kind and the
//! inquiry pairs found. It takes paths exactly as `check` does (the same
//! walker, [`super::expand_check_paths`]) and ends like it: exit 0 when every
//! input was read, 2 when any was unusable (a missing file, a folder with no
//! stream files, bytes that are not a stream); the other inputs are still
//! summarised.

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;

use serde::Serialize;

use super::{
    CheckInput, EXIT_OK, EXIT_UNUSABLE, SUMMARY_JSON_VERSION, TextOrJson, count,
    expand_check_paths, open_input,
};
use crate::stream::{self, PairStep, Pairer};
use crate::wire::{EventReader, InquiryAnswerType, InquiryResponse, ReadError};

/// `inquiry-model summary`.
#[derive(Args, Debug)]
#[command(after_help = "\
Folders are searched as `check` searches them: a folder holding an `events.json` \
yields only that file, any other folder every `*.json` and `*.jsonl` beneath it.\n\n\
Exit 0: every input read; 2: an input was unusable (reported on stderr with the \
event, line and column; the others are still summarised).")]
pub(crate) struct SummaryArgs {
    /// Stream files (JSON array or JSON Lines), folders, or `-` for stdin.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// `text`, or `json`: `{"version": 1, "files": [...]}`, per input its
    /// `path` and either its counts, pairs and unpaired events or the
    /// `error` that made it unusable.
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    format: TextOrJson,
}

/// Runs `summary`; returns the exit code.
pub(crate) fn summary_command(args: SummaryArgs, _global: &super::GlobalArgs) -> i32 {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut code = EXIT_OK;
    let mut files = Vec::new();
    for input in expand_check_paths(&args.paths) {
        let summary = summarize(&input);
        if let Err(e) = &summary {
            eprintln!("{e}");
            code = EXIT_UNUSABLE;
        }
        match (args.format, summary) {
            (TextOrJson::Text, Ok(s)) => {
                if out.write_all(s.text().as_bytes()).is_err() {
                    return EXIT_UNUSABLE;
                }
            }
            (TextOrJson::Text, Err(_)) => {}
            (TextOrJson::Json, Ok(s)) => files.push(serde_json::to_value(s).unwrap_or_default()),
            (TextOrJson::Json, Err(e)) => {
                files.push(serde_json::json!({"path": input.origin(), "error": e}))
            }
        }
    }
    if args.format == TextOrJson::Json {
        let doc = serde_json::json!({"version": SUMMARY_JSON_VERSION, "files": files});
        if writeln!(out, "{doc}").is_err() {
            return EXIT_UNUSABLE;
        }
    }
    code
}

/// One input's summary: what `summary` prints for it, as text or JSON.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Summary {
    /// The input's name.
    pub(crate) path: String,
    /// Events read.
    pub(crate) events: usize,
    /// Turns (`turn_start`s, and the turn before the first if any).
    pub(crate) turns: usize,
    /// Events per `type`, in order of first appearance.
    pub(crate) kinds: indexmap::IndexMap<String, usize>,
    /// The inquiry pairs, in the order their responses come.
    pub(crate) pairs: Vec<SummaryPair>,
    /// Requests and responses without their other half.
    pub(crate) unpaired: Vec<Unpaired>,
}

/// One inquiry request and its response.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SummaryPair {
    /// The 0-based turn.
    pub(crate) turn: usize,
    /// The inquiry ID.
    pub(crate) id: String,
    /// The request's event index.
    pub(crate) request: usize,
    /// The response's event index.
    pub(crate) response: usize,
    /// How it ended (an answer to a secret question is not shown).
    pub(crate) outcome: String,
}

/// A request or a response without its other half in its turn.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Unpaired {
    /// The 0-based turn.
    pub(crate) turn: usize,
    /// `request` or `response`.
    pub(crate) kind: &'static str,
    /// The inquiry ID.
    pub(crate) id: String,
    /// The event index.
    pub(crate) event: usize,
}

impl Summary {
    /// The summary as `summary` prints it.
    pub(crate) fn text(&self) -> String {
        let mut s = format!(
            "{}: {} in {}\n",
            self.path,
            count(self.events, "event"),
            count(self.turns, "turn")
        );
        for (k, n) in &self.kinds {
            s.push_str(&format!("  {k}: {n}\n"));
        }
        s.push_str(&format!("inquiry pairs: {}\n", self.pairs.len()));
        for p in &self.pairs {
            s.push_str(&format!(
                "  turn {}: {} events {} -> {}: {}\n",
                p.turn, p.id, p.request, p.response, p.outcome
            ));
        }
        if !self.unpaired.is_empty() {
            s.push_str(&format!("unpaired: {}\n", self.unpaired.len()));
            for u in &self.unpaired {
                s.push_str(&format!(
                    "  turn {}: unpaired {} {} at event {}\n",
                    u.turn, u.kind, u.id, u.event
                ));
            }
        }
        s
    }
}

/// The summary of one input; the error names the input and, for a read
/// error, the event, line and column.
pub(crate) fn summarize(input: &CheckInput) -> Result<Summary, String> {
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
    let mut pairs: Vec<SummaryPair> = Vec::new();
    let mut unpaired: Vec<Unpaired> = Vec::new();
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
                pairs.push(SummaryPair {
                    turn: p.turn,
                    id: ids[p.request].clone(),
                    request: p.request,
                    response: p.response,
                    outcome,
                });
            }
            PairStep::OrphanResponse { turn } => unpaired.push(Unpaired {
                turn,
                kind: "response",
                id: ids[i].clone(),
                event: i,
            }),
            PairStep::TurnEnded {
                turn,
                orphan_requests,
            } => unpaired.extend(orphan_requests.into_iter().map(|r| Unpaired {
                turn,
                kind: "request",
                id: ids[r].clone(),
                event: r,
            })),
            PairStep::None | PairStep::Opened { .. } => {}
        }
    }
    let turn = pairer.turn();
    unpaired.extend(pairer.finish().into_iter().map(|r| Unpaired {
        turn,
        kind: "request",
        id: ids[r].clone(),
        event: r,
    }));
    Ok(Summary {
        path: name,
        events: kinds.values().sum(),
        turns: turns.count(),
        kinds,
        pairs,
        unpaired,
    })
}
