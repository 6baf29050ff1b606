//! A serde serializer that adds up the bytes `serde_json` would write for
//! a value in compact form, and stops as soon as they pass a limit.

use std::fmt::{self, Display};

use serde::Serialize;
use serde::ser::{self, Impossible};

/// Counts bytes of compact JSON up to a limit.
pub(super) struct Counter {
    seen: u64,
    limit: u64,
}

/// Why counting stopped: past the limit, or a value `serde_json` refuses
/// (a map key that is not text, a custom serialisation error).
#[derive(Debug)]
pub(super) struct Stop;

impl Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("over the limit or not writable as JSON")
    }
}

impl std::error::Error for Stop {}

impl ser::Error for Stop {
    fn custom<T: Display>(_: T) -> Self {
        Stop
    }
}

impl Counter {
    pub(super) fn new(limit: u64) -> Counter {
        Counter { seen: 0, limit }
    }

    pub(super) fn seen(&self) -> u64 {
        self.seen
    }

    fn add(&mut self, bytes: u64) -> Result<(), Stop> {
        self.seen = self.seen.saturating_add(bytes);
        if self.seen > self.limit {
            Err(Stop)
        } else {
            Ok(())
        }
    }

    /// A quoted, escaped string. Escapes only lengthen a string, so one
    /// that is too long unescaped is refused without reading it.
    fn string(&mut self, text: &str) -> Result<(), Stop> {
        let quoted = (text.len() as u64).saturating_add(2);
        if self.seen.saturating_add(quoted) > self.limit {
            return self.add(quoted);
        }
        self.add(quoted + escapes(text))
    }

    /// A value whose text `serde_json` makes with a number formatter of its
    /// own (floats): written once, rare in agent answers.
    fn written<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        let text = serde_json::to_string(value).map_err(|_| Stop)?;
        self.add(text.len() as u64)
    }
}

/// Bytes the escapes of `text` add: `\"`, `\\`, `\b`, `\f`, `\n`, `\r` and
/// `\t` one each, other control characters five (`\u00XX`).
pub(super) fn escapes(text: &str) -> u64 {
    text.as_bytes()
        .iter()
        .map(|&b| u64::from(EXTRA[usize::from(b)]))
        .sum()
}

const EXTRA: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut i = 0;
    while i < 0x20 {
        table[i] = 5;
        i += 1;
    }
    table[0x08] = 1;
    table[0x09] = 1;
    table[0x0A] = 1;
    table[0x0C] = 1;
    table[0x0D] = 1;
    table[b'"' as usize] = 1;
    table[b'\\' as usize] = 1;
    table
};

fn digits(v: u128) -> u64 {
    u64::from(v.checked_ilog10().unwrap_or(0)) + 1
}

fn signed(v: i128) -> u64 {
    digits(v.unsigned_abs()) + u64::from(v < 0)
}

/// `serde_json`'s private names for values it writes raw (arbitrary
/// precision numbers, raw values), should a dependency enable them.
const RAW_PREFIX: &str = "$serde_json::private::";

/// The state of an array, object or variant being counted.
pub(super) struct Compound<'a> {
    counter: &'a mut Counter,
    first: bool,
    /// Closing bytes after the elements: `]`, `}`, or `]}` / `}}` for a
    /// variant's wrapper.
    close: u64,
    /// A raw value: its one field is written as is, unquoted.
    raw: bool,
}

impl Compound<'_> {
    fn comma(&mut self) -> Result<(), Stop> {
        if self.first {
            self.first = false;
            Ok(())
        } else {
            self.counter.add(1)
        }
    }
}

impl<'a> ser::Serializer for &'a mut Counter {
    type Ok = ();
    type Error = Stop;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    fn serialize_bool(self, v: bool) -> Result<(), Stop> {
        self.add(if v { 4 } else { 5 })
    }
    fn serialize_i8(self, v: i8) -> Result<(), Stop> {
        self.add(signed(v.into()))
    }
    fn serialize_i16(self, v: i16) -> Result<(), Stop> {
        self.add(signed(v.into()))
    }
    fn serialize_i32(self, v: i32) -> Result<(), Stop> {
        self.add(signed(v.into()))
    }
    fn serialize_i64(self, v: i64) -> Result<(), Stop> {
        self.add(signed(v.into()))
    }
    fn serialize_i128(self, v: i128) -> Result<(), Stop> {
        self.add(signed(v))
    }
    fn serialize_u8(self, v: u8) -> Result<(), Stop> {
        self.add(digits(v.into()))
    }
    fn serialize_u16(self, v: u16) -> Result<(), Stop> {
        self.add(digits(v.into()))
    }
    fn serialize_u32(self, v: u32) -> Result<(), Stop> {
        self.add(digits(v.into()))
    }
    fn serialize_u64(self, v: u64) -> Result<(), Stop> {
        self.add(digits(v.into()))
    }
    fn serialize_u128(self, v: u128) -> Result<(), Stop> {
        self.add(digits(v))
    }
    fn serialize_f32(self, v: f32) -> Result<(), Stop> {
        self.written(&v)
    }
    fn serialize_f64(self, v: f64) -> Result<(), Stop> {
        self.written(&v)
    }
    fn serialize_char(self, v: char) -> Result<(), Stop> {
        self.string(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<(), Stop> {
        self.string(v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Stop> {
        // An array of numbers: brackets, commas, digits.
        let commas = (v.len() as u64).saturating_sub(1);
        let numbers: u64 = v.iter().map(|&b| digits(b.into())).sum();
        self.add(2 + commas + numbers)
    }
    fn serialize_none(self) -> Result<(), Stop> {
        self.add(4)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Stop> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Stop> {
        self.add(4)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Stop> {
        self.add(4)
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Stop> {
        self.string(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        // {"variant":value}
        self.add(1)?;
        self.string(variant)?;
        self.add(1)?;
        value.serialize(&mut *self)?;
        self.add(1)
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'a>, Stop> {
        self.add(1)?;
        Ok(Compound {
            counter: self,
            first: true,
            close: 1,
            raw: false,
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Compound<'a>, Stop> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Compound<'a>, Stop> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Stop> {
        // {"variant":[...]}
        self.add(1)?;
        self.string(variant)?;
        self.add(2)?;
        Ok(Compound {
            counter: self,
            first: true,
            close: 2,
            raw: false,
        })
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'a>, Stop> {
        self.add(1)?;
        Ok(Compound {
            counter: self,
            first: true,
            close: 1,
            raw: false,
        })
    }
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Compound<'a>, Stop> {
        if name.starts_with(RAW_PREFIX) {
            return Ok(Compound {
                counter: self,
                first: true,
                close: 0,
                raw: true,
            });
        }
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Stop> {
        // {"variant":{...}}
        self.add(1)?;
        self.string(variant)?;
        self.add(2)?;
        Ok(Compound {
            counter: self,
            first: true,
            close: 2,
            raw: false,
        })
    }
}

impl ser::SerializeSeq for Compound<'_> {
    type Ok = ();
    type Error = Stop;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        self.comma()?;
        value.serialize(&mut *self.counter)
    }
    fn end(self) -> Result<(), Stop> {
        self.counter.add(self.close)
    }
}

impl ser::SerializeTuple for Compound<'_> {
    type Ok = ();
    type Error = Stop;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<(), Stop> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleStruct for Compound<'_> {
    type Ok = ();
    type Error = Stop;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<(), Stop> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleVariant for Compound<'_> {
    type Ok = ();
    type Error = Stop;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<(), Stop> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Stop;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Stop> {
        self.comma()?;
        key.serialize(Key(&mut *self.counter))
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        self.counter.add(1)?;
        value.serialize(&mut *self.counter)
    }
    fn end(self) -> Result<(), Stop> {
        self.counter.add(self.close)
    }
}

impl ser::SerializeStruct for Compound<'_> {
    type Ok = ();
    type Error = Stop;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        if self.raw {
            // The field holds the raw text as a string; it is written
            // without its quotes.
            let text = serde_json::to_string(value).map_err(|_| Stop)?;
            let raw: String = serde_json::from_str(&text).map_err(|_| Stop)?;
            return self.counter.add(raw.len() as u64);
        }
        self.comma()?;
        self.counter.string(key)?;
        self.counter.add(1)?;
        value.serialize(&mut *self.counter)
    }
    fn end(self) -> Result<(), Stop> {
        self.counter.add(self.close)
    }
}

impl ser::SerializeStructVariant for Compound<'_> {
    type Ok = ();
    type Error = Stop;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        ser::SerializeStruct::serialize_field(self, key, value)
    }
    fn end(self) -> Result<(), Stop> {
        self.counter.add(self.close)
    }
}

/// A map key as `serde_json` writes one: always a quoted string; numbers
/// and booleans quoted, anything else refused.
struct Key<'a>(&'a mut Counter);

impl Key<'_> {
    fn quoted(self, bytes: u64) -> Result<(), Stop> {
        self.0.add(bytes + 2)
    }
}

impl ser::Serializer for Key<'_> {
    type Ok = ();
    type Error = Stop;
    type SerializeSeq = Impossible<(), Stop>;
    type SerializeTuple = Impossible<(), Stop>;
    type SerializeTupleStruct = Impossible<(), Stop>;
    type SerializeTupleVariant = Impossible<(), Stop>;
    type SerializeMap = Impossible<(), Stop>;
    type SerializeStruct = Impossible<(), Stop>;
    type SerializeStructVariant = Impossible<(), Stop>;

    fn serialize_str(self, v: &str) -> Result<(), Stop> {
        self.0.string(v)
    }
    fn serialize_char(self, v: char) -> Result<(), Stop> {
        self.0.string(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Stop> {
        self.0.string(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        value.serialize(self)
    }
    fn serialize_bool(self, v: bool) -> Result<(), Stop> {
        self.quoted(if v { 4 } else { 5 })
    }
    fn serialize_i8(self, v: i8) -> Result<(), Stop> {
        self.quoted(signed(v.into()))
    }
    fn serialize_i16(self, v: i16) -> Result<(), Stop> {
        self.quoted(signed(v.into()))
    }
    fn serialize_i32(self, v: i32) -> Result<(), Stop> {
        self.quoted(signed(v.into()))
    }
    fn serialize_i64(self, v: i64) -> Result<(), Stop> {
        self.quoted(signed(v.into()))
    }
    fn serialize_i128(self, v: i128) -> Result<(), Stop> {
        self.quoted(signed(v))
    }
    fn serialize_u8(self, v: u8) -> Result<(), Stop> {
        self.quoted(digits(v.into()))
    }
    fn serialize_u16(self, v: u16) -> Result<(), Stop> {
        self.quoted(digits(v.into()))
    }
    fn serialize_u32(self, v: u32) -> Result<(), Stop> {
        self.quoted(digits(v.into()))
    }
    fn serialize_u64(self, v: u64) -> Result<(), Stop> {
        self.quoted(digits(v.into()))
    }
    fn serialize_u128(self, v: u128) -> Result<(), Stop> {
        self.quoted(digits(v))
    }
    fn serialize_f32(self, v: f32) -> Result<(), Stop> {
        if !v.is_finite() {
            return Err(Stop);
        }
        let text = serde_json::to_string(&v).map_err(|_| Stop)?;
        self.quoted(text.len() as u64)
    }
    fn serialize_f64(self, v: f64) -> Result<(), Stop> {
        if !v.is_finite() {
            return Err(Stop);
        }
        let text = serde_json::to_string(&v).map_err(|_| Stop)?;
        self.quoted(text.len() as u64)
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result<(), Stop> {
        Err(Stop)
    }
    fn serialize_none(self) -> Result<(), Stop> {
        Err(Stop)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result<(), Stop> {
        Err(Stop)
    }
    fn serialize_unit(self) -> Result<(), Stop> {
        Err(Stop)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Stop> {
        Err(Stop)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<(), Stop> {
        Err(Stop)
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, Stop> {
        Err(Stop)
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, Stop> {
        Err(Stop)
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, Stop> {
        Err(Stop)
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Stop> {
        Err(Stop)
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, Stop> {
        Err(Stop)
    }
    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, Stop> {
        Err(Stop)
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Stop> {
        Err(Stop)
    }
}
