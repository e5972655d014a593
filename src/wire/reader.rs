//! Reading and writing whole stream files, one event at a time.
//!
//! A stream file is a JSON array of event objects or JSON Lines (one object
//! after another). The reader never builds a tree of the whole file: a small
//! scanner finds where each top-level object ends (tracking strings, escapes
//! and bracket depth, no recursion), and only that object is handed to
//! serde_json. Memory is one event; any byte sequence yields events or a
//! [`ReadError`] that names the origin, the event index, the line and column,
//! and what was expected (rule `WIRE-READ-ERRORS`).
//!
//! Split along its seams: the error type ([`error`]), the single-pass fast
//! path ([`fast`]), the writer ([`writer`]); the scanner and the event
//! iterator stay here.

use std::borrow::Cow;
use std::io::{self, BufRead};

use super::{Event, Opaque, RawEvent};

mod error;
mod fast;
mod writer;

pub use error::{ReadError, ReadErrorKind};
use fast::{FastEvent, read_event, read_event_into};
pub(crate) use fast::{FieldsRef, is_plain_json_text, recycle};

/// The members of a JSON object text, read by the reader's single pass:
/// `None` where that pass gives way (a repeated member, deep nesting, …) or
/// when `text` is not exactly one object.
pub(crate) fn object_members(text: &str) -> Option<FieldsRef<'_>> {
    let object = read_event(text.as_bytes())?;
    (object.len == text.len()).then_some(object.fields)
}

/// [`object_members`], listed in `spare`'s buffer (an emptied list, see
/// [`fast::recycle`]): a caller splitting several objects in turn
/// allocates one list, not one per object.
pub(crate) fn object_members_in<'a>(
    text: &'a str,
    spare: FieldsRef<'static>,
) -> Option<FieldsRef<'a>> {
    let object = fast::read_event_into(text.as_bytes(), spare)?;
    (object.len == text.len()).then_some(object.fields)
}

/// [`object_members`] with the bits of the members whose values are
/// strings without an escape (see [`EventReader::next_with_plain`]).
#[cfg(test)]
pub(crate) fn object_members_plain(text: &str) -> Option<(FieldsRef<'_>, u64)> {
    let object = read_event(text.as_bytes())?;
    (object.len == text.len()).then_some((object.fields, object.plain))
}

/// See [`fast::array_items`].
pub(crate) fn array_items(text: &str) -> Option<Vec<&str>> {
    fast::array_items(text.as_bytes())
}

/// See [`fast::within_depth`].
pub(crate) fn within_depth(text: &str) -> bool {
    fast::within_depth(text.as_bytes())
}

/// The two file layouts a stream may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `[ {…}, {…} ]`.
    Array,
    /// `{…}\n{…}\n`.
    JsonLines,
}

/// Iterates over the events of a stream file, reading as it goes.
///
/// Yields [`RawEvent`]s; [`EventReader::typed`] maps them to [`Event`]s.
/// After the first error it yields nothing more.
pub struct EventReader<R> {
    inner: R,
    origin: String,
    format: Option<Format>,
    index: usize,
    pos: Pos,
    /// The current event's bytes when they span several chunks of `inner`
    /// (an event inside one chunk is parsed where it lies).
    buf: Vec<u8>,
    /// The last event's field list, emptied: its buffer is the next one's
    /// (reading an event in the buffered chunk allocates nothing).
    spare: FieldsRef<'static>,
    done: bool,
    /// Error path only: the bytes the last failed event took from `inner`,
    /// for [`EventReader::resume`].
    failed: Option<Failed>,
    /// Error path only: under the array layout, the next event may start
    /// without a `,` (reading resumed at an event object).
    resuming: bool,
    /// The array's closing `]` was read.
    closed: bool,
    /// Error path only: where the event [`EventReader::resume`] last read
    /// past without finding its end starts (line, column).
    unterminated: Option<(usize, usize)>,
}

/// The bytes an event that failed to read took from the input, from its
/// first byte: to the end of the object when its extent was found
/// (`ended`), else to the end of the input.
#[derive(Debug)]
struct Failed {
    start: Pos,
    taken: Vec<u8>,
    ended: bool,
}

/// Where reading goes after a malformed event ([`EventReader::resume`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resume {
    /// Reading goes on with the next event.
    Next,
    /// Nothing more can be read as events: the input ended, or what is left
    /// follows the array's end.
    End,
    /// The input cannot be read as a stream at all (no layout was found, or
    /// reading failed).
    Unusable,
}

/// A [`BufRead`] that can be handed back bytes it already gave
/// ([`Rewind::unread`]), for [`EventReader::resume`]: what an event that
/// failed to read took past the line it starts on is read again.
pub(crate) struct Rewind<R> {
    front: Vec<u8>,
    at: usize,
    inner: R,
}

impl<R> Rewind<R> {
    /// Reads `inner`, nothing handed back yet.
    pub(crate) fn new(inner: R) -> Self {
        Rewind {
            front: Vec::new(),
            at: 0,
            inner,
        }
    }

    /// Puts `bytes` before what is still to be read.
    fn unread(&mut self, bytes: &[u8]) {
        let mut front = Vec::with_capacity(bytes.len() + self.front.len() - self.at);
        front.extend_from_slice(bytes);
        front.extend_from_slice(&self.front[self.at..]);
        self.front = front;
        self.at = 0;
    }
}

impl<R: io::Read> io::Read for Rewind<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.at < self.front.len() {
            let n = buf.len().min(self.front.len() - self.at);
            buf[..n].copy_from_slice(&self.front[self.at..self.at + n]);
            self.at += n;
            return Ok(n);
        }
        self.inner.read(buf)
    }
}

impl<R: BufRead> BufRead for Rewind<R> {
    #[inline]
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.at < self.front.len() {
            return Ok(&self.front[self.at..]);
        }
        self.inner.fill_buf()
    }

    #[inline(always)]
    fn consume(&mut self, amt: usize) {
        if self.at < self.front.len() {
            self.at += amt;
            if self.at >= self.front.len() {
                self.front.clear();
                self.at = 0;
            }
        } else {
            self.inner.consume(amt);
        }
    }
}

/// A 1-based line and column (in bytes).
#[derive(Debug, Clone, Copy)]
struct Pos {
    line: usize,
    column: usize,
}

impl Pos {
    /// Moves past an event [`read_event`] read.
    fn advance_read(&mut self, event: &FastEvent<'_>) {
        match event.last_newline {
            None => self.column += event.len,
            Some(last) => {
                self.line += event.newlines;
                self.column = event.len - last;
            }
        }
    }

    /// Moves past the whitespace `bytes` start with (the few bytes between
    /// events: counted as they are skipped, with no `memrchr` set-up);
    /// returns how many bytes that is. The same position as
    /// [`Pos::advance`] over those bytes (rule `PERF-READ-SAME`).
    fn skip_ws(&mut self, bytes: &[u8]) -> usize {
        let mut lines = 0;
        let mut last = None;
        let mut n = 0;
        while let Some(&b) = bytes.get(n) {
            match b {
                b'\n' => {
                    lines += 1;
                    last = Some(n);
                }
                b' ' | b'\t' | b'\r' => {}
                _ => break,
            }
            n += 1;
        }
        match last {
            None => self.column += n,
            Some(last) => {
                self.line += lines;
                self.column = n - last;
            }
        }
        n
    }

    /// Moves past one byte ([`Pos::advance`] of it).
    fn advance_byte(&mut self, b: u8) {
        if b == b'\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
    }

    /// Moves past `bytes`: newlines counted in bulk, the column taken from
    /// the last one (no per-byte branch).
    fn advance(&mut self, bytes: &[u8]) {
        match memchr::memrchr(b'\n', bytes) {
            None => self.column += bytes.len(),
            Some(last) => {
                self.line += count_newlines(bytes);
                self.column = bytes.len() - last;
            }
        }
    }
}

/// The buffered input, reading more if it is empty; retries interrupted
/// reads.
fn fill<R: BufRead>(inner: &mut R) -> io::Result<&[u8]> {
    loop {
        match inner.fill_buf() {
            // Borrowed again below: a borrow returned from inside the loop
            // would keep `inner` borrowed on every path.
            Ok(_) => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    inner.fill_buf()
}

/// Parses one event object, exactly `bytes`, and hands its fields to `f`:
/// through [`read_event`], or through serde's canonical path when it gives
/// way (which then reports the error).
fn parse_event<T>(
    bytes: &[u8],
    f: impl FnOnce(&mut FieldsRef<'_>) -> T,
) -> Result<T, serde_json::Error> {
    if let Some(mut event) = read_event(bytes)
        && event.len == bytes.len()
    {
        return Ok(f(&mut event.fields));
    }
    let raw: RawEvent = serde_json::from_slice(bytes)?;
    Ok(f(&mut raw
        .fields
        .iter()
        .map(|(k, v)| (Cow::Borrowed(k.as_str()), v.get()))
        .collect()))
}

/// Counts `\n` bytes. Summing each 64-byte block into one byte (at most
/// 64, no overflow) is the shape the compiler vectorizes; a plain
/// `filter().count()` is not.
fn count_newlines(bytes: &[u8]) -> usize {
    let mut blocks = bytes.chunks_exact(64);
    let mut total = 0usize;
    for block in &mut blocks {
        let mut n = 0u8;
        for &b in block {
            n += u8::from(b == b'\n');
        }
        total += usize::from(n);
    }
    total + blocks.remainder().iter().filter(|&&b| b == b'\n').count()
}

/// Finds where a top-level object ends when it spans several chunks of the
/// input: tracks strings, escapes and bracket depth, one chunk at a time, no
/// recursion. Strings are skipped with `memchr2` (most of a real stream's
/// bytes are base64 text inside strings); between strings, the bytes that
/// cannot change the depth are passed over in a tight loop.
#[derive(Debug, Default)]
struct Scan {
    depth: usize,
    in_string: bool,
    /// The last chunk ended right after a backslash inside a string.
    escape_pending: bool,
}

impl Scan {
    /// Scans the next chunk of the object. Returns the length of the
    /// object's last part in `chunk` once the closing bracket is found.
    fn feed(&mut self, chunk: &[u8]) -> Option<usize> {
        let n = chunk.len();
        let mut i = 0;
        while i < n {
            if self.in_string {
                i = self.skip_string(chunk, i);
                continue;
            }
            while i < n && !matches!(chunk[i], b'"' | b'{' | b'[' | b'}' | b']') {
                i += 1;
            }
            let Some(&b) = chunk.get(i) else { break };
            i += 1;
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                _ => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        return Some(i);
                    }
                }
            }
        }
        None
    }

    /// Skips string contents from `i`: to just past the closing quote, or to
    /// the end of the chunk. A backslash escapes exactly the next byte.
    fn skip_string(&mut self, chunk: &[u8], mut i: usize) -> usize {
        let n = chunk.len();
        if self.escape_pending {
            self.escape_pending = false;
            i += 1;
        }
        while i < n {
            let Some(k) = memchr::memchr2(b'"', b'\\', &chunk[i..]) else {
                return n;
            };
            let at = i + k;
            if chunk[at] == b'"' {
                self.in_string = false;
                return at + 1;
            }
            if at + 1 == n {
                self.escape_pending = true;
                return n;
            }
            i = at + 2;
        }
        n
    }
}

impl<R: BufRead> EventReader<R> {
    /// Reads from `inner`; `origin` names it in errors.
    pub fn new(inner: R, origin: impl Into<String>) -> Self {
        EventReader {
            inner,
            origin: origin.into(),
            format: None,
            index: 0,
            pos: Pos { line: 1, column: 1 },
            buf: Vec::new(),
            spare: Vec::new(),
            done: false,
            failed: None,
            resuming: false,
            closed: false,
            unterminated: None,
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
            raw.into_event().map_err(|message| {
                ReadError::new(
                    ReadErrorKind::Shape,
                    origin.clone(),
                    Some(i),
                    line,
                    column,
                    message,
                )
            })
        })
    }

    fn err(
        &self,
        kind: ReadErrorKind,
        event_index: Option<usize>,
        message: impl Into<String>,
    ) -> ReadError {
        ReadError::new(
            kind,
            self.origin.clone(),
            event_index,
            self.pos.line,
            self.pos.column,
            message,
        )
    }

    fn io_err(&self, e: io::Error) -> ReadError {
        ReadError::io(
            self.origin.clone(),
            Some(self.index),
            self.pos.line,
            self.pos.column,
            e,
        )
    }

    /// Skips whitespace; returns the next byte without consuming it. The
    /// common cases are answered inline: a buffered byte that is no
    /// whitespace (an event's `{` right after the last one's `}` or `,`),
    /// and a newline with at most [`EventReader::INLINE_INDENT`] spaces
    /// after it, then a byte that is no whitespace, all buffered (the gap
    /// after a JSON Lines event, or before a pretty array's next event).
    /// Any other goes through [`EventReader::skip_to_non_ws`], which gives
    /// the same answer in every case (rule `PERF-READ-SAME`).
    #[inline(always)]
    fn peek_non_ws(&mut self) -> Result<Option<u8>, ReadError> {
        // `fill_buf` on a non-empty buffer hands it back without reading,
        // so the full skip asking again reads nothing twice; an empty one
        // (the end) and an error are answered here, as the full skip would.
        let chunk = match self.inner.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => return self.skip_to_non_ws(),
            Err(e) => return Err(self.io_err(e)),
        };
        match chunk.first().copied() {
            None => Ok(None),
            Some(b'\n') => {
                let mut n = 1;
                while n <= Self::INLINE_INDENT && chunk.get(n) == Some(&b' ') {
                    n += 1;
                }
                match chunk.get(n).copied() {
                    Some(b) if !matches!(b, b' ' | b'\t' | b'\r' | b'\n') => {
                        // What `Pos::skip_ws` counts over these bytes: one
                        // line, the column just past the spaces.
                        self.pos.line += 1;
                        self.pos.column = n;
                        self.inner.consume(n);
                        Ok(Some(b))
                    }
                    _ => self.skip_to_non_ws(),
                }
            }
            Some(b' ' | b'\t' | b'\r') => self.skip_to_non_ws(),
            Some(b) => Ok(Some(b)),
        }
    }

    /// The most spaces after a newline [`EventReader::peek_non_ws`] skips
    /// inline (a pretty array indents its events by two).
    const INLINE_INDENT: usize = 8;

    /// [`EventReader::peek_non_ws`] in full: skips whitespace across
    /// chunks, retrying interrupted reads.
    #[inline(never)]
    fn skip_to_non_ws(&mut self) -> Result<Option<u8>, ReadError> {
        loop {
            let chunk = match self.inner.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(self.io_err(e)),
            };
            if chunk.is_empty() {
                return Ok(None);
            }
            let n = self.pos.skip_ws(chunk);
            let found = chunk.get(n).copied();
            self.inner.consume(n);
            if found.is_some() {
                return Ok(found);
            }
        }
    }

    fn consume_byte(&mut self, b: u8) {
        self.inner.consume(1);
        self.pos.advance_byte(b);
    }

    /// Reads the next raw event with its starting line and column.
    fn next_raw<T>(
        &mut self,
        f: impl FnOnce(&mut FieldsRef<'_>, u64, usize, usize) -> T,
    ) -> Result<Option<(T, usize, usize)>, ReadError> {
        if self.format.is_none() {
            self.skip_bom()?;
        }
        let first = self.peek_non_ws()?;
        if self.format.is_none() {
            match first {
                None => {
                    return Err(self.err(
                        ReadErrorKind::UnexpectedEnd,
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
                            self.closed = true;
                            self.expect_end()?;
                            Ok(None)
                        }
                        next => self.read_object(next, f),
                    };
                }
                Some(b'{') => {
                    self.format = Some(Format::JsonLines);
                    return self.read_object(first, f);
                }
                Some(b) => {
                    return Err(self.err(
                        ReadErrorKind::Syntax,
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
            (Some(Format::JsonLines), Some(_)) => self.read_object(first, f),
            (Some(Format::Array), Some(b',')) => {
                self.consume_byte(b',');
                match self.peek_non_ws()? {
                    Some(b']') => Err(self.err(
                        ReadErrorKind::Syntax,
                        Some(self.index),
                        "trailing `,` before `]`: expected an event object",
                    )),
                    next => self.read_object(next, f),
                }
            }
            (Some(Format::Array), Some(b']')) => {
                self.consume_byte(b']');
                self.closed = true;
                self.expect_end()?;
                Ok(None)
            }
            (Some(Format::Array), Some(b'{')) if self.resuming => {
                self.resuming = false;
                self.read_object(first, f)
            }
            (Some(Format::Array), Some(b)) => Err(self.err(
                ReadErrorKind::Syntax,
                Some(self.index),
                format!("expected `,` or `]` after an event, found {}", show_byte(b)),
            )),
            (Some(Format::Array), None) => Err(self.err(
                ReadErrorKind::UnexpectedEnd,
                Some(self.index),
                "unexpected end of input: the event array is not closed (expected `]`)",
            )),
            (None, _) => unreachable!("format is set above"),
        }
    }

    /// Skips a UTF-8 byte-order mark at the very start of the input (rule
    /// `WIRE-READ-BOM`): RFC 8259 §8.1 lets a parser ignore one, and editors
    /// on some systems write one. It is not counted in the column. Read a
    /// byte at a time, so where the input's chunks end does not matter; a
    /// start that is only part of a mark is named as such.
    fn skip_bom(&mut self) -> Result<(), ReadError> {
        const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];
        let mut matched = 0;
        while matched < BOM.len() {
            let chunk = match fill(&mut self.inner) {
                Ok(c) => c,
                Err(e) => return Err(self.io_err(e)),
            };
            if chunk.first() != Some(&BOM[matched]) {
                break;
            }
            self.inner.consume(1);
            matched += 1;
        }
        match matched {
            0 | 3 => Ok(()),
            _ => Err(self.err(
                ReadErrorKind::Syntax,
                None,
                "the input starts with a broken UTF-8 byte-order mark (expected the bytes \
                 EF BB BF, then `[` or `{`)",
            )),
        }
    }

    fn expect_end(&mut self) -> Result<(), ReadError> {
        match self.peek_non_ws()? {
            None => Ok(()),
            Some(b) => Err(self.err(
                ReadErrorKind::Syntax,
                None,
                format!(
                    "trailing data after the event array: found {}",
                    show_byte(b)
                ),
            )),
        }
    }

    /// Reads the event object that starts here and hands its fields to `f`;
    /// `first` is what [`EventReader::peek_non_ws`] gave just before (the
    /// caller has always asked, so it is not asked again).
    fn read_object<T>(
        &mut self,
        first: Option<u8>,
        f: impl FnOnce(&mut FieldsRef<'_>, u64, usize, usize) -> T,
    ) -> Result<Option<(T, usize, usize)>, ReadError> {
        match first {
            Some(b'{') => {}
            Some(b) => {
                return Err(self.err(
                    ReadErrorKind::Syntax,
                    Some(self.index),
                    format!("expected an event object `{{`, found {}", show_byte(b)),
                ));
            }
            None => {
                return Err(self.err(
                    ReadErrorKind::UnexpectedEnd,
                    Some(self.index),
                    "unexpected end of input: expected an event object",
                ));
            }
        }
        let (line, column) = (self.pos.line, self.pos.column);
        // The common case: the whole event lies in the buffered chunk (always
        // so for input in memory). One pass reads and checks it in place.
        let chunk = match fill(&mut self.inner) {
            Ok(c) => c,
            Err(e) => return Err(self.io_err(e)),
        };
        if let Some(mut event) = read_event_into(chunk, recycle(std::mem::take(&mut self.spare))) {
            self.pos.advance_read(&event);
            let len = event.len;
            let out = f(&mut event.fields, event.plain, line, column);
            self.spare = recycle(event.fields);
            self.inner.consume(len);
            self.index += 1;
            return Ok(Some((out, line, column)));
        }
        // Otherwise find the end first (across chunks), then parse.
        let mut scan = Scan::default();
        self.buf.clear();
        let in_chunk = loop {
            let chunk = match fill(&mut self.inner) {
                Ok(c) => c,
                Err(e) => return Err(self.io_err(e)),
            };
            if chunk.is_empty() {
                let buf = std::mem::take(&mut self.buf);
                // Report where the input ends, not where the event began.
                let start = self.pos;
                self.pos.advance(&buf);
                self.failed = Some(Failed {
                    start: Pos { line, column },
                    taken: buf.clone(),
                    ended: false,
                });
                if let Some(quote) = open_string(&buf).filter(|_| scan.in_string) {
                    // Name the string left open where it opens too: the end
                    // of input may be lines further on.
                    let mut at = start;
                    at.advance(&buf[..quote]);
                    return Err(self.err(
                        ReadErrorKind::UnexpectedEnd,
                        Some(self.index),
                        format!(
                            "unexpected end of input inside an unterminated string (opened at \
                             line {}, column {}; expected a closing `\"`)",
                            at.line, at.column
                        ),
                    ));
                }
                return Err(self.err(
                    ReadErrorKind::UnexpectedEnd,
                    Some(self.index),
                    "unexpected end of input inside an event object (expected `}`)",
                ));
            }
            match scan.feed(chunk) {
                Some(end) if self.buf.is_empty() => break Some(end),
                Some(end) => {
                    self.buf.extend_from_slice(&chunk[..end]);
                    self.inner.consume(end);
                    break None;
                }
                None => {
                    let n = chunk.len();
                    self.buf.extend_from_slice(chunk);
                    self.inner.consume(n);
                }
            }
        };
        // A raw NUL byte is JSON nowhere (RFC 8259 §7: control characters
        // are escaped in strings): UTF-16 shows one beside each character.
        let nul;
        let parsed = match in_chunk {
            Some(end) => {
                // Not consumed yet: the same bytes come back.
                let chunk = match fill(&mut self.inner) {
                    Ok(c) => c,
                    Err(e) => return Err(self.io_err(e)),
                };
                let bytes = &chunk[..end];
                self.pos.advance(bytes);
                nul = memchr::memchr(0, bytes).is_some();
                let parsed = parse_event(bytes, |fields| f(fields, 0, line, column));
                if parsed.is_err() {
                    self.failed = Some(Failed {
                        start: Pos { line, column },
                        taken: bytes.to_vec(),
                        ended: true,
                    });
                }
                self.inner.consume(end);
                parsed
            }
            None => {
                self.pos.advance(&self.buf);
                nul = memchr::memchr(0, &self.buf).is_some();
                let parsed = parse_event(&self.buf, |fields| f(fields, 0, line, column));
                if parsed.is_err() {
                    self.failed = Some(Failed {
                        start: Pos { line, column },
                        taken: self.buf.clone(),
                        ended: true,
                    });
                }
                parsed
            }
        };
        match parsed {
            Ok(out) => {
                self.index += 1;
                Ok(Some((out, line, column)))
            }
            Err(e) => {
                // serde_json counts from the event's first byte.
                let (el, ec) = (e.line().max(1), e.column().max(1));
                let (l, c) = if el == 1 {
                    (line, column + ec - 1)
                } else {
                    (line + el - 1, ec)
                };
                Err(ReadError::new(
                    serde_kind(&e),
                    self.origin.clone(),
                    Some(self.index),
                    l,
                    c,
                    match nul {
                        true => {
                            format!("{}; found {}", strip_position(&e.to_string()), show_byte(0))
                        }
                        false => strip_position(&e.to_string()),
                    },
                ))
            }
        }
    }

    /// Reads the next event and hands its fields, borrowed from the input,
    /// with the line and column where it starts, to `f`: what the oracle
    /// uses, so that it copies nothing it does not read. After the first
    /// error nothing more is read.
    pub(crate) fn next_with<T>(
        &mut self,
        f: impl FnOnce(&mut FieldsRef<'_>, usize, usize) -> T,
    ) -> Option<Result<(T, usize, usize), ReadError>> {
        self.next_with_plain(|fields, _, line, column| f(fields, line, column))
    }

    /// [`EventReader::next_with`], also handing `f` the fields whose
    /// values are strings without an escape, as bits by field number
    /// (bit `i` for field `i`, the first 64 only; a clear bit says
    /// nothing): what the reader's pass learnt while finding the string's
    /// end, so a caller need not look for a backslash again (rule
    /// `PERF-READ-PLAIN-STRINGS`). No bit is set for an event read
    /// through serde's canonical path.
    pub(crate) fn next_with_plain<T>(
        &mut self,
        f: impl FnOnce(&mut FieldsRef<'_>, u64, usize, usize) -> T,
    ) -> Option<Result<(T, usize, usize), ReadError>> {
        if self.done {
            return None;
        }
        match self.next_raw(f) {
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

impl<R: BufRead> EventReader<Rewind<R>> {
    /// After [`EventReader::next_with`] gave the error `kind`, moves past the
    /// malformed event so that reading can go on (decision "Oracle checks:
    /// check reads past a malformed event"):
    ///
    /// - an event whose object was found whole (braces balanced) on one line
    ///   is skipped as a whole (an extent across lines is not trusted: a
    ///   brace left open balances against a later event's, or the array's);
    /// - otherwise reading resumes at the line after the one the event
    ///   starts on (the bytes the event took past that line are read
    ///   again); under the array layout, at the first later line that
    ///   starts an event (`{`), a `,` or the closing `]`;
    /// - an error between events (a stray byte, a missing `,`) skips the
    ///   rest of its line, or under the array layout reads on at the `{`,
    ///   `,` or `]` found there.
    ///
    /// Every call moves past at least one byte or ends reading, so a loop of
    /// reads and resumes ends. Only the error path pays for this.
    pub(crate) fn resume(&mut self, kind: ReadErrorKind) -> Resume {
        let Some(format) = self.format else {
            return Resume::Unusable;
        };
        match kind {
            ReadErrorKind::Io => return Resume::Unusable,
            ReadErrorKind::Syntax | ReadErrorKind::UnexpectedEnd | ReadErrorKind::Shape => {}
        }
        if self.closed {
            return Resume::End;
        }
        self.done = false;
        self.resuming = false;
        self.unterminated = None;
        match self.failed.take() {
            Some(Failed {
                start,
                taken,
                ended,
            }) => {
                if !ended {
                    self.unterminated = Some((start.line, start.column));
                }
                let newline = memchr::memchr(b'\n', &taken);
                match (format, ended, newline) {
                    (Format::Array | Format::JsonLines, true, None) => {
                        // The object's extent is known (on one line) and it
                        // was consumed.
                        if format == Format::Array {
                            self.resuming = true;
                        }
                        Resume::Next
                    }
                    (_, _, Some(i)) => {
                        self.inner.unread(&taken[i + 1..]);
                        self.pos = Pos {
                            line: start.line + 1,
                            column: 1,
                        };
                        self.after_skip(format)
                    }
                    (_, false, None) => Resume::End,
                }
            }
            None => match self.peek_non_ws() {
                Err(_) => Resume::Unusable,
                Ok(None) => Resume::End,
                Ok(Some(b)) => match (format, b) {
                    (Format::Array, b'{') => {
                        self.resuming = true;
                        Resume::Next
                    }
                    (Format::Array, b',' | b']') => Resume::Next,
                    (Format::Array | Format::JsonLines, _) => match self.skip_line() {
                        Ok(()) => self.after_skip(format),
                        Err(_) => Resume::Unusable,
                    },
                },
            },
        }
    }

    /// After [`EventReader::resume`]: where the malformed event starts when
    /// the input ended before its object did (its error is placed where the
    /// input ends, lines further on), else `None`.
    pub(crate) fn unterminated_start(&self) -> Option<(usize, usize)> {
        self.unterminated
    }

    /// Under the array layout, skips lines until one starts an event, a `,`
    /// or the `]`; under JSON Lines the next line is read as it is.
    fn after_skip(&mut self, format: Format) -> Resume {
        if format == Format::JsonLines {
            return Resume::Next;
        }
        loop {
            match self.peek_non_ws() {
                Err(_) => return Resume::Unusable,
                Ok(None) => return Resume::Next,
                Ok(Some(b'{')) => {
                    self.resuming = true;
                    return Resume::Next;
                }
                Ok(Some(b',' | b']')) => return Resume::Next,
                Ok(Some(_)) => {
                    if self.skip_line().is_err() {
                        return Resume::Unusable;
                    }
                }
            }
        }
    }

    /// Consumes input up to and including the next `\n` (or to its end).
    fn skip_line(&mut self) -> Result<(), ReadError> {
        loop {
            let chunk = match fill(&mut self.inner) {
                Ok(c) => c,
                Err(e) => return Err(self.io_err(e)),
            };
            if chunk.is_empty() {
                return Ok(());
            }
            match memchr::memchr(b'\n', chunk) {
                Some(i) => {
                    self.pos.line += 1;
                    self.pos.column = 1;
                    self.inner.consume(i + 1);
                    return Ok(());
                }
                None => {
                    let n = chunk.len();
                    self.pos.column += n;
                    self.inner.consume(n);
                }
            }
        }
    }
}

impl<R: BufRead> Iterator for EventReader<R> {
    /// A raw event with the line and column where it starts.
    type Item = Result<(RawEvent, usize, usize), ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_with(|fields, _, _| RawEvent {
            fields: fields
                .drain(..)
                .map(|(k, v)| (k.into_owned(), Opaque(v.into())))
                .collect(),
        })
    }
}

/// The kind of a serde_json error met inside one event object: grammar,
/// end of input, or valid JSON that is not an event (serde's "data" errors:
/// a repeated field, an invalid kept value, not an object).
fn serde_kind(e: &serde_json::Error) -> ReadErrorKind {
    match e.classify() {
        serde_json::error::Category::Io => ReadErrorKind::Io,
        serde_json::error::Category::Syntax => ReadErrorKind::Syntax,
        serde_json::error::Category::Data => ReadErrorKind::Shape,
        serde_json::error::Category::Eof => ReadErrorKind::UnexpectedEnd,
    }
}

/// serde_json appends " at line L column C"; the reader reports its own.
pub(super) fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_owned(),
        None => msg.to_owned(),
    }
}

/// Where the string still open at the end of `bytes` (an event object
/// cut short) opens: the offset of its quote.
fn open_string(bytes: &[u8]) -> Option<usize> {
    let (mut open, mut escaped) = (None, false);
    for (i, &b) in bytes.iter().enumerate() {
        match (open, escaped, b) {
            (Some(_), true, _) => escaped = false,
            (Some(_), false, b'\\') => escaped = true,
            (Some(_), false, b'"') => open = None,
            (Some(_), false, _) => {}
            (None, _, b'"') => open = Some(i),
            (None, _, _) => {}
        }
    }
    open
}

/// A byte found where JSON syntax was expected. 0xFF and 0xFE never occur
/// in UTF-8, and NUL not outside a string: they are what UTF-16 input (a
/// byte-order mark FF FE or FE FF, a NUL byte beside each ASCII character)
/// shows a UTF-8 reader, so the message says so (RFC 8259 §8.1: JSON
/// exchanged between systems is UTF-8).
fn show_byte(b: u8) -> String {
    match b {
        0x00 | 0xFE | 0xFF => format!(
            "byte 0x{b:02x}: the input looks like UTF-16 (a byte-order mark FF FE or FE FF, \
             or NUL bytes between the characters); stream files are UTF-8 (RFC 8259 §8.1): \
             convert it first, e.g. `iconv -f UTF-16 -t UTF-8`"
        ),
        _ if b.is_ascii_graphic() => format!("`{}`", b as char),
        _ => format!("byte 0x{b:02x}"),
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
        Stream::read_with_format(inner, origin).map(|(stream, _)| stream)
    }

    /// Reads a whole stream and says which layout it had, so that a tool
    /// that writes it back can keep that layout (`[]` has only the array
    /// form).
    pub(crate) fn read_with_format<R: BufRead>(
        inner: R,
        origin: &str,
    ) -> Result<(Stream, Format), ReadError> {
        let mut reader = EventReader::new(inner, origin);
        let mut events = Vec::new();
        for (index, item) in (&mut reader).enumerate() {
            let (raw, line, column) = item?;
            let event = raw.into_event().map_err(|message| {
                ReadError::new(
                    ReadErrorKind::Shape,
                    origin,
                    Some(index),
                    line,
                    column,
                    message,
                )
            })?;
            events.push(event);
        }
        // A read that succeeded saw a first byte, so the layout is known.
        let format = reader.format().unwrap_or(Format::JsonLines);
        Ok((Stream { events }, format))
    }

    /// Reads a stream from bytes.
    pub fn from_slice(bytes: &[u8], origin: &str) -> Result<Stream, ReadError> {
        Stream::read(bytes, origin)
    }
}

#[cfg(test)]
mod tests;

#[cfg(all(test, feature = "testkit"))]
mod wire_reader_errors_tests;
