//! Writes the committed realistic corpus (`tests/corpus/jp-like/`): streams
//! in the on-disk shape of real pre-082 `jp` conversations, generated from
//! `inquiry_model::generate::corpus::COMMITTED_SEED`.
//!
//! ```sh
//! make corpus                                         # rewrite the committed files
//! cargo run --example jp_corpus -- OUT_DIR [SEED]     # another folder or seed
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use inquiry_model::generate::corpus;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(out) = args.first() else {
        eprintln!("usage: jp_corpus OUT_DIR [SEED]");
        return ExitCode::from(2);
    };
    let seed = match args.get(1).map(|s| s.parse::<u64>()) {
        None => corpus::COMMITTED_SEED,
        Some(Ok(seed)) => seed,
        Some(Err(e)) => {
            eprintln!("jp_corpus: SEED must be a whole number: {e}");
            return ExitCode::from(2);
        }
    };
    let dir = PathBuf::from(out);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("jp_corpus: {}: {e}", dir.display());
        return ExitCode::from(2);
    }
    for file in corpus::jp_like(seed) {
        let path = dir.join(&file.name);
        if let Err(e) = std::fs::write(&path, &file.bytes) {
            eprintln!("jp_corpus: {}: {e}", path.display());
            return ExitCode::from(2);
        }
        println!("{} ({} bytes)", path.display(), file.bytes.len());
    }
    ExitCode::SUCCESS
}
