//! Reading and writing whole stream files, one event at a time.
//!
//! A stream file is a JSON array of event objects or JSON Lines (one object
//! after another). The reader never builds a tree of the whole file: a small
//! scanner finds where each top-level object ends (tracking strings, escapes
//! and bracket depth, no recursion), and only that object is handed to
//! serde_json. Memory is one event; any byte sequence yields events or a
//! [`ReadError`] that names the origin, the event index, the line and column,
//! and what was expected (rule `WIRE-READ-ERRORS`).

use std::borrow::Cow;
use std::fmt;
use std::io::{self, BufRead, Write};

use super::{Event, Opaque, RawEvent, is_repeated, significant_bytes};

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
    pos: Pos,
    /// The current event's bytes when they span several chunks of `inner`
    /// (an event inside one chunk is parsed where it lies).
    buf: Vec<u8>,
    done: bool,
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
    f: impl FnOnce(FieldsRef<'_>) -> T,
) -> Result<T, serde_json::Error> {
    if let Some(event) = read_event(bytes)
        && event.len == bytes.len()
    {
        return Ok(f(event.fields));
    }
    let raw: RawEvent = serde_json::from_slice(bytes)?;
    Ok(f(raw
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
            line: self.pos.line,
            column: self.pos.column,
            message: message.into(),
        }
    }

    fn io_err(&self, e: io::Error) -> ReadError {
        self.err(Some(self.index), format!("I/O error: {e}"))
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
            self.pos.advance(&chunk[..n]);
            self.inner.consume(n);
            if found.is_some() {
                return Ok(found);
            }
        }
    }

    fn consume_byte(&mut self, b: u8) {
        self.inner.consume(1);
        self.pos.advance(&[b]);
    }

    /// Reads the next raw event with its starting line and column.
    fn next_raw<T>(
        &mut self,
        f: impl FnOnce(FieldsRef<'_>) -> T,
    ) -> Result<Option<(T, usize, usize)>, ReadError> {
        if self.format.is_none() {
            self.skip_bom()?;
        }
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
                        _ => self.read_object(f),
                    };
                }
                Some(b'{') => {
                    self.format = Some(Format::JsonLines);
                    return self.read_object(f);
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
            (Some(Format::JsonLines), Some(_)) => self.read_object(f),
            (Some(Format::Array), Some(b',')) => {
                self.consume_byte(b',');
                match self.peek_non_ws()? {
                    Some(b']') => Err(self.err(
                        Some(self.index),
                        "trailing `,` before `]`: expected an event object",
                    )),
                    _ => self.read_object(f),
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
                None,
                format!(
                    "trailing data after the event array: found {}",
                    show_byte(b)
                ),
            )),
        }
    }

    /// Reads the event object that starts here and hands its fields to `f`.
    fn read_object<T>(
        &mut self,
        f: impl FnOnce(FieldsRef<'_>) -> T,
    ) -> Result<Option<(T, usize, usize)>, ReadError> {
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
        let (line, column) = (self.pos.line, self.pos.column);
        // The common case: the whole event lies in the buffered chunk (always
        // so for input in memory). One pass reads and checks it in place.
        let chunk = match fill(&mut self.inner) {
            Ok(c) => c,
            Err(e) => return Err(self.io_err(e)),
        };
        if let Some(event) = read_event(chunk) {
            self.pos.advance_read(&event);
            let len = event.len;
            let out = f(event.fields);
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
                // Report where the input ends, not where the event began.
                let buf = std::mem::take(&mut self.buf);
                self.pos.advance(&buf);
                return Err(self.err(
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
        let parsed = match in_chunk {
            Some(end) => {
                // Not consumed yet: the same bytes come back.
                let chunk = match fill(&mut self.inner) {
                    Ok(c) => c,
                    Err(e) => return Err(self.io_err(e)),
                };
                let bytes = &chunk[..end];
                self.pos.advance(bytes);
                let parsed = parse_event(bytes, f);
                self.inner.consume(end);
                parsed
            }
            None => {
                self.pos.advance(&self.buf);
                parse_event(&self.buf, f)
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

    /// Reads the next event and hands its fields, borrowed from the input,
    /// to `f`: what the oracle uses, so that it copies nothing it does not
    /// read. After the first error nothing more is read.
    pub(crate) fn next_with<T>(
        &mut self,
        f: impl FnOnce(FieldsRef<'_>) -> T,
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

impl<R: BufRead> Iterator for EventReader<R> {
    /// A raw event with the line and column where it starts.
    type Item = Result<(RawEvent, usize, usize), ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_with(|fields| RawEvent {
            fields: fields
                .into_iter()
                .map(|(k, v)| (k.into_owned(), Opaque(v.into())))
                .collect(),
        })
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
        Stream::read_with_format(inner, origin).map(|(stream, _)| stream)
    }

    /// Reads a whole stream and says which layout it had, so that a tool
    /// that writes it back can keep that layout (`[]` has only the array
    /// form).
    pub fn read_with_format<R: BufRead>(
        inner: R,
        origin: &str,
    ) -> Result<(Stream, Format), ReadError> {
        let mut reader = EventReader::new(inner, origin);
        let mut events = Vec::new();
        for (index, item) in (&mut reader).enumerate() {
            let (raw, line, column) = item?;
            let event = raw.into_event().map_err(|message| ReadError {
                origin: origin.to_owned(),
                event_index: Some(index),
                line,
                column,
                message,
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

/// The reader's fast path: one event object at the start of `bytes`, read
/// in a single pass.
///
/// The canonical path (`serde_json::from_slice::<RawEvent>`) reads each field
/// as a `RawValue`, then parses each field again to check that a `Value` can
/// hold it (rule `WIRE-OPAQUE-VALID`). This pass checks the JSON grammar
/// itself, finds the field boundaries, and checks UTF-8 once for the whole
/// event; strings are skipped with `memchr2`. It is at least as strict as the
/// canonical path and gives way to it on anything unusual: it returns `None`
/// for every input the canonical path refuses (so the caller asks that path
/// for its error), and also for inputs whose check it leaves to serde_json
/// (a surrogate escape that is not half of a pair, nesting deeper than
/// [`Fast::MAX_DEPTH`], a number that might overflow an `f64`, a repeated
/// field, an escaped field name that does not decode). When it returns an
/// event, the event is the canonical one: the same names, the same texts.
pub(crate) fn read_event(bytes: &[u8]) -> Option<FastEvent<'_>> {
    let mut f = Fast {
        bytes,
        i: 0,
        newlines: 0,
        last_newline: None,
    };
    let mut spans: Vec<(usize, usize, bool, usize, usize)> = Vec::with_capacity(16);
    if f.peek()? != b'{' {
        return None;
    }
    f.i += 1;
    f.ws();
    if f.peek()? == b'}' {
        f.i += 1;
    } else {
        loop {
            let key_start = f.i;
            let escaped = f.string()?;
            let key_end = f.i;
            f.ws();
            f.expect(b':')?;
            f.ws();
            let value_start = f.i;
            f.value()?;
            spans.push((key_start + 1, key_end - 1, escaped, value_start, f.i));
            f.ws();
            match f.peek()? {
                b',' => {
                    f.i += 1;
                    f.ws();
                }
                b'}' => {
                    f.i += 1;
                    break;
                }
                _ => return None,
            }
        }
    }
    let end = f.i;
    // Outside strings the grammar allows ASCII only, so the event is valid
    // UTF-8 exactly when every string is, and every span below lies on
    // character boundaries.
    let text = std::str::from_utf8(&bytes[..end]).ok()?;
    let mut fields: FieldsRef<'_> = Vec::with_capacity(spans.len());
    let mut names = None;
    for (ks, ke, escaped, vs, ve) in spans {
        let key = if escaped {
            Cow::Owned(serde_json::from_str::<String>(&text[ks - 1..ke + 1]).ok()?)
        } else {
            Cow::Borrowed(&text[ks..ke])
        };
        if is_repeated(&fields, &mut names, &key) {
            return None;
        }
        fields.push((key, &text[vs..ve]));
    }
    Some(FastEvent {
        fields,
        len: end,
        newlines: f.newlines,
        last_newline: f.last_newline,
    })
}

/// An event's fields in written order, borrowed from the bytes they were
/// read from (a name is decoded, so owned, only when it holds an escape).
pub(crate) type FieldsRef<'a> = Vec<(Cow<'a, str>, &'a str)>;

/// What [`read_event`] read: the fields, the event's length, and the
/// newlines it holds (all of them lie in whitespace between tokens).
pub(crate) struct FastEvent<'a> {
    fields: FieldsRef<'a>,
    len: usize,
    newlines: usize,
    last_newline: Option<usize>,
}

/// The cursor of [`read_event`].
struct Fast<'a> {
    bytes: &'a [u8],
    i: usize,
    newlines: usize,
    last_newline: Option<usize>,
}

impl Fast<'_> {
    /// Nesting deeper than this inside one event gives way to serde_json
    /// (which refuses a field nested 128 deep).
    const MAX_DEPTH: u32 = 100;
    /// A longer number gives way to serde_json (it may overflow an `f64`).
    const MAX_NUMBER: usize = 300;

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.i).copied()
    }

    fn expect(&mut self, b: u8) -> Option<()> {
        (self.peek()? == b).then(|| self.i += 1)
    }

    /// JSON whitespace; counts newlines on the way. Indentation after a
    /// newline is skipped eight spaces at a time.
    fn ws(&mut self) {
        while let Some(&b) = self.bytes.get(self.i) {
            match b {
                b' ' | b'\t' | b'\r' => self.i += 1,
                b'\n' => {
                    self.newlines += 1;
                    self.last_newline = Some(self.i);
                    self.i += 1;
                    while self.bytes.get(self.i..self.i + 8) == Some(b"        ") {
                        self.i += 8;
                    }
                }
                _ => return,
            }
        }
    }

    /// A string (the cursor is on its `"`); returns whether it holds an
    /// escape. Refuses raw control characters, unknown escapes, bad `\u`
    /// digits, and gives way on surrogate escapes.
    fn string(&mut self) -> Option<bool> {
        if self.peek()? != b'"' {
            return None;
        }
        self.i += 1;
        let mut escaped = false;
        loop {
            let rest = &self.bytes[self.i..];
            let k = string_stop(rest)?;
            self.i += k;
            if rest[k] < 0x20 {
                return None;
            }
            if rest[k] == b'"' {
                self.i += 1;
                return Some(escaped);
            }
            escaped = true;
            match *self.bytes.get(self.i + 1)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.i += 2,
                b'u' => match self.hex_escape(self.i)? {
                    0xD800..=0xDBFF => {
                        // A surrogate pair is one character; anything else
                        // around a surrogate gives way.
                        if self.bytes.get(self.i + 6) != Some(&b'\\')
                            || self.bytes.get(self.i + 7) != Some(&b'u')
                            || !(0xDC00..=0xDFFF).contains(&self.hex_escape(self.i + 6)?)
                        {
                            return None;
                        }
                        self.i += 12;
                    }
                    0xDC00..=0xDFFF => return None,
                    _ => self.i += 6,
                },
                _ => return None,
            }
        }
    }

    /// The code unit of the `\uXXXX` escape whose backslash is at `at`.
    fn hex_escape(&self, at: usize) -> Option<u16> {
        let hex = self.bytes.get(at + 2..at + 6)?;
        let hex = std::str::from_utf8(hex).ok()?;
        if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        u16::from_str_radix(hex, 16).ok()
    }

    /// A number (the cursor is on `-` or a digit), by the JSON grammar. A
    /// number with an exponent, or longer than [`Fast::MAX_NUMBER`], is
    /// parsed: serde_json refuses a number only when it overflows an `f64`,
    /// so one that is finite and below 1e300 is safe; any other gives way.
    fn number(&mut self) -> Option<()> {
        let start = self.i;
        if self.peek()? == b'-' {
            self.i += 1;
        }
        match self.peek()? {
            b'0' => self.i += 1,
            b'1'..=b'9' => self.digits(),
            _ => return None,
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if !self.peek()?.is_ascii_digit() {
                return None;
            }
            self.digits();
        }
        let mut plain = true;
        if let Some(b'e' | b'E') = self.peek() {
            plain = false;
            self.i += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            if !self.peek()?.is_ascii_digit() {
                return None;
            }
            self.digits();
        }
        if plain && self.i - start <= Self::MAX_NUMBER {
            return Some(());
        }
        let text = std::str::from_utf8(&self.bytes[start..self.i]).ok()?;
        let value: f64 = text.parse().ok()?;
        (value.abs() < 1e300).then_some(())
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.i += 1;
        }
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.i + word.len();
        (self.bytes.get(self.i..end)? == word).then(|| self.i = end)
    }

    /// One value, iteratively: a stack of open containers as bits (1 for an
    /// object), at most [`Fast::MAX_DEPTH`] deep.
    fn value(&mut self) -> Option<()> {
        let mut stack: u128 = 0;
        let mut depth: u32 = 0;
        loop {
            // A value starts here.
            match self.peek()? {
                b'"' => {
                    self.string()?;
                }
                b'-' | b'0'..=b'9' => self.number()?,
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                b'n' => self.literal(b"null")?,
                open @ (b'{' | b'[') => {
                    depth += 1;
                    if depth > Self::MAX_DEPTH {
                        return None;
                    }
                    let object = open == b'{';
                    stack = (stack << 1) | u128::from(object);
                    self.i += 1;
                    self.ws();
                    let close = if object { b'}' } else { b']' };
                    if self.peek()? != close {
                        if object {
                            self.member_name()?;
                        }
                        continue;
                    }
                    self.i += 1;
                    depth -= 1;
                    stack >>= 1;
                }
                _ => return None,
            }
            // After a value: close containers, or move to the next element.
            loop {
                if depth == 0 {
                    return Some(());
                }
                self.ws();
                let object = stack & 1 == 1;
                match (self.peek()?, object) {
                    (b',', _) => {
                        self.i += 1;
                        self.ws();
                        if object {
                            self.member_name()?;
                        }
                        break;
                    }
                    (b'}', true) | (b']', false) => {
                        self.i += 1;
                        depth -= 1;
                        stack >>= 1;
                    }
                    _ => return None,
                }
            }
        }
    }

    /// `"name" :` inside an object, up to the value.
    fn member_name(&mut self) -> Option<()> {
        self.string()?;
        self.ws();
        self.expect(b':')?;
        self.ws();
        Some(())
    }
}

/// The first byte of `bytes` that ends a run of plain string content: `"`,
/// `\\` or a raw control character (not allowed in a JSON string). Eight
/// bytes at a time as one word (most strings are short names, tags and
/// IDs), and for long strings (base64 contents) 64-byte blocks tested with
/// no early exit inside a block, the shape the compiler vectorizes.
fn string_stop(bytes: &[u8]) -> Option<usize> {
    let mut offset = 0;
    let mut words = bytes.chunks_exact(8);
    for word in words.by_ref().take(4) {
        if let Some(k) = word_stop(word) {
            return Some(offset + k);
        }
        offset += 8;
    }
    let mut blocks = bytes[offset..].chunks_exact(64);
    for block in &mut blocks {
        let mut any = false;
        for &b in block {
            any |= b == b'"' || b == b'\\' || b < 0x20;
        }
        if any {
            return block
                .chunks_exact(8)
                .enumerate()
                .find_map(|(j, word)| word_stop(word).map(|k| offset + 8 * j + k));
        }
        offset += 64;
    }
    let tail = blocks.remainder();
    let mut words = tail.chunks_exact(8);
    for word in &mut words {
        if let Some(k) = word_stop(word) {
            return Some(offset + k);
        }
        offset += 8;
    }
    words
        .remainder()
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
        .map(|k| offset + k)
}

/// [`string_stop`] within one 8-byte word, branch-free: the lowest flagged
/// byte is exact (a borrow only propagates upward from a true hit).
fn word_stop(word: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    let w = u64::from_le_bytes(word.try_into().expect("8 bytes"));
    let quote = w ^ (ONES * u64::from(b'"'));
    let backslash = w ^ (ONES * u64::from(b'\\'));
    let hits = ((quote.wrapping_sub(ONES) & !quote)
        | (backslash.wrapping_sub(ONES) & !backslash)
        | (w.wrapping_sub(ONES * 0x20) & !w))
        & HIGH;
    (hits != 0).then(|| hits.trailing_zeros() as usize / 8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::collection::vec;
    use proptest::prelude::*;
    use serde_json::Value;

    /// A piece of string content, valid or not: plain and non-ASCII text,
    /// every escape, surrogate pairs and every misuse of their halves, raw
    /// control characters and invalid UTF-8.
    fn string_piece() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            10 => "[a-zA-Z0-9 +/=_.:-]{0,40}".prop_map(String::into_bytes),
            2 => "[é😀ß中\u{7f}]{1,3}".prop_map(String::into_bytes),
            3 => prop::sample::select(vec![
                r#"\n"#, r#"\""#, r#"\\"#, r#"\/"#, r#"\b"#, r#"\f"#, r#"\r"#, r#"\t"#,
                r#"\u00e9"#, r#"\u0041"#, r#"\u0000"#, r#"\uD83D\uDE00"#, r#"\ud83d\ude00"#,
                r#"\uDBFF\uDFFF"#, r#"\uFFFF"#,
            ])
            .prop_map(|s| s.as_bytes().to_vec()),
            2 => prop::sample::select(vec![
                r#"\uD800"#, r#"\uDC00"#, r#"\udfff"#, r#"\uD83D\u0041"#, r#"\uDE00\uD83D"#,
                r#"\uD83D\n"#, r#"\uD83D\uD83D"#,
            ])
            .prop_map(|s| s.as_bytes().to_vec()),
            1 => prop::sample::select(vec![r#"\x"#, r#"\u12"#, r#"\uZZZZ"#, r#"\u+123"#, "\\"])
                .prop_map(|s| s.as_bytes().to_vec()),
            1 => prop::sample::select(vec![
                vec![0x01], vec![b'\n'], vec![b'\t'], vec![0x1f], vec![0xff], vec![0xc3],
                vec![0xe2, 0x82], vec![0xed, 0xa0, 0x80],
            ]),
        ]
    }

    fn string() -> impl Strategy<Value = Vec<u8>> {
        vec(string_piece(), 0..6).prop_map(|pieces| {
            let mut out = vec![b'"'];
            pieces.iter().for_each(|p| out.extend_from_slice(p));
            out.push(b'"');
            out
        })
    }

    fn number() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            4 => any::<i64>().prop_map(|n| n.to_string().into_bytes()),
            2 => (any::<i32>(), 0u32..1000).prop_map(|(a, b)| format!("{a}.{b:03}").into_bytes()),
            3 => prop::sample::select(vec![
                "0", "-0", "1e5", "1E+5", "2.5e-7", "1e299", "9.99e299", "1e300", "1e308",
                "1.7976931348623157e308", "1.8e308", "1e309", "-1e400", "1e-400", "0e99999",
                "1e999999999999999999", "123456789012345678901234567890",
            ])
            .prop_map(|s| s.as_bytes().to_vec()),
            1 => prop::sample::select(vec![
                "01", "1.", ".5", "-", "1e", "1e+", "+1", "0x10", "1.5e3.2", "--1",
            ])
            .prop_map(|s| s.as_bytes().to_vec()),
            1 => (1usize..3, 295usize..320).prop_map(|(d, n)| {
                let mut s = d.to_string();
                s.extend(std::iter::repeat_n('9', n));
                s.into_bytes()
            }),
        ]
    }

    fn ws() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "",
            "",
            " ",
            "\n  ",
            "\n        ",
            "\t",
            "\r\n",
            "\u{a0}",
        ])
    }

    fn value() -> impl Strategy<Value = Vec<u8>> {
        let leaf = prop_oneof![
            4 => string(),
            3 => number(),
            1 => prop::sample::select(vec!["true", "false", "null", "tru", "nul", "True"])
                .prop_map(|s| s.as_bytes().to_vec()),
            1 => (prop::sample::select(vec![1usize, 99, 100, 101, 126, 127, 128, 130]), any::<bool>())
                .prop_map(|(n, object)| {
                    let (open, close) = if object { (r#"{"k":"#, "}") } else { ("[", "]") };
                    let mut out = open.repeat(n).into_bytes();
                    out.extend_from_slice(b"0");
                    out.extend_from_slice(close.repeat(n).as_bytes());
                    out
                }),
        ];
        leaf.prop_recursive(4, 32, 5, |inner| {
            prop_oneof![
                vec((ws(), inner.clone(), ws()), 0..5).prop_map(|items| {
                    let mut out = vec![b'['];
                    for (k, (a, v, b)) in items.iter().enumerate() {
                        if k > 0 {
                            out.push(b',');
                        }
                        out.extend_from_slice(a.as_bytes());
                        out.extend_from_slice(v);
                        out.extend_from_slice(b.as_bytes());
                    }
                    out.push(b']');
                    out
                }),
                vec((string(), ws(), inner), 0..5).prop_map(|members| {
                    let mut out = vec![b'{'];
                    for (k, (name, w, v)) in members.iter().enumerate() {
                        if k > 0 {
                            out.push(b',');
                        }
                        out.extend_from_slice(name);
                        out.extend_from_slice(w.as_bytes());
                        out.push(b':');
                        out.extend_from_slice(v);
                    }
                    out.push(b'}');
                    out
                }),
            ]
        })
    }

    /// An event object: names from a small pool (so some repeat), some
    /// escaped, values of every kind.
    fn event_text() -> impl Strategy<Value = Vec<u8>> {
        let name = prop_oneof![
            prop::sample::select(vec![
                r#""type""#,
                r#""id""#,
                r#""content""#,
                r#""timestamp""#,
                r#""ty\u0070e""#,
                r#""d\u00e9lta""#,
                r#""""#,
                r#""bad\u12""#,
                r#""é""#,
            ])
            .prop_map(|s| s.as_bytes().to_vec()),
            string(),
        ];
        (
            vec((ws(), name, ws(), ws(), value(), ws()), 0..6),
            ws(),
            "[ ,}x]{0,2}",
        )
            .prop_map(|(members, w, trailer)| {
                let mut out = vec![b'{'];
                out.extend_from_slice(w.as_bytes());
                for (k, (a, n, b, c, v, d)) in members.iter().enumerate() {
                    if k > 0 {
                        out.push(b',');
                    }
                    out.extend_from_slice(a.as_bytes());
                    out.extend_from_slice(n);
                    out.extend_from_slice(b.as_bytes());
                    out.push(b':');
                    out.extend_from_slice(c.as_bytes());
                    out.extend_from_slice(v);
                    out.extend_from_slice(d.as_bytes());
                }
                out.push(b'}');
                out.extend_from_slice(trailer.as_bytes());
                out
            })
    }

    /// A byte-level mutation: replace, insert or delete one byte.
    fn mutated() -> impl Strategy<Value = Vec<u8>> {
        (
            event_text(),
            vec((any::<prop::sample::Index>(), 0u8..3, any::<u8>()), 1..4),
        )
            .prop_map(|(mut bytes, edits)| {
                for (at, op, b) in edits {
                    let i = at.index(bytes.len() + 1);
                    match op {
                        0 if i < bytes.len() => bytes[i] = b,
                        1 => bytes.insert(i, b),
                        _ if i < bytes.len() => {
                            bytes.remove(i);
                        }
                        _ => bytes.push(b),
                    }
                }
                bytes
            })
    }

    /// What the fast path read, owned, or `None` if it gave way.
    fn fast(bytes: &[u8]) -> Option<(Vec<(String, String)>, usize)> {
        read_event(bytes).map(|e| {
            let fields = e
                .fields
                .iter()
                .map(|(k, v)| (k.to_string(), (*v).to_owned()))
                .collect();
            (fields, e.len)
        })
    }

    /// The canonical reading of exactly `bytes`.
    fn canonical(bytes: &[u8]) -> Result<Vec<(String, String)>, String> {
        serde_json::from_slice::<RawEvent>(bytes)
            .map(|raw| {
                raw.fields
                    .into_iter()
                    .map(|(k, v)| (k, v.get().to_owned()))
                    .collect()
            })
            .map_err(|e| e.to_string())
    }

    fn agrees(bytes: &[u8]) -> Result<(), TestCaseError> {
        if let Some((fields, len)) = fast(bytes) {
            prop_assert_eq!(
                canonical(&bytes[..len]),
                Ok(fields),
                "fast path on {:?}",
                String::from_utf8_lossy(&bytes[..len])
            );
        }
        Ok(())
    }

    proptest! {
        /// Rule: PERF-READ-SAME — whatever the fast path reads (an object
        /// with every kind of value, escape, number, nesting depth, repeated
        /// or escaped names, invalid UTF-8 and control characters), the
        /// canonical serde path reads too, with the same names and texts.
        #[test]
        fn fast_path_agrees_with_the_canonical_path(bytes in event_text()) {
            agrees(&bytes)?;
        }

        /// Rule: PERF-READ-SAME — the same after random byte edits, which
        /// break the grammar in every place.
        #[test]
        fn fast_path_agrees_on_mutated_events(bytes in mutated()) {
            agrees(&bytes)?;
        }

        /// Rule: PERF-READ-SAME — on valid objects whose values hold nothing
        /// the fast path leaves to serde_json (no surrogate escape, no deep
        /// nesting, no exponent, distinct plain names), the fast path reads
        /// the event itself: it does not give way on ordinary input.
        #[test]
        fn fast_path_reads_ordinary_events_itself(
            members in vec(("[a-z]{1,8}", prop_oneof![
                "[a-zA-Z0-9+/= é]{0,80}".prop_map(Value::String),
                any::<i64>().prop_map(Value::from),
                any::<bool>().prop_map(Value::from),
                Just(Value::Null),
                vec("[a-z]{0,5}", 0..4).prop_map(|v| serde_json::json!({"list": v, "n": 1.5})),
            ]), 0..8),
            pretty in any::<bool>(),
        ) {
            let object: serde_json::Map<String, Value> = members.into_iter().collect();
            let text = if pretty {
                serde_json::to_vec_pretty(&object)
            } else {
                serde_json::to_vec(&object)
            }
            .expect("a Map serializes");
            let read = fast(&text);
            prop_assert!(read.is_some(), "gave way on {}", String::from_utf8_lossy(&text));
            agrees(&text)?;
        }

        /// Rule: PERF-READ-BUFFERING — a stream reads the same (events,
        /// errors, lines and columns) whether it arrives whole or in small
        /// chunks, so the fast path within one chunk and the scanner across
        /// chunks agree.
        #[test]
        fn reading_does_not_depend_on_buffering(
            events in vec(prop_oneof![4 => event_text(), 1 => mutated()], 1..5),
            array in any::<bool>(),
            capacity in prop::sample::select(vec![1usize, 2, 7, 64, 4096]),
        ) {
            let mut bytes = Vec::new();
            if array {
                bytes.push(b'[');
            }
            for (k, e) in events.iter().enumerate() {
                if k > 0 {
                    bytes.extend_from_slice(if array { b",\n" } else { b"\n" });
                }
                bytes.extend_from_slice(e);
            }
            if array {
                bytes.push(b']');
            }
            let whole: Vec<_> = EventReader::new(&bytes[..], "s").collect();
            let chunked: Vec<_> =
                EventReader::new(io::BufReader::with_capacity(capacity, &bytes[..]), "s").collect();
            prop_assert_eq!(whole, chunked);
        }
    }

    /// Rule: PERF-READ-FAST-COVERAGE — every event of the committed
    /// realistic corpus (`tests/corpus/jp-like/`) and of the real streams
    /// (when `INQUIRY_MODEL_REAL_STREAMS` names their folder) is read by the
    /// fast path, as is every event of the same streams written back as JSON
    /// Lines: a regression here halves `check`'s throughput and no other test
    /// sees it.
    #[test]
    fn real_streams_take_the_fast_path() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut dirs = vec![root.join("tests/corpus/jp-like")];
        match std::env::var_os("INQUIRY_MODEL_REAL_STREAMS") {
            Some(d) => dirs.push(root.join(d)),
            None => {
                use std::io::Write;
                let _ = writeln!(
                    io::stderr(),
                    "skipped: reader::real_streams_take_the_fast_path on the real streams; set INQUIRY_MODEL_REAL_STREAMS to run it"
                );
            }
        }
        let mut files = Vec::new();
        for dir in &dirs {
            let mut these: Vec<_> = std::fs::read_dir(dir)
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .map(|e| e.expect("a folder entry").path())
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect();
            these.sort();
            assert!(
                these.len() >= 6,
                "{}: {} streams",
                dir.display(),
                these.len()
            );
            files.extend(these);
        }
        let mut events = 0;
        for f in files {
            let bytes = std::fs::read(&f).expect("a fixture is readable");
            let stream = Stream::from_slice(&bytes, "fixture").expect("a fixture reads");
            let mut lines = Vec::new();
            stream.write_json_lines(&mut lines).expect("writes");
            for layout in [&bytes, &lines] {
                let texts: Vec<&serde_json::value::RawValue> = if layout == &bytes {
                    serde_json::from_slice(layout).expect("an array")
                } else {
                    serde_json::Deserializer::from_slice(layout)
                        .into_iter()
                        .collect::<Result<_, _>>()
                        .expect("JSON Lines")
                };
                for t in texts {
                    let t = t.get().as_bytes();
                    let (fields, len) = fast(t).unwrap_or_else(|| {
                        panic!(
                            "{}: gave way on {}",
                            f.display(),
                            String::from_utf8_lossy(t)
                        )
                    });
                    assert_eq!(len, t.len());
                    assert_eq!(canonical(t), Ok(fields));
                    events += 1;
                }
            }
        }
        assert!(events > 2900, "{events} events");
    }

    /// Rule: PERF-READ-SAME — the boundaries of what the fast path reads
    /// itself, one by one: each either gives way or reads what the canonical
    /// path reads.
    #[test]
    fn fast_path_agrees_on_boundary_cases() {
        let deep = |n: usize| format!("{{\"a\":{}0{}}}", "[".repeat(n), "]".repeat(n));
        let mut cases: Vec<String> = [
            r#"{"a":"\uDC00"}"#,
            r#"{"a":"\uD800"}"#,
            r#"{"a":"\uD800\u0041"}"#,
            r#"{"a":"\uD800\uDC00"}"#,
            r#"{"a":"\uDBFF\uDFFF"}"#,
            r#"{"a":"\uDE00\uD83D"}"#,
            r#"{"\uDC00":1}"#,
            r#"{"a":1e309}"#,
            r#"{"a":1e308}"#,
            r#"{"a":-1e400}"#,
            r#"{"a":1e-400}"#,
            r#"{"a":1e300}"#,
            r#"{"a":9.99e299}"#,
            r#"{"a":"\u0000"}"#,
            "{\"a\":\"\u{1}\"}",
            "{\"a\":\"\u{7f}\"}",
            r#"{"a":1,"a":2}"#,
            r#"{"a":1,"\u0061":2}"#,
            r#"{"a":01}"#,
            r#"{"a":1.}"#,
            r#"{"a":tru}"#,
            r#"{"a":[1,]}"#,
            r#"{"a":{"b":1,}}"#,
            r#"{"a":1,}"#,
            r#"{,}"#,
            r#"{"a" 1}"#,
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        cases.extend([1, 99, 100, 101, 126, 127, 128, 129].map(deep));
        for case in &cases {
            agrees(case.as_bytes()).unwrap_or_else(|e| panic!("{case}: {e}"));
        }
        // Ordinary cases among them are read by the fast path itself.
        for case in [
            r#"{"a":"\uD800\uDC00"}"#,
            r#"{"a":9.99e299}"#,
            r#"{"a":"\u0000"}"#,
        ] {
            assert!(fast(case.as_bytes()).is_some(), "{case}");
        }
        assert!(fast(deep(100).as_bytes()).is_some());
        assert!(fast(deep(101).as_bytes()).is_none());
    }

    /// Rule: WIRE-EVENT-DUPLICATE — past the handful of names compared one
    /// by one, a repeated field is still found (through a set), and an event
    /// with many distinct fields still reads.
    #[test]
    fn duplicate_field_is_found_among_many_fields() {
        let names: Vec<String> = (0..5000).map(|i| format!("\"f{i}\":{i}")).collect();
        let distinct = format!("{{\"type\":\"x\",{}}}", names.join(","));
        let raw = Stream::from_slice(distinct.as_bytes(), "many").expect("distinct names read");
        assert_eq!(raw.events[0].extra.len(), 5000);
        let repeated = format!("{{\"type\":\"x\",{},\"f2500\":0}}", names.join(","));
        let err = Stream::from_slice(repeated.as_bytes(), "many").expect_err("a repeat");
        assert!(err.message.contains("duplicate field `f2500`"), "{err}");
    }

    /// Rule: PERF-READ-SAME — the word and block scans (string ends,
    /// newlines) agree with the obvious byte loops on every length and
    /// alignment.
    #[test]
    fn word_and_block_scans_match_byte_loops() {
        for len in 0usize..200 {
            for stop_at in [None, Some(0), Some(len / 2), Some(len.saturating_sub(1))] {
                for stop in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
                    let mut bytes: Vec<u8> = (0..len).map(|i| b"ab\x7f\xc3\x20~"[i % 6]).collect();
                    if let Some(at) = stop_at.filter(|&at| at < len) {
                        bytes[at] = stop;
                    }
                    let expected = bytes
                        .iter()
                        .position(|&b| b == b'"' || b == b'\\' || b < 0x20);
                    assert_eq!(string_stop(&bytes), expected, "{bytes:?}");
                    let lines = bytes.iter().filter(|&&b| b == b'\n').count();
                    assert_eq!(count_newlines(&bytes), lines, "{bytes:?}");
                }
            }
        }
    }
}
