//! `inquiry-model conform`: runs an implementation in any language, as a
//! subprocess speaking JSON Lines (`spec/conform-protocol.md`), on the
//! conformance vectors (built into the binary, or `--vectors DIR`) and on
//! generated scenarios; runs every scenario, groups the failures by root
//! cause, shrinks one example per group, and reports as text, JSON or JUnit XML
//! (rules `CLI-CONFORM`, `CONF-RUN-TO-THE-END`).

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};
use proptest::strategy::{BoxedStrategy, Strategy};

mod output;
pub(crate) mod subprocess;

use super::{EXIT_OK, EXIT_UNUSABLE, EXIT_VIOLATIONS};
use crate::conformance::parallel::{self, Shard, Stops};
use crate::conformance::run::{CaseId, Limits, Progress, Run, RunReport, ShrinkRuns};
use crate::conformance::{self, Vector};
use crate::profile::ProfileName;
use crate::review::profile_file::{self, RuleSet};
use crate::scenario::Scenario;
use subprocess::{Subprocess, Watch};

pub(crate) use output::junit;
pub use output::xml_escape;

include!(concat!(env!("OUT_DIR"), "/builtin_vectors.rs"));

/// The version of the `conform --format json` document.
pub(crate) const CONFORM_JSON_VERSION: u32 = 1;

/// How `conform` reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ConformFormat {
    /// For a person: per root cause of failure a count and the smallest
    /// example.
    Text,
    /// One JSON document (versioned).
    Json,
    /// JUnit XML, one test case per vector or generated scenario.
    Junit,
    /// GitHub Actions workflow commands: an `::error` per root cause of
    /// failure and per harness error, then the text report.
    Github,
}

/// `inquiry-model conform`.
#[derive(Args, Debug)]
#[command(after_help = "\
The adapter command is run with `sh -c`; it reads one JSON message per line \
on stdin and answers each with one line on stdout (spec/conform-protocol.md). \
Vectors of profiles the adapter does not list in `init_ok` (or not given with \
--profile) are skipped and counted. Every scenario is run; failures are \
grouped by root cause (the values that differ), one example per group shrunk \
(by default, all shrinking spends at most the run's own adapter runs). \
Exit 0: every scenario passed; 1: a divergence or an implementation failure; \
2: the adapter is unusable (does not start or fails the handshake), the \
vectors cannot be read, the harness could not judge a scenario (the \
generator failed or the model refused it), the run was stopped before \
finding a failure, nothing was run, or a usage error.")]
pub(crate) struct ConformArgs {
    /// The adapter command line (run by `sh -c`).
    #[arg(long, value_name = "CMD")]
    adapter: String,
    /// A directory of vectors (`<name>.json`)
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
    /// Only these profiles (repeatable; default: those the adapter lists):
    /// `legacy`, `rfd082`, `rfd083`, a profile file equal to one, or one
    /// amendment (a profile file with a `base`): announced to the adapter,
    /// and the judge of an adapter that declares it (else the base is).
    #[arg(long, value_name = "PROFILE", value_parser = super::profile_arg::ConformProfileParser)]
    profile: Vec<RuleSet>,
    /// Seconds to wait for each reply (at least 1).
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_TIMEOUT, value_parser = super::at_least_one::<u64>)]
    timeout: u64,
    /// Give up on the adapter after this many consecutive replies did not
    /// come in time (exit 2; the cases left are reported as not run).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_GIVE_UP, value_parser = super::at_least_one::<u32>)]
    give_up_after: u32,
    /// Adapter processes run at once (1 to 64); the report is the same as
    /// with one, in the same order.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = jobs_arg)]
    jobs: usize,
    /// Run only part K of N of the whole run (`K/N`, 0 <= K < N): the
    /// cases at positions K, K+N, K+2N, … of the vectors followed by each
    /// profile's generated cases. The N parts are disjoint and together
    /// are the whole run.
    #[arg(long, value_name = "K/N", value_parser = Shard::parse)]
    shard: Option<Shard>,
    /// Scenarios tried, at most, when shrinking one kind's example.
    #[arg(long, value_name = "STEPS", default_value_t = 10000)]
    shrink_budget: u32,
    /// Do not shrink: report each group's smallest failure as drawn (what
    /// nothing uses is still removed).
    #[arg(long)]
    no_shrink: bool,
    /// Adapter runs all shrinking together may spend (default: as many as
    /// the run's cases took), shared among the groups, largest first.
    #[arg(long, value_name = "RUNS")]
    shrink_runs: Option<u64>,
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

/// The default `--timeout`, in seconds.
pub(crate) const DEFAULT_TIMEOUT: u64 = 15;

/// The default `--give-up-after`: with [`DEFAULT_TIMEOUT`], a silent
/// adapter is given up on within a minute (45 s of waiting).
pub(crate) const DEFAULT_GIVE_UP: u32 = 3;

fn jobs_arg(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (1..=subprocess::MAX_JOBS).contains(&n) => Ok(n),
        _ => Err(format!(
            "{s:?}: --jobs is a number from 1 to {}",
            subprocess::MAX_JOBS
        )),
    }
}

fn pin_arg(s: &str) -> Result<conformance::Pin, String> {
    conformance::Pin::from_id(s).ok_or_else(|| {
        let ids: Vec<&str> = conformance::PINS.iter().map(|p| p.pin.id()).collect();
        format!("unknown pin {s:?}; one of: {}", ids.join(", "))
    })
}

/// Reads the vectors of `dir` (every `<name>.json`),
/// sorted by file name; an unreadable or malformed file is an error naming
/// it (and the line and column).
pub fn read_vectors(dir: &std::path::Path) -> Result<Vec<Vector>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
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
pub(crate) fn builtin_vectors() -> Result<Vec<Vector>, String> {
    BUILTIN_VECTORS
        .iter()
        .map(|(name, text)| parse_vector(&format!("built-in vector {name}"), text))
        .collect()
}

/// What the run covered, beside its outcomes (for the report).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Header {
    /// The adapter's name.
    pub(crate) adapter: String,
    /// The profiles run.
    pub(crate) profiles: Vec<ProfileName>,
    /// `core` or `full`.
    pub(crate) language: &'static str,
    /// Where the vectors came from (`built-in` or a directory), if run.
    pub(crate) vectors_from: Option<String>,
    /// Vectors skipped because of their profile.
    pub(crate) skipped_profile: Vec<String>,
    /// `steered` or `free` (`init_ok`'s `scheduler`).
    pub(crate) scheduler: &'static str,
    /// Vectors skipped as outside the core language.
    pub(crate) skipped_language: Vec<String>,
    /// Vectors skipped because they pin a model decision the run opted out
    /// of (`--rfd-only`, `--skip-pin`).
    pub(crate) skipped_pinned: Vec<String>,
    /// The pinned skips by decision (`N skipped (pin a model decision: …)`).
    pub(crate) pinned_summary: Option<String>,
    /// Generated scenarios per profile, and their seed.
    pub(crate) generated: (u32, u64),
    /// The part of the whole run this run is (`--shard`), if one.
    pub(crate) shard: Option<Shard>,
    /// The cases of this run (or shard) that did not run, in order.
    pub(crate) not_run: Vec<CaseId>,
    /// Why they did not run, when some did not.
    pub(crate) not_run_why: Option<String>,
    /// What the run does not compare, and why (capabilities, pins,
    /// `--rfd-only`); every format states it.
    pub(crate) not_compared: Vec<conformance::NotCompared>,
    /// The amendment announced, and what the adapter is judged against.
    pub(crate) amendment: Option<AmendmentReport>,
}

/// What a report says of the amendment a run announced (rule
/// `CONF-AMENDMENT`): every format states it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AmendmentReport {
    /// The profile file, as `--profile` named it.
    pub(crate) file: String,
    /// The amendment as `init` announced it (`title`, `amends`, `base`,
    /// `switches`, `tables`).
    pub(crate) announced: serde_json::Value,
    /// Its base.
    pub(crate) base: crate::profile::ProfileName,
    /// The adapter declared it implements it (`init_ok`'s `amendment`).
    pub(crate) declared: bool,
}

impl AmendmentReport {
    /// What the adapter is judged against: `amendment` or `base`.
    pub(crate) fn judged_against(&self) -> &'static str {
        if self.declared { "amendment" } else { "base" }
    }

    /// The text report's line, without `amendment: `.
    pub(crate) fn line(&self) -> String {
        let (file, base) = (&self.file, self.base);
        if self.declared {
            format!("{file} over {base}: the adapter implements it; judged against it")
        } else {
            format!(
                "{file} over {base}: the adapter does not declare it (init_ok `amendment`); judged against the base {base}"
            )
        }
    }
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
    stop: &(dyn Fn() -> bool + Sync),
) -> i32 {
    let watch = Watch::new(args.give_up_after);
    let amendments: Vec<&RuleSet> = args
        .profile
        .iter()
        .filter(|s| s.builtin_equal().is_none())
        .collect();
    if amendments.len() > 1 {
        eprintln!(
            "inquiry-model conform: --profile names more than one amendment; run them one at a time"
        );
        return EXIT_UNUSABLE;
    }
    let amendment = amendments.first().map(|set| amendment_message(set));
    let started = Subprocess::start(
        &args.adapter,
        Duration::from_secs(args.timeout),
        std::sync::Arc::clone(&watch),
        amendment.as_ref().map(|(doc, _)| doc),
    );
    let mut imp = match started {
        Ok(s) => s,
        Err(_) if stop() => {
            eprintln!("inquiry-model conform: interrupted before the adapter was ready");
            return EXIT_UNUSABLE;
        }
        Err(e) => {
            eprintln!("inquiry-model conform: unusable adapter: {e}");
            return EXIT_UNUSABLE;
        }
    };
    // The built-in each `--profile` names: itself, or an amendment's base.
    let names: Vec<ProfileName> = args
        .profile
        .iter()
        .map(|s| s.builtin_equal().unwrap_or(s.judged_as))
        .collect();
    let profiles: Vec<ProfileName> = ProfileName::ALL
        .into_iter()
        .filter(|p| imp.profiles.contains(p) && (args.profile.is_empty() || names.contains(p)))
        .collect();
    if profiles.is_empty() {
        // Nothing to run is no verdict: say which profiles the adapter runs.
        let list =
            |ps: &[ProfileName]| ps.iter().map(|p| p.as_str()).collect::<Vec<_>>().join(", ");
        eprintln!(
            "inquiry-model conform: no profile to run: the adapter runs {}; --profile names {}",
            match imp.profiles.as_slice() {
                [] => "none".to_owned(),
                ps => list(ps),
            },
            list(&names)
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
        shard: args.shard,
        not_run: Vec::new(),
        not_run_why: None,
        amendment: amendments
            .first()
            .zip(amendment.as_ref())
            .map(|(set, (doc, _))| AmendmentReport {
                file: set.to_string(),
                announced: doc.clone(),
                base: set.judged_as,
                declared: imp.implements_amendment,
            }),
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
                let mut v = v;
                if let (Some((_, switches)), true) = (&amendment, imp.implements_amendment) {
                    v.scenario.amendment = Some(switches.clone());
                }
                vectors.push(v);
            }
        }
    }
    let skip: Vec<conformance::Pin> = match args.rfd_only {
        true => conformance::PINS.iter().map(|p| p.pin).collect(),
        false => args.skip_pin.clone(),
    };
    // Pins cover fields, not vectors: every vector and generated scenario
    // runs, and what a skipped pin covers is compared on neither side.
    imp.capabilities.skip_pins = skip.iter().copied().collect();
    // Every format states what the skipped pins leave uncompared (rule
    // `CONF-NOT-COMPARED`).
    header.not_compared.extend(
        conformance::pins::not_compared(&imp.capabilities.skip_pins)
            .into_iter()
            .map(|(pin, what)| conformance::NotCompared {
                what: what.to_owned(),
                why: format!(
                    "because pin {} is skipped (--rfd-only or --skip-pin): the model's own decision",
                    pin.id()
                ),
            }),
    );
    let cases = match args.case {
        None => 0..args.generated,
        Some(k) => k..k.saturating_add(1),
    };
    let plan = parallel::plan(
        vectors.len(),
        &profiles,
        cases,
        args.seed,
        args.shard.unwrap_or(Shard::WHOLE),
    );
    let total = plan.len();
    if total == 0 {
        eprintln!(
            "inquiry-model conform: nothing was run (no vectors or profiles selected{})",
            match args.shard {
                Some(s) => format!(", or none in shard {s}"),
                None => String::new(),
            }
        );
        return EXIT_UNUSABLE;
    }
    let environment = imp.environment.clone();
    // An adapter that implements the amendment is sent it in every
    // scenario, and the model runs the scenario under it.
    let announced = amendment
        .filter(|_| imp.implements_amendment)
        .map(|(_, switches)| switches);
    let generator = move |p: ProfileName| -> BoxedStrategy<Scenario> {
        let scenarios = conformance::environment::conform_scenarios(p, core_only, &environment);
        match announced.clone() {
            None => scenarios,
            Some(a) => scenarios
                .prop_map(move |mut s| {
                    s.amendment = Some(a.clone());
                    s
                })
                .boxed(),
        }
    };
    let limits = Limits {
        shrink_steps: if args.no_shrink {
            0
        } else {
            args.shrink_budget
        },
        scenario_time: Duration::from_secs(args.scenario_time_limit),
        shrink_runs: match args.shrink_runs {
            None => ShrinkRuns::AsTheRun,
            Some(n) => ShrinkRuns::AtMost(n),
        },
    };
    let line = super::progress::Progress::start(global, "conform", total as u64, "cases");
    let gave_up = || watch.gave_up();
    let halt = || stop() || gave_up();
    let interrupted = || stop();
    let loop_started = std::time::Instant::now();
    let mut siblings: Vec<Subprocess> = (1..args.jobs).map(|_| imp.sibling()).collect();
    let ran = {
        let mut imps: Vec<&mut (dyn conformance::Implementation + Send)> = Vec::new();
        imps.push(&mut imp);
        for s in &mut siblings {
            imps.push(s);
        }
        parallel::run_planned(
            &mut imps,
            &vectors,
            &plan,
            &generator,
            &Stops {
                stop: &halt,
                interrupted: &interrupted,
            },
            &mut |done, failures| {
                line.set(done as u64, format!("cases, {failures} failed so far"));
            },
        )
    };
    drop(siblings);
    if !ran.not_run.is_empty() {
        header.not_run_why = Some(if gave_up() {
            format!(
                "given up on the adapter after {} consecutive replies did not come within {} s",
                watch.limit(),
                args.timeout
            )
        } else {
            "the run was interrupted".to_owned()
        });
    }
    header.not_run = ran.not_run;
    let mut progress = |p: Progress| {
        let what = match p.shrinking {
            None => String::new(),
            Some(k) => format!("; shrinking group {k}"),
        };
        line.set(
            p.done as u64,
            format!("cases, {} failed so far{what}", p.failures),
        );
    };
    let mut run = Run::new(&mut imp, &generator, limits, &halt, &mut progress, total);
    let stopped = !header.not_run.is_empty();
    run.extend(loop_started, ran.outcomes, stopped, ran.adapter_runs);
    let report = run.finish();
    line.finish();
    let text = match args.format {
        ConformFormat::Text => output::text(&header, &report),
        ConformFormat::Json => output::json(&header, &report),
        ConformFormat::Junit => junit(&header, &report),
        ConformFormat::Github => output::github(&header, &report),
    };
    if std::io::stdout().write_all(text.as_bytes()).is_err() {
        return EXIT_UNUSABLE;
    }
    if stop() {
        // The case in flight may have failed only because the adapter was
        // killed: it is not recorded, and an interrupted run is never a
        // verdict on the adapter.
        eprintln!(
            "inquiry-model conform: interrupted (the adapter was killed); what ran is reported above"
        );
        return EXIT_UNUSABLE;
    }
    if watch.gave_up() {
        eprintln!(
            "inquiry-model conform: gave up on the adapter: {} consecutive replies did not come within {} s; {} not run",
            watch.limit(),
            args.timeout,
            crate::words::count(header.not_run.len(), "case")
        );
        return EXIT_UNUSABLE;
    }
    exit_code(&report)
}

/// 2 when the harness could not judge a scenario, else 1 when one failed,
/// else 2 when the run was stopped early or nothing passed (every case
/// declined as unsupported), else 0.
fn exit_code(report: &RunReport) -> i32 {
    if report.harness_errors() > 0 {
        EXIT_UNUSABLE
    } else if report.failed() > 0 {
        EXIT_VIOLATIONS
    } else if report.stopped || report.passed() == 0 {
        EXIT_UNUSABLE
    } else {
        EXIT_OK
    }
}

/// The amendment as `init` announces it (`title`, `amends`, `base`,
/// `switches`, `tables`: the profile file's own fields) and as each
/// scenario carries it (`switches` and `tables` over the scenario's
/// profile).
fn amendment_message(
    set: &RuleSet,
) -> (
    serde_json::Value,
    serde_json::Map<String, serde_json::Value>,
) {
    let (title, amends) = match &set.origin {
        profile_file::Origin::File { title, amends, .. } => (title.clone(), amends.clone()),
        profile_file::Origin::Builtin => (set.to_string(), String::new()),
    };
    let doc = profile_file::to_amendment_file(
        &title,
        &amends,
        None,
        set.judged_as,
        &set.rules,
        &std::collections::BTreeMap::new(),
    );
    let mut doc = match doc {
        serde_json::Value::Object(m) => m,
        _ => serde_json::Map::new(),
    };
    doc.remove("$schema");
    let carried: serde_json::Map<String, serde_json::Value> = doc
        .iter()
        .filter(|(k, _)| *k == "switches" || *k == "tables")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    (serde_json::Value::Object(doc), carried)
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
            stopped,
            ..RunReport::default()
        }
    }

    fn header(amendment: Option<AmendmentReport>) -> Header {
        Header {
            adapter: "a".to_owned(),
            profiles: vec![crate::profile::ProfileName::Rfd082],
            language: "core",
            scheduler: "steered",
            vectors_from: None,
            skipped_profile: Vec::new(),
            skipped_language: Vec::new(),
            skipped_pinned: Vec::new(),
            pinned_summary: None,
            not_compared: Vec::new(),
            generated: (1, 3),
            shard: None,
            not_run: Vec::new(),
            not_run_why: None,
            amendment,
        }
    }

    /// Rule: CONF-AMENDMENT — every report format states the amendment a
    /// run announced: the file, what `init` announced (its base, switches
    /// and rows), whether the adapter declared it implements it, and what
    /// it was judged against (text: the `amendment:` line; JSON:
    /// `amendment` {`file`, `announced`, `adapter_declares`,
    /// `judged_against`}, `null` without one; JUnit: `amendment*`
    /// properties in every suite). A report that says "amendment" for an
    /// adapter that did not declare it, or drops the announcement, fails.
    #[test]
    fn every_format_reports_the_amendment() {
        let announced = serde_json::json!({"title": "t", "amends": "RFD 082", "base": "rfd082",
            "switches": {"question_id_separator": "refused"},
            "tables": {"cancellation": {"prompter_failure:io": {"reason": "backend_error"}}}});
        let r = report(vec![CaseResult::Passed], false);
        let none = output::json(&header(None), &r);
        let doc: serde_json::Value = serde_json::from_str(&none).expect("JSON");
        assert_eq!(doc["amendment"], serde_json::Value::Null);
        assert!(!output::junit(&header(None), &r).contains("amendment"));
        for declared in [true, false] {
            let h = header(Some(AmendmentReport {
                file: "amended.json".to_owned(),
                announced: announced.clone(),
                base: crate::profile::ProfileName::Rfd082,
                declared,
            }));
            let against = if declared { "amendment" } else { "base" };
            let doc: serde_json::Value = serde_json::from_str(&output::json(&h, &r)).expect("JSON");
            assert_eq!(
                doc["amendment"],
                serde_json::json!({"file": "amended.json", "announced": announced,
                    "adapter_declares": declared, "judged_against": against})
            );
            let xml = output::junit(&h, &r);
            let parsed = roxmltree::Document::parse(&xml).expect("well-formed");
            for suite in parsed.descendants().filter(|n| n.has_tag_name("testsuite")) {
                let prop = |name: &str| {
                    suite
                        .descendants()
                        .find(|p| p.has_tag_name("property") && p.attribute("name") == Some(name))
                        .and_then(|p| p.attribute("value"))
                        .map(str::to_owned)
                };
                assert_eq!(prop("amendment").as_deref(), Some("amended.json"));
                assert_eq!(
                    prop("amendment.adapter_declares"),
                    Some(declared.to_string())
                );
                assert_eq!(prop("amendment.judged_against").as_deref(), Some(against));
                let a: serde_json::Value =
                    serde_json::from_str(&prop("amendment.announced").unwrap_or_default())
                        .expect("the announcement as JSON");
                assert_eq!(a, announced);
            }
            let text = output::text(&h, &r);
            let line = text
                .lines()
                .find(|l| l.starts_with("amendment: amended.json over rfd082: "))
                .unwrap_or_else(|| panic!("{text}"));
            assert_eq!(line.ends_with("judged against it"), declared, "{line}");
            assert_eq!(line.ends_with("judged against the base rfd082"), !declared);
        }
    }

    /// Rule: CONF-GIVE-UP — at the default settings the waiting for a
    /// silent adapter (consecutive timeouts until the run gives up) stays
    /// within a minute, and giving up takes more than one timeout.
    #[test]
    fn a_silent_adapter_is_given_up_on_within_a_minute_by_default() {
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            conform: ConformArgs,
        }
        let cli =
            <Cli as clap::Parser>::try_parse_from(["conform", "--adapter", "x"]).expect("parses");
        let args = cli.conform;
        assert!(args.give_up_after > 1, "{}", args.give_up_after);
        let waiting = Duration::from_secs(args.timeout) * args.give_up_after;
        assert!(waiting <= Duration::from_secs(50), "{waiting:?}");
    }

    /// Rule: CONF-UNSUPPORTED — a run in which every case was declined
    /// (nothing passed, nothing failed) is no pass: exit 2.
    #[test]
    fn only_declined_cases_exit_2() {
        let declined = || CaseResult::Unsupported {
            reason: "no".to_owned(),
        };
        assert_eq!(exit_code(&report(vec![declined(), declined()], false)), 2);
        assert_eq!(
            exit_code(&report(vec![declined(), CaseResult::Passed], false)),
            0
        );
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
