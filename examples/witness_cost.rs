//! The cost of the witness search (rule `CONF-WITNESS`): the correct
//! free-scheduler implementation (`conformance::witness::FreeModel`: the
//! model ordering its own parallel work with a shuffle seeded by the
//! scenario, prompts reported without call IDs) on N generated scenarios
//! per profile, each judged as `conform` judges a free adapter: compared
//! with the model's run of the scenario's own schedule, and when that
//! differs, searched for a witness. Prints, per profile, how many
//! scenarios needed the search, the schedules tried per searched scenario
//! (mean, max), how many runs the cut stopped early, and the time; with
//! `--no-cut` also the schedules the same searches take without cutting.
//! Exits 1 if any scenario has no witness.
//!
//! ```sh
//! make conform-free                 # 2 000 per profile, release build
//! cargo run --release --example witness_cost -- 300 --no-cut
//! ```

use std::time::Instant;

use inquiry_model::conformance::witness::{self, EntryKind, FreeModel, Outcome, Search};
use inquiry_model::conformance::{Implementation, Observed};
use inquiry_model::generate::scenario::scenario_under;
use inquiry_model::profile::ProfileName;
use inquiry_model::scenario;
use proptest::prelude::Just;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cases: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(2000);
    let no_cut = args.iter().any(|a| a == "--no-cut");
    let budget = witness::DEFAULT_WITNESS_BUDGET;
    let observes = EntryKind::ALL.into_iter().collect();
    let mut failed = 0usize;
    println!(
        "{:<8} {:>6} {:>9} {:>12} {:>6} {:>10} {:>9} {:>12} {:>8}",
        "profile",
        "cases",
        "searched",
        "mean sched",
        "max",
        "cut runs",
        "time s",
        "no-cut mean",
        "no-cut max"
    );
    for p in ProfileName::ALL {
        let mut seed_bytes = [0u8; 32];
        seed_bytes[..8].copy_from_slice(&1u64.to_le_bytes());
        let mut runner = TestRunner::new_with_rng(
            Config::default(),
            TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes),
        );
        let strategy = scenario_under(Just(p));
        let (mut searched, mut total, mut max, mut cut) = (0usize, 0usize, 0usize, 0usize);
        let (mut nc_total, mut nc_max) = (0usize, 0usize);
        let started = Instant::now();
        for _ in 0..cases {
            let s = strategy
                .new_tree(&mut runner)
                .expect("a scenario")
                .current();
            let actual = FreeModel::default().run(&s).expect("the model runs");
            let expected = Observed::of(&scenario::run(&s).expect("the model runs"));
            if witness::explains(&s, &expected, &actual, &observes).is_none() {
                continue;
            }
            searched += 1;
            let how = Search {
                observes: observes.clone(),
                budget,
                cut: true,
                skip_pins: Default::default(),
            };
            let (outcome, stats) = witness::search(&s, &actual, &how).expect("the model runs");
            if !matches!(outcome, Outcome::Found { .. }) {
                failed += 1;
                println!(
                    "NO WITNESS ({outcome:?}, {} schedules): {}",
                    stats.schedules,
                    serde_json::to_string(&s).unwrap_or_default()
                );
            }
            total += stats.schedules;
            max = max.max(stats.schedules);
            cut += stats.cut;
            if no_cut {
                let how = Search {
                    cut: false,
                    skip_pins: Default::default(),
                    budget: 1_000_000,
                    ..how
                };
                let (_, stats) = witness::search(&s, &actual, &how).expect("the model runs");
                nc_total += stats.schedules;
                nc_max = nc_max.max(stats.schedules);
            }
        }
        let mean = |t: usize| {
            if searched == 0 {
                0.0
            } else {
                t as f64 / searched as f64
            }
        };
        println!(
            "{:<8} {:>6} {:>9} {:>12.2} {:>6} {:>10} {:>9.2} {:>12} {:>8}",
            p.as_str(),
            cases,
            searched,
            mean(total),
            max,
            cut,
            started.elapsed().as_secs_f64(),
            if no_cut {
                format!("{:.2}", mean(nc_total))
            } else {
                "-".to_owned()
            },
            if no_cut {
                nc_max.to_string()
            } else {
                "-".to_owned()
            },
        );
    }
    if failed > 0 {
        println!("FAILED: {failed} scenarios without a witness");
        std::process::exit(1);
    }
    println!("PASS");
}
