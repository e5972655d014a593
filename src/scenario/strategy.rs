//! proptest strategies for whole scenarios.
//!
//! They cover every routing path and outcome: every tool kind and provenance
//! hook, every answer type with and without `exclusive` and
//! `persistence: none`, every question configuration (target, valid and
//! invalid static answers, prompt labels), TTY on and off, permission
//! prompts, re-asked questions, `tool_call_id` reuse across cycles and turns,
//! parallel calls with every interleaving (through the scheduler choices),
//! every prompter and backend reply, and all three profiles. Sizes are small
//! so that shrinking ends at scenarios a person can read.
//!
//! Every text answer is a unique marker (`answer-<k>-…`), so a secret answer
//! can be searched for in everything the model writes.

use indexmap::IndexMap;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{Value, json};

use super::{
    BackendReply, Finish, PermissionReply, Program, PrompterReply, Scenario, ScriptedAsk,
    ToolSetup, TurnScript,
};
use crate::coordinator::{Call, RunPolicy};
use crate::profile::ProfileName;
use crate::routing::InquiryErrorKind;
use crate::tool::{
    AnswerReusePolicy, AnswerType, BuiltinHook, Question, QuestionConfig, QuestionTarget,
    ToolSource,
};

/// Which profiles a strategy draws from.
pub fn profile() -> impl Strategy<Value = ProfileName> {
    select(ProfileName::ALL.to_vec())
}

fn answer_type() -> impl Strategy<Value = AnswerType> {
    prop_oneof![
        Just(AnswerType::Boolean),
        Just(AnswerType::Select {
            options: vec!["a".to_owned(), "b".to_owned()]
        }),
        Just(AnswerType::Text),
        Just(AnswerType::Secret),
    ]
}

fn question(id: &'static str) -> impl Strategy<Value = Question> {
    (answer_type(), any::<bool>(), any::<bool>(), any::<bool>()).prop_map(
        move |(t, exclusive, once, context)| {
            let mut q = Question::text(id, format!("Question {id}?"));
            q.answer_type = t;
            q.exclusive = exclusive;
            q.persistence = if once {
                AnswerReusePolicy::None
            } else {
                AnswerReusePolicy::Turn
            };
            if context {
                q.context = Some(format!("Context for {id}."));
            }
            q
        },
    )
}

/// A static answer: none, one that fits every type, one that fits none, or a
/// secret-looking marker.
fn static_answer(tool: &'static str, id: &'static str) -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        4 => Just(None),
        1 => Just(Some(json!(true))),
        1 => Just(Some(json!("a"))),
        1 => Just(Some(json!(format!("static-{tool}-{id}-marker")))),
        1 => Just(Some(json!(7))),
    ]
}

fn question_config(tool: &'static str, id: &'static str) -> impl Strategy<Value = QuestionConfig> {
    (
        prop_oneof![3 => Just(QuestionTarget::User), 1 => Just(QuestionTarget::Assistant)],
        static_answer(tool, id),
        prop_oneof![3 => Just(None), 1 => Just(Some("Assistant".to_owned())), 1 => Just(Some("Ops".to_owned()))],
    )
        .prop_map(|(target, answer, prompt_label)| QuestionConfig { target, answer, prompt_label })
}

fn source() -> impl Strategy<Value = ToolSource> {
    prop_oneof![
        Just(ToolSource::Builtin {
            hook: BuiltinHook::Default
        }),
        Just(ToolSource::Builtin {
            hook: BuiltinHook::Assistant
        }),
        Just(ToolSource::Local),
        Just(ToolSource::Mcp),
    ]
}

fn scripted_tool(name: &'static str) -> impl Strategy<Value = ToolSetup> {
    (
        source(),
        vec((question("q1"), 0u8..2), 0..=1),
        vec((question("q2"), 0u8..2), 0..=1),
        question_config(name, "q1"),
        question_config(name, "q2"),
        prop_oneof![
            Just(Finish::Succeed),
            any::<bool>().prop_map(|transient| Finish::Fail { transient })
        ],
        prop_oneof![4 => Just(RunPolicy::Unattended), 1 => Just(RunPolicy::Ask)],
    )
        .prop_map(|(source, q1, q2, c1, c2, finish, run)| {
            let mut asks: Vec<ScriptedAsk> = q1
                .into_iter()
                .chain(q2)
                .map(|(question, reject_first)| ScriptedAsk {
                    question,
                    reject_first,
                })
                .collect();
            // MCP tools cannot ask (scenario::validate).
            if matches!(source, ToolSource::Mcp) {
                asks.clear();
            }
            let mut questions = IndexMap::new();
            for (id, c) in [("q1", c1), ("q2", c2)] {
                if c != QuestionConfig::default() {
                    questions.insert(id.to_owned(), c);
                }
            }
            ToolSetup {
                source: Some(source),
                program: Program::Script { asks, finish },
                questions,
                run,
            }
        })
}

fn ask_user_tool() -> impl Strategy<Value = ToolSetup> {
    question_config("ask_user", "answer").prop_map(|c| {
        let mut questions = IndexMap::new();
        if c != QuestionConfig::default() {
            questions.insert("answer".to_owned(), c);
        }
        ToolSetup {
            source: None,
            program: Program::AskUser,
            questions,
            run: RunPolicy::Unattended,
        }
    })
}

fn ask_user_arguments() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"question": "Proceed?", "answer_type": "boolean"})),
        Just(
            json!({"question": "Which?", "answer_type": "select", "options": ["a", "b"], "context": "Pick one."})
        ),
        Just(json!({"question": "Name?"})),
        Just(json!({"question": ""})),
        Just(json!({"question": "Pick", "answer_type": "select"})),
    ]
}

const TOOLS: [&str; 3] = ["alpha", "beta", "ask_user"];

fn call(index: usize) -> impl Strategy<Value = Call> {
    (select(TOOLS.to_vec()), ask_user_arguments()).prop_map(move |(tool, args)| Call {
        id: format!("c{}", index + 1),
        tool: tool.to_owned(),
        arguments: if tool == "ask_user" { args } else { json!({}) },
    })
}

fn cycle() -> impl Strategy<Value = Vec<Call>> {
    prop_oneof![3 => call(0).prop_map(|c| vec![c]), 1 => (call(0), call(1)).prop_map(|(a, b)| vec![a, b])]
}

fn turn() -> impl Strategy<Value = TurnScript> {
    vec(cycle(), 1..=2).prop_map(|cycles| TurnScript {
        user: "go".to_owned(),
        cycles,
    })
}

fn prompter_reply(k: usize) -> impl Strategy<Value = PrompterReply> {
    (
        prop_oneof![
            3 => prop_oneof![
                Just(json!(true)),
                Just(json!(false)),
                Just(json!("a")),
                Just(json!(format!("answer-{k}-marker"))),
            ]
            .prop_map(Some),
            1 => Just(None),
        ],
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(value, remember, ctrl_c)| match value {
            Some(value) => PrompterReply::Answer { value, remember },
            None if ctrl_c => PrompterReply::CtrlC,
            None => PrompterReply::Eof,
        })
}

fn backend_reply(k: usize) -> impl Strategy<Value = BackendReply> {
    prop_oneof![
        3 => prop_oneof![Just(json!(true)), Just(json!("a")), Just(json!(format!("backend-{k}-marker")))]
            .prop_map(|value| BackendReply::Answer { value }),
        1 => select(vec![
            InquiryErrorKind::Cancelled,
            InquiryErrorKind::Provider,
            InquiryErrorKind::MissingStructuredData,
            InquiryErrorKind::AnswerExtraction,
            InquiryErrorKind::Other,
        ])
        .prop_map(|error| BackendReply::Error { error }),
    ]
}

fn replies<T: std::fmt::Debug, S: Strategy<Value = T>>(
    each: fn(usize) -> S,
) -> impl Strategy<Value = Vec<T>> {
    (0usize..=6).prop_flat_map(move |n| (0..n).map(each).collect::<Vec<_>>())
}

/// Whole scenarios, under any profile.
pub fn scenario() -> impl Strategy<Value = Scenario> {
    scenario_under(profile())
}

/// Whole scenarios under the profiles `profile` draws.
pub fn scenario_under(
    profile: impl Strategy<Value = ProfileName>,
) -> impl Strategy<Value = Scenario> {
    (
        profile,
        any::<bool>(),
        scripted_tool("alpha"),
        scripted_tool("beta"),
        ask_user_tool(),
        vec(turn(), 1..=2),
        replies(prompter_reply),
        replies(backend_reply),
        vec(
            (any::<bool>(), any::<bool>()).prop_map(|(allow, remember)| {
                if allow {
                    PermissionReply::Allow { remember }
                } else {
                    PermissionReply::Deny { remember }
                }
            }),
            0..=2,
        ),
        vec(0u32..4, 0..=8),
    )
        .prop_map(
            |(profile, tty, alpha, beta, ask, turns, prompter, backend, permissions, schedule)| {
                let mut tools = IndexMap::new();
                tools.insert("alpha".to_owned(), alpha);
                tools.insert("beta".to_owned(), beta);
                tools.insert("ask_user".to_owned(), ask);
                Scenario {
                    profile,
                    tty,
                    tools,
                    turns,
                    prompter,
                    backend,
                    permissions,
                    schedule,
                }
            },
        )
}

/// A size measure for shrunk counterexamples: calls plus questions plus replies.
pub fn size(s: &Scenario) -> usize {
    let calls: usize = s.turns.iter().flat_map(|t| &t.cycles).map(Vec::len).sum();
    let asks: usize = s
        .tools
        .values()
        .map(|t| match &t.program {
            Program::Script { asks, .. } => asks.len(),
            Program::AskUser | Program::Local { .. } => 0,
        })
        .sum();
    calls + asks + s.prompter.len() + s.backend.len() + s.permissions.len()
}
