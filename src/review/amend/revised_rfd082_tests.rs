//! The revised RFD 082 of the amendment tests, shared by the library's
//! unit tests (`amendment_rows_tests`) and the command-line ones
//! (`tests/suite/tooling/amendment_rows.rs`, which includes this file by
//! path): both name the crate `inquiry_model` and find the committed files
//! through their own `crate::external`. The amendment written from it is
//! each side's own: the library's from `rfd_check::amendment`, the command
//! line's from the file `rfd-check --write-profile` writes.

use crate::external;
use inquiry_model::scenario;
use inquiry_model::wire::{CancellationReason, InquiryResponse};

pub(crate) const RFD082: &str = "tests/rfd/rfd082-excerpt.md";

pub(crate) fn read(rel: &str) -> String {
    std::fs::read_to_string(external::root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The committed RFD 082 excerpt as the other team revised it: a row for
/// prompter failures recording `BackendError` in the step-6 table (the
/// prose that sent them down the `User` path rewritten), and the sentence
/// "`question_id` MUST NOT contain `.`".
pub(crate) fn revised_rfd082() -> String {
    let mut text = read(RFD082);
    let row = "or EOF) | `User` | | `InquiryError::Cancelled`";
    assert_eq!(
        text.matches(row).count(),
        1,
        "the excerpt's first reason row"
    );
    text = text.replace(
        row,
        "or EOF) | `User` | | Prompter failure (I/O error, no TTY) | `BackendError` | | \
         `InquiryError::Cancelled`",
    );
    let prose = "   Prompter I/O errors (e.g.\n   EOF on stdin mid-prompt) are indistinguishable \
                 from Ctrl-C at the\n   coordinator's vantage today and follow the same `User` \
                 path; if a future\n   change distinguishes them, the right landing is a new \
                 `CancellationReason`\n   variant rather than re-using `BackendError`.\n";
    assert!(text.contains(prose), "the excerpt's prompter-failure prose");
    text = text.replace(
        prose,
        "   A prompter failure other than Ctrl-C or EOF (an I/O error, no TTY) is\n   told \
         apart from a cancellation and records `BackendError`.\n",
    );
    let heading = "### `InquiryResponse` serialization";
    text.replace(
        heading,
        &format!(
            "`question_id` MUST NOT contain `.`: a tool whose question ID holds one is\n\
             rejected at the tool boundary with a tool-level error, and the question is\n\
             not recorded.\n\n{heading}"
        ),
    )
}

/// The 1-based line of the first line of `text` containing `needle`.
pub(crate) fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .map(|i| i + 1)
        .unwrap_or_else(|| panic!("no line holds {needle}"))
}

/// The inquiries the stream closes `backend_error` on a secret question.
pub(crate) fn secret_backend_errors(trace: &scenario::Trace) -> usize {
    let secret: Vec<String> = trace
        .stream
        .iter()
        .filter_map(|e| match &e.kind {
            inquiry_model::wire::EventKind::InquiryRequest(r)
                if r.question.answer_type == inquiry_model::wire::InquiryAnswerType::Secret =>
            {
                Some(r.id.to_string())
            }
            _ => None,
        })
        .collect();
    trace
        .stream
        .iter()
        .filter(|e| {
            matches!(
                e.as_inquiry_response(),
                Some(InquiryResponse::Cancelled { id, reason: CancellationReason::BackendError })
                    if secret.contains(&id.to_string())
            )
        })
        .count()
}

/// `text` with `from` replaced by `to`, where `from` occurs exactly once.
pub(crate) fn edit(text: &str, from: &str, to: &str) -> String {
    assert_eq!(text.matches(from).count(), 1, "{from}");
    text.replace(from, to)
}

/// The committed RFD 083 excerpt with its table failing the tool for a
/// plain question without a TTY and prompting for a plain
/// assistant-targeted one.
pub(crate) fn routing_rows_edited() -> String {
    let text = read("tests/rfd/rfd083-excerpt.md");
    let text = edit(
        &text,
        "| `target = \"user\"`, no TTY, `exclusive = false` | Route to inquiry backend (existing behavior).        |",
        "| `target = \"user\"`, no TTY, `exclusive = false` | **Fail the tool**.        |",
    );
    edit(
        &text,
        "| `target = \"assistant\"`, `exclusive = false`    | Route to inquiry backend (existing behavior).        |",
        "| `target = \"assistant\"`, `exclusive = false`    | Prompt the user.        |",
    )
}
