//! `src/model/` holds the normative model and nothing else, and the scenario
//! driver knows no wrong implementation (spec/DECISIONS.md "Lifecycle:
//! the model does no I/O, and carries no tooling"). Each check is a scanner
//! run over the sources, shown able to fail on a planted string.

use std::path::{Path, PathBuf};

use inquiry_model::scenario::RunOptions;
use inquiry_model::testkit::Faults;

/// What the model folder must not hold: a feature switch (the model is the
/// same under every build), unsafe code, state keys and hashers (the
/// explorer's), in that order.
const NOT_IN_MODEL: &[&str] = &["feature = \"", "unsafe", "state_key", "Hasher"];

/// The forbidden strings `text` holds, each once, in [`NOT_IN_MODEL`]'s
/// order.
fn model_violations(text: &str) -> Vec<&'static str> {
    NOT_IN_MODEL
        .iter()
        .copied()
        .filter(|s| text.contains(s))
        .collect()
}

/// How many times `text` names a fault: the word `fault` in any case,
/// but inside `default`.
fn fault_mentions(text: &str) -> usize {
    let lower = text.to_lowercase();
    lower
        .match_indices("fault")
        .filter(|(at, _)| !lower[..*at].ends_with("de"))
        .count()
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `.rs` files under `dir`, recursively, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("reads the folder") {
            let path = entry.expect("reads an entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn the_model_scanner_finds_each_planted_string() {
    assert_eq!(
        model_violations("#[cfg(feature = \"testkit\")]\nfn f() {}"),
        ["feature = \""]
    );
    assert_eq!(
        model_violations("#[cfg(all(test, feature = \"testkit\"))]\nmod t;"),
        ["feature = \""],
        "a feature inside a compound cfg is a feature switch too"
    );
    assert_eq!(model_violations("unsafe { f() }"), ["unsafe"]);
    assert_eq!(
        model_violations("pub fn state_key<H: Hasher>(&self, h: &mut H) {}"),
        ["state_key", "Hasher"]
    );
    assert_eq!(
        model_violations("#[derive(Hash)]\nstruct S;"),
        [] as [&str; 0],
        "deriving `Hash` for a map key is not hashing a state"
    );
}

#[test]
fn the_model_folder_holds_no_feature_switch_unsafe_code_or_state_key() {
    let files = rust_files(&root().join("src/model"));
    assert!(files.len() >= 10, "the model's files are found: {files:?}");
    let found: Vec<(String, Vec<&str>)> = files
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).expect("reads the file");
            (p.display().to_string(), model_violations(&text))
        })
        .filter(|(_, v)| !v.is_empty())
        .collect();
    assert_eq!(found, [] as [(String, Vec<&str>); 0]);
}

#[test]
fn the_fault_scanner_counts_faults_but_not_defaults() {
    assert_eq!(fault_mentions("#[serde(default)]\nDefault::default()"), 0);
    assert_eq!(fault_mentions("options.faults.config_sets_source"), 1);
    assert_eq!(fault_mentions("// Fault: a default leaks; FaultState"), 2);
}

#[test]
fn the_scenario_driver_names_no_fault() {
    let mut files = vec![root().join("src/scenario.rs")];
    files.extend(rust_files(&root().join("src/scenario")));
    assert!(files.len() >= 4, "the driver's files are found: {files:?}");
    let named: Vec<(String, usize)> = files
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).expect("reads the file");
            (p.display().to_string(), fault_mentions(&text))
        })
        .filter(|(_, n)| *n > 0)
        .collect();
    assert_eq!(named, [] as [(String, usize); 0]);
}

/// The default run options carry no step function, so a default run takes
/// the coordinator's own step; no fault on is the same as the default.
#[test]
fn default_options_take_the_coordinators_own_step() {
    assert_eq!(
        format!("{:?}", RunOptions::default()),
        "RunOptions { step: None }"
    );
    assert_eq!(
        format!("{:?}", RunOptions::from(Faults::default())),
        "RunOptions { step: None }"
    );
    let faulty = RunOptions::from(Faults {
        config_sets_source: true,
        ..Faults::default()
    });
    assert!(
        format!("{faulty:?}").contains("config_sets_source: true"),
        "a fault is a step function: {faulty:?}"
    );
}
