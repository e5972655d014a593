//! A hash of what a value's `Serialize` hands its serializer (rule
//! `PERF-MEMO-WRITTEN-HASH`): every call, tagged, its strings and bytes
//! with their lengths, each compound value opened and closed, so that two
//! different call sequences hash differently but for a collision. A JSON
//! writer's text is a function of that sequence (serde_json writes each
//! call as it comes), so two values whose JSON texts differ hash
//! differently but for a collision, without the text being written: no
//! string is escaped, no number formatted.

use serde::Serialize;
use serde::ser::{self, Serializer};

use super::FastHash;

/// The hash of `value`'s serializer calls (see the module's doc).
pub(super) fn written_hash<T: Serialize + ?Sized>(value: &T) -> u64 {
    let mut h = FastHash::default();
    // A value that does not serialize gets the hash of the calls it made
    // before it failed and of the failure, which no value that serializes
    // makes.
    if value.serialize(Calls(&mut h)).is_err() {
        h.word(Tag::Failed as u64);
    }
    h.0
}

/// What each serializer call is, written before its content.
#[derive(Clone, Copy)]
enum Tag {
    Bool = 1,
    I64,
    I128,
    U64,
    U128,
    F32,
    F64,
    Char,
    Str,
    Bytes,
    None,
    Some,
    Unit,
    UnitStruct,
    UnitVariant,
    NewtypeStruct,
    NewtypeVariant,
    Seq,
    Tuple,
    TupleStruct,
    TupleVariant,
    Map,
    Struct,
    StructVariant,
    Key,
    Field,
    End,
    Failed,
}

impl FastHash {
    /// Mixes one word in.
    pub(super) fn word(&mut self, w: u64) {
        self.0 = (self.0 ^ w)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(29);
    }

    /// A tag and a length in one word, then the bytes.
    fn text(&mut self, tag: Tag, bytes: &[u8]) {
        self.word(((tag as u64) << 56) ^ bytes.len() as u64);
        std::hash::Hasher::write(self, bytes);
    }

    /// A tag and an optional length in one word.
    fn open(&mut self, tag: Tag, len: Option<usize>) {
        let len = len.map_or(u64::MAX >> 8, |n| n as u64);
        self.word(((tag as u64) << 56) ^ len);
    }
}

/// The serializer that hashes the calls made on it.
struct Calls<'h>(&'h mut FastHash);

type Done = Result<(), serde_json::Error>;

impl<'h> Serializer for Calls<'h> {
    type Ok = ();
    type Error = serde_json::Error;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    fn serialize_bool(self, v: bool) -> Done {
        self.0.word(((Tag::Bool as u64) << 56) ^ u64::from(v));
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Done {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i16(self, v: i16) -> Done {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i32(self, v: i32) -> Done {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i64(self, v: i64) -> Done {
        self.0.open(Tag::I64, None);
        self.0.word(v as u64);
        Ok(())
    }
    fn serialize_i128(self, v: i128) -> Done {
        self.0.text(Tag::I128, &v.to_le_bytes());
        Ok(())
    }
    fn serialize_u8(self, v: u8) -> Done {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u16(self, v: u16) -> Done {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u32(self, v: u32) -> Done {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u64(self, v: u64) -> Done {
        self.0.open(Tag::U64, None);
        self.0.word(v);
        Ok(())
    }
    fn serialize_u128(self, v: u128) -> Done {
        self.0.text(Tag::U128, &v.to_le_bytes());
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> Done {
        self.0.open(Tag::F32, None);
        self.0.word(u64::from(v.to_bits()));
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> Done {
        self.0.open(Tag::F64, None);
        self.0.word(v.to_bits());
        Ok(())
    }
    fn serialize_char(self, v: char) -> Done {
        self.0.open(Tag::Char, None);
        self.0.word(u64::from(v));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Done {
        self.0.text(Tag::Str, v.as_bytes());
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Done {
        self.0.text(Tag::Bytes, v);
        Ok(())
    }
    fn serialize_none(self) -> Done {
        self.0.open(Tag::None, None);
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Done {
        self.0.open(Tag::Some, None);
        value.serialize(self)
    }
    fn serialize_unit(self) -> Done {
        self.0.open(Tag::Unit, None);
        Ok(())
    }
    fn serialize_unit_struct(self, name: &'static str) -> Done {
        self.0.text(Tag::UnitStruct, name.as_bytes());
        Ok(())
    }
    fn serialize_unit_variant(self, name: &'static str, _: u32, variant: &'static str) -> Done {
        self.0.text(Tag::UnitVariant, name.as_bytes());
        self.0.text(Tag::Str, variant.as_bytes());
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Done {
        self.0.text(Tag::NewtypeStruct, name.as_bytes());
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Done {
        self.0.text(Tag::NewtypeVariant, name.as_bytes());
        self.0.text(Tag::Str, variant.as_bytes());
        value.serialize(self)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Self, serde_json::Error> {
        self.0.open(Tag::Seq, len);
        Ok(self)
    }
    fn serialize_tuple(self, len: usize) -> Result<Self, serde_json::Error> {
        self.0.open(Tag::Tuple, Some(len));
        Ok(self)
    }
    fn serialize_tuple_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self, serde_json::Error> {
        self.0.text(Tag::TupleStruct, name.as_bytes());
        self.0.open(Tag::Tuple, Some(len));
        Ok(self)
    }
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self, serde_json::Error> {
        self.0.text(Tag::TupleVariant, name.as_bytes());
        self.0.text(Tag::Str, variant.as_bytes());
        self.0.open(Tag::Tuple, Some(len));
        Ok(self)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Self, serde_json::Error> {
        self.0.open(Tag::Map, len);
        Ok(self)
    }
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Self, serde_json::Error> {
        self.0.text(Tag::Struct, name.as_bytes());
        self.0.open(Tag::Struct, Some(len));
        Ok(self)
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self, serde_json::Error> {
        self.0.text(Tag::StructVariant, name.as_bytes());
        self.0.text(Tag::Str, variant.as_bytes());
        self.0.open(Tag::Struct, Some(len));
        Ok(self)
    }
}

impl Calls<'_> {
    /// One element of a compound value.
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
        value.serialize(Calls(&mut *self.0))
    }

    /// The end of a compound value.
    fn close(self) -> Done {
        self.0.open(Tag::End, None);
        Ok(())
    }

    /// A named field and its value.
    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Done {
        self.0.text(Tag::Field, key.as_bytes());
        self.element(value)
    }
}

impl ser::SerializeSeq for Calls<'_> {
    type Ok = ();
    type Error = serde_json::Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
        self.element(value)
    }
    fn end(self) -> Done {
        self.close()
    }
}

impl ser::SerializeTuple for Calls<'_> {
    type Ok = ();
    type Error = serde_json::Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
        self.element(value)
    }
    fn end(self) -> Done {
        self.close()
    }
}

impl ser::SerializeTupleStruct for Calls<'_> {
    type Ok = ();
    type Error = serde_json::Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
        self.element(value)
    }
    fn end(self) -> Done {
        self.close()
    }
}

impl ser::SerializeTupleVariant for Calls<'_> {
    type Ok = ();
    type Error = serde_json::Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
        self.element(value)
    }
    fn end(self) -> Done {
        self.close()
    }
}

impl ser::SerializeMap for Calls<'_> {
    type Ok = ();
    type Error = serde_json::Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Done {
        self.0.open(Tag::Key, None);
        self.element(key)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
        self.element(value)
    }
    fn end(self) -> Done {
        self.close()
    }
}

impl ser::SerializeStruct for Calls<'_> {
    type Ok = ();
    type Error = serde_json::Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Done {
        self.field(key, value)
    }
    fn end(self) -> Done {
        self.close()
    }
}

impl ser::SerializeStructVariant for Calls<'_> {
    type Ok = ();
    type Error = serde_json::Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Done {
        self.field(key, value)
    }
    fn end(self) -> Done {
        self.close()
    }
}
