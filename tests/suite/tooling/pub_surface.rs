//! The public surface stays small (rule LIB-PUB-SURFACE): `scripts/pub-surface.sh`
//! counts the `pub` item and field lines of `src/`, default and lean (the
//! files a build without default features compiles), and fails above the
//! bar it is given.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The bar on `pub` item lines over the whole of `src/`: the count today,
/// so the surface can only shrink (500 is the bar; 300 lean is the aim).
const MAX_ITEMS: usize = 472;

/// Runs the script on `src` with `max` as the bar: its exit code, its four
/// counts by name, and its stderr.
fn surface(src: &Path, max: usize) -> (i32, Vec<(String, usize)>, String) {
    let out = Command::new("bash")
        .arg(root().join("scripts/pub-surface.sh"))
        .arg(src)
        .env("PUB_SURFACE_MAX", max.to_string())
        .env_remove("PUB_SURFACE_LEAN_FILES")
        .output()
        .unwrap();
    let counts = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (name, n) = l.split_once(' ').unwrap();
            (name.to_string(), n.parse().unwrap())
        })
        .collect();
    (
        out.status.code().unwrap_or(-1),
        counts,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn count(counts: &[(String, usize)], name: &str) -> usize {
    counts
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no {name} in {counts:?}"))
        .1
}

/// A scratch source folder under the target folder, emptied first.
fn scratch(name: &str) -> PathBuf {
    let dir = root().join("target/pub-surface-test").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Rule: LIB-PUB-SURFACE — the crate has at most `MAX_ITEMS` `pub` item lines, and
/// the lean build's files are a part of them.
#[test]
fn the_public_surface_stays_under_the_bar() {
    let (code, counts, stderr) = surface(&root().join("src"), MAX_ITEMS);
    assert_eq!(code, 0, "{counts:?} {stderr}");
    let items = count(&counts, "items");
    assert!(items <= MAX_ITEMS, "{items} pub items");
    assert!(count(&counts, "lean-items") <= items, "{counts:?}");
    assert!(
        count(&counts, "lean-fields") <= count(&counts, "fields"),
        "{counts:?}"
    );
}

/// Rule: LIB-PUB-SURFACE — the bar can fail: the real `src/` against a bar
/// one below its own count, and a folder of `MAX_ITEMS + 1` `pub fn` lines.
#[test]
fn the_bar_fails_a_surface_above_it() {
    let (_, counts, _) = surface(&root().join("src"), MAX_ITEMS);
    let items = count(&counts, "items");
    let (code, _, stderr) = surface(&root().join("src"), items - 1);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains(&format!("{items} pub items")), "{stderr}");

    let dir = scratch("wide");
    let lib: String = (0..=MAX_ITEMS)
        .map(|i| format!("pub fn f{i}() {{}}\n"))
        .collect();
    std::fs::write(dir.join("lib.rs"), lib).unwrap();
    let (code, counts, stderr) = surface(&dir, MAX_ITEMS);
    assert_eq!(code, 1, "{counts:?} {stderr}");
    assert_eq!(count(&counts, "items"), MAX_ITEMS + 1);
}

/// Rule: LIB-PUB-SURFACE — the lean counts leave out a module gated on
/// `testkit`, `cli` or `test` and keep an ungated one, with its own
/// children; `pub(crate)` lines are not counted.
#[test]
fn the_lean_count_leaves_out_gated_modules() {
    let dir = scratch("gated");
    std::fs::write(
        dir.join("lib.rs"),
        "pub mod open;\n#[cfg(feature = \"testkit\")]\n#[doc(hidden)]\npub mod kit;\n\
         #[cfg(feature = \"cli\")]\npub mod cli;\n#[cfg(test)]\nmod tests;\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("open")).unwrap();
    std::fs::write(
        dir.join("open.rs"),
        "mod inner;\npub(crate) fn hidden() {}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("open/inner.rs"),
        "pub struct S {\n    pub a: u8,\n    pub(crate) b: u8,\n}\n",
    )
    .unwrap();
    for gated in ["kit", "cli", "tests"] {
        std::fs::write(
            dir.join(format!("{gated}.rs")),
            "pub fn g() {}\npub struct T {\n    pub x: u8,\n}\n",
        )
        .unwrap();
    }
    let (code, counts, stderr) = surface(&dir, MAX_ITEMS);
    assert_eq!(code, 0, "{stderr}");
    // lib.rs: open, kit, cli (3); inner: S (1); the three gated files: 2 each.
    assert_eq!(count(&counts, "items"), 3 + 1 + 6, "{counts:?}");
    assert_eq!(count(&counts, "fields"), 1 + 3, "{counts:?}");
    assert_eq!(count(&counts, "lean-items"), 3 + 1, "{counts:?}");
    assert_eq!(count(&counts, "lean-fields"), 1, "{counts:?}");
}
