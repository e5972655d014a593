//! The deterministic half of the `check` cost figure: `check` against serde_json's
//! `IgnoredAny` on the same bytes, counted in instructions by callgrind
//! (wall clock on the shared 2-core machine moves by 2x from run to run;
//! `make bench` reports time).
//!
//! Builds the bench's corpus in memory (the real streams of
//! `INQUIRY_MODEL_REAL_STREAMS`, else the committed `tests/corpus/jp-like/`,
//! concatenated to `CHECK_RATIO_MB` megabytes, default 4), in both layouts,
//! then runs each measured function once. Each is its own non-inlined
//! function, so callgrind's inclusive cost of it is the figure:
//!
//! ```sh
//! make check-ratio                  # both corpora, table of ratios
//! # by hand:
//! cargo build --release --example check_ratio
//! valgrind --tool=callgrind --callgrind-out-file=/tmp/c.cg \
//!     target/release/examples/check_ratio
//! callgrind_annotate --inclusive=yes /tmp/c.cg | grep measure_
//! ```
//!
//! Run without valgrind it prints the events and bytes of each layout
//! (and checks that the corpus is clean), nothing timed.

#[path = "../benches/support/corpus.rs"]
mod corpus;

use std::hint::black_box;

use inquiry_model::check::{self, ProfileMode};
use serde::de::IgnoredAny;

// The two `check` functions differ (a different constant), so the
// compiler cannot fold them into one symbol.
#[inline(never)]
fn measure_check_array(bytes: &[u8]) -> usize {
    check_count(bytes) + black_box(0)
}

#[inline(never)]
fn measure_check_lines(bytes: &[u8]) -> usize {
    check_count(bytes) + black_box(0) * 2
}

#[inline(never)]
fn measure_ignored_array(bytes: &[u8]) -> usize {
    serde_json::from_slice::<IgnoredAny>(bytes).expect("the corpus is JSON");
    1
}

#[inline(never)]
fn measure_ignored_lines(bytes: &[u8]) -> usize {
    let mut n = 0;
    for v in serde_json::Deserializer::from_slice(bytes).into_iter::<IgnoredAny>() {
        v.expect("the corpus is JSON Lines");
        n += 1;
    }
    n
}

fn check_count(bytes: &[u8]) -> usize {
    let mut found = 0usize;
    let (summary, error) =
        check::check_reader(bytes, "corpus", ProfileMode::Auto, &mut |_| found += 1);
    assert!(error.is_none(), "the corpus must read: {error:?}");
    assert_eq!(found, 0, "the corpus is clean under auto");
    summary.events
}

fn main() {
    let mb: u64 = std::env::var("CHECK_RATIO_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4);
    let events = corpus::fixture_events().expect("the fixture streams must be readable");
    println!("corpus: {}", corpus::fixture_dir().display());
    for (layout, name) in [
        (corpus::Layout::Array, "array"),
        (corpus::Layout::JsonLines, "lines"),
    ] {
        let bytes = corpus::stream_bytes(&events, mb << 20, layout);
        let (n, ignored) = match layout {
            corpus::Layout::Array => (
                measure_check_array(black_box(&bytes)),
                measure_ignored_array(black_box(&bytes)),
            ),
            corpus::Layout::JsonLines => (
                measure_check_lines(black_box(&bytes)),
                measure_ignored_lines(black_box(&bytes)),
            ),
        };
        black_box(ignored);
        println!("{name}: {} bytes, {n} events", bytes.len());
    }
}

/// The allocator the command line ships with, so the figures are those of
/// the binary a user runs (docs/decisions/performance.md, "Performance:
/// the binaries' allocator").
#[global_allocator]
static GLOBAL: inquiry_model::cli::Allocator = inquiry_model::cli::Allocator;
