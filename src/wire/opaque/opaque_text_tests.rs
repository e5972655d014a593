//! Rule `PERF-OPAQUE-TEXT`: a string's `Opaque` written without the `Value`
//! is the text serde_json writes of the string. Rule `PERF-OPAQUE-VALUE`: a
//! value's `Opaque`, and its compact text appended to a string, are the
//! text serde_json writes of the value. Rule `PERF-OPAQUE-SERIALIZE`: an
//! `Opaque` serializes as serde_json's `RawValue` of its text does.

use proptest::prelude::*;
use serde_json::Value;

use serde_json::value::RawValue;

use super::Opaque;

/// What serde_json's writers and its `Value` serializer make of `value`:
/// the compact text, the pretty text and the tree.
/// What serde_json's own writer makes of the string `text`: the reference
/// the direct writers are held to (not `Opaque::from_value`, which writes
/// a string through `Opaque::from_text` itself).
fn serde_text(text: &str) -> String {
    serde_json::to_string(text).expect("a str always serializes")
}

/// Asserts that `v`'s `Opaque` and its compact text appended after other
/// text are, byte for byte, what serde_json writes of `v`.
fn value_written_as_serde_writes_it(v: &Value) {
    let serde = serde_json::to_string(v).expect("a Value always serializes");
    assert_eq!(Opaque::from_value(v).get(), serde, "{v:?}");
    let mut out = String::from("x=");
    Opaque::push_compact(&mut out, v);
    assert_eq!(out, format!("x={serde}"), "{v:?}");
}

fn written<T: serde::Serialize + ?Sized>(value: &T) -> (String, String, Value) {
    (
        serde_json::to_string(value).expect("serializes"),
        serde_json::to_string_pretty(value).expect("serializes"),
        serde_json::to_value(value).expect("serializes"),
    )
}

/// Asserts that the `Opaque` read from `text` is written as the `RawValue`
/// of `text` is, and that the compact writer writes `text` verbatim.
fn serializes_as_raw(text: &str) {
    let opaque: Opaque = serde_json::from_str(text).expect("valid JSON text");
    let raw: Box<RawValue> = serde_json::from_str(text).expect("valid JSON text");
    let ours = written(&opaque);
    assert_eq!(ours, written(&*raw), "{text:?}");
    assert_eq!(ours.0, raw.get(), "{text:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(256)
    ))]

    /// Rule: PERF-OPAQUE-TEXT — invariant: for any text (quotes,
    /// backslashes, control characters, non-ASCII included), the direct
    /// writer's JSON text is, byte for byte, the `Value` path's.
    #[test]
    fn a_texts_opaque_is_its_values(text in "(\\PC|[\"\\\\\\x00-\\x1f\\x7f/é😀])*") {
        let direct = Opaque::from_text(&text);
        prop_assert_eq!(direct.get(), serde_text(&text));
    }

    /// Rule: PERF-OPAQUE-VALUE — invariant: for any JSON value (nested,
    /// empty, numbers, strings with escapes), its `Opaque` and its compact
    /// text appended to a string are, byte for byte, serde_json's text.
    #[test]
    fn a_values_opaque_is_serde_jsons_text(v in crate::generate::wire::json_value()) {
        value_written_as_serde_writes_it(&v);
    }

    /// Rule: PERF-OPAQUE-TEXT — invariant: a text whose every character is
    /// one serde_json writes as itself (most texts the model persists: the
    /// writer's quick path), next to at most one that it escapes, is
    /// written byte for byte as the `Value` path writes it.
    #[test]
    fn a_text_without_escapes_is_its_value_quoted(
        plain in "[^\"\\\\\x00-\x1f]{0,100}",
        escaped in proptest::option::of(prop_oneof![
            Just('"'), Just('\\'), (0u8..0x20).prop_map(char::from),
        ]),
        at in any::<prop::sample::Index>(),
    ) {
        let mut text = plain.clone();
        if let Some(c) = escaped {
            let chars: Vec<char> = plain.chars().collect();
            let i = at.index(chars.len() + 1);
            text = chars[..i].iter().chain([&c]).chain(&chars[i..]).collect();
        }
        let direct = Opaque::from_text(&text);
        prop_assert_eq!(direct.get(), serde_text(&text));
    }

    /// Rule: PERF-OPAQUE-SERIALIZE — invariant: for any JSON value, written
    /// compactly or spaced, its `Opaque` is written by serde_json's compact
    /// and pretty writers, and turned into a `Value`, exactly as its
    /// `RawValue` is, and the compact writer writes its text verbatim.
    #[test]
    fn an_opaque_serializes_as_its_raw_value(v in crate::generate::wire::json_value(), pretty: bool) {
        let text = if pretty {
            serde_json::to_string_pretty(&v).expect("serializes")
        } else {
            v.to_string()
        };
        serializes_as_raw(&text);
    }
}

/// Rule: PERF-OPAQUE-SERIALIZE — hand-written texts: spacing kept inside
/// and around, escapes and number spellings kept, a repeated key kept;
/// and the comparison can fail: the text handed over as a plain string is
/// written quoted.
#[test]
fn an_opaque_is_written_as_raw_text() {
    for text in [
        "null",
        " { \"a\" : [ 1 , 2.50 ] } ",
        "\"tu\\u0072n\"",
        "123456789012345678901234567890",
        "{\"k\":1,\"k\":2}",
        "[\n  \"\\ud83d\\ude00\"\n]",
    ] {
        serializes_as_raw(text);
        let opaque: Opaque = serde_json::from_str(text).expect("valid JSON text");
        assert_ne!(written(opaque.get()).0, written(&opaque).0, "{text:?}");
    }
}

/// Rule: PERF-OPAQUE-TEXT — the comparison is byte for byte and can fail: a
/// writer that quotes without escaping disagrees on a quote, a backslash
/// and a control character, while the direct writer agrees on each.
#[test]
fn a_writer_without_escapes_disagrees() {
    for text in ["a\"b", "a\\b", "a\u{1}b", "line\nbreak"] {
        let serde = serde_text(text);
        assert_eq!(Opaque::from_text(text).get(), serde);
        assert_ne!(format!("\"{text}\""), serde);
    }
}

/// Rule: PERF-OPAQUE-TEXT — every ASCII character, alone and between
/// letters, and characters either side of it (0x7f, U+0080, U+2028), is
/// written as the `Value` path writes it: the quick path's bound is
/// exactly serde_json's escape set, not one byte more or less.
#[test]
fn every_ascii_character_is_written_as_the_value_path_writes_it() {
    let characters = (0u8..0x80)
        .map(char::from)
        .chain(['\u{80}', '\u{2028}', 'é']);
    for c in characters {
        // Short, and past the scan's first 16 and 32 bytes after non-ASCII.
        let long = format!("{}{}{c}{}", "a".repeat(37), "é".repeat(5), "b".repeat(40));
        for text in [c.to_string(), format!("a{c}b"), long] {
            assert_eq!(
                Opaque::from_text(&text).get(),
                serde_text(&text),
                "{text:?}"
            );
            value_written_as_serde_writes_it(&Value::String(text.clone()));
        }
    }
}

/// Rule: PERF-OPAQUE-VALUE — the values written without the serializer
/// (`null`, both booleans, an empty object and array, strings with and
/// without escapes) and their neighbours that take it (a one-member object
/// and array, numbers, nested empties) are written as serde_json writes
/// them.
#[test]
fn quick_values_are_written_as_serde_writes_them() {
    use serde_json::json;
    for v in [
        json!(null),
        json!(true),
        json!(false),
        json!({}),
        json!([]),
        json!(""),
        json!("plain"),
        json!("quo\"te"),
        json!("tab\tand é"),
        json!({"a": {}}),
        json!([[]]),
        json!([null, false]),
        json!(0),
        json!(-1.5),
        json!(u64::MAX),
    ] {
        value_written_as_serde_writes_it(&v);
    }
}
