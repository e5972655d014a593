//! How many generated `conform` scenarios have a terminal and show a
//! question prompt in the model's run (`docs/conformance-measurements.md`):
//! `cargo run --example conform_prompt_share -- [CASES_PER_PROFILE] [SEED]`.
//! Prints the raw generator (every reply the scenario language can say)
//! and `conform`'s generator under the default environment, full and core
//! language, over the three profiles.

use inquiry_model::conformance::environment::{
    Environment, PromptShare, conform_scenarios, prompt_share,
};
use inquiry_model::profile::ProfileName;
use proptest::strategy::{Just, Strategy};

fn main() {
    let mut args = std::env::args().skip(1);
    let cases: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(100);
    let seed: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let show = |what: &str, s: PromptShare| {
        println!(
            "{what}: {} drawn, {} with a terminal, {} showed a prompt",
            s.drawn, s.tty, s.prompted
        );
    };
    let profiles = ProfileName::ALL;
    show(
        "raw generator (full language)",
        prompt_share(
            |p| inquiry_model::generate::scenario::scenario_under(Just(p)).boxed(),
            &profiles,
            cases,
            seed,
        ),
    );
    for core in [false, true] {
        show(
            &format!(
                "conform, default environment ({} language)",
                if core { "core" } else { "full" }
            ),
            prompt_share(
                |p| conform_scenarios(p, core, &Environment::default()),
                &profiles,
                cases,
                seed,
            ),
        );
    }
}
