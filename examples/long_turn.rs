//! Writes the stream of rule `PERF-TURN-MEMORY`: one turn of N answered
//! inquiry request/response pairs with distinct IDs (default 10^6), as JSON
//! Lines. Then measure the checker's peak memory with
//! `/usr/bin/time -v target/release/inquiry-model check OUT.jsonl`.
//!
//! ```sh
//! cargo run --release --example long_turn -- OUT.jsonl 1000000
//! ```

#[path = "../benches/support/shapes.rs"]
mod shapes;

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(out) = args.first() else {
        eprintln!("usage: long_turn OUT [PAIRS]");
        return ExitCode::from(2);
    };
    let pairs = match args.get(1).map(|s| s.parse::<usize>()) {
        None => 1_000_000,
        Some(Ok(n)) => n,
        Some(Err(_)) => {
            eprintln!("long_turn: PAIRS must be a whole number");
            return ExitCode::from(2);
        }
    };
    match shapes::write_long_turn(pairs, &PathBuf::from(out)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("long_turn: {e}");
            ExitCode::FAILURE
        }
    }
}
