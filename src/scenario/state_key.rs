//! Structural hashing for state keys: what a state search hashes to
//! recognise a state it has met (docs/decisions/exploration.md
//! "Exploration: deduplicated states hold their history"). Nothing here formats `Debug`
//! text: JSON values and wire types are hashed by their canonical
//! serialization, which is their identity on the wire (RFD 082 persists
//! them so). The driver's key ([`super::ChoicePoint::state_key`]), the
//! explorer's and the testkit's step function's share it.

use std::hash::Hasher;
use std::io;

use serde::Serialize;

/// Feeds what is written into a hasher, counting the bytes.
struct KeyWriter<'h, H: Hasher> {
    hasher: &'h mut H,
    written: usize,
}

impl<H: Hasher> io::Write for KeyWriter<'_, H> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.hasher.write(buf);
        self.written += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Hashes `value`'s JSON serialization, then its length and whether it
/// serialized (so that consecutive values cannot run into each other).
pub(crate) fn hash_serialized<T: Serialize + ?Sized, H: Hasher>(value: &T, h: &mut H) {
    let mut w = KeyWriter {
        hasher: h,
        written: 0,
    };
    let ok = serde_json::to_writer(&mut w, value).is_ok();
    let n = w.written;
    h.write_usize(n);
    h.write_u8(u8::from(ok));
}
