//! `inquiry-model conform`: runs an implementation in any language, as a
//! subprocess speaking JSON Lines (`spec/conform-protocol.md`), on the
//! conformance vectors (built into the binary, or `--vectors DIR`) and on
//! generated scenarios; runs every scenario, groups the failures by kind,
//! shrinks one example per kind, and reports as text, JSON or JUnit XML
//! (rules `CLI-CONFORM`, `CONF-RUN-TO-THE-END`).

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};
use proptest::strategy::{BoxedStrategy, Just, Strategy};

mod output;
mod subprocess;

use super::{EXIT_OK, EXIT_UNUSABLE, EXIT_VIOLATIONS};
use crate::conformance::run::{Limits, Progress, Run, RunReport};
use crate::conformance::{self, Vector};
use crate::profile::ProfileName;
use crate::scenario::Scenario;
use subprocess::Subprocess;

pub use output::{junit, xml_escape};

include!(concat!(env!("OUT_DIR"), "/builtin_vectors.rs"));

/// The version of the `conform --format json` document.
pub(crate) const CONFORM_JSON_VERSION: u32 = 1;

/// How `conform` reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ConformFormat {
    /// For a person: per kind of failure a count and the smallest example.
    Text,
    /// One JSON document (versioned).
    Json,
    /// JUnit XML, one test case per vector or generated scenario.
    Junit,
}

/// `inquiry-model conform`.
#[derive(Args, Debug)]
#[command(after_help = "\
The adapter command is run with `sh -c`; it reads one JSON message per line \
on stdin and answers each with one line on stdout (spec/conform-protocol.md). \
Vectors of profiles the adapter does not list in `init_ok` (or not given with \
--profile) are skipped and counted. Every scenario is run; failures are \
grouped by the kind of their first difference, one example per kind shrunk. \
Exit 0: every scenario passed; 1: a divergence or an implementation failure; \
2: the adapter is unusable (does not start or fails the handshake), the \
vectors cannot be read, the harness could not judge a scenario (the \
generator failed or the model refused it), the run was stopped before \
finding a failure, nothing was run, or a usage error.")]
pub(crate) struct ConformArgs {
    /// The adapter command line (run by `sh -c`).
    #[arg(long, value_name = "CMD")]
    adapter: String,
    /// A directory of vectors (`<name>.json`; `index.json` is skipped)
    /// instead of the committed ones built into the binary.
    #[arg(long, value_name = "DIR")]
    vectors: Option<PathBuf>,
    /// Skip the vectors.
    #[arg(long)]
    no_vectors: bool,
    /// Skip the vectors that pin a decision of the model's own where the
    /// RFDs leave the outcome open (`pins`, spec/vector-format.md).
    #[arg(long)]
    rfd_only: bool,
    /// Skip the vectors pinning this decision (repeatable; the IDs are in
    /// spec/vector-format.md "Pins").
    #[arg(long, value_name = "PIN", value_parser = pin_arg)]
    skip_pin: Vec<conformance::Pin>,
    /// Generated scenarios per profile, compared with the model.
    #[arg(long, value_name = "N", default_value_t = 0)]
    generated: u32,
    /// The seed of the generated scenarios.
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
    /// Run only generated case K of each profile (as the list of failing
    /// scenarios names it: `generated <profile> seed <S> case <K>`), and no
    /// vectors.
    #[arg(long, value_name = "K", conflicts_with = "generated")]
    case: Option<u32>,
    /// Only these profiles (repeatable; default: those the adapter lists).
    #[arg(long, value_name = "PROFILE", value_parser = super::profile_arg::ConformProfileParser)]
    profile: Vec<ProfileName>,
    /// Seconds to wait for each reply (at least 1).
    #[arg(long, value_name = "SECONDS", default_value_t = 30, value_parser = super::at_least_one::<u64>)]
    timeout: u64,
    /// Scenarios tried, at most, when shrinking one kind's example.
    #[arg(long, value_name = "STEPS", default_value_t = 10000)]
    shrink_budget: u32,
    /// Do not shrink: report each kind's smallest failure as drawn.
    #[arg(long)]
    no_shrink: bool,
    /// Seconds one scenario may take, its shrinking included; shrinking
    /// stops there and reports the smallest failure found so far.
    #[arg(long, value_name = "SECONDS", default_value_t = 120)]
    scenario_time_limit: u64,
    /// `text`, `json` (version 1) or `junit` (JUnit XML).
    #[arg(long, value_enum, default_value_t = ConformFormat::Text)]
    format: ConformFormat,
    /// For an adapter with `"scheduler": "free"`: the most schedules of the
    /// model tried to explain one observation (a witness); none found
    /// within them fails the scenario as "no witness".
    #[arg(long, value_name = "N", default_value_t = conformance::witness::DEFAULT_WITNESS_BUDGET)]
    witness_budget: usize,
}

fn pin_arg(s: &str) -> Result<conformance::Pin, String> {
    conformance::Pin::from_id(s).ok_or_else(|| {
        let ids: Vec<&str> = conformance::PINS.iter().map(|p| p.pin.id()).collect();
        format!("unknown pin {s:?}; one of: {}", ids.join(", "))
    })
}

/// Reads the vectors of `dir` (`<name>.json`, `index.json` left out),
/// sorted by file name; an unreadable or malformed file is an error naming
/// it (and the line and column).
pub fn read_vectors(dir: &std::path::Path) -> Result<Vec<Vector>, String> {
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
            parse_vector(&p.display().to_string(), &text)
        })
        .collect()
}

fn parse_vector(origin: &str, text: &str) -> Result<Vector, String> {
    serde_json::from_str(text).map_err(|e| {
        format!(
            "{origin}: not a conformance vector (line {}, column {}): {e}",
            e.line(),
            e.column()
        )
    })
}

/// The vectors built into the binary ([`BUILTIN_VECTORS`]).
pub fn builtin_vectors() -> Result<Vec<Vector>, String> {
    BUILTIN_VECTORS
        .iter()
        .map(|(name, text)| parse_vector(&format!("built-in vector {name}"), text))
        .collect()
}

/// What the run covered, beside its outcomes (for the report).
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    /// The adapter's name.
    pub adapter: String,
    /// The profiles run.
    pub profiles: Vec<ProfileName>,
    /// `core` or `full`.
    pub language: &'static str,
    /// Where the vectors came from (`built-in` or a directory), if run.
    pub vectors_from: Option<String>,
    /// Vectors skipped because of their profile.
    pub skipped_profile: Vec<String>,
    /// `steered` or `free` (`init_ok`'s `scheduler`).
    pub scheduler: &'static str,
    /// Vectors skipped as outside the core language.
    pub skipped_language: Vec<String>,
    /// Vectors skipped because they pin a model decision the run opted out
    /// of (`--rfd-only`, `--skip-pin`).
    pub skipped_pinned: Vec<String>,
    /// The pinned skips by decision (`N skipped (pin a model decision: …)`).
    pub pinned_summary: Option<String>,
    /// Generated scenarios per profile, and their seed.
    pub generated: (u32, u64),
    /// What the run does not compare, and why (capabilities, pins,
    /// `--rfd-only`); every format states it.
    pub not_compared: Vec<conformance::NotCompared>,
}

/// Runs `conform`; returns the exit code.
pub(crate) fn conform_command(args: ConformArgs, global: &super::GlobalArgs) -> i32 {
    conform_with_stop(args, global, &subprocess::interrupted)
}

/// `conform`, stopped between scenarios (and shrink steps) as soon as
/// `stop` says so; what ran is reported.
pub(crate) fn conform_with_stop(
    args: ConformArgs,
    global: &super::GlobalArgs,
    stop: &dyn Fn() -> bool,
) -> i32 {
    let mut imp = match Subprocess::start(&args.adapter, Duration::from_secs(args.timeout)) {
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
    if profiles.is_empty() {
        // Nothing to run is no verdict: say which profiles the adapter runs.
        let names =
            |ps: &[ProfileName]| ps.iter().map(|p| p.as_str()).collect::<Vec<_>>().join(", ");
        eprintln!(
            "inquiry-model conform: no profile to run: the adapter runs {}; --profile names {}",
            match imp.profiles.as_slice() {
                [] => "none".to_owned(),
                ps => names(ps),
            },
            names(&args.profile)
        );
        return EXIT_UNUSABLE;
    }
    let core_only = imp.core_only;
    imp.capabilities.witness_budget = args.witness_budget.max(1);
    let mut header = Header {
        adapter: imp.name.clone(),
        profiles: profiles.clone(),
        language: if core_only { "core" } else { "full" },
        scheduler: match imp.capabilities.scheduler {
            conformance::SchedulerCapability::Steered => "steered",
            conformance::SchedulerCapability::Free => "free",
        },
        vectors_from: None,
        skipped_profile: Vec::new(),
        skipped_language: Vec::new(),
        skipped_pinned: Vec::new(),
        pinned_summary: None,
        not_compared: conformance::not_compared_by(&imp.capabilities),
        generated: (
            if args.case.is_some() {
                1
            } else {
                args.generated
            },
            args.seed,
        ),
    };
    let mut vectors = Vec::new();
    if !args.no_vectors && args.case.is_none() {
        let all = match &args.vectors {
            Some(dir) => read_vectors(dir),
            None => builtin_vectors(),
        };
        let all = match all {
            Ok(v) => v,
            Err(e) => {
                eprintln!("inquiry-model conform: {e}");
                return EXIT_UNUSABLE;
            }
        };
        header.vectors_from = Some(match &args.vectors {
            Some(dir) => dir.display().to_string(),
            None => "built-in".to_owned(),
        });
        for v in all {
            if !profiles.contains(&v.scenario.profile) {
                header.skipped_profile.push(v.name);
            } else if core_only && !conformance::core_scenario(&v.scenario) {
                header.skipped_language.push(v.name);
            } else {
                vectors.push(v);
            }
        }
    }
    let skip: Vec<conformance::Pin> = match args.rfd_only {
        true => conformance::PINS.iter().map(|p| p.pin).collect(),
        false => args.skip_pin.clone(),
    };
    let pinned = conformance::skip_pinned(vectors, &skip);
    header.pinned_summary = pinned.summary();
    header.skipped_pinned = pinned.skipped_names.clone();
    let vectors = pinned.kept;
    let total = vectors.len() + header.generated.0 as usize * profiles.len();
    if total == 0 {
        eprintln!("inquiry-model conform: nothing was run (no vectors or profiles selected)");
        return EXIT_UNUSABLE;
    }
    let generator = move |p: ProfileName| -> BoxedStrategy<Scenario> {
        if core_only {
            conformance::core_scenarios(p).boxed()
        } else {
            crate::generate::scenario::scenario_under(Just(p)).boxed()
        }
    };
    let limits = Limits {
        shrink_steps: if args.no_shrink {
            0
        } else {
            args.shrink_budget
        },
        scenario_time: Duration::from_secs(args.scenario_time_limit),
    };
    let line = super::progress::Progress::start(global, "conform", total as u64, "cases");
    let mut progress = |p: Progress| {
        let what = match p.shrinking {
            None => String::new(),
            Some(k) => format!("; shrinking kind {k}"),
        };
        line.set(
            p.done as u64,
            format!("cases, {} failed so far{what}", p.failures),
        );
    };
    let mut run = Run::new(&mut imp, &generator, limits, stop, &mut progress, total);
    run.vectors(&vectors);
    for p in &profiles {
        match args.case {
            None => run.generated(*p, args.generated, args.seed),
            Some(k) => run.generated_cases(*p, k..k.saturating_add(1), args.seed),
        }
    }
    let report = run.finish();
    line.finish();
    let text = match args.format {
        ConformFormat::Text => output::text(&header, &report),
        ConformFormat::Json => output::json(&header, &report),
        ConformFormat::Junit => junit(&header, &report),
    };
    if std::io::stdout().write_all(text.as_bytes()).is_err() {
        return EXIT_UNUSABLE;
    }
    if stop() {
        // The case in flight may have failed only because the adapter was
        // killed: an interrupted run is never a verdict on the adapter.
        eprintln!(
            "inquiry-model conform: interrupted (the adapter was killed); what ran is reported above"
        );
        return EXIT_UNUSABLE;
    }
    exit_code(&report)
}

/// 2 when the harness could not judge a scenario, else 1 when one failed,
/// else 2 when the run was stopped early, else 0.
fn exit_code(report: &RunReport) -> i32 {
    if report.harness_errors() > 0 {
        EXIT_UNUSABLE
    } else if report.failed() > 0 {
        EXIT_VIOLATIONS
    } else if report.stopped {
        EXIT_UNUSABLE
    } else {
        EXIT_OK
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::run::{CaseId, CaseResult, Outcome};
    use crate::conformance::{Failure, Verdict};

    fn outcome(result: CaseResult) -> Outcome {
        Outcome {
            case: CaseId::Vector {
                name: "v".to_owned(),
            },
            seconds: 0.0,
            result,
        }
    }

    fn report(results: Vec<CaseResult>, stopped: bool) -> RunReport {
        RunReport {
            outcomes: results.into_iter().map(outcome).collect(),
            groups: Vec::new(),
            stopped,
            seconds: 0.0,
        }
    }

    /// Rule: CONF-HARNESS-ERROR — a case the harness could not judge exits
    /// 2 even beside a failure; a failure alone exits 1; a run stopped
    /// before finding one exits 2; a whole passing run exits 0.
    #[test]
    fn a_harness_error_exits_2() {
        let failed = || {
            CaseResult::Failed(Failure {
                name: "v".to_owned(),
                scenario: serde_json::from_str(r#"{"tools":{},"turns":[]}"#).expect("a scenario"),
                verdict: Verdict::ImplementationFailed {
                    error: "no".to_owned(),
                },
                side_by_side: String::new(),
            })
        };
        let harness = || CaseResult::HarnessError {
            error: "the model refused the scenario".to_owned(),
            scenario: None,
        };
        assert_eq!(exit_code(&report(vec![failed(), harness()], false)), 2);
        assert_eq!(
            exit_code(&report(vec![CaseResult::Passed, failed()], true)),
            1
        );
        assert_eq!(exit_code(&report(vec![CaseResult::Passed], true)), 2);
        assert_eq!(exit_code(&report(vec![CaseResult::Passed], false)), 0);
    }
}
