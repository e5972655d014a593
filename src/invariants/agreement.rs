//! The rules the model and the oracle both decide, each stated once
//! (docs/decisions/code.md "Each rule decided once"), held to agreement: the
//! model writes, the oracle reads what it wrote, and they must not differ.
//!
//! Each property below was shown failing on a planted drift, the wrong
//! implementation named in its doc comment (planted by hand in the shared
//! code or on one side, run, and reverted).

use std::collections::{BTreeSet, HashMap};

use proptest::prelude::*;
use serde_json::{Value, json};

use crate::check::rules::{self, AskUserOutcome};
use crate::check::{ProfileMode, check_events};
use crate::model::ask_user;
use crate::model::builtins;
use crate::model::tool::{self, Answers, BuiltinHook, Outcome, ToolSource};
use crate::predicates::{self, AnswerKind};
use crate::profile::{IdFormat, ProfileName};
use crate::rule::Rule;
use crate::scenario::{self, Scenario};
use crate::stream::secrets::secret_requests;
use crate::stream::{PairStep, Pairer};
use crate::wire::id::{self, Parse};
use crate::wire::{CancellationReason, Event, EventKind, InquiryId, InquiryResponse};

/// The oracle's streaming pairer over `events`: request index → response
/// index.
fn oracle_pairs(events: &[Event]) -> HashMap<usize, usize> {
    let mut p = Pairer::new();
    let mut out = HashMap::new();
    for (i, e) in events.iter().enumerate() {
        if let PairStep::Paired(pair) = p.push(i, e) {
            out.insert(pair.request, pair.response);
        }
    }
    out
}

proptest! {
    /// Rules: STREAM-TURNS, STREAM-PAIR-ORDER, STREAM-PAIR-TURN-SCOPED,
    /// CLI-NO-SECRET — the secret masks read raw JSON and pair each request
    /// with exactly the response the oracle's pairer pairs it with, over
    /// streams with orphans of every kind, reused IDs and implicit leading
    /// turns. Planted drift: the masks' former copy of the turn rule with
    /// the `turn_start` clearing removed (a response pairs across a turn)
    /// fails it.
    #[test]
    fn the_secret_masks_pair_as_the_oracle_pairs(events in crate::generate::stream::stream()) {
        let raw: Vec<Value> = events
            .iter()
            .map(|e| serde_json::to_value(e).expect("an event serializes"))
            .collect();
        let requests: BTreeSet<usize> = events
            .iter()
            .enumerate()
            .filter(|(_, e)| matches!(e.kind, EventKind::InquiryRequest(_)))
            .map(|(i, _)| i)
            .collect();
        let oracle = oracle_pairs(&events);
        let masks = secret_requests(&raw, &requests);
        prop_assert_eq!(masks.len(), requests.len());
        for (request, response) in masks {
            prop_assert_eq!(response, oracle.get(&request).copied(), "request {}", request);
        }
    }

    /// Rules: LIFE-ID-FORMAT, CHECK-ID-FORMAT — build(parse(s)) == s for
    /// every ID the model writes: read against the tool calls of its turn,
    /// every three-segment ID the model records has a reading, every
    /// reading builds it back, the oracle's `id_format` accepts it with
    /// parts that build it back, and where no call ID of the turn is another
    /// one's prefix the reading is unique and names the call. Planted drift:
    /// a writer that counts attempts from 0, or joins with `:`, fails it.
    #[test]
    fn every_id_the_model_writes_parses_back_to_itself(s in crate::generate::scenario::scenario()) {
        let trace = scenario::run(&s).expect("generated scenarios are valid");
        if trace.rules.id_format == IdFormat::TwoSegment {
            return Ok(());
        }
        let mut calls: Vec<String> = Vec::new();
        for e in &trace.stream {
            match &e.kind {
                EventKind::TurnStart => calls.clear(),
                EventKind::ToolCallRequest(c) => calls.push(c.id.clone()),
                EventKind::InquiryRequest(r) => {
                    let open: Vec<&str> = calls.iter().map(String::as_str).collect();
                    let readings = match id::parse(&r.id, &open) {
                        Parse::None => vec![],
                        Parse::One(p) => vec![p],
                        Parse::Ambiguous(all) => all,
                    };
                    prop_assert!(!readings.is_empty(), "no reading of {}", r.id);
                    for p in &readings {
                        prop_assert_eq!(&p.build(), &r.id);
                    }
                    let parts = rules::id_format(&r.id, &open);
                    prop_assert!(parts.is_ok(), "{:?}", parts);
                    if let Ok(parts) = parts {
                        prop_assert_eq!(&parts.build(), &r.id);
                    }
                    let nested = open.iter().any(|a| {
                        open.iter().any(|b| a != b && b.starts_with(&format!("{a}.")))
                    });
                    if !nested {
                        prop_assert_eq!(readings.len(), 1, "{}", r.id);
                    }
                }
                EventKind::ChatRequest
                | EventKind::ChatResponse
                | EventKind::ToolCallResponse(_)
                | EventKind::InquiryResponse(_)
                | EventKind::Other(_) => {}
            }
        }
    }

    /// Rules: ASK-FIRST-CALL, ASK-SUCCESS-BODY, CHECK-ASK-USER-RECORD —
    /// `ask_user`'s vocabulary: for any arguments, the question the
    /// built-in asks has the ID the oracle expects, and the success body it
    /// returns for an accepted answer is one the oracle reads back with
    /// that answer and the answer type's name (the hand table
    /// `the_oracle_reads_ask_users_body_for_each_answer_type` is the one a
    /// planted drift of a name was shown failing: generated arguments reach
    /// a success too rarely at 32 cases).
    #[test]
    fn the_oracle_reads_what_ask_user_writes(
        args in crate::generate::choice::strategy(6, 6, |c| crate::generate::scenario::ask_user_arguments_by_part(c)),
        answer in crate::generate::choice::strategy(1, 1, |c| crate::generate::scenario::answer_value(c)),
    ) {
        let Outcome::NeedsInput { question } = ask_user::execute(&args, &Answers::default()) else {
            return Ok(());
        };
        let id = InquiryId::new("call_1", &question.id, 1);
        let parts = rules::id_format(&id, &["call_1"]).expect("the model's ID parses");
        prop_assert_eq!(rules::ask_user_question(&id, Some(&parts), false), None);
        let mut answers = Answers::default();
        answers.insert(question.id.clone(), answer.clone());
        if let Outcome::Success { content } = ask_user::execute(&args, &answers) {
            let kind = AnswerKind::of(&question.to_inquiry_question().answer_type);
            let body = rules::ask_user_body(&Value::String(content).to_string());
            prop_assert!(body.is_some());
            let recorded = AskUserOutcome::Answered(answer, kind);
            prop_assert_eq!(rules::ask_user_result("call_1", Some(&recorded), body.as_ref()), None);
        }
    }

    /// Rules: LIFE-PROVENANCE, CHECK-PROVENANCE — the source the model
    /// resolves for a registered built-in or any local or MCP tool passes
    /// the oracle's provenance check inside a call of that tool, under
    /// every profile that resolves by the hook, and is the shared
    /// predicate's. Planted drift: `resolve_inquiry_source` giving
    /// `Assistant` to a local tool fails it.
    #[test]
    fn the_oracle_accepts_the_source_the_model_resolves(
        name in "[a-z_]{1,10}",
        kind in 0usize..2,
    ) {
        let mut tools: Vec<(ToolSource, String)> = builtins::all()
            .iter()
            .map(|b| (b.source, b.name.to_owned()))
            .collect();
        if builtins::find(&name).is_none() {
            tools.push(([ToolSource::Local, ToolSource::Mcp][kind], name));
        }
        for (source, name) in tools {
            let resolved = tool::resolve_inquiry_source(source, &name);
            prop_assert_eq!(
                &resolved,
                &predicates::recorded_source(predicates::overrides_source(&name), &name)
            );
            let id = InquiryId::new("call_1", "q", 1);
            for mode in [ProfileMode::Auto, ProfileMode::Fixed(ProfileName::Rfd083)] {
                prop_assert_eq!(rules::provenance(mode, &id, &resolved, &[name.as_str()]), None);
            }
        }
    }

    /// Rules: LIFE-STATIC-VALIDATED, CHECK-REASON-INVALID-STATIC — a
    /// configured static answer, fit or not, under every profile: the
    /// model refuses it with `invalid_static_answer` exactly under RFD 083
    /// and when it does not fit (RFD 083 steps 6 and 7), the oracle judging
    /// the model's stream as written by that profile reports neither the
    /// reason nor a shape the profile cannot write, and under auto it judges
    /// a refusing turn as RFD 083's. Planted drift: `reason_needs` giving
    /// `invalid_static_answer` the `secret_type` switch (RFD 082 has it)
    /// fails it.
    #[test]
    fn model_and_oracle_agree_where_invalid_static_answer_exists(
        profile in prop::sample::select(ProfileName::ALL.to_vec()),
        shape in 0usize..3,
        answer in prop::sample::select(vec![json!(true), json!("yes"), json!("a"), json!("c"), json!(7)]),
    ) {
        let answer_type = [
            json!({"type": "boolean"}),
            json!({"type": "select", "options": ["a", "b"]}),
            json!({"type": "text"}),
        ][shape].clone();
        let fits = match shape {
            0 => answer.is_boolean(),
            1 => answer == json!("a"),
            _ => answer.is_string(),
        };
        let s: Scenario = serde_json::from_value(json!({
            "profile": profile,
            "tools": {"fs": {"run": "unattended", "program": {"kind": "script", "asks": [
                {"question": {"id": "apply", "text": "Apply?", "answer_type": answer_type}}
            ]}, "questions": {"apply": {"answer": answer}}}},
            "turns": [{"cycles": [[{"id": "c1", "tool": "fs"}]]}]
        }))
        .expect("a valid scenario");
        let trace = scenario::run(&s).expect("the scenario runs");
        let refused = trace.stream.iter().any(|e| matches!(
            &e.kind,
            EventKind::InquiryResponse(InquiryResponse::Cancelled {
                reason: CancellationReason::InvalidStaticAnswer,
                ..
            })
        ));
        prop_assert_eq!(refused, profile == ProfileName::Rfd083 && !fits);
        let fixed = check_events(&trace.stream, "model", ProfileMode::Fixed(profile));
        let wrong: Vec<&str> = fixed
            .diagnostics
            .iter()
            .filter(|d| matches!(d.rule, Rule::CheckReasonInvalidStatic | Rule::CheckProfileShape))
            .map(|d| d.message.as_ref())
            .collect();
        prop_assert!(wrong.is_empty(), "{:?}", wrong);
        if refused {
            let auto = check_events(&trace.stream, "model", ProfileMode::Auto);
            prop_assert_eq!(auto.summary.turns_by_profile.rfd083, 1);
        }
    }
}

/// Rules: ASK-SUCCESS-BODY, CHECK-ASK-USER-RECORD — for each answer type
/// `ask_user` offers and an answer that fits it, the oracle reads the
/// built-in's success body back as that answer under that answer type's
/// name. Planted drift: the model's `AskAnswerType::name` spelling `bool`
/// for `boolean` fails it.
#[test]
fn the_oracle_reads_ask_users_body_for_each_answer_type() {
    let cases = [
        (
            json!({"question": "Proceed?", "answer_type": "boolean"}),
            json!(true),
        ),
        (
            json!({"question": "Which?", "answer_type": "select", "options": ["a", "b"]}),
            json!("b"),
        ),
        (
            json!({"question": "Name?", "answer_type": "text"}),
            json!("x"),
        ),
    ];
    for (args, answer) in cases {
        let Outcome::NeedsInput { question } = ask_user::execute(&args, &Answers::default()) else {
            panic!("{args} asks");
        };
        assert_eq!(question.id, predicates::ASK_USER_QUESTION_ID);
        let mut answers = Answers::default();
        answers.insert(question.id.clone(), answer.clone());
        let Outcome::Success { content } = ask_user::execute(&args, &answers) else {
            panic!("{args} accepts {answer}");
        };
        let kind = AnswerKind::of(&question.to_inquiry_question().answer_type);
        let body = rules::ask_user_body(&Value::String(content).to_string());
        let recorded = AskUserOutcome::Answered(answer, kind);
        assert_eq!(
            rules::ask_user_result("call_1", Some(&recorded), body.as_ref()),
            None,
            "{args}"
        );
    }
}

/// Rule: LIFE-PROVENANCE — the registry and the shared predicate name the
/// same built-ins as overriding the source: the oracle's reading of a call
/// name is the model's hook.
#[test]
fn the_registry_overrides_the_source_where_the_predicate_says() {
    for b in builtins::all() {
        let hook = b.source
            == ToolSource::Builtin {
                hook: BuiltinHook::Assistant,
            };
        assert_eq!(hook, predicates::overrides_source(b.name), "{}", b.name);
    }
    assert_eq!(ask_user::NAME, predicates::ASK_USER);
    assert_eq!(ask_user::QUESTION_ID, predicates::ASK_USER_QUESTION_ID);
}
