//! Generators of structured streams, and the event builders they use
//! (those the integration tests name are public, so downstream fuzzers can
//! build the same shapes by hand; the rest are crate-internal). The generators are written once against [`Choices`] in [`draw`];
//! here they are driven by proptest (the strategies [`stream`],
//! [`clean_stream`], [`loose_event`], …, each a thin wrapper of the
//! generator of the same name), fuzz bytes (`from_bytes`, compiled for tests) and a seed
//! ([`sample`]); the unit tests also drive [`clean_stream`]'s generator
//! with fuzz bytes and a seed. [`flat`]
//! is the stream encoding of the `sanitize` fuzz target (with fuzz bytes,
//! one byte per event, as the hand-written seeds are).
//!
//! IDs are drawn from deliberately small pools, so generated streams hit the
//! cases RFD 082 "Inquiry ID format" and Phase 3 care about: legacy
//! two-segment IDs that collide within a turn, new three-segment IDs, the
//! same tool-call ID reused across cycles and across turns, orphans on both
//! sides, responses before their requests, events before the first
//! `turn_start`, unknown event kinds. [`clean_stream`] generates only
//! complete exchanges (no orphan of either kind); [`stream`] mixes them with
//! loose and damaged events. Test `the_stream_generators_reach_every_shape`
//! lists what they reach.
//!
//! Generation is deterministic given the driver's choices; nothing here
//! draws randomness of its own.

use arbitrary::Unstructured;
use serde_json::{Value, json};

use super::choice::{self, Bytes, Choices, Seeded};
use crate::wire::{
    CancellationReason, Event, EventKind, InquiryAnswerType, InquiryId, InquiryQuestion,
    InquiryRequest, InquiryResponse, InquirySource, Opaque, ToolCallRequest, ToolCallResponse,
};

pub(crate) mod draw;

/// The tool-call ID pool: three IDs, so reuse across cycles and turns is
/// common.
pub(crate) const TOOL_CALL_IDS: [&str; 3] = ["call_a", "call_b", "call_c"];

/// The question ID pool.
pub(crate) const QUESTION_IDS: [&str; 2] = ["apply_changes", "path"];

/// The tool every generated call names.
pub(crate) const TOOL_NAME: &str = "fs_modify_file";

fn opaque(v: Value) -> Opaque {
    Opaque::from_value(&v)
}

/// A `turn_start` marker.
pub fn turn_start() -> Event {
    Event::new(EventKind::TurnStart)
}

/// A `chat_request` with opaque base64 content.
pub fn chat_request() -> Event {
    Event::with(
        None,
        EventKind::ChatRequest,
        vec![("content".to_owned(), opaque(json!("aGVsbG8=")))],
    )
}

/// A `chat_response` with an opaque base64 message.
pub fn chat_response() -> Event {
    Event::with(
        None,
        EventKind::ChatResponse,
        vec![("message".to_owned(), opaque(json!("b2s=")))],
    )
}

/// An event of a kind the model does not type (e.g. `config_delta`).
pub(crate) fn other(tag: &str) -> Event {
    Event::with(
        None,
        EventKind::Other(tag.to_owned()),
        vec![("delta".to_owned(), opaque(json!({})))],
    )
}

/// A `tool_call_request` for [`TOOL_NAME`].
pub fn tool_call_request(id: &str) -> Event {
    Event::new(EventKind::ToolCallRequest(ToolCallRequest {
        id: id.to_owned(),
        name: TOOL_NAME.to_owned(),
        arguments: Some(opaque(json!({"path": "c3JjL2xpYi5ycw=="}))),
    }))
}

/// A successful `tool_call_response`.
pub fn tool_call_response(id: &str) -> Event {
    Event::new(EventKind::ToolCallResponse(ToolCallResponse {
        id: id.to_owned(),
        content: Some(opaque(json!("ZG9uZQ=="))),
        is_error: Some(false),
    }))
}

/// An `inquiry_request` from [`TOOL_NAME`] with a boolean question whose
/// text is `text` (tests use it to tell same-ID requests apart).
pub(crate) fn inquiry_request_with_text(id: InquiryId, text: &str) -> Event {
    Event::new(EventKind::InquiryRequest(Box::new(InquiryRequest {
        id,
        source: InquirySource::tool(TOOL_NAME),
        question: InquiryQuestion {
            text: text.to_owned(),
            answer_type: InquiryAnswerType::Boolean,
            default: None,
            context: None,
            exclusive: false,
            persistence: Default::default(),
        },
    })))
}

/// An `inquiry_request` from [`TOOL_NAME`] with a boolean question.
pub fn inquiry_request(id: InquiryId) -> Event {
    inquiry_request_with_text(id, "Apply changes?")
}

/// An `inquiry_response` with the given outcome.
pub(crate) fn inquiry_response(response: InquiryResponse) -> Event {
    Event::new(EventKind::InquiryResponse(response))
}

/// An `Answered` `inquiry_response`.
pub fn answered(id: InquiryId, answer: Value) -> Event {
    inquiry_response(InquiryResponse::Answered { id, answer })
}

/// How many choices a proptest draw of a stream reads: what a stream
/// takes, always the same number (its layout is fixed, see [`draw`]).
const STREAM_CHOICES: usize = draw::STREAM_WIDTH;
/// A turn's body.
const TURN_CHOICES: usize = draw::TURN_WIDTH;
/// The same for a clean stream.
const CLEAN_STREAM_CHOICES: usize = draw::CLEAN_STREAM_WIDTH;
/// A clean turn's body.
const CLEAN_TURN_CHOICES: usize = draw::CLEAN_TURN_WIDTH;
/// Enough for an exchange, a damaged one or a scramble.
const SEGMENT_CHOICES: usize = draw::SEGMENT_WIDTH;

strategies! {
    /// A tool-call ID from [`TOOL_CALL_IDS`] ([`draw::tool_call_id`]).
    tool_call_id -> String = 1;
    /// An inquiry ID from the pools ([`draw::inquiry_id`]).
    inquiry_id -> InquiryId = 3;
    /// A complete tool-call exchange, never with an orphan
    /// ([`draw::exchange`]).
    exchange -> Vec<Event> = SEGMENT_CHOICES;
    /// An exchange with some of its events dropped
    /// ([`draw::damaged_exchange`]).
    damaged_exchange -> Vec<Event> = SEGMENT_CHOICES;
    /// A single inquiry or tool-call event with a pooled ID, outside any
    /// structure ([`draw::loose_event`]).
    loose_event -> Event = draw::LOOSE_WIDTH;
    /// A short burst of loose events and fillers ([`draw::scramble`]).
    scramble -> Vec<Event> = SEGMENT_CHOICES;
    /// The events of a turn after its marker, with orphans of every kind
    /// ([`draw::turn_body`]).
    turn_body -> Vec<Event> = TURN_CHOICES;
    /// The events of a turn after its marker, with no orphan
    /// ([`draw::clean_turn_body`]).
    clean_turn_body -> Vec<Event> = CLEAN_TURN_CHOICES;
    /// A stream with orphans of every kind: up to four turns plus an
    /// optional implicit leading turn ([`draw::stream`]).
    stream -> Vec<Event> = STREAM_CHOICES;
    /// A stream with no orphan of either kind (legacy duplicate IDs and
    /// reused tool-call IDs included, all paired by order;
    /// [`draw::clean_stream`]).
    clean_stream -> Vec<Event> = CLEAN_STREAM_CHOICES;
}

/// Assembles a stream: an optional implicit leading turn, then turns each
/// opened by a marker and usually a `chat_request`; optionally timestamps
/// every event in increasing order.
fn assemble(
    leading: Option<Vec<Event>>,
    turns: Vec<(bool, Vec<Event>)>,
    timestamps: bool,
) -> Vec<Event> {
    let mut out: Vec<Event> = leading.unwrap_or_default();
    for (ask, body) in turns {
        out.push(turn_start());
        if ask {
            out.push(chat_request());
        }
        out.extend(body);
    }
    if timestamps {
        for (i, e) in out.iter_mut().enumerate() {
            e.timestamp = Some(format!(
                "2026-03-05 {:02}:{:02}:{:02}.{:06}",
                i / 3600 % 24,
                i / 60 % 60,
                i % 60,
                i / 86_400
            ));
        }
    }
    out
}

/// A stream with orphans of every kind decoded from fuzz bytes
/// ([`draw::stream`] under the [`Bytes`] driver): total, one byte per
/// choice in a fixed layout, so a one-byte mutation changes one turn.
#[cfg(test)]
pub(crate) fn from_bytes(u: &mut Unstructured<'_>) -> Vec<Event> {
    draw::stream(&mut Bytes::new(u))
}

/// A stream with no orphan decoded from fuzz bytes ([`draw::clean_stream`]
/// under the [`Bytes`] driver).
#[cfg(test)]
fn clean_from_bytes(u: &mut Unstructured<'_>) -> Vec<Event> {
    draw::clean_stream(&mut Bytes::new(u))
}

/// `count` streams with orphans sampled with `seed` ([`draw::stream`]
/// under the [`Seeded`] driver).
pub fn sample(count: usize, seed: u64) -> Vec<Vec<Event>> {
    choice::sample(count, seed, |c: &mut Seeded| draw::stream(c))
}

/// `count` streams with no orphan sampled with `seed`
/// ([`draw::clean_stream`] under the [`Seeded`] driver).
#[cfg(test)]
fn sample_clean(count: usize, seed: u64) -> Vec<Vec<Event>> {
    choice::sample(count, seed, |c: &mut Seeded| draw::clean_stream(c))
}

/// The most events [`flat`] generates.
pub(crate) const MAX_FLAT_EVENTS: usize = 128;

/// A flat stream of turn markers, chat events, unknown kinds, tool calls
/// and inquiries whose IDs come from the small pools above, so collisions
/// (legacy two-segment IDs, reused tool-call IDs, the same ID in two turns)
/// are the rule, not the exception. The `sanitize` fuzz target reads it
/// from fuzz bytes ([`flat_from_bytes`]).
///
/// The encoding is simple enough to write seeds by hand, each number a
/// choice of 256 (one byte). The first number's low bit turns timestamps
/// on. Then, while [`Choices::more`] says so, each event is one number `b`,
/// read as `b & 7`: 0 `turn_start`, 1 `chat_request`, 2 `chat_response`, 3
/// an unknown kind, 4 `tool_call_request`, 5 `tool_call_response`, 6
/// `inquiry_request`, 7 `inquiry_response`. Tool-call and inquiry events
/// take the tool-call ID `(b >> 3) % 3` of [`TOOL_CALL_IDS`]; inquiry events
/// take the question `(b >> 5) & 1` of [`QUESTION_IDS`] and read a second
/// number `c`: the attempt is `c % 3` (0 for the legacy two-segment ID), a
/// response's outcome `(c / 3) % 3` (answered, cancelled, redacted), and
/// `(c / 9) % 6` picks its answer (`true`/`false`) or its reason (the five
/// known ones, then an unknown tag).
pub(crate) fn flat(c: &mut impl Choices) -> Vec<Event> {
    fn byte(c: &mut impl Choices) -> u8 {
        c.choose(256) as u8
    }
    let timestamps = byte(c) & 1 == 1;
    let mut out = Vec::new();
    while out.len() < MAX_FLAT_EVENTS && c.more() {
        let b = byte(c);
        let call = TOOL_CALL_IDS[usize::from(b >> 3) % TOOL_CALL_IDS.len()];
        let mut e = match b & 7 {
            0 => turn_start(),
            1 => chat_request(),
            2 => chat_response(),
            3 => other("config_delta"),
            4 => tool_call_request(call),
            5 => tool_call_response(call),
            kind => {
                let c = byte(c);
                let question = QUESTION_IDS[usize::from(b >> 5) & 1];
                let id = match c % 3 {
                    0 => InquiryId::legacy(call, question),
                    attempt => InquiryId::new(call, question, u32::from(attempt)),
                };
                if kind == 6 {
                    inquiry_request(id)
                } else {
                    let pick = usize::from(c / 9) % 6;
                    inquiry_response(match (c / 3) % 3 {
                        0 => InquiryResponse::Answered {
                            id,
                            answer: Value::Bool(pick % 2 == 0),
                        },
                        1 => InquiryResponse::Cancelled {
                            id,
                            reason: CancellationReason::KNOWN
                                .get(pick)
                                .cloned()
                                .unwrap_or_else(|| CancellationReason::from_tag("future_reason")),
                        },
                        _ => InquiryResponse::Redacted { id },
                    })
                }
            }
        };
        if timestamps {
            e.timestamp = Some(format!("2026-03-05 21:00:00.{:06}", out.len()));
        }
        out.push(e);
    }
    out
}

/// [`flat`] read from fuzz bytes: total (any bytes decode; running out
/// only ends the stream), one byte per number, so the hand-written seeds of
/// `fuzz/corpus/sanitize/` decode as written.
pub(crate) fn flat_from_bytes(u: &mut Unstructured<'_>) -> Vec<Event> {
    flat(&mut Bytes::new(u))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::check::{ProfileMode, check_bytes};
    use crate::generate::choice::exhaust;
    use crate::rule::Rule;
    use crate::stream::{Orphan, sanitize};
    use crate::wire::Stream;

    /// Every shape the structured stream generators reach, written down
    /// from the proptest combinators before they were rewritten against
    /// `Choices` (GEN-ONE-INTERFACE: reach must not shrink).
    const REACH: [&str; 32] = [
        "turn_start",
        "chat_request",
        "chat_response",
        "other config_delta",
        "other some_future_kind",
        "tool_call_request",
        "tool_call_response",
        "inquiry_request",
        "inquiry_response answered true",
        "inquiry_response answered false",
        "inquiry_response redacted",
        // (and every known reason, by its tag: `known_reason_labels`)
        "reason future_reason",
        "call_a",
        "call_b",
        "call_c",
        "question apply_changes",
        "question path",
        "legacy ID",
        "attempt 1",
        "attempt 2",
        "timestamps",
        "no timestamps",
        "events before the first turn_start",
        "turn without chat_request",
        "a legacy ID asked twice in a turn",
        "a tool-call ID in two turns",
        "a tool-call ID requested twice before its response",
        "responses in reverse order",
        "orphan tool_call_request",
        "orphan tool_call_response",
        "orphan inquiry_request",
        "orphan inquiry_response",
    ];

    /// The shapes one stream reaches.
    fn shapes(events: &[Event], seen: &mut BTreeSet<&'static str>) {
        let mut turn_ids: Vec<BTreeSet<String>> = vec![BTreeSet::new()];
        let mut asked: BTreeSet<String> = BTreeSet::new();
        let mut open: Vec<String> = Vec::new();
        let mut requested: Vec<String> = Vec::new();
        seen.insert(match events.first().map(|e| &e.timestamp) {
            Some(Some(_)) => "timestamps",
            _ => "no timestamps",
        });
        if events
            .first()
            .is_some_and(|e| e.kind != EventKind::TurnStart)
        {
            seen.insert("events before the first turn_start");
        }
        for (i, e) in events.iter().enumerate() {
            let id_shapes = |id: &InquiryId, seen: &mut BTreeSet<&'static str>| {
                let parts: Vec<&str> = id.as_str().split('.').collect();
                seen.insert(match parts.get(2) {
                    None => "legacy ID",
                    Some(&"1") => "attempt 1",
                    Some(_) => "attempt 2",
                });
                seen.insert(match parts.get(1) {
                    Some(&"path") => "question path",
                    _ => "question apply_changes",
                });
            };
            match &e.kind {
                EventKind::TurnStart => {
                    seen.insert("turn_start");
                    turn_ids.push(BTreeSet::new());
                    asked.clear();
                    open.clear();
                    requested.clear();
                    if events.get(i + 1).map(|e| &e.kind) != Some(&EventKind::ChatRequest) {
                        seen.insert("turn without chat_request");
                    }
                }
                EventKind::ChatRequest => {
                    seen.insert("chat_request");
                }
                EventKind::ChatResponse => {
                    seen.insert("chat_response");
                }
                EventKind::Other(tag) if tag == "config_delta" => {
                    seen.insert("other config_delta");
                }
                EventKind::Other(_) => {
                    seen.insert("other some_future_kind");
                }
                EventKind::ToolCallRequest(t) => {
                    seen.insert("tool_call_request");
                    seen.insert(match t.id.as_str() {
                        "call_a" => "call_a",
                        "call_b" => "call_b",
                        _ => "call_c",
                    });
                    if open.contains(&t.id) {
                        seen.insert("a tool-call ID requested twice before its response");
                    }
                    if turn_ids[..turn_ids.len() - 1]
                        .iter()
                        .any(|ids| ids.contains(&t.id))
                    {
                        seen.insert("a tool-call ID in two turns");
                    }
                    turn_ids.last_mut().expect("a turn").insert(t.id.clone());
                    open.push(t.id.clone());
                    requested.push(t.id.clone());
                }
                EventKind::ToolCallResponse(t) => {
                    seen.insert("tool_call_response");
                    let later = requested.iter().position(|id| *id == t.id);
                    if let (Some(k), Some(first)) = (later, open.first())
                        && k > 0
                        && *first != t.id
                        && open.contains(&t.id)
                    {
                        seen.insert("responses in reverse order");
                    }
                    if let Some(k) = open.iter().position(|id| *id == t.id) {
                        open.remove(k);
                    }
                }
                EventKind::InquiryRequest(q) => {
                    seen.insert("inquiry_request");
                    id_shapes(&q.id, seen);
                    if q.id.as_str().matches('.').count() == 1
                        && !asked.insert(q.id.as_str().to_owned())
                    {
                        seen.insert("a legacy ID asked twice in a turn");
                    }
                }
                EventKind::InquiryResponse(resp) => {
                    seen.insert(match resp {
                        InquiryResponse::Answered { answer, .. } => {
                            if *answer == Value::Bool(true) {
                                "inquiry_response answered true"
                            } else {
                                "inquiry_response answered false"
                            }
                        }
                        InquiryResponse::Cancelled { reason, .. } => {
                            crate::generate::known_reason_label(reason)
                                .unwrap_or("reason future_reason")
                        }
                        InquiryResponse::Redacted { .. } => "inquiry_response redacted",
                    });
                    id_shapes(resp.id(), seen);
                }
            }
        }
        let repair = sanitize(events.to_vec());
        if !repair.injected.is_empty() {
            seen.insert("orphan tool_call_request");
        }
        for removed in &repair.removed {
            seen.insert(match removed.reason {
                Orphan::InquiryRequest => "orphan inquiry_request",
                Orphan::InquiryResponse => "orphan inquiry_response",
                Orphan::ToolCallResponse => "orphan tool_call_response",
            });
        }
    }

    /// The shapes of [`REACH`] that `streams` never reach.
    fn unreached(streams: &[Vec<Event>]) -> Vec<&'static str> {
        let mut seen = BTreeSet::new();
        for s in streams {
            shapes(s, &mut seen);
        }
        REACH
            .into_iter()
            .chain(crate::generate::known_reason_labels())
            .filter(|s| !seen.contains(s))
            .collect()
    }

    /// Rule: GEN-ONE-INTERFACE — the stream generator reaches every shape
    /// the proptest combinators it replaces reached ([`REACH`]: every
    /// kind, ID form, outcome and reason, events before the first turn,
    /// turns without a `chat_request`, IDs reused within and across turns,
    /// reversed responses, orphans of every kind) in 500 streams of the
    /// seeded driver, and the clean generator every one that is not an
    /// orphan and no orphan. Deleting a branch fails here, naming it.
    #[test]
    fn the_stream_generators_reach_every_shape() {
        let missing = unreached(&sample(500, 18));
        assert!(missing.is_empty(), "never reached: {missing:?}");
        let missing = unreached(&sample_clean(500, 18));
        let (orphans, others): (Vec<&str>, Vec<&str>) = REACH
            .into_iter()
            .chain(crate::generate::known_reason_labels())
            .partition(|s| s.starts_with("orphan"));
        for shape in orphans {
            assert!(missing.contains(&shape), "a clean stream had an {shape}");
        }
        for shape in others {
            assert!(
                !missing.contains(&shape),
                "clean streams never reached {shape}"
            );
        }
    }

    /// Rule: GEN-ONE-INTERFACE — a stream and a clean stream each take the
    /// same number of choices whatever was chosen (a fixed layout), and
    /// that number is what their proptest strategies draw: measured as the
    /// fuzz bytes a decode consumes, one byte per choice.
    #[test]
    fn a_stream_takes_a_fixed_number_of_choices() {
        for seed in 0..200u64 {
            let bytes = crate::fuzzing::seeds::lcg_bytes(seed, STREAM_CHOICES + 50);
            let mut u = Unstructured::new(&bytes);
            from_bytes(&mut u);
            assert_eq!(bytes.len() - u.len(), STREAM_CHOICES, "seed {seed}");
            let mut u = Unstructured::new(&bytes);
            clean_from_bytes(&mut u);
            assert_eq!(bytes.len() - u.len(), CLEAN_STREAM_CHOICES, "seed {seed}");
        }
    }

    /// A stream's turns, timestamps dropped (they are numbered over the
    /// whole stream): the events before the first marker, then each turn.
    fn turns_of(events: &[Event]) -> Vec<Vec<Event>> {
        let mut out = vec![Vec::new()];
        for e in events {
            if e.kind == EventKind::TurnStart {
                out.push(Vec::new());
            }
            let mut e = e.clone();
            e.timestamp = None;
            out.last_mut().expect("a turn").push(e);
        }
        out
    }

    /// Whether two lists of turns differ in one turn at most: one changed,
    /// added or removed.
    fn one_turn_apart(a: &[Vec<Event>], b: &[Vec<Event>]) -> bool {
        let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
        match long.len() - short.len() {
            0 => (0..a.len()).filter(|&i| a[i] != b[i]).count() <= 1,
            1 => (0..long.len()).any(|skip| {
                let rest: Vec<&Vec<Event>> = long
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i != skip)
                    .map(|(_, t)| t)
                    .collect();
                rest.into_iter().eq(short.iter())
            }),
            _ => false,
        }
    }

    /// How many one-byte changes of `bytes` make `decode` change more than
    /// one turn, and how many change anything.
    fn spread(bytes: &[u8], decode: impl Fn(&[u8]) -> Vec<Event>) -> (usize, usize) {
        let before = turns_of(&decode(bytes));
        let (mut wide, mut changed) = (0, 0);
        for k in (0..bytes.len()).step_by(3) {
            let mut mutated = bytes.to_vec();
            mutated[k] = mutated[k].wrapping_add(97);
            let after = turns_of(&decode(&mutated));
            changed += usize::from(after != before);
            wide += usize::from(!one_turn_apart(&before, &after));
        }
        (wide, changed)
    }

    /// Rule: GEN-SMALL-MUTATIONS — a one-byte change of a fuzz input
    /// changes one turn of the decoded stream at most (one segment, one
    /// turn's `chat_request`, or whether one turn is there), for streams
    /// and clean streams alike; and the changes are real (the bytes of kept
    /// slots change the stream; those of dropped slots and of a block's
    /// padding do not). The check can fail: in the flat encoding turn markers
    /// are events like any other, so a byte that turns a marker into a
    /// chat event merges two turns, and the flat encoding fails it.
    #[test]
    fn a_byte_of_a_fuzz_stream_changes_one_turn() {
        let stream = |b: &[u8]| from_bytes(&mut Unstructured::new(b));
        let clean = |b: &[u8]| clean_from_bytes(&mut Unstructured::new(b));
        for seed in 0..4u64 {
            let bytes = crate::fuzzing::seeds::lcg_bytes(seed, STREAM_CHOICES);
            let (wide, changed) = spread(&bytes, stream);
            assert_eq!(wide, 0, "seed {seed}: {wide} bytes changed several turns");
            assert!(
                changed >= 5,
                "seed {seed}: {changed} bytes changed the stream"
            );
            let (wide, _) = spread(&bytes[..CLEAN_STREAM_CHOICES], clean);
            assert_eq!(wide, 0, "clean, seed {seed}");
        }
        let bytes: Vec<u8> = (0..128u32)
            .map(|i| {
                if i % 9 == 0 {
                    0
                } else {
                    (i * 37 % 251) as u8 & !7 | 4
                }
            })
            .collect();
        let flat = |b: &[u8]| flat_from_bytes(&mut Unstructured::new(b));
        let (wide, _) = spread(&bytes, flat);
        assert!(wide > 0, "the flat encoding should fail the check");
    }

    /// Rule: CHECK-TOOL-PAIRED — exhaustively, every stream of a
    /// `turn_start` and up to two loose events of one tool call and one
    /// question (the [`draw::loose_event_in`] family: 1 + w + w² streams, w
    /// = a request, a response, three inquiry request IDs and three IDs
    /// times the response outcomes: both booleans, each known reason and an
    /// unknown one, redacted; 1 057 streams with five known reasons) round-trips through the writer and
    /// reader in both layouts, and its reference repair has no pairing
    /// finding.
    #[test]
    fn every_stream_of_two_loose_events_round_trips_and_sanitizes_clean() {
        let family = exhaust(|o| {
            let n = o.choose(3);
            let mut events = vec![turn_start()];
            for _ in 0..n {
                events.push(draw::loose_event_in(o, &["call_a"], &["q"]));
            }
            events
        });
        let outcomes = 2 + (CancellationReason::KNOWN.len() + 1) + 1;
        let width = 2 + 3 + 3 * outcomes;
        assert_eq!(family.len(), 1 + width + width * width);
        let distinct: BTreeSet<String> = family
            .iter()
            .map(|s| Stream::new(s.clone()).to_array_string())
            .collect();
        assert_eq!(distinct.len(), family.len(), "no stream twice");
        let pairing = [
            Rule::CheckToolPaired,
            Rule::CheckPaired,
            Rule::CheckTurnScoped,
            Rule::CheckResponseAfterRequest,
        ];
        for events in family {
            let s = Stream::new(events.clone());
            let array = s.to_array_string();
            let back = Stream::from_slice(array.as_bytes(), "array").expect("reads back");
            assert_eq!(back, s, "{array}");
            let mut lines = Vec::new();
            s.write_json_lines(&mut lines).expect("writes");
            let back = Stream::from_slice(&lines, "lines").expect("reads back");
            assert_eq!(back, s);
            let repaired = Stream::new(sanitize(events).events).to_array_string();
            let c = check_bytes(repaired.as_bytes(), "s", ProfileMode::Auto);
            assert_eq!(c.error, None);
            let found: Vec<String> = c
                .diagnostics
                .iter()
                .filter(|d| pairing.contains(&d.rule))
                .map(|d| d.to_string())
                .collect();
            assert!(found.is_empty(), "{array}\n{found:#?}");
        }
    }
}
