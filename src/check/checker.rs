//! The streaming checker: one event at a time, holding what the current turn
//! keeps open, flushing each turn's findings in event order when it ends.

use std::collections::VecDeque;

use hashbrown::HashMap;
use hashbrown::hash_map::Entry;

use super::diagnostic::one_line;
use super::plain::Plain;
use super::rules::{self, Finding, OpenCallRef, QuestionFacts, Severity};
use super::shape::{Present083, Shape};
use super::{Diagnostic, FileSummary, Profile, ProfileMode, TurnsByProfile};
use crate::predicates;
use crate::profile::tables::Tables;
use crate::rule::Rule;
use crate::stream::{PairStep, Pairer};
use crate::wire::{
    Event, EventKind, FieldsRef, InquiryId, InquiryResponse, RawEvent, type_fields_seen,
};

/// At most this many unanswered requests of finished turns are remembered
/// for `CHECK-TURN-SCOPED`, oldest dropped first, so memory stays bounded
/// whatever the stream.
pub(crate) const CARRY_LIMIT: usize = 1024;

/// Gate of a finding whose rule applies only to some writers (decided when
/// the turn's profile is known, at its end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Gate {
    /// Every profile.
    Always,
    /// Only turns recorded by an RFD 082 or later writer (turn-unique IDs,
    /// the ID format, attempts, one open question per call).
    AttemptIds,
    /// CHECK-ANSWER-FITS: RFD 083 validates static answers, earlier writers
    /// record them as configured. An error in a turn judged RFD 083's, a
    /// warning in another turn under auto, nothing under an explicit
    /// legacy or rfd082 profile.
    Rfd083,
    /// Only a turn not judged an RFD 082 writer's (where [`Gate::AttemptIds`]
    /// does not already judge the full ID format).
    Not082,
    /// CHECK-ID-FORMAT for a two-segment ID: only in a turn an RFD 082
    /// writer recorded that does not mix ID forms (a mixed turn is one
    /// CHECK-TURN-ONE-WRITER finding instead).
    TwoSegment,
    /// A two-segment request closed with a shape only an RFD 082 writer
    /// records, in a turn that mixes ID forms: the legacy part of a turn
    /// resumed across an upgrade was written by a pre-082 writer, which
    /// never records it (an unmixed turn gets CHECK-ID-FORMAT through
    /// [`Gate::TwoSegment`] instead).
    MixedTwoSegment,
}

/// The ID forms a turn's requests show (decision "Oracle checks: a turn's
/// writer is read from its request IDs").
#[derive(Debug, Default)]
struct IdForms {
    /// The form of the turn's first classified request.
    first: Option<rules::IdStyle>,
    /// The first request of the other form: where the turn switched.
    switch: Option<(usize, InquiryId)>,
    /// Event index of the last two-segment request.
    last_two: Option<usize>,
    /// Event index of the first three-segment request.
    first_three: Option<usize>,
}

impl IdForms {
    fn note(&mut self, index: usize, id: &InquiryId, style: rules::IdStyle) {
        match style {
            rules::IdStyle::TwoSegment => self.last_two = Some(index),
            rules::IdStyle::ThreeSegment => {
                self.first_three.get_or_insert(index);
            }
            rules::IdStyle::Other => return,
        }
        match self.first {
            None => self.first = Some(style),
            Some(f) if f != style && self.switch.is_none() => {
                self.switch = Some((index, id.clone()));
            }
            Some(_) => {}
        }
    }

    /// What the IDs show of the writer that recorded the turn.
    fn evidence(&self) -> Option<Profile> {
        match (self.first_three, self.last_two) {
            (Some(_), _) => Some(Profile::Rfd082),
            (None, Some(_)) => Some(Profile::Legacy),
            (None, None) => None,
        }
    }
}

#[derive(Debug)]
struct Pending {
    index: usize,
    gate: Gate,
    finding: Deferred,
}

/// A finding held until its turn ends. The two a huge turn produces once per
/// request are kept as a tag and written at the flush from the request's ID,
/// so a turn of a million unanswered requests holds a million small records
/// instead of a million formatted messages.
#[derive(Debug)]
enum Deferred {
    /// Written when found (boxed: findings are rare in a good stream).
    Ready(Box<Finding>),
    /// CHECK-PLACEMENT for the request at the pending index: it sits in no
    /// open tool call.
    Unplaced,
    /// CHECK-PAIRED for the request at the pending index: it has no response
    /// in its turn.
    Unanswered,
    /// CHECK-ID-FORMAT for a request whose ID no candidate call reads as
    /// `<call>.<question_id>.<attempt>`: worded at the flush, and only if
    /// its gate keeps it (rule `PERF-CHECK-ID-LATER`; most such findings
    /// are two-segment IDs of a legacy turn, which the gate drops).
    IdFormat(Box<IdFormatLater>),
}

/// What [`rules::id_format`] words its finding from: the request's ID and
/// its candidate calls' IDs, as numbers in the turn's
/// [`TurnState::texts`] (kept there until the turn ends), in the order
/// `id_format` was given them.
#[derive(Debug)]
struct IdFormatLater {
    id: InquiryId,
    calls: Box<[usize]>,
}

/// An open tool call: its ID and its tool's name, as numbers in the turn's
/// [`TurnState::texts`] (no string of its own per call).
#[derive(Debug)]
struct OpenCall {
    id: usize,
    name: usize,
}

/// The turn's open tool calls by `tool_call_request` index, in index
/// order: what a `BTreeMap<usize, OpenCall>` answers, as a list sorted by
/// index (calls open in stream order, so a new one is appended) where a
/// closed call leaves a hole until the holes outnumber the open calls
/// (rule `PERF-CHECK-OPEN-CALLS`: a call opened and closed costs no tree
/// node and no rebalancing; every call is found by binary search).
#[derive(Debug, Default)]
struct OpenCalls {
    /// Sorted by index, no index twice; `None` once closed.
    slots: Vec<(usize, Option<OpenCall>)>,
    /// How many slots hold a call.
    open: usize,
}

impl OpenCalls {
    /// Opens `call` at `index` (replacing a call open at the same index).
    fn insert(&mut self, index: usize, call: OpenCall) {
        if self.slots.last().is_none_or(|&(last, _)| last < index) {
            self.slots.push((index, Some(call)));
            self.open += 1;
            return;
        }
        match self.slots.binary_search_by_key(&index, |&(i, _)| i) {
            Ok(at) => {
                if self.slots[at].1.replace(call).is_none() {
                    self.open += 1;
                }
            }
            Err(at) => {
                self.slots.insert(at, (index, Some(call)));
                self.open += 1;
            }
        }
    }

    /// The call open at `index`.
    fn get(&self, index: usize) -> Option<&OpenCall> {
        let at = self.slots.binary_search_by_key(&index, |&(i, _)| i).ok()?;
        self.slots[at].1.as_ref()
    }

    /// Closes the call at `index`, if open.
    fn remove(&mut self, index: usize) {
        let Ok(at) = self.slots.binary_search_by_key(&index, |&(i, _)| i) else {
            return;
        };
        if self.slots[at].1.take().is_none() {
            return;
        }
        self.open -= 1;
        if self.open == 0 {
            self.slots.clear();
        } else if self.slots.len() > 2 * self.open + 8 {
            self.slots.retain(|(_, c)| c.is_some());
        }
    }

    /// The open calls in index order.
    fn iter(&self) -> impl Iterator<Item = (usize, &OpenCall)> {
        self.slots
            .iter()
            .filter_map(|(i, c)| c.as_ref().map(|c| (*i, c)))
    }

    /// Closes every call, keeping the list's memory unless it is big (rule
    /// `PERF-TURN-MEMORY`).
    fn clear(&mut self) {
        reuse_vec(&mut self.slots);
        self.open = 0;
    }
}

/// The open calls of one tool-call ID, oldest first: the first inline, so
/// the usual ID, used by one call at a time, allocates nothing.
#[derive(Debug)]
struct CallQueue {
    first: usize,
    more: VecDeque<usize>,
}

impl CallQueue {
    /// The oldest call, and whether the queue is now empty.
    fn pop(&mut self) -> (usize, bool) {
        match self.more.pop_front() {
            None => (self.first, true),
            Some(next) => (std::mem::replace(&mut self.first, next), false),
        }
    }
}

/// One request of the turn, from the oldest still waiting on (rule
/// `PERF-TURN-MEMORY`: an answered request is dropped once every earlier
/// one is answered too; until then it is a tag).
#[derive(Debug)]
struct RequestSlot {
    /// Its event index.
    index: usize,
    state: SlotState,
}

/// What the turn keeps of a request.
#[derive(Debug)]
enum SlotState {
    /// Waiting for its response.
    Waiting(Box<OpenRequest>),
    /// Answered, with a CHECK-PLACEMENT finding deferred to the flush
    /// ([`Deferred::Unplaced`]), which writes its ID.
    AnsweredUnplaced(InquiryId),
    /// Answered; nothing refers to it any more.
    Answered,
}

impl RequestSlot {
    /// Its ID, while anything still needs it.
    fn id(&self) -> Option<&InquiryId> {
        match &self.state {
            SlotState::Waiting(open) => Some(&open.id),
            SlotState::AnsweredUnplaced(id) => Some(id),
            SlotState::Answered => None,
        }
    }

    /// The request, while it waits.
    fn waiting(&self) -> Option<&OpenRequest> {
        match &self.state {
            SlotState::Waiting(open) => Some(open),
            SlotState::AnsweredUnplaced(_) | SlotState::Answered => None,
        }
    }
}

/// What a waiting request needs when its response comes.
#[derive(Debug)]
struct OpenRequest {
    id: InquiryId,
    /// It sat in no open call: a [`Deferred::Unplaced`] finding needs its ID
    /// at the flush.
    unplaced: bool,
    facts: QuestionFacts,
    /// Open calls (by request event index) the request may belong to.
    candidates: Vec<usize>,
    /// Set when the last candidate call ended: its ID and the index of its
    /// `tool_call_response`.
    closed_by: Option<(String, usize)>,
    /// Its ID is a pre-082 two-segment ID.
    two_segment: bool,
    /// The `ask_user` call (by request index) it was asked in, when it is
    /// that built-in's question (CHECK-ASK-USER-RECORD).
    ask_user: Option<usize>,
}

/// What an open `ask_user` call recorded so far (CHECK-ASK-USER-RECORD).
#[derive(Debug, Default)]
struct AskUserCall {
    /// It asked its question.
    asked: bool,
    /// How its question was closed.
    outcome: Option<rules::AskUserOutcome>,
}

/// Responses of one ID that matched no waiting request, judged at turn end.
#[derive(Debug, Default)]
struct EarlyResponses {
    /// Their event indices, oldest first.
    at: VecDeque<usize>,
    /// The last response of the ID that did pair in the turn (kept here
    /// because the pairer forgets the turn before the checker closes it).
    last_paired: Option<usize>,
    /// How many of `at`, from the front, came before a request of the ID
    /// (so they are responses before their request, not extra ones).
    before_request: usize,
}

#[derive(Debug)]
struct Carried {
    id: InquiryId,
    turn: usize,
    index: usize,
}

/// Everything the checker holds for the current turn.
#[derive(Debug, Default)]
struct TurnState {
    /// The newest stage the turn's events show.
    evidence: Option<Profile>,
    /// Some event shows a shape only an RFD 082 or later writer records
    /// (`cancelled`, `redacted`, `secret`, RFD 083 fields).
    recorded_082: bool,
    /// Some response is in the legacy flat form (saved by a pre-082 writer).
    flat: bool,
    /// The ID forms of the turn's requests.
    ids: IdForms,
    /// The turn's tool-call IDs and tool names, each once, numbered (a
    /// shared buffer, not a string per call; hashed with foldhash).
    texts: crate::stream::keys::Keys,
    /// Open tool calls by `tool_call_request` index.
    calls: OpenCalls,
    /// Open call indices by tool-call ID number, oldest first (IDs may
    /// repeat across cycles; a response closes the oldest).
    calls_by_id: HashMap<usize, CallQueue>,
    /// Requests per open call: every waiting one, and answered ones until
    /// the list is next pruned (when it is full, so a long call holds about
    /// its waiting requests, not all it ever had).
    call_requests: HashMap<usize, Vec<usize>>,
    /// The turn's requests in stream order from the oldest still waiting.
    /// A deque, not a map: a huge turn appends sequentially, drops answered
    /// requests from the front, and finds a request by binary search over
    /// event indices, instead of scattering entries over a table that
    /// outgrows the cache.
    requests: VecDeque<RequestSlot>,
    /// Last attempt per `(tool_call_id, question_id)`: one compact entry
    /// per question of the turn, whose text is the prefix of an ID the
    /// pairer holds.
    attempts: crate::stream::keys::Prefixes,
    /// Responses that matched no waiting request, by ID.
    orphan_responses: HashMap<InquiryId, EarlyResponses>,
    /// Open calls (by request index) an inquiry failed with a reason that
    /// fails the tool: the inquiry's ID and the reason's tag (no further
    /// question in the call, CHECK-ONE-QUESTION).
    failed_calls: HashMap<usize, (InquiryId, String)>,
    /// The option values of the waiting select questions, by request index
    /// (for CHECK-ANSWER-FITS; kept aside so other requests cost nothing).
    select_options: HashMap<usize, Box<[serde_json::Value]>>,
    /// Per open call, the last request whose only candidate it is (for
    /// CHECK-ONE-QUESTION: one lookup, whatever the number of requests).
    sole_waiting: HashMap<usize, usize>,
    /// Calls (by request index) opened since the last chat event: the ones
    /// the next chat event may find still open (CHECK-TOOL-ADJACENT; a call
    /// is judged at one chat event only, so the check is linear).
    fresh_calls: Vec<usize>,
    /// Open calls of `ask_user` (by request index) and what they recorded.
    ask_user_calls: HashMap<usize, AskUserCall>,
    /// Per tool-call ID number, the last `tool_call_response` that closed a
    /// call.
    tool_answered: HashMap<usize, usize>,
    /// `tool_call_response`s that closed no open call: index, ID and the
    /// last response of that ID that did close one, judged at turn end.
    tool_orphans: Vec<(usize, String, Option<usize>)>,
    /// Findings not yet flushed.
    pending: Vec<Pending>,
}

impl TurnState {
    fn note(&mut self, evidence: Option<Profile>) {
        match evidence {
            Some(Profile::Legacy) => self.flat = true,
            Some(Profile::Rfd082 | Profile::Rfd083) => self.recorded_082 = true,
            None => {}
        }
        self.note_stage(evidence);
    }

    fn note_stage(&mut self, evidence: Option<Profile>) {
        if let Some(e) = evidence {
            self.evidence = Some(self.evidence.map_or(e, |old| old.max(e)));
        }
    }

    /// Where the request at event `index` sits in `requests`.
    fn position(&self, index: usize) -> Option<usize> {
        self.requests.binary_search_by_key(&index, |r| r.index).ok()
    }

    /// The request at event `index`.
    fn slot(&self, index: usize) -> Option<&RequestSlot> {
        self.position(index).map(|at| &self.requests[at])
    }

    /// The waiting request at event `index`.
    fn request_mut(&mut self, index: usize) -> Option<&mut OpenRequest> {
        let at = self.position(index)?;
        match &mut self.requests[at].state {
            SlotState::Waiting(open) => Some(open),
            SlotState::AnsweredUnplaced(_) | SlotState::Answered => None,
        }
    }

    /// The waiting request at event `index`, now answered: its slot keeps
    /// only what a deferred finding needs, and the answered slots at the
    /// front of the turn's requests are dropped.
    fn take_request(&mut self, index: usize) -> Option<Box<OpenRequest>> {
        let at = self.position(index)?;
        let slot = &mut self.requests[at];
        let open = match std::mem::replace(&mut slot.state, SlotState::Answered) {
            SlotState::Waiting(open) => open,
            other @ (SlotState::AnsweredUnplaced(_) | SlotState::Answered) => {
                slot.state = other;
                return None;
            }
        };
        if open.unplaced {
            slot.state = SlotState::AnsweredUnplaced(open.id.clone());
        }
        while self
            .requests
            .front()
            .is_some_and(|r| matches!(r.state, SlotState::Answered))
        {
            self.requests.pop_front();
        }
        Some(open)
    }

    /// Files the request at `index` under each of its candidate calls.
    /// A full list is first pruned of the requests no longer waiting, and
    /// grows only if it stays more than half full, so pruning costs
    /// amortized O(1) per request.
    fn file_under_calls(&mut self, index: usize, candidates: &[usize]) {
        let TurnState {
            call_requests,
            requests,
            ..
        } = self;
        for c in candidates {
            let list = call_requests.entry(*c).or_default();
            if list.len() == list.capacity() && !list.is_empty() {
                list.retain(|&r| {
                    requests
                        .binary_search_by_key(&r, |s| s.index)
                        .is_ok_and(|at| requests[at].waiting().is_some())
                });
                if list.len() * 2 > list.capacity() {
                    list.reserve(list.capacity());
                }
            }
            list.push(index);
        }
    }

    /// Bytes the turn's per-request state holds on the heap (rule
    /// `PERF-TURN-MEMORY`): the request slots with their boxed waiting
    /// requests and kept IDs, the call lists and their table, the attempts,
    /// the tool-call IDs and names, and the pending findings.
    fn heap_bytes(&self) -> usize {
        let slots: usize = self
            .requests
            .iter()
            .map(|s| match &s.state {
                SlotState::Waiting(o) => {
                    size_of::<OpenRequest>()
                        + o.id.as_str().len()
                        + o.candidates.capacity() * size_of::<usize>()
                }
                SlotState::AnsweredUnplaced(id) => id.as_str().len(),
                SlotState::Answered => 0,
            })
            .sum();
        self.requests.capacity() * size_of::<RequestSlot>()
            + slots
            + self.call_requests.allocation_size()
            + self
                .call_requests
                .values()
                .map(|l| l.capacity() * size_of::<usize>())
                .sum::<usize>()
            + self.attempts.heap_bytes()
            + self.texts.heap_bytes()
            + self.pending.capacity() * size_of::<Pending>()
            + self
                .pending
                .iter()
                .map(|p| match &p.finding {
                    Deferred::Ready(f) => finding_heap_bytes(f),
                    Deferred::IdFormat(later) => {
                        size_of::<IdFormatLater>()
                            + later.id.as_str().len()
                            + later.calls.len() * size_of::<usize>()
                    }
                    Deferred::Unplaced | Deferred::Unanswered => 0,
                })
                .sum::<usize>()
    }

    /// Empties the turn for the next one. Tables and lists of at most
    /// [`RESET_KEEPS`] entries are cleared, keeping their memory, so a
    /// stream of ordinary turns does not regrow them every turn; bigger ones
    /// are dropped, so a huge turn's memory is not kept for the rest of the
    /// stream (rule `PERF-TURN-MEMORY`).
    fn reset(&mut self) {
        let TurnState {
            evidence,
            recorded_082,
            flat,
            ids,
            texts,
            calls,
            calls_by_id,
            call_requests,
            requests,
            attempts,
            orphan_responses,
            failed_calls,
            select_options,
            sole_waiting,
            fresh_calls,
            ask_user_calls,
            tool_answered,
            tool_orphans,
            pending,
        } = self;
        *evidence = None;
        *recorded_082 = false;
        *flat = false;
        *ids = IdForms::default();
        texts.clear(RESET_KEEPS);
        calls.clear();
        reuse_map(calls_by_id);
        reuse_map(call_requests);
        if requests.capacity() > RESET_KEEPS {
            *requests = VecDeque::new();
        } else {
            requests.clear();
        }
        *attempts = Default::default();
        reuse_map(orphan_responses);
        reuse_map(failed_calls);
        reuse_map(select_options);
        reuse_map(sole_waiting);
        reuse_vec(fresh_calls);
        reuse_map(ask_user_calls);
        reuse_map(tool_answered);
        reuse_vec(tool_orphans);
        reuse_vec(pending);
    }

    fn find(&mut self, index: usize, gate: Gate, finding: Option<Finding>) {
        if let Some(finding) = finding {
            self.defer(index, gate, Deferred::Ready(Box::new(finding)));
        }
    }

    fn defer(&mut self, index: usize, gate: Gate, finding: Deferred) {
        self.pending.push(Pending {
            index,
            gate,
            finding,
        });
    }
}

/// Bytes a boxed pending finding holds: the box, its message and its IDs.
fn finding_heap_bytes(f: &Finding) -> usize {
    size_of::<Finding>()
        + f.message.capacity()
        + f.ids.capacity() * size_of::<String>()
        + f.ids.iter().map(String::capacity).sum::<usize>()
}

/// The capacity of a per-turn table or list [`TurnState::reset`] keeps for
/// the next turn.
const RESET_KEEPS: usize = 1024;

/// Clears `map` for the next turn, or drops it when it grew big.
fn reuse_map<K, V>(map: &mut HashMap<K, V>) {
    if map.capacity() > RESET_KEEPS {
        *map = HashMap::default();
    } else {
        map.clear();
    }
}

/// Clears `list` for the next turn, or drops it when it grew big.
fn reuse_vec<T>(list: &mut Vec<T>) {
    if list.capacity() > RESET_KEEPS {
        *list = Vec::new();
    } else {
        list.clear();
    }
}

/// The streaming checker of one stream. Feed events in order, then call
/// [`Checker::finish`]; every call returns the diagnostics it flushed.
#[derive(Debug)]
pub struct Checker {
    /// The stream's name: borrowed where it is fixed (the model's traces),
    /// so a diagnostic names it without a copy.
    origin: std::borrow::Cow<'static, str>,
    mode: ProfileMode,
    pairer: Pairer,
    next_index: usize,
    turn_index: usize,
    turn: TurnState,
    previous: Profile,
    carried: VecDeque<Carried>,
    /// Tool calls left unanswered in earlier turns (ID, turn, index), at
    /// most `CARRY_LIMIT`, for CHECK-TOOL-PAIRED's "another turn".
    carried_calls: VecDeque<(String, usize, usize)>,
    turns_by_profile: TurnsByProfile,
    diagnostics: usize,
    errors: usize,
    warnings: usize,
    finished: bool,
    /// The decision tables the writer follows: [`Tables::RFD`] unless an
    /// amendment's ([`Checker::with_tables`]).
    tables: Tables,
}

impl Checker {
    /// A checker for the stream named `origin`, judged under `mode`.
    pub fn new(origin: impl Into<String>, mode: ProfileMode) -> Self {
        Checker {
            origin: std::borrow::Cow::Owned(origin.into()),
            mode,
            pairer: Pairer::new(),
            next_index: 0,
            turn_index: 0,
            turn: TurnState::default(),
            previous: Profile::Legacy,
            carried: VecDeque::new(),
            carried_calls: VecDeque::new(),
            turns_by_profile: TurnsByProfile::default(),
            diagnostics: 0,
            errors: 0,
            warnings: 0,
            finished: false,
            tables: Tables::RFD,
        }
    }

    /// [`Checker::new`] for a stream whose name is fixed text.
    pub(crate) fn named(origin: &'static str, mode: ProfileMode) -> Self {
        Checker {
            origin: std::borrow::Cow::Borrowed(origin),
            ..Checker::new(String::new(), mode)
        }
    }

    /// The checker judging a writer that follows `tables` (an amendment's
    /// rows over its base profile's switches): the reasons those rows
    /// record are legal where they record them (CHECK-REASON-BACKEND-ERROR,
    /// CHECK-REASON-HUMAN-ONLY; decision "Oracle checks: an amendment's rows widen the
    /// reason rules").
    pub(crate) fn with_tables(mut self, tables: Tables) -> Self {
        self.tables = tables;
        self
    }

    /// Bytes the checker holds on the heap for the current turn's requests
    /// and IDs: the pairer's distinct IDs, waiting queues and log, and the
    /// turn's request slots, call lists, attempts and pending findings.
    /// Counts buffer capacities, not the allocator's overhead. For rule
    /// `PERF-TURN-MEMORY`'s test; not a stable interface.
    #[doc(hidden)]
    pub fn turn_heap_bytes(&self) -> usize {
        self.pairer.heap_bytes() + self.turn.heap_bytes()
    }

    /// How many of the current turn's requests the checker still keeps a
    /// slot for (waiting ones, answered ones with a deferred finding, and
    /// answered ones behind an older waiting request). For rule
    /// `PERF-TURN-MEMORY`'s test; not a stable interface.
    #[doc(hidden)]
    pub fn turn_request_slots(&self) -> usize {
        self.turn.requests.len()
    }

    /// Feeds the next event as read from disk: its shape is taken from the
    /// raw fields, then it is typed. A typing error is returned as the
    /// reader's message and leaves the checker as it was.
    pub fn push_raw(&mut self, raw: RawEvent) -> Result<Vec<Diagnostic>, String> {
        let shape = Shape::of_raw(&raw);
        let event = raw.into_event()?;
        Ok(self.push_shaped(&event, &shape))
    }

    /// Feeds the next event as read by
    /// [`check_reader`](super::check_reader): its fields borrowed from the
    /// input, typed without copying the opaque values the checker never
    /// reads. The same judgment as [`Checker::push_raw`].
    /// Diagnostics go to `sink` one at a time, so even a turn of a million
    /// findings is never held as diagnostics.
    pub(super) fn push_fields(
        &mut self,
        fields: &mut FieldsRef<'_>,
        plain_strings: u64,
        sink: &mut dyn FnMut(Diagnostic),
    ) -> Result<(), String> {
        // Every kind but the inquiry kinds is judged from what `Plain`
        // reads, straight from the texts (rule `PERF-CHECK-PLAIN`), the
        // strings the reader found without an escape taken as they are
        // (rule `PERF-READ-PLAIN-STRINGS`).
        if let Some(plain) = Plain::of_fields(fields, plain_strings) {
            self.push_plain(plain, sink);
            return Ok(());
        }
        let field = |name: &str| {
            fields
                .iter()
                .find(|(k, _)| k.as_ref() == name)
                .map(|(_, v)| *v)
        };
        let shape =
            Shape::of_texts_but_question(field, &mut fields.iter().map(|(k, _)| k.as_ref()));
        // The borrowed typing keeps no opaque value; the one the checker
        // reads (an `ask_user` call's result, CHECK-ASK-USER-RECORD) is
        // taken as text here.
        let content = field("content");
        let question = field("question");
        // The question's RFD 083 facts from the members the typing splits,
        // else from its text (rule `PERF-CHECK-SPLIT-ONCE`).
        let mut seen = None;
        let event = type_fields_seen(fields, &mut |members| {
            seen = Some(Present083::of_members(members));
        })?;
        let shape = match &event.kind {
            EventKind::InquiryRequest(_) => {
                let q = seen.or_else(|| question.and_then(Present083::of_text));
                shape.with_question(q.as_ref())
            }
            EventKind::TurnStart
            | EventKind::ChatRequest
            | EventKind::ChatResponse
            | EventKind::ToolCallRequest(_)
            | EventKind::ToolCallResponse(_)
            | EventKind::InquiryResponse(_)
            | EventKind::Other(_) => shape,
        };
        self.push_into(&event, &shape, content, sink);
        Ok(())
    }

    /// Takes the place of an event that could not be read or typed (rule
    /// `CHECK-EVENT-WELL-FORMED`): it gets the next event index, and its
    /// finding is held with the current turn's findings; the event itself
    /// is judged absent (a response lost this way leaves its request
    /// unpaired). `message` says what was wrong.
    pub(super) fn push_malformed(&mut self, message: String) {
        let index = self.next_index;
        self.next_index += 1;
        self.turn.find(
            index,
            Gate::Always,
            Some(Finding::new(Rule::CheckEventWellFormed, vec![], message)),
        );
    }

    /// Feeds the next event as this crate's writer would write it (for
    /// judging the model's traces).
    pub fn push_event(&mut self, event: &Event) -> Vec<Diagnostic> {
        self.push_shaped(event, &Shape::of_event(event))
    }

    /// Feeds the next event with its on-disk shape.
    pub(crate) fn push_shaped(&mut self, event: &Event, shape: &Shape) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        self.push_shaped_into(event, shape, &mut |d| out.push(d));
        out
    }

    /// [`Checker::push_shaped`], handing each diagnostic to `sink`.
    pub(crate) fn push_shaped_into(
        &mut self,
        event: &Event,
        shape: &Shape,
        sink: &mut dyn FnMut(Diagnostic),
    ) {
        let content = match &event.kind {
            EventKind::ToolCallResponse(r) => r.content.as_ref().map(crate::wire::Opaque::get),
            EventKind::TurnStart
            | EventKind::ChatRequest
            | EventKind::ChatResponse
            | EventKind::ToolCallRequest(_)
            | EventKind::InquiryRequest(_)
            | EventKind::InquiryResponse(_)
            | EventKind::Other(_) => None,
        };
        self.push_into(event, shape, content, sink);
    }

    /// [`Checker::push_shaped`], handing each diagnostic to `sink`.
    /// `content` is the JSON text of a `tool_call_response`'s `content`.
    fn push_into(
        &mut self,
        event: &Event,
        shape: &Shape,
        content: Option<&str>,
        sink: &mut dyn FnMut(Diagnostic),
    ) {
        if let Some(plain) = Plain::of_event(event, content) {
            self.push_plain(plain, sink);
            return;
        }
        let index = self.next_index;
        self.next_index += 1;
        let step = self.pairer.push(index, event);
        match &step {
            PairStep::TurnEnded {
                orphan_requests, ..
            } => {
                self.close_turn(orphan_requests, true, sink);
                self.turn_index = self.pairer.turn();
            }
            PairStep::None
            | PairStep::Opened { .. }
            | PairStep::Paired(_)
            | PairStep::OrphanResponse { .. } => {}
        }
        self.turn.note(shape.evidence(event));
        let profile = self.mode.event_profile();
        match &event.kind {
            EventKind::InquiryRequest(req) => {
                let facts = QuestionFacts::of(&req.question);
                let options: Option<Box<[serde_json::Value]>> = match &req.question.answer_type {
                    crate::wire::InquiryAnswerType::Select { options } => {
                        Some(options.iter().map(|o| o.value.clone()).collect())
                    }
                    crate::wire::InquiryAnswerType::Boolean
                    | crate::wire::InquiryAnswerType::Text
                    | crate::wire::InquiryAnswerType::Secret => None,
                };
                for f in rules::request_shape(self.mode, &req.id, facts, shape) {
                    self.turn.find(index, Gate::Always, Some(f));
                }
                let leak = rules::secret_leak_request(self.mode, &req.id, facts, shape);
                self.turn.find(index, Gate::Always, leak);
                let defaults = rules::writer_question_defaults(self.mode, &req.id, shape);
                self.turn.find(index, Gate::Always, defaults);
                let texts = &self.turn.texts;
                let open: Vec<OpenCallRef<'_>> = self
                    .turn
                    .calls
                    .iter()
                    .map(|(i, c)| OpenCallRef {
                        index: i,
                        id: texts.key(c.id),
                        id_key: c.id,
                        name: texts.key(c.name),
                    })
                    .collect();
                // `rules::placement` would write the same finding now; it is
                // written at the flush instead (see `Deferred`).
                let unplaced = open.is_empty();
                let (candidates, placed) = if unplaced {
                    self.turn.defer(index, Gate::Always, Deferred::Unplaced);
                    (Vec::new(), None)
                } else {
                    rules::placement(&req.id, &req.source, &open)
                };
                // Placement by ID: where the ID is a conforming
                // three-segment ID of some of the candidate calls, only those
                // could hold it (an RFD 082 writer builds it from its call).
                let holders = candidates
                    .iter()
                    .filter(|c| rules::id_holds(&req.id, c.id))
                    .count();
                let candidates: Vec<OpenCallRef<'_>> = if holders > 0 && holders < candidates.len()
                {
                    candidates
                        .into_iter()
                        .filter(|c| rules::id_holds(&req.id, c.id))
                        .collect()
                } else {
                    candidates
                };
                let candidate_ids: Vec<&str> = candidates.iter().map(|c| c.id).collect();
                // Every writer builds the ID from its call's (decision
                // "Oracle checks: every writer's ID starts with its call's").
                let foreign_id = (!candidate_ids.is_empty()
                    && !candidate_ids
                        .iter()
                        .any(|c| rules::id_names_call(&req.id, c)))
                .then(|| rules::id_names_no_call(&req.id, &candidate_ids));
                let names: Vec<&str> = candidates.iter().map(|c| c.name).collect();
                let forged = rules::provenance(self.mode, &req.id, &req.source, &names);
                let assistant = matches!(req.source, crate::wire::InquirySource::Assistant);
                let shape = match (forged.is_some(), assistant, self.mode) {
                    (false, true, ProfileMode::Auto | ProfileMode::Fixed(Profile::Rfd083)) => {
                        rules::ask_user_shape(&req.id, &req.question)
                    }
                    (_, _, _) => None,
                };
                let (id_check, style) = if candidates.is_empty() {
                    (None, None)
                } else {
                    let style = rules::id_style(&req.id, &candidate_ids);
                    self.turn.ids.note(index, &req.id, style);
                    // `id_format` words a finding exactly when no candidate
                    // reads the ID as three-segment (`id_style`): that
                    // finding is worded at the flush, if kept (rule
                    // `PERF-CHECK-ID-LATER`).
                    let parts = match style {
                        rules::IdStyle::ThreeSegment => rules::id_parts(&req.id, &candidate_ids),
                        rules::IdStyle::TwoSegment | rules::IdStyle::Other => None,
                    };
                    let check = parts.ok_or_else(|| {
                        Deferred::IdFormat(Box::new(IdFormatLater {
                            id: req.id.clone(),
                            calls: candidates.iter().map(|c| c.id_key).collect(),
                        }))
                    });
                    (Some(check), Some(style))
                };
                let one_call = match candidates.as_slice() {
                    [only] => Some((only.index, only.id.to_owned())),
                    _ => None,
                };
                // The `ask_user` built-in's question: from the assistant, in
                // an `ask_user` call that is its only candidate.
                let ask_user = match (&one_call, assistant) {
                    (Some((call, call_id)), true) => {
                        let parts = rules::id_parts(&req.id, &[call_id.as_str()]);
                        self.turn.ask_user_calls.get_mut(call).map(|rec| {
                            let answered =
                                matches!(rec.outcome, Some(rules::AskUserOutcome::Answered(..)));
                            rec.asked = true;
                            (
                                *call,
                                rules::ask_user_question(&req.id, parts.as_ref(), answered),
                            )
                        })
                    }
                    (Some(_) | None, _) => None,
                };
                let ask_user_call = ask_user.as_ref().map(|(call, _)| *call);
                let ask_user_record = ask_user.and_then(|(_, f)| f);
                let candidates: Vec<usize> = candidates.iter().map(|c| c.index).collect();
                self.turn.find(index, Gate::Always, placed);
                self.turn.find(index, Gate::Always, forged);
                let unrecorded = rules::provenance_083(self.mode, &req.id, &req.source);
                self.turn.find(index, Gate::Rfd083, unrecorded);
                self.turn.find(index, Gate::Always, shape);
                self.turn.find(index, Gate::Rfd083, ask_user_record);
                self.turn.find(index, Gate::Not082, foreign_id);
                if let Some((call, call_id)) = one_call {
                    // A legacy writer leaves a failed backend request open
                    // (its known gap), so only RFD 082 turns are judged.
                    let twice = self.one_question(&req.id, call, &call_id);
                    self.turn.find(index, Gate::AttemptIds, twice);
                    self.turn.sole_waiting.insert(call, index);
                }
                if !self.turn.orphan_responses.is_empty()
                    && let Some(e) = self.turn.orphan_responses.get_mut(&req.id)
                {
                    e.before_request = e.at.len();
                }
                let repeat_of = match step {
                    PairStep::Opened { repeat_of } => repeat_of,
                    PairStep::None
                    | PairStep::TurnEnded { .. }
                    | PairStep::Paired(_)
                    | PairStep::OrphanResponse { .. } => None,
                };
                self.judge_id(index, &req.id, repeat_of, id_check, style);
                self.turn.file_under_calls(index, &candidates);
                if let Some(options) = options {
                    self.turn.select_options.insert(index, options);
                }
                self.turn.requests.push_back(RequestSlot {
                    index,
                    state: SlotState::Waiting(Box::new(OpenRequest {
                        id: req.id.clone(),
                        unplaced,
                        facts,
                        candidates,
                        closed_by: None,
                        two_segment: style == Some(rules::IdStyle::TwoSegment),
                        ask_user: ask_user_call,
                    })),
                });
            }
            EventKind::InquiryResponse(resp) => {
                self.turn.find(
                    index,
                    Gate::Always,
                    rules::response_shape(self.mode, resp, shape),
                );
                self.turn
                    .find(index, Gate::Always, rules::stray_answer(resp, shape));
                self.turn.find(
                    index,
                    Gate::Always,
                    rules::reason_for_profile(profile, resp),
                );
                self.turn
                    .find(index, Gate::Always, rules::reason_known(self.mode, resp));
                self.turn.find(
                    index,
                    Gate::Always,
                    rules::writer_fields(self.mode, resp, shape),
                );
                match &step {
                    PairStep::Paired(pair) => {
                        if let Some(early) = self.turn.orphan_responses.get_mut(resp.id()) {
                            early.last_paired = Some(index);
                        }
                        if let Some(req) = self.turn.take_request(pair.request) {
                            let q = req.facts;
                            if let Some(rec) = req
                                .ask_user
                                .and_then(|c| self.turn.ask_user_calls.get_mut(&c))
                            {
                                rec.outcome = Some(match resp {
                                    InquiryResponse::Answered { answer, .. } => {
                                        rules::AskUserOutcome::Answered(answer.clone(), q.kind)
                                    }
                                    InquiryResponse::Cancelled { .. }
                                    | InquiryResponse::Redacted { .. } => {
                                        rules::AskUserOutcome::NoAnswer
                                    }
                                });
                            }
                            let options = match q.kind {
                                rules::AnswerKind::Select => {
                                    self.turn.select_options.remove(&pair.request)
                                }
                                rules::AnswerKind::Boolean
                                | rules::AnswerKind::Text
                                | rules::AnswerKind::Secret => None,
                            };
                            self.turn.find(
                                index,
                                Gate::Always,
                                rules::secret_leak_response(self.mode, q.secret, resp, shape),
                            );
                            self.turn.find(
                                index,
                                Gate::Rfd083,
                                rules::answer_fits(q, options.as_deref(), resp),
                            );
                            if let ([call], InquiryResponse::Cancelled { id, reason }) =
                                (req.candidates.as_slice(), resp)
                                && rules::fails_tool(reason)
                                && !self.tables.answers_quietly(reason)
                            {
                                self.turn
                                    .failed_calls
                                    .insert(*call, (id.clone(), reason.to_string()));
                            }
                            self.turn.find(
                                index,
                                Gate::Always,
                                rules::secret_not_answered(q, resp),
                            );
                            self.turn.find(
                                index,
                                Gate::Always,
                                rules::redacted_only_secret(q, resp),
                            );
                            self.turn.find(
                                index,
                                Gate::Always,
                                rules::reason_for_question(profile, &self.tables, q, resp),
                            );
                            if req.two_segment {
                                // Reported at the request, as the other
                                // CHECK-ID-FORMAT findings are.
                                self.turn.find(
                                    pair.request,
                                    Gate::MixedTwoSegment,
                                    rules::legacy_id_closed_by_082(resp),
                                );
                            }
                            let closed = req
                                .closed_by
                                .map(|(call, at)| rules::placement_closed(resp.id(), &call, at));
                            self.turn.find(index, Gate::Always, closed);
                        }
                    }
                    PairStep::OrphanResponse { .. } => {
                        let pairer = &self.pairer;
                        self.turn
                            .orphan_responses
                            .entry(resp.id().clone())
                            .or_insert_with(|| EarlyResponses {
                                at: VecDeque::new(),
                                last_paired: pairer.last_paired(resp.id()),
                                before_request: 0,
                            })
                            .at
                            .push_back(index);
                    }
                    PairStep::None | PairStep::Opened { .. } | PairStep::TurnEnded { .. } => {}
                }
            }
            // Judged by `push_plain` above.
            EventKind::ToolCallRequest(_)
            | EventKind::ToolCallResponse(_)
            | EventKind::ChatRequest
            | EventKind::ChatResponse
            | EventKind::TurnStart
            | EventKind::Other(_) => {}
        }
    }

    /// Feeds the next event of a kind judged without its on-disk shape
    /// (every kind but the inquiry kinds; see [`Plain`]).
    fn push_plain(&mut self, event: Plain<'_>, sink: &mut dyn FnMut(Diagnostic)) {
        let index = self.next_index;
        self.next_index += 1;
        match self.pairer.push_neither(event.is_marker()) {
            PairStep::TurnEnded {
                orphan_requests, ..
            } => {
                self.close_turn(&orphan_requests, true, sink);
                self.turn_index = self.pairer.turn();
            }
            PairStep::None
            | PairStep::Opened { .. }
            | PairStep::Paired(_)
            | PairStep::OrphanResponse { .. } => {}
        }
        // Such an event shows no writer's stage (`Shape::evidence`).
        match event {
            Plain::ToolCallRequest { id, name } => {
                let (id, _) = self.turn.texts.find_or_add(&id);
                let (name_key, _) = self.turn.texts.find_or_add(&name);
                self.turn
                    .calls
                    .insert(index, OpenCall { id, name: name_key });
                self.turn.fresh_calls.push(index);
                if name == predicates::ASK_USER {
                    self.turn
                        .ask_user_calls
                        .insert(index, AskUserCall::default());
                }
                match self.turn.calls_by_id.entry(id) {
                    Entry::Occupied(mut queue) => queue.get_mut().more.push_back(index),
                    Entry::Vacant(slot) => {
                        slot.insert(CallQueue {
                            first: index,
                            more: VecDeque::new(),
                        });
                    }
                }
            }
            Plain::ToolCallResponse {
                id,
                is_error,
                content,
            } => {
                self.close_call(&id, index, is_error, content);
            }
            Plain::Chat(tag) => {
                let mut fresh = std::mem::take(&mut self.turn.fresh_calls);
                for call in fresh.drain(..) {
                    let finding = self
                        .turn
                        .calls
                        .get(call)
                        .map(|c| rules::tool_adjacent(self.turn.texts.key(c.id), call, tag));
                    self.turn.find(index, Gate::Always, finding);
                }
                self.turn.fresh_calls = fresh;
            }
            Plain::TurnStart | Plain::Other => {}
        }
    }

    /// CHECK-ONE-QUESTION for a request whose only candidate is the open
    /// call at `call`: another request of the call still waits, or a guard
    /// already failed the call.
    fn one_question(&self, id: &InquiryId, call: usize, call_id: &str) -> Option<Finding> {
        let waiting = self
            .turn
            .sole_waiting
            .get(&call)
            .and_then(|&r| self.turn.slot(r))
            .and_then(RequestSlot::waiting);
        if let Some(open) = waiting {
            return Some(rules::one_question(id, call_id, Some(&open.id), ""));
        }
        // Every reason that fails the tool ends the call: the guards before
        // the tool runs again, `backend_error` by RFD 028's "On failure, mark
        // the tool as completed with an error" (RFD 082 step 6).
        self.turn
            .failed_calls
            .get(&call)
            .map(|(_, reason)| rules::one_question(id, call_id, None, reason))
    }

    /// CHECK-TURN-UNIQUE-ID, CHECK-ID-FORMAT, CHECK-ID-ATTEMPT for a request.
    /// A repeated ID is reported once, as a repeat; its format and attempt
    /// are not judged again.
    fn judge_id(
        &mut self,
        index: usize,
        id: &InquiryId,
        repeat_of: Option<usize>,
        format: Option<Result<rules::IdParts, Deferred>>,
        style: Option<rules::IdStyle>,
    ) {
        if let Some(first_request) = repeat_of {
            let finding = Finding {
                rule: Rule::CheckTurnUniqueId,
                severity: Severity::Error,
                ids: vec![id.to_string()],
                message: format!(
                    "inquiry ID `{id}` is used again in this turn (first request at event {}); \
                     RFD 082 IDs are unique within a turn",
                    first_request
                ),
            };
            self.turn.find(index, Gate::AttemptIds, Some(finding));
            return;
        }
        match format {
            None => {}
            Some(Err(f)) => {
                let gate = match style {
                    Some(rules::IdStyle::TwoSegment) => Gate::TwoSegment,
                    Some(rules::IdStyle::ThreeSegment | rules::IdStyle::Other) | None => {
                        Gate::AttemptIds
                    }
                };
                self.turn.defer(index, gate, f);
            }
            Some(Ok(parts)) => {
                // The ID is `<call>.<question>.<attempt>` (`rules::id_format`):
                // the pair is its part before the last `.`, split after the
                // call, kept as the pairer's copy of the ID.
                let (at, added) = self.turn.attempts.find_or_add(
                    self.pairer.keys(),
                    self.pairer.last_key(),
                    parts.tool_call_id.len(),
                );
                let previous = (!added).then(|| self.turn.attempts.value(self.pairer.keys(), at));
                self.turn.find(
                    index,
                    Gate::AttemptIds,
                    rules::id_attempt(id, &parts, previous),
                );
                let last = previous.map_or(parts.attempt, |p| p.max(parts.attempt));
                self.turn.attempts.set(self.pairer.keys(), at, last);
            }
        }
    }

    /// CHECK-TOOL-PAIRED at the end of a complete turn: the calls still open
    /// and the responses that closed none. A response followed by an
    /// unanswered call of its ID is one finding, at the response.
    fn judge_tool_pairs(
        &mut self,
        turn: &mut TurnState,
        turn_no: usize,
        pending: &mut Vec<Pending>,
    ) {
        let texts = &turn.texts;
        let mut open: Vec<(usize, String)> = turn
            .calls
            .iter()
            .map(|(i, c)| (i, texts.key(c.id).to_owned()))
            .collect();
        turn.calls.clear();
        let mut found = |index: usize, finding: Finding| {
            pending.push(Pending {
                index,
                gate: Gate::Always,
                finding: Deferred::Ready(Box::new(finding)),
            });
        };
        // Drained, not consumed: the buffer goes back to the turn for
        // `TurnState::reset` to keep or drop.
        let mut orphans = std::mem::take(&mut turn.tool_orphans);
        for (at, id, last) in orphans.drain(..) {
            let how = if let Some(last) = last {
                rules::ToolUnpaired::Duplicate(last)
            } else if let Some(k) = open.iter().position(|(i, c)| *i > at && *c == id) {
                rules::ToolUnpaired::BeforeRequest(open.remove(k).0)
            } else if let Some(k) = self.carried_calls.iter().position(|(c, _, _)| *c == id) {
                let (_, turn, index) = self.carried_calls.remove(k).expect("in range");
                rules::ToolUnpaired::OtherTurn { index, turn }
            } else {
                rules::ToolUnpaired::NoRequest
            };
            found(at, rules::tool_response_unpaired(&id, &how));
        }
        turn.tool_orphans = orphans;
        for (index, id) in open {
            found(index, rules::tool_call_unanswered(&id));
            if self.carried_calls.len() == CARRY_LIMIT {
                self.carried_calls.pop_front();
            }
            self.carried_calls.push_back((id, turn_no, index));
        }
    }

    /// A `tool_call_response` closes the oldest open call with its ID; a
    /// waiting request whose last candidate call closes is marked.
    fn close_call(
        &mut self,
        id: &str,
        index: usize,
        is_error: Option<bool>,
        content: Option<&str>,
    ) {
        let key = self.turn.texts.find(id);
        let Some((key, Entry::Occupied(mut queue))) =
            key.map(|k| (k, self.turn.calls_by_id.entry(k)))
        else {
            let last = key.and_then(|k| self.turn.tool_answered.get(&k).copied());
            self.turn.tool_orphans.push((index, id.to_owned(), last));
            return;
        };
        let (call, emptied) = queue.get_mut().pop();
        if emptied {
            queue.remove();
        }
        self.turn.tool_answered.insert(key, index);
        self.turn.calls.remove(call);
        self.turn.sole_waiting.remove(&call);
        if let Some(rec) = self.turn.ask_user_calls.remove(&call) {
            match is_error {
                Some(false) => {
                    let outcome = match (rec.asked, rec.outcome) {
                        (false, _) => None,
                        (true, Some(o)) => Some(o),
                        (true, None) => Some(rules::AskUserOutcome::NoAnswer),
                    };
                    let body = content.and_then(rules::ask_user_body);
                    let f = rules::ask_user_result(id, outcome.as_ref(), body.as_ref());
                    self.turn.find(index, Gate::Rfd083, f);
                }
                Some(true) => {
                    let body = content.and_then(rules::ask_user_body);
                    let f = rules::ask_user_error_body(id, body.as_ref());
                    self.turn.find(index, Gate::Rfd083, f);
                }
                None => {}
            }
        }
        if let Some((inquiry, reason)) = self.turn.failed_calls.remove(&call)
            && is_error == Some(false)
        {
            let f = rules::reason_fails_tool(id, &inquiry, &reason);
            self.turn.find(index, Gate::Always, Some(f));
        }
        for r in self.turn.call_requests.remove(&call).unwrap_or_default() {
            if let Some(req) = self.turn.request_mut(r) {
                req.candidates.retain(|c| *c != call);
                if req.candidates.is_empty() && req.closed_by.is_none() {
                    req.closed_by = Some((id.to_owned(), index));
                }
            }
        }
    }

    /// Ends the current turn: judges what stayed unpaired (when the turn is
    /// `complete`), resolves the turn's profile, and hands its findings to
    /// `sink` in event order.
    fn close_turn(
        &mut self,
        orphan_requests: &[usize],
        complete: bool,
        sink: &mut dyn FnMut(Diagnostic),
    ) {
        let mut turn = std::mem::take(&mut self.turn);
        let turn_no = self.turn_index;
        let mut pending = std::mem::take(&mut turn.pending);
        turn.note_stage(turn.ids.evidence());
        let level = match (self.mode, turn.evidence) {
            (ProfileMode::Fixed(p), _) => p,
            (ProfileMode::Auto, None) => self.previous,
            (ProfileMode::Auto, Some(Profile::Legacy)) => Profile::Legacy,
            (ProfileMode::Auto, Some(p @ (Profile::Rfd082 | Profile::Rfd083))) => {
                p.max(self.previous)
            }
        };
        self.previous = level;
        self.turns_by_profile.add(level);
        // Whether an RFD 082 writer recorded the turn's requests, so its ID
        // rules apply (decision "Oracle checks: a turn's writer is read from
        // its request IDs"). Under an explicit RFD 082/083 profile a turn of
        // two-segment IDs that shows nothing only an RFD 082 writer records,
        // and no flat response, is a legacy turn that writer re-saved.
        let two = turn.ids.last_two.is_some();
        let three = turn.ids.first_three.is_some();
        let ids_082 = match self.mode {
            ProfileMode::Fixed(Profile::Legacy) => false,
            ProfileMode::Fixed(Profile::Rfd082 | Profile::Rfd083) => {
                !(two && !three && !turn.recorded_082 && !turn.flat)
            }
            ProfileMode::Auto => level.writes_attempt_ids(),
        };
        let mixed = two && three;
        if let Some((at, id)) = turn.ids.switch.take().filter(|_| mixed) {
            let upgrade = turn.ids.last_two < turn.ids.first_three;
            pending.push(Pending {
                index: at,
                gate: Gate::Always,
                finding: Deferred::Ready(Box::new(rules::turn_one_writer(&id, upgrade, self.mode))),
            });
        }
        // The turn's requests were recorded by a legacy writer: by its own
        // shapes and IDs, or by the user's word.
        let legacy_shown = match self.mode {
            ProfileMode::Fixed(Profile::Legacy) => true,
            ProfileMode::Fixed(Profile::Rfd082 | Profile::Rfd083) => !ids_082,
            ProfileMode::Auto => turn.evidence == Some(Profile::Legacy),
        };
        if complete {
            let mut early = std::mem::take(&mut turn.orphan_responses);
            // Event indices of the requests left unanswered, in stream order.
            let mut unanswered = Vec::new();
            // Both lists are in stream order: one merge walk.
            let mut requests = turn.requests.iter();
            for &r in orphan_requests {
                let Some(id) = requests
                    .find(|s| s.index >= r)
                    .filter(|s| s.index == r)
                    .and_then(RequestSlot::id)
                else {
                    continue;
                };
                let before = early
                    .get_mut(id)
                    .and_then(|e| {
                        e.at.front().is_some_and(|&i| i < r).then(|| {
                            e.before_request = e.before_request.saturating_sub(1);
                            e.at.pop_front()
                        })
                    })
                    .flatten();
                match before {
                    Some(resp) => {
                        let finding = Finding {
                            rule: Rule::CheckResponseAfterRequest,
                            severity: Severity::Error,
                            ids: vec![id.to_string()],
                            message: format!(
                                "inquiry response `{id}` comes before its request (event {r}); \
                                 a response follows its request"
                            ),
                        };
                        pending.push(Pending {
                            index: resp,
                            gate: Gate::Always,
                            finding: Deferred::Ready(Box::new(finding)),
                        });
                    }
                    None => {
                        unanswered.push(r);
                        pending.push(Pending {
                            index: r,
                            gate: Gate::Always,
                            finding: Deferred::Unanswered,
                        });
                    }
                }
            }
            let mut rest: Vec<(usize, Option<usize>, InquiryId, bool)> = early
                .into_iter()
                .flat_map(|(id, e)| {
                    let answered = e.last_paired;
                    let before = e.before_request;
                    e.at.into_iter()
                        .enumerate()
                        .map(move |(k, i)| (i, answered, id.clone(), k < before))
                })
                .collect();
            rest.sort_unstable_by_key(|(i, _, _, _)| *i);
            for (i, answered, id, before) in rest {
                let carried = self.carried.iter().position(|c| c.id == id);
                let (rule, message) = match (answered, carried) {
                    // A request of the ID came later in the turn: this
                    // response came before it.
                    _ if before => (
                        Rule::CheckResponseAfterRequest,
                        format!(
                            "inquiry response `{id}` comes before its request; a response \
                             follows its request"
                        ),
                    ),
                    (Some(at), _) => (
                        Rule::CheckPaired,
                        format!(
                            "inquiry response `{id}` answers no waiting request: its request \
                             was answered at event {at}"
                        ),
                    ),
                    (None, Some(pos)) => {
                        let c = self.carried.remove(pos).expect("position is in range");
                        (
                            Rule::CheckTurnScoped,
                            format!(
                                "inquiry response `{id}` answers the request at event {} of \
                                 turn {}; a pair never crosses a turn boundary",
                                c.index, c.turn
                            ),
                        )
                    }
                    (None, None) => (
                        Rule::CheckPaired,
                        format!("inquiry response `{id}` answers no request in its turn"),
                    ),
                };
                let finding = Finding {
                    rule,
                    severity: Severity::Error,
                    ids: vec![id.to_string()],
                    message,
                };
                pending.push(Pending {
                    index: i,
                    gate: Gate::Always,
                    finding: Deferred::Ready(Box::new(finding)),
                });
            }
            self.judge_tool_pairs(&mut turn, turn_no, &mut pending);
            // Only the newest `CARRY_LIMIT` can stay carried.
            let keep = unanswered.len().saturating_sub(CARRY_LIMIT);
            for &r in &unanswered[keep..] {
                let Some(id) = turn.slot(r).and_then(RequestSlot::id) else {
                    continue;
                };
                if self.carried.len() == CARRY_LIMIT {
                    self.carried.pop_front();
                }
                self.carried.push_back(Carried {
                    id: id.clone(),
                    turn: turn_no,
                    index: r,
                });
            }
        }
        let mode = self.mode;
        pending.retain_mut(|p| match p.gate {
            Gate::Always => true,
            Gate::AttemptIds => ids_082,
            Gate::Not082 => !ids_082,
            Gate::TwoSegment => ids_082 && !mixed,
            Gate::MixedTwoSegment => ids_082 && mixed,
            Gate::Rfd083 => match (mode, level) {
                (ProfileMode::Fixed(Profile::Rfd083), _) | (ProfileMode::Auto, Profile::Rfd083) => {
                    true
                }
                (ProfileMode::Auto, Profile::Legacy | Profile::Rfd082) => {
                    if let Deferred::Ready(f) = &mut p.finding {
                        f.severity = Severity::Warning;
                    }
                    true
                }
                (ProfileMode::Fixed(Profile::Legacy | Profile::Rfd082), _) => false,
            },
        });
        // Stable: findings of one event keep the order they were found in.
        pending.sort_by_key(|p| p.index);
        // `pending` and `requests` are both in event order: a deferred
        // finding finds its request by one forward walk, not a search each.
        let mut requests = turn.requests.iter().peekable();
        for p in pending.drain(..) {
            let slot = match p.finding {
                Deferred::Ready(_) | Deferred::IdFormat(_) => None,
                Deferred::Unplaced | Deferred::Unanswered => {
                    while requests.next_if(|r| r.index < p.index).is_some() {}
                    requests
                        .peek()
                        .filter(|r| r.index == p.index)
                        .and_then(|r| r.id())
                }
            };
            let finding = match (p.finding, slot) {
                (Deferred::Ready(f), _) => *f,
                (Deferred::IdFormat(later), _) => {
                    let calls: Vec<&str> = later.calls.iter().map(|&k| turn.texts.key(k)).collect();
                    match rules::id_format(&later.id, &calls) {
                        Err(f) => f,
                        // Deferred only where it words one (`id_style`).
                        Ok(_) => continue,
                    }
                }
                (Deferred::Unplaced, Some(id)) => rules::unplaced(id),
                // A legacy writer's known gap (RFD 082 "Motivation"): a
                // warning in a turn a legacy writer recorded.
                (Deferred::Unanswered, Some(id)) => Finding {
                    rule: Rule::CheckPaired,
                    severity: if legacy_shown {
                        Severity::Warning
                    } else {
                        Severity::Error
                    },
                    ids: vec![id.to_string()],
                    message: unanswered_message(id, legacy_shown),
                },
                // Deferred findings are only made for the turn's requests.
                (Deferred::Unplaced | Deferred::Unanswered, None) => continue,
            };
            self.diagnostics += 1;
            match finding.severity {
                Severity::Error => self.errors += 1,
                Severity::Warning => self.warnings += 1,
            }
            sink(Diagnostic {
                rule: finding.rule,
                severity: finding.severity,
                origin: self.origin.clone(),
                turn: turn_no,
                event_index: p.index,
                ids: finding.ids,
                message: one_line(finding.message).into(),
                position: None,
            });
        }
        // The emptied buffer goes back for `TurnState::reset` to keep or
        // drop, so ordinary turns do not regrow it.
        turn.pending = pending;
        turn.reset();
        self.turn = turn;
    }

    /// Ends the stream: judges the last turn. Further calls return nothing.
    pub fn finish(&mut self) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        self.finish_into(&mut |d| out.push(d));
        out
    }

    /// [`Checker::finish`], handing each diagnostic to `sink`.
    pub(super) fn finish_into(&mut self, sink: &mut dyn FnMut(Diagnostic)) {
        if self.finished || self.next_index == 0 {
            self.finished = true;
            return;
        }
        self.finished = true;
        let orphans = self.pairer.finish();
        self.close_turn(&orphans, true, sink);
    }

    /// Ends a stream cut short by a read error: flushes what the last turn
    /// already showed, without judging its unpaired requests and responses
    /// (the rest of the turn was never read).
    pub fn abandon(&mut self) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        self.abandon_into(&mut |d| out.push(d));
        out
    }

    /// [`Checker::abandon`], handing each diagnostic to `sink`.
    pub(super) fn abandon_into(&mut self, sink: &mut dyn FnMut(Diagnostic)) {
        if self.finished || self.next_index == 0 {
            self.finished = true;
            return;
        }
        self.finished = true;
        self.close_turn(&[], false, sink);
    }

    /// Events fed so far.
    pub(crate) fn events(&self) -> usize {
        self.next_index
    }

    /// What the checker learned so far (complete after `finish`).
    pub(crate) fn summary(&self) -> FileSummary {
        let t = self.turns_by_profile;
        let profile = match self.mode {
            ProfileMode::Fixed(p) => p,
            ProfileMode::Auto => Profile::ALL
                .into_iter()
                .rev()
                .find(|p| t.get(*p) > 0)
                .unwrap_or(Profile::Legacy),
        };
        FileSummary {
            origin: self.origin.to_string(),
            requested_profile: self.mode,
            profile,
            mixed: t.legacy > 0 && t.rfd082 + t.rfd083 > 0,
            events: self.next_index,
            turns: if self.next_index == 0 {
                0
            } else {
                self.turn_index + 1
            },
            turns_by_profile: t,
            diagnostics: self.diagnostics,
            errors: self.errors,
            warnings: self.warnings,
        }
    }
}

/// CHECK-PAIRED for a request. A pre-082 writer leaves the request of a
/// failed inquiry-backend call unanswered (RFD 082 "Motivation"); the stream
/// is still unpaired, but in a turn that shows a legacy writer the message
/// says it is the known legacy gap.
fn unanswered_message(id: &InquiryId, legacy_shown: bool) -> String {
    if !legacy_shown {
        format!("inquiry request `{id}` has no response in its turn")
    } else {
        format!(
            "inquiry request `{id}` has no response in its turn (a pre-082 writer leaves a \
             failed inquiry-backend request unanswered; RFD 082 closes it with `cancelled`)"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::stream::{
        answered, inquiry_request, tool_call_request, tool_call_response, turn_start,
    };

    /// Starts a turn with `calls` open tool calls, each with a request
    /// waiting, then `orphans` tool-call responses no call asked for.
    fn open_calls(c: &mut Checker, calls: usize, orphans: usize) {
        let _ = c.push_event(&turn_start());
        for k in 0..calls {
            let call = format!("call_{k}");
            let _ = c.push_event(&tool_call_request(&call));
            let _ = c.push_event(&inquiry_request(InquiryId::new(&call, "q", 1)));
        }
        for k in 0..orphans {
            let _ = c.push_event(&tool_call_response(&format!("orphan_{k}")));
        }
    }

    /// Rule `PERF-TURN-MEMORY`: a call's list of the requests filed under
    /// it is pruned of the answered ones whenever it fills, and grows only
    /// while more than half of it still waits. A call here asks a first
    /// question left waiting to the end, then the same legacy question
    /// 10 000 times (RFD 082 "Inquiry ID format": legacy IDs repeat), each
    /// answered before the next: its list keeps a few slots. A list never
    /// pruned, or grown while mostly answered, holds a slot per request
    /// asked and fails. The stream is clean.
    #[test]
    fn a_calls_request_list_holds_about_its_waiting_requests() {
        let legacy = InquiryId::legacy("c1", "apply_changes");
        let mut c = Checker::new("again", ProfileMode::Fixed(Profile::Rfd082));
        let mut found = c.push_event(&turn_start());
        found.extend(c.push_event(&tool_call_request("c1")));
        let first = InquiryId::legacy("c1", "first");
        found.extend(c.push_event(&inquiry_request(first.clone())));
        let mut most = 0;
        for _ in 0..10_000 {
            found.extend(c.push_event(&inquiry_request(legacy.clone())));
            found.extend(c.push_event(&answered(legacy.clone(), serde_json::json!(true))));
            let lists = c.turn.call_requests.values().map(Vec::capacity);
            most = most.max(lists.max().unwrap_or(0));
        }
        found.extend(c.push_event(&answered(first, serde_json::json!(true))));
        found.extend(c.push_event(&tool_call_response("c1")));
        found.extend(c.finish());
        assert!(found.is_empty(), "{:?}", found.first());
        assert!(most <= 16, "a call's list grew to {most} slots");
    }

    /// Rule `PERF-TURN-MEMORY` ("a huge turn's memory is not kept for the
    /// rest of the stream", `TurnState::reset`): at the next `turn_start`
    /// a turn's tables that grew past `RESET_KEEPS` are dropped, smaller
    /// ones are cleared and kept. The big turn here leaves 2 000 calls open,
    /// each with a request waiting, and 2 000 tool-call responses no call
    /// asked for (the call map, the call lists, the request deque, the
    /// orphan list and the pending findings all grow past it); the small
    /// one, three of each. A reset that clears without dropping, drops the
    /// small and keeps the big, or a flush that does not give its emptied
    /// buffers back to the turn, fails.
    #[test]
    fn the_next_turn_drops_a_big_turns_tables_and_keeps_small_ones() {
        let sizes = |c: &Checker| {
            [
                c.turn.calls_by_id.capacity(),
                c.turn.call_requests.capacity(),
                c.turn.requests.capacity(),
                c.turn.tool_orphans.capacity(),
            ]
        };
        let mut c = Checker::new("big", ProfileMode::Auto);
        open_calls(&mut c, 2_000, 2_000);
        assert!(
            sizes(&c).iter().all(|&n| n > RESET_KEEPS),
            "{:?}",
            sizes(&c)
        );
        let _ = c.push_event(&turn_start());
        assert_eq!(sizes(&c), [0; 4], "dropped");
        // The 4 000 findings the flush made: their buffer too.
        assert_eq!(c.turn.pending.capacity(), 0);
        let mut c = Checker::new("small", ProfileMode::Auto);
        open_calls(&mut c, 3, 3);
        let small = sizes(&c);
        assert!(
            small.iter().all(|&n| (1..=RESET_KEEPS).contains(&n)),
            "{small:?}"
        );
        let _ = c.push_event(&turn_start());
        assert_eq!(sizes(&c), small, "cleared and kept");
        assert!(
            c.turn.pending.capacity() > 0,
            "the six findings' buffer, kept"
        );
        assert_eq!(c.turn.requests.len(), 0);
    }

    /// The boundary of the same rule: a list whose capacity is exactly
    /// `RESET_KEEPS` is kept ("bigger ones are dropped"). 1 024 waiting
    /// requests and 600 unasked-for tool-call responses grow the request
    /// deque and the orphan list to exactly 1 024 slots (doubling from 4).
    /// A map's capacity is 7/8 of a power of two, never 1 024, so the maps'
    /// `>` to `>=` is listed as equivalent instead (`docs/mutants.md`).
    #[test]
    fn a_table_of_exactly_reset_keeps_is_kept() {
        let mut c = Checker::new("boundary", ProfileMode::Auto);
        open_calls(&mut c, RESET_KEEPS, 600);
        let sizes = |c: &Checker| [c.turn.requests.capacity(), c.turn.tool_orphans.capacity()];
        assert_eq!(sizes(&c), [RESET_KEEPS; 2]);
        let _ = c.push_event(&turn_start());
        assert_eq!(sizes(&c), [RESET_KEEPS; 2], "kept");
    }

    /// `Checker::finish` judges the last turn once ("further calls return
    /// nothing"): a second call adds no turn to the summary, and a stream
    /// of no events has no turn to judge (`FileSummary`: zero turns of
    /// every profile).
    #[test]
    fn finish_judges_the_last_turn_once_and_an_empty_stream_none() {
        let mut empty = Checker::new("empty", ProfileMode::Auto);
        assert!(empty.finish().is_empty());
        let t = empty.summary().turns_by_profile;
        assert_eq!([t.legacy, t.rfd082, t.rfd083], [0, 0, 0]);

        let mut c = Checker::new("twice", ProfileMode::Auto);
        let _ = c.push_event(&turn_start());
        let _ = c.push_event(&tool_call_request("c1"));
        let first = c.finish();
        assert_eq!(first.len(), 1, "the open call: {first:?}");
        let once = c.summary();
        assert!(c.finish().is_empty());
        assert_eq!(c.summary(), once);
        let t = once.turns_by_profile;
        assert_eq!(t.legacy + t.rfd082 + t.rfd083, 1);
    }

    /// What dropping the fields `TurnState::heap_bytes` counts gives back
    /// to the allocator, and the figure: the allocator is the independent
    /// source (`crate::alloc_count`).
    fn counted_and_held(c: &mut Checker) -> (usize, usize) {
        let counted = c.turn.heap_bytes();
        let t = &mut c.turn;
        let before = crate::alloc_count::live();
        drop(std::mem::take(&mut t.requests));
        drop(std::mem::take(&mut t.call_requests));
        drop(std::mem::take(&mut t.attempts));
        drop(std::mem::take(&mut t.texts));
        drop(std::mem::take(&mut t.pending));
        let held = usize::try_from(before - crate::alloc_count::live()).unwrap_or(0);
        (counted, held)
    }

    /// Rule `PERF-TURN-MEMORY`: the turn's heap figure counts at least 95%
    /// of what its counted fields hold, and never more, in four turns each
    /// dominated by another part: waiting requests each of 64 candidate
    /// calls (candidates, call lists, and the pending CHECK-ID-FORMAT
    /// findings naming the 64 calls), 4 000 calls with a waiting
    /// request each (the boxed requests and their IDs), one waiting request
    /// ahead of 10 000 answered ones (the slots), and 10 000 requests
    /// outside any call (the kept IDs and pending records). A figure that
    /// leaves a part out, or miscounts one, falls outside.
    #[test]
    fn the_turns_heap_figure_agrees_with_the_allocator() {
        let mut wide = Checker::new("wide", ProfileMode::Auto);
        let _ = wide.push_event(&turn_start());
        for k in 0..64 {
            let _ = wide.push_event(&tool_call_request(&format!("call_{k}")));
        }
        for k in 0..64 {
            let id = InquiryId::legacy("x", &format!("q{k}"));
            let _ = wide.push_event(&inquiry_request(id));
        }
        let mut many = Checker::new("many", ProfileMode::Auto);
        open_calls(&mut many, 4_000, 0);
        let mut behind = Checker::new("behind", ProfileMode::Fixed(Profile::Rfd082));
        let _ = behind.push_event(&turn_start());
        let _ = behind.push_event(&tool_call_request("c1"));
        let _ = behind.push_event(&inquiry_request(InquiryId::legacy("c1", "first")));
        let legacy = InquiryId::legacy("c1", "apply_changes");
        for _ in 0..10_000 {
            let _ = behind.push_event(&inquiry_request(legacy.clone()));
            let _ = behind.push_event(&answered(legacy.clone(), serde_json::json!(true)));
        }
        let mut outside = Checker::new("outside", ProfileMode::Auto);
        let _ = outside.push_event(&turn_start());
        for k in 0..10_000 {
            let id = InquiryId::new("c1", &format!("q{k}"), 1);
            let _ = outside.push_event(&inquiry_request(id.clone()));
            let _ = outside.push_event(&answered(id, serde_json::json!(true)));
        }
        for (what, c) in [
            ("wide", &mut wide),
            ("many", &mut many),
            ("behind", &mut behind),
            ("outside", &mut outside),
        ] {
            let (counted, held) = counted_and_held(c);
            crate::alloc_count::assert_counted(what, counted, held, 0.95);
        }
    }

    /// Rule `PERF-TURN-MEMORY`, the policy `TurnState::file_under_calls`
    /// states: a call's list of requests is pruned only when it is full,
    /// pruned to exactly its waiting requests, and grows then only if more
    /// than half of it still waits. Each plan says, request by request,
    /// whether the request is answered at once or left waiting (so the test
    /// knows how many wait, independently of the list); the plans reach a
    /// full list exactly half waiting, three quarters waiting, all waiting
    /// and none waiting.
    #[test]
    fn a_calls_list_is_pruned_only_when_full_and_grows_only_past_half() {
        /// A plan's name, and whether request `k` is left waiting.
        type Plan = (&'static str, fn(usize) -> bool);
        let plans: [Plan; 4] = [
            ("alternate", |k| k % 2 == 0),
            ("three of four", |k| k % 4 != 3),
            ("all", |_| true),
            ("none", |_| false),
        ];
        for (name, waits) in plans {
            let mut c = Checker::new(name, ProfileMode::Fixed(Profile::Legacy));
            let _ = c.push_event(&turn_start());
            let _ = c.push_event(&tool_call_request("c1"));
            let call = 1;
            let mut waiting = 0;
            for k in 0..300 {
                let list = |c: &Checker| {
                    c.turn
                        .call_requests
                        .get(&call)
                        .map_or((0, 0), |l| (l.len(), l.capacity()))
                };
                let (len, cap) = list(&c);
                let id = InquiryId::legacy("c1", &format!("q{k}"));
                let _ = c.push_event(&inquiry_request(id.clone()));
                let (len_after, cap_after) = list(&c);
                let at = format!("{name}, request {k}: {len}/{cap} before, {waiting} waiting");
                if cap == 0 {
                    assert_eq!(len_after, 1, "{at}");
                } else if len < cap {
                    assert_eq!(
                        (len_after, cap_after),
                        (len + 1, cap),
                        "{at}: room, no prune"
                    );
                } else {
                    assert_eq!(len_after, waiting + 1, "{at}: pruned to the waiting");
                    if 2 * waiting > cap {
                        assert!(cap_after >= cap + waiting, "{at}: grown to {cap_after}");
                    } else {
                        assert_eq!(cap_after, cap, "{at}: grown though half or less waits");
                    }
                }
                if waits(k) {
                    waiting += 1;
                } else {
                    let _ = c.push_event(&answered(id, serde_json::json!(true)));
                }
            }
        }
    }

    /// IDs made of the parts the grammar turns on: an open call's ID or
    /// none, a question ID with or without a dot, an attempt written well,
    /// with a leading zero, not a number, past `u32::MAX`, or missing.
    fn id_strategy() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        (
            prop::sample::select(vec!["a", "a.b", "c", "zz", ""]),
            prop::sample::select(vec!["", "q", "b", "b.q", "q.r"]),
            prop::option::of(prop::sample::select(vec![
                "1",
                "2",
                "01",
                "x",
                "",
                "4294967296",
            ])),
        )
            .prop_map(|(call, question, attempt)| {
                let mut id = format!("{call}.{question}");
                if let Some(a) = attempt {
                    id.push('.');
                    id.push_str(a);
                }
                id
            })
    }

    /// Rule `PERF-CHECK-ID-LATER`: where two open calls both read an ID
    /// (`a.b.q.1` under calls `a` and `a.b`, RFD 082's separator flaw),
    /// `rules::id_parts` takes the longest call's reading, as
    /// `rules::id_format` does, in either order of the calls; written by
    /// hand, as the drawn IDs above meet this case rarely.
    #[test]
    fn id_parts_reads_an_ambiguous_id_by_its_longest_call() {
        let id = InquiryId::from_opaque("a.b.q.1".to_owned());
        let longest = crate::wire::id::IdParts {
            tool_call_id: "a.b".to_owned(),
            question_id: "q".to_owned(),
            attempt: 1,
        };
        for calls in [["a", "a.b"], ["a.b", "a"]] {
            assert_eq!(
                rules::id_parts(&id, &calls),
                Some(longest.clone()),
                "{calls:?}"
            );
            assert_eq!(
                rules::id_format(&id, &calls).ok(),
                Some(longest.clone()),
                "{calls:?}"
            );
        }
    }

    proptest::proptest! {
        /// Rule `PERF-CHECK-ID-LATER`: `rules::id_parts` reads the parts
        /// `rules::id_format` reads and `None` exactly where it words a
        /// finding, and that is exactly where `rules::id_style` does not
        /// say three-segment (so the checker, which asks `id_parts` only
        /// for three-segment IDs, words a finding for every other ID and
        /// for no three-segment one).
        #[test]
        fn id_parts_is_id_format_without_its_wording(
            id in id_strategy(),
            calls in proptest::collection::vec(
                proptest::sample::select(vec!["a", "a.b", "a.b.q", "c", "a.b.q.1"]),
                0..4,
            ),
        ) {
            let id = InquiryId::from_opaque(id);
            let parts = rules::id_parts(&id, &calls);
            proptest::prop_assert_eq!(&parts, &rules::id_format(&id, &calls).ok());
            // The grammar's own reading, longest call first, built apart.
            let first = match crate::wire::id::parse(&id, &calls) {
                crate::wire::id::Parse::None => None,
                crate::wire::id::Parse::One(p) => Some(p),
                crate::wire::id::Parse::Ambiguous(all) => all.into_iter().next(),
            };
            proptest::prop_assert_eq!(&parts, &first);
            proptest::prop_assert_eq!(
                parts.is_some(),
                rules::id_style(&id, &calls) == rules::IdStyle::ThreeSegment
            );
        }

        /// Rule `PERF-CHECK-ID-LATER`: the CHECK-ID-FORMAT finding worded at
        /// the turn's end, after every call ended, is the one
        /// `rules::id_format` words at the request against the calls then
        /// open, in their order (called here directly); and a
        /// three-segment ID has none. Under the rfd082 profile with no
        /// two-segment ID the turn keeps every such finding.
        #[test]
        fn a_later_id_format_finding_is_the_one_worded_at_the_request(
            id in id_strategy(),
            calls in proptest::collection::vec(
                proptest::sample::select(vec!["a", "a.b", "c", "zz"]),
                1..4,
            ),
        ) {
            let id = InquiryId::from_opaque(id);
            let style = rules::id_style(&id, &calls);
            proptest::prop_assume!(style != rules::IdStyle::TwoSegment);
            let mut c = Checker::new("ids", ProfileMode::Fixed(Profile::Rfd082));
            let mut found = c.push_event(&turn_start());
            for call in &calls {
                found.extend(c.push_event(&tool_call_request(call)));
            }
            found.extend(c.push_event(&inquiry_request(id.clone())));
            found.extend(c.push_event(&answered(id.clone(), serde_json::json!(true))));
            for call in &calls {
                found.extend(c.push_event(&tool_call_response(call)));
            }
            found.extend(c.finish());
            let worded: Vec<(Vec<String>, String)> = found
                .into_iter()
                .filter(|d| d.rule == Rule::CheckIdFormat)
                .map(|d| (d.ids, d.message.into_owned()))
                .collect();
            let expected: Vec<(Vec<String>, String)> = rules::id_format(&id, &calls)
                .err()
                .map(|f| (f.ids, one_line(f.message)))
                .into_iter()
                .collect();
            proptest::prop_assert_eq!(worded, expected);
        }
    }

    proptest::proptest! {
        /// Rule `PERF-CHECK-OPEN-CALLS`: the open calls' list answers
        /// what a `BTreeMap` from index to call answers, after any run of
        /// opens (mostly in index order, some out of it or at an index
        /// already used), closes (open, closed or never opened) and turn
        /// resets: the same call at every index and the same calls in the
        /// same order.
        #[test]
        fn open_calls_are_a_map_by_index(
            ops in proptest::collection::vec((0u8..10, 0usize..24), 0..80),
        ) {
            let mut calls = OpenCalls::default();
            let mut map = std::collections::BTreeMap::new();
            let mut next = 0;
            for (op, arg) in ops {
                match op {
                    0..=3 => {
                        next += 1 + arg % 3;
                        calls.insert(next, OpenCall { id: arg, name: next });
                        map.insert(next, (arg, next));
                    }
                    4 => {
                        calls.insert(arg, OpenCall { id: arg, name: 0 });
                        map.insert(arg, (arg, 0));
                    }
                    5..=8 => {
                        // Mostly an index opened before.
                        let index = map.keys().nth(arg % map.len().max(1)).copied().unwrap_or(arg);
                        calls.remove(index);
                        map.remove(&index);
                    }
                    _ => {
                        calls.clear();
                        map.clear();
                    }
                }
                for index in 0..=next.max(24) {
                    proptest::prop_assert_eq!(
                        calls.get(index).map(|c| (c.id, c.name)),
                        map.get(&index).copied()
                    );
                }
                let listed: Vec<(usize, usize, usize)> =
                    calls.iter().map(|(i, c)| (i, c.id, c.name)).collect();
                let expected: Vec<(usize, usize, usize)> =
                    map.iter().map(|(&i, &(id, name))| (i, id, name)).collect();
                proptest::prop_assert_eq!(listed, expected);
            }
        }
    }
}
