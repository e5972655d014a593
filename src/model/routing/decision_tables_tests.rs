//! Every decision table in `spec/tables/` against the function that
//! implements it, over every combination of the table's inputs.
//!
//! The tables are parsed from the Markdown a reviewer reads, so a change to
//! either side that the other does not follow fails here.

use crate::model::routing::{self, NonAnswer, Refusal, Route};
use crate::model::tool::{AnswerReusePolicy, AnswerType, Question, QuestionTarget};
use crate::profile::ProfileName;
use crate::profile::tables::Tables;
use crate::wire::{CancellationReason, ClosesQuestions};

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
                    let got = routing::route(has_static, target, tty, human_only).as_str();
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

/// Every input of the route function: (static answer, target, TTY,
/// human-only).
fn route_inputs() -> impl Iterator<Item = (bool, QuestionTarget, bool, bool)> {
    [false, true].into_iter().flat_map(|has_static| {
        [QuestionTarget::User, QuestionTarget::Assistant]
            .into_iter()
            .flat_map(move |target| {
                [false, true].into_iter().flat_map(move |tty| {
                    [false, true]
                        .into_iter()
                        .map(move |human_only| (has_static, target, tty, human_only))
                })
            })
    })
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

/// Rule: LIFE-CANCEL-REASON — the cancellation table the model reads
/// ([`Tables::RFD`], through `routing::cancellation_reason_in`) is exactly
/// `spec/tables/cancellation.md`, and the table covers every originating event.
#[test]
fn cancellation_table_matches_spec() {
    let rows = table("cancellation.md");
    assert_eq!(
        rows.len(),
        NonAnswer::all().len(),
        "one table row per originating event"
    );
    for event in NonAnswer::all() {
        let name = event.name();
        let want = lookup(&rows, &[&name]);
        assert_eq!(
            routing::cancellation_reason_in(&Tables::RFD, event).as_str(),
            want,
            "{name}"
        );
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
        NonAnswer::all().len(),
        "one row per originating event"
    );
    for why in NonAnswer::all() {
        let name = why.name();
        let row = rows
            .iter()
            .find(|r| r[0] == name)
            .unwrap_or_else(|| panic!("no row for {name}"));
        let got = crate::model::coordinator::non_answer_response(why, "t", "q");
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
    use crate::check::rules::QuestionFacts;
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
    for why in NonAnswer::all() {
        let name = why.name();
        let reason = routing::cancellation_reason_in(&Tables::RFD, why);
        let class = reason.class().expect("the model writes known reasons");
        let response = crate::model::coordinator::non_answer_response(why, "t", "q");
        if class.fails_tool {
            assert!(response.kind.is_error(), "{name}: {reason} fails the tool");
        }
        let guard_event = matches!(
            why,
            NonAnswer::Refused(Refusal::NoTty | Refusal::AssistantTarget)
        );
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
    use crate::check::Profile;
    use crate::check::shape::Shape;
    use crate::wire::Event;
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

/// Which variants a table of `spec/tables/` must name, and in which column:
/// `(column, names, once)`; `once` asks for exactly one row per name (the
/// table is keyed by it), otherwise at least one. Derived from the enums,
/// so a new variant fails [`every_table_has_a_row_per_variant`] until its
/// row is written; a new table fails until it is listed here.
fn table_variants(file: &str) -> Option<(usize, Vec<String>, bool)> {
    let answer_type = |t: &AnswerType| -> &'static str {
        match t {
            AnswerType::Boolean => "boolean",
            AnswerType::Select { .. } => "select",
            AnswerType::Text => "text",
            AnswerType::Secret => "secret",
        }
    };
    let policy = |p: AnswerReusePolicy| -> &'static str {
        match p {
            AnswerReusePolicy::Turn => "turn",
            AnswerReusePolicy::None => "none",
        }
    };
    let events = || NonAnswer::all().into_iter().map(NonAnswer::name).collect();
    Some(match file {
        "cancellation.md" => (0, events(), true),
        "non-answer-response.md" => (0, events(), true),
        "route.md" => (
            4,
            // Every route the route function takes on some input: a refusal
            // decided elsewhere (RFD 083 step 6 judges a static answer's fit
            // after the route) has no row here.
            Route::all()
                .into_iter()
                .filter(|r| route_inputs().any(|(s, t, tty, h)| routing::route(s, t, tty, h) == *r))
                .map(|r| r.as_str().to_owned())
                .collect(),
            false,
        ),
        "remember.md" => (
            0,
            [
                AnswerType::Boolean,
                AnswerType::Select { options: vec![] },
                AnswerType::Text,
                AnswerType::Secret,
            ]
            .iter()
            .map(|t| answer_type(t).to_owned())
            .collect(),
            false,
        ),
        "cache.md" => (
            1,
            [AnswerReusePolicy::Turn, AnswerReusePolicy::None]
                .map(|p| policy(p).to_owned())
                .to_vec(),
            false,
        ),
        _ => return None,
    })
}

/// The names of `names` that `text`'s table does not hold in `column` as
/// it should (`once`: exactly one row each), and the rows naming nothing
/// of `names` when `once`.
fn missing_rows(text: &str, column: usize, names: &[String], once: bool) -> Vec<String> {
    let rows: Vec<Vec<String>> = text
        .lines()
        .filter(|l| l.trim_start().starts_with('|'))
        .skip(2)
        .map(|l| {
            l.trim()
                .trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_owned())
                .collect()
        })
        .collect();
    let mut problems = Vec::new();
    for name in names {
        let n = rows.iter().filter(|r| r.get(column) == Some(name)).count();
        if n == 0 || (once && n > 1) {
            problems.push(format!("{name}: {n} rows"));
        }
    }
    if once {
        for r in &rows {
            if let Some(cell) = r.get(column)
                && !names.contains(cell)
            {
                problems.push(format!("{cell}: no such variant"));
            }
        }
    }
    problems
}

/// Rule: LIFE-CANCEL-REASON, LIFE-NON-ANSWER-RESPONSE, LIFE-ROUTE,
/// LIFE-REMEMBER, LIFE-CACHE-ELIGIBLE — every table in `spec/tables/` has
/// a row for every variant of the enum it is keyed by (`NonAnswer::all`,
/// `Route::all`, the answer types and reuse policies), and every table
/// there is known to this test.
#[test]
fn every_table_has_a_row_per_variant() {
    let dir = format!("{}/spec/tables", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 5, "{files:?}");
    for file in files {
        let (column, names, once) =
            table_variants(&file).unwrap_or_else(|| panic!("{file}: not keyed by a known enum"));
        let text = std::fs::read_to_string(format!("{dir}/{file}")).unwrap();
        let missing = missing_rows(&text, column, &names, once);
        assert!(missing.is_empty(), "spec/tables/{file}: {missing:?}");
    }
}

/// Rule: LIFE-CANCEL-REASON — the row check fails on a removed row and on a
/// planted variant that has no row (as a new guard would before its row is
/// written).
#[test]
fn row_check_catches_a_removed_row_and_a_planted_variant() {
    let dir = format!("{}/spec/tables", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(format!("{dir}/cancellation.md")).unwrap();
    let (column, names, once) = table_variants("cancellation.md").unwrap();
    assert!(missing_rows(&text, column, &names, once).is_empty());
    let removed: String = text
        .lines()
        .filter(|l| !l.starts_with("| refused_no_tty |"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(
        missing_rows(&removed, column, &names, once),
        ["refused_no_tty: 0 rows"]
    );
    let mut planted = names.clone();
    planted.push("refused_tool_refuses_inquiries".to_owned());
    assert_eq!(
        missing_rows(&text, column, &planted, once),
        ["refused_tool_refuses_inquiries: 0 rows"]
    );
    let route = std::fs::read_to_string(format!("{dir}/route.md")).unwrap();
    let (column, mut names, once) = table_variants("route.md").unwrap();
    names.push("refused_tool_refuses_inquiries".to_owned());
    assert_eq!(
        missing_rows(&route, column, &names, once),
        ["refused_tool_refuses_inquiries: 0 rows"]
    );
}
