//! The reader's fast path: one event object read and checked in a single
//! pass, giving way to serde_json on anything unusual.

use std::borrow::Cow;

use crate::wire::is_repeated;

/// The reader's fast path: one event object at the start of `bytes`, read
/// in a single pass.
///
/// The canonical path (`serde_json::from_slice::<RawEvent>`) reads each field
/// as a `RawValue`, then parses each field again to check that a `Value` can
/// hold it (rule `WIRE-OPAQUE-VALID`). This pass checks the JSON grammar
/// itself, finds the field boundaries, and checks UTF-8 only where a string
/// holds non-ASCII bytes, as it scans (see [`scanned_text`]); strings are
/// skipped a word or a 64-byte block at a time. It is at least as strict as the
/// canonical path and gives way to it on anything unusual: it returns `None`
/// for every input the canonical path refuses (so the caller asks that path
/// for its error), and also for inputs whose check it leaves to serde_json
/// (a surrogate escape that is not half of a pair, nesting deeper than
/// [`Fast::MAX_DEPTH`], a number that might overflow an `f64`, a repeated
/// field, an escaped field name that does not decode). When it returns an
/// event, the event is the canonical one: the same names, the same texts.
pub(crate) fn read_event(bytes: &[u8]) -> Option<FastEvent<'_>> {
    read_event_into(bytes, Vec::with_capacity(8))
}

/// [`read_event`], listing the fields in `fields` (emptied first): a list
/// whose buffer the caller keeps from event to event ([`recycle`]), so
/// reading an event allocates nothing.
pub(crate) fn read_event_into<'a>(
    bytes: &'a [u8],
    mut fields: FieldsRef<'a>,
) -> Option<FastEvent<'a>> {
    let mut f = Fast {
        bytes,
        i: 0,
        newlines: 0,
        last_newline: None,
    };
    fields.clear();
    if fields.capacity() == 0 {
        fields.reserve(8);
    }
    let mut names = None;
    let mut plain = 0u64;
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
            // Most fields hold a string: read it without `value`'s stack.
            let plain_string = if f.peek()? == b'"' {
                !f.string()?
            } else {
                f.value()?;
                false
            };
            let key = if escaped {
                Cow::Owned(serde_json::from_slice::<String>(&bytes[key_start..key_end]).ok()?)
            } else {
                Cow::Borrowed(scanned_text(bytes, key_start + 1, key_end - 1))
            };
            if is_repeated(&fields, &mut names, &key) {
                return None;
            }
            if plain_string && fields.len() < 64 {
                plain |= 1 << fields.len();
            }
            fields.push((key, scanned_text(bytes, value_start, f.i)));
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
    Some(FastEvent {
        fields,
        plain,
        len: f.i,
        newlines: f.newlines,
        last_newline: f.last_newline,
    })
}

/// The items of a JSON array text, each as written, read by the same
/// single pass as [`read_event`] (and giving way, `None`, where it does);
/// `None` too when `bytes` is not exactly one array.
pub(crate) fn array_items(bytes: &[u8]) -> Option<Vec<&str>> {
    let mut f = Fast {
        bytes,
        i: 0,
        newlines: 0,
        last_newline: None,
    };
    f.expect(b'[')?;
    f.ws();
    let mut items = Vec::new();
    if f.peek()? == b']' {
        f.i += 1;
    } else {
        loop {
            let start = f.i;
            f.value()?;
            items.push(scanned_text(bytes, start, f.i));
            f.ws();
            match f.peek()? {
                b',' => {
                    f.i += 1;
                    f.ws();
                }
                b']' => {
                    f.i += 1;
                    break;
                }
                _ => return None,
            }
        }
    }
    (f.i == bytes.len()).then_some(items)
}

/// Whether `bytes` is exactly one JSON value the fast path reads itself
/// (in particular nested at most [`Fast::MAX_DEPTH`] deep).
pub(crate) fn within_depth(bytes: &[u8]) -> bool {
    let mut f = Fast {
        bytes,
        i: 0,
        newlines: 0,
        last_newline: None,
    };
    f.value().is_some() && f.i == bytes.len()
}

/// `bytes[start..end]` as text, for a span [`Fast`] has scanned: it starts
/// and ends at an ASCII byte of the JSON grammar (a quote, a bracket, the
/// first or last byte of a number or literal).
///
/// No second UTF-8 pass over the event: outside strings the grammar allows
/// ASCII only, and [`Fast::string`] validates every non-ASCII stretch of a
/// string (from its first byte at or above 0x80 to the next byte below
/// 0x80) with `std::str::from_utf8` as it scans. Valid stretches
/// separated by ASCII bytes make valid UTF-8, and a span whose ends are
/// ASCII bytes lies on character boundaries.
fn scanned_text(bytes: &[u8], start: usize, end: usize) -> &str {
    let span = &bytes[start..end];
    debug_assert!(std::str::from_utf8(span).is_ok(), "a scanned span is UTF-8");
    // SAFETY: see above: every byte of `span` was scanned by `Fast`, which
    // refuses (returns `None` before this is reached) any string holding
    // invalid UTF-8 and any non-ASCII byte outside strings; `span` starts
    // and ends on ASCII bytes.
    unsafe { std::str::from_utf8_unchecked(span) }
}

/// An event's fields in written order, borrowed from the bytes they were
/// read from (a name is decoded, so owned, only when it holds an escape).
pub(crate) type FieldsRef<'a> = Vec<(Cow<'a, str>, &'a str)>;

/// `fields` emptied, its buffer kept for the fields of another event (of
/// another lifetime): the element types differ only in lifetimes, so std's
/// in-place collection of a `Vec`'s own iterator keeps the buffer, without
/// `unsafe` of ours.
#[inline]
#[expect(
    clippy::unnecessary_filter_map,
    reason = "the map changes the element type's lifetimes; no element is kept"
)]
pub(crate) fn recycle<'b>(fields: FieldsRef<'_>) -> FieldsRef<'b> {
    fields.into_iter().filter_map(|_| None).collect()
}

/// What [`read_event`] read: the fields, the event's length, and the
/// newlines it holds (all of them lie in whitespace between tokens).
pub(crate) struct FastEvent<'a> {
    pub(super) fields: FieldsRef<'a>,
    /// Bit `i` set: field `i`'s value is a string holding no escape (the
    /// first 64 fields only).
    pub(super) plain: u64,
    pub(super) len: usize,
    pub(super) newlines: usize,
    pub(super) last_newline: Option<usize>,
}

/// What [`Fast::stop`] read at a string's stop.
enum Stop {
    /// The closing quote.
    End,
    /// An escape.
    Escape,
    /// A run of non-ASCII text.
    Text,
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
        // A bit set, not a `match` or a chain of `==`: those compile to a
        // jump table, whose target a pretty array's alternation of
        // indentation, newlines and tokens keeps mispredicting (callgrind's
        // branch simulation: most of `check`'s indirect mispredictions).
        const WS: u64 = 1 << b' ' | 1 << b'\t' | 1 << b'\r' | 1 << b'\n';
        const SPACES: u64 = u64::from_ne_bytes([b' '; 8]);
        // Most calls find none (JSON Lines has no whitespace, a pretty
        // array none before a `:` or after a value): one compare answers
        // them, as no JSON whitespace byte lies above a space (rule
        // `PERF-READ-SAME`).
        if self.bytes.get(self.i).is_none_or(|&b| b > b' ') {
            return;
        }
        while let Some(&b) = self.bytes.get(self.i) {
            if b >= 64 || (WS >> b) & 1 == 0 {
                return;
            }
            if b == b'\n' {
                self.newlines += 1;
                self.last_newline = Some(self.i);
                self.i += 1;
                // The indentation's spaces, up to eight a step: the bytes
                // equal to a space become zero, so the lowest set bit names
                // the first other byte (none: eight spaces).
                while let Some(word) = self.bytes.get(self.i..self.i + 8) {
                    let word = u64::from_le_bytes(word.try_into().expect("8 bytes"));
                    let spaces = (word ^ SPACES).trailing_zeros() as usize / 8;
                    self.i += spaces;
                    if spaces < 8 {
                        break;
                    }
                }
            } else {
                self.i += 1;
            }
        }
    }

    /// A string (the cursor is on its `"`); returns whether it holds an
    /// escape. Refuses raw control characters, unknown escapes, bad `\u`
    /// digits, invalid UTF-8, and gives way on surrogate escapes.
    ///
    /// Inlined where it is called: most strings (names, tags, timestamps,
    /// IDs) end within 32 bytes with nothing to check before their closing
    /// quote ([`short_string_end`]), which costs no call; others go on in
    /// [`Fast::long_string`].
    #[inline(always)]
    fn string(&mut self) -> Option<bool> {
        if let Some(end) = short_string_end(self.bytes, self.i) {
            self.i = end;
            return Some(false);
        }
        self.long_string()
    }

    /// [`Fast::string`] of any length.
    #[inline(never)]
    fn long_string(&mut self) -> Option<bool> {
        if self.peek()? != b'"' {
            return None;
        }
        self.i += 1;
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, `string_rest_avx2`'s one requirement.
            return unsafe { self.string_rest_avx2() };
        }
        self.string_rest(false)
    }

    /// The rest of a string after its opening quote, one [`text_stop`] a
    /// stop; `escaped` says whether an escape came before the cursor.
    fn string_rest(&mut self, mut escaped: bool) -> Option<bool> {
        loop {
            let k = text_stop(&self.bytes[self.i..])?;
            self.i += k;
            match self.stop()? {
                Stop::End => return Some(escaped),
                Stop::Escape => escaped = true,
                Stop::Text => {}
            }
        }
    }

    /// [`Fast::string_rest`] 64 bytes a block with AVX2: a block's stops
    /// are found at once and taken from its mask one by one, the closing
    /// quote and the two-byte escapes (`\n`, `\"`) without leaving the
    /// block, so a string dense with escapes (a tool's output, a file's
    /// text) is not scanned again from each one. Any other stop is read
    /// by [`Fast::stop`], and the scan goes on from after it; the last 63
    /// bytes of the input by [`Fast::string_rest`].
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn string_rest_avx2(&mut self) -> Option<bool> {
        let mut escaped = false;
        loop {
            let Some(block) = self.bytes.get(self.i..).and_then(<[u8]>::first_chunk::<64>) else {
                return self.string_rest(escaped);
            };
            let base = self.i;
            // SAFETY: AVX2 is present (this function's requirement).
            let mut mask = unsafe { avx2::block_mask(block) };
            loop {
                if mask == 0 {
                    self.i = base + 64;
                    break;
                }
                let k = mask.trailing_zeros() as usize;
                let b = block[k];
                if b == b'"' {
                    self.i = base + k + 1;
                    return Some(escaped);
                }
                if b == b'\\' && k < 63 && SHORT_ESCAPE[usize::from(block[k + 1])] {
                    // The escape and the character it escapes, which may
                    // itself be a stop (`\"`, `\\`), are passed over.
                    escaped = true;
                    mask &= !(3u64 << k);
                    continue;
                }
                self.i = base + k;
                match self.stop()? {
                    Stop::End => return Some(escaped),
                    Stop::Escape => escaped = true,
                    Stop::Text => {}
                }
                break;
            }
        }
    }

    /// Reads the stop [`text_stop`] found at the cursor and moves past
    /// it: the closing quote, one escape, or a run of non-ASCII text
    /// (validated up to the next ASCII byte, see `scanned_text`). `None`
    /// for a control character, an unknown escape, bad `\u` digits,
    /// invalid UTF-8, or a surrogate escape that is not half of a pair.
    #[inline(always)]
    fn stop(&mut self) -> Option<Stop> {
        let b = *self.bytes.get(self.i)?;
        if b >= 0x80 {
            let run = &self.bytes[self.i..];
            let end = non_ascii_run(run);
            std::str::from_utf8(&run[..end]).ok()?;
            self.i += end;
            return Some(Stop::Text);
        }
        if b < 0x20 {
            return None;
        }
        if b == b'"' {
            self.i += 1;
            return Some(Stop::End);
        }
        let e = *self.bytes.get(self.i + 1)?;
        // A table, not a `match`: the match compiles to a jump table
        // whose indirect jump mispredicts on a mix of escapes.
        if SHORT_ESCAPE[usize::from(e)] {
            self.i += 2;
            return Some(Stop::Escape);
        }
        match e {
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
        Some(Stop::Escape)
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
            // A value starts here: most often a string, tested first (see
            // `ws` on jump tables).
            let first = self.peek()?;
            match first {
                _ if first == b'"' => {
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

/// The escapes of two bytes, by the byte after the backslash: `\"`,
/// `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t` (RFC 8259, section 7).
const SHORT_ESCAPE: [bool; 256] = {
    let mut t = [false; 256];
    let mut k = 0;
    let escapes = *b"\"\\/bfnrt";
    while k < escapes.len() {
        t[escapes[k] as usize] = true;
        k += 1;
    }
    t
};

/// How many bytes `bytes` starts with at or above 0x80 (a stretch of
/// non-ASCII characters, whole if the text is valid), eight at a time.
pub(super) fn non_ascii_run(bytes: &[u8]) -> usize {
    let mut words = bytes.chunks_exact(8);
    let mut offset = 0;
    for word in &mut words {
        let w = u64::from_le_bytes(word.try_into().expect("8 bytes"));
        let ascii = !w & HIGH_BITS;
        if ascii != 0 {
            return offset + ascii.trailing_zeros() as usize / 8;
        }
        offset += 8;
    }
    offset
        + words
            .remainder()
            .iter()
            .position(|&b| b < 0x80)
            .unwrap_or(words.remainder().len())
}

/// The first byte of `bytes` that ends a run of plain ASCII string
/// content: `"`, `\\`, a raw control character (not allowed in a JSON
/// string) or a byte at or above 0x80 (the start of a non-ASCII character,
/// which [`Fast::string`] validates). On x86-64 with SSE2, or AVX2 where
/// the CPU has it; elsewhere eight bytes at a time as one word (most
/// strings are short names, tags and IDs), and for long strings 64-byte
/// blocks tested with no early exit inside a block, the shape the compiler
/// vectorizes.
pub(super) fn text_stop(bytes: &[u8]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        // The detection is read once and cached by the standard library:
        // one load and one branch a call.
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, `avx2::text_stop`'s one requirement.
            return unsafe { avx2::text_stop(bytes) };
        }
        sse2::text_stop(bytes)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        stop(bytes)
    }
}

/// Whether a JSON writer writes `text` as itself between quotes: it holds
/// none of the characters serde_json escapes (`"`, `\\`, those below
/// U+0020; rule `PERF-OPAQUE-TEXT`). The string scan also stops at
/// non-ASCII characters, which need no escape and are stepped over.
pub(crate) fn is_plain_json_text(text: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.len() < SHORT_PLAIN {
        return plain_by_words(bytes);
    }
    let mut at = 0;
    while let Some(k) = text_stop(&bytes[at..]) {
        at += k;
        if bytes[at] < 0x80 {
            return false;
        }
        at += non_ascii_run(&bytes[at..]);
    }
    true
}

/// Below this length [`is_plain_json_text`] reads a text a word at a
/// time ([`plain_by_words`]): most texts the model writes (tool responses,
/// chat texts) are this short, where a scan for the next stop pays its
/// dispatch and its tail.
const SHORT_PLAIN: usize = 64;

/// Whether `bytes` holds none of the bytes serde_json escapes (`"`, `\\`,
/// those below 0x20), eight at a time (rule `PERF-OPAQUE-TEXT`). Only
/// whether one is there matters, not where, so the last word may overlap
/// the one before it, and a byte flagged only through a borrow from a
/// lower byte is flagged where a true one already is.
fn plain_by_words(bytes: &[u8]) -> bool {
    let escapes = |w: u64| escape_bits(w) & HIGH_BITS != 0;
    let Some(last) = bytes.last_chunk::<8>() else {
        return bytes.iter().all(|&b| b >= 0x20 && b != b'"' && b != b'\\');
    };
    let (words, _) = bytes.as_chunks::<8>();
    !words.iter().any(|w| escapes(u64::from_le_bytes(*w))) && !escapes(u64::from_le_bytes(*last))
}

/// Every implementation of [`text_stop`] this CPU can run, by name (the
/// portable scan, and on x86-64 SSE2 and, where present, AVX2), with its
/// answer on `bytes`: the tests hold each to the byte loop, whichever the
/// dispatch picks on the machine they run on.
#[cfg(test)]
pub(super) fn text_stops(bytes: &[u8]) -> Vec<(&'static str, Option<usize>)> {
    #[allow(unused_mut)]
    let mut out = vec![("portable", stop(bytes))];
    #[cfg(target_arch = "x86_64")]
    {
        out.push(("sse2", sse2::text_stop(bytes)));
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2.
            out.push(("avx2", unsafe { avx2::text_stop(bytes) }));
        }
    }
    out
}

/// Every way this CPU can read the rest of a string (after its opening
/// quote, at the start of `bytes`), by name: one [`text_stop`] a stop and,
/// where the CPU has AVX2, 64-byte blocks. Each gives whether the string
/// held an escape and where it ended, or `None` where it refused.
#[cfg(test)]
pub(super) fn string_rests(bytes: &[u8]) -> Vec<(&'static str, Option<(bool, usize)>)> {
    let fast = || Fast {
        bytes,
        i: 0,
        newlines: 0,
        last_newline: None,
    };
    let mut f = fast();
    #[allow(unused_mut)]
    let mut out = vec![("stop by stop", f.string_rest(false).map(|e| (e, f.i)))];
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        let mut f = fast();
        // SAFETY: the CPU has AVX2.
        let found = unsafe { f.string_rest_avx2() };
        out.push(("avx2 blocks", found.map(|e| (e, f.i))));
    }
    out
}

/// Where the string whose `"` is at `at` ends (just past its closing
/// quote) when that quote is the first byte [`text_stop`] stops at within
/// the 32 bytes after the opening one: a string of at most 31 bytes,
/// plain ASCII, no escape (names, tags, timestamps, tool-call IDs).
/// `None` otherwise (and where fewer than 32 bytes follow), for
/// [`Fast::long_string`] to read.
#[inline(always)]
fn short_string_end(bytes: &[u8], at: usize) -> Option<usize> {
    if *bytes.get(at)? != b'"' {
        return None;
    }
    let after = bytes.get(at + 1..at + 33)?;
    let (first, second) = after.split_first_chunk::<16>()?;
    let second = second.first_chunk::<16>()?;
    let k = match block_stop(first) {
        Some(k) => k,
        None => 16 + block_stop(second)?,
    };
    (after[k] == b'"').then_some(at + 2 + k)
}

/// [`text_stop`] within 16 bytes.
#[inline(always)]
fn block_stop(block: &[u8; 16]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        sse2::block_stop(block)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        stop(block)
    }
}

/// [`text_stop`] sixteen bytes a step with SSE2 (part of every x86-64
/// CPU): two equality compares, one signed compare for the control and
/// high bytes, and a mask whose lowest set bit is the stop.
#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_cmplt_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };

    /// [`text_stop`] within one 16-byte block.
    #[inline(always)]
    pub(super) fn block_stop(block: &[u8; 16]) -> Option<usize> {
        // SAFETY: `block` is 16 readable bytes; the load is unaligned;
        // SSE2 is enabled on every x86-64 target.
        let mask = unsafe {
            let v = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
            let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
            let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
            let low_or_high = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20));
            _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), low_or_high))
        };
        (mask != 0).then(|| mask.trailing_zeros() as usize)
    }

    pub(super) fn text_stop(bytes: &[u8]) -> Option<usize> {
        let (blocks, rest) = bytes.as_chunks::<16>();
        let mut offset = 0;
        for block in blocks {
            if let Some(k) = block_stop(block) {
                return Some(offset + k);
            }
            offset += 16;
        }
        super::stop(rest).map(|k| offset + k)
    }
}

/// [`text_stop`] thirty-two bytes a step with AVX2, where the CPU has it
/// (found at run time): the same three compares and mask as [`sse2`] on
/// twice the bytes, and a 64-byte block's stops as one mask for
/// `Fast::string_rest_avx2`. Long strings (tool outputs, file contents)
/// are most of a real stream's bytes.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_cmpgt_epi8, _mm256_loadu_si256, _mm256_movemask_epi8,
        _mm256_or_si256, _mm256_set1_epi8,
    };

    /// [`text_stop`](super::text_stop) with AVX2. The first 16 bytes are
    /// one SSE2 block, since most strings end there (names, tags, IDs).
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn text_stop(bytes: &[u8]) -> Option<usize> {
        let Some(first) = bytes.first_chunk::<16>() else {
            return super::stop(bytes);
        };
        if let Some(k) = super::sse2::block_stop(first) {
            return Some(k);
        }
        let mut offset = 16;
        let (blocks, _) = bytes[offset..].as_chunks::<32>();
        for block in blocks {
            // SAFETY: `block` is 32 readable bytes; AVX2 is present (this
            // function's requirement).
            let mask = unsafe { half(block.as_ptr()) };
            if mask != 0 {
                return Some(offset + mask.trailing_zeros() as usize);
            }
            offset += 32;
        }
        super::sse2::text_stop(&bytes[offset..]).map(|k| offset + k)
    }

    /// The stops of a 64-byte block, one bit a byte (bit `k` for byte
    /// `k`): two 32-byte halves tested as in [`text_stop`].
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) unsafe fn block_mask(block: &[u8; 64]) -> u64 {
        // SAFETY: both halves lie in `block`; AVX2 is present.
        let (low, high) = unsafe { (half(block.as_ptr()), half(block[32..].as_ptr())) };
        u64::from(low) | (u64::from(high) << 32)
    }

    /// The stops of the 32 bytes at `at`, one bit a byte.
    ///
    /// # Safety
    ///
    /// 32 bytes at `at` must be readable; the CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn half(at: *const u8) -> u32 {
        // SAFETY: the caller's requirements; the load is unaligned.
        unsafe {
            let v = _mm256_loadu_si256(at.cast::<__m256i>());
            let quote = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'"' as i8));
            let backslash = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\\' as i8));
            // Signed: bytes at or above 0x80 are negative, so this takes
            // the control and the high bytes together.
            let low_or_high = _mm256_cmpgt_epi8(_mm256_set1_epi8(0x20), v);
            _mm256_movemask_epi8(_mm256_or_si256(
                _mm256_or_si256(quote, backslash),
                low_or_high,
            )) as u32
        }
    }
}

/// Whether `b` stops a scan: `"`, `\\`, a control byte or a byte at or
/// above 0x80.
#[inline(always)]
fn stops(b: u8) -> bool {
    // One signed compare takes both control and high bytes (a byte at or
    // above 0x80 is negative as an `i8`).
    b == b'"' || b == b'\\' || (b as i8) < 0x20
}

fn stop(bytes: &[u8]) -> Option<usize> {
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
            any |= stops(b);
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
        .position(|&b| stops(b))
        .map(|k| offset + k)
}

/// [`stop`] within one 8-byte word, branch-free: the lowest flagged byte
/// is exact (a borrow only propagates upward from a true hit; a byte's own
/// high bit flags only that byte).
fn word_stop(word: &[u8]) -> Option<usize> {
    let w = u64::from_le_bytes(word.try_into().expect("8 bytes"));
    // A byte's own high bit flags a byte at or above 0x80.
    let hits = (escape_bits(w) | w) & HIGH_BITS;
    (hits != 0).then(|| hits.trailing_zeros() as usize / 8)
}

/// The high bit of each byte of `w` holding a byte serde_json escapes:
/// `"`, `\\` or one below 0x20 (bits other than the high ones are noise,
/// for the caller to mask off with [`HIGH_BITS`]). Each test is
/// `(x - 0x01..) & !x` on a byte turned zero (or below 0x20 against
/// 0x20..); a borrow runs only upward from a true hit, so the lowest
/// flagged byte is exact and there is no false hit without a true one.
#[inline(always)]
fn escape_bits(w: u64) -> u64 {
    let quote = w ^ (ONES * u64::from(b'"'));
    let backslash = w ^ (ONES * u64::from(b'\\'));
    (quote.wrapping_sub(ONES) & !quote)
        | (backslash.wrapping_sub(ONES) & !backslash)
        | (w.wrapping_sub(ONES * 0x20) & !w)
}

/// One in every byte of a word.
const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
/// Every byte's high bit.
const HIGH_BITS: u64 = u64::from_ne_bytes([0x80; 8]);

#[cfg(test)]
mod tests {
    use super::*;

    /// Rule: PERF-READ-SAME — a recycled field list is empty and keeps its
    /// buffer (a recycling that dropped it would allocate per event again).
    #[test]
    fn a_recycled_field_list_keeps_its_buffer() {
        let text = String::from("a name");
        let mut fields: FieldsRef<'_> = Vec::with_capacity(12);
        fields.push((Cow::Borrowed(text.as_str()), "1"));
        let buffer = fields.as_ptr() as usize;
        let recycled: FieldsRef<'static> = recycle(fields);
        assert!(recycled.is_empty());
        assert_eq!(recycled.capacity(), 12);
        assert_eq!(recycled.as_ptr() as usize, buffer);
    }

    /// Rule: PERF-READ-SAME — a string the short path reads
    /// ([`short_string_end`]) is read by the general scan
    /// ([`Fast::long_string`]) to the same end, with no escape; around
    /// every stop byte at every position of the 32-byte window (and
    /// beyond it), and with too few bytes after the string.
    #[test]
    fn short_string_path_is_the_general_scan() {
        let mut short_reads = 0;
        for len in 0usize..40 {
            for stop_at in 0..=len {
                for stop in [b'"', b'\\', 0x00, 0x1f, 0x7f, 0x80, 0xc3, b'a'] {
                    for tail in [0usize, 1, 16, 40] {
                        let mut bytes = vec![b'"'];
                        bytes.extend((0..len).map(|i| b"ab~ +/=:"[i % 8]));
                        if stop_at < len {
                            bytes[1 + stop_at] = stop;
                        }
                        bytes.push(b'"');
                        bytes.extend(std::iter::repeat_n(b'x', tail));
                        let Some(end) = short_string_end(&bytes, 0) else {
                            continue;
                        };
                        short_reads += 1;
                        let mut f = Fast {
                            bytes: &bytes,
                            i: 0,
                            newlines: 0,
                            last_newline: None,
                        };
                        assert_eq!(f.long_string(), Some(false), "{bytes:?}");
                        assert_eq!(f.i, end, "{bytes:?}");
                    }
                }
            }
        }
        // Strings of up to 31 bytes with 32 bytes after the quote.
        assert!(short_reads > 1000, "{short_reads}");
    }
}
