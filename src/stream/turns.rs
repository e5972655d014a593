//! The turn boundary, decided once (rule `STREAM-TURNS`; RFD 082 "Inquiry ID
//! format": IDs are unique within a turn; RFD 004/005 draft "Thread
//! Decomposition").
//!
//! A turn is the run of events from one `turn_start` marker to the next;
//! events before the first marker form an implicit leading turn. Every
//! reader of turns asks [`opens_turn`]: the slice splitter [`scan`] (and so
//! [`turns()`] and `sanitize`), the streaming [`Tracker`] (and so the
//! pairer, the oracle and the CLI's `summary`), and the fuzz targets.

use crate::wire::{Event, EventKind};

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

impl Turn {
    /// The index of the `turn_start` marker that opened this turn, `None` for
    /// the implicit leading turn: a turn's identity that survives removals
    /// elsewhere in the stream, unlike its number.
    pub fn marker(&self, events: &[Event]) -> Option<usize> {
        events
            .get(self.start)
            .filter(|e| is_marker(&e.kind))
            .map(|_| self.start)
    }
}

/// Whether an event is a `turn_start` marker.
pub(super) fn is_marker(kind: &EventKind) -> bool {
    match kind {
        EventKind::TurnStart => true,
        EventKind::ChatRequest
        | EventKind::ChatResponse
        | EventKind::ToolCallRequest(_)
        | EventKind::ToolCallResponse(_)
        | EventKind::InquiryRequest(_)
        | EventKind::InquiryResponse(_)
        | EventKind::Other(_) => false,
    }
}

/// Whether the event at stream position `index` opens a turn (rule
/// `STREAM-TURNS`): the first event of a stream always does (its marker's
/// turn, or the implicit leading turn), and so does every later
/// `turn_start`. The one place the boundary is decided.
pub(crate) fn opens_turn(index: usize, kind: &EventKind) -> bool {
    opens_turn_at(index, is_marker(kind))
}

/// [`opens_turn`] for an event already known to be a `turn_start` marker
/// (`marker`) or not: the same rule for a reader of raw JSON events (the
/// secret masks), which reads the marker from the `type` tag.
pub(crate) fn opens_turn_at(index: usize, marker: bool) -> bool {
    index == 0 || marker
}

/// Whether a raw JSON event is a `turn_start` marker: its `type` tag is the
/// marker's ([`EventKind::tag`]).
pub(crate) fn is_raw_marker(event: &serde_json::Value) -> bool {
    event.get("type").and_then(serde_json::Value::as_str) == Some(EventKind::TurnStart.tag())
}

/// The turn numbered `index` that starts at `start`, if any event is left:
/// it runs to the next event that [`opens_turn`]. `visit` sees each of its
/// events in order, so a caller that needs a per-turn count reads the turn
/// once.
pub(crate) fn scan(
    events: &[Event],
    start: usize,
    index: usize,
    mut visit: impl FnMut(&Event),
) -> Option<Turn> {
    if start >= events.len() {
        return None;
    }
    let mut end = events.len();
    for (i, e) in events.iter().enumerate().skip(start) {
        if i > start && opens_turn(i, &e.kind) {
            end = i;
            break;
        }
        visit(e);
    }
    Some(Turn { index, start, end })
}

/// Splits a stream into turns (rule `STREAM-TURNS`). An empty stream has no
/// turn; a stream with events before its first marker has an implicit
/// leading turn. Every event belongs to exactly one turn.
pub fn turns(events: &[Event]) -> Vec<Turn> {
    let mut out: Vec<Turn> = Vec::new();
    while let Some(t) = scan(events, out.last().map_or(0, |t| t.end), out.len(), |_| {}) {
        out.push(t);
    }
    out
}

/// What one event did to the turn count, as [`Tracker::push`] reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// The stream's first event: turn 0 begins.
    First,
    /// A `turn_start` after the first event: turn `ended` is over and the
    /// next one begins.
    Next {
        /// The turn that ended.
        ended: usize,
    },
    /// The event sits in the current turn.
    Same,
}

/// The turn boundary for readers that see one event at a time.
#[derive(Debug, Clone, Default, Hash)]
pub(crate) struct Tracker {
    /// Events pushed so far.
    seen: usize,
    /// Turns begun so far.
    begun: usize,
}

impl Tracker {
    /// A tracker before the first event.
    pub(crate) fn new() -> Self {
        Tracker::default()
    }

    /// Feeds the next event of the stream.
    pub(crate) fn push(&mut self, kind: &EventKind) -> Step {
        self.push_marker(is_marker(kind))
    }

    /// Feeds the next event of the stream, known to be a `turn_start`
    /// marker (`marker`) or not ([`opens_turn_at`]).
    pub(crate) fn push_marker(&mut self, marker: bool) -> Step {
        let index = self.seen;
        self.seen += 1;
        if !opens_turn_at(index, marker) {
            return Step::Same;
        }
        self.begun += 1;
        match index {
            0 => Step::First,
            _ => Step::Next {
                ended: self.begun - 2,
            },
        }
    }

    /// The turn the last pushed event sits in (0 before any event).
    pub(crate) fn turn(&self) -> usize {
        self.begun.saturating_sub(1)
    }

    /// How many turns the events pushed so far make.
    #[cfg(feature = "cli")]
    pub(crate) fn count(&self) -> usize {
        self.begun
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(tags: &str) -> Vec<Event> {
        tags.chars()
            .map(|c| match c {
                'T' => Event::new(EventKind::TurnStart),
                'q' => Event::new(EventKind::ChatRequest),
                _ => Event::new(EventKind::ChatResponse),
            })
            .collect()
    }

    /// A stream's tags, its turns' ranges and their markers.
    type Case = (
        &'static str,
        &'static [(usize, usize)],
        &'static [Option<usize>],
    );

    /// Rule: STREAM-TURNS — hand-written streams and their turns: a leading
    /// marker opens turn 0, events before the first marker make an implicit
    /// turn, and the slice splitter and the streaming tracker agree.
    #[test]
    fn turns_of_hand_written_streams() {
        let cases: [Case; 5] = [
            ("", &[], &[]),
            ("T", &[(0, 1)], &[Some(0)]),
            ("qr", &[(0, 2)], &[None]),
            ("TqrTq", &[(0, 3), (3, 5)], &[Some(0), Some(3)]),
            ("qTTr", &[(0, 1), (1, 2), (2, 4)], &[None, Some(1), Some(2)]),
        ];
        for (tags, want, markers) in cases {
            let events = stream(tags);
            let got = turns(&events);
            let ranges: Vec<(usize, usize)> = got.iter().map(|t| (t.start, t.end)).collect();
            assert_eq!(ranges, want, "{tags}");
            let got_markers: Vec<Option<usize>> = got.iter().map(|t| t.marker(&events)).collect();
            assert_eq!(got_markers, markers, "{tags}");
            let mut tracker = Tracker::new();
            let mut starts = Vec::new();
            for (i, e) in events.iter().enumerate() {
                match tracker.push(&e.kind) {
                    Step::First => starts.push(i),
                    Step::Next { ended } => {
                        assert_eq!(ended + 1, starts.len(), "{tags}");
                        starts.push(i);
                    }
                    Step::Same => {}
                }
                assert_eq!(tracker.turn() + 1, starts.len(), "{tags}");
            }
            let want_starts: Vec<usize> = want.iter().map(|w| w.0).collect();
            assert_eq!(starts, want_starts, "{tags}");
            assert_eq!(tracker.count(), want.len(), "{tags}");
        }
    }
}
