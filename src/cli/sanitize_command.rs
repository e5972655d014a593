//! `inquiry-model sanitize`: the reference turn-scoped repair of one stream
//! (RFD 082 Phase 3, [`crate::stream::sanitize()`]), for implementers to diff
//! their own `ConversationStream::sanitize()` against (rule `CLI-SANITIZE`).

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use serde::Serialize;

use super::{EXIT_OK, EXIT_UNUSABLE, EXIT_VIOLATIONS, open, origin};
use crate::stream::{self, Injected, Orphan, Removed, Sanitized};
use crate::wire::{Format, Stream};

/// `inquiry-model sanitize`.
#[derive(Args, Debug)]
#[command(after_help = "\
The whole stream is read into memory, repaired turn by turn, and written in \
this crate's canonical field order, every number spelled as it was read, in \
the input's layout unless `--format` says otherwise (`jsonl`, one event per \
line, or `array`, a pretty JSON array like a real events.json; an empty \
stream is written `[]`). The report \
goes to stderr: a line per removed or injected event, then a summary line \
(`--report json`: one JSON document, version 1). Exit 0: nothing to repair \
(the stream is written back unchanged); 1: the stream was repaired; 2: \
unusable input or output.")]
pub(crate) struct SanitizeArgs {
    /// The stream (JSON array or JSON Lines), or `-` for stdin.
    #[arg(value_name = "PATH")]
    path: PathBuf,
    /// Write the repaired stream to this file instead of stdout.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// The layout of the repaired stream [default: the input's].
    #[arg(long, value_enum)]
    format: Option<StreamFormat>,
    /// The layout of the report on stderr.
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    report: ReportFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum StreamFormat {
    Jsonl,
    Array,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ReportFormat {
    Text,
    Json,
}

/// The JSON report (`--report json`).
#[derive(Serialize)]
struct Report<'a> {
    version: u32,
    origin: &'a str,
    events_in: usize,
    events_out: usize,
    removed: &'a [Removed],
    injected: &'a [Injected],
    /// Output events whose secret answer was replaced by `redacted`.
    redacted: &'a [Scrubbed],
}

/// An `answered` response to a `secret` request, written `redacted`.
#[derive(Serialize)]
struct Scrubbed {
    turn: usize,
    /// Its index in the output stream.
    at: usize,
    id: String,
}

/// RFD 082 "Secret questions": a secret answer is never persisted; the
/// response is recorded `redacted`. A stream that holds one anyway (an
/// `answered` response to a `secret` request, which `check` reports as
/// CHECK-SECRET-NOT-ANSWERED) is written with that response `redacted`, so
/// the repaired stream does not pass the secret on (docs/decisions/cli.md,
/// "Secrets: masked where the answer sits").
fn redact_secret_answers(events: &mut [crate::wire::Event]) -> Vec<Scrubbed> {
    use crate::wire::{EventKind, InquiryAnswerType, InquiryResponse};
    let mut out = Vec::new();
    for p in stream::pair(events).pairs {
        let secret = events[p.request]
            .as_inquiry_request()
            .is_some_and(|r| matches!(r.question.answer_type, InquiryAnswerType::Secret));
        if let (true, EventKind::InquiryResponse(r @ InquiryResponse::Answered { .. })) =
            (secret, &mut events[p.response].kind)
        {
            let id = r.id().clone();
            out.push(Scrubbed {
                turn: p.turn,
                at: p.response,
                id: id.to_string(),
            });
            *r = InquiryResponse::Redacted { id };
        }
    }
    out.sort_by_key(|s| s.at);
    out
}

/// Runs `inquiry-model sanitize`.
pub(crate) fn sanitize_command(args: SanitizeArgs) -> i32 {
    let name = origin(&args.path);
    if args.path.is_dir() {
        // A folder would fail at the first read as `Is a directory`; say
        // what to run instead.
        let events = args.path.join("events.json");
        eprintln!(
            "inquiry-model: {name} is a folder; sanitize repairs one stream: name the file ({}), \
             or judge every stream in the folder with `inquiry-model check {name}`",
            events.display()
        );
        return EXIT_UNUSABLE;
    }
    let input = match open(&args.path) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("inquiry-model: {e}");
            return EXIT_UNUSABLE;
        }
    };
    let (events, read_format) = match Stream::read_with_format(input, &name) {
        Ok((s, format)) => (s.events, format),
        Err(e) => {
            eprintln!("inquiry-model: {e}");
            return EXIT_UNUSABLE;
        }
    };
    let format = args.format.unwrap_or(match read_format {
        Format::Array => StreamFormat::Array,
        Format::JsonLines => StreamFormat::Jsonl,
    });
    let events_in = events.len();
    let mut repaired = stream::sanitize(events);
    let scrubbed = redact_secret_answers(&mut repaired.events);
    if let Err(e) = write_stream(&args, format, &repaired) {
        eprintln!("inquiry-model: {e}");
        return EXIT_UNUSABLE;
    }
    let report = match args.report {
        ReportFormat::Text => text_report(&name, events_in, &repaired, &scrubbed),
        ReportFormat::Json => {
            let doc = Report {
                version: 1,
                origin: &name,
                events_in,
                events_out: repaired.events.len(),
                removed: &repaired.removed,
                injected: &repaired.injected,
                redacted: &scrubbed,
            };
            serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
        }
    };
    let _ = io::stderr().write_all(report.as_bytes());
    if repaired.is_unchanged() && scrubbed.is_empty() {
        EXIT_OK
    } else {
        EXIT_VIOLATIONS
    }
}

fn write_stream(
    args: &SanitizeArgs,
    format: StreamFormat,
    repaired: &Sanitized,
) -> Result<(), String> {
    let out: Box<dyn Write> = match &args.out {
        Some(path) => Box::new(
            File::create(path).map_err(|e| format!("{}: cannot create: {e}", path.display()))?,
        ),
        None => Box::new(io::stdout().lock()),
    };
    let mut out = BufWriter::new(out);
    let stream = Stream::new(repaired.events.clone());
    let written = match format {
        StreamFormat::Jsonl => stream.write_json_lines(&mut out),
        StreamFormat::Array => stream.write_array(&mut out),
    };
    let target = args
        .out
        .as_ref()
        .map_or("<stdout>".to_owned(), |p| p.display().to_string());
    written
        .and_then(|()| out.flush())
        .map_err(|e| format!("{target}: cannot write: {e}"))
}

/// A line per repair, in input order for removals and output order for
/// injections, then a summary line.
fn text_report(
    name: &str,
    events_in: usize,
    repaired: &Sanitized,
    scrubbed: &[Scrubbed],
) -> String {
    let mut text = String::new();
    for r in &repaired.removed {
        let why = match r.reason {
            Orphan::InquiryRequest => "inquiry_request with no response later in its turn",
            Orphan::InquiryResponse => {
                "inquiry_response with no unpaired request earlier in its turn"
            }
            Orphan::ToolCallResponse => {
                "tool_call_response with no unpaired request earlier in its turn"
            }
        };
        text.push_str(&format!(
            "{name}: turn {}, event {}: removed: {why}\n",
            r.turn, r.index
        ));
    }
    for i in &repaired.injected {
        text.push_str(&format!(
            "{name}: turn {}, output event {}: injected: error tool_call_response for the \
             tool_call_request at event {}\n",
            i.turn, i.at, i.request
        ));
    }
    for s in scrubbed {
        text.push_str(&format!(
            "{name}: turn {}, output event {}: redacted: the answer to secret question `{}` \
             (a secret answer is never persisted)\n",
            s.turn, s.at, s.id
        ));
    }
    text.push_str(&format!(
        "{name}: {events_in} events in, {} out; {} removed, {} injected, {} redacted\n",
        repaired.events.len(),
        repaired.removed.len(),
        repaired.injected.len(),
        scrubbed.len()
    ));
    text
}
