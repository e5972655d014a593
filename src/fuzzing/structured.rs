//! Structured inputs decoded from fuzz bytes with [`arbitrary::Unstructured`]:
//! streams for the sanitize target and scenarios for the model target.
//!
//! Both decoders are total: any bytes (the empty slice included) decode to a
//! valid input, and running out of bytes only ends the input early, so no
//! fuzz execution is wasted on a rejected decode.

use arbitrary::{Result, Unstructured};
use indexmap::IndexMap;
use serde_json::{Value, json};

use crate::coordinator::{Call, RunPolicy};
use crate::generate::stream as arb;
use crate::profile::ProfileName;
use crate::routing::InquiryErrorKind;
use crate::scenario::{
    BackendReply, Finish, PermissionReply, Program, PrompterReply, Scenario, ScriptedAsk,
    ToolSetup, TurnScript,
};
use crate::tool::{
    AnswerReusePolicy, AnswerType, BuiltinHook, Question, QuestionConfig, QuestionTarget,
    ToolSource,
};
use crate::wire::{CancellationReason, Event, InquiryId, InquiryResponse};

/// The most events [`stream`] decodes.
pub const MAX_STREAM_EVENTS: usize = 128;

/// Decodes a stream of turn markers, chat events, unknown kinds, tool calls
/// and inquiries whose IDs come from the small pools of
/// [`crate::generate::stream`], so collisions (legacy two-segment IDs, reused
/// tool-call IDs, the same ID in two turns) are the rule, not the exception.
///
/// The encoding is simple enough to write seeds by hand. The first byte's
/// low bit turns timestamps on. Then each event is one byte `b`, read as
/// `b & 7`: 0 `turn_start`, 1 `chat_request`, 2 `chat_response`, 3 an
/// unknown kind, 4 `tool_call_request`, 5 `tool_call_response`, 6
/// `inquiry_request`, 7 `inquiry_response`. Tool-call and inquiry events take
/// the tool-call ID `(b >> 3) % 3` of [`arb::TOOL_CALL_IDS`]; inquiry events
/// take the question `(b >> 5) & 1` of [`arb::QUESTION_IDS`] and read a
/// second byte `c`: the attempt is `c % 3` (0 for the legacy two-segment
/// ID), a response's outcome `(c / 3) % 3` (answered, cancelled, redacted),
/// and `(c / 9) % 6` picks its answer (`true`/`false`) or its reason (the
/// five known ones, then an unknown tag).
pub fn stream(u: &mut Unstructured<'_>) -> Result<Vec<Event>> {
    let timestamps = u.arbitrary::<u8>()? & 1 == 1;
    let mut out = Vec::new();
    while !u.is_empty() && out.len() < MAX_STREAM_EVENTS {
        let b = u.arbitrary::<u8>()?;
        let call = arb::TOOL_CALL_IDS[usize::from(b >> 3) % arb::TOOL_CALL_IDS.len()];
        let mut e = match b & 7 {
            0 => arb::turn_start(),
            1 => arb::chat_request(),
            2 => arb::chat_response(),
            3 => arb::other("config_delta"),
            4 => arb::tool_call_request(call),
            5 => arb::tool_call_response(call),
            kind => {
                let c = u.arbitrary::<u8>()?;
                let question = arb::QUESTION_IDS[usize::from(b >> 5) & 1];
                let id = match c % 3 {
                    0 => InquiryId::legacy(call, question),
                    attempt => InquiryId::new(call, question, u32::from(attempt)),
                };
                if kind == 6 {
                    arb::inquiry_request(id)
                } else {
                    let pick = usize::from(c / 9) % 6;
                    arb::inquiry_response(match (c / 3) % 3 {
                        0 => InquiryResponse::Answered {
                            id,
                            answer: Value::Bool(pick % 2 == 0),
                        },
                        1 => InquiryResponse::Cancelled {
                            id,
                            reason: CancellationReason::KNOWN
                                .get(pick)
                                .cloned()
                                .unwrap_or_else(|| CancellationReason::from_tag("future_reason")),
                        },
                        _ => InquiryResponse::Redacted { id },
                    })
                }
            }
        };
        if timestamps {
            e.timestamp = Some(format!("2026-03-05 21:00:00.{:06}", out.len()));
        }
        out.push(e);
    }
    Ok(out)
}

/// The tools every decoded scenario has, as in
/// [`crate::generate::scenario`].
pub const TOOLS: [&str; 3] = ["alpha", "beta", "ask_user"];

/// Decodes a whole scenario with the shape of
/// [`crate::generate::scenario::scenario`]: tools `alpha` and `beta` (every
/// tool kind and provenance hook, zero to two scripted questions of every
/// answer type, `exclusive`, `persistence`, context and default, re-asks,
/// success or failure, permission policy) and `ask_user`; configurations
/// with targets, valid and invalid static answers and prompt labels; one or
/// two turns of one or two cycles of one or two calls (call IDs repeat
/// across cycles and turns); prompter, backend (answers, raw structured
/// responses, every error) and permission replies; scheduler choices; any
/// profile; TTY on or off. MCP tools never ask (`scenario::validate`).
///
/// Text answers are unique markers (`answer-<k>-marker`), so a secret answer
/// can be searched for in everything the model writes.
pub fn scenario(u: &mut Unstructured<'_>) -> Result<Scenario> {
    let profile = *u.choose(&ProfileName::ALL)?;
    let tty = u.arbitrary::<bool>()?;
    let mut tools = IndexMap::new();
    tools.insert("alpha".to_owned(), scripted_tool(u, "alpha")?);
    tools.insert("beta".to_owned(), scripted_tool(u, "beta")?);
    tools.insert("ask_user".to_owned(), ask_user_tool(u)?);
    let turns = (0..u.int_in_range(1..=2)?)
        .map(|_| turn(u))
        .collect::<Result<Vec<_>>>()?;
    let prompter = (0..u.int_in_range(0..=6)?)
        .map(|k| prompter_reply(u, k))
        .collect::<Result<Vec<_>>>()?;
    let backend = (0..u.int_in_range(0..=6)?)
        .map(|k| backend_reply(u, k))
        .collect::<Result<Vec<_>>>()?;
    let permissions = (0..u.int_in_range(0..=2)?)
        .map(|_| {
            let (allow, remember) = (u.arbitrary::<bool>()?, u.arbitrary::<bool>()?);
            Ok(match allow {
                true => PermissionReply::Allow { remember },
                false => PermissionReply::Deny { remember },
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let schedule = (0..u.int_in_range(0..=8)?)
        .map(|_| u.int_in_range(0..=3u32))
        .collect::<Result<Vec<_>>>()?;
    Ok(Scenario {
        profile,
        tty,
        tools,
        turns,
        prompter,
        backend,
        permissions,
        schedule,
        backend_by_id: IndexMap::new(),
        inquiry_model: None,
        toggles: Vec::new(),
    })
}

fn answer_type(u: &mut Unstructured<'_>) -> Result<AnswerType> {
    Ok(match u.int_in_range(0..=3u8)? {
        0 => AnswerType::Boolean,
        1 => AnswerType::Select {
            options: vec!["a".to_owned(), "b".to_owned()],
        },
        2 => AnswerType::Text,
        _ => AnswerType::Secret,
    })
}

fn question(u: &mut Unstructured<'_>, id: &str) -> Result<Question> {
    let mut q = Question::text(id, format!("Question {id}?"));
    q.answer_type = answer_type(u)?;
    q.exclusive = u.arbitrary()?;
    q.persistence = match u.arbitrary::<bool>()? {
        true => AnswerReusePolicy::None,
        false => AnswerReusePolicy::Turn,
    };
    if u.arbitrary::<bool>()? {
        q.context = Some(format!("Context for {id}."));
    }
    q.default = match u.int_in_range(0..=5u8)? {
        0 => Some(json!(true)),
        1 => Some(json!("a")),
        _ => None,
    };
    Ok(q)
}

/// None (half the time), one that fits booleans, one that fits the select
/// options, a marker that fits text and secrets, one that fits nothing.
fn static_answer(u: &mut Unstructured<'_>, tool: &str, id: &str) -> Result<Option<Value>> {
    Ok(match u.int_in_range(0..=7u8)? {
        0 => Some(json!(true)),
        1 => Some(json!("a")),
        2 => Some(json!(format!("static-{tool}-{id}-marker"))),
        3 => Some(json!(7)),
        _ => None,
    })
}

fn question_config(u: &mut Unstructured<'_>, tool: &str, id: &str) -> Result<QuestionConfig> {
    let target = match u.ratio(1u8, 4)? {
        true => QuestionTarget::Assistant,
        false => QuestionTarget::User,
    };
    let answer = static_answer(u, tool, id)?;
    let prompt_label = match u.int_in_range(0..=4u8)? {
        0 => Some("Assistant".to_owned()),
        1 => Some("Ops".to_owned()),
        _ => None,
    };
    Ok(QuestionConfig {
        target,
        answer,
        prompt_label,
    })
}

fn scripted_tool(u: &mut Unstructured<'_>, name: &str) -> Result<ToolSetup> {
    let source = *u.choose(&[
        ToolSource::Builtin {
            hook: BuiltinHook::Default,
        },
        ToolSource::Builtin {
            hook: BuiltinHook::Assistant,
        },
        ToolSource::Local,
        ToolSource::Mcp,
    ])?;
    let mut asks = Vec::new();
    for id in ["q1", "q2"] {
        if u.arbitrary::<bool>()? {
            asks.push(ScriptedAsk {
                question: question(u, id)?,
                reject_first: u.int_in_range(0..=1)?,
            });
        }
    }
    // MCP tools cannot ask (scenario::validate).
    if matches!(source, ToolSource::Mcp) {
        asks.clear();
    }
    let mut questions = IndexMap::new();
    for id in ["q1", "q2"] {
        let c = question_config(u, name, id)?;
        if c != QuestionConfig::default() {
            questions.insert(id.to_owned(), c);
        }
    }
    let finish = match u.int_in_range(0..=2u8)? {
        0 => Finish::Fail { transient: false },
        1 => Finish::Fail { transient: true },
        _ => Finish::Succeed,
    };
    let run = match u.ratio(1u8, 5)? {
        true => RunPolicy::Ask,
        false => RunPolicy::Unattended,
    };
    Ok(ToolSetup {
        source: Some(source),
        program: Program::Script { asks, finish },
        questions,
        run,
        assistant: IndexMap::new(),
        enable: None,
    })
}

fn ask_user_tool(u: &mut Unstructured<'_>) -> Result<ToolSetup> {
    let c = question_config(u, "ask_user", "answer")?;
    let mut questions = IndexMap::new();
    if c != QuestionConfig::default() {
        questions.insert("answer".to_owned(), c);
    }
    Ok(ToolSetup {
        source: None,
        program: Program::AskUser,
        questions,
        run: RunPolicy::Unattended,
        assistant: IndexMap::new(),
        enable: None,
    })
}

/// `ask_user` arguments: well-formed ones of every answer type, and the
/// malformed ones the tool must refuse with an error.
fn ask_user_arguments(u: &mut Unstructured<'_>) -> Result<Value> {
    Ok(match u.int_in_range(0..=7u8)? {
        0 => json!({"question": "Proceed?", "answer_type": "boolean"}),
        1 => {
            json!({"question": "Which?", "answer_type": "select", "options": ["a", "b"], "context": "Pick one."})
        }
        2 => json!({"question": "Name?"}),
        3 => json!({"question": ""}),
        4 => json!({"question": "Pick", "answer_type": "select"}),
        5 => json!({"question": "Proceed?", "answer_type": "boolean", "default": true}),
        6 => json!({"question": null}),
        _ => json!(["not", "an", "object"]),
    })
}

fn call(u: &mut Unstructured<'_>, index: usize) -> Result<Call> {
    let tool = *u.choose(&TOOLS)?;
    let arguments = match tool {
        "ask_user" => ask_user_arguments(u)?,
        _ => json!({}),
    };
    Ok(Call {
        id: format!("c{}", index + 1),
        tool: tool.to_owned(),
        arguments,
    })
}

fn turn(u: &mut Unstructured<'_>) -> Result<TurnScript> {
    let cycles = (0..u.int_in_range(1..=2)?)
        .map(|_| {
            let calls = if u.ratio(1u8, 4)? { 2 } else { 1 };
            (0..calls).map(|i| call(u, i)).collect::<Result<Vec<_>>>()
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(TurnScript {
        user: "go".to_owned(),
        cycles,
    })
}

fn prompter_reply(u: &mut Unstructured<'_>, k: usize) -> Result<PrompterReply> {
    Ok(match u.int_in_range(0..=7u8)? {
        0 => PrompterReply::CtrlC,
        1 => PrompterReply::Eof,
        v => PrompterReply::Answer {
            value: match v {
                2 => json!(true),
                3 => json!(false),
                4 => json!("a"),
                _ => json!(format!("answer-{k}-marker")),
            },
            remember: u.arbitrary()?,
        },
    })
}

fn backend_reply(u: &mut Unstructured<'_>, k: usize) -> Result<BackendReply> {
    Ok(match u.int_in_range(0..=9u8)? {
        0 => BackendReply::Answer { value: json!(true) },
        1 => BackendReply::Answer { value: json!("a") },
        2 | 3 => BackendReply::Answer {
            value: json!(format!("backend-{k}-marker")),
        },
        4 => BackendReply::Raw {
            structured: json!({"answer": true}),
        },
        5 => BackendReply::Raw {
            structured: json!(null),
        },
        _ => BackendReply::Error {
            error: *u.choose(&[
                InquiryErrorKind::Cancelled,
                InquiryErrorKind::Provider,
                InquiryErrorKind::MissingStructuredData,
                InquiryErrorKind::AnswerExtraction,
                InquiryErrorKind::Other,
            ])?,
        },
    })
}
