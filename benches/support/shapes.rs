//! The stream shapes of the scaling measurements: ordinary turns and the
//! worst cases of the stream issue (rule `STREAM-LINEAR`), plus the keys of
//! the huge turn for the bare `HashMap` baseline. `benches/perf.rs` and
//! `examples/stream_scaling.rs` both include this file.

#![allow(dead_code)]

use inquiry_model::generate::stream::{
    answered, chat_request, chat_response, inquiry_request, tool_call_request, tool_call_response,
    turn_start,
};
use inquiry_model::wire::{Event, InquiryId};
use serde_json::json;

/// Builds a stream of about `n` events.
pub type Build = fn(usize) -> Vec<Event>;

/// Every shape, with the name the table prints.
pub const SHAPES: [(&str, Build); 4] = [
    ("ordinary turns", ordinary),
    ("one turn, same IDs", one_turn_same_ids),
    ("many turns, reused IDs", many_turns_reused_ids),
    ("huge turn, then small", huge_turn_then_small_turns),
];

/// Turns of eight events with fresh new-format IDs, like real streams; one
/// turn in ten lost its inquiry response and its tool-call response.
pub fn ordinary(n: usize) -> Vec<Event> {
    let mut out = Vec::with_capacity(n + 8);
    let mut k = 0;
    while out.len() < n {
        let call = format!("toolu_{k:08}");
        let id = InquiryId::new(&call, "apply_changes", 1);
        out.push(turn_start());
        out.push(chat_request());
        out.push(chat_response());
        out.push(tool_call_request(&call));
        out.push(inquiry_request(id.clone()));
        if k % 10 != 9 {
            out.push(answered(id, json!(true)));
            out.push(tool_call_response(&call));
        }
        out.push(chat_response());
        k += 1;
    }
    out
}

/// One turn where every inquiry shares one legacy ID and every tool call
/// one tool-call ID.
pub fn one_turn_same_ids(n: usize) -> Vec<Event> {
    let id = InquiryId::legacy("toolu_same", "apply_changes");
    let mut out = Vec::with_capacity(n);
    out.push(turn_start());
    out.extend((0..n / 2).map(|_| inquiry_request(id.clone())));
    out.extend((0..n / 4).map(|_| answered(id.clone(), json!(true))));
    out.extend((0..n / 8).map(|_| tool_call_request("toolu_same")));
    out.extend((0..n / 16).map(|_| tool_call_response("toolu_same")));
    while out.len() < n {
        out.push(chat_response());
    }
    out
}

/// Thousands of five-event turns reusing one tool-call ID and one inquiry
/// ID; every third turn lost both responses.
pub fn many_turns_reused_ids(n: usize) -> Vec<Event> {
    let id = InquiryId::new("toolu_same", "apply_changes", 1);
    let mut out = Vec::with_capacity(n + 5);
    let mut t = 0;
    while out.len() < n {
        out.push(turn_start());
        out.push(tool_call_request("toolu_same"));
        out.push(inquiry_request(id.clone()));
        if t % 3 != 2 {
            out.push(answered(id.clone(), json!(true)));
            out.push(tool_call_response("toolu_same"));
        }
        t += 1;
    }
    out
}

/// The distinct IDs of the huge turn of [`huge_turn_then_small_turns`].
pub fn huge_turn_ids(n: usize) -> Vec<InquiryId> {
    (0..n / 2)
        .map(|i| InquiryId::new(&format!("toolu_{i}"), "q", 1))
        .collect()
}

/// One turn of n/2 distinct orphaned requests, then n/2 events of small
/// turns reusing IDs.
pub fn huge_turn_then_small_turns(n: usize) -> Vec<Event> {
    let mut out = Vec::with_capacity(n + 5);
    out.push(turn_start());
    out.extend(huge_turn_ids(n).into_iter().map(inquiry_request));
    out.extend(many_turns_reused_ids(n - out.len()));
    out
}

/// The inquiry ID of request `k` of [`long_turn`]: `c1.q{k}.1`, a
/// conforming three-segment ID of the turn's one tool call.
pub fn long_turn_id(k: usize) -> InquiryId {
    InquiryId::new("c1", &format!("q{k}"), 1)
}

/// One turn of `pairs` answered inquiries with distinct IDs inside one tool
/// call: `turn_start`, `tool_call_request c1`, then `pairs` times an
/// `inquiry_request c1.q{k}.1` and its answered `inquiry_response`, then
/// `tool_call_response c1`. A clean stream (no finding): the case of rule
/// `PERF-TURN-MEMORY`, whose memory is the turn's distinct IDs.
pub fn long_turn(pairs: usize) -> impl Iterator<Item = Event> {
    [turn_start(), tool_call_request("c1")]
        .into_iter()
        .chain((0..pairs).flat_map(|k| {
            let id = long_turn_id(k);
            [inquiry_request(id.clone()), answered(id, json!(true))]
        }))
        .chain(std::iter::once(tool_call_response("c1")))
}

/// Writes [`long_turn`] as JSON Lines to `out`.
pub fn write_long_turn(pairs: usize, out: &std::path::Path) -> std::io::Result<()> {
    use std::io::Write;
    let mut w = std::io::BufWriter::new(std::fs::File::create(out)?);
    for e in long_turn(pairs) {
        serde_json::to_writer(&mut w, &e)?;
        w.write_all(b"\n")?;
    }
    w.flush()
}
