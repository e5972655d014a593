//! A run's trace with every secret answer masked where it sits (rule
//! `CLI-NO-SECRET`, docs/decisions/cli.md "Secrets: masked where the answer
//! sits").
//!
//! The places are read from the run's structure, never from an equal
//! string elsewhere: a tool's question asked as `Secret` (whatever the
//! profile makes of it: `legacy` asks it as text and persists the answer)
//! marks the prompt that shows it, the backend call that answers it, the
//! answers every later invocation of that call receives under its ID (and
//! the local program's context that carries them), and the request it
//! records, whose paired response's answer is masked
//! ([`Masks::mask_events`]); a leak the scan finds in the persisted stream
//! is masked where it is found. Each distinct value keeps one number, given
//! in the order the scenario types them: the prompter's secret replies in
//! the order shown, then the backend's, then values a tool received that
//! neither typed (a configured static answer), then values only the stream
//! holds.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::model::tool::Outcome;
use crate::scenario::{BackendReply, PrompterReply, Trace};
use crate::stream::secrets::{Masks, secret_requests};
use crate::wire::{Event, EventKind, InquiryResponse};

/// A trace with its secret answers masked, and the masks given.
#[derive(Debug, Clone)]
pub struct Masked {
    /// The trace, every secret answer replaced by its mask (`<secret n>`).
    pub(crate) trace: Trace,
    /// The persisted stream as the profile's writer puts it on disk
    /// ([`Trace::persisted_json`]), masked the same way.
    pub(crate) stream: Value,
    /// The numbers given: `masks.values()[n - 1]` is `<secret n>`.
    pub(crate) masks: Masks,
}

impl Masked {
    /// The trace as `run` prints it: the serialized trace with `stream`
    /// the persisted stream.
    pub fn to_json(&self) -> Value {
        let mut v = serde_json::to_value(&self.trace).unwrap_or(Value::Null);
        if let Value::Object(m) = &mut v {
            m.insert("stream".to_owned(), self.stream.clone());
        }
        v
    }
}

/// Per call (turn, cycle, call index), the IDs of the questions its tool
/// asked as `Secret`.
fn secret_questions(t: &Trace) -> BTreeMap<(usize, usize, usize), BTreeSet<String>> {
    let mut out: BTreeMap<_, BTreeSet<String>> = BTreeMap::new();
    for inv in &t.invocations {
        if let Outcome::NeedsInput { question } = &inv.outcome
            && question.is_secret()
        {
            out.entry((inv.at.turn, inv.at.cycle, inv.call_index))
                .or_default()
                .insert(question.id.clone());
        }
    }
    out
}

/// Every (tool, question ID) a tool of the run asked as `Secret`.
pub(crate) fn secret_questions_by_tool(t: &Trace) -> BTreeSet<(String, String)> {
    t.invocations
        .iter()
        .filter_map(|inv| match &inv.outcome {
            Outcome::NeedsInput { question } if question.is_secret() => {
                Some((inv.tool.clone(), question.id.clone()))
            }
            Outcome::NeedsInput { .. } | Outcome::Success { .. } | Outcome::Error { .. } => None,
        })
        .collect()
}

/// The stream indices of the requests recorded for a question its tool
/// asked as `Secret`.
fn secret_request_events(t: &Trace) -> BTreeSet<usize> {
    t.invocations
        .iter()
        .filter(
            |inv| matches!(&inv.outcome, Outcome::NeedsInput { question } if question.is_secret()),
        )
        .filter_map(|inv| inv.request_event)
        .collect()
}

/// The answer a backend reply carries: `value`, or a raw structured
/// response's `answer` (the whole response if it has none).
fn backend_answer(reply: &mut BackendReply) -> Option<&mut Value> {
    match reply {
        BackendReply::Answer { value } => Some(value),
        BackendReply::Raw { structured } => {
            if structured.get("answer").is_some() {
                structured.get_mut("answer")
            } else {
                Some(structured)
            }
        }
        BackendReply::Error { .. } | BackendReply::Cancelled { .. } => None,
    }
}

/// The answer of an `answered` response.
fn answered_mut(e: &mut Event) -> Option<&mut Value> {
    match &mut e.kind {
        EventKind::InquiryResponse(InquiryResponse::Answered { answer, .. }) => Some(answer),
        _ => None,
    }
}

/// `t` with every secret answer masked where it sits.
pub fn mask(t: &Trace) -> Masked {
    mask_after(t, Masks::default())
}

/// [`mask`], numbering on from `masks` (a value already numbered keeps its
/// number: two runs of one scenario side by side show the same answer with
/// the same mask).
pub(crate) fn mask_after(t: &Trace, mut masks: Masks) -> Masked {
    let mut trace = t.clone();
    // Numbers first, in the order the scenario types the values.
    for p in trace.prompts.iter().filter(|p| p.secret) {
        if let PrompterReply::Answer { value, .. } = &p.reply {
            masks.number(value);
        }
    }
    for b in trace.backend_calls.iter_mut().filter(|b| b.secret) {
        if let Some(v) = backend_answer(&mut b.reply) {
            masks.number(v);
        }
    }
    let questions = secret_questions(t);
    let secret_ids = |turn, cycle, call| questions.get(&(turn, cycle, call));
    for inv in &trace.invocations {
        for id in secret_ids(inv.at.turn, inv.at.cycle, inv.call_index)
            .into_iter()
            .flatten()
        {
            if let Some(v) = inv.answers.get(id) {
                masks.number(v);
            }
        }
    }
    // Then the masks, where the values sit.
    for p in trace.prompts.iter_mut().filter(|p| p.secret) {
        if let PrompterReply::Answer { value, .. } = &mut p.reply {
            masks.mask(value);
        }
    }
    for b in trace.backend_calls.iter_mut().filter(|b| b.secret) {
        if let Some(v) = backend_answer(&mut b.reply) {
            masks.mask(v);
        }
    }
    for inv in &mut trace.invocations {
        let Some(ids) = secret_ids(inv.at.turn, inv.at.cycle, inv.call_index) else {
            continue;
        };
        for id in ids {
            if let Some(v) = inv.answers.get_mut(id) {
                masks.mask(v);
            }
            if let Some(v) = inv
                .context
                .as_mut()
                .and_then(|c| c.pointer_mut("/tool/answers"))
                .and_then(|a| a.get_mut(id))
            {
                masks.mask(v);
            }
        }
    }
    let also = secret_request_events(t);
    let mut stream = t.persisted_json();
    if let Value::Array(events) = &mut stream {
        // The typed stream's answers where the JSON stream's sit (one event
        // each, same order).
        let typed: Vec<Value> = t
            .stream
            .iter()
            .map(|e| serde_json::to_value(e).unwrap_or(Value::Null))
            .collect();
        for (_, response) in secret_requests(&typed, &also) {
            if let Some(answer) = response
                .and_then(|r| trace.stream.get_mut(r))
                .and_then(answered_mut)
            {
                masks.mask(answer);
            }
        }
        masks.mask_events(events, &also);
        for e in &mut trace.stream {
            if let Some(answer) = answered_mut(e) {
                masks.mask_leaks(answer);
            }
        }
    }
    Masked {
        trace,
        stream,
        masks,
    }
}
