//! RFD 083 Phase 1 tests and the `ask_user` scenarios of Phase 2, run
//! through the state machine.

use super::spec_common_tests as common;

use crate::wire::{CancellationReason, InquiryResponse, InquirySource};
use common::*;
use serde_json::{Value, json};

const NO_TTY_MESSAGE: &str = "ask_user cannot run because no interactive terminal is available. \
     Do not retry this tool call in this turn; continue without user input or explain what \
     information is missing.";
const ASSISTANT_MESSAGE: &str = "ask_user requires a human answer and cannot be routed to the assistant. Do not retry this tool call in this turn.";

fn ask_user_call(args: Value) -> Value {
    json!({"id": "call_1", "tool": "ask_user", "arguments": args})
}

fn ask_user_scenario(tty: bool, questions: Value, args: Value) -> Value {
    json!({
        "tty": tty,
        "tools": {"ask_user": {"program": {"kind": "ask_user"}, "questions": questions}},
        "turns": [{"cycles": [[ask_user_call(args)]]}],
        "backend": [{"reply": "answer", "value": true}]
    })
}

fn exclusive_tool(questions: Value) -> Value {
    json!({"run": "unattended", "program": {"kind": "script", "asks": [
        {"question": {"id": "go", "text": "Go?", "answer_type": {"type": "boolean"}, "exclusive": true}}
    ]}, "questions": questions})
}

/// Rule: LIFE-GUARD-EXCLUSIVE — `target = "user"`, no TTY, `exclusive`: the
/// tool fails with RFD 083's exact message and `no_prompt_backend` is
/// recorded; the backend is not called.
#[test]
fn exclusive_no_tty_fails_the_tool() {
    let t = run(json!({
        "tty": false,
        "tools": {"dangerous": exclusive_tool(json!({}))},
        "turns": [{"cycles": [[{"id": "c1", "tool": "dangerous"}]]}],
        "backend": [{"reply": "answer", "value": true}]
    }));
    assert_eq!(cancel_reasons(&t), [CancellationReason::NoPromptBackend]);
    assert!(t.backend_calls.is_empty());
    assert_eq!(
        t.tool_responses[0].content,
        "dangerous cannot run because no interactive terminal is available. Do not retry this \
         tool call in this turn; continue without user input or explain what information is missing."
    );
    assert!(t.tool_responses[0].is_error);
}

/// Rule: LIFE-GUARD-EXCLUSIVE — `target = "assistant"` and `exclusive`: the
/// tool fails with RFD 083's exact message, `assistant_routing_denied` is
/// recorded, whatever the TTY.
#[test]
fn exclusive_assistant_target_fails_the_tool() {
    for tty in [true, false] {
        let t = run(json!({
            "tty": tty,
            "tools": {"dangerous": exclusive_tool(json!({"go": {"target": "assistant"}}))},
            "turns": [{"cycles": [[{"id": "c1", "tool": "dangerous"}]]}]
        }));
        assert_eq!(
            cancel_reasons(&t),
            [CancellationReason::AssistantRoutingDenied],
            "tty={tty}"
        );
        assert_eq!(
            t.tool_responses[0].content,
            "dangerous requires a human answer and cannot be routed to the assistant. Do not retry this tool call in this turn."
        );
        assert!(t.backend_calls.is_empty() && t.prompts.is_empty());
    }
}

/// Rule: LIFE-GUARD-EXCLUSIVE — `exclusive` is an RFD 083 field: under
/// `rfd082` the same question goes to the backend without a TTY.
#[test]
fn exclusive_is_ignored_before_rfd083() {
    let t = run(json!({
        "profile": "rfd082",
        "tty": false,
        "tools": {"dangerous": exclusive_tool(json!({}))},
        "turns": [{"cycles": [[{"id": "c1", "tool": "dangerous"}]]}],
        "backend": [{"reply": "answer", "value": true}]
    }));
    assert_eq!(t.backend_calls.len(), 1);
    assert!(matches!(
        responses(&t)[..],
        [InquiryResponse::Answered { .. }]
    ));
}

/// Rule: LIFE-STATIC-VALIDATED — a type-mismatched static answer fails the
/// tool with the source-aware message naming the configuration key and
/// records `invalid_static_answer`.
#[test]
fn invalid_static_answer_is_refused_and_recorded() {
    let t = run(json!({
        "tools": {"fs": {"run": "unattended", "program": {"kind": "script", "asks": [
            {"question": {"id": "apply", "text": "Apply?", "answer_type": {"type": "boolean"}}}
        ]}, "questions": {"apply": {"answer": "yes"}}}},
        "turns": [{"cycles": [[{"id": "c1", "tool": "fs"}]]}]
    }));
    assert_eq!(
        cancel_reasons(&t),
        [CancellationReason::InvalidStaticAnswer]
    );
    assert_eq!(
        t.tool_responses[0].content,
        "fs: the configured conversation.tools.fs.questions.apply.answer value does not match the \
         question's answer_type. Update the configuration; do not retry."
    );
    // A select answer outside the options is refused the same way.
    let t = run(json!({
        "tools": {"pick": {"run": "unattended", "program": {"kind": "script", "asks": [
            {"question": {"id": "which", "text": "Which?", "answer_type": {"type": "select", "options": ["a", "b"]}}}
        ]}, "questions": {"which": {"answer": "c"}}}},
        "turns": [{"cycles": [[{"id": "c1", "tool": "pick"}]]}]
    }));
    assert_eq!(
        cancel_reasons(&t),
        [CancellationReason::InvalidStaticAnswer]
    );
    // Under rfd082 the same answer is used as is.
    let t = run(json!({
        "profile": "rfd082",
        "tools": {"fs": {"run": "unattended", "program": {"kind": "script", "asks": [
            {"question": {"id": "apply", "text": "Apply?", "answer_type": {"type": "boolean"}}}
        ]}, "questions": {"apply": {"answer": "yes"}}}},
        "turns": [{"cycles": [[{"id": "c1", "tool": "fs"}]]}]
    }));
    assert!(cancel_reasons(&t).is_empty());
    assert_eq!(t.invocations[1].answers.get("apply"), Some(&json!("yes")));
}

/// Rule: LIFE-CACHE-ELIGIBLE — `persistence: none` bypasses the cache on the
/// read side and the write side under rfd083: the user is asked each time,
/// is never offered "remember", and nothing is remembered.
#[test]
fn persistence_none_bypasses_the_cache() {
    let scenario = |profile: &str| {
        scenario(json!({
            "profile": profile,
            "tools": {"git": {"run": "unattended", "program": {"kind": "script", "asks": [
                {"question": {"id": "force", "text": "Force push?", "answer_type": {"type": "boolean"}, "persistence": "none"}}
            ]}}},
            "turns": [{"cycles": [[{"id": "c1", "tool": "git"}], [{"id": "c2", "tool": "git"}]]}],
            "prompter": [
                {"reply": "answer", "value": true, "remember": true},
                {"reply": "answer", "value": false, "remember": true}
            ]
        }))
    };
    let mut remembered = 0;
    let t = crate::scenario::run_observed(&scenario("rfd083"), Default::default(), &mut |c, _| {
        if let Some(ts) = c.turn_state() {
            remembered = remembered.max(ts.cache.tool_answers().len());
        }
    })
    .unwrap();
    assert_eq!(t.prompts.len(), 2);
    assert_eq!(remembered, 0);
    assert!(
        t.prompts
            .iter()
            .all(|p| !p.presentation.remember_affordance)
    );
    // RFD 082 alone has no persistence field: the answer is remembered.
    let t = crate::scenario::run(&scenario("rfd082")).unwrap();
    assert_eq!(t.prompts.len(), 1);
    assert!(t.prompts[0].presentation.remember_affordance);
}

/// Rule: LIFE-STATIC — `exclusive` does not block a configured static answer.
#[test]
fn exclusive_does_not_block_a_static_answer() {
    let t = run(json!({
        "tty": false,
        "tools": {"dangerous": exclusive_tool(json!({"go": {"answer": true}}))},
        "turns": [{"cycles": [[{"id": "c1", "tool": "dangerous"}]]}]
    }));
    assert!(matches!(
        responses(&t)[..],
        [InquiryResponse::Answered { .. }]
    ));
    assert!(!t.tool_responses[0].is_error);
}

/// Rule: ASK-NO-TTY — `ask_user` without a TTY fails with RFD 083's exact
/// message and records `Cancelled { reason: no_prompt_backend }`.
#[test]
fn ask_user_without_tty_records_no_prompt_backend() {
    let t = run(ask_user_scenario(
        false,
        json!({}),
        json!({"question": "Proceed?", "answer_type": "boolean"}),
    ));
    assert_eq!(cancel_reasons(&t), [CancellationReason::NoPromptBackend]);
    assert_eq!(t.tool_responses[0].content, NO_TTY_MESSAGE);
    assert!(t.backend_calls.is_empty());
    assert_eq!(requests(&t)[0].source, InquirySource::Assistant);
    assert_paired(&t);
}

/// Rule: ASK-ASSISTANT-TARGET — `ask_user` with `target = "assistant"` fails
/// and records `assistant_routing_denied`.
#[test]
fn ask_user_assistant_target_records_assistant_routing_denied() {
    let t = run(ask_user_scenario(
        true,
        json!({"answer": {"target": "assistant"}}),
        json!({"question": "Proceed?", "answer_type": "boolean"}),
    ));
    assert_eq!(
        cancel_reasons(&t),
        [CancellationReason::AssistantRoutingDenied]
    );
    assert_eq!(t.tool_responses[0].content, ASSISTANT_MESSAGE);
    assert!(t.prompts.is_empty() && t.backend_calls.is_empty());
}

/// Rule: ASK-STATIC — a static answer of the wrong type records
/// `invalid_static_answer` and names the configuration key; a valid one is
/// used without a prompt and reaches the model as the typed success body.
#[test]
fn ask_user_static_answers() {
    let t = run(ask_user_scenario(
        true,
        json!({"answer": {"answer": "not a boolean"}}),
        json!({"question": "Proceed?", "answer_type": "boolean"}),
    ));
    assert_eq!(
        cancel_reasons(&t),
        [CancellationReason::InvalidStaticAnswer]
    );
    assert!(
        t.tool_responses[0]
            .content
            .contains("conversation.tools.ask_user.questions.answer.answer")
    );

    let t = run(ask_user_scenario(
        false,
        json!({"answer": {"answer": true}}),
        json!({"question": "Proceed?", "answer_type": "boolean"}),
    ));
    assert!(t.prompts.is_empty());
    assert!(matches!(
        responses(&t)[..],
        [InquiryResponse::Answered {
            answer: Value::Bool(true),
            ..
        }]
    ));
    assert_eq!(
        t.tool_responses[0].content,
        r#"{"answer_type":"boolean","answer":true}"#
    );
    assert!(!t.tool_responses[0].is_error);
}

/// Rule: ASK-PROMPT — at the prompter, `ask_user`'s question carries the
/// registered "Assistant" label, offers no "remember" (persistence none),
/// and is recorded with assistant provenance and RFD 083's fields.
#[test]
fn ask_user_at_the_prompter() {
    let t = run(json!({
        "tools": {"ask_user": {"program": {"kind": "ask_user"}}},
        "turns": [{"cycles": [[ask_user_call(json!({
            "question": "Which approach?", "context": "Two options exist.",
            "answer_type": "select", "options": ["backup", "overwrite"]
        }))], [ask_user_call(json!({"question": "Sure?", "answer_type": "boolean"}))]]}],
        "prompter": [
            {"reply": "answer", "value": "backup"},
            {"reply": "answer", "value": true, "remember": true}
        ]
    }));
    assert_eq!(t.prompts.len(), 2);
    let p = &t.prompts[0].presentation;
    assert_eq!(p.label.as_deref(), Some("Assistant"));
    assert_eq!(p.context.as_deref(), Some("Two options exist."));
    assert!(!t.prompts[1].presentation.remember_affordance);
    let r = requests(&t);
    assert_eq!(r[0].source, InquirySource::Assistant);
    assert!(r[0].question.exclusive);
    assert_eq!(r[0].question.context.as_deref(), Some("Two options exist."));
    assert_eq!(
        t.tool_responses[0].content,
        r#"{"answer_type":"select","answer":"backup"}"#
    );
    assert_eq!(request_ids(&t), ["call_1.answer.1", "call_1.answer.2"]);
}

/// Rule: CONFIG-BUILTIN-ALIAS-NOT-FOUND — the built-in executor is found by
/// the config key (RFD 083 "Built-in aliasing"): `ask_user`'s program under
/// the key `ask` has no executor, so the call fails (`NotFound`, an error
/// response), nothing is recorded or prompted, and no `assistant` source is
/// ever written; under its own key the same program records `assistant`.
#[test]
fn an_aliased_builtin_is_not_found() {
    let scenario = |key: &str| {
        json!({
            "tools": {key: {"run": "unattended", "program": {"kind": "ask_user"}}},
            "turns": [{"cycles": [[{"id": "call_1", "tool": key,
                "arguments": {"question": "Proceed?", "answer_type": "boolean"}}]]}],
            "prompter": [{"reply": "answer", "value": true}]
        })
    };
    let alias = run(scenario("ask"));
    assert!(requests(&alias).is_empty(), "an alias records no inquiry");
    assert!(alias.prompts.is_empty());
    assert_eq!(alias.tool_responses.len(), 1);
    assert!(alias.tool_responses[0].is_error, "NotFound is an error");
    assert!(!stream_text(&alias).contains("\"assistant\""));

    let own = run(scenario("ask_user"));
    assert_eq!(requests(&own)[0].source, InquirySource::Assistant);
    assert!(!own.tool_responses[0].is_error);
}

/// Rule: LIFE-PROVENANCE-LEGACY — before RFD 082 the recording site wrote
/// the tool's name whatever its kind (RFD 082 "Motivation"); Phase 1's hook
/// changes it only for a built-in that overrides it. A synthetic built-in
/// with the `Assistant` hook, routed to the backend (the only path recorded
/// pre-082), records `tool{name}` under `legacy` and `assistant` under
/// `rfd082`, and `diff-profiles` reports the change as `provenance_source`.
#[test]
fn legacy_provenance_is_the_tool_name() {
    let v = |profile: &str| {
        json!({
            "profile": profile,
            "tty": false,
            "tools": {
                "synthetic": {"source": {"kind": "builtin", "hook": "assistant"},
                    "run": "unattended", "program": {"kind": "script", "asks": [
                        {"question": {"id": "q", "text": "Q?", "answer_type": {"type": "boolean"}}}]}},
                "plain": {"source": {"kind": "builtin"},
                    "run": "unattended", "program": {"kind": "script", "asks": [
                        {"question": {"id": "q", "text": "Q?", "answer_type": {"type": "boolean"}}}]}}
            },
            "turns": [{"cycles": [[{"id": "c1", "tool": "synthetic"}, {"id": "c2", "tool": "plain"}]]}],
            "backend": [{"reply": "answer", "value": true}, {"reply": "answer", "value": true}]
        })
    };
    let sources = |t: &crate::scenario::Trace| -> Vec<InquirySource> {
        requests(t).iter().map(|r| r.source.clone()).collect()
    };
    let legacy = run(v("legacy"));
    assert_eq!(
        sources(&legacy),
        [
            InquirySource::tool("synthetic"),
            InquirySource::tool("plain")
        ]
    );
    let rfd082 = run(v("rfd082"));
    assert_eq!(
        sources(&rfd082),
        [InquirySource::Assistant, InquirySource::tool("plain")]
    );
    let report = crate::review::amend::diff_profiles(
        crate::profile::ProfileName::Legacy,
        crate::profile::ProfileName::Rfd082,
        &[scenario(v("legacy"))],
    );
    let classes: Vec<&str> = report.classes.iter().map(|c| c.class.as_str()).collect();
    assert!(classes.contains(&"provenance_source"), "{classes:?}");
}

fn needs(question: Value) -> String {
    json!({"type": "needs_input", "question": question}).to_string()
}

/// A local tool asking `t.q` as a remembered-able boolean in its first call
/// and as `persistence: none` in its second.
fn remembered_then_once() -> Value {
    let q = json!({"id": "q", "text": "Q?", "answer_type": {"type": "boolean"}});
    let mut once = q.clone();
    once["persistence"] = json!("none");
    json!({
        "tools": {"t": {"run": "unattended", "program": {"kind": "local", "stdout": [needs(q), "done", needs(once), "done again"]}}},
        "turns": [{"cycles": [[{"id": "c1", "tool": "t"}], [{"id": "c2", "tool": "t"}]]}],
        "prompter": [{"reply": "answer", "value": true, "remember": true}, {"reply": "answer", "value": false}]
    })
}

/// Rule: LIFE-CACHE-READ-GATED — `persistence: none` skips the cache *read*
/// (RFD 083 step 6, "the same predicate" on both sides): with `t.q`
/// remembered as `true`, asking `q` again with `persistence: none` prompts,
/// and the tool gets the new answer. With the gate ignored (a fault) the
/// cache answers instead: the check fails on a wrong model.
#[test]
fn persistence_none_skips_the_cache_read() {
    let t = run(remembered_then_once());
    assert_eq!(t.prompts.len(), 2, "asked again although t.q is remembered");
    assert_eq!(t.remembered[0].tool_answers, ["t.q"]);
    assert_eq!(t.invocations[3].answers.get("q"), Some(&json!(false)));
    assert!(
        !t.resolutions
            .iter()
            .any(|r| r.route == crate::model::coordinator::RouteTaken::Cached)
    );

    let faulty = crate::scenario::run_with(
        &scenario(remembered_then_once()),
        crate::scenario::RunOptions::from(crate::testkit::Faults {
            ignore_persistence_gate: true,
            ..Default::default()
        }),
    )
    .unwrap();
    assert_eq!(faulty.prompts.len(), 1, "the fault lets the cache answer");
}

/// Rule: CONFIG-ENABLE-LIFECYCLE — `enable`, `allow_toggle` and the `-t`/`-T`
/// flags decide which tools the coordinator offers (RFD 083 "Tool
/// configuration", "Drawbacks"): bare `-T` turns a plain tool off and leaves
/// `ask_user` (`if_named`) asking; `-T -T ask_user` turns both off; a
/// pre-081 `"explicit"` tool is off, stays off under bare `-t`, and runs
/// when named. A call to a tool that is off fails and records nothing.
#[test]
fn enable_and_toggles_drive_the_lifecycle() {
    let v = |toggles: Value| {
        json!({
            "toggles": toggles,
            "tools": {
                "fs": {"source": {"kind": "local"}, "run": "unattended", "program": {"kind": "script", "asks": [
                    {"question": {"id": "q", "text": "Q?", "answer_type": {"type": "boolean"}}}]}},
                "git": {"source": {"kind": "local"}, "enable": "explicit",
                    "run": "unattended", "program": {"kind": "script"}},
                "ask_user": {"program": {"kind": "ask_user"}}
            },
            "turns": [{"cycles": [[
                {"id": "c1", "tool": "fs"},
                {"id": "c2", "tool": "git"},
                {"id": "c3", "tool": "ask_user", "arguments": {"question": "Go?", "answer_type": "boolean"}}
            ]]}],
            "prompter": [{"reply": "answer", "value": true}, {"reply": "answer", "value": true}]
        })
    };
    // Which of fs, git, ask_user ran (responded without an error).
    let ran = |toggles: Value| -> Vec<bool> {
        let t = run(v(toggles));
        ["c1", "c2", "c3"]
            .iter()
            .map(|id| {
                t.tool_responses
                    .iter()
                    .find(|r| r.tool_call_id == *id)
                    .is_some_and(|r| !r.is_error)
            })
            .collect()
    };
    assert_eq!(ran(json!([])), [true, false, true]);
    assert_eq!(ran(json!(["-T"])), [false, false, true]);
    assert_eq!(ran(json!(["-T", "-T ask_user"])), [false, false, false]);
    assert_eq!(ran(json!(["-t"])), [true, false, true]);
    assert_eq!(ran(json!(["-t git"])), [true, true, true]);
    let off = run(v(json!(["-T", "-T ask_user"])));
    assert!(requests(&off).is_empty() && off.prompts.is_empty());
    // A toggle naming no tool is a clear error, not a silent no-op.
    let err = crate::scenario::run(&scenario(v(json!(["-T nope"])))).unwrap_err();
    assert_eq!(err.to_string(), "no tool named `nope` is configured");
    assert!(
        err.is_unacceptable(),
        "a bad toggle is the scenario's fault"
    );
}

/// Rule: CONFIG-SCENARIO-LAYER — a scenario's tools are the user's layer
/// over the built-ins, resolved by the configuration code (RFD 083 Phase 1
/// step 3: built-in defaults "merge *under* any user config"): a tool that
/// sets no `run` asks permission (spec/DECISIONS.md "Configuration: an
/// unset `run` asks"); `ask_user` with only its `prompt_label` overridden
/// keeps the built-in's `run: Unattended` (no permission prompt) and shows
/// the user's label; `run = "ask"` on `ask_user` overrides the built-in.
#[test]
fn scenario_tools_are_a_user_layer_over_the_builtins() {
    let v = |ask_user: Value| {
        json!({
            "tools": {
                "fs": {"source": {"kind": "local"}, "program": {"kind": "script"}},
                "ask_user": ask_user
            },
            "turns": [{"cycles": [[
                {"id": "c1", "tool": "fs"},
                {"id": "c2", "tool": "ask_user", "arguments": {"question": "Go?", "answer_type": "boolean"}}
            ]]}],
            "prompter": [{"reply": "answer", "value": true}],
            "permissions": [{"reply": "allow"}, {"reply": "allow"}]
        })
    };
    let asked = |t: &crate::scenario::Trace| -> Vec<String> {
        t.permission_prompts
            .iter()
            .map(|p| p.tool_call_id.clone())
            .collect()
    };
    let labelled = run(v(json!({
        "program": {"kind": "ask_user"},
        "questions": {"answer": {"prompt_label": "Helper"}}
    })));
    assert_eq!(
        asked(&labelled),
        ["c1"],
        "unset `run` asks; ask_user's stays unattended"
    );
    assert_eq!(labelled.prompts.len(), 1);
    assert_eq!(
        labelled.prompts[0].presentation.label.as_deref(),
        Some("Helper"),
        "the user's label wins over the built-in's"
    );
    let plain = run(v(json!({"program": {"kind": "ask_user"}})));
    assert_eq!(
        plain.prompts[0].presentation.label.as_deref(),
        Some("Assistant"),
        "the built-in's label, from its registration"
    );
    let ask = run(v(json!({"program": {"kind": "ask_user"}, "run": "ask"})));
    assert_eq!(
        asked(&ask),
        ["c1", "c2"],
        "the user's `run` wins over the built-in's"
    );
}
