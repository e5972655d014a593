//! Tool configuration and built-in defaults merged under user configuration
//! (RFD 083 "Tool configuration" and Phase 1 step 3; the `enable` shape of
//! RFD 081 as RFD 083 describes it).
//!
//! Configuration is read into [`PartialToolConfig`] (every field optional;
//! JSON stands in for TOML), layered — built-in defaults *under* the user's
//! entries (rule `CONFIG-MERGE-UNDER`) — resolved into [`ToolConfig`], and
//! finally adjusted by the CLI's `-t`/`-T` flags, modelled as [`Toggle`]
//! values (rule `CONFIG-TOGGLE`).
//!
//! Provenance is deliberately absent from configuration: [`ConfigSource`]
//! says *where the code comes from*, and the built-in's provenance hook is
//! looked up from the compiled-in executor by the config key
//! ([`ConfigSource::executor`], rule `CONFIG-SOURCE-EXECUTOR`), never read
//! from user input (RFD 083 "Alternatives: Attribution enum").

use std::fmt;

use crate::model::tool::Map;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use crate::model::builtins::{self, Builtin, Registration};
use crate::model::tool::{QuestionConfig, QuestionTarget, RunPolicy, ToolSource};

/// Which CLI toggles may change a tool's `enable.state` (RFD 081 via RFD 083
/// "Tool configuration").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AllowToggle {
    /// Bulk (`-t`/`-T`) and named (`-t NAME`/`-T NAME`) toggles both apply.
    #[default]
    Always,
    /// Only named toggles apply: bulk `-T` leaves the tool as it is.
    IfNamed,
}

/// The resolved `enable` field: on or off, and who may toggle it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Enable {
    /// Whether the tool is offered to the model.
    pub state: bool,
    /// Which CLI toggles may change `state`.
    pub allow_toggle: AllowToggle,
}

impl Default for Enable {
    /// A configured tool is on, and every toggle applies to it.
    fn default() -> Self {
        Enable {
            state: true,
            allow_toggle: AllowToggle::Always,
        }
    }
}

/// The partial `enable` field (RFD 083 "Tool configuration", rules
/// `CONFIG-ENABLE-TABLE` and `CONFIG-ENABLE-SHORTHAND`).
///
/// Two input shapes: the table `{ state?, allow_toggle? }` sets only the keys
/// it names, so `{ state = false }` keeps a lower layer's `allow_toggle`; the
/// bool shorthand `enable = b` is `{ state = b, allow_toggle = "always" }`,
/// i.e. it also resets `allow_toggle`, exactly as RFD 083 warns. It always
/// serializes as the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
pub struct PartialEnable {
    /// `state`, when this layer sets it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<bool>,
    /// `allow_toggle`, when this layer sets it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allow_toggle: Option<AllowToggle>,
}

impl PartialEnable {
    /// What the bool shorthand `enable = state` means.
    pub(crate) fn shorthand(state: bool) -> Self {
        PartialEnable {
            state: Some(state),
            allow_toggle: Some(AllowToggle::Always),
        }
    }

    /// The pre-RFD 081 strings real configurations carry (rule
    /// `CONFIG-ENABLE-PRE-081`): `"always"` (the `describe_tools` entry RFD
    /// 083 models `ask_user`'s `{ state = true, allow_toggle = "if_named" }`
    /// after) is on and immune to bulk toggles; `"explicit"` (the local git
    /// tools) is off until named. Both set both keys. Any other string is
    /// `None`.
    pub(crate) fn pre_081(s: &str) -> Option<Self> {
        let state = match s {
            "always" => true,
            "explicit" => false,
            _ => return None,
        };
        Some(PartialEnable {
            state: Some(state),
            allow_toggle: Some(AllowToggle::IfNamed),
        })
    }

    /// Overlays `upper` on `self`, key by key.
    pub(crate) fn merge(&mut self, upper: &PartialEnable) {
        overlay(&mut self.state, &upper.state);
        overlay(&mut self.allow_toggle, &upper.allow_toggle);
    }

    /// The resolved `enable` (defaults for unset keys).
    pub(crate) fn resolve(self) -> Enable {
        let default = Enable::default();
        Enable {
            state: self.state.unwrap_or(default.state),
            allow_toggle: self.allow_toggle.unwrap_or(default.allow_toggle),
        }
    }
}

impl<'de> Deserialize<'de> for PartialEnable {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Table {
            #[serde(default)]
            state: Option<bool>,
            #[serde(default)]
            allow_toggle: Option<AllowToggle>,
        }

        struct EnableVisitor;

        impl<'de> Visitor<'de> for EnableVisitor {
            type Value = PartialEnable;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`true`, `false` or a table `{ state, allow_toggle }`")
            }

            fn visit_bool<E: de::Error>(self, v: bool) -> Result<PartialEnable, E> {
                Ok(PartialEnable::shorthand(v))
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<PartialEnable, E> {
                PartialEnable::pre_081(v).ok_or_else(|| {
                    E::custom(format_args!(
                        "`enable = \"{v}\"` is not a supported shape: write `true`, `false`, \
                         \"always\", \"explicit\" or \
                         `{{ state = <bool>, allow_toggle = \"always\" | \"if_named\" }}`"
                    ))
                })
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<PartialEnable, A::Error> {
                let t = Table::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(PartialEnable {
                    state: t.state,
                    allow_toggle: t.allow_toggle,
                })
            }
        }

        deserializer.deserialize_any(EnableVisitor)
    }
}

/// The resolved `style` table (only the key the RFDs give meaning to).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Style {
    /// The call and result are not rendered as tool chrome.
    pub hidden: bool,
}

/// The partial `style` table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartialStyle {
    /// `hidden`, when this layer sets it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden: Option<bool>,
}

/// The partial `questions.<id>` table (RFD 083 "Supported `questions.answer`
/// configuration"); resolves to [`QuestionConfig`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartialQuestionConfig {
    /// `target`, when this layer sets it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<QuestionTarget>,
    /// A static answer, when this layer sets one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<Value>,
    /// The display-only "who's asking" header, when this layer sets it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_label: Option<String>,
}

impl PartialQuestionConfig {
    fn merge(&mut self, upper: &PartialQuestionConfig) {
        overlay(&mut self.target, &upper.target);
        overlay(&mut self.answer, &upper.answer);
        overlay(&mut self.prompt_label, &upper.prompt_label);
    }

    fn resolve(self) -> QuestionConfig {
        QuestionConfig {
            target: self.target.unwrap_or_default(),
            answer: self.answer,
            prompt_label: self.prompt_label,
        }
    }
}

/// Where a tool's code comes from, as configuration writes it: `"builtin"`,
/// `"builtin.<tool>"`, `"local"`, `"mcp.<server>"` or `"mcp.<server>.<tool>"`
/// (the string form real `jp` configuration uses).
///
/// It carries no provenance: see [`ConfigSource::executor`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ConfigSource {
    /// A compiled-in tool. `tool` is kept but, as in RFD 083 "Built-in
    /// aliasing", the executor is looked up by the config key, not by it.
    Builtin {
        /// The `builtin.<tool>` suffix, if written.
        tool: Option<String>,
    },
    /// A shell command.
    Local,
    /// A tool served by an MCP server.
    Mcp {
        /// The server's name.
        server: String,
        /// The server-side tool name, if it differs from the config key.
        tool: Option<String>,
    },
}

impl ConfigSource {
    /// Parses the string form; `Err` says what is accepted.
    pub(crate) fn parse(s: &str) -> Result<Self, String> {
        let (kind, rest) = match s.split_once('.') {
            Some((kind, rest)) => (kind, Some(rest)),
            None => (s, None),
        };
        let bad = || {
            format!(
                "`source = \"{s}\"` is not a tool source: write \"builtin\", \"local\", \
                 \"mcp.<server>\" or \"mcp.<server>.<tool>\""
            )
        };
        match (kind, rest) {
            ("builtin", None) => Ok(ConfigSource::Builtin { tool: None }),
            ("builtin", Some(tool)) if !tool.is_empty() => Ok(ConfigSource::Builtin {
                tool: Some(tool.to_owned()),
            }),
            ("local", None) => Ok(ConfigSource::Local),
            ("mcp", Some(rest)) => {
                let (server, tool) = match rest.split_once('.') {
                    Some((server, tool)) => (server, Some(tool)),
                    None => (rest, None),
                };
                match tool {
                    _ if server.is_empty() => Err(bad()),
                    Some("") => Err(bad()),
                    tool => Ok(ConfigSource::Mcp {
                        server: server.to_owned(),
                        tool: tool.map(str::to_owned),
                    }),
                }
            }
            _ => Err(bad()),
        }
    }

    /// The executor behind this source for the tool configured under `key`,
    /// and so its provenance hook (rule `CONFIG-SOURCE-EXECUTOR`).
    ///
    /// Built-ins are looked up by the config key (RFD 083 "Built-in
    /// aliasing"): an unknown key is [`ConfigError::UnknownBuiltin`]. A
    /// `local` or `mcp` source on a built-in's key shadows the built-in
    /// executor, and with it the built-in's provenance hook (RFD 083 Phase 1
    /// step 3).
    pub(crate) fn executor(&self, key: &str) -> Result<ToolSource, ConfigError> {
        match self {
            ConfigSource::Builtin { .. } => {
                builtin_executor(key).ok_or_else(|| ConfigError::UnknownBuiltin {
                    tool: key.to_owned(),
                })
            }
            ConfigSource::Local => Ok(ToolSource::Local),
            ConfigSource::Mcp { .. } => Ok(ToolSource::Mcp),
        }
    }
}

impl fmt::Display for ConfigSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigSource::Builtin { tool: None } => f.write_str("builtin"),
            ConfigSource::Builtin { tool: Some(t) } => write!(f, "builtin.{t}"),
            ConfigSource::Local => f.write_str("local"),
            ConfigSource::Mcp { server, tool: None } => write!(f, "mcp.{server}"),
            ConfigSource::Mcp {
                server,
                tool: Some(t),
            } => write!(f, "mcp.{server}.{t}"),
        }
    }
}

impl Serialize for ConfigSource {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ConfigSource {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        ConfigSource::parse(&s).map_err(de::Error::custom)
    }
}

/// The compiled-in executors, by config key, with their provenance hook:
/// the registry's ([`builtins::find`]).
fn builtin_executor(key: &str) -> Option<ToolSource> {
    builtins::find(key).map(|b| b.source)
}

/// One tool's configuration layer, every field optional
/// (`conversation.tools.<name>`).
///
/// Unknown keys are an error naming the key (a misspelt `enable` must not
/// silently leave a tool on).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartialToolConfig {
    /// Where the code comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<ConfigSource>,
    /// On/off and toggle policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enable: Option<PartialEnable>,
    /// Permission before running.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<RunPolicy>,
    /// Permission before delivering the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<RunPolicy>,
    /// Rendering.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub style: Option<PartialStyle>,
    /// Per-question configuration, by question ID.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub questions: Map<String, PartialQuestionConfig>,
    /// The description sent to the provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The JSON Schema of the arguments; replaced whole, never merged key by
    /// key (a merged schema would describe neither layer's contract).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Value>,
}

impl PartialToolConfig {
    /// Overlays `upper` on `self` (rule `CONFIG-MERGE-UNDER`): every field
    /// `upper` sets wins; every field it leaves unset keeps `self`'s value.
    /// Nested tables (`enable`, `style`, each `questions.<id>`) merge key by
    /// key; `parameters` and `description` are replaced whole.
    pub(crate) fn merge(&mut self, upper: &PartialToolConfig) {
        self.merge_settings(upper);
        match (&mut self.style, &upper.style) {
            (Some(lower), Some(upper)) => overlay(&mut lower.hidden, &upper.hidden),
            (lower, upper) => overlay(lower, upper),
        }
        overlay(&mut self.description, &upper.description);
        overlay(&mut self.parameters, &upper.parameters);
    }

    /// [`PartialToolConfig::merge`] of the fields a run reads
    /// ([`ToolSettings`]): `source`, `enable`, `run`, `result`, `questions`.
    fn merge_settings(&mut self, upper: &PartialToolConfig) {
        overlay(&mut self.source, &upper.source);
        match (&mut self.enable, &upper.enable) {
            (Some(lower), Some(upper)) => lower.merge(upper),
            (lower, upper) => overlay(lower, upper),
        }
        overlay(&mut self.run, &upper.run);
        overlay(&mut self.result, &upper.result);
        for (id, upper_q) in &upper.questions {
            self.questions.entry(id.clone()).or_default().merge(upper_q);
        }
    }

    /// `self` merged over `lower`: the layering of RFD 083 Phase 1 step 3,
    /// with `lower` the built-in defaults.
    pub(crate) fn merged_over(&self, lower: &PartialToolConfig) -> PartialToolConfig {
        let mut out = lower.clone();
        out.merge(self);
        out
    }

    /// Resolves the layer into a complete configuration for the tool named
    /// `name`. `source` is the only required field; the other defaults are
    /// documented on [`ToolConfig`].
    pub(crate) fn resolve(&self, name: &str) -> Result<ToolConfig, ConfigError> {
        let ToolSettings {
            source,
            enable,
            run,
            result,
            questions,
        } = self.resolve_settings(name)?;
        Ok(ToolConfig {
            source,
            enable,
            run,
            result,
            style: Style {
                hidden: self.style.and_then(|s| s.hidden).unwrap_or(false),
            },
            questions,
            description: self.description.clone(),
            parameters: self.parameters.clone(),
        })
    }

    /// [`PartialToolConfig::resolve`] of the fields a run reads
    /// ([`ToolSettings`]).
    fn resolve_settings(&self, name: &str) -> Result<ToolSettings, ConfigError> {
        PartialToolConfig {
            source: self.source.clone(),
            enable: self.enable,
            run: self.run,
            result: self.result,
            questions: self.questions.clone(),
            ..PartialToolConfig::default()
        }
        .into_settings(name)
    }

    /// [`PartialToolConfig::resolve_settings`] of a layer taken whole: the
    /// same settings, its question map moved rather than copied.
    fn into_settings(self, name: &str) -> Result<ToolSettings, ConfigError> {
        let source = self.source.ok_or_else(|| ConfigError::MissingSource {
            tool: name.to_owned(),
        })?;
        Ok(ToolSettings {
            source,
            enable: self.enable.unwrap_or_default().resolve(),
            run: run_or_default(self.run),
            result: result_or_default(self.result),
            questions: self
                .questions
                .into_iter()
                .map(|(id, q)| (id, q.resolve()))
                .collect(),
        })
    }
}

/// A tool's `run` policy where no layer set it: it asks (spec/DECISIONS.md
/// "Configuration: an unset `run` asks").
pub(crate) fn run_or_default(run: Option<RunPolicy>) -> RunPolicy {
    run.unwrap_or(RunPolicy::Ask)
}

/// A tool's `result` policy where no layer set it: delivered unattended.
pub(crate) fn result_or_default(result: Option<RunPolicy>) -> RunPolicy {
    result.unwrap_or(RunPolicy::Unattended)
}

/// The part of a tool's resolved configuration a run of the model reads:
/// [`ToolConfig`] without the fields only the provider sees (`description`,
/// `parameters`) or only rendering reads (`style`).
/// [`effective_settings`] resolves it without building those fields.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ToolSettings {
    /// Where the code comes from.
    pub(crate) source: ConfigSource,
    /// On/off and toggle policy.
    pub(crate) enable: Enable,
    /// Permission before running.
    pub(crate) run: RunPolicy,
    /// Permission before delivering the result.
    pub(crate) result: RunPolicy,
    /// Per-question configuration, by question ID.
    pub(crate) questions: Map<String, QuestionConfig>,
}

impl ToolConfig {
    /// The fields a run reads ([`ToolSettings`]), copied.
    pub(crate) fn settings(&self) -> ToolSettings {
        ToolSettings {
            source: self.source.clone(),
            enable: self.enable,
            run: self.run,
            result: self.result,
            questions: self.questions.clone(),
        }
    }
}

/// Sets `lower` to `upper` when `upper` is set.
fn overlay<T: Clone>(lower: &mut Option<T>, upper: &Option<T>) {
    if let Some(v) = upper {
        *lower = Some(v.clone());
    }
}

/// One tool's resolved configuration.
///
/// Defaults for keys no layer sets: `enable = { state = true, allow_toggle =
/// "always" }`, `run = "ask"` (running needs permission unless a layer says
/// otherwise), `result = "unattended"`, `style.hidden = false`, no questions,
/// no description, no parameters.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolConfig {
    /// Where the code comes from.
    pub source: ConfigSource,
    /// On/off and toggle policy.
    pub enable: Enable,
    /// Permission before running.
    pub run: RunPolicy,
    /// Permission before delivering the result.
    pub result: RunPolicy,
    /// Rendering.
    pub style: Style,
    /// Per-question configuration, by question ID.
    pub questions: Map<String, QuestionConfig>,
    /// The description sent to the provider.
    pub description: Option<String>,
    /// The JSON Schema of the arguments.
    pub parameters: Option<Value>,
}

impl ToolConfig {
    /// The configuration of question `id` (defaults when none is set).
    pub fn question(&self, id: &str) -> QuestionConfig {
        self.questions.get(id).cloned().unwrap_or_default()
    }

    /// The label the coordinator passes to the prompter for question `id`
    /// (RFD 083 step 4: label resolution stays in the coordinator).
    pub fn prompt_label(&self, id: &str) -> Option<&str> {
        self.questions.get(id)?.prompt_label.as_deref()
    }
}

/// The built-in tools' registered configuration, in registration order
/// (`builtins::all()` in RFD 083 "Tool configuration").
pub fn builtins() -> Vec<(String, PartialToolConfig)> {
    builtins::all()
        .iter()
        .map(|b| (b.name.to_owned(), registered_config(b)))
        .collect()
}

/// A built-in's registered configuration (RFD 083 "Tool configuration" and
/// Phase 2, rule `ASK-REGISTERED-CONFIG` for `ask_user`): source `builtin`,
/// what its [`Registration`] asks for, the labels of its questions, its
/// description and schema.
pub(crate) fn registered_config(builtin: &Builtin) -> PartialToolConfig {
    let style = match builtin.registration {
        // Hidden chrome.
        Registration::Unobtrusive => PartialStyle { hidden: Some(true) },
    };
    PartialToolConfig {
        style: Some(style),
        description: Some((builtin.description)().to_owned()),
        parameters: Some((builtin.parameters)()),
        ..registered_settings(builtin)
    }
}

/// [`registered_config`] without the fields [`ToolSettings`] leaves out
/// (`style`, `description`, `parameters`): what a run layers under the
/// user's entry, without building the argument schema.
fn registered_settings(builtin: &Builtin) -> PartialToolConfig {
    let (enable, run, result) = match builtin.registration {
        // Enabled but immune to bare `-T`, no permission or delivery
        // prompts.
        Registration::Unobtrusive => (
            PartialEnable {
                state: Some(true),
                allow_toggle: Some(AllowToggle::IfNamed),
            },
            RunPolicy::Unattended,
            RunPolicy::Unattended,
        ),
    };
    PartialToolConfig {
        source: Some(ConfigSource::Builtin { tool: None }),
        enable: Some(enable),
        run: Some(run),
        result: Some(result),
        style: None,
        questions: builtin
            .prompt_labels
            .iter()
            .map(|&(id, label)| {
                (
                    id.to_owned(),
                    PartialQuestionConfig {
                        target: None,
                        answer: None,
                        prompt_label: Some(label.to_owned()),
                    },
                )
            })
            .collect(),
        description: None,
        parameters: None,
    }
}

/// Layers the built-in defaults under the user's tool configuration (RFD 083
/// Phase 1 step 3, rule `CONFIG-MERGE-UNDER`): each built-in's entry is the
/// user's entry for the same key merged *over* the built-in's, never a
/// replacement of it. Built-ins come first in registration order, then the
/// user's other tools in their order.
pub(crate) fn layer_builtins(
    user: &Map<String, PartialToolConfig>,
) -> Map<String, PartialToolConfig> {
    let mut out = Map::default();
    for (name, builtin) in builtins() {
        let layered = match user.get(&name) {
            Some(user_layer) => user_layer.merged_over(&builtin),
            None => builtin,
        };
        out.insert(name, layered);
    }
    for (name, user_layer) in user {
        if !out.contains_key(name) {
            out.insert(name.clone(), user_layer.clone());
        }
    }
    out
}

/// Layers every configuration layer over the built-in defaults, lowest
/// first (rule `CONFIG-MERGE-LAYERS`): the built-ins, then e.g. the user's
/// file, then the command line's delta (`--cfg`, the `config_delta` a turn
/// persists). Each layer is merged *over* the result so far, key by key,
/// exactly as [`PartialToolConfig::merge`] merges two; a tool a layer names
/// first is appended after the tools already known.
pub(crate) fn layer_all(
    layers: &[Map<String, PartialToolConfig>],
) -> Map<String, PartialToolConfig> {
    let mut out: Map<String, PartialToolConfig> = builtins().into_iter().collect();
    for layer in layers {
        for (name, upper) in layer {
            out.entry(name.clone()).or_default().merge(upper);
        }
    }
    out
}

/// [`effective_tools`] over any number of layers ([`layer_all`]).
pub fn effective_tools_layered(
    layers: &[Map<String, PartialToolConfig>],
    toggles: &[Toggle],
) -> Result<Map<String, ToolConfig>, ConfigError> {
    let resolved = layer_all(layers)
        .iter()
        .map(|(name, layer)| Ok((name.clone(), layer.resolve(name)?)))
        .collect::<Result<Map<_, _>, ConfigError>>()?;
    apply_toggles(&resolved, toggles)
}

/// [`effective_tools`] of the fields a run reads ([`ToolSettings`]), built
/// without the rest: each tool's settings equal those of its
/// [`effective_tools`] entry, in the same order, and the same error where
/// that fails (rule `PERF-MODEL-SETTINGS`). The model's every run resolves
/// its tools through here.
pub(crate) fn effective_settings(
    user: &Map<String, PartialToolConfig>,
    toggles: &[Toggle],
) -> Result<Map<String, ToolSettings>, ConfigError> {
    let registry = builtins::all();
    let mut resolved =
        Map::with_capacity_and_hasher(registry.len() + user.len(), Default::default());
    // As `layer_builtins` layers: the built-ins first, each under the
    // user's entry of the same key, then the user's other tools.
    for builtin in registry {
        let mut layer = registered_settings(builtin);
        if let Some(upper) = user.get(builtin.name) {
            layer.merge_settings(upper);
        }
        resolved.insert(
            builtin.name.to_owned(),
            layer.resolve_settings(builtin.name)?,
        );
    }
    for (name, layer) in user {
        if !resolved.contains_key(name) {
            resolved.insert(name.clone(), layer.resolve_settings(name)?);
        }
    }
    if !toggles.is_empty() {
        let enables = resolved
            .iter()
            .map(|(name, s)| (name.clone(), s.enable))
            .collect();
        for (name, enable) in toggle_enables(&enables, toggles)? {
            if let Some(settings) = resolved.get_mut(&name) {
                settings.enable = enable;
            }
        }
    }
    Ok(resolved)
}

/// One tool's entry of [`effective_settings`] when no `-t`/`-T` flag is
/// given, resolved alone from the user's layer for it (taken, not copied):
/// a built-in's registered layer under it where `name` is a built-in's key,
/// else the layer itself (rule `PERF-RUN-TOOLS`). A run of the model
/// resolves only its scenario's tools, so it skips the built-ins it does not
/// list and the maps [`effective_settings`] builds for all of them.
pub(crate) fn untoggled_settings(
    name: &str,
    user: PartialToolConfig,
) -> Result<ToolSettings, ConfigError> {
    match builtins::find(name) {
        Some(builtin) => {
            let mut layer = registered_settings(builtin);
            layer.merge_settings(&user);
            layer.into_settings(name)
        }
        None => user.into_settings(name),
    }
}

/// One `-t`/`-T` flag on the command line, in the order given.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Toggle {
    /// Bare `-t`: enable every tool whose `allow_toggle` is `always`.
    EnableAll,
    /// `-t NAME`: enable that tool, whatever its `allow_toggle`.
    Enable(String),
    /// Bare `-T`: disable every tool whose `allow_toggle` is `always`.
    DisableAll,
    /// `-T NAME`: disable that tool, whatever its `allow_toggle`.
    Disable(String),
}

/// Applies CLI toggles, left to right, to resolved configurations (rule
/// `CONFIG-TOGGLE`, RFD 083 "Tool configuration" and "Drawbacks").
///
/// A bulk toggle changes only tools with `allow_toggle = "always"`, so bare
/// `-T` leaves `ask_user` (`if_named`) on; a named toggle changes the named
/// tool whatever its policy. `-T -T ask_user` is therefore "bulk disable,
/// plus the named exception": every tool off, `ask_user` included. Naming a
/// tool that is not configured is an error, not a silent no-op.
pub fn apply_toggles(
    configs: &Map<String, ToolConfig>,
    toggles: &[Toggle],
) -> Result<Map<String, ToolConfig>, ConfigError> {
    let mut out = configs.clone();
    toggle_in_place(&mut out, toggles)?;
    Ok(out)
}

/// [`apply_toggles`] on configurations the caller owns: no copy of them is
/// made (every run of a scenario resolves its tools).
fn toggle_in_place(
    configs: &mut Map<String, ToolConfig>,
    toggles: &[Toggle],
) -> Result<(), ConfigError> {
    if toggles.is_empty() {
        return Ok(());
    }
    let enables = configs
        .iter()
        .map(|(name, c)| (name.clone(), c.enable))
        .collect();
    for (name, enable) in toggle_enables(&enables, toggles)? {
        if let Some(config) = configs.get_mut(&name) {
            config.enable = enable;
        }
    }
    Ok(())
}

/// [`apply_toggles`] on the `enable` fields alone (what a scenario's tools
/// carry).
pub(crate) fn toggle_enables(
    enables: &Map<String, Enable>,
    toggles: &[Toggle],
) -> Result<Map<String, Enable>, ConfigError> {
    let mut out = enables.clone();
    for toggle in toggles {
        let (target, state) = match toggle {
            Toggle::EnableAll => (None, true),
            Toggle::Enable(name) => (Some(name), true),
            Toggle::DisableAll => (None, false),
            Toggle::Disable(name) => (Some(name), false),
        };
        match target {
            Some(name) => {
                let enable = out
                    .get_mut(name)
                    .ok_or_else(|| ConfigError::UnknownTool { tool: name.clone() })?;
                enable.state = state;
            }
            None => {
                for enable in out.values_mut() {
                    match enable.allow_toggle {
                        AllowToggle::Always => enable.state = state,
                        AllowToggle::IfNamed => {}
                    }
                }
            }
        }
    }
    Ok(out)
}

impl Toggle {
    /// Parses one flag as written on the command line: `-t`, `-T`,
    /// `-t NAME`, `-T NAME`.
    pub(crate) fn parse(s: &str) -> Result<Toggle, String> {
        let mut words = s.split_whitespace();
        match (words.next(), words.next(), words.next()) {
            (Some("-t"), None, None) => Ok(Toggle::EnableAll),
            (Some("-T"), None, None) => Ok(Toggle::DisableAll),
            (Some("-t"), Some(name), None) => Ok(Toggle::Enable(name.to_owned())),
            (Some("-T"), Some(name), None) => Ok(Toggle::Disable(name.to_owned())),
            _ => Err(format!(
                "`{s}` is not a tool toggle: write \"-t\", \"-T\", \"-t NAME\" or \"-T NAME\""
            )),
        }
    }
}

/// The tools in effect for a turn: built-ins layered under the user's
/// configuration, resolved, then the CLI toggles applied.
pub(crate) fn effective_tools(
    user: &Map<String, PartialToolConfig>,
    toggles: &[Toggle],
) -> Result<Map<String, ToolConfig>, ConfigError> {
    let mut resolved = layer_builtins(user)
        .iter()
        .map(|(name, layer)| Ok((name.clone(), layer.resolve(name)?)))
        .collect::<Result<Map<_, _>, ConfigError>>()?;
    toggle_in_place(&mut resolved, toggles)?;
    Ok(resolved)
}

/// A configuration that cannot be used, with the tool it concerns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigError {
    /// No layer sets `source`.
    MissingSource {
        /// The config key.
        tool: String,
    },
    /// `source = "builtin"` on a key with no compiled-in executor.
    UnknownBuiltin {
        /// The config key.
        tool: String,
    },
    /// A named toggle names a tool that is not configured.
    UnknownTool {
        /// The name given on the command line.
        tool: String,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::MissingSource { tool } => write!(
                f,
                "tool `{tool}` has no `source`: set `conversation.tools.{tool}.source` to \
                 \"local\", \"mcp.<server>\" or \"builtin\""
            ),
            ConfigError::UnknownBuiltin { tool } => write!(
                f,
                "tool `{tool}` has `source = \"builtin\"` but there is no built-in tool \
                 named `{tool}` (built-ins are found by their configuration key)"
            ),
            ConfigError::UnknownTool { tool } => {
                write!(f, "no tool named `{tool}` is configured")
            }
        }
    }
}

impl std::error::Error for ConfigError {}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// What a resolution of the run's settings returns.
    type Settings = Result<Map<String, ToolSettings>, ConfigError>;

    /// The full resolution's entries cut down to the fields a run reads.
    fn settings_of_full(user: &Map<String, PartialToolConfig>, toggles: &[Toggle]) -> Settings {
        effective_tools(user, toggles).map(|tools| {
            tools
                .into_iter()
                .map(|(name, config)| (name, config.settings()))
                .collect()
        })
    }

    /// A layer setting any of its fields (the provider's and rendering's
    /// too, which the settings leave out).
    fn arb_layer() -> impl Strategy<Value = PartialToolConfig> {
        let source = prop::option::of(prop_oneof![
            Just(ConfigSource::Builtin { tool: None }),
            Just(ConfigSource::Local),
            Just(ConfigSource::Mcp {
                server: "s".to_owned(),
                tool: None
            }),
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
        let policy = || {
            prop::option::of(prop_oneof![
                Just(RunPolicy::Ask),
                Just(RunPolicy::Unattended)
            ])
        };
        let question = (
            prop::option::of(prop_oneof![
                Just(QuestionTarget::User),
                Just(QuestionTarget::Assistant)
            ]),
            prop::option::of(any::<bool>().prop_map(Value::Bool)),
            prop::option::of("[A-Z][a-z]{0,3}"),
        )
            .prop_map(|(target, answer, prompt_label)| PartialQuestionConfig {
                target,
                answer,
                prompt_label,
            });
        let questions = prop::collection::vec(
            (prop_oneof![Just("question"), Just("other")], question),
            0..3,
        )
        .prop_map(|qs| {
            qs.into_iter()
                .map(|(id, q)| (id.to_owned(), q))
                .collect::<Map<_, _>>()
        });
        let shown = (
            prop::option::of(any::<bool>()),
            prop::option::of("[a-z]{0,4}"),
            prop::option::of(Just(json!({"type": "object"}))),
        );
        (source, enable, policy(), policy(), questions, shown).prop_map(
            |(source, enable, run, result, questions, (hidden, description, parameters))| {
                PartialToolConfig {
                    source,
                    enable,
                    run,
                    result,
                    style: hidden.map(|h| PartialStyle { hidden: Some(h) }),
                    questions,
                    description,
                    parameters,
                }
            },
        )
    }

    /// User layers under the built-in's key and two others, in any order.
    fn arb_user() -> impl Strategy<Value = Map<String, PartialToolConfig>> {
        prop::collection::vec(
            (
                prop_oneof![Just("ask_user"), Just("fs_read_file"), Just("web_search")],
                arb_layer(),
            ),
            0..4,
        )
        .prop_map(|layers| {
            layers
                .into_iter()
                .map(|(name, layer)| (name.to_owned(), layer))
                .collect()
        })
    }

    /// Toggles, named ones included, one naming a tool no layer configures.
    fn arb_toggles() -> impl Strategy<Value = Vec<Toggle>> {
        let name = prop_oneof![Just("ask_user"), Just("fs_read_file"), Just("missing")];
        prop::collection::vec(
            prop_oneof![
                Just(Toggle::EnableAll),
                Just(Toggle::DisableAll),
                name.clone().prop_map(|n| Toggle::Enable(n.to_owned())),
                name.prop_map(|n| Toggle::Disable(n.to_owned())),
            ],
            0..3,
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(
            std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(256)
        ))]

        /// Rule: PERF-MODEL-SETTINGS — invariant: the settings a run
        /// resolves (without descriptions, parameter schemas or styles)
        /// are, tool by tool and in the same order, the `source`,
        /// `enable`, `run`, `result` and `questions` of the full
        /// resolution, and it fails with the same error where the full one
        /// fails.
        #[test]
        fn run_settings_are_the_full_resolutions_fields(user in arb_user(), toggles in arb_toggles()) {
            prop_assert_eq!(effective_settings(&user, &toggles), settings_of_full(&user, &toggles));
        }

        /// Rule: PERF-RUN-TOOLS — invariant: with no `-t`/`-T` flag, each
        /// user tool's settings resolved alone are its entry of the
        /// settings resolved together; where those fail, resolving some
        /// tool alone fails with the same error.
        #[test]
        fn untoggled_settings_are_the_entries_resolved_together(user in arb_user()) {
            let together = effective_settings(&user, &[]);
            match &together {
                Ok(all) => {
                    for (name, layer) in &user {
                        prop_assert_eq!(untoggled_settings(name, layer.clone()), Ok(all[name].clone()));
                    }
                }
                Err(e) => prop_assert!(user
                    .iter()
                    .any(|(name, layer)| untoggled_settings(name, layer.clone()).as_ref().err() == Some(e))),
            }
        }
    }

    /// Rule: PERF-MODEL-SETTINGS — the agreement can fail: a resolution
    /// that resolves the user's entry for a built-in alone (the built-in's
    /// layer not under it) disagrees with the full one on a `run`-only
    /// override of `ask_user` (the full resolution keeps the built-in's
    /// `source`).
    #[test]
    fn a_settings_resolution_without_the_builtin_layer_disagrees() {
        fn without_builtin_layer(
            user: &Map<String, PartialToolConfig>,
            toggles: &[Toggle],
        ) -> Settings {
            let mut layers: Map<String, PartialToolConfig> = builtins().into_iter().collect();
            for (name, layer) in user {
                layers.insert(name.clone(), layer.clone());
            }
            let resolved = layers
                .iter()
                .map(|(name, layer)| Ok((name.clone(), layer.resolve(name)?)))
                .collect::<Result<Map<_, _>, ConfigError>>()?;
            Ok(apply_toggles(&resolved, toggles)?
                .into_iter()
                .map(|(name, config)| (name, config.settings()))
                .collect())
        }
        let override_run: Map<String, PartialToolConfig> =
            serde_json::from_value(json!({"ask_user": {"run": "ask"}})).expect("a valid layer");
        let full = settings_of_full(&override_run, &[]);
        assert_eq!(effective_settings(&override_run, &[]), full);
        assert_ne!(without_builtin_layer(&override_run, &[]), full);
        assert_eq!(
            full.expect("the override resolves")["ask_user"].run,
            RunPolicy::Ask
        );
    }
}

#[cfg(test)]
mod config_merge_tests;
