//! A hand-built stream for the oracle's tests (the builder of
//! `oracle::check_rules`, shared by the other oracle tests).

use inquiry_model::check::{Checked, Profile, ProfileMode, Severity, check_bytes};
use serde_json::{Value, json};

pub const AUTO: ProfileMode = ProfileMode::Auto;
pub const LEGACY: ProfileMode = ProfileMode::Fixed(Profile::Legacy);
pub const R082: ProfileMode = ProfileMode::Fixed(Profile::Rfd082);
pub const R083: ProfileMode = ProfileMode::Fixed(Profile::Rfd083);

/// A hand-built stream, one JSON object per event.
#[derive(Debug, Clone, Default)]
pub struct S(pub Vec<Value>);

pub fn boolean() -> Value {
    json!({"text": "Apply the patch?", "answer_type": {"type": "boolean"}})
}

pub fn text() -> Value {
    json!({"text": "Commit message?", "answer_type": {"type": "text"}})
}

pub fn select(options: &[&str]) -> Value {
    let options: Vec<Value> = options.iter().map(|o| json!({"value": o})).collect();
    json!({"text": "Which one?", "answer_type": {"type": "select", "options": options}})
}

pub fn secret() -> Value {
    json!({"text": "SSH key passphrase", "answer_type": {"type": "secret"}})
}

pub fn tool(name: &str) -> Value {
    json!({"source": "tool", "name": name})
}

impl S {
    pub fn new() -> S {
        S::default()
    }
    pub fn push(mut self, v: Value) -> S {
        self.0.push(v);
        self
    }
    pub fn turn(self) -> S {
        self.push(json!({"type": "turn_start", "timestamp": "2026-05-12 10:00:00.000000"}))
    }
    pub fn chat(self) -> S {
        self.push(json!({"type": "chat_request", "content": "go"}))
    }
    pub fn reply(self) -> S {
        self.push(json!({"type": "chat_response", "message": "done"}))
    }
    pub fn call(self, id: &str, name: &str) -> S {
        self.push(json!({"type": "tool_call_request", "id": id, "name": name, "arguments": {}}))
    }
    pub fn done(self, id: &str) -> S {
        self.push(
            json!({"type": "tool_call_response", "id": id, "content": "ok", "is_error": false}),
        )
    }
    pub fn failed(self, id: &str) -> S {
        self.push(
            json!({"type": "tool_call_response", "id": id, "content": "error", "is_error": true}),
        )
    }
    /// A request from tool `fs`.
    pub fn ask(self, id: &str, question: Value) -> S {
        self.ask_from(id, tool("fs"), question)
    }
    pub fn ask_from(self, id: &str, source: Value, question: Value) -> S {
        self.push(
            json!({"type": "inquiry_request", "id": id, "source": source, "question": question}),
        )
    }
    pub fn answer(self, id: &str, answer: Value) -> S {
        self.push(
            json!({"type": "inquiry_response", "outcome": "answered", "id": id, "answer": answer}),
        )
    }
    pub fn flat(self, id: &str, answer: Value) -> S {
        self.push(json!({"type": "inquiry_response", "id": id, "answer": answer}))
    }
    pub fn cancel(self, id: &str, reason: &str) -> S {
        self.push(
            json!({"type": "inquiry_response", "outcome": "cancelled", "id": id, "reason": reason}),
        )
    }
    pub fn redact(self, id: &str) -> S {
        self.push(json!({"type": "inquiry_response", "outcome": "redacted", "id": id}))
    }
    pub fn bytes(&self) -> Vec<u8> {
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
pub fn in_call(body: impl FnOnce(S) -> S) -> S {
    body(S::new().turn().call("c1", "fs")).done("c1")
}

pub fn run(s: &S, mode: ProfileMode) -> Checked {
    let c = check_bytes(&s.bytes(), "test.jsonl", mode);
    assert_eq!(c.error, None, "hand-built stream must read");
    c
}

/// `(rule, severity, turn, event)` of every diagnostic.
pub fn found(
    s: &S,
    mode: ProfileMode,
) -> Vec<(inquiry_model::check::Rule, Severity, usize, usize)> {
    run(s, mode)
        .diagnostics
        .iter()
        .map(|d| (d.rule, d.severity, d.turn, d.event_index))
        .collect()
}

pub fn lines(c: &Checked) -> String {
    c.diagnostics.iter().map(|d| format!("{d}\n")).collect()
}

pub fn clean(s: &S, mode: ProfileMode) {
    let c = run(s, mode);
    assert!(
        c.diagnostics.is_empty(),
        "expected no diagnostic under {mode}, got:\n{}",
        lines(&c)
    );
}

pub use Severity::{Error as E, Warning as W};
