//! `explore --states` as the command line reports it (the state-graph
//! search itself is tested against every schedule beside it, in
//! `src/explore/state_search_tests.rs`).

/// Rule: CLI-EXPLORE — `explore --states` reports the roots, the complete
/// runs, the distinct states and the states not expanded again, and zero
/// violations; `--dedup off` expands every state it meets.
#[test]
fn explore_states_reports_distinct_states() {
    let run = |dedup: &str| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_inquiry-model"))
            .args([
                "explore", "--scope", "pairs", "--states", "--stride", "4999",
            ])
            .args(["--threads", "1", "--dedup", dedup])
            .output()
            .expect("the binary runs");
        assert_eq!(o.status.code(), Some(0));
        String::from_utf8(o.stdout).expect("UTF-8")
    };
    let full = run("full");
    assert!(
        full.contains("state search: 20 root scenarios (20 pairs)")
            && full.contains("distinct states expanded: ")
            && full.contains("violations: 0"),
        "{full}"
    );
    let off = run("off");
    assert!(
        off.contains("states met again and not expanded: 0 (dedup off)"),
        "{off}"
    );
}

/// Rule: INV-EXPLORE-POR — `explore --states --por` reports the roots, the
/// runs (one per equivalence class), the interleavings they stand for and
/// the reduction factor, with zero violations; with `--dedup off` it forks
/// but runs every interleaving (factor 1, as many runs as the replaying
/// search); `--por-check` finds the reduced and the full search agree
/// under every fault row.
#[test]
fn explore_states_por_reports_classes_and_the_reduction_factor() {
    let run = |extra: &[&str]| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_inquiry-model"))
            .args([
                "explore", "--scope", "pairs", "--states", "--stride", "4999",
            ])
            .args(["--threads", "1"])
            .args(extra)
            .output()
            .expect("the binary runs");
        assert_eq!(o.status.code(), Some(0));
        String::from_utf8(o.stdout).expect("UTF-8")
    };
    let reduced = run(&["--por"]);
    assert!(
        reduced.contains("forking search (sleep sets): 20 root scenarios;")
            && reduced.contains("reduction factor ")
            && reduced.contains("violations: 0"),
        "{reduced}"
    );
    let forked = run(&["--por", "--dedup", "off"]);
    let replayed = run(&["--dedup", "off"]);
    // "checked N scenarios ...": the runs.
    let runs = |s: &str| -> usize {
        s.split_whitespace()
            .nth(1)
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    assert!(forked.contains("(reduction factor 1.0)"), "{forked}");
    assert_eq!(runs(&forked), runs(&replayed));
    assert!(0 < runs(&reduced) && runs(&reduced) < runs(&forked));
    let check = run(&["--por", "--por-check"]);
    assert!(
        check.contains(" fault rows in ") && check.contains("disagreements: 0"),
        "{check}"
    );
}
