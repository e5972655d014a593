//! Builds the committed conformance vectors (`spec/vectors/*.json`, not
//! `index.json`) into the binary, so `inquiry-model conform` runs them from
//! any directory: writes `$OUT_DIR/builtin_vectors.rs`, a list of
//! `(name, include_str!(file))` sorted by name. A vector file added or
//! removed reruns this script.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let dir = Path::new(&manifest).join("spec/vectors");
    println!("cargo:rerun-if-changed=spec/vectors");
    println!("cargo:rerun-if-changed=build.rs");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| n.ends_with(".json") && n != "index.json")
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let mut code = String::from(
        "/// The committed conformance vectors (`spec/vectors/`), built in:\n\
         /// `(name, JSON text)`, sorted by name.\n\
         pub const BUILTIN_VECTORS: &[(&str, &str)] = &[\n",
    );
    for n in &names {
        let path = dir.join(n);
        let stem = n.trim_end_matches(".json");
        writeln!(
            code,
            "    ({stem:?}, include_str!({:?})),",
            path.display().to_string()
        )
        .expect("writing to a String");
    }
    code.push_str("];\n");
    std::fs::write(Path::new(&out).join("builtin_vectors.rs"), code).expect("OUT_DIR is writable");
}
