//! Typing an inquiry event's payload from its field texts without serde:
//! the texts were checked by the reader, so the payload's
//! objects are split by the reader's own fast path and their few fields
//! read directly.
//!
//! Like the reader's fast path, this is an accelerator that gives way: it
//! returns `None` for anything it does not settle itself (a missing or
//! repeated field, a value of another JSON type, an unknown tag, a read
//! error of any kind), and the caller then types the payload through serde
//! ([`super::codec::from_fields`]), which decides and words every refusal. When it
//! returns a value, the value is the one serde builds (rule
//! `PERF-TYPE-SAME`, checked by differential property tests in
//! this module's tests).

use std::borrow::Cow;

use serde_json::Value;

use super::codec::QuestionSeen;
use super::reader::{
    FieldsRef, array_items, object_members, object_members_in, recycle, within_depth,
};
use super::{
    CancellationReason, InquiryAnswerReusePolicy, InquiryAnswerType, InquiryId, InquiryQuestion,
    InquiryRequest, InquiryResponse, InquirySource, ResponseRepr, SelectOption, json_string,
};

#[cfg(test)]
thread_local! {
    /// How many inquiry payloads this thread's [`super::codec::type_fields`] sent
    /// to serde: the one way a test sees which path typed an event (rule
    /// `PERF-TYPE-SAME`: every inquiry event the writer writes takes the
    /// fast typing; both paths give the same value, so nothing else tells).
    pub(crate) static SERDE_TYPINGS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Counts one payload sent to serde (`SERDE_TYPINGS`); nothing outside
/// tests.
pub(super) fn note_serde_typing() {
    #[cfg(test)]
    SERDE_TYPINGS.with(|n| n.set(n.get() + 1));
}

/// The text of the member `name` of an object's members.
fn member<'a>(members: &[(Cow<'a, str>, &'a str)], name: &str) -> Option<&'a str> {
    members
        .iter()
        .find(|(k, _)| k.as_ref() == name)
        .map(|(_, v)| *v)
}

/// A JSON string's content, owned.
fn owned(text: &str) -> Option<String> {
    json_string(text).map(Cow::into_owned)
}

/// `Option<String>` as serde reads it: `null` is `None`.
fn optional_string(text: &str) -> Option<Option<String>> {
    match text {
        "null" => Some(None),
        s => owned(s).map(Some),
    }
}

/// A `Value` read by serde_json itself (the one parser, so numbers and
/// strings read exactly as the serde path reads them).
fn value(text: &str) -> Option<Value> {
    serde_json::from_str(text).ok()
}

/// An `inquiry_request`'s payload from the texts of its `id`, `source` and
/// `question`, or `None` to give way to serde (the codec calls
/// [`inquiry_request_seen`]).
#[cfg(test)]
pub(super) fn inquiry_request(id: &str, source: &str, question: &str) -> Option<InquiryRequest> {
    inquiry_request_seen(id, source, question, &mut |_| {})
}

/// `inquiry_request`, handing the question's members to `seen` once
/// they are split, before they are typed (whether or not the typing then
/// gives way): a reader of the question's other facts needs no second
/// split (rule `PERF-CHECK-SPLIT-ONCE`). `seen` is not called when the
/// question is not reached or is not an object the fast path splits.
pub(super) fn inquiry_request_seen(
    id: &str,
    source: &str,
    question: &str,
    seen: &mut QuestionSeen<'_>,
) -> Option<InquiryRequest> {
    // One member list for the source, then the question.
    let mut spare = Vec::new();
    Some(InquiryRequest {
        id: InquiryId(owned(id)?),
        source: inquiry_source(source, &mut spare)?,
        question: inquiry_question(question, seen, spare)?,
    })
}

/// `InquirySource`: internally tagged by `source`; the unit variants ignore
/// other members, the struct variants ignore members other than `name`.
/// The members are listed in `spare`'s buffer, handed back emptied; a
/// source in its compact spelling is read without listing them
/// ([`compact_source`]).
fn inquiry_source(text: &str, spare: &mut FieldsRef<'static>) -> Option<InquirySource> {
    compact_source(text).or_else(|| source_by_members(text, spare))
}

/// [`inquiry_source`] by the object's members.
fn source_by_members(text: &str, spare: &mut FieldsRef<'static>) -> Option<InquirySource> {
    let members = object_members_in(text, std::mem::take(spare))?;
    let name = || member(&members, "name").and_then(owned);
    let source = match json_string(member(&members, "source")?)?.as_ref() {
        "tool" => InquirySource::Tool { name: name()? },
        "assistant" => InquirySource::Assistant,
        "user" => InquirySource::User,
        "other" => InquirySource::Other { name: name()? },
        _ => return None,
    };
    *spare = recycle(members);
    Some(source)
}

/// A source in the spelling a compact writer gives it
/// (`{"source":"assistant"}`, `{"source":"user"}`,
/// `{"source":"tool","name":"…"}` with no quote inside the name), read by
/// its bytes: the text is valid JSON (the reader checked it), so such a
/// text means exactly this, its name decoded by [`json_string`]. Any other
/// text (spaced, members in another order or beside these, a quote in the
/// name, another variant) is `None`, and is read by its members.
fn compact_source(text: &str) -> Option<InquirySource> {
    match text {
        r#"{"source":"assistant"}"# => Some(InquirySource::Assistant),
        r#"{"source":"user"}"# => Some(InquirySource::User),
        _ => {
            let name = text
                .strip_prefix(r#"{"source":"tool","name":"#)?
                .strip_suffix('}')?;
            let inner = name.strip_prefix('"')?.strip_suffix('"')?;
            if inner.contains('"') {
                return None;
            }
            Some(InquirySource::Tool { name: owned(name)? })
        }
    }
}

/// `InquiryQuestion`: `text` and `answer_type` required, RFD 083's fields
/// defaulted, other members ignored. The members, then the answer type's,
/// are listed in `spare`'s buffer.
fn inquiry_question(
    text: &str,
    seen: &mut QuestionSeen<'_>,
    spare: FieldsRef<'static>,
) -> Option<InquiryQuestion> {
    let members = object_members_in(text, spare)?;
    seen(&members);
    let mut question_text = None;
    let mut answer_type = None;
    let mut default = None;
    let mut context = None;
    let mut exclusive = false;
    let mut persistence = InquiryAnswerReusePolicy::Turn;
    for (k, v) in &members {
        match k.as_ref() {
            "text" => question_text = Some(owned(v)?),
            "answer_type" => answer_type = Some(*v),
            "default" => default = Some(value(v)?),
            "context" => context = optional_string(v)?,
            "exclusive" => {
                exclusive = match *v {
                    "true" => true,
                    "false" => false,
                    _ => return None,
                }
            }
            "persistence" => {
                persistence = match json_string(v)?.as_ref() {
                    "none" => InquiryAnswerReusePolicy::None,
                    "turn" => InquiryAnswerReusePolicy::Turn,
                    _ => return None,
                }
            }
            _ => {}
        }
    }
    // Typed after the loop, its members listed in the question's buffer
    // (a member is never repeated here, so which error comes first does
    // not matter: any gives way).
    let answer_type = inquiry_answer_type(answer_type?, recycle(members))?;
    Some(InquiryQuestion {
        text: question_text?,
        answer_type,
        default,
        context,
        exclusive,
        persistence,
    })
}

/// `InquiryAnswerType`: internally tagged by `type`; a select's `options`
/// is an array of `{value, description?}` objects with no other member.
/// The members are listed in `spare`'s buffer.
fn inquiry_answer_type(text: &str, spare: FieldsRef<'static>) -> Option<InquiryAnswerType> {
    let members = object_members_in(text, spare)?;
    match json_string(member(&members, "type")?)?.as_ref() {
        "boolean" => Some(InquiryAnswerType::Boolean),
        "text" => Some(InquiryAnswerType::Text),
        "secret" => Some(InquiryAnswerType::Secret),
        "select" => {
            let options = array_items(member(&members, "options")?)?
                .into_iter()
                .map(select_option)
                .collect::<Option<Vec<_>>>()?;
            Some(InquiryAnswerType::Select { options })
        }
        _ => None,
    }
}

/// A select option in the `{value, description?}` shape this crate writes,
/// members in that order and `description` a string; any other shape (a
/// bare option, other members, another order) gives way to serde, which
/// keeps it as written ([`SelectOption::read`]).
fn select_option(text: &str) -> Option<SelectOption> {
    let members = object_members(text)?;
    match members.as_slice() {
        [(k, v)] if k.as_ref() == "value" => Some(SelectOption::new(value(v)?, None)),
        [(k, v), (d, t)] if k.as_ref() == "value" && d.as_ref() == "description" => {
            let description = optional_string(t)??;
            Some(SelectOption::new(value(v)?, Some(description)))
        }
        _ => None,
    }
}

/// An `inquiry_response`'s payload from the texts of its `id`, `outcome`,
/// `answer` and `reason` (the order of [`super::RESPONSE_FIELDS`]), or
/// `None` to give way to serde (which also words the read rules' errors).
pub(super) fn inquiry_response(fields: [Option<&str>; 4]) -> Option<InquiryResponse> {
    let [id, outcome, answer, reason] = fields;
    let repr = ResponseRepr {
        id: InquiryId(owned(id?)?),
        outcome: match outcome {
            None | Some("null") => None,
            Some(s) => Some(owned(s)?),
        },
        // The serde path reads the answer one level deeper (inside the
        // object it builds), so an answer nested near serde_json's limit
        // gives way and is refused there.
        answer: match answer {
            None => None,
            Some(s) if within_depth(s) => Some(value(s)?),
            Some(_) => return None,
        },
        reason: match reason {
            None | Some("null") => None,
            Some(s) => Some(CancellationReason::from_tag(&json_string(s)?)),
        },
    };
    InquiryResponse::try_from(repr).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::RESPONSE_FIELDS;
    use crate::wire::codec::from_fields;
    use proptest::collection::vec;
    use proptest::prelude::*;

    /// Valid JSON texts of every type, with the spellings that matter to
    /// typing: escapes, `null`, numbers where strings are expected, deep
    /// nesting on both sides of the depth limits.
    fn any_json() -> impl Strategy<Value = String> {
        prop_oneof![
            3 => prop::sample::select(vec![
                "null", "true", "false", "0", "-1.5e3", "123456789012345678901234567890",
                "\"\"", "\"x\"", "\"tu\\u0072n\"", "\"\\ud83d\\ude00\"", "[]", "{}",
                "[1,{\"a\":[null]}]", "{\"a\":1,\"a\":2}", "{ \"k\" : [ 1 , 2 ] }",
            ])
            .prop_map(str::to_owned),
            1 => (1usize..130).prop_map(|d| format!("{}{}", "[".repeat(d), "]".repeat(d))),
            1 => crate::generate::wire::json_value().prop_map(|v| v.to_string()),
        ]
    }

    /// One of `good` (as JSON strings), or any JSON text.
    fn tag(good: &'static [&'static str]) -> impl Strategy<Value = String> {
        prop_oneof![
            12 => prop::sample::select(good).prop_map(|t| format!("\"{t}\"")),
            1 => prop::sample::select(good).prop_map(|t| {
                // The first letter escaped: the same string.
                let mut c = t.chars();
                let first = c.next().unwrap_or('x');
                format!("\"\\u{:04x}{}\"", first as u32, c.as_str())
            }),
            1 => any_json(),
        ]
    }

    /// An object text from optional members, maybe with an unknown or a
    /// repeated member, maybe spaced, or sometimes not an object at all.
    fn object(members: Vec<(&'static str, Option<String>)>) -> impl Strategy<Value = String> {
        let n = members.len();
        (
            Just(members),
            prop::sample::select(vec!["", " ", "\n  "]),
            prop::option::weighted(
                0.2,
                (
                    prop::sample::select(vec!["extra", "answer", "name", "value"]),
                    any_json(),
                ),
            ),
            prop::option::of(0..n.max(1)),
            0..30u8,
        )
            .prop_map(|(members, ws, extra, repeat, not_object)| {
                if not_object == 0 {
                    return "[]".to_owned();
                }
                let mut parts: Vec<String> = members
                    .iter()
                    .filter_map(|(k, v)| v.as_ref().map(|v| format!("\"{k}\"{ws}:{ws}{v}")))
                    .collect();
                if let Some((k, v)) = extra {
                    parts.push(format!("\"{k}\":{v}"));
                }
                if let Some(r) = repeat.filter(|_| not_object == 1)
                    && let Some(p) = parts.get(r).cloned()
                {
                    parts.push(p);
                }
                format!("{{{ws}{}{ws}}}", parts.join(&format!(",{ws}")))
            })
    }

    fn maybe(s: impl Strategy<Value = String>) -> impl Strategy<Value = Option<String>> {
        prop_oneof![16 => s.prop_map(Some), 1 => Just(None)]
    }

    /// Mostly `good`, sometimes a near miss serde may refuse (`null`, a
    /// number, a quoted literal), sometimes any JSON.
    fn literal(good: &'static [&'static str]) -> impl Strategy<Value = String> {
        prop_oneof![
            8 => prop::sample::select(good).prop_map(str::to_owned),
            2 => prop::sample::select(vec!["null", "0", "\"false\"", "\"null\"", "[]"])
                .prop_map(str::to_owned),
            1 => any_json(),
        ]
    }

    fn source() -> impl Strategy<Value = String> {
        (
            maybe(tag(&["tool", "assistant", "user", "other", "bogus"])),
            maybe(prop_oneof![8 => tag(&["fs", "Ä"]), 1 => any_json()]),
        )
            .prop_flat_map(|(s, n)| object(vec![("source", s), ("name", n)]))
    }

    fn option() -> impl Strategy<Value = String> {
        (
            maybe(any_json()),
            prop::option::of(prop_oneof![tag(&["d"]), Just("null".to_owned())]),
        )
            .prop_flat_map(|(v, d)| object(vec![("value", v), ("description", d)]))
    }

    fn answer_type() -> impl Strategy<Value = String> {
        let options = prop_oneof![
            4 => vec(option(), 0..4).prop_map(|o| format!("[{}]", o.join(", "))),
            1 => any_json(),
        ];
        (
            maybe(tag(&["boolean", "text", "secret", "select", "Select"])),
            prop::option::of(options),
        )
            .prop_flat_map(|(t, o)| object(vec![("type", t), ("options", o)]))
    }

    fn question() -> impl Strategy<Value = String> {
        (
            maybe(prop_oneof![8 => tag(&["Apply?"]), 1 => any_json()]),
            maybe(answer_type()),
            prop::option::of(any_json()),
            prop::option::of(prop_oneof![3 => tag(&["ctx"]), 2 => literal(&["null"])]),
            prop::option::of(literal(&["true", "false"])),
            prop::option::of(
                prop_oneof![3 => tag(&["turn", "none", "always"]), 1 => literal(&["null"])],
            ),
        )
            .prop_flat_map(|(t, a, d, c, e, p)| {
                object(vec![
                    ("text", t),
                    ("answer_type", a),
                    ("default", d),
                    ("context", c),
                    ("exclusive", e),
                    ("persistence", p),
                ])
            })
    }

    fn id() -> impl Strategy<Value = String> {
        prop_oneof![8 => tag(&["c1.q.1", "c\u{e9}.q"]), 1 => any_json()]
    }

    /// Every escape a JSON string can hold but a lone surrogate half: what
    /// [`crate::wire::codec::unescape`] decodes itself.
    const PAIRED_ESCAPES: [&str; 19] = [
        r#"\n"#,
        r#"\""#,
        r#"\\"#,
        r#"\/"#,
        r#"\b"#,
        r#"\f"#,
        r#"\r"#,
        r#"\t"#,
        r#"\u00e9"#,
        r#"\u0041"#,
        r#"\u0000"#,
        r#"\u005C"#,
        r#"\uD83D\uDE00"#,
        r#"\ud83d\ude00"#,
        r#"\uDBFF\uDFFF"#,
        r#"\uD800\uDC00"#,
        r#"\uFFFF"#,
        r#"\uE000"#,
        r#"\uD7FF"#,
    ];

    /// Lone surrogate halves, where the decoder gives way to serde.
    const LONE_HALVES: [&str; 5] = [
        r#"\uD800"#,
        r#"\uDC00"#,
        r#"\uD83D\u0041"#,
        r#"\uDE00\uD83D"#,
        r#"\uD83D\n"#,
    ];

    /// A JSON string's text (valid grammar) of `len` pieces: plain and
    /// non-ASCII text, and the escapes `escapes`, drawn `weight` times in
    /// ten.
    fn string_text_of(
        escapes: Vec<&'static str>,
        weight: u32,
        len: std::ops::Range<usize>,
    ) -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            (10 - weight) * 2 / 3 => "[a-zA-Z0-9 .:/_-]{0,12}",
            (10 - weight) / 3 => "[é😀ß中\u{7f}]{1,3}",
            weight => prop::sample::select(escapes).prop_map(str::to_owned),
        ];
        vec(piece, len).prop_map(|p| format!("\"{}\"", p.concat()))
    }

    /// A JSON string's text: every escape, surrogate pairs and lone halves.
    fn string_text() -> impl Strategy<Value = String> {
        string_text_of(
            PAIRED_ESCAPES.into_iter().chain(LONE_HALVES).collect(),
            4,
            0..8,
        )
    }

    /// A JSON string's text with every escape but a lone surrogate half.
    fn paired_string_text() -> impl Strategy<Value = String> {
        string_text_of(PAIRED_ESCAPES.to_vec(), 6, 1..8)
    }
    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Rule: PERF-TYPE-SAME — every inquiry event this crate's writer
        /// writes is typed by `type_fields` through the fast typing, to the
        /// event written: no payload goes to serde (a regression would send
        /// every inquiry back through serde and fail no other test).
        #[test]
        fn written_inquiry_events_are_typed_without_serde(event in crate::generate::wire::event()) {
            let text = serde_json::to_string(&event).expect("writes");
            let raw: crate::wire::RawEvent = serde_json::from_str(&text).expect("reads");
            SERDE_TYPINGS.with(|n| n.set(0));
            prop_assert_eq!(raw.into_event(), Ok(event));
            prop_assert_eq!(SERDE_TYPINGS.with(std::cell::Cell::get), 0);
        }

        /// Rule: PERF-TYPE-SAME — every escape but a lone surrogate half is
        /// decoded without serde, to what serde decodes (a regression would
        /// send every such string back through serde and fail no other
        /// test: `json_string` still agrees).
        #[test]
        fn unescape_decodes_every_paired_escape_itself(text in paired_string_text()) {
            let inner = &text[1..text.len() - 1];
            let serde = serde_json::from_str::<String>(&text).expect("valid JSON");
            prop_assert_eq!(crate::wire::codec::unescape(inner), Some(serde));
        }

        /// Rule: PERF-TYPE-SAME — a JSON string's escapes decoded without
        /// serde read as serde reads them; what the decoder gives way on
        /// (a lone surrogate half) serde decides.
        #[test]
        fn unescape_is_serdes(text in string_text()) {
            let serde = serde_json::from_str::<String>(&text).ok();
            let inner = &text[1..text.len() - 1];
            if let Some(fast) = crate::wire::codec::unescape(inner) {
                prop_assert_eq!(Some(fast), serde.clone());
            }
            prop_assert_eq!(json_string(&text).map(Cow::into_owned), serde);
        }

        /// Rule: PERF-TYPE-SAME — `json_string`, which looks for a
        /// backslash a word at a time in a short string and with `memchr`
        /// in a long one, reads every string as serde does: plain text of
        /// any length on both sides of the switch (0 to 100 bytes), with
        /// one escape, or none, at any place in it.
        #[test]
        fn json_string_is_serdes_at_every_length(
            len in 0usize..=100,
            at in any::<prop::sample::Index>(),
            escape in prop::option::of(prop::sample::select(PAIRED_ESCAPES.to_vec())),
        ) {
            let mut inner: String = (0..len).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
            if let Some(escape) = escape {
                inner.insert_str(at.index(len + 1), escape);
            }
            let text = format!("\"{inner}\"");
            let serde = serde_json::from_str::<String>(&text).ok();
            prop_assert!(serde.is_some(), "{}", text);
            prop_assert_eq!(json_string(&text).map(Cow::into_owned), serde);
        }

        /// Rule: PERF-TYPE-SAME — invariant: a source read by its compact
        /// spelling is the source its members give, for any text the source
        /// strategy builds (spaced, reordered, with extra or repeated
        /// members, escapes, other JSON); and every source whose name holds
        /// no quote, written compactly, is read that way.
        #[test]
        fn a_compact_source_is_the_source_its_members_give(
            text in source(),
            name in r#"[ -~&&[^"]]{0,12}|[a-zÄé🙂\n\t\\]{1,4}"#,
            variant in 0..3u8,
        ) {
            if let Some(fast) = compact_source(&text) {
                prop_assert_eq!(Some(fast), source_by_members(&text, &mut Vec::new()), "{}", text);
            }
            let written = match variant {
                0 => InquirySource::Assistant,
                1 => InquirySource::User,
                _ => InquirySource::Tool { name },
            };
            let compact = serde_json::to_string(&written).expect("writes");
            prop_assert_eq!(compact_source(&compact), Some(written), "{}", compact);
        }

        /// Rule: PERF-TYPE-SAME — an `inquiry_request` payload typed without
        /// serde is the one serde types from the same texts, and serde
        /// refuses nothing the fast typing accepts.
        #[test]
        fn fast_request_typing_is_serdes(id in id(), source in source(), question in question()) {
            let texts = [Some(id.as_str()), Some(source.as_str()), Some(question.as_str())];
            let serde = from_fields::<InquiryRequest, &str>(&["id", "source", "question"], &texts);
            if let Some(fast) = inquiry_request(&id, &source, &question) {
                prop_assert_eq!(Ok(fast), serde.map_err(|e| e.to_string()));
            }
        }

        /// Rule: PERF-TYPE-SAME — the same for `inquiry_response` payloads,
        /// whichever of their fields are present.
        #[test]
        fn fast_response_typing_is_serdes(
            id in maybe(id()),
            outcome in maybe(tag(&["answered", "cancelled", "redacted", "bogus"])),
            answer in maybe(any_json()),
            reason in maybe(tag(&["user", "backend_error", "invalid_static_answer", "new_one"])),
        ) {
            let texts = [id.as_deref(), outcome.as_deref(), answer.as_deref(), reason.as_deref()];
            let serde = from_fields::<InquiryResponse, &str>(&RESPONSE_FIELDS, &texts);
            if let Some(fast) = inquiry_response(texts) {
                prop_assert_eq!(Ok(fast), serde.map_err(|e| e.to_string()));
            }
        }
    }

    /// Rule: PERF-TYPE-SAME — an answer nested at any depth up to past
    /// serde_json's limit is typed as serde types the whole payload: the
    /// serde path reads the answer one level deeper (inside the object), so
    /// the answer serde accepts alone but refuses there must not be typed.
    /// Exhaustive over depths 1 to 130 (the property above draws the
    /// boundary only by chance); shallow answers are typed without serde.
    #[test]
    fn an_answer_at_every_depth_is_typed_as_serde_types_it() {
        for depth in 1..=130 {
            let answer = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            let texts = [
                Some("\"c1.q.1\""),
                Some("\"answered\""),
                Some(answer.as_str()),
                None,
            ];
            let serde = from_fields::<InquiryResponse, &str>(&RESPONSE_FIELDS, &texts)
                .map_err(|e| e.to_string());
            let fast = inquiry_response(texts);
            if depth <= 10 {
                assert!(fast.is_some(), "depth {depth}: gave way");
            }
            if let Some(fast) = fast {
                assert_eq!(Ok(fast), serde, "depth {depth}");
            }
        }
    }

    /// Rule: PERF-TYPE-SAME — a question that writes out a default our
    /// writer leaves out (`"exclusive": false`, `"persistence": "turn"`,
    /// `"context": null`; RFD 083 lets a writer spell them) is typed
    /// without serde, to the defaults: another writer's spelling of the
    /// same event takes the fast path too.
    #[test]
    fn questions_spelling_out_their_defaults_are_typed_without_serde() {
        let src = r#"{"source":"tool","name":"fs"}"#;
        for (members, exclusive, persistence) in [
            (
                r#""exclusive":false"#,
                false,
                InquiryAnswerReusePolicy::Turn,
            ),
            (r#""exclusive":true"#, true, InquiryAnswerReusePolicy::Turn),
            (
                r#""persistence":"turn""#,
                false,
                InquiryAnswerReusePolicy::Turn,
            ),
            (
                r#""persistence":"none""#,
                false,
                InquiryAnswerReusePolicy::None,
            ),
            (r#""context":null"#, false, InquiryAnswerReusePolicy::Turn),
            (
                r#""exclusive":false,"persistence":"turn","context":null"#,
                false,
                InquiryAnswerReusePolicy::Turn,
            ),
        ] {
            let text = format!(
                r#"{{"type":"inquiry_request","id":"c1.q.1","source":{src},"question":{{"text":"Apply?","answer_type":{{"type":"boolean"}},{members}}}}}"#
            );
            let raw: crate::wire::RawEvent = serde_json::from_str(&text).expect("reads");
            SERDE_TYPINGS.with(|n| n.set(0));
            let event = raw.into_event();
            assert_eq!(SERDE_TYPINGS.with(std::cell::Cell::get), 0, "{text}");
            let Ok(crate::wire::Event {
                kind: crate::wire::EventKind::InquiryRequest(request),
                ..
            }) = event
            else {
                panic!("{text}: typed as {event:?}");
            };
            let q = request.question;
            assert_eq!(
                (q.exclusive, q.persistence, q.context),
                (exclusive, persistence, None),
                "{text}"
            );
        }
    }

    /// Rule: PERF-TYPE-SAME — a payload the fast typing gives way on (a
    /// missing field, an unknown outcome, a number for an ID) goes to serde,
    /// once per event, which decides: the count the property above reads
    /// sees the serde path.
    #[test]
    fn payloads_the_fast_typing_gives_way_on_go_to_serde() {
        let q = r#"{"text":"Apply?","answer_type":{"type":"boolean"}}"#;
        let src = r#"{"source":"tool","name":"fs"}"#;
        for (text, typed) in [
            (
                format!(r#"{{"type":"inquiry_request","id":"c1.q.1","source":{src}}}"#),
                false,
            ),
            (
                format!(r#"{{"type":"inquiry_request","id":7,"source":{src},"question":{q}}}"#),
                false,
            ),
            (
                r#"{"type":"inquiry_response","id":"c1.q.1","outcome":"bogus"}"#.to_owned(),
                false,
            ),
            (
                r#"{"type":"inquiry_response","id":"c1.q.1","outcome":"redacted","extra":1}"#
                    .to_owned(),
                true,
            ),
        ] {
            let raw: crate::wire::RawEvent = serde_json::from_str(&text).expect("reads");
            SERDE_TYPINGS.with(|n| n.set(0));
            assert_eq!(raw.into_event().is_ok(), typed, "{text}");
            assert_eq!(
                SERDE_TYPINGS.with(std::cell::Cell::get),
                usize::from(!typed),
                "{text}"
            );
        }
    }

    /// Rule: PERF-READ-SAME — typing an event the reader split leaves the
    /// caller's list its buffer (the reader reads the next event into it,
    /// allocating nothing), whether the event is typed or refused, and
    /// the list empty once typed; the result is the one typed from a copy
    /// of the list.
    #[test]
    fn typing_keeps_the_field_lists_buffer() {
        let src = r#"{"source":"tool","name":"ask"}"#;
        let q = r#"{"text":"Go?","answer_type":{"type":"boolean"}}"#;
        for text in [
            format!(r#"{{"type":"inquiry_request","id":"c1.q.1","source":{src},"question":{q}}}"#),
            r#"{"type":"inquiry_response","id":"c1.q.1","answer":true}"#.to_owned(),
            r#"{"timestamp":"t","type":"tool_call_request","id":"c1","name":"ask"}"#.to_owned(),
            r#"{"type":"inquiry_request","id":7}"#.to_owned(),
            r#"{"type":7}"#.to_owned(),
        ] {
            let mut fields = crate::wire::object_members(&text).expect("splits");
            fields.reserve(16);
            let (buffer, capacity) = (fields.as_ptr() as usize, fields.capacity());
            let copy = fields.clone();
            let typed = crate::wire::type_fields_seen(&mut fields, &mut |_| {});
            if typed.is_ok() {
                assert!(fields.is_empty(), "{text}");
            }
            assert_eq!(typed, crate::wire::type_fields(copy), "{text}");
            assert_eq!(fields.capacity(), capacity, "{text}");
            assert_eq!(fields.as_ptr() as usize, buffer, "{text}");
        }
    }
}
