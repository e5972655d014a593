//! `--profile`, `--from`, `--to`: a built-in profile's name or the path of a
//! profile file (rule `AMEND-PROFILE-FILE`). `--help` lists the built-ins; a
//! value that is neither is refused with them, and a profile file that
//! cannot be used is refused naming the file and the field (exit 2).

use std::ffi::OsStr;

use clap::builder::TypedValueParser;
use clap::error::ErrorKind;

use crate::check::ProfileMode;
use crate::profile::tables::Tables;
use crate::profile::{ProfileName, Rules};
use crate::review::profile_file::{self, Origin, RuleSet};

/// Reads a profile argument: a built-in name, else a file.
pub(crate) fn read_rule_set(value: &str) -> Result<RuleSet, String> {
    if let Ok(p) = value.parse::<ProfileName>() {
        return Ok(p.into());
    }
    let path = std::path::Path::new(value);
    if path.is_dir() {
        return Err(format!(
            "unknown profile `{value}`; expected legacy, rfd082, rfd083 or a profile file (`{value}` is a directory; profile files are JSON, e.g. spec/profiles/examples/*.json)"
        ));
    }
    if !path.is_file() {
        return Err(format!(
            "unknown profile `{value}`; expected legacy, rfd082, rfd083 or a profile file (no file `{value}`)"
        ));
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("{value}: cannot read: {e}"))?;
    profile_file::parse(value, &text).map_err(|e| e.to_string())
}

fn invalid(cmd: &clap::Command, arg: Option<&clap::Arg>, value: &OsStr, why: &str) -> clap::Error {
    let name = arg.map_or_else(|| "PROFILE".to_owned(), |a| a.to_string());
    clap::Error::raw(
        ErrorKind::InvalidValue,
        format!(
            "invalid value '{}' for '{name}': {why}\n",
            value.to_string_lossy()
        ),
    )
    .with_cmd(cmd)
}

// The parsers list no possible values: `[possible values: …]` in `--help`
// would say the built-ins are all an option takes, and shell completions
// would offer no file name. Each option's own help text names the
// built-ins and profile files (`tests/suite/tooling/cli_help.rs` checks it
// names every built-in).

/// The parser of `run`, `diff-profiles` and `invariants`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RuleSetParser;

impl TypedValueParser for RuleSetParser {
    type Value = RuleSet;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<RuleSet, clap::Error> {
        read_rule_set(&value.to_string_lossy()).map_err(|why| invalid(cmd, arg, value, &why))
    }
}

/// The parser of `check --profile`: `auto`, a built-in, or a profile file,
/// judged as the writer of the built-in it is judged as (the oracle knows
/// three writers; decision "Reviewers"). A file whose switches
/// differ from that built-in's gets a note naming the switches the oracle
/// judges as the built-in's ([`CheckProfile::note`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct CheckProfileParser;

/// `check --profile` as parsed: the mode the oracle judges with, and the
/// note for stderr when a profile file's switches differ from the writer's
/// it is judged as (printed by the command, which knows `-q`; a parser
/// runs before the global flags are read).
#[derive(Debug, Clone)]
pub(crate) struct CheckProfile {
    /// The writer the streams are judged as.
    pub(crate) mode: ProfileMode,
    /// The decision tables that writer follows: a profile file's amended
    /// rows, read by the oracle (decision "Oracle checks: an amendment's rows widen the
    /// reason rules").
    pub(crate) tables: Tables,
    /// The note, without the `inquiry-model: note: ` prefix.
    pub(crate) note: Option<String>,
}

impl TypedValueParser for CheckProfileParser {
    type Value = CheckProfile;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<CheckProfile, clap::Error> {
        if value == "auto" {
            return Ok(CheckProfile {
                mode: ProfileMode::Auto,
                tables: Tables::RFD,
                note: None,
            });
        }
        let set = read_rule_set(&value.to_string_lossy()).map_err(|why| {
            invalid(
                cmd,
                arg,
                value,
                &why.replace("expected legacy", "expected auto, legacy"),
            )
        })?;
        // The table rows are judged as the file states them; only the
        // switches are judged as the built-in's.
        let unjudged = profile_file::differing(
            &set.judged_as.rules(),
            &Rules {
                tables: set.judged_as.rules().tables,
                ..set.rules
            },
        );
        let note = (!unjudged.is_empty()).then(|| {
            format!(
                "{} is judged as the {} writer; the oracle judges its switches {} as {}'s",
                set.label,
                set.judged_as,
                unjudged
                    .iter()
                    .map(|(k, _, v)| format!("{k} = {v}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                set.judged_as
            )
        });
        Ok(CheckProfile {
            mode: ProfileMode::Fixed(set.judged_as),
            tables: set.rules.tables,
            note,
        })
    }
}

/// The parser of `conform --profile`: a built-in, a profile file equal to
/// one, or an amendment (a file with a `base`), which the runner announces
/// to the adapter (rule `CONF-AMENDMENT`). A complete file equal to no
/// built-in is refused: an adapter is told a base and what the amendment
/// changes over it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ConformProfileParser;

impl TypedValueParser for ConformProfileParser {
    type Value = RuleSet;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<RuleSet, clap::Error> {
        let set = read_rule_set(&value.to_string_lossy())
            .map_err(|why| invalid(cmd, arg, value, &why))?;
        match (&set.origin, set.builtin_equal()) {
            (_, Some(_)) | (Origin::File { base: Some(_), .. }, None) => Ok(set),
            (Origin::File { base: None, .. } | Origin::Builtin, None) => {
                let flips = set
                    .flips()
                    .iter()
                    .map(|(k, _, v)| format!("{k} = {v}"))
                    .collect::<Vec<_>>()
                    .join(", ");
                Err(invalid(
                    cmd,
                    arg,
                    value,
                    &format!(
                        "an adapter is told a base profile and an amendment over it (spec/conform-protocol.md); {} names no `base` and flips {flips} over {}, which no built-in profile does",
                        set.label, set.judged_as
                    ),
                ))
            }
        }
    }
}

/// The parser of `vectors --profile`: a built-in, or a profile file equal
/// to one (vectors are written for the built-in profiles).
#[derive(Debug, Clone, Copy)]
pub(crate) struct BuiltinProfileParser;

impl TypedValueParser for BuiltinProfileParser {
    type Value = ProfileName;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<ProfileName, clap::Error> {
        let set = read_rule_set(&value.to_string_lossy())
            .map_err(|why| invalid(cmd, arg, value, &why))?;
        set.builtin_equal().ok_or_else(|| {
            invalid(
                cmd,
                arg,
                value,
                &format!(
                    "vectors are written for the built-in profiles; {} equals none of them",
                    set.label
                ),
            )
        })
    }
}
