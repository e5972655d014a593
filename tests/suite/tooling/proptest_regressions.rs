//! Every committed proptest regression file is one proptest replays: its
//! seeds run before any new case only if the file sits where proptest looks
//! for the test's source file. With the default `FileFailurePersistence::
//! SourceParallel("proptest-regressions")`, proptest walks up from the test's
//! source file to the first folder holding `lib.rs` or `main.rs` (`src/`,
//! `tests/suite/`), and reads `proptest-regressions/<path below it>.txt`
//! beside that folder; where it finds no such folder it reads
//! `<file>.proptest-regressions` next to the source. A file anywhere else —
//! left behind when its test moved — is never read, so its seeds silently stop
//! guarding anything (decision "Tests: proptest regressions sit where proptest
//! reads them" in `docs/decisions/tests.md`).

use std::path::{Path, PathBuf};

/// Every regression file under `dir`, outside build output.
fn regression_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if p.is_dir() {
            if !matches!(name, "target" | ".git") {
                regression_files(&p, out);
            }
        } else if name.ends_with(".proptest-regressions")
            || (name.ends_with(".txt")
                && p.ancestors()
                    .any(|a| a.file_name().is_some_and(|n| n == "proptest-regressions")))
        {
            out.push(p);
        }
    }
}

/// The source files proptest would read `file` for: for
/// `D/proptest-regressions/R.txt`, `D/C/R.rs` for each folder `C` of `D`
/// that holds `lib.rs` or `main.rs`; for `F.proptest-regressions`, `F.rs`
/// when no folder above it holds `lib.rs` or `main.rs` (else proptest reads
/// the parallel tree instead).
fn sources_for(root: &Path, file: &Path) -> Vec<PathBuf> {
    let crate_root = |d: &Path| d.join("lib.rs").is_file() || d.join("main.rs").is_file();
    let rel = file.strip_prefix(root).unwrap_or(file);
    if let Some(stem) = file
        .to_str()
        .and_then(|s| s.strip_suffix(".proptest-regressions"))
    {
        let source = PathBuf::from(format!("{stem}.rs"));
        let parallel = source
            .ancestors()
            .skip(1)
            .take_while(|a| a.starts_with(root))
            .any(crate_root);
        return if parallel { Vec::new() } else { vec![source] };
    }
    let comps: Vec<_> = rel.components().collect();
    let Some(at) = comps
        .iter()
        .position(|c| c.as_os_str() == "proptest-regressions")
    else {
        return Vec::new();
    };
    let base: PathBuf = comps[..at].iter().collect();
    let below: PathBuf = comps[at + 1..].iter().collect();
    let Ok(children) = std::fs::read_dir(root.join(&base)) else {
        return Vec::new();
    };
    children
        .flatten()
        .map(|c| c.path())
        .filter(|c| c.is_dir() && crate_root(c))
        .map(|c| c.join(&below).with_extension("rs"))
        .collect()
}

/// The regression files under `root` whose test is gone: no source file
/// proptest would read them for exists, or none that holds a `proptest!`
/// block (the only tests whose failures proptest persists).
fn orphans(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    regression_files(root, &mut files);
    files.sort();
    files
        .iter()
        .filter(|f| {
            !sources_for(root, f)
                .iter()
                .any(|s| std::fs::read_to_string(s).is_ok_and(|text| text.contains("proptest!")))
        })
        .map(|f| f.strip_prefix(root).unwrap_or(f).display().to_string())
        .collect()
}

/// No regression file in the repository is orphaned: each is read by a test
/// that still holds a property.
#[test]
fn every_proptest_regression_file_is_read_by_a_property() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    regression_files(root, &mut files);
    assert!(
        files.len() >= 10,
        "only {} regression files found",
        files.len()
    );
    let orphaned = orphans(root);
    assert!(
        orphaned.is_empty(),
        "regression files no test reads (move each to proptest-regressions/<path>.txt beside \
         the crate root of its test, or delete it if its property is gone):\n{}",
        orphaned.join("\n")
    );
}

/// The check finds planted orphans of each kind and passes their replayed
/// counterparts: a file in the old per-test layout under a crate root, a
/// parallel file whose source file is gone, and one whose source holds no
/// property.
#[test]
fn planted_orphan_regression_files_are_found() {
    let root =
        std::env::temp_dir().join(format!("inquiry-model-regressions-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let write = |rel: &str, text: &str| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    let property = "proptest! { #[test] fn p(x in 0u8..) { prop_assert!(x >= 0); } }";
    write("src/lib.rs", "");
    write("src/a.rs", property);
    write("src/plain.rs", "fn f() {}");
    write("tests/suite/main.rs", "");
    write("tests/suite/area/t.rs", property);
    write("tests/lone.rs", property);
    // Replayed: the parallel tree of each crate root, and a test file with
    // no crate root above it.
    write("proptest-regressions/a.txt", "cc 00\n");
    write("tests/proptest-regressions/area/t.txt", "cc 00\n");
    write("tests/lone.proptest-regressions", "cc 00\n");
    assert_eq!(orphans(&root), Vec::<String>::new());
    // Orphans.
    write("tests/suite/area/t.proptest-regressions", "cc 00\n");
    write("proptest-regressions/gone.txt", "cc 00\n");
    write("proptest-regressions/plain.txt", "cc 00\n");
    write("tests/proptest-regressions/other/t.txt", "cc 00\n");
    let found = orphans(&root);
    let _ = std::fs::remove_dir_all(&root);
    assert_eq!(
        found,
        vec![
            "proptest-regressions/gone.txt",
            "proptest-regressions/plain.txt",
            "tests/proptest-regressions/other/t.txt",
            "tests/suite/area/t.proptest-regressions",
        ]
    );
}
