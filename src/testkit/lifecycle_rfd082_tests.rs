//! RFD 082 Phase 1–3 tests, by the names of the RFD's test lists, run
//! through the state machine.

use super::spec_common_tests as common;
use std::sync::Arc;

use crate::model::coordinator::{Call, Coordinator, Effect, Input, RunPolicy, ToolSpec};
use crate::model::tool::Map;
use crate::model::tool::{BuiltinHook, Outcome, Question, ToolSource, resolve_inquiry_source};
use crate::profile::ProfileName;
use crate::wire::{CancellationReason, InquiryId, InquiryResponse, InquirySource};
use common::*;
use serde_json::{Value, json};

fn boolean_tool(qid: &str) -> Value {
    json!({"run": "unattended", "program": {"kind": "script", "asks": [
        {"question": {"id": qid, "text": "Proceed?", "answer_type": {"type": "boolean"}}}
    ]}})
}

fn secret_tool(source: Value) -> Value {
    json!({"source": source, "run": "unattended", "program": {"kind": "script", "asks": [
        {"question": {"id": "passphrase", "text": "SSH passphrase", "answer_type": {"type": "secret"}}}
    ]}})
}

/// Rule: LIFE-ATTEMPT-COUNTER — a tool that emits the same question twice in
/// one call gets `.1` and `.2`, each correctly paired.
#[test]
fn attempt_counter() {
    let t = run(json!({
        "tools": {"fs": {"run": "unattended", "program": {"kind": "script", "asks": [
            {"question": {"id": "confirm", "text": "Apply?", "answer_type": {"type": "boolean"}}, "reject_first": 1}
        ]}}},
        "turns": [{"cycles": [[{"id": "call_1", "tool": "fs"}]]}],
        "prompter": [{"reply": "answer", "value": false}, {"reply": "answer", "value": true}]
    }));
    assert_eq!(request_ids(&t), ["call_1.confirm.1", "call_1.confirm.2"]);
    assert_paired(&t);
    assert_eq!(responses(&t).len(), 2);
}

/// Rule: LIFE-ATTEMPT-COUNTER — a `tool_call_id` reused across cycles of one
/// turn (Gemini-style) continues the counter instead of restarting it.
#[test]
fn cross_cycle_uniqueness_within_a_turn() {
    let t = run(json!({
        "tools": {"fs": boolean_tool("confirm")},
        "turns": [{"cycles": [[{"id": "call_1", "tool": "fs"}], [{"id": "call_1", "tool": "fs"}]]}],
        "prompter": [{"reply": "answer", "value": true}, {"reply": "answer", "value": true}]
    }));
    assert_eq!(request_ids(&t), ["call_1.confirm.1", "call_1.confirm.2"]);
    assert_paired(&t);
}

/// Rule: LIFE-ATTEMPT-RESET — every turn starts every key at attempt 1.
#[test]
fn per_turn_reset() {
    let t = run(json!({
        "tools": {"fs": boolean_tool("confirm")},
        "turns": [
            {"cycles": [[{"id": "call_1", "tool": "fs"}]]},
            {"cycles": [[{"id": "call_1", "tool": "fs"}]]}
        ],
        "prompter": [{"reply": "answer", "value": true}, {"reply": "answer", "value": true}]
    }));
    assert_eq!(request_ids(&t), ["call_1.confirm.1", "call_1.confirm.1"]);
}

/// Rule: LIFE-SECRET-REDACTED — a secret answered at the prompter is recorded
/// `Redacted`, reaches the tool in memory, and appears nowhere on disk.
#[test]
fn secret_prompter_answer() {
    let marker = "s3cret-marker-prompter";
    let t = run(json!({
        "tools": {"ssh": secret_tool(json!({"kind": "builtin"}))},
        "turns": [{"cycles": [[{"id": "call_1", "tool": "ssh"}]]}],
        "prompter": [{"reply": "answer", "value": marker}]
    }));
    assert!(matches!(
        responses(&t)[..],
        [InquiryResponse::Redacted { .. }]
    ));
    let last = t.invocations.last().expect("invoked");
    assert_eq!(last.answers.get("passphrase"), Some(&json!(marker)));
    assert!(!stream_text(&t).contains(marker));
    assert!(
        !t.prompts[0].presentation.echo,
        "secret input is not echoed"
    );
}

/// Rule: LIFE-SECRET-REDACTED — a configured static answer for a secret is
/// delivered in memory and recorded `Redacted`, not `Answered`.
#[test]
fn secret_static_answer() {
    let marker = "s3cret-marker-static";
    let mut tool = secret_tool(json!({"kind": "builtin"}));
    tool["questions"] = json!({"passphrase": {"answer": marker}});
    let t = run(json!({
        "tools": {"ssh": tool},
        "turns": [{"cycles": [[{"id": "call_1", "tool": "ssh"}]]}]
    }));
    assert!(matches!(
        responses(&t)[..],
        [InquiryResponse::Redacted { .. }]
    ));
    assert!(t.prompts.is_empty(), "a static answer shows no prompt");
    assert_eq!(
        t.invocations[1].answers.get("passphrase"),
        Some(&json!(marker))
    );
    assert!(!stream_text(&t).contains(marker));
}

/// Rule: LIFE-SECRET-REDACTED, LIFE-ACCUMULATED — a local tool's secret is
/// redacted on disk and handed to the tool's next invocation as `tool.answers`.
#[test]
fn local_tool_secret() {
    let marker = "s3cret-marker-local";
    let t = run(json!({
        "tools": {"local_ssh": secret_tool(json!({"kind": "local"}))},
        "turns": [{"cycles": [[{"id": "call_1", "tool": "local_ssh"}]]}],
        "prompter": [{"reply": "answer", "value": marker}]
    }));
    assert!(matches!(
        responses(&t)[..],
        [InquiryResponse::Redacted { .. }]
    ));
    assert_eq!(t.invocations.len(), 2);
    assert!(t.invocations[0].answers.is_empty());
    assert_eq!(
        t.invocations[1].answers.get("passphrase"),
        Some(&json!(marker))
    );
    assert!(!stream_text(&t).contains(marker));
}

/// Rule: LIFE-CACHE-ELIGIBLE — a secret never enters the cache (write side):
/// remembered or not, the next ask of the same question prompts again, and
/// the turn cache stays empty at every step.
#[test]
fn cache_bypass() {
    let s = scenario(json!({
        "tools": {"s": {"run": "unattended", "program": {"kind": "script", "asks": [
            {"question": {"id": "q", "text": "Secret Q", "answer_type": {"type": "secret"}}}
        ]}}},
        "turns": [{"cycles": [[{"id": "c1", "tool": "s"}], [{"id": "c2", "tool": "s"}]]}],
        "prompter": [
            {"reply": "answer", "value": "first-secret", "remember": true},
            {"reply": "answer", "value": "second-secret", "remember": true}
        ]
    }));
    let mut max_entries = 0;
    let t = crate::scenario::run_observed(&s, Default::default(), &mut |c, _| {
        if let Some(ts) = c.turn_state() {
            max_entries = max_entries.max(ts.cache.tool_answers().len());
        }
    })
    .unwrap();
    assert_eq!(t.prompts.len(), 2);
    assert_eq!(max_entries, 0);
    assert!(
        t.prompts
            .iter()
            .all(|p| !p.presentation.remember_affordance)
    );
}

/// Rule: LIFE-CACHE-ELIGIBLE — the read side for a question that turned secret,
/// through the step API: an entry remembered for `tool.q` is not used once
/// `q` is asked as `Secret`.
#[test]
fn cache_bypass_read_side_for_a_question_now_secret() {
    let t = run(json!({
        "tools": {"t": {"run": "unattended", "program": {"kind": "script", "asks": [
            {"question": {"id": "q", "text": "Q?", "answer_type": {"type": "boolean"}}}
        ]}}},
        "turns": [{"cycles": [[{"id": "c1", "tool": "t"}]]}],
        "prompter": [{"reply": "answer", "value": true, "remember": true}]
    }));
    assert_eq!(t.prompts.len(), 1);

    let mut c = coordinator_with(vec![("t", ToolSource::Local)]);
    let fx = ask_first(&mut c, "c1", Question::boolean("q", "Q?"));
    let id = prompt_id(&fx);
    c.handle(Input::PromptAnswered {
        call: 0,
        inquiry_id: id,
        answer: json!(true),
        remember: true,
    })
    .unwrap();
    assert_eq!(
        c.turn_state().unwrap().cache.tool_answers().get("t.q"),
        Some(&json!(true)),
        "the boolean was remembered"
    );
    // The same key is now asked as a secret: the cache must not answer it.
    let fx = c
        .handle(returned(0, Question::secret("q", "Now secret"), "t"))
        .unwrap();
    assert!(
        fx.iter().any(|e| matches!(e, Effect::Prompt { .. })),
        "asked again: {fx:?}"
    );
    assert!(!fx.iter().any(|e| matches!(e, Effect::Invoke { .. })));
}

/// Rule: LIFE-CACHE-WRITE — non-secret answers of every type are recorded
/// `Answered`, and a remembered boolean answers the same question later in
/// the turn without a prompt (and is still recorded).
#[test]
fn non_secret_regression() {
    let t = run(json!({
        "tools": {"t": {"run": "unattended", "program": {"kind": "script", "asks": [
            {"question": {"id": "b", "text": "B?", "answer_type": {"type": "boolean"}}},
            {"question": {"id": "s", "text": "S?", "answer_type": {"type": "select", "options": ["x", "y"]}}},
            {"question": {"id": "x", "text": "X?", "answer_type": {"type": "text"}}}
        ]}}},
        "turns": [{"cycles": [[{"id": "c1", "tool": "t"}], [{"id": "c2", "tool": "t"}]]}],
        "prompter": [
            {"reply": "answer", "value": true, "remember": true},
            {"reply": "answer", "value": "y"},
            {"reply": "answer", "value": "hello"},
            {"reply": "answer", "value": "x"},
            {"reply": "answer", "value": "again"}
        ]
    }));
    let answered: Vec<Value> = responses(&t)
        .into_iter()
        .map(|r| match r {
            InquiryResponse::Answered { answer, .. } => answer.clone(),
            other => panic!("expected answered, got {other:?}"),
        })
        .collect();
    assert_eq!(
        answered,
        [
            json!(true),
            json!("y"),
            json!("hello"),
            json!(true),
            json!("x"),
            json!("again")
        ]
    );
    // The second call's boolean came from the cache: 5 prompts for 6 answers.
    assert_eq!(t.prompts.len(), 5);
    assert_paired(&t);
}

/// Rule: LIFE-ID-THREADED — the ID allocated when the request is recorded
/// survives the prompt round trip verbatim, and an answer carrying another
/// ID is refused.
#[test]
fn inquiry_id_round_trip_via_prompt_events() {
    let mut c = coordinator_with(vec![("t", ToolSource::Local)]);
    let fx = ask_first(&mut c, "call_1", Question::boolean("confirm", "Q?"));
    let request_id = fx
        .iter()
        .find_map(|e| match e {
            Effect::Persist(ev) => ev.as_inquiry_request().map(|r| r.id.clone()),
            _ => None,
        })
        .expect("request recorded");
    let prompt = prompt_id(&fx);
    assert_eq!(prompt.as_ref(), Some(&request_id));
    let wrong = Some(InquiryId::from_opaque("call_1.confirm.9"));
    assert!(
        c.handle(Input::PromptAnswered {
            call: 0,
            inquiry_id: wrong,
            answer: json!(true),
            remember: false
        })
        .is_err()
    );
    let fx = c
        .handle(Input::PromptAnswered {
            call: 0,
            inquiry_id: prompt,
            answer: json!(true),
            remember: false,
        })
        .unwrap();
    let response_id = fx
        .iter()
        .find_map(|e| match e {
            Effect::Persist(ev) => ev.as_inquiry_response().map(|r| r.id().clone()),
            _ => None,
        })
        .expect("response recorded");
    assert_eq!(response_id, request_id);
}

/// Rule: LIFE-CANCEL-REASON — each inquiry-backend error lands with the
/// reason of RFD 082's table: the cancellation token as `user`, the rest as
/// `backend_error`; every one closes its request.
#[test]
fn cancellation_reason_mapping() {
    let cases = [
        ("cancelled", CancellationReason::User),
        ("provider", CancellationReason::BackendError),
        ("missing_structured_data", CancellationReason::BackendError),
        ("answer_extraction", CancellationReason::BackendError),
        ("other", CancellationReason::BackendError),
    ];
    for (error, reason) in cases {
        let t = run(json!({
            "tty": false,
            "tools": {"t": boolean_tool("q")},
            "turns": [{"cycles": [[{"id": "c1", "tool": "t"}]]}],
            "backend": [{"reply": "error", "error": error}]
        }));
        assert_eq!(cancel_reasons(&t), std::slice::from_ref(&reason), "{error}");
        assert_paired(&t);
        assert!(t.tool_responses[0].is_error);
    }
    // Ctrl-C and EOF at the prompter are both `user`.
    for reply in ["ctrl_c", "eof"] {
        let t = run(json!({
            "tools": {"t": boolean_tool("q")},
            "turns": [{"cycles": [[{"id": "c1", "tool": "t"}]]}],
            "prompter": [{"reply": reply}]
        }));
        assert_eq!(cancel_reasons(&t), [CancellationReason::User], "{reply}");
    }
}

/// Rule: LIFE-GUARD-SECRET — a secret question without a TTY fails the tool
/// with a tool-level error and records `no_prompt_backend`; the inquiry
/// backend is never called.
#[test]
fn secret_routing_guard_no_tty() {
    let t = run(json!({
        "profile": "rfd082",
        "tty": false,
        "tools": {"ssh": secret_tool(json!({"kind": "builtin"}))},
        "turns": [{"cycles": [[{"id": "c1", "tool": "ssh"}]]}],
        "backend": [{"reply": "answer", "value": "leaked"}]
    }));
    assert_eq!(cancel_reasons(&t), [CancellationReason::NoPromptBackend]);
    assert!(t.backend_calls.is_empty());
    assert!(t.tool_responses[0].is_error);
    assert!(
        t.tool_responses[0]
            .content
            .contains("no interactive terminal")
    );
}

/// Rule: LIFE-GUARD-SECRET — a secret question targeted at the assistant
/// fails the tool and records `assistant_routing_denied`.
#[test]
fn secret_routing_guard_assistant_target() {
    let mut tool = secret_tool(json!({"kind": "builtin"}));
    tool["questions"] = json!({"passphrase": {"target": "assistant"}});
    let t = run(json!({
        "profile": "rfd082",
        "tools": {"ssh": tool},
        "turns": [{"cycles": [[{"id": "c1", "tool": "ssh"}]]}]
    }));
    assert_eq!(
        cancel_reasons(&t),
        [CancellationReason::AssistantRoutingDenied]
    );
    assert!(t.backend_calls.is_empty());
    assert!(t.prompts.is_empty());
    assert!(
        t.tool_responses[0]
            .content
            .contains("cannot be routed to the assistant")
    );
}

/// Rule: LIFE-CACHE-SPLIT — a permission decision lives in
/// `remembered_permission_decisions` and a tool answer in
/// `remembered_tool_answers`; neither map sees the other's entries, and
/// cancelled or redacted responses never land in either.
#[test]
fn turn_cache_split() {
    // `t` asks for permission first.
    let mut tools = Map::default();
    tools.insert(
        "t".to_owned(),
        ToolSpec {
            run: RunPolicy::Ask,
            ..ToolSpec::new(ToolSource::Local)
        },
    );
    let mut c2 = Coordinator::new(ProfileName::Rfd083.rules(), true, tools);
    c2.handle(Input::BeginTurn {
        content: "go".into(),
    })
    .unwrap();
    c2.handle(Input::BeginCycle {
        calls: vec![call("c1", "t")],
    })
    .unwrap();
    c2.handle(Input::PermissionAnswered {
        call: 0,
        allow: true,
        remember: true,
    })
    .unwrap();
    let fx = c2
        .handle(returned(0, Question::boolean("q", "Q?"), "t"))
        .unwrap();
    let id = prompt_id(&fx);
    c2.handle(Input::PromptAnswered {
        call: 0,
        inquiry_id: id,
        answer: json!(false),
        remember: true,
    })
    .unwrap();
    // A cancelled and a redacted inquiry in the same turn.
    let fx = c2
        .handle(returned(0, Question::boolean("cancelled_q", "C?"), "t"))
        .unwrap();
    c2.handle(Input::PromptCancelled {
        call: 0,
        inquiry_id: prompt_id(&fx),
    })
    .unwrap();
    c2.handle(Input::BeginCycle {
        calls: vec![call("c2", "t")],
    })
    .unwrap();
    let fx = c2
        .handle(returned(0, Question::secret("pw", "PW"), "t"))
        .unwrap();
    c2.handle(Input::PromptAnswered {
        call: 0,
        inquiry_id: prompt_id(&fx),
        answer: json!("pw-marker"),
        remember: true,
    })
    .unwrap();

    let cache = &c2.turn_state().unwrap().cache;
    let tools: Vec<&String> = cache.tool_answers().keys().collect();
    let perms: Vec<&String> = cache.permission_decisions().keys().collect();
    assert_eq!(tools, ["t.q"]);
    assert_eq!(perms, ["t.__permission__"]);
    assert_eq!(cache.permission_decisions()["t.__permission__"], json!("y"));
    assert!(
        !format!("{:?}", c2).contains("pw-marker"),
        "the secret is not in the state"
    );
}

/// Rule: LIFE-PROVENANCE — the source is resolved from the tool's kind: a
/// built-in's hook, `Tool { name }` for local and MCP tools; configuration
/// (here a prompt label claiming "Assistant") changes nothing.
#[test]
fn provenance_from_tool_kind_only() {
    assert_eq!(
        resolve_inquiry_source(
            ToolSource::Builtin {
                hook: BuiltinHook::Assistant
            },
            "x"
        ),
        InquirySource::Assistant
    );
    assert_eq!(
        resolve_inquiry_source(
            ToolSource::Builtin {
                hook: BuiltinHook::Default
            },
            "x"
        ),
        InquirySource::tool("x")
    );
    assert_eq!(
        resolve_inquiry_source(ToolSource::Local, "x"),
        InquirySource::tool("x")
    );
    assert_eq!(
        resolve_inquiry_source(ToolSource::Mcp, "x"),
        InquirySource::tool("x")
    );

    let mut local = boolean_tool("q");
    local["source"] = json!({"kind": "local"});
    local["questions"] = json!({"q": {"prompt_label": "Assistant"}});
    let mut synthetic = boolean_tool("q");
    synthetic["source"] = json!({"kind": "builtin", "hook": "assistant"});
    let t = run(json!({
        "tools": {"local": local, "synthetic": synthetic},
        "turns": [{"cycles": [[{"id": "c1", "tool": "local"}, {"id": "c2", "tool": "synthetic"}]]}],
        "prompter": [{"reply": "answer", "value": true}, {"reply": "answer", "value": true}]
    }));
    let sources: Vec<InquirySource> = requests(&t).iter().map(|r| r.source.clone()).collect();
    assert_eq!(
        sources,
        [InquirySource::tool("local"), InquirySource::Assistant]
    );
    // The label is display-only: it is shown, and nothing else.
    assert_eq!(
        t.prompts[0].presentation.label.as_deref(),
        Some("Assistant")
    );
}

/// Rule: LIFE-RECORD-FIRST — on every path the request is persisted before
/// any routing effect (prompt, backend call, or the tool's re-invocation).
#[test]
fn request_recorded_before_routing() {
    let mut c = coordinator_with(vec![("t", ToolSource::Local)]);
    let fx = ask_first(&mut c, "c1", Question::boolean("q", "Q?"));
    let request = fx
        .iter()
        .position(|e| matches!(e, Effect::Persist(ev) if ev.as_inquiry_request().is_some()));
    let prompt = fx.iter().position(|e| matches!(e, Effect::Prompt { .. }));
    assert!(
        matches!((request, prompt), (Some(r), Some(p)) if r < p),
        "{fx:?}"
    );
}

/// Rule: LIFE-NO-PRESEED — a static answer reaches the tool on its second
/// invocation, after the tool asked; pre-082 it was pre-seeded into the
/// first and never recorded.
#[test]
fn static_answer_on_second_invocation() {
    let mut tool = boolean_tool("q");
    tool["source"] = json!({"kind": "local"});
    tool["questions"] = json!({"q": {"answer": true}});
    let scenario = |profile: &str| {
        json!({
            "profile": profile,
            "tools": {"t": tool.clone()},
            "turns": [{"cycles": [[{"id": "c1", "tool": "t"}]]}]
        })
    };
    let t = run(scenario("rfd082"));
    assert_eq!(t.invocations.len(), 2);
    assert!(t.invocations[0].answers.is_empty());
    assert_eq!(t.invocations[1].answers.get("q"), Some(&json!(true)));
    assert_eq!(request_ids(&t), ["c1.q.1"]);

    let t = run(scenario("legacy"));
    assert_eq!(t.invocations.len(), 1);
    assert_eq!(t.invocations[0].answers.get("q"), Some(&json!(true)));
    assert!(requests(&t).is_empty());
}

/// Rule: LIFE-ACCUMULATED — a re-asked question's new answer overwrites the
/// old one in the map the tool sees; the stream keeps both attempts.
#[test]
fn latest_answer_wins() {
    let t = run(json!({
        "tools": {"t": {"run": "unattended", "program": {"kind": "script", "asks": [
            {"question": {"id": "x", "text": "X?", "answer_type": {"type": "text"}}, "reject_first": 1}
        ]}}},
        "turns": [{"cycles": [[{"id": "c1", "tool": "t"}]]}],
        "prompter": [{"reply": "answer", "value": "first"}, {"reply": "answer", "value": "second"}]
    }));
    assert_eq!(t.invocations[1].answers.get("x"), Some(&json!("first")));
    assert_eq!(t.invocations[2].answers.get("x"), Some(&json!("second")));
    assert_eq!(t.invocations[2].answers.len(), 1);
    assert_eq!(responses(&t).len(), 2);
}

/// Rule: LIFE-ID-THREADED — the ID exists only where a request was
/// recorded: a legacy writer records no prompter round trip (RFD 082
/// "Motivation": the gap it closes), so its prompt carries no ID and the
/// answer writes nothing; the same question under RFD 083 threads the ID of
/// the request it recorded. A prompt that carried an ID no event holds would
/// send the driver an ID the stream never names.
#[test]
fn a_prompt_carries_an_id_only_where_its_request_was_recorded() {
    for (profile, recorded) in [(ProfileName::Legacy, false), (ProfileName::Rfd083, true)] {
        let mut c = coordinator_under(profile, vec![("t", ToolSource::Local)]);
        let fx = ask_first(&mut c, "call_1", Question::boolean("confirm", "Q?"));
        let request = fx.iter().find_map(|e| match e {
            Effect::Persist(ev) => ev.as_inquiry_request().map(|r| r.id.clone()),
            _ => None,
        });
        assert_eq!(request.is_some(), recorded, "{profile}: request recorded");
        assert_eq!(prompt_id(&fx), request, "{profile}: the prompt's ID");
        let fx = c
            .handle(Input::PromptAnswered {
                call: 0,
                inquiry_id: request,
                answer: json!(true),
                remember: false,
            })
            .unwrap();
        let responses = fx
            .iter()
            .filter(|e| matches!(e, Effect::Persist(ev) if ev.as_inquiry_response().is_some()))
            .count();
        assert_eq!(
            responses,
            usize::from(recorded),
            "{profile}: responses written"
        );
    }
}

// Step-API helpers.

fn coordinator_with(tools: Vec<(&str, ToolSource)>) -> Coordinator {
    coordinator_under(ProfileName::Rfd083, tools)
}

/// Begins a turn and a cycle of one call `call_id` of tool `t`, whose first
/// invocation asks `question`; the effects of that ask.
fn ask_first(c: &mut Coordinator, call_id: &str, question: Question) -> Vec<Effect> {
    c.handle(Input::BeginTurn {
        content: "go".into(),
    })
    .unwrap();
    c.handle(Input::BeginCycle {
        calls: vec![call(call_id, "t")],
    })
    .unwrap();
    c.handle(returned(0, question, "t")).unwrap()
}

fn call(id: &str, tool: &str) -> Call {
    Call {
        id: id.into(),
        tool: tool.into(),
        arguments: json!({}),
    }
}

fn returned(call: usize, question: Question, tool: &str) -> Input {
    Input::ToolReturned {
        call,
        outcome: Outcome::NeedsInput {
            question: Arc::new(question),
        },
        source: InquirySource::tool(tool),
    }
}

fn prompt_id(fx: &[Effect]) -> Option<InquiryId> {
    fx.iter()
        .find_map(|e| match e {
            Effect::Prompt { inquiry_id, .. } => Some(inquiry_id.clone()),
            _ => None,
        })
        .expect("a prompt was shown")
}

/// Rule: LIFE-NON-ANSWER-RESPONSE — RFD 082 step 6 leaves the tool response
/// unchanged: Ctrl-C or EOF at the prompt gives a success with the pre-082
/// text `Tool input cancelled by user.` under every profile, while the
/// persisted response (where recorded) is `cancelled` (user); a failed
/// inquiry stays an error.
#[test]
fn a_cancelled_prompt_is_a_success_response_under_every_profile() {
    for profile in ProfileName::ALL {
        for reply in ["ctrl_c", "eof"] {
            let t = run(json!({
                "profile": profile.to_string(),
                "tools": {"t": boolean_tool("q")},
                "turns": [{"cycles": [[{"id": "c1", "tool": "t"}]]}],
                "prompter": [{"reply": reply}]
            }));
            let r = &t.tool_responses[0];
            assert!(!r.is_error, "{profile} {reply}: {r:?}");
            assert_eq!(
                r.content, "Tool input cancelled by user.",
                "{profile} {reply}"
            );
        }
        let t = run(json!({
            "profile": profile.to_string(),
            "tty": false,
            "tools": {"t": boolean_tool("q")},
            "turns": [{"cycles": [[{"id": "c1", "tool": "t"}]]}],
            "backend": [{"reply": "error", "error": "provider"}]
        }));
        assert!(t.tool_responses[0].is_error, "{profile}: backend failure");
    }
}

/// Rule: LIFE-SECRET-DEFAULT-VERBATIM — a secret question's `default` is a
/// display hint propagated to the persisted question verbatim, "regardless
/// of the answer type" (RFD 082 "Secret questions"); the answer is still
/// redacted and appears nowhere.
#[test]
fn secret_default_is_persisted_unchanged() {
    let t = run(json!({
        "tools": {"vault": {"source": {"kind": "local"}, "run": "unattended", "program": {"kind": "script", "asks": [
            {"question": {"id": "token", "text": "Token?", "answer_type": {"type": "secret"},
                "default": "placeholder-default"}}
        ]}}},
        "turns": [{"cycles": [[{"id": "c1", "tool": "vault"}]]}],
        "prompter": [{"reply": "answer", "value": "the-real-token-value"}]
    }));
    let r = requests(&t);
    assert_eq!(r[0].question.default, Some(json!("placeholder-default")));
    assert!(matches!(
        r[0].question.answer_type,
        crate::wire::InquiryAnswerType::Secret
    ));
    assert!(matches!(responses(&t)[0], InquiryResponse::Redacted { .. }));
    assert!(!stream_text(&t).contains("the-real-token-value"));
    assert!(stream_text(&t).contains("placeholder-default"));
}

fn local(stdout: Value) -> Value {
    json!({"run": "unattended", "program": {"kind": "local", "stdout": stdout}})
}

/// Rule: LIFE-LOCAL-STDOUT — a local tool's stdout line `{"type":"needs_input",…}`
/// is a question (recorded and routed like any other); a line that is not
/// an outcome is the tool's output verbatim (RFD 082 "Secret questions":
/// local tools declare questions "by the JSON emitted on stdout").
#[test]
fn local_tool_stdout_protocol() {
    let q = json!({"type": "needs_input", "question":
        {"id": "path", "text": "Which path?", "answer_type": {"type": "text"}}});
    let t = run(json!({
        "tools": {"sh": local(json!([q.to_string(), "wrote 3 files\n"]))},
        "turns": [{"cycles": [[{"id": "c1", "tool": "sh", "arguments": {"x": 1}}]]}],
        "prompter": [{"reply": "answer", "value": "/tmp/out"}]
    }));
    assert_eq!(requests(&t).len(), 1);
    assert_eq!(requests(&t)[0].source, InquirySource::tool("sh"));
    assert_eq!(t.tool_responses[0].content, "wrote 3 files\n");
    assert!(!t.tool_responses[0].is_error);
    // A malformed outcome object is not an outcome: it is raw output.
    let t = run(json!({
        "tools": {"sh": local(json!([r#"{"type":"needs_input"}"#]))},
        "turns": [{"cycles": [[{"id": "c1", "tool": "sh"}]]}]
    }));
    assert!(requests(&t).is_empty());
    assert_eq!(t.tool_responses[0].content, r#"{"type":"needs_input"}"#);
    // An error outcome is an error response.
    let t = run(json!({
        "tools": {"sh": local(json!([r#"{"type":"error","message":"boom"}"#]))},
        "turns": [{"cycles": [[{"id": "c1", "tool": "sh"}]]}]
    }));
    assert!(t.tool_responses[0].is_error);
    assert_eq!(t.tool_responses[0].content, "boom");
}

/// Rule: LIFE-LOCAL-CONTEXT — a local tool gets its accumulated answers in the
/// `tool.answers` JSON context of its next invocation (RFD 082 "Pre-seed
/// removal": `"tool": { "answers": answers, ... }`), a secret included (in
/// memory only; the stream carries `redacted`); the first invocation's
/// context has no answers, even with a static answer configured.
#[test]
fn local_tool_answers_in_the_context() {
    let q = json!({"type": "needs_input", "question":
        {"id": "pw", "text": "Password?", "answer_type": {"type": "secret"}}});
    let t = run(json!({
        "tools": {"sh": {"run": "unattended", "program": {"kind": "local", "stdout": [q.to_string(), "ok"]},
            "questions": {"pw": {"answer": "static-pw-value"}}}},
        "turns": [{"cycles": [[{"id": "c1", "tool": "sh", "arguments": {"a": true}}]]}]
    }));
    let ctx = |k: usize| t.invocations[k].context.clone().expect("a local context");
    assert_eq!(
        ctx(0),
        json!({"tool": {"name": "sh", "arguments": {"a": true}, "answers": {}}})
    );
    assert_eq!(ctx(1)["tool"]["answers"], json!({"pw": "static-pw-value"}));
    assert!(matches!(responses(&t)[0], InquiryResponse::Redacted { .. }));
    assert!(!stream_text(&t).contains("static-pw-value"));
}

fn one_boolean_call(rest: Value) -> Value {
    let mut v = json!({
        "tools": {"t": boolean_tool("q")},
        "turns": [{"cycles": [[{"id": "c1", "tool": "t"}], [{"id": "c2", "tool": "t"}]]}]
    });
    if let (Value::Object(m), Value::Object(r)) = (&mut v, rest) {
        m.extend(r);
    }
    v
}

/// Rule: LIFE-PROMPTER-FAILURE — a prompter failure other than Ctrl-C/EOF
/// (no terminal, terminal I/O, format) records `cancelled (user)` and the
/// model sees exactly what it sees after Ctrl-C (RFD 082 step 6: prompter
/// I/O errors "follow the same `User` path"; never `backend_error`).
#[test]
fn prompter_failures_record_user() {
    let ctrl_c = run(one_boolean_call(json!({
        "prompter": [{"reply": "ctrl_c"}, {"reply": "ctrl_c"}]
    })));
    for failure in ["no_terminal", "io", "format"] {
        let reply = json!({"reply": "failure", "failure": failure});
        let t = run(one_boolean_call(
            json!({"prompter": [reply.clone(), reply]}),
        ));
        assert_eq!(
            cancel_reasons(&t),
            [CancellationReason::User, CancellationReason::User],
            "{failure}"
        );
        assert_eq!(t.tool_responses, ctrl_c.tool_responses, "{failure}");
        assert_paired(&t);
    }
}

/// Rule: LIFE-TOKEN-CAUSE — every cause of the cancellation token (restart,
/// tool cancel, hard quit, aborted turn) records `cancelled (user)` for the
/// in-flight inquiry (RFD 082 step 6). Beyond it: a tool cancel ends the
/// call as any cancelled inquiry and the turn goes on; a restart re-runs the
/// tool in the same call (next attempt); an aborted turn runs no further
/// cycle but closes the turn; a hard quit writes the response and nothing
/// after it.
#[test]
fn token_causes_record_user_and_persist_by_cause() {
    let with = |cause: &str| {
        run(one_boolean_call(json!({
            "tty": false,
            "backend": [{"reply": "cancelled", "cause": cause}, {"reply": "answer", "value": true}]
        })))
    };
    let kinds_of = |t: &crate::scenario::Trace| -> Vec<String> {
        kinds(t).into_iter().map(str::to_owned).collect()
    };
    let cancel = with("tool_cancel");
    assert_eq!(cancel_reasons(&cancel), [CancellationReason::User]);
    assert_eq!(request_ids(&cancel), ["c1.q.1", "c2.q.1"]);
    assert_eq!(cancel.backend_calls.len(), 2, "the turn went on");
    assert_eq!(kinds(&cancel).last(), Some(&"chat_response"));
    assert_paired(&cancel);

    // A restart re-runs the tool in the same call: its question is asked
    // again as attempt 2 and answered; the call gets one response.
    let restart = with("restart");
    assert_eq!(
        request_ids(&restart),
        ["c1.q.1", "c1.q.2", "c2.q.1"],
        "re-run in the same call"
    );
    assert!(matches!(
        responses(&restart)[0],
        InquiryResponse::Cancelled {
            reason: CancellationReason::User,
            ..
        }
    ));
    assert!(matches!(
        responses(&restart)[1],
        InquiryResponse::Answered { .. }
    ));
    let c1: Vec<_> = restart
        .tool_responses
        .iter()
        .filter(|r| r.tool_call_id == "c1")
        .collect();
    assert_eq!(c1.len(), 1);
    assert!(!c1[0].is_error);
    assert!(
        restart.invocations[1].answers.is_empty(),
        "the re-run starts from scratch"
    );
    assert_paired(&restart);
    let aborted = with("aborted_turn");
    assert_eq!(cancel_reasons(&aborted), [CancellationReason::User]);
    assert_eq!(aborted.backend_calls.len(), 1, "no second cycle");
    assert_eq!(
        kinds_of(&aborted)
            .iter()
            .filter(|k| *k == "tool_call_request")
            .count(),
        1
    );
    assert_eq!(kinds(&aborted).last(), Some(&"chat_response"));
    assert_paired(&aborted);

    let quit = with("hard_quit");
    assert_eq!(cancel_reasons(&quit), [CancellationReason::User]);
    assert_eq!(
        kinds_of(&quit),
        [
            "turn_start",
            "chat_request",
            "tool_call_request",
            "inquiry_request",
            "inquiry_response"
        ]
    );
    // What a hard quit leaves: the inquiry is closed, the tool call is not.
    // The model's invariants hold (the open call is the quit's, not the
    // lifecycle's); the oracle reports exactly that call (CHECK-TOOL-PAIRED),
    // and sanitize repairs it into a stream the oracle finds clean (RFD 082
    // Phase 3, "eat our own output").
    assert!(quit.interrupted);
    let s = scenario(one_boolean_call(json!({
        "tty": false, "backend": [{"reply": "cancelled", "cause": "hard_quit"}]
    })));
    assert_eq!(crate::invariants::check_trace(&quit, &s), []);
    let bytes = serde_json::to_vec(&quit.persisted_json()).unwrap();
    let checked = crate::check::check_bytes(&bytes, "quit", Default::default());
    let found: Vec<_> = checked
        .diagnostics
        .iter()
        .map(|d| (d.rule.id(), d.event_index))
        .collect();
    assert_eq!(found, [("CHECK-TOOL-PAIRED", 2)]);
    let events = crate::wire::Stream::from_slice(&bytes, "quit")
        .unwrap()
        .events;
    let repaired = crate::stream::sanitize(events).events;
    let mut out = Vec::new();
    crate::wire::Stream::new(repaired)
        .write_array(&mut out)
        .unwrap();
    let checked = crate::check::check_bytes(&out, "repaired", Default::default());
    assert!(checked.diagnostics.is_empty(), "{:?}", checked.diagnostics);
}
