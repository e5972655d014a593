//! Rule `PERF-OPAQUE-TEXT`: a string's `Opaque` written without the `Value`
//! is the text the `Value` path writes.

use proptest::prelude::*;
use serde_json::Value;

use super::Opaque;

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
