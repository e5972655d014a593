//! Writes the seed corpus of the fuzz targets (`make fuzz-corpus`).
//!
//! For every target of `inquiry_model::fuzzing::TARGETS` it replaces the
//! `seed-*` files of `fuzz/corpus/<target>/` with
//! `inquiry_model::fuzzing::seeds::generated()` and the `example-*` files
//! with seeds built from the streams in `spec/examples/`. Files with other
//! names (`crash-*`, `regression-*`: inputs that once found a bug) are left
//! alone. Run from the crate root.

use std::fs;
use std::path::Path;

use inquiry_model::fuzzing::{self, seeds};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut examples: Vec<(String, Vec<u8>)> = Vec::new();
    let mut paths: Vec<_> = fs::read_dir("spec/examples")?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    paths.sort();
    for path in paths.into_iter().filter(|p| p.is_file()) {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        examples.push((name, fs::read(&path)?));
    }
    let all: Vec<seeds::Seed> = seeds::generated()
        .into_iter()
        .chain(seeds::from_examples(&examples))
        .collect();
    for t in fuzzing::TARGETS {
        let dir = Path::new("fuzz/corpus").join(t.name);
        fs::create_dir_all(&dir)?;
        for entry in fs::read_dir(&dir)? {
            let path = entry?.path();
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            if name.is_some_and(|n| n.starts_with("seed-") || n.starts_with("example-")) {
                fs::remove_file(&path)?;
            }
        }
        let mine: Vec<&seeds::Seed> = all.iter().filter(|s| s.target == t.name).collect();
        for s in &mine {
            fs::write(dir.join(&s.name), &s.bytes)?;
        }
        println!("fuzz/corpus/{}: {} seeds", t.name, mine.len());
    }
    Ok(())
}
