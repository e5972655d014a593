//! Tool configuration (RFD 083 "Tool configuration", Phase 1 steps 2–3, and
//! "Drawbacks"): built-in defaults merge under user configuration, the two
//! `enable` shapes, and the `-t`/`-T` toggles.

use crate::model::ask_user;
use crate::model::config::{
    AllowToggle, ConfigError, ConfigSource, Enable, PartialEnable, PartialQuestionConfig,
    PartialStyle, PartialToolConfig, Toggle, ToolConfig, apply_toggles, builtins, effective_tools,
    layer_builtins, registered_config,
};
use crate::model::tool::Map;
use crate::model::tool::{QuestionConfig, QuestionTarget, RunPolicy, ToolSource};
use proptest::prelude::*;
use serde_json::{Value, json};

fn user(value: Value) -> Map<String, PartialToolConfig> {
    serde_json::from_value(value).expect("valid user configuration")
}

fn parse_err(value: Value) -> String {
    serde_json::from_value::<Map<String, PartialToolConfig>>(value)
        .expect_err("configuration must be refused")
        .to_string()
}

/// A user configuration with two ordinary tools beside the built-in.
fn with_other_tools(ask_user_layer: Value) -> Map<String, PartialToolConfig> {
    let mut value = json!({
        "fs_read_file": {"source": "local", "run": "unattended"},
        "web_search": {"source": "mcp.kagi.kagi_search_fetch"},
    });
    if !ask_user_layer.is_null() {
        value["ask_user"] = ask_user_layer;
    }
    user(value)
}

fn states(tools: &Map<String, ToolConfig>) -> Vec<(&str, bool)> {
    tools
        .iter()
        .map(|(name, t)| (name.as_str(), t.enable.state))
        .collect()
}

// ---------------------------------------------------------------------------
// Merge under (RFD 083 Phase 1 step 3).

/// Rule: CONFIG-MERGE-UNDER — a single-field user override
/// (`questions.answer.prompt_label`) keeps every other built-in default.
#[test]
fn single_field_override_keeps_every_builtin_default() {
    let tools = effective_tools(
        &user(json!({"ask_user": {"questions": {"answer": {"prompt_label": "Claude"}}}})),
        &[],
    )
    .unwrap();
    let ask = &tools["ask_user"];
    assert_eq!(ask.source, ConfigSource::Builtin { tool: None });
    assert_eq!(
        ask.enable,
        Enable {
            state: true,
            allow_toggle: AllowToggle::IfNamed
        }
    );
    assert_eq!(ask.run, RunPolicy::Unattended);
    assert_eq!(ask.result, RunPolicy::Unattended);
    assert!(ask.style.hidden);
    assert_eq!(ask.description.as_deref(), Some(ask_user::description()));
    assert_eq!(ask.parameters, Some(ask_user::parameters()));
    assert_eq!(
        ask.questions,
        Map::from_iter([(
            "answer".to_owned(),
            QuestionConfig {
                target: QuestionTarget::User,
                answer: None,
                prompt_label: Some("Claude".into()),
            }
        )])
    );
}

/// Rule: CONFIG-MERGE-UNDER — the pre-083 `or_insert` injection would have
/// kept the user's lone field and lost the rest: that layer alone does not
/// even name a source. Merging under is what makes it usable.
#[test]
fn the_user_layer_alone_is_not_a_tool() {
    let layer = &user(json!({"ask_user": {"questions": {"answer": {"prompt_label": "Claude"}}}}))["ask_user"];
    assert_eq!(
        layer.resolve("ask_user"),
        Err(ConfigError::MissingSource {
            tool: "ask_user".into()
        })
    );
    assert_eq!(
        ConfigError::MissingSource {
            tool: "ask_user".into()
        }
        .to_string(),
        "tool `ask_user` has no `source`: set `conversation.tools.ask_user.source` to \
         \"local\", \"mcp.<server>\" or \"builtin\""
    );
}

/// Rule: CONFIG-MERGE-UNDER — a question field the user sets merges key by
/// key with the built-in's question config: a static answer keeps the
/// "Assistant" label.
#[test]
fn question_config_merges_key_by_key() {
    let tools = effective_tools(
        &user(json!({"ask_user": {"questions": {"answer": {"answer": true}}}})),
        &[],
    )
    .unwrap();
    let q = tools["ask_user"].question("answer");
    assert_eq!(q.answer, Some(json!(true)));
    assert_eq!(q.prompt_label.as_deref(), Some("Assistant"));
    assert_eq!(q.target, QuestionTarget::User);
    // A question with no configuration resolves to the defaults.
    assert_eq!(
        tools["ask_user"].question("other"),
        QuestionConfig::default()
    );
    assert_eq!(tools["ask_user"].prompt_label("other"), None);
}

/// Rule: CONFIG-MERGE-UNDER — overriding `source` does not clear the
/// built-in's other structural fields (RFD 083 Phase 1 step 3), and the
/// executor it selects is the user's, not the built-in.
#[test]
fn source_override_keeps_the_other_builtin_fields() {
    let tools = effective_tools(&user(json!({"ask_user": {"source": "local"}})), &[]).unwrap();
    let ask = &tools["ask_user"];
    assert_eq!(ask.source, ConfigSource::Local);
    assert_eq!(ask.parameters, Some(ask_user::parameters()));
    assert_eq!(ask.prompt_label("answer"), Some("Assistant"));
    assert_eq!(ask.run, RunPolicy::Unattended);
    assert_eq!(ask.source.executor("ask_user"), Ok(ToolSource::Local));
}

/// Rule: CONFIG-MERGE-UNDER — built-ins come first in registration order,
/// then the user's own tools in their order; a user tool's defaults are the
/// documented ones.
#[test]
fn layering_order_and_defaults_for_user_tools() {
    let layered = layer_builtins(&with_other_tools(Value::Null));
    assert_eq!(
        layered.keys().collect::<Vec<_>>(),
        ["ask_user", "fs_read_file", "web_search"]
    );
    assert_eq!(
        layered["ask_user"],
        registered_config(crate::model::builtins::find("ask_user").unwrap())
    );
    assert_eq!(
        builtins(),
        vec![(
            "ask_user".to_owned(),
            registered_config(crate::model::builtins::find("ask_user").unwrap())
        )]
    );

    let tools = effective_tools(&with_other_tools(Value::Null), &[]).unwrap();
    let web = &tools["web_search"];
    assert_eq!(
        web.source,
        ConfigSource::Mcp {
            server: "kagi".into(),
            tool: Some("kagi_search_fetch".into())
        }
    );
    assert_eq!(web.enable, Enable::default());
    assert_eq!(
        Enable::default(),
        Enable {
            state: true,
            allow_toggle: AllowToggle::Always
        }
    );
    assert_eq!(web.run, RunPolicy::Ask);
    assert_eq!(web.result, RunPolicy::Unattended);
    assert!(!web.style.hidden);
    assert!(web.questions.is_empty());
    assert_eq!(tools["fs_read_file"].run, RunPolicy::Unattended);
}

// ---------------------------------------------------------------------------
// The two `enable` shapes (RFD 083 "Tool configuration").

/// Rule: CONFIG-ENABLE-TABLE — `enable = { state = false }` disables and
/// keeps the built-in's `allow_toggle = "if_named"`.
#[test]
fn enable_table_keeps_allow_toggle() {
    let tools = effective_tools(
        &user(json!({"ask_user": {"enable": {"state": false}}})),
        &[],
    )
    .unwrap();
    assert_eq!(
        tools["ask_user"].enable,
        Enable {
            state: false,
            allow_toggle: AllowToggle::IfNamed
        }
    );
    // Consequence: bare `-t` does not turn it back on; `-t ask_user` does.
    let bulk = apply_toggles(&tools, &[Toggle::EnableAll]).unwrap();
    assert!(!bulk["ask_user"].enable.state);
    let named = apply_toggles(&tools, &[Toggle::Enable("ask_user".into())]).unwrap();
    assert!(named["ask_user"].enable.state);
}

/// Rule: CONFIG-ENABLE-SHORTHAND — the bool shorthand `enable = false`
/// disables and resets `allow_toggle` to `always`, so a bare `-t` or a later
/// bare `-T` now treats it like any other tool.
#[test]
fn enable_bool_shorthand_resets_allow_toggle() {
    let tools = effective_tools(&user(json!({"ask_user": {"enable": false}})), &[]).unwrap();
    assert_eq!(
        tools["ask_user"].enable,
        Enable {
            state: false,
            allow_toggle: AllowToggle::Always
        }
    );
    let bulk = apply_toggles(&tools, &[Toggle::EnableAll]).unwrap();
    assert!(bulk["ask_user"].enable.state, "bare -t now reaches it");

    let tools = effective_tools(&user(json!({"ask_user": {"enable": true}})), &[]).unwrap();
    assert_eq!(
        tools["ask_user"].enable,
        Enable {
            state: true,
            allow_toggle: AllowToggle::Always
        }
    );
    let off = apply_toggles(&tools, &[Toggle::DisableAll]).unwrap();
    assert!(!off["ask_user"].enable.state, "bare -T now reaches it");
}

/// Rule: CONFIG-ENABLE-TABLE — the table may set `allow_toggle` alone; it
/// reads and writes as the table.
#[test]
fn enable_table_shapes_read_and_write() {
    let e: PartialEnable = serde_json::from_value(json!({"allow_toggle": "always"})).unwrap();
    assert_eq!(
        e,
        PartialEnable {
            state: None,
            allow_toggle: Some(AllowToggle::Always)
        }
    );
    let e: PartialEnable = serde_json::from_value(json!({})).unwrap();
    assert_eq!(e, PartialEnable::default());
    let e: PartialEnable = serde_json::from_value(json!(false)).unwrap();
    assert_eq!(e, PartialEnable::shorthand(false));
    assert_eq!(
        serde_json::to_value(e).unwrap(),
        json!({"state": false, "allow_toggle": "always"})
    );
}

/// Rule: CONFIG-ENABLE-TABLE — other `enable` shapes are refused with what
/// is accepted, including unknown strings, unknown keys and unknown policies.
#[test]
fn bad_enable_shapes_are_refused() {
    assert!(
        parse_err(json!({"t": {"source": "local", "enable": "never"}})).starts_with(
            "`enable = \"never\"` is not a supported shape: write `true`, `false`, \
             \"always\", \"explicit\" or \
             `{ state = <bool>, allow_toggle = \"always\" | \"if_named\" }`"
        )
    );
    assert!(
        parse_err(
            json!({"t": {"source": "local", "enable": {"state": false, "toggle": "always"}}})
        )
        .contains("unknown field `toggle`")
    );
    assert!(
        parse_err(json!({"t": {"source": "local", "enable": {"allow_toggle": "never"}}}))
            .contains("unknown variant `never`, expected `always` or `if_named`")
    );
    assert!(
        parse_err(json!({"t": {"source": "local", "enable": 0}}))
            .contains("expected `true`, `false` or a table `{ state, allow_toggle }`")
    );
}

/// Rule: CONFIG-STRICT — unknown keys anywhere in a tool's layer are
/// refused by name (a misspelt `enable` must not leave a tool on), and bad
/// sources say what is accepted.
#[test]
fn unknown_keys_and_bad_sources_are_refused() {
    assert!(parse_err(json!({"ask_user": {"enabel": false}})).contains("unknown field `enabel`"));
    assert!(
        parse_err(json!({"ask_user": {"questions": {"answer": {"label": "X"}}}}))
            .contains("unknown field `label`")
    );
    assert!(
        parse_err(json!({"ask_user": {"style": {"hiden": true}}}))
            .contains("unknown field `hiden`")
    );
    for bad in [
        "builtin.", "mcp", "mcp.", "mcp.srv.", "local.x", "shell", "",
    ] {
        assert!(
            parse_err(json!({"t": {"source": bad}})).starts_with(&format!(
                "`source = \"{bad}\"` is not a tool source: write \"builtin\", \"local\", \
                 \"mcp.<server>\" or \"mcp.<server>.<tool>\""
            )),
            "{bad}"
        );
    }
}

/// Rule: CONFIG-SOURCE-EXECUTOR — the string forms of `source` read and
/// write back unchanged, and only built-ins known by their key have an
/// executor.
#[test]
fn source_strings_round_trip() {
    for (s, expected) in [
        ("builtin", ConfigSource::Builtin { tool: None }),
        (
            "builtin.ask_user",
            ConfigSource::Builtin {
                tool: Some("ask_user".into()),
            },
        ),
        ("local", ConfigSource::Local),
        (
            "mcp.bookworm",
            ConfigSource::Mcp {
                server: "bookworm".into(),
                tool: None,
            },
        ),
        (
            "mcp.kagi.kagi_search_fetch",
            ConfigSource::Mcp {
                server: "kagi".into(),
                tool: Some("kagi_search_fetch".into()),
            },
        ),
    ] {
        let parsed: ConfigSource = serde_json::from_value(json!(s)).unwrap();
        assert_eq!(parsed, expected);
        assert_eq!(serde_json::to_value(&parsed).unwrap(), json!(s));
    }
    assert_eq!(
        ConfigSource::Builtin { tool: None }.executor("ask_user"),
        Ok(ask_user::SOURCE)
    );
    assert_eq!(
        ConfigSource::Builtin { tool: None }.executor("describe_tools"),
        Err(ConfigError::UnknownBuiltin {
            tool: "describe_tools".into()
        })
    );
    assert_eq!(
        ConfigSource::Mcp {
            server: "s".into(),
            tool: None
        }
        .executor("ask_user"),
        Ok(ToolSource::Mcp)
    );
}

/// Rule: ASK-REGISTERED-CONFIG — the registered configuration, as it would be
/// written, reviewed as a snapshot; it reads back to the same value.
#[test]
fn registered_config_snapshot_and_round_trip() {
    let registered = registered_config(crate::model::builtins::find("ask_user").unwrap());
    let written = serde_json::to_value(&registered).unwrap();
    insta::assert_json_snapshot!("ask_user_registered_config", written);
    let read: PartialToolConfig = serde_json::from_value(written).unwrap();
    assert_eq!(read, registered);
}

// ---------------------------------------------------------------------------
// Toggles (RFD 083 "Tool configuration" and "Drawbacks").

/// Rule: CONFIG-TOGGLE — bare `-T` disables every tool whose `allow_toggle`
/// is `always` and leaves `ask_user` (`if_named`) callable.
#[test]
fn bare_disable_all_spares_ask_user() {
    let tools = effective_tools(&with_other_tools(Value::Null), &[Toggle::DisableAll]).unwrap();
    assert_eq!(
        states(&tools),
        [
            ("ask_user", true),
            ("fs_read_file", false),
            ("web_search", false)
        ]
    );
}

/// Rule: CONFIG-TOGGLE — `-T ask_user` disables `ask_user` by name and
/// nothing else.
#[test]
fn named_disable_reaches_ask_user_only() {
    let tools = effective_tools(
        &with_other_tools(Value::Null),
        &[Toggle::Disable("ask_user".into())],
    )
    .unwrap();
    assert_eq!(
        states(&tools),
        [
            ("ask_user", false),
            ("fs_read_file", true),
            ("web_search", true)
        ]
    );
}

/// Rule: CONFIG-TOGGLE — `-T -T ask_user` is RFD 083's workaround for "no
/// tools and no interactive prompts": the bulk disable plus the named
/// exception turns every tool off, `ask_user` included, in either order.
#[test]
fn disable_all_plus_named_exception_turns_everything_off() {
    for toggles in [
        vec![Toggle::DisableAll, Toggle::Disable("ask_user".into())],
        vec![Toggle::Disable("ask_user".into()), Toggle::DisableAll],
    ] {
        let tools = effective_tools(&with_other_tools(Value::Null), &toggles).unwrap();
        assert_eq!(
            states(&tools),
            [
                ("ask_user", false),
                ("fs_read_file", false),
                ("web_search", false)
            ],
            "{toggles:?}"
        );
    }
}

/// Rule: CONFIG-TOGGLE — toggles apply left to right: `-T -t fs_read_file`
/// leaves only the named tool and `ask_user` on; a named toggle of an
/// unconfigured tool is an error.
#[test]
fn toggles_apply_in_order_and_unknown_names_fail() {
    let tools = effective_tools(
        &with_other_tools(Value::Null),
        &[Toggle::DisableAll, Toggle::Enable("fs_read_file".into())],
    )
    .unwrap();
    assert_eq!(
        states(&tools),
        [
            ("ask_user", true),
            ("fs_read_file", true),
            ("web_search", false)
        ]
    );
    let err = effective_tools(
        &with_other_tools(Value::Null),
        &[Toggle::Disable("ask".into())],
    )
    .unwrap_err();
    assert_eq!(err, ConfigError::UnknownTool { tool: "ask".into() });
    assert_eq!(err.to_string(), "no tool named `ask` is configured");
}

/// Rule: CONFIG-TOGGLE — with `enable = { state = false }` bare `-T` keeps
/// it off and bare `-t` does not bring it back; with the shorthand
/// `enable = false` bare `-t` does.
#[test]
fn enable_shapes_under_bulk_enable() {
    let table = effective_tools(
        &with_other_tools(json!({"enable": {"state": false}})),
        &[Toggle::DisableAll, Toggle::EnableAll],
    )
    .unwrap();
    assert_eq!(
        states(&table),
        [
            ("ask_user", false),
            ("fs_read_file", true),
            ("web_search", true)
        ]
    );
    let shorthand = effective_tools(
        &with_other_tools(json!({"enable": false})),
        &[Toggle::EnableAll],
    )
    .unwrap();
    assert_eq!(
        states(&shorthand),
        [
            ("ask_user", true),
            ("fs_read_file", true),
            ("web_search", true)
        ]
    );
}

// ---------------------------------------------------------------------------
// Properties.

fn arb_partial() -> impl Strategy<Value = PartialToolConfig> {
    let source = prop::option::of(prop_oneof![
        Just(ConfigSource::Builtin { tool: None }),
        Just(ConfigSource::Local),
        "[a-z]{1,4}".prop_map(|server| ConfigSource::Mcp { server, tool: None }),
    ]);
    let enable = prop::option::of(
        (
            prop::option::of(any::<bool>()),
            prop::option::of(prop_oneof![
                Just(AllowToggle::Always),
                Just(AllowToggle::IfNamed)
            ]),
        )
            .prop_map(|(state, allow_toggle)| PartialEnable {
                state,
                allow_toggle,
            }),
    );
    let run = prop::option::of(prop_oneof![
        Just(RunPolicy::Ask),
        Just(RunPolicy::Unattended)
    ]);
    let result = prop::option::of(prop_oneof![
        Just(RunPolicy::Ask),
        Just(RunPolicy::Unattended)
    ]);
    let style = prop::option::of(
        prop::option::of(any::<bool>()).prop_map(|hidden| PartialStyle { hidden }),
    );
    let question = (
        prop::option::of(prop_oneof![
            Just(QuestionTarget::User),
            Just(QuestionTarget::Assistant)
        ]),
        prop::option::of(any::<bool>().prop_map(Value::Bool)),
        prop::option::of("[A-Z][a-z]{0,5}"),
    )
        .prop_map(|(target, answer, prompt_label)| PartialQuestionConfig {
            target,
            answer,
            prompt_label,
        });
    let questions =
        prop::collection::vec((prop_oneof![Just("answer"), Just("other")], question), 0..3)
            .prop_map(|qs| {
                let mut map = Map::default();
                for (id, q) in qs {
                    map.insert(id.to_owned(), q);
                }
                map
            });
    let description = prop::option::of("[a-z ]{0,10}");
    let parameters = prop::option::of(Just(json!({"type": "object"})));
    (
        source,
        enable,
        run,
        result,
        style,
        questions,
        description,
        parameters,
    )
        .prop_map(
            |(source, enable, run, result, style, questions, description, parameters)| {
                PartialToolConfig {
                    source,
                    enable,
                    run,
                    result,
                    style,
                    questions,
                    description,
                    parameters,
                }
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(128)
    ))]

    /// Rule: CONFIG-MERGE-UNDER — merging is layering: an empty upper layer
    /// changes nothing, a layer over the empty one is itself, and a layer
    /// over itself is itself.
    #[test]
    fn merge_has_identity_and_is_idempotent(x in arb_partial()) {
        let empty = PartialToolConfig::default();
        prop_assert_eq!(&empty.merged_over(&x), &x);
        prop_assert_eq!(&x.merged_over(&empty), &x);
        prop_assert_eq!(&x.merged_over(&x), &x);
    }

    /// Rule: CONFIG-MERGE-UNDER — every field the upper layer sets wins and
    /// every field it leaves unset keeps the lower value, nested tables
    /// included.
    #[test]
    fn upper_fields_win_and_unset_fields_fall_through(lower in arb_partial(), upper in arb_partial()) {
        let m = upper.merged_over(&lower);
        prop_assert_eq!(m.source.clone(), upper.source.clone().or(lower.source.clone()));
        prop_assert_eq!(m.run, upper.run.or(lower.run));
        prop_assert_eq!(m.result, upper.result.or(lower.result));
        prop_assert_eq!(m.description.clone(), upper.description.clone().or(lower.description.clone()));
        prop_assert_eq!(m.parameters.clone(), upper.parameters.clone().or(lower.parameters.clone()));
        let field = |e: Option<PartialEnable>, f: fn(PartialEnable) -> Option<AllowToggle>| e.and_then(f);
        prop_assert_eq!(
            m.enable.and_then(|e| e.state),
            upper.enable.and_then(|e| e.state).or(lower.enable.and_then(|e| e.state))
        );
        prop_assert_eq!(
            field(m.enable, |e| e.allow_toggle),
            field(upper.enable, |e| e.allow_toggle).or(field(lower.enable, |e| e.allow_toggle))
        );
        prop_assert_eq!(
            m.style.and_then(|s| s.hidden),
            upper.style.and_then(|s| s.hidden).or(lower.style.and_then(|s| s.hidden))
        );
        for id in ["answer", "other"] {
            let get = |c: &PartialToolConfig| c.questions.get(id).cloned();
            let (mq, uq, lq) = (get(&m), get(&upper), get(&lower));
            prop_assert_eq!(mq.is_some(), uq.is_some() || lq.is_some());
            let pick = |f: fn(&PartialQuestionConfig) -> Option<Value>| {
                uq.as_ref().and_then(f).or(lq.as_ref().and_then(f))
            };
            let mq = mq.unwrap_or_default();
            prop_assert_eq!(mq.answer.clone(), pick(|q| q.answer.clone()));
            prop_assert_eq!(
                mq.prompt_label.clone().map(Value::String),
                pick(|q| q.prompt_label.clone().map(Value::String))
            );
            prop_assert_eq!(
                mq.target.map(|t| serde_json::to_value(t).unwrap()),
                pick(|q| q.target.map(|t| serde_json::to_value(t).unwrap()))
            );
        }
    }

    /// Rule: CONFIG-TOGGLE — bulk toggles never change a tool whose
    /// `allow_toggle` is `if_named`; named toggles always set the named
    /// tool's state.
    #[test]
    fn bulk_toggles_never_reach_if_named_tools(
        layers in prop::collection::vec(arb_partial(), 1..4),
        toggles in prop::collection::vec((0..4usize, any::<bool>(), any::<bool>()), 0..6),
    ) {
        let configs: Map<String, ToolConfig> = layers
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let mut l = l.clone();
                l.source = Some(ConfigSource::Local);
                (format!("t{i}"), l.resolve(&format!("t{i}")).unwrap())
            })
            .collect();
        let n = configs.len();
        let toggles: Vec<Toggle> = toggles
            .into_iter()
            .map(|(i, named, on)| match (named, on) {
                (true, true) => Toggle::Enable(format!("t{}", i % n)),
                (true, false) => Toggle::Disable(format!("t{}", i % n)),
                (false, true) => Toggle::EnableAll,
                (false, false) => Toggle::DisableAll,
            })
            .collect();
        let out = apply_toggles(&configs, &toggles).unwrap();
        for (name, before) in &configs {
            let after = &out[name];
            prop_assert_eq!(after.enable.allow_toggle, before.enable.allow_toggle);
            let last_named = toggles.iter().rev().find_map(|t| match t {
                Toggle::Enable(n) if n == name => Some(true),
                Toggle::Disable(n) if n == name => Some(false),
                _ => None,
            });
            let last_any = toggles.iter().rev().find_map(|t| match t {
                Toggle::Enable(n) | Toggle::Disable(n) if n != name => None,
                Toggle::Enable(_) | Toggle::EnableAll => Some(true),
                Toggle::Disable(_) | Toggle::DisableAll => Some(false),
            });
            let expected = match before.enable.allow_toggle {
                AllowToggle::IfNamed => last_named.unwrap_or(before.enable.state),
                AllowToggle::Always => last_any.unwrap_or(before.enable.state),
            };
            prop_assert_eq!(after.enable.state, expected, "{} {:?}", name, toggles);
        }
    }
}

// ---------------------------------------------------------------------------
// Three layers: built-in, user file, command-line delta.

/// Rule: CONFIG-MERGE-LAYERS — the third layer (the command line's delta)
/// merges over the user's file, which merges over the built-in, key by key:
/// a partial `enable` in two upper layers still keeps the built-in's
/// `if_named`, the file's label survives a delta that sets only the answer,
/// and the delta's bool shorthand, where it is used, resets `allow_toggle`.
/// Expected values are written out from RFD 083 "Tool configuration".
#[test]
fn the_command_line_delta_is_a_third_layer() {
    let file = user(json!({
        "ask_user": {"enable": {"state": false}, "questions": {"answer": {"prompt_label": "Claude"}}},
        "fs": {"source": "local", "run": "unattended", "questions": {"q": {"target": "assistant"}}}
    }));
    let delta = user(json!({
        "ask_user": {"enable": {"state": true}, "questions": {"answer": {"answer": true}}},
        "fs": {"enable": false, "questions": {"q": {"answer": "x"}}}
    }));
    let tools =
        crate::model::config::effective_tools_layered(&[file.clone(), delta.clone()], &[]).unwrap();
    let ask = &tools["ask_user"];
    assert_eq!(
        ask.enable,
        Enable {
            state: true,
            allow_toggle: AllowToggle::IfNamed
        }
    );
    assert_eq!(
        ask.run,
        RunPolicy::Unattended,
        "the built-in's run survives"
    );
    assert_eq!(
        ask.question("answer"),
        QuestionConfig {
            target: QuestionTarget::User,
            answer: Some(json!(true)),
            prompt_label: Some("Claude".into()),
        }
    );
    let fs = &tools["fs"];
    assert_eq!(
        fs.enable,
        Enable {
            state: false,
            allow_toggle: AllowToggle::Always
        }
    );
    assert_eq!(fs.run, RunPolicy::Unattended);
    assert_eq!(
        fs.question("q"),
        QuestionConfig {
            target: QuestionTarget::Assistant,
            answer: Some(json!("x")),
            prompt_label: None,
        }
    );
    // Order matters: the delta under the file gives the file's values.
    let swapped =
        crate::model::config::effective_tools_layered(&[delta, file.clone()], &[]).unwrap();
    assert!(!swapped["ask_user"].enable.state);
    // One layer is exactly the two-layer merge.
    assert_eq!(
        crate::model::config::effective_tools_layered(std::slice::from_ref(&file), &[]).unwrap(),
        effective_tools(&file, &[]).unwrap()
    );
}

/// Rule: CONFIG-ENABLE-PRE-081 — the pre-081 strings of real configurations
/// load: `"always"` (the `describe_tools` entry, which RFD 083 models
/// `ask_user`'s `{ state = true, allow_toggle = "if_named" }` after) is on
/// and survives bare `-T`; `"explicit"` is off, bare `-t` leaves it off,
/// `-t NAME` turns it on. The tool layer of a real `config_delta` (from the
/// fixtures) loads whole.
#[test]
fn pre_081_enable_strings_load() {
    let real = user(json!({
        "git_commit": {"enable": "explicit", "source": "local", "run": "ask"},
        "describe_tools": {"enable": "always", "source": "builtin", "run": "unattended"},
        "fs_read_file": {"enable": true, "source": "local"}
    }));
    assert_eq!(
        real["git_commit"].enable,
        Some(PartialEnable {
            state: Some(false),
            allow_toggle: Some(AllowToggle::IfNamed)
        })
    );
    // `describe_tools` is not a built-in this model knows: resolve the
    // layers that have an executor-free meaning only.
    let resolved: Map<String, ToolConfig> = real
        .iter()
        .map(|(n, l)| (n.clone(), l.resolve(n).unwrap()))
        .collect();
    let after = |toggles: &[Toggle]| {
        states(&apply_toggles(&resolved, toggles).unwrap())
            .into_iter()
            .map(|(n, s)| (n.to_owned(), s))
            .collect::<Vec<_>>()
    };
    let s = |v: &[(&str, bool)]| {
        v.iter()
            .map(|(n, b)| ((*n).to_owned(), *b))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        after(&[]),
        s(&[
            ("git_commit", false),
            ("describe_tools", true),
            ("fs_read_file", true)
        ])
    );
    assert_eq!(
        after(&[Toggle::DisableAll]),
        s(&[
            ("git_commit", false),
            ("describe_tools", true),
            ("fs_read_file", false)
        ])
    );
    assert_eq!(
        after(&[Toggle::EnableAll]),
        s(&[
            ("git_commit", false),
            ("describe_tools", true),
            ("fs_read_file", true)
        ])
    );
    assert_eq!(
        after(&[Toggle::Enable("git_commit".into())]),
        s(&[
            ("git_commit", true),
            ("describe_tools", true),
            ("fs_read_file", true)
        ])
    );
}
