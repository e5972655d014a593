//! A lean library (LIB-LEAN-DEPENDENCIES): with `default-features = false` the
//! crate depends on serde, serde_json, indexmap, hashbrown and memchr only,
//! and builds. The CLI (clap) and the generators (proptest, arbitrary) are
//! behind the `cli` and `testkit` features.
//!
//! Runs cargo itself (`cargo tree`, `cargo check`), so a heavy dependency
//! that sneaks into the library's default-off build fails here, naming it.

use std::collections::BTreeSet;
use std::process::Command;

/// What a library user with `default-features = false` may depend on
/// directly: serde, serde_json, indexmap and memchr, and
/// hashbrown, which `stream::keys` uses directly and which is in the tree
/// through indexmap anyway (see `Cargo.toml`).
const LEAN: [&str; 5] = ["hashbrown", "indexmap", "memchr", "serde", "serde_json"];

fn cargo() -> Command {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

/// The direct normal dependencies `cargo tree` reports with `extra` flags.
fn direct_dependencies(extra: &[&str]) -> BTreeSet<String> {
    let out = cargo()
        .args([
            "tree", "-e", "normal", "--depth", "1", "--prefix", "depth", "--format", "{p}",
            "--locked",
        ])
        .args(extra)
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("utf-8")
        .lines()
        .filter_map(|l| l.strip_prefix('1'))
        .map(|l| l.split_whitespace().next().expect("a name").to_owned())
        .collect()
}

/// Rule: LIB-LEAN-DEPENDENCIES — without default features the direct
/// dependencies are exactly the lean set; with them, the CLI's and the
/// generators' are there too (so the parse above can see a heavy one).
#[test]
fn without_default_features_only_the_lean_set_is_a_dependency() {
    let lean = direct_dependencies(&["--no-default-features"]);
    let want: BTreeSet<String> = LEAN.iter().map(|s| (*s).to_owned()).collect();
    assert_eq!(lean, want, "direct dependencies without default features");
    let full = direct_dependencies(&[]);
    for heavy in ["clap", "proptest", "arbitrary"] {
        assert!(full.contains(heavy), "{heavy} missing from {full:?}");
    }
    let testkit = direct_dependencies(&["--no-default-features", "--features", "testkit"]);
    assert!(testkit.contains("proptest") && !testkit.contains("clap"));
}

/// Rule: LIB-LEAN-DEPENDENCIES — the library builds without default
/// features (its own target directory, so the check never waits on the
/// test run's build lock).
#[test]
fn the_library_builds_without_default_features() {
    let target = concat!(env!("CARGO_MANIFEST_DIR"), "/target/lean-library");
    let out = cargo()
        .args([
            "check",
            "--lib",
            "--no-default-features",
            "--locked",
            "--quiet",
            "--target-dir",
            target,
        ])
        .output()
        .expect("cargo check runs");
    assert!(
        out.status.success(),
        "cargo check --lib --no-default-features failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
