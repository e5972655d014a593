//! What no command prints: the answer of a `secret` question.
//!
//! RFD 082 "Secret questions": the answer of a `secret` question is never
//! persisted, and a `Redacted` response is "Answered, but deliberately not
//! persisted". A stream that holds one anyway (an `answered` response to a
//! `secret` request, reported by `CHECK-SECRET-NOT-ANSWERED`), or a run
//! under a profile that persists it (`legacy` has no secret type), must not
//! pass it on to a terminal or a CI log (rule `CLI-NO-SECRET`,
//! docs/decisions/cli.md "Secrets: masked where the answer sits").
//!
//! Masking is by structure: a value is masked where a secret answer sits
//! (the answer of a response paired with a `secret` request, fields beside
//! a redaction, an `answer` on a secret request — [`Masks::mask_events`] —
//! and, above this layer, the answers a tool received for a question it
//! asks as `Secret`: `masks`), never wherever an equal string occurs. A
//! leaked value found by the scan (a secret answer of at least
//! [`SCANNED`] characters inside any persisted string, as
//! `INV-SECRET-NEVER-PERSISTED` searches) is masked where it is found.
//! Masks keep identity: [`Masks`] numbers each distinct value
//! (`<secret 1>`, `<secret 2>`), so equal masks are equal answers.
//!
//! A scenario (the prompter's and backend's replies) is input the user
//! wrote, not stream content: it is never masked, so a printed scenario
//! still replays.

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;

use super::pairing;

/// The shortest secret the scan looks for inside other strings: the length
/// from which `INV-SECRET-NEVER-PERSISTED` searches the persisted stream
/// (a shorter one, `"y"`, would match everywhere).
pub(crate) const SCANNED: usize = 6;

/// Whether an `inquiry_request` event (as JSON) asks a `secret` question:
/// its question's `answer_type` is `{"type": "secret"}` (RFD 082) or the
/// bare string `"secret"`.
pub(crate) fn asks_secret(request: &Value) -> bool {
    let t = request.get("question").and_then(|q| q.get("answer_type"));
    match t {
        Some(Value::String(s)) => s == "secret",
        Some(t) => t.get("type").and_then(Value::as_str) == Some("secret"),
        None => false,
    }
}

/// Every string in `v` (an answer: a string, or an object or array holding
/// strings).
pub(crate) fn strings(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::String(s) => {
            out.insert(s.clone());
        }
        Value::Array(items) => items.iter().for_each(|i| strings(i, out)),
        Value::Object(m) => m.values().for_each(|i| strings(i, out)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// The requests of `events` that ask a secret question (on the wire, or
/// listed in `also`: a run knows which questions its tools asked as
/// `Secret` where the profile persists them as text), each with the index
/// of its response: the one the crate's pairing pairs it with
/// ([`pairing::pair_raw`], the turns and by-order pairing of the typed
/// stream, rules `STREAM-TURNS`, `STREAM-PAIR-ORDER`), if any.
pub(crate) fn secret_requests(
    events: &[Value],
    also: &BTreeSet<usize>,
) -> Vec<(usize, Option<usize>)> {
    let response_of: HashMap<usize, usize> = pairing::pair_raw(events)
        .pairs
        .iter()
        .map(|p| (p.request, p.response))
        .collect();
    events
        .iter()
        .enumerate()
        .filter(|(i, e)| {
            e.get("type").and_then(Value::as_str) == Some("inquiry_request")
                && (asks_secret(e) || also.contains(i))
        })
        .map(|(i, _)| (i, response_of.get(&i).copied()))
        .collect()
}

/// Numbered masks: the `n`th distinct secret value met is printed
/// `<secret n>` wherever it is masked.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Masks {
    values: Vec<Value>,
}

/// What the `n`th secret value is printed as.
pub(crate) fn label(n: usize) -> String {
    format!("<secret {n}>")
}

impl Masks {
    /// The number of `v`: its place among the values met so far, or the
    /// next one.
    pub(crate) fn number(&mut self, v: &Value) -> usize {
        match self.values.iter().position(|x| x == v) {
            Some(i) => i + 1,
            None => {
                self.values.push(v.clone());
                self.values.len()
            }
        }
    }

    /// The values met, in order (`<secret 1>` first).
    #[cfg(test)]
    pub(crate) fn values(&self) -> &[Value] {
        &self.values
    }

    /// `v` (a value where a secret answer sits) replaced by its mask.
    pub(crate) fn mask(&mut self, v: &mut Value) {
        let n = self.number(v);
        *v = Value::String(label(n));
    }

    /// In every string of `v`, each secret string of at least [`SCANNED`]
    /// characters replaced by its mask (a leak the scan finds, masked where
    /// it is found). Returns whether anything was masked.
    pub(crate) fn mask_leaks(&self, v: &mut Value) -> bool {
        let scanned: Vec<(&str, String)> = self
            .values
            .iter()
            .enumerate()
            .filter_map(|(i, x)| match x {
                Value::String(s) if s.chars().count() >= SCANNED => {
                    Some((s.as_str(), label(i + 1)))
                }
                _ => None,
            })
            .collect();
        if scanned.is_empty() {
            return false;
        }
        fn walk(v: &mut Value, scanned: &[(&str, String)]) -> bool {
            match v {
                Value::String(s) => {
                    let mut hit = false;
                    for (secret, mask) in scanned {
                        if s.contains(secret) {
                            *s = s.replace(secret, mask);
                            hit = true;
                        }
                    }
                    hit
                }
                Value::Array(items) => items.iter_mut().fold(false, |h, i| walk(i, scanned) | h),
                Value::Object(m) => m.values_mut().fold(false, |h, i| walk(i, scanned) | h),
                Value::Null | Value::Bool(_) | Value::Number(_) => false,
            }
        }
        walk(v, &scanned)
    }

    /// Persisted events (as JSON) masked by structure: on a response paired
    /// with a secret request (see [`secret_requests`]; `also` lists the
    /// requests a run knows its tools asked as `Secret`) its `answer`, and on
    /// a `redacted` one every field an RFD 082 writer does not write
    /// (`CHECK-SECRET-LEAK`); on a secret request an `answer`, on the event
    /// or its question; then every leak the scan finds ([`Masks::mask_leaks`]).
    pub(crate) fn mask_events(&mut self, events: &mut [Value], also: &BTreeSet<usize>) {
        const WRITTEN: [&str; 4] = ["type", "timestamp", "outcome", "id"];
        for (request, response) in secret_requests(events, also) {
            if let Some(Value::Object(m)) = response.map(|r| &mut events[r]) {
                let redacted = m.get("outcome").and_then(Value::as_str) == Some("redacted");
                for (k, v) in m.iter_mut() {
                    if k == "answer" || (redacted && !WRITTEN.contains(&k.as_str())) {
                        self.mask(v);
                    }
                }
            }
            let e = &mut events[request];
            if let Some(v) = e.get_mut("answer") {
                self.mask(v);
            }
            if let Some(v) = e.get_mut("question").and_then(|q| q.get_mut("answer")) {
                self.mask(v);
            }
        }
        for e in events.iter_mut() {
            self.mask_leaks(e);
        }
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
        let mut found = BTreeSet::new();
        for (_, response) in secret_requests(&events, &BTreeSet::new()) {
            if let Some(a) = response.and_then(|r| events[r].get("answer")) {
                strings(a, &mut found);
            }
        }
        assert_eq!(
            found.iter().map(String::as_str).collect::<Vec<_>>(),
            ["s3cret-flat", "s3cret-one"]
        );
    }

    /// Rule: CLI-NO-SECRET — masking is by structure: the answer of a
    /// response paired with a secret request (the `{"type": "secret"}` and
    /// the bare `"secret"` answer type alike) is masked, numbered by value in
    /// the order met; the same string as another question's option or
    /// plain answer is printed as it is; fields beside a redaction and an
    /// `answer` on a secret request are masked; a secret of at least
    /// [`SCANNED`] characters found inside another string (the scan) is
    /// masked there.
    #[test]
    fn masks_where_the_answer_sits() {
        let tagged = json!({"text": "Password?", "answer_type": {"type": "secret"}});
        let bare = json!({"text": "PIN?", "answer_type": "secret"});
        let bare_text = json!({"text": "Name?", "answer_type": "text"});
        let select =
            json!({"text": "Env?", "answer_type": {"type": "select", "options": ["a", "b"]}});
        let mut events = vec![
            json!({"type": "turn_start"}),
            json!({"type": "inquiry_request", "id": "c.pw.1", "question": tagged}),
            json!({"type": "inquiry_response", "outcome": "answered", "id": "c.pw.1", "answer": "a"}),
            json!({"type": "inquiry_request", "id": "c.env.1", "question": select}),
            json!({"type": "inquiry_response", "outcome": "answered", "id": "c.env.1", "answer": "a"}),
            json!({"type": "inquiry_request", "id": "c.pin.1", "question": bare}),
            json!({"type": "inquiry_response", "outcome": "answered", "id": "c.pin.1", "answer": "pin-123456"}),
            json!({"type": "inquiry_request", "id": "c.name.1", "question": bare_text}),
            json!({"type": "inquiry_response", "outcome": "answered", "id": "c.name.1", "answer": "a"}),
            json!({"type": "inquiry_request", "id": "c.pw.2", "question": tagged, "answer": "pin-123456"}),
            json!({"type": "inquiry_response", "outcome": "redacted", "id": "c.pw.2", "reason": "a"}),
            json!({"type": "chat_response", "message": "your pin is pin-123456."}),
        ];
        let mut masks = Masks::default();
        masks.mask_events(&mut events, &BTreeSet::new());
        let answers: Vec<&Value> = events.iter().filter_map(|e| e.get("answer")).collect();
        assert_eq!(
            answers,
            [
                &json!("<secret 1>"),
                &json!("a"),
                &json!("<secret 2>"),
                &json!("a"),
                &json!("<secret 2>")
            ]
        );
        assert_eq!(
            events[3]["question"]["answer_type"]["options"],
            json!(["a", "b"])
        );
        assert_eq!(events[10]["reason"], json!("<secret 1>"));
        assert_eq!(events[11]["message"], json!("your pin is <secret 2>."));
        assert_eq!(masks.values(), [json!("a"), json!("pin-123456")]);
        // A short secret is not searched for inside other strings.
        let mut short = json!({"message": "a b c"});
        assert!(!masks.mask_leaks(&mut short));
        assert_eq!(short, json!({"message": "a b c"}));
    }

    /// The bare `"secret"` answer type asks a secret question and no other
    /// bare type does.
    #[test]
    fn the_bare_secret_type_asks_a_secret() {
        let ask = |t: Value| asks_secret(&json!({"question": {"answer_type": t}}));
        assert!(ask(json!("secret")));
        assert!(ask(json!({"type": "secret"})));
        assert!(!ask(json!("text")));
        assert!(!ask(json!({"type": "text"})));
        assert!(!asks_secret(&json!({"question": {}})));
    }
}

#[cfg(test)]
mod secrets_mut_tests;
