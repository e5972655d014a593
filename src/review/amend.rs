//! Amendment review: what changes between two rule sets, shown by running
//! the same scenarios under both and classifying every difference; and which
//! invariants of the catalog hold under a profile.
//!
//! Reviewers of an RFD amendment ask "what exactly changes?". RFD 082 answers
//! in prose (its Drawbacks section); `diff_profiles` answers with counts
//! and the smallest scenario that shows each change, and
//! [`invariant_matrix`] with the invariants each stage keeps or breaks.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;

use crate::check::Diagnostic;
use crate::generate::scenario as strategy;
use crate::invariants::{
    INVARIANTS, StepChecker, StreamMemo, check_step, check_trace, check_trace_memo,
};
use crate::model::coordinator::RouteTaken;
use crate::profile::{ProfileName, ResponseForm};
pub use crate::review::mermaid::event_line;
use crate::review::profile_file::RuleSet;
use crate::scenario::strip::{strip, without_unused_by};
use crate::scenario::{self, RunOptions, Scenario, Trace};
use crate::stream;
use crate::wire::{EventKind, InquiryResponse};
use crate::words;
use review_scenarios::{ReviewScenarios, Unit};

/// A kind of behavioural difference between two runs of one scenario.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case", tag = "class", content = "reason")]
pub(crate) enum Class {
    /// Prompter-answered round-trips are recorded in one and not the other.
    PrompterAnswerRecorded,
    /// Cache-answered round-trips are recorded in one and not the other.
    CachedAnswerRecorded,
    /// Static-answered round-trips are recorded in one and not the other.
    StaticAnswerRecorded,
    /// A tool's first invocation sees a static answer in one and not the
    /// other (pre-seeding versus delivery on `NeedsInput`).
    StaticAnswerDeliveredLater,
    /// The number of `Cancelled` responses with this reason differs.
    CancellationRecorded(String),
    /// The number of `Redacted` responses differs.
    RedactedRecorded,
    /// The number of requests left without a response differs.
    UnpairedRequest,
    /// The same backend-routed question is recorded under a different ID.
    IdShape,
    /// Responses are written flat (`{id, answer}`) in one and tagged in the other.
    ResponseShape,
    /// The persisted question carries different fields for the same inquiry.
    QuestionFields,
    /// The turn cache answers a different number of questions.
    CachedAnswerUsed,
    /// A different number of prompts is shown.
    PromptShown,
    /// Echo at the prompt differs (no-echo secret input).
    PromptEcho,
    /// The prompt's "who's asking" label differs.
    PromptLabel,
    /// The "remember for turn" affordance differs.
    RememberAffordance,
    /// The inquiry backend is called a different number of times.
    BackendCalled,
    /// Tools are invoked a different number of times, or see other answers.
    ToolInvocations,
    /// What the model is told (tool responses) differs.
    ToolResponseText,
    /// The same inquiry is recorded with another `InquirySource` (pre-082
    /// the tool's name, from RFD 082 Phase 1 the built-in's hook).
    ProvenanceSource,
    /// The keys of the two remembered maps (tool answers, permission
    /// decisions) at a turn's end differ.
    RememberedKeys,
}

impl Class {
    /// A stable name (`cancellation_recorded:user`).
    pub(crate) fn name(&self) -> String {
        let s = serde_json::to_value(self).unwrap_or(Value::Null);
        match (
            s.get("class").and_then(Value::as_str),
            s.get("reason").and_then(Value::as_str),
        ) {
            (Some(c), Some(r)) => format!("{c}:{r}"),
            (Some(c), None) => c.to_owned(),
            (None, _) => format!("{self:?}"),
        }
    }

    /// One line for a reviewer.
    pub(crate) fn describe(&self) -> String {
        match self {
            Class::PrompterAnswerRecorded => "recorded prompter-answered round-trips (RFD 082: stream growth)".to_owned(),
            Class::CachedAnswerRecorded => "recorded cache-answered round-trips".to_owned(),
            Class::StaticAnswerRecorded => "recorded static-answered round-trips".to_owned(),
            Class::StaticAnswerDeliveredLater => {
                "what a tool sees on its first invocation (static answers pre-seeded vs delivered after `NeedsInput`)".to_owned()
            }
            Class::CancellationRecorded(r) => format!("`cancelled` responses with reason `{r}`"),
            Class::RedactedRecorded => "`redacted` responses (secret answers)".to_owned(),
            Class::UnpairedRequest => "requests left without a response (e.g. after a backend error)".to_owned(),
            Class::IdShape => "inquiry ID shape (two segments vs `.attempt`)".to_owned(),
            Class::ResponseShape => "response shape on disk (flat `{id, answer}` vs tagged `outcome`)".to_owned(),
            Class::QuestionFields => "fields of the persisted question (context/exclusive/persistence)".to_owned(),
            Class::CachedAnswerUsed => "questions the turn cache answers".to_owned(),
            Class::PromptShown => "prompts shown to the user".to_owned(),
            Class::PromptEcho => "prompt echo (no-echo secret input)".to_owned(),
            Class::PromptLabel => "the prompt's who's-asking label".to_owned(),
            Class::RememberAffordance => "the y/Y/n/N remember-for-turn affordance".to_owned(),
            Class::BackendCalled => "inquiry-backend calls".to_owned(),
            Class::ToolInvocations => "tool invocations and the answers tools see".to_owned(),
            Class::ToolResponseText => "tool response text the model sees".to_owned(),
            Class::ProvenanceSource => {
                "the recorded source of the same inquiry (tool name vs the built-in's hook)"
                    .to_owned()
            }
            Class::RememberedKeys => {
                "the keys of the remembered maps (tool answers, permission decisions) at each turn's end"
                    .to_owned()
            }
        }
    }
}

/// The switches that change where a question goes (the routing guards, the
/// static answer, the cache, and whether a question is refused for its ID),
/// and the route table's rows.
const ROUTED: &[&str] = &[
    "route",
    "question_id_separator",
    "secret_type",
    "exclusive",
    "static_delivery",
    "static_validation",
    "persistence_gate",
    "turn_cache",
];

/// The switches that change what the remembered maps hold at a turn's
/// end: which map a key goes to, what is remembered (a statically answered
/// question never reaches the cache), and the key's parts.
const REMEMBERED: &[&str] = &[
    "turn_cache",
    "persistence_gate",
    "secret_type",
    "static_delivery",
    "static_validation",
    "question_id_separator",
];

/// [`ROUTED`] and the ID format (a scripted backend answers by ID).
const ROUTED_BY_ID: &[&str] = &[
    "route",
    "question_id_separator",
    "secret_type",
    "exclusive",
    "static_delivery",
    "static_validation",
    "persistence_gate",
    "turn_cache",
    "id_format",
];

impl Class {
    /// The rule switches, and the decision tables (`cancellation`,
    /// `non_answer_response`, `route`: any of their rows), that can cause
    /// this class of difference (checked against single-switch diffs in
    /// `review::mermaid::review_pictures_tests`).
    pub(crate) fn switches(&self) -> &'static [&'static str] {
        match self {
            Class::PrompterAnswerRecorded => &[
                "question_id_separator",
                "record",
                "persistence_gate",
                "static_delivery",
                "static_validation",
            ],
            Class::CachedAnswerRecorded => &[
                "question_id_separator",
                "record",
                "turn_cache",
                "persistence_gate",
            ],
            Class::StaticAnswerRecorded => &[
                "question_id_separator",
                "record",
                "static_delivery",
                "static_validation",
                "exclusive",
            ],
            Class::StaticAnswerDeliveredLater => &["static_delivery", "static_validation"],
            // `persistence_gate`: a `persistence: none` question asked again
            // reaches the prompter instead of the cache, and a Ctrl-C there
            // (or an aborted turn's token) records a cancellation.
            Class::CancellationRecorded(_) => &[
                "cancellation",
                "route",
                "question_id_separator",
                "record",
                "secret_type",
                "exclusive",
                "static_validation",
                "static_delivery",
                "id_format",
                "persistence_gate",
            ],
            Class::RedactedRecorded => &[
                "question_id_separator",
                "record",
                "secret_type",
                "static_delivery",
                "static_validation",
            ],
            Class::UnpairedRequest => &["record", "question_id_separator"],
            Class::IdShape => &["id_format"],
            Class::ResponseShape => &["response_form"],
            Class::QuestionFields => &[
                "widened_question",
                "secret_type",
                "exclusive",
                "persistence_gate",
            ],
            Class::CachedAnswerUsed => &[
                "turn_cache",
                "persistence_gate",
                "secret_type",
                "question_id_separator",
            ],
            Class::PromptShown => ROUTED,
            Class::PromptEcho => &["secret_type", "static_delivery", "question_id_separator"],
            Class::PromptLabel => &["prompt_label", "question_id_separator"],
            Class::RememberAffordance => &[
                "persistence_gate",
                "secret_type",
                "static_delivery",
                "question_id_separator",
            ],
            Class::BackendCalled | Class::ToolInvocations => ROUTED_BY_ID,
            Class::ToolResponseText => &[
                "non_answer_response",
                "route",
                "question_id_separator",
                "exclusive",
                "secret_type",
                "static_validation",
                "static_delivery",
                "persistence_gate",
                "turn_cache",
                "id_format",
                "record",
            ],
            Class::ProvenanceSource => &["provenance"],
            Class::RememberedKeys => REMEMBERED,
        }
    }

    /// The catalog's rules (`spec/RULES.md`) that decide this class.
    pub(crate) fn rules(&self) -> &'static [&'static str] {
        match self {
            Class::PrompterAnswerRecorded => &["LIFE-RECORD-ALL"],
            Class::CachedAnswerRecorded => &["LIFE-RECORD-ALL", "LIFE-CACHE-ELIGIBLE"],
            Class::StaticAnswerRecorded => &["LIFE-RECORD-ALL", "LIFE-STATIC"],
            Class::StaticAnswerDeliveredLater => &["LIFE-NO-PRESEED", "LIFE-STATIC-VALIDATED"],
            Class::CancellationRecorded(_) => &["LIFE-CANCEL-REASON", "LIFE-ROUTE"],
            Class::RedactedRecorded => &["LIFE-SECRET-REDACTED"],
            Class::UnpairedRequest => &["LIFE-RECORD-ALL", "INV-PAIRED"],
            Class::IdShape => &["LIFE-ID-FORMAT"],
            Class::ResponseShape => &["WIRE-RESP-TAGGED", "WIRE-RESP-LEGACY"],
            Class::QuestionFields => &["LIFE-REQUEST-SHAPE"],
            Class::CachedAnswerUsed => &["LIFE-CACHE-ELIGIBLE", "LIFE-CACHE-READ-GATED"],
            Class::PromptShown => &["LIFE-ROUTE"],
            Class::PromptEcho => &["PROMPT-ECHO"],
            Class::PromptLabel => &["PROMPT-LABEL"],
            Class::RememberAffordance => &["PROMPT-REMEMBER", "LIFE-REMEMBER"],
            Class::BackendCalled => &["LIFE-ROUTE", "LIFE-HUMAN-ONLY-NEVER-BACKEND"],
            Class::ToolInvocations => &["LIFE-ACCUMULATED", "LIFE-NO-PRESEED"],
            Class::ToolResponseText => &["LIFE-NON-ANSWER-RESPONSE"],
            Class::ProvenanceSource => &["LIFE-PROVENANCE", "LIFE-PROVENANCE-LEGACY"],
            Class::RememberedKeys => &["LIFE-CACHE-SPLIT", "LIFE-CACHE-ELIGIBLE", "LIFE-REMEMBER"],
        }
    }
}

fn count<T, F: Fn(&T) -> bool>(items: &[T], f: F) -> usize {
    items.iter().filter(|x| f(x)).count()
}

fn routes(t: &Trace, route: RouteTaken, recorded: bool) -> usize {
    count(&t.resolutions, |r| {
        r.route == route && r.recorded == recorded
    })
}

fn reasons(t: &Trace) -> BTreeMap<String, usize> {
    let mut m = BTreeMap::new();
    for e in &t.stream {
        if let Some(InquiryResponse::Cancelled { reason, .. }) = e.as_inquiry_response() {
            *m.entry(reason.as_str().to_owned()).or_default() += 1;
        }
    }
    m
}

/// The responses of `t`'s persisted stream written flat (no `outcome`)
/// and tagged: [`Trace::persisted_json`] writes every response with its
/// `outcome` and drops it from an answer under the flat form, so this counts
/// the events without writing them (rule `PERF-REVIEW-SHAPES`; a test holds
/// it to `flat_responses_written`).
fn flat_responses(t: &Trace) -> (usize, usize) {
    let flat_form = matches!(t.rules.response_form, ResponseForm::Flat);
    let (mut flat, mut tagged) = (0, 0);
    for e in &t.stream {
        match e.as_inquiry_response() {
            Some(InquiryResponse::Answered { .. }) if flat_form => flat += 1,
            Some(
                InquiryResponse::Answered { .. }
                | InquiryResponse::Cancelled { .. }
                | InquiryResponse::Redacted { .. },
            ) => tagged += 1,
            None => {}
        }
    }
    (flat, tagged)
}

/// [`flat_responses`] read from the persisted JSON itself.
#[cfg(test)]
fn flat_responses_written(t: &Trace) -> (usize, usize) {
    let json = t.persisted_json();
    let events = json.as_array().cloned().unwrap_or_default();
    let responses: Vec<&Value> = events
        .iter()
        .filter(|e| e.get("type").and_then(Value::as_str) == Some("inquiry_response"))
        .collect();
    let flat = responses
        .iter()
        .filter(|e| e.get("outcome").is_none())
        .count();
    (flat, responses.len() - flat)
}

fn backend_ids(t: &Trace) -> Vec<String> {
    t.backend_calls
        .iter()
        .map(|b| b.call.inquiry_id.clone())
        .collect()
}

/// The recorded source of every request, keyed by turn and the ID without
/// its attempt segment (the model's own IDs, so the two profiles' ID shapes
/// compare), in recording order.
fn sources_by_inquiry(t: &Trace) -> BTreeMap<(usize, String, usize), String> {
    let mut m = BTreeMap::new();
    let mut seen: BTreeMap<(usize, String), usize> = BTreeMap::new();
    for turn in &stream::turns(&t.stream) {
        for e in &t.stream[turn.start..turn.end] {
            if let EventKind::InquiryRequest(r) = &e.kind {
                let id = r.id.to_string();
                let base = match (t.profile.writes_attempt_ids(), id.rsplit_once('.')) {
                    (true, Some((base, _))) => base.to_owned(),
                    (true, None) | (false, _) => id,
                };
                let n = seen.entry((turn.index, base.clone())).or_insert(0);
                *n += 1;
                m.insert(
                    (turn.index, base, *n),
                    serde_json::to_string(&r.source).unwrap_or_default(),
                );
            }
        }
    }
    m
}

fn questions_by_id(t: &Trace) -> BTreeMap<(usize, String), Value> {
    let turns = stream::turns(&t.stream);
    let mut m = BTreeMap::new();
    for turn in &turns {
        for e in &t.stream[turn.start..turn.end] {
            if let EventKind::InquiryRequest(r) = &e.kind {
                m.insert(
                    (turn.index, r.id.to_string()),
                    serde_json::to_value(&r.question).unwrap_or(Value::Null),
                );
            }
        }
    }
    m
}

/// Every class of difference between two runs of one scenario (RFD 082
/// Drawbacks, and what a reviewer compares: event recorded or not, response outcome
/// or reason, ID shape, tool invocations and answers, prompts, tool
/// response text).
pub(crate) fn classify(a: &Trace, b: &Trace) -> BTreeMap<Class, String> {
    let mut out = BTreeMap::new();
    let mut when = |cond: bool, c: Class, evidence: &dyn Fn() -> String| {
        if cond {
            out.insert(c, evidence());
        }
    };
    let pair_of = |x: usize, y: usize| move || format!("{x} → {y}");
    let (pa, pb) = (
        routes(a, RouteTaken::Prompter, true),
        routes(b, RouteTaken::Prompter, true),
    );
    when(pa != pb, Class::PrompterAnswerRecorded, &pair_of(pa, pb));
    let (ca, cb) = (
        routes(a, RouteTaken::Cached, true),
        routes(b, RouteTaken::Cached, true),
    );
    when(ca != cb, Class::CachedAnswerRecorded, &pair_of(ca, cb));
    let (sa, sb) = (
        routes(a, RouteTaken::Static, true),
        routes(b, RouteTaken::Static, true),
    );
    when(sa != sb, Class::StaticAnswerRecorded, &pair_of(sa, sb));
    // Keyed by the call, so a run that stops earlier (a hard quit, an
    // aborted turn) compares only the first invocations both runs made.
    let first_answers = |t: &Trace| -> BTreeMap<(usize, usize, usize), String> {
        t.invocations
            .iter()
            .filter(|i| i.invocation == 1)
            .map(|i| {
                (
                    (i.at.turn, i.at.cycle, i.call_index),
                    serde_json::to_string(&i.answers).unwrap_or_default(),
                )
            })
            .collect()
    };
    let (fa, fb) = (first_answers(a), first_answers(b));
    let seen_differently = fa.iter().find(|(k, v)| fb.get(*k).is_some_and(|w| w != *v));
    when(
        seen_differently.is_some(),
        Class::StaticAnswerDeliveredLater,
        &|| match seen_differently {
            Some((k, v)) => format!(
                "first invocation sees {v} → {}",
                fb.get(k).cloned().unwrap_or_default()
            ),
            None => String::new(),
        },
    );
    let (ra, rb) = (reasons(a), reasons(b));
    let keys: BTreeSet<&String> = ra.keys().chain(rb.keys()).collect();
    for k in keys {
        let (x, y) = (
            ra.get(k).copied().unwrap_or(0),
            rb.get(k).copied().unwrap_or(0),
        );
        when(
            x != y,
            Class::CancellationRecorded(k.clone()),
            &pair_of(x, y),
        );
    }
    let redacted = |t: &Trace| {
        count(&t.stream, |e| {
            matches!(
                e.as_inquiry_response(),
                Some(InquiryResponse::Redacted { .. })
            )
        })
    };
    let (xa, xb) = (redacted(a), redacted(b));
    when(xa != xb, Class::RedactedRecorded, &pair_of(xa, xb));
    let (oa, ob) = (
        stream::pair(&a.stream).orphan_requests.len(),
        stream::pair(&b.stream).orphan_requests.len(),
    );
    when(oa != ob, Class::UnpairedRequest, &pair_of(oa, ob));
    let (ba, bb) = (backend_ids(a), backend_ids(b));
    // The same inquiry under another shape: one ID is the other plus an
    // attempt segment (a different question routed in the same place is not
    // an ID-shape change).
    let reshaped = ba.len() == bb.len()
        && ba.iter().zip(&bb).any(|(x, y)| {
            x != y && (y.starts_with(&format!("{x}.")) || x.starts_with(&format!("{y}.")))
        });
    when(reshaped, Class::IdShape, &|| {
        format!("{} → {}", ba.join(" "), bb.join(" "))
    });
    let ((fla, ta), (flb, tb)) = (flat_responses(a), flat_responses(b));
    when(
        (fla > 0 && tb > 0) || (flb > 0 && ta > 0),
        Class::ResponseShape,
        &|| format!("{fla} flat, {ta} tagged → {flb} flat, {tb} tagged"),
    );
    let (qa, qb) = (questions_by_id(a), questions_by_id(b));
    let changed = qa.iter().find(|(k, v)| qb.get(*k).is_some_and(|w| w != *v));
    when(
        changed.is_some(),
        Class::QuestionFields,
        &|| match changed {
            Some((k, v)) => format!(
                "{} → {}",
                v,
                qb.get(k).map(Value::to_string).unwrap_or_default()
            ),
            None => String::new(),
        },
    );
    let (pa, pb) = (sources_by_inquiry(a), sources_by_inquiry(b));
    let moved = pa.iter().find(|(k, v)| pb.get(*k).is_some_and(|w| w != *v));
    when(moved.is_some(), Class::ProvenanceSource, &|| match moved {
        Some((k, v)) => format!("{v} → {}", pb.get(k).cloned().unwrap_or_default()),
        None => String::new(),
    });
    let cached = |t: &Trace| count(&t.resolutions, |r| r.route == RouteTaken::Cached);
    let (ua, ub) = (cached(a), cached(b));
    when(ua != ub, Class::CachedAnswerUsed, &pair_of(ua, ub));
    when(
        a.prompts.len() != b.prompts.len(),
        Class::PromptShown,
        &pair_of(a.prompts.len(), b.prompts.len()),
    );
    let same_prompts = a.prompts.len() == b.prompts.len();
    let echo = |t: &Trace| {
        t.prompts
            .iter()
            .map(|p| p.presentation.echo)
            .collect::<Vec<_>>()
    };
    when(
        same_prompts && echo(a) != echo(b),
        Class::PromptEcho,
        &|| format!("echo {} → {}", shown(&echo(a)), shown(&echo(b))),
    );
    let label = |t: &Trace| {
        t.prompts
            .iter()
            .map(|p| {
                p.presentation.label.as_deref().map_or_else(
                    || "no label".to_owned(),
                    |l| serde_json::to_string(l).unwrap_or_default(),
                )
            })
            .collect::<Vec<_>>()
    };
    when(
        same_prompts && label(a) != label(b),
        Class::PromptLabel,
        &|| format!("{} → {}", shown(&label(a)), shown(&label(b))),
    );
    let remember = |t: &Trace| {
        t.prompts
            .iter()
            .map(|p| p.presentation.remember_affordance)
            .collect::<Vec<_>>()
    };
    when(
        same_prompts && remember(a) != remember(b),
        Class::RememberAffordance,
        &|| format!("offered {} → {}", shown(&remember(a)), shown(&remember(b))),
    );
    when(
        a.backend_calls.len() != b.backend_calls.len(),
        Class::BackendCalled,
        &pair_of(a.backend_calls.len(), b.backend_calls.len()),
    );
    let invs = |t: &Trace| {
        t.invocations
            .iter()
            .map(|i| serde_json::to_string(&i.answers).unwrap_or_default())
            .collect::<Vec<_>>()
    };
    when(invs(a) != invs(b), Class::ToolInvocations, &|| {
        format!(
            "{} invocations → {}",
            a.invocations.len(),
            b.invocations.len()
        )
    });
    let resp = |t: &Trace| {
        t.tool_responses
            .iter()
            .map(|r| r.content.clone())
            .collect::<Vec<_>>()
    };
    let (wa, wb) = (resp(a), resp(b));
    when(wa != wb, Class::ToolResponseText, &|| {
        first_difference(&wa, &wb).unwrap_or_default()
    });
    // Per turn both runs ended (a run that stops earlier compares only the
    // turns both closed).
    let maps = |t: &Trace| -> BTreeMap<usize, String> {
        t.remembered
            .iter()
            .map(|r| {
                (
                    r.turn,
                    format!(
                        "tool answers [{}], permission decisions [{}]",
                        r.tool_answers.join(", "),
                        r.permission_decisions.join(", ")
                    ),
                )
            })
            .collect()
    };
    let (ma, mb) = (maps(a), maps(b));
    let remembered = ma
        .iter()
        .find(|(turn, x)| mb.get(*turn).is_some_and(|y| y != *x));
    when(
        remembered.is_some(),
        Class::RememberedKeys,
        &|| match remembered {
            Some((turn, x)) => format!(
                "turn {turn}: {x} → {}",
                mb.get(turn).cloned().unwrap_or_default()
            ),
            None => String::new(),
        },
    );
    out
}

/// A trace as a reviewer reads it: one line per persisted event, then what
/// the model was told.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct TraceView {
    /// One short line per persisted event.
    pub(crate) stream: Vec<String>,
    /// `call: [error] text` per tool response.
    pub(crate) tool_responses: Vec<String>,
    /// Prompts shown, one line each.
    pub(crate) prompts: Vec<String>,
}

fn raw_view(t: &Trace) -> TraceView {
    TraceView {
        stream: t.stream.iter().map(event_line).collect(),
        tool_responses: t
            .tool_responses
            .iter()
            .map(|r| {
                format!(
                    "{}: {}{}",
                    r.tool_call_id,
                    if r.is_error { "[error] " } else { "" },
                    r.content
                )
            })
            .collect(),
        prompts: t
            .prompts
            .iter()
            .map(|p| {
                format!(
                    "{}{}{}",
                    p.presentation
                        .label
                        .as_ref()
                        .map(|l| format!("[{l}] "))
                        .unwrap_or_default(),
                    p.presentation.question,
                    if p.presentation.echo { "" } else { " (hidden)" }
                )
            })
            .collect(),
    }
}

/// One class of difference with its smallest example.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ClassReport {
    /// The class's stable name.
    pub(crate) class: String,
    /// What it means.
    pub(crate) description: String,
    /// How many scenarios show it.
    pub(crate) scenarios: usize,
    /// What differs in the smallest scenario (`from → to`).
    pub(crate) evidence: String,
    /// The switches flipped between the two rule sets that can cause it
    /// (all flipped switches when none of them can alone: an interaction).
    pub(crate) switches: Vec<String>,
    /// The catalog rules that decide it.
    pub(crate) rules: Vec<String>,
    /// The smallest scenario that shows it, stripped of what the
    /// difference does not need (rule `AMEND-MINIMAL`) and labelled with
    /// `to`'s profile.
    pub(crate) smallest: Scenario,
    /// The command that replays `smallest` (saved as [`REPLAY_FILE`]) under
    /// `from`.
    pub(crate) replay_from: String,
    /// The command that replays it under `to`: the two traces differ in
    /// this class.
    pub(crate) replay_to: String,
    /// Its trace under `from`.
    pub(crate) from: TraceView,
    /// Its trace under `to`.
    pub(crate) to: TraceView,
}

/// The default bound of `diff-profiles --format markdown`: under the
/// 65 536 characters a pull-request comment holds, with room for a note.
pub(crate) const MARKDOWN_LIMIT: usize = 60_000;

/// What [`DiffReport::markdown_within`] keeps free for its closing note
/// (about 250 characters) while it decides which classes' details fit.
pub(crate) const MARKDOWN_NOTE: usize = 400;

/// The result of a profile diff.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct DiffReport {
    /// The old rule set (a built-in's name or a profile file's path).
    pub(crate) from: String,
    /// The new rule set.
    pub(crate) to: String,
    /// What the old rule set's profile file says about itself (`None` for a
    /// built-in).
    pub(crate) from_about: Option<crate::review::profile_file::About>,
    /// What the new rule set's profile file says about itself.
    pub(crate) to_about: Option<crate::review::profile_file::About>,
    /// Scenarios run under both.
    pub(crate) scenarios: usize,
    /// Scenarios whose runs differ at all.
    pub(crate) differing: usize,
    /// One entry per class, in class order.
    pub(crate) classes: Vec<ClassReport>,
    /// The switches that differ: `(switch, from's value, to's value)`.
    pub(crate) flipped: Vec<(String, Value, Value)>,
    /// The two rule sets (to replay the smallest scenarios).
    #[serde(skip)]
    pub(crate) sets: (RuleSet, RuleSet),
    /// Invariants `to` breaks that `from` keeps, each with its smallest
    /// counterexample under `to` (filled by `regressions`; the CI gate of
    /// `diff-profiles`, rule `AMEND-GATE`).
    pub(crate) broken_invariants: Vec<Verdict>,
    /// Invariants `from` breaks that `to` keeps, each with its smallest
    /// counterexample under `from` (filled by `changes`; rule
    /// `AMEND-RESTORED`).
    pub(crate) restored_invariants: Vec<Verdict>,
}

fn weight(s: &Scenario) -> (usize, usize) {
    (
        strategy::size(s),
        serde_json::to_string(s)
            .map(|t| t.len())
            .unwrap_or(usize::MAX),
    )
}

/// Which scenarios the amendment tools run.
pub(crate) use crate::explore::scenarios;

fn under(s: &Scenario, p: &RuleSet) -> Scenario {
    Scenario {
        profile: p.judged_as,
        ..s.clone()
    }
}

/// Runs `s` under a rule set (its switches; its built-in judges the trace).
pub(crate) fn run_under(s: &Scenario, p: &RuleSet) -> Result<Trace, scenario::ScenarioError> {
    scenario::run_under(&under(s, p), p.rules, RunOptions::default(), &mut |_, _| {})
}

/// Runs every scenario under `from` and `to` and classifies the differences:
/// the reference loop the tests hold the command's threaded review to.
#[cfg(test)]
pub(crate) fn diff_profiles(
    from: impl Into<RuleSet>,
    to: impl Into<RuleSet>,
    scenarios: &[Scenario],
) -> DiffReport {
    diff_profiles_with(from, to, scenarios, &mut || {})
}

/// [`diff_profiles`], calling `done` after each scenario (for a progress
/// count).
#[cfg(test)]
pub(crate) fn diff_profiles_with(
    from: impl Into<RuleSet>,
    to: impl Into<RuleSet>,
    scenarios: &[Scenario],
    done: &mut dyn FnMut(),
) -> DiffReport {
    let (from, to): (RuleSet, RuleSet) = (from.into(), to.into());
    let mut by_class: BTreeMap<Class, (usize, Scenario, Trace, Trace, String)> = BTreeMap::new();
    let mut differing = 0;
    let mut run = 0;
    for s in scenarios {
        done();
        let (Ok(a), Ok(b)) = (run_under(s, &from), run_under(s, &to)) else {
            continue;
        };
        run += 1;
        let classes = classify(&a, &b);
        if !classes.is_empty() {
            differing += 1;
        }
        for (c, evidence) in classes {
            let entry = by_class
                .entry(c)
                .or_insert_with(|| (0, s.clone(), a.clone(), b.clone(), evidence.clone()));
            entry.0 += 1;
            if weight(s) < weight(&entry.1) {
                *entry = (entry.0, s.clone(), a.clone(), b.clone(), evidence);
            }
        }
    }
    finish_diff(from, to, by_class, run, differing)
}

/// A diff report from each class's count and smallest scenario (with its
/// two runs and evidence), of `run` scenarios of which `differing` differ.
fn finish_diff(
    from: RuleSet,
    to: RuleSet,
    by_class: BTreeMap<Class, (usize, Scenario, Trace, Trace, String)>,
    run: usize,
    differing: usize,
) -> DiffReport {
    // Each class's smallest scenario without what the difference does not
    // need: the model judges every removal (AMEND-MINIMAL).
    let by_class: Vec<_> = by_class
        .into_iter()
        .map(|(c, (n, s, a, b, evidence))| {
            let ((s, a, b, evidence), _) = strip(
                (s, a, b, evidence),
                |(s, ..)| s,
                |s| {
                    let (Ok(a), Ok(b)) = (run_under(s, &from), run_under(s, &to)) else {
                        return None;
                    };
                    let evidence = classify(&a, &b).remove(&c)?;
                    Some((s.clone(), a, b, evidence))
                },
            );
            // Then without the configuration and replies neither run reads:
            // both runs stay exactly as they were.
            let (s, _) = without_unused_by(&s, &|x: &Scenario| {
                run_under(x, &from).is_ok_and(|t| t == a) && run_under(x, &to).is_ok_and(|t| t == b)
            });
            (c, (n, s, a, b, evidence))
        })
        .collect();
    let flipped = crate::review::profile_file::differing(&from.rules, &to.rules);
    DiffReport {
        from: from.label.clone(),
        to: to.label.clone(),
        from_about: from.about(),
        to_about: to.about(),
        scenarios: run,
        differing,
        classes: by_class
            .into_iter()
            .map(|(c, (n, s, a, b, _))| {
                // Both runs masked where their secret answers sit, one
                // number per value across the two; the evidence read from
                // the masked runs (rule `CLI-NO-SECRET`).
                let a = crate::masks::mask(&a);
                let b = crate::masks::mask_after(&b, a.masks.clone());
                let (a, b) = (a.trace, b.trace);
                ClassReport {
                    class: c.name(),
                    description: c.describe(),
                    scenarios: n,
                    evidence: classify(&a, &b)
                        .remove(&c)
                        .unwrap_or_else(|| "(a difference in a secret answer)".to_owned()),
                    switches: {
                        // A table row (`table.row`) is caused by its table.
                        let cause = |k: &str| k.split('.').next().unwrap_or(k).to_owned();
                        let own: Vec<String> = flipped
                            .iter()
                            .filter(|(k, _, _)| c.switches().contains(&cause(k).as_str()))
                            .map(|(k, _, _)| k.clone())
                            .collect();
                        if own.is_empty() {
                            flipped.iter().map(|(k, _, _)| k.clone()).collect()
                        } else {
                            own
                        }
                    },
                    rules: c.rules().iter().map(|r| (*r).to_owned()).collect(),
                    // Labelled with the side under review: run as it
                    // is, a built-in `to` shows the change.
                    smallest: under(&s, &to),
                    replay_from: replay_command(&from),
                    replay_to: replay_command(&to),
                    from: raw_view(&a),
                    to: raw_view(&b),
                }
            })
            .collect(),
        flipped,
        sets: (from, to),
        broken_invariants: Vec::new(),
        restored_invariants: Vec::new(),
    }
}

/// The invariants `to` breaks that `from` keeps over `scenarios` (rule
/// `AMEND-GATE`): every `INV-*`/`CHECK-*` rule with no violation under
/// `from` and at least one under `to`, with `to`'s smallest counterexample.
#[cfg(test)]
pub(crate) fn regressions(from: &RuleSet, to: &RuleSet, scenarios: &[Scenario]) -> Vec<Verdict> {
    changes(from, to, scenarios, &mut || {}).broken
}

/// The invariants an amendment breaks and those it restores.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Changes {
    /// Invariants `to` breaks that `from` keeps, with `to`'s smallest
    /// counterexample (`regressions`).
    pub(crate) broken: Vec<Verdict>,
    /// Invariants `from` breaks that `to` keeps, with `from`'s smallest
    /// counterexample (rule `AMEND-RESTORED`).
    pub(crate) restored: Vec<Verdict>,
}

/// The invariants `to` restores over `scenarios`: every `INV-*`/`CHECK-*`
/// rule with at least one violation under `from` and none under `to`, with
/// `from`'s smallest counterexample (rule `AMEND-RESTORED`).
#[cfg(test)]
pub(crate) fn restorations(from: &RuleSet, to: &RuleSet, scenarios: &[Scenario]) -> Vec<Verdict> {
    changes(from, to, scenarios, &mut || {}).restored
}

/// Both directions of [`regressions`] from one run of the invariants under
/// each rule set, calling `done` after each scenario run (twice per
/// scenario: under `from`, then under `to`; for a progress count).
#[cfg(test)]
pub(crate) fn changes(
    from: &RuleSet,
    to: &RuleSet,
    scenarios: &[Scenario],
    done: &mut dyn FnMut(),
) -> Changes {
    let under_from = invariants_with(from.clone(), scenarios, done);
    let under_to = invariants_with(to.clone(), scenarios, done);
    changes_of(under_from, under_to)
}

/// The invariants broken and restored, from the verdicts under each side.
fn changes_of(under_from: Vec<Verdict>, under_to: Vec<Verdict>) -> Changes {
    let holds = |verdicts: &[Verdict]| -> BTreeSet<String> {
        verdicts
            .iter()
            .filter(|v| v.violating == 0)
            .map(|v| v.rule.clone())
            .collect()
    };
    let (kept_by_from, kept_by_to) = (holds(&under_from), holds(&under_to));
    Changes {
        broken: under_to
            .into_iter()
            .filter(|v| v.violating > 0 && kept_by_from.contains(&v.rule))
            .collect(),
        restored: under_from
            .into_iter()
            .filter(|v| v.violating > 0 && kept_by_to.contains(&v.rule))
            .collect(),
    }
}

impl Verdict {
    /// Text lines: the rule, the count, the first diagnostic, the scenario
    /// and its diagram (fenced in Markdown).
    pub(crate) fn describe(&self, markdown: bool) -> String {
        let (Some(s), Some(d)) = (&self.smallest, &self.example) else {
            return format!("{} holds\n", self.rule);
        };
        let scenario = serde_json::to_string(s).unwrap_or_default();
        let diagram = self.diagram.clone().unwrap_or_default();
        let violating = words::count(self.violating, "scenario");
        let replay = self.replay.clone().unwrap_or_default();
        if markdown {
            format!(
                "#### `{}`: violated in {violating}\n\nSmallest counterexample: {d}\n\n{}\n<details><summary>scenario</summary>\n\n```json\n{scenario}\n```\n\nReplay, with the scenario saved as `{REPLAY_FILE}`: `{replay}`\n\n</details>\n",
                self.rule,
                crate::review::mermaid::fenced(&diagram)
            )
        } else {
            format!(
                "{} violated in {violating}; smallest counterexample:\n  {d}\n  scenario: {scenario}\n  replay (the scenario saved as {REPLAY_FILE}): {replay}\n{diagram}",
                self.rule
            )
        }
    }
}

impl DiffReport {
    /// A Markdown report a reviewer can paste into a pull request, in at
    /// most [`MARKDOWN_LIMIT`] characters (see [`DiffReport::markdown_within`]).
    #[cfg(test)]
    pub(crate) fn markdown(&self) -> String {
        self.markdown_within(Some(MARKDOWN_LIMIT))
    }

    /// The Markdown report: the profiles' titles, a summary table of every
    /// class, the invariants `to` breaks, then per class its heading and a
    /// `<details>` block with the two diagrams and the scenario. With a
    /// `limit`, a class whose details would pass it keeps its heading and
    /// line but not its details, and a closing note says how many were left
    /// out and how to get them.
    pub(crate) fn markdown_within(&self, limit: Option<usize>) -> String {
        let mut s = format!(
            "### Behaviour changes from `{}` to `{}`\n\n",
            self.from, self.to
        );
        for (label, about) in [(&self.from, &self.from_about), (&self.to, &self.to_about)] {
            if let Some(a) = about {
                s.push_str(&format!(
                    "- `{label}`: **{}**, amending {}",
                    a.title, a.amends
                ));
                match &a.description {
                    Some(d) => s.push_str(&format!(". {}\n", d.trim().replace('\n', " "))),
                    None => s.push('\n'),
                }
            }
        }
        if self.from_about.is_some() || self.to_about.is_some() {
            s.push('\n');
        }
        s.push_str(&format!(
            "{} run under both; {} differ.\n\n\
             | class | what changes | scenarios | smallest example (`{}` → `{}`) |\n| --- | --- | ---: | --- |\n",
            words::count(self.scenarios, "scenario"),
            self.differing,
            self.from,
            self.to
        ));
        for c in &self.classes {
            s.push_str(&format!(
                "| `{}` | {} | {} | {} |\n",
                c.class,
                c.description,
                c.scenarios,
                c.evidence.replace('|', "\\|")
            ));
        }
        if !self.broken_invariants.is_empty() {
            s.push_str(&format!(
                "\n### Invariants `{}` keeps and `{}` breaks\n\n",
                self.from, self.to
            ));
            for v in &self.broken_invariants {
                s.push_str(&v.describe(true));
            }
        }
        if !self.restored_invariants.is_empty() {
            s.push_str(&format!(
                "\n### Invariants `{}` breaks and `{}` restores\n\n",
                self.from, self.to
            ));
            for v in &self.restored_invariants {
                s.push_str(&v.describe(true));
            }
        }
        let (head, classes) = self.markdown_sections();
        s.push_str(&head);
        let mut left_out = 0;
        // Every class keeps its line: the lines still to come are reserved.
        let mut lines_to_come: usize = classes.iter().map(|(line, _)| line.len()).sum();
        for (line, details) in classes {
            let fits =
                limit.is_none_or(|l| s.len() + lines_to_come + details.len() + MARKDOWN_NOTE <= l);
            lines_to_come -= line.len();
            s.push_str(&line);
            if fits && left_out == 0 {
                s.push_str(&details);
            } else {
                left_out += 1;
            }
        }
        if left_out > 0 {
            s.push_str(&format!(
                "\n_The diagrams of the last {left_out} of {} are left out to keep this \
                 report under {} characters (a pull-request comment holds 65 536); \
                 `--max-chars 0` prints them all, `--format text` shows every class's traces._\n",
                words::count(self.classes.len(), "class"),
                limit.unwrap_or_default()
            ));
        }
        s
    }

    /// The switches flipped, then per class its heading and line, and its
    /// `<details>` block (the two diagrams and the scenario).
    fn markdown_sections(&self) -> (String, Vec<(String, String)>) {
        let (from, to) = &self.sets;
        let mut head = String::new();
        if !self.flipped.is_empty() {
            head.push_str(&format!(
                "\nSwitches flipped: {}.\n",
                self.flipped
                    .iter()
                    .map(|(k, a, b)| format!("`{k}` {a} → {b}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        let mut classes = Vec::new();
        for c in &self.classes {
            let line = format!(
                "\n#### `{}`: {}\n\nScenarios showing it: {}; the smallest: {}. Switches: {}. Rules: {}.\n",
                c.class,
                c.description,
                c.scenarios,
                c.evidence,
                list_or_none(&c.switches),
                list_or_none(&c.rules),
            );
            // The diagrams print answers: those of secret questions masked
            // where they sit.
            let draw = |set: &RuleSet| {
                let sc = under(&c.smallest, set);
                crate::review::mermaid::sequence(&sc, set.rules)
                    .map(|d| crate::review::mermaid::fenced(&d))
                    .unwrap_or_else(|e| format!("(the scenario cannot run: {e})\n"))
            };
            let details = format!(
                "\n<details><summary>diagrams and scenario</summary>\n\n\
                 <table><tr><th><code>{}</code></th><th><code>{}</code></th></tr><tr><td>\n\n{}\n</td><td>\n\n{}\n</td></tr></table>\n\
                 \n```json\n{}\n```\n\nReplay, with the scenario saved as `{REPLAY_FILE}`: `{}` and `{}`.\n\n</details>\n",
                self.from,
                self.to,
                draw(from),
                draw(to),
                serde_json::to_string(&c.smallest).unwrap_or_default(),
                c.replay_from,
                c.replay_to,
            );
            classes.push((line, details));
        }
        (head, classes)
    }

    /// Plain text: per class, the count and the smallest scenario with both
    /// traces side by side.
    pub(crate) fn text(&self) -> String {
        let mut s = String::new();
        for (label, about) in [(&self.from, &self.from_about), (&self.to, &self.to_about)] {
            if let Some(a) = about {
                s.push_str(&format!("{label}: {}, amending {}\n", a.title, a.amends));
                if let Some(d) = &a.description {
                    s.push_str(&format!("  {}\n", d.trim().replace('\n', "\n  ")));
                }
            }
        }
        s.push_str(&format!(
            "{} -> {}: {}, {} differ, {}\n",
            self.from,
            self.to,
            words::count(self.scenarios, "scenario"),
            self.differing,
            words::count(self.classes.len(), "class")
        ));
        if !self.flipped.is_empty() {
            let changes: Vec<String> = self
                .flipped
                .iter()
                .map(|(k, a, b)| format!("{k} {a} -> {b}"))
                .collect();
            s.push_str(&format!("changes: {}\n", changes.join("; ")));
        }
        for c in &self.classes {
            s.push_str(&format!(
                "\n== {} ({}): {}\n",
                c.class,
                words::count(c.scenarios, "scenario"),
                c.description
            ));
            s.push_str(&format!(
                "scenario: {}\n",
                serde_json::to_string(&c.smallest).unwrap_or_default()
            ));
            s.push_str(&format!(
                "replay (the scenario saved as {REPLAY_FILE}), one command each:\n  {}\n  {}\n",
                c.replay_from, c.replay_to
            ));
            s.push_str(&side_by_side(
                &self.from.to_string(),
                &c.from.stream,
                &self.to.to_string(),
                &c.to.stream,
            ));
            s.push_str(&side_by_side(
                "",
                &c.from.tool_responses,
                "",
                &c.to.tool_responses,
            ));
            if !(c.from.prompts.is_empty() && c.to.prompts.is_empty()) {
                s.push_str(&side_by_side(
                    "prompts",
                    &c.from.prompts,
                    "prompts",
                    &c.to.prompts,
                ));
            }
        }
        for v in &self.broken_invariants {
            s.push_str(&format!(
                "\n!! {} breaks an invariant {} keeps: {}",
                self.to,
                self.from,
                v.describe(false)
            ));
        }
        for v in &self.restored_invariants {
            s.push_str(&format!(
                "\n++ {} restores an invariant {} breaks: {}",
                self.to,
                self.from,
                v.describe(false)
            ));
        }
        s
    }
}

fn list_or_none(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_owned()
    } else {
        items
            .iter()
            .map(|i| format!("`{i}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn first_difference(a: &[String], b: &[String]) -> Option<String> {
    let n = a.len().max(b.len());
    (0..n).find_map(|i| {
        let (x, y) = (a.get(i), b.get(i));
        (x != y).then(|| {
            format!(
                "{} → {}",
                x.map(|s| format!("`{s}`"))
                    .unwrap_or_else(|| "(nothing)".to_owned()),
                y.map(|s| format!("`{s}`"))
                    .unwrap_or_else(|| "(nothing)".to_owned())
            )
        })
    })
}

fn side_by_side(ha: &str, a: &[String], hb: &str, b: &[String]) -> String {
    const W: usize = 58;
    let cut = |s: &str| -> String {
        if s.chars().count() > W {
            s.chars().take(W - 1).collect::<String>() + "…"
        } else {
            s.to_owned()
        }
    };
    let mut out = String::new();
    if !(ha.is_empty() && hb.is_empty()) {
        out.push_str(&format!("  {:<W$} | {}\n", ha, hb));
    }
    for i in 0..a.len().max(b.len()) {
        let x = a.get(i).map(|s| cut(s)).unwrap_or_default();
        let y = b.get(i).map(|s| cut(s)).unwrap_or_default();
        let mark = if a.get(i) == b.get(i) { ' ' } else { '*' };
        out.push_str(&format!("{mark} {x:<W$} | {y}\n"));
    }
    out
}

/// Whether an invariant holds under a profile, with its smallest
/// counterexample when it does not.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Verdict {
    /// The rule ID.
    pub(crate) rule: String,
    /// Scenarios that violate it.
    pub(crate) violating: usize,
    /// The smallest violating scenario, stripped of what the violation does
    /// not need (rule `AMEND-MINIMAL`) and labelled with the profile's
    /// built-in.
    pub(crate) smallest: Option<Scenario>,
    /// The command that replays `smallest` (saved as [`REPLAY_FILE`]) under
    /// the profile that violates the invariant.
    pub(crate) replay: Option<String>,
    /// The first diagnostic of that scenario for this rule.
    pub(crate) example: Option<String>,
    /// The smallest counterexample's run as a Mermaid sequence diagram.
    pub(crate) diagram: Option<String>,
}

/// Which invariants hold under `profile` over `scenarios`: every `INV-*`
/// rule of the catalog, and every `CHECK-*` rule any run breaks.
pub(crate) fn invariants(profile: impl Into<RuleSet>, scenarios: &[Scenario]) -> Vec<Verdict> {
    invariants_with(profile, scenarios, &mut || {})
}

/// [`invariants`], calling `done` after each scenario (for a progress
/// count).
pub(crate) fn invariants_with(
    profile: impl Into<RuleSet>,
    scenarios: &[Scenario],
    done: &mut dyn FnMut(),
) -> Vec<Verdict> {
    let profile: RuleSet = profile.into();
    let mut found: BTreeMap<String, (usize, Scenario, String)> = BTreeMap::new();
    for s in scenarios {
        done();
        let s = under(s, &profile);
        let Some(diags) = diagnostics(&s, &profile) else {
            continue;
        };
        let mut seen = BTreeSet::new();
        for d in diags {
            if !seen.insert(d.rule.id()) {
                continue;
            }
            let e = found
                .entry(d.rule.id().to_owned())
                .or_insert_with(|| (0, s.clone(), d.to_string()));
            e.0 += 1;
            if weight(&s) < weight(&e.1) {
                e.1 = s.clone();
                e.2 = d.to_string();
            }
        }
    }
    finish_invariants(&profile, found)
}

/// [`invariants_with`] on `threads` workers: worker `w` takes scenarios
/// `w`, `w + threads`, …; each invariant's count is the sum of the workers'
/// and its smallest scenario the least weight, the first in order among
/// equals, as the one-thread loop keeps, so the verdicts are the same
/// whatever the number of threads (rule `AMEND-INVARIANTS-PARALLEL`; a test
/// compares them with [`invariants`]). `done` is called once per scenario,
/// from the workers. Only the smallest scenario of each invariant is kept,
/// by index.
pub(crate) fn invariants_threaded(
    profile: impl Into<RuleSet>,
    scenarios: &[Scenario],
    threads: usize,
    done: &(dyn Fn() + Sync),
) -> Vec<Verdict> {
    let profile: RuleSet = profile.into();
    let threads = threads.max(1);
    let worker = |w: usize| {
        let mut found: BTreeMap<String, Smallest<String>> = BTreeMap::new();
        for (index, s) in scenarios.iter().enumerate().skip(w).step_by(threads) {
            let s = under(s, &profile);
            if let Some(diags) = diagnostics(&s, &profile) {
                let weight = weight(&s);
                let mut seen = BTreeSet::new();
                for d in diags {
                    if seen.insert(d.rule.id()) {
                        let what = d.to_string();
                        Smallest::merge_into(
                            found.entry(d.rule.id().to_owned()),
                            Smallest {
                                count: 1,
                                weight,
                                index,
                                what,
                            },
                        );
                    }
                }
            }
            done();
        }
        found
    };
    let mut found: BTreeMap<String, Smallest<String>> = BTreeMap::new();
    let mut merge = |part: BTreeMap<String, Smallest<String>>| {
        for (rule, best) in part {
            Smallest::merge_into(found.entry(rule), best);
        }
    };
    if threads == 1 {
        merge(worker(0));
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|w| scope.spawn(move || worker(w)))
                .collect();
            for h in handles {
                match h.join() {
                    Ok(part) => merge(part),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
        });
    }
    let found = found
        .into_iter()
        .map(|(rule, best)| {
            let s = under(&scenarios[best.index], &profile);
            (rule, (best.count, s, best.what))
        })
        .collect();
    finish_invariants(&profile, found)
}

/// One verdict per invariant from each violated rule's count, smallest
/// scenario (already under `profile`) and first diagnostic.
fn finish_invariants(
    profile: &RuleSet,
    mut found: BTreeMap<String, (usize, Scenario, String)>,
) -> Vec<Verdict> {
    let mut rules: BTreeSet<String> = INVARIANTS.iter().map(|r| r.id().to_owned()).collect();
    rules.extend(found.keys().cloned());
    rules
        .into_iter()
        .map(|rule| match found.remove(&rule) {
            Some((n, s, d)) => {
                // The smallest scenario without what the violation does not
                // need: the model judges every removal (AMEND-MINIMAL).
                let ((s, d), _) = strip(
                    (s, d),
                    |(s, _)| s,
                    |c| {
                        let d = diagnostics(c, profile)?
                            .into_iter()
                            .find(|d| d.rule.id() == rule)?;
                        Some((c.clone(), d.to_string()))
                    },
                );
                // Then without the configuration and replies the run does
                // not read: its trace and findings stay exactly as they were.
                let s = match checked_run(&s, profile) {
                    Some(base) => {
                        without_unused_by(&s, &|x: &Scenario| {
                            checked_run(x, profile).is_some_and(|r| r == base)
                        })
                        .0
                    }
                    None => s,
                };
                // The diagram prints answers: those of secret questions
                // masked where they sit (rule `CLI-NO-SECRET`); a
                // diagnostic never quotes an answer.
                Verdict {
                    rule,
                    violating: n,
                    diagram: crate::review::mermaid::sequence(&s, profile.rules).ok(),
                    smallest: Some(s),
                    replay: Some(replay_command(profile)),
                    example: Some(d),
                }
            }
            None => Verdict {
                rule,
                violating: 0,
                smallest: None,
                replay: None,
                example: None,
                diagram: None,
            },
        })
        .collect()
}

/// Every invariant and oracle diagnostic of `s`'s run under `profile`
/// (labelled with it), in the order found; `None` if the model refuses
/// the scenario.
fn diagnostics(s: &Scenario, profile: &RuleSet) -> Option<Vec<Diagnostic>> {
    checked_run(s, profile).map(|(_, diags)| diags)
}

/// `s`'s run under `profile` with every invariant checked after every step
/// and at the end: the trace (the same as [`run_under`]'s: the checks only
/// read) and the diagnostics in the order found; `None` if the model
/// refuses the scenario.
fn checked_run(s: &Scenario, profile: &RuleSet) -> Option<(Trace, Vec<Diagnostic>)> {
    checked_run_with(s, profile, RunOptions::default())
}

/// [`checked_run`] with run options (the tests' planted faults).
fn checked_run_with(
    s: &Scenario,
    profile: &RuleSet,
    options: RunOptions,
) -> Option<(Trace, Vec<Diagnostic>)> {
    let s = under(s, profile);
    let mut diags = Vec::new();
    let t = scenario::run_under(&s, profile.rules, options, &mut |c, t| {
        diags.extend(check_step(c, t))
    })
    .ok()?;
    diags.extend(check_trace(&t, &s));
    Some((t, diags))
}

/// [`checked_run`] with the incremental step checker and the stream
/// invariants remembered in `memo` (as the exploration checks): the same
/// trace, and for every rule the same first diagnostic in the same order
/// of first finding (rule `PERF-REVIEW-CHECKED`); later findings of a rule
/// may be fewer (a secret reported once, not at every later step).
fn checked_run_memo(
    s: &Scenario,
    profile: &RuleSet,
    options: RunOptions,
    memo: &mut StreamMemo,
) -> Option<(Trace, Vec<Diagnostic>)> {
    let s = match s.profile == profile.judged_as {
        true => std::borrow::Cow::Borrowed(s),
        false => std::borrow::Cow::Owned(under(s, profile)),
    };
    let mut diags = Vec::new();
    let mut checker = StepChecker::new();
    let t = scenario::run_under(&s, profile.rules, options, &mut |c, t| {
        checker.step(c, t, &mut diags)
    })
    .ok()?;
    diags.extend(check_trace_memo(&t, &s, memo, Some(&checker)));
    Some((t, diags))
}

/// A count of scenarios and the smallest of them: the least weight, the
/// first in the scenarios' order among equals (what the one-thread loops
/// of `diff_profiles` and [`invariants`] keep).
#[derive(Debug, Clone)]
struct Smallest<T> {
    count: usize,
    weight: (usize, usize),
    index: usize,
    what: T,
}

impl<T> Smallest<T> {
    fn merge_into<K: Ord>(
        entry: std::collections::btree_map::Entry<'_, K, Smallest<T>>,
        other: Smallest<T>,
    ) {
        use std::collections::btree_map::Entry;
        match entry {
            Entry::Vacant(v) => {
                v.insert(other);
            }
            Entry::Occupied(mut o) => {
                let mine = o.get_mut();
                mine.count += other.count;
                if (other.weight, other.index) < (mine.weight, mine.index) {
                    mine.weight = other.weight;
                    mine.index = other.index;
                    mine.what = other.what;
                }
            }
        }
    }
}

/// What one worker found over its share of the scenarios.
#[derive(Debug, Default)]
struct Tally {
    run: usize,
    differing: usize,
    classes: BTreeMap<Class, Smallest<String>>,
    under_from: BTreeMap<String, Smallest<String>>,
    under_to: BTreeMap<String, Smallest<String>>,
}

impl Tally {
    fn merge(&mut self, other: Tally) {
        self.run += other.run;
        self.differing += other.differing;
        for (c, v) in other.classes {
            Smallest::merge_into(self.classes.entry(c), v);
        }
        for (r, v) in other.under_from {
            Smallest::merge_into(self.under_from.entry(r), v);
        }
        for (r, v) in other.under_to {
            Smallest::merge_into(self.under_to.entry(r), v);
        }
    }

    /// The scenarios of `unit`: its runs under both rule sets (once for
    /// all its members), each with every invariant checked, give the
    /// diff's classes and both sides' violations at once; each member
    /// counts with its own index and weight.
    fn unit(&mut self, mut unit: Unit, from: &RuleSet, to: &RuleSet, memo: &mut StreamMemo) {
        // The base labelled as each side in turn, so no run copies it.
        unit.base.profile = from.judged_as;
        let a = checked_run_memo(&unit.base, from, RunOptions::default(), memo);
        unit.base.profile = to.judged_as;
        let b = checked_run_memo(&unit.base, to, RunOptions::default(), memo);
        let unit = &unit;
        let firsts = |run: &Option<(Trace, Vec<Diagnostic>)>| {
            run.as_ref().map(|(_, diags)| first_by_rule(diags))
        };
        let (firsts_a, firsts_b) = (firsts(&a), firsts(&b));
        let classes = match (&a, &b) {
            (Some((a, _)), Some((b, _))) => Some(classify(a, b)),
            (None, _) | (_, None) => None,
        };
        // A member's weight under a profile, from the base's (written once,
        // and only when something is merged).
        let mut base = None;
        let mut weight_as =
            |p: ProfileName| Unit::weight_as(*base.get_or_insert_with(|| unit.base_weight()), p);
        for &(index, profile) in &unit.members {
            for (firsts, set, found) in [
                (&firsts_a, from, &mut self.under_from),
                (&firsts_b, to, &mut self.under_to),
            ] {
                let Some(firsts) = firsts else { continue };
                if firsts.is_empty() {
                    continue;
                }
                let weight = weight_as(set.judged_as);
                for (rule, what) in firsts {
                    Smallest::merge_into(
                        found.entry(rule.clone()),
                        Smallest {
                            count: 1,
                            weight,
                            index,
                            what: what.clone(),
                        },
                    );
                }
            }
            let Some(classes) = &classes else { continue };
            self.run += 1;
            if classes.is_empty() {
                continue;
            }
            self.differing += 1;
            let weight = weight_as(profile);
            for (c, what) in classes {
                Smallest::merge_into(
                    self.classes.entry(c.clone()),
                    Smallest {
                        count: 1,
                        weight,
                        index,
                        what: what.clone(),
                    },
                );
            }
        }
    }
}

/// Each rule's first diagnostic, as text, in the order the rules are first
/// found.
fn first_by_rule(diags: &[Diagnostic]) -> Vec<(String, String)> {
    let mut seen = BTreeSet::new();
    diags
        .iter()
        .filter(|d| seen.insert(d.rule.id()))
        .map(|d| (d.rule.id().to_owned(), d.to_string()))
        .collect()
}

/// `diff_profiles` and `changes` in one pass on `threads` workers: each
/// scenario runs once under each rule set, with every invariant checked
/// (instead of four runs), and scenarios that differ in their `profile`
/// alone run once ([`review_scenarios::Unit`]). The workers take units in
/// chunks as they finish the last, and make each scenario when they take
/// it: no scenario, trace or report outlives its unit but the smallest of
/// each class, kept by index. The smallest scenario of a class is the least
/// weight, the first in order among equals, as in the one-thread loops, so
/// the report is the same whatever the number of threads and the order
/// the units are run in (rule `AMEND-DIFF`; tests compare it with
/// `diff_profiles` and `changes`). `done` is called once per scenario,
/// from the workers.
pub(crate) fn review(
    from: &RuleSet,
    to: &RuleSet,
    scenarios: &ReviewScenarios<'_>,
    threads: usize,
    done: &(dyn Fn() + Sync),
) -> (DiffReport, Changes) {
    // Units a worker takes at a time: a few milliseconds of work, so the
    // workers end together.
    const CHUNK: usize = 16;
    let threads = threads.max(1);
    let units = scenarios.units();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let worker = || {
        let mut tally = Tally::default();
        let mut memo = StreamMemo::with_capacity(REVIEW_MEMO_CAPACITY);
        loop {
            let start = next.fetch_add(CHUNK, std::sync::atomic::Ordering::Relaxed);
            if start >= units {
                break;
            }
            for u in start..units.min(start + CHUNK) {
                let Some(unit) = scenarios.unit(u) else {
                    continue;
                };
                for _ in &unit.members {
                    done();
                }
                tally.unit(unit, from, to, &mut memo);
            }
        }
        tally
    };
    let mut tally = Tally::default();
    if threads == 1 {
        tally = worker();
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads).map(|_| scope.spawn(worker)).collect();
            for h in handles {
                match h.join() {
                    Ok(part) => tally.merge(part),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
        });
    }
    let by_class = tally
        .classes
        .into_iter()
        .filter_map(|(c, best)| {
            let s = scenarios.at(best.index);
            let (Ok(a), Ok(b)) = (run_under(&s, from), run_under(&s, to)) else {
                return None;
            };
            Some((c, (best.count, s, a, b, best.what)))
        })
        .collect();
    let found = |map: BTreeMap<String, Smallest<String>>, set: &RuleSet| {
        map.into_iter()
            .map(|(rule, best)| {
                (
                    rule,
                    (best.count, under(&scenarios.at(best.index), set), best.what),
                )
            })
            .collect()
    };
    let under_from = finish_invariants(from, found(tally.under_from, from));
    let under_to = finish_invariants(to, found(tally.under_to, to));
    let report = finish_diff(
        from.clone(),
        to.clone(),
        by_class,
        tally.run,
        tally.differing,
    );
    (report, changes_of(under_from, under_to))
}

/// Streams a review's worker remembers the stream invariants of: each entry
/// holds its stream, so this bounds a worker's memory.
const REVIEW_MEMO_CAPACITY: usize = 4_096;

/// One value per prompt, for a reader (no Rust debug text such as
/// `Some("Ops")`): `a, b` in prompt order, `(no prompt)` for none.
fn shown<T: std::fmt::Display>(items: &[T]) -> String {
    if items.is_empty() {
        return "(no prompt)".to_owned();
    }
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The file name the replay commands give a counterexample's scenario.
pub(crate) const REPLAY_FILE: &str = "scenario.json";

/// The command line that runs a counterexample, saved as [`REPLAY_FILE`],
/// under `set`: a profile file's switches are not in the scenario (its
/// `profile` names a built-in), so the command names the rule set.
pub(crate) fn replay_command(set: &RuleSet) -> String {
    format!(
        "inquiry-model run --profile {} {REPLAY_FILE}",
        shell_word(&set.label)
    )
}

/// `w` as one word of a POSIX shell command line: as it is when it holds
/// only characters no shell treats specially, else single-quoted.
fn shell_word(w: &str) -> String {
    let plain = !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./:=@+,%".contains(c));
    if plain {
        w.to_owned()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

/// The scenario set of the committed matrix: stride, sample size, seed.
pub(crate) const MATRIX_SCENARIOS: (usize, usize, u64) = (61, 300, 1);

/// The committed matrix (`spec/invariants.md`) as generated now.
pub(crate) fn committed_matrix() -> String {
    let (stride, sample, seed) = MATRIX_SCENARIOS;
    invariant_matrix(
        &scenarios(stride, sample, seed),
        &format!(
            "one in every {stride} scenarios of the small scope, plus {sample} drawn with seed {seed}"
        ),
    )
}

/// The invariant × profile matrix as Markdown (committed as
/// `spec/invariants.md`, kept current by a test).
pub(crate) fn invariant_matrix(scenarios: &[Scenario], description: &str) -> String {
    let per: Vec<(ProfileName, Vec<Verdict>)> = ProfileName::ALL
        .iter()
        .map(|&p| (p, invariants(p, scenarios)))
        .collect();
    let mut rules: BTreeSet<String> = BTreeSet::new();
    for (_, v) in &per {
        rules.extend(v.iter().map(|x| x.rule.clone()));
    }
    let mut s = format!(
        "# Invariants by profile\n\nGenerated by `inquiry-model invariants --matrix` ({description}); \
         `src/review/amend/amendment_tests.rs` regenerates it and fails when it is stale. A cell is `holds`, or the number \
         of scenarios that violate the invariant under that profile.\n\n| invariant |"
    );
    for (p, _) in &per {
        s.push_str(&format!(" {p} |"));
    }
    s.push_str("\n| --- |");
    for _ in &per {
        s.push_str(" --- |");
    }
    s.push('\n');
    for rule in &rules {
        s.push_str(&format!("| `{rule}` |"));
        for (_, v) in &per {
            let cell = match v.iter().find(|x| &x.rule == rule) {
                Some(x) if x.violating > 0 => format!(" violated ({}) |", x.violating),
                Some(_) | None => " holds |".to_owned(),
            };
            s.push_str(&cell);
        }
        s.push('\n');
    }
    s
}

pub(crate) mod review_scenarios;

#[cfg(all(test, feature = "testkit"))]
mod amendment_tests;

#[cfg(all(test, feature = "testkit"))]
mod review_pass_tests;

#[cfg(all(test, feature = "testkit"))]
mod amendment_gate_tests;

#[cfg(all(test, feature = "testkit"))]
mod amendment_rows_tests;
#[cfg(all(test, feature = "testkit"))]
mod report_text_tests;
#[cfg(all(test, feature = "testkit"))]
mod revised_rfd082_tests;
