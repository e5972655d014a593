//! The bare model's cost per coordinator step, deterministically:
//! every `stride`-th scenario of the small exploration scope (the
//! `single` and `pairs` families, as `benches/perf.rs`'s `model_bars` row
//! runs them), each run step by step with a no-op observer.
//!
//! Under callgrind, collect only the runs (not the scenario building) and
//! divide the total by the printed step count:
//!
//! ```text
//! cargo build --release --example model_steps
//! valgrind --tool=callgrind --callgrind-out-file=/tmp/model.cg \
//!     --toggle-collect='model_steps::bare' \
//!     target/release/examples/model_steps 20
//! callgrind_annotate /tmp/model.cg | head
//! ```
//!
//! Name the function exactly: callgrind toggles collection on entering and
//! leaving every function the pattern matches, so a pattern that also
//! matches the observer closure (`model_steps::checked::{{closure}}`)
//! stops counting inside it, and the step checker's cost goes uncounted.
//!
//! Without callgrind, `model_steps STRIDE ROUNDS` also prints the fastest
//! of `ROUNDS` timed runs in steps/s (wall clock: noisy on a shared machine).
//!
//! `model_steps STRIDE ROUNDS checked` runs the same scenarios with every
//! invariant after every step and at the end, as the bench's ratio row does
//! (collect `model_steps::checked`): the two counts give that ratio in
//! instructions.

use std::time::Instant;

use inquiry_model::explore;
use inquiry_model::invariants::{self, StreamMemo};
use inquiry_model::scenario::{self, RunOptions, Scenario};

/// Runs every scenario with a no-op observer; returns the steps taken.
#[inline(never)]
fn bare(scenarios: &[Scenario]) -> usize {
    let mut steps = 0usize;
    for s in scenarios {
        let trace = scenario::run_observed(s, RunOptions::default(), &mut |_, _| steps += 1)
            .expect("explored scenarios run");
        std::hint::black_box(trace);
    }
    steps
}

/// Runs every scenario with every invariant after every step and at the
/// end, as `explore` checks them (`invariants::check_runs`, which the
/// bench's `model_bars` row runs too); returns the steps.
#[inline(never)]
fn checked(scenarios: &[Scenario]) -> usize {
    let mut steps = 0usize;
    let mut memo = StreamMemo::new();
    invariants::check_runs(scenarios, &mut memo, |_, n, found| {
        steps += n;
        std::hint::black_box(found.expect("explored scenarios run"));
    });
    steps
}

fn main() {
    let mut args = std::env::args().skip(1);
    let stride: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(20);
    let rounds: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let run: fn(&[Scenario]) -> usize = match args.next().as_deref() {
        Some("checked") => checked,
        _ => bare,
    };
    // Every `stride`-th scenario of the small scope, as `explore` enumerates it.
    let scenarios: Vec<Scenario> = explore::scenarios(stride, 0, 0);
    let mut best = f64::INFINITY;
    let mut steps = 0;
    for _ in 0..rounds.max(1) {
        let t = Instant::now();
        steps = run(&scenarios);
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!(
        "{steps} steps, {} scenarios, stride {stride}: {:.0} steps/s (fastest of {} rounds)",
        scenarios.len(),
        steps as f64 / best,
        rounds.max(1)
    );
}

/// The allocator the command line ships with, so the figures are those of
/// the binary a user runs (docs/decisions/performance.md, "Performance:
/// the binaries' allocator").
#[global_allocator]
static GLOBAL: inquiry_model::cli::Allocator = inquiry_model::cli::Allocator;
