//! Builds the committed conformance vectors (`spec/vectors/*.json`) into
//! the binary, so `inquiry-model conform` runs them from
//! any directory: writes `$OUT_DIR/builtin_vectors.rs`, a list of
//! `(name, include_str!(file))` sorted by name. A vector file added or
//! removed reruns this script.
//!
//! Also sets `INQUIRY_MODEL_VERSION`, what `-V` prints: the package version,
//! followed, when built from a git checkout, by the commit (`0.1.0 (1a2b3c4d5e6f)`);
//! built from a tarball (no `.git`, or no `git`), the package version alone.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

/// `git` in the crate's folder: its trimmed output when it succeeds.
fn git(manifest: &str, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(manifest)
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_owned())
}

/// `-V`'s text, and the files whose change reruns this script (HEAD and
/// the branch it points at, so a new commit is seen).
fn version(manifest: &str) -> String {
    let package = std::env::var("CARGO_PKG_VERSION").expect("cargo sets CARGO_PKG_VERSION");
    let Some(commit) = git(manifest, &["rev-parse", "--short=12", "HEAD"]) else {
        return package;
    };
    let branch = git(manifest, &["symbolic-ref", "-q", "HEAD"]);
    for file in ["HEAD", "packed-refs"].into_iter().chain(branch.as_deref()) {
        // A path that does not exist would rerun the script on every build.
        if let Some(p) = git(manifest, &["rev-parse", "--git-path", file])
            .map(|p| Path::new(manifest).join(p))
            .filter(|p| p.exists())
        {
            println!("cargo:rerun-if-changed={}", p.display());
        }
    }
    format!("{package} ({commit})")
}

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let dir = Path::new(&manifest).join("spec/vectors");
    println!("cargo:rerun-if-changed=spec/vectors");
    println!("cargo:rerun-if-changed=build.rs");
    println!(
        "cargo:rustc-env=INQUIRY_MODEL_VERSION={}",
        version(&manifest)
    );
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| n.ends_with(".json"))
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
