//! The rule IDs the oracle and the model's invariants report, as one type.
//!
//! A [`Rule`] names a row of `spec/RULES.md`, section "Oracle checks"
//! (`CHECK-*`, judged over any persisted stream by [`crate::check`]) or
//! "Invariants of the model" (`INV-*`, judged over the model's runs by
//! [`crate::invariants`]). It is an enum, so an ID that is not in the catalog
//! cannot be built; `tests/suite/tooling/traceability.rs` checks that the enum and the
//! catalog list the same IDs. A rule's text and source live only in the
//! catalog, which is compiled in ([`CATALOG`], [`Rule::description`],
//! [`Rule::source`]); the code carries its ID and short title
//! ([`Rule::title`]). It sits at the bottom of the module graph: the
//! oracle uses it without knowing the model.

use std::fmt;

use serde::{Serialize, Serializer};

/// One `CHECK-*` or `INV-*` rule of `spec/RULES.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rule {
    /// `CHECK-PAIRED`: every inquiry request gets exactly one response with its
    /// ID later in its turn.
    CheckPaired,
    /// `CHECK-RESPONSE-AFTER-REQUEST`: an inquiry response never comes before
    /// its request.
    CheckResponseAfterRequest,
    /// `CHECK-TURN-SCOPED`: an inquiry pair never crosses a turn boundary.
    CheckTurnScoped,
    /// `CHECK-PLACEMENT`: an inquiry request sits inside an open tool call of
    /// its turn.
    CheckPlacement,
    /// `CHECK-PLACEMENT-SOURCE`: a `source: tool {name}` request sits inside an
    /// open call of that tool.
    CheckPlacementSource,
    /// `CHECK-PLACEMENT-CLOSED`: an inquiry response comes before its tool
    /// call's tool_call_response.
    CheckPlacementClosed,
    /// `CHECK-TURN-UNIQUE-ID`: an RFD 082 writer never repeats an inquiry ID
    /// within a turn.
    CheckTurnUniqueId,
    /// `CHECK-ID-FORMAT`: an RFD 082 writer writes
    /// `<tool_call_id>.<question_id>.<attempt>` for the open call.
    CheckIdFormat,
    /// `CHECK-TURN-ONE-WRITER`: a turn's requests carry either all two-segment
    /// (pre-082) or all three-segment (RFD 082) IDs.
    CheckTurnOneWriter,
    /// `CHECK-TOOL-PAIRED`: every tool_call_request has exactly one
    /// tool_call_response after it in its turn.
    CheckToolPaired,
    /// `CHECK-TOOL-ADJACENT`: no chat_request or chat_response between a tool
    /// call's request and its response.
    CheckToolAdjacent,
    /// `CHECK-ID-ATTEMPT`: RFD 082 attempts grow per (tool call, question) per
    /// turn (gaps allowed: a repair leaves them).
    CheckIdAttempt,
    /// `CHECK-SECRET-NOT-ANSWERED`: the response to a secret question is never
    /// `answered`.
    CheckSecretNotAnswered,
    /// `CHECK-REDACTED-NO-ANSWER`: a `redacted` response carries no `answer` on
    /// disk.
    CheckRedactedNoAnswer,
    /// `CHECK-CANCELLED-NO-ANSWER`: a `cancelled` response carries no `answer`
    /// on disk.
    CheckCancelledNoAnswer,
    /// `CHECK-REDACTED-ONLY-SECRET`: only a secret question's response is
    /// `redacted`.
    CheckRedactedOnlySecret,
    /// `CHECK-REASON-HUMAN-ONLY`:
    /// `no_prompt_backend`/`assistant_routing_denied` close only secret (or,
    /// from RFD 083, exclusive) questions.
    CheckReasonHumanOnly,
    /// `CHECK-REASON-BACKEND-ERROR`: `backend_error` never closes a secret or
    /// exclusive question.
    CheckReasonBackendError,
    /// `CHECK-REASON-INVALID-STATIC`: `invalid_static_answer` appears only
    /// under RFD 083.
    CheckReasonInvalidStatic,
    /// `CHECK-REASON-KNOWN`: a cancellation reason is one the RFDs name (an
    /// error under an explicit profile, a warning under auto).
    CheckReasonKnown,
    /// `CHECK-SECRET-LEAK`: no extra field or `reason` beside a secret's
    /// redaction, no `answer` on a secret's request.
    CheckSecretLeak,
    /// `CHECK-ANSWER-FITS`: an answer fits its question: a boolean, a string,
    /// or one of the select options.
    CheckAnswerFits,
    /// `CHECK-ASK-USER-SHAPE`: an `ask_user` (assistant) question is one the
    /// built-in can produce.
    CheckAskUserShape,
    /// `CHECK-ASK-USER-RECORD`: an `ask_user` call asks one question `answer`
    /// and its success carries the recorded answer.
    CheckAskUserRecord,
    /// `CHECK-PROVENANCE`: `source: assistant` only on an `ask_user` call;
    /// under rfd082 only tool sources.
    CheckProvenance,
    /// `CHECK-REASON-FAILS-TOOL`: a call whose inquiry failed with a
    /// tool-failing reason ends in an error response.
    CheckReasonFailsTool,
    /// `CHECK-ONE-QUESTION`: a call has one open question at a time, and asks
    /// none after a guard failed it.
    CheckOneQuestion,
    /// `CHECK-WRITER-FIELDS`: under an explicit rfd082/rfd083 profile a
    /// response writes exactly its variant's fields, a question no RFD 083
    /// field at its default.
    CheckWriterFields,
    /// `CHECK-PROFILE-SHAPE`: every shape on disk exists in the judged profile.
    CheckProfileShape,
    /// `CHECK-RESPONSE-TAGGED`: under an explicit RFD 082/083 profile every
    /// response is written tagged.
    CheckResponseTagged,
    /// `CHECK-EVENT-WELL-FORMED`: every event is JSON of an event the RFDs
    /// describe (reading resumes past one that is not).
    CheckEventWellFormed,
    /// `INV-PAIRED`: every inquiry request gets exactly one response with its
    /// ID, later in its turn.
    InvPaired,
    /// `INV-RECORD-ALL`: every `NeedsInput` a tool returns has its request on
    /// the stream.
    InvRecordAll,
    /// `INV-RECORDED-BEFORE-ROUTED`: no question is routed before its request
    /// is on the stream.
    InvRecordedBeforeRouted,
    /// `INV-SECRET-NEVER-PERSISTED`: a secret answer appears in no persisted or
    /// remembered state.
    InvSecretNeverPersisted,
    /// `INV-PROVENANCE`: every recorded source is what the tool's kind resolves
    /// to.
    InvProvenance,
    /// `INV-HUMAN-ONLY-NEVER-BACKEND`: no secret or exclusive question reaches
    /// the inquiry backend.
    InvHumanOnlyNeverBackend,
    /// `INV-CACHE-HYGIENE`: the turn cache remembers only answers that may be
    /// remembered.
    InvCacheHygiene,
    /// `INV-WIRE-ROUNDTRIP`: the persisted stream written and read back is the
    /// same stream.
    InvWireRoundtrip,
    /// `INV-ID-UNIQUE`: one inquiry ID names one (call, question, attempt) in a
    /// turn.
    InvIdUnique,
    /// `INV-CACHE-KEY-UNIQUE`: a remembered answer is served only to the (tool,
    /// question) it was for.
    InvCacheKeyUnique,
    /// `INV-DETERMINISTIC`: the same scenario gives the same trace, byte for
    /// byte.
    InvDeterministic,
    /// `INV-LEGACY-KNOWN-GAPS`: under `legacy` only what RFD 082 fixes breaks.
    InvLegacyKnownGaps,
    /// `INV-SCENARIO-SERDE`: every scenario survives JSON, so every
    /// counterexample replays.
    InvScenarioSerde,
    /// `INV-FAULTS-CAUGHT`: each fault is caught by its invariant and shrinks.
    InvFaultsCaught,
    /// `INV-EXPLORE-COMPLETE`: the exploration enumerates its bounds and finds
    /// no violation.
    InvExploreComplete,
    /// `INV-EXPLORE-POR`: the reduced search finds what every interleaving
    /// finds.
    InvExplorePor,
}

impl Rule {
    /// Every rule, in catalog order.
    pub const ALL: [Rule; 47] = [
        Rule::CheckPaired,
        Rule::CheckResponseAfterRequest,
        Rule::CheckTurnScoped,
        Rule::CheckPlacement,
        Rule::CheckPlacementSource,
        Rule::CheckPlacementClosed,
        Rule::CheckTurnUniqueId,
        Rule::CheckIdFormat,
        Rule::CheckTurnOneWriter,
        Rule::CheckToolPaired,
        Rule::CheckToolAdjacent,
        Rule::CheckIdAttempt,
        Rule::CheckSecretNotAnswered,
        Rule::CheckRedactedNoAnswer,
        Rule::CheckCancelledNoAnswer,
        Rule::CheckRedactedOnlySecret,
        Rule::CheckReasonHumanOnly,
        Rule::CheckReasonBackendError,
        Rule::CheckReasonInvalidStatic,
        Rule::CheckReasonKnown,
        Rule::CheckSecretLeak,
        Rule::CheckAnswerFits,
        Rule::CheckAskUserShape,
        Rule::CheckAskUserRecord,
        Rule::CheckProvenance,
        Rule::CheckReasonFailsTool,
        Rule::CheckOneQuestion,
        Rule::CheckWriterFields,
        Rule::CheckProfileShape,
        Rule::CheckResponseTagged,
        Rule::CheckEventWellFormed,
        Rule::InvPaired,
        Rule::InvRecordAll,
        Rule::InvRecordedBeforeRouted,
        Rule::InvSecretNeverPersisted,
        Rule::InvProvenance,
        Rule::InvHumanOnlyNeverBackend,
        Rule::InvCacheHygiene,
        Rule::InvWireRoundtrip,
        Rule::InvIdUnique,
        Rule::InvCacheKeyUnique,
        Rule::InvDeterministic,
        Rule::InvLegacyKnownGaps,
        Rule::InvScenarioSerde,
        Rule::InvFaultsCaught,
        Rule::InvExploreComplete,
        Rule::InvExplorePor,
    ];

    /// The rule's ID as the catalog writes it.
    pub const fn id(self) -> &'static str {
        match self {
            Rule::CheckPaired => "CHECK-PAIRED",
            Rule::CheckResponseAfterRequest => "CHECK-RESPONSE-AFTER-REQUEST",
            Rule::CheckTurnScoped => "CHECK-TURN-SCOPED",
            Rule::CheckPlacement => "CHECK-PLACEMENT",
            Rule::CheckPlacementSource => "CHECK-PLACEMENT-SOURCE",
            Rule::CheckPlacementClosed => "CHECK-PLACEMENT-CLOSED",
            Rule::CheckTurnUniqueId => "CHECK-TURN-UNIQUE-ID",
            Rule::CheckIdFormat => "CHECK-ID-FORMAT",
            Rule::CheckTurnOneWriter => "CHECK-TURN-ONE-WRITER",
            Rule::CheckToolPaired => "CHECK-TOOL-PAIRED",
            Rule::CheckToolAdjacent => "CHECK-TOOL-ADJACENT",
            Rule::CheckIdAttempt => "CHECK-ID-ATTEMPT",
            Rule::CheckSecretNotAnswered => "CHECK-SECRET-NOT-ANSWERED",
            Rule::CheckRedactedNoAnswer => "CHECK-REDACTED-NO-ANSWER",
            Rule::CheckCancelledNoAnswer => "CHECK-CANCELLED-NO-ANSWER",
            Rule::CheckRedactedOnlySecret => "CHECK-REDACTED-ONLY-SECRET",
            Rule::CheckReasonHumanOnly => "CHECK-REASON-HUMAN-ONLY",
            Rule::CheckReasonBackendError => "CHECK-REASON-BACKEND-ERROR",
            Rule::CheckReasonInvalidStatic => "CHECK-REASON-INVALID-STATIC",
            Rule::CheckReasonKnown => "CHECK-REASON-KNOWN",
            Rule::CheckSecretLeak => "CHECK-SECRET-LEAK",
            Rule::CheckAnswerFits => "CHECK-ANSWER-FITS",
            Rule::CheckAskUserShape => "CHECK-ASK-USER-SHAPE",
            Rule::CheckAskUserRecord => "CHECK-ASK-USER-RECORD",
            Rule::CheckProvenance => "CHECK-PROVENANCE",
            Rule::CheckReasonFailsTool => "CHECK-REASON-FAILS-TOOL",
            Rule::CheckOneQuestion => "CHECK-ONE-QUESTION",
            Rule::CheckWriterFields => "CHECK-WRITER-FIELDS",
            Rule::CheckProfileShape => "CHECK-PROFILE-SHAPE",
            Rule::CheckResponseTagged => "CHECK-RESPONSE-TAGGED",
            Rule::CheckEventWellFormed => "CHECK-EVENT-WELL-FORMED",
            Rule::InvPaired => "INV-PAIRED",
            Rule::InvRecordAll => "INV-RECORD-ALL",
            Rule::InvRecordedBeforeRouted => "INV-RECORDED-BEFORE-ROUTED",
            Rule::InvSecretNeverPersisted => "INV-SECRET-NEVER-PERSISTED",
            Rule::InvProvenance => "INV-PROVENANCE",
            Rule::InvHumanOnlyNeverBackend => "INV-HUMAN-ONLY-NEVER-BACKEND",
            Rule::InvCacheHygiene => "INV-CACHE-HYGIENE",
            Rule::InvWireRoundtrip => "INV-WIRE-ROUNDTRIP",
            Rule::InvIdUnique => "INV-ID-UNIQUE",
            Rule::InvCacheKeyUnique => "INV-CACHE-KEY-UNIQUE",
            Rule::InvDeterministic => "INV-DETERMINISTIC",
            Rule::InvLegacyKnownGaps => "INV-LEGACY-KNOWN-GAPS",
            Rule::InvScenarioSerde => "INV-SCENARIO-SERDE",
            Rule::InvFaultsCaught => "INV-FAULTS-CAUGHT",
            Rule::InvExploreComplete => "INV-EXPLORE-COMPLETE",
            Rule::InvExplorePor => "INV-EXPLORE-POR",
        }
    }

    /// The rule's short title, one line: what `check --format sarif` gives
    /// as `shortDescription` and the variant's doc comment repeats. The
    /// rule's normative text is [`Rule::description`], read from
    /// `spec/RULES.md`.
    pub const fn title(self) -> &'static str {
        match self {
            Rule::CheckPaired => {
                "every inquiry request gets exactly one response with its ID later in its turn"
            }
            Rule::CheckResponseAfterRequest => "an inquiry response never comes before its request",
            Rule::CheckTurnScoped => "an inquiry pair never crosses a turn boundary",
            Rule::CheckPlacement => "an inquiry request sits inside an open tool call of its turn",
            Rule::CheckPlacementSource => {
                "a `source: tool {name}` request sits inside an open call of that tool"
            }
            Rule::CheckPlacementClosed => {
                "an inquiry response comes before its tool call's tool_call_response"
            }
            Rule::CheckTurnUniqueId => {
                "an RFD 082 writer never repeats an inquiry ID within a turn"
            }
            Rule::CheckIdFormat => {
                "an RFD 082 writer writes `<tool_call_id>.<question_id>.<attempt>` for the open call"
            }
            Rule::CheckTurnOneWriter => {
                "a turn's requests carry either all two-segment (pre-082) or all three-segment (RFD 082) IDs"
            }
            Rule::CheckToolPaired => {
                "every tool_call_request has exactly one tool_call_response after it in its turn"
            }
            Rule::CheckToolAdjacent => {
                "no chat_request or chat_response between a tool call's request and its response"
            }
            Rule::CheckIdAttempt => {
                "RFD 082 attempts grow per (tool call, question) per turn (gaps allowed: a repair leaves them)"
            }
            Rule::CheckSecretNotAnswered => "the response to a secret question is never `answered`",
            Rule::CheckRedactedNoAnswer => "a `redacted` response carries no `answer` on disk",
            Rule::CheckCancelledNoAnswer => "a `cancelled` response carries no `answer` on disk",
            Rule::CheckRedactedOnlySecret => "only a secret question's response is `redacted`",
            Rule::CheckReasonHumanOnly => {
                "`no_prompt_backend`/`assistant_routing_denied` close only secret (or, from RFD 083, exclusive) questions"
            }
            Rule::CheckReasonBackendError => {
                "`backend_error` never closes a secret or exclusive question"
            }
            Rule::CheckReasonInvalidStatic => "`invalid_static_answer` appears only under RFD 083",
            Rule::CheckReasonKnown => {
                "a cancellation reason is one the RFDs name (an error under an explicit profile, a warning under auto)"
            }
            Rule::CheckSecretLeak => {
                "no extra field or `reason` beside a secret's redaction, no `answer` on a secret's request"
            }
            Rule::CheckAnswerFits => {
                "an answer fits its question: a boolean, a string, or one of the select options"
            }
            Rule::CheckAskUserShape => {
                "an `ask_user` (assistant) question is one the built-in can produce"
            }
            Rule::CheckAskUserRecord => {
                "an `ask_user` call asks one question `answer` and its success carries the recorded answer"
            }
            Rule::CheckProvenance => {
                "`source: assistant` only on an `ask_user` call; under rfd082 only tool sources"
            }
            Rule::CheckReasonFailsTool => {
                "a call whose inquiry failed with a tool-failing reason ends in an error response"
            }
            Rule::CheckOneQuestion => {
                "a call has one open question at a time, and asks none after a guard failed it"
            }
            Rule::CheckWriterFields => {
                "under an explicit rfd082/rfd083 profile a response writes exactly its variant's fields, a question no RFD 083 field at its default"
            }
            Rule::CheckProfileShape => "every shape on disk exists in the judged profile",
            Rule::CheckResponseTagged => {
                "under an explicit RFD 082/083 profile every response is written tagged"
            }
            Rule::CheckEventWellFormed => {
                "every event is JSON of an event the RFDs describe (reading resumes past one that is not)"
            }
            Rule::InvPaired => {
                "every inquiry request gets exactly one response with its ID, later in its turn"
            }
            Rule::InvRecordAll => "every `NeedsInput` a tool returns has its request on the stream",
            Rule::InvRecordedBeforeRouted => {
                "no question is routed before its request is on the stream"
            }
            Rule::InvSecretNeverPersisted => {
                "a secret answer appears in no persisted or remembered state"
            }
            Rule::InvProvenance => "every recorded source is what the tool's kind resolves to",
            Rule::InvHumanOnlyNeverBackend => {
                "no secret or exclusive question reaches the inquiry backend"
            }
            Rule::InvCacheHygiene => "the turn cache remembers only answers that may be remembered",
            Rule::InvWireRoundtrip => {
                "the persisted stream written and read back is the same stream"
            }
            Rule::InvIdUnique => "one inquiry ID names one (call, question, attempt) in a turn",
            Rule::InvCacheKeyUnique => {
                "a remembered answer is served only to the (tool, question) it was for"
            }
            Rule::InvDeterministic => "the same scenario gives the same trace, byte for byte",
            Rule::InvLegacyKnownGaps => "under `legacy` only what RFD 082 fixes breaks",
            Rule::InvScenarioSerde => {
                "every scenario survives JSON, so every counterexample replays"
            }
            Rule::InvFaultsCaught => "each fault is caught by its invariant and shrinks",
            Rule::InvExploreComplete => {
                "the exploration enumerates its bounds and finds no violation"
            }
            Rule::InvExplorePor => "the reduced search finds what every interleaving finds",
        }
    }

    /// The rule's normative text: the *rule* cell of its row of
    /// `spec/RULES.md`, the one place the text is written (compiled in, so it
    /// holds wherever the binary runs). `tests/suite/tooling/traceability.rs` checks that
    /// every variant has a row.
    pub fn description(self) -> &'static str {
        catalog_cells(self.id()).map_or("", |(rule, _)| rule)
    }

    /// Where the rule comes from (the RFD sections it rests on): the
    /// *source* cell of its row of `spec/RULES.md`.
    pub fn source(self) -> &'static str {
        catalog_cells(self.id()).map_or("", |(_, source)| source)
    }

    /// The rule with this ID, if the catalog has it.
    pub fn from_id(id: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.id() == id)
    }

    /// Whether the rule is an invariant of the model's runs (`INV-*`) rather
    /// than an oracle check over a persisted stream (`CHECK-*`).
    pub const fn is_invariant(self) -> bool {
        match self {
            Rule::CheckPaired
            | Rule::CheckResponseAfterRequest
            | Rule::CheckTurnScoped
            | Rule::CheckPlacement
            | Rule::CheckPlacementSource
            | Rule::CheckPlacementClosed
            | Rule::CheckTurnUniqueId
            | Rule::CheckIdFormat
            | Rule::CheckTurnOneWriter
            | Rule::CheckToolPaired
            | Rule::CheckToolAdjacent
            | Rule::CheckIdAttempt
            | Rule::CheckSecretNotAnswered
            | Rule::CheckRedactedNoAnswer
            | Rule::CheckCancelledNoAnswer
            | Rule::CheckRedactedOnlySecret
            | Rule::CheckReasonHumanOnly
            | Rule::CheckReasonBackendError
            | Rule::CheckReasonInvalidStatic
            | Rule::CheckReasonKnown
            | Rule::CheckSecretLeak
            | Rule::CheckAnswerFits
            | Rule::CheckAskUserShape
            | Rule::CheckAskUserRecord
            | Rule::CheckProvenance
            | Rule::CheckReasonFailsTool
            | Rule::CheckOneQuestion
            | Rule::CheckWriterFields
            | Rule::CheckProfileShape
            | Rule::CheckResponseTagged
            | Rule::CheckEventWellFormed => false,
            Rule::InvPaired
            | Rule::InvRecordAll
            | Rule::InvRecordedBeforeRouted
            | Rule::InvSecretNeverPersisted
            | Rule::InvProvenance
            | Rule::InvHumanOnlyNeverBackend
            | Rule::InvCacheHygiene
            | Rule::InvWireRoundtrip
            | Rule::InvIdUnique
            | Rule::InvCacheKeyUnique
            | Rule::InvDeterministic
            | Rule::InvLegacyKnownGaps
            | Rule::InvScenarioSerde
            | Rule::InvFaultsCaught
            | Rule::InvExploreComplete
            | Rule::InvExplorePor => true,
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// The rule catalog, `spec/RULES.md`, compiled in: the home of every rule's
/// text and source.
pub(crate) const CATALOG: &str = include_str!("../spec/RULES.md");

/// The *rule* and *source* cells of the catalog row `| ID | rule | source |
/// tests |` whose ID is `id`.
fn catalog_cells(id: &str) -> Option<(&'static str, &'static str)> {
    CATALOG.lines().find_map(|line| {
        let mut cells = line.trim().strip_prefix('|')?.split('|').map(str::trim);
        (cells.next()?.trim_matches('`') == id).then_some(())?;
        Some((cells.next()?, cells.next()?))
    })
}

/// Written as its ID, so a diagnostic's JSON shows `"rule": "CHECK-PAIRED"`.
impl Serialize for Rule {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

impl PartialEq<str> for Rule {
    fn eq(&self, other: &str) -> bool {
        self.id() == other
    }
}

impl PartialEq<&str> for Rule {
    fn eq(&self, other: &&str) -> bool {
        self.id() == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every ID is unique, has its family's prefix, and reads back to its
    /// rule; an ID outside the catalog reads as nothing.
    #[test]
    fn ids_are_unique_and_read_back() {
        let mut seen = std::collections::HashSet::new();
        for r in Rule::ALL {
            assert!(seen.insert(r.id()), "{r} twice");
            let prefix = if r.is_invariant() { "INV-" } else { "CHECK-" };
            assert!(r.id().starts_with(prefix), "{r}");
            assert_eq!(Rule::from_id(r.id()), Some(r));
        }
        assert_eq!(Rule::from_id(concat!("CHECK", "-NOT-A-RULE")), None);
        assert_eq!(Rule::from_id("check-paired"), None);
    }
}
