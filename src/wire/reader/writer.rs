//! Writing whole streams: the pretty array and JSON Lines.

use std::io::{self, Write};

use super::Stream;
use crate::wire::significant_bytes;

impl Stream {
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
