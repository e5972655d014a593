//! The structured stream generators themselves: plain functions of a
//! [`Choices`], so every driver of [`crate::generate::choice`] runs them
//! (the proptest strategies of [`super`] wrap them).
//!
//! A stream has a fixed layout ([`STREAM_WIDTH`] choices): an optional
//! leading turn and four turn slots, each of seven segment slots kept on a
//! coin, and every turn and segment is a [`block`] (a segment
//! [`SEGMENT_WIDTH`] choices whatever its kind), whose choices a dropped
//! slot skips rather than generates. So a one-byte change of a fuzz input changes one segment, one turn's
//! `chat_request`, or whether one turn is there, and nothing else (test
//! `a_byte_of_a_fuzz_stream_changes_one_turn`). Inside a segment the
//! layout is free: an inquiry request takes fewer choices than a cancelled
//! response, which is what lets the odometer enumerate a family of loose
//! events without repeats (test
//! `every_stream_of_two_loose_events_round_trips_and_sanitizes_clean`).

use serde_json::Value;

use super::{
    QUESTION_IDS, TOOL_CALL_IDS, assemble, chat_request, chat_response, inquiry_request,
    inquiry_response, other, tool_call_request, tool_call_response,
};
use crate::generate::choice::{Block, Choices, block, slots};
use crate::wire::{CancellationReason, Event, InquiryId, InquiryResponse};

/// The choices one segment of a turn takes, whatever its kind: its kind,
/// then at most a damaged exchange's 25 + 12.
pub(crate) const SEGMENT_WIDTH: usize = 38;

/// The choices one segment of a clean turn takes: its kind, then at most
/// an exchange's 25.
pub(crate) const CLEAN_SEGMENT_WIDTH: usize = 26;

/// The choices a turn's body takes: seven segment slots.
pub(crate) const TURN_WIDTH: usize = 7 * (1 + SEGMENT_WIDTH);

/// The choices a clean turn's body takes: seven segment slots.
pub(crate) const CLEAN_TURN_WIDTH: usize = 7 * (1 + CLEAN_SEGMENT_WIDTH);

/// The choices a stream takes: the timestamps coin, the leading turn's
/// coin and body, four turn slots of a coin, the `chat_request` choice and
/// a body.
pub(crate) const STREAM_WIDTH: usize = 2 + TURN_WIDTH + 4 * (2 + TURN_WIDTH);

/// The choices a clean stream takes.
pub(crate) const CLEAN_STREAM_WIDTH: usize = 2 + CLEAN_TURN_WIDTH + 4 * (2 + CLEAN_TURN_WIDTH);

/// The choices one loose event takes at most: its kind, then at most a
/// response's call, question, attempt, outcome and detail.
pub(crate) const LOOSE_WIDTH: usize = 6;

/// A tool-call ID from [`TOOL_CALL_IDS`].
pub(crate) fn tool_call_id(c: &mut impl Choices) -> String {
    c.pick(&TOOL_CALL_IDS).to_owned()
}

/// An inquiry ID for the given tool call, with a question of `questions`:
/// legacy two-segment (collides on every re-ask) or new three-segment with
/// attempt 1 or 2.
pub(crate) fn inquiry_id_in(c: &mut impl Choices, call: &str, questions: &[&str]) -> InquiryId {
    let q = c.pick(questions);
    match c.choose(3) {
        0 => InquiryId::legacy(call, q),
        attempt => InquiryId::new(call, q, attempt as u32),
    }
}

/// An inquiry ID for the given tool call, with a question of
/// [`QUESTION_IDS`].
pub(crate) fn inquiry_id_for(c: &mut impl Choices, call: &str) -> InquiryId {
    inquiry_id_in(c, call, &QUESTION_IDS)
}

/// An inquiry ID from the pools.
pub(crate) fn inquiry_id(c: &mut impl Choices) -> InquiryId {
    let call = c.pick(&TOOL_CALL_IDS);
    inquiry_id_for(c, call)
}

/// Every reason a generated cancellation carries: the known ones, then an
/// unknown tag.
fn reason(k: usize) -> CancellationReason {
    CancellationReason::KNOWN
        .get(k)
        .cloned()
        .unwrap_or_else(|| CancellationReason::Unknown("future_reason".to_owned()))
}

/// Any `inquiry_response` payload for `id`: every outcome (answered three
/// times in five), both boolean answers, every known cancellation reason
/// and an unknown one.
pub(crate) fn response_for(c: &mut impl Choices, id: InquiryId) -> InquiryResponse {
    match c.weighted(&[3, 1, 1]) {
        0 => InquiryResponse::Answered {
            id,
            answer: Value::Bool(c.flip()),
        },
        1 => InquiryResponse::Cancelled {
            id,
            reason: reason(c.choose(CancellationReason::KNOWN.len() + 1)),
        },
        _ => InquiryResponse::Redacted { id },
    }
}

/// One inquiry round for a tool call: request, then its response.
pub(crate) fn round(c: &mut impl Choices, call: &str) -> [Event; 2] {
    let id = inquiry_id_for(c, call);
    let response = response_for(c, id.clone());
    [inquiry_request(id), inquiry_response(response)]
}

/// A complete tool-call exchange: one or two calls (possibly sharing an
/// ID), their requests, zero to two inquiry rounds per call (same-ID rounds
/// pair by order), then their responses in call order or reversed. Never
/// has an orphan. Takes 25 choices at most.
pub(crate) fn exchange(c: &mut impl Choices) -> Vec<Event> {
    let calls = slots(c, 1, 2, |c, _| {
        let call = c.pick(&TOOL_CALL_IDS);
        (call, slots(c, 0, 2, |c, _| round(c, call)))
    });
    let reversed = c.flip();
    let mut out: Vec<Event> = calls.iter().map(|(id, _)| tool_call_request(id)).collect();
    out.extend(
        calls
            .iter()
            .flat_map(|(_, rounds)| rounds.iter().flatten().cloned()),
    );
    let mut responses: Vec<Event> = calls.iter().map(|(id, _)| tool_call_response(id)).collect();
    if reversed {
        responses.reverse();
    }
    out.extend(responses);
    out
}

/// An exchange with some of its events dropped (each of the first twelve
/// with probability 3/10, the pattern repeating after): orphans on either
/// side, and inquiry pairs left outside their tool call. Takes 37 choices
/// at most.
pub(crate) fn damaged_exchange(c: &mut impl Choices) -> Vec<Event> {
    let events = exchange(c);
    let drop: Vec<bool> = (0..12).map(|_| c.weighted(&[7, 3]) == 1).collect();
    events
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !drop[i % drop.len()])
        .map(|(_, e)| e)
        .collect()
}

/// A loose event of kind `kind` (0 a tool-call request, 1 its response, 2
/// an inquiry request, 3 an inquiry response) with IDs from `calls` and
/// `questions`: five choices at most, fewer for the kinds that need fewer.
fn loose_of(c: &mut impl Choices, kind: usize, calls: &[&str], questions: &[&str]) -> Event {
    let call = c.pick(calls);
    match kind {
        0 => tool_call_request(call),
        1 => tool_call_response(call),
        2 => inquiry_request(inquiry_id_in(c, call, questions)),
        _ => {
            let id = inquiry_id_in(c, call, questions);
            inquiry_response(response_for(c, id))
        }
    }
}

/// A single inquiry or tool-call event with an ID from `calls` and
/// `questions`, outside any structure. Takes [`LOOSE_WIDTH`] choices at
/// most.
pub(crate) fn loose_event_in(c: &mut impl Choices, calls: &[&str], questions: &[&str]) -> Event {
    let kind = c.choose(4);
    loose_of(c, kind, calls, questions)
}

/// A single inquiry or tool-call event with a pooled ID, outside any
/// structure: an orphan, a response before its request, or a partner of a
/// loose event elsewhere in the turn or in another turn.
pub(crate) fn loose_event(c: &mut impl Choices) -> Event {
    loose_event_in(c, &TOOL_CALL_IDS, &QUESTION_IDS)
}

/// The filler events: a chat event or an event of a kind providers never
/// see.
fn filler_of(k: usize) -> Event {
    match k {
        0 | 1 => chat_response(),
        2 => chat_request(),
        3 => other("config_delta"),
        _ => other("some_future_kind"),
    }
}

/// A chat event or an event of a kind providers never see (chat responses
/// twice as often as each other one). One choice.
pub(crate) fn filler(c: &mut impl Choices) -> Event {
    filler_of(c.choose(5))
}

/// A loose event three times in four, else a filler; [`LOOSE_WIDTH`]
/// choices at most.
fn loose_or_filler(c: &mut impl Choices) -> Event {
    match c.weighted(&[15, 15, 15, 15, 8, 4, 4, 4]) {
        k @ 0..=3 => loose_of(c, k, &TOOL_CALL_IDS, &QUESTION_IDS),
        k => filler_of(k - 3),
    }
}

/// A short burst of one to five loose events and fillers: dense local
/// collisions such as two requests sharing an ID with a chat event before
/// their one response. Takes 35 choices at most.
pub(crate) fn scramble(c: &mut impl Choices) -> Vec<Event> {
    slots(c, 1, 5, |c, _| {
        block(c, LOOSE_WIDTH, |c| loose_or_filler(c))
    })
}

/// Up to `max` items of `width` choices each, each kept on a coin: the
/// layout of [`slots`] with `min` 0 and each item in a [`block`], but a
/// dropped item's choices are passed over with [`Choices::skip`] rather
/// than generated (the same input positions, without building events no
/// one keeps).
fn kept<C: Choices, T>(
    c: &mut C,
    max: usize,
    width: usize,
    mut item: impl FnMut(&mut Block<'_, C>) -> T,
) -> Vec<T> {
    let mut out = Vec::new();
    for _ in 0..max {
        if c.flip() {
            out.push(block(c, width, &mut item));
        } else {
            (0..width).for_each(|_| c.skip());
        }
    }
    out
}

/// One segment of a turn with orphans: an exchange, a filler, a loose
/// event, a damaged exchange or a scramble (weights 3, 2, 2, 2, 2).
fn segment(c: &mut impl Choices) -> Vec<Event> {
    match c.weighted(&[3, 2, 2, 2, 2]) {
        0 => exchange(c),
        1 => vec![filler(c)],
        2 => vec![loose_event(c)],
        3 => damaged_exchange(c),
        _ => scramble(c),
    }
}

/// One segment of a clean turn: an exchange or a filler (weights 3, 2).
fn clean_segment(c: &mut impl Choices) -> Vec<Event> {
    match c.weighted(&[3, 2]) {
        0 => exchange(c),
        _ => vec![filler(c)],
    }
}

/// The events of a turn after its marker, with orphans of every kind: up
/// to seven segments, each in a block of [`SEGMENT_WIDTH`] choices.
pub(crate) fn turn_body(c: &mut impl Choices) -> Vec<Event> {
    kept(c, 7, SEGMENT_WIDTH, |c| segment(c)).concat()
}

/// The events of a turn after its marker, with no orphan: up to seven
/// segments, each in a block of [`CLEAN_SEGMENT_WIDTH`] choices.
pub(crate) fn clean_turn_body(c: &mut impl Choices) -> Vec<Event> {
    kept(c, 7, CLEAN_SEGMENT_WIDTH, |c| clean_segment(c)).concat()
}

/// A turn's body, with orphans or clean.
fn body(c: &mut impl Choices, clean: bool) -> Vec<Event> {
    if clean {
        clean_turn_body(c)
    } else {
        turn_body(c)
    }
}

/// A stream of turns, with orphans or clean: whether events carry
/// timestamps, an implicit leading turn (three times in ten), then up to
/// four turns, each with a `chat_request` after its marker four times in
/// five.
fn turns(c: &mut impl Choices, clean: bool) -> Vec<Event> {
    let width = if clean { CLEAN_TURN_WIDTH } else { TURN_WIDTH };
    let timestamps = c.flip();
    let leading = if c.weighted(&[7, 3]) == 1 {
        Some(block(c, width, |c| body(c, clean)))
    } else {
        (0..width).for_each(|_| c.skip());
        None
    };
    let turns = kept(c, 4, 1 + width, |c| {
        (c.weighted(&[1, 4]) == 1, body(c, clean))
    });
    assemble(leading, turns, timestamps)
}

/// A stream with orphans of every kind: up to four turns plus an optional
/// implicit leading turn.
pub(crate) fn stream(c: &mut impl Choices) -> Vec<Event> {
    turns(c, false)
}

/// A stream with no orphan of either kind (legacy duplicate IDs and reused
/// tool-call IDs included, all paired by order).
pub(crate) fn clean_stream(c: &mut impl Choices) -> Vec<Event> {
    turns(c, true)
}
