//! The `CHECK-*` rules: their IDs and the pure judgments behind them.
//!
//! Each judgment is a small function from facts about one event (and, for a
//! response, the question it answers) to an optional [`Finding`]. None of them
//! holds state or knows about files, so the same functions judge a persisted
//! stream ([`super::Checker`]) and, later, the model's own traces. Stream
//! state (what is open in the turn, which IDs were seen) lives in the checker;
//! the catalog with sources and tests is `spec/RULES.md`, section "Oracle
//! checks".

use super::shape::Shape;
use super::{Profile, ProfileMode};
use crate::predicates::{self, AnswerMismatch, AskUserShapeFault, TextFault};
use crate::profile::tables::Tables;
use crate::rule::Rule;
use crate::wire::id::IdFault;
use crate::wire::{
    self, CancellationReason, ClosesQuestions, InquiryAnswerType, InquiryId, InquiryQuestion,
    InquiryResponse, InquirySource,
};

/// Every `CHECK-*` rule this module judges, with its short title
/// ([`Rule::title`]; the rule's text is [`Rule::description`]).
pub const ALL: [(Rule, &str); 31] = [
    (Rule::CheckPaired, Rule::CheckPaired.title()),
    (
        Rule::CheckResponseAfterRequest,
        Rule::CheckResponseAfterRequest.title(),
    ),
    (Rule::CheckTurnScoped, Rule::CheckTurnScoped.title()),
    (Rule::CheckPlacement, Rule::CheckPlacement.title()),
    (
        Rule::CheckPlacementSource,
        Rule::CheckPlacementSource.title(),
    ),
    (
        Rule::CheckPlacementClosed,
        Rule::CheckPlacementClosed.title(),
    ),
    (Rule::CheckTurnUniqueId, Rule::CheckTurnUniqueId.title()),
    (Rule::CheckIdFormat, Rule::CheckIdFormat.title()),
    (Rule::CheckIdAttempt, Rule::CheckIdAttempt.title()),
    (Rule::CheckTurnOneWriter, Rule::CheckTurnOneWriter.title()),
    (Rule::CheckToolPaired, Rule::CheckToolPaired.title()),
    (Rule::CheckToolAdjacent, Rule::CheckToolAdjacent.title()),
    (
        Rule::CheckSecretNotAnswered,
        Rule::CheckSecretNotAnswered.title(),
    ),
    (
        Rule::CheckRedactedNoAnswer,
        Rule::CheckRedactedNoAnswer.title(),
    ),
    (
        Rule::CheckCancelledNoAnswer,
        Rule::CheckCancelledNoAnswer.title(),
    ),
    (
        Rule::CheckRedactedOnlySecret,
        Rule::CheckRedactedOnlySecret.title(),
    ),
    (
        Rule::CheckReasonHumanOnly,
        Rule::CheckReasonHumanOnly.title(),
    ),
    (
        Rule::CheckReasonBackendError,
        Rule::CheckReasonBackendError.title(),
    ),
    (
        Rule::CheckReasonInvalidStatic,
        Rule::CheckReasonInvalidStatic.title(),
    ),
    (Rule::CheckReasonKnown, Rule::CheckReasonKnown.title()),
    (Rule::CheckSecretLeak, Rule::CheckSecretLeak.title()),
    (Rule::CheckAnswerFits, Rule::CheckAnswerFits.title()),
    (Rule::CheckAskUserShape, Rule::CheckAskUserShape.title()),
    (Rule::CheckAskUserRecord, Rule::CheckAskUserRecord.title()),
    (Rule::CheckProvenance, Rule::CheckProvenance.title()),
    (
        Rule::CheckReasonFailsTool,
        Rule::CheckReasonFailsTool.title(),
    ),
    (Rule::CheckOneQuestion, Rule::CheckOneQuestion.title()),
    (Rule::CheckWriterFields, Rule::CheckWriterFields.title()),
    (Rule::CheckProfileShape, Rule::CheckProfileShape.title()),
    (Rule::CheckResponseTagged, Rule::CheckResponseTagged.title()),
    (
        Rule::CheckEventWellFormed,
        Rule::CheckEventWellFormed.title(),
    ),
];

/// How bad a finding is (decision "Oracle checks: severity").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Legal but suspect, or a known gap of the writer the turn is judged
    /// as: reported, but exit 1 only under `--strict`.
    Warning,
    /// The stream breaks a rule of the profile it is judged under.
    Error,
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// A rule broken by one event: what [`super::Diagnostic`] adds a position to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Finding {
    /// The `CHECK-*` ID.
    pub rule: Rule,
    /// Error, or warning.
    pub(crate) severity: Severity,
    /// The inquiry and tool-call IDs involved.
    pub(crate) ids: Vec<String>,
    /// What is wrong, in one sentence. Never contains an answer value.
    pub(crate) message: String,
}

impl Finding {
    /// An error.
    pub(crate) fn new(rule: Rule, ids: Vec<String>, message: String) -> Self {
        Finding {
            rule,
            severity: Severity::Error,
            ids,
            message,
        }
    }

    /// The same finding as a warning.
    pub(crate) fn warning(self) -> Self {
        Finding {
            severity: Severity::Warning,
            ..self
        }
    }
}

/// What the response rules need to know about a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct QuestionFacts {
    /// `answer_type` is `secret` (RFD 082 "Secret questions").
    pub(crate) secret: bool,
    /// `exclusive: true` (RFD 083 "Non-interactive behavior").
    pub(crate) exclusive: bool,
    /// The answer type's kind.
    pub(crate) kind: AnswerKind,
}

pub(crate) use crate::predicates::AnswerKind;

impl QuestionFacts {
    /// The facts of a persisted question.
    pub(crate) fn of(q: &InquiryQuestion) -> Self {
        QuestionFacts {
            secret: match q.answer_type {
                InquiryAnswerType::Secret => true,
                InquiryAnswerType::Boolean
                | InquiryAnswerType::Select { .. }
                | InquiryAnswerType::Text => false,
            },
            exclusive: q.exclusive,
            kind: AnswerKind::of(&q.answer_type),
        }
    }

    /// Whether the lifecycle treats the question as human-only under
    /// `profile`: [`crate::profile::Rules::human_only`], the rule the model
    /// routes by (`secret` always, RFD 082; `exclusive` from RFD 083 on), with
    /// the persisted answer type as the secret.
    pub(crate) fn human_only(&self, profile: Profile) -> bool {
        profile.rules().human_only(self.secret, self.exclusive)
    }

    fn describe(&self, profile: Profile) -> &'static str {
        match (self.secret, self.human_only(profile)) {
            (true, _) => "a secret question",
            (false, true) => "an exclusive question",
            (false, false) => "a question that is neither secret nor exclusive",
        }
    }
}

fn outcome_name(r: &InquiryResponse) -> &'static str {
    match r {
        InquiryResponse::Answered { .. } => "answered",
        InquiryResponse::Cancelled { .. } => "cancelled",
        InquiryResponse::Redacted { .. } => "redacted",
    }
}

/// CHECK-SECRET-NOT-ANSWERED (RFD 082 "Secret questions", "Recording
/// lifecycle" step 5): a secret answer is recorded `redacted`, a refused one
/// `cancelled`; `answered` would put the secret on disk. The message never
/// repeats the answer.
pub(crate) fn secret_not_answered(q: QuestionFacts, r: &InquiryResponse) -> Option<Finding> {
    match r {
        InquiryResponse::Answered { id, .. } if q.secret => Some(Finding::new(
            Rule::CheckSecretNotAnswered,
            vec![id.to_string()],
            format!(
                "the response to secret question `{id}` is `answered`, so the secret is on disk; \
                 a secret answer is recorded `redacted`"
            ),
        )),
        InquiryResponse::Answered { .. }
        | InquiryResponse::Cancelled { .. }
        | InquiryResponse::Redacted { .. } => None,
    }
}

/// CHECK-REDACTED-ONLY-SECRET (RFD 082 "Secret questions", effect 2): every
/// path records `Redacted` only where a non-secret question would record
/// `Answered`.
pub(crate) fn redacted_only_secret(q: QuestionFacts, r: &InquiryResponse) -> Option<Finding> {
    match r {
        InquiryResponse::Redacted { id } if !q.secret => Some(Finding::new(
            Rule::CheckRedactedOnlySecret,
            vec![id.to_string()],
            format!(
                "inquiry response `{id}` is `redacted` but its question is not secret; \
                 only a secret answer is withheld from disk"
            ),
        )),
        InquiryResponse::Redacted { .. }
        | InquiryResponse::Answered { .. }
        | InquiryResponse::Cancelled { .. } => None,
    }
}

/// CHECK-REDACTED-NO-ANSWER and CHECK-CANCELLED-NO-ANSWER (RFD 082
/// "`InquiryResponse` serialization": `Redacted` carries only `id`,
/// `Cancelled` only `id` and `reason`): judged on the raw shape, since the
/// typed value drops the stray field. The message never repeats the value.
pub(crate) fn stray_answer(r: &InquiryResponse, shape: &Shape) -> Option<Finding> {
    if !shape.answer_on_disk {
        return None;
    }
    match r {
        InquiryResponse::Redacted { id } => Some(Finding::new(
            Rule::CheckRedactedNoAnswer,
            vec![id.to_string()],
            format!(
                "`redacted` response `{id}` carries an `answer` on disk; \
                 a redacted response holds only its `id`"
            ),
        )),
        InquiryResponse::Cancelled { id, .. } => Some(Finding::new(
            Rule::CheckCancelledNoAnswer,
            vec![id.to_string()],
            format!(
                "`cancelled` response `{id}` carries an `answer` on disk; \
                 a cancelled response holds only `id` and `reason`"
            ),
        )),
        InquiryResponse::Answered { .. } => None,
    }
}

/// CHECK-REASON-HUMAN-ONLY and CHECK-REASON-BACKEND-ERROR (RFD 082 "Recording
/// lifecycle" reason table and "Secret questions" routing guard; RFD 083
/// "Persisted recording" emit sites): the guard reasons close only
/// human-only questions, and human-only questions never reach the inquiry
/// backend, so never fail there. `user` and unknown reasons are legal for any
/// question (unknown tags are read-only landing pads, RFD 082). A profile's
/// amended tables widen what is legal: a reason some row of `tables`
/// records for a question of this kind ([`Tables::records_wire`]) is no
/// finding, so an amendment whose prompter failures record `backend_error`
/// may close a secret question with it (decision "Oracle checks:
/// an amendment's rows widen the reason rules"); under [`Tables::RFD`] no row does.
pub(crate) fn reason_for_question(
    profile: Profile,
    tables: &Tables,
    q: QuestionFacts,
    r: &InquiryResponse,
) -> Option<Finding> {
    let (id, reason) = match r {
        InquiryResponse::Cancelled { id, reason } => (id, reason),
        InquiryResponse::Answered { .. } | InquiryResponse::Redacted { .. } => return None,
    };
    let closes = match reason.class() {
        Some(class) => class.closes,
        None => return None,
    };
    let human_only = q.human_only(profile);
    if tables.records_wire(human_only, reason) == Some(true) {
        return None;
    }
    match closes {
        ClosesQuestions::OnlyHumanOnly if !human_only => {
            let also = if profile.rules().exclusive {
                "secret or exclusive"
            } else {
                "secret"
            };
            Some(Finding::new(
                Rule::CheckReasonHumanOnly,
                vec![id.to_string()],
                format!(
                    "inquiry `{id}` is cancelled with `{reason}`, which only the routing guard of a \
                     {also} question records, but it closes {}",
                    q.describe(profile)
                ),
            ))
        }
        ClosesQuestions::NeverHumanOnly if human_only => Some(Finding::new(
            Rule::CheckReasonBackendError,
            vec![id.to_string()],
            format!(
                "inquiry `{id}` is cancelled with `{reason}`, but it closes {}, \
                 which never reaches the inquiry backend",
                q.describe(profile)
            ),
        )),
        ClosesQuestions::OnlyHumanOnly | ClosesQuestions::NeverHumanOnly | ClosesQuestions::Any => {
            None
        }
    }
}

/// CHECK-REASON-KNOWN (RFD 082 "`InquiryResponse` serialization": "JP itself
/// never writes `Unknown(_)`"): a tag the RFDs do not name is read (it is a
/// landing pad for a newer writer's variant), but no writer of an explicit
/// profile writes it, so it is an error there; under auto the stream may
/// come from a newer writer, so it is a warning.
pub(crate) fn reason_known(mode: ProfileMode, r: &InquiryResponse) -> Option<Finding> {
    let (id, tag) = match r {
        InquiryResponse::Cancelled {
            id,
            reason: CancellationReason::Unknown(tag),
        } => (id, tag),
        InquiryResponse::Cancelled { .. }
        | InquiryResponse::Answered { .. }
        | InquiryResponse::Redacted { .. } => return None,
    };
    let finding = Finding::new(
        Rule::CheckReasonKnown,
        vec![id.to_string()],
        format!(
            "inquiry `{id}` is cancelled with reason `{tag}`, which no RFD names; a writer never \
             writes an unknown reason"
        ),
    );
    Some(match mode {
        ProfileMode::Auto => finding.warning(),
        ProfileMode::Fixed(_) => finding,
    })
}

/// CHECK-REASON-INVALID-STATIC (RFD 083 step 7 adds the variant): a writer
/// before RFD 083 cannot produce `invalid_static_answer`.
pub(crate) fn reason_for_profile(profile: Profile, r: &InquiryResponse) -> Option<Finding> {
    match r {
        InquiryResponse::Cancelled {
            id,
            reason: CancellationReason::InvalidStaticAnswer,
        } if !predicates::records_reason(
            &profile.rules(),
            &CancellationReason::InvalidStaticAnswer,
        ) =>
        {
            Some(Finding::new(
                Rule::CheckReasonInvalidStatic,
                vec![id.to_string()],
                format!(
                    "inquiry `{id}` is cancelled with `invalid_static_answer`, a reason RFD 083 adds; \
                 the {profile} profile cannot produce it"
                ),
            ))
        }
        InquiryResponse::Cancelled { .. }
        | InquiryResponse::Answered { .. }
        | InquiryResponse::Redacted { .. } => None,
    }
}

/// CHECK-PROFILE-SHAPE for a request (RFD 082 "Secret questions" adds
/// `secret`; RFD 083 "Propagating to the persisted shape" adds `context`,
/// `exclusive`, `persistence`): only judged under an explicit profile.
pub(crate) fn request_shape(
    mode: ProfileMode,
    id: &InquiryId,
    q: QuestionFacts,
    shape: &Shape,
) -> Vec<Finding> {
    let profile = match mode {
        ProfileMode::Auto => return Vec::new(),
        ProfileMode::Fixed(p) => p,
    };
    let mut out = Vec::new();
    if q.secret && !profile.has_secret_type() {
        out.push(Finding::new(
            Rule::CheckProfileShape,
            vec![id.to_string()],
            format!(
                "inquiry request `{id}` has answer type `secret`, which RFD 082 adds; \
                 the {profile} profile has no secret questions"
            ),
        ));
    }
    if !profile.has_083_fields() {
        let fields: Vec<String> = shape
            .question_083_fields()
            .map(|f| format!("`{f}`"))
            .collect();
        if !fields.is_empty() {
            out.push(Finding::new(
                Rule::CheckProfileShape,
                vec![id.to_string()],
                format!(
                    "inquiry request `{id}` writes {} on its question, which RFD 083 adds; \
                     the {profile} profile does not write them",
                    fields.join(", ")
                ),
            ));
        }
    }
    out
}

/// CHECK-PROFILE-SHAPE for a response (a legacy writer writes only the flat
/// `{id, answer}`) and CHECK-RESPONSE-TAGGED (RFD 082 "`InquiryResponse`
/// serialization": "every new write produces the tagged form"): only judged
/// under an explicit profile.
pub(crate) fn response_shape(
    mode: ProfileMode,
    r: &InquiryResponse,
    shape: &Shape,
) -> Option<Finding> {
    let profile = match mode {
        ProfileMode::Auto => return None,
        ProfileMode::Fixed(p) => p,
    };
    let id = r.id();
    match (shape.tagged, profile.has_tagged_responses()) {
        (true, false) => Some(Finding::new(
            Rule::CheckProfileShape,
            vec![id.to_string()],
            format!(
                "inquiry response `{id}` is tagged (`outcome: {}`), a shape RFD 082 adds; \
                 the {profile} profile writes only the flat `{{id, answer}}`",
                outcome_name(r)
            ),
        )),
        (false, true) => Some(Finding::new(
            Rule::CheckResponseTagged,
            vec![id.to_string()],
            format!(
                "inquiry response `{id}` is in the legacy flat form (no `outcome`); \
                 an {profile} writer tags every response"
            ),
        )),
        (true, true) | (false, false) => None,
    }
}

/// CHECK-TOOL-ADJACENT (RFD 004/005 draft "Summary": the provider contract
/// "requires tool call requests to be immediately followed by tool call
/// responses"; inquiry events are recorded between them and filtered out of
/// the provider's view, RFD 082 "What changes for stream readers"): the
/// call `call_id` requested at event `request` is still open at a chat
/// event, which the provider would see between the call and its result.
pub(crate) fn tool_adjacent(call_id: &str, request: usize, chat: &str) -> Finding {
    Finding::new(
        Rule::CheckToolAdjacent,
        vec![call_id.to_owned()],
        format!(
            "a `{chat}` comes between tool call `{call_id}` (event {request}) and its response; \
             a provider sees a tool call immediately followed by its response"
        ),
    )
}

/// Whether `id` starts with `call` and a dot, as every writer builds an
/// inquiry ID from its call's ID (RFD 082 "Inquiry ID format": pre-082
/// `<tool_call_id>.<question_id>`, RFD 082 `<tool_call_id>.<question_id>.<attempt>`).
pub(crate) fn id_names_call(id: &InquiryId, call: &str) -> bool {
    id.as_str()
        .strip_prefix(call)
        .is_some_and(|rest| rest.starts_with('.'))
}

/// CHECK-ID-FORMAT in a turn of any writer: the request's ID starts with
/// the ID of none of the open calls it can belong to (`calls`: those of
/// the tool its source names), so it names a closed call or another tool's
/// call. Both ID forms start with the asking call's ID (RFD 082 "Inquiry
/// ID format"), so no writer records it.
pub(crate) fn id_names_no_call(id: &InquiryId, calls: &[&str]) -> Finding {
    let mut ids = vec![id.to_string()];
    ids.extend(calls.iter().map(|c| (*c).to_owned()));
    Finding::new(
        Rule::CheckIdFormat,
        ids,
        format!(
            "inquiry ID `{id}` does not start with the ID of the call that asked ({}); every \
             writer builds it as `<tool_call_id>.<question_id>` (with `.<attempt>` from RFD 082)",
            calls
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(" or ")
        ),
    )
}

/// Where a request sits: the open tool calls it may belong to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OpenCallRef<'a> {
    /// The call's `tool_call_request` event index.
    pub(crate) index: usize,
    /// The tool-call ID.
    pub(crate) id: &'a str,
    /// The tool-call ID's number among the turn's texts (which keep it for
    /// the whole turn, after the call ends).
    pub(crate) id_key: usize,
    /// The tool's name.
    pub(crate) name: &'a str,
}

/// CHECK-PLACEMENT and CHECK-PLACEMENT-SOURCE (RFD 082 "What changes for
/// stream readers", RFD 004/005 draft "Recording Inquiry Events"): the pair
/// sits between the `ToolCallRequest` and `ToolCallResponse` of the tool
/// that asked. Returns the calls the request may belong to (those of the
/// named tool, or every open call when the source names none or names a
/// tool with no open call) and the finding, if any. IDs are not consulted:
/// they are opaque to readers.
pub(crate) fn placement<'a>(
    id: &InquiryId,
    source: &InquirySource,
    open: &[OpenCallRef<'a>],
) -> (Vec<OpenCallRef<'a>>, Option<Finding>) {
    if open.is_empty() {
        return (Vec::new(), Some(unplaced(id)));
    }
    match source {
        InquirySource::Tool { name } => {
            let named: Vec<OpenCallRef<'a>> =
                open.iter().filter(|c| c.name == name).cloned().collect();
            if !named.is_empty() {
                return (named, None);
            }
            let listed: Vec<String> = open
                .iter()
                .map(|c| format!("`{}` ({})", c.id, c.name))
                .collect();
            let mut ids = vec![id.to_string()];
            ids.extend(open.iter().map(|c| c.id.to_owned()));
            (
                open.to_vec(),
                Some(Finding::new(
                    Rule::CheckPlacementSource,
                    ids,
                    format!(
                        "inquiry request `{id}` has source tool `{name}`, but no call of `{name}` \
                         is open (open: {})",
                        listed.join(", ")
                    ),
                )),
            )
        }
        InquirySource::Assistant | InquirySource::User | InquirySource::Other { .. } => {
            (open.to_vec(), None)
        }
    }
}

/// CHECK-PLACEMENT for a request with no open tool call at all (what
/// [`placement`] finds when `open` is empty).
pub(crate) fn unplaced(id: &InquiryId) -> Finding {
    Finding::new(
        Rule::CheckPlacement,
        vec![id.to_string()],
        format!(
            "inquiry request `{id}` is not inside an open tool call; an inquiry sits between a \
             tool_call_request and its tool_call_response"
        ),
    )
}

/// CHECK-PLACEMENT-CLOSED: the response came after the `tool_call_response`
/// (at `closed_at`) of the last call it could belong to.
pub(crate) fn placement_closed(id: &InquiryId, call_id: &str, closed_at: usize) -> Finding {
    Finding::new(
        Rule::CheckPlacementClosed,
        vec![id.to_string(), call_id.to_owned()],
        format!(
            "inquiry response `{id}` comes after its tool call `{call_id}` ended \
             (tool_call_response at event {closed_at}); it must come before"
        ),
    )
}

/// The writer-side parts of a conforming RFD 082 ID: the one grammar's
/// ([`crate::wire::id`]), which the writer builds with.
pub use crate::wire::id::IdParts;

/// CHECK-ID-FORMAT (RFD 082 "Inquiry ID format"): a conformance check of the
/// WRITER, never used for pairing (readers treat IDs as opaque). The ID must
/// be `<call>.<question_id>.<attempt>` for one of `calls` (the open calls the
/// request may belong to), with a decimal attempt from 1 without leading
/// zeros. The question ID may be empty (`c1..1`): RFD 082's format does not
/// forbid it (spec/DECISIONS.md, "IDs: an empty question ID runs"). Every open call whose ID is a prefix is
/// tried, the longest first: with calls `a` and `a.b` open, `a.b.1` is call
/// `a`, question `b`, attempt 1 (as call `a.b` it would have no attempt),
/// so a prefix-compatible call ID never causes a false alarm. Where several
/// calls read the ID (the separator inside a part, [`wire::id::Parse::Ambiguous`]),
/// the longest call's reading is judged (decision "IDs: one grammar builds
/// and reads them, honest about ambiguity").
pub(crate) fn id_format(id: &InquiryId, calls: &[&str]) -> Result<IdParts, Finding> {
    let s = id.as_str();
    let readings = wire::id::readings(s, calls);
    let fail = |why: String| {
        let mut ids = vec![s.to_owned()];
        ids.extend(calls.iter().map(|c| (*c).to_owned()));
        Finding::new(
            Rule::CheckIdFormat,
            ids,
            format!("inquiry ID `{id}` is not `<tool_call_id>.<question_id>.<attempt>`: {why}"),
        )
    };
    if readings.is_empty() {
        let names: Vec<String> = calls.iter().map(|c| format!("`{c}.`")).collect();
        return Err(fail(format!(
            "it does not start with the ID of its open tool call ({})",
            names.join(" or ")
        )));
    }
    if let Some(parts) = first_parts(&readings) {
        return Ok(parts);
    }
    let first_error = readings
        .into_iter()
        .find_map(|(call, r)| r.err().map(|why| (call, why)));
    Err(fail(first_error.map_or_else(String::new, |(call, why)| {
        explain(why, s, call)
    })))
}

/// [`id_format`]'s parts, `None` where it words a finding, without
/// wording it (rule `PERF-CHECK-ID-LATER`: the checker words that finding
/// only if its turn keeps it).
pub(crate) fn id_parts(id: &InquiryId, calls: &[&str]) -> Option<IdParts> {
    first_parts(&wire::id::readings(id.as_str(), calls))
}

/// The first reading that gives parts, longest call first.
fn first_parts(readings: &[wire::id::Reading<'_, '_>]) -> Option<IdParts> {
    readings.iter().find_map(|(call, reading)| {
        reading.ok().map(|(question, attempt)| IdParts {
            tool_call_id: (*call).to_owned(),
            question_id: question.to_owned(),
            attempt,
        })
    })
}

/// Whether `id` is a conforming `<call>.<question_id>.<attempt>` ID of the
/// call `call` (the calls that could hold a request, by its ID).
pub(crate) fn id_holds(id: &InquiryId, call: &str) -> bool {
    matches!(wire::id::read_for(id.as_str(), call), Some(Ok(_)))
}

/// Why an ID is not `<call>.<question_id>.<attempt>` for one open call,
/// worded only when a finding is written, so judging the style of an ID
/// ([`id_style`]) formats nothing: the reason, for `s` read against the
/// open call `call`.
fn explain(fault: IdFault, s: &str, call: &str) -> String {
    match fault {
        IdFault::NoAttempt => {
            format!("after `{call}.` it has no `.<attempt>` (a pre-082 two-segment ID)")
        }
        IdFault::BadAttempt => {
            let attempt = s.rsplit_once('.').map_or("", |(_, a)| a);
            format!("its attempt `{attempt}` is not a number from 1 written without leading zeros")
        }
        IdFault::AttemptTooLarge => {
            let attempt = s.rsplit_once('.').map_or("", |(_, a)| a);
            format!(
                "its attempt `{attempt}` is past {}, more re-asks of one question in one \
                 turn than a writer's attempt counter counts",
                u32::MAX
            )
        }
    }
}

/// Which writer built a request's ID, read against the open calls the
/// request may belong to (the same parse as [`id_format`]). Used only to tell
/// which writer recorded a turn (decision "Oracle checks: a turn's writer is
/// read from its request IDs"), never for pairing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IdStyle {
    /// `<call>.<question_id>`: a pre-082 writer (RFD 082 "Pre-082 streams use
    /// the legacy two-segment form").
    TwoSegment,
    /// `<call>.<question_id>.<attempt>`: an RFD 082 writer.
    ThreeSegment,
    /// Neither (no open call's ID as prefix, bad attempt).
    Other,
}

/// The [`IdStyle`] of `id` for the open calls `calls`.
pub(crate) fn id_style(id: &InquiryId, calls: &[&str]) -> IdStyle {
    // `id_format(id, calls).is_ok()`, without wording the finding.
    let three = calls.iter().any(|c| id_holds(id, c));
    match (three, two_segment(id.as_str(), calls)) {
        (true, _) => IdStyle::ThreeSegment,
        (false, true) => IdStyle::TwoSegment,
        (false, false) => IdStyle::Other,
    }
}

/// Whether `s` is `<call>.<question_id>` for one of `calls`, the question ID
/// without a dot (empty allowed, as in the three-segment form).
fn two_segment(s: &str, calls: &[&str]) -> bool {
    calls.iter().any(|c| wire::id::is_two_segment(s, c))
}

/// CHECK-ID-FORMAT (RFD 082 "Inquiry ID format", "Recording lifecycle"
/// step 6): a two-segment request was recorded by a pre-082 writer, which
/// records only answers; a `cancelled` or `redacted` response to it is a
/// shape only an RFD 082 writer records, and that writer gives the requests
/// it records three-segment IDs. Judged where a turn mixes ID forms (an
/// unmixed turn's two-segment IDs are judged by [`id_format`]).
pub(crate) fn legacy_id_closed_by_082(resp: &InquiryResponse) -> Option<Finding> {
    let shape = match resp {
        InquiryResponse::Answered { .. } => return None,
        InquiryResponse::Cancelled { .. } => "cancelled",
        InquiryResponse::Redacted { .. } => "redacted",
    };
    let id = resp.id();
    Some(Finding::new(
        Rule::CheckIdFormat,
        vec![id.to_string()],
        format!(
            "inquiry `{id}` has a pre-082 two-segment ID but is closed `{shape}`, which only an \
             RFD 082 writer records, and that writer gives its requests three-segment IDs"
        ),
    ))
}

/// CHECK-TURN-ONE-WRITER (RFD 082 "Inquiry ID format": "Only new writes use
/// the three-segment form"): the requests of one turn are recorded by one
/// writer. `first` is the ID of the request where the turn switched form.
pub(crate) fn turn_one_writer(first: &InquiryId, upgrade: bool, mode: ProfileMode) -> Finding {
    let how = if upgrade {
        "two-segment (pre-082) requests are followed by three-segment (RFD 082) ones: the turn \
         was resumed across an upgrade"
    } else {
        "a three-segment (RFD 082) request comes before a two-segment (pre-082) one, which no \
         writer and no upgrade produces"
    };
    let finding = Finding::new(
        Rule::CheckTurnOneWriter,
        vec![first.to_string()],
        format!("inquiry request `{first}` switches the turn's ID form: {how}"),
    );
    // Under auto an upgrade mid-turn is legal (a turn resumed after the
    // upgrade; RFD 082 "heals one event at a time"), so only suspect; an
    // explicit profile judges one writer, which never switches.
    match (mode, upgrade) {
        (ProfileMode::Auto, true) => finding.warning(),
        (ProfileMode::Auto, false) | (ProfileMode::Fixed(_), _) => finding,
    }
}

/// CHECK-ID-ATTEMPT (RFD 082 "Inquiry ID format"): the attempt counter of a
/// `(tool_call_id, question_id)` key grows with each recording in a turn.
/// `previous` is the key's highest attempt so far in the turn. Only an
/// attempt that does not grow is a finding: the writer counts from 1 without
/// gaps, but a legal repair (RFD 082 Phase 3, turn-scoped sanitize removing
/// an orphaned `…q.1`) leaves `…q.2` first, and readers treat IDs as opaque,
/// so a gap or a later start tells a reader nothing it may use (decision
/// "Oracle checks: attempts after a repair").
pub(crate) fn id_attempt(
    id: &InquiryId,
    parts: &IdParts,
    previous: Option<u32>,
) -> Option<Finding> {
    let last = previous?;
    if parts.attempt > last {
        return None;
    }
    Some(Finding::new(
        Rule::CheckIdAttempt,
        vec![id.to_string(), parts.tool_call_id.clone()],
        format!(
            "inquiry ID `{id}` has attempt {}, after attempt {last} of question `{}` in call \
             `{}`: attempts grow within a turn",
            parts.attempt, parts.question_id, parts.tool_call_id
        ),
    ))
}

/// How a `tool_call_response` failed to pair (CHECK-TOOL-PAIRED).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ToolUnpaired {
    /// A call of its ID opens later in the turn and gets no other response:
    /// the response came first (at the request's event index).
    BeforeRequest(usize),
    /// Every call of its ID was already answered (last at this index).
    Duplicate(usize),
    /// A call of its ID was left unanswered in an earlier turn (at this
    /// event index, in this turn).
    OtherTurn {
        /// The request's event index.
        index: usize,
        /// The request's turn.
        turn: usize,
    },
    /// No call of its ID in the turn.
    NoRequest,
}

/// CHECK-TOOL-PAIRED for a response (RFD 082 Phase 3: tool-call repair, like
/// inquiry repair, works "within each turn's event window"; pairs match by
/// order where IDs repeat).
pub(crate) fn tool_response_unpaired(id: &str, how: &ToolUnpaired) -> Finding {
    let why = match how {
        ToolUnpaired::BeforeRequest(at) => format!(
            "comes before its tool_call_request (event {at}); a response follows its request"
        ),
        ToolUnpaired::Duplicate(at) => format!(
            "answers a call that is already answered (tool_call_response at event {at}); a call \
             gets exactly one response"
        ),
        ToolUnpaired::OtherTurn { index, turn } => format!(
            "answers the call at event {index} of turn {turn}; a tool call and its response \
             never cross a turn boundary"
        ),
        ToolUnpaired::NoRequest => "answers no tool_call_request of its turn".to_owned(),
    };
    Finding::new(
        Rule::CheckToolPaired,
        vec![id.to_owned()],
        format!("tool_call_response `{id}` {why}"),
    )
}

/// CHECK-TOOL-PAIRED for a call left without a response in its turn.
pub(crate) fn tool_call_unanswered(id: &str) -> Finding {
    Finding::new(
        Rule::CheckToolPaired,
        vec![id.to_owned()],
        format!("tool_call_request `{id}` has no tool_call_response in its turn"),
    )
}

/// A secret-leak finding: a warning under auto (an unknown field is kept for
/// forward compatibility), an error under an explicit profile (its writer
/// writes no such field).
fn leak(mode: ProfileMode, id: &InquiryId, what: String) -> Finding {
    let f = Finding::new(Rule::CheckSecretLeak, vec![id.to_string()], what);
    match mode {
        ProfileMode::Auto => f.warning(),
        ProfileMode::Fixed(_) => f,
    }
}

/// CHECK-SECRET-LEAK on a response (RFD 082 "`InquiryResponse`
/// serialization": "`Redacted` carries only `id`: no answer field, no reason
/// field"): a `redacted` response with a `reason`, or a secret question's
/// response with a field no writer writes. A stray `answer` is
/// CHECK-REDACTED-NO-ANSWER's. The message names no value.
pub(crate) fn secret_leak_response(
    mode: ProfileMode,
    secret: bool,
    r: &InquiryResponse,
    shape: &Shape,
) -> Option<Finding> {
    let id = r.id();
    let redacted = match r {
        InquiryResponse::Redacted { .. } => true,
        InquiryResponse::Answered { .. } | InquiryResponse::Cancelled { .. } => false,
    };
    if redacted && shape.reason_on_disk {
        return Some(leak(
            mode,
            id,
            format!(
                "`redacted` response `{id}` carries a `reason`; a redacted response holds only \
                 its `id`, so nothing beside it can carry the secret"
            ),
        ));
    }
    if (redacted || secret) && shape.extra_on_response {
        return Some(leak(
            mode,
            id,
            format!(
                "the response `{id}` to a secret question carries a field no writer writes; \
                 beside a secret's redaction an unknown field is where the secret would leak"
            ),
        ));
    }
    None
}

/// CHECK-SECRET-LEAK on a request (RFD 082 "Secret questions": the answer
/// never reaches disk): an `answer` on a secret question's request.
pub(crate) fn secret_leak_request(
    mode: ProfileMode,
    id: &InquiryId,
    q: QuestionFacts,
    shape: &Shape,
) -> Option<Finding> {
    (q.secret && shape.answer_on_request).then(|| {
        leak(
            mode,
            id,
            format!(
                "inquiry request `{id}` of a secret question carries an `answer`; a secret's \
                 answer never reaches disk"
            ),
        )
    })
}

/// CHECK-ANSWER-FITS (RFD 083 "Arguments": the answer is validated against
/// the resolved `answer_type` and `options`; static answers are validated,
/// and the backend's schema fixes the type): an `answered` value is a
/// boolean for a boolean question, a string for a text question, one of the
/// options for a select. A secret's `answered` is CHECK-SECRET-NOT-ANSWERED.
pub(crate) fn answer_fits(
    q: QuestionFacts,
    options: Option<&[serde_json::Value]>,
    r: &InquiryResponse,
) -> Option<Finding> {
    let InquiryResponse::Answered { id, answer } = r else {
        return None;
    };
    let mismatch = predicates::answer_fits(q.kind, options.unwrap_or_default(), answer).err()?;
    let why = match (q.kind, mismatch) {
        // A secret's `answered` is CHECK-SECRET-NOT-ANSWERED's to report.
        (AnswerKind::Secret, _) => return None,
        (AnswerKind::Boolean, _) => "a boolean question's answer is not a boolean",
        (AnswerKind::Text, _) => "a text question's answer is not a string",
        (AnswerKind::Select, AnswerMismatch::NotAnOption) => {
            "a select question's answer is none of its options"
        }
        (AnswerKind::Select, AnswerMismatch::WrongType { .. }) => {
            "a select question's answer is not a string, so none of its options"
        }
    };
    Some(Finding::new(
        Rule::CheckAnswerFits,
        vec![id.to_string()],
        format!("inquiry response `{id}` cannot be the answer to its question: {why}"),
    ))
}

/// CHECK-ASK-USER-SHAPE (RFD 083 "Arguments", "Execution flow"): `ask_user`
/// authors its question `exclusive: true`, `persistence: none`, of type
/// boolean, select or text, with a non-empty single-line text, a select
/// with options, and a default that fits (of the answer type; among the
/// options for a select): [`predicates::ask_user_question`], the predicate
/// `ask_user` itself authors by.
pub(crate) fn ask_user_shape(id: &InquiryId, q: &InquiryQuestion) -> Option<Finding> {
    let why = match predicates::ask_user_question(q).err()? {
        AskUserShapeFault::NotExclusive => "it is not `exclusive`",
        AskUserShapeFault::Remembered => "its `persistence` is not `none`",
        AskUserShapeFault::Secret => "its answer type is `secret`",
        AskUserShapeFault::Text(TextFault::Empty) => "its text is empty",
        AskUserShapeFault::Text(TextFault::Multiline) => "its text is not a single line",
        AskUserShapeFault::SelectWithoutOptions => "it is a select with no options",
        AskUserShapeFault::DefaultDoesNotFit(_) => {
            "its default does not fit its answer type or options"
        }
    };
    Some(Finding::new(
        Rule::CheckAskUserShape,
        vec![id.to_string()],
        format!(
            "inquiry request `{id}` has source `assistant` (the `ask_user` built-in), but {why}, \
             which `ask_user` never authors"
        ),
    ))
}

/// What an `ask_user` call's inquiry recorded (CHECK-ASK-USER-RECORD).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum AskUserOutcome {
    /// `answered`, with the value and the question's answer kind.
    Answered(serde_json::Value, AnswerKind),
    /// `cancelled` or `redacted`: no answer reached the tool.
    NoAnswer,
}

/// CHECK-ASK-USER-RECORD for a question (RFD 083 "Execution flow": "The
/// built-in always emits a single question with `id: "answer"`"): the
/// question ID of an `ask_user` request, read for its call (`parts`), is
/// `answer`, and the call asks no question after one was answered (its
/// second invocation returns `Outcome::Success`).
pub(crate) fn ask_user_question(
    id: &InquiryId,
    parts: Option<&IdParts>,
    answered: bool,
) -> Option<Finding> {
    let why = if answered {
        "the call's question was already answered (the built-in emits a single question and \
         then returns its answer)"
            .to_owned()
    } else {
        match parts {
            Some(p) if p.question_id != predicates::ASK_USER_QUESTION_ID => format!(
                "its question ID is `{}` (the built-in always emits a single question with \
                 `id: \"answer\"`)",
                p.question_id
            ),
            Some(_) | None => return None,
        }
    };
    Some(Finding::new(
        Rule::CheckAskUserRecord,
        vec![id.to_string()],
        format!("`ask_user` inquiry request `{id}` is not what the built-in records: {why}"),
    ))
}

/// The `{"answer_type", "answer"}` body of an `ask_user` success (RFD 083
/// "Execution flow"), read from a tool response's content: a JSON string
/// holding that object as JSON, directly or base64-encoded (real streams
/// store tool contents base64-encoded); anything else is not such a body.
/// `content` is the JSON text of the response's `content` field.
pub(crate) fn ask_user_body(content: &str) -> Option<(String, serde_json::Value)> {
    let Ok(serde_json::Value::String(text)) = serde_json::from_str(content) else {
        return None;
    };
    let decoded = match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(v) => v,
        Err(_) => serde_json::from_slice(&base64_decode(&text)?).ok()?,
    };
    let serde_json::Value::Object(mut m) = decoded else {
        return None;
    };
    if m.len() != 2 {
        return None;
    }
    let (answer_type, answer) = predicates::ASK_USER_BODY_KEYS;
    let serde_json::Value::String(kind) = m.remove(answer_type)? else {
        return None;
    };
    Some((kind, m.remove(answer)?))
}

/// Standard base64 (RFC 4648, padding optional), or `None` for any other text.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let digits = text.trim_end_matches('=');
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for b in digits.bytes() {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// CHECK-ASK-USER-RECORD for the result of an `ask_user` call (RFD 083
/// "Execution flow": the second invocation "returns `Outcome::Success {
/// content: <JSON-encoded answer> }`", `{"answer_type": …, "answer": …}`;
/// RFD 082: every `NeedsInput` round-trip is recorded): a successful
/// response whose content is such a body follows an `answered` inquiry of
/// the call and carries its answer and answer type. `outcome` is what the
/// call's inquiry recorded (`None`: the call asked nothing); `body` the
/// response's body, if it is one.
pub(crate) fn ask_user_result(
    call_id: &str,
    outcome: Option<&AskUserOutcome>,
    body: Option<&(String, serde_json::Value)>,
) -> Option<Finding> {
    let (kind, answer) = body?;
    let why = match outcome {
        None => "the call recorded no question, and the built-in answers only what it asked",
        Some(AskUserOutcome::NoAnswer) => {
            "the call's question was cancelled, so no answer reached the built-in"
        }
        Some(AskUserOutcome::Answered(recorded, k)) => {
            if recorded == answer && kind == k.name() {
                return None;
            }
            "it differs from the recorded answer or its answer type"
        }
    };
    Some(Finding::new(
        Rule::CheckAskUserRecord,
        vec![call_id.to_owned()],
        format!("`ask_user` call `{call_id}` succeeds with an answer body, but {why}"),
    ))
}

/// CHECK-ASK-USER-RECORD for an `ask_user` call whose response is an
/// error (RFD 083 "Execution flow": the second invocation "returns
/// `Outcome::Success { content: <JSON-encoded answer> }`"): the
/// `{"answer_type", "answer"}` body is the built-in's success, so an error
/// response carrying it contradicts the built-in. An error with any other
/// content (a tool-level failure) is not judged. `body` is the response's
/// body, if it is one.
pub(crate) fn ask_user_error_body(
    call_id: &str,
    body: Option<&(String, serde_json::Value)>,
) -> Option<Finding> {
    body?;
    Some(Finding::new(
        Rule::CheckAskUserRecord,
        vec![call_id.to_owned()],
        format!(
            "`ask_user` call `{call_id}` carries an answer body in an error response \
             (`is_error: true`), but the built-in returns its answer as \
             `Outcome::Success {{ content: <JSON-encoded answer> }}` (RFD 083 \"Execution flow\")"
        ),
    ))
}

/// CHECK-PROVENANCE (RFD 082 "Source attribution": the source is resolved
/// from the tool kind, "not user-overridable"; "082 itself ships no
/// production overrides"; RFD 083: only `ask_user` overrides it to
/// `Assistant`, found by its config key). `call_names` are the open calls
/// the request may belong to.
pub(crate) fn provenance(
    mode: ProfileMode,
    id: &InquiryId,
    source: &InquirySource,
    call_names: &[&str],
) -> Option<Finding> {
    let why = match (mode, source) {
        (_, InquirySource::Tool { .. }) => return None,
        (
            ProfileMode::Fixed(p @ (Profile::Legacy | Profile::Rfd082)),
            InquirySource::Assistant | InquirySource::User | InquirySource::Other { .. },
        ) => format!(
            "the {p} profile records only `source: tool` (RFD 082 ships no source override; \
             `ask_user` arrives with RFD 083)"
        ),
        (_, InquirySource::Assistant)
            if !call_names.is_empty()
                && !call_names.iter().any(|n| {
                    predicates::recorded_source(predicates::overrides_source(n), n)
                        == InquirySource::Assistant
                }) =>
        {
            format!(
                "it is asked inside {} and only the `ask_user` built-in records `source: assistant`; \
             a tool cannot claim to be the assistant",
                call_names
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(" or ")
            )
        }
        (_, InquirySource::Assistant | InquirySource::User | InquirySource::Other { .. }) => {
            return None;
        }
    };
    let finding = Finding::new(
        Rule::CheckProvenance,
        vec![id.to_string()],
        format!("inquiry request `{id}` has a forged source: {why}"),
    );
    // Under auto a warning: RFD 082's own tests record `assistant` from a
    // synthetic built-in ("tests exercise the assistant-source path with a
    // synthetic built-in"), so only a production stream is sure to be forged.
    Some(match mode {
        ProfileMode::Auto => finding.warning(),
        ProfileMode::Fixed(_) => finding,
    })
}

/// CHECK-PROVENANCE for an RFD 083 writer (RFD 082 "Source attribution":
/// "For MCP tools and local tools, the wrapping code path always constructs
/// `InquirySource::Tool { name }`"; built-ins default to it and RFD 083's
/// `ask_user` overrides it to `Assistant`): no code path of such a writer
/// records `source: user` or `source: other`, which the reader accepts only
/// as read-only landing pads. Judged in turns judged RFD 083's (an error),
/// a warning in other auto turns (`Gate::Rfd083`); the explicit legacy and
/// rfd082 profiles already refuse every non-tool source in [`provenance`].
pub(crate) fn provenance_083(
    mode: ProfileMode,
    id: &InquiryId,
    source: &InquirySource,
) -> Option<Finding> {
    let what = match (mode, source) {
        (ProfileMode::Fixed(Profile::Legacy | Profile::Rfd082), _)
        | (_, InquirySource::Tool { .. } | InquirySource::Assistant) => return None,
        (ProfileMode::Auto | ProfileMode::Fixed(Profile::Rfd083), InquirySource::User) => {
            "`source: user`".to_owned()
        }
        (
            ProfileMode::Auto | ProfileMode::Fixed(Profile::Rfd083),
            InquirySource::Other { name },
        ) => {
            format!("`source: other` (`{name}`)")
        }
    };
    Some(Finding::new(
        Rule::CheckProvenance,
        vec![id.to_string()],
        format!(
            "inquiry request `{id}` has {what}, which no RFD 083 writer records: tools record \
             `source: tool` and only the `ask_user` built-in `source: assistant`"
        ),
    ))
}

/// Whether `reason` fails the tool: the routing guards ("fail the tool with
/// a tool-level error", RFD 082 "Secret questions", RFD 083 "Non-interactive
/// behavior"), an invalid static answer (RFD 083: an `Outcome::Error` naming
/// `QuestionConfig.answer`) and a backend failure (RFD 082 "Recording
/// lifecycle" step 6: the tool response keeps its existing error wording).
/// The class is data in `wire` ([`CancellationReason::class`]), shared with
/// the model's tool responses.
pub(crate) fn fails_tool(reason: &CancellationReason) -> bool {
    reason.fails_tool()
}

/// CHECK-REASON-FAILS-TOOL: the call whose inquiry `inquiry` was cancelled
/// with `reason` (a reason that fails the tool) ended with a successful
/// `tool_call_response`.
pub(crate) fn reason_fails_tool(call_id: &str, inquiry: &InquiryId, reason: &str) -> Finding {
    Finding::new(
        Rule::CheckReasonFailsTool,
        vec![call_id.to_owned(), inquiry.to_string()],
        format!(
            "tool call `{call_id}` ends with a successful response, but its inquiry `{inquiry}` \
             was cancelled with `{reason}`, which fails the tool"
        ),
    )
}

/// CHECK-ONE-QUESTION (RFD 082 "Recording lifecycle": one `NeedsInput` per
/// invocation; the guards "fail the tool"; RFD 028 "On failure, mark the
/// tool as completed with an error"): a second question while `open` waits
/// in the same call, or (`open` None) a question after an inquiry cancelled
/// with `failed_with`, a reason that fails the tool, ended the call.
pub(crate) fn one_question(
    id: &InquiryId,
    call_id: &str,
    open: Option<&InquiryId>,
    failed_with: &str,
) -> Finding {
    let why = match open {
        Some(o) => format!("its question `{o}` is still open; one question is pending per call"),
        None => format!(
            "an inquiry cancelled with `{failed_with}` already failed the call \
             (the tool is completed with an error)"
        ),
    };
    Finding::new(
        Rule::CheckOneQuestion,
        vec![id.to_string(), call_id.to_owned()],
        format!("inquiry request `{id}` asks again in call `{call_id}`, but {why}"),
    )
}

/// CHECK-WRITER-FIELDS (RFD 082 "`InquiryResponse` serialization": the
/// default `Serialize` writes `Cancelled { id, reason }`, `Answered { id,
/// answer }`; RFD 083 "Propagating to the persisted shape": the RFD 083
/// fields are skipped at their defaults): only under an explicit rfd082 or
/// rfd083 profile, since a reader fills the defaults in.
pub(crate) fn writer_fields(
    mode: ProfileMode,
    r: &InquiryResponse,
    shape: &Shape,
) -> Option<Finding> {
    let ProfileMode::Fixed(Profile::Rfd082 | Profile::Rfd083) = mode else {
        return None;
    };
    let id = r.id();
    // RFD 082: "The on-disk shape is always `{"reason": "<tag>"}`" and
    // "every new write produces the tagged form": a `null` in either field
    // is read as absent (for old files under auto), but an explicit RFD 082
    // writer never writes it.
    if shape.null_on_disk {
        return Some(Finding::new(
            Rule::CheckWriterFields,
            vec![id.to_string()],
            format!(
                "inquiry response `{id}` is not what an {mode} writer writes: it writes `null` \
                 for `outcome` or `reason` (the writer always writes the tag as a string)"
            ),
        ));
    }
    if !shape.tagged {
        return None;
    }
    let why = match r {
        InquiryResponse::Cancelled { .. } if !shape.reason_on_disk => {
            "it is `cancelled` without a `reason` (the writer always writes one)"
        }
        InquiryResponse::Answered { .. } if shape.reason_on_disk => {
            "it is `answered` with a `reason` (only `cancelled` carries one)"
        }
        InquiryResponse::Cancelled { .. }
        | InquiryResponse::Answered { .. }
        | InquiryResponse::Redacted { .. } => return None,
    };
    Some(Finding::new(
        Rule::CheckWriterFields,
        vec![id.to_string()],
        format!("inquiry response `{id}` is not what an {mode} writer writes: {why}"),
    ))
}

/// CHECK-WRITER-FIELDS for a request under an explicit rfd083 profile: an
/// RFD 083 question field written at its default.
pub(crate) fn writer_question_defaults(
    mode: ProfileMode,
    id: &InquiryId,
    shape: &Shape,
) -> Option<Finding> {
    let ProfileMode::Fixed(Profile::Rfd083) = mode else {
        return None;
    };
    let fields: Vec<String> = super::shape::QUESTION_083_FIELDS
        .iter()
        .zip(shape.question_083.iter().zip(shape.question_083_default))
        .filter(|(_, (present, default))| **present && *default)
        .map(|(f, _)| format!("`{f}`"))
        .collect();
    (!fields.is_empty()).then(|| {
        Finding::new(
            Rule::CheckWriterFields,
            vec![id.to_string()],
            format!(
                "inquiry request `{id}` writes {} at the default; an rfd083 writer skips the \
                 field there",
                fields.join(", ")
            ),
        )
    })
}
