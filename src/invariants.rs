//! The invariants of the model's own runs (`INV-*`): what must hold of a
//! [`Trace`] and, step by step, of the coordinator's state.
//!
//! A persisted stream alone is judged by the `CHECK-*` rules of
//! [`crate::check`], the stream oracle; [`stream_rules`] runs them over a
//! trace's stream as its profile's writer puts it on disk. The functions here
//! see what a stream cannot: which tool asked what, what the tool received,
//! what the prompter and the backend were given, and the remembered maps.
//! Each returns [`Diagnostic`]s with the [`Rule`], the turn and the stream
//! position. This module sits above the model (it imports the coordinator and
//! the scenario runner); the oracle never imports it, so the oracle judges
//! other implementations' streams without the model.

use std::borrow::Cow;
use std::collections::HashMap;

mod incremental;
mod state_texts;
#[cfg(test)]
use incremental::MemoEntry;
#[cfg(any(test, feature = "cli"))]
pub(crate) use incremental::check_trace_memo;
pub use incremental::{StepChecker, StreamMemo, check_runs};
use state_texts::{fixed_texts, moving_texts};

use indexmap::IndexMap;
use serde_json::Value;

use crate::check::{self, Diagnostic, ProfileMode, Severity};
use crate::model::cache_key::CacheKey;
use crate::model::coordinator::{Coordinator, TurnCache};
use crate::model::routing;
use crate::model::tool::{Outcome, Question, ToolSource, inquiry_source_under};
use crate::rule::Rule;
use crate::scenario::{InvocationRecord, Scenario, Trace};
use crate::stream;
use crate::wire::{EventKind, Exact, Stream};

/// The origin named in trace diagnostics.
pub(crate) const ORIGIN: &str = "trace";

/// Every invariant this module judges, in catalog order.
#[cfg(feature = "cli")]
pub(crate) const INVARIANTS: [Rule; 10] = [
    Rule::InvPaired,
    Rule::InvRecordAll,
    Rule::InvRecordedBeforeRouted,
    Rule::InvSecretNeverPersisted,
    Rule::InvProvenance,
    Rule::InvHumanOnlyNeverBackend,
    Rule::InvCacheHygiene,
    Rule::InvWireRoundtrip,
    Rule::InvIdUnique,
    Rule::InvCacheKeyUnique,
];

/// The rules the pre-082 behaviour (the `legacy` profile) breaks, as RFD 082
/// says it does: backend errors leave requests unpaired, prompter, cached and
/// static answers are not recorded, and there is no `Secret` type to keep
/// an answer off disk. An unpaired legacy request also takes,
/// by order, the response of a later request with the same two-segment ID
/// (the same call ID in a later cycle), which the oracle then sees as a
/// response after its call ended. And RFD 082 "Inquiry ID format":
/// "Two-segment IDs can collide within a turn if a tool re-emitted the same
/// `question_id`", so a re-asked question shares its ID with the first ask.
pub(crate) const LEGACY_KNOWN_GAPS: [Rule; 7] = [
    Rule::InvSecretNeverPersisted,
    Rule::InvPaired,
    Rule::CheckPaired,
    Rule::InvRecordAll,
    Rule::InvRecordedBeforeRouted,
    Rule::CheckPlacementClosed,
    Rule::InvIdUnique,
];

/// The rules RFD 082's joined IDs break when their parts hold the `.` they
/// are joined with ("Inquiry ID format": `<tool_call_id>.<question_id>.<attempt>`,
/// "IDs are unique by construction within the turn"; "Splitting the
/// turn-cache state": `<tool_name>.<question_id>`): the model's own
/// invariants, and the oracle's CHECK-TURN-UNIQUE-ID over the stream the
/// colliding IDs are written to. Known violations under every built-in
/// profile, and only for a scenario whose IDs hold the separator
/// ([`holds_separator`]); the amendment
/// `spec/profiles/examples/question-id-without-separator.json` keeps them.
///
/// CHECK-TURN-ONE-WRITER is the flaw's face under `legacy`: a pre-082
/// two-segment ID whose question ID holds `.` (`c1.x.1`: call `c1`,
/// question `x.1`) reads as an RFD 082 three-segment ID (question `x`,
/// attempt 1), so the oracle sees a turn written by two writers.
pub(crate) const SEPARATOR_FLAW: [Rule; 4] = [
    Rule::InvIdUnique,
    Rule::InvCacheKeyUnique,
    Rule::CheckTurnUniqueId,
    Rule::CheckTurnOneWriter,
];

/// Whether a scenario gives an ID part that holds RFD 082's separator `.`:
/// a tool call ID, a tool name, or a question ID (scripted, or in a local
/// program's `needs_input` line) that holds `.` or is empty.
pub fn holds_separator(s: &Scenario) -> bool {
    let dotted = |id: &str| id.is_empty() || id.contains('.');
    let calls = s
        .turns
        .iter()
        .flat_map(|t| &t.cycles)
        .flatten()
        .any(|c| c.id.contains('.'));
    let tools = s.tools.iter().any(|(name, setup)| {
        name.contains('.')
            || match &setup.program {
                crate::scenario::Program::Script { asks, .. } => {
                    asks.iter().any(|a| dotted(&a.question.id))
                }
                crate::scenario::Program::Local { stdout } => stdout.iter().any(|line| {
                    serde_json::from_str::<Value>(line)
                        .ok()
                        .and_then(|v| {
                            v.pointer("/question/id")
                                .and_then(Value::as_str)
                                .map(dotted)
                        })
                        .unwrap_or(false)
                }),
                crate::scenario::Program::AskUser => false,
            }
    });
    calls || tools
}

/// Why a finding is a known violation rather than a finding
/// ([`known_kinds`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Known {
    /// A gap RFD 082 closes, left open under `legacy`
    /// ([`LEGACY_KNOWN_GAPS`]).
    LegacyGap,
    /// RFD 082's separator flaw ([`SEPARATOR_FLAW`]).
    SeparatorFlaw,
}

/// Why `rule`, broken by a run of `s` under `rules`, is a known violation,
/// if it is one: a legacy gap under `legacy`, or the separator flaw where
/// the scenario's IDs hold the separator and the rules let them through.
fn known_kind(s: &Scenario, rules: &crate::profile::Rules, rule: Rule) -> Option<Known> {
    let legacy =
        s.profile == crate::profile::ProfileName::Legacy && LEGACY_KNOWN_GAPS.contains(&rule);
    let flaw = match rules.question_id_separator {
        crate::profile::SeparatorPolicy::Allowed => {
            SEPARATOR_FLAW.contains(&rule) && holds_separator(s)
        }
        crate::profile::SeparatorPolicy::Refused => false,
    };
    match (legacy, flaw) {
        (true, _) => Some(Known::LegacyGap),
        (false, true) => Some(Known::SeparatorFlaw),
        (false, false) => None,
    }
}

/// Whether `rule`, broken by a run of `s` under `rules`, is a known
/// violation rather than a finding: a legacy gap under `legacy`
/// ([`LEGACY_KNOWN_GAPS`]), or the separator flaw ([`SEPARATOR_FLAW`]) where
/// the scenario's IDs hold the separator and the rules let them through.
pub fn known_violation(s: &Scenario, rules: &crate::profile::Rules, rule: Rule) -> bool {
    known_kind(s, rules, rule).is_some()
}

/// For each of `found`, why it is a known violation, or `None` for a
/// finding: each finding [`known_violation`] names, and every oracle
/// (`CHECK-*`) finding in a turn whose inquiry IDs collide as a known
/// violation (INV-ID-UNIQUE), with that collision's kind: the oracle pairs
/// a response with its request by ID (RFD 082 "Inquiry ID format": the ID
/// is "the correlation key"), so in such a turn a response may be judged
/// against the other request of its ID (a reason, an outcome or a placement
/// that belongs to the other question). The one list of what is excused:
/// [`without_known`] drops these, and the searches of `explore` count them.
#[cfg(feature = "testkit")]
pub(crate) fn known_kinds(
    s: &Scenario,
    rules: &crate::profile::Rules,
    found: &[&Diagnostic],
) -> Vec<Option<Known>> {
    let collided: Vec<(usize, Known)> = found
        .iter()
        .filter(|d| d.rule == Rule::InvIdUnique)
        .filter_map(|d| known_kind(s, rules, d.rule).map(|k| (d.turn, k)))
        .collect();
    found
        .iter()
        .map(|d| {
            known_kind(s, rules, d.rule).or_else(|| match d.rule.is_invariant() {
                true => None,
                false => collided.iter().find(|(t, _)| *t == d.turn).map(|(_, k)| *k),
            })
        })
        .collect()
}

/// `found` without its known violations ([`known_kinds`]).
#[cfg(feature = "testkit")]
pub(crate) fn without_known(
    s: &Scenario,
    rules: &crate::profile::Rules,
    found: Vec<Diagnostic>,
) -> Vec<Diagnostic> {
    let kinds = known_kinds(s, rules, &found.iter().collect::<Vec<_>>());
    found
        .into_iter()
        .zip(kinds)
        .filter_map(|(d, known)| known.is_none().then_some(d))
        .collect()
}

/// A finding of the model's invariants. The messages the step checker
/// words most often (`INV-RECORDED-BEFORE-ROUTED`, which the legacy
/// profile breaks, and `INV-HUMAN-ONLY-NEVER-BACKEND`) are joined with
/// `concat`: one allocation of the exact length, no formatting machinery.
fn diag(
    rule: Rule,
    turn: usize,
    event_index: usize,
    ids: Vec<String>,
    message: impl Into<Cow<'static, str>>,
) -> Diagnostic {
    Diagnostic {
        rule,
        severity: Severity::Error,
        origin: Cow::Borrowed(ORIGIN),
        turn,
        event_index,
        ids,
        message: message.into(),
        position: None,
    }
}

/// Every invariant that can be judged from a finished run.
pub fn check_trace(trace: &Trace, scenario: &Scenario) -> Vec<Diagnostic> {
    let mut out = stream_rules(trace);
    out.extend(non_stream_invariants(trace, scenario));
    out.extend(wire_round_trip(trace));
    out
}

/// Every invariant that can be judged after one step: the finished-run ones
/// that hold at every prefix, plus the coordinator's state.
pub fn check_step(coordinator: &Coordinator, trace: &Trace) -> Vec<Diagnostic> {
    let state = state_texts(coordinator);
    let mut out = secrets_never_persisted(trace, &[("coordinator state", state.as_str())]);
    out.extend(cache_hygiene(coordinator, trace));
    out.extend(recorded_before_routed(trace));
    out.extend(human_only_never_backend(trace));
    out
}

/// Every text the coordinator's state holds outside the places a secret may
/// live in memory (`state_texts::fixed_texts` and `moving_texts`), one per
/// line.
fn state_texts(coordinator: &Coordinator) -> String {
    let mut all = String::new();
    let mut push = |s: &str| {
        all.push_str(s);
        all.push('\n');
    };
    fixed_texts(coordinator, &mut push);
    moving_texts(coordinator, &mut push);
    all
}

/// Whether any text `walk` visits contains `secret`.
fn holds(walk: impl FnOnce(&mut dyn FnMut(&str)), secret: &str) -> bool {
    let mut found = false;
    walk(&mut |s: &str| found |= s.contains(secret));
    found
}

/// The message of a secret found in the coordinator's state (the
/// stateless [`check_step`] words it the same through
/// [`secrets_never_persisted`]'s `extra` label).
const IN_COORDINATOR_STATE: &str = "a secret answer is in the coordinator state";

/// The invariants of a finished run beyond its stream's: each one's own
/// findings, in this order, with each call instance's invocations grouped
/// once for the three that read them (rule `PERF-END-SHARED`).
fn non_stream_invariants(trace: &Trace, scenario: &Scenario) -> Vec<Diagnostic> {
    let mut out = always_paired(trace);
    out.extend(beyond_the_stream(trace, scenario, None));
    out
}

/// [`non_stream_invariants`] after `always_paired`, a function of the
/// stream alone that the memo keeps with the stream (rule
/// `PERF-MEMO-PAIRED`): each invariant that reads the trace beyond its
/// stream, in the same order. What `steps`, a checker that judged every
/// step of the run, judged for good is not judged again (rule
/// `PERF-END-AFTER-STEPS`): `INV-RECORDED-BEFORE-ROUTED` with
/// `INV-HUMAN-ONLY-NEVER-BACKEND` where it found neither, and
/// `INV-SECRET-NEVER-PERSISTED` in the stream, searched in the events'
/// texts it kept.
fn beyond_the_stream(
    trace: &Trace,
    scenario: &Scenario,
    steps: Option<&incremental::StepChecker>,
) -> Vec<Diagnostic> {
    let routed = steps.is_some_and(|c| c.routed_judged(trace));
    let secrets = steps.and_then(|c| c.secrets_in_order(trace));
    // The call instances, grouped once for what is judged afresh.
    let calls = (!routed || secrets.is_none()).then(|| by_call(trace));
    let mut out = every_round_trip_recorded(trace);
    if let (false, Some(calls)) = (routed, &calls) {
        out.extend(recorded_before_routed_with(
            trace,
            Seen::default(),
            &request_index(trace),
            calls,
        ));
    }
    match (secrets, &calls) {
        (Some(found), _) => out.extend(found),
        (None, Some(calls)) => out.extend(secrets_in(trace, &[], &secret_answers_of(calls))),
        (None, None) => {}
    }
    out.extend(provenance(trace, scenario));
    if let (false, Some(calls)) = (routed, &calls) {
        out.extend(human_only_never_backend_since(trace, 0, calls));
    }
    out.extend(ids_unique(trace));
    out.extend(cache_keys_unique(trace));
    out
}

/// `INV-ID-UNIQUE`: within a turn, one inquiry ID is persisted for one
/// (tool call, question, attempt). RFD 082 "Inquiry ID format": the ID
/// "MUST be unique within the turn", and the writer's three parts are what
/// it must tell apart ("IDs are unique by construction within the turn").
/// Each recorded request is named by what the writer knew when it recorded
/// it (the call's ID, the question's ID, and the attempt: the how-manyth
/// recording of that pair in the turn, counted here independently of the
/// writer's counter) and judged against the ID it was persisted under. The
/// construction joins the parts with `.`, which they may hold: call `a`
/// asking `b.1` and call `a.b` asking `1` both record `a.b.1.1`.
pub(crate) fn ids_unique(trace: &Trace) -> Vec<Diagnostic> {
    // Each question asked whose request is on the stream: the invocation,
    // the question, the request's position and its ID.
    let recorded = || {
        trace.invocations.iter().filter_map(|inv| {
            let q = asked(inv)?;
            let k = inv.request_event?;
            let r = trace.stream.get(k)?.as_inquiry_request()?;
            Some((inv, q, k, r.id.as_str()))
        })
    };
    // A finding needs two recorded requests of one turn under one ID: where
    // there are few, look for such a pair first (each read once, into a
    // buffer on the stack), and build no table without one.
    let mut few = [(0usize, ""); ID_PAIRS_SEARCHED_UP_TO];
    let mut n = 0;
    let mut more = false;
    for (inv, _, _, id) in recorded() {
        if n == few.len() {
            more = true;
            break;
        }
        few[n] = (inv.at.turn, id);
        n += 1;
    }
    let few = &few[..n];
    if !more
        && !few
            .iter()
            .enumerate()
            .any(|(j, a)| few[j + 1..].iter().any(|b| b.0 == a.0 && b.1.same(a.1)))
    {
        return Vec::new();
    }
    // Sized once: at most one entry per invocation.
    let n = trace.invocations.len();
    let mut attempts: HashMap<(usize, &str, &str), u32, Fast> =
        HashMap::with_capacity_and_hasher(n, Fast::default());
    let mut named: HashMap<(usize, &str), (&str, &str, u32), Fast> =
        HashMap::with_capacity_and_hasher(n, Fast::default());
    let mut out = Vec::new();
    for (inv, q, k, id) in recorded() {
        let n = attempts
            .entry((inv.at.turn, inv.tool_call_id.as_str(), q.id.as_str()))
            .or_insert(0);
        *n += 1;
        let triple = (inv.tool_call_id.as_str(), q.id.as_str(), *n);
        let first = *named.entry((inv.at.turn, id)).or_insert(triple);
        if first != triple {
            out.push(diag(
                Rule::InvIdUnique,
                inv.at.turn,
                k,
                vec![id.to_owned()],
                format!(
                    "inquiry ID `{id}` is persisted for call `{}` question `{}` attempt {} \
                     and, earlier in the turn, for call `{}` question `{}` attempt {}",
                    triple.0, triple.1, triple.2, first.0, first.1, first.2
                ),
            ));
        }
    }
    out
}

/// Up to how many recorded requests [`ids_unique`] looks for two under
/// one ID pair by pair before it builds its tables.
const ID_PAIRS_SEARCHED_UP_TO: usize = 8;

/// `INV-CACHE-KEY-UNIQUE`: the turn cache serves a remembered answer only to
/// the (tool, question) it was remembered for. RFD 082 "Splitting the
/// turn-cache state" keys tool answers `<tool_name>.<question_id>`, joined
/// with `.`, which the parts may hold: tool `a`'s remembered answer to `b.c`
/// answers tool `a.b`'s question `c`. Reported where a question is answered
/// from the cache under a key that an earlier question of the turn, of
/// another (tool, question), was resolved under.
pub(crate) fn cache_keys_unique(trace: &Trace) -> Vec<Diagnostic> {
    // Only an answer from the cache is judged: a run with none has nothing
    // to report, and builds no table.
    if !trace
        .resolutions
        .iter()
        .any(|r| answered_from_cache(r.route))
    {
        return Vec::new();
    }
    // Sized once: at most one entry per invocation, one per resolution.
    let mut tool_of: HashMap<(usize, usize, usize), &str, Fast> =
        HashMap::with_capacity_and_hasher(trace.invocations.len(), Fast::default());
    for inv in &trace.invocations {
        tool_of
            .entry((inv.at.turn, inv.at.cycle, inv.call_index))
            .or_insert(inv.tool.as_str());
    }
    let mut under: HashMap<(usize, String), (&str, &str), Fast> =
        HashMap::with_capacity_and_hasher(trace.resolutions.len(), Fast::default());
    let mut out = Vec::new();
    for r in &trace.resolutions {
        let Some(&tool) = tool_of.get(&(r.at.turn, r.at.cycle, r.call_index)) else {
            continue;
        };
        let cache_key = CacheKey::answer(tool, &r.question_id);
        let pair = (tool, r.question_id.as_str());
        let first = *under.entry((r.at.turn, cache_key.key())).or_insert(pair);
        if answered_from_cache(r.route) && first != pair {
            out.push(diag(
                Rule::InvCacheKeyUnique,
                r.at.turn,
                trace.stream.len(),
                vec![cache_key.key()],
                format!(
                    "the turn cache answered tool `{}` question `{}` under key `{cache_key}`, \
                     which tool `{}` question `{}` was resolved under earlier in the turn",
                    pair.0, pair.1, first.0, first.1
                ),
            ));
        }
    }
    out
}

/// Whether a question resolved by `route` was answered from the turn cache.
fn answered_from_cache(route: crate::model::coordinator::RouteTaken) -> bool {
    match route {
        crate::model::coordinator::RouteTaken::Cached => true,
        crate::model::coordinator::RouteTaken::Static
        | crate::model::coordinator::RouteTaken::Prompter
        | crate::model::coordinator::RouteTaken::Backend
        | crate::model::coordinator::RouteTaken::Refused(_) => false,
    }
}

/// The answer a CHECK-ANSWER-FITS finding is about is a value the scenario's
/// scripted prompter typed (first-hand, or remembered for the turn and
/// recorded again on a cache hit).
fn typed_by_prompter(trace: &Trace, d: &Diagnostic) -> bool {
    let Some(crate::wire::InquiryResponse::Answered { answer, .. }) = trace
        .stream
        .get(d.event_index)
        .and_then(|e| e.as_inquiry_response())
    else {
        return false;
    };
    trace.prompts.iter().any(|p| {
        matches!(&p.reply, crate::scenario::PrompterReply::Answer { value, .. } if value == answer)
    })
}

/// `CHECK-*`: the stream oracle over the trace's stream, judged as written by
/// the trace's own profile.
pub(crate) fn stream_rules(trace: &Trace) -> Vec<Diagnostic> {
    let mut bytes = Vec::new();
    write_persisted(trace, &mut bytes);
    kept_stream_findings(trace, &stream_findings(&bytes, trace))
}

/// What the stream oracle finds in a trace's persisted `bytes`, judged by
/// the trace's profile and tables, before [`kept_stream_findings`] waives
/// what the trace's prompts and its end explain: a function of the bytes,
/// the profile and the tables alone.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct StreamFindings {
    /// The oracle's diagnostics but `CHECK-PROVENANCE`'s, in its order.
    diagnostics: Vec<Diagnostic>,
    /// The turns it counted.
    turns: usize,
    /// The finding of a stream that does not read back.
    error: Option<Diagnostic>,
}

/// The stream oracle over persisted `bytes` of `trace`'s stream (see
/// [`StreamFindings`]).
pub(super) fn stream_findings(bytes: &[u8], trace: &Trace) -> StreamFindings {
    let mode = ProfileMode::Fixed(trace.profile);
    findings_of(check::check_bytes_in(
        bytes,
        ORIGIN,
        mode,
        trace.rules.tables,
    ))
}

/// [`stream_findings`] of the bytes [`write_persisted`] writes of `trace`,
/// judged from its events without writing them (rule
/// `PERF-ORACLE-TYPED`). Only for a trace each of whose events' written
/// text reads back as the event, in the shape its writer gives it
/// ([`check::written_shape`]): then what the oracle would read is the
/// events themselves. `lengths` are the events' written lengths, which
/// place the diagnostics.
pub(super) fn written_stream_findings(trace: &Trace, lengths: &[usize]) -> StreamFindings {
    let mode = ProfileMode::Fixed(trace.profile);
    findings_of(check::check_written_events(
        &trace.stream,
        writes_flat(trace),
        ORIGIN,
        mode,
        trace.rules.tables,
        &mut |i| lengths[i],
    ))
}

/// The oracle's judgment of a trace's persisted stream as [`StreamFindings`].
fn findings_of(checked: check::Checked) -> StreamFindings {
    // The model's scenarios hold synthetic assistant-hooked built-ins, which
    // RFD 082 sanctions for tests ("tests exercise the assistant-source path
    // with a synthetic built-in") and production streams never hold; the
    // model's sources are judged against its tools' kinds by INV-PROVENANCE
    // instead of by the stream rule CHECK-PROVENANCE.
    let mut diagnostics = checked.diagnostics;
    diagnostics.retain(|d| d.rule != Rule::CheckProvenance);
    StreamFindings {
        diagnostics,
        turns: checked.summary.turns,
        error: checked.error.map(|e| {
            diag(
                Rule::InvWireRoundtrip,
                0,
                e.event_index().unwrap_or(0),
                vec![],
                format!("the persisted stream does not read back: {e}"),
            )
        }),
    }
}

/// The stream oracle's findings of `trace` that are its writer's fault.
///
/// Its scripted prompter answers with whatever value the scenario gives
/// (the model judges the recording lifecycle, not the prompter's typing; a
/// real prompter is typed), so CHECK-ANSWER-FITS is waived for an answer
/// the prompter typed, and only for it: a static or backend answer the model
/// let through is the model's own decision (LIFE-ANSWER-SHAPE) and is
/// judged. A run that ended in a hard quit stopped with its last turn's tool
/// calls open and wrote nothing after (LIFE-TOKEN-CAUSE): the oracle rightly
/// reports those calls (CHECK-TOOL-PAIRED), and RFD 082 Phase 3's sanitize
/// repairs them on the next load; they are no fault of the writer's
/// lifecycle. Both waivers read the trace beyond its stream (its prompts,
/// whether it was interrupted).
pub(super) fn kept_stream_findings(trace: &Trace, found: &StreamFindings) -> Vec<Diagnostic> {
    let last_turn = found.turns.checked_sub(1);
    let mut out: Vec<Diagnostic> = found
        .diagnostics
        .iter()
        .filter(|d| !(d.rule == Rule::CheckAnswerFits && typed_by_prompter(trace, d)))
        .filter(|d| {
            !(trace.interrupted
                && d.rule == Rule::CheckToolPaired
                && Some(d.turn) == last_turn
                && trace
                    .stream
                    .get(d.event_index)
                    .is_some_and(|e| matches!(e.kind, EventKind::ToolCallRequest(_))))
        })
        .cloned()
        .collect();
    out.extend(found.error.iter().cloned());
    out
}

/// Appends to `out` the bytes `serde_json::to_vec(&trace.persisted_json())`
/// gives, written event by event without building the JSON tree (rule
/// `PERF-PERSISTED-DIRECT`). An event the trace's response form writes
/// without its `outcome` (a legacy flat answer), and an event with an extra
/// field that may repeat a name written before it (the tree keeps one
/// member of a name), go through the tree, as [`Trace::persisted_json`]
/// builds it; every other event is written straight from its `Serialize`,
/// which is what the tree holds: the model builds its events (no number
/// text is kept) and its opaque values from JSON values (compact, as
/// serde_json writes them back). An event that does not serialize is
/// `null`, as in the tree.
pub(crate) fn write_persisted(trace: &Trace, out: &mut Vec<u8>) {
    write_events(&trace.stream, writes_flat(trace), out);
}

/// Whether `trace`'s profile writes an answered response without its
/// `outcome`.
pub(super) fn writes_flat(trace: &Trace) -> bool {
    matches!(
        trace.rules.response_form,
        crate::profile::ResponseForm::Flat
    )
}

/// [`write_persisted`] of `events`, answered responses written without
/// their `outcome` if `flat`: the same function of the events (and `flat`)
/// for every trace, so a trace that does not write flat persists exactly
/// what `write_events(&trace.stream, false, ..)` writes.
pub(super) fn write_events(events: &[crate::wire::Event], flat: bool, out: &mut Vec<u8>) {
    out.push(b'[');
    for (i, e) in events.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let legacy_answer = check::written_without_outcome(e, flat);
        let start = out.len();
        let written = if legacy_answer || repeats_a_name(e) {
            let mut v = serde_json::to_value(e).unwrap_or(Value::Null);
            if let (true, Value::Object(m)) = (legacy_answer, &mut v) {
                m.shift_remove("outcome");
            }
            serde_json::to_writer(&mut *out, &v)
        } else {
            serde_json::to_writer(&mut *out, e)
        };
        if written.is_err() {
            out.truncate(start);
            out.extend_from_slice(b"null");
        }
    }
    out.push(b']');
}

/// Whether an extra field of `e` may have the name of a field written
/// before it (the tag, the timestamp, a field the kind types, an earlier
/// extra): the JSON tree keeps one member of a name, the event's own
/// `Serialize` writes both.
pub(super) fn repeats_a_name(e: &crate::wire::Event) -> bool {
    if e.extra.is_empty() {
        return false;
    }
    let typed = crate::wire::typed_field_names(&e.kind);
    e.extra.iter().enumerate().any(|(k, (name, _))| {
        name == "type"
            || name == "timestamp"
            || typed.contains(&name.as_str())
            || e.extra[..k].iter().any(|(earlier, _)| earlier == name)
    })
}

/// `INV-PAIRED`: every request has exactly one response with its ID later in
/// its turn, and every response has its request.
pub(crate) fn always_paired(trace: &Trace) -> Vec<Diagnostic> {
    let p = stream::pair(&trace.stream);
    let id_at = |i: usize| -> Vec<String> {
        match &trace.stream[i].kind {
            EventKind::InquiryRequest(r) => vec![r.id.to_string()],
            EventKind::InquiryResponse(r) => vec![r.id().to_string()],
            _ => vec![],
        }
    };
    let mut out: Vec<Diagnostic> = p
        .orphan_requests
        .iter()
        .map(|&(turn, i)| {
            diag(
                Rule::InvPaired,
                turn,
                i,
                id_at(i),
                "inquiry request has no response in its turn",
            )
        })
        .collect();
    out.extend(p.orphan_responses.iter().map(|&(turn, i)| {
        diag(
            Rule::InvPaired,
            turn,
            i,
            id_at(i),
            "inquiry response has no request before it in its turn",
        )
    }));
    out
}

/// The hasher of the invariants' own tables (their keys are the run's,
/// never iterated in the table's order).
type Fast = std::hash::BuildHasherDefault<incremental::FastHash>;

/// Each call instance's invocations, in order, by `(turn, cycle,
/// call_index)`, the instances in the order first invoked.
type Calls<'t> = IndexMap<(usize, usize, usize), Vec<&'t InvocationRecord>, Fast>;

/// Where each inquiry request sits: per `(turn, inquiry ID)`, the stream
/// position of its first request. A record is judged by whether a request
/// precedes it, which the first one answers. The table holds `(turn,
/// position)` only and reads the ID from the stream at the position, so
/// indexing a request copies no ID (rule `PERF-STEP-GROUPED`).
#[derive(Debug, Default, Clone)]
struct RequestAt {
    /// The entries while there are at most [`RequestAt::SCANNED_UP_TO`]
    /// (a run explored records a handful): found by comparing each in
    /// turn, which costs less than hashing an ID. Empty past them.
    few: Vec<(usize, usize)>,
    /// Every entry by its `(turn, ID)`'s hash, once there are more.
    first: hashbrown::HashTable<(usize, usize)>,
}

impl RequestAt {
    /// Up to how many entries are found by comparing each in turn.
    const SCANNED_UP_TO: usize = 16;

    /// The ID of the request at `pos` of `stream` (none if there is no
    /// request there: a position this table holds always has one).
    fn id_at(stream: &[crate::wire::Event], pos: usize) -> Option<&str> {
        stream
            .get(pos)
            .and_then(|e| e.as_inquiry_request())
            .map(|r| r.id.as_str())
    }

    fn hash(turn: usize, id: Option<&str>) -> u64 {
        use std::hash::BuildHasher;
        Fast::default().hash_one((turn, id))
    }

    /// The position of the first request of `(turn, id)` in `stream`.
    fn first(&self, stream: &[crate::wire::Event], turn: usize, id: &str) -> Option<usize> {
        let of = |&(t, p): &(usize, usize)| t == turn && Self::id_at(stream, p).same(&Some(id));
        if self.first.is_empty() {
            return self.few.iter().find(|e| of(e)).map(|&(_, p)| p);
        }
        self.first
            .find(Self::hash(turn, Some(id)), of)
            .map(|&(_, p)| p)
    }

    /// Records the request at `pos` of `stream`, in `turn`, unless an
    /// earlier one of its ID in the turn is recorded.
    fn insert_first(&mut self, stream: &[crate::wire::Event], turn: usize, pos: usize) {
        let id = Self::id_at(stream, pos);
        let of = |&(t, p): &(usize, usize)| t == turn && Self::id_at(stream, p).same(&id);
        let rehash = |&(t, p): &(usize, usize)| Self::hash(t, Self::id_at(stream, p));
        if self.first.is_empty() {
            if self.few.iter().any(of) {
                return;
            }
            if self.few.len() < Self::SCANNED_UP_TO {
                self.few.push((turn, pos));
                return;
            }
            for e in self.few.drain(..) {
                self.first.insert_unique(rehash(&e), e, rehash);
            }
        }
        if let hashbrown::hash_table::Entry::Vacant(v) =
            self.first.entry(Self::hash(turn, id), of, rehash)
        {
            v.insert((turn, pos));
        }
    }

    fn clear(&mut self) {
        self.few.clear();
        self.first.clear();
    }

    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.few.is_empty() && self.first.is_empty()
    }

    /// The `(turn, position)` entries in ascending order (for a state
    /// search's key: the table's own order is arbitrary).
    #[cfg(feature = "cli")]
    fn sorted(&self) -> Vec<(usize, usize)> {
        let mut v: Vec<_> = self.few.iter().chain(self.first.iter()).copied().collect();
        v.sort_unstable();
        v
    }
}

/// Each call instance's invocations, in order.
fn by_call(trace: &Trace) -> Calls<'_> {
    // Sized once: at most one instance per invocation.
    let mut m = Calls::with_capacity_and_hasher(trace.invocations.len(), Fast::default());
    for inv in &trace.invocations {
        m.entry((inv.at.turn, inv.at.cycle, inv.call_index))
            .or_default()
            .push(inv);
    }
    m
}

fn asked(inv: &InvocationRecord) -> Option<&Question> {
    match &inv.outcome {
        Outcome::NeedsInput { question } => Some(question),
        Outcome::Success { .. } | Outcome::Error { .. } => None,
    }
}

/// `INV-RECORD-ALL`: every `NeedsInput` a tool returned has its request on
/// the stream (RFD 082 Summary). Holds from RFD 082 on.
pub(crate) fn every_round_trip_recorded(trace: &Trace) -> Vec<Diagnostic> {
    let asked_count = trace
        .invocations
        .iter()
        .filter(|i| asked(i).is_some())
        .count();
    let recorded = trace
        .stream
        .iter()
        .filter(|e| e.as_inquiry_request().is_some())
        .count();
    if asked_count == recorded {
        return vec![];
    }
    // Name the first unrecorded question: walk invocations and requests in order.
    let mut requests = trace
        .stream
        .iter()
        .enumerate()
        .filter(|(_, e)| e.as_inquiry_request().is_some())
        .map(|(i, _)| i)
        .peekable();
    for inv in &trace.invocations {
        if let Some(q) = asked(inv) {
            match requests.peek() {
                Some(&i) if i >= inv.stream_position => {
                    requests.next();
                }
                _ => {
                    return vec![diag(
                        Rule::InvRecordAll,
                        inv.at.turn,
                        inv.stream_position,
                        vec![inv.tool_call_id.clone()],
                        unrecorded_message(&inv.tool, &q.id, asked_count, recorded),
                    )];
                }
            }
        }
    }
    let mut message = String::new();
    push_counts(&mut message, asked_count, recorded);
    vec![diag(Rule::InvRecordAll, 0, 0, vec![], message)]
}

/// `INV-RECORD-ALL`'s words for the first question unrecorded: the tool,
/// "asked", the question in backticks, then the counts in parentheses.
/// Pushed rather than formatted (rule `PERF-WORDS-PUSHED`): a fault row of
/// an exploration words it on thousands of runs.
fn unrecorded_message(tool: &str, question: &str, asked: usize, recorded: usize) -> String {
    let mut out = String::with_capacity(tool.len() + question.len() + 64);
    out.push_str(tool);
    out.push_str(" asked `");
    out.push_str(question);
    out.push_str("` (");
    push_counts(&mut out, asked, recorded);
    out.push(')');
    out
}

/// `<n> questions asked, <m> requests recorded`, pushed onto `out`.
fn push_counts(out: &mut String, asked: usize, recorded: usize) {
    crate::words::Count(asked, "question").push_onto(out);
    out.push_str(" asked, ");
    crate::words::Count(recorded, "request").push_onto(out);
    out.push_str(" recorded");
}

/// `INV-RECORDED-BEFORE-ROUTED`: no prompt is shown, no backend called and no
/// tool re-invoked with an answer before the request for it is on the stream
/// (RFD 082 "Recording lifecycle" step 2). Holds from RFD 082 on; the
/// legacy profile breaks it (unrecorded prompts, pre-seeded static answers).
pub(crate) fn recorded_before_routed(trace: &Trace) -> Vec<Diagnostic> {
    recorded_before_routed_with(
        trace,
        Seen::default(),
        &request_index(trace),
        &by_call(trace),
    )
}

/// Where each inquiry request of `trace`'s stream sits.
fn request_index(trace: &Trace) -> RequestAt {
    let mut request_at = RequestAt::default();
    for t in &stream::turns(&trace.stream) {
        for i in t.start..t.end {
            if trace.stream[i].as_inquiry_request().is_some() {
                request_at.insert_first(&trace.stream, t.index, i);
            }
        }
    }
    request_at
}

/// How much of a trace's append-only records an incremental check has
/// already judged.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Seen {
    prompts: usize,
    backend_calls: usize,
    invocations: usize,
}

impl Seen {
    fn of(trace: &Trace) -> Seen {
        Seen {
            prompts: trace.prompts.len(),
            backend_calls: trace.backend_calls.len(),
            invocations: trace.invocations.len(),
        }
    }
}

/// Where each inquiry request sits: `(turn, inquiry ID)` to its stream
/// positions, kept up to date as the stream grows (turns counted as the
/// one-event-at-a-time [`stream::turns::Tracker`] counts them).
#[derive(Debug, Default, Clone)]
struct RequestIndex {
    at: RequestAt,
    indexed: usize,
    tracker: stream::turns::Tracker,
    turn: usize,
}

impl RequestIndex {
    fn extend(&mut self, events: &[crate::wire::Event]) {
        for (i, e) in events.iter().enumerate().skip(self.indexed) {
            match self.tracker.push(&e.kind) {
                stream::turns::Step::First => self.turn = 0,
                stream::turns::Step::Next { ended } => self.turn = ended + 1,
                stream::turns::Step::Same => {}
            }
            if e.as_inquiry_request().is_some() {
                self.at.insert_first(events, self.turn, i);
            }
        }
        self.indexed = self.indexed.max(events.len());
    }
}

/// `INV-RECORDED-BEFORE-ROUTED` of the prompts and backend calls after
/// `seen` only: each is judged by the requests recorded before its own
/// stream position. Its findings are appended to `out`: the step checker
/// calls it at every step that adds a record, and a fault row finds one
/// at most of them.
fn routed_before_recorded(
    trace: &Trace,
    seen: Seen,
    request_at: &RequestAt,
    out: &mut Vec<Diagnostic>,
) {
    for p in &trace.prompts[seen.prompts..] {
        let Some(id) = &p.inquiry_id else {
            out.push(diag(
                Rule::InvRecordedBeforeRouted,
                p.at.turn,
                p.stream_position,
                vec![p.tool_call_id.clone()],
                "a prompt was shown for a question whose request is not recorded",
            ));
            continue;
        };
        {
            let ok = request_at
                .first(&trace.stream, p.at.turn, id)
                .is_some_and(|first| first < p.stream_position);
            if !ok {
                out.push(diag(
                    Rule::InvRecordedBeforeRouted,
                    p.at.turn,
                    p.stream_position,
                    vec![id.clone()],
                    "a prompt was shown before its inquiry request was recorded",
                ));
            }
        }
    }
    for b in &trace.backend_calls[seen.backend_calls..] {
        let ok = request_at
            .first(&trace.stream, b.at.turn, &b.call.inquiry_id)
            .is_some_and(|first| first < b.call.cloned_events);
        if !ok {
            out.push(diag(
                Rule::InvRecordedBeforeRouted,
                b.at.turn,
                b.call.cloned_events,
                vec![b.call.inquiry_id.clone()],
                "the inquiry backend was called before the request was recorded",
            ));
        }
    }
}

/// [`recorded_before_routed`] over the prompts, backend calls and
/// invocations after `seen` only, given where the
/// requests sit. The judgement of a record looks only at
/// the stream before its own position, which an append-only stream never
/// changes, so a record judged once is judged for good.
fn recorded_before_routed_with(
    trace: &Trace,
    seen: Seen,
    request_at: &RequestAt,
    calls: &Calls<'_>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    routed_before_recorded(trace, seen, request_at, &mut out);
    // A re-invocation follows one answered question: its request and
    // response are both on the stream before the tool runs again.
    let new_invocation = |i: &InvocationRecord| {
        trace.invocations[seen.invocations..]
            .iter()
            .any(|n| std::ptr::eq(n, i))
    };
    for invs in calls.values() {
        if let Some(first) = invs
            .first()
            .filter(|i| !i.answers.is_empty() && new_invocation(i))
        {
            out.push(answers_on_first_invocation(first));
        }
        for w in invs.windows(2) {
            let (prev, next) = (w[0], w[1]);
            if !new_invocation(next) {
                continue;
            }
            out.extend(reinvoked_before_recorded(trace, prev, next));
        }
    }
    out
}

/// `INV-RECORDED-BEFORE-ROUTED` of a call instance's first invocation,
/// which saw answers.
fn answers_on_first_invocation(first: &InvocationRecord) -> Diagnostic {
    diag(
        Rule::InvRecordedBeforeRouted,
        first.at.turn,
        first.stream_position,
        vec![first.tool_call_id.clone()],
        [
            first.tool.as_str(),
            " saw answers on its first invocation, before any question was recorded",
        ]
        .concat(),
    )
}

/// `INV-RECORDED-BEFORE-ROUTED` of `next`, the invocation of a call
/// instance after `prev`: if `prev` asked, its request and a response to it
/// are on the stream before `next` runs.
fn reinvoked_before_recorded(
    trace: &Trace,
    prev: &InvocationRecord,
    next: &InvocationRecord,
) -> Option<Diagnostic> {
    let q = asked(prev)?;
    let end = next.stream_position.min(trace.stream.len());
    let closed = prev.request_event.filter(|&k| k < end).is_some_and(|k| {
        let id = trace.stream[k].as_inquiry_request().map(|r| &r.id);
        trace.stream[k + 1..end]
            .iter()
            .any(|e| e.as_inquiry_response().map(|r| r.id()).same(&id))
    });
    (!closed).then(|| {
        diag(
            Rule::InvRecordedBeforeRouted,
            next.at.turn,
            next.stream_position,
            vec![next.tool_call_id.clone()],
            [
                next.tool.as_str(),
                " was re-invoked with an answer to `",
                q.id.as_str(),
                "` before the request and response were recorded",
            ]
            .concat(),
        )
    })
}

/// The secret answers tools received in a run: what a re-invocation saw for
/// a question the previous invocation asked as `Secret`.
pub(crate) fn secret_answers(trace: &Trace) -> Vec<String> {
    secret_answers_of(&by_call(trace))
}

/// [`secret_answers`] of a run's call instances.
fn secret_answers_of(calls: &Calls<'_>) -> Vec<String> {
    let mut out = Vec::new();
    for invs in calls.values() {
        for w in invs.windows(2) {
            if let Some(q) = asked(w[0]).filter(|q| q.is_secret())
                && let Some(Value::String(s)) = w[1].answers.get(&q.id)
            {
                out.push(s.clone());
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// `INV-SECRET-NEVER-PERSISTED`: no secret answer appears in the serialized
/// stream, nor in any of the `extra` texts (the coordinator's state, the
/// remembered maps). Secrets shorter than 6 characters are not searched for
/// (a secret `"y"` would match everywhere); the property tests use unique
/// markers. The legacy profile has no `Secret` type and breaks it: a tool's
/// secret question is plain text there, and a backend answer is persisted.
pub(crate) fn secrets_never_persisted(trace: &Trace, extra: &[(&str, &str)]) -> Vec<Diagnostic> {
    secrets_in(trace, extra, &secret_answers(trace))
}

/// [`secrets_never_persisted`] of the run's `secrets`.
fn secrets_in(trace: &Trace, extra: &[(&str, &str)], secrets: &[String]) -> Vec<Diagnostic> {
    if secrets.iter().all(|s| s.len() < 6) {
        return Vec::new();
    }
    let texts = trace
        .stream
        .iter()
        .map(|e| std::borrow::Cow::Owned(serde_json::to_string(e).unwrap_or_default()));
    secrets_in_texts(trace, texts, extra, secrets)
}

/// [`secrets_in`] given the text `serde_json` writes of each event of the
/// stream, in order.
fn secrets_in_texts<'a>(
    trace: &Trace,
    texts: impl Iterator<Item = std::borrow::Cow<'a, str>>,
    extra: &[(&str, &str)],
    secrets: &[String],
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (i, text) in texts.enumerate() {
        for s in secrets.iter().filter(|s| s.len() >= 6) {
            if text.contains(s.as_str()) {
                out.push(diag(
                    Rule::InvSecretNeverPersisted,
                    turn_of(trace, i),
                    i,
                    vec![],
                    "a secret answer is in the persisted stream",
                ));
            }
        }
    }
    for (what, text) in extra {
        for s in secrets.iter().filter(|s| s.len() >= 6) {
            if text.contains(s.as_str()) {
                out.push(diag(
                    Rule::InvSecretNeverPersisted,
                    0,
                    trace.stream.len(),
                    vec![],
                    format!("a secret answer is in the {what}"),
                ));
            }
        }
    }
    out
}

fn turn_of(trace: &Trace, index: usize) -> usize {
    stream::turns(&trace.stream)
        .iter()
        .find(|t| t.start <= index && index < t.end)
        .map_or(0, |t| t.index)
}

/// `INV-PROVENANCE`: every recorded request's source is what the tool's kind
/// resolves to, whatever the configuration says (RFD 082 "Source attribution").
pub(crate) fn provenance(trace: &Trace, scenario: &Scenario) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for inv in &trace.invocations {
        if asked(inv).is_none() {
            continue;
        }
        let Some(setup) = tool_setup(scenario, &inv.tool) else {
            continue;
        };
        let Ok(kind) = setup.executor(&inv.tool) else {
            continue;
        };
        let expected = inquiry_source_under(trace.profile.rules().provenance, kind, &inv.tool);
        let found = inv.request_event.and_then(|k| {
            trace
                .stream
                .get(k)
                .and_then(|e| e.as_inquiry_request())
                .map(|r| (k, r))
        });
        if let Some((k, r)) = found
            && r.source != expected
        {
            out.push(diag(
                Rule::InvProvenance,
                inv.at.turn,
                k,
                vec![r.id.to_string()],
                format!(
                    "{} ({}) recorded source {:?}, its kind resolves to {:?}",
                    inv.tool,
                    kind_name(kind),
                    r.source,
                    expected
                ),
            ));
        }
    }
    out
}

/// The scenario's setup of the tool `name`. A scenario holds a few tools:
/// up to [`TOOLS_SCANNED_UP_TO`], their names are compared in turn (inline,
/// as short as they are), which costs less than hashing the name once
/// (rule `PERF-TOOLS-SCANNED`).
fn tool_setup<'s>(scenario: &'s Scenario, name: &str) -> Option<&'s crate::scenario::ToolSetup> {
    if scenario.tools.len() <= TOOLS_SCANNED_UP_TO {
        scenario
            .tools
            .iter()
            .find_map(|(n, setup)| n.as_str().same(name).then_some(setup))
    } else {
        scenario.tools.get(name)
    }
}

/// Up to how many tools [`tool_setup`] compares names in turn.
const TOOLS_SCANNED_UP_TO: usize = 8;

fn kind_name(s: ToolSource) -> &'static str {
    match s {
        ToolSource::Builtin { .. } => "built-in",
        ToolSource::Local => "local",
        ToolSource::Mcp => "MCP",
    }
}

/// `INV-HUMAN-ONLY-NEVER-BACKEND`: no backend call is made for a question
/// that is `Secret` or (under RFD 083) `exclusive`.
pub(crate) fn human_only_never_backend(trace: &Trace) -> Vec<Diagnostic> {
    human_only_never_backend_since(trace, 0, &by_call(trace))
}

/// [`human_only_never_backend`] over the backend calls after the first
/// `seen` only (a call is judged by the invocations recorded before it).
fn human_only_never_backend_since(
    trace: &Trace,
    seen: usize,
    calls: &Calls<'_>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if seen == trace.backend_calls.len() {
        return out;
    }
    let rules = trace.profile.rules();
    for b in &trace.backend_calls[seen..] {
        let invs = calls.get(&(b.at.turn, b.at.cycle, b.call_index));
        let latest = invs.map(|v| v.iter().rev().copied());
        out.extend(sent_to_backend(b, latest.into_iter().flatten(), &rules));
    }
    out
}

/// `INV-HUMAN-ONLY-NEVER-BACKEND` of backend call `b`, given its call
/// instance's invocations latest first: the question the latest invocation
/// recorded before the call asked is not human-only.
fn sent_to_backend<'t>(
    b: &crate::scenario::BackendRecord,
    latest_first: impl Iterator<Item = &'t InvocationRecord>,
    rules: &crate::profile::Rules,
) -> Option<Diagnostic> {
    let q = latest_first
        .filter(|i| i.stream_position <= b.call.cloned_events)
        .find_map(|i| asked(i))?;
    routing::human_only(q, rules).then(|| {
        diag(
            Rule::InvHumanOnlyNeverBackend,
            b.at.turn,
            b.call.cloned_events,
            vec![b.call.inquiry_id.clone()],
            [
                "the human-only question `",
                q.id.as_str(),
                "` was sent to the inquiry backend",
            ]
            .concat(),
        )
    })
}

/// `INV-WIRE-ROUNDTRIP`: the persisted stream, written and read back, is
/// the same stream; a second write is byte-identical.
pub(crate) fn wire_round_trip(trace: &Trace) -> Vec<Diagnostic> {
    round_trip_findings(&trace.stream)
}

/// [`wire_round_trip`] of a stream of `events`.
fn round_trip_findings(events: &[crate::wire::Event]) -> Vec<Diagnostic> {
    // `Stream::to_array_string`'s bytes, written from the trace's events
    // without copying them into a `Stream` first.
    let pretty = |events: &[crate::wire::Event]| {
        let mut out = Vec::new();
        serde_json::to_writer_pretty(&mut out, events).map(|()| {
            out.push(b'\n');
            out
        })
    };
    let first = match pretty(events) {
        Ok(first) => first,
        Err(e) => {
            return vec![diag(
                Rule::InvWireRoundtrip,
                0,
                0,
                vec![],
                format!("the stream does not write: {e}"),
            )];
        }
    };
    match Stream::from_slice(&first, ORIGIN) {
        Ok(back)
            if back.events == events
                && pretty(&back.events).ok().as_deref() == Some(first.as_slice()) =>
        {
            vec![]
        }
        Ok(_) => vec![diag(
            Rule::InvWireRoundtrip,
            0,
            0,
            vec![],
            "the stream reads back different",
        )],
        Err(e) => vec![diag(
            Rule::InvWireRoundtrip,
            0,
            e.event_index().unwrap_or(0),
            vec![],
            format!("the stream does not read back: {e}"),
        )],
    }
}

/// `INV-CACHE-HYGIENE`: the remembered tool answers hold only answers to
/// cache-eligible booleans (never a cancelled, secret or `persistence: none`
/// one), and under the split cache the two maps never share a caller.
///
/// A key's caller is read from the map it is in, never from its spelling
/// (RFD 082 "Splitting the turn-cache state": "Each caller owns one map;
/// neither needs to know the other exists"): a tool question whose ID is
/// `__permission__` is a tool answer in the tool-answer map. An entry is
/// clean when a caller that writes its map justifies it: the tool-question
/// path by a question asked under its key this turn that may be remembered,
/// the permission prompt by a remembered decision for the tool whose
/// permission key it is. Under the pre-082 combined cache both callers write
/// the one map, so either may justify an entry (see spec/DECISIONS.md,
/// "Invariants: the cache's caller is its map").
pub(crate) fn cache_hygiene(coordinator: &Coordinator, trace: &Trace) -> Vec<Diagnostic> {
    let Some(state) = coordinator.turn_state() else {
        return vec![];
    };
    let rules = trace.profile.rules();
    let turn = trace
        .invocations
        .last()
        .map(|i| i.at.turn)
        .into_iter()
        .chain(trace.permission_prompts.last().map(|p| p.at.turn))
        .max()
        .unwrap_or(0);
    let at = trace.stream.len();
    // The questions asked under `key` in this turn. An entry is justified
    // if one of them could be remembered: the cache is keyed by tool and
    // question ID, not by question shape, so a later question under the
    // same key may differ (and is then answered from the cache: see
    // spec/DECISIONS.md, "Invariants: the turn cache is keyed, not typed").
    // Found by comparing spellings, not through a table of built keys: a
    // turn holds few entries and few questions, and this runs after every
    // step of an exploration (rule `PERF-STEP-GROUPED`).
    fn questions_under<'a>(
        trace: &'a Trace,
        turn: usize,
        key: &'a str,
    ) -> impl Iterator<Item = &'a Question> + 'a {
        trace
            .invocations
            .iter()
            .filter(move |i| i.at.turn == turn)
            .filter_map(|inv| asked(inv).map(|q| (inv, q)))
            .filter(move |(inv, q)| CacheKey::answer(&inv.tool, &q.id).spells(key))
            .map(|(_, q)| q)
    }
    let any_asked_under = |key: &str| questions_under(trace, turn, key).next().is_some();
    // Whether a tool whose permission key is `key` had its decision
    // remembered, by the user's choice, in this turn.
    let decided = |key: &str| {
        trace
            .permission_prompts
            .iter()
            .filter(|p| p.at.turn == turn)
            .filter(|p| match p.reply {
                crate::scenario::PermissionReply::Allow { remember }
                | crate::scenario::PermissionReply::Deny { remember } => remember,
            })
            .any(|p| CacheKey::permission(&p.tool).spells(key))
    };
    // Why the tool-question path could not have written `value` under
    // `key`, or `None` if it could.
    let as_answer = |key: &String, value: &Value| -> Option<&'static str> {
        if let Value::Null = value {
            return Some("a cancelled question's (null) answer is remembered");
        }
        // One pass over the questions under `key`: whether any was asked,
        // whether every one is a secret, whether any may be remembered.
        let (mut asked, mut all_secret, mut offered) = (false, true, false);
        for q in questions_under(trace, turn, key) {
            asked = true;
            all_secret &= routing::is_secret(q, &rules);
            offered |= routing::remember_offered(q, &rules);
        }
        match (asked, all_secret, offered) {
            (false, _, _) => Some("an answer is remembered for a question not asked in this turn"),
            (true, true, _) => Some("a secret answer is remembered"),
            (true, false, false) => {
                Some("an answer is remembered for a question that may not be remembered")
            }
            (true, false, true) => None,
        }
    };
    let mut out = Vec::new();
    let mut report = |key: &String, why: &'static str| {
        out.push(diag(
            Rule::InvCacheHygiene,
            turn,
            at,
            vec![key.clone()],
            why,
        ));
    };
    match &state.cache {
        TurnCache::Split {
            remembered_tool_answers,
            remembered_permission_decisions,
        } => {
            for (key, value) in remembered_tool_answers {
                if let Some(why) = as_answer(key, value) {
                    // Named a permission decision only when no question was
                    // asked under the key and a remembered decision was.
                    let misplaced = !any_asked_under(key) && decided(key);
                    report(
                        key,
                        if misplaced {
                            "a permission decision is in the tool-answer map"
                        } else {
                            why
                        },
                    );
                }
            }
            for key in remembered_permission_decisions.keys() {
                if decided(key) {
                    continue;
                }
                report(
                    key,
                    if any_asked_under(key) {
                        "a tool answer is in the permission-decision map"
                    } else {
                        "a permission decision is remembered that no permission prompt of this turn chose to remember"
                    },
                );
            }
        }
        TurnCache::Combined {
            persisted_inquiry_responses,
        } => {
            for (key, value) in persisted_inquiry_responses {
                if decided(key) {
                    continue;
                }
                if let Some(why) = as_answer(key, value) {
                    report(key, why);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod agreement;
#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::{Family, family_size, scenario_at};
    use crate::scenario::{PrompterReply, RunOptions, run_observed};
    use crate::testkit::Faults;
    use std::collections::BTreeSet;

    /// Every `step`-th scenario of the single and pair families and every
    /// `triples_step`-th of the triples family.
    fn sample(step: usize, triples_step: usize) -> impl Iterator<Item = Scenario> {
        [Family::Single, Family::Pairs, Family::Triples]
            .into_iter()
            .flat_map(move |family| {
                let by = if family == Family::Triples {
                    triples_step
                } else {
                    step
                };
                (0..family_size(family))
                    .step_by(by)
                    .map(move |n| scenario_at(family, n))
            })
    }

    /// Rule: PERF-STEP-GROUPED — hand-written: the request index
    /// gives each (turn, inquiry ID) the position of its first request in
    /// that turn, whether the stream is read at once or as it grows; an ID
    /// recorded again later in its turn keeps its first position, the same
    /// ID in the next turn has its own, and an ID not recorded in a turn
    /// has none.
    #[test]
    fn the_request_index_keeps_each_ids_first_request_in_its_turn() {
        use crate::generate::stream::{inquiry_request, turn_start};
        use crate::wire::InquiryId;
        let id = |call: &str| InquiryId::new(call, "q", 1);
        let stream = vec![
            turn_start(),
            inquiry_request(id("c1")),
            inquiry_request(id("c2")),
            inquiry_request(id("c1")),
            turn_start(),
            inquiry_request(id("c1")),
        ];
        let mut grown = RequestIndex::default();
        grown.extend(&stream[..4]);
        grown.extend(&stream);
        let mut at_once = RequestIndex::default();
        at_once.extend(&stream);
        for index in [grown, at_once] {
            let first = |turn, call: &str| index.at.first(&stream, turn, id(call).as_str());
            assert_eq!(first(0, "c1"), Some(1));
            assert_eq!(first(0, "c2"), Some(2));
            assert_eq!(first(1, "c1"), Some(5));
            assert_eq!(first(1, "c2"), None);
            assert_eq!(first(0, "c3"), None);
        }
    }

    proptest::proptest! {
        /// Rule: PERF-STEP-GROUPED — invariant: the request index's first
        /// request of each (turn, inquiry ID) is the first one a walk of
        /// the stream finds, with few requests (compared in turn) and with
        /// more than `RequestAt::SCANNED_UP_TO` (hashed), the stream
        /// indexed in one go or grown in two.
        #[test]
        fn the_request_index_is_the_streams_first_requests(
            events in proptest::collection::vec(proptest::option::weighted(0.9, 0u8..12), 0..60),
            cut in 0usize..61,
        ) {
            use crate::generate::stream::{inquiry_request, turn_start};
            use crate::wire::InquiryId;
            let id = |n: u8| InquiryId::new(&format!("c{n}"), "q", 1);
            let mut stream = vec![turn_start()];
            stream.extend(events.iter().map(|e| match e {
                Some(n) => inquiry_request(id(*n)),
                None => turn_start(),
            }));
            // The reference: a walk of the stream, turns counted by marker.
            let mut want = std::collections::BTreeMap::new();
            let mut turn = 0;
            for (pos, e) in stream.iter().enumerate().skip(1) {
                match e.as_inquiry_request() {
                    Some(r) => {
                        want.entry((turn, r.id.as_str().to_owned())).or_insert(pos);
                    }
                    None => turn += 1,
                }
            }
            let mut grown = RequestIndex::default();
            grown.extend(&stream[..cut.min(stream.len())]);
            grown.extend(&stream);
            let mut at_once = RequestIndex::default();
            at_once.extend(&stream);
            for index in [grown, at_once] {
                for t in 0..=turn + 1 {
                    for n in 0..13 {
                        let key = (t, id(n).as_str().to_owned());
                        proptest::prop_assert_eq!(
                            index.at.first(&stream, t, &key.1),
                            want.get(&key).copied(),
                            "turn {} call c{}", t, n
                        );
                    }
                }
            }
        }
    }

    /// The first run of the single-call family (not legacy) under `faults`
    /// for which `pick` holds, and its scenario.
    fn first_run_under(
        faults: Faults,
        pick: impl Fn(&Scenario, &Trace) -> bool,
    ) -> (Scenario, Trace) {
        (0..family_size(Family::Single))
            .map(|n| scenario_at(Family::Single, n))
            .filter(|s| s.profile != crate::profile::ProfileName::Legacy)
            .find_map(|s| {
                let t = run_observed(&s, RunOptions::from(faults), &mut |_, _| {}).ok()?;
                pick(&s, &t).then_some((s, t))
            })
            .expect("the family has such a run")
    }

    /// [`first_run_under`] without a fault.
    fn first_run(pick: impl Fn(&Scenario, &Trace) -> bool) -> (Scenario, Trace) {
        first_run_under(Faults::default(), pick)
    }

    /// Whether the scenario's prompter gives `answer`.
    fn from_prompter(s: &Scenario, answer: &str) -> bool {
        s.prompter.iter().any(
            |r| matches!(r, PrompterReply::Answer { value, .. } if value.as_str() == Some(answer)),
        )
    }

    /// `(rule, message)` of every finding of one run: after every step by
    /// `incremental` or by the stateless `check_step`, and at the end.
    fn findings(s: &Scenario, faults: Faults, incremental: bool) -> BTreeSet<(String, String)> {
        let mut found = Vec::new();
        let mut checker = StepChecker::new();
        let trace = run_observed(s, RunOptions::from(faults), &mut |c, t| {
            if incremental {
                checker.step(c, t, &mut found);
            } else {
                found.extend(check_step(c, t));
            }
        });
        let Ok(trace) = trace else {
            return BTreeSet::new();
        };
        if incremental {
            found.extend(check_trace_memo(
                &trace,
                s,
                &mut StreamMemo::new(),
                Some(&checker),
            ));
        } else {
            found.extend(check_trace(&trace, s));
        }
        found
            .into_iter()
            .map(|d| (d.rule.id().to_owned(), d.message.into_owned()))
            .collect()
    }

    /// Rule: INV-SECRET-NEVER-PERSISTED — the incremental step checker and
    /// the remembered stream invariants find the same violations (rule and
    /// message) as the stateless `check_step` and `check_trace`, on a sample
    /// of both exploration families under every fault switch of the model
    /// (a second, independent implementation: the stateless one re-checks
    /// the whole trace and the whole coordinator state at every step), and the
    /// faults are found at all.
    #[test]
    fn the_incremental_checker_finds_what_the_stateless_one_finds() {
        let mut caught = 0;
        let mut in_state = false;
        for faults in Faults::each_alone() {
            let mut any = false;
            for s in sample(4099, 40_009) {
                let want = findings(&s, faults, false);
                assert_eq!(findings(&s, faults, true), want, "{faults:?} {s:?}");
                in_state |= want.iter().any(|(_, m)| m == IN_COORDINATOR_STATE);
                any |= s.profile != crate::profile::ProfileName::Legacy && !want.is_empty();
            }
            caught += usize::from(any);
        }
        // The sample does not hit every fault, but most.
        assert!(
            caught >= 8,
            "only {caught} fault settings were seen to fail"
        );
        // The coordinator-state scan (the part formatted only while a secret
        // is known) was exercised: a checker that skipped it would differ.
        assert!(in_state, "no sample put a secret in the coordinator state");
    }

    type Key = (String, String, usize);

    /// A finding's identity across steps. A secret in the coordinator's
    /// state names no event (its index is the stream's length at the step),
    /// so it is known by its rule and message alone.
    fn key(d: &Diagnostic) -> Key {
        let at = if d.message == IN_COORDINATOR_STATE {
            0
        } else {
            d.event_index
        };
        (d.rule.id().to_owned(), d.message.to_string(), at)
    }

    /// Each step's findings of one run: `(incremental, stateless)`, as
    /// `(rule, message, event index)` sets.
    fn per_step(s: &Scenario, faults: Faults) -> Vec<(BTreeSet<Key>, BTreeSet<Key>)> {
        let mut steps = Vec::new();
        let mut checker = StepChecker::new();
        let _ = run_observed(s, RunOptions::from(faults), &mut |c, t| {
            let mut inc = Vec::new();
            checker.step(c, t, &mut inc);
            let inc = inc.iter().map(key).collect();
            let stateless = check_step(c, t).iter().map(key).collect();
            steps.push((inc, stateless));
        });
        steps
    }

    /// Whether the per-step findings keep `StepChecker`'s promise: what it
    /// reports at a step, the stateless `check_step` reports at that step
    /// too, and what `check_step` reports at a step `StepChecker` reported
    /// at that step or an earlier one. `Err` names the first step that
    /// breaks it.
    fn reported_at_its_step(steps: &[(BTreeSet<Key>, BTreeSet<Key>)]) -> Result<(), String> {
        let mut so_far = BTreeSet::new();
        for (k, (inc, stateless)) in steps.iter().enumerate() {
            if let Some(extra) = inc.difference(stateless).next() {
                return Err(format!("step {k}: only the incremental checker: {extra:?}"));
            }
            so_far.extend(inc.iter().cloned());
            if let Some(late) = stateless.difference(&so_far).next() {
                return Err(format!(
                    "step {k}: not yet reported incrementally: {late:?}"
                ));
            }
        }
        Ok(())
    }

    /// Rule: INV-SECRET-NEVER-PERSISTED (and the step invariants
    /// `StepChecker` carries) — the incremental checker reports each
    /// violation at the step it appears, not only somewhere in the run:
    /// step by step against the stateless `check_step`, on a sample of every
    /// family under every fault switch. Comparing whole runs (the test
    /// above) cannot see a checker that skips a step's new records and is
    /// rescued by the end-of-run check.
    #[test]
    fn the_incremental_checker_reports_each_violation_at_its_step() {
        let mut violations = 0;
        for faults in Faults::each_alone() {
            for s in sample(8191, 80_021) {
                let steps = per_step(&s, faults);
                if let Err(e) = reported_at_its_step(&steps) {
                    panic!("{faults:?} {s:?}: {e}");
                }
                violations += steps.iter().filter(|(i, _)| !i.is_empty()).count();
            }
        }
        assert!(violations > 0, "no sampled step found anything");
    }

    /// Rule: INV-SECRET-NEVER-PERSISTED — a secret found in the fixed part
    /// of the coordinator's state (the tools, set at construction) is
    /// reported once, at the step the secret is learnt, where the stateless
    /// `check_step` reports it at every later step. The secret here is a
    /// word of a tool's configuration that the prompter gives as the
    /// answer: only the fixed part holds it.
    #[test]
    fn a_secret_in_the_fixed_coordinator_state_is_reported_once_at_its_step() {
        let prompted_secret = |s: &Scenario, t: &Trace| {
            secret_answers(t)
                .into_iter()
                .find(|a| a.len() >= 6 && from_prompter(s, a))
        };
        let (mut s, t) = first_run(|s, t| prompted_secret(s, t).is_some());
        let secret = prompted_secret(&s, &t).unwrap();
        // Configuration of a question no tool asks: a label only the fixed
        // part holds.
        if let Some(tool) = s.tools.values_mut().next() {
            std::sync::Arc::make_mut(&mut tool.questions).insert(
                "never_asked".to_owned(),
                crate::model::tool::QuestionConfig {
                    prompt_label: Some("Labelled".to_owned()),
                    ..Default::default()
                },
            );
        }
        // A word of the fixed part that no moving part and no event holds.
        let mut fixed = String::new();
        let mut elsewhere = String::new();
        let _ = run_observed(&s, RunOptions::default(), &mut |c, t| {
            fixed.clear();
            fixed_texts(c, &mut |w| {
                fixed.push_str(w);
                fixed.push('\n');
            });
            moving_texts(c, &mut |w| {
                elsewhere.push_str(w);
                elsewhere.push('\n');
            });
            elsewhere.push_str(&serde_json::to_string(&t.stream).unwrap_or_default());
        });
        let word = fixed
            .split(|ch: char| !ch.is_ascii_alphanumeric())
            .find(|w| w.len() >= 6 && !elsewhere.contains(w))
            .expect("the tools' configuration has a word of its own")
            .to_owned();
        for reply in &mut s.prompter {
            if let PrompterReply::Answer { value, .. } = reply
                && value.as_str() == Some(secret.as_str())
            {
                *value = Value::String(word.clone());
            }
        }
        let steps = per_step(&s, Faults::default());
        reported_at_its_step(&steps).unwrap();
        let at = |inc: bool| -> Vec<usize> {
            steps
                .iter()
                .enumerate()
                .filter(|(_, (i, st))| {
                    (if inc { i } else { st })
                        .iter()
                        .any(|(_, m, _)| m == IN_COORDINATOR_STATE)
                })
                .map(|(k, _)| k)
                .collect()
        };
        let stateless = at(false);
        assert!(
            stateless.len() >= 2,
            "{word:?} in the fixed part at steps {stateless:?}"
        );
        assert_eq!(at(true), vec![stateless[0]], "{word:?}");
    }

    /// Rule: INV-SECRET-NEVER-PERSISTED — an entry found under a stream's
    /// hash is a hit only when the stream is the same, and its oracle
    /// findings only when the profile and the rules are the same too: an
    /// entry that shares the hash (a collision, made here by rewriting the
    /// remembered entry in place) but differs in any one of them is not
    /// taken for it. (A stream met under another profile keeps its round
    /// trip's findings, a function of the stream alone.)
    #[test]
    fn a_colliding_memo_entry_that_differs_in_anything_is_not_a_hit() {
        let a = scenario_at(Family::Single, 0);
        let b = scenario_at(Family::Single, 16 * 6 * 3 * 2 * 4 * 7 * 2);
        let ta = run_observed(&a, RunOptions::default(), &mut |_, _| {}).unwrap();
        let tb = run_observed(&b, RunOptions::default(), &mut |_, _| {}).unwrap();
        let want = check_trace(&ta, &a);
        let poison = diag(Rule::InvRecordAll, 0, 0, vec![], "poison".to_owned());
        // The entry's stream is rewritten to `tb`'s events, kept in the memo.
        type Rewrite = fn(&mut MemoEntry, &[usize], &Diagnostic);
        let rewrites: [(&str, Rewrite); 3] = [
            ("stream", |e, other, poison| {
                e.stream = other.to_vec();
                e.wire = vec![poison.clone()];
            }),
            ("profile", |e, _, _| {
                for j in &mut e.judged {
                    j.profile = crate::profile::ProfileName::ALL
                        .into_iter()
                        .find(|p| *p != j.profile)
                        .unwrap()
                }
            }),
            ("rules", |e, _, _| {
                for j in &mut e.judged {
                    j.rules = crate::profile::ProfileName::ALL
                        .into_iter()
                        .map(crate::profile::ProfileName::rules)
                        .find(|r| *r != j.rules)
                        .unwrap()
                }
            }),
        ];
        for (what, rewrite) in rewrites {
            let mut memo = StreamMemo::new();
            assert_eq!(check_trace_memo(&ta, &a, &mut memo, None), want);
            memo.keys = tb.stream.iter().map(incremental::event_key).collect();
            let other = memo.keep(&tb.stream);
            assert_ne!(
                other,
                memo.entries.values().flatten().next().unwrap().stream
            );
            for e in memo.entries.values_mut().flatten() {
                for j in &mut e.judged {
                    j.found.diagnostics = vec![poison.clone()];
                }
                rewrite(e, &other, &poison);
            }
            assert_eq!(check_trace_memo(&ta, &a, &mut memo, None), want, "{what}");
            assert_eq!((memo.hits, memo.misses), (0, 2), "{what}");
        }
    }

    /// Rule: PERF-TOOLS-SCANNED — a scenario's tool is found by
    /// `tool_setup` as its map finds it, with a few tools (names compared in
    /// turn) and with many (the map asked), for every tool it holds and for
    /// names it does not hold.
    #[test]
    fn a_scanned_tool_is_the_maps() {
        let base = scenario_at(Family::Single, 0);
        let (name, setup) = base.tools.iter().next().expect("a tool");
        for n in [0, 1, TOOLS_SCANNED_UP_TO, TOOLS_SCANNED_UP_TO + 1, 20] {
            let mut s = base.clone();
            s.tools.clear();
            for k in 0..n {
                s.tools.insert(format!("{name}{k}"), setup.clone());
            }
            let names: Vec<String> = s.tools.keys().cloned().collect();
            for probe in names.iter().map(String::as_str).chain(["", "absent", name]) {
                let want = s.tools.get(probe).map(std::ptr::from_ref);
                let got = tool_setup(&s, probe).map(std::ptr::from_ref);
                assert_eq!(got, want, "{n} tools, {probe:?}");
            }
        }
    }

    /// Rule: PERF-FIXED-TEXT — a model finding borrows the stream's name
    /// and, where its words are fixed, its message: on runs of the
    /// single-call family under every profile (legacy's unrecorded prompts
    /// among them), every `INV-*` finding of the steps and the end names
    /// `trace` without owning it, and every one worded by a fixed text
    /// borrows it; every finding of the oracle judged from a run's events
    /// borrows the name. The JSON of each finding holds its texts.
    #[test]
    fn fixed_texts_of_findings_are_borrowed() {
        let fixed = [
            "a prompt was shown for a question whose request is not recorded",
            "a prompt was shown before its inquiry request was recorded",
            "the inquiry backend was called before the request was recorded",
            "inquiry request has no response in its turn",
            "inquiry response has no request before it in its turn",
            "a secret answer is in the persisted stream",
            IN_COORDINATOR_STATE,
        ];
        let (mut findings, mut worded) = (0, 0);
        for n in (0..family_size(Family::Single)).step_by(97) {
            let s = scenario_at(Family::Single, n);
            let mut checker = incremental::StepChecker::new();
            let mut found = Vec::new();
            let Ok(t) = run_observed(&s, RunOptions::default(), &mut |c, t| {
                checker.step(c, t, &mut found)
            }) else {
                continue;
            };
            found.extend(check_trace_memo(
                &t,
                &s,
                &mut StreamMemo::new(),
                Some(&checker),
            ));
            for d in found.iter().filter(|d| d.rule.id().starts_with("INV-")) {
                findings += 1;
                assert!(matches!(d.origin, Cow::Borrowed(ORIGIN)), "{d}");
                if fixed.contains(&d.message.as_ref()) {
                    worded += 1;
                    assert!(matches!(d.message, Cow::Borrowed(_)), "{d}");
                }
                let json = serde_json::to_value(d).expect("writes");
                assert_eq!(json["origin"], ORIGIN);
                assert_eq!(json["message"], d.message.as_ref());
            }
            let oracle = check::check_written_events(
                &t.stream,
                writes_flat(&t),
                ORIGIN,
                ProfileMode::Fixed(t.profile),
                t.rules.tables,
                &mut |_| 1,
            );
            for d in &oracle.diagnostics {
                assert!(matches!(d.origin, Cow::Borrowed(ORIGIN)), "{d}");
            }
        }
        assert!(worded > 0 && findings > worded, "{worded} of {findings}");
    }

    proptest::proptest! {
        /// Rule: PERF-WORDS-PUSHED — invariant: `INV-RECORD-ALL`'s pushed
        /// words read as the formatting machinery writes them, for any
        /// tool, question and counts.
        #[test]
        fn unrecorded_words_read_as_formatted(
            tool in "[a-z_.]{0,12}",
            question in "[a-z_.`]{0,12}",
            asked in 0usize..1000,
            recorded in 0usize..1000,
        ) {
            use crate::words::Count;
            proptest::prop_assert_eq!(
                unrecorded_message(&tool, &question, asked, recorded),
                format!(
                    "{tool} asked `{question}` ({} asked, {} recorded)",
                    Count(asked, "question"),
                    Count(recorded, "request")
                )
            );
        }
    }

    /// Rules of the stream findings `stream_rules` keeps, with their turn
    /// and the kind of event they point at.
    fn kept(trace: &Trace) -> Vec<(String, usize, String)> {
        stream_rules(trace)
            .iter()
            .map(|d| {
                let kind = trace.stream.get(d.event_index).map_or("", |e| e.kind.tag());
                (d.rule.id().to_owned(), d.turn, kind.to_owned())
            })
            .collect()
    }

    /// Rule: LIFE-TOKEN-CAUSE (and INV-PAIRED) — a hard quit's trace is
    /// excused exactly the oracle's report of its last turn's open tool
    /// calls (CHECK-TOOL-PAIRED on a `tool_call_request` of the last turn,
    /// run interrupted). The same open call in a trace that was not
    /// interrupted, or in an earlier turn, is reported, and so is any other
    /// finding of an interrupted trace.
    #[test]
    fn an_interrupted_run_is_excused_only_its_last_turns_open_calls() {
        let s: Scenario = serde_json::from_value(serde_json::json!({
            "tty": false,
            "tools": {"t": {"run": "unattended", "program": {"kind": "script", "asks": [
                {"question": {"id": "q", "text": "Proceed?", "answer_type": {"type": "boolean"}}}
            ]}}},
            "turns": [{"cycles": [[{"id": "c1", "tool": "t"}]]}],
            "backend": [{"reply": "cancelled", "cause": "hard_quit"}]
        }))
        .unwrap();
        let quit = run_observed(&s, RunOptions::default(), &mut |_, _| {}).unwrap();
        assert!(quit.interrupted);
        assert_eq!(kept(&quit), vec![], "the quit's open call is excused");
        let open_call = |turn: usize| {
            (
                "CHECK-TOOL-PAIRED".to_owned(),
                turn,
                "tool_call_request".to_owned(),
            )
        };

        let not_interrupted = Trace {
            interrupted: false,
            ..quit.clone()
        };
        assert_eq!(kept(&not_interrupted), vec![open_call(0)]);

        let mut twice = quit.clone();
        twice.stream.extend(quit.stream.iter().cloned());
        assert_eq!(
            kept(&twice),
            vec![open_call(0)],
            "the first turn's call is not the quit's"
        );

        let mut unanswered = quit.clone();
        let response = unanswered
            .stream
            .iter()
            .position(|e| e.kind.tag() == "inquiry_response")
            .unwrap();
        unanswered.stream.remove(response);
        // INV-PAIRED names the request left without its response.
        let request_id = match &unanswered.stream[response - 1].kind {
            EventKind::InquiryRequest(r) => r.id.to_string(),
            other => panic!("{other:?}"),
        };
        let unpaired: Vec<Vec<String>> = always_paired(&unanswered)
            .into_iter()
            .map(|d| d.ids)
            .collect();
        assert_eq!(unpaired, vec![vec![request_id.clone()]]);
        let mut orphan = quit.clone();
        orphan.stream.remove(response - 1);
        let unpaired: Vec<Vec<String>> =
            always_paired(&orphan).into_iter().map(|d| d.ids).collect();
        assert_eq!(unpaired, vec![vec![request_id]], "the response's own ID");
        let rules: Vec<String> = kept(&unanswered).into_iter().map(|(r, _, _)| r).collect();
        assert!(!rules.is_empty(), "an unanswered request is reported");
        assert!(rules.iter().all(|r| r != "CHECK-TOOL-PAIRED"), "{rules:?}");
    }

    fn request_index(t: &Trace, id: &str) -> usize {
        t.stream
            .iter()
            .position(|e| e.as_inquiry_request().is_some_and(|r| r.id.as_str() == id))
            .expect("the request is on the stream")
    }

    fn routed_messages(t: &Trace) -> Vec<String> {
        recorded_before_routed(t)
            .into_iter()
            .map(|d| d.message.into_owned())
            .collect()
    }

    /// Rule: INV-RECORDED-BEFORE-ROUTED — "before" is strict: a backend
    /// call or a prompt whose stream held every event up to, but not
    /// including, the request (the request sits at the position they were
    /// made at) was routed before the request was recorded.
    #[test]
    fn routing_at_the_requests_own_position_is_too_early() {
        let (_, t) = first_run(|_, t| !t.backend_calls.is_empty());
        assert_eq!(routed_messages(&t), Vec::<String>::new());
        let k = request_index(&t, &t.backend_calls[0].call.inquiry_id);
        let mut early = t.clone();
        early.backend_calls[0].call.cloned_events = k;
        assert_eq!(
            routed_messages(&early),
            ["the inquiry backend was called before the request was recorded"]
        );
        early.backend_calls[0].call.cloned_events = k + 1;
        assert_eq!(routed_messages(&early), Vec::<String>::new());

        let (_, t) = first_run(|_, t| t.prompts.iter().any(|p| p.inquiry_id.is_some()));
        let p = t
            .prompts
            .iter()
            .position(|p| p.inquiry_id.is_some())
            .unwrap();
        let k = request_index(&t, t.prompts[p].inquiry_id.as_deref().unwrap());
        let mut early = t.clone();
        early.prompts[p].stream_position = k;
        assert_eq!(
            routed_messages(&early),
            ["a prompt was shown before its inquiry request was recorded"]
        );
    }

    /// Rule: INV-RECORDED-BEFORE-ROUTED — a re-invocation needs its
    /// question's request and then its response on the stream: one made at
    /// the request's own position, or one whose response was recorded before
    /// the request, is reported (RFD 082: the request is recorded before
    /// routing, the response before the tool sees the answer).
    #[test]
    fn a_reinvocation_needs_the_request_then_its_response_before_it() {
        let (_, t) = first_run(|_, t| t.invocations.iter().any(|i| i.invocation > 1));
        let next = t.invocations.iter().position(|i| i.invocation > 1).unwrap();
        let prev = (0..next)
            .rev()
            .find(|&j| t.invocations[j].tool_call_id == t.invocations[next].tool_call_id)
            .unwrap();
        let k = t.invocations[prev]
            .request_event
            .expect("the first invocation asked");
        let reinvoked = |t: &Trace| {
            routed_messages(t)
                .iter()
                .any(|m| m.contains("was re-invoked with an answer"))
        };
        assert!(!reinvoked(&t));
        let mut at_request = t.clone();
        at_request.invocations[next].stream_position = k;
        assert!(reinvoked(&at_request));
        // The response moved in front of its request.
        let mut swapped = t.clone();
        let r = (k + 1..swapped.stream.len())
            .find(|&i| swapped.stream[i].as_inquiry_response().is_some())
            .unwrap();
        let response = swapped.stream.remove(r);
        swapped.stream.insert(k, response);
        swapped.invocations[prev].request_event = Some(k + 1);
        assert!(reinvoked(&swapped));
    }

    /// Rule: INV-SECRET-NEVER-PERSISTED — secrets of 6 characters or more
    /// are searched for ("shorter than 6 characters are not"): a persisted
    /// secret of exactly 6 is found, one of 5 is not searched for.
    #[test]
    fn a_persisted_secret_of_six_characters_is_found() {
        let (s, t) = first_run(|s, t| secret_answers(t).iter().any(|a| from_prompter(s, a)));
        let secret = secret_answers(&t).remove(0);
        let found = |answer: &str| {
            let mut s = s.clone();
            let mut replaced = 0;
            let swap = |v: &mut Value, n: &mut usize| {
                if v.as_str() == Some(secret.as_str()) {
                    *v = Value::String(answer.to_owned());
                    *n += 1;
                }
            };
            for r in &mut s.prompter {
                if let PrompterReply::Answer { value, .. } = r {
                    swap(value, &mut replaced);
                }
            }
            for r in &mut s.backend {
                if let crate::scenario::BackendReply::Answer { value } = r {
                    swap(value, &mut replaced);
                }
            }
            assert!(replaced > 0, "the secret comes from a reply");
            let faults = Faults {
                persist_secret: true,
                ..Faults::default()
            };
            let t = run_observed(&s, RunOptions::from(faults), &mut |_, _| {}).unwrap();
            assert_eq!(secret_answers(&t), [answer]);
            secrets_never_persisted(&t, &[]).len()
        };
        assert!(found("zq7xw3") > 0, "six characters are searched for");
        assert_eq!(found("zq7xw"), 0, "five are not");
    }

    /// Rule: INV-WIRE-ROUNDTRIP — a stream that reads back as another
    /// stream is reported: an event of an unknown kind spelled
    /// `turn_start` is written as, and read back as, a turn marker.
    #[test]
    fn a_stream_that_reads_back_different_is_reported() {
        let (_, mut t) = first_run(|_, _| true);
        assert_eq!(wire_round_trip(&t), vec![]);
        t.stream.push(crate::wire::Event::new(EventKind::Other(
            "turn_start".to_owned(),
        )));
        let found: Vec<String> = wire_round_trip(&t)
            .into_iter()
            .map(|d| d.message.into_owned())
            .collect();
        assert_eq!(found, ["the stream reads back different"]);
    }

    /// Rule: INV-SECRET-NEVER-PERSISTED — a persisted secret is reported at
    /// its event and in its turn: the same leaking turn written twice is
    /// reported once in each turn.
    #[test]
    fn a_persisted_secret_is_reported_in_its_turn() {
        let faults = Faults {
            persist_secret: true,
            ..Faults::default()
        };
        let (_, t) = first_run_under(faults, |_, t| !secrets_never_persisted(t, &[]).is_empty());
        let at = |t: &Trace| -> Vec<(usize, usize)> {
            secrets_never_persisted(t, &[])
                .into_iter()
                .map(|d| (d.turn, d.event_index))
                .collect()
        };
        let once = at(&t);
        assert!(once.iter().all(|&(turn, _)| turn == 0), "{once:?}");
        let n = t.stream.len();
        let mut twice = t.clone();
        twice.stream.extend(t.stream.iter().cloned());
        let want: Vec<(usize, usize)> = once
            .iter()
            .copied()
            .chain(once.iter().map(|&(_, i)| (1, i + n)))
            .collect();
        assert_eq!(at(&twice), want);
    }

    /// Rule: INV-PROVENANCE — the finding names the tool's kind as RFD 082
    /// "Source attribution" does (built-in, local, MCP), next to the
    /// source it recorded and the one its kind resolves to.
    #[test]
    fn a_provenance_finding_names_the_tools_kind() {
        let mut kinds = BTreeSet::new();
        for n in 0..family_size(Family::Single) {
            if kinds.len() == 2 {
                break;
            }
            let s = scenario_at(Family::Single, n);
            let Ok(mut t) = run_observed(&s, RunOptions::default(), &mut |_, _| {}) else {
                continue;
            };
            let Some(k) = t.invocations.iter().find_map(|i| i.request_event) else {
                continue;
            };
            // The recorded source swapped for one the kind never resolves to.
            let EventKind::InquiryRequest(r) = &mut t.stream[k].kind else {
                panic!("a request at {k}");
            };
            r.source = crate::wire::InquirySource::Other {
                name: "elsewhere".to_owned(),
            };
            let found = provenance(&t, &s);
            assert_eq!(found.len(), 1, "{found:?}");
            let tool = s.tools.keys().next().unwrap();
            let (head, _) = found[0].message.split_once(" recorded source").unwrap();
            let kind = head
                .strip_prefix(&format!("{tool} ("))
                .and_then(|k| k.strip_suffix(')'))
                .unwrap_or_else(|| panic!("{}", found[0].message));
            kinds.insert(kind.to_owned());
        }
        // Both kinds the family's asking tools have, by the RFD's names.
        assert_eq!(
            kinds,
            BTreeSet::from(["built-in", "local"].map(str::to_owned))
        );
    }

    /// Rule: INV-CACHE-HYGIENE — the finding says which rule of the turn
    /// cache the remembered answer breaks (RFD 082 "Turn-scoped answer
    /// cache": never a cancelled answer, never a secret): the
    /// cancelled-answer fault is reported as a remembered null, the
    /// secret-caching fault as a remembered secret.
    #[test]
    fn a_cache_hygiene_finding_names_what_was_remembered() {
        let reasons = |faults: Faults| -> BTreeSet<String> {
            let mut out = BTreeSet::new();
            for n in (0..family_size(Family::Single)).step_by(5) {
                let s = scenario_at(Family::Single, n);
                let _ = run_observed(&s, RunOptions::from(faults), &mut |c, t| {
                    out.extend(
                        cache_hygiene(c, t)
                            .into_iter()
                            .map(|d| d.message.into_owned()),
                    );
                });
            }
            out
        };
        let cancelled = reasons(Faults {
            cache_cancelled: true,
            ..Faults::default()
        });
        assert_eq!(
            cancelled,
            BTreeSet::from(["a cancelled question's (null) answer is remembered".to_owned()])
        );
        let secret = reasons(Faults {
            cache_secret: true,
            ..Faults::default()
        });
        assert_eq!(
            secret,
            BTreeSet::from(["a secret answer is remembered".to_owned()])
        );
        assert_eq!(reasons(Faults::default()), BTreeSet::new());
    }

    /// Rule: INV-RECORD-ALL — the finding names the first question asked
    /// without a request recorded at or after its invocation: with the last
    /// request removed, the last asker; with a request planted before
    /// anything was asked, the first asker (that request answers nobody).
    #[test]
    fn an_unrecorded_question_is_named_by_its_invocation() {
        let (_, t) =
            first_run(|_, t| t.invocations.iter().filter(|i| asked(i).is_some()).count() >= 2);
        assert_eq!(every_round_trip_recorded(&t), vec![]);
        let askers: Vec<&InvocationRecord> = t
            .invocations
            .iter()
            .filter(|i| asked(i).is_some())
            .collect();
        let named = |t: &Trace| -> Vec<(Vec<String>, usize)> {
            every_round_trip_recorded(t)
                .into_iter()
                .map(|d| (d.ids, d.event_index))
                .collect()
        };
        let last = askers[askers.len() - 1];
        let mut dropped = t.clone();
        dropped.stream.remove(last.request_event.unwrap());
        assert_eq!(
            named(&dropped),
            [(vec![last.tool_call_id.clone()], last.stream_position)]
        );
        let first = askers[0];
        let mut planted = t.clone();
        let request = planted.stream[first.request_event.unwrap()].clone();
        assert!(first.stream_position > 1);
        planted.stream[1] = request;
        assert_eq!(
            named(&planted),
            [(vec![first.tool_call_id.clone()], first.stream_position)]
        );
    }

    /// Rule: INV-SECRET-NEVER-PERSISTED — the memo remembers many streams
    /// at once (a stream met again after another is still a hit), and is
    /// bounded as documented: the entry past `CAPACITY` makes it forget
    /// everything and keep that one.
    #[test]
    fn the_stream_memo_keeps_many_streams_and_at_most_its_capacity() {
        let a = scenario_at(Family::Single, 0);
        let ta = run_observed(&a, RunOptions::default(), &mut |_, _| {}).unwrap();
        let with_mark = |k: usize| {
            let mut t = ta.clone();
            t.stream
                .push(crate::wire::Event::new(EventKind::Other(format!(
                    "mark_{k}"
                ))));
            t
        };
        let mut memo = StreamMemo::new();
        let (t0, t1) = (with_mark(0), with_mark(1));
        check_trace_memo(&t0, &a, &mut memo, None);
        check_trace_memo(&t1, &a, &mut memo, None);
        check_trace_memo(&t0, &a, &mut memo, None);
        assert_eq!((memo.hits, memo.misses, memo.len), (1, 2, 2));
        for k in 2..StreamMemo::CAPACITY {
            memo.stream_invariants(&with_mark(k));
        }
        assert_eq!(memo.len, StreamMemo::CAPACITY);
        memo.stream_invariants(&with_mark(StreamMemo::CAPACITY));
        assert_eq!(memo.len, 1, "forgot everything past its capacity");
        memo.stream_invariants(&t0);
        assert_eq!((memo.hits, memo.len), (1, 2), "t0 was forgotten");
    }

    /// Rule: INV-SECRET-NEVER-PERSISTED — a memo hit gives the same stream
    /// findings as the first computation, and a different stream under the
    /// same profile is not taken for it.
    #[test]
    fn the_stream_memo_answers_only_the_same_stream() {
        let mut memo = StreamMemo::new();
        let a = scenario_at(Family::Single, 0);
        let b = scenario_at(Family::Single, 16 * 6 * 3 * 2 * 4 * 7 * 2);
        let ta = run_observed(&a, RunOptions::default(), &mut |_, _| {}).unwrap();
        let tb = run_observed(&b, RunOptions::default(), &mut |_, _| {}).unwrap();
        assert_ne!(ta.stream, tb.stream);
        let first = check_trace_memo(&ta, &a, &mut memo, None);
        assert_eq!(first, check_trace(&ta, &a));
        assert_eq!(check_trace_memo(&ta, &a, &mut memo, None), first);
        assert_eq!(memo.hits, 1);
        assert_eq!(
            check_trace_memo(&tb, &b, &mut memo, None),
            check_trace(&tb, &b)
        );
        assert_eq!(memo.misses, 2);
    }

    /// Rule: INV-CACHE-HYGIENE — the turn cache holds answers to questions
    /// asked in this turn only (RFD 082, the turn-scoped cache): a
    /// remembered answer whose question the turn's invocations do not show
    /// is named as such, not as a secret. No run reaches this arm (the cache
    /// is emptied at each turn start), so the trace is shown without its
    /// invocations beside the coordinator that remembered an answer.
    #[test]
    fn an_answer_remembered_for_no_question_of_the_turn_is_named_so() {
        let mut checked = 0;
        for s in sample(3, 1000) {
            let _ = run_observed(&s, RunOptions::default(), &mut |c, t| {
                // The split cache's tool-answer map holds tool answers only.
                let remembered = c.turn_state().map_or(0, |st| match &st.cache {
                    TurnCache::Split {
                        remembered_tool_answers,
                        ..
                    } => remembered_tool_answers.len(),
                    TurnCache::Combined { .. } => 0,
                });
                if remembered == 0 {
                    return;
                }
                assert_eq!(cache_hygiene(c, t), vec![], "a legal run is clean");
                let mut unseen = t.clone();
                unseen.invocations.clear();
                let found = cache_hygiene(c, &unseen);
                assert_eq!(found.len(), remembered);
                for d in found {
                    assert_eq!(d.rule, Rule::InvCacheHygiene);
                    assert_eq!(
                        d.message,
                        "an answer is remembered for a question not asked in this turn"
                    );
                }
                checked += 1;
            });
        }
        assert!(checked > 0, "some run remembers an answer");
    }

    /// A scenario with one `run = "ask"` tool `fs` asking one boolean
    /// question `qid` in each of two cycles of one turn, both answered and
    /// remembered, its permission allowed and remembered.
    fn remembered_twice(profile: &str, qid: &str) -> Scenario {
        serde_json::from_value(serde_json::json!({
            "profile": profile,
            "tty": true,
            "tools": {"fs": {
                "source": {"kind": "local"},
                "program": {"kind": "script",
                    "asks": [{"question": {"id": qid, "text": "Q?",
                        "answer_type": {"type": "boolean"}}}],
                    "finish": {"with": "succeed"}},
                "run": "ask"}},
            "turns": [{"user": "go", "cycles": [
                [{"id": "call_1", "tool": "fs", "arguments": {}}],
                [{"id": "call_2", "tool": "fs", "arguments": {}}]]}],
            "prompter": [
                {"reply": "answer", "value": true, "remember": true},
                {"reply": "answer", "value": false, "remember": true}],
            "backend": [],
            "permissions": [{"reply": "allow", "remember": true}],
            "schedule": []
        }))
        .unwrap()
    }

    /// Rule: INV-CACHE-HYGIENE — a key's caller is the map it is in (RFD
    /// 082 "Splitting the turn-cache state": "Each caller owns one map;
    /// neither needs to know the other exists"): a tool question whose ID is
    /// `__permission__` is remembered in the tool-answer map beside the
    /// tool's permission decision in its own map, and no step of the run is
    /// a finding, under the split cache and the combined one.
    #[test]
    fn a_tool_question_called_permission_is_a_tool_answer() {
        for profile in ["rfd082", "rfd083", "legacy"] {
            let s = remembered_twice(profile, "__permission__");
            let mut steps = 0;
            let mut tool_keys = Vec::new();
            let t = run_observed(&s, RunOptions::default(), &mut |c, t| {
                assert_eq!(cache_hygiene(c, t), vec![], "{profile}");
                steps += 1;
                if let Some(st) = c.turn_state() {
                    tool_keys = st.cache.tool_answers().keys().cloned().collect();
                }
            })
            .unwrap();
            assert!(steps > 0);
            assert_eq!(tool_keys, ["fs.__permission__"], "{profile}");
            let found: Vec<Diagnostic> = check_trace(&t, &s)
                .into_iter()
                .filter(|d| d.rule == Rule::InvCacheHygiene)
                .collect();
            assert_eq!(found, vec![], "{profile}");
        }
    }

    /// Rule: INV-CACHE-HYGIENE — a permission decision really written into
    /// the split cache's tool-answer map (planted in the coordinator's state
    /// after a legal run) is reported as such, and a tool answer really
    /// written into the permission-decision map as such, whatever the
    /// question's ID is spelled.
    #[test]
    fn a_decision_in_the_other_map_is_caught() {
        for qid in ["confirm", "__permission__"] {
            let s = remembered_twice("rfd083", qid);
            let mut last = None;
            let t = run_observed(&s, RunOptions::default(), &mut |c, _| {
                if c.turn_state().is_some() {
                    last = Some(c.clone());
                }
            })
            .unwrap();
            let clean = last.unwrap();
            assert_eq!(cache_hygiene(&clean, &t), vec![]);
            let messages = |c: &Coordinator| -> Vec<String> {
                cache_hygiene(c, &t)
                    .into_iter()
                    .map(|d| d.message.into_owned())
                    .collect()
            };
            // The permission decision moved into the tool-answer map.
            let mut moved = clean.clone();
            let st = moved.turn_state_mut().unwrap();
            let (key, value) = st.cache.permission_decisions_mut().pop().unwrap();
            assert_eq!(key, "fs.__permission__");
            let tool_key = format!("fs.{qid}");
            let answers = st.cache.tool_answers_mut();
            answers.shift_remove(&tool_key);
            answers.insert(key.clone(), value);
            if qid == "confirm" {
                assert_eq!(
                    messages(&moved),
                    ["a permission decision is in the tool-answer map"]
                );
            } else {
                // Under one key both callers' entries look alike; what is
                // missing is the decision in its own map.
                assert_eq!(
                    messages(&moved),
                    [] as [&str; 0],
                    "the tool answer under the same key is legal"
                );
            }
            // The tool answer moved into the permission-decision map.
            let mut moved = clean.clone();
            let st = moved.turn_state_mut().unwrap();
            let answer = st.cache.tool_answers_mut().shift_remove(&tool_key).unwrap();
            let decisions = st.cache.permission_decisions_mut();
            decisions.clear();
            decisions.insert(tool_key.clone(), answer);
            let expected = if qid == "confirm" {
                "a tool answer is in the permission-decision map"
            } else {
                // Spelled like the decision, but the tool-answer map lacks
                // the answer and the decision's value is a boolean: it is
                // justified by the remembered decision, the tool answer is
                // simply gone (no hygiene rule is broken by forgetting).
                ""
            };
            if expected.is_empty() {
                assert_eq!(messages(&moved), [] as [&str; 0]);
            } else {
                assert_eq!(messages(&moved), [expected]);
            }
        }
    }
}

#[cfg(all(test, feature = "testkit"))]
mod properties_tests;
