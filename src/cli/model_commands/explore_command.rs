//! `inquiry-model explore`: the exhaustive small-scope enumeration.

use super::*;

/// `inquiry-model explore`.
#[derive(Args, Debug)]
#[command(after_help = "\
Enumerates every scenario of the small scope (see src/explore.rs for the \
bounds: 680 448 scenarios in two families, single and pairs; `--scope big` \
adds the triples family, 2 985 984 more) and checks every invariant after \
every step and at the end. Exit 1 if any scenario violates an invariant \
(the legacy profile's known gaps are counted, not failed). `--shard k/n` \
checks the k-th of n disjoint parts (k from 0), for CI jobs that split one \
exploration. `--states` searches instead every interleaving of each root \
scenario (the scope's scenarios without their scheduler picks) as a state \
graph, not expanding a state already expanded; it reports the distinct \
states and shards by root. `--scenario FILE` explores one given scenario \
instead of the scope: as scheduled, or with `--states` every interleaving of \
it (its `schedule` ignored), `--por` reduced, `--por-check` the reduced \
search against every interleaving under every fault; exit 2 if the file is \
not a scenario the model runs. `--scope bigger --states --por --faults` \
searches the quads and turns2 families reduced under no fault and each fault \
of the fault matrix, failing on a violation under no fault and counting per \
fault the roots that catch it.")]
pub(crate) struct ExploreArgs {
    /// Explore this scenario file (JSON, as `run` takes; `-` for stdin)
    /// instead of the scope's families.
    #[arg(long, value_name = "FILE")]
    pub(crate) scenario: Option<PathBuf>,
    /// Check only every Nth scenario (1: the complete enumeration; at
    /// least 1).
    #[arg(long, default_value_t = 1, value_parser = crate::cli::at_least_one::<usize>)]
    pub(crate) stride: usize,
    /// `small` (single and pairs, 680 448 scenarios), `big` (small and
    /// triples), `bigger` (quads and turns2, for `--states --por
    /// --faults`), or one family alone: `single`, `pairs`, `triples`,
    /// `quads`, `turns2`. With
    /// `--states --por --por-check` also `drawn`: the language family's
    /// 360 roots and 1 000 roots of the full scenario generator.
    #[arg(long, default_value = "small", value_parser = ["small", "big", "single", "pairs", "triples", "quads", "turns2", "bigger", "drawn"])]
    pub(crate) scope: String,
    /// Check only part k of n (`k/n`, 0 <= k < n).
    #[arg(long, default_value = "0/1", value_parser = parse_shard)]
    pub(crate) shard: (usize, usize),
    /// Worker threads (default: the available cores; at least 1).
    #[arg(long, value_parser = crate::cli::at_least_one::<usize>)]
    pub(crate) threads: Option<usize>,
    /// Search every interleaving of each root scenario as a state graph
    /// (instead of the scope's fixed scheduler picks).
    #[arg(long)]
    pub(crate) states: bool,
    /// With `--states`: `full` does not expand a state already expanded
    /// (its history included, so it is sound); `off` runs every
    /// interleaving to the end (to measure what deduplication saves).
    #[arg(long, default_value = "full", value_parser = ["full", "off"])]
    pub(crate) dedup: String,
    /// With `--states`: fork the run at every choice instead of replaying
    /// it, and run one interleaving of every equivalence class of
    /// independent steps (sleep sets); reports the classes and the
    /// reduction factor. With `--dedup off` it forks but runs every
    /// interleaving (to measure forking against replaying).
    #[arg(long, requires = "states")]
    pub(crate) por: bool,
    /// With `--states --por`: under no fault and every fault of the fault
    /// matrix, search each root with every interleaving and reduced, and
    /// fail (exit 1) where they find different invariants violated.
    #[arg(long, requires = "por")]
    pub(crate) por_check: bool,
    /// With `--states --por`: search each root reduced under no fault and
    /// under each fault of the fault matrix; fail (exit 1) on a violation
    /// under no fault, and report per fault the roots that catch it.
    #[arg(long, requires = "por", conflicts_with = "por_check")]
    pub(crate) faults: bool,
    /// `text`, or `json`: `{"version": 1, scope, stride, shard, threads,
    /// states, dedup, seconds, report}` with every count and every
    /// violation (the text shows the first five).
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    pub(crate) format: TextOrJson,
}

fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("`{s}` is not k/n with 0 <= k < n");
    let (k, n) = s.split_once('/').ok_or_else(bad)?;
    let (k, n): (usize, usize) = (
        k.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if k < n { Ok((k, n)) } else { Err(bad()) }
}

/// How many items a plan takes of families holding `sizes` items: every
/// `stride`-th of each family, then the `k`-th of every `n` of those
/// (as `explore`'s shards are cut), for the progress count.
fn planned(sizes: impl Iterator<Item = usize>, plan: explore::Plan) -> usize {
    let stride = plan.stride.max(1);
    let strided: usize = sizes.map(|n| n.div_ceil(stride)).sum();
    let (k, n) = (plan.shard.0, plan.shard.1.max(1));
    strided.saturating_sub(k).div_ceil(n)
}

/// `explore`: the exhaustive small-scope enumeration.
pub(crate) fn explore_command(args: ExploreArgs, global: &GlobalArgs) -> i32 {
    let start = Instant::now();
    let families: &[Family] = match args.scope.as_str() {
        "big" => &[Family::Single, Family::Pairs, Family::Triples],
        "single" => &[Family::Single],
        "pairs" => &[Family::Pairs],
        "triples" => &[Family::Triples],
        "quads" => &[Family::Quads],
        "turns2" => &[Family::Turns2],
        "bigger" => &[Family::Quads, Family::Turns2],
        _ => &[Family::Single, Family::Pairs],
    };
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let plan = explore::Plan {
        stride: args.stride,
        shard: args.shard,
        threads,
    };
    if let Some(path) = &args.scenario {
        return given(path, &args);
    }
    if args.scope == "drawn" {
        if !args.por_check {
            eprintln!(
                "inquiry-model: --scope drawn compares the reduced search with every \
                 interleaving: it needs --states --por --por-check"
            );
            return EXIT_UNUSABLE;
        }
        let roots = explore::drawn_roots().len();
        let progress = Progress::start(
            global,
            "explore --scope drawn --por-check",
            planned(std::iter::once(roots), plan) as u64,
            "root scenarios",
        );
        let check = explore::compare_drawn(plan, &|| progress.inc(1));
        progress.finish();
        let secs = start.elapsed().as_secs_f64().max(1e-9);
        return print_por_check(&check, secs);
    }
    if args.por_check {
        return por_check(families, plan, global);
    }
    let (what, unit) = if args.states {
        ("explore --states", "root scenarios")
    } else {
        ("explore", "scenarios")
    };
    let items = |f: Family| {
        if args.states {
            explore::root_indices(f).len()
        } else {
            explore::family_size(f)
        }
    };
    let progress = Progress::start(
        global,
        what,
        planned(families.iter().map(|&f| items(f)), plan) as u64,
        unit,
    );
    let done = || progress.inc(1);
    let report = if args.por {
        let reduction = match args.dedup.as_str() {
            "off" => explore::por::Reduction::Off,
            _ => explore::por::Reduction::SleepSets,
        };
        if args.faults {
            explore::explore_faults_with(families, plan, &done)
        } else {
            explore::explore_por_with(families, plan, reduction, &done)
        }
    } else if args.states {
        let dedup = match args.dedup.as_str() {
            "off" => explore::states::Dedup::Off,
            _ => explore::states::Dedup::Full,
        };
        explore::explore_states_with(families, plan, dedup, &done)
    } else {
        explore::explore_plan_with(families, plan, &done)
    };
    progress.finish();
    let secs = start.elapsed().as_secs_f64().max(1e-9);
    let names: Vec<&str> = families.iter().map(|f| f.name()).collect();
    print_report(&args, &names, threads, &report, secs)
}

/// Prints an exploration's report (text or JSON) and returns its exit
/// code: 1 if any scenario violated an invariant or was refused.
fn print_report(
    args: &ExploreArgs,
    names: &[&str],
    threads: usize,
    report: &explore::Report,
    secs: f64,
) -> i32 {
    let total = report.total();
    let code = if report.violations.is_empty() && report.errors.is_empty() {
        EXIT_OK
    } else {
        EXIT_VIOLATIONS
    };
    if args.format == TextOrJson::Json {
        out!(
            "{}",
            serde_json::json!({
                "version": EXPLORE_JSON_VERSION,
                "scope": args.scope,
                "stride": args.stride,
                "shard": [args.shard.0, args.shard.1],
                "threads": threads,
                "states": args.states,
                "dedup": args.dedup,
                "seconds": secs,
                "report": report,
            })
        );
        return code;
    }
    out!(
        "checked {} ({}; stride {}, shard {}/{}, {}) and {} in {:.1} s: {:.0} scenarios/s",
        crate::cli::count(total, "scenario"),
        names
            .iter()
            .map(|f| format!("{} {}", report.scenarios.get(*f).copied().unwrap_or(0), f))
            .collect::<Vec<_>>()
            .join(", "),
        args.stride,
        args.shard.0,
        args.shard.1,
        crate::cli::count(threads, "thread"),
        crate::cli::count(report.steps, "coordinator step"),
        secs,
        total as f64 / secs
    );
    if args.por {
        out!(
            "forking search ({}): {} root scenarios; {} runs (with sleep sets one per equivalence class) of {} interleavings (reduction factor {:.1}); {} prefixes cut with every pending step asleep",
            match args.dedup.as_str() {
                "off" => "every interleaving",
                _ => "sleep sets",
            },
            report.roots.values().sum::<usize>(),
            total,
            report.interleavings,
            report.interleavings as f64 / total.max(1) as f64,
            report.blocked_runs
        );
    } else if args.states {
        out!(
            "state search: {} ({}); every interleaving of each, {} counted as scenarios above; distinct states expanded: {}; states met again and not expanded: {} (dedup {})",
            crate::cli::count(report.roots.values().sum::<usize>(), "root scenario"),
            report
                .roots
                .iter()
                .map(|(f, n)| format!("{n} {f}"))
                .collect::<Vec<_>>()
                .join(", "),
            crate::cli::count(total, "complete run"),
            report.distinct_states,
            report.revisited_states,
            args.dedup
        );
    }
    out!(
        "distinct persisted streams judged: {} (the other scenarios ended in a stream already judged by the same worker)",
        report.distinct_streams
    );
    out!(
        "per profile: {}",
        report
            .per_profile
            .iter()
            .map(|(p, n)| format!("{p} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    out!(
        "legacy known gaps (counted, not failed): {}",
        report
            .legacy_known_gaps
            .iter()
            .map(|(r, n)| format!("{r} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    for (fault, row) in &report.fault_rows {
        out!(
            "under fault {fault}: {} roots, {} runs; roots that catch it: {}; rules: {}; roots refused: {}",
            row.roots,
            row.runs,
            row.detected,
            row.rules
                .iter()
                .map(|(r, n)| format!("{r} {n}"))
                .collect::<Vec<_>>()
                .join(", "),
            row.errors
        );
    }
    if !report.separator_flaw.is_empty() {
        out!(
            "separator flaw on dotted names (known, counted, not failed): {}",
            report
                .separator_flaw
                .iter()
                .map(|(r, n)| format!("{r} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    out!(
        "violations: {}; scenarios the model refused: {}",
        report.violations.len(),
        report.errors.len()
    );
    for (s, v) in report.violations.iter().take(5) {
        out!(
            "violation: {}\n  scenario: {}",
            v.join("\n  "),
            serde_json::to_string(s).unwrap_or_default()
        );
    }
    for (s, e) in report.errors.iter().take(5) {
        out!(
            "refused: {e}\n  scenario: {}",
            serde_json::to_string(s).unwrap_or_default()
        );
    }
    code
}

/// `explore --scenario FILE`: reads the scenario (exit 2 with the file,
/// line and column if it is not one, or with the model's reason if the
/// model refuses it) and explores it as the other flags say.
fn given(path: &PathBuf, args: &ExploreArgs) -> i32 {
    let start = Instant::now();
    let name = if path.as_os_str() == "-" {
        "<stdin>".to_owned()
    } else {
        path.display().to_string()
    };
    let text = match read_input(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("inquiry-model: {e}");
            return EXIT_UNUSABLE;
        }
    };
    let s: Scenario = match serde_json::from_str(&text) {
        Ok(s) => s,
        Err(e) => {
            let msg = e.to_string();
            let msg = msg.rfind(" at line ").map_or(msg.as_str(), |i| &msg[..i]);
            eprintln!(
                "inquiry-model: {name}: line {}, column {}: not a scenario: {msg}",
                e.line(),
                e.column(),
            );
            return EXIT_UNUSABLE;
        }
    };
    match scenario::run(&Scenario {
        schedule: Vec::new(),
        ..s.clone()
    }) {
        Ok(_) => {}
        Err(ScenarioError::Unacceptable(m)) => {
            eprintln!("inquiry-model: {name}: the scenario cannot run: {m}");
            return EXIT_UNUSABLE;
        }
        Err(ScenarioError::Crash(m)) => {
            eprintln!(
                "inquiry-model: {name}: the model crashed on this scenario (a bug in \
                 inquiry-model, not in the scenario): {m}"
            );
            return EXIT_UNUSABLE;
        }
    }
    if args.por_check {
        let check = explore::compare_given(&s, &name);
        let secs = start.elapsed().as_secs_f64().max(1e-9);
        return print_por_check(&check, secs);
    }
    let how = match (args.states, args.por, args.dedup.as_str()) {
        (false, _, _) => explore::GivenSearch::Scheduled,
        (true, true, "off") => explore::GivenSearch::Forking(explore::por::Reduction::Off),
        (true, true, _) => explore::GivenSearch::Forking(explore::por::Reduction::SleepSets),
        (true, false, "off") => explore::GivenSearch::States(explore::states::Dedup::Off),
        (true, false, _) => explore::GivenSearch::States(explore::states::Dedup::Full),
    };
    let report = explore::explore_given(&s, &name, how);
    let secs = start.elapsed().as_secs_f64().max(1e-9);
    print_report(args, &[name.as_str()], 1, &report, secs)
}

/// `explore --states --por --por-check`: the reduced search against every
/// interleaving, root by root, under every row of the fault matrix.
fn por_check(families: &[Family], plan: explore::Plan, global: &GlobalArgs) -> i32 {
    let start = Instant::now();
    let roots = families.iter().map(|&f| explore::root_indices(f).len());
    let progress = Progress::start(
        global,
        "explore --por-check",
        planned(roots, plan) as u64,
        "root scenarios",
    );
    let check = explore::compare_por_with(families, plan, &|| progress.inc(1));
    progress.finish();
    let secs = start.elapsed().as_secs_f64().max(1e-9);
    print_por_check(&check, secs)
}

/// Prints a comparison of the reduced search with every interleaving; exit
/// 1 on a disagreement, else 2 if a root could not be searched, else 0.
fn print_por_check(check: &explore::PorCheck, secs: f64) -> i32 {
    out!(
        "por check: {} roots x {} fault rows in {:.1} s: every interleaving {} runs, reduced {} runs (reduction factor {:.2}); {} (root, fault) pairs with violations, found alike; disagreements: {}",
        check.roots,
        check.rows,
        secs,
        check.full_runs,
        check.reduced_runs,
        check.full_runs as f64 / check.reduced_runs.max(1) as f64,
        check.violating,
        check.disagreements.len()
    );
    if check.skipped > 0 || check.interleavings > 0 {
        out!(
            "roots compared: {} of {} interleavings (counted); roots skipped above {} interleavings: {}",
            check.roots,
            check.interleavings,
            explore::DRAWN_CAP,
            check.skipped
        );
    }
    for d in check.disagreements.iter().take(5) {
        out!("disagreement: {d}");
    }
    for e in check.errors.iter().take(5) {
        out!("error: {e}");
    }
    match (check.disagreements.is_empty(), check.errors.is_empty()) {
        (true, true) => 0,
        (false, _) => 1,
        (true, false) => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::parse_shard;

    /// Rule: CLI-EXPLORE — `--shard k/n` takes `0 <= k < n` and refuses
    /// anything else (clap turns the refusal into a usage error, exit 2).
    #[test]
    fn shard_is_k_of_n_from_zero() {
        assert_eq!(parse_shard("0/1"), Ok((0, 1)));
        assert_eq!(parse_shard("3/4"), Ok((3, 4)));
        for bad in ["4/4", "1/0", "a/2", "2", "-1/3", ""] {
            assert!(parse_shard(bad).is_err(), "{bad}");
        }
    }
}
