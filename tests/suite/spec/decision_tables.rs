//! Every decision table in `spec/tables/` against the function that
//! implements it, over every combination of the table's inputs.
//!
//! The tables are parsed from the Markdown a reviewer reads, so a change to
//! either side that the other does not follow fails here.

use inquiry_model::profile::ProfileName;
use inquiry_model::routing::{self, InquiryErrorKind, NonAnswer, Route};
use inquiry_model::tool::{AnswerReusePolicy, AnswerType, Question, QuestionTarget};

/// The rows of the first Markdown table in a file, as cells.
fn table(name: &str) -> Vec<Vec<String>> {
    let path = format!("{}/spec/tables/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let rows: Vec<Vec<String>> = text
        .lines()
        .filter(|l| l.trim_start().starts_with('|'))
        .map(|l| {
            l.trim()
                .trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_owned())
                .collect()
        })
        .collect();
    assert!(rows.len() > 2, "{path}: no table");
    // Header and separator.
    rows[2..].to_vec()
}

/// Every event that ends a question without an answer, by its name in the
/// cancellation and non-answer-response tables (`spec/tables/`).
const NON_ANSWERS: [(&str, NonAnswer); 9] = [
    ("prompt_cancelled", NonAnswer::PromptCancelled),
    (
        "inquiry_error:cancelled",
        NonAnswer::Inquiry(InquiryErrorKind::Cancelled),
    ),
    (
        "inquiry_error:provider",
        NonAnswer::Inquiry(InquiryErrorKind::Provider),
    ),
    (
        "inquiry_error:missing_structured_data",
        NonAnswer::Inquiry(InquiryErrorKind::MissingStructuredData),
    ),
    (
        "inquiry_error:answer_extraction",
        NonAnswer::Inquiry(InquiryErrorKind::AnswerExtraction),
    ),
    (
        "inquiry_error:other",
        NonAnswer::Inquiry(InquiryErrorKind::Other),
    ),
    ("guard_no_tty", NonAnswer::GuardNoTty),
    ("guard_assistant_target", NonAnswer::GuardAssistantTarget),
    ("invalid_static_answer", NonAnswer::InvalidStaticAnswer),
];

/// The output of the first row whose input cells match (`any` matches all).
fn lookup<'a>(rows: &'a [Vec<String>], inputs: &[&str]) -> &'a str {
    let n = inputs.len();
    rows.iter()
        .find(|r| {
            r[..n]
                .iter()
                .zip(inputs)
                .all(|(cell, v)| cell == "any" || cell == v)
        })
        .map(|r| r[n].as_str())
        .unwrap_or_else(|| panic!("no row of the table matches {inputs:?}"))
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// Rule: LIFE-ROUTE — `routing::route` is exactly `spec/tables/route.md`.
#[test]
fn route_table_matches_spec() {
    let rows = table("route.md");
    let mut checked = 0;
    for has_static in [false, true] {
        for target in [QuestionTarget::User, QuestionTarget::Assistant] {
            for tty in [false, true] {
                for human_only in [false, true] {
                    let t = match target {
                        QuestionTarget::User => "user",
                        QuestionTarget::Assistant => "assistant",
                    };
                    let want = lookup(
                        &rows,
                        &[yes_no(has_static), t, yes_no(tty), yes_no(human_only)],
                    );
                    let got = match routing::route(has_static, target, tty, human_only) {
                        Route::Static => "static",
                        Route::Prompter => "prompter",
                        Route::Backend => "backend",
                        Route::RefuseNoTty => "refuse_no_tty",
                        Route::RefuseAssistantTarget => "refuse_assistant_target",
                    };
                    assert_eq!(
                        got, want,
                        "static={has_static} target={t} tty={tty} human_only={human_only}"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, 16);
}

/// Rule: LIFE-CACHE-ELIGIBLE — `routing::cache_eligible` is exactly `spec/tables/cache.md`.
#[test]
fn cache_table_matches_spec() {
    let rows = table("cache.md");
    for secret in [false, true] {
        for persistence in [AnswerReusePolicy::Turn, AnswerReusePolicy::None] {
            for gate in [false, true] {
                let p = match persistence {
                    AnswerReusePolicy::Turn => "turn",
                    AnswerReusePolicy::None => "none",
                };
                let g = if gate { "on" } else { "off" };
                let want = lookup(&rows, &[yes_no(secret), p, g]);
                let got = yes_no(routing::cache_eligible(secret, persistence, gate));
                assert_eq!(got, want, "secret={secret} persistence={p} gate={g}");
            }
        }
    }
}

/// Rule: LIFE-REMEMBER — `routing::remember_offered` is exactly `spec/tables/remember.md`.
#[test]
fn remember_table_matches_spec() {
    let rows = table("remember.md");
    let types = [
        ("boolean", AnswerType::Boolean),
        (
            "select",
            AnswerType::Select {
                options: vec!["a".into()],
            },
        ),
        ("text", AnswerType::Text),
        ("secret", AnswerType::Secret),
    ];
    for (name, answer_type) in types {
        for persistence in [AnswerReusePolicy::Turn, AnswerReusePolicy::None] {
            for gate in [false, true] {
                let mut rules = ProfileName::Rfd083.rules();
                rules.persistence_gate = gate;
                let mut q = Question::text("q", "Q?").with_persistence(persistence);
                q.answer_type = answer_type.clone();
                let p = match persistence {
                    AnswerReusePolicy::Turn => "turn",
                    AnswerReusePolicy::None => "none",
                };
                let g = if gate { "on" } else { "off" };
                let want = lookup(&rows, &[name, p, g]);
                let got = yes_no(routing::remember_offered(&q, &rules));
                assert_eq!(got, want, "type={name} persistence={p} gate={g}");
            }
        }
    }
}

/// Rule: LIFE-CANCEL-REASON — `routing::cancellation_reason` is exactly
/// `spec/tables/cancellation.md`, and the table covers every originating event.
#[test]
fn cancellation_table_matches_spec() {
    let rows = table("cancellation.md");
    assert_eq!(
        rows.len(),
        NON_ANSWERS.len(),
        "one table row per originating event"
    );
    for (name, event) in NON_ANSWERS {
        let want = lookup(&rows, &[name]);
        assert_eq!(routing::cancellation_reason(event).as_str(), want, "{name}");
    }
}

/// Rule: LIFE-NON-ANSWER-RESPONSE — `coordinator::non_answer_response` is
/// exactly `spec/tables/non-answer-response.md` (kind and `is_error`), for
/// every originating event (RFD 082 "Recording lifecycle" step 6).
#[test]
fn non_answer_response_table_matches_spec() {
    let rows = table("non-answer-response.md");
    assert_eq!(
        rows.len(),
        NON_ANSWERS.len(),
        "one row per originating event"
    );
    for (name, why) in NON_ANSWERS {
        let row = rows
            .iter()
            .find(|r| r[0] == name)
            .unwrap_or_else(|| panic!("no row for {name}"));
        let got = inquiry_model::coordinator::non_answer_response(why, "t", "q");
        assert_eq!(got.kind.as_str(), row[1], "{name}");
        assert_eq!(got.kind.is_error().to_string(), row[2], "{name}");
    }
}

/// Rule: LIFE-HUMAN-ONLY — the model's routing (`routing::human_only`) and
/// the oracle's reason rules (`QuestionFacts::human_only`) give the RFDs'
/// answer, written out by hand per stage: `secret` is human-only from RFD
/// 082 on (RFD 082 "Secret questions"; before it the model reads the type
/// as text, while a `secret` on disk is judged as one under any profile),
/// `exclusive` only under RFD 083 ("Non-interactive behavior").
#[test]
fn human_only_is_the_rfd_answer_for_model_and_oracle() {
    use inquiry_model::check::rules::QuestionFacts;
    // (profile, secret, exclusive) -> (model, oracle)
    let table = [
        (ProfileName::Legacy, false, false, false, false),
        (ProfileName::Legacy, false, true, false, false),
        (ProfileName::Legacy, true, false, false, true),
        (ProfileName::Legacy, true, true, false, true),
        (ProfileName::Rfd082, false, false, false, false),
        (ProfileName::Rfd082, false, true, false, false),
        (ProfileName::Rfd082, true, false, true, true),
        (ProfileName::Rfd082, true, true, true, true),
        (ProfileName::Rfd083, false, false, false, false),
        (ProfileName::Rfd083, false, true, true, true),
        (ProfileName::Rfd083, true, false, true, true),
        (ProfileName::Rfd083, true, true, true, true),
    ];
    for (profile, secret, exclusive, model, oracle) in table {
        let q = if secret {
            Question::secret("q", "Q?")
        } else {
            Question::text("q", "Q?")
        }
        .with_exclusive(exclusive);
        assert_eq!(
            routing::human_only(&q, &profile.rules()),
            model,
            "model: {profile} secret={secret} exclusive={exclusive}"
        );
        let facts = QuestionFacts::of(&q.to_inquiry_question());
        assert_eq!(
            facts.human_only(profile),
            oracle,
            "oracle: {profile} secret={secret} exclusive={exclusive}"
        );
    }
}
