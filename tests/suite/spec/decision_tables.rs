//! Every decision table in `spec/tables/` against the function that
//! implements it, over every combination of the table's inputs.
//!
//! The tables are parsed from the Markdown a reviewer reads, so a change to
//! either side that the other does not follow fails here.

use inquiry_model::model::routing::{self, InquiryErrorKind, NonAnswer, Route};
use inquiry_model::model::tool::{AnswerReusePolicy, AnswerType, Question, QuestionTarget};
use inquiry_model::profile::ProfileName;
use inquiry_model::wire::{CancellationReason, ClosesQuestions};

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
        let got = inquiry_model::model::coordinator::non_answer_response(why, "t", "q");
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

/// One reason's class as the RFDs state it, transcribed by hand: the tag,
/// whether it fails the tool, which questions it may close, and the RFD
/// sentences that fix both.
struct ReasonRow {
    reason: CancellationReason,
    tag: &'static str,
    fails_tool: bool,
    closes: ClosesQuestions,
    rfd: &'static str,
}

/// The RFDs' rows, one per reason they name.
const RFD_REASON_ROWS: [ReasonRow; 5] = [
    ReasonRow {
        reason: CancellationReason::User,
        tag: "user",
        fails_tool: false,
        closes: ClosesQuestions::Any,
        rfd: "RFD 082 step 6: \"`ExecutionEvent::PromptCancelled` (user Ctrl-C or EOF) | \
              `User`\", \"`InquiryError::Cancelled` (cancellation token fired — user \
              restart, tool cancel, hard quit) | `User`\"; \"The `ToolCallResponse` \
              returned to the LLM is unchanged (existing wording)\": a cancelled prompt \
              answered `Tool input cancelled by user.`, a success",
    },
    ReasonRow {
        reason: CancellationReason::BackendError,
        tag: "backend_error",
        fails_tool: true,
        closes: ClosesQuestions::NeverHumanOnly,
        rfd: "RFD 082 step 6: \"`InquiryError::Provider` | `BackendError`\"; \
              \"Secret questions\": \"`AnswerType::Secret` cannot be routed to the inquiry \
              backend, full stop\"; RFD 028: \"On failure, mark the tool as completed \
              with an error\"",
    },
    ReasonRow {
        reason: CancellationReason::NoPromptBackend,
        tag: "no_prompt_backend",
        fails_tool: true,
        closes: ClosesQuestions::OnlyHumanOnly,
        rfd: "RFD 082 \"Secret questions\": \"No TTY available — fail the tool with a \
              tool-level error and record `InquiryResponse::Cancelled { reason: \
              NoPromptBackend }`\"; RFD 083: \"`target = \"user\"`, no TTY, `exclusive = \
              true` | **Fail the tool**\"",
    },
    ReasonRow {
        reason: CancellationReason::AssistantRoutingDenied,
        tag: "assistant_routing_denied",
        fails_tool: true,
        closes: ClosesQuestions::OnlyHumanOnly,
        rfd: "RFD 082 \"Secret questions\": \"Explicit `target = \"assistant\"` — fail the \
              tool with a tool-level error and record `InquiryResponse::Cancelled { \
              reason: AssistantRoutingDenied }`\"; RFD 083: \"`target = \"assistant\"`, \
              `exclusive = true` | **Fail the tool**\"",
    },
    ReasonRow {
        reason: CancellationReason::InvalidStaticAnswer,
        tag: "invalid_static_answer",
        fails_tool: true,
        closes: ClosesQuestions::Any,
        rfd: "RFD 083 \"Static-answer validation\": \"On mismatch, the coordinator \
              synthesizes a tool-level error response naming `QuestionConfig.answer` as \
              the source […] and records the corresponding inquiry response as \
              `InquiryResponse::Cancelled { reason: InvalidStaticAnswer }`\" (a static \
              answer may be configured for any question)",
    },
];

/// Where `reason` sits in [`RFD_REASON_ROWS`]. The match is exhaustive: a
/// new `CancellationReason` variant does not compile here until it is given
/// a row, and `reason_classes_are_the_rfd_rows` fails until the row (with
/// the sentence that fixes it) is written and `KNOWN` lists the variant.
fn rfd_reason_row(reason: &CancellationReason) -> Option<&'static ReasonRow> {
    let index = match reason {
        CancellationReason::User => 0,
        CancellationReason::BackendError => 1,
        CancellationReason::NoPromptBackend => 2,
        CancellationReason::AssistantRoutingDenied => 3,
        CancellationReason::InvalidStaticAnswer => 4,
        // RFD 082: "Audit-trail-only — readers MUST NOT branch on the contents."
        CancellationReason::Unknown(_) => return None,
    };
    Some(&RFD_REASON_ROWS[index])
}

/// Rule: CHECK-REASON-FAILS-TOOL, CHECK-REASON-HUMAN-ONLY,
/// CHECK-REASON-BACKEND-ERROR — the reason classes in `wire`
/// (`CancellationReason::class`), which the model and the oracle both read,
/// are the RFDs' rows, transcribed by hand above; `KNOWN` lists each
/// variant with a row once, and an unknown tag has no class.
#[test]
fn reason_classes_are_the_rfd_rows() {
    assert_eq!(
        CancellationReason::KNOWN.len(),
        RFD_REASON_ROWS.len(),
        "KNOWN lists every reason the RFDs name, once"
    );
    for (i, row) in RFD_REASON_ROWS.iter().enumerate() {
        let at = rfd_reason_row(&row.reason).map(|r| r.tag);
        assert_eq!(at, Some(row.tag), "row {i} is where its reason points");
        assert!(
            CancellationReason::KNOWN.contains(&row.reason),
            "{}",
            row.tag
        );
    }
    let mut tags = Vec::new();
    for reason in CancellationReason::KNOWN {
        let row = rfd_reason_row(&reason).expect("a known reason has a row");
        assert_eq!(reason.as_str(), row.tag, "{}", row.rfd);
        let class = reason.class().expect("a known reason has a class");
        assert_eq!(class.fails_tool, row.fails_tool, "{}: {}", row.tag, row.rfd);
        assert_eq!(class.closes, row.closes, "{}: {}", row.tag, row.rfd);
        assert_eq!(reason.fails_tool(), row.fails_tool, "{}", row.tag);
        assert_eq!(
            reason.is_guard(),
            row.closes == ClosesQuestions::OnlyHumanOnly,
            "{}",
            row.tag
        );
        assert!(!tags.contains(&row.tag), "{} twice in KNOWN", row.tag);
        tags.push(row.tag);
    }
    let unknown = CancellationReason::from_tag("prompter_io_error_v9");
    assert!(rfd_reason_row(&unknown).is_none());
    assert_eq!(unknown.class(), None);
    assert!(!unknown.fails_tool() && !unknown.is_guard());
}

/// Rule: LIFE-CANCEL-REASON, LIFE-NON-ANSWER-RESPONSE — the model's
/// non-answers agree with the reason classes: the response is an error
/// whenever the recorded reason fails the tool, a guard reason is recorded
/// exactly by the routing guards, and a reason that never closes a
/// human-only question is recorded only by the inquiry backend.
#[test]
fn model_non_answers_follow_the_reason_classes() {
    for (name, why) in NON_ANSWERS {
        let reason = routing::cancellation_reason(why);
        let class = reason.class().expect("the model writes known reasons");
        let response = inquiry_model::model::coordinator::non_answer_response(why, "t", "q");
        if class.fails_tool {
            assert!(response.kind.is_error(), "{name}: {reason} fails the tool");
        }
        let guard_event = matches!(why, NonAnswer::GuardNoTty | NonAnswer::GuardAssistantTarget);
        assert_eq!(
            class.closes == ClosesQuestions::OnlyHumanOnly,
            guard_event,
            "{name}: {reason}"
        );
        if class.closes == ClosesQuestions::NeverHumanOnly {
            assert!(matches!(why, NonAnswer::Inquiry(_)), "{name}: {reason}");
        }
    }
}

/// Rule: CHECK-PROFILE-SHAPE — which RFD stage a shape on disk proves
/// (`check::shape::Shape::evidence`, derived from the profiles' switches),
/// against the stages the RFDs give, written out by hand: a switch of
/// `profile.rs` moved to another stage, or a derivation reading the wrong
/// switch, fails here.
#[test]
fn stage_a_shape_proves_is_the_rfd_stage() {
    use inquiry_model::check::Profile;
    use inquiry_model::check::shape::Shape;
    use inquiry_model::wire::Event;
    let request = |answer_type: &str, extra: &str| {
        format!(
            r#"{{"type":"inquiry_request","timestamp":"2026-01-01 00:00:00.000000","id":"c.q.1","source":{{"source":"tool","name":"t"}},"question":{{"text":"Q?","answer_type":{{"type":"{answer_type}"}}{extra}}}}}"#
        )
    };
    let response = |body: &str| {
        format!(
            r#"{{"type":"inquiry_response","timestamp":"2026-01-01 00:00:00.000000","id":"c.q.1",{body}}}"#
        )
    };
    // (event, written tagged, the stage it proves, the RFD sentence)
    let rows: [(String, bool, Option<Profile>, &str); 9] = [
        (
            request("boolean", ""),
            true,
            None,
            "a plain question: every stage asks one",
        ),
        (
            request("secret", ""),
            true,
            Some(Profile::Rfd082),
            "RFD 082: the question carries \"`AnswerType::Secret` when applicable\"",
        ),
        (
            request("boolean", r#","exclusive":true"#),
            true,
            Some(Profile::Rfd083),
            "RFD 083 \"Persisted recording\": the question gains `exclusive`",
        ),
        (
            response(r#""answer":true"#),
            false,
            Some(Profile::Legacy),
            "RFD 082: \"every new write produces the tagged form\"; only the pre-082 writer writes flat",
        ),
        (
            response(r#""outcome":"answered","answer":true"#),
            true,
            None,
            "RFD 082: an RFD 082 writer re-saves a legacy answer tagged",
        ),
        (
            response(r#""outcome":"cancelled","reason":"user""#),
            true,
            Some(Profile::Rfd082),
            "RFD 082 step 6: `Cancelled` is new in RFD 082",
        ),
        (
            response(r#""outcome":"cancelled","reason":"no_prompt_backend""#),
            true,
            Some(Profile::Rfd082),
            "RFD 082 \"Secret questions\": the routing guard records `NoPromptBackend`",
        ),
        (
            response(r#""outcome":"cancelled","reason":"invalid_static_answer""#),
            true,
            Some(Profile::Rfd083),
            "RFD 083: \"One new `CancellationReason` variant: `InvalidStaticAnswer`\"",
        ),
        (
            response(r#""outcome":"redacted""#),
            true,
            Some(Profile::Rfd082),
            "RFD 082: `Redacted` is new in RFD 082 (secret questions)",
        ),
    ];
    for (text, tagged, want, rfd) in rows {
        let event: Event = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let mut shape = Shape::of_event(&event);
        shape.tagged = tagged;
        assert_eq!(shape.evidence(&event), want, "{text}: {rfd}");
    }
}
