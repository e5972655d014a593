//! Profiles as files: an RFD amendment stated as "this base, these switches
//! flipped" (rule `AMEND-PROFILE-FILE`), so a reviewer can propose behaviour
//! without editing Rust.
//!
//! A profile file is JSON (schema `spec/schema/profile.schema.json`):
//!
//! ```json
//! {
//!   "title": "RFD 083 over RFD 082",
//!   "amends": "RFD 082 \"Recording lifecycle\"",
//!   "base": "rfd082",
//!   "switches": { "exclusive": true }
//! }
//! ```
//!
//! `switches` lists only what the amendment flips (a switch set to the
//! base's own value is refused: it would say "changes" where nothing does).
//! Without `base`, `switches` must set every switch: a complete profile, as
//! `spec/profiles/legacy.json` is. Parsing is pure (the text is given); the
//! command line reads the file.

use serde_json::{Map, Value};

use crate::profile::{ProfileName, Rules};

/// A rule set the model can run under: a built-in profile, or one read from
/// a profile file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleSet {
    /// How reports name it: the built-in's name, or the file's path as given.
    pub(crate) label: String,
    /// The built-in profile whose writer and invariants judge its runs: the
    /// built-in with the same rules if there is one, else the file's base,
    /// else the built-in with the fewest differing switches (decision
    /// "Reviewers": the stream oracle knows three writers).
    pub judged_as: ProfileName,
    /// The switches the coordinator reads.
    pub rules: Rules,
    /// Where it came from.
    pub origin: Origin,
}

/// Where a [`RuleSet`] came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A built-in profile (`ProfileName::rules`).
    Builtin,
    /// A profile file.
    File {
        /// The file's `title`.
        title: String,
        /// The file's `amends`: the RFD section the amendment changes.
        amends: String,
        /// The file's `base`, if it names one.
        base: Option<ProfileName>,
        /// The file's `description`, if it has one.
        description: Option<String>,
    },
}

/// What a profile file says about itself (`title`, `amends`,
/// `description`), for the reports that name the rule set.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg(feature = "testkit")]
pub(crate) struct About {
    /// The file's `title`.
    pub(crate) title: String,
    /// The RFD section the amendment changes.
    pub(crate) amends: String,
    /// The file's `description`, if it has one.
    pub(crate) description: Option<String>,
}

impl RuleSet {
    /// A profile file's `title`, `amends` and `description`; `None` for a
    /// built-in.
    #[cfg(feature = "testkit")]
    pub(crate) fn about(&self) -> Option<About> {
        match &self.origin {
            Origin::Builtin => None,
            Origin::File {
                title,
                amends,
                description,
                ..
            } => Some(About {
                title: title.clone(),
                amends: amends.clone(),
                description: description.clone(),
            }),
        }
    }
}

impl From<ProfileName> for RuleSet {
    fn from(p: ProfileName) -> Self {
        RuleSet {
            label: p.as_str().to_owned(),
            judged_as: p,
            rules: p.rules(),
            origin: Origin::Builtin,
        }
    }
}

impl std::fmt::Display for RuleSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.label)
    }
}

/// Why a profile file is unusable: the file, the field (a JSON path such as
/// `switches.exclusive`, empty for the document) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileFileError {
    /// The file as named on the command line.
    pub file: String,
    /// The offending field, or empty when the whole document is.
    pub field: String,
    /// What is wrong.
    pub(crate) message: String,
}

impl std::fmt::Display for ProfileFileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}: field `{}`: {}", self.file, self.field, self.message)
        }
    }
}

impl std::error::Error for ProfileFileError {}

/// The fields a profile file may carry.
pub(crate) const FIELDS: [&str; 6] = [
    "$schema",
    "title",
    "amends",
    "description",
    "base",
    "switches",
];

/// Every switch of [`Rules`], in declaration order (the names a profile
/// file's `switches` uses).
pub(crate) fn switch_names() -> Vec<String> {
    match serde_json::to_value(ProfileName::Rfd083.rules()) {
        Ok(Value::Object(m)) => m.keys().cloned().collect(),
        Ok(_) | Err(_) => Vec::new(),
    }
}

/// The rules as a JSON object, switch by switch.
pub fn switches_of(rules: &Rules) -> Map<String, Value> {
    match serde_json::to_value(rules) {
        Ok(Value::Object(m)) => m,
        Ok(_) | Err(_) => Map::new(),
    }
}

/// The switches on which `b` differs from `a`: `(switch, a's value, b's value)`.
pub(crate) fn differing(a: &Rules, b: &Rules) -> Vec<(String, Value, Value)> {
    let (x, y) = (switches_of(a), switches_of(b));
    x.iter()
        .filter_map(|(k, v)| {
            let w = y.get(k).cloned().unwrap_or(Value::Null);
            (v != &w).then(|| (k.clone(), v.clone(), w))
        })
        .collect()
}

impl RuleSet {
    /// The switches this rule set flips over its base (a file's `base`; for
    /// a complete file or a built-in, the built-in it is judged as).
    pub fn flips(&self) -> Vec<(String, Value, Value)> {
        let base = match &self.origin {
            Origin::File {
                base: Some(base), ..
            } => *base,
            Origin::File { base: None, .. } | Origin::Builtin => self.judged_as,
        };
        differing(&base.rules(), &self.rules)
    }

    /// The built-in profile with exactly these rules, if any.
    pub fn builtin_equal(&self) -> Option<ProfileName> {
        ProfileName::ALL
            .into_iter()
            .find(|p| p.rules() == self.rules)
    }
}

/// Reads a profile file's text. `file` names it in errors.
pub fn parse(file: &str, text: &str) -> Result<RuleSet, ProfileFileError> {
    let err = |field: &str, message: String| ProfileFileError {
        file: file.to_owned(),
        field: field.to_owned(),
        message,
    };
    let doc: Value = serde_json::from_str(text).map_err(|e| {
        err(
            "",
            format!(
                "line {}, column {}: not JSON: {}",
                e.line(),
                e.column(),
                strip_position(&e.to_string())
            ),
        )
    })?;
    let Value::Object(doc) = doc else {
        return Err(err("", "a profile file is a JSON object".to_owned()));
    };
    for k in doc.keys() {
        if !FIELDS.contains(&k.as_str()) {
            return Err(err(
                k,
                format!("unknown field; a profile file has {}", FIELDS.join(", ")),
            ));
        }
    }
    let text_field = |name: &str| -> Result<String, ProfileFileError> {
        match doc.get(name) {
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
            Some(Value::String(_)) => Err(err(name, "must not be empty".to_owned())),
            Some(other) => Err(err(name, format!("must be a string, not {other}"))),
            None => Err(err(name, "missing (required)".to_owned())),
        }
    };
    let title = text_field("title")?;
    let amends = text_field("amends")?;
    let description = match doc.get("description") {
        None => None,
        Some(Value::String(d)) => Some(d.clone()),
        Some(d) => return Err(err("description", format!("must be a string, not {d}"))),
    };
    let base = match doc.get("base") {
        None => None,
        Some(Value::String(s)) => Some(s.parse::<ProfileName>().map_err(|e| err("base", e))?),
        Some(other) => {
            return Err(err(
                "base",
                format!("must be a profile name (legacy, rfd082, rfd083), not {other}"),
            ));
        }
    };
    let switches = match doc.get("switches") {
        Some(Value::Object(m)) => m,
        Some(other) => return Err(err("switches", format!("must be an object, not {other}"))),
        None => return Err(err("switches", "missing (required)".to_owned())),
    };
    let names = switch_names();
    // Each switch is checked alone over a scaffold, so an error names it.
    let scaffold = base.unwrap_or(ProfileName::Rfd083).rules();
    let base_values = switches_of(&scaffold);
    let mut merged = base_values.clone();
    for (k, v) in switches {
        let field = format!("switches.{k}");
        if !names.contains(k) {
            return Err(err(
                &field,
                format!("unknown switch; the switches are {}", names.join(", ")),
            ));
        }
        let mut one = base_values.clone();
        one.insert(k.clone(), v.clone());
        serde_json::from_value::<Rules>(Value::Object(one)).map_err(|e| {
            err(
                &field,
                format!(
                    "{v} is not a value of this switch: {}",
                    strip_position(&e.to_string())
                ),
            )
        })?;
        if let Some(b) = base
            && base_values.get(k) == Some(v)
        {
            return Err(err(
                &field,
                format!(
                    "{b} already has {k} = {v}; `switches` lists only what the amendment flips"
                ),
            ));
        }
        merged.insert(k.clone(), v.clone());
    }
    match base {
        Some(b) if switches.is_empty() => {
            return Err(err(
                "switches",
                format!("flips nothing: the file would be {b} itself"),
            ));
        }
        Some(_) => {}
        None => {
            let missing: Vec<&str> = names
                .iter()
                .filter(|n| !switches.contains_key(*n))
                .map(String::as_str)
                .collect();
            if !missing.is_empty() {
                return Err(err(
                    "switches",
                    format!(
                        "without `base` every switch must be set; missing {}",
                        missing.join(", ")
                    ),
                ));
            }
        }
    }
    let rules: Rules = serde_json::from_value(Value::Object(merged))
        .map_err(|e| err("switches", strip_position(&e.to_string())))?;
    let judged_as = judged_as(&rules, base);
    Ok(RuleSet {
        label: file.to_owned(),
        judged_as,
        rules,
        origin: Origin::File {
            title,
            amends,
            base,
            description,
        },
    })
}

/// The built-in whose writer and invariants judge runs under `rules`.
fn judged_as(rules: &Rules, base: Option<ProfileName>) -> ProfileName {
    if let Some(p) = ProfileName::ALL.into_iter().find(|p| p.rules() == *rules) {
        return p;
    }
    match base {
        Some(b) => b,
        None => ProfileName::ALL
            .into_iter()
            .rev()
            .min_by_key(|p| differing(&p.rules(), rules).len())
            .unwrap_or_default(),
    }
}

/// A profile file for `rules`: over `base` when given (only the switches
/// that differ), else complete.
pub fn to_file(title: &str, amends: &str, base: Option<ProfileName>, rules: &Rules) -> Value {
    let switches: Map<String, Value> = match base {
        Some(b) => differing(&b.rules(), rules)
            .into_iter()
            .map(|(k, _, v)| (k, v))
            .collect(),
        None => switches_of(rules),
    };
    let mut doc = Map::new();
    doc.insert(
        "$schema".to_owned(),
        Value::String("../schema/profile.schema.json".to_owned()),
    );
    doc.insert("title".to_owned(), Value::String(title.to_owned()));
    doc.insert("amends".to_owned(), Value::String(amends.to_owned()));
    if let Some(b) = base {
        doc.insert("base".to_owned(), Value::String(b.as_str().to_owned()));
    }
    doc.insert("switches".to_owned(), Value::Object(switches));
    Value::Object(doc)
}

fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_owned(),
        None => msg.to_owned(),
    }
}
