//! Replays one fuzz target's committed seeds (`fuzz/corpus/<target>/`)
//! through its entry, for profiling:
//!
//! ```text
//! cargo build --release --example fuzz_replay
//! valgrind --tool=callgrind --callgrind-out-file=/tmp/x.cg \
//!     target/release/examples/fuzz_replay scenario 20
//! ```
//!
//! Arguments: the target's name, the number of passes over its seeds
//! (default 1), and `every` to replay `Target::replay` (every option on
//! every input) instead of `Target::entry`. `FUZZ_REPLAY_DIR` replays
//! another folder (a corpus libFuzzer grew) instead of the committed seeds.
//! Prints the number of executions, so instructions per execution is the
//! total divided by it. Run from the crate root.

use std::fs;
use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = args
        .first()
        .ok_or("usage: fuzz_replay <target> [passes] [every]")?;
    let passes: usize = match args.get(1) {
        Some(p) => p.parse()?,
        None => 1,
    };
    let every = args.get(2).is_some_and(|a| a == "every");
    let target =
        inquiry_model::fuzzing::target(name).ok_or_else(|| format!("no fuzz target `{name}`"))?;
    let entry = if every { target.replay } else { target.entry };
    let dir = match std::env::var_os("FUZZ_REPLAY_DIR") {
        Some(d) => d.into(),
        None => Path::new("fuzz/corpus").join(name),
    };
    let mut files: Vec<_> = fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    files.sort();
    let inputs: Vec<Vec<u8>> = files.iter().map(fs::read).collect::<Result<_, _>>()?;
    for _ in 0..passes {
        for input in &inputs {
            entry(std::hint::black_box(input));
        }
    }
    println!("{} executions of `{name}`", passes * inputs.len());
    Ok(())
}
