//! `check`'s configuration file, `inquiry-model.toml` (or
//! `.inquiry-model.toml`), found as ruff finds `ruff.toml`: the nearest one
//! in the folder of the first path checked or a folder above it (decision
//! "Oracle checks: rule selection and the configuration file").
//!
//! ```toml
//! [check]
//! select = ["CHECK"]            # rule IDs or prefixes; ALL is every rule
//! ignore = ["CHECK-PAIRED"]
//! strict = false                # exit 1 on warnings too
//! rules-uri = "https://…/spec/RULES.md"   # SARIF helpUri base
//! ```

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::select::{Layer, Selector};

/// The names looked for in each folder, in this order.
pub(crate) const FILE_NAMES: [&str; 2] = ["inquiry-model.toml", ".inquiry-model.toml"];

/// The file as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    check: CheckTable,
}

/// Its `[check]` table.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct CheckTable {
    select: Option<Vec<String>>,
    #[serde(default)]
    ignore: Vec<String>,
    strict: Option<bool>,
    rules_uri: Option<String>,
}

/// What a configuration file sets for `check`.
#[derive(Debug, Default)]
pub(crate) struct Config {
    /// The file read, if any.
    pub(crate) path: Option<PathBuf>,
    /// Its rule selection, the first layer.
    pub(crate) layer: Layer,
    /// `strict`.
    pub(crate) strict: Option<bool>,
    /// `rules-uri`.
    pub(crate) rules_uri: Option<String>,
}

/// The nearest configuration file at or above `start`.
pub(crate) fn find(start: &Path) -> Option<PathBuf> {
    let start = std::path::absolute(start).ok()?;
    start.ancestors().find_map(|dir| {
        FILE_NAMES
            .iter()
            .map(|name| dir.join(name))
            .find(|p| p.is_file())
    })
}

/// The folder to search from for `paths`: the first path's folder (itself
/// when it is one), or the current folder for standard input.
pub(crate) fn search_start(paths: &[PathBuf]) -> PathBuf {
    match paths.first() {
        Some(p) if p.as_os_str() != "-" && p.is_dir() => p.clone(),
        Some(p) if p.as_os_str() != "-" => match p.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        },
        _ => PathBuf::from("."),
    }
}

/// Reads and checks the file at `path`; the error names the file.
pub(crate) fn load(path: &Path) -> Result<Config, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let file: File = toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let selectors = |names: &[String]| -> Result<Vec<Selector>, String> {
        names
            .iter()
            .map(|n| Selector::parse(n).map_err(|e| format!("{}: {e}", path.display())))
            .collect()
    };
    let t = file.check;
    if let Some(uri) = &t.rules_uri {
        super::absolute_uri(uri).map_err(|e| format!("{}: rules-uri: {e}", path.display()))?;
    }
    Ok(Config {
        path: Some(path.to_path_buf()),
        layer: Layer {
            select: t.select.as_deref().map(selectors).transpose()?,
            ignore: selectors(&t.ignore)?,
        },
        strict: t.strict,
        rules_uri: t.rules_uri,
    })
}
