//! A realistic corpus of persisted streams in the on-disk shape of real
//! pre-RFD 082 conversations, generated from an explicit seed.
//!
//! The real streams this project was first checked against (`events.json`
//! files of the `jp` assistant) belong to another project and stay out of the
//! repository. This generator writes conversations of the same shape, so every
//! test that runs on the real streams also runs on a clone with nothing
//! beside it:
//!
//! - a pretty-printed JSON array, two-space indent, one object per event;
//! - `config_delta` first, then turns opened by `turn_start`, chat requests
//!   and responses (`message`, or `reasoning` with `metadata`);
//! - tool calls `toolu_…` whose `arguments` values and response `content`
//!   are base64 text (the model treats both as opaque);
//! - parallel batches of tool calls (all requests, then all responses);
//! - inquiry IDs of two segments (`<tool_call_id>.<question_id>`, RFD 082
//!   "Inquiry ID format", legacy), untagged `{id, answer}` responses, and
//!   only backend-routed questions recorded (RFD 082 "Motivation");
//! - a question asked twice by one call (the same legacy ID twice in a turn,
//!   paired by order: RFD 082 Phase 3);
//! - event kinds this model does not know (kept verbatim, RFD 004 draft);
//! - one long turn of hundreds of tool calls.
//!
//! Every generated stream is legal for a pre-082 writer: each inquiry and
//! each tool call is answered in its own turn, after its request. The tests
//! that check this count with their own walk over the JSON, not with this
//! module.
//!
//! Deterministic: the same seed gives the same bytes. The only randomness is
//! a SplitMix64 sequence started from the seed.

use serde_json::{Map, Value, json};

// Standard base64 with padding (RFC 4648 §4), as the real streams carry;
// the one encoder of the crate (tested against RFC 4648 §10 there).
use crate::stream::base64;

/// The seed of the committed corpus (`tests/corpus/jp-like/`).
pub const COMMITTED_SEED: u64 = 0x082;

/// One generated stream file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorpusFile {
    /// File name, ending in `.json`.
    pub name: String,
    /// The file's bytes: a pretty JSON array and a trailing newline.
    pub bytes: Vec<u8>,
}

/// The shape of one generated conversation.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shape {
    /// Turns after the leading `config_delta`.
    pub(crate) turns: usize,
    /// Tool-call cycles per turn: `0..=max_cycles`.
    pub(crate) max_cycles: usize,
    /// Tool calls per cycle (a parallel batch): `1..=max_batch`.
    pub(crate) max_batch: usize,
    /// Per mille of modifying calls that ask `apply_changes`.
    pub(crate) inquiry_per_mille: u32,
    /// Per mille of inquiring calls that ask their question a second time.
    pub(crate) reask_per_mille: u32,
    /// Per mille of turns that hold an event of a kind this model does not
    /// know.
    pub(crate) unknown_kind_per_mille: u32,
    /// Length of base64 tool contents, in source bytes: `16..=max_content`.
    pub(crate) max_content: usize,
}

/// The committed corpus: six conversations of different shapes, each
/// legal for a pre-082 writer.
pub fn jp_like(seed: u64) -> Vec<CorpusFile> {
    let base = Shape {
        turns: 4,
        max_cycles: 4,
        max_batch: 3,
        inquiry_per_mille: 500,
        reask_per_mille: 0,
        unknown_kind_per_mille: 0,
        max_content: 400,
    };
    let shapes: [(&str, Shape); 6] = [
        (
            "chat-only",
            Shape {
                turns: 1,
                max_cycles: 0,
                ..base
            },
        ),
        ("read-and-modify", base),
        (
            "parallel-reads",
            Shape {
                turns: 6,
                max_batch: 8,
                inquiry_per_mille: 200,
                ..base
            },
        ),
        (
            "reasked-questions",
            Shape {
                turns: 5,
                inquiry_per_mille: 900,
                reask_per_mille: 500,
                ..base
            },
        ),
        (
            "unknown-event-kinds",
            Shape {
                turns: 5,
                unknown_kind_per_mille: 800,
                ..base
            },
        ),
        (
            "long-turn",
            Shape {
                turns: 1,
                max_cycles: 120,
                max_batch: 6,
                inquiry_per_mille: 300,
                reask_per_mille: 200,
                unknown_kind_per_mille: 1000,
                max_content: 120,
            },
        ),
    ];
    shapes
        .iter()
        .enumerate()
        .map(|(i, (name, shape))| {
            let mut rng = Rng::new(seed.wrapping_add(i as u64));
            let events = conversation(&mut rng, shape, i == shapes.len() - 1);
            CorpusFile {
                name: format!("{i:02}-{name}.json"),
                bytes: to_file_bytes(&events),
            }
        })
        .collect()
}

/// Writes events as jp does: one pretty JSON array, two-space indent.
pub(crate) fn to_file_bytes(events: &[Value]) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(events).expect("JSON values always serialise");
    out.push(b'\n');
    out
}

/// One conversation of `shape`. With `exact_cycles` every turn has exactly
/// `max_cycles` cycles (the long turn); otherwise `0..=max_cycles`.
fn conversation(rng: &mut Rng, shape: &Shape, exact_cycles: bool) -> Vec<Value> {
    let mut w = Writer {
        rng,
        events: Vec::new(),
        clock: 1_772_000_000_000_000,
    };
    w.config_delta();
    for _ in 0..shape.turns {
        w.bare("turn_start");
        w.chat_request();
        w.chat_response();
        let cycles = if exact_cycles {
            shape.max_cycles
        } else {
            w.rng.below(shape.max_cycles + 1)
        };
        for _ in 0..cycles {
            w.cycle(shape);
        }
        if w.rng.per_mille(shape.unknown_kind_per_mille) {
            w.unknown_kind();
        }
        w.chat_response();
    }
    w.events
}

struct Writer<'a> {
    rng: &'a mut Rng,
    events: Vec<Value>,
    /// Microseconds since the epoch; only moves forward.
    clock: u64,
}

/// The tools of the corpus: name, argument keys, whether it modifies files
/// (and so may ask `apply_changes`).
const TOOLS: [(&str, &[&str], bool); 5] = [
    ("fs_read_file", &["path"], false),
    ("fs_grep_files", &["pattern", "paths"], false),
    ("fs_list_files", &["prefixes"], false),
    ("fs_modify_file", &["path", "patterns"], true),
    ("fs_create_file", &["path", "content"], true),
];

const WORDS: [&str; 24] = [
    "conversation",
    "storage",
    "workspace",
    "inquiry",
    "turn",
    "the",
    "tool",
    "answer",
    "question",
    "stream",
    "let",
    "me",
    "read",
    "file",
    "crates/jp_cli/src/lib.rs",
    "docs/rfd/082.md",
    "patch",
    "apply",
    "config",
    "and",
    "now",
    "check",
    "a",
    "of",
];

impl Writer<'_> {
    fn timestamp(&mut self) -> String {
        self.clock += 1 + self.rng.below(4_000_000) as u64;
        format_timestamp(self.clock)
    }

    fn push(&mut self, kind: &str, fields: Vec<(&str, Value)>) {
        let mut obj = Map::new();
        obj.insert("timestamp".into(), Value::String(self.timestamp()));
        obj.insert("type".into(), Value::String(kind.into()));
        for (k, v) in fields {
            obj.insert(k.into(), v);
        }
        self.events.push(Value::Object(obj));
    }

    fn bare(&mut self, kind: &str) {
        self.push(kind, Vec::new());
    }

    fn config_delta(&mut self) {
        // jp writes `type` first on this kind only.
        let ts = self.timestamp();
        self.events.push(json!({
            "type": "config_delta",
            "timestamp": ts,
            "delta": {
                "inherit": false,
                "config_load_paths": [".jp/config", ".jp/config/personas"],
                "assistant": {
                    "name": "Software Developer",
                    "model": {"id": {"provider": "anthropic", "name": "claude-sonnet-4-5"}}
                },
                "conversation": {"tools": {"*": {"run": "ask", "result": "unattended"}}}
            }
        }));
    }

    fn sentence(&mut self, max_words: usize) -> String {
        let n = 1 + self.rng.below(max_words);
        let mut s = String::new();
        for i in 0..n {
            if i > 0 {
                s.push(if self.rng.per_mille(60) { '\n' } else { ' ' });
            }
            s.push_str(WORDS[self.rng.below(WORDS.len())]);
        }
        s
    }

    fn chat_request(&mut self) {
        let content = self.sentence(30);
        self.push("chat_request", vec![("content", Value::String(content))]);
    }

    fn chat_response(&mut self) {
        if self.rng.per_mille(500) {
            let reasoning = self.sentence(60);
            let signature = base64(self.sentence(8).as_bytes());
            self.push(
                "chat_response",
                vec![
                    ("reasoning", Value::String(reasoning)),
                    (
                        "metadata",
                        json!({ "anthropic_thinking_signature": signature }),
                    ),
                ],
            );
        } else {
            let message = self.sentence(80);
            self.push("chat_response", vec![("message", Value::String(message))]);
        }
    }

    fn unknown_kind(&mut self) {
        let title = self.sentence(6);
        self.push(
            "conversation_title_changed",
            vec![("title", Value::String(title)), ("source", json!("auto"))],
        );
    }

    fn tool_call_id(&mut self) -> String {
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        let mut id = String::from("toolu_01");
        for _ in 0..22 {
            id.push(ALPHABET[self.rng.below(ALPHABET.len())] as char);
        }
        id
    }

    /// One cycle: a parallel batch of tool calls, then their responses, with
    /// each modifying call's question recorded between its request and its
    /// response.
    fn cycle(&mut self, shape: &Shape) {
        if self.rng.per_mille(300) {
            self.chat_response();
        }
        let batch = 1 + self.rng.below(shape.max_batch);
        let mut calls = Vec::with_capacity(batch);
        for _ in 0..batch {
            let (name, keys, modifies) = TOOLS[self.rng.below(TOOLS.len())];
            let id = self.tool_call_id();
            let mut args = Map::new();
            for key in keys {
                let value = self.sentence(3);
                args.insert((*key).into(), Value::String(base64(value.as_bytes())));
            }
            if self.rng.per_mille(200) {
                args.insert("start_line".into(), json!(1 + self.rng.below(500)));
            }
            self.push(
                "tool_call_request",
                vec![
                    ("id", Value::String(id.clone())),
                    ("name", Value::String(name.into())),
                    ("arguments", Value::Object(args)),
                ],
            );
            calls.push((id, name, modifies));
        }
        for (id, name, modifies) in calls {
            if modifies && self.rng.per_mille(shape.inquiry_per_mille) {
                let times = if self.rng.per_mille(shape.reask_per_mille) {
                    2
                } else {
                    1
                };
                for _ in 0..times {
                    self.inquiry(&id, name);
                }
            }
            let len = 16 + self.rng.below(shape.max_content.saturating_sub(15).max(1));
            let mut content = String::with_capacity(len);
            while content.len() < len {
                content.push_str(&self.sentence(8));
                content.push('\n');
            }
            let is_error = self.rng.per_mille(50);
            self.push(
                "tool_call_response",
                vec![
                    ("id", Value::String(id)),
                    ("content", Value::String(base64(content.as_bytes()))),
                    ("is_error", Value::Bool(is_error)),
                ],
            );
        }
    }

    /// A backend-routed question and its answer, as a pre-082 writer
    /// recorded them: two-segment ID, untagged response.
    fn inquiry(&mut self, tool_call_id: &str, tool: &str) {
        let (question, text, answer_type, default, answer) = if self.rng.per_mille(800) {
            let patch = self.sentence(12);
            (
                "apply_changes",
                format!("Do you want to apply the following patch?\n\n```diff\n{patch}\n```"),
                json!({"type": "boolean"}),
                Some(json!(true)),
                json!(self.rng.per_mille(850)),
            )
        } else {
            let path = self.sentence(1);
            (
                "new_path",
                "Where should the file be written instead?".to_owned(),
                json!({"type": "text"}),
                None,
                json!(path),
            )
        };
        let id = format!("{tool_call_id}.{question}");
        let mut q = Map::new();
        q.insert("text".into(), Value::String(text));
        q.insert("answer_type".into(), answer_type);
        if let Some(d) = default {
            q.insert("default".into(), d);
        }
        self.push(
            "inquiry_request",
            vec![
                ("id", Value::String(id.clone())),
                ("source", json!({"source": "tool", "name": tool})),
                ("question", Value::Object(q)),
            ],
        );
        self.push(
            "inquiry_response",
            vec![("id", Value::String(id)), ("answer", answer)],
        );
    }
}

/// `YYYY-MM-DD HH:MM:SS.ffffff` in UTC, trailing zeros of the fraction
/// dropped, as the real streams show.
fn format_timestamp(micros: u64) -> String {
    let secs = micros / 1_000_000;
    let frac = micros % 1_000_000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    let mut s = format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}.{frac:06}",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    );
    while s.ends_with('0') && !s.ends_with(".0") {
        s.pop();
    }
    s
}

/// Howard Hinnant's days-to-civil algorithm (proleptic Gregorian).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// SplitMix64: a tiny, well-mixed sequence from an explicit seed.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform enough in `0..n` for test data; `n` must be positive.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn per_mille(&mut self, p: u32) -> bool {
        (self.next() % 1000) < u64::from(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_read_like_the_real_streams() {
        // 2026-03-05 19:31:54.609363 UTC
        assert_eq!(
            format_timestamp(1_772_739_114_609_363),
            "2026-03-05 19:31:54.609363"
        );
        // A trailing zero of the fraction is dropped, as in the real files.
        assert_eq!(
            format_timestamp(1_772_739_134_153_290),
            "2026-03-05 19:32:14.15329"
        );
    }

    #[test]
    fn same_seed_same_bytes_other_seed_other_bytes() {
        assert_eq!(jp_like(7), jp_like(7));
        assert_ne!(jp_like(7), jp_like(8));
    }
}
