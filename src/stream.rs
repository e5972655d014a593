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
//! [`sanitize()`] repairs orphans turn by turn (the `STREAM-SANITIZE` family of
//! rules in `spec/RULES.md`) and [`provider_view`] is the one place where
//! events are filtered for providers (rule `STREAM-PROVIDER-VIEW`).
//!
//! Everything here is one pass (or a fixed number of passes) over the events,
//! in time linear in their number, whatever the IDs (rule `STREAM-LINEAR`):
//! requests wait in per-ID queues, orphans are read back from a per-turn log
//! in stream order (no sorting), and a map that served a turn is dropped
//! rather than cleared, so its cost is paid once by the events that grew it.

pub(crate) mod keys;
pub(crate) mod pairing;
pub mod sanitize;
pub(crate) mod secrets;
pub mod turns;

pub use pairing::{Pair, PairStep, Pairer, Pairing, pair, pair_tool_calls};
#[cfg(feature = "testkit")]
pub(crate) use sanitize::base64;
pub use sanitize::{INTERRUPTED_TOOL_CALL, Injected, Orphan, Removed, Sanitized, sanitize};
pub use turns::{Turn, turns};

use crate::wire::Event;

/// The events a provider sees, in stream order: the one filtering point of
/// RFD 004/005 draft "Thread Decomposition" (rule `STREAM-PROVIDER-VIEW`).
///
/// Inquiry events, turn markers and unknown kinds never pass (the allowlist
/// of [`crate::wire::EventKind::is_provider_visible`]). The view filters only:
/// run [`sanitize()`] first to get a view that keeps the provider's tool-call
/// request/response contract.
pub fn provider_view(events: &[Event]) -> impl DoubleEndedIterator<Item = &Event> + Clone {
    provider_view_indexed(events).map(|(_, e)| e)
}

/// [`provider_view`] with each event's index in the full stream, for
/// diagnostics that point back at the persisted stream.
pub(crate) fn provider_view_indexed(
    events: &[Event],
) -> impl DoubleEndedIterator<Item = (usize, &Event)> + Clone {
    events
        .iter()
        .enumerate()
        .filter(|(_, e)| e.is_provider_visible())
}

#[cfg(all(test, feature = "testkit"))]
mod stream_props_tests;

#[cfg(all(test, feature = "cli"))]
mod corpus_tests;
#[cfg(all(test, feature = "cli"))]
mod sanitize_clean_tests;
#[cfg(all(test, feature = "cli"))]
mod stream_files_tests;
#[cfg(all(test, feature = "testkit"))]
mod stream_ops_tests;
