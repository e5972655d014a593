//! The benchmark corpus: the real streams (the folder
//! `INQUIRY_MODEL_REAL_STREAMS` names),
//! or the committed realistic corpus `tests/corpus/jp-like/` when it is unset,
//! concatenated, as many times as needed, into one bigger stream written at
//! bench time (never committed). Shared by `benches/perf.rs` and the
//! measurement examples through `#[path]`.

#![allow(dead_code)]

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use serde_json::value::RawValue;

/// The corpus folder: `INQUIRY_MODEL_REAL_STREAMS` (relative to the crate
/// root when relative), else the committed realistic corpus.
pub fn fixture_dir() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    match std::env::var_os("INQUIRY_MODEL_REAL_STREAMS") {
        Some(dir) => root.join(dir),
        None => root.join("tests/corpus/jp-like"),
    }
}

/// Every event of every fixture file, as written (pretty, indented), in
/// file-name order.
pub fn fixture_events() -> io::Result<Vec<Box<RawValue>>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixture_dir())?
        .map(|e| e.map(|e| e.path()))
        .collect::<io::Result<_>>()?;
    files.retain(|p| p.extension().is_some_and(|x| x == "json"));
    files.sort();
    if files.is_empty() {
        return Err(io::Error::other(format!(
            "no fixture streams in {}",
            fixture_dir().display()
        )));
    }
    let mut out = Vec::new();
    for f in files {
        let bytes = std::fs::read(&f)?;
        let events: Vec<Box<RawValue>> = serde_json::from_slice(&bytes)
            .map_err(|e| io::Error::other(format!("{}: {e}", f.display())))?;
        out.extend(events);
    }
    Ok(out)
}

/// Layout of a generated stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One pretty JSON array, like the fixtures.
    Array,
    /// One compact event per line.
    JsonLines,
}

/// What [`write_stream`] wrote.
#[derive(Debug, Clone, Copy)]
pub struct Written {
    /// Bytes written.
    pub bytes: u64,
    /// Events written.
    pub events: u64,
}

/// Writes the fixture events again and again until at least `target` bytes
/// are written, streaming (the whole stream is never in memory).
pub fn write_stream<W: Write>(
    events: &[Box<RawValue>],
    target: u64,
    layout: Layout,
    w: W,
) -> io::Result<Written> {
    let mut w = Counting { inner: w, bytes: 0 };
    let mut n = 0u64;
    let compact: Vec<String> = match layout {
        Layout::Array => Vec::new(),
        Layout::JsonLines => events
            .iter()
            .map(|e| {
                let v: serde_json::Value = serde_json::from_str(e.get()).expect("fixture JSON");
                serde_json::to_string(&v).expect("a Value serializes")
            })
            .collect(),
    };
    if layout == Layout::Array {
        w.write_all(b"[\n  ")?;
    }
    'outer: loop {
        for (i, e) in events.iter().enumerate() {
            match layout {
                Layout::Array => {
                    if n > 0 {
                        w.write_all(b",\n  ")?;
                    }
                    w.write_all(e.get().as_bytes())?;
                }
                Layout::JsonLines => {
                    w.write_all(compact[i].as_bytes())?;
                    w.write_all(b"\n")?;
                }
            }
            n += 1;
            if w.bytes >= target && i + 1 == events.len() {
                break 'outer;
            }
        }
    }
    if layout == Layout::Array {
        w.write_all(b"\n]\n")?;
    }
    w.flush()?;
    Ok(Written {
        bytes: w.bytes,
        events: n,
    })
}

/// Writes a generated stream of at least `target` bytes to `path`.
pub fn write_stream_file(
    events: &[Box<RawValue>],
    target: u64,
    layout: Layout,
    path: &Path,
) -> io::Result<Written> {
    let f = File::create(path)?;
    write_stream(events, target, layout, BufWriter::with_capacity(1 << 20, f))
}

/// A generated stream in memory.
pub fn stream_bytes(events: &[Box<RawValue>], target: u64, layout: Layout) -> Vec<u8> {
    let mut out = Vec::with_capacity(target as usize + (4 << 20));
    write_stream(events, target, layout, &mut out).expect("writing to a Vec cannot fail");
    out
}

struct Counting<W> {
    inner: W,
    bytes: u64,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}
