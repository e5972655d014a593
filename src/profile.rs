//! Profiles: the rule set of each RFD stage, as values.
//!
//! A profile is a named set of rule switches. The coordinator reads the
//! switches; it never asks which profile it runs under. That is what lets an
//! amendment be described as "these switches flip" and diffed by running the
//! same scenarios under two profiles.

use serde::{Deserialize, Serialize};

pub mod tables;

use tables::Tables;

/// The named RFD stages.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum ProfileName {
    /// RFD 005 + 028, before RFD 082.
    Legacy,
    /// RFD 082 alone.
    Rfd082,
    /// RFD 082 + 083 (the default).
    #[default]
    Rfd083,
}

impl ProfileName {
    /// Every profile, oldest first.
    pub const ALL: [ProfileName; 3] = [
        ProfileName::Legacy,
        ProfileName::Rfd082,
        ProfileName::Rfd083,
    ];

    /// The name as written on the command line and in scenarios.
    pub fn as_str(self) -> &'static str {
        match self {
            ProfileName::Legacy => "legacy",
            ProfileName::Rfd082 => "rfd082",
            ProfileName::Rfd083 => "rfd083",
        }
    }

    /// The earliest profile whose rules have `switch` on: the stage a shape
    /// that only such a writer records proves (the oracle's auto profile,
    /// `check::shape::Shape::evidence`), read from the switches rather than
    /// named, so the two cannot drift.
    pub(crate) fn first_with(switch: impl Fn(&Rules) -> bool) -> Option<ProfileName> {
        ProfileName::ALL.into_iter().find(|p| switch(&p.rules()))
    }

    /// The latest profile whose rules have `switch` on.
    pub(crate) fn last_with(switch: impl Fn(&Rules) -> bool) -> Option<ProfileName> {
        ProfileName::ALL
            .into_iter()
            .rev()
            .find(|p| switch(&p.rules()))
    }

    /// The rule switches of this stage.
    pub fn rules(self) -> Rules {
        match self {
            ProfileName::Legacy => Rules {
                record: RecordScope::BackendOnly,
                id_format: IdFormat::TwoSegment,
                response_form: ResponseForm::Flat,
                static_delivery: StaticDelivery::PreSeeded,
                turn_cache: TurnCacheShape::Combined,
                secret_type: false,
                exclusive: false,
                persistence_gate: false,
                static_validation: false,
                prompt_label: false,
                widened_question: false,
                provenance: Provenance::ToolName,
                question_id_separator: SeparatorPolicy::Allowed,
                tables: Tables::RFD,
            },
            ProfileName::Rfd082 => Rules {
                record: RecordScope::EveryRoundTrip,
                id_format: IdFormat::Attempt,
                response_form: ResponseForm::Tagged,
                static_delivery: StaticDelivery::OnNeedsInput,
                turn_cache: TurnCacheShape::Split,
                secret_type: true,
                exclusive: false,
                persistence_gate: false,
                static_validation: false,
                prompt_label: false,
                widened_question: false,
                provenance: Provenance::Hook,
                question_id_separator: SeparatorPolicy::Allowed,
                tables: Tables::RFD,
            },
            ProfileName::Rfd083 => Rules {
                record: RecordScope::EveryRoundTrip,
                id_format: IdFormat::Attempt,
                response_form: ResponseForm::Tagged,
                static_delivery: StaticDelivery::OnNeedsInput,
                turn_cache: TurnCacheShape::Split,
                secret_type: true,
                exclusive: true,
                persistence_gate: true,
                static_validation: true,
                prompt_label: true,
                widened_question: true,
                provenance: Provenance::Hook,
                question_id_separator: SeparatorPolicy::Allowed,
                tables: Tables::RFD,
            },
        }
    }
}

impl std::fmt::Display for ProfileName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for ProfileName {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "legacy" => Ok(ProfileName::Legacy),
            "rfd082" => Ok(ProfileName::Rfd082),
            "rfd083" => Ok(ProfileName::Rfd083),
            other => Err(format!(
                "unknown profile `{other}`; expected legacy, rfd082 or rfd083"
            )),
        }
    }
}

impl ProfileName {
    /// RFD 082 "`InquiryResponse` serialization": responses are written
    /// tagged with `outcome` (pre-082 writers wrote the flat `{id, answer}`).
    pub(crate) fn has_tagged_responses(self) -> bool {
        match self.rules().response_form {
            ResponseForm::Flat => false,
            ResponseForm::Tagged => true,
        }
    }

    /// RFD 082 "Secret questions": the `secret` answer type exists.
    pub(crate) fn has_secret_type(self) -> bool {
        self.rules().secret_type
    }

    /// RFD 082 "Inquiry ID format": turn-unique `<call>.<question>.<attempt>` IDs.
    pub(crate) fn writes_attempt_ids(self) -> bool {
        match self.rules().id_format {
            IdFormat::TwoSegment => false,
            IdFormat::Attempt => true,
        }
    }

    /// RFD 083 step 5: `context`, `exclusive`, `persistence` on the question.
    pub(crate) fn has_083_fields(self) -> bool {
        self.rules().widened_question
    }
}

/// How an answered response is written on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResponseForm {
    /// Pre-082: `{"id", "answer"}`.
    Flat,
    /// RFD 082: `{"outcome": "answered", "id", "answer"}`.
    Tagged,
}

/// Which round-trips land on the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum RecordScope {
    /// RFD 005: only inquiry-backend questions, the request when the inquiry
    /// is spawned and the response only on success.
    BackendOnly,
    /// RFD 082: every `NeedsInput`, request first, always closed by a response.
    EveryRoundTrip,
}

/// How inquiry IDs are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum IdFormat {
    /// `<tool_call_id>.<question_id>` (pre-082).
    TwoSegment,
    /// `<tool_call_id>.<question_id>.<attempt>` (RFD 082).
    Attempt,
}

/// When configured static answers reach the tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum StaticDelivery {
    /// Pre-seeded into the first invocation; never asked, never recorded.
    PreSeeded,
    /// Applied when the tool asks (RFD 082 "Pre-seed removal").
    OnNeedsInput,
}

/// The shape of the turn's remembered answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum TurnCacheShape {
    /// One map for tool answers and permission decisions (pre-082).
    Combined,
    /// Two maps, one per caller (RFD 082 "Splitting the turn-cache state").
    Split,
}

/// Where the persisted `InquirySource` comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Provenance {
    /// Pre-082: hard-coded `InquirySource::tool(tool_name)` at the recording
    /// site, whatever the tool (RFD 082 "Motivation"; rule
    /// `LIFE-PROVENANCE-LEGACY`).
    ToolName,
    /// RFD 082 Phase 1: the built-in's `inquiry_source()` hook, resolved at
    /// the executor boundary (rule `LIFE-PROVENANCE`).
    Hook,
}

/// Whether a tool's question ID may hold the `.` that RFD 082 joins IDs
/// with ("Inquiry ID format": `<tool_call_id>.<question_id>.<attempt>`;
/// "Splitting the turn-cache state": `<tool_name>.<question_id>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum SeparatorPolicy {
    /// Any question ID is recorded as given (RFD 082 as written, which
    /// assumes the parts hold no separator: "IDs are unique by construction
    /// within the turn"). Rules `INV-ID-UNIQUE`, `INV-CACHE-KEY-UNIQUE`.
    Allowed,
    /// A question ID that is empty or holds `.` is refused at the executor
    /// boundary: the call ends with a tool error, nothing is recorded or
    /// remembered. With dot-free question IDs and a numeric attempt, both
    /// joined keys split from the right into their parts, so they are unique
    /// by construction (the amendment
    /// `spec/profiles/examples/question-id-without-separator.json`).
    Refused,
}

/// The rule switches of a profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Rules {
    /// Which round-trips are recorded.
    pub(crate) record: RecordScope,
    /// The ID format written.
    pub(crate) id_format: IdFormat,
    /// How answered responses are written.
    pub response_form: ResponseForm,
    /// When static answers are delivered.
    pub(crate) static_delivery: StaticDelivery,
    /// The turn cache's shape.
    pub(crate) turn_cache: TurnCacheShape,
    /// `AnswerType::Secret` exists (RFD 082); without it a secret question is
    /// plain text.
    pub(crate) secret_type: bool,
    /// `Question.exclusive` is honoured (RFD 083).
    pub(crate) exclusive: bool,
    /// `Question.persistence` gates the cache (RFD 083 step 6).
    pub persistence_gate: bool,
    /// Static answers are validated before use (RFD 083 step 6).
    pub(crate) static_validation: bool,
    /// `QuestionConfig.prompt_label` is rendered (RFD 083 step 4).
    pub(crate) prompt_label: bool,
    /// The persisted question carries RFD 083's `context`, `exclusive` and
    /// `persistence` (RFD 083 step 5).
    pub(crate) widened_question: bool,
    /// Where the persisted source comes from (RFD 082 Phase 1).
    pub provenance: Provenance,
    /// Whether a question ID may hold the ID separator (no RFD says; see
    /// [`SeparatorPolicy`]).
    pub(crate) question_id_separator: SeparatorPolicy,
    /// The decision tables, row by row (not a switch: a profile file
    /// amends them under `tables`; every built-in has [`Tables::RFD`]).
    #[serde(skip)]
    pub tables: Tables,
}

impl Rules {
    /// Whether a question may only be answered by a human (rule
    /// `LIFE-HUMAN-ONLY`), decided here once for the model's routing and the
    /// oracle's reason rules: a `secret` question always (RFD 082 "Secret
    /// questions": the routing guard), an `exclusive` one where RFD 083 is in
    /// force (RFD 083 "Non-interactive behavior"; `exclusive` switch).
    ///
    /// `secret` is the caller's: the model passes its lifecycle's verdict
    /// (`routing::is_secret`), the oracle the persisted answer type (a
    /// `secret` on disk was written by a writer that has the type).
    pub(crate) fn human_only(&self, secret: bool, exclusive: bool) -> bool {
        secret || (exclusive && self.exclusive)
    }
}
