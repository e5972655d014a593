//! Every field `conformance::MARKS` compares exactly, with the RFD sentence
//! that fixes it, quoted verbatim (rule `CONF-EXACT-CLASS`), or with the
//! pin that names it as the model's own decision (rule `CONF-PINS`).
//!
//! The quotes are found in `tests/rfd/exact-marks-quotes.md`, a committed
//! verbatim excerpt of the RFD texts, so the check runs without them; when
//! `INQUIRY_MODEL_RFDS` names the RFD folder, each quote is also found in
//! the RFD text itself and each excerpt block is checked to be a verbatim
//! part of its file. Quotes are matched with every run of whitespace read
//! as one space (the RFD texts wrap lines; nothing else is loosened).

use crate::external;

use std::collections::BTreeSet;

use inquiry_model::conformance::{MARKS, Mark, PINS, Pin};

/// `(field, RFD, quote)`: the sentences that make each exactly compared
/// field exact.
const QUOTES: [(&str, &str, &str); 16] = [
    (
        "stream.turn_start",
        "RFD 082",
        "The counter resets only at turn boundaries — a fresh `TurnState` is built per turn.",
    ),
    (
        "stream.tool_call_request",
        "RFD 082",
        "where `attempt` is a 1-indexed counter scoped to the `(tool_call_id, question_id)` pair within the turn.",
    ),
    (
        "stream.tool_call_request",
        "RFD 082",
        "Tool-question answers, keyed `\"<tool_name>.<question_id>\"`",
    ),
    (
        "stream.tool_call_response.is_error",
        "RFD 082",
        "The `ToolCallResponse` returned to the LLM is unchanged (existing wording);",
    ),
    (
        "stream.inquiry_request",
        "RFD 082",
        "The coordinator records `InquiryRequest { id, source, question }` **before any routing decision**",
    ),
    (
        "stream.inquiry_request",
        "RFD 082",
        "the persisted `InquiryQuestion` carries the same `answer_type` as the source `Question`",
    ),
    (
        "stream.inquiry_response",
        "RFD 082",
        "#[serde(tag = \"outcome\", rename_all = \"snake_case\")]",
    ),
    (
        "invocations.answers",
        "RFD 082",
        "the coordinator immediately respawns it with the answer injected",
    ),
    (
        "tool_responses.is_error",
        "RFD 082",
        "The `ToolCallResponse` returned to the LLM is unchanged (existing wording);",
    ),
    (
        "tool_responses.content[ask_user success]",
        "RFD 083",
        "The success body is a stable JSON shape rather than the raw answer text",
    ),
    (
        "stream.tool_call_response.content[ask_user success]",
        "RFD 083",
        "The success body is a stable JSON shape rather than the raw answer text",
    ),
    (
        "prompts.own_events_before",
        "RFD 082",
        "The coordinator records `InquiryRequest { id, source, question }` **before any routing decision**",
    ),
    (
        "prompts.presentation",
        "RFD 082",
        "Prompter input is not echoed;",
    ),
    (
        "prompts.presentation",
        "RFD 083",
        "The prompter also honors `question.persistence` — suppresses the `Y`/`N` \"remember for turn\" options for booleans when `persistence == AnswerReusePolicy::None`.",
    ),
    (
        "prompts.presentation",
        "RFD 083",
        "Label resolution stays in the coordinator: it reads `config.questions[question.id].prompt_label.as_deref()` and passes the result through.",
    ),
    (
        "remembered",
        "RFD 082",
        "Tool-permission decisions, keyed `\"<tool_name>.__permission__\"`",
    ),
];

/// The exactly compared fields no RFD here fixes: the pin a vector resting
/// on each carries.
const PINNED: [(&str, Pin); 2] = [
    (
        "tool_responses[result_withheld]",
        Pin::DeliveryWithheldResponse,
    ),
    ("inquiry_models", Pin::BackendModelChoice),
];

/// Each RFD's file in the RFD folder.
const FILES: [(&str, &str); 2] = [
    ("RFD 082", "000_d985dc4a01ca8a03.txt"),
    ("RFD 083", "003_b512057d08f923a0.txt"),
];

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether `quote` is in `text`, whitespace runs read as one space.
fn quoted_in(quote: &str, text: &str) -> bool {
    collapse(text).contains(&collapse(quote))
}

/// The committed excerpt's blocks: `(RFD, file, text)`.
fn excerpt_blocks() -> Vec<(String, String, String)> {
    let path = external::root().join("tests/rfd/exact-marks-quotes.md");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut blocks: Vec<(String, String, String)> = Vec::new();
    for line in text.lines() {
        let marker = line
            .strip_prefix("<!-- RFD ")
            .and_then(|l| l.strip_suffix(" -->"));
        match marker {
            Some(m) => {
                let mut parts = m.split(' ');
                let number = parts.next().unwrap_or_default();
                let file = parts.next().unwrap_or_default();
                blocks.push((format!("RFD {number}"), file.to_owned(), String::new()));
            }
            None => {
                if let Some((_, _, body)) = blocks.last_mut() {
                    body.push_str(line);
                    body.push('\n');
                }
            }
        }
    }
    assert!(blocks.len() >= 8, "{} excerpt blocks", blocks.len());
    blocks
}

fn excerpt_of(rfd: &str) -> String {
    excerpt_blocks()
        .into_iter()
        .filter(|(r, _, _)| r == rfd)
        .map(|(_, _, b)| b)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Rule: CONF-EXACT-CLASS — the listed fields are exactly the `Exact` rows
/// of MARKS: each quoted or pinned, none both, none left out; and a pinned
/// row says so in its `why`.
#[test]
fn every_exact_field_is_quoted_or_pinned() {
    let exact: BTreeSet<&str> = MARKS
        .iter()
        .filter(|(_, m, _)| *m == Mark::Exact)
        .map(|(f, _, _)| *f)
        .collect();
    let quoted: BTreeSet<&str> = QUOTES.iter().map(|(f, _, _)| *f).collect();
    let pinned: BTreeSet<&str> = PINNED.iter().map(|(f, _)| *f).collect();
    assert_eq!(quoted.intersection(&pinned).count(), 0);
    let listed: BTreeSet<&str> = quoted.union(&pinned).copied().collect();
    assert_eq!(listed, exact, "MARKS' exact rows vs the listed ones");
    for (field, pin) in PINNED {
        let why = MARKS.iter().find(|(f, _, _)| *f == field).unwrap().2;
        assert!(
            why.contains(&format!("pin {}", pin.id())),
            "{field}: its why does not name pin {pin}"
        );
        assert!(PINS.iter().any(|p| p.pin == pin));
    }
}

/// Rule: CONF-EXACT-CLASS — every quote is in the committed excerpt of its
/// RFD; a quote with one word changed is not (the match can fail).
#[test]
fn every_quote_is_in_the_committed_excerpt() {
    for (field, rfd, quote) in QUOTES {
        assert!(
            quoted_in(quote, &excerpt_of(rfd)),
            "{field}: {rfd} excerpt lacks {quote:?}"
        );
    }
    let excerpt = excerpt_of("RFD 082");
    let wrong = "The `ToolCallResponse` returned to the LLM is changed (existing wording);";
    assert!(!quoted_in(wrong, &excerpt));
    assert!(!quoted_in("Prompter input is echoed;", &excerpt));
}

/// Rule: CONF-EXACT-CLASS — with the RFD texts at hand: every quote is in
/// its RFD and every committed excerpt block is a verbatim part of its file
/// (runs when `INQUIRY_MODEL_RFDS` names the RFD folder).
#[test]
fn every_quote_and_excerpt_is_in_the_rfd_text() {
    let Some(dir) = external::rfds("exact_marks::every_quote_and_excerpt_is_in_the_rfd_text")
    else {
        return;
    };
    let text_of = |rfd: &str| {
        let file = FILES
            .iter()
            .find(|(r, _)| *r == rfd)
            .unwrap_or_else(|| panic!("no file for {rfd}"))
            .1;
        std::fs::read_to_string(dir.join(file))
            .unwrap_or_else(|e| panic!("{}: {e}", dir.join(file).display()))
    };
    for (field, rfd, quote) in QUOTES {
        assert!(
            quoted_in(quote, &text_of(rfd)),
            "{field}: {rfd} lacks {quote:?}"
        );
    }
    for (rfd, file, body) in excerpt_blocks() {
        let (_, expected_file) = FILES.iter().find(|(r, _)| *r == rfd).unwrap();
        assert_eq!(&file, expected_file);
        assert!(
            text_of(&rfd).contains(&body),
            "{rfd} {file}: the committed block is not verbatim:\n{body}"
        );
    }
}
