//! The ClusterFuzzLite / OSS-Fuzz build script (`.clusterfuzzlite/build.sh`)
//! hands every cargo-fuzz target to the engine in the layout it expects.
//!
//! The real build needs the builder image (nightly Rust, cargo-fuzz,
//! sanitizers) and cannot run here; this test runs the script's own logic
//! against a stand-in `cargo` that "builds" one executable per target, in a
//! copy of `fuzz/` under a temporary `$SRC`, and checks `$OUT`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let path = entry.path();
        let dest = to.join(entry.file_name());
        if path.is_dir() {
            if entry.file_name() == "target" || entry.file_name() == "work" {
                continue;
            }
            copy_dir(&path, &dest);
        } else {
            std::fs::copy(&path, &dest).unwrap();
        }
    }
}

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn targets(root: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root.join("fuzz/fuzz_targets"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Runs build.sh with a stand-in cargo; `skip` names a target the stand-in
/// does not build. Returns (exit status, $OUT).
fn run_build(name: &str, skip: Option<&str>) -> (bool, PathBuf, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = std::env::temp_dir().join(format!(
        "inquiry-model-cflite-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&tmp);
    let src = tmp.join("src/inquiry-model");
    copy_dir(&root.join("fuzz"), &src.join("fuzz"));
    copy_dir(
        &root.join(".clusterfuzzlite"),
        &src.join(".clusterfuzzlite"),
    );
    let out = tmp.join("out");
    let bin = tmp.join("bin");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::create_dir_all(&bin).unwrap();
    let stub = format!(
        r#"#!/bin/bash
[ "$1 $2 $3 $4" = "fuzz build -O --debug-assertions" ] || {{ echo "stand-in cargo: unexpected $*" >&2; exit 3; }}
d=fuzz/target/x86_64-unknown-linux-gnu/release; mkdir -p $d
for s in fuzz/fuzz_targets/*.rs; do t=$(basename $s .rs); [ "$t" = "{}" ] && continue; printf '#!/bin/sh\n' > $d/$t; chmod +x $d/$t; done
"#,
        skip.unwrap_or("")
    );
    std::fs::write(bin.join("cargo"), stub).unwrap();
    Command::new("chmod")
        .arg("+x")
        .arg(bin.join("cargo"))
        .status()
        .unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let o = Command::new("bash")
        .arg(src.join(".clusterfuzzlite/build.sh"))
        .env("PATH", path)
        .env("SRC", tmp.join("src"))
        .env("OUT", &out)
        .output()
        .unwrap();
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.success(), out, log)
}

/// Rule: FUZZ-CLUSTERFUZZLITE — build.sh puts, for every target of
/// `fuzz/fuzz_targets/`, its binary, its dictionary and a zip of its
/// committed seeds (every seed file) in `$OUT`; a target the build did not
/// produce fails the script.
#[test]
fn build_script_hands_every_target_to_the_engine() {
    if !have("zip") || !have("unzip") {
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            b"\nskipped: clusterfuzzlite::build_script_hands_every_target_to_the_engine needs zip and unzip\n",
        );
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let names = targets(root);
    assert!(names.len() >= 13, "{names:?}");
    let (ok, out, log) = run_build("ok", None);
    assert!(ok, "{log}");
    for t in &names {
        assert!(out.join(t).is_file(), "{t}: no binary\n{log}");
        let dict = std::fs::read(out.join(format!("{t}.dict"))).unwrap();
        assert_eq!(dict, std::fs::read(root.join("fuzz/inquiry.dict")).unwrap());
        let seeds = root.join("fuzz/corpus").join(t);
        let n_seeds = std::fs::read_dir(&seeds).map_or(0, |d| d.count());
        let zip = out.join(format!("{t}_seed_corpus.zip"));
        if n_seeds == 0 {
            continue;
        }
        let listing = Command::new("unzip").arg("-Z1").arg(&zip).output().unwrap();
        assert!(listing.status.success(), "{t}: {}", zip.display());
        let files = String::from_utf8_lossy(&listing.stdout)
            .lines()
            .filter(|l| !l.ends_with('/'))
            .count();
        assert_eq!(files, n_seeds, "{t}: every seed zipped");
    }
    let (ok, _, log) = run_build("missing", Some(&names[0]));
    assert!(
        !ok,
        "a target the build did not produce must fail the script"
    );
    assert!(log.contains(&names[0]), "{log}");
    let _ = std::fs::remove_dir_all(out.parent().unwrap());
}
