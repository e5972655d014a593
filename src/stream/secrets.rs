//! What no command prints: the answer of a `secret` question.
//!
//! RFD 082 "Secret questions": the answer of a `secret` question is never
//! persisted, and a `Redacted` response is "Answered, but deliberately not
//! persisted". A stream that holds one anyway (an `answered` response to a
//! `secret` request, reported by `CHECK-SECRET-NOT-ANSWERED`), or a run
//! under a profile that persists it (`legacy` has no secret type), must not
//! pass it on to a terminal or a CI log: every command that prints stream
//! content or a trace prints such an answer as [`MASK`] (rule
//! `CLI-NO-SECRET`, spec/DECISIONS.md "Secrets: no command prints a
//! persisted secret answer").
//!
//! [`Secrets`] gathers the values to hide — from persisted events as JSON
//! values ([`Secrets::of_events`]) and, where a run's trace is at hand, the
//! answers its tools received for secret questions
//! (`invariants::trace_secrets`, above this layer) — and masks them in a JSON value ([`Secrets::mask_value`]) or in printed
//! text ([`Secrets::mask_text`]). A scenario (the prompter's and backend's
//! replies) is input the user wrote, not stream content: it is never masked,
//! so a printed scenario still replays.

use std::collections::{BTreeSet, HashMap, VecDeque};

use serde_json::Value;

/// What a secret answer is printed as.
pub(crate) const MASK: &str = "<secret>";

/// The string values to print as [`MASK`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Secrets(BTreeSet<String>);

/// Whether an `inquiry_request` event (as JSON) asks a `secret` question:
/// its question's `answer_type` is `{"type": "secret"}` (RFD 082) or the
/// bare string `"secret"`.
fn asks_secret(request: &Value) -> bool {
    let t = request.get("question").and_then(|q| q.get("answer_type"));
    match t {
        Some(Value::String(s)) => s == "secret",
        Some(t) => t.get("type").and_then(Value::as_str) == Some("secret"),
        None => false,
    }
}

/// Every string in `v` (an answer: a string, or an object or array holding
/// strings).
fn strings(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::String(s) => {
            out.insert(s.clone());
        }
        Value::Array(items) => items.iter().for_each(|i| strings(i, out)),
        Value::Object(m) => m.values().for_each(|i| strings(i, out)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

impl Secrets {
    /// The answers `events` persist for `secret` questions: each
    /// `inquiry_response` paired with a `secret` `inquiry_request` (the next
    /// unpaired request of the same `id` in its turn, as the crate's pairing
    /// does, rule `STREAM-PAIR-ORDER`) contributes every string of its
    /// `answer`, in the tagged RFD 082 form (`"outcome": "answered"`) and the
    /// flat pre-082 form (`{id, answer}`) alike.
    pub(crate) fn of_events(events: &[Value]) -> Self {
        let mut out = BTreeSet::new();
        let mut waiting: HashMap<String, VecDeque<bool>> = HashMap::new();
        for e in events {
            let id = e.get("id").and_then(Value::as_str).unwrap_or_default();
            match e.get("type").and_then(Value::as_str) {
                Some("turn_start") => waiting.clear(),
                Some("inquiry_request") => waiting
                    .entry(id.to_owned())
                    .or_default()
                    .push_back(asks_secret(e)),
                Some("inquiry_response") => {
                    let secret = waiting
                        .get_mut(id)
                        .and_then(VecDeque::pop_front)
                        .unwrap_or(false);
                    if let (true, Some(a)) = (secret, e.get("answer")) {
                        strings(a, &mut out);
                    }
                }
                _ => {}
            }
        }
        Secrets(out)
    }

    /// These secrets and `more` (values known to be secret answers).
    pub fn with(mut self, more: impl IntoIterator<Item = String>) -> Self {
        self.0.extend(more);
        self
    }

    /// Both sets.
    pub fn union(mut self, other: Secrets) -> Self {
        self.0.extend(other.0);
        self
    }

    /// Whether there is nothing to mask.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Every string of `v` equal to a secret replaced by [`MASK`].
    pub(crate) fn mask_value(&self, v: &mut Value) {
        if self.is_empty() {
            return;
        }
        match v {
            Value::String(s) if self.0.contains(s) => *s = MASK.to_owned(),
            Value::Array(items) => items.iter_mut().for_each(|i| self.mask_value(i)),
            Value::Object(m) => m.values_mut().for_each(|i| self.mask_value(i)),
            Value::String(_) | Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }

    /// `text` with every JSON-quoted secret (`"hunter2"`, as event lines,
    /// diagrams and JSON texts write an answer) replaced by the quoted
    /// [`MASK`].
    pub(crate) fn mask_text(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for s in &self.0 {
            let quoted = Value::String(s.clone()).to_string();
            out = out.replace(&quoted, &format!("\"{MASK}\""));
        }
        out
    }
}

impl Secrets {
    /// A Mermaid diagram (src/mermaid.rs) with every quoted secret written
    /// `"#lt;secret#gt;"` (the diagram's entity codes for `<` and `>`),
    /// also where a message cut at its width ends in the secret's first
    /// characters (`"hunt…`).
    pub fn mask_diagram(&self, diagram: &str) -> String {
        const SHOWN: &str = "\"#lt;secret#gt;\"";
        let mut lines = Vec::new();
        for line in diagram.split_inclusive('\n') {
            let mut l = line.to_owned();
            for s in &self.0 {
                l = l.replace(&Value::String(s.clone()).to_string(), SHOWN);
                let quoted = Value::String(s.clone()).to_string();
                let body = quoted.trim_end_matches('"');
                let end = l.trim_end_matches('\n');
                if let Some(stem) = end.strip_suffix('…') {
                    let cut = (2..body.len())
                        .rev()
                        .filter(|&k| body.is_char_boundary(k))
                        .find(|&k| stem.ends_with(&body[..k]));
                    if let Some(k) = cut {
                        let at = stem.len() - k;
                        l = format!(
                            "{}{}…{}",
                            &stem[..at],
                            &SHOWN[..SHOWN.len() - 1],
                            &l[end.len()..]
                        );
                    }
                }
            }
            lines.push(l);
        }
        lines.concat()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Rule: CLI-NO-SECRET — the answer of a `secret` request is found in
    /// the tagged and the flat form, per turn and by order; a plain answer
    /// is not.
    #[test]
    fn finds_the_answers_of_secret_requests() {
        let secret = json!({"text": "Password?", "answer_type": {"type": "secret"}});
        let plain = json!({"text": "User?", "answer_type": {"type": "text"}});
        let events = vec![
            json!({"type": "turn_start"}),
            json!({"type": "inquiry_request", "id": "t.a.1", "question": secret}),
            json!({"type": "inquiry_response", "outcome": "answered", "id": "t.a.1", "answer": {"pw": "s3cret-one"}}),
            json!({"type": "inquiry_request", "id": "t.b.1", "question": plain}),
            json!({"type": "inquiry_response", "outcome": "answered", "id": "t.b.1", "answer": "plain-one"}),
            json!({"type": "inquiry_request", "id": "t.pw", "question": secret}),
            json!({"type": "inquiry_response", "id": "t.pw", "answer": "s3cret-flat"}),
            json!({"type": "turn_start"}),
            json!({"type": "inquiry_response", "id": "t.pw", "answer": "not-paired"}),
        ];
        let s = Secrets::of_events(&events);
        assert_eq!(
            s.0.iter().map(String::as_str).collect::<Vec<_>>(),
            ["s3cret-flat", "s3cret-one"]
        );
        let mut v = Value::Array(events);
        s.mask_value(&mut v);
        let text = v.to_string();
        assert!(
            !text.contains("s3cret") && text.contains("plain-one"),
            "{text}"
        );
        assert_eq!(
            s.mask_text(r#"answered "s3cret-flat", "plain-one""#),
            r#"answered "<secret>", "plain-one""#
        );
        assert_eq!(
            s.mask_diagram("A->>B: answered \"s3cret-flat\"\nA->>B: answer \"s3cr…\n"),
            "A->>B: answered \"#lt;secret#gt;\"\nA->>B: answer \"#lt;secret#gt;…\n"
        );
    }
}
