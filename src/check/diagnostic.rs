//! What the oracle reports: one rule broken at one place in one stream, and
//! where that place is in the input.

use std::fmt;

use serde::Serialize;

use super::{Rule, Severity};

/// One rule broken at one place in one stream.
///
/// `Display` is one line a person can act on:
/// `events.json: turn 3, event 41: error: CHECK-PAIRED: inquiry request `…`
/// has no response in its turn`. Turns and events count from 0, as the reader's
/// errors do; the turn before the first `turn_start`, if any, is turn 0.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// The rule broken (`CHECK-*` from the oracle, `INV-*` from the
    /// model's invariants).
    pub rule: Rule,
    /// Error or warning (decision "Oracle checks: severity").
    pub severity: Severity,
    /// The file (or `<stdin>`, or whatever the caller named the input).
    /// Borrowed where the name is fixed text (the model's `trace`), so the
    /// many findings of an exploration do not each copy it (rule
    /// `PERF-FIXED-TEXT`).
    pub origin: std::borrow::Cow<'static, str>,
    /// The 0-based turn the event sits in.
    pub turn: usize,
    /// The 0-based index of the offending event in the stream.
    pub event_index: usize,
    /// The inquiry IDs and tool-call IDs involved.
    pub ids: Vec<String>,
    /// What is wrong. Never contains an answer value. Borrowed where the
    /// words are fixed, owned where they name IDs or counts (rule
    /// `PERF-FIXED-TEXT`).
    pub message: std::borrow::Cow<'static, str>,
    /// Where the offending event starts in the input (1-based line and byte
    /// column), when the checker read it from bytes ([`super::check_reader`]) and
    /// the event is among the last [`POSITION_WINDOW`] read; `None` for
    /// typed events ([`super::check_events`], the model's traces).
    /// In JSON, `line` and `column` beside the other fields (as the CLI's
    /// read errors write them), absent when unknown.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub position: Option<Position>,
}

/// A 1-based line and byte column in the input, as [`crate::wire::ReadError`]
/// counts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct Position {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in bytes.
    pub column: usize,
}

impl fmt::Display for Diagnostic {
    /// `origin: turn T, event N (line L, column C): severity: RULE: message`,
    /// the position only when it is known (the reader's errors write theirs
    /// the same way).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: turn {}, event {}",
            self.origin, self.turn, self.event_index
        )?;
        if let Some(p) = self.position {
            write!(f, " (line {}, column {})", p.line, p.column)?;
        }
        write!(f, ": {}: {}: {}", self.severity, self.rule, self.message)
    }
}

/// How many of the most recently read events' positions [`super::check_reader`]
/// keeps to place its diagnostics: 8 bytes each, so memory stays bounded
/// whatever the turn's length. Findings are flushed when their turn ends, so
/// a diagnostic about an event further back than this in a longer turn
/// carries no position.
pub(crate) const POSITION_WINDOW: usize = 1 << 16;

/// Whether a diagnostic about event `index`, reported when `read` events
/// have been read, is placed: its event is read and among the last
/// [`POSITION_WINDOW`].
pub(super) fn in_window(index: usize, read: usize) -> bool {
    index < read && read - index <= POSITION_WINDOW
}

/// The positions of the last [`POSITION_WINDOW`] events read, by event index.
pub(super) struct Positions {
    pub(super) ring: Vec<(u32, u32)>,
    next: usize,
}

impl Positions {
    pub(super) fn new() -> Self {
        Positions {
            ring: Vec::new(),
            next: 0,
        }
    }

    /// Records where the next event starts. Lines or columns past `u32`
    /// are not recorded (the event's diagnostics carry no position).
    pub(super) fn push(&mut self, line: usize, column: usize) {
        let at = (
            u32::try_from(line).unwrap_or(0),
            u32::try_from(column).unwrap_or(0),
        );
        if self.ring.len() < POSITION_WINDOW {
            self.ring.push(at);
        } else {
            self.ring[self.next % POSITION_WINDOW] = at;
        }
        self.next += 1;
    }

    /// Where event `index` starts, if it is still in the window.
    pub(super) fn get(&self, index: usize) -> Option<Position> {
        if !in_window(index, self.next) {
            return None;
        }
        match self.ring.get(index % POSITION_WINDOW) {
            Some(&(line, column)) if line > 0 && column > 0 => Some(Position {
                line: line as usize,
                column: column as usize,
            }),
            _ => None,
        }
    }
}

/// Whether `c` must be escaped in a printed diagnostic: a control
/// character, a line or paragraph separator (U+2028, U+2029: they split a
/// line in many viewers), or a bidirectional formatting character (U+061C,
/// U+200E, U+200F, U+202A–U+202E, U+2066–U+2069: they reorder what a
/// person sees, "Trojan Source").
fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}'
                | '\u{2029}'
                | '\u{061c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
        )
}

/// Escapes control, separator and bidi characters (IDs and tool names come
/// from the stream and may hold them), so a diagnostic always prints as one
/// line that shows what is in the stream.
pub(crate) fn one_line(message: String) -> String {
    // Every character `needs_escape` takes is a byte below 0x20, 0x7f, or
    // encoded in UTF-8 from a lead byte 0xc2 (U+0080 to U+009F), 0xd8
    // (U+061C) or 0xe2 (U+200E to U+2069): a message without those bytes
    // needs no character decoded.
    let may_need = |b: &u8| matches!(b, 0x00..=0x1f | 0x7f | 0xc2 | 0xd8 | 0xe2);
    if !message.as_bytes().iter().any(may_need) || !message.chars().any(needs_escape) {
        return message;
    }
    message
        .chars()
        .map(|c| {
            if needs_escape(c) {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}
