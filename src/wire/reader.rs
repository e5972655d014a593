//! Reading and writing whole stream files, one event at a time.
//!
//! A stream file is a JSON array of event objects or JSON Lines (one object
//! after another). The reader never builds a tree of the whole file: a small
//! scanner finds where each top-level object ends (tracking strings, escapes
//! and bracket depth, no recursion), and only that object is handed to
//! serde_json. Memory is one event; any byte sequence yields events or a
//! [`ReadError`] that names the origin, the event index, the line and column,
//! and what was expected (rule `WIRE-READ-ERRORS`).

use std::fmt;
use std::io::{self, BufRead, Write};

use super::{Event, RawEvent, significant_bytes};

/// The two file layouts a stream may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `[ {…}, {…} ]`.
    Array,
    /// `{…}\n{…}\n`.
    JsonLines,
}

/// Why a stream could not be read. Its `Display` is one line a person can act
/// on: `origin: event N (line L, column C): message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    /// The file name, `<stdin>` or whatever the caller named the input.
    pub origin: String,
    /// The 0-based index of the event being read, if one had started.
    pub event_index: Option<usize>,
    /// 1-based line of the error.
    pub line: usize,
    /// 1-based column (in bytes) of the error.
    pub column: usize,
    /// What was wrong and what was expected.
    pub message: String,
}

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

impl std::error::Error for ReadError {}

/// Iterates over the events of a stream file, reading as it goes.
///
/// Yields [`RawEvent`]s; [`EventReader::typed`] maps them to [`Event`]s.
/// After the first error it yields nothing more.
pub struct EventReader<R> {
    inner: R,
    origin: String,
    format: Option<Format>,
    index: usize,
    line: usize,
    column: usize,
    buf: Vec<u8>,
    done: bool,
}

impl<R: BufRead> EventReader<R> {
    /// Reads from `inner`; `origin` names it in errors.
    pub fn new(inner: R, origin: impl Into<String>) -> Self {
        EventReader {
            inner,
            origin: origin.into(),
            format: None,
            index: 0,
            line: 1,
            column: 1,
            buf: Vec::new(),
            done: false,
        }
    }

    /// The layout detected from the first byte, once reading has begun.
    pub fn format(&self) -> Option<Format> {
        self.format
    }

    /// The same events, typed.
    pub fn typed(self) -> impl Iterator<Item = Result<Event, ReadError>> {
        let origin = self.origin.clone();
        let mut index = 0usize;
        self.map(move |raw| {
            let i = index;
            index += 1;
            let (raw, line, column) = raw?;
            raw.into_event().map_err(|message| ReadError {
                origin: origin.clone(),
                event_index: Some(i),
                line,
                column,
                message,
            })
        })
    }

    fn err(&self, event_index: Option<usize>, message: impl Into<String>) -> ReadError {
        ReadError {
            origin: self.origin.clone(),
            event_index,
            line: self.line,
            column: self.column,
            message: message.into(),
        }
    }

    fn io_err(&self, e: io::Error) -> ReadError {
        self.err(Some(self.index), format!("I/O error: {e}"))
    }

    /// Advances the position past `bytes`.
    fn advance(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if b == b'\n' {
                self.line += 1;
                self.column = 1;
            } else {
                self.column += 1;
            }
        }
    }

    /// Skips whitespace; returns the next byte without consuming it.
    fn peek_non_ws(&mut self) -> Result<Option<u8>, ReadError> {
        loop {
            let chunk = match self.inner.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(self.io_err(e)),
            };
            if chunk.is_empty() {
                return Ok(None);
            }
            let n = chunk
                .iter()
                .position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
                .unwrap_or(chunk.len());
            let found = chunk.get(n).copied();
            let skipped = chunk[..n].to_vec();
            self.inner.consume(n);
            self.advance(&skipped);
            if found.is_some() {
                return Ok(found);
            }
        }
    }

    fn consume_byte(&mut self, b: u8) {
        self.inner.consume(1);
        self.advance(&[b]);
    }

    /// Reads one top-level object (the next byte is `{`) into `self.buf`.
    fn scan_object(&mut self) -> Result<(), ReadError> {
        self.buf.clear();
        let mut depth = 0usize;
        let mut in_string = false;
        let mut escape = false;
        loop {
            let chunk = match self.inner.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(self.io_err(e)),
            };
            if chunk.is_empty() {
                // Report where the input ends, not where the event began.
                let buf = std::mem::take(&mut self.buf);
                self.advance(&buf);
                return Err(self.err(
                    Some(self.index),
                    "unexpected end of input inside an event object (expected `}`)",
                ));
            }
            let mut end = None;
            for (i, &b) in chunk.iter().enumerate() {
                if in_string {
                    if escape {
                        escape = false;
                    } else if b == b'\\' {
                        escape = true;
                    } else if b == b'"' {
                        in_string = false;
                    }
                } else {
                    match b {
                        b'"' => in_string = true,
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                end = Some(i + 1);
                                break;
                            }
                        }
                        _ => {}
                    }
                }
            }
            let n = end.unwrap_or(chunk.len());
            self.buf.extend_from_slice(&chunk[..n]);
            self.inner.consume(n);
            if end.is_some() {
                return Ok(());
            }
        }
    }

    /// Reads the next raw event with its starting line and column.
    fn next_raw(&mut self) -> Result<Option<(RawEvent, usize, usize)>, ReadError> {
        let first = self.peek_non_ws()?;
        if self.format.is_none() {
            match first {
                None => {
                    return Err(self.err(
                        None,
                        "empty input: expected a JSON array of events or JSON Lines",
                    ));
                }
                Some(b'[') => {
                    self.format = Some(Format::Array);
                    self.consume_byte(b'[');
                    return match self.peek_non_ws()? {
                        Some(b']') => {
                            self.consume_byte(b']');
                            self.expect_end()?;
                            Ok(None)
                        }
                        _ => self.read_object(),
                    };
                }
                Some(b'{') => {
                    self.format = Some(Format::JsonLines);
                    return self.read_object();
                }
                Some(b) => {
                    return Err(self.err(
                        None,
                        format!(
                            "expected `[` (a JSON array of events) or `{{` (JSON Lines), found {}",
                            show_byte(b)
                        ),
                    ));
                }
            }
        }
        match (self.format, first) {
            (Some(Format::JsonLines), None) => Ok(None),
            (Some(Format::JsonLines), Some(_)) => self.read_object(),
            (Some(Format::Array), Some(b',')) => {
                self.consume_byte(b',');
                match self.peek_non_ws()? {
                    Some(b']') => Err(self.err(
                        Some(self.index),
                        "trailing `,` before `]`: expected an event object",
                    )),
                    _ => self.read_object(),
                }
            }
            (Some(Format::Array), Some(b']')) => {
                self.consume_byte(b']');
                self.expect_end()?;
                Ok(None)
            }
            (Some(Format::Array), Some(b)) => Err(self.err(
                Some(self.index),
                format!("expected `,` or `]` after an event, found {}", show_byte(b)),
            )),
            (Some(Format::Array), None) => Err(self.err(
                Some(self.index),
                "unexpected end of input: the event array is not closed (expected `]`)",
            )),
            (None, _) => unreachable!("format is set above"),
        }
    }

    fn expect_end(&mut self) -> Result<(), ReadError> {
        match self.peek_non_ws()? {
            None => Ok(()),
            Some(b) => Err(self.err(
                None,
                format!(
                    "trailing data after the event array: found {}",
                    show_byte(b)
                ),
            )),
        }
    }

    fn read_object(&mut self) -> Result<Option<(RawEvent, usize, usize)>, ReadError> {
        match self.peek_non_ws()? {
            Some(b'{') => {}
            Some(b) => {
                return Err(self.err(
                    Some(self.index),
                    format!("expected an event object `{{`, found {}", show_byte(b)),
                ));
            }
            None => {
                return Err(self.err(
                    Some(self.index),
                    "unexpected end of input: expected an event object",
                ));
            }
        }
        let (line, column) = (self.line, self.column);
        self.scan_object()?;
        let parsed = serde_json::from_slice::<RawEvent>(&self.buf);
        let buf = std::mem::take(&mut self.buf);
        self.advance(&buf);
        self.buf = buf;
        match parsed {
            Ok(raw) => {
                self.index += 1;
                Ok(Some((raw, line, column)))
            }
            Err(e) => {
                // serde_json counts from the event's first byte.
                let (el, ec) = (e.line().max(1), e.column().max(1));
                let (l, c) = if el == 1 {
                    (line, column + ec - 1)
                } else {
                    (line + el - 1, ec)
                };
                Err(ReadError {
                    origin: self.origin.clone(),
                    event_index: Some(self.index),
                    line: l,
                    column: c,
                    message: strip_position(&e.to_string()),
                })
            }
        }
    }
}

impl<R: BufRead> Iterator for EventReader<R> {
    /// A raw event with the line and column where it starts.
    type Item = Result<(RawEvent, usize, usize), ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.next_raw() {
            Ok(Some(x)) => Some(Ok(x)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

/// serde_json appends " at line L column C"; the reader reports its own.
pub(super) fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_owned(),
        None => msg.to_owned(),
    }
}

fn show_byte(b: u8) -> String {
    if b.is_ascii_graphic() {
        format!("`{}`", b as char)
    } else {
        format!("byte 0x{b:02x}")
    }
}

/// A whole stream in memory, with the layout it was read in.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Stream {
    /// The events in order.
    pub events: Vec<Event>,
}

impl Stream {
    /// Wraps events.
    pub fn new(events: Vec<Event>) -> Self {
        Stream { events }
    }

    /// Reads a whole stream (array or JSON Lines).
    pub fn read<R: BufRead>(inner: R, origin: &str) -> Result<Stream, ReadError> {
        let events = EventReader::new(inner, origin)
            .typed()
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Stream { events })
    }

    /// Reads a stream from bytes.
    pub fn from_slice(bytes: &[u8], origin: &str) -> Result<Stream, ReadError> {
        Stream::read(bytes, origin)
    }

    /// Writes the stream as a pretty JSON array (the layout of real
    /// `events.json` files), ending with a newline.
    pub fn write_array<W: Write>(&self, mut w: W) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut w, &self.events)?;
        w.write_all(b"\n")
    }

    /// Writes the stream as JSON Lines: exactly one line per event. Opaque
    /// fields read from a pretty file keep their inner line breaks in
    /// memory; here they are dropped with the rest of the whitespace outside
    /// strings, which changes no value (rule `WIRE-JSONL-ONE-LINE`).
    ///
    /// An empty stream has no JSON Lines form: its file would be empty, and
    /// the reader rejects empty input (it cannot tell a layout from nothing,
    /// and an empty file is more often a failed write than a conversation).
    /// Writing one is an [`io::ErrorKind::InvalidInput`] error; write it as
    /// an array, `[]`.
    pub fn write_json_lines<W: Write>(&self, mut w: W) -> io::Result<()> {
        if self.events.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "an empty stream has no JSON Lines form (the reader rejects empty input); \
                 write it as an array",
            ));
        }
        let mut line = Vec::new();
        for e in &self.events {
            line.clear();
            serde_json::to_writer(&mut line, e)?;
            let compact: Vec<u8> = significant_bytes(&line).collect();
            w.write_all(&compact)?;
            w.write_all(b"\n")?;
        }
        Ok(())
    }

    /// The pretty JSON array as a string.
    pub fn to_array_string(&self) -> String {
        let mut out = Vec::new();
        self.write_array(&mut out)
            .expect("writing to a Vec cannot fail");
        String::from_utf8(out).expect("serde_json writes UTF-8")
    }
}
