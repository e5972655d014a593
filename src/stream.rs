//! Stream operations: turns and inquiry pairing (RFD 082 "Inquiry ID format",
//! Phase 3).
//!
//! A turn is the run of events from one `turn_start` marker to the next;
//! events before the first marker form an implicit leading turn (rule
//! `STREAM-TURNS`). Within a turn, each `InquiryRequest` pairs with the next
//! unpaired `InquiryResponse` of the same ID (rule `STREAM-PAIR-ORDER`): new
//! three-segment IDs are unique and pair uniquely, legacy two-segment IDs that
//! collide pair by order. Pairing never crosses a turn boundary (rule
//! `STREAM-PAIR-TURN-SCOPED`) and never looks inside an ID.
//!
//! Everything here is one pass over the events, in time linear in their
//! number, whatever the IDs (rule `STREAM-LINEAR`).

use std::collections::{HashMap, VecDeque};

use crate::wire::{Event, EventKind, InquiryId};

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
/// leading turn.
pub fn turns(events: &[Event]) -> Vec<Turn> {
    let mut out: Vec<Turn> = Vec::new();
    let mut start = 0;
    for (i, e) in events.iter().enumerate() {
        if matches!(e.kind, EventKind::TurnStart) && i > start {
            out.push(Turn {
                index: out.len(),
                start,
                end: i,
            });
            start = i;
        }
    }
    if start < events.len() {
        out.push(Turn {
            index: out.len(),
            start,
            end: events.len(),
        });
    }
    out
}

/// A matched request/response, by event index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Pair {
    /// The turn both events sit in.
    pub turn: usize,
    /// Index of the `inquiry_request`.
    pub request: usize,
    /// Index of the `inquiry_response`.
    pub response: usize,
}

/// Everything pairing found in a stream.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pairing {
    /// Matched pairs, in the order their responses appear.
    pub pairs: Vec<Pair>,
    /// Requests with no response later in their turn: `(turn, index)`.
    pub orphan_requests: Vec<(usize, usize)>,
    /// Responses with no unpaired request earlier in their turn: `(turn, index)`.
    pub orphan_responses: Vec<(usize, usize)>,
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
    Opened,
    /// A response matched the earliest waiting request with its ID.
    Paired(Pair),
    /// A response matched no waiting request in its turn.
    OrphanResponse {
        /// Its turn.
        turn: usize,
    },
}

/// Incremental pairing, one event at a time, with memory proportional to the
/// requests waiting in the current turn. The oracle uses it to judge streams
/// of any size; [`pair`] uses it on a slice.
#[derive(Debug, Default)]
pub struct Pairer {
    turn: usize,
    seen_any: bool,
    waiting: HashMap<InquiryId, VecDeque<usize>>,
    waiting_count: usize,
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

    /// Feeds the event at `index`.
    pub fn push(&mut self, index: usize, event: &Event) -> PairStep {
        let first = !self.seen_any;
        self.seen_any = true;
        match &event.kind {
            EventKind::TurnStart if first => PairStep::None,
            EventKind::TurnStart => {
                let ended = self.turn;
                let orphan_requests = self.drain_waiting();
                self.turn += 1;
                PairStep::TurnEnded {
                    turn: ended,
                    orphan_requests,
                }
            }
            EventKind::InquiryRequest(r) => {
                self.waiting.entry(r.id.clone()).or_default().push_back(index);
                self.waiting_count += 1;
                PairStep::Opened
            }
            EventKind::InquiryResponse(r) => {
                let id = r.id();
                let found = match self.waiting.get_mut(id) {
                    Some(q) => {
                        let req = q.pop_front();
                        if q.is_empty() {
                            self.waiting.remove(id);
                        }
                        req
                    }
                    None => None,
                };
                match found {
                    Some(request) => {
                        self.waiting_count -= 1;
                        PairStep::Paired(Pair {
                            turn: self.turn,
                            request,
                            response: index,
                        })
                    }
                    None => PairStep::OrphanResponse { turn: self.turn },
                }
            }
            EventKind::ChatRequest
            | EventKind::ChatResponse
            | EventKind::ToolCallRequest(_)
            | EventKind::ToolCallResponse(_)
            | EventKind::Other(_) => PairStep::None,
        }
    }

    /// Ends the stream: the current turn's unpaired requests, in stream order.
    pub fn finish(&mut self) -> Vec<usize> {
        self.drain_waiting()
    }

    fn drain_waiting(&mut self) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::with_capacity(self.waiting_count);
        for (_, q) in self.waiting.drain() {
            out.extend(q);
        }
        out.sort_unstable();
        self.waiting_count = 0;
        // A map that grew for one huge turn is dropped rather than cleared, so
        // thousands of small turns after it do not each pay for its capacity.
        if self.waiting.capacity() > 1024 {
            self.waiting = HashMap::new();
        }
        out
    }
}

/// Pairs every inquiry in a stream (rules `STREAM-PAIR-ORDER`,
/// `STREAM-PAIR-TURN-SCOPED`).
pub fn pair(events: &[Event]) -> Pairing {
    let mut p = Pairer::new();
    let mut out = Pairing::default();
    for (i, e) in events.iter().enumerate() {
        match p.push(i, e) {
            PairStep::None | PairStep::Opened => {}
            PairStep::TurnEnded {
                turn,
                orphan_requests,
            } => out
                .orphan_requests
                .extend(orphan_requests.into_iter().map(|r| (turn, r))),
            PairStep::Paired(pair) => out.pairs.push(pair),
            PairStep::OrphanResponse { turn } => out.orphan_responses.push((turn, i)),
        }
    }
    let turn = p.turn();
    out.orphan_requests
        .extend(p.finish().into_iter().map(|r| (turn, r)));
    out
}
