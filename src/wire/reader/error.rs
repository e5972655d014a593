//! Why a stream could not be read.
//!
//! One opaque error type with a [`ReadErrorKind`] to branch on, in the style
//! of `regex` and `jiff`: the kinds are few and stable, the message is for a
//! person, and an I/O failure keeps the [`std::io::Error`] as its
//! [`source`](std::error::Error::source).

use std::fmt;
use std::io;
use std::sync::Arc;

/// What kind of failure a [`ReadError`] is. Branch on this, not on the
/// message text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ReadErrorKind {
    /// The bytes are not JSON of a stream's layout: a stray byte, a missing
    /// `,` or `]`, trailing data, invalid JSON inside an event, a broken
    /// byte-order mark.
    Syntax,
    /// The input ended where more was expected: empty input, an event array
    /// not closed, an event object cut short.
    UnexpectedEnd,
    /// Reading the input failed; the [`io::Error`] is the error's source.
    Io,
    /// Valid JSON that is not an event the RFDs describe: no `type`, a
    /// missing or mistyped field, a repeated field, an inquiry payload of
    /// the wrong shape (rules `WIRE-EVENT-SHAPE`, `WIRE-EVENT-DUPLICATE`).
    Shape,
}

impl fmt::Display for ReadErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ReadErrorKind::Syntax => "syntax error",
            ReadErrorKind::UnexpectedEnd => "unexpected end of input",
            ReadErrorKind::Io => "I/O error",
            ReadErrorKind::Shape => "not an event",
        })
    }
}

/// Why a stream could not be read. Its `Display` is one line a person can act
/// on: `origin: event N (line L, column C): message`.
#[derive(Debug, Clone)]
pub struct ReadError {
    kind: ReadErrorKind,
    origin: String,
    event_index: Option<usize>,
    line: usize,
    column: usize,
    message: String,
    /// Shared so the error stays `Clone` (an [`io::Error`] is not).
    io: Option<Arc<io::Error>>,
}

impl ReadError {
    /// A new error without an I/O source.
    pub(crate) fn new(
        kind: ReadErrorKind,
        origin: impl Into<String>,
        event_index: Option<usize>,
        line: usize,
        column: usize,
        message: impl Into<String>,
    ) -> Self {
        ReadError {
            kind,
            origin: origin.into(),
            event_index,
            line,
            column,
            message: message.into(),
            io: None,
        }
    }

    /// An I/O failure at a position; the message names it, the source keeps it.
    pub(crate) fn io(
        origin: impl Into<String>,
        event_index: Option<usize>,
        line: usize,
        column: usize,
        e: io::Error,
    ) -> Self {
        let mut err = ReadError::new(
            ReadErrorKind::Io,
            origin,
            event_index,
            line,
            column,
            format!("I/O error: {e}"),
        );
        err.io = Some(Arc::new(e));
        err
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ReadErrorKind {
        self.kind
    }

    /// The file name, `<stdin>` or whatever the caller named the input.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The 0-based index of the event being read, if one had started.
    pub fn event_index(&self) -> Option<usize> {
        self.event_index
    }

    /// 1-based line of the error.
    pub fn line(&self) -> usize {
        self.line
    }

    /// 1-based column (in bytes) of the error.
    pub(crate) fn column(&self) -> usize {
        self.column
    }

    /// What was wrong and what was expected, without the position.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// Equal when everything a caller can observe is equal (the I/O source is
/// compared through the message, which quotes it).
impl PartialEq for ReadError {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind
            && self.origin == other.origin
            && self.event_index == other.event_index
            && self.line == other.line
            && self.column == other.column
            && self.message == other.message
            && self.io.is_some() == other.io.is_some()
    }
}

impl Eq for ReadError {}

impl fmt::Display for ReadError {
    /// One line, always: the origin and the message may quote input (a file
    /// name, a field name, an `outcome`), so their control characters and
    /// line separators are written escaped (rule `WIRE-READ-ERRORS`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_one_line(f, &self.origin)?;
        f.write_str(": ")?;
        if let Some(i) = self.event_index {
            write!(f, "event {i} ")?;
        }
        write!(f, "(line {}, column {}): ", self.line, self.column)?;
        write_one_line(f, &self.message)
    }
}

/// Writes `s` with control characters and Unicode line separators escaped.
fn write_one_line(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    for c in s.chars() {
        if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') {
            write!(f, "{}", c.escape_default())?;
        } else {
            write!(f, "{c}")?;
        }
    }
    Ok(())
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.io
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind. The exhaustive match (checked when compiled, never run)
    /// makes a new kind fail to compile here until it is listed.
    fn every_kind() -> [ReadErrorKind; 4] {
        let _listed = |k: ReadErrorKind| match k {
            ReadErrorKind::Syntax
            | ReadErrorKind::UnexpectedEnd
            | ReadErrorKind::Io
            | ReadErrorKind::Shape => {}
        };
        [
            ReadErrorKind::Syntax,
            ReadErrorKind::UnexpectedEnd,
            ReadErrorKind::Io,
            ReadErrorKind::Shape,
        ]
    }

    /// Rule: WIRE-READ-ERRORS — a kind's `Display` is a name a person can
    /// read in a log line: not empty, one line, and no two kinds share it
    /// (a program branches on the kind itself; a person has only the
    /// words).
    #[test]
    fn every_read_error_kind_has_its_own_one_line_name() {
        let names: Vec<String> = every_kind().iter().map(ToString::to_string).collect();
        for (k, n) in every_kind().iter().zip(&names) {
            assert!(!n.trim().is_empty(), "{k:?} displays as {n:?}");
            assert!(!n.contains(['\n', '\r']), "{k:?} displays as {n:?}");
        }
        let distinct: std::collections::HashSet<&String> = names.iter().collect();
        assert_eq!(distinct.len(), names.len(), "{names:?}");
    }
}
