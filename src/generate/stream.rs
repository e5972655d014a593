//! Generators of structured streams, and the event builders they use
//! (public, so tests and downstream fuzzers can build the same shapes by
//! hand): proptest strategies, and [`flat`], the stream encoding of the
//! `sanitize` fuzz target, written against [`Choices`] (with fuzz bytes,
//! one byte per event, as the hand-written seeds are).
//!
//! IDs are drawn from deliberately small pools, so generated streams hit the
//! cases RFD 082 "Inquiry ID format" and Phase 3 care about: legacy
//! two-segment IDs that collide within a turn, new three-segment IDs, the
//! same tool-call ID reused across cycles and across turns, orphans on both
//! sides, responses before their requests, events before the first
//! `turn_start`, unknown event kinds. [`clean_stream`] generates only
//! complete exchanges (no orphan of either kind); [`stream`] mixes them with
//! loose and damaged events.
//!
//! Generation is deterministic given proptest's runner; nothing here draws
//! randomness of its own.

use arbitrary::Unstructured;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{Value, json};

use super::choice::{Bytes, Choices};
use crate::wire::{
    CancellationReason, Event, EventKind, InquiryAnswerType, InquiryId, InquiryQuestion,
    InquiryRequest, InquiryResponse, InquirySource, Opaque, ToolCallRequest, ToolCallResponse,
};

/// The tool-call ID pool: three IDs, so reuse across cycles and turns is
/// common.
pub const TOOL_CALL_IDS: [&str; 3] = ["call_a", "call_b", "call_c"];

/// The question ID pool.
pub const QUESTION_IDS: [&str; 2] = ["apply_changes", "path"];

/// The tool every generated call names.
pub const TOOL_NAME: &str = "fs_modify_file";

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
pub fn other(tag: &str) -> Event {
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
pub fn inquiry_request_with_text(id: InquiryId, text: &str) -> Event {
    Event::new(EventKind::InquiryRequest(InquiryRequest {
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
    }))
}

/// An `inquiry_request` from [`TOOL_NAME`] with a boolean question.
pub fn inquiry_request(id: InquiryId) -> Event {
    inquiry_request_with_text(id, "Apply changes?")
}

/// An `inquiry_response` with the given outcome.
pub fn inquiry_response(response: InquiryResponse) -> Event {
    Event::new(EventKind::InquiryResponse(response))
}

/// An `Answered` `inquiry_response`.
pub fn answered(id: InquiryId, answer: Value) -> Event {
    inquiry_response(InquiryResponse::Answered { id, answer })
}

/// A tool-call ID from [`TOOL_CALL_IDS`].
pub fn tool_call_id() -> impl Strategy<Value = String> {
    select(&TOOL_CALL_IDS[..]).prop_map(str::to_owned)
}

/// An inquiry ID for the given tool call: legacy two-segment (collides on
/// every re-ask) or new three-segment with attempt 1 or 2.
pub fn inquiry_id_for(tool_call_id: String) -> impl Strategy<Value = InquiryId> {
    (select(&QUESTION_IDS[..]), prop::option::of(1u32..=2)).prop_map(move |(q, attempt)| {
        match attempt {
            None => InquiryId::legacy(&tool_call_id, q),
            Some(a) => InquiryId::new(&tool_call_id, q, a),
        }
    })
}

/// An inquiry ID from the pools.
pub fn inquiry_id() -> impl Strategy<Value = InquiryId> {
    tool_call_id().prop_flat_map(inquiry_id_for)
}

/// Any `inquiry_response` payload for `id`: every outcome, every known
/// cancellation reason and an unknown one.
pub fn response_for(id: InquiryId) -> impl Strategy<Value = InquiryResponse> {
    let reasons: Vec<CancellationReason> = CancellationReason::KNOWN
        .into_iter()
        .chain([CancellationReason::Unknown("future_reason".to_owned())])
        .collect();
    let (a, c, r) = (id.clone(), id.clone(), id);
    prop_oneof![
        3 => any::<bool>().prop_map(move |b| InquiryResponse::Answered {
            id: a.clone(),
            answer: Value::Bool(b),
        }),
        1 => select(reasons).prop_map(move |reason| InquiryResponse::Cancelled {
            id: c.clone(),
            reason,
        }),
        1 => Just(InquiryResponse::Redacted { id: r }),
    ]
}

/// One inquiry round for a tool call: request, then its response.
fn round(tool_call_id: String) -> impl Strategy<Value = Vec<Event>> {
    inquiry_id_for(tool_call_id)
        .prop_flat_map(|id| (Just(id.clone()), response_for(id)))
        .prop_map(|(id, resp)| vec![inquiry_request(id), inquiry_response(resp)])
}

/// A complete tool-call exchange: one or two calls (possibly sharing an ID),
/// their requests, zero to two inquiry rounds per call (same-ID rounds pair
/// by order), then their responses in call order or reversed. Never has an
/// orphan.
pub fn exchange() -> impl Strategy<Value = Vec<Event>> {
    vec(tool_call_id(), 1..=2)
        .prop_flat_map(|ids| {
            let rounds: Vec<_> = ids.iter().map(|id| vec(round(id.clone()), 0..=2)).collect();
            (Just(ids), rounds, any::<bool>())
        })
        .prop_map(|(ids, rounds, reversed)| {
            let mut out: Vec<Event> = ids.iter().map(|id| tool_call_request(id)).collect();
            out.extend(rounds.into_iter().flatten().flatten());
            let mut responses: Vec<Event> = ids.iter().map(|id| tool_call_response(id)).collect();
            if reversed {
                responses.reverse();
            }
            out.extend(responses);
            out
        })
}

/// An exchange with some of its events dropped: orphans on either side, and
/// inquiry pairs left outside their tool call.
pub fn damaged_exchange() -> impl Strategy<Value = Vec<Event>> {
    (exchange(), vec(prop::bool::weighted(0.3), 12)).prop_map(|(events, drop)| {
        events
            .into_iter()
            .enumerate()
            .filter(|(i, _)| !drop[i % drop.len()])
            .map(|(_, e)| e)
            .collect()
    })
}

/// A single inquiry or tool-call event with a pooled ID, outside any
/// structure: an orphan, a response before its request, or a partner of a
/// loose event elsewhere in the turn or in another turn.
pub fn loose_event() -> impl Strategy<Value = Event> {
    prop_oneof![
        tool_call_id().prop_map(|id| tool_call_request(&id)),
        tool_call_id().prop_map(|id| tool_call_response(&id)),
        inquiry_id().prop_map(inquiry_request),
        inquiry_id()
            .prop_flat_map(response_for)
            .prop_map(inquiry_response),
    ]
}

/// A chat event or an event of a kind providers never see.
fn filler() -> impl Strategy<Value = Event> {
    prop_oneof![
        2 => Just(chat_response()),
        1 => Just(chat_request()),
        1 => Just(other("config_delta")),
        1 => Just(other("some_future_kind")),
    ]
}

/// A short burst of loose events and fillers: dense local collisions such
/// as two requests sharing an ID with a chat event before their one
/// response.
pub fn scramble() -> impl Strategy<Value = Vec<Event>> {
    vec(prop_oneof![3 => loose_event(), 1 => filler()], 1..6)
}

/// The events of a turn after its marker, with orphans of every kind.
pub fn turn_body() -> impl Strategy<Value = Vec<Event>> {
    let segment = prop_oneof![
        3 => exchange(),
        2 => filler().prop_map(|e| vec![e]),
        2 => loose_event().prop_map(|e| vec![e]),
        2 => damaged_exchange(),
        2 => scramble(),
    ];
    vec(segment, 0..8).prop_map(|s| s.into_iter().flatten().collect())
}

/// The events of a turn after its marker, with no orphan.
pub fn clean_turn_body() -> impl Strategy<Value = Vec<Event>> {
    let segment = prop_oneof![
        3 => exchange(),
        2 => filler().prop_map(|e| vec![e]),
    ];
    vec(segment, 0..8).prop_map(|s| s.into_iter().flatten().collect())
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

/// A stream with orphans of every kind: up to five turns plus an optional
/// implicit leading turn.
pub fn stream() -> impl Strategy<Value = Vec<Event>> {
    (
        prop::option::weighted(0.3, turn_body()),
        vec((prop::bool::weighted(0.8), turn_body()), 0..5),
        any::<bool>(),
    )
        .prop_map(|(leading, turns, ts)| assemble(leading, turns, ts))
}

/// A stream with no orphan of either kind (legacy duplicate IDs and reused
/// tool-call IDs included, all paired by order).
pub fn clean_stream() -> impl Strategy<Value = Vec<Event>> {
    (
        prop::option::weighted(0.3, clean_turn_body()),
        vec((prop::bool::weighted(0.8), clean_turn_body()), 0..5),
        any::<bool>(),
    )
        .prop_map(|(leading, turns, ts)| assemble(leading, turns, ts))
}

/// The most events [`flat`] generates.
pub const MAX_FLAT_EVENTS: usize = 128;

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
pub fn flat(c: &mut impl Choices) -> Vec<Event> {
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
pub fn flat_from_bytes(u: &mut Unstructured<'_>) -> Vec<Event> {
    flat(&mut Bytes::new(u))
}
