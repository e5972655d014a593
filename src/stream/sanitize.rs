//! Turn-scoped repair (RFD 082 Phase 3, the `STREAM-SANITIZE` family of
//! rules): [`sanitize`] and its account of what it changed.

use std::collections::VecDeque;
use std::ops::Range;

use serde::Serialize;
use serde_json::Value;

use super::pairing::{ByOrder, Role, inquiry_role, tool_call_role};
use super::turns::{self, Turn};
use crate::wire::{Event, EventKind, InquiryId, Opaque, ToolCallResponse};

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
/// - tool calls pair by ID, by order, within their cycle: the events between
///   two chat events (`chat_request`/`chat_response`) of the turn, since a
///   call's request is "immediately followed by" its response (RFD 004/005
///   draft). A `tool_call_response` with no unpaired request earlier in its
///   cycle is removed; a `tool_call_request` with no response later in its
///   cycle gets a synthetic error `tool_call_response` (content: the base64
///   of [`INTERRUPTED_TOOL_CALL`]; `is_error: true`; the timestamp of the
///   input event just before it), placed immediately before the chat event
///   that ends its cycle, or at the end of the turn if none does; several
///   land in request order (rules `STREAM-SANITIZE-TOOL-ORPHANS`,
///   `STREAM-SANITIZE-ADJACENT`, `STREAM-SANITIZE-ADDS-NOTHING`);
/// - every other event is kept, in order, in its turn (rules
///   `STREAM-SANITIZE-KEEPS-PAIRS`, `STREAM-SANITIZE-TURN-SCOPED`), including
///   inquiry pairs that sit outside their tool call: placement is the
///   oracle's to judge (rule `STREAM-SANITIZE-PLACEMENT-LEFT`).
///
/// The result has no orphan of either kind (rule `STREAM-SANITIZE-NO-ORPHANS`)
/// and sanitizing it again changes nothing (rule `STREAM-SANITIZE-IDEMPOTENT`).
/// Linear time (rule `STREAM-LINEAR`).
///
/// # Examples
///
/// A crash left an inquiry request without its response: the repair drops
/// the orphan, and a second repair changes nothing.
///
/// ```
/// use inquiry_model::stream::sanitize;
/// use inquiry_model::wire::Stream;
///
/// let stream = Stream::from_slice(br#"[
///   {"type": "turn_start"},
///   {"type": "tool_call_request", "id": "c1", "name": "fs", "arguments": {}},
///   {"type": "inquiry_request", "id": "c1.confirm.1", "source": {"source": "tool", "name": "fs"},
///    "question": {"text": "Apply?", "answer_type": {"type": "boolean"}}},
///   {"type": "tool_call_response", "id": "c1", "content": "done", "is_error": false}
/// ]"#, "events.json")?;
/// let repaired = sanitize(stream.events);
/// assert_eq!(repaired.removed.len(), 1, "the orphan request");
/// assert!(repaired.events.iter().all(|e| e.as_inquiry_request().is_none()));
/// assert!(sanitize(repaired.events.clone()).is_unchanged());
/// # Ok::<(), inquiry_model::wire::ReadError>(())
/// ```
pub fn sanitize(mut events: Vec<Event>) -> Sanitized {
    // The stream is repaired one turn at a time, in the input's own buffer:
    // a turn is planned (its orphans found) and then written out at once,
    // while its events are still in the cache, so each event is read from
    // memory once however long the stream.
    let mut out = Writer::new(events.len());
    let mut placer = Placer::default();
    let (mut start, mut index) = (0, 0);
    while let Some(t) = scan_turn(&events, start, index) {
        let plan = plan(&events, t, &mut placer, &mut out.removed);
        out.apply(&mut events, t.turn.start..t.turn.end, plan);
        (start, index) = (t.turn.end, index + 1);
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

/// The turn that starts at `start` ([`turns::scan`], the one place the
/// boundary is decided), with its request counts.
fn scan_turn(events: &[Event], start: usize, index: usize) -> Option<Scanned> {
    let (mut inquiry_requests, mut tool_requests) = (0, 0);
    let turn = turns::scan(events, start, index, |e| match e.kind {
        EventKind::InquiryRequest(_) => inquiry_requests += 1,
        EventKind::ToolCallRequest(_) => tool_requests += 1,
        EventKind::TurnStart
        | EventKind::ChatRequest
        | EventKind::ChatResponse
        | EventKind::ToolCallResponse(_)
        | EventKind::InquiryResponse(_)
        | EventKind::Other(_) => {}
    })?;
    Some(Scanned {
        turn,
        inquiry_requests,
        tool_requests,
    })
}

/// A synthetic response to insert before input index `at`.
struct Injection {
    at: usize,
    request: usize,
    turn: usize,
    event: Event,
}

/// The repair of a turn.
struct Plan {
    /// Per input event of the turn, from its first: `Some(reason)` if it
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

/// Plans the repair of `scanned`, one turn of `events`. The removed events
/// go straight to the report, `removed`.
fn plan(
    events: &[Event],
    scanned: Scanned,
    placer: &mut Placer,
    removed: &mut Vec<Removed>,
) -> Plan {
    let turn = scanned.turn;
    let offset = turn.start;
    let mut fate: Vec<Option<Orphan>> = vec![None; turn.end - turn.start];
    let mut injections: Vec<Injection> = Vec::new();
    let mut inquiries: ByOrder<&InquiryId> = ByOrder::default();
    let mut tools: ByOrder<&str> = ByOrder::default();
    // Orphaned tool calls as `(position, request)`: in stream order, each
    // placed before the chat event that ends its cycle (or at the turn's
    // end), so already in (position, request) order.
    let mut orphaned: Vec<(usize, usize)> = Vec::new();
    inquiries.reserve(scanned.inquiry_requests);
    tools.reserve(scanned.tool_requests);
    for i in turn.start..turn.end {
        let e = &events[i];
        if ends_tool_exchange(&e.kind) {
            // RFD 004/005 draft: tool call requests are "immediately
            // followed by tool call responses". A call still open at a
            // chat event was interrupted: its response goes before the
            // chat event, and a later response of its ID (a reused ID)
            // belongs to a call of a later cycle, never to it.
            orphaned.extend(tools.orphans().map(|r| (i, r)));
            tools.reset();
        }
        match inquiry_role(e) {
            Role::Request(id) => {
                inquiries.open(&id, i);
            }
            Role::Response(id) => {
                if inquiries.close(&id).is_none() {
                    fate[i - offset] = Some(Orphan::InquiryResponse);
                }
            }
            Role::Neither => {}
        }
        match tool_call_role(e) {
            Role::Request(id) => {
                tools.open(&id, i);
            }
            Role::Response(id) => {
                if tools.close(&id).is_none() {
                    fate[i - offset] = Some(Orphan::ToolCallResponse);
                }
            }
            Role::Neither => {}
        }
    }
    for r in inquiries.orphans() {
        fate[r - offset] = Some(Orphan::InquiryRequest);
    }
    orphaned.extend(tools.orphans().map(|r| (turn.end, r)));
    placer.place(events, turn, &orphaned, &mut injections);
    report(turn, &fate, removed);
    Plan { fate, injections }
}

/// Adds the removed events of `turn`, whose fates are `fate`, to the report.
fn report(turn: Turn, fate: &[Option<Orphan>], removed: &mut Vec<Removed>) {
    removed.extend((turn.start..).zip(fate).filter_map(|(index, fate)| {
        fate.map(|reason| Removed {
            index,
            turn: turn.index,
            reason,
        })
    }));
}

/// Builds the synthetic responses of a turn; the content is built once.
#[derive(Default)]
struct Placer {
    /// The synthetic content, built once.
    content: Option<Opaque>,
}

impl Placer {
    /// Appends a synthetic response for each orphaned tool call of `turn`,
    /// given as `(position, request)` in that order, to `out`.
    fn place(
        &mut self,
        events: &[Event],
        turn: Turn,
        orphaned: &[(usize, usize)],
        out: &mut Vec<Injection>,
    ) {
        let content = self.content.get_or_insert_with(|| {
            Opaque::from_value(&Value::String(base64(INTERRUPTED_TOOL_CALL.as_bytes())))
        });
        for &(at, request) in orphaned {
            // `orphaned` only holds tool-call requests.
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

    /// Decision "Stream: sanitize works in place" (`docs/decisions/performance.md`, rule
    /// `STREAM-LINEAR`): the repair is written into the input's own buffer
    /// one turn at a time, so beyond what it returns it holds at most one
    /// turn's plan and the few events waiting for a free slot, however long
    /// the stream. The stream here has one orphaned tool call in its first
    /// turn (an injected response, so every later event waits for a slot)
    /// and 50 000 short turns after it. A writer that kept the waiting
    /// events until the end (a second buffer the stream's size), or sized a
    /// turn's plan by its position in the stream, holds hundreds of
    /// kilobytes more and fails (35 MB and 200 KB measured; the correct
    /// writer, 1 440 bytes).
    #[test]
    fn repairing_a_long_stream_holds_one_turn_beyond_its_output() {
        use crate::generate::stream::{chat_request, tool_call_request, turn_start};
        const TURNS: usize = 50_000;
        const TRANSIENT: usize = 64 * 1024;
        let mut events = vec![turn_start(), tool_call_request("c0")];
        for _ in 0..TURNS {
            events.extend([turn_start(), chat_request()]);
        }
        let before = events.capacity();
        let (peak, repaired) = crate::alloc_count::peak_above(|| sanitize(events));
        assert_eq!(repaired.injected.len(), 1, "the orphaned call's response");
        assert_eq!(repaired.events.len(), 2 * TURNS + 3);
        // What the run allocated and returns: the input buffer's growth (if
        // the injected event did not fit) and the account of the repair.
        let output = (repaired.events.capacity() - before) * std::mem::size_of::<Event>()
            + repaired.origin.capacity() * std::mem::size_of::<Option<usize>>()
            + repaired.injected.capacity() * std::mem::size_of::<Injected>()
            + repaired.removed.capacity() * std::mem::size_of::<Removed>();
        let transient = peak.saturating_sub(output);
        assert!(
            transient <= TRANSIENT,
            "sanitize held {transient} bytes beyond its output of {output} (peak {peak})"
        );
    }
}
