//! The curated conformance vectors: at least one per routing path, guard and
//! cancellation reason, per RFD stage where they differ. Each names the rules
//! it exercises; `spec/vectors/` holds them as files (`inquiry-model vectors`).

use serde_json::{Value, json};

use super::{Vector, vector};
use crate::scenario::Scenario;

/// A local tool run unattended whose script asks `asks`.
pub(super) fn tool(asks: Value) -> Value {
    json!({"source": {"kind": "local"}, "run": "unattended", "program": {"kind": "script", "asks": asks}})
}

fn ask(id: &str, answer_type: Value) -> Value {
    json!({"question": {"id": id, "text": format!("Question {id}?"), "answer_type": answer_type}})
}

/// A script's boolean question `id`.
pub(super) fn boolean(id: &str) -> Value {
    ask(id, json!({"type": "boolean"}))
}

/// `base` with the members of `extra` added or replaced.
pub(super) fn with(mut base: Value, extra: Value) -> Value {
    if let (Value::Object(b), Value::Object(e)) = (&mut base, extra) {
        b.extend(e);
    }
    base
}

fn one_call(profile: &str, tool_value: Value, rest: Value) -> Value {
    with(
        json!({
            "profile": profile,
            "tools": {"fs": tool_value},
            "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "fs"}]]}]
        }),
        rest,
    )
}

/// A local tool's `needs_input` stdout line.
fn needs(question: Value) -> String {
    json!({"type": "needs_input", "question": question}).to_string()
}

fn scenario(v: Value) -> Result<Scenario, String> {
    serde_json::from_value(v).map_err(|e| e.to_string())
}

/// The curated vectors, in a stable order.
pub fn curated() -> Result<Vec<Vector>, String> {
    let secret = ask("passphrase", json!({"type": "secret"}));
    let exclusive = json!({"question": {"id": "drop", "text": "Drop the table?", "answer_type": {"type": "boolean"}, "exclusive": true}});
    let once = json!({"question": {"id": "force", "text": "Force push?", "answer_type": {"type": "boolean"}, "persistence": "none"}});
    let answer_true = json!({"prompter": [{"reply": "answer", "value": true}]});
    let cases: Vec<(&str, &str, &[&str], Value)> = vec![
        (
            "route-prompter",
            "A boolean answered at the prompter is recorded as a pair.",
            &["LIFE-RECORD-ALL", "LIFE-ROUTE", "LIFE-ID-FORMAT"],
            one_call(
                "rfd083",
                tool(json!([boolean("confirm")])),
                answer_true.clone(),
            ),
        ),
        (
            "route-cached",
            "A boolean remembered with Y answers the same question of a later call without a prompt; both round-trips are recorded.",
            &[
                "LIFE-CACHE-WRITE",
                "LIFE-RECORD-ALL",
                "LIFE-RESOLUTION-ORDER",
            ],
            json!({"tools": {"fs": tool(json!([boolean("confirm")]))},
                "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "fs"}], [{"id": "call_2", "tool": "fs"}]]}],
                "prompter": [{"reply": "answer", "value": true, "remember": true}]}),
        ),
        (
            "route-cached-parallel",
            "A boolean remembered with Y by one call answers the same question of a parallel call of its cycle routed after it, without a prompt.",
            &[
                "LIFE-CACHE-WRITE",
                "LIFE-RECORD-ALL",
                "LIFE-RESOLUTION-ORDER",
            ],
            json!({"tools": {"fs": tool(json!([boolean("confirm")]))},
                "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "fs"}, {"id": "call_2", "tool": "fs"}]]}],
                "prompter": [{"reply": "answer", "value": true, "remember": true}],
                "schedule": [0, 1]}),
        ),
        (
            "route-static",
            "A configured static answer is recorded and reaches the tool on its second invocation.",
            &["LIFE-STATIC", "LIFE-NO-PRESEED"],
            one_call(
                "rfd083",
                with(
                    tool(json!([boolean("confirm")])),
                    json!({"questions": {"confirm": {"answer": true}}}),
                ),
                json!({}),
            ),
        ),
        (
            "route-backend-no-tty",
            "Without a TTY a user-targeted question goes to the inquiry backend.",
            &["LIFE-ROUTE", "LIFE-BACKEND-SCHEMA"],
            one_call(
                "rfd083",
                tool(json!([boolean("confirm")])),
                json!({"tty": false, "backend": [{"reply": "answer", "value": true}]}),
            ),
        ),
        (
            "route-backend-assistant-target",
            "target = assistant routes to the inquiry backend even with a TTY.",
            &["LIFE-ROUTE"],
            one_call(
                "rfd083",
                with(
                    tool(json!([boolean("confirm")])),
                    json!({"questions": {"confirm": {"target": "assistant"}}}),
                ),
                json!({"backend": [{"reply": "answer", "value": false}]}),
            ),
        ),
        (
            "secret-prompter-redacted",
            "A secret answered at the prompter is recorded redacted; the tool gets it in memory.",
            &["LIFE-SECRET-REDACTED"],
            one_call(
                "rfd083",
                tool(json!([secret.clone()])),
                json!({"prompter": [{"reply": "answer", "value": "correct-horse-battery"}]}),
            ),
        ),
        (
            "secret-never-remembered",
            "A secret answered with remember is not remembered: the next call of the same tool is prompted again.",
            &["LIFE-CACHE-ELIGIBLE", "LIFE-SECRET-REDACTED"],
            json!({"tools": {"ssh": tool(json!([secret.clone()]))},
                "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "ssh"}], [{"id": "call_2", "tool": "ssh"}]]}],
                "prompter": [{"reply": "answer", "value": "one", "remember": true}, {"reply": "answer", "value": "two", "remember": true}]}),
        ),
        (
            "tool-error-passes-through",
            "A tool's own error (transient or not) reaches the LLM as an error response after its answered question.",
            &["LIFE-RECORD-ALL"],
            one_call(
                "rfd083",
                with(
                    tool(json!([boolean("confirm")])),
                    json!({"run": "unattended", "program": {"kind": "script", "asks": [boolean("confirm")], "finish": {"with": "fail", "transient": true}}}),
                ),
                answer_true.clone(),
            ),
        ),
        (
            "permission-denied",
            "A denied permission prompt answers the call without running the tool (kind permission_denied; its is_error is not compared, no RFD here fixes it) and nothing is remembered.",
            &["LIFE-CACHE-SPLIT"],
            one_call(
                "rfd083",
                with(tool(json!([boolean("confirm")])), json!({"run": "ask"})),
                json!({"permissions": [{"reply": "deny"}]}),
            ),
        ),
        (
            "secret-static-redacted",
            "A static answer to a secret question is recorded redacted.",
            &["LIFE-SECRET-REDACTED", "LIFE-STATIC"],
            one_call(
                "rfd083",
                with(
                    tool(json!([secret.clone()])),
                    json!({"questions": {"passphrase": {"answer": "static-passphrase"}}}),
                ),
                json!({}),
            ),
        ),
        (
            "guard-secret-no-tty",
            "A secret without a TTY fails the tool: no_prompt_backend.",
            &["LIFE-GUARD-SECRET", "LIFE-CANCEL-REASON"],
            one_call(
                "rfd082",
                tool(json!([secret.clone()])),
                json!({"tty": false}),
            ),
        ),
        (
            "guard-secret-assistant-target",
            "A secret targeted at the assistant fails the tool: assistant_routing_denied.",
            &["LIFE-GUARD-SECRET", "LIFE-CANCEL-REASON"],
            one_call(
                "rfd082",
                with(
                    tool(json!([secret.clone()])),
                    json!({"questions": {"passphrase": {"target": "assistant"}}}),
                ),
                json!({}),
            ),
        ),
        (
            "guard-exclusive-no-tty",
            "An exclusive question without a TTY fails the tool with RFD 083's message: no_prompt_backend.",
            &["LIFE-GUARD-EXCLUSIVE", "LIFE-GUARD-MESSAGES"],
            one_call(
                "rfd083",
                tool(json!([exclusive.clone()])),
                json!({"tty": false}),
            ),
        ),
        (
            "guard-exclusive-assistant-target",
            "An exclusive question targeted at the assistant fails the tool: assistant_routing_denied.",
            &["LIFE-GUARD-EXCLUSIVE", "LIFE-GUARD-MESSAGES"],
            one_call(
                "rfd083",
                with(
                    tool(json!([exclusive.clone()])),
                    json!({"questions": {"drop": {"target": "assistant"}}}),
                ),
                json!({}),
            ),
        ),
        (
            "exclusive-ignored-rfd082",
            "Under RFD 082 alone, exclusive is unknown: the question goes to the backend.",
            &["LIFE-GUARD-EXCLUSIVE"],
            one_call(
                "rfd082",
                tool(json!([exclusive.clone()])),
                json!({"tty": false, "backend": [{"reply": "answer", "value": true}]}),
            ),
        ),
        (
            "reason-user-ctrl-c",
            "Ctrl-C at the prompter records cancelled (user).",
            &["LIFE-CANCEL-REASON"],
            one_call(
                "rfd083",
                tool(json!([boolean("confirm")])),
                json!({"prompter": [{"reply": "ctrl_c"}]}),
            ),
        ),
        (
            "reason-user-eof",
            "EOF at the prompter records cancelled (user).",
            &["LIFE-CANCEL-REASON"],
            one_call(
                "rfd083",
                tool(json!([boolean("confirm")])),
                json!({"prompter": [{"reply": "eof"}]}),
            ),
        ),
        (
            "reason-user-cancellation-token",
            "The inquiry backend's cancellation token records cancelled (user).",
            &["LIFE-CANCEL-REASON"],
            one_call(
                "rfd083",
                tool(json!([boolean("confirm")])),
                json!({"tty": false, "backend": [{"reply": "error", "error": "cancelled"}]}),
            ),
        ),
        (
            "reason-backend-error-provider",
            "A provider error records cancelled (backend_error).",
            &["LIFE-CANCEL-REASON"],
            one_call(
                "rfd083",
                tool(json!([boolean("confirm")])),
                json!({"tty": false, "backend": [{"reply": "error", "error": "provider"}]}),
            ),
        ),
        (
            "reason-backend-error-extraction",
            "A mistyped backend answer is an extraction error: cancelled (backend_error).",
            &["LIFE-CANCEL-REASON", "LIFE-BACKEND-EXTRACT"],
            one_call(
                "rfd083",
                tool(json!([boolean("confirm")])),
                json!({"tty": false, "backend": [{"reply": "answer", "value": "yes"}]}),
            ),
        ),
        (
            "reason-invalid-static-answer",
            "A static answer of the wrong type records cancelled (invalid_static_answer) and names the configuration key.",
            &["LIFE-STATIC-VALIDATED", "LIFE-CANCEL-REASON"],
            one_call(
                "rfd083",
                with(
                    tool(json!([boolean("confirm")])),
                    json!({"questions": {"confirm": {"answer": "yes"}}}),
                ),
                json!({}),
            ),
        ),
        (
            "attempt-reask",
            "A question re-asked in the same call gets attempt 2.",
            &["LIFE-ATTEMPT-COUNTER", "LIFE-ACCUMULATED"],
            one_call(
                "rfd083",
                tool(json!([with(
                    boolean("confirm"),
                    json!({"reject_first": 1})
                )])),
                json!({"prompter": [{"reply": "answer", "value": false}, {"reply": "answer", "value": true}]}),
            ),
        ),
        (
            "attempt-cross-cycle",
            "The same tool_call_id reused in a later cycle continues the counter.",
            &["LIFE-ATTEMPT-COUNTER"],
            json!({"tools": {"fs": tool(json!([boolean("confirm")]))},
                "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "fs"}], [{"id": "call_1", "tool": "fs"}]]}],
                "prompter": [{"reply": "answer", "value": true}, {"reply": "answer", "value": true}]}),
        ),
        (
            "attempt-turn-reset",
            "Every turn starts the counter at 1.",
            &["LIFE-ATTEMPT-RESET"],
            json!({"tools": {"fs": tool(json!([boolean("confirm")]))},
                "turns": [{"user": "one", "cycles": [[{"id": "call_1", "tool": "fs"}]]}, {"user": "two", "cycles": [[{"id": "call_1", "tool": "fs"}]]}],
                "prompter": [{"reply": "answer", "value": true}, {"reply": "answer", "value": true}]}),
        ),
        (
            "persistence-none-cache-bypass",
            "persistence: none offers no remember and is asked every time.",
            &["LIFE-CACHE-ELIGIBLE", "LIFE-REMEMBER"],
            json!({"tools": {"git": tool(json!([once]))},
                "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "git"}], [{"id": "call_2", "tool": "git"}]]}],
                "prompter": [{"reply": "answer", "value": true, "remember": true}, {"reply": "answer", "value": false, "remember": true}]}),
        ),
        (
            "ask-user-prompter",
            "ask_user with a select question: assistant provenance, exclusive, persistence none, the typed success body.",
            &["ASK-FIRST-CALL", "ASK-SUCCESS-BODY", "ASK-PROVENANCE"],
            json!({"tools": {"ask_user": {"program": {"kind": "ask_user"}}},
                "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "ask_user", "arguments": {
                    "question": "Apply with backup, without, or abort?", "context": "Production config changes in place.",
                    "answer_type": "select", "options": ["backup", "overwrite", "abort"]}}]]}],
                "prompter": [{"reply": "answer", "value": "backup"}]}),
        ),
        (
            "ask-user-no-tty",
            "ask_user without a TTY fails with RFD 083's message: no_prompt_backend.",
            &["ASK-NO-TTY", "LIFE-GUARD-EXCLUSIVE"],
            json!({"tty": false, "tools": {"ask_user": {"program": {"kind": "ask_user"}}},
                "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "ask_user", "arguments": {"question": "Proceed?", "answer_type": "boolean"}}]]}]}),
        ),
        (
            "ask-user-static",
            "ask_user with a valid configured answer: no prompt, answered.",
            &["ASK-STATIC", "LIFE-STATIC"],
            json!({"tools": {"ask_user": {"program": {"kind": "ask_user"}, "questions": {"answer": {"answer": true}}}},
                "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "ask_user", "arguments": {"question": "Proceed?", "answer_type": "boolean"}}]]}]}),
        ),
        (
            "provenance-by-kind",
            "Provenance comes from the tool's kind: a local tool with an Assistant prompt label records tool; a built-in with the Assistant hook records assistant.",
            &["LIFE-PROVENANCE"],
            json!({"tools": {
                    "local": with(tool(json!([boolean("q")])), json!({"questions": {"q": {"prompt_label": "Assistant"}}})),
                    "synthetic": {"source": {"kind": "builtin", "hook": "assistant"}, "run": "unattended", "program": {"kind": "script", "asks": [boolean("q")]}}},
                "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "local"}, {"id": "call_2", "tool": "synthetic"}]]}],
                "prompter": [{"reply": "answer", "value": true}, {"reply": "answer", "value": false}]}),
        ),
        (
            "parallel-interleaved",
            "Two parallel calls whose questions interleave; pairs are matched by ID.",
            &["LIFE-RECORD-ALL", "LIFE-ID-FORMAT"],
            json!({"tools": {"a": tool(json!([boolean("x"), boolean("y")])), "b": tool(json!([boolean("x")]))},
                "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "a"}, {"id": "call_2", "tool": "b"}]]}],
                "prompter": [{"reply": "answer", "value": true}, {"reply": "answer", "value": false}, {"reply": "answer", "value": true}],
                "schedule": [0, 1, 0, 1, 0, 1]}),
        ),
        (
            "permission-remembered",
            "A remembered permission decision lives in its own map and never answers a tool question.",
            &["LIFE-CACHE-SPLIT"],
            json!({"tools": {"fs": with(tool(json!([boolean("confirm")])), json!({"run": "ask"}))},
                "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "fs"}], [{"id": "call_2", "tool": "fs"}]]}],
                "permissions": [{"reply": "allow", "remember": true}],
                "prompter": [{"reply": "answer", "value": true}, {"reply": "answer", "value": false}]}),
        ),
        (
            "permission-no-terminal",
            "Without a terminal a run = ask tool is still asked for permission (the model's rule; RFD 082's Non-Goals leave RunTool prompts out) and the denial answers the call.",
            &["LIFE-CACHE-SPLIT", "CONF-PINS"],
            json!({"tty": false,
                "tools": {"fs": with(tool(json!([boolean("confirm")])), json!({"run": "ask"}))},
                "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "fs"}]]}],
                "permissions": [{"reply": "deny"}],
                "backend": [{"reply": "answer", "value": true}]}),
        ),
        (
            "legacy-backend-answered",
            "Pre-082: a backend-answered question is recorded with a two-segment ID and a flat response.",
            &["LIFE-RECORD-ALL"],
            one_call(
                "legacy",
                tool(json!([boolean("confirm")])),
                json!({"tty": false, "backend": [{"reply": "answer", "value": true}]}),
            ),
        ),
        (
            "legacy-backend-error-unpaired",
            "Pre-082: a backend error leaves the request without a response.",
            &["LIFE-CANCEL-REASON"],
            one_call(
                "legacy",
                tool(json!([boolean("confirm")])),
                json!({"tty": false, "backend": [{"reply": "error", "error": "provider"}]}),
            ),
        ),
        (
            "legacy-prompter-unrecorded",
            "Pre-082: a prompter answer is not recorded; a static answer is pre-seeded.",
            &["LIFE-NO-PRESEED"],
            one_call(
                "legacy",
                with(
                    tool(json!([boolean("confirm"), boolean("other")])),
                    json!({"questions": {"other": {"answer": false}}}),
                ),
                answer_true,
            ),
        ),
        (
            "builtin-alias-not-found",
            "ask_user's program under the key `ask`: the built-in executor is found by the config key, so the call fails NotFound and nothing is recorded.",
            &["CONFIG-BUILTIN-ALIAS-NOT-FOUND"],
            json!({"tools": {"ask": {"run": "unattended", "program": {"kind": "ask_user"}}},
                "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "ask", "arguments": {"question": "Proceed?", "answer_type": "boolean"}}]]}],
                "prompter": [{"reply": "answer", "value": true}]}),
        ),
        (
            "legacy-provenance-tool-name",
            "Pre-082: a built-in whose hook says assistant is still recorded under the tool's name.",
            &["LIFE-PROVENANCE-LEGACY"],
            one_call(
                "legacy",
                {
                    let mut t = tool(json!([boolean("confirm")]));
                    t["source"] = json!({"kind": "builtin", "hook": "assistant"});
                    t
                },
                json!({"tty": false, "backend": [{"reply": "answer", "value": true}]}),
            ),
        ),
        (
            "persistence-none-cache-read",
            "t.q is remembered from a first ask; asked again with persistence: none it is not read from the cache: the user is prompted.",
            &["LIFE-CACHE-READ-GATED", "LIFE-LOCAL-STDOUT"],
            json!({"tools": {"t": {"run": "unattended", "program": {"kind": "local", "stdout": [
                    needs(json!({"id": "q", "text": "Q?", "answer_type": {"type": "boolean"}})),
                    "done",
                    needs(json!({"id": "q", "text": "Q?", "answer_type": {"type": "boolean"}, "persistence": "none"})),
                    "done again"]}}},
                "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "t"}], [{"id": "call_2", "tool": "t"}]]}],
                "prompter": [{"reply": "answer", "value": true, "remember": true}, {"reply": "answer", "value": false}]}),
        ),
        (
            "secret-default-verbatim",
            "A secret question's default is persisted verbatim; the answer is redacted.",
            &["LIFE-SECRET-DEFAULT-VERBATIM", "LIFE-SECRET-REDACTED"],
            one_call(
                "rfd083",
                tool(
                    json!([{"question": {"id": "token", "text": "Token?", "answer_type": {"type": "secret"}, "default": "placeholder-default"}}]),
                ),
                json!({"prompter": [{"reply": "answer", "value": "the-real-token-value"}]}),
            ),
        ),
        (
            "local-stdout-and-context",
            "A local tool asks by printing needs_input, gets the answer in tool.answers, and its raw stdout text is its output.",
            &["LIFE-LOCAL-STDOUT", "LIFE-LOCAL-CONTEXT"],
            json!({"tools": {"sh": {"run": "unattended", "program": {"kind": "local", "stdout": [
                    needs(json!({"id": "path", "text": "Which path?", "answer_type": {"type": "text"}})),
                    "wrote 3 files\n"]}}},
                "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "sh", "arguments": {"x": 1}}]]}],
                "prompter": [{"reply": "answer", "value": "/tmp/out"}]}),
        ),
        (
            "reason-user-prompter-io-failure",
            "A terminal I/O failure at the prompter records cancelled (user), like Ctrl-C.",
            &["LIFE-PROMPTER-FAILURE", "LIFE-CANCEL-REASON"],
            one_call(
                "rfd083",
                tool(json!([boolean("confirm")])),
                json!({"prompter": [{"reply": "failure", "failure": "io"}]}),
            ),
        ),
        (
            "reason-user-prompter-no-terminal",
            "The prompter finds no terminal to prompt on: cancelled (user), like Ctrl-C (RFD 082 step 6).",
            &["LIFE-PROMPTER-FAILURE", "LIFE-CANCEL-REASON"],
            one_call(
                "rfd083",
                tool(json!([boolean("confirm")])),
                json!({"prompter": [{"reply": "failure", "failure": "no_terminal"}]}),
            ),
        ),
        (
            "reason-user-prompter-format-failure",
            "The prompter cannot render the question: cancelled (user), like Ctrl-C (RFD 082 step 6).",
            &["LIFE-PROMPTER-FAILURE", "LIFE-CANCEL-REASON"],
            one_call(
                "rfd083",
                tool(json!([boolean("confirm")])),
                json!({"prompter": [{"reply": "failure", "failure": "format"}]}),
            ),
        ),
        (
            "token-tool-cancel",
            "A tool cancel fires the token: cancelled (user), the call ends like any cancelled inquiry, the turn goes on.",
            &["LIFE-TOKEN-CAUSE"],
            json!({"tty": false, "tools": {"fs": tool(json!([boolean("confirm")]))},
                "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "fs"}], [{"id": "call_2", "tool": "fs"}]]}],
                "backend": [{"reply": "cancelled", "cause": "tool_cancel"}, {"reply": "answer", "value": true}]}),
        ),
        (
            "token-hard-quit",
            "A hard quit fires the cancellation token: cancelled (user) is the last event written.",
            &["LIFE-TOKEN-CAUSE"],
            one_call(
                "rfd083",
                tool(json!([boolean("confirm")])),
                json!({"tty": false, "backend": [{"reply": "cancelled", "cause": "hard_quit"}]}),
            ),
        ),
        (
            "token-aborted-turn",
            "An aborted turn fires the token: cancelled (user), no further cycle, the turn closes.",
            &["LIFE-TOKEN-CAUSE"],
            json!({"tty": false, "tools": {"fs": tool(json!([boolean("confirm")]))},
                "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "fs"}], [{"id": "call_2", "tool": "fs"}]]}],
                "backend": [{"reply": "cancelled", "cause": "aborted_turn"}, {"reply": "answer", "value": true}]}),
        ),
        (
            "backend-by-id-parallel",
            "Two parallel backend inquiries answered by inquiry ID: each tool gets its own answer whatever the schedule.",
            &["LIFE-BACKEND-BY-ID", "LIFE-BACKEND-WHOLE-QUESTION"],
            json!({"tty": false,
                "tools": {"a": tool(json!([ask("x", json!({"type": "text"}))])), "b": tool(json!([ask("y", json!({"type": "text"}))]))},
                "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "a"}, {"id": "call_2", "tool": "b"}]]}],
                "backend_by_id": {"call_1.x.1": {"reply": "answer", "value": "for-a"}, "call_2.y.1": {"reply": "answer", "value": "for-b"}},
                "schedule": [1, 0, 1, 0]}),
        ),
        (
            "toggles-disable-all-spares-ask-user",
            "Bare -T turns a plain tool off and leaves ask_user (if_named) asking; a pre-081 explicit tool stays off.",
            &["CONFIG-ENABLE-LIFECYCLE", "CONFIG-ENABLE-PRE-081"],
            json!({"toggles": ["-T"],
                "tools": {"fs": tool(json!([boolean("confirm")])),
                    "git": {"source": {"kind": "local"}, "enable": "explicit", "run": "unattended", "program": {"kind": "script"}},
                    "ask_user": {"program": {"kind": "ask_user"}}},
                "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "fs"}, {"id": "call_2", "tool": "git"},
                    {"id": "call_3", "tool": "ask_user", "arguments": {"question": "Go?", "answer_type": "boolean"}}]]}],
                "prompter": [{"reply": "answer", "value": true}]}),
        ),
        (
            "token-restart",
            "A restart fires the token: cancelled (user), then the tool runs again in the same call and its question is attempt 2.",
            &["LIFE-TOKEN-CAUSE", "LIFE-ATTEMPT-COUNTER"],
            one_call(
                "rfd083",
                tool(json!([boolean("confirm")])),
                json!({"tty": false, "backend": [{"reply": "cancelled", "cause": "restart"}, {"reply": "answer", "value": true}]}),
            ),
        ),
        (
            "token-aborted-turn-cancels-parallel",
            "An aborted turn's token cancels the other inquiry of its cycle too: both record cancelled (user), each call gets its response, no further cycle.",
            &["LIFE-TOKEN-CAUSE"],
            json!({"tty": false,
                "tools": {"a": tool(json!([boolean("confirm")])), "b": tool(json!([boolean("confirm")]))},
                "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "a"}, {"id": "call_2", "tool": "b"}], [{"id": "call_3", "tool": "a"}]]}],
                "backend_by_id": {"call_1.confirm.1": {"reply": "cancelled", "cause": "aborted_turn"}, "call_2.confirm.1": {"reply": "answer", "value": true}}}),
        ),
        (
            "delivery-prompt-deliver",
            "A result-delivery prompt (result = ask) persists no inquiry event; delivered, the tool's own response goes out.",
            &["LIFE-DELIVERY-PROMPT"],
            json!({"tools": {"fs": with(tool(json!([boolean("confirm")])), json!({"result": "ask"}))},
                "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "fs"}]]}],
                "prompter": [{"reply": "answer", "value": true}],
                "deliveries": [{"reply": "deliver"}]}),
        ),
        (
            "delivery-prompt-withheld",
            "A result withheld at the delivery prompt: no inquiry event for the prompt, the call still gets a (success) response.",
            &["LIFE-DELIVERY-PROMPT"],
            json!({"tools": {"fs": with(tool(json!([boolean("confirm")])), json!({"result": "ask"}))},
                "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "fs"}]]}],
                "prompter": [{"reply": "answer", "value": true}],
                "deliveries": [{"reply": "withhold"}]}),
        ),
        (
            "config-merge-layers",
            "Three configuration layers: ask_user's built-in enable, the user file's `enable = { state = false }` (if_named kept), the command line's `-t ask_user` turns it back on.",
            &["CONFIG-MERGE-LAYERS", "CONFIG-ENABLE-LIFECYCLE"],
            json!({"toggles": ["-T", "-t ask_user"],
                "tools": {"ask_user": {"program": {"kind": "ask_user"}, "enable": {"state": false}},
                    "fs": with(tool(json!([boolean("confirm")])), json!({"enable": {"state": false}}))},
                "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "ask_user", "arguments": {"question": "Go?", "answer_type": "boolean"}},
                    {"id": "call_2", "tool": "fs"}]]}],
                "prompter": [{"reply": "answer", "value": true}]}),
        ),
        (
            "inquiry-model-choice",
            "The backend asks a question's own assistant-target model, else the dedicated inquiry model.",
            &["LIFE-BACKEND-MODEL"],
            json!({"tty": false, "inquiry_model": "inquiry-small",
                "tools": {"a": with(tool(json!([boolean("confirm")])), json!({"assistant": {"confirm": {"model": "own-large"}}})),
                    "b": tool(json!([boolean("confirm")]))},
                "turns": [{"user": "go", "cycles": [[{"id": "call_1", "tool": "a"}, {"id": "call_2", "tool": "b"}]]}],
                "backend": [{"reply": "answer", "value": true}, {"reply": "answer", "value": false}]}),
        ),
    ];
    cases
        .into_iter()
        .map(|(name, description, rules, v)| vector(name, description, rules, scenario(v)?))
        .collect()
}
