//! Stream operations: turns, pairing, turn-scoped sanitize and the provider
//! view (RFD 082 "Inquiry ID format" and Phase 3; RFD 004/005 draft "Thread
//! Decomposition").
//!
//! A turn is the run of events from one `turn_start` marker to the next;
//! events before the first marker form an implicit leading turn (rule
//! `STREAM-TURNS`). Within a turn, each `InquiryRequest` pairs with the next
//! unpaired `InquiryResponse` of the same ID (rule `STREAM-PAIR-ORDER`): new
//! three-segment IDs are unique and pair uniquely, legacy two-segment IDs that
//! collide pair by order. Pairing never crosses a turn boundary (rule
//! `STREAM-PAIR-TURN-SCOPED`) and never looks inside an ID (rule
//! `STREAM-PAIR-OPAQUE-ID`). Tool calls pair the same way by their
//! provider-given IDs, which may repeat across cycles and turns (rule
//! `STREAM-TOOL-PAIR-ORDER`).
//!
//! [`sanitize`] repairs orphans turn by turn (the `STREAM-SANITIZE` family of
//! rules in `spec/RULES.md`) and [`provider_view`] is the one place where
//! events are filtered for providers (rule `STREAM-PROVIDER-VIEW`).
//!
//! Everything here is one pass (or a fixed number of passes) over the events,
//! in time linear in their number, whatever the IDs (rule `STREAM-LINEAR`):
//! requests wait in per-ID queues, orphans are read back from a per-turn log
//! in stream order (no sorting), and a map that served a turn is dropped
//! rather than cleared, so its cost is paid once by the events that grew it.

pub(crate) mod keys;

use std::collections::hash_map::{Entry, RandomState};
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, BuildHasherDefault, Hash, Hasher};
use std::ops::Range;

use serde::Serialize;
use serde_json::Value;

use crate::wire::{Event, EventKind, InquiryId, Opaque, ToolCallResponse};

/// A turn: the half-open event range `start..end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Turn {
    /// 0-based turn number; the implicit leading turn (if any) is 0.
    pub index: usize,
    /// Index of the first event (the `turn_start` marker, if the turn has one).
    pub start: usize,
    /// One past the last event.
    pub end: usize,
}

/// Splits a stream into turns (rule `STREAM-TURNS`). An empty stream has no
/// turn; a stream with events before its first marker has an implicit
/// leading turn. Every event belongs to exactly one turn.
pub fn turns(events: &[Event]) -> Vec<Turn> {
    let mut out: Vec<Turn> = Vec::new();
    while let Some(s) = scan_turn(events, out.last().map_or(0, |t| t.end), out.len()) {
        out.push(s.turn);
    }
    out
}

/// A matched request/response, by event index.
///
/// From [`pair`] and [`Pairer`] the events are an `inquiry_request` and its
/// `inquiry_response`; from [`pair_tool_calls`] a `tool_call_request` and its
/// `tool_call_response`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Pair {
    /// The turn both events sit in.
    pub turn: usize,
    /// Index of the request.
    pub request: usize,
    /// Index of the response.
    pub response: usize,
}

/// Everything pairing found in a stream.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pairing {
    /// Matched pairs, in the order their responses appear.
    pub pairs: Vec<Pair>,
    /// Requests with no response later in their turn: `(turn, index)`, in
    /// stream order.
    pub orphan_requests: Vec<(usize, usize)>,
    /// Responses with no unpaired request earlier in their turn:
    /// `(turn, index)`, in stream order.
    pub orphan_responses: Vec<(usize, usize)>,
}

impl Pairing {
    /// `true` when nothing is left unpaired on either side.
    pub fn is_complete(&self) -> bool {
        self.orphan_requests.is_empty() && self.orphan_responses.is_empty()
    }
}

/// What [`Pairer::push`] learned from one event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PairStep {
    /// Nothing pairing-related.
    None,
    /// A new turn began; these requests of the previous turn stayed unpaired.
    TurnEnded {
        /// The turn that ended.
        turn: usize,
        /// Its unpaired requests, by event index, in stream order.
        orphan_requests: Vec<usize>,
    },
    /// A request is now waiting for its response.
    Opened {
        /// The turn's first request with the same ID, when this one repeats
        /// an ID already requested in the turn (answered or not): the
        /// evidence of rule `CHECK-TURN-UNIQUE-ID`, found by the probe that
        /// queues the request.
        repeat_of: Option<usize>,
    },
    /// A response matched the earliest waiting request with its ID.
    Paired(Pair),
    /// A response matched no waiting request in its turn.
    OrphanResponse {
        /// Its turn.
        turn: usize,
    },
}

/// The part an event plays in one pairing (inquiries or tool calls).
enum Role<K> {
    /// Opens a turn: everything still waiting is orphaned.
    TurnStart,
    /// Waits for a response with this key.
    Request(K),
    /// Closes the earliest waiting request with this key.
    Response(K),
    /// Plays no part.
    Neither,
}

/// The event's part in inquiry pairing, keyed by the opaque [`InquiryId`].
fn inquiry_role(e: &Event) -> Role<&InquiryId> {
    match &e.kind {
        EventKind::TurnStart => Role::TurnStart,
        EventKind::InquiryRequest(r) => Role::Request(&r.id),
        EventKind::InquiryResponse(r) => Role::Response(r.id()),
        EventKind::ChatRequest
        | EventKind::ChatResponse
        | EventKind::ToolCallRequest(_)
        | EventKind::ToolCallResponse(_)
        | EventKind::Other(_) => Role::Neither,
    }
}

/// The event's part in tool-call pairing, keyed by the provider's tool-call
/// ID (never parsed either).
fn tool_call_role(e: &Event) -> Role<&str> {
    match &e.kind {
        EventKind::TurnStart => Role::TurnStart,
        EventKind::ToolCallRequest(r) => Role::Request(r.id.as_str()),
        EventKind::ToolCallResponse(r) => Role::Response(r.id.as_str()),
        EventKind::ChatRequest
        | EventKind::ChatResponse
        | EventKind::InquiryRequest(_)
        | EventKind::InquiryResponse(_)
        | EventKind::Other(_) => Role::Neither,
    }
}

/// Marks a paired request in the log, and the end of a key's queue.
const NONE: usize = usize::MAX;

/// By-order matching within one turn: a request waits in the FIFO queue of
/// its key; a response takes the front of its key's queue (rule
/// `STREAM-PAIR-ORDER`). Every operation is O(1) expected and allocates
/// nothing per key beyond its table entry and its place in the key list:
/// each key's queue is a linked list threaded through the turn's request
/// log. Reading the orphans back is O(requests in the turn) and already in
/// stream order (rule `PERF-PAIR-TABLE` for the table's layout).
#[derive(Debug)]
struct ByOrder<K, S = RandomState> {
    /// Per key hash, the key's queue (the first of a chain when distinct
    /// keys share all 64 bits of their hash). A table of 16-byte entries
    /// that holds no key: half a million keys fit in the L3 cache, where a
    /// table of the keys and their queues would not, and every probe of a
    /// huge turn would be a miss.
    slots: HashMap<u64, usize, BuildHasherDefault<Prehashed>>,
    /// The keys of the turn with their queues, in first-request order
    /// (appended, so written sequentially).
    queues: Vec<KeyQueue<K>>,
    /// Keyed SipHash, as a `HashMap` of the keys would use (tests put a
    /// colliding hasher here to exercise the chains).
    hasher: S,
    /// Every request opened this turn, in stream order.
    log: Vec<Logged>,
}

#[derive(Debug, Clone, Copy)]
struct Logged {
    /// The request's event index; `NONE` once paired.
    index: usize,
    /// The next waiting request with the same key, or `NONE`.
    next: usize,
}

#[derive(Debug)]
struct KeyQueue<K> {
    key: K,
    /// Log slots of the oldest and newest waiting requests (`NONE` if none).
    head: usize,
    tail: usize,
    /// The key's first request in the turn.
    first: usize,
    /// The last response it paired, or `NONE`.
    last_paired: usize,
    /// The next queue whose key has the same hash, or `NONE`.
    collision: usize,
}

/// The hasher of [`ByOrder::slots`], whose keys are already hashes.
#[derive(Debug, Default)]
struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write_u64(&mut self, hash: u64) {
        self.0 = hash;
    }

    /// Not reached for `u64` keys; total anyway (FNV-1a).
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

impl<K, S: Default> Default for ByOrder<K, S> {
    fn default() -> Self {
        ByOrder {
            slots: HashMap::default(),
            queues: Vec::new(),
            hasher: S::default(),
            log: Vec::new(),
        }
    }
}

impl<K: Hash + Eq + Clone, S: BuildHasher> ByOrder<K, S> {
    /// The queue of `key`, if the turn has seen it.
    fn find(&self, key: &K) -> Option<usize> {
        let chain = *self.slots.get(&self.hasher.hash_one(key))?;
        find_in_chain(&self.queues, chain, key)
    }

    /// A request at `index` starts waiting; returns the key's first request
    /// in the turn if the key was requested before. One hash and one probe;
    /// the key is cloned once, when first seen (free for borrowed keys).
    fn open(&mut self, key: &K, index: usize) -> Option<usize> {
        let slot = self.log.len();
        self.log.push(Logged { index, next: NONE });
        let hash = self.hasher.hash_one(key);
        let new = self.queues.len();
        let collision = match self.slots.entry(hash) {
            Entry::Occupied(mut o) => {
                let chain = *o.get();
                if let Some(q) = find_in_chain(&self.queues, chain, key) {
                    let queue = &mut self.queues[q];
                    if queue.head == NONE {
                        queue.head = slot;
                    } else {
                        self.log[queue.tail].next = slot;
                    }
                    queue.tail = slot;
                    return Some(queue.first);
                }
                o.insert(new);
                chain
            }
            Entry::Vacant(v) => {
                v.insert(new);
                NONE
            }
        };
        self.queues.push(KeyQueue {
            key: key.clone(),
            head: slot,
            tail: slot,
            first: index,
            last_paired: NONE,
            collision,
        });
        None
    }

    /// A response at `index`: the request it pairs with, if any.
    fn close(&mut self, key: &K, index: usize) -> Option<usize> {
        let q = self.find(key)?;
        let queue = &mut self.queues[q];
        if queue.head == NONE {
            return None;
        }
        let entry = &mut self.log[queue.head];
        queue.head = entry.next;
        queue.last_paired = index;
        Some(std::mem::replace(&mut entry.index, NONE))
    }

    /// The last response `key` paired in this turn.
    fn last_paired(&self, key: &K) -> Option<usize> {
        self.find(key)
            .map(|q| self.queues[q].last_paired)
            .filter(|&i| i != NONE)
    }

    /// The requests still waiting, in stream order.
    fn orphans(&self) -> impl Iterator<Item = usize> + '_ {
        self.log.iter().map(|l| l.index).filter(|&i| i != NONE)
    }

    /// Makes room for `requests` more requests at once, so a big turn's
    /// table and lists are built at their final size instead of growing
    /// through every doubling (each a copy of all that came before). Room
    /// for a key per request is only address space when keys repeat: the
    /// pages nobody writes are never touched.
    fn reserve(&mut self, requests: usize) {
        self.slots.reserve(requests);
        self.queues.reserve(requests);
        self.log.reserve(requests);
    }

    /// Forgets the turn. A used table is dropped, not cleared: clearing
    /// costs its capacity, which a later run of small turns must not pay
    /// again; so is a big key list or log, whose memory a run of small
    /// turns would otherwise keep.
    fn reset(&mut self) {
        if !self.slots.is_empty() {
            self.slots = HashMap::default();
        }
        if self.queues.capacity() > RESET_KEEPS {
            self.queues = Vec::new();
        } else {
            self.queues.clear();
        }
        if self.log.capacity() > RESET_KEEPS {
            self.log = Vec::new();
        } else {
            self.log.clear();
        }
    }
}

/// The queue of `key` in the chain of `queues` starting at `q`.
fn find_in_chain<K: Eq>(queues: &[KeyQueue<K>], mut q: usize, key: &K) -> Option<usize> {
    while q != NONE {
        if queues[q].key == *key {
            return Some(q);
        }
        q = queues[q].collision;
    }
    None
}

/// The capacity of a buffer [`ByOrder::reset`] keeps for the next turn.
const RESET_KEEPS: usize = 1024;

/// Incremental inquiry pairing, one event at a time, with memory
/// proportional to the distinct inquiry IDs of the current turn plus its
/// waiting requests (rule `PERF-TURN-MEMORY`). The CLI and the oracle use it
/// to judge streams of any size without holding them; [`pair`] gives the
/// same answer on a slice.
///
/// Every distinct ID of the turn stays, compactly ([`keys::Keys`]), because
/// a repeat can come at any time (`CHECK-TURN-UNIQUE-ID`); an answered
/// request leaves nothing else behind: its place in the waiting log is
/// dropped as soon as every earlier request is answered too.
#[derive(Debug, Default)]
pub struct Pairer {
    turn: usize,
    seen_any: bool,
    /// The turn's distinct IDs.
    keys: keys::Keys,
    /// Per ID, its first request's event index, less `base`.
    firsts: keys::Small,
    /// Per ID, 0, or the last response it paired, less `base`, plus 1.
    last_paired: keys::Small,
    /// The event index of the turn's first request.
    base: usize,
    /// The number of the ID of the last request opened.
    last_key: usize,
    /// Per ID with waiting requests, the log slots of its oldest and newest.
    waiting: HashMap<usize, (usize, usize)>,
    /// The turn's requests from the oldest still waiting on, in stream
    /// order; slot `s` is at `s - log_base`.
    log: VecDeque<Logged>,
    /// Slots dropped from the log's front.
    log_base: usize,
}

impl Pairer {
    /// A pairer before the first event.
    pub fn new() -> Self {
        Pairer::default()
    }

    /// The turn the last pushed event sits in.
    pub fn turn(&self) -> usize {
        self.turn
    }

    /// Feeds the event at `index` (events must be pushed in stream order).
    pub fn push(&mut self, index: usize, event: &Event) -> PairStep {
        let first = !self.seen_any;
        self.seen_any = true;
        match inquiry_role(event) {
            Role::TurnStart if first => PairStep::None,
            Role::TurnStart => {
                let ended = self.turn;
                let orphan_requests = self.finish();
                self.turn += 1;
                PairStep::TurnEnded {
                    turn: ended,
                    orphan_requests,
                }
            }
            Role::Request(id) => PairStep::Opened {
                repeat_of: self.open(id, index),
            },
            Role::Response(id) => match self.close(id, index) {
                Some(request) => PairStep::Paired(Pair {
                    turn: self.turn,
                    request,
                    response: index,
                }),
                None => PairStep::OrphanResponse { turn: self.turn },
            },
            Role::Neither => PairStep::None,
        }
    }

    /// A request at `index` starts waiting; returns the ID's first request
    /// in the turn if the ID was requested before.
    fn open(&mut self, id: &InquiryId, index: usize) -> Option<usize> {
        let slot = self.log_base + self.log.len();
        self.log.push_back(Logged { index, next: NONE });
        if self.keys.len() == 0 {
            self.base = index;
        }
        let (k, added) = self.keys.find_or_add(id.as_str());
        if added {
            self.firsts.push(index - self.base);
            self.last_paired.push(0);
        }
        self.last_key = k;
        match self.waiting.entry(k) {
            Entry::Occupied(mut o) => {
                let tail = &mut o.get_mut().1;
                self.log[*tail - self.log_base].next = slot;
                *tail = slot;
            }
            Entry::Vacant(v) => {
                v.insert((slot, slot));
            }
        }
        (!added).then(|| self.base + self.firsts.get(k))
    }

    /// A response at `index`: the request it pairs with, if any.
    fn close(&mut self, id: &InquiryId, index: usize) -> Option<usize> {
        let k = self.keys.find(id.as_str())?;
        let Entry::Occupied(mut o) = self.waiting.entry(k) else {
            return None;
        };
        let (head, tail) = *o.get();
        let entry = &mut self.log[head - self.log_base];
        let request = std::mem::replace(&mut entry.index, NONE);
        if head == tail {
            o.remove();
        } else {
            o.get_mut().0 = entry.next;
        }
        self.last_paired.set(k, index - self.base + 1);
        while self.log.front().is_some_and(|l| l.index == NONE) {
            self.log.pop_front();
            self.log_base += 1;
        }
        Some(request)
    }

    /// The index of the last response that paired with a request of `id` in
    /// the current turn.
    pub fn last_paired(&self, id: &InquiryId) -> Option<usize> {
        self.keys
            .find(id.as_str())
            .map(|k| self.last_paired.get(k))
            .filter(|&i| i != 0)
            .map(|i| self.base + i - 1)
    }

    /// Ends the stream: the current turn's unpaired requests, in stream order.
    pub fn finish(&mut self) -> Vec<usize> {
        let out = self
            .log
            .iter()
            .map(|l| l.index)
            .filter(|&i| i != NONE)
            .collect();
        // A used table is dropped, not cleared (see `ByOrder::reset`).
        if self.keys.len() > 0 {
            self.keys = keys::Keys::default();
            self.firsts = keys::Small::default();
            self.last_paired = keys::Small::default();
        }
        if !self.waiting.is_empty() {
            self.waiting = HashMap::new();
        }
        if self.log.capacity() > RESET_KEEPS {
            self.log = VecDeque::new();
        } else {
            self.log.clear();
        }
        self.log_base = 0;
        out
    }

    /// The current turn's distinct IDs, numbered in first-request order.
    pub(crate) fn keys(&self) -> &keys::Keys {
        &self.keys
    }

    /// The number in [`Pairer::keys`] of the last request's ID.
    pub(crate) fn last_key(&self) -> usize {
        self.last_key
    }

    /// Bytes the pairer holds on the heap for the current turn (rule
    /// `PERF-TURN-MEMORY`): the distinct IDs, the waiting queues and the log.
    pub fn heap_bytes(&self) -> usize {
        self.keys.heap_bytes()
            + self.firsts.heap_bytes()
            + self.last_paired.heap_bytes()
            + self.waiting.capacity() * (size_of::<(usize, (usize, usize))>() + 1)
            + self.log.capacity() * size_of::<Logged>()
    }
}

/// Pairs a whole slice with the given role function.
fn pair_by<'a, K: Hash + Eq + Clone>(
    events: &'a [Event],
    role: fn(&'a Event) -> Role<K>,
) -> Pairing {
    let mut by_order: ByOrder<K> = ByOrder::default();
    let mut out = Pairing::default();
    let mut turn = 0;
    for (i, e) in events.iter().enumerate() {
        match role(e) {
            // Same boundary as `turns`: a marker at index 0 opens turn 0.
            Role::TurnStart if i == 0 => {}
            Role::TurnStart => {
                out.orphan_requests
                    .extend(by_order.orphans().map(|r| (turn, r)));
                by_order.reset();
                turn += 1;
            }
            Role::Request(k) => {
                by_order.open(&k, i);
            }
            Role::Response(k) => match by_order.close(&k, i) {
                Some(request) => out.pairs.push(Pair {
                    turn,
                    request,
                    response: i,
                }),
                None => out.orphan_responses.push((turn, i)),
            },
            Role::Neither => {}
        }
    }
    out.orphan_requests
        .extend(by_order.orphans().map(|r| (turn, r)));
    out
}

/// Pairs every inquiry in a stream (rules `STREAM-PAIR-ORDER`,
/// `STREAM-PAIR-TURN-SCOPED`, `STREAM-PAIR-OPAQUE-ID`).
pub fn pair(events: &[Event]) -> Pairing {
    pair_by(events, inquiry_role)
}

/// Pairs every tool call in a stream by its tool-call ID, by order within the
/// turn, exactly like legacy inquiry IDs (rule `STREAM-TOOL-PAIR-ORDER`):
/// providers may reuse an ID across cycles (RFD 082 "Inquiry ID format").
pub fn pair_tool_calls(events: &[Event]) -> Pairing {
    pair_by(events, tool_call_role)
}

/// The events a provider sees, in stream order: the one filtering point of
/// RFD 004/005 draft "Thread Decomposition" (rule `STREAM-PROVIDER-VIEW`).
///
/// Inquiry events, turn markers and unknown kinds never pass (the allowlist
/// of [`EventKind::is_provider_visible`]). The view filters only: run
/// [`sanitize`] first to get a view that keeps the provider's tool-call
/// request/response contract.
pub fn provider_view(events: &[Event]) -> impl DoubleEndedIterator<Item = &Event> + Clone {
    provider_view_indexed(events).map(|(_, e)| e)
}

/// [`provider_view`] with each event's index in the full stream, for
/// diagnostics that point back at the persisted stream.
pub fn provider_view_indexed(
    events: &[Event],
) -> impl DoubleEndedIterator<Item = (usize, &Event)> + Clone {
    events
        .iter()
        .enumerate()
        .filter(|(_, e)| e.is_provider_visible())
}

/// Why [`sanitize`] removed an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Orphan {
    /// An `inquiry_request` with no response later in its turn.
    InquiryRequest,
    /// An `inquiry_response` with no unpaired request earlier in its turn.
    InquiryResponse,
    /// A `tool_call_response` with no unpaired request earlier in its turn.
    ToolCallResponse,
}

/// An event [`sanitize`] removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct Removed {
    /// Its index in the input.
    pub index: usize,
    /// Its turn in the input.
    pub turn: usize,
    /// Why it went.
    pub reason: Orphan,
}

/// A synthetic `tool_call_response` [`sanitize`] added.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct Injected {
    /// Index in the input of the orphaned `tool_call_request` it answers.
    pub request: usize,
    /// The request's turn in the input (the response sits in the same turn).
    pub turn: usize,
    /// Its index in the output.
    pub at: usize,
}

/// What [`sanitize`] returns: the repaired stream and an exact account of the
/// repair, so an oracle can report it and a test can check it.
#[derive(Debug, Clone, PartialEq)]
pub struct Sanitized {
    /// The repaired stream.
    pub events: Vec<Event>,
    /// For each output event, its index in the input; `None` for an injected
    /// event. Strictly increasing over the `Some`s.
    pub origin: Vec<Option<usize>>,
    /// The removed events, in input order.
    pub removed: Vec<Removed>,
    /// The injected events, in output order.
    pub injected: Vec<Injected>,
}

impl Sanitized {
    /// `true` when the input had nothing to repair (rule
    /// `STREAM-SANITIZE-CLEAN-IDENTITY`: then `events` is the input).
    pub fn is_unchanged(&self) -> bool {
        self.removed.is_empty() && self.injected.is_empty()
    }
}

/// The text of the synthetic error response [`sanitize`] writes for an
/// orphaned tool call. On disk it is base64-encoded, like every tool content
/// in real streams (their shape: `tests/corpus/jp-like/`).
pub const INTERRUPTED_TOOL_CALL: &str =
    "Tool call interrupted: no response was recorded for it in its turn.";

/// Turn-scoped repair (RFD 082 Phase 3 "Make inquiry-orphan repair in
/// `ConversationStream::sanitize()` turn-scoped"; decision "Stream:
/// turn-scoped sanitize" in `spec/DECISIONS.md`).
///
/// Within each turn, independently of every other turn:
///
/// - an `inquiry_response` with no unpaired request earlier in its turn is
///   removed, and so is an `inquiry_request` with no response later in its
///   turn; pairs matched by order (legacy duplicate IDs) are kept; nothing is
///   ever invented for an inquiry (rule `STREAM-SANITIZE-INQUIRY-ORPHANS`);
/// - a `tool_call_response` with no unpaired request earlier in its turn is
///   removed; a `tool_call_request` with no response later in its turn gets a
///   synthetic error `tool_call_response` (content: the base64 of
///   [`INTERRUPTED_TOOL_CALL`]; `is_error: true`; the timestamp of the input
///   event just before it),
///   placed immediately before the first `chat_request`/`chat_response` that
///   follows the request, the last response its ID paired in the turn and
///   the turn's last kept inquiry pair, or at the end of the turn if there
///   is none; several land in request order (rules
///   `STREAM-SANITIZE-TOOL-ORPHANS`, `STREAM-SANITIZE-ADDS-NOTHING`);
/// - every other event is kept, in order, in its turn (rules
///   `STREAM-SANITIZE-KEEPS-PAIRS`, `STREAM-SANITIZE-TURN-SCOPED`), including
///   inquiry pairs that sit outside their tool call: placement is the
///   oracle's to judge (rule `STREAM-SANITIZE-PLACEMENT-LEFT`).
///
/// The result has no orphan of either kind (rule `STREAM-SANITIZE-NO-ORPHANS`)
/// and sanitizing it again changes nothing (rule `STREAM-SANITIZE-IDEMPOTENT`).
/// Linear time (rule `STREAM-LINEAR`).
pub fn sanitize(events: Vec<Event>) -> Sanitized {
    sanitize_with(events, SanitizeFaults::default())
}

/// Faults `sanitize` can be told to commit, so that tests can show its
/// properties catch them. All off by default; `sanitize` is only correct
/// with all off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SanitizeFaults {
    /// Pair inquiries across turn boundaries (one ID set for the whole
    /// stream, the pre-082 repair RFD 082 Phase 3 replaces).
    pub across_turns: bool,
}

/// [`sanitize`], with faults injected (for fault-injection tests only).
///
/// The stream is repaired one turn at a time, in the input's own buffer:
/// a turn is planned (its orphans found) and then written out at once,
/// while its events are still in the cache, so each event is read from
/// memory once however long the stream. (With the `across_turns` fault the
/// whole stream is one batch: its pairs may span turns.)
pub fn sanitize_with(mut events: Vec<Event>, faults: SanitizeFaults) -> Sanitized {
    let mut out = Writer::new(events.len());
    let mut placer = Placer::default();
    if faults.across_turns {
        let mut all: Vec<Scanned> = Vec::new();
        while let Some(t) = scan_turn(&events, all.last().map_or(0, |t| t.turn.end), all.len()) {
            all.push(t);
        }
        let plan = plan(&events, &all, &mut placer, &mut out.removed, faults);
        let all = 0..events.len();
        out.apply(&mut events, all, plan);
    } else {
        let (mut start, mut index) = (0, 0);
        while let Some(t) = scan_turn(&events, start, index) {
            let plan = plan(&events, &[t], &mut placer, &mut out.removed, faults);
            out.apply(&mut events, t.turn.start..t.turn.end, plan);
            (start, index) = (t.turn.end, index + 1);
        }
    }
    out.finish(events)
}

/// A turn (the rule of [`turns`]) and how many requests of each pairing it
/// holds, found in one pass over its events.
#[derive(Debug, Clone, Copy)]
struct Scanned {
    turn: Turn,
    inquiry_requests: usize,
    tool_requests: usize,
}

/// The turn that starts at `start`, if any event is left: it runs to the
/// next `turn_start` after its first event (rule `STREAM-TURNS`, the one
/// place the boundary is decided).
fn scan_turn(events: &[Event], start: usize, index: usize) -> Option<Scanned> {
    if start >= events.len() {
        return None;
    }
    let mut scanned = Scanned {
        turn: Turn {
            index,
            start,
            end: events.len(),
        },
        inquiry_requests: 0,
        tool_requests: 0,
    };
    for (i, e) in events.iter().enumerate().skip(start) {
        match e.kind {
            EventKind::TurnStart if i > start => {
                scanned.turn.end = i;
                break;
            }
            EventKind::InquiryRequest(_) => scanned.inquiry_requests += 1,
            EventKind::ToolCallRequest(_) => scanned.tool_requests += 1,
            EventKind::TurnStart
            | EventKind::ChatRequest
            | EventKind::ChatResponse
            | EventKind::ToolCallResponse(_)
            | EventKind::InquiryResponse(_)
            | EventKind::Other(_) => {}
        }
    }
    Some(scanned)
}

/// A synthetic response to insert before input index `at`.
struct Injection {
    at: usize,
    request: usize,
    turn: usize,
    event: Event,
}

/// The repair of a batch of turns.
struct Plan {
    /// Per input event of the batch, from its first: `Some(reason)` if it
    /// goes.
    fate: Vec<Option<Orphan>>,
    /// Sorted by `at`, then by request.
    injections: Vec<Injection>,
}

/// Whether a synthetic response must land before this event: the next
/// provider message that is not part of the tool-call exchange.
fn ends_tool_exchange(kind: &EventKind) -> bool {
    match kind {
        EventKind::ChatRequest | EventKind::ChatResponse => true,
        EventKind::TurnStart
        | EventKind::ToolCallRequest(_)
        | EventKind::ToolCallResponse(_)
        | EventKind::InquiryRequest(_)
        | EventKind::InquiryResponse(_)
        | EventKind::Other(_) => false,
    }
}

/// Plans the repair of `batch`, consecutive turns of `events` (one, or all
/// with the `across_turns` fault). The removed events go straight to the
/// report, `removed`.
fn plan(
    events: &[Event],
    batch: &[Scanned],
    placer: &mut Placer,
    removed: &mut Vec<Removed>,
    faults: SanitizeFaults,
) -> Plan {
    let offset = batch.first().map_or(0, |t| t.turn.start);
    let len = batch.last().map_or(0, |t| t.turn.end) - offset;
    let mut fate: Vec<Option<Orphan>> = vec![None; len];
    let mut injections: Vec<Injection> = Vec::new();
    let mut inquiries: ByOrder<&InquiryId> = ByOrder::default();
    let mut tools: ByOrder<&str> = ByOrder::default();
    for scanned in batch {
        let turn = scanned.turn;
        // The last inquiry response of the turn that pairs (and so stays).
        let mut last_inquiry_pair = turn.start;
        inquiries.reserve(scanned.inquiry_requests);
        tools.reserve(scanned.tool_requests);
        for i in turn.start..turn.end {
            let e = &events[i];
            match inquiry_role(e) {
                Role::Request(id) => {
                    inquiries.open(&id, i);
                }
                Role::Response(id) => match inquiries.close(&id, i) {
                    Some(_) => last_inquiry_pair = i,
                    None => fate[i - offset] = Some(Orphan::InquiryResponse),
                },
                Role::TurnStart | Role::Neither => {}
            }
            match tool_call_role(e) {
                Role::Request(id) => {
                    tools.open(&id, i);
                }
                Role::Response(id) => {
                    if tools.close(&id, i).is_none() {
                        fate[i - offset] = Some(Orphan::ToolCallResponse);
                    }
                }
                Role::TurnStart | Role::Neither => {}
            }
        }
        if !faults.across_turns {
            for r in inquiries.orphans() {
                fate[r - offset] = Some(Orphan::InquiryRequest);
            }
            inquiries.reset();
        }
        placer.place(events, turn, &tools, last_inquiry_pair, &mut injections);
        tools.reset();
        removed.extend((turn.start..turn.end).filter_map(|index| {
            fate[index - offset].map(|reason| Removed {
                index,
                turn: turn.index,
                reason,
            })
        }));
    }
    if faults.across_turns {
        for r in inquiries.orphans() {
            fate[r - offset] = Some(Orphan::InquiryRequest);
        }
    }
    Plan { fate, injections }
}

/// Places the synthetic responses of a turn. Its buffers are reused from
/// turn to turn, and ordering is a counting sort over the turn's positions,
/// so a turn costs O(its events) whatever its orphans.
#[derive(Default)]
struct Placer {
    /// `next_end[k]`: the first exchange-ending event at or after offset `k`
    /// of the turn, or the turn's end.
    next_end: Vec<usize>,
    /// `(position, request)` per orphan, in request order.
    placed: Vec<(usize, usize)>,
    /// Counting-sort buckets by position offset.
    count: Vec<usize>,
    order: Vec<usize>,
    /// The synthetic content, built once.
    content: Option<Opaque>,
}

impl Placer {
    /// Appends a synthetic response for each orphaned tool call of `turn` to
    /// `out`, in (position, request) order. `last_inquiry_pair` is the
    /// turn's last inquiry response that pairs (or the turn's start).
    fn place(
        &mut self,
        events: &[Event],
        turn: Turn,
        tools: &ByOrder<&str>,
        last_inquiry_pair: usize,
        out: &mut Vec<Injection>,
    ) {
        let mut orphans = tools.orphans().peekable();
        if orphans.peek().is_none() {
            return;
        }
        let len = turn.end - turn.start;
        self.next_end.clear();
        self.next_end.resize(len + 1, turn.end);
        for k in (0..len).rev() {
            if ends_tool_exchange(&events[turn.start + k].kind) {
                self.next_end[k] = turn.start + k;
            } else {
                self.next_end[k] = self.next_end[k + 1];
            }
        }
        self.placed.clear();
        for r in orphans {
            let id = match tool_call_role(&events[r]) {
                Role::Request(id) => id,
                // The log only holds tool-call requests.
                Role::TurnStart | Role::Response(_) | Role::Neither => continue,
            };
            // After the request and after every response its ID paired: the
            // by-order pairs of the turn stay exactly as they were. And after
            // the turn's last kept inquiry pair: the input left the call open
            // to the end of the turn, and IDs are not read, so any later
            // inquiry may be one of its own; closing the call before it
            // would put that inquiry outside its call (CHECK-PLACEMENT) or
            // its response after the call's end (CHECK-PLACEMENT-CLOSED),
            // findings the input did not have (STREAM-SANITIZE-ADDS-NOTHING).
            let anchor = tools
                .last_paired(&id)
                .map_or(r, |p| p.max(r))
                .max(last_inquiry_pair);
            self.placed.push((self.next_end[anchor - turn.start], r));
        }
        // Stable counting sort by position: ties keep request order.
        self.count.clear();
        self.count.resize(len + 2, 0);
        for &(at, _) in &self.placed {
            self.count[at - turn.start + 1] += 1;
        }
        for k in 1..self.count.len() {
            self.count[k] += self.count[k - 1];
        }
        self.order.clear();
        self.order.resize(self.placed.len(), 0);
        for (j, &(at, _)) in self.placed.iter().enumerate() {
            let slot = &mut self.count[at - turn.start];
            self.order[*slot] = j;
            *slot += 1;
        }
        let content = self.content.get_or_insert_with(|| {
            Opaque::from_value(&Value::String(base64(INTERRUPTED_TOOL_CALL.as_bytes())))
        });
        for &j in &self.order {
            let (at, request) = self.placed[j];
            // `placed` only holds tool-call requests.
            let Role::Request(id) = tool_call_role(&events[request]) else {
                continue;
            };
            out.push(Injection {
                at,
                request,
                turn: turn.index,
                event: Event::with(
                    // The time of the input event it follows (`at` is past
                    // the request): timestamps stay ordered if they were.
                    events[at - 1].timestamp.clone(),
                    EventKind::ToolCallResponse(ToolCallResponse {
                        id: id.to_owned(),
                        content: Some(content.clone()),
                        is_error: Some(true),
                    }),
                    Vec::new(),
                ),
            });
        }
    }
}

/// Writes the repaired stream into the input's own buffer, batch after
/// batch, as a queue: events leave the input in order (slots between the
/// write and the read position are free: they hold placeholders and removed
/// events not yet dropped), and the output fills the free slots in order.
/// An event that keeps its place is never moved, so a clean stream is
/// returned untouched (rule `STREAM-SANITIZE-CLEAN-IDENTITY`); removals
/// shift the rest left; an injection waits in `queue` until a slot frees,
/// or lands past the end.
struct Writer {
    /// The next output slot.
    write: usize,
    /// Output events waiting for a free slot, in output order.
    queue: VecDeque<Event>,
    origin: Vec<Option<usize>>,
    removed: Vec<Removed>,
    injected: Vec<Injected>,
}

impl Writer {
    fn new(len: usize) -> Writer {
        Writer {
            write: 0,
            queue: VecDeque::new(),
            origin: Vec::with_capacity(len),
            removed: Vec::new(),
            injected: Vec::new(),
        }
    }

    /// Writes out the input events of `batch` (every event before it is
    /// already read) with the injections of its plan.
    fn apply(&mut self, events: &mut [Event], batch: Range<usize>, plan: Plan) {
        let Plan { fate, injections } = plan;
        // Sorted by position, then request: they land in that order.
        let mut injections = injections.into_iter().peekable();
        for (read, fate) in batch.clone().zip(fate) {
            while let Some(inj) = injections.next_if(|inj| inj.at <= read) {
                self.inject(inj);
                self.fill(events, read);
            }
            match fate {
                // A removed event stays where it is, dead: its slot is
                // free, and it is dropped when an event is written over it
                // or when the buffer is cut at the end.
                Some(_) => {}
                None => {
                    self.origin.push(Some(read));
                    if self.queue.is_empty() {
                        // Into the first free slot (its own, if none is
                        // free); whatever the free slot held moves to `read`,
                        // free in turn. One exchange, no placeholder written.
                        if self.write != read {
                            events.swap(self.write, read);
                        }
                        self.write += 1;
                        continue;
                    }
                    let e = std::mem::replace(&mut events[read], placeholder());
                    self.queue.push_back(e);
                }
            }
            self.fill(events, read + 1);
        }
        for inj in injections {
            self.inject(inj);
        }
        self.fill(events, batch.end);
    }

    fn inject(&mut self, inj: Injection) {
        self.injected.push(Injected {
            request: inj.request,
            turn: inj.turn,
            at: self.origin.len(),
        });
        self.origin.push(None);
        self.queue.push_back(inj.event);
    }

    /// Moves queued events into the free slots before `read` (dropping what
    /// the slots held).
    fn fill(&mut self, events: &mut [Event], read: usize) {
        while self.write < read {
            let Some(e) = self.queue.pop_front() else {
                return;
            };
            events[self.write] = e;
            self.write += 1;
        }
    }

    /// The repaired stream, once every event has been read.
    fn finish(self, mut events: Vec<Event>) -> Sanitized {
        events.truncate(self.write);
        events.extend(self.queue);
        debug_assert_eq!(events.len(), self.origin.len(), "one origin per event");
        Sanitized {
            events,
            origin: self.origin,
            removed: self.removed,
            injected: self.injected,
        }
    }
}

/// What a free slot holds until it is written: an event with no heap data.
fn placeholder() -> Event {
    Event::new(EventKind::TurnStart)
}

/// Standard base64 with padding (RFC 4648 §4), the encoding real streams use
/// for tool contents.
pub(crate) fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let sextet = |shift: u32| char::from(ALPHABET[((n >> shift) & 63) as usize]);
        out.push(sextet(18));
        out.push(sextet(12));
        out.push(if chunk.len() > 1 { sextet(6) } else { '=' });
        out.push(if chunk.len() > 2 { sextet(0) } else { '=' });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use proptest::test_runner::TestCaseError;

    /// The synthetic content is valid base64: RFC 4648 §10 test vectors.
    #[test]
    fn base64_matches_rfc4648_vectors() {
        let vectors = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (plain, encoded) in vectors {
            assert_eq!(base64(plain.as_bytes()), encoded, "base64({plain:?})");
        }
    }

    /// Orphans come back in stream order even when several IDs interleave,
    /// and a used map is dropped on reset.
    #[test]
    fn by_order_orphans_in_stream_order_across_keys() {
        let mut b: ByOrder<&str> = ByOrder::default();
        assert_eq!(b.open(&"x", 10), None);
        assert_eq!(b.open(&"y", 11), None);
        assert_eq!(b.open(&"x", 12), Some(10));
        assert_eq!(b.close(&"y", 13), Some(11));
        // A key stays known after its queue empties: a repeat still names
        // the turn's first request with the key.
        assert_eq!(b.open(&"y", 14), Some(11));
        assert_eq!(b.close(&"z", 15), None);
        assert_eq!(b.orphans().collect::<Vec<_>>(), vec![10, 12, 14]);
        assert_eq!(b.last_paired(&"y"), Some(13));
        assert_eq!(b.last_paired(&"x"), None);
        b.reset();
        assert_eq!(b.orphans().count(), 0);
        assert_eq!(b.slots.capacity(), 0);
    }

    /// Hashes every key to the same value: every key of a turn lands in one
    /// collision chain, the path a real 64-bit SipHash collision takes.
    #[derive(Default)]
    struct Collide;

    impl Hasher for Collide {
        fn finish(&self) -> u64 {
            7
        }
        fn write(&mut self, _: &[u8]) {}
    }

    #[derive(Debug, Clone)]
    enum Op {
        Open(u8),
        Close(u8),
        LastPaired(u8),
        Reset,
    }

    fn ops() -> impl Strategy<Value = Vec<Op>> {
        let op = prop_oneof![
            4 => (0u8..6).prop_map(Op::Open),
            4 => (0u8..6).prop_map(Op::Close),
            2 => (0u8..6).prop_map(Op::LastPaired),
            1 => Just(Op::Reset),
        ];
        proptest::collection::vec(op, 0..60)
    }

    /// Runs `ops` on a `ByOrder` with hasher `S` and on a naive list, and
    /// checks every answer and the orphans after each step.
    fn agrees_with_naive<S: BuildHasher + Default>(ops: &[Op]) -> Result<(), TestCaseError> {
        let mut b: ByOrder<u8, S> = ByOrder::default();
        // (key, index, waiting) per request of the turn, and the turn's
        // pairings as (key, response index).
        let mut requests: Vec<(u8, usize, bool)> = Vec::new();
        let mut paired: Vec<(u8, usize)> = Vec::new();
        for (index, op) in ops.iter().enumerate() {
            match *op {
                Op::Open(k) => {
                    let first = requests.iter().find(|r| r.0 == k).map(|r| r.1);
                    requests.push((k, index, true));
                    prop_assert_eq!(b.open(&k, index), first);
                }
                Op::Close(k) => {
                    let want = requests.iter_mut().find(|r| r.0 == k && r.2).map(|r| {
                        r.2 = false;
                        r.1
                    });
                    if want.is_some() {
                        paired.push((k, index));
                    }
                    prop_assert_eq!(b.close(&k, index), want);
                }
                Op::LastPaired(k) => {
                    let want = paired.iter().rev().find(|p| p.0 == k).map(|p| p.1);
                    prop_assert_eq!(b.last_paired(&k), want);
                }
                Op::Reset => {
                    requests.clear();
                    paired.clear();
                    b.reset();
                }
            }
            let waiting: Vec<usize> = requests.iter().filter(|r| r.2).map(|r| r.1).collect();
            prop_assert_eq!(b.orphans().collect::<Vec<_>>(), waiting);
        }
        Ok(())
    }

    proptest! {
        /// Rules: PERF-PAIR-TABLE, STREAM-PAIR-ORDER — by-order matching
        /// equals a naive list of the turn's requests, with the real keyed
        /// hash and with a hash under which every key collides (the chains
        /// of `ByOrder::slots`).
        #[test]
        fn by_order_agrees_with_a_naive_list_even_when_every_hash_collides(ops in ops()) {
            agrees_with_naive::<RandomState>(&ops)?;
            agrees_with_naive::<BuildHasherDefault<Collide>>(&ops)?;
        }
    }
}
