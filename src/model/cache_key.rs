//! The turn cache's key (RFD 082 "Splitting the turn-cache state": tool
//! answers are remembered under `<tool_name>.<question_id>`, permission
//! decisions under `<tool_name>.__permission__`), built and read here only.
//!
//! The maps keep RFD 082's string keys (the pre-082 combined map holds both
//! callers' keys side by side, and the traces show them as written), so this
//! type is the one place that spells a key. Which caller a key belongs to is
//! the map it is in, never its spelling (a tool question may be called
//! `__permission__`).

use std::fmt;

/// The question ID slot that marks a permission decision.
const PERMISSION: &str = "__permission__";

/// A key of the turn cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum CacheKey<'a> {
    /// A tool question's remembered answer.
    Answer {
        /// The tool's name (its configuration key).
        tool: &'a str,
        /// The question's ID.
        question: &'a str,
    },
    /// A remembered permission decision for a tool.
    Permission {
        /// The tool's name (its configuration key).
        tool: &'a str,
    },
}

impl<'a> CacheKey<'a> {
    /// The key of `question`'s answer for `tool`.
    pub(crate) fn answer(tool: &'a str, question: &'a str) -> Self {
        CacheKey::Answer { tool, question }
    }

    /// The key of `tool`'s permission decision.
    pub(crate) fn permission(tool: &'a str) -> Self {
        CacheKey::Permission { tool }
    }

    /// The key as the cache stores it.
    pub(crate) fn key(&self) -> String {
        // Spelled by hand rather than through `Display`: the same text,
        // without the formatting machinery (a key is built at every
        // question and permission lookup).
        let (tool, tail) = self.parts();
        let mut key = String::with_capacity(tool.len() + 1 + tail.len());
        key.push_str(tool);
        key.push('.');
        key.push_str(tail);
        key
    }

    /// The key's two parts, joined by `.`: the tool name and the question
    /// ID or the permission slot.
    fn parts(&self) -> (&'a str, &'a str) {
        match *self {
            CacheKey::Answer { tool, question } => (tool, question),
            CacheKey::Permission { tool } => (tool, PERMISSION),
        }
    }

    /// Calls `read` with the key as text, spelled in a buffer on the stack
    /// when it fits (a lookup then allocates nothing; rule
    /// `PERF-MODEL-MAPS`), else as [`CacheKey::key`] builds it.
    pub(crate) fn read<R>(&self, read: impl FnOnce(&str) -> R) -> R {
        const ROOM: usize = 128;
        let (tool, tail) = self.parts();
        let len = tool.len() + 1 + tail.len();
        if len > ROOM {
            return read(&self.key());
        }
        let mut buf = [0u8; ROOM];
        buf[..tool.len()].copy_from_slice(tool.as_bytes());
        buf[tool.len()] = b'.';
        buf[tool.len() + 1..len].copy_from_slice(tail.as_bytes());
        // Two `str`s joined at an ASCII `.` are UTF-8; the check is kept
        // (it cannot fail) rather than the bytes taken unchecked.
        match std::str::from_utf8(&buf[..len]) {
            Ok(key) => read(key),
            Err(_) => read(&self.key()),
        }
    }

    /// Whether `key` is this key's spelling ([`CacheKey::key`]), compared
    /// without building it.
    pub(crate) fn spells(&self, key: &str) -> bool {
        let (tool, tail) = self.parts();
        let key = key.as_bytes();
        let same = crate::wire::same_bytes;
        key.len() == tool.len() + 1 + tail.len()
            && same(&key[..tool.len()], tool.as_bytes())
            && key[tool.len()] == b'.'
            && same(&key[tool.len() + 1..], tail.as_bytes())
    }
}

impl fmt::Display for CacheKey<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CacheKey::Answer { tool, question } => write!(f, "{tool}.{question}"),
            CacheKey::Permission { tool } => write!(f, "{tool}.{PERMISSION}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFD 082 "Splitting the turn-cache state" spells the keys
    /// `<tool_name>.<question_id>` and `<tool_name>.__permission__`. Which
    /// caller a key belongs to is read from the map it is in, not from this
    /// spelling: a tool question whose ID is `__permission__` spells its
    /// answer's key like the permission decision's.
    #[test]
    fn keys_are_spelled_as_rfd_082() {
        let answer = CacheKey::answer("fs_modify_file", "apply");
        let permission = CacheKey::permission("fs_modify_file");
        assert_eq!(answer.key(), "fs_modify_file.apply");
        assert_eq!(permission.key(), "fs_modify_file.__permission__");
        assert_eq!(answer.to_string(), answer.key());
        assert_eq!(permission.to_string(), permission.key());
        assert_eq!(
            CacheKey::answer("t", "__permission__").key(),
            CacheKey::permission("t").key()
        );
    }

    /// The key read on the stack is the built key (rule `PERF-MODEL-MAPS`),
    /// for short keys, keys at the buffer's edge, multi-byte text and keys
    /// longer than the buffer.
    #[test]
    fn a_key_read_in_place_is_the_built_key() {
        for tool in [
            "",
            "t",
            "fs_modify_file",
            "ünï",
            &"x".repeat(126),
            &"y".repeat(300),
        ] {
            for question in ["", "q", "日本", "__permission__", "z"] {
                let k = CacheKey::answer(tool, question);
                assert_eq!(k.read(str::to_owned), k.key(), "{tool:?} {question:?}");
            }
            let p = CacheKey::permission(tool);
            assert_eq!(p.read(str::to_owned), p.key());
        }
    }

    proptest::proptest! {
        /// Rule: PERF-STEP-GROUPED — `spells` answers what comparing with
        /// the built key answers, for any tool, question and key over an
        /// alphabet where dots make one key two ways (`a` and `b.c`, `a.b`
        /// and `c`) and keys of every length near the right one; and `read`
        /// hands over the built key (rule `PERF-MODEL-MAPS`).
        #[test]
        fn spells_is_comparing_with_the_built_key(
            tool in "[ab.]{0,3}",
            question in "[ab._]{0,4}",
            key in "[ab._]{0,8}",
            permission in proptest::bool::ANY,
        ) {
            let k = if permission {
                CacheKey::permission(&tool)
            } else {
                CacheKey::answer(&tool, &question)
            };
            proptest::prop_assert_eq!(k.spells(&key), k.key() == key);
            proptest::prop_assert!(k.spells(&k.key()));
            proptest::prop_assert_eq!(k.read(str::to_owned), k.key());
        }
    }
}
