//! How much of the streams the end-of-run memo misses is a prefix it has
//! already judged: the bound on what a stream oracle that resumes from a
//! judged prefix could save (`invariants::StreamMemo`).
//!
//! Runs every `stride`-th scenario of the small exploration scope as the
//! bench's model rows do (`benches/perf.rs`, `model_bars`), keeps the
//! streams met before under the same rules (the memo's hits), and for each
//! new one counts its longest prefix of events that an earlier new stream
//! under the same rules began with, the same prefix cut back to the last
//! turn start in it (a checker's state between turns holds no open turn),
//! and the prefix it shares with the new stream just before it.
//!
//! ```text
//! cargo run --release --example memo_prefixes -- 100
//! ```

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};

use inquiry_model::explore;
use inquiry_model::scenario::{self, RunOptions};
use inquiry_model::wire::EventKind;

fn main() {
    let stride: usize = match std::env::args().nth(1).map(|s| s.parse()) {
        None => 100,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => {
            eprintln!("usage: memo_prefixes [STRIDE]");
            std::process::exit(2);
        }
    };
    let scenarios = explore::scenarios(stride, 0, 0);
    let mut streams: HashSet<(String, Vec<String>)> = HashSet::new();
    let mut prefixes: HashSet<u64> = HashSet::new();
    let mut last: Vec<String> = Vec::new();
    let (mut misses, mut events, mut shared, mut shared_last) = (0usize, 0usize, 0usize, 0usize);
    let (mut bytes, mut shared_bytes) = (0usize, 0usize);
    let (mut shared_turns, mut many_turns) = (0usize, 0usize);
    for s in &scenarios {
        let trace = scenario::run_observed(s, RunOptions::default(), &mut |_, _| {})
            .expect("explored scenarios run");
        let rules = format!("{:?}", trace.rules);
        let texts: Vec<String> = trace
            .stream
            .iter()
            .map(|e| serde_json::to_string(e).expect("events serialize"))
            .collect();
        if !streams.insert((rules.clone(), texts.clone())) {
            continue;
        }
        misses += 1;
        let turns = trace
            .stream
            .iter()
            .filter(|e| matches!(e.kind, EventKind::TurnStart))
            .count();
        many_turns += usize::from(turns > 1);
        events += texts.len();
        bytes += texts.iter().map(String::len).sum::<usize>();
        let mut h = DefaultHasher::new();
        rules.hash(&mut h);
        let chain: Vec<u64> = texts
            .iter()
            .map(|t| {
                t.hash(&mut h);
                h.finish()
            })
            .collect();
        let known = chain.iter().take_while(|c| prefixes.contains(c)).count();
        shared += known;
        // The events before the last turn start within the known prefix
        // (the turn start itself opens the turn still to judge).
        shared_turns += trace.stream[..known]
            .iter()
            .rposition(|e| matches!(e.kind, EventKind::TurnStart))
            .unwrap_or(0);
        shared_bytes += texts[..known].iter().map(String::len).sum::<usize>();
        shared_last += last.iter().zip(&texts).take_while(|(a, b)| a == b).count();
        prefixes.extend(chain);
        last = texts;
    }
    let pct = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
    println!(
        "{} runs, {misses} new streams ({many_turns} of more than one turn): \
         {events} events ({bytes} bytes); \
         a prefix judged before: {shared} events ({:.1}%), {shared_bytes} bytes ({:.1}%); \
         the whole turns of it: {shared_turns} events ({:.1}%); \
         shared with the new stream just before: {shared_last} events ({:.1}%)",
        scenarios.len(),
        pct(shared, events),
        pct(shared_bytes, bytes),
        pct(shared_turns, events),
        pct(shared_last, events),
    );
}
