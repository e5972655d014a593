//! The rule IDs the oracle and the model's invariants report, as one type.
//!
//! A [`Rule`] names a row of `spec/RULES.md`, section "Oracle checks"
//! (`CHECK-*`, judged over any persisted stream by [`crate::check`]) or
//! "Invariants of the model" (`INV-*`, judged over the model's runs by
//! [`crate::invariants`]). It is an enum, so an ID that is not in the catalog
//! cannot be built; `tests/suite/tooling/traceability.rs` checks that the enum and the
//! catalog list the same IDs. It sits at the bottom of the module graph: the
//! oracle uses it without knowing the model.

use std::fmt;

use serde::{Serialize, Serializer};

/// One `CHECK-*` or `INV-*` rule of `spec/RULES.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rule {
    /// `CHECK-PAIRED`: Every `inquiry_request` gets exactly one
    /// `inquiry_response` with its ID, later in its turn; every response
    /// answers one waiting request of its turn (a second response, or one with
    /// no request, is reported).
    CheckPaired,
    /// `CHECK-RESPONSE-AFTER-REQUEST`: A response never comes before its
    /// request: a response that matched nothing, followed in its turn by an
    /// unanswered request with its ID, is reported once, at the response; so is
    /// one followed by a request of its ID that a later response answers (not
    /// as CHECK-PAIRED).
    CheckResponseAfterRequest,
    /// `CHECK-TURN-SCOPED`: A pair never crosses a turn boundary: a response
    /// whose ID matches no request of its turn but an unanswered request of an
    /// earlier turn is reported at the response (the request is CHECK-PAIRED in
    /// its own turn).
    CheckTurnScoped,
    /// `CHECK-PLACEMENT`: An inquiry request sits inside an open tool call of
    /// its turn (between a `tool_call_request` and its `tool_call_response`);
    /// calls left open do not carry over a turn boundary.
    CheckPlacement,
    /// `CHECK-PLACEMENT-SOURCE`: A request with `source: tool {name}` sits
    /// inside an open call of the tool it names; `assistant`, `user` and
    /// `other` sources may sit in any open call.
    CheckPlacementSource,
    /// `CHECK-PLACEMENT-CLOSED`: The response comes before its call's
    /// `tool_call_response`: reported when every open call the request could
    /// belong to has ended before the response.
    CheckPlacementClosed,
    /// `CHECK-TURN-UNIQUE-ID`: In a turn judged as an RFD 082/083 writer's, an
    /// inquiry ID is requested at most once; the repeat is reported (and not
    /// judged again by the ID rules).
    CheckTurnUniqueId,
    /// `CHECK-ID-FORMAT`: In a turn recorded by an RFD 082/083 writer, a
    /// request inside an open call has the ID `<that call's
    /// id>.<question_id>.<attempt>` (non-empty question ID, attempt a decimal
    /// from 1 without leading zeros).
    CheckIdFormat,
    /// `CHECK-TURN-ONE-WRITER`: A turn's requests (those inside an open call)
    /// carry either all two-segment or all three-segment IDs; a turn that
    /// switches is reported once, at the first request of the other form (and
    /// its two-segment IDs are not reported again under CHECK-ID-FORMAT).
    CheckTurnOneWriter,
    /// `CHECK-TOOL-PAIRED`: Every `tool_call_request` has exactly one
    /// `tool_call_response` after it in its turn, calls of a repeated ID paired
    /// by order (the oldest open call of the ID closes first).
    CheckToolPaired,
    /// `CHECK-TOOL-ADJACENT`: No `chat_request` or `chat_response` sits
    /// between a `tool_call_request` and its `tool_call_response` (inquiry
    /// events and kinds no provider sees may); reported once per call, at the
    /// first chat event it spans.
    CheckToolAdjacent,
    /// `CHECK-ID-ATTEMPT`: In a turn recorded by an RFD 082/083 writer, the
    /// attempts of a `(tool_call_id, question_id)` key grow strictly in stream
    /// order, continuing across a reused tool-call ID and starting afresh in
    /// each turn; an attempt not above the key's highest so far is reported.
    CheckIdAttempt,
    /// `CHECK-SECRET-NOT-ANSWERED`: The response to a `secret` question is
    /// never `answered` (tagged or flat); the diagnostic never repeats the
    /// answer.
    CheckSecretNotAnswered,
    /// `CHECK-REDACTED-NO-ANSWER`: No `redacted` response carries an `answer`
    /// on disk (seen on the raw event: the typed value drops it); the
    /// diagnostic never repeats the value.
    CheckRedactedNoAnswer,
    /// `CHECK-CANCELLED-NO-ANSWER`: No `cancelled` response carries an `answer` on disk.
    CheckCancelledNoAnswer,
    /// `CHECK-REDACTED-ONLY-SECRET`: Only a `secret` question's response is
    /// `redacted`: every other question records `answered` or `cancelled`.
    CheckRedactedOnlySecret,
    /// `CHECK-REASON-HUMAN-ONLY`: `no_prompt_backend` and
    /// `assistant_routing_denied` close only a `secret` question or, under RFD
    /// 083, an `exclusive` one (the routing guards are their only emit sites).
    CheckReasonHumanOnly,
    /// `CHECK-REASON-BACKEND-ERROR`: `backend_error` never closes a `secret`
    /// question or, under RFD 083, an `exclusive` one: they never reach the
    /// inquiry backend (and prompter failures record `user`).
    CheckReasonBackendError,
    /// `CHECK-REASON-INVALID-STATIC`: `invalid_static_answer` appears only
    /// under RFD 083 (an explicit legacy or rfd082 profile cannot produce it;
    /// under auto it marks the turn as RFD 083's).
    CheckReasonInvalidStatic,
    /// `CHECK-REASON-KNOWN`: A `cancelled` response's `reason` is a tag the
    /// RFDs name (`user`, `backend_error`, `no_prompt_backend`,
    /// `assistant_routing_denied`, `invalid_static_answer`).
    CheckReasonKnown,
    /// `CHECK-SECRET-LEAK`: Nothing beside a secret's redaction can carry its
    /// value: a `redacted` response carries no `reason` and no field an RFD 082
    /// writer does not write (`type`, `timestamp`, `outcome`, `id`; a stray
    /// `answer` is CHECK-REDACTED-NO-ANSWER), nor does any response to a secret
    /// question; a secret question's `inquiry_request` carries no `answer` (on
    /// the event or its question).
    CheckSecretLeak,
    /// `CHECK-ANSWER-FITS`: An `answered` value fits its question: a boolean
    /// for `boolean`, a string for `text`, one of the option values for
    /// `select` (a secret's `answered` is CHECK-SECRET-NOT-ANSWERED).
    CheckAnswerFits,
    /// `CHECK-ASK-USER-SHAPE`: Under auto and rfd083, a `source: assistant`
    /// request (the `ask_user` built-in) is one `ask_user` authors: `exclusive:
    /// true`, `persistence: none`, answer type boolean, select or text (never
    /// secret), non-empty single-line text, a select with options, a default of
    /// the answer type (among the options for a select).
    CheckAskUserShape,
    /// `CHECK-ASK-USER-RECORD`: Under rfd083 (and in a turn auto judges RFD
    /// 083's; a warning in another auto turn), an `ask_user` call (a call of
    /// `ask_user` whose `source: assistant` question is its only candidate)
    /// asks a single question with question ID `answer`, none after it was
    /// answered; a successful response whose content is the built-in's
    /// `{"answer_type", "answer"}` body follows an `answered` inquiry of the
    /// call and carries its answer and answer type.
    CheckAskUserRecord,
    /// `CHECK-PROVENANCE`: `source: assistant` sits only in an `ask_user` call
    /// (only that built-in overrides the source, found by its config key);
    /// under an explicit legacy or rfd082 profile every source is `tool`.
    CheckProvenance,
    /// `CHECK-REASON-FAILS-TOOL`: A call whose inquiry was cancelled with
    /// `no_prompt_backend`, `assistant_routing_denied`, `invalid_static_answer`
    /// or `backend_error` (and that is the request's only open call) does not
    /// end with `is_error: false`; a response that does not write `is_error` is
    /// not judged.
    CheckReasonFailsTool,
    /// `CHECK-ONE-QUESTION`: In a turn recorded by an RFD 082/083 writer (a
    /// legacy writer leaves a failed backend request open, its known gap), a
    /// call (the only open call a request can belong to) has one open question
    /// at a time, and asks no question after a routing guard
    /// (`no_prompt_backend`, `assistant_routing_denied`,
    /// `invalid_static_answer`) failed it.
    CheckOneQuestion,
    /// `CHECK-WRITER-FIELDS`: Under an explicit rfd082 or rfd083 profile a
    /// tagged response writes exactly its variant's fields: `cancelled` with a
    /// `reason`, `answered` without one; under rfd083 no `context`, `exclusive`
    /// or `persistence` is written at its default.
    CheckWriterFields,
    /// `CHECK-PROFILE-SHAPE`: Under an explicit profile, every shape on disk
    /// exists in it: legacy has no tagged response and no `secret` answer type;
    /// legacy and rfd082 write no `context`, `exclusive` or `persistence` on a
    /// question (even at their defaults).
    CheckProfileShape,
    /// `CHECK-RESPONSE-TAGGED`: Under an explicit rfd082 or rfd083 profile
    /// every response is written tagged (`outcome`); auto and legacy accept the
    /// flat legacy form.
    CheckResponseTagged,
    /// `INV-PAIRED`: Every `InquiryRequest` gets exactly one `InquiryResponse`
    /// with its ID later in its turn; every response has its request.
    InvPaired,
    /// `INV-RECORD-ALL`: Every `NeedsInput` a tool returns has its request on the stream.
    InvRecordAll,
    /// `INV-RECORDED-BEFORE-ROUTED`: No prompt is shown, no backend called and
    /// no tool re-invoked with an answer before its request (and, for the
    /// re-invocation, its response) is on the stream.
    InvRecordedBeforeRouted,
    /// `INV-SECRET-NEVER-PERSISTED`: A secret answer appears nowhere in the
    /// serialized stream, the remembered maps or the coordinator's `Debug`
    /// output.
    InvSecretNeverPersisted,
    /// `INV-PROVENANCE`: Every recorded source is what the tool's kind resolves
    /// to, whatever the configuration.
    InvProvenance,
    /// `INV-HUMAN-ONLY-NEVER-BACKEND`: No secret or (RFD 083) exclusive
    /// question reaches the inquiry backend.
    InvHumanOnlyNeverBackend,
    /// `INV-CACHE-HYGIENE`: The remembered tool answers hold only answers to
    /// questions that may be remembered — never a cancelled, secret or
    /// `persistence: none` one — and the two maps never share a caller.
    InvCacheHygiene,
    /// `INV-WIRE-ROUNDTRIP`: The persisted stream written and read back is the
    /// same stream; a second write is byte-identical.
    InvWireRoundtrip,
    /// `INV-ID-UNIQUE`: Within a turn, one inquiry ID is persisted for one
    /// (tool call, question, attempt) only.
    InvIdUnique,
    /// `INV-CACHE-KEY-UNIQUE`: A remembered answer is served only to the
    /// (tool, question) it was remembered for: no turn-cache key names two
    /// of the pairs a turn resolves.
    InvCacheKeyUnique,
    /// `INV-DETERMINISTIC`: The same scenario gives the same trace, byte for byte.
    InvDeterministic,
    /// `INV-LEGACY-KNOWN-GAPS`: Under the `legacy` profile only the invariants
    /// RFD 082 exists to fix break (`invariants::LEGACY_KNOWN_GAPS`).
    InvLegacyKnownGaps,
    /// `INV-SCENARIO-SERDE`: Every scenario survives JSON, so every
    /// counterexample can be replayed with `inquiry-model run`.
    InvScenarioSerde,
    /// `INV-FAULTS-CAUGHT`: Each fault of `coordinator::Faults` is caught by
    /// the invariant named for it and shrinks to a small scenario; without
    /// faults the same search finds nothing.
    InvFaultsCaught,
    /// `INV-EXPLORE-COMPLETE`: The small-scope enumeration is a bijection onto
    /// its bounds, and (sampled in `make test`, complete in `make explore`) has
    /// no violation; the state-graph search (`explore --states`) runs every
    /// interleaving of each root and, deduplicating only states that hold
    /// their history, finds exactly what running every schedule finds.
    InvExploreComplete,
}

impl Rule {
    /// Every rule, in catalog order.
    pub const ALL: [Rule; 45] = [
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
        }
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
            | Rule::CheckResponseTagged => false,
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
            | Rule::InvExploreComplete => true,
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
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
