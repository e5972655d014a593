use super::fast::{non_ascii_run, string_rests, text_stop, text_stops};
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

/// `object` written in one of four layouts: compact, pretty (two-space
/// indent, `\n`), tab-indented, and pretty with CRLF line ends (a raw line
/// break is only ever whitespace in JSON text, so the replacement is safe).
fn layout_of(object: &serde_json::Map<String, Value>, layout: u8) -> Vec<u8> {
    use serde::Serialize;
    match layout {
        0 => serde_json::to_vec(object).expect("a Map serializes"),
        1 => serde_json::to_vec_pretty(object).expect("a Map serializes"),
        2 => {
            let mut out = Vec::new();
            let f = serde_json::ser::PrettyFormatter::with_indent(b"\t");
            let mut ser = serde_json::Serializer::with_formatter(&mut out, f);
            object.serialize(&mut ser).expect("a Map serializes");
            out
        }
        _ => String::from_utf8(serde_json::to_vec_pretty(object).expect("a Map serializes"))
            .expect("UTF-8")
            .replace('\n', "\r\n")
            .into_bytes(),
    }
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
    /// the event itself: it does not give way on ordinary input, in any
    /// layout (compact, pretty, tab-indented, CRLF line ends: every byte
    /// of JSON whitespace).
    #[test]
    fn fast_path_reads_ordinary_events_itself(
        members in vec(("[a-z]{1,8}", prop_oneof![
            "[a-zA-Z0-9+/= é]{0,80}".prop_map(Value::String),
            any::<i64>().prop_map(Value::from),
            any::<bool>().prop_map(Value::from),
            Just(Value::Null),
            vec("[a-z]{0,5}", 0..4).prop_map(|v| serde_json::json!({"list": v, "n": 1.5})),
        ]), 0..8),
        layout in 0..4u8,
    ) {
        let object: serde_json::Map<String, Value> = members.into_iter().collect();
        let text = layout_of(&object, layout);
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
        // A high half before a short escape: taking the twelve bytes of a
        // pair would swallow the string's end and a name.
        r#"{"a":"\uD800\n","b"}"#,
        // ...and before an invalid escape followed by four hex digits of a
        // low half: not a pair, and serde refuses the escape.
        r#"{"a":"\uD800\qDC00"}"#,
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
        // A raw control byte before an escape's letter is not an escape.
        "{\"a\":\"\u{1}n\"}",
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
    // Plain numbers (no exponent) around the length past which the fast
    // path parses them: 1e309 written out overflows an `f64`.
    cases.extend([299, 300, 301, 309].map(|zeros| format!("{{\"a\":1{}}}", "0".repeat(zeros))));
    for case in &cases {
        agrees(case.as_bytes()).unwrap_or_else(|e| panic!("{case}: {e}"));
    }
    // Every byte after a backslash, in a name and in a value: only the
    // escapes of RFC 8259 (section 7) read.
    for b in 0..=u8::MAX {
        for at in [0, 1] {
            let mut event = br#"{"k\nx":"v\nx"}"#.to_vec();
            let slot = event
                .iter()
                .enumerate()
                .filter(|&(_, &c)| c == b'\\')
                .nth(at);
            let slot = slot.expect("two backslashes").0 + 1;
            event[slot] = b;
            agrees(&event).unwrap_or_else(|e| panic!("escape byte {b:#04x}: {e}"));
        }
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
    assert!(err.message().contains("duplicate field `f2500`"), "{err}");
}

/// Rule: PERF-READ-SAME — the word and block scans (string ends,
/// non-ASCII stretches, newlines) agree with the obvious byte loops on
/// every length and alignment, over text that stops often, plain ASCII
/// (so a scan runs through whole blocks to the stop placed in it) and
/// non-ASCII text (so a stretch runs to that stop).
#[test]
fn word_and_block_scans_match_byte_loops() {
    let texts: [&[u8]; 3] = [b"ab\x7f\xc3\x20~", b"ab~ {0", b"\xc3\xa9\xe2\x80\x94\xff"];
    for (text, len) in texts
        .into_iter()
        .flat_map(|t| (0usize..200).map(move |len| (t, len)))
    {
        for stop_at in [None, Some(0), Some(len / 2), Some(len.saturating_sub(1))] {
            for stop in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
                let mut bytes: Vec<u8> = (0..len).map(|i| text[i % text.len()]).collect();
                if let Some(at) = stop_at.filter(|&at| at < len) {
                    bytes[at] = stop;
                }
                let run = bytes.iter().position(|&b| b < 0x80).unwrap_or(len);
                assert_eq!(non_ascii_run(&bytes), run, "{bytes:?}");
                let text = bytes
                    .iter()
                    .position(|&b| b == b'"' || b == b'\\' || !(0x20..0x80).contains(&b));
                assert_eq!(text_stop(&bytes), text, "{bytes:?}");
                for (path, found) in text_stops(&bytes) {
                    assert_eq!(found, text, "{path}: {bytes:?}");
                }
                let lines = bytes.iter().filter(|&&b| b == b'\n').count();
                assert_eq!(count_newlines(&bytes), lines, "{bytes:?}");
            }
        }
    }
}

/// An input that fails with `Interrupted` before every read that succeeds,
/// then hands out at most `step` bytes: what a read cut short by a signal
/// looks like.
struct Interrupting<'a> {
    bytes: &'a [u8],
    step: usize,
    interrupt: bool,
}

impl io::Read for Interrupting<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.interrupt = !self.interrupt;
        if self.interrupt {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let n = self.step.min(buf.len()).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

/// Rule: PERF-READ-BUFFERING — an interrupted read is retried, not an
/// error (`io::ErrorKind::Interrupted` asks for exactly that): a stream
/// whose every read is first interrupted reads as it does whole, in both
/// layouts, whether the interruption falls between events or inside one.
#[test]
fn an_interrupted_read_is_retried() {
    let array = br#"[{"type":"turn_start","timestamp":"t"}, {"type":"chat_request","content":"a long enough text"}]"#;
    let lines = b"{\"type\":\"turn_start\"}\n{\"type\":\"chat_request\",\"n\":1}\n";
    for bytes in [&array[..], &lines[..]] {
        let whole = Stream::from_slice(bytes, "whole").expect("reads whole");
        for (step, cap) in [(1, 1), (5, 8), (64, 64)] {
            let input = Interrupting {
                bytes,
                step,
                interrupt: false,
            };
            let read = Stream::read(io::BufReader::with_capacity(cap, input), "interrupted")
                .unwrap_or_else(|e| panic!("step {step}: {e}"));
            assert_eq!(read, whole, "step {step}");
        }
    }
}

/// Rule: PERF-READ-FAST-COVERAGE — `parse_event` hands on the fields the
/// fast path read, borrowed from the input itself; only an event the fast
/// path gives way on (nested past its depth limit) is handed on from
/// serde's copy. Both give the same fields, so where the values live is
/// the one sign of which path was taken.
#[test]
fn parse_event_hands_on_the_fast_paths_fields() {
    let deep = format!("{{\"a\":{}0{}}}", "[".repeat(101), "]".repeat(101));
    for (bytes, fast_path) in [
        (
            &br#"{"type":"turn_start","timestamp":"t","n":1.50}"#[..],
            true,
        ),
        (deep.as_bytes(), false),
    ] {
        let inside = parse_event(bytes, |fields| {
            fields
                .iter()
                .map(|(_, v)| bytes.as_ptr_range().contains(&v.as_ptr()))
                .collect::<Vec<_>>()
        })
        .expect("reads");
        assert!(inside.iter().all(|&b| b == fast_path), "{inside:?}");
    }
}

proptest! {
    /// Rule: PERF-READ-SAME — every string scan this CPU can run (the
    /// portable one, SSE2 and AVX2) stops where the byte loop does: at the
    /// first `"`, `\\`, control byte or byte at or above 0x80, on bytes that
    /// are mostly plain text of any length up to a few 32-byte blocks.
    #[test]
    fn every_string_scan_stops_where_the_byte_loop_does(
        bytes in vec(
            prop_oneof![
                8 => prop::sample::select(vec![b'a', b' ', b'~', b'0', b'{', 0x7f]),
                1 => prop::sample::select(vec![b'"', b'\\', 0x00, 0x1f, b'\n', 0x80, 0xc3, 0xff]),
            ],
            0..200,
        ),
        skip in 0usize..40,
    ) {
        let bytes = &bytes[skip.min(bytes.len())..];
        let expected = bytes
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || !(0x20..0x80).contains(&b));
        for (path, found) in text_stops(bytes) {
            prop_assert_eq!(found, expected, "{}", path);
        }
    }
}

/// Whether serde_json writes `text` as itself between quotes, byte by byte:
/// the reference for `is_plain_json_text`.
fn plain_by_bytes(text: &str) -> bool {
    text.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\')
}

/// Rule: PERF-OPAQUE-TEXT — whether a text needs escaping is answered as
/// the byte loop answers it, at every length either side of the word
/// reading's bound and of each word's edge: a plain text (ASCII, 0x7f,
/// non-ASCII characters, which hold bytes at and above 0x80) is plain, and
/// any byte serde_json escapes (`"`, `\\`, each control byte) at any place
/// makes it not, alone or after a byte that borrows (0x00 then a space).
#[test]
fn plain_text_is_the_byte_loops_at_every_length_and_place() {
    let escaped: Vec<char> = (0u8..0x20).map(char::from).chain(['"', '\\']).collect();
    for len in 0..80 {
        let plain: String = "ab~ \u{7f}é😀".chars().cycle().take(len).collect();
        assert_eq!(
            is_plain_json_text(&plain),
            plain_by_bytes(&plain),
            "{plain:?}"
        );
        assert!(is_plain_json_text(&plain), "{plain:?}");
        let chars: Vec<char> = plain.chars().collect();
        for at in 0..=chars.len() {
            for &c in &escaped {
                let text: String = chars[..at].iter().chain([&c]).chain(&chars[at..]).collect();
                assert!(!is_plain_json_text(&text), "{text:?}");
            }
            // A borrow out of a control byte into a space beside it.
            let text: String = chars[..at]
                .iter()
                .chain(&['\0', ' '])
                .chain(&chars[at..])
                .collect();
            assert!(!is_plain_json_text(&text), "{text:?}");
        }
    }
}

proptest! {
    /// Rule: PERF-OPAQUE-TEXT — invariant: for any text, mostly plain, of
    /// any length up to a few words past the word reading's bound, whether
    /// it needs escaping is the byte loop's answer.
    #[test]
    fn plain_text_is_the_byte_loops(
        text in "([a ~\u{7f}é😀]{0,9}|[\"\\\\\x00-\x1f]){0,24}",
    ) {
        prop_assert_eq!(is_plain_json_text(&text), plain_by_bytes(&text));
    }
}

/// Pieces of string content for the block boundary cases below, valid or
/// not: escapes of every length, a surrogate pair and its misuses,
/// non-ASCII characters whole and cut, raw control bytes.
const PIECES: [&[u8]; 24] = [
    br#"\n"#,
    br#"\""#,
    br#"\\"#,
    br#"\\\""#,
    br#"\/"#,
    br#"\t"#,
    br#"\u00e9"#,
    br#"\u0000"#,
    br#"\uD83D\uDE00"#,
    br#"\uD83D\n"#,
    br#"\uDC00"#,
    br#"\x"#,
    br#"\u12"#,
    b"\\",
    b"\xc3\xa9",
    "😀".as_bytes(),
    "中é".as_bytes(),
    b"\xc3",
    b"\xed\xa0\x80",
    b"\xff",
    b"\x01",
    b"\n",
    b"\x7f",
    b"\\\\\\\"",
];

/// Rule: PERF-READ-SAME — a string's escapes, non-ASCII text and refused
/// bytes read the same wherever they fall against the 64-byte blocks of
/// the string scan (an escape's backslash the last byte of a block and its
/// letter the first of the next, a character across two blocks): every
/// piece, after every count of plain bytes from 0 to 140, in a value and
/// in a name, is read by the fast path as serde's canonical path reads it
/// (and read by it, not given way on, wherever serde reads it but for a
/// lone surrogate), and every way of reading a string's rest ends in the
/// same place.
#[test]
fn strings_read_the_same_across_block_boundaries() {
    let pad = "y".repeat(70);
    for piece in PIECES {
        for n in 0..=140 {
            let mut body = "x".repeat(n).into_bytes();
            body.extend_from_slice(piece);
            body.extend_from_slice(b"tail");
            let mut rest = body.clone();
            rest.extend_from_slice(format!("\",\"b\":\"{pad}\"}}").as_bytes());
            let paths = string_rests(&rest);
            for (path, found) in &paths {
                assert_eq!(
                    *found,
                    paths[0].1,
                    "{path} against {} on {:?}",
                    paths[0].0,
                    String::from_utf8_lossy(&rest)
                );
            }
            for event in [
                [b"{\"a\":\"".as_slice(), &rest].concat(),
                [
                    b"{\"".as_slice(),
                    &body,
                    b"\":1,\"b\":\"",
                    pad.as_bytes(),
                    b"\"}",
                ]
                .concat(),
            ] {
                agrees(&event).unwrap_or_else(|e| {
                    panic!(
                        "{e} ({n} plain bytes, then {:?})",
                        String::from_utf8_lossy(piece)
                    )
                });
                // Where serde reads it, the fast path reads it itself: it
                // gives way only on a surrogate escape that is not half of
                // a pair.
                let lone_surrogate = [&br#"\uDC00"#[..], br#"\uD83D\n"#].contains(&piece);
                if canonical(&event).is_ok() && !lone_surrogate {
                    assert!(
                        fast(&event).is_some(),
                        "the fast path gave way after {n} plain bytes and {:?}",
                        String::from_utf8_lossy(piece)
                    );
                }
            }
        }
    }
}

proptest! {
    /// Rule: PERF-READ-SAME — every way of reading a string's rest (one
    /// scan a stop, and 64-byte blocks where the CPU has AVX2) ends in the
    /// same place, with the same answer on escapes, or refuses alike, on
    /// strings of plain text, escapes and non-ASCII text several blocks
    /// long.
    #[test]
    fn every_string_path_ends_where_the_stop_loop_does(
        pieces in vec(prop_oneof![3 => "[a-z ]{0,70}".prop_map(String::into_bytes), 2 => string_piece()], 0..12),
        after in "[a-z\",:{} ]{0,80}",
    ) {
        let mut bytes: Vec<u8> = pieces.concat();
        bytes.push(b'"');
        bytes.extend_from_slice(after.as_bytes());
        let paths = string_rests(&bytes);
        for (path, found) in &paths {
            prop_assert_eq!(*found, paths[0].1, "{} against {}", path, paths[0].0);
        }
    }
}

proptest! {
    /// Rule: PERF-READ-SAME — the non-ASCII stretch a string's scan
    /// validates ends at the first byte below 0x80, on bytes that are
    /// mostly non-ASCII (runs of multi-byte characters, valid or not).
    #[test]
    fn a_non_ascii_run_ends_at_the_first_ascii_byte(
        bytes in vec(
            prop_oneof![
                8 => 0x80u8..=0xff,
                1 => 0u8..0x80,
            ],
            0..80,
        ),
    ) {
        let expected = bytes.iter().position(|&b| b < 0x80).unwrap_or(bytes.len());
        prop_assert_eq!(non_ascii_run(&bytes), expected);
    }
}

proptest! {
    /// Rule: PERF-READ-SAME — the position after the whitespace between
    /// events, counted as it is skipped (`Pos::skip_ws`), and after one
    /// byte (`Pos::advance_byte`), is the one `Pos::advance` gives over
    /// the same bytes, from any position; `skip_ws` stops at the first
    /// byte that is not JSON whitespace.
    #[test]
    fn positions_counted_while_skipping_are_advances(
        bytes in vec(prop::sample::select(vec![b' ', b'\t', b'\r', b'\n', b',', b'{', b'x']), 0..40),
        line in 1usize..5,
        column in 1usize..9,
    ) {
        let start = Pos { line, column };
        let mut skipped = start;
        let n = skipped.skip_ws(&bytes);
        let ws = bytes.iter().position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'));
        prop_assert_eq!(n, ws.unwrap_or(bytes.len()));
        let mut advanced = start;
        advanced.advance(&bytes[..n]);
        prop_assert_eq!((skipped.line, skipped.column), (advanced.line, advanced.column));
        for &b in &bytes {
            let mut one = start;
            one.advance_byte(b);
            let mut all = start;
            all.advance(&[b]);
            prop_assert_eq!((one.line, one.column), (all.line, all.column));
        }
    }
}

proptest! {
    /// Rule: PERF-READ-SAME — `peek_non_ws`, which answers inline a
    /// buffered byte that is no whitespace, and one after a newline and a
    /// few spaces, gives what the full skip (`skip_to_non_ws`) gives from
    /// the same state, over any bytes read through any buffer size: the
    /// same byte (or the end), the same position, the same bytes left;
    /// step by step, one byte consumed after each answer. The bytes are
    /// drawn as single bytes and as a newline with 0 to 10 spaces (around
    /// the inline skip's limit of eight).
    #[test]
    fn peek_is_the_full_skip(
        pieces in vec(
            prop_oneof![
                prop::sample::select(vec![b' ', b'\t', b'\r', b'\n', b',', b'{', b']', b'x'])
                    .prop_map(|b| vec![b]),
                (0usize..=10).prop_map(|spaces| {
                    let mut piece = vec![b'\n'];
                    piece.resize(1 + spaces, b' ');
                    piece
                }),
            ],
            0..24,
        ),
        capacity in prop::sample::select(vec![1usize, 2, 7, 64]),
    ) {
        let bytes = pieces.concat();
        let reader = |b: &[u8]| {
            EventReader::new(std::io::BufReader::with_capacity(capacity, b.to_vec().leak() as &[u8]), "t")
        };
        let (mut fast, mut full) = (reader(&bytes), reader(&bytes));
        loop {
            let a = fast.peek_non_ws().expect("reading a slice cannot fail");
            let b = full.skip_to_non_ws().expect("reading a slice cannot fail");
            prop_assert_eq!(a, b);
            prop_assert_eq!((fast.pos.line, fast.pos.column), (full.pos.line, full.pos.column));
            let left = |r: &mut EventReader<std::io::BufReader<&[u8]>>| {
                r.inner.fill_buf().map(<[u8]>::len).expect("a slice")
            };
            prop_assert_eq!(left(&mut fast), left(&mut full));
            match a {
                None => break,
                Some(b) => {
                    fast.consume_byte(b);
                    full.consume_byte(b);
                }
            }
        }
    }
}

proptest! {
    /// Rule: PERF-READ-PLAIN-STRINGS — the bits the reader's pass hands on
    /// name exactly the fields whose value text is a string holding no
    /// backslash (of the first 64), on any event it reads, valid or broken.
    #[test]
    fn plain_string_bits_are_the_escape_free_strings(
        bytes in prop_oneof![event_text(), mutated()],
    ) {
        if let Some(event) = fast::read_event(&bytes) {
            for (i, (_, v)) in event.fields.iter().enumerate().take(64) {
                let plain = v.starts_with('"') && !v.contains('\\');
                prop_assert_eq!(event.plain >> i & 1 == 1, plain, "field {} {}", i, v);
            }
            let n = u32::try_from(event.fields.len()).expect("few fields");
            prop_assert_eq!(event.plain.checked_shr(n).unwrap_or(0), 0, "no bit past the fields");
        }
    }
}
