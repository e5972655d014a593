//! Rule `PERF-RUN-TOOLS`: the tools a run's coordinator is built with,
//! resolved tool by tool when no `-t`/`-T` flag is given, are those the
//! plain path (every tool layered and resolved together) gives.

use proptest::prelude::*;

use super::{Scenario, run_tools, run_tools_plain};
use crate::explore::{self, Family};
use crate::generate;
use crate::model::config::{self, PartialToolConfig};
use crate::scenario::ScenarioError;

/// Generated scenarios, their toggles dropped one time in two (so both the
/// tool-by-tool path and the plain one under flags are drawn).
fn scenarios() -> impl Strategy<Value = Scenario> {
    (generate::scenario::scenario(), any::<bool>()).prop_map(|(mut s, drop_toggles)| {
        if drop_toggles {
            s.toggles.clear();
        }
        s
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(256)
    ))]

    /// Rule: PERF-RUN-TOOLS — invariant: the tools a run starts with (each
    /// enabled scenario tool's spec, in the scenario's order, or the error)
    /// are those of the plain resolution, with or without toggles.
    #[test]
    fn run_tools_are_the_plain_resolutions(s in scenarios()) {
        prop_assert_eq!(run_tools(&s), run_tools_plain(&s));
    }
}

/// Rule: PERF-RUN-TOOLS — every scenario of the small exploration scope
/// sampled (the bench's runs) starts with the plain resolution's tools.
#[test]
fn explored_scenarios_start_with_the_plain_resolutions_tools() {
    let mut untoggled = 0;
    for family in [Family::Single, Family::Pairs] {
        for n in (0..explore::family_size(family)).step_by(97) {
            let s = explore::scenario_at(family, n);
            untoggled += usize::from(s.toggles.is_empty());
            assert_eq!(run_tools(&s), run_tools_plain(&s), "{family:?} {n}");
        }
    }
    assert!(untoggled > 0, "the sample takes the tool-by-tool path");
}

/// Rule: PERF-RUN-TOOLS — the agreement can fail: resolving a tool from the
/// user's layer alone (without the built-in's registered layer under it)
/// differs from the plain path on a scenario that lists `ask_user` without
/// setting its `run` (the built-in registers `unattended`, an unset `run`
/// asks).
#[test]
fn resolving_without_the_builtin_layer_disagrees() {
    fn alone(
        s: &Scenario,
    ) -> Result<crate::model::tool::Map<String, crate::model::coordinator::ToolSpec>, ScenarioError>
    {
        let mut tools = crate::model::tool::Map::default();
        for (name, setup) in &s.tools {
            let layer: PartialToolConfig = setup.layer(name);
            // The planted bug: a name that is not a built-in's key.
            let settings = config::untoggled_settings(&format!("{name}!"), layer)
                .map_err(|e| ScenarioError::Unacceptable(e.to_string()))?;
            if settings.enable.state {
                tools.insert(name.clone(), setup.spec_of(name, settings));
            }
        }
        Ok(tools)
    }
    // RFD 083's own vector: `ask_user` listed with only its program.
    let s: Scenario = serde_json::from_str(
        r#"{"profile": "rfd083", "tty": false,
            "tools": {"ask_user": {"program": {"kind": "ask_user"}}},
            "turns": [], "prompter": [], "backend": [], "permissions": [], "schedule": []}"#,
    )
    .expect("a valid scenario");
    assert_eq!(run_tools(&s), run_tools_plain(&s));
    assert_ne!(alone(&s), run_tools_plain(&s));
}

/// Rule: PERF-RUN-TOOLS — a tool that is not a built-in and sets none of
/// `run`, `result` and `enable` (the generator always sets `run`) starts
/// as the plain path and the written defaults say: `run` asks
/// (spec/DECISIONS.md "Configuration: an unset `run` asks"), `result` is
/// delivered unattended, and it is on; with `enable` off it is not offered.
#[test]
fn a_tool_with_nothing_set_takes_the_defaults() {
    use crate::model::coordinator::RunPolicy;
    let scenario = |enable: &str| -> Scenario {
        serde_json::from_str(&format!(
            r#"{{"tools": {{"t": {{"source": {{"kind": "local"}}{enable},
                "program": {{"kind": "script", "asks": []}}}}}}, "turns": []}}"#
        ))
        .expect("a valid scenario")
    };
    let s = scenario("");
    let tools = run_tools(&s).expect("resolves");
    assert_eq!(
        (tools["t"].run, tools["t"].result),
        (RunPolicy::Ask, RunPolicy::Unattended)
    );
    assert_eq!(run_tools(&s), run_tools_plain(&s));
    let off = scenario(r#", "enable": false"#);
    assert!(run_tools(&off).expect("resolves").is_empty());
    assert_eq!(run_tools(&off), run_tools_plain(&off));
}
