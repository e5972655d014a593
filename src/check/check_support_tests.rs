//! A hand-built stream for the oracle's tests (the builder of
//! `oracle::check_rules`, shared by the other oracle tests, in the crate and
//! in the integration suite: it names the crate `inquiry_model`, which the
//! crate's own tests alias to itself).

use inquiry_model::check::{Checked, Profile, ProfileMode, Severity, check_bytes};
use serde_json::{Value, json};

pub(crate) const AUTO: ProfileMode = ProfileMode::Auto;
pub(crate) const LEGACY: ProfileMode = ProfileMode::Fixed(Profile::Legacy);
pub(crate) const R082: ProfileMode = ProfileMode::Fixed(Profile::Rfd082);
pub(crate) const R083: ProfileMode = ProfileMode::Fixed(Profile::Rfd083);

/// A hand-built stream, one JSON object per event.
#[derive(Debug, Clone, Default)]
pub(crate) struct S(pub(crate) Vec<Value>);

pub(crate) fn boolean() -> Value {
    json!({"text": "Apply the patch?", "answer_type": {"type": "boolean"}})
}

pub(crate) fn text() -> Value {
    json!({"text": "Commit message?", "answer_type": {"type": "text"}})
}

pub(crate) fn select(options: &[&str]) -> Value {
    let options: Vec<Value> = options.iter().map(|o| json!({"value": o})).collect();
    json!({"text": "Which one?", "answer_type": {"type": "select", "options": options}})
}

pub(crate) fn secret() -> Value {
    json!({"text": "SSH key passphrase", "answer_type": {"type": "secret"}})
}

pub(crate) fn tool(name: &str) -> Value {
    json!({"source": "tool", "name": name})
}

impl S {
    pub(crate) fn new() -> S {
        S::default()
    }
    pub(crate) fn push(mut self, v: Value) -> S {
        self.0.push(v);
        self
    }
    pub(crate) fn turn(self) -> S {
        self.push(json!({"type": "turn_start", "timestamp": "2026-05-12 10:00:00.000000"}))
    }
    pub(crate) fn chat(self) -> S {
        self.push(json!({"type": "chat_request", "content": "go"}))
    }
    pub(crate) fn reply(self) -> S {
        self.push(json!({"type": "chat_response", "message": "done"}))
    }
    pub(crate) fn call(self, id: &str, name: &str) -> S {
        self.push(json!({"type": "tool_call_request", "id": id, "name": name, "arguments": {}}))
    }
    pub(crate) fn done(self, id: &str) -> S {
        self.push(
            json!({"type": "tool_call_response", "id": id, "content": "ok", "is_error": false}),
        )
    }
    pub(crate) fn failed(self, id: &str) -> S {
        self.push(
            json!({"type": "tool_call_response", "id": id, "content": "error", "is_error": true}),
        )
    }
    /// A request from tool `fs`.
    pub(crate) fn ask(self, id: &str, question: Value) -> S {
        self.ask_from(id, tool("fs"), question)
    }
    pub(crate) fn ask_from(self, id: &str, source: Value, question: Value) -> S {
        self.push(
            json!({"type": "inquiry_request", "id": id, "source": source, "question": question}),
        )
    }
    pub(crate) fn answer(self, id: &str, answer: Value) -> S {
        self.push(
            json!({"type": "inquiry_response", "outcome": "answered", "id": id, "answer": answer}),
        )
    }
    pub(crate) fn flat(self, id: &str, answer: Value) -> S {
        self.push(json!({"type": "inquiry_response", "id": id, "answer": answer}))
    }
    pub(crate) fn cancel(self, id: &str, reason: &str) -> S {
        self.push(
            json!({"type": "inquiry_response", "outcome": "cancelled", "id": id, "reason": reason}),
        )
    }
    pub(crate) fn redact(self, id: &str) -> S {
        self.push(json!({"type": "inquiry_response", "outcome": "redacted", "id": id}))
    }
    pub(crate) fn bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for v in &self.0 {
            out.extend(serde_json::to_vec(v).unwrap());
            out.push(b'\n');
        }
        out
    }
}

/// A one-call turn of tool `fs` (call `c1`): event 0 is the marker, 1 the
/// call; the body starts at 2.
pub(crate) fn in_call(body: impl FnOnce(S) -> S) -> S {
    body(S::new().turn().call("c1", "fs")).done("c1")
}

pub(crate) fn run(s: &S, mode: ProfileMode) -> Checked {
    let c = check_bytes(&s.bytes(), "test.jsonl", mode);
    assert_eq!(c.error, None, "hand-built stream must read");
    c
}

/// `(rule, severity, turn, event)` of every diagnostic.
pub(crate) fn found(
    s: &S,
    mode: ProfileMode,
) -> Vec<(inquiry_model::check::Rule, Severity, usize, usize)> {
    run(s, mode)
        .diagnostics
        .iter()
        .map(|d| (d.rule, d.severity, d.turn, d.event_index))
        .collect()
}

pub(crate) fn lines(c: &Checked) -> String {
    c.diagnostics.iter().map(|d| format!("{d}\n")).collect()
}

pub(crate) fn clean(s: &S, mode: ProfileMode) {
    let c = run(s, mode);
    assert!(
        c.diagnostics.is_empty(),
        "expected no diagnostic under {mode}, got:\n{}",
        lines(&c)
    );
}

#[allow(unused_imports)] // the suite's oracle tests use neither
pub(crate) use Severity::{Error as E, Warning as W};

/// A legacy turn whose inquiry-backend call failed: one flat pair, and a
/// request a pre-082 writer left unanswered (RFD 082 "Motivation").
pub(crate) fn legacy_backend_failure() -> S {
    in_call(|s| {
        s.ask("c1.apply", boolean())
            .flat("c1.apply", json!(true))
            .ask("c1.other", boolean())
    })
}
