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
//! They also draw question `default`s, raw structured backend replies (RFD
//! 028 answer extraction), malformed `ask_user` arguments, every prompter
//! failure and cancellation-token cause, a local program speaking the
//! stdout protocol, and `ask_user`'s program under an alias. Every feature
//! of [`crate::scenario::features::Feature::ALL`] is reached (test
//! `the_scenario_generator_reaches_every_declared_feature`).
//!
//! Every text answer is a unique marker (`answer-<k>-…`), so a secret answer
//! can be searched for in everything the model writes.

use indexmap::IndexMap;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{Value, json};

use crate::config::PartialEnable;
use crate::coordinator::{Call, RunPolicy};
use crate::profile::ProfileName;
use crate::routing::{InquiryErrorKind, PrompterFailure, TokenCause};
use crate::scenario::{
    AssistantTarget, BackendReply, Finish, PermissionReply, Program, PrompterReply, Scenario,
    ScriptedAsk, ToolSetup, TurnScript,
};
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
    (
        answer_type(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        0u8..5,
    )
        .prop_map(move |(t, exclusive, once, context, default)| {
            let mut q = Question::text(id, format!("Question {id}?"));
            q.default = question_default(&t, id, default);
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
        })
}

/// A question's `default` (a display hint, persisted verbatim): mostly
/// none, else one that fits the type, or a marker string that may not.
fn question_default(t: &AnswerType, id: &str, pick: u8) -> Option<Value> {
    match (pick, t) {
        (0..=2, _) => None,
        (3, AnswerType::Boolean) => Some(json!(true)),
        (3, AnswerType::Select { options }) => options.first().map(|o| json!(o)),
        (3, AnswerType::Text | AnswerType::Secret) => Some(json!(format!("default-{id}"))),
        (_, _) => Some(json!(format!("default-{id}-marker"))),
    }
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
                assistant: IndexMap::new(),
                enable: None,
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
            assistant: IndexMap::new(),
            enable: None,
        }
    })
}

fn ask_user_arguments() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"question": "Proceed?", "answer_type": "boolean"})),
        Just(
            json!({"question": "Which?", "answer_type": "select", "options": ["a", "b"], "context": "Pick one.", "default": "b"})
        ),
        Just(json!({"question": "Name?"})),
        Just(json!({"question": "Proceed?", "answer_type": "boolean", "default": true})),
        // Malformed (RFD 083 "Arguments"): each refused with an error.
        Just(json!({"question": ""})),
        Just(json!({"question": "Pick", "answer_type": "select"})),
        Just(json!("not an object")),
        Just(json!({"question": 7})),
        Just(json!({"question": "two\nlines"})),
        Just(json!({"question": "Key?", "answer_type": "secret"})),
        Just(json!({"question": "Go?", "answer_type": "boolean", "options": ["a"]})),
        Just(json!({"question": "Go?", "answer_type": "boolean", "default": "yes"})),
    ]
}

/// A local program's stdout lines: `needs_input` outcomes for `q1`, raw
/// text, explicit success and error. `q1` keeps one answer type across the
/// lines (its `persistence` varies, which is how a scenario re-asks a
/// remembered key with `persistence: none`): the same ID asked as `secret`
/// and then as `text` would take the same static answer into the stream
/// (see `spec/DECISIONS.md`).
fn local_tool() -> impl Strategy<Value = ToolSetup> {
    (
        question("q1"),
        vec((0u8..5, any::<bool>()), 0..=4),
        question_config("gamma", "q1"),
    )
        .prop_map(|(q, lines, c)| {
            let stdout = lines
                .into_iter()
                .map(|(kind, once)| match kind {
                    0 | 1 => {
                        let mut q = q.clone();
                        q.persistence = if once {
                            AnswerReusePolicy::None
                        } else {
                            AnswerReusePolicy::Turn
                        };
                        json!({"type": "needs_input", "question": q}).to_string()
                    }
                    2 => "gamma raw output\n".to_owned(),
                    3 => r#"{"type":"success","content":"gamma done"}"#.to_owned(),
                    _ => r#"{"type":"error","message":"gamma failed"}"#.to_owned(),
                })
                .collect();
            let mut questions = IndexMap::new();
            if c != QuestionConfig::default() {
                questions.insert("q1".to_owned(), c);
            }
            ToolSetup {
                source: None,
                program: Program::Local { stdout },
                questions,
                run: RunPolicy::Unattended,
                assistant: IndexMap::new(),
                enable: None,
            }
        })
}

/// The tools calls pick from: two scripted tools, `ask_user`, a local
/// program, and `ask_user`'s program under the alias `ask`.
const TOOLS: [&str; 5] = ["alpha", "beta", "ask_user", "gamma", "ask"];

fn call(index: usize) -> impl Strategy<Value = Call> {
    (select(TOOLS.to_vec()), ask_user_arguments()).prop_map(move |(tool, args)| Call {
        id: format!("c{}", index + 1),
        tool: tool.to_owned(),
        arguments: if tool == "ask_user" || tool == "ask" {
            args
        } else {
            json!({})
        },
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
        0u8..5,
    )
        .prop_map(|(value, remember, how)| match (value, how) {
            (Some(value), _) => PrompterReply::Answer { value, remember },
            (None, 0) => PrompterReply::CtrlC,
            (None, 1) => PrompterReply::Eof,
            (None, 2) => PrompterReply::Failure {
                failure: PrompterFailure::NoTerminal,
            },
            (None, 3) => PrompterReply::Failure {
                failure: PrompterFailure::Io,
            },
            (None, _) => PrompterReply::Failure {
                failure: PrompterFailure::Format,
            },
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
        // Raw structured responses: RFD 028's answer extraction, with an ID
        // that may match the first attempt of a question, a missing ID, a
        // missing answer, or no object at all.
        1 => prop_oneof![
            Just(json!({"inquiry_id": "c1.q1.1", "answer": true})),
            Just(json!({"inquiry_id": "c1.answer.1", "answer": "a"})),
            Just(json!({"answer": true})),
            Just(json!({"inquiry_id": "c1.q1.1"})),
            Just(json!("not an object")),
        ]
        .prop_map(|structured| BackendReply::Raw { structured }),
        1 => select(vec![
            TokenCause::Restart,
            TokenCause::ToolCancel,
            TokenCause::HardQuit,
            TokenCause::AbortedTurn,
        ])
        .prop_map(|cause| BackendReply::Cancelled { cause }),
    ]
}

fn replies<T: std::fmt::Debug, S: Strategy<Value = T>>(
    each: fn(usize) -> S,
) -> impl Strategy<Value = Vec<T>> {
    (0usize..=6).prop_flat_map(move |n| (0..n).map(each).collect::<Vec<_>>())
}

/// The inquiry backend's setup: replies keyed by inquiry ID (IDs the
/// generated calls can produce, a two-segment one for `legacy`), a dedicated
/// inquiry model, and a per-question model for `alpha.q1`.
#[allow(clippy::type_complexity)]
fn inquiry_setup() -> impl Strategy<
    Value = (
        IndexMap<String, BackendReply>,
        Option<String>,
        Option<String>,
    ),
> {
    (
        vec(
            (
                select(vec![
                    "c1.q1.1",
                    "c2.q1.1",
                    "c1.q2.1",
                    "c1.answer.1",
                    "c1.q1",
                ]),
                backend_reply(9),
            ),
            0..=2,
        ),
        prop_oneof![3 => Just(None), 1 => Just(Some("inquiry-small".to_owned()))],
        prop_oneof![3 => Just(None), 1 => Just(Some("alpha-q1-model".to_owned()))],
    )
        .prop_map(|(keyed, model, alpha)| {
            let by_id = keyed.into_iter().map(|(k, r)| (k.to_owned(), r)).collect();
            (by_id, model, alpha)
        })
}

/// The command line's toggles and `beta`'s `enable` (the RFD 081 shapes and
/// the pre-081 strings).
fn toggle_setup() -> impl Strategy<Value = (Vec<String>, Option<PartialEnable>)> {
    (
        prop_oneof![
            3 => Just(vec![]),
            1 => vec(
                select(vec!["-T", "-t", "-T alpha", "-t beta", "-T ask_user"]).prop_map(str::to_owned),
                1..=2,
            ),
        ],
        prop_oneof![
            3 => Just(None),
            1 => Just(PartialEnable::pre_081("explicit")),
            1 => Just(PartialEnable::pre_081("always")),
            1 => Just(Some(PartialEnable::shorthand(false))),
            1 => Just(Some(PartialEnable { state: Some(false), allow_toggle: None })),
        ],
    )
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
        (ask_user_tool(), local_tool()),
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
        (inquiry_setup(), toggle_setup()),
    )
        .prop_map(
            |(
                profile,
                tty,
                alpha,
                beta,
                (ask, gamma),
                turns,
                prompter,
                backend,
                permissions,
                schedule,
                ((backend_by_id, inquiry_model, alpha_model), (toggles, beta_enable)),
            )| {
                let mut alpha = alpha;
                if let Some(model) = alpha_model {
                    alpha
                        .assistant
                        .insert("q1".to_owned(), AssistantTarget { model: Some(model) });
                }
                let mut beta = beta;
                beta.enable = beta_enable;
                let mut tools = IndexMap::new();
                tools.insert("alpha".to_owned(), alpha);
                tools.insert("beta".to_owned(), beta);
                tools.insert("ask_user".to_owned(), ask);
                tools.insert("gamma".to_owned(), gamma);
                // `ask_user`'s program under another key: NotFound.
                tools.insert(
                    "ask".to_owned(),
                    ToolSetup {
                        source: None,
                        program: Program::AskUser,
                        questions: IndexMap::new(),
                        run: RunPolicy::Unattended,
                        assistant: IndexMap::new(),
                        enable: None,
                    },
                );
                Scenario {
                    toggles,
                    profile,
                    tty,
                    tools,
                    turns,
                    prompter,
                    backend,
                    permissions,
                    schedule,
                    backend_by_id,
                    inquiry_model,
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
