//! Inquiry and tool-call pairing (RFD 082 "Inquiry ID format"): within a
//! turn, each request pairs with the next unpaired response of the same ID,
//! by order (rules `STREAM-PAIR-ORDER`, `STREAM-PAIR-TURN-SCOPED`,
//! `STREAM-PAIR-OPAQUE-ID`, `STREAM-TOOL-PAIR-ORDER`). Turns are
//! [`super::turns()`]'s.

use std::collections::hash_map::{Entry, RandomState};
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, BuildHasherDefault, Hash, Hasher};

use hashbrown::hash_map::Entry as WaitingEntry;

use super::{keys, turns};
use crate::wire::{Event, EventKind, InquiryId};

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

/// The part an event plays in one pairing (inquiries or tool calls). Where
/// turns begin is not a role: [`turns::opens_turn`] decides it.
pub(super) enum Role<K> {
    /// Waits for a response with this key.
    Request(K),
    /// Closes the earliest waiting request with this key.
    Response(K),
    /// Plays no part.
    Neither,
}

/// The event's part in inquiry pairing, keyed by the opaque [`InquiryId`].
pub(super) fn inquiry_role(e: &Event) -> Role<&InquiryId> {
    match &e.kind {
        EventKind::InquiryRequest(r) => Role::Request(&r.id),
        EventKind::InquiryResponse(r) => Role::Response(r.id()),
        EventKind::TurnStart
        | EventKind::ChatRequest
        | EventKind::ChatResponse
        | EventKind::ToolCallRequest(_)
        | EventKind::ToolCallResponse(_)
        | EventKind::Other(_) => Role::Neither,
    }
}

/// The event's part in tool-call pairing, keyed by the provider's tool-call
/// ID (never parsed either).
pub(super) fn tool_call_role(e: &Event) -> Role<&str> {
    match &e.kind {
        EventKind::ToolCallRequest(r) => Role::Request(r.id.as_str()),
        EventKind::ToolCallResponse(r) => Role::Response(r.id.as_str()),
        EventKind::TurnStart
        | EventKind::ChatRequest
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
pub(super) struct ByOrder<K, S = RandomState> {
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
    pub(super) fn open(&mut self, key: &K, index: usize) -> Option<usize> {
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
            collision,
        });
        None
    }

    /// A response: the request it pairs with, if any.
    pub(super) fn close(&mut self, key: &K) -> Option<usize> {
        let q = self.find(key)?;
        let queue = &mut self.queues[q];
        if queue.head == NONE {
            return None;
        }
        let entry = &mut self.log[queue.head];
        queue.head = entry.next;
        Some(std::mem::replace(&mut entry.index, NONE))
    }

    /// The requests still waiting, in stream order.
    pub(super) fn orphans(&self) -> impl Iterator<Item = usize> + '_ {
        self.log.iter().map(|l| l.index).filter(|&i| i != NONE)
    }

    /// Makes room for `requests` more requests at once, so a big turn's
    /// table and lists are built at their final size instead of growing
    /// through every doubling (each a copy of all that came before). Room
    /// for a key per request is only address space when keys repeat: the
    /// pages nobody writes are never touched.
    pub(super) fn reserve(&mut self, requests: usize) {
        self.slots.reserve(requests);
        self.queues.reserve(requests);
        self.log.reserve(requests);
    }

    /// Forgets the turn. A used table is dropped, not cleared: clearing
    /// costs its capacity, which a later run of small turns must not pay
    /// again; so is a big key list or log, whose memory a run of small
    /// turns would otherwise keep.
    pub(super) fn reset(&mut self) {
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
/// Every distinct ID of the turn stays, compactly (in a table of keys), because
/// a repeat can come at any time (`CHECK-TURN-UNIQUE-ID`); an answered
/// request leaves nothing else behind: its place in the waiting log is
/// dropped as soon as every earlier request is answered too.
#[derive(Debug, Default)]
pub struct Pairer {
    /// Where the turns begin (rule `STREAM-TURNS`).
    turns: turns::Tracker,
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
    /// Per ID with waiting requests, the log slots of its oldest and newest
    /// (keyed by ID numbers, so a fast hash is enough).
    waiting: hashbrown::HashMap<usize, (usize, usize)>,
    /// The turn's requests from the oldest still waiting on, in stream
    /// order; slot `s` is at `s - log_base`.
    log: VecDeque<Logged>,
    /// Slots dropped from the log's front.
    log_base: usize,
}

impl Pairer {
    /// A pairer before the first event.
    pub(crate) fn new() -> Self {
        Pairer::default()
    }

    /// The turn the last pushed event sits in.
    pub(crate) fn turn(&self) -> usize {
        self.turns.turn()
    }

    /// Feeds the event at `index` (events must be pushed in stream order).
    pub(crate) fn push(&mut self, index: usize, event: &Event) -> PairStep {
        if let Some(ended) = self.push_turn(turns::is_marker(&event.kind)) {
            return ended;
        }
        match inquiry_role(event) {
            Role::Request(id) => PairStep::Opened {
                repeat_of: self.open(id, index),
            },
            Role::Response(id) => match self.close(id, index) {
                Some(request) => PairStep::Paired(Pair {
                    turn: self.turns.turn(),
                    request,
                    response: index,
                }),
                None => PairStep::OrphanResponse {
                    turn: self.turns.turn(),
                },
            },
            Role::Neither => PairStep::None,
        }
    }

    /// [`Pairer::push`] for an event that is neither an inquiry request nor
    /// a response: only whether it opens a turn (`marker`) matters.
    pub(crate) fn push_neither(&mut self, marker: bool) -> PairStep {
        self.push_turn(marker).unwrap_or(PairStep::None)
    }

    /// The turn part of a push: the step when the event ends the turn.
    fn push_turn(&mut self, marker: bool) -> Option<PairStep> {
        match self.turns.push_marker(marker) {
            turns::Step::Next { ended } => Some(PairStep::TurnEnded {
                turn: ended,
                orphan_requests: self.finish(),
            }),
            turns::Step::First | turns::Step::Same => None,
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
            WaitingEntry::Occupied(mut o) => {
                let tail = &mut o.get_mut().1;
                self.log[*tail - self.log_base].next = slot;
                *tail = slot;
            }
            WaitingEntry::Vacant(v) => {
                v.insert((slot, slot));
            }
        }
        (!added).then(|| self.base + self.firsts.get(k))
    }

    /// A response at `index`: the request it pairs with, if any.
    fn close(&mut self, id: &InquiryId, index: usize) -> Option<usize> {
        let k = self.keys.find(id.as_str())?;
        let WaitingEntry::Occupied(mut o) = self.waiting.entry(k) else {
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
    pub(crate) fn last_paired(&self, id: &InquiryId) -> Option<usize> {
        self.keys
            .find(id.as_str())
            .map(|k| self.last_paired.get(k))
            .filter(|&i| i != 0)
            .map(|i| self.base + i - 1)
    }

    /// Ends the stream: the current turn's unpaired requests, in stream order.
    pub(crate) fn finish(&mut self) -> Vec<usize> {
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
            self.waiting = hashbrown::HashMap::default();
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
    pub(crate) fn heap_bytes(&self) -> usize {
        self.keys.heap_bytes()
            + self.firsts.heap_bytes()
            + self.last_paired.heap_bytes()
            + self.waiting.allocation_size()
            + self.log.capacity() * size_of::<Logged>()
    }
}

/// Pairs a whole slice with the given role function.
fn pair_by<'a, K: Hash + Eq + Clone>(
    events: &'a [Event],
    role: fn(&'a Event) -> Role<K>,
) -> Pairing {
    pair_parts(events, |e| (turns::is_marker(&e.kind), role(e)))
}

/// The event's part in inquiry pairing read from raw JSON as
/// [`inquiry_role`] reads a typed event: an `inquiry_request` waits, an
/// `inquiry_response` closes, keyed by the `id` string (a missing or
/// non-string `id` is the empty key); whether it is a turn marker beside.
fn raw_inquiry_part(e: &serde_json::Value) -> (bool, Role<&str>) {
    let id = e
        .get("id")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default();
    let role = match e.get("type").and_then(serde_json::Value::as_str) {
        Some("inquiry_request") => Role::Request(id),
        Some("inquiry_response") => Role::Response(id),
        Some(_) | None => Role::Neither,
    };
    (turns::is_raw_marker(e), role)
}

/// [`pair`] on raw JSON events (the secret masks read events that are not
/// typed): the same turns and the same by-order pairing, one
/// implementation ([`pair_parts`]).
pub(crate) fn pair_raw(events: &[serde_json::Value]) -> Pairing {
    pair_parts(events, raw_inquiry_part)
}

/// The one pairing of a slice (rules `STREAM-TURNS`, `STREAM-PAIR-ORDER`,
/// `STREAM-PAIR-TURN-SCOPED`): `part` says of each event whether it is a
/// turn marker and what it plays.
fn pair_parts<'a, T, K: Hash + Eq + Clone>(
    events: &'a [T],
    part: impl Fn(&'a T) -> (bool, Role<K>),
) -> Pairing {
    let mut by_order: ByOrder<K> = ByOrder::default();
    let mut out = Pairing::default();
    let mut tracker = turns::Tracker::new();
    for (i, e) in events.iter().enumerate() {
        let (marker, role) = part(e);
        if let turns::Step::Next { ended } = tracker.push_marker(marker) {
            out.orphan_requests
                .extend(by_order.orphans().map(|r| (ended, r)));
            by_order.reset();
        }
        let turn = tracker.turn();
        match role {
            Role::Request(k) => {
                by_order.open(&k, i);
            }
            Role::Response(k) => match by_order.close(&k) {
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
    let turn = tracker.turn();
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use proptest::test_runner::TestCaseError;

    /// Rule: PERF-TURN-MEMORY — the pairer's own heap figure agrees with the
    /// allocator's count of what it holds after a turn of 20 000 requests,
    /// half of them still waiting: exactly (every map's figure is its
    /// allocation's size).
    #[test]
    fn the_pairers_heap_bytes_agree_with_the_allocator() {
        use crate::generate::stream::{answered, inquiry_request, turn_start};
        use crate::wire::InquiryId;
        const N: usize = 20_000;
        let events: Vec<Event> = std::iter::once(turn_start())
            .chain((0..N).flat_map(|k| {
                let id = InquiryId::new("c1", &format!("q{k}"), 1);
                let request = inquiry_request(id.clone());
                let response = (k % 2 == 0).then(|| answered(id, serde_json::json!(true)));
                std::iter::once(request).chain(response)
            }))
            .collect();
        let (held, p) = crate::alloc_count::held_by(|| {
            let mut p = Pairer::new();
            for (i, e) in events.iter().enumerate() {
                p.push(i, e);
            }
            p
        });
        crate::alloc_count::assert_counted("the pairer", p.heap_bytes(), held, 1.0);
    }

    /// Rule: PERF-TURN-MEMORY — at a turn's end the pairer keeps a log
    /// buffer of at most `RESET_KEEPS` entries for the next turn and gives
    /// back a bigger one (a huge turn's memory is not kept by the small
    /// turns after it). Checked at the boundary: 600 waiting requests grow
    /// the log to exactly `RESET_KEEPS`.
    #[test]
    fn a_turns_end_keeps_a_small_log_and_drops_a_big_one() {
        use crate::generate::stream::{inquiry_request, turn_start};
        use crate::wire::InquiryId;
        for (waiting, kept) in [(600, true), (1100, false)] {
            let mut p = Pairer::new();
            p.push(0, &turn_start());
            for k in 0..waiting {
                p.push(
                    1 + k,
                    &inquiry_request(InquiryId::new("c", &format!("q{k}"), 1)),
                );
            }
            let cap = p.log.capacity();
            assert_eq!(
                cap > RESET_KEEPS,
                !kept,
                "{waiting} waiting: capacity {cap}"
            );
            if kept {
                assert_eq!(cap, RESET_KEEPS, "the boundary itself");
            }
            let step = p.push(1 + waiting, &turn_start());
            assert!(matches!(step, PairStep::TurnEnded { .. }));
            assert_eq!(p.log.capacity() == cap, kept, "{waiting} waiting");
            assert_eq!(p.log.capacity() == 0, !kept, "{waiting} waiting");
        }
    }

    /// Rule: PERF-TURN-MEMORY — the same for the by-order pairer's queues
    /// and log at `reset`.
    #[test]
    fn by_order_reset_keeps_small_buffers_and_drops_big_ones() {
        for (keys, kept) in [(600, true), (1100, false)] {
            let mut b: ByOrder<usize> = ByOrder::default();
            for k in 0..keys {
                b.open(&k, k);
            }
            let (queues, log) = (b.queues.capacity(), b.log.capacity());
            if kept {
                assert_eq!(
                    (queues, log),
                    (RESET_KEEPS, RESET_KEEPS),
                    "the boundary itself"
                );
            } else {
                assert!(queues > RESET_KEEPS && log > RESET_KEEPS);
            }
            b.reset();
            assert_eq!(b.orphans().count(), 0);
            let after = (b.queues.capacity(), b.log.capacity());
            assert_eq!(
                after,
                if kept { (queues, log) } else { (0, 0) },
                "{keys} keys"
            );
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
        assert_eq!(b.close(&"y"), Some(11));
        // A key stays known after its queue empties: a repeat still names
        // the turn's first request with the key.
        assert_eq!(b.open(&"y", 14), Some(11));
        assert_eq!(b.close(&"z"), None);
        assert_eq!(b.orphans().collect::<Vec<_>>(), vec![10, 12, 14]);
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
        Reset,
    }

    fn ops() -> impl Strategy<Value = Vec<Op>> {
        let op = prop_oneof![
            4 => (0u8..6).prop_map(Op::Open),
            4 => (0u8..6).prop_map(Op::Close),
            1 => Just(Op::Reset),
        ];
        proptest::collection::vec(op, 0..60)
    }

    /// Runs `ops` on a `ByOrder` with hasher `S` and on a naive list, and
    /// checks every answer and the orphans after each step.
    fn agrees_with_naive<S: BuildHasher + Default>(ops: &[Op]) -> Result<(), TestCaseError> {
        let mut b: ByOrder<u8, S> = ByOrder::default();
        // (key, index, waiting) per request of the turn.
        let mut requests: Vec<(u8, usize, bool)> = Vec::new();
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
                    prop_assert_eq!(b.close(&k), want);
                }
                Op::Reset => {
                    requests.clear();
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
