//! The built-in registry (RFD 083 "Tool configuration": the built-ins'
//! registered configuration comes from `builtins::all()`; "Built-in
//! aliasing": the executor is found by the config key).
//!
//! Each built-in is listed once, with its executor, its kind (and so its
//! provenance hook, RFD 082 Phase 1) and what it registers. Configuration
//! reads the registry ([`crate::model::config`] turns a [`Registration`] into a
//! configuration layer); the built-ins themselves know nothing of
//! configuration, so no module below configuration imports it.

use serde_json::Value;

use crate::model::ask_user;
use crate::model::tool::{Answers, Outcome, ToolSource};

/// How a built-in registers itself, as the configuration layer under the
/// user's (RFD 083 Phase 1 step 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Registration {
    /// RFD 083 "Tool configuration" and Phase 2 for `ask_user`: enabled but
    /// immune to bare `-T` (`allow_toggle = "if_named"`), no permission or
    /// delivery prompts (`run` and `result` unattended), hidden chrome.
    Unobtrusive,
}

/// One built-in tool.
#[derive(Debug, Clone, Copy)]
pub struct Builtin {
    /// Its name and configuration key.
    pub(crate) name: &'static str,
    /// The executor's kind, whose `inquiry_source()` hook gives the
    /// provenance (RFD 082 Phase 1).
    pub(crate) source: ToolSource,
    /// The executor: pure, arguments and accumulated answers in, outcome out.
    pub execute: fn(&Value, &Answers) -> Outcome,
    /// How it registers.
    pub(crate) registration: Registration,
    /// The `prompt_label` of each question it asks, by question ID.
    pub(crate) prompt_labels: &'static [(&'static str, &'static str)],
    /// The provider-visible description.
    pub(crate) description: fn() -> &'static str,
    /// The arguments' JSON Schema.
    pub(crate) parameters: fn() -> Value,
}

/// Every built-in, in registration order.
pub(crate) fn all() -> &'static [Builtin] {
    const ALL: &[Builtin] = &[Builtin {
        name: ask_user::NAME,
        source: ask_user::SOURCE,
        execute: ask_user::execute,
        registration: Registration::Unobtrusive,
        prompt_labels: &[(ask_user::QUESTION_ID, ask_user::PROMPT_LABEL)],
        description: ask_user::description,
        parameters: ask_user::parameters,
    }];
    ALL
}

/// The built-in registered under the configuration key `key`, if any (RFD
/// 083 "Built-in aliasing": found by the key, never by the `source` string).
pub(crate) fn find(key: &str) -> Option<&'static Builtin> {
    all().iter().find(|b| b.name == key)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFD 083 registers exactly one built-in, `ask_user`, whose executor
    /// reports the `Assistant` provenance hook; any other key finds nothing.
    #[test]
    fn the_registry_is_rfd_083s() {
        let names: Vec<&str> = all().iter().map(|b| b.name).collect();
        assert_eq!(names, ["ask_user"]);
        let found = find("ask_user").expect("ask_user is registered");
        assert_eq!(
            found.source,
            ToolSource::Builtin {
                hook: crate::model::tool::BuiltinHook::Assistant
            }
        );
        assert!(find("fs_read_file").is_none());
        assert!(find("").is_none());
    }
}
