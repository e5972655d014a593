//! Comparing an observation with the expected one, on exactly what the RFDs
//! fix (rules `CONF-EXACT-CLASS`, `CONF-PARTIAL-ORDER`).
//!
//! Every compared field is marked [`Mark::Exact`] (an RFD fixes the value;
//! JSON is compared as a JSON value, never as bytes) or [`Mark::Class`] (the
//! RFDs fix only the kind of outcome; the text is the implementation's). The
//! marks are [`MARKS`], written into every vector file and documented in
//! `spec/vector-format.md`.
//!
//! Order: the RFDs fix the order of each tool call's own events, "recorded
//! before routed" per question, and turn boundaries — not one total order of
//! parallel calls (RFD 004: the ordering between tools does not affect
//! correctness). So the stream is cut into turns at `turn_start`, and within
//! a turn into per-call sequences; prompts are compared by how many of their
//! own call's events were persisted when they were shown; invocations and
//! responses per call, in order.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;

use super::observe::{Observed, Prompt};
use crate::model::coordinator::ResponseKind;
use crate::scenario::{Program, Scenario};

/// How a field is compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mark {
    /// The value must be equal (JSON values compare as values).
    Exact,
    /// Only the class: for a tool response, `is_error` and its
    /// [`ResponseKind`]; the text is not compared.
    Class,
    /// Not compared at all.
    Ignored,
}

/// Every compared field, its mark, and the RFD sentence (or the reason) that
/// fixes it. Written into every vector as `compare`. Each `Exact` field
/// rests on an RFD sentence (`tests/suite/conformance/exact_marks.rs` lists them verbatim and
/// finds each in the RFD texts), or is the model's own decision, named by
/// the pin ([`super::PINS`]) that vectors resting on it carry.
pub const MARKS: [(&str, Mark, &str); 19] = [
    (
        "stream.turn_start",
        Mark::Exact,
        "RFD 082 \"Inquiry ID format\": the attempt counter resets only at turn boundaries (IDs are unique within a turn); turn boundaries order everything",
    ),
    (
        "stream.tool_call_request",
        Mark::Exact,
        "id and name (the pairing key of every inquiry ID, RFD 082 \"Inquiry ID format\")",
    ),
    (
        "stream.tool_call_response.is_error",
        Mark::Exact,
        "RFD 082 step 6: the response is unchanged (a cancelled prompt is a success, a failure an error)",
    ),
    (
        "stream.tool_call_response.content",
        Mark::Ignored,
        "RFD 082 step 6: \"existing wording\", not quoted; compared as tool_responses.kind",
    ),
    (
        "stream.tool_call_response.content[ask_user success]",
        Mark::Exact,
        "RFD 083 \"ask_user\" success body {answer_type, answer}, compared as a JSON value from the persisted stream, whatever the adapter observes",
    ),
    (
        "stream.inquiry_request",
        Mark::Exact,
        "RFD 082 \"Recording lifecycle\" step 2 (InquiryRequest { id, source, question }, the same answer_type) and RFD 083 \"Persisted recording\" fix every field (JSON value; a select option as its value and description, in whichever shape it is written)",
    ),
    (
        "stream.inquiry_response",
        Mark::Exact,
        "RFD 082 \"InquiryResponse serialization\": answered / redacted / cancelled {reason} (JSON value)",
    ),
    (
        "stream.order",
        Mark::Class,
        "partial order: each call's own events in order within its turn; no order between calls (RFD 004)",
    ),
    (
        "invocations.answers",
        Mark::Exact,
        "RFD 082 \"Pre-seed removal\": accumulated answers keyed by bare question ID (JSON value), per call in order",
    ),
    (
        "tool_responses.is_error",
        Mark::Exact,
        "RFD 082 step 6 (unchanged response), RFD 083 steps 6-7 (tool-level errors)",
    ),
    (
        "tool_responses[permission_denied].is_error",
        Mark::Ignored,
        "RFD 082 Non-Goals: permission prompts \"remain outside the scope of this RFD\"; no RFD here fixes a denied call's is_error (in the stream too); compared by tool_responses.kind only",
    ),
    (
        "tool_responses.kind",
        Mark::Class,
        "which outcome the response reports; its text is the implementation's",
    ),
    (
        "tool_responses.content[ask_user success]",
        Mark::Exact,
        "RFD 083 \"ask_user\" success body {answer_type, answer}, compared as a JSON value",
    ),
    (
        "tool_responses.content[other]",
        Mark::Ignored,
        "wording the RFDs leave to the implementation",
    ),
    (
        "prompts.own_events_before",
        Mark::Exact,
        "RFD 082 step 2: recorded before routed (own call's events persisted when shown)",
    ),
    (
        "prompts.presentation",
        Mark::Exact,
        "input, label, echo, remember_affordance only (RFD 082 \"Secret questions\", RFD 083 Phase 1 step 4)",
    ),
    (
        "remembered",
        Mark::Exact,
        "RFD 082 \"Splitting the turn-cache state\": the keys per map at turn end, as sets",
    ),
    (
        "tool_responses[result_withheld]",
        Mark::Exact,
        "the model's decision, no RFD here fixes it (pin delivery-withheld-response): a result withheld at the delivery prompt is a success (is_error false), like a cancelled prompt (spec/DECISIONS.md \"The result-delivery prompt\")",
    ),
    (
        "inquiry_models",
        Mark::Exact,
        "the model's decision (pin backend-model-choice): RFD 034's per-question model is not among the RFDs here; the model each backend call asks when one is chosen (the question's own wins), as a set",
    ),
];

/// The first place two observations differ.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Divergence {
    /// What kind of difference (`stream/turns`, `stream/calls`,
    /// `stream/<event type>`, `invocations`, `tool_responses/class`,
    /// `tool_responses/body` (two successes whose bodies alone differ),
    /// `prompts`, `inquiry_models`, `remembered`): shrinking keeps it.
    pub kind: String,
    /// Where: turn, call and index as they apply.
    pub at: String,
    /// What the model did there.
    pub expected: String,
    /// What the implementation did there.
    pub actual: String,
    /// The root cause it is grouped by ([`Signature`]): the differing
    /// values, not where they first show.
    pub signature: Signature,
}

/// A divergence's root cause, as the values that differ (model → implementation):
/// `inquiry_response reason: user → backend_error`, `call never run`,
/// `tool response kind: cancelled_by_user → inquiry_failed`,
/// `inquiry_request missing`. It names no call, tool, question or answer, so
/// the same bug has the same signature in every scenario, and never holds an
/// answer value (rule `CONF-GROUP-SIGNATURE`; `spec/conform-protocol.md`
/// "Groups").
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Signature(pub String);

impl std::fmt::Display for Signature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Signature {
    fn of(s: impl Into<String>) -> Signature {
        Signature(s.into())
    }
}

fn show<T: Serialize>(x: Option<&T>) -> String {
    shown(x, |v| serde_json::to_string(v).unwrap_or_default())
}

/// `label(x)`, or `(nothing)` where one side has no such entry.
fn shown<T>(x: Option<&T>, label: impl Fn(&T) -> String) -> String {
    x.map(label).unwrap_or_else(|| "(nothing)".to_owned())
}

fn json(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// An invocation as a reader reads it: `tool: fs, answers: {…}`.
fn label_invocation((tool, answers): &(String, Value)) -> String {
    format!("tool: {tool}, answers: {}", json(answers))
}

/// A tool response's class: `is_error: false, kind: cancelled_by_user`
/// (`is_error: not compared` for a permission denial), with the `ask_user`
/// success body when there is one.
fn label_response((is_error, kind, body): &ResponseClass) -> String {
    let e = match is_error {
        Some(b) => b.to_string(),
        None => "not compared".to_owned(),
    };
    let k = serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| format!("{kind:?}"));
    match body {
        Some(b) => format!("is_error: {e}, kind: {k}, body: {}", json(b)),
        None => format!("is_error: {e}, kind: {k}"),
    }
}

/// A prompt as compared: `events persisted before the prompt: 2,
/// presentation: {…}`.
fn label_prompt((before, presentation): &(usize, Value)) -> String {
    format!(
        "events of its call persisted before the prompt: {before}, presentation: {}",
        json(presentation)
    )
}

/// A turn's remembered keys: `tool_answers: [...], permission_decisions: [...]`.
fn label_remembered(r: &super::observe::Remembered) -> String {
    format!(
        "tool_answers: {:?}, permission_decisions: {:?}",
        r.tool_answers, r.permission_decisions
    )
}

/// The class projection of a persisted event: a tool-call response loses
/// its text; an inquiry request's select options are compared as the
/// options they are ([`as_option`]).
fn class_of(event: &Value) -> Value {
    match (event.get("type").and_then(Value::as_str), event.as_object()) {
        (Some("tool_call_response"), Some(m)) => {
            let mut m = m.clone();
            m.remove("content");
            Value::Object(m)
        }
        (Some("inquiry_request"), Some(_)) => {
            let mut e = event.clone();
            if let Some(Value::Array(options)) = e.pointer_mut("/question/answer_type/options") {
                options.iter_mut().for_each(as_option);
            }
            e
        }
        _ => event.clone(),
    }
}

/// A select option as the option it is, in one shape whatever shape it was
/// written in: the `{value, description?}` object of its value and
/// description as the crate's reader reads them (a plain string or number
/// is its own value; spec/DECISIONS.md "Wire: a select option is read in
/// the writer's shapes"). An entry that does not read as an option stays
/// as written, so it still differs.
fn as_option(option: &mut Value) {
    if let Ok(o) = crate::wire::SelectOption::read(option.clone()) {
        let mut m = serde_json::Map::new();
        m.insert("value".to_owned(), o.value);
        if let Some(d) = o.description {
            m.insert("description".to_owned(), Value::String(d));
        }
        *option = Value::Object(m);
    }
}

/// A turn of [`turns`] as a reader counts it (`turn 0` is the first
/// `turn_start`).
fn turn_name(t: usize) -> String {
    match t {
        0 => "before the first turn_start".to_owned(),
        n => format!("turn {}", n - 1),
    }
}

/// One turn: per tool call, its own events in order.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Turn {
    pub(crate) calls: BTreeMap<String, Vec<Value>>,
}

/// The call an event belongs to: tool-call events by `id`; inquiry events
/// by the longest tool-call ID of the turn that prefixes their ID followed
/// by `.` (RFD 082 "Inquiry ID format"); otherwise `""`.
fn call_of(event: &Value, known: &BTreeSet<String>) -> String {
    let id = event.get("id").and_then(Value::as_str).unwrap_or("");
    match event.get("type").and_then(Value::as_str) {
        Some("tool_call_request" | "tool_call_response") => id.to_owned(),
        _ => known
            .iter()
            .filter(|c| {
                id.len() > c.len() && id.starts_with(c.as_str()) && id[c.len()..].starts_with('.')
            })
            .max_by_key(|c| c.len())
            .cloned()
            .unwrap_or_default(),
    }
}

/// The stream cut at `turn_start` (events before the first go to turn 0 of
/// their own, which the model never has), each turn cut per call; with, for
/// every stream position, `(turn, call, events of that call so far)` of the
/// event at that position.
pub(crate) fn turns(stream: &[Value]) -> (Vec<Turn>, Vec<(usize, String, usize)>) {
    let mut turns = vec![Turn::default()];
    let mut known = BTreeSet::new();
    let mut at = Vec::with_capacity(stream.len());
    for e in stream {
        if e.get("type").and_then(Value::as_str) == Some("turn_start") {
            turns.push(Turn::default());
            known.clear();
            at.push((turns.len() - 1, String::new(), 0));
            continue;
        }
        if e.get("type").and_then(Value::as_str) == Some("tool_call_request")
            && let Some(id) = e.get("id").and_then(Value::as_str)
        {
            known.insert(id.to_owned());
        }
        let call = call_of(e, &known);
        let t = turns.len() - 1;
        let list = turns[t].calls.entry(call.clone()).or_default();
        list.push(class_of(e));
        at.push((t, call, list.len()));
    }
    (turns, at)
}

/// How many of its own call's events were persisted (in its turn) when a
/// prompt was shown.
fn own_before(p: &Prompt, stream: &[Value], at: &[(usize, String, usize)]) -> usize {
    let pos = p.stream_position.min(stream.len());
    let turn = at[..pos]
        .iter()
        .rev()
        .map(|(t, _, _)| *t)
        .next()
        .unwrap_or(0);
    at[..pos]
        .iter()
        .rev()
        .take_while(|(t, _, _)| *t == turn)
        .filter(|(_, c, _)| *c == p.tool_call_id)
        .map(|(_, _, n)| *n)
        .next()
        .unwrap_or(0)
}

fn grouped<T: Clone>(items: &[T], key: impl Fn(&T) -> &str) -> BTreeMap<String, Vec<T>> {
    let mut m: BTreeMap<String, Vec<T>> = BTreeMap::new();
    for i in items {
        m.entry(key(i).to_owned()).or_default().push(i.clone());
    }
    m
}

fn first_in_groups<T: PartialEq>(
    kind: &str,
    a: &BTreeMap<String, Vec<T>>,
    b: &BTreeMap<String, Vec<T>>,
    label: impl Fn(&T) -> String,
    root: impl Fn(Option<&T>, Option<&T>) -> String,
) -> Option<(Divergence, Option<String>)> {
    let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    for k in keys {
        let (x, y) = (
            a.get(k).map(Vec::as_slice).unwrap_or(&[]),
            b.get(k).map(Vec::as_slice).unwrap_or(&[]),
        );
        for i in 0..x.len().max(y.len()) {
            if x.get(i) != y.get(i) {
                return Some((
                    Divergence {
                        kind: kind.to_owned(),
                        at: format!("call {k}, #{i}"),
                        expected: shown(x.get(i), &label),
                        actual: shown(y.get(i), &label),
                        signature: Signature::of(root(x.get(i), y.get(i))),
                    },
                    Some(k.clone()),
                ));
            }
        }
    }
    None
}

/// `what missing` / `what extra` where one side has nothing, else
/// `differs(x, y)`.
fn presence<T>(
    what: &str,
    x: Option<&T>,
    y: Option<&T>,
    differs: impl Fn(&T, &T) -> String,
) -> String {
    match (x, y) {
        (Some(x), Some(y)) => differs(x, y),
        (Some(_), None) => format!("{what} missing"),
        (None, Some(_)) => format!("{what} extra"),
        (None, None) => format!("{what} differs"),
    }
}

/// The names of the top-level fields two JSON objects differ in, sorted.
fn differing_fields(x: &Value, y: &Value) -> String {
    let empty = serde_json::Map::new();
    let (a, b) = (
        x.as_object().unwrap_or(&empty),
        y.as_object().unwrap_or(&empty),
    );
    let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    let differ: Vec<&str> = keys
        .into_iter()
        .filter(|k| a.get(*k) != b.get(*k))
        .map(String::as_str)
        .collect();
    match differ.as_slice() {
        [] => "differs".to_owned(),
        [one] => format!("{one} differs"),
        many => format!("{} differ", many.join(", ")),
    }
}

fn str_field<'v>(v: &'v Value, field: &str) -> &'v str {
    v.get(field).and_then(Value::as_str).unwrap_or("?")
}

/// An `inquiry_response`'s outcome as a signature shows it: `answered`,
/// `redacted`, `cancelled (reason)`.
fn outcome_label(v: &Value) -> String {
    match str_field(v, "outcome") {
        "cancelled" => format!("cancelled ({})", str_field(v, "reason")),
        other => other.to_owned(),
    }
}

/// The root cause of two differing events of one call, by their values:
/// an `inquiry_response`'s outcome or reason, a `tool_call_response`'s
/// `is_error`, another event's differing field names.
fn event_root(x: &Value, y: &Value) -> String {
    let (tx, ty) = (str_field(x, "type"), str_field(y, "type"));
    if tx != ty {
        return format!("event {tx} → {ty}");
    }
    match tx {
        "inquiry_response" => {
            let (ox, oy) = (str_field(x, "outcome"), str_field(y, "outcome"));
            if ox != oy {
                format!(
                    "inquiry_response outcome: {} → {}",
                    outcome_label(x),
                    outcome_label(y)
                )
            } else if ox == "cancelled" && x.get("reason") != y.get("reason") {
                format!(
                    "inquiry_response reason: {} → {}",
                    str_field(x, "reason"),
                    str_field(y, "reason")
                )
            } else {
                format!("inquiry_response {}", differing_fields(x, y))
            }
        }
        "tool_call_response" if x.get("is_error") != y.get("is_error") => format!(
            "tool_call_response is_error: {} → {}",
            show(x.get("is_error")),
            show(y.get("is_error"))
        ),
        other => format!("{other} {}", differing_fields(x, y)),
    }
}

/// A tool response's kind as JSON names it (`cancelled_by_user`).
fn kind_name(kind: &ResponseKind) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| format!("{kind:?}"))
}

/// The root cause of two differing tool-response classes.
fn response_root(x: &ResponseClass, y: &ResponseClass) -> String {
    if x.1 != y.1 {
        format!(
            "tool response kind: {} → {}",
            kind_name(&x.1),
            kind_name(&y.1)
        )
    } else if x.0 != y.0 {
        format!(
            "tool response {}: is_error {} → {}",
            kind_name(&x.1),
            show(x.0.as_ref()),
            show(y.0.as_ref())
        )
    } else {
        format!("tool response {}: body differs", kind_name(&x.1))
    }
}

/// The root cause found on the call where the first difference is, in
/// this order, whatever kind of entry showed it first: the first of its
/// `inquiry_response` events both sides persisted that differ (outcome,
/// reason); a run of it the implementation never ran (fewer
/// `tool_call_request` events or fewer invocations than the model's);
/// the first of its tool responses both sides gave that differ. `None`:
/// the divergence's own root stands.
fn call_root(
    scenario: &Scenario,
    (et, at): (&[Turn], &[Turn]),
    expected: &Observed,
    actual: &Observed,
    call: &str,
) -> Option<String> {
    let events = |turns: &[Turn], ty: &str| -> Vec<Value> {
        turns
            .iter()
            .filter_map(|t| t.calls.get(call))
            .flatten()
            .filter(|e| e.get("type").and_then(Value::as_str) == Some(ty))
            .cloned()
            .collect()
    };
    let pair = |ty: &str| {
        events(et, ty)
            .into_iter()
            .zip(events(at, ty))
            .find(|(x, y)| x != y)
    };
    if let Some((x, y)) = pair("inquiry_response") {
        return Some(event_root(&x, &y));
    }
    let invocations = |o: &Observed| {
        o.invocations
            .iter()
            .filter(|i| i.tool_call_id == call)
            .count()
    };
    if events(at, "tool_call_request").len() < events(et, "tool_call_request").len()
        || invocations(actual) < invocations(expected)
    {
        return Some("call never run".to_owned());
    }
    let classes = |o: &Observed| -> Vec<ResponseClass> {
        o.tool_responses
            .iter()
            .filter(|r| r.tool_call_id == call)
            .map(|r| response_class(scenario, r))
            .collect()
    };
    classes(expected)
        .into_iter()
        .zip(classes(actual))
        .find(|(x, y)| x != y)
        .map(|(x, y)| response_root(&x, &y))
}

/// Whether this call's tool is the `ask_user` built-in in the scenario.
fn is_ask_user(scenario: &Scenario, tool: &str) -> bool {
    scenario
        .tools
        .get(tool)
        .is_some_and(|t| matches!(t.program, Program::AskUser))
}

/// The compared class of a tool response.
type ResponseClass = (Option<bool>, ResponseKind, Option<Value>);

/// The class of a tool response: `(is_error, kind, body)`, where `body` is
/// the content as a JSON value for an `ask_user` success and `None`
/// otherwise, and `is_error` is `None` for a permission denial (its
/// [`MARKS`] row: no RFD here fixes it).
fn response_class(scenario: &Scenario, r: &super::observe::ToolResponse) -> ResponseClass {
    let body = match (r.kind, is_ask_user(scenario, &r.tool)) {
        (ResponseKind::ToolSuccess, true) => Some(
            serde_json::from_str::<Value>(&r.content)
                .unwrap_or_else(|_| Value::String(r.content.clone())),
        ),
        (ResponseKind::ToolSuccess, false)
        | (ResponseKind::ToolError, _)
        | (ResponseKind::CancelledByUser, _)
        | (ResponseKind::InquiryFailed, _)
        | (ResponseKind::Refused(_), _)
        | (ResponseKind::PermissionDenied, _)
        | (ResponseKind::UnknownTool, _)
        | (ResponseKind::ResultWithheld, _) => None,
    };
    (compared_is_error(r.kind, r.is_error), r.kind, body)
}

/// `is_error` where it is compared: not for a permission denial (RFD 082
/// Non-Goals keep permission prompts out of scope; a real implementation
/// may answer "Tool skipped by user." as a success).
fn compared_is_error(kind: ResponseKind, is_error: bool) -> Option<bool> {
    match kind {
        ResponseKind::PermissionDenied => None,
        ResponseKind::ToolSuccess
        | ResponseKind::ToolError
        | ResponseKind::CancelledByUser
        | ResponseKind::InquiryFailed
        | ResponseKind::Refused(_)
        | ResponseKind::UnknownTool
        | ResponseKind::ResultWithheld => Some(is_error),
    }
}

/// The kind of every tool response of the model's own run, per call in
/// order: what the stream's compared view of a response rests on, taken
/// from the model's run whatever the implementation observes (rule
/// `CONF-CAPABILITIES`: a kind left out blanks only itself).
pub(crate) type ResponseKinds = BTreeMap<String, Vec<ResponseKind>>;

/// [`ResponseKinds`] of an observation (the model's: its tool responses).
pub(crate) fn response_kinds(expected: &Observed) -> ResponseKinds {
    let mut kinds = ResponseKinds::new();
    for r in &expected.tool_responses {
        kinds
            .entry(r.tool_call_id.clone())
            .or_default()
            .push(r.kind);
    }
    kinds
}

/// `stream` as compared, by what the model's run says each response is
/// (the n-th response event of a call is the model's n-th tool response of
/// that call): a permission denial loses `is_error` (no RFD here fixes it);
/// an `ask_user` success carries its body as a JSON value under `body`
/// (RFD 083: "The success body is a stable JSON shape"), so the stream
/// compares it even where `responded` is not observed.
fn stream_view(scenario: &Scenario, stream: &[Value], kinds: &ResponseKinds) -> Vec<Value> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut tools: BTreeMap<String, String> = BTreeMap::new();
    stream
        .iter()
        .map(|e| {
            let ty = e.get("type").and_then(Value::as_str);
            let id = e.get("id").and_then(Value::as_str);
            if let (Some("tool_call_request"), Some(id), Some(name)) =
                (ty, id, e.get("name").and_then(Value::as_str))
            {
                tools.insert(id.to_owned(), name.to_owned());
            }
            match (ty, id, e.as_object()) {
                (Some("tool_call_response"), Some(id), Some(m)) => {
                    let n = seen.entry(id.to_owned()).or_default();
                    let kind = kinds.get(id).and_then(|k| k.get(*n)).copied();
                    *n += 1;
                    let mut m = m.clone();
                    if let Some(None) = kind.map(|k| compared_is_error(k, false)) {
                        m.remove("is_error");
                    }
                    let ask_user = tools.get(id).is_some_and(|t| is_ask_user(scenario, t));
                    if let (Some(ResponseKind::ToolSuccess), true) = (kind, ask_user) {
                        let content = m.get("content").cloned().unwrap_or(Value::Null);
                        let body = match &content {
                            Value::String(text) => {
                                serde_json::from_str::<Value>(text).unwrap_or(content)
                            }
                            _ => content,
                        };
                        m.insert("body".to_owned(), body);
                    }
                    Value::Object(m)
                }
                _ => e.clone(),
            }
        })
        .collect()
}

/// Compares `actual` with `expected` on what `observes` covers: the kinds
/// left out are blanked on both sides ([`super::witness::restrict`]),
/// prompts without a call ID attributed by `expected`
/// ([`super::witness::attribute`]); what the stream's view of a response
/// rests on comes from `expected` whole, whatever is observed.
pub(crate) fn compare_under(
    scenario: &Scenario,
    expected: &Observed,
    actual: &Observed,
    observes: &BTreeSet<super::witness::EntryKind>,
) -> Option<Divergence> {
    let kinds = response_kinds(expected);
    let expected = super::witness::restrict(expected.clone(), observes);
    let mut actual = super::witness::restrict(actual.clone(), observes);
    super::witness::attribute(&mut actual, &expected);
    compare_with(scenario, &expected, &actual, &kinds)
}

/// Compares an observation with the expected one on [`MARKS`]; the first
/// divergence, or `None`. Its [`Signature`] is the root cause found on the
/// call where it is ([`call_root`]), else the differing values at the
/// place itself.
pub fn compare(scenario: &Scenario, expected: &Observed, actual: &Observed) -> Option<Divergence> {
    compare_with(scenario, expected, actual, &response_kinds(expected))
}

/// [`compare`], the stream's view of each response resting on `kinds`.
fn compare_with(
    scenario: &Scenario,
    expected: &Observed,
    actual: &Observed,
    kinds: &ResponseKinds,
) -> Option<Divergence> {
    let (mut d, call) = first_difference(scenario, expected, actual, kinds)?;
    if let Some(call) = call {
        let (et, _) = turns(&stream_view(scenario, &expected.stream, kinds));
        let (at, _) = turns(&stream_view(scenario, &actual.stream, kinds));
        if let Some(root) = call_root(scenario, (&et, &at), expected, actual, &call) {
            d.signature = Signature(root);
        }
    }
    Some(d)
}

/// The first divergence and the call it is on, if on one; its signature
/// the differing values at that place.
fn first_difference(
    scenario: &Scenario,
    expected: &Observed,
    actual: &Observed,
    kinds: &ResponseKinds,
) -> Option<(Divergence, Option<String>)> {
    let (et, eat) = turns(&stream_view(scenario, &expected.stream, kinds));
    let (at_, aat) = turns(&stream_view(scenario, &actual.stream, kinds));
    if et.len() != at_.len() {
        return Some((
            Divergence {
                kind: "stream/turns".to_owned(),
                at: "stream".to_owned(),
                expected: format!("{} turn_start events", et.len() - 1),
                actual: format!("{} turn_start events", at_.len() - 1),
                signature: Signature::of(if at_.len() < et.len() {
                    "turn_start missing"
                } else {
                    "turn_start extra"
                }),
            },
            None,
        ));
    }
    for (t, (e, a)) in et.iter().zip(&at_).enumerate() {
        let ek: Vec<&String> = e.calls.keys().collect();
        let ak: Vec<&String> = a.calls.keys().collect();
        if ek != ak {
            let missing = ek.iter().find(|c| !a.calls.contains_key(**c));
            let extra = ak.iter().find(|c| !e.calls.contains_key(**c));
            let (call, root) = match (missing, extra) {
                (Some(c), _) => ((*c).clone(), "call's events missing from a turn"),
                (None, Some(c)) => ((*c).clone(), "call's events extra in a turn"),
                (None, None) => (String::new(), "calls of a turn differ"),
            };
            return Some((
                Divergence {
                    kind: "stream/calls".to_owned(),
                    at: turn_name(t),
                    expected: format!("events of calls {ek:?}"),
                    actual: format!("events of calls {ak:?}"),
                    signature: Signature::of(root),
                },
                Some(call),
            ));
        }
        for (call, x) in &e.calls {
            let y = &a.calls[call];
            for i in 0..x.len().max(y.len()) {
                if x.get(i) != y.get(i) {
                    let ty = x
                        .get(i)
                        .or(y.get(i))
                        .and_then(|v| v.get("type"))
                        .and_then(Value::as_str)
                        .unwrap_or("event");
                    return Some((
                        Divergence {
                            kind: format!("stream/{ty}"),
                            at: format!("{}, call {call:?}, event #{i} of that call", turn_name(t)),
                            expected: show(x.get(i)),
                            actual: show(y.get(i)),
                            signature: Signature::of(presence(ty, x.get(i), y.get(i), event_root)),
                        },
                        Some(call.clone()),
                    ));
                }
            }
        }
    }
    let inv = |o: &Observed| {
        let g = grouped(&o.invocations, |i| &i.tool_call_id);
        g.into_iter()
            .map(|(k, v)| {
                let v: Vec<(String, Value)> = v.into_iter().map(|i| (i.tool, i.answers)).collect();
                (k, v)
            })
            .collect::<BTreeMap<_, _>>()
    };
    if let Some(d) = first_in_groups(
        "invocations",
        &inv(expected),
        &inv(actual),
        label_invocation,
        |x, y| {
            presence("invocation", x, y, |x, y| {
                if x.0 != y.0 {
                    "invocation tool differs".to_owned()
                } else {
                    "invocation answers differ".to_owned()
                }
            })
        },
    ) {
        return Some(d);
    }
    let resp = |o: &Observed| {
        grouped(&o.tool_responses, |r| &r.tool_call_id)
            .into_iter()
            .map(|(k, v)| {
                let v: Vec<_> = v.iter().map(|r| response_class(scenario, r)).collect();
                (k, v)
            })
            .collect::<BTreeMap<_, _>>()
    };
    if let Some(mut d) = first_in_groups(
        "tool_responses/class",
        &resp(expected),
        &resp(actual),
        label_response,
        |x, y| presence("tool response", x, y, response_root),
    ) {
        // Only the body differs: both successes, the same `is_error`.
        if d.0.signature.0.ends_with(": body differs") {
            d.0.kind = "tool_responses/body".to_owned();
        }
        return Some(d);
    }
    let prompts = |o: &Observed, at: &[(usize, String, usize)]| {
        grouped(&o.prompts, |p| &p.tool_call_id)
            .into_iter()
            .map(|(k, v)| {
                let v: Vec<(usize, Value)> = v
                    .iter()
                    .map(|p| (own_before(p, &o.stream, at), p.presentation.clone()))
                    .collect();
                (k, v)
            })
            .collect::<BTreeMap<_, _>>()
    };
    if let Some(d) = first_in_groups(
        "prompts",
        &prompts(expected, &eat),
        &prompts(actual, &aat),
        label_prompt,
        |x, y| {
            presence("prompt", x, y, |x, y| {
                if x.0 > y.0 {
                    "prompt shown with fewer of its call's events persisted".to_owned()
                } else if x.0 < y.0 {
                    "prompt shown with more of its call's events persisted".to_owned()
                } else {
                    format!("prompt presentation {}", differing_fields(&x.1, &y.1))
                }
            })
        },
    ) {
        return Some(d);
    }
    let models = |o: &Observed| {
        let mut m = o.inquiry_models.clone();
        m.sort();
        m
    };
    let (x, y) = (models(expected), models(actual));
    if x != y {
        let label = |m: &[super::observe::InquiryModel]| match m {
            [] => "no chosen model asked".to_owned(),
            m => m
                .iter()
                .map(|m| {
                    format!(
                        "call {} question {}: model {}",
                        m.tool_call_id, m.question_id, m.model
                    )
                })
                .collect::<Vec<_>>()
                .join("; "),
        };
        return Some((
            Divergence {
                kind: "inquiry_models".to_owned(),
                at: "backend calls".to_owned(),
                expected: label(&x),
                actual: label(&y),
                signature: Signature::of("inquiry models differ"),
            },
            None,
        ));
    }
    let (x, y) = (&expected.remembered, &actual.remembered);
    (0..x.len().max(y.len())).find_map(|i| {
        (x.get(i) != y.get(i)).then(|| {
            let root = presence("remembered turn", x.get(i), y.get(i), |x, y| {
                let mut maps = Vec::new();
                if x.tool_answers != y.tool_answers {
                    maps.push("tool_answers");
                }
                if x.permission_decisions != y.permission_decisions {
                    maps.push("permission_decisions");
                }
                format!("remembered {} keys differ", maps.join(", "))
            });
            (
                Divergence {
                    kind: "remembered".to_owned(),
                    at: format!("turn {i}"),
                    expected: shown(x.get(i), label_remembered),
                    actual: shown(y.get(i), label_remembered),
                    signature: Signature::of(root),
                },
                None,
            )
        })
    })
}

/// Both sides of the stream, per turn and call (the order compared), model
/// on the left; `*` marks lines that differ.
pub fn side_by_side(expected: &Observed, actual: &Observed) -> String {
    const W: usize = 70;
    let cut = |v: Option<&Value>| -> String {
        let s = v.map(Value::to_string).unwrap_or_default();
        if s.chars().count() > W {
            s.chars().take(W - 1).collect::<String>() + "…"
        } else {
            s
        }
    };
    let (et, _) = turns(&expected.stream);
    let (at, _) = turns(&actual.stream);
    let mut out = format!("  {:<W$} | implementation\n", "model");
    for t in 0..et.len().max(at.len()) {
        let empty = Turn::default();
        let (e, a) = (et.get(t).unwrap_or(&empty), at.get(t).unwrap_or(&empty));
        if t > 0 {
            out.push_str(&format!("  -- turn {} --\n", t - 1));
        }
        let calls: BTreeSet<&String> = e.calls.keys().chain(a.calls.keys()).collect();
        for c in calls {
            let (x, y) = (
                e.calls.get(c).map(Vec::as_slice).unwrap_or(&[]),
                a.calls.get(c).map(Vec::as_slice).unwrap_or(&[]),
            );
            out.push_str(&format!("  [call {c:?}]\n"));
            for i in 0..x.len().max(y.len()) {
                let mark = if x.get(i) == y.get(i) { ' ' } else { '*' };
                out.push_str(&format!(
                    "{mark} {:<W$} | {}\n",
                    cut(x.get(i)),
                    cut(y.get(i))
                ));
            }
        }
    }
    out
}
