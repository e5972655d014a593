//! `inquiry-model diff-profiles`: the same scenarios under two profiles.

use super::*;

/// `inquiry-model diff-profiles`.
#[derive(Args, Debug)]
#[command(after_help = "\
Runs the same scenarios (one in every --stride of the exhaustive small scope, \
plus --sample drawn with --seed) under both profiles and classifies every \
difference: events recorded or not, response outcomes and reasons, ID and \
response shapes, tool invocations and the answers tools saw, prompts, backend \
calls, the tool response text, and the keys of the remembered maps at each \
turn's end. Per class: how many scenarios show it and the smallest one. Then \
the invariants the target breaks that the base keeps (exit 1) and those the \
base breaks that the target restores.")]
pub(crate) struct DiffArgs {
    /// The old rule set: `legacy`, `rfd082`, `rfd083` or a profile file.
    #[arg(long, value_parser = profile_parser())]
    pub(crate) from: RuleSet,
    /// The new rule set: `legacy`, `rfd082`, `rfd083` or a profile file.
    #[arg(long, value_parser = profile_parser())]
    pub(crate) to: RuleSet,
    /// Take one in every N scenarios of the small scope (at least 1; 1 is
    /// all 680 448 of them: about 30 s of CPU).
    #[arg(long, default_value_t = 7, value_parser = crate::cli::at_least_one::<usize>)]
    pub(crate) stride: usize,
    /// How many random scenarios to add.
    #[arg(long, default_value_t = 1000)]
    pub(crate) sample: usize,
    /// Seed of the random scenarios.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    pub(crate) format: ReportFormat,
    /// Markdown only: keep the report under this many characters (a
    /// pull-request comment holds 65 536) by leaving out the diagrams of
    /// the last classes; 0 prints them all.
    #[arg(long, default_value_t = amend::MARKDOWN_LIMIT, value_name = "N")]
    pub(crate) max_chars: usize,
    /// Worker threads (default: the available cores; at least 1). The
    /// report is the same, byte for byte, for every number of threads.
    #[arg(long, value_name = "N", value_parser = crate::cli::at_least_one::<usize>)]
    pub(crate) threads: Option<usize>,
}

/// `diff-profiles`.
pub(crate) fn diff_command(args: DiffArgs, global: &GlobalArgs) -> i32 {
    // Made as the workers take them, not held (one in every 7 of the small
    // scope is about 100 000 scenarios).
    let scenarios =
        amend::review_scenarios::ReviewScenarios::drawn(args.stride, args.sample, args.seed);
    // Each scenario runs twice, once under each profile, with every
    // invariant checked: the comparison and both sides' invariants at once.
    let progress = Progress::start(global, "diff-profiles", scenarios.len() as u64, "scenarios");
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let (mut report, changes) = amend::review(&args.from, &args.to, &scenarios, threads, &|| {
        progress.inc(1)
    });
    report.broken_invariants = changes.broken;
    report.restored_invariants = changes.restored;
    progress.finish();
    match args.format {
        ReportFormat::Text => out_raw!("{}", report.text()),
        ReportFormat::Markdown => out_raw!(
            "{}",
            report.markdown_within(Some(args.max_chars).filter(|&n| n > 0))
        ),
        ReportFormat::Json => out!(
            "{}",
            crate::cli::versioned_json(crate::cli::REVIEW_JSON_VERSION, &report)
        ),
    }
    // The CI gate (AMEND-GATE): the target breaks an invariant the base kept.
    if report.broken_invariants.is_empty() {
        EXIT_OK
    } else {
        EXIT_VIOLATIONS
    }
}
