//! Writes a big stream for measurements: the streams of the folder
//! `INQUIRY_MODEL_REAL_STREAMS` names (or of the committed
//! `tests/corpus/jp-like/` when unset) concatenated until the file holds at
//! least the asked size.
//!
//! ```sh
//! cargo run --release --example gen_stream -- OUT.json 100          # 100 MB pretty array
//! cargo run --release --example gen_stream -- OUT.jsonl 100 jsonl   # 100 MB JSON Lines
//! ```
//!
//! Then e.g. `perf record target/release/inquiry-model check OUT.json`.

#[path = "../benches/support/corpus.rs"]
mod corpus;

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(out), Some(mb)) = (args.first(), args.get(1)) else {
        eprintln!("usage: gen_stream OUT MEGABYTES [array|jsonl]");
        return ExitCode::from(2);
    };
    let Ok(mb) = mb.parse::<u64>() else {
        eprintln!("gen_stream: MEGABYTES must be a whole number, got `{mb}`");
        return ExitCode::from(2);
    };
    let layout = match args.get(2).map(String::as_str) {
        None | Some("array") => corpus::Layout::Array,
        Some("jsonl") => corpus::Layout::JsonLines,
        Some(other) => {
            eprintln!("gen_stream: layout is `array` or `jsonl`, got `{other}`");
            return ExitCode::from(2);
        }
    };
    let result = corpus::fixture_events().and_then(|events| {
        corpus::write_stream_file(&events, mb << 20, layout, &PathBuf::from(out))
    });
    match result {
        Ok(w) => {
            println!("{out}: {} bytes, {} events", w.bytes, w.events);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("gen_stream: {e}");
            ExitCode::FAILURE
        }
    }
}
