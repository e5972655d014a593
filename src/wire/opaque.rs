//! [`Opaque`]: a JSON value kept as written, and the byte-level checks that
//! make it one (rules `WIRE-OPAQUE-VALID`, `WIRE-OPAQUE-EQ`).
//!
//! This is codec, not vocabulary: the persisted event types in
//! [`super`] hold `Opaque` values for what the model treats as opaque, and
//! the reader beside this file builds them.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use super::reader;

/// A JSON value kept exactly as it was written (bytes included), for the
/// parts of an event the model treats as opaque (tool arguments, chat
/// contents, unknown fields).
///
/// Every `Opaque` the reader builds holds text a [`Value`] can represent (at
/// most 128 levels deep, no lone surrogate escapes, numbers within `f64`
/// range; rule `WIRE-OPAQUE-VALID`), so [`Opaque::to_value`] never fails on
/// read data. Two `Opaque`s are equal when their texts differ only in
/// whitespace outside strings: re-indenting a stream (a pretty array written
/// back as JSON Lines) does not change its values (rule `WIRE-OPAQUE-EQ`).
///
/// The text is held as a plain string (serde_json's `RawValue` would need a
/// second parse to build, or `unsafe`): the reader builds it in the same pass
/// that checks it, and writing hands a serializer the text as a `RawValue`
/// does.
#[derive(Clone)]
pub struct Opaque(pub(super) Box<str>);

impl Opaque {
    /// Wraps a value, written compactly.
    ///
    /// The values the model writes most (a call's empty object of
    /// arguments, a plain string, a boolean) are written without the
    /// serializer, as the text serde_json writes of them (rule
    /// `PERF-OPAQUE-VALUE`).
    pub fn from_value(v: &Value) -> Self {
        if let Some(text) = quick_text(v) {
            return Opaque(text.into());
        }
        if let Value::String(s) = v {
            return Opaque::from_text(s);
        }
        // Serializing a `Value` to JSON cannot fail: its keys are strings.
        Opaque(
            serde_json::value::to_raw_value(v)
                .expect("a Value always serializes")
                .into(),
        )
    }

    /// Wraps the JSON string holding `text`: the text
    /// `Opaque::from_value(&Value::String(text))` holds, written without
    /// building the `Value` ([`push_json_string`], rule
    /// `PERF-OPAQUE-TEXT`).
    pub(crate) fn from_text(text: &str) -> Self {
        let mut out = String::with_capacity(text.len() + 2);
        push_json_string(&mut out, text);
        Opaque(out.into_boxed_str())
    }

    /// Appends `v`'s compact JSON text (what `Value`'s `Display` writes) to
    /// `out`: the values [`Opaque::from_value`] writes without the
    /// serializer, and a string as [`Opaque::from_text`] writes it,
    /// directly (rule `PERF-OPAQUE-VALUE`); any other through `Display`.
    pub(crate) fn push_compact(out: &mut String, v: &Value) {
        use std::fmt::Write as _;
        match (quick_text(v), v) {
            (Some(text), _) => out.push_str(text),
            (None, Value::String(s)) => push_json_string(out, s),
            // Writing into a `String` cannot fail.
            (None, _) => {
                let _ = write!(out, "{v}");
            }
        }
    }

    /// Wraps JSON text its writer built from serde_json's own output (a
    /// `Value`'s text with a string written in place of another), so it
    /// needs no check (rule `PERF-SCHEMA-TEXT`).
    pub(crate) fn from_json_text(text: String) -> Self {
        Opaque(text.into_boxed_str())
    }

    /// The JSON text as written.
    pub fn get(&self) -> &str {
        &self.0
    }

    /// Parses the text into a `Value`.
    pub fn to_value(&self) -> Value {
        // Read text was checked by `check_raw` when the `Opaque` was built;
        // `from_value` text comes from a `Value`.
        serde_json::from_str(&self.0).expect("Opaque holds valid JSON")
    }

    /// Wraps raw text already checked by [`check_raw`].
    pub(super) fn from_raw(raw: Box<RawValue>) -> Self {
        Opaque(raw.into())
    }
}

/// Appends the JSON string holding `text`, byte for byte as serde_json
/// writes it (rule `PERF-OPAQUE-TEXT`): serde_json escapes only `"`, `\`
/// and the bytes below 0x20, so a text without them (found by the
/// reader's string scan) is itself between quotes; any other goes through
/// serde_json's string writer.
fn push_json_string(out: &mut String, text: &str) {
    if reader::is_plain_json_text(text) {
        out.push('"');
        out.push_str(text);
        out.push('"');
    } else {
        out.push_str(&serde_json::to_string(text).expect("a str always serializes"));
    }
}

/// The compact JSON text of the values written without the serializer
/// (rule `PERF-OPAQUE-VALUE`): `null`, the booleans, an empty object and
/// an empty array; `None` for any other.
fn quick_text(v: &Value) -> Option<&'static str> {
    match v {
        Value::Null => Some("null"),
        Value::Bool(true) => Some("true"),
        Value::Bool(false) => Some("false"),
        Value::Object(members) if members.is_empty() => Some("{}"),
        Value::Array(items) if items.is_empty() => Some("[]"),
        Value::Object(_) | Value::Array(_) | Value::Number(_) | Value::String(_) => None,
    }
}

/// Checks that raw JSON text is something a [`Value`] can hold (depth limit,
/// valid escapes, finite numbers) without building the tree: `RawValue`
/// alone skips over its input and accepts all three (rule
/// `WIRE-OPAQUE-VALID`).
pub(super) fn check_raw(raw: &RawValue) -> Result<(), String> {
    serde_json::from_str::<Checked>(raw.get())
        .map(|Checked| ())
        .map_err(|e| reader::strip_position(&e.to_string()))
}

/// A JSON value read only to check that serde_json can represent it.
struct Checked;

impl<'de> Deserialize<'de> for Checked {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Checked;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Checked, E> {
                Ok(Checked)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Checked, E> {
                Ok(Checked)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Checked, E> {
                Ok(Checked)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Checked, E> {
                Ok(Checked)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Checked, E> {
                Ok(Checked)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Checked, E> {
                Ok(Checked)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Checked, A::Error> {
                while seq.next_element::<Checked>()?.is_some() {}
                Ok(Checked)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Checked, A::Error> {
                while map.next_key::<Checked>()?.is_some() {
                    map.next_value::<Checked>()?;
                }
                Ok(Checked)
            }
        }
        d.deserialize_any(V)
    }
}

/// The bytes of a JSON text that carry meaning: all of them except
/// whitespace outside strings. Raw control characters cannot occur inside a
/// valid JSON string, so dropping them never changes a value.
pub(crate) fn significant_bytes(text: &[u8]) -> impl Iterator<Item = u8> + '_ {
    let mut in_string = false;
    let mut escape = false;
    text.iter().copied().filter(move |&b| {
        if in_string {
            if escape {
                escape = false;
            } else if b == b'\\' {
                escape = true;
            } else if b == b'"' {
                in_string = false;
            }
            true
        } else if b == b'"' {
            in_string = true;
            true
        } else {
            !matches!(b, b' ' | b'\t' | b'\n' | b'\r')
        }
    })
}

impl PartialEq for Opaque {
    /// Equal up to whitespace outside strings (see the type's docs).
    fn eq(&self, other: &Self) -> bool {
        // The same text is the same value without walking it.
        self.0 == other.0
            || significant_bytes(self.get().as_bytes())
                .eq(significant_bytes(other.get().as_bytes()))
    }
}

impl fmt::Debug for Opaque {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.get())
    }
}

/// The struct name by which serde_json's `RawValue` announces its text to a
/// serializer (serde_json's `raw::TOKEN`): a serializer of serde_json's
/// writes the one field's string verbatim, and its `Value` serializer
/// parses it.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

impl Serialize for Opaque {
    /// Writes the text verbatim: the calls `RawValue::serialize` makes for
    /// the same text, without parsing the text again to borrow a
    /// `RawValue` from it (rule `PERF-OPAQUE-SERIALIZE`). Every `Opaque`
    /// holds JSON text (see the type's docs), which is what `RawValue`
    /// would have checked.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct(RAW_VALUE_TOKEN, 1)?;
        st.serialize_field(RAW_VALUE_TOKEN, &*self.0)?;
        st.end()
    }
}

impl<'de> Deserialize<'de> for Opaque {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(d)?;
        check_raw(&raw).map_err(de::Error::custom)?;
        Ok(Opaque::from_raw(raw))
    }
}

#[cfg(test)]
mod opaque_text_tests;
