//! Measures rule `STREAM-LINEAR`: pairing and sanitize on worst-case
//! streams of 10^4, 10^5 and 10^6 events, with the time ratio per 10x
//! (linear is about 10x). Run with `make stream-scaling` (release build).
//!
//! A measurement, not a test: nothing here asserts a time. The streams are
//! built in memory (no reading); each timing is the best of a few runs, and
//! sanitize's input is cloned outside the timed section.
//!
//! Reading the table: 10^4 events (an event is about 256 bytes) stay in the
//! CPU cache across runs and 10^5 do not, so the first step is steeper than
//! the algorithm; the ns/event column from 10^5 to 10^6 is the one to read.
//! At 10^6, buffers above glibc's mmap threshold (32 MiB) are fresh pages on
//! every run, so page faults add to sanitize's time; running with
//! `MALLOC_MMAP_MAX_=0` removes that effect.

use std::hint::black_box;
use std::time::{Duration, Instant};

use inquiry_model::stream::arb::{
    answered, chat_request, chat_response, inquiry_request, tool_call_request, tool_call_response,
    turn_start,
};
use inquiry_model::stream::{pair, pair_tool_calls, sanitize};
use inquiry_model::wire::{Event, InquiryId};
use serde_json::json;

/// Turns of eight events with fresh new-format IDs, like real streams; one
/// turn in ten lost its inquiry response and its tool-call response.
fn ordinary(n: usize) -> Vec<Event> {
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
/// one tool-call ID: half the events are inquiry requests, a quarter their
/// responses, an eighth tool-call requests, a sixteenth their responses, so
/// tens of thousands of orphans wait in one queue and tens of thousands of
/// synthetic responses land at one place.
fn one_turn_same_ids(n: usize) -> Vec<Event> {
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
fn many_turns_reused_ids(n: usize) -> Vec<Event> {
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

/// The map-capacity trap: one turn of n/2 distinct orphaned requests, then
/// n/2 events of small turns reusing IDs.
fn huge_turn_then_small_turns(n: usize) -> Vec<Event> {
    let mut out = Vec::with_capacity(n + 5);
    out.push(turn_start());
    out.extend((0..n / 2).map(|i| inquiry_request(InquiryId::new(&format!("toolu_{i}"), "q", 1))));
    out.extend(many_turns_reused_ids(n - out.len()));
    out
}

fn best_of(runs: usize, mut f: impl FnMut() -> Duration) -> Duration {
    (0..runs).map(|_| f()).min().unwrap_or_default()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Builds a stream of about `n` events.
type Build = fn(usize) -> Vec<Event>;

fn main() {
    let shapes: [(&str, Build); 4] = [
        ("ordinary turns", ordinary),
        ("one turn, same IDs", one_turn_same_ids),
        ("many turns, reused IDs", many_turns_reused_ids),
        ("huge turn, then small", huge_turn_then_small_turns),
    ];
    println!(
        "one event is {} bytes in memory; 10^4 events fit in cache, 10^5 do not",
        std::mem::size_of::<Event>()
    );
    println!(
        "{:<24} {:>9} {:>10} {:>6} {:>8} {:>12} {:>6} {:>8}",
        "stream", "events", "pair ms", "x10", "ns/ev", "sanitize ms", "x10", "ns/ev"
    );
    for (name, build) in shapes {
        let mut prev: Option<(Duration, Duration)> = None;
        for n in [10_000, 100_000, 1_000_000] {
            let events = build(n);
            let runs = if n >= 1_000_000 { 3 } else { 7 };
            // Results are dropped after the clock stops.
            let pairing = best_of(runs, || {
                let t = Instant::now();
                let found = black_box((pair(black_box(&events)), pair_tool_calls(&events)));
                let d = t.elapsed();
                drop(found);
                d
            });
            let sanitizing = best_of(runs, || {
                let input = events.clone();
                let t = Instant::now();
                let out = black_box(sanitize(black_box(input)));
                let d = t.elapsed();
                drop(out);
                d
            });
            let ratio = |now: Duration, before: Option<Duration>| match before {
                Some(b) => format!("{:.1}", now.as_secs_f64() / b.as_secs_f64()),
                None => "-".to_owned(),
            };
            let per_event = |d: Duration| d.as_secs_f64() * 1e9 / events.len() as f64;
            println!(
                "{:<24} {:>9} {:>10.2} {:>6} {:>8.0} {:>12.2} {:>6} {:>8.0}",
                name,
                events.len(),
                ms(pairing),
                ratio(pairing, prev.map(|p| p.0)),
                per_event(pairing),
                ms(sanitizing),
                ratio(sanitizing, prev.map(|p| p.1)),
                per_event(sanitizing),
            );
            prev = Some((pairing, sanitizing));
        }
    }
}
