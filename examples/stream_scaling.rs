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

use inquiry_model::stream::{pair, pair_tool_calls, sanitize};
use inquiry_model::wire::Event;

// The worst-case shapes are the benchmark's own, so both measure the same
// streams.
#[path = "../benches/support/shapes.rs"]
mod shapes;
use shapes::{huge_turn_then_small_turns, many_turns_reused_ids, one_turn_same_ids, ordinary};

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
