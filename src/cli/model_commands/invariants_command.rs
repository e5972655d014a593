//! `inquiry-model invariants`: which invariants hold under a profile.

use super::*;

/// `inquiry-model invariants`.
#[derive(Args, Debug)]
#[command(after_help = "\
Lists every invariant of the catalog with `holds` or the number of scenarios \
that violate it under the profile, and the smallest counterexample. \
`--matrix` prints the invariant x profile matrix committed as \
spec/invariants.md instead.\n\n\
Exit 0: every invariant holds (and always with `--matrix`); 1: an invariant \
is violated under the profile; 2: unusable input or usage.")]
pub(crate) struct InvariantsArgs {
    /// The profile to judge: `legacy`, `rfd082`, `rfd083` or a profile
    /// file.
    #[arg(long, value_parser = profile_parser(), required_unless_present = "matrix")]
    pub(crate) profile: Option<RuleSet>,
    /// Print the committed matrix (all profiles) instead.
    #[arg(long)]
    pub(crate) matrix: bool,
    /// Take one in every N scenarios of the small scope (at least 1).
    #[arg(long, default_value_t = amend::MATRIX_SCENARIOS.0, value_parser = crate::cli::at_least_one::<usize>)]
    pub(crate) stride: usize,
    /// How many random scenarios to add.
    #[arg(long, default_value_t = amend::MATRIX_SCENARIOS.1)]
    pub(crate) sample: usize,
    /// Seed of the random scenarios.
    #[arg(long, default_value_t = amend::MATRIX_SCENARIOS.2)]
    pub(crate) seed: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    pub(crate) format: ReportFormat,
    /// Worker threads (default: the available cores; at least 1). The
    /// report is the same, byte for byte, for every number of threads.
    #[arg(long, value_name = "N", value_parser = crate::cli::at_least_one::<usize>)]
    pub(crate) threads: Option<usize>,
}

/// `invariants`.
pub(crate) fn invariants_command(args: InvariantsArgs, global: &GlobalArgs) -> i32 {
    if args.matrix {
        out_raw!("{}", amend::committed_matrix());
        return EXIT_OK;
    }
    let Some(profile) = args.profile else {
        eprintln!("inquiry-model: --profile or --matrix is required");
        return EXIT_UNUSABLE;
    };
    let scenarios = amend::scenarios(args.stride, args.sample, args.seed);
    let progress = Progress::start(global, "invariants", scenarios.len() as u64, "scenarios");
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let verdicts =
        amend::invariants_threaded(profile.clone(), &scenarios, threads, &|| progress.inc(1));
    progress.finish();
    match args.format {
        ReportFormat::Json => out!(
            "{}",
            crate::cli::versioned_json(
                crate::cli::REVIEW_JSON_VERSION,
                &serde_json::json!({
                    "profile": profile.to_string(),
                    "scenarios": scenarios.len(),
                    "invariants": verdicts,
                })
            )
        ),
        ReportFormat::Markdown => {
            out!(
                "### Invariants under `{profile}` ({})\n",
                crate::cli::count(scenarios.len(), "scenario")
            );
            out!("| invariant | verdict | smallest counterexample |");
            out!("|---|---|---|");
            for v in &verdicts {
                match (&v.smallest, &v.example) {
                    (Some(s), Some(d)) => out!(
                        "| `{}` | violated in {} | {} <br> `{}` |",
                        v.rule,
                        crate::cli::count(v.violating, "scenario"),
                        markdown_cell(d),
                        markdown_cell(&serde_json::to_string(s).unwrap_or_default())
                    ),
                    _ => out!("| `{}` | holds | |", v.rule),
                }
            }
            for v in verdicts.iter().filter(|v| v.violating > 0) {
                out_raw!("\n{}", v.describe(true));
            }
        }
        ReportFormat::Text => {
            out!(
                "invariants under {profile} over {}:",
                crate::cli::count(scenarios.len(), "scenario")
            );
            for v in &verdicts {
                match (&v.smallest, &v.example) {
                    (Some(s), Some(d)) => out!(
                        "  {:<32} violated in {}; smallest:\n      {}\n      {}\n      replay (the scenario saved as {}): {}",
                        v.rule,
                        crate::cli::count(v.violating, "scenario"),
                        d,
                        serde_json::to_string(s).unwrap_or_default(),
                        amend::REPLAY_FILE,
                        v.replay.as_deref().unwrap_or_default()
                    ),
                    _ => out!("  {:<32} holds", v.rule),
                }
            }
            for v in verdicts.iter().filter(|v| v.violating > 0) {
                let diagram = v.diagram.as_deref().unwrap_or_default();
                out_raw!("\ncounterexample of {} under {profile}:\n{diagram}", v.rule);
            }
        }
    }
    // An invariant the profile breaks is a finding, as `check`'s
    // violations are.
    if verdicts.iter().any(|v| v.violating > 0) {
        EXIT_VIOLATIONS
    } else {
        EXIT_OK
    }
}
