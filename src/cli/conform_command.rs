//! `inquiry-model conform`: runs an implementation in any language, as a
//! subprocess speaking JSON Lines (`spec/conform-protocol.md`), on the
//! conformance vectors and on generated scenarios; shrinks the first
//! generated failure and prints both sides (rule `CLI-CONFORM`).

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

mod subprocess;

use super::{EXIT_OK, EXIT_UNUSABLE, EXIT_VIOLATIONS};
use crate::conformance::{self, Failure, Vector, check_generated, check_vectors};
use crate::profile::ProfileName;
use subprocess::Subprocess;

/// `inquiry-model conform`.
#[derive(Args, Debug)]
#[command(after_help = "\
The adapter command is run with `sh -c`; it reads one JSON message per line \
on stdin and answers each with one line on stdout (spec/conform-protocol.md). \
Vectors of profiles the adapter does not list in `init_ok` (or not given with \
--profile) are skipped and counted. Exit 0: every scenario passed; 1: a \
divergence, an implementation failure or a scenario the model refuses; 2: \
the adapter is unusable (does not start or fails the handshake), the vectors \
cannot be read, nothing was run, or a usage error.")]
pub struct ConformArgs {
    /// The adapter command line (run by `sh -c`).
    #[arg(long, value_name = "CMD")]
    adapter: String,
    /// The directory of vectors (`<name>.json`; `index.json` is skipped).
    #[arg(long, value_name = "DIR", default_value = "spec/vectors")]
    vectors: PathBuf,
    /// Skip the vectors.
    #[arg(long)]
    no_vectors: bool,
    /// Generated scenarios per profile, compared with the model.
    #[arg(long, value_name = "N", default_value_t = 0)]
    generated: u32,
    /// The seed of the generated scenarios.
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
    /// Only these profiles (repeatable; default: those the adapter lists).
    #[arg(long, value_name = "PROFILE", value_parser = super::profile_arg::ConformProfileParser)]
    profile: Vec<ProfileName>,
    /// Seconds to wait for each reply.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    timeout: u64,
    /// For an adapter with `"scheduler": "free"`: the most schedules of the
    /// model tried to explain one observation (a witness); none found
    /// within them fails the scenario as "no witness".
    #[arg(long, value_name = "N", default_value_t = conformance::witness::DEFAULT_WITNESS_BUDGET)]
    witness_budget: usize,
}

fn read_vectors(dir: &PathBuf) -> Result<Vec<Vector>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == "json")
                && p.file_name().is_some_and(|n| n != "index.json")
        })
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
            serde_json::from_str(&text).map_err(|e| {
                format!(
                    "{}: not a conformance vector (line {}, column {}): {e}",
                    p.display(),
                    e.line(),
                    e.column()
                )
            })
        })
        .collect()
}

fn print_failure(f: &Failure) {
    println!("FAIL {f}");
}

/// Runs `conform`; returns the exit code.
pub fn conform_command(args: ConformArgs) -> i32 {
    let mut imp = match Subprocess::start(&args.adapter, Duration::from_secs(args.timeout.max(1))) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("inquiry-model conform: unusable adapter: {e}");
            return EXIT_UNUSABLE;
        }
    };
    let profiles: Vec<ProfileName> = ProfileName::ALL
        .into_iter()
        .filter(|p| {
            imp.profiles.contains(p) && (args.profile.is_empty() || args.profile.contains(p))
        })
        .collect();
    let core_only = imp.core_only;
    imp.capabilities.witness_budget = args.witness_budget.max(1);
    println!(
        "adapter: {} (profiles: {}; language: {}; scheduler: {})",
        imp.name,
        profiles
            .iter()
            .map(|p| p.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        if core_only { "core" } else { "full" },
        match imp.capabilities.scheduler {
            conformance::SchedulerCapability::Steered => "steered",
            conformance::SchedulerCapability::Free => "free",
        }
    );
    let mut ran = 0usize;
    let mut failed = 0usize;
    if !args.no_vectors {
        let all = match read_vectors(&args.vectors) {
            Ok(v) => v,
            Err(e) => {
                eprintln!("inquiry-model conform: {e}");
                return EXIT_UNUSABLE;
            }
        };
        let (vectors, skipped): (Vec<Vector>, Vec<Vector>) = all
            .into_iter()
            .partition(|v| profiles.contains(&v.scenario.profile));
        let (vectors, outside): (Vec<Vector>, Vec<Vector>) = vectors
            .into_iter()
            .partition(|v| !core_only || conformance::core_scenario(&v.scenario));
        let failures = check_vectors(&mut imp, &vectors);
        for f in &failures {
            print_failure(f);
        }
        println!(
            "vectors: {} run, {} failed, {} skipped (profile), {} skipped (outside the core language)",
            vectors.len(),
            failures.len(),
            skipped.len(),
            outside.len()
        );
        ran += vectors.len();
        failed += failures.len();
    }
    if args.generated > 0 {
        for p in &profiles {
            let report = if core_only {
                let core = conformance::core_scenarios(*p);
                conformance::check_generated_from(&mut imp, core, args.generated, args.seed)
            } else {
                check_generated(&mut imp, *p, args.generated, args.seed)
            };
            ran += report.cases as usize;
            match &report.failure {
                None => println!(
                    "generated {p}: {} passed (seed {})",
                    report.cases, args.seed
                ),
                Some(f) => {
                    failed += 1;
                    println!(
                        "generated {p}: failed (seed {}); shrunk to size {}:",
                        args.seed,
                        crate::generate::scenario::size(&f.scenario)
                    );
                    print_failure(f);
                }
            }
        }
    }
    if subprocess::interrupted() {
        eprintln!("inquiry-model conform: interrupted (the adapter was killed)");
        return EXIT_UNUSABLE;
    }
    if ran == 0 {
        eprintln!("inquiry-model conform: nothing was run (no vectors or profiles selected)");
        return EXIT_UNUSABLE;
    }
    if failed == 0 {
        println!("PASS");
        EXIT_OK
    } else {
        println!("FAILED: {failed}");
        EXIT_VIOLATIONS
    }
}
