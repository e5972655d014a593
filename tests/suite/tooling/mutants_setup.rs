//! `make mutants` (rule MUT-SELECTION): the test selection names real files and test
//! targets, `scripts/mutants.sh` passes the selection to cargo-mutants and
//! re-runs every survivor against the whole suite, and the table merges
//! outcome files as `docs/mutants.md` says. cargo-mutants itself is too slow
//! to run in `make test`; the script runs here against a stand-in `cargo`.

#[path = "../../../examples/mutants_table.rs"]
mod mutants_table;

use mutants_table::{
    Counts, Fate, below, counts, merge, module, parse_equivalents, parse_outcomes, read_outcomes,
    table, wrongly_listed,
};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Whether a file of `src/` ends with the path `tail` (`parent/name.rs`).
fn src_file_exists(tail: &str) -> bool {
    let mut stack = vec![root().join("src")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.ends_with(tail) {
                return true;
            }
        }
    }
    false
}

/// `(path, cargo test arguments)` of `spec/mutants-tests.tsv`.
fn selection() -> Vec<(String, Vec<String>)> {
    let text = std::fs::read_to_string(root().join("spec/mutants-tests.tsv")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (path, args) = l
                .split_once('\t')
                .unwrap_or_else(|| panic!("no tab in {l:?}"));
            (
                path.to_owned(),
                args.split_whitespace().map(str::to_owned).collect(),
            )
        })
        .collect()
}

/// Rule: MUT-SELECTION — every path of the selection exists, it tests the
/// library and the integration-test binary, and every filter after `--`
/// names a library module or a file of that binary (`area::file::`), so a
/// moved module or renamed test cannot silently drop out of the first pass.
#[test]
fn the_selection_names_existing_files_and_tests() {
    let rows = selection();
    assert!(rows.len() >= 10, "{rows:?}");
    for (path, args) in &rows {
        assert!(root().join(path).exists(), "{path} does not exist");
        let dashes = args.iter().position(|a| a == "--");
        let (cargo_args, filters) = args.split_at(dashes.unwrap_or(args.len()));
        assert_eq!(cargo_args, ["--lib", "--test", "suite"], "{path}");
        assert!(filters.len() > 1, "{path}: no filter");
        for filter in &filters[1..] {
            let parts: Vec<&str> = filter
                .strip_suffix("::")
                .unwrap_or_else(|| panic!("{path}: filter {filter} does not end in ::"))
                .split("::")
                .collect();
            let exists = match parts[..] {
                [module] => ["src", "src/model", "src/review"].iter().any(|dir| {
                    root().join(format!("{dir}/{module}.rs")).exists()
                        || root().join(format!("{dir}/{module}")).is_dir()
                }),
                // A file of the integration-test binary, or a unit-test
                // module in a file of its own beside the library file it
                // tests (`parent::name_tests::`).
                [area, file] => {
                    root()
                        .join(format!("tests/suite/{area}/{file}.rs"))
                        .exists()
                        || src_file_exists(&format!("{area}/{file}.rs"))
                }
                _ => false,
            };
            assert!(exists, "{path}: the filter {filter} names no module");
        }
    }
    // The modules the spec lives in are all covered.
    let covered = |f: &str| rows.iter().any(|(p, _)| f.starts_with(p.as_str()));
    for f in [
        "src/model/routing.rs",
        "src/profile.rs",
        "src/model/coordinator.rs",
        "src/model/inquiry.rs",
        "src/model/ask_user.rs",
        "src/model/config.rs",
        "src/wire.rs",
    ] {
        assert!(covered(f), "{f} has no selection");
    }
}

/// A real `outcomes.json` shape (cargo-mutants 27): the baseline, then one
/// outcome per mutant with its `summary`.
fn outcomes(entries: &[(&str, &str, &str)]) -> String {
    let mut list = vec![serde_json::json!({"scenario": "Baseline", "summary": "Success"})];
    for (file, name, summary) in entries {
        list.push(serde_json::json!({
            "scenario": {"Mutant": {"name": name, "file": file, "package": "inquiry-model"}},
            "summary": summary,
        }));
    }
    serde_json::json!({"outcomes": list, "total_mutants": entries.len()}).to_string()
}

/// Rule: MUT-SCORE — a survivor of the selective pass that the whole suite
/// catches counts as caught; unviable mutants are left out of the score;
/// a timeout counts as detected.
#[test]
fn the_table_merges_passes_and_scores_viable_mutants() {
    let first = outcomes(&[
        (
            "src/model/routing.rs",
            "src/model/routing.rs:1:1: a",
            "CaughtMutant",
        ),
        (
            "src/model/routing.rs",
            "src/model/routing.rs:2:1: b",
            "MissedMutant",
        ),
        (
            "src/model/routing.rs",
            "src/model/routing.rs:3:1: c",
            "MissedMutant",
        ),
        (
            "src/model/routing.rs",
            "src/model/routing.rs:4:1: d",
            "Unviable",
        ),
        ("src/check/rules.rs", "src/check/rules.rs:5:1: e", "Timeout"),
    ]);
    let second = outcomes(&[
        (
            "src/model/routing.rs",
            "src/model/routing.rs:2:1: b",
            "CaughtMutant",
        ),
        (
            "src/model/routing.rs",
            "src/model/routing.rs:3:1: c",
            "MissedMutant",
        ),
    ]);
    let mut all = parse_outcomes(&first).unwrap();
    all.extend(parse_outcomes(&second).unwrap());
    let merged = merge(all);
    assert_eq!(merged["src/model/routing.rs:2:1: b"].fate, Fate::Caught);
    assert_eq!(merged["src/model/routing.rs:3:1: c"].fate, Fate::Missed);
    let c = counts(&merged, &BTreeSet::new());
    assert_eq!(
        c["model/routing"],
        Counts {
            caught: 2,
            missed: 1,
            unviable: 1,
            timeout: 0,
            equivalent: 0,
        }
    );
    // 2 of 3 viable.
    assert!((c["model/routing"].score().unwrap() - 200.0 / 3.0).abs() < 1e-9);
    assert_eq!(c["check/rules"].score(), Some(100.0));
    let t = table(&c);
    assert!(
        t.contains("| model/routing | 2 | 1 | 0 | 1 | 0 | 66.7% |"),
        "{t}"
    );
    assert!(
        t.contains("| **total** | 2 | 1 | 0 | 1 | 1 | 75.0% |"),
        "{t}"
    );
    // The CI gate: routing is below 95%, check/rules is not.
    assert_eq!(below(&c, Some(95.0)), ["model/routing"]);
    assert!(below(&c, Some(50.0)).is_empty());
    assert!(below(&c, None).is_empty());
    // A merge the other way round (whole suite first) gives the same.
    let mut rev = parse_outcomes(&second).unwrap();
    rev.extend(parse_outcomes(&first).unwrap());
    assert_eq!(merge(rev), merged);
}

/// Rule: MUT-SCORE — the workflow's `table` job reads what
/// `actions/download-artifact` lays out: one folder per shard artifact
/// (`mutants-shard-K`), holding `make mutants`' groups, first pass and
/// whole-suite pass. Every outcome file is found at that depth, and a
/// mutant the first pass missed in one shard but the second pass caught
/// counts as caught.
#[test]
fn the_table_job_finds_every_shard_of_a_downloaded_matrix() {
    let tmp = std::env::temp_dir().join(format!("mutants-shards-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    // (folder under shards/, mutant, outcome): the groups of three shards;
    // shard 1's survivor is caught by its whole-suite pass.
    for (folder, name, summary) in [
        (
            "mutants-shard-0/routing",
            "src/model/routing.rs:1:1: a",
            "CaughtMutant",
        ),
        (
            "mutants-shard-1/routing",
            "src/model/routing.rs:2:1: b",
            "MissedMutant",
        ),
        (
            "mutants-shard-1/routing-whole",
            "src/model/routing.rs:2:1: b",
            "CaughtMutant",
        ),
        (
            "mutants-shard-7/check-and-4-more",
            "src/check/rules.rs:3:1: c",
            "Timeout",
        ),
    ] {
        let file = name.split(':').next().unwrap();
        let p = tmp.join("shards").join(folder).join("mutants.out");
        std::fs::create_dir_all(&p).unwrap();
        std::fs::write(p.join("outcomes.json"), outcomes(&[(file, name, summary)])).unwrap();
    }
    // A shard whose groups had no mutant writes no outcome file.
    std::fs::create_dir_all(tmp.join("shards/mutants-shard-6")).unwrap();
    let all = read_outcomes(&[tmp.join("shards")]).unwrap();
    assert_eq!(all.len(), 4, "{all:?}");
    let c = counts(&merge(all), &BTreeSet::new());
    assert_eq!(
        (c["model/routing"].caught, c["model/routing"].missed),
        (2, 0)
    );
    assert_eq!(c["check/rules"].timeout, 1);
    assert!(below(&c, Some(95.0)).is_empty());
    // No outcome file at all is an error, never an empty table.
    let empty = read_outcomes(&[tmp.join("shards/mutants-shard-6")]).unwrap_err();
    assert!(empty.contains("no outcomes.json"), "{empty}");
    std::fs::remove_dir_all(&tmp).unwrap();
}

/// Rule: MUT-SCORE — outcome files that do not read are errors naming
/// what was expected, never an empty table.
#[test]
fn unreadable_outcomes_are_errors() {
    assert!(parse_outcomes("{").unwrap_err().contains("not JSON"));
    assert!(
        parse_outcomes("{}")
            .unwrap_err()
            .contains("no `outcomes` array")
    );
    let bad = r#"{"outcomes":[{"scenario":{"Mutant":{"file":"src/a.rs","name":"n"}},"summary":"Exploded"}]}"#;
    assert!(parse_outcomes(bad).unwrap_err().contains("Exploded"));
    assert_eq!(module("src/wire/reader.rs"), "wire/reader");
}

/// Runs `scripts/mutants.sh` with a stand-in `cargo` that logs its
/// arguments; the first pass "misses" one mutant with regex characters in
/// its name. Returns (exit code, the log).
fn run_script(files: &str, shard: Option<&str>) -> (i32, String) {
    let tmp: PathBuf = std::env::temp_dir().join(format!(
        "inquiry-model-mutants-{}-{}",
        std::process::id(),
        files.len() + shard.map_or(0, str::len)
    ));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let log = tmp.join("log");
    let stub = tmp.join("cargo");
    std::fs::write(
        &stub,
        format!(
            r#"#!/bin/bash
echo "$*" >> {log}
[ "$1" = mutants ] || exit 0
out=""; prev=""
for a in "$@"; do [ "$prev" = -o ] && out=$a; prev=$a; done
mkdir -p "$out/mutants.out"
case "$*" in
  *" -F "*) : > "$out/mutants.out/missed.txt"; exit 0 ;;
  *) echo 'src/model/routing.rs:9:5: replace f -> Option<(u8, [u8])> with None' > "$out/mutants.out/missed.txt"; exit 2 ;;
esac
"#,
            log = log.display()
        ),
    )
    .unwrap();
    Command::new("chmod").arg("+x").arg(&stub).status().unwrap();
    let mut cmd = Command::new("bash");
    cmd.arg(root().join("scripts/mutants.sh"))
        .env("CARGO", &stub)
        .env("MUTANTS_FILES", files)
        .env("MUTANTS_OUT", tmp.join("out"));
    match shard {
        Some(s) => cmd.env("MUTANTS_SHARD", s),
        None => cmd.env_remove("MUTANTS_SHARD"),
    };
    let out = cmd.output().unwrap();
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&tmp);
    (out.status.code().unwrap_or(-1), text)
}

/// The logged first-pass cargo-mutants runs (the second pass names its
/// survivors with `-F`).
fn first_pass_runs(log: &str) -> Vec<&str> {
    log.lines()
        .filter(|l| l.starts_with("mutants ") && !l.contains(" -F "))
        .collect()
}

/// Rule: MUT-SELECTION — the first pass builds and tests only the
/// selection (the targets as `--cargo-arg`, the filters after `-- --`) in
/// this shard; the second pass re-runs exactly the survivors, by their
/// escaped names, with no selection: the whole suite.
#[test]
fn the_script_selects_then_rechecks_survivors_with_the_whole_suite() {
    let (code, log) = run_script("src/model/routing.rs", Some("1/4"));
    assert_eq!(code, 0, "{log}");
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 3, "{log}");
    let first = lines[0];
    assert!(first.starts_with("mutants "), "{first}");
    assert!(first.contains("--file src/model/routing.rs"), "{first}");
    assert!(first.contains("--shard 1/4"), "{first}");
    assert!(
        first.contains(
            "--cargo-arg=--lib --cargo-arg=--test --cargo-arg=suite -- -- routing:: routing::decision_tables_tests::"
        ),
        "{first}"
    );
    let second = lines[1];
    assert!(!second.contains("--cargo-arg"), "{second}");
    assert!(!second.contains(" -- "), "{second}");
    assert!(!second.contains("--shard"), "{second}");
    assert!(
        second.contains(
            r"-F ^src/model/routing\.rs:9:5: replace f -> Option<\(u8, \[u8\]\)> with None$"
        ),
        "{second}"
    );
    assert!(
        lines[2].starts_with(
            "run --quiet --example mutants_table -- --equivalent spec/mutants-equivalent.tsv"
        ),
        "{}",
        lines[2]
    );
}

/// Rule: MUT-SELECTION — files that share a selection line (here
/// `src/stream.rs` and the files under `src/stream/`) go to one
/// cargo-mutants run per pass, so a many-file module pays for one baseline
/// build; a file with another selection gets its own run.
#[test]
fn files_sharing_a_selection_share_one_run() {
    let (code, log) = run_script(
        "src/stream.rs src/stream/pairing.rs src/model/routing.rs src/stream/sanitize.rs",
        None,
    );
    assert_eq!(code, 0, "{log}");
    let runs = first_pass_runs(&log);
    assert_eq!(runs.len(), 2, "{log}");
    for f in [
        "src/stream.rs",
        "src/stream/pairing.rs",
        "src/stream/sanitize.rs",
    ] {
        assert!(runs[0].contains(&format!("--file {f}")), "{}", runs[0]);
    }
    assert!(!runs[0].contains("src/model/routing.rs"), "{}", runs[0]);
    assert!(
        runs[1].contains("--file src/model/routing.rs"),
        "{}",
        runs[1]
    );
    assert!(!runs[1].contains("src/stream"), "{}", runs[1]);
}

/// Rule: MUT-SELECTION — a folder in `MUTANTS_FILES` stands for every `.rs`
/// file under it but its unit-test files (`*_tests.rs`), so `MUTANTS_FILES='src/check.rs src/check/'` measures the
/// whole `check` module in one run; a file named twice is mutated once.
#[test]
fn a_folder_stands_for_every_file_under_it() {
    let (code, log) = run_script("src/check.rs src/check/ src/check/rules.rs", None);
    assert_eq!(code, 0, "{log}");
    let runs = first_pass_runs(&log);
    assert_eq!(runs.len(), 1, "{log}");
    let mut expected: Vec<String> = std::fs::read_dir(root().join("src/check"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".rs") && !n.ends_with("_tests.rs"))
        .map(|n| format!("src/check/{n}"))
        .collect();
    assert!(expected.len() >= 2, "{expected:?}");
    expected.push("src/check.rs".to_owned());
    for f in &expected {
        assert_eq!(
            runs[0].matches(&format!("--file {f} ")).count(),
            1,
            "{f} in {}",
            runs[0]
        );
    }
    assert_eq!(
        runs[0].matches("--file ").count(),
        expected.len(),
        "{}",
        runs[0]
    );
}

/// Rule: MUT-SELECTION — a file that is not there, or that has no
/// selection, is a usage error (exit 2), not a silent skip.
#[test]
fn the_script_refuses_unknown_files() {
    assert_eq!(run_script("src/no_such_module.rs", None).0, 2);
    assert_eq!(run_script("src/bin/inquiry-model.rs", None).0, 2);
}

/// Rule: MUT-EQUIVALENT — a missed mutant the equivalents list names is
/// counted in its own column and not against the score; one the list does
/// not name still counts; a listed mutant that a test caught is reported
/// as wrongly listed. A table that ignored the list, or trusted it over a
/// catching test, fails here.
#[test]
fn listed_equivalents_leave_the_score_and_a_caught_one_is_reported() {
    let run = outcomes(&[
        (
            "src/stream/keys.rs",
            "src/stream/keys.rs:1:1: a",
            "CaughtMutant",
        ),
        (
            "src/stream/keys.rs",
            "src/stream/keys.rs:2:1: b",
            "CaughtMutant",
        ),
        (
            "src/stream/keys.rs",
            "src/stream/keys.rs:3:1: c",
            "MissedMutant",
        ),
        (
            "src/stream/keys.rs",
            "src/stream/keys.rs:4:1: d",
            "MissedMutant",
        ),
    ]);
    let merged = merge(parse_outcomes(&run).unwrap());
    let list = parse_equivalents(
        "# comment\n\nsrc/stream/keys.rs:3:1: c\tonly picks a bucket\nsrc/stream/keys.rs:1:1: a\twrong\n",
    )
    .unwrap();
    let c = counts(&merged, &list)["stream/keys"];
    assert_eq!((c.caught, c.missed, c.equivalent), (2, 1, 1));
    // 2 of 3: c is not viable, d still counts.
    assert!((c.score().unwrap() - 200.0 / 3.0).abs() < 1e-9);
    assert!(table(&counts(&merged, &list)).contains("| stream/keys | 2 | 1 | 1 | 0 | 0 | 66.7% |"));
    assert_eq!(
        wrongly_listed(&merged, &list),
        ["src/stream/keys.rs:1:1: a"]
    );
    // A line without its reason is an error naming the line.
    let e = parse_equivalents("# c\nsrc/a.rs:1:1: x\n").unwrap_err();
    assert!(e.starts_with("line 2:"), "{e}");
    assert!(parse_equivalents("src/a.rs:1:1: x\t  \n").is_err());
}

/// Rule: MUT-EQUIVALENT — `spec/mutants-equivalent.tsv` reads, names only
/// files of the measured modules (`spec/mutants-tests.tsv`), and each of
/// its mutants is argued in `docs/mutants.md`, which names its place
/// (`file.rs:line`).
#[test]
fn the_equivalents_list_reads_and_each_entry_is_argued() {
    let text = std::fs::read_to_string(root().join("spec/mutants-equivalent.tsv")).unwrap();
    let list = parse_equivalents(&text).unwrap();
    assert!(!list.is_empty());
    let rows = selection();
    let doc = std::fs::read_to_string(root().join("docs/mutants.md")).unwrap();
    for name in &list {
        let file = name.split(':').next().unwrap();
        assert!(
            rows.iter()
                .any(|(p, _)| file == p || (p.ends_with('/') && file.starts_with(p.as_str()))),
            "{name}: not a measured module's file"
        );
        assert!(root().join(file).is_file(), "{name}: no such file");
        let path = file.strip_prefix("src/").unwrap();
        let line = name.split(':').nth(1).unwrap();
        let stem = path.rsplit('/').next().unwrap();
        assert!(
            doc.contains(&format!("{stem}:{line}")),
            "{name}: docs/mutants.md does not argue it (no `{stem}:{line}`)"
        );
    }
}
