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
//! `spec/profiles/legacy.json` is.
//!
//! `tables` amends the decision tables row by row (rule `AMEND-TABLE-ROWS`;
//! [`crate::profile::tables`]): `{"cancellation": {"prompter_failure:io":
//! {"reason": "backend_error", "from": "rfd.md:74"}}}`, each row with where
//! it came from (optional). Like a switch, a row set to the base's own value
//! is refused; an amendment of rows alone needs no `switches`. Parsing is
//! pure (the text is given); the command line reads the file.

use serde_json::{Map, Value};

use crate::profile::tables::{Table, Tables};
use crate::profile::{ProfileName, Rules};

/// A rule set the model can run under: a built-in profile, or one read from
/// a profile file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RuleSet {
    /// How reports name it: the built-in's name, or the file's path as given.
    pub(crate) label: String,
    /// The built-in profile whose writer and invariants judge its runs: the
    /// built-in with the same rules if there is one, else the file's base,
    /// else the built-in with the fewest differing switches (decision
    /// "Reviewers": the stream oracle knows three writers).
    pub(crate) judged_as: ProfileName,
    /// The switches the coordinator reads.
    pub(crate) rules: Rules,
    /// Where it came from.
    pub(crate) origin: Origin,
}

/// Where a [`RuleSet`] came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Origin {
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
        /// The table rows it amends, in file order.
        rows: Vec<AmendedRow>,
    },
}

/// One row a profile file amends (its `tables`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct AmendedRow {
    /// The table.
    pub(crate) table: Table,
    /// The row's name.
    pub(crate) row: String,
    /// The row's value in the file.
    pub(crate) value: String,
    /// Where the row came from (`from`), if the file says.
    pub(crate) from: Option<String>,
}

impl serde::Serialize for Table {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// What a profile file says about itself (`title`, `amends`,
/// `description`), for the reports that name the rule set.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg(feature = "cli")]
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
    #[cfg(feature = "cli")]
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
pub(crate) struct ProfileFileError {
    /// The file as named on the command line.
    pub(crate) file: String,
    /// The offending field, or empty when the whole document is.
    pub(crate) field: String,
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
pub(crate) const FIELDS: [&str; 7] = [
    "$schema",
    "title",
    "amends",
    "description",
    "base",
    "switches",
    "tables",
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
pub(crate) fn switches_of(rules: &Rules) -> Map<String, Value> {
    match serde_json::to_value(rules) {
        Ok(Value::Object(m)) => m,
        Ok(_) | Err(_) => Map::new(),
    }
}

/// The switches on which `b` differs from `a`, then the table rows:
/// `(switch or table.row, a's value, b's value)`.
pub(crate) fn differing(a: &Rules, b: &Rules) -> Vec<(String, Value, Value)> {
    let (x, y) = (switches_of(a), switches_of(b));
    let mut out: Vec<(String, Value, Value)> = x
        .iter()
        .filter_map(|(k, v)| {
            let w = y.get(k).cloned().unwrap_or(Value::Null);
            (v != &w).then(|| (k.clone(), v.clone(), w))
        })
        .collect();
    out.extend(Tables::differing(&a.tables, &b.tables));
    out
}

impl RuleSet {
    /// The switches this rule set flips over its base (a file's `base`; for
    /// a complete file or a built-in, the built-in it is judged as).
    #[cfg(feature = "cli")]
    pub(crate) fn flips(&self) -> Vec<(String, Value, Value)> {
        let base = match &self.origin {
            Origin::File {
                base: Some(base), ..
            } => *base,
            Origin::File { base: None, .. } | Origin::Builtin => self.judged_as,
        };
        differing(&base.rules(), &self.rules)
    }

    /// The built-in profile with exactly these rules, if any.
    #[cfg(feature = "cli")]
    pub(crate) fn builtin_equal(&self) -> Option<ProfileName> {
        ProfileName::ALL
            .into_iter()
            .find(|p| p.rules() == self.rules)
    }
}

/// Reads a profile file's text. `file` names it in errors.
pub(crate) fn parse(file: &str, text: &str) -> Result<RuleSet, ProfileFileError> {
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
    let empty = Map::new();
    let switches = match doc.get("switches") {
        Some(Value::Object(m)) => m,
        Some(other) => return Err(err("switches", format!("must be an object, not {other}"))),
        // An amendment of table rows alone needs no switch.
        None if base.is_some() && doc.contains_key("tables") => &empty,
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
    let mut rules: Rules = serde_json::from_value(Value::Object(merged))
        .map_err(|e| err("switches", strip_position(&e.to_string())))?;
    let rows = match doc.get("tables") {
        None => Vec::new(),
        Some(t) => amend_tables(t, &mut rules.tables, base).map_err(|(f, m)| err(&f, m))?,
    };
    if base.is_some() && switches.is_empty() && rows.is_empty() {
        return Err(err(
            "switches",
            format!(
                "flips nothing: the file would be {} itself",
                base.unwrap_or_default()
            ),
        ));
    }
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
            rows,
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
#[cfg(feature = "cli")]
pub(crate) fn to_file(
    title: &str,
    amends: &str,
    base: Option<ProfileName>,
    rules: &Rules,
) -> Value {
    let switches: Map<String, Value> = match base {
        Some(b) => {
            let names = switch_names();
            differing(&b.rules(), rules)
                .into_iter()
                .filter(|(k, _, _)| names.contains(k))
                .map(|(k, _, v)| (k, v))
                .collect()
        }
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

/// Applies a file's `tables` to `tables` (the base's rows): each row an
/// object `{"<value field>": value, "from": "where it came from"}`. A row
/// set to the base's own value is refused, as a switch is. Errors are
/// `(field, message)`.
fn amend_tables(
    doc: &Value,
    tables: &mut Tables,
    base: Option<ProfileName>,
) -> Result<Vec<AmendedRow>, (String, String)> {
    let Value::Object(doc) = doc else {
        return Err(("tables".to_owned(), format!("must be an object, not {doc}")));
    };
    let names = Table::ALL.map(Table::as_str).join(", ");
    let mut out = Vec::new();
    for (name, rows) in doc {
        let field = format!("tables.{name}");
        let table = Table::from_name(name).ok_or_else(|| {
            (
                field.clone(),
                format!("unknown table; the tables are {names}"),
            )
        })?;
        let Value::Object(rows) = rows else {
            return Err((field, format!("must be an object of rows, not {rows}")));
        };
        for (row, spec) in rows {
            let field = format!("tables.{name}.{row}");
            let key = table.value_field();
            let Value::Object(spec) = spec else {
                return Err((
                    field,
                    format!("must be an object {{\"{key}\": …, \"from\": …}}, not {spec}"),
                ));
            };
            if let Some(k) = spec.keys().find(|k| *k != key && *k != "from") {
                return Err((
                    format!("{field}.{k}"),
                    format!("unknown field; a row has `{key}` and `from`"),
                ));
            }
            let value = match spec.get(key) {
                Some(Value::String(v)) => v.clone(),
                Some(other) => {
                    return Err((
                        format!("{field}.{key}"),
                        format!("must be a string, not {other}"),
                    ));
                }
                None => return Err((format!("{field}.{key}"), "missing (required)".to_owned())),
            };
            let from = match spec.get("from") {
                None => None,
                Some(Value::String(f)) => Some(f.clone()),
                Some(other) => {
                    return Err((
                        format!("{field}.from"),
                        format!("must be a string, not {other}"),
                    ));
                }
            };
            let before = *tables;
            tables
                .set(table, row, &value)
                .map_err(|m| (field.clone(), m))?;
            if before == *tables {
                return Err((
                    field,
                    format!(
                        "{} already has {name}.{row} = {value}; `tables` lists only the rows the amendment changes",
                        base.map_or("the RFD tables", ProfileName::as_str)
                    ),
                ));
            }
            out.push(AmendedRow {
                table,
                row: row.clone(),
                value,
                from,
            });
        }
    }
    Ok(out)
}

/// A profile file over `base` for `rules`: the switches that differ, and
/// the table rows that differ, each with where it came from (`from`, keyed
/// `table.row`) and the file's `description`.
#[cfg(feature = "cli")]
pub(crate) fn to_amendment_file(
    title: &str,
    amends: &str,
    description: Option<&str>,
    base: ProfileName,
    rules: &Rules,
    from: &std::collections::BTreeMap<String, String>,
) -> Value {
    let mut doc = match to_file(title, amends, Some(base), rules) {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    if let Some(d) = description {
        doc.insert("description".to_owned(), Value::String(d.to_owned()));
    }
    let mut tables = Map::new();
    let base_rows = base.rules().tables.rows();
    for ((table, row, v), (_, _, b)) in rules.tables.rows().into_iter().zip(base_rows) {
        if v == b {
            continue;
        }
        let mut spec = Map::new();
        spec.insert(table.value_field().to_owned(), v);
        if let Some(f) = from.get(&format!("{}.{row}", table.as_str())) {
            spec.insert("from".to_owned(), Value::String(f.clone()));
        }
        let entry = tables
            .entry(table.as_str().to_owned())
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(m) = entry {
            m.insert(row.to_owned(), Value::Object(spec));
        }
    }
    if !tables.is_empty() {
        if doc
            .get("switches")
            .is_some_and(|s| s.as_object().is_some_and(Map::is_empty))
        {
            doc.remove("switches");
        }
        doc.insert("tables".to_owned(), Value::Object(tables));
    }
    Value::Object(doc)
}

fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_owned(),
        None => msg.to_owned(),
    }
}

#[cfg(all(test, feature = "testkit"))]
mod profile_files_tests;
