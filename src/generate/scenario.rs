//! The scenario generator, written once against [`Choices`]:
//! [`scenario`]/[`scenario_under`] drive it with proptest, [`from_bytes`]
//! with fuzz bytes (the `scenario` fuzz target), [`sample`] with a seed
//! (generated vectors, the invariant matrix, profile diffs). It replaces the
//! proptest strategies of `scenario/strategy.rs` and the fuzz decoder of
//! `fuzzing/structured.rs`, which had drifted apart.
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
//!
//! One scenario in three draws unusual IDs ([`unusual_ids`]): question IDs,
//! call IDs and a tool name that hold RFD 082's separator `.`, with which
//! the model finds that RFD's joined IDs collide (`INV-ID-UNIQUE`,
//! `INV-CACHE-KEY-UNIQUE`).

use crate::model::tool::Map;
use arbitrary::Unstructured;
use proptest::prelude::*;
use serde_json::{Value, json};
use std::sync::Arc;

use super::choice::{self, Bytes, Choices, Seeded, slots};
use crate::model::config::PartialEnable;
use crate::model::coordinator::{Call, RunPolicy};
use crate::model::routing::{InquiryErrorKind, PrompterFailure, TokenCause};
use crate::model::tool::{
    AnswerReusePolicy, AnswerType, BuiltinHook, Question, QuestionConfig, QuestionTarget,
    ToolSource,
};
use crate::profile::ProfileName;
use crate::scenario::{
    AssistantTarget, BackendReply, DeliveryReply, Finish, PermissionReply, Program, PrompterReply,
    Scenario, ScriptedAsk, ToolSetup, TurnScript,
};

/// The choices a proptest-driven scenario reads: more than a scenario
/// takes (test `a_scenario_takes_a_fixed_number_of_choices`), and a fixed
/// number, since the generator's layout is fixed (see `slots`) and
/// shrinking lowers numbers rather than dropping them.
const CHOICES: (usize, usize) = (256, 256);

/// Which profiles a strategy draws from.
pub fn profile() -> impl Strategy<Value = ProfileName> {
    proptest::sample::select(ProfileName::ALL.to_vec())
}

/// Whole scenarios, under any profile (proptest driver).
pub fn scenario() -> impl Strategy<Value = Scenario> {
    choice::strategy(CHOICES.0, CHOICES.1, |c| generate(c))
}

/// Whole scenarios under the profiles `profile` draws (proptest driver).
pub fn scenario_under(
    profile: impl Strategy<Value = ProfileName>,
) -> impl Strategy<Value = Scenario> {
    (
        profile,
        choice::strategy(CHOICES.0, CHOICES.1, |c| generate(c)),
    )
        .prop_map(|(profile, s)| Scenario { profile, ..s })
}

/// Whole scenarios under the profiles `profile` draws, inside the core
/// scenario language (`conformance::core_scenario`) by construction: each
/// drawn scenario is mapped into the core language ([`into_core`]), never
/// rejected, so any number of cases can be drawn (rule
/// `CONF-CORE-BY-CONSTRUCTION`). Shrinking works through the map.
pub(crate) fn core_scenario_under(
    profile: impl Strategy<Value = ProfileName>,
) -> impl Strategy<Value = Scenario> {
    scenario_under(profile).prop_map(into_core)
}

/// `s` mapped into the core scenario language (`conformance::core_scenario`)
/// item by item, keeping every list's length (so shrinking still lowers
/// one choice at a time): a call to a local program calls `alpha` instead,
/// a cancellation token fired with a cause becomes the backend error
/// `cancelled`, and the backend's keyed replies, chosen models, delivery
/// prompts, `enable` and `-t`/`-T` toggles are dropped.
pub(crate) fn into_core(mut s: Scenario) -> Scenario {
    let local: Vec<String> = s
        .tools
        .iter()
        .filter(|(_, t)| matches!(t.program, Program::Local { .. }))
        .map(|(name, _)| name.clone())
        .collect();
    for call in s
        .turns
        .iter_mut()
        .flat_map(|t| t.cycles.iter_mut().flatten())
    {
        if local.contains(&call.tool) {
            call.tool = "alpha".to_owned();
            call.arguments = json!({});
        }
    }
    for reply in &mut s.backend {
        if let BackendReply::Cancelled { .. } = reply {
            *reply = BackendReply::Error {
                error: InquiryErrorKind::Cancelled,
            };
        }
    }
    for tool in s.tools.values_mut() {
        tool.assistant.clear();
        tool.result = None;
        tool.enable = None;
    }
    s.backend_by_id.clear();
    s.inquiry_model = None;
    s.deliveries.clear();
    s.toggles.clear();
    s
}

/// A scenario decoded from fuzz bytes (the `scenario` fuzz target): total,
/// any bytes (the empty slice included) decode to a valid scenario, one
/// byte per choice, so a one-byte mutation changes one decision.
pub(crate) fn from_bytes(u: &mut Unstructured<'_>) -> Scenario {
    generate(&mut Bytes::new(u))
}

/// `count` scenarios sampled with `seed` (SplitMix64): deterministic for
/// its arguments, and independent of proptest's version.
pub(crate) fn sample(count: usize, seed: u64) -> Vec<Scenario> {
    choice::sample(count, seed, |c: &mut Seeded| generate(c))
}

/// The generator itself: one scenario from `c`'s choices.
pub(crate) fn generate(c: &mut impl Choices) -> Scenario {
    let profile = c.pick(&ProfileName::ALL);
    let tty = !c.flip();
    let mut alpha = scripted_tool(c, "alpha");
    let mut beta = scripted_tool(c, "beta");
    let ask = ask_user_tool(c);
    let gamma = local_tool(c);
    let turns = slots(c, 1, 2, |c, _| turn(c));
    let prompter = slots(c, 0, 6, prompter_reply);
    let backend = slots(c, 0, 6, backend_reply);
    let permissions = slots(c, 0, 2, |c, _| {
        let (allow, remember) = (!c.flip(), c.flip());
        if allow {
            PermissionReply::Allow { remember }
        } else {
            PermissionReply::Deny { remember }
        }
    });
    let schedule = slots(c, 0, 8, |c, _| c.choose(4) as u32);
    let (backend_by_id, inquiry_model, alpha_model) = inquiry_setup(c);
    let (toggles, beta_enable) = toggle_setup(c);
    let (beta_result, deliveries) = delivery_setup(c);
    if let Some(model) = alpha_model {
        alpha
            .assistant
            .insert("q1".to_owned(), AssistantTarget { model: Some(model) });
    }
    beta.enable = beta_enable;
    beta.result = beta_result;
    // Drawn last, so that shrinking reaches these choices after the ones
    // they reinterpret and can drop them (see `unusual_ids`).
    let (turns, toggles, beta_name) = unusual_ids(c, &mut [&mut alpha, &mut beta], turns, toggles);
    let mut tools = Map::default();
    tools.insert("alpha".to_owned(), alpha);
    tools.insert(beta_name.to_owned(), beta);
    tools.insert("ask_user".to_owned(), ask);
    tools.insert("gamma".to_owned(), gamma);
    // `ask_user`'s program under another key: NotFound.
    tools.insert("ask".to_owned(), plain(Program::AskUser, Map::default()));
    Scenario {
        toggles,
        profile,
        tty,
        tools,
        turns,
        prompter,
        backend,
        permissions,
        deliveries,
        schedule,
        backend_by_id,
        inquiry_model,
        amendment: None,
    }
}

/// A tool with no source override, run unattended (said explicitly: an
/// unset `run` asks).
fn plain(program: Program, questions: Map<String, QuestionConfig>) -> ToolSetup {
    ToolSetup {
        questions: questions.into(),
        run: Some(RunPolicy::Unattended),
        ..ToolSetup::new(program)
    }
}

/// Every answer type, in the order the exploration enumerates them.
pub(crate) fn answer_type(c: &mut impl Choices) -> AnswerType {
    match c.choose(4) {
        0 => AnswerType::Boolean,
        1 => AnswerType::Select {
            options: vec!["a".to_owned(), "b".to_owned()],
        },
        2 => AnswerType::Text,
        _ => AnswerType::Secret,
    }
}

/// A question's type, `exclusive` and `persistence` (the per-question space
/// the exploration enumerates completely; no context, no default).
pub(crate) fn core_question(c: &mut impl Choices, id: &str) -> Question {
    let mut q = Question::text(id, format!("Question {id}?"));
    q.answer_type = answer_type(c);
    q.exclusive = c.flip();
    q.persistence = if c.flip() {
        AnswerReusePolicy::None
    } else {
        AnswerReusePolicy::Turn
    };
    q
}

/// A whole question: the core, then a context and a `default` (always the
/// same number of choices, whatever the type).
fn question(c: &mut impl Choices, id: &str) -> Question {
    let mut q = core_question(c, id);
    if c.flip() {
        q.context = Some(format!("Context for {id}."));
    }
    q.default = question_default(c, &q.answer_type, id);
    q
}

/// A question's `default` (a display hint, persisted verbatim): mostly
/// none, else one that fits the type, or a marker string that may not.
fn question_default(c: &mut impl Choices, t: &AnswerType, id: &str) -> Option<Value> {
    match (c.weighted(&[3, 1, 1]), t) {
        (0, _) => None,
        (1, AnswerType::Boolean) => Some(json!(true)),
        (1, AnswerType::Select { options }) => options.first().map(|o| json!(o)),
        (1, AnswerType::Text | AnswerType::Secret) => Some(json!(format!("default-{id}"))),
        (_, _) => Some(json!(format!("default-{id}-marker"))),
    }
}

/// A static answer: none, one that fits every type, one that fits none, or a
/// secret-looking marker.
fn static_answer(c: &mut impl Choices, tool: &str, id: &str) -> Option<Value> {
    match c.weighted(&[4, 1, 1, 1, 1]) {
        0 => None,
        1 => Some(json!(true)),
        2 => Some(json!("a")),
        3 => Some(json!(format!("static-{tool}-{id}-marker"))),
        _ => Some(json!(7)),
    }
}

fn question_config(c: &mut impl Choices, tool: &str, id: &str) -> QuestionConfig {
    let target = match c.weighted(&[3, 1]) {
        0 => QuestionTarget::User,
        _ => QuestionTarget::Assistant,
    };
    let answer = static_answer(c, tool, id);
    let prompt_label = match c.weighted(&[3, 1, 1]) {
        0 => None,
        1 => Some("Assistant".to_owned()),
        _ => Some("Ops".to_owned()),
    };
    QuestionConfig {
        target,
        answer,
        prompt_label,
    }
}

/// A tool kind that can ask: built-in (either hook) or local; MCP last, so
/// the exploration can take the first three.
pub(crate) fn source(c: &mut impl Choices, kinds: usize) -> ToolSource {
    match c.choose(kinds) {
        0 => ToolSource::Builtin {
            hook: BuiltinHook::Default,
        },
        1 => ToolSource::Builtin {
            hook: BuiltinHook::Assistant,
        },
        2 => ToolSource::Local,
        _ => ToolSource::Mcp,
    }
}

/// Configurations of the questions a tool is asked about, default ones left
/// out.
fn questions(c: &mut impl Choices, tool: &str, ids: &[&str]) -> Map<String, QuestionConfig> {
    let mut out = Map::default();
    for id in ids {
        let q = question_config(c, tool, id);
        if q != QuestionConfig::default() {
            out.insert((*id).to_owned(), q);
        }
    }
    out
}

fn scripted_tool(c: &mut impl Choices, name: &str) -> ToolSetup {
    let source = source(c, 4);
    let mut asks = Vec::new();
    for id in ["q1", "q2"] {
        let keep = c.flip();
        let ask = ScriptedAsk {
            question: Arc::new(question(c, id)),
            reject_first: c.choose(2) as u8,
        };
        if keep {
            asks.push(ask);
        }
    }
    // MCP tools cannot ask (scenario::validate).
    if matches!(source, ToolSource::Mcp) {
        asks.clear();
    }
    let questions = questions(c, name, &["q1", "q2"]);
    let finish = match c.choose(3) {
        0 => Finish::Succeed,
        1 => Finish::Fail { transient: false },
        _ => Finish::Fail { transient: true },
    };
    let run = match c.weighted(&[4, 1]) {
        0 => RunPolicy::Unattended,
        _ => RunPolicy::Ask,
    };
    ToolSetup {
        source: Some(source),
        questions: questions.into(),
        run: Some(run),
        ..ToolSetup::new(Program::Script { asks, finish })
    }
}

/// The unusual question IDs of the scripted slots, by tool (`alpha`'s
/// `q1` and `q2`, then `beta`'s): IDs holding RFD 082's separator `.`, or
/// only digits. With the dotted call IDs and tool name of [`unusual_ids`]
/// they join into colliding inquiry IDs (call `c1` of `alpha` asking `x.1`,
/// call `c1.x` of `beta` asking `1`: both `c1.x.1.1`) and turn-cache keys
/// (tool `alpha` asking `x.1`, tool `alpha.x` asking `1`: both
/// `alpha.x.1`). An empty ID is not drawn here (a scenario runs it:
/// `src/wire/id/id_separator_tests.rs`).
pub(crate) const UNUSUAL_QUESTION_IDS: [[[&str; 2]; 2]; 2] =
    [[["x.1", ".x."], ["1", "x."]], [["1", "x."], ["x.1", ".x."]]];

/// The most calls a scenario holds (2 turns of 2 cycles of 2 calls).
const MAX_CALLS: usize = 8;

/// One scenario in three draws its IDs from unusual alphabets, RFD 082's
/// separator `.` among them (the rest keep the plain ones): the scripted
/// tools' question IDs mostly from [`UNUSUAL_QUESTION_IDS`]; a call's ID
/// the cycle's other place's ID plus `.x` (mostly `c1.x` for the second
/// call, sometimes `c2.x` for the first), so a cycle mostly holds `c1` and
/// `c1.x`; `beta` mostly configured as `alpha.x` (calls and `-t beta`
/// follow it). Such a scenario calls only the scripted tools (`ask_user`
/// and `ask` become `alpha`, `gamma` becomes `beta`), whose questions carry
/// the IDs. A fixed number of choices, drawn after everything they
/// reinterpret: shrinking lowers those first, then can turn the whole
/// thing off.
fn unusual_ids(
    c: &mut impl Choices,
    scripted: &mut [&mut ToolSetup; 2],
    mut turns: Vec<TurnScript>,
    toggles: Vec<String>,
) -> (Vec<TurnScript>, Vec<String>, &'static str) {
    let unusual = c.weighted(&[2, 1]) == 1;
    let mut slot_ids = [[0usize; 2]; 2];
    for tool in &mut slot_ids {
        for slot in tool.iter_mut() {
            *slot = c.weighted(&[1, 3, 1]);
        }
    }
    let dotted: Vec<usize> = (0..MAX_CALLS).map(|_| c.choose(4)).collect();
    let beta_dotted = c.weighted(&[1, 3]) == 1;
    if !unusual {
        return (turns, toggles, "beta");
    }
    for (t, tool) in scripted.iter_mut().enumerate() {
        if let Program::Script { asks, .. } = &mut tool.program {
            for ask in asks.iter_mut() {
                let slot = usize::from(ask.question.id != "q1");
                if let Some(id) = slot_ids[t][slot]
                    .checked_sub(1)
                    .map(|k| UNUSUAL_QUESTION_IDS[t][slot][k])
                {
                    let question = Arc::make_mut(&mut ask.question);
                    question.id = id.to_owned();
                    question.text = format!("Question {id}?");
                }
            }
        }
    }
    let beta_name = if beta_dotted { "alpha.x" } else { "beta" };
    let mut n = 0;
    for cycle in turns.iter_mut().flat_map(|t| &mut t.cycles) {
        for (index, call) in cycle.iter_mut().enumerate() {
            // Index 0 dotted one time in four, index 1 three times in four.
            let d = dotted.get(n).copied().unwrap_or(0);
            n += 1;
            if (index == 0 && d == 3) || (index > 0 && d >= 1) {
                call.id = format!("c{}.x", if index == 0 { 2 } else { index });
            }
            let tool = match call.tool.as_str() {
                "alpha" | "ask_user" | "ask" => "alpha",
                _ => beta_name,
            };
            call.tool = tool.to_owned();
            call.arguments = json!({});
        }
    }
    let toggles = toggles
        .into_iter()
        .map(|t| match t.strip_prefix("-t ") {
            Some("beta") => format!("-t {beta_name}"),
            Some(_) | None => t,
        })
        .collect();
    (turns, toggles, beta_name)
}

fn ask_user_tool(c: &mut impl Choices) -> ToolSetup {
    plain(Program::AskUser, questions(c, "ask_user", &["answer"]))
}

/// `ask_user` arguments: well-formed ones of every answer type, and the
/// malformed ones the tool must refuse with an error (RFD 083
/// "Arguments").
fn ask_user_arguments(c: &mut impl Choices) -> Value {
    match c.choose(14) {
        0 => json!({"question": "Proceed?", "answer_type": "boolean"}),
        1 => {
            json!({"question": "Which?", "answer_type": "select", "options": ["a", "b"], "context": "Pick one.", "default": "b"})
        }
        2 => json!({"question": "Name?"}),
        3 => json!({"question": "Proceed?", "answer_type": "boolean", "default": true}),
        4 => json!({"question": ""}),
        5 => json!({"question": "Pick", "answer_type": "select"}),
        6 => json!("not an object"),
        7 => json!({"question": 7}),
        8 => json!({"question": "two\nlines"}),
        9 => json!({"question": "Key?", "answer_type": "secret"}),
        10 => json!({"question": "Go?", "answer_type": "boolean", "options": ["a"]}),
        11 => json!({"question": "Go?", "answer_type": "boolean", "default": "yes"}),
        12 => json!({"question": null}),
        _ => json!(["not", "an", "object"]),
    }
}

/// `ask_user` arguments built part by part, so that every argument RFD 083
/// "Arguments" validates varies on its own: the question text (fine, empty,
/// blank, multi-line), `answer_type` (absent, each of the four, unknown),
/// `options` (absent, empty, two strings, one non-string), `default`
/// (absent, a boolean, an option, a non-option string, a number), a context.
pub fn ask_user_arguments_by_part(c: &mut impl Choices) -> Value {
    let mut args = serde_json::Map::new();
    let question = ["Proceed?", "", "  ", "two\nlines", "cr\r"][c.choose(5)];
    args.insert("question".to_owned(), json!(question));
    match c.choose(6) {
        0 => {}
        k => {
            let t = ["boolean", "select", "text", "secret", "number"][k - 1];
            args.insert("answer_type".to_owned(), json!(t));
        }
    }
    match c.choose(4) {
        0 => {}
        k => {
            let options = [json!([]), json!(["a", "b"]), json!(["a", 7])][k - 1].clone();
            args.insert("options".to_owned(), options);
        }
    }
    match c.choose(5) {
        0 => {}
        k => {
            let d = [json!(true), json!("a"), json!("c"), json!(7)][k - 1].clone();
            args.insert("default".to_owned(), d);
        }
    }
    if c.flip() {
        args.insert("context".to_owned(), json!("Some\ncontext."));
    }
    Value::Object(args)
}

/// An answer value for any question of [`answer_type`]: booleans, the
/// options `a`/`b`, a string that is no option, a number, `null`.
#[cfg(test)]
pub(crate) fn answer_value(c: &mut impl Choices) -> Value {
    [
        json!(true),
        json!(false),
        json!("a"),
        json!("b"),
        json!("c"),
        json!(7),
        Value::Null,
    ][c.choose(7)]
    .clone()
}

/// A local program's stdout lines: `needs_input` outcomes for `q1`, raw
/// text, explicit success and error. `q1` keeps one answer type across the
/// lines (its `persistence` varies, which is how a scenario re-asks a
/// remembered key with `persistence: none`): the same ID asked as `secret`
/// and then as `text` would take the same static answer into the stream
/// (see `spec/DECISIONS.md`).
fn local_tool(c: &mut impl Choices) -> ToolSetup {
    let q = question(c, "q1");
    let stdout = slots(c, 0, 4, |c, _| {
        let (kind, once) = (c.choose(5), c.flip());
        match kind {
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
        }
    });
    plain(Program::Local { stdout }, questions(c, "gamma", &["q1"]))
}

/// The tools calls pick from: two scripted tools, `ask_user`, a local
/// program, and `ask_user`'s program under the alias `ask`.
pub(crate) const TOOLS: [&str; 5] = ["alpha", "beta", "ask_user", "gamma", "ask"];

fn call(c: &mut impl Choices, index: usize) -> Call {
    let tool = c.pick(&TOOLS);
    let arguments = ask_user_arguments(c);
    let arguments = if tool == "ask_user" || tool == "ask" {
        arguments
    } else {
        json!({})
    };
    Call {
        id: format!("c{}", index + 1),
        tool: tool.to_owned(),
        arguments,
    }
}

fn turn(c: &mut impl Choices) -> TurnScript {
    let cycles = slots(c, 1, 2, |c, _| slots(c, 1, 2, call));
    TurnScript {
        user: "go".to_owned(),
        cycles,
    }
}

fn prompter_reply(c: &mut impl Choices, k: usize) -> PrompterReply {
    // Every branch takes the same choices (a fixed layout, see `slots`).
    let (answered, pick, remember) = (c.weighted(&[3, 1]) == 0, c.choose(5), c.flip());
    match answered {
        true => PrompterReply::Answer {
            value: match pick {
                0 | 4 => json!(true),
                1 => json!(false),
                2 => json!("a"),
                _ => json!(format!("answer-{k}-marker")),
            },
            remember,
        },
        false => match pick {
            0 => PrompterReply::CtrlC,
            1 => PrompterReply::Eof,
            2 => PrompterReply::Failure {
                failure: PrompterFailure::NoTerminal,
            },
            3 => PrompterReply::Failure {
                failure: PrompterFailure::Io,
            },
            _ => PrompterReply::Failure {
                failure: PrompterFailure::Format,
            },
        },
    }
}

fn backend_reply(c: &mut impl Choices, k: usize) -> BackendReply {
    // Every branch takes two choices (a fixed layout, see `slots`).
    match c.weighted(&[3, 1, 1, 1]) {
        0 => BackendReply::Answer {
            value: match c.choose(3) {
                0 => json!(true),
                1 => json!("a"),
                _ => json!(format!("backend-{k}-marker")),
            },
        },
        1 => BackendReply::Error {
            error: c.pick(&[
                InquiryErrorKind::Cancelled,
                InquiryErrorKind::Provider,
                InquiryErrorKind::MissingStructuredData,
                InquiryErrorKind::AnswerExtraction,
                InquiryErrorKind::Other,
            ]),
        },
        // Raw structured responses: RFD 028's answer extraction, with an ID
        // that may match the first attempt of a question, a missing ID, a
        // missing answer, or no object at all.
        2 => BackendReply::Raw {
            structured: match c.choose(6) {
                0 => json!({"inquiry_id": "c1.q1.1", "answer": true}),
                1 => json!({"inquiry_id": "c1.answer.1", "answer": "a"}),
                2 => json!({"answer": true}),
                3 => json!({"inquiry_id": "c1.q1.1"}),
                4 => json!(null),
                _ => json!("not an object"),
            },
        },
        _ => BackendReply::Cancelled {
            cause: c.pick(&[
                TokenCause::Restart,
                TokenCause::ToolCancel,
                TokenCause::HardQuit,
                TokenCause::AbortedTurn,
            ]),
        },
    }
}

/// The inquiry backend's setup: replies keyed by inquiry ID (IDs the
/// generated calls can produce, a two-segment one for `legacy`), a dedicated
/// inquiry model, and a per-question model for `alpha.q1`.
fn inquiry_setup(
    c: &mut impl Choices,
) -> (Map<String, BackendReply>, Option<String>, Option<String>) {
    let by_id = slots(c, 0, 2, |c, _| {
        let id = c.pick(&["c1.q1.1", "c2.q1.1", "c1.q2.1", "c1.answer.1", "c1.q1"]);
        (id.to_owned(), backend_reply(c, 9))
    })
    .into_iter()
    .collect();
    let model = (c.weighted(&[3, 1]) == 1).then(|| "inquiry-small".to_owned());
    let alpha = (c.weighted(&[3, 1]) == 1).then(|| "alpha-q1-model".to_owned());
    (by_id, model, alpha)
}

/// The command line's toggles and `beta`'s `enable` (the RFD 081 shapes and
/// the pre-081 strings).
fn toggle_setup(c: &mut impl Choices) -> (Vec<String>, Option<PartialEnable>) {
    let on = c.weighted(&[3, 1]) == 1;
    let picked = slots(c, 1, 2, |c, _| {
        c.pick(&["-T", "-t", "-T alpha", "-t beta", "-T ask_user"])
            .to_owned()
    });
    let toggles = if on { picked } else { Vec::new() };
    let enable = match c.weighted(&[3, 1, 1, 1, 1]) {
        0 => None,
        1 => PartialEnable::pre_081("explicit"),
        2 => PartialEnable::pre_081("always"),
        3 => Some(PartialEnable::shorthand(false)),
        _ => Some(PartialEnable {
            state: Some(false),
            allow_toggle: None,
        }),
    };
    (toggles, enable)
}

/// `beta`'s result-delivery policy and the delivery prompt's replies (rule
/// `LIFE-DELIVERY-PROMPT`); the replies take their choices either way.
fn delivery_setup(c: &mut impl Choices) -> (Option<RunPolicy>, Vec<DeliveryReply>) {
    let ask = c.weighted(&[3, 1]) == 1;
    let replies = slots(c, 0, 2, |c, _| {
        if c.flip() {
            DeliveryReply::Withhold
        } else {
            DeliveryReply::Deliver
        }
    });
    if ask {
        (Some(RunPolicy::Ask), replies)
    } else {
        (None, Vec::new())
    }
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
    calls + asks + s.prompter.len() + s.backend.len() + s.permissions.len() + s.deliveries.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::choice::Log;

    /// Rule: GEN-ONE-INTERFACE — the scenario generator's layout is fixed:
    /// every scenario takes the same number of choices, whatever was
    /// chosen, and no more than the proptest driver supplies (so no
    /// proptest draw is cut short and dropping an item never shifts the
    /// rest).
    #[test]
    fn a_scenario_takes_a_fixed_number_of_choices() {
        let counts: std::collections::BTreeSet<usize> = (0..300u64)
            .map(|seed| {
                let mut log = Log::new(Seeded::new(seed));
                generate(&mut log);
                log.taken.len()
            })
            .collect();
        assert_eq!(counts.len(), 1, "{counts:?}");
        let n = *counts.first().expect("one count");
        assert!(n <= CHOICES.0, "{n} choices, {} supplied", CHOICES.0);
    }

    /// Rule: GEN-SMALL-MUTATIONS — a one-byte change of a fuzz input
    /// changes one choice of the decoded scenario: the other choices are
    /// the same, in the same places.
    #[test]
    fn a_byte_of_a_fuzz_scenario_is_one_choice() {
        let bytes: Vec<u8> = (0..400u32).map(|i| (i * 97 % 251) as u8).collect();
        let decode = |b: &[u8]| {
            let mut u = Unstructured::new(b);
            let mut log = Log::new(Bytes::new(&mut u));
            generate(&mut log);
            log.taken
        };
        let before = decode(&bytes);
        for k in [0, 5, 50, 120, 190] {
            let mut changed = bytes.clone();
            changed[k] = changed[k].wrapping_add(1);
            let after = decode(&changed);
            assert_eq!(before.len(), after.len());
            let differing = (0..before.len()).filter(|&i| before[i] != after[i]).count();
            assert!(differing <= 1, "byte {k} changed {differing} choices");
        }
    }
}
