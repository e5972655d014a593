//! The events the checker judges without their on-disk shape: every kind
//! but the two inquiry kinds, as the checker reads them, borrowed.
//!
//! Of a `turn_start`, a chat event, a tool call or an event of another kind
//! the checker reads only whether it opens a turn, a tool call's ID and
//! name, a response's ID, `is_error` and `content` text, and a chat event's
//! tag: [`Plain`] holds exactly that. [`Plain::of_event`] takes it from a
//! typed [`Event`]; [`Plain::of_fields`] from the fields the reader split,
//! without building an `Event` (no `String` per ID or name, no drop), and
//! gives way (`None`) on anything the typing of [`crate::wire::type_fields`]
//! would refuse or that it does not settle itself, so the plain typing
//! decides and words every error (rule `PERF-CHECK-PLAIN`).

use std::borrow::Cow;

use crate::wire::{Event, EventKind, FieldsRef, has_backslash, json_string};

/// A non-inquiry event as the checker reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Plain<'a> {
    /// `turn_start`: opens a turn.
    TurnStart,
    /// `chat_request` or `chat_response`, by its tag.
    Chat(&'static str),
    /// `tool_call_request`: its ID and tool name.
    ToolCallRequest {
        /// The provider's tool-call ID.
        id: Cow<'a, str>,
        /// The tool's name.
        name: Cow<'a, str>,
    },
    /// `tool_call_response`: its ID, `is_error` as written, and the JSON
    /// text of its `content` (read for an `ask_user` call's result).
    ToolCallResponse {
        /// The tool-call ID it answers.
        id: Cow<'a, str>,
        /// `is_error`, when written.
        is_error: Option<bool>,
        /// The `content` field's JSON text, when written.
        content: Option<&'a str>,
    },
    /// Any other `type`.
    Other,
}

impl<'a> Plain<'a> {
    /// Whether the event opens a turn (a `turn_start`).
    pub(super) fn is_marker(&self) -> bool {
        match self {
            Plain::TurnStart => true,
            Plain::Chat(_)
            | Plain::ToolCallRequest { .. }
            | Plain::ToolCallResponse { .. }
            | Plain::Other => false,
        }
    }

    /// The plain reading of a typed event (`None` for the inquiry kinds);
    /// `content` is the JSON text of a `tool_call_response`'s `content`.
    pub(super) fn of_event(event: &'a Event, content: Option<&'a str>) -> Option<Plain<'a>> {
        Some(match &event.kind {
            EventKind::TurnStart => Plain::TurnStart,
            EventKind::ChatRequest => Plain::Chat(CHAT_REQUEST),
            EventKind::ChatResponse => Plain::Chat(CHAT_RESPONSE),
            EventKind::ToolCallRequest(call) => Plain::ToolCallRequest {
                id: Cow::Borrowed(&call.id),
                name: Cow::Borrowed(&call.name),
            },
            EventKind::ToolCallResponse(resp) => Plain::ToolCallResponse {
                id: Cow::Borrowed(&resp.id),
                is_error: resp.is_error,
                content,
            },
            EventKind::Other(_) => Plain::Other,
            EventKind::InquiryRequest(_) | EventKind::InquiryResponse(_) => return None,
        })
    }

    /// The plain reading of an event from its fields, as
    /// [`crate::wire::type_fields`] would type it and [`Plain::of_event`]
    /// read the result; `None` for the inquiry kinds and for anything the
    /// typing might refuse (a missing or non-string `type`, `timestamp`,
    /// `id` or `name`, an `is_error` not written `true` or `false`), which
    /// the typing then decides. Bit `i` of `plain_strings` set says that
    /// field `i`'s value is a string holding no escape (the reader's pass
    /// knows it, rule `PERF-READ-PLAIN-STRINGS`), so its text is taken
    /// without a search for a backslash; a clear bit says nothing, and the
    /// reading is the same with every bit clear.
    pub(super) fn of_fields(fields: &FieldsRef<'a>, plain_strings: u64) -> Option<Plain<'a>> {
        let mut tag = None;
        let mut id = None;
        let mut name = None;
        let mut is_error = None;
        let mut content = None;
        for (i, (k, v)) in fields.iter().enumerate() {
            let v: &'a str = v;
            let plain = i < 64 && plain_strings >> i & 1 == 1;
            // By length first: one comparison per field at most.
            let k = k.as_bytes();
            match k.len() {
                2 if k == b"id" => id = Some((v, plain)),
                4 if k == b"type" => tag = Some(v),
                4 if k == b"name" => name = Some((v, plain)),
                7 if k == b"content" => content = Some(v),
                8 if k == b"is_error" => is_error = Some(v),
                // Typing only checks that it is a string (decoding it when
                // it holds an escape, as here).
                9 if k == b"timestamp" && !plain && string(v).is_none() => return None,
                _ => {}
            }
        }
        let tag = tag?;
        // The tags as written by every writer, then any other spelling.
        Some(match tag {
            r#""turn_start""# => Plain::TurnStart,
            r#""tool_call_request""# => Plain::ToolCallRequest {
                id: known_string(id?)?,
                name: known_string(name?)?,
            },
            r#""tool_call_response""# => Plain::ToolCallResponse {
                id: known_string(id?)?,
                is_error: match is_error {
                    None => None,
                    Some("true") => Some(true),
                    Some("false") => Some(false),
                    Some(_) => return None,
                },
                content,
            },
            r#""chat_request""# => Plain::Chat(CHAT_REQUEST),
            r#""chat_response""# => Plain::Chat(CHAT_RESPONSE),
            r#""inquiry_request""# | r#""inquiry_response""# => return None,
            _ => match string(tag)?.as_ref() {
                // An escaped spelling of a tag typing types: rare, left to it.
                "turn_start" | "chat_request" | "chat_response" | "tool_call_request"
                | "tool_call_response" | "inquiry_request" | "inquiry_response" => return None,
                _ => Plain::Other,
            },
        })
    }
}

/// The chat events' tags (`EventKind::tag`).
const CHAT_REQUEST: &str = "chat_request";
const CHAT_RESPONSE: &str = "chat_response";

/// The string a field's JSON text holds ([`json_string`]), borrowed when it
/// holds no escape; found with a word-at-a-time scan, cheaper than
/// `memchr`'s set-up on the short IDs, names and timestamps read here.
fn string(text: &str) -> Option<Cow<'_, str>> {
    let b = text.as_bytes();
    if b.len() >= 2 && b[0] == b'"' && b[b.len() - 1] == b'"' && !has_backslash(b) {
        return Some(Cow::Borrowed(&text[1..text.len() - 1]));
    }
    json_string(text)
}

/// [`string`] of a field's text, taken as it is when the reader found it
/// a string with no escape (`plain`).
#[inline]
fn known_string((text, plain): (&str, bool)) -> Option<Cow<'_, str>> {
    if plain && let Some(inner) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        return Some(Cow::Borrowed(inner));
    }
    string(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::type_fields;
    use proptest::collection::vec;
    use proptest::prelude::*;

    /// A field's value: the texts typing reads in each shape it refuses or
    /// settles (strings with and without escapes, other JSON types, the
    /// literals, `is_error` spelled otherwise).
    fn value() -> impl Strategy<Value = String> {
        prop_oneof![
            prop::sample::select(vec![
                r#""turn_start""#,
                r#""chat_request""#,
                r#""chat_response""#,
                r#""tool_call_request""#,
                r#""tool_call_response""#,
                r#""inquiry_request""#,
                r#""inquiry_response""#,
                r#""config_delta""#,
                r#""tool\u005fcall\u005frequest""#,
                r#""chat_request ""#,
                r#""ask_user""#,
                r#""ask\u005fuser""#,
                r#""2026-02-25 06:13:22.283332""#,
                r#""2026-02-25\t06""#,
                r#""call_1""#,
                r#""call\"1""#,
                r#""""#,
                "true",
                "false",
                "null",
                "0",
                "-1.5e3",
                r#""true""#,
                "[true]",
                r#"{"type":"tool_call_request","id":"x"}"#,
                r#"{"answer":"yes"}"#,
            ])
            .prop_map(str::to_owned),
            "[a-z_]{0,6}".prop_map(|s| format!("\"{s}\"")),
        ]
    }

    /// A field list as the reader splits it: names drawn from those typing
    /// reads (escaped spellings are decoded by the reader, so never seen
    /// here) and others, each at most once.
    fn fields() -> impl Strategy<Value = Vec<(String, String)>> {
        let name = prop::sample::select(vec![
            "type",
            "type",
            "timestamp",
            "id",
            "id",
            "name",
            "name",
            "is_error",
            "content",
            "arguments",
            "message",
            "reply",
            "question",
            "x",
        ]);
        vec((name, value()), 0..8).prop_map(|mut fields| {
            let mut seen = Vec::new();
            fields.retain(|(k, _)| {
                let first = !seen.contains(k);
                seen.push(*k);
                first
            });
            fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
        })
    }

    /// Ordinary events of the plain kinds, as this crate's writer writes
    /// them, split into fields.
    fn written_fields(e: &Event) -> Vec<(String, String)> {
        let raw: crate::wire::RawEvent =
            serde_json::from_str(&serde_json::to_string(e).expect("events serialize"))
                .expect("written events read");
        raw.fields
            .iter()
            .map(|(k, v)| (k.clone(), v.get().to_owned()))
            .collect()
    }

    fn borrowed(fields: &[(String, String)]) -> FieldsRef<'_> {
        fields
            .iter()
            .map(|(k, v)| (Cow::Borrowed(k.as_str()), v.as_str()))
            .collect()
    }

    /// What the checker reads of `fields` the plain way: typed by
    /// `type_fields`, then read by `Plain::of_event` (`Err` when typing
    /// refuses the event).
    fn typed(fields: &FieldsRef<'_>) -> Result<Option<Plain<'static>>, String> {
        let content = fields
            .iter()
            .find(|(k, _)| k.as_ref() == "content")
            .map(|(_, v)| v.to_string());
        let event = type_fields(fields.clone())?;
        Ok(Plain::of_event(&event, content.as_deref()).map(owned))
    }

    fn owned(p: Plain<'_>) -> Plain<'static> {
        match p {
            Plain::TurnStart => Plain::TurnStart,
            Plain::Chat(tag) => Plain::Chat(tag),
            Plain::ToolCallRequest { id, name } => Plain::ToolCallRequest {
                id: Cow::Owned(id.into_owned()),
                name: Cow::Owned(name.into_owned()),
            },
            Plain::ToolCallResponse {
                id,
                is_error,
                content,
            } => Plain::ToolCallResponse {
                id: Cow::Owned(id.into_owned()),
                is_error,
                // Leaked only in tests: the plain value compares by text.
                content: content.map(|c| &*Box::leak(c.to_owned().into_boxed_str())),
            },
            Plain::Other => Plain::Other,
        }
    }

    proptest! {
        /// Rule: PERF-CHECK-PLAIN — the word-at-a-time backslash test is
        /// the plain byte search, at every length and position.
        #[test]
        fn has_backslash_is_a_byte_search(bytes in vec(prop_oneof![any::<u8>(), Just(b'\\'), Just(0x5c ^ 0x80), Just(0x5b)], 0..40)) {
            prop_assert_eq!(has_backslash(&bytes), bytes.contains(&b'\\'));
        }

        /// Rule: PERF-CHECK-PLAIN — what the checker reads of a
        /// non-inquiry event straight from its field texts is what it reads
        /// of the event `type_fields` types from them; where typing refuses
        /// the event (or it is an inquiry event) the plain reading gives
        /// way, so typing decides and words every error.
        #[test]
        fn plain_reading_is_the_typed_one(fields in fields()) {
            let fields_ref = borrowed(&fields);
            // Giving way is always allowed; that the writer's events do not
            // is `written_plain_events_are_read_plainly`.
            if let Some(plain) = Plain::of_fields(&fields_ref, 0) {
                prop_assert_eq!(typed(&fields_ref), Ok(Some(owned(plain))));
            }
        }

        /// Rule: PERF-READ-PLAIN-STRINGS — the plain reading given the
        /// reader's bits of the fields whose values are strings without an
        /// escape is the reading given none, and so the typed one: the
        /// fields written as an event object, read by the reader's pass.
        #[test]
        fn plain_reading_with_the_readers_bits_is_the_one_without(fields in fields()) {
            let text = format!(
                "{{{}}}",
                fields
                    .iter()
                    .map(|(k, v)| format!("{}:{v}", serde_json::to_string(k).expect("a name")))
                    .collect::<Vec<_>>()
                    .join(",")
            );
            let (read, bits) = crate::wire::object_members_plain(&text).expect("the reader reads it");
            prop_assert_eq!(&read, &borrowed(&fields));
            let with = Plain::of_fields(&read, bits).map(owned);
            prop_assert_eq!(&with, &Plain::of_fields(&read, 0).map(owned));
            if let Some(plain) = with {
                prop_assert_eq!(typed(&read), Ok(Some(plain)));
            }
        }

        /// Rule: PERF-CHECK-PLAIN — every non-inquiry event this crate's
        /// writer writes (`type_fields` types it) is read the plain way,
        /// and the same.
        #[test]
        fn written_plain_events_are_read_plainly(e in crate::generate::wire::event()) {
            let fields = written_fields(&e);
            let fields_ref = borrowed(&fields);
            let inquiry = matches!(
                e.kind,
                EventKind::InquiryRequest(_) | EventKind::InquiryResponse(_)
            );
            let plain = Plain::of_fields(&fields_ref, 0).map(owned);
            prop_assert_eq!(plain.is_some(), !inquiry, "{:?}", fields);
            if let Some(plain) = plain {
                prop_assert_eq!(typed(&fields_ref), Ok(Some(plain)));
            }
        }
    }

    /// Rule: PERF-CHECK-PLAIN — hand-picked edges: an escaped tag, ID or
    /// timestamp, `is_error` as a string, a missing `name`, a timestamp
    /// that is no string.
    #[test]
    fn plain_reading_edges() {
        let cases: [(&[(&str, &str)], bool); 11] = [
            (&[("type", r#""turn_start""#)], true),
            (
                &[
                    ("type", r#""tool\u005fcall_request""#),
                    ("id", r#""a""#),
                    ("name", r#""b""#),
                ],
                false,
            ),
            (&[("type", r#""config\u005fdelta""#)], true),
            (
                &[("type", r#""inquiry\u005frequest""#), ("id", r#""a""#)],
                false,
            ),
            (&[("type", "1")], false),
            (
                &[
                    ("type", r#""tool_call_request""#),
                    ("id", r#""a\"""#),
                    ("name", r#""b""#),
                ],
                true,
            ),
            (
                &[("type", r#""tool_call_request""#), ("id", r#""a""#)],
                false,
            ),
            (
                &[
                    ("type", r#""tool_call_response""#),
                    ("id", r#""a""#),
                    ("is_error", r#""true""#),
                ],
                false,
            ),
            (
                &[
                    ("type", r#""tool_call_response""#),
                    ("id", r#""a""#),
                    ("is_error", "true"),
                ],
                true,
            ),
            (
                &[("timestamp", r#""t\u0031""#), ("type", r#""chat_request""#)],
                true,
            ),
            (&[("timestamp", "1"), ("type", r#""chat_request""#)], false),
        ];
        for (fields, read) in cases {
            let owned_fields: Vec<(String, String)> = fields
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect();
            let fields_ref = borrowed(&owned_fields);
            let plain = Plain::of_fields(&fields_ref, 0).map(owned);
            assert_eq!(plain.is_some(), read, "{fields:?}");
            if let Some(plain) = plain {
                assert_eq!(typed(&fields_ref), Ok(Some(plain)), "{fields:?}");
            }
        }
    }
}
