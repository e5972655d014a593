//! The inquiry backend of RFD 028 as the trace records it: schema per answer
//! type, the cloned conversation, answer extraction and its errors.

use super::spec_common_tests::{cancel_reasons, responses, run, stream_text};
use crate::model::inquiry::{BackendAnswerType, BackendCall, BackendQuestion, schema};
use crate::model::routing::{AnswerMismatch, InquiryErrorKind, validate_answer};
use crate::model::tool::{AnswerType, Question};
use crate::profile::ProfileName;
use crate::scenario::Scenario;
use crate::wire::{CancellationReason, EventKind, InquiryResponse};
use serde_json::json;

/// Rule: LIFE-BACKEND-SCHEMA — one schema per answer type, the inquiry ID
/// pinned with `const`, both fields required, nothing else allowed.
#[test]
fn schema_per_answer_type() {
    let cases = [
        (BackendAnswerType::Boolean, json!({"type": "boolean"})),
        (
            BackendAnswerType::Select {
                options: vec!["a".into(), "b".into()],
            },
            json!({"type": "string", "enum": ["a", "b"]}),
        ),
        (BackendAnswerType::Text, json!({"type": "string"})),
    ];
    for (t, answer) in cases {
        let s = schema("call_1.q.1", &t);
        assert_eq!(
            s,
            json!({
                "type": "object",
                "properties": {
                    "inquiry_id": {"type": "string", "const": "call_1.q.1"},
                    "answer": answer
                },
                "required": ["inquiry_id", "answer"],
                "additionalProperties": false
            })
        );
    }
}

/// Rule: LIFE-HUMAN-ONLY-NEVER-BACKEND — a secret or (under rfd083) an
/// exclusive question cannot even be made into a backend question.
#[test]
fn human_only_questions_cannot_be_backend_questions() {
    let r083 = ProfileName::Rfd083.rules();
    let r082 = ProfileName::Rfd082.rules();
    assert!(BackendQuestion::new(&Question::secret("p", "P"), &r083).is_none());
    assert!(BackendQuestion::new(&Question::secret("p", "P"), &r082).is_none());
    let excl = Question::boolean("q", "Q").with_exclusive(true);
    assert!(BackendQuestion::new(&excl, &r083).is_none());
    assert!(
        BackendQuestion::new(&excl, &r082).is_some(),
        "exclusive is an RFD 083 field"
    );
    assert!(BackendQuestion::new(&Question::text("t", "T"), &r083).is_some());
}

/// Rule: LIFE-BACKEND-EXTRACT — the answer is taken from a structured
/// response that names the inquiry and fits the schema; anything else is
/// `MissingStructuredData` or `AnswerExtraction`.
#[test]
fn answer_extraction_and_its_errors() {
    let q = BackendQuestion::new(
        &Question::select("s", "Which?", vec!["a".into(), "b".into()]),
        &ProfileName::Rfd083.rules(),
    )
    .unwrap();
    let call = BackendCall::new("c.s.1", "c", "tool", q, 3);
    assert_eq!(
        call.extract(&json!({"inquiry_id": "c.s.1", "answer": "a"})),
        Ok(json!("a"))
    );
    assert_eq!(
        call.extract(&json!("a")),
        Err(InquiryErrorKind::MissingStructuredData)
    );
    assert_eq!(
        call.extract(&json!(null)),
        Err(InquiryErrorKind::MissingStructuredData)
    );
    assert_eq!(
        call.extract(&json!({"inquiry_id": "c.s.1", "answer": "z"})),
        Err(InquiryErrorKind::AnswerExtraction)
    );
    assert_eq!(
        call.extract(&json!({"inquiry_id": "other", "answer": "a"})),
        Err(InquiryErrorKind::AnswerExtraction)
    );
    assert_eq!(
        call.extract(&json!({"inquiry_id": "c.s.1"})),
        Err(InquiryErrorKind::AnswerExtraction)
    );
}

/// Rule: LIFE-BACKEND-CONTEXT — the backend sees the persisted stream so
/// far, then a synthetic paused `ToolCallResponse` for the asking call and
/// the question as a `ChatRequest` carrying the schema; the persisted stream
/// itself gets neither.
#[test]
fn backend_sees_the_cloned_stream_with_the_paused_call() {
    let t = run(json!({
        "tty": false,
        "tools": {"fs": {"run": "unattended", "program": {"kind": "script", "asks": [
            {"question": {"id": "apply", "text": "Apply?", "answer_type": {"type": "boolean"}}}
        ]}}},
        "turns": [{"cycles": [[{"id": "call_9", "tool": "fs"}]]}],
        "backend": [{"reply": "answer", "value": true}]
    }));
    let b = &t.backend_calls[0].call;
    // turn_start, chat_request, tool_call_request, inquiry_request.
    assert_eq!(b.cloned_events, 4);
    match &b.appended[0].kind {
        EventKind::ToolCallResponse(r) => {
            assert_eq!(r.id, "call_9");
            assert!(r.content.as_ref().unwrap().get().contains("Tool paused"));
        }
        other => panic!("expected the synthetic response, got {other:?}"),
    }
    assert!(matches!(b.appended[1].kind, EventKind::ChatRequest));
    let carried = b.appended[1]
        .extra
        .iter()
        .find(|(k, _)| k == "schema")
        .map(|(_, v)| v.to_value());
    assert_eq!(carried, Some(b.schema()));
    assert!(!stream_text(&t).contains("Tool paused"));
    assert!(matches!(
        responses(&t)[..],
        [InquiryResponse::Answered { .. }]
    ));
}

/// Rule: LIFE-BACKEND-EXTRACT — a backend answer of the wrong type is an
/// extraction error and lands as `backend_error`.
#[test]
fn mistyped_backend_answer_is_a_backend_error() {
    let t = run(json!({
        "tty": false,
        "tools": {"fs": {"run": "unattended", "program": {"kind": "script", "asks": [
            {"question": {"id": "n", "text": "Name?", "answer_type": {"type": "text"}}}
        ]}}},
        "turns": [{"cycles": [[{"id": "c", "tool": "fs"}]]}],
        "backend": [{"reply": "raw", "structured": {"inquiry_id": "c.n.1", "answer": 42}}]
    }));
    assert_eq!(cancel_reasons(&t), [CancellationReason::BackendError]);
}

/// Rule: LIFE-ANSWER-SHAPE — answers are checked against the answer type.
#[test]
fn answers_are_checked_against_their_type() {
    let sel = AnswerType::Select {
        options: vec!["a".into()],
    };
    assert!(validate_answer(&AnswerType::Boolean, &json!(true)).is_ok());
    assert!(validate_answer(&AnswerType::Boolean, &json!("true")).is_err());
    assert!(validate_answer(&sel, &json!("a")).is_ok());
    assert_eq!(
        validate_answer(&sel, &json!("b")),
        Err(AnswerMismatch::NotAnOption)
    );
    assert!(validate_answer(&sel, &json!(1)).is_err());
    assert!(validate_answer(&AnswerType::Text, &json!("x")).is_ok());
    assert!(validate_answer(&AnswerType::Text, &json!(null)).is_err());
    assert!(validate_answer(&AnswerType::Secret, &json!("x")).is_ok());
    assert!(validate_answer(&AnswerType::Secret, &json!(["x"])).is_err());
}

/// Two tools whose questions both go to the backend, in parallel.
fn two_parallel_backend_calls(schedule: serde_json::Value) -> serde_json::Value {
    let tool = |q: &str| {
        json!({"source": {"kind": "local"}, "run": "unattended", "program": {"kind": "script", "asks": [
            {"question": {"id": q, "text": format!("{q}?"), "answer_type": {"type": "text"}}}]}})
    };
    json!({
        "tty": false,
        "tools": {"a": tool("x"), "b": tool("y")},
        "turns": [{"cycles": [[{"id": "c1", "tool": "a"}, {"id": "c2", "tool": "b"}]]}],
        "backend_by_id": {
            "c1.x.1": {"reply": "answer", "value": "for-a"},
            "c2.y.1": {"reply": "answer", "value": "for-b"}
        },
        "schedule": schedule
    })
}

/// Rule: LIFE-BACKEND-BY-ID — the mock backend answers by inquiry ID (RFD 028
/// "returns pre-configured answers keyed by inquiry ID"): two parallel
/// inquiries get their own answers whatever the schedule, while the FIFO
/// list would hand them out in call order.
#[test]
fn mock_backend_answers_by_inquiry_id() {
    for schedule in [
        json!([]),
        json!([1, 0, 1, 0]),
        json!([1, 1, 1, 1]),
        json!([0, 1, 0, 1]),
    ] {
        let t = run(two_parallel_backend_calls(schedule.clone()));
        let seen = |tool: &str| {
            t.invocations
                .iter()
                .filter(|i| i.tool == tool && i.invocation == 2)
                .map(|i| i.answers.values().cloned().collect::<Vec<_>>())
                .next()
        };
        assert_eq!(seen("a"), Some(vec![json!("for-a")]), "{schedule}");
        assert_eq!(seen("b"), Some(vec![json!("for-b")]), "{schedule}");
    }
    // FIFO order depends on the schedule: the order the backend was called.
    let mut fifo = two_parallel_backend_calls(json!([1, 0, 0, 0]));
    fifo["backend_by_id"] = json!({});
    fifo["backend"] =
        json!([{"reply": "answer", "value": "first"}, {"reply": "answer", "value": "second"}]);
    let t = run(fifo);
    let first = &t.backend_calls[0].call.inquiry_id;
    assert_eq!(first, "c2.y.1", "schedule 1 runs call 2 first");
}

/// Rule: LIFE-BACKEND-WHOLE-QUESTION — the backend receives the whole
/// question (RFD 028 `inquire(…, question: &Question, …)`): its ID, text,
/// context and default, verbatim, with the schema of its answer type.
#[test]
fn the_backend_receives_the_whole_question() {
    let t = run(json!({
        "tty": false,
        "tools": {"fs": {"source": {"kind": "local"}, "run": "unattended", "program": {"kind": "script", "asks": [
            {"question": {"id": "mode", "text": "Which mode?", "context": "The file is large.",
                "answer_type": {"type": "select", "options": ["fast", "safe"]}, "default": "safe"}}]}}},
        "turns": [{"cycles": [[{"id": "c1", "tool": "fs"}]]}],
        "backend": [{"reply": "answer", "value": "fast"}]
    }));
    let q = serde_json::to_value(&t.backend_calls[0].call.question).unwrap();
    assert_eq!(
        q,
        json!({"id": "mode", "text": "Which mode?", "context": "The file is large.",
            "answer_type": {"type": "select", "options": ["fast", "safe"]}, "default": "safe"})
    );
}

/// Rule: LIFE-BACKEND-MODEL — which model the backend asks: a question's
/// assistant-target `model` (RFD 034's assistant target config), else the
/// dedicated inquiry model, else none (the conversation's own).
#[test]
fn per_question_and_dedicated_inquiry_models() {
    let v = |inquiry_model: serde_json::Value, assistant: serde_json::Value| {
        json!({
            "tty": false,
            "inquiry_model": inquiry_model,
            "tools": {"fs": {"source": {"kind": "local"}, "assistant": assistant,
                "run": "unattended", "program": {"kind": "script", "asks": [
                    {"question": {"id": "q", "text": "Q?", "answer_type": {"type": "boolean"}}}]}}},
            "turns": [{"cycles": [[{"id": "c1", "tool": "fs"}]]}],
            "backend": [{"reply": "answer", "value": true}]
        })
    };
    let model = |t: &crate::scenario::Trace| t.backend_calls[0].model.clone();
    assert_eq!(model(&run(v(json!(null), json!({})))), None);
    assert_eq!(
        model(&run(v(json!("small-model"), json!({})))),
        Some("small-model".to_owned())
    );
    assert_eq!(
        model(&run(v(
            json!("small-model"),
            json!({"q": {"model": "per-question"}})
        ))),
        Some("per-question".to_owned())
    );
    assert_eq!(
        model(&run(v(
            json!(null),
            json!({"other": {"model": "per-question"}})
        ))),
        None,
        "another question's target config does not apply"
    );
}

/// A scenario whose one local tool asks `question` once, its answer coming
/// from configuration (`answer` as the static answer) or, with `backend`,
/// from the inquiry backend (`answer` as the backend's structured answer).
fn one_question(question: &Question, answer: &serde_json::Value, backend: bool) -> Scenario {
    let config = match backend {
        false => json!({ "answer": answer }),
        true => json!({ "target": "assistant" }),
    };
    serde_json::from_value(json!({
        "tools": {"t": {
            "source": {"kind": "local"},
            "run": "unattended",
            "program": {"kind": "script", "asks": [{"question": question}]},
            "questions": { question.id.clone(): config }
        }},
        "turns": [{"cycles": [[{"id": "c1", "tool": "t"}]]}],
        "backend": [{"reply": "answer", "value": answer}]
    }))
    .expect("a scenario")
}

proptest::proptest! {
    /// CHECK-ANSWER-FITS, LIFE-ANSWER-SHAPE: the model and the oracle agree
    /// on whether an answer fits its question, over generated questions and
    /// answers, for a static answer (RFD 083 step 6) and a backend answer
    /// (RFD 028). Where the model records the answer as `answered`, the
    /// oracle finds nothing to say about its fit in that persisted stream;
    /// where the model refuses it (`invalid_static_answer`, or the backend
    /// path's `backend_error`), the oracle reports the same value recorded as
    /// `answered` in its place. Secret questions are left out: a secret's
    /// `answered` is CHECK-SECRET-NOT-ANSWERED's, not a question of fit.
    #[test]
    fn model_and_oracle_agree_on_answer_fits(
        (question, answer, backend) in crate::generate::choice::strategy(4, 6, |c| {
            use crate::generate::{choice::Choices, scenario};
            (scenario::core_question(c, "q"), scenario::answer_value(c), c.flip())
        }),
    ) {
        use crate::check::{self, ProfileMode};
        use crate::rule::Rule;
        proptest::prop_assume!(question.answer_type != AnswerType::Secret);
        let fit_findings = |events: &[crate::wire::Event]| {
            check::check_events(events, "trace", ProfileMode::Auto)
                .diagnostics
                .into_iter()
                .filter(|d| d.rule == Rule::CheckAnswerFits)
                .count()
        };
        let mut stream = crate::scenario::run(&one_question(&question, &answer, backend))
            .expect("runs")
            .stream;
        let response = stream
            .iter_mut()
            .find_map(|e| match &mut e.kind {
                EventKind::InquiryResponse(r) => Some(r),
                _ => None,
            });
        let refused = match (response, backend) {
            (Some(InquiryResponse::Answered { .. }), _) => false,
            (
                Some(r @ InquiryResponse::Cancelled {
                    reason: CancellationReason::InvalidStaticAnswer, ..
                }),
                false,
            )
            | (
                Some(r @ InquiryResponse::Cancelled {
                    reason: CancellationReason::BackendError, ..
                }),
                true,
            ) => {
                *r = InquiryResponse::Answered { id: r.id().clone(), answer: answer.clone() };
                true
            }
            // A guard or a redaction closed it: not a matter of fit.
            (_, _) => return Ok(()),
        };
        let found = fit_findings(&stream);
        proptest::prop_assert_eq!(
            refused,
            found > 0,
            "model refused: {}, oracle findings: {} ({:?} answered {})",
            refused, found, question.answer_type, answer
        );
    }
}
