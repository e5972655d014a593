//! The CI workflows keep what a CI engineer relies on: the nightly fuzz job
//! grows its corpus and reuses its builds from night to night, installs the
//! tools its cache keys name, keeps its crashes when it runs out of time, and
//! the main workflow's build cache is saved again after a source change.
//! (Their shape against GitHub's workflow schema: `make workflow-check`.)

fn workflow(name: &str) -> String {
    let path = format!("{}/.github/workflows/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The value of `key:` at the top of `text` (an `env:` entry), unquoted.
fn env_value(text: &str, key: &str) -> String {
    text.lines()
        .find_map(|l| l.trim().strip_prefix(&format!("{key}:")))
        .unwrap_or_else(|| panic!("no {key}"))
        .trim()
        .trim_matches('"')
        .to_owned()
}

/// The nightly fuzz job: a dated nightly and a pinned cargo-fuzz, each used
/// where it is installed and named by the cache key; `fuzz/target` and the
/// corpus (`fuzz/work`) cached, the corpus saved whatever the outcome; the
/// crash upload also after a cancellation (a run past its time limit).
#[test]
fn the_fuzz_job_pins_its_tools_and_caches_its_corpus() {
    let w = workflow("fuzz.yml");
    let nightly = env_value(&w, "FUZZ_NIGHTLY");
    assert!(
        nightly.len() == "nightly-2026-05-19".len()
            && nightly.starts_with("nightly-20")
            && nightly[8..].chars().all(|c| c.is_ascii_digit() || c == '-'),
        "not a dated nightly: {nightly}"
    );
    let version = env_value(&w, "CARGO_FUZZ_VERSION");
    assert_eq!(
        version.split('.').count(),
        3,
        "not an exact version: {version}"
    );
    assert!(w.contains("rustup toolchain install \"$FUZZ_NIGHTLY\""));
    assert!(w.contains("FUZZ_TOOLCHAIN=\"+$FUZZ_NIGHTLY\""));
    assert!(w.contains("cargo install cargo-fuzz --version \"$CARGO_FUZZ_VERSION\" --locked"));
    assert!(w.contains("key: cargo-fuzz-${{ runner.os }}-${{ env.CARGO_FUZZ_VERSION }}"));
    assert!(!w.contains("install nightly "), "an unpinned nightly");
    assert!(w.contains("path: fuzz/target/"));
    assert!(
        w.contains("uses: actions/cache/restore@v4\n        with:\n          path: fuzz/work/")
    );
    let save = w
        .find("uses: actions/cache/save@v4")
        .expect("the corpus is saved");
    let save_step = &w[w[..save].rfind("- name:").expect("a step")..save];
    assert!(save_step.contains("if: always()"), "{save_step}");
    let upload = w.find("uses: actions/upload-artifact").expect("an upload");
    let upload_step = &w[w[..upload].rfind("- name:").expect("a step")..upload];
    assert!(
        upload_step.contains("if: failure() || cancelled()"),
        "{upload_step}"
    );
    // The longest run a person may ask for fits the time limit.
    let minutes: u64 = env_value(&w, "timeout-minutes").parse().expect("minutes");
    let targets = std::fs::read_dir(format!("{}/fuzz/fuzz_targets", env!("CARGO_MANIFEST_DIR")))
        .expect("fuzz targets")
        .count() as u64;
    assert!(
        w.contains("-gt 1200 ]"),
        "the longest run is refused past 1200 s"
    );
    assert!(
        targets * 1200 / 60 + 30 <= minutes,
        "{targets} targets x 1200 s exceed {minutes} min"
    );
}

/// ci.yml's caches are keyed on the sources as well as Cargo.lock, and
/// restore the newest cache of the same lock: a key written once is then
/// written again after every source change.
#[test]
fn the_ci_build_cache_follows_the_sources() {
    let w = workflow("ci.yml");
    let keys: Vec<&str> = w
        .lines()
        .filter_map(|l| l.trim().strip_prefix("key: "))
        .collect();
    assert_eq!(keys.len(), 2, "{keys:?}");
    for key in keys {
        assert!(key.contains("hashFiles('Cargo.lock')"), "{key}");
        assert!(
            key.contains("'src/**'") && key.contains("'tests/**'"),
            "{key}"
        );
    }
    assert!(w.contains("make workflow-check"));
    // The corpus replay is make test's (ci.yml), not a second job's.
    assert!(!workflow("fuzz.yml").contains("fuzz_corpus_replay\n"));
}
