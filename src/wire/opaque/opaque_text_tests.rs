//! Rule `PERF-OPAQUE-TEXT`: a string's `Opaque` written without the `Value`
//! is the text the `Value` path writes. Rule `PERF-OPAQUE-SERIALIZE`: an
//! `Opaque` serializes as serde_json's `RawValue` of its text does.

use proptest::prelude::*;
use serde_json::Value;

use serde_json::value::RawValue;

use super::Opaque;

/// What serde_json's writers and its `Value` serializer make of `value`:
/// the compact text, the pretty text and the tree.
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
        let through_value = Opaque::from_value(&Value::String(text.clone()));
        prop_assert_eq!(direct.get(), through_value.get());
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
        let through_value = Opaque::from_value(&Value::String(text.clone()));
        prop_assert_eq!(direct.get(), through_value.get());
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
        let value = Opaque::from_value(&Value::String(text.to_owned()));
        assert_eq!(Opaque::from_text(text).get(), value.get());
        assert_ne!(format!("\"{text}\""), value.get());
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
            let value = Opaque::from_value(&Value::String(text.clone()));
            assert_eq!(Opaque::from_text(&text).get(), value.get(), "{text:?}");
        }
    }
}
