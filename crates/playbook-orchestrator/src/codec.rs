//! The byte form of a parked task: a compact, self-describing encoding
//! that gives back exactly what was written — a `serde_json::Value`'s
//! numbers keep their kind (unsigned, negative, float by its bits) and maps
//! their order — at the cost of a copy of each text, without the escaping
//! and number formatting a JSON text would need.
//!
//! A block read back from a store may be damaged; reading it then fails
//! with [`Damaged`], never panics.

use serde_json::{Map, Number, Value};

/// A block did not decode: its store gave back other bytes than it took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Damaged;

type Read<T> = Result<T, Damaged>;

const NULL: u8 = 0;
const FALSE: u8 = 1;
const TRUE: u8 = 2;
const UNSIGNED: u8 = 3;
const NEGATIVE: u8 = 4;
const FLOAT: u8 = 5;
const STRING: u8 = 6;
const ARRAY: u8 = 7;
const OBJECT: u8 = 8;

pub(crate) struct Writer<'a>(pub(crate) &'a mut Vec<u8>);

impl Writer<'_> {
    /// LEB128: counters and lengths are mostly under 128, one byte.
    pub(crate) fn uint(&mut self, mut n: u64) {
        while n >= 0x80 {
            self.0.push((n as u8) | 0x80);
            n >>= 7;
        }
        self.0.push(n as u8);
    }

    pub(crate) fn byte(&mut self, b: u8) {
        self.0.push(b);
    }

    pub(crate) fn str(&mut self, s: &str) {
        self.uint(s.len() as u64);
        self.0.extend_from_slice(s.as_bytes());
    }

    pub(crate) fn opt_str(&mut self, s: Option<&str>) {
        match s {
            None => self.byte(0),
            Some(s) => {
                self.byte(1);
                self.str(s);
            }
        }
    }

    pub(crate) fn strs<'s>(&mut self, items: impl ExactSizeIterator<Item = &'s String>) {
        self.uint(items.len() as u64);
        for s in items {
            self.str(s);
        }
    }

    pub(crate) fn map<'m>(&mut self, map: impl ExactSizeIterator<Item = (&'m String, &'m Value)>) {
        self.uint(map.len() as u64);
        for (k, v) in map {
            self.str(k);
            self.value(v);
        }
    }

    pub(crate) fn value(&mut self, value: &Value) {
        match value {
            Value::Null => self.byte(NULL),
            Value::Bool(false) => self.byte(FALSE),
            Value::Bool(true) => self.byte(TRUE),
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    self.byte(UNSIGNED);
                    self.uint(u);
                } else if let Some(i) = n.as_i64() {
                    // Only negatives reach here: a non-negative i64 is a u64.
                    self.byte(NEGATIVE);
                    self.uint(!(i as u64));
                } else {
                    self.byte(FLOAT);
                    let f = n.as_f64().unwrap_or_default();
                    self.0.extend_from_slice(&f.to_bits().to_le_bytes());
                }
            }
            Value::String(s) => {
                self.byte(STRING);
                self.str(s);
            }
            Value::Array(items) => {
                self.byte(ARRAY);
                self.uint(items.len() as u64);
                for item in items {
                    self.value(item);
                }
            }
            Value::Object(map) => {
                self.byte(OBJECT);
                self.map(map.iter());
            }
        }
    }
}

/// A map a block's entries are read into, sized before it is filled.
pub(crate) trait Entries: Extend<(String, Value)> {
    fn with_len(n: usize) -> Self;
}

impl Entries for Map<String, Value> {
    fn with_len(n: usize) -> Self {
        Map::with_capacity(n)
    }
}

impl Entries for indexmap::IndexMap<String, Value> {
    fn with_len(n: usize) -> Self {
        indexmap::IndexMap::with_capacity(n)
    }
}

pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
}

/// Deepest nesting a block is read to: the engine writes values that came
/// through serde_json (itself limited to 128 levels), so a deeper block is
/// damaged, and the limit keeps a damaged one from exhausting the stack.
const MAX_DEPTH: u32 = 256;

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    pub(crate) fn byte(&mut self) -> Read<u8> {
        let (&b, rest) = self.bytes.split_first().ok_or(Damaged)?;
        self.bytes = rest;
        Ok(b)
    }

    pub(crate) fn uint(&mut self) -> Read<u64> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            n |= u64::from(b & 0x7f).checked_shl(shift).ok_or(Damaged)?;
            if b & 0x80 == 0 {
                return Ok(n);
            }
        }
        Err(Damaged)
    }

    /// A length that the rest of the block can hold (each item takes at
    /// least one byte), so a damaged length never reserves a huge buffer.
    pub(crate) fn len(&mut self) -> Read<usize> {
        let n = usize::try_from(self.uint()?).map_err(|_| Damaged)?;
        if n > self.bytes.len() {
            return Err(Damaged);
        }
        Ok(n)
    }

    pub(crate) fn u32(&mut self) -> Read<u32> {
        u32::try_from(self.uint()?).map_err(|_| Damaged)
    }

    pub(crate) fn bool(&mut self) -> Read<bool> {
        match self.byte()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(Damaged),
        }
    }

    pub(crate) fn str(&mut self) -> Read<String> {
        let n = self.len()?;
        let (text, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        std::str::from_utf8(text)
            .map(str::to_string)
            .map_err(|_| Damaged)
    }

    /// A text borrowed from the block, for a key compared and not kept.
    fn str_ref(&mut self) -> Read<&'a str> {
        let n = self.len()?;
        let (text, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        std::str::from_utf8(text).map_err(|_| Damaged)
    }

    /// Steps over a text without copying it.
    pub(crate) fn skip_str(&mut self) -> Read<()> {
        self.str_ref().map(|_| ())
    }

    /// Steps over a list of texts.
    pub(crate) fn skip_strs(&mut self) -> Read<()> {
        let n = self.len()?;
        (0..n).try_for_each(|_| self.skip_str())
    }

    /// Steps over a map without building it.
    pub(crate) fn skip_map(&mut self) -> Read<()> {
        self.skip_map_at(0)
    }

    fn skip_map_at(&mut self, depth: u32) -> Read<()> {
        let n = self.len()?;
        for _ in 0..n {
            self.skip_str()?;
            self.skip_value_at(depth)?;
        }
        Ok(())
    }

    fn skip_value_at(&mut self, depth: u32) -> Read<()> {
        if depth > MAX_DEPTH {
            return Err(Damaged);
        }
        match self.byte()? {
            NULL | FALSE | TRUE => {}
            UNSIGNED | NEGATIVE => {
                self.uint()?;
            }
            FLOAT => {
                let (_, rest) = self.bytes.split_first_chunk::<8>().ok_or(Damaged)?;
                self.bytes = rest;
            }
            STRING => self.skip_str()?,
            ARRAY => {
                let n = self.len()?;
                for _ in 0..n {
                    self.skip_value_at(depth + 1)?;
                }
            }
            OBJECT => self.skip_map_at(depth + 1)?,
            _ => return Err(Damaged),
        }
        Ok(())
    }

    /// The entries of a map whose keys `wanted` accepts, in their order;
    /// the others are stepped over without being built.
    pub(crate) fn map_only(&mut self, wanted: impl Fn(&str) -> bool) -> Read<Map<String, Value>> {
        let n = self.len()?;
        let mut map = Map::new();
        for _ in 0..n {
            let key = self.str_ref()?;
            if wanted(key) {
                let value = self.value_at(0)?;
                map.insert(key.to_string(), value);
            } else {
                self.skip_value_at(0)?;
            }
        }
        Ok(map)
    }

    pub(crate) fn opt_str(&mut self) -> Read<Option<String>> {
        Ok(if self.bool()? {
            Some(self.str()?)
        } else {
            None
        })
    }

    pub(crate) fn strs(&mut self) -> Read<Vec<String>> {
        let n = self.len()?;
        (0..n).map(|_| self.str()).collect()
    }

    pub(crate) fn map<M: Entries>(&mut self) -> Read<M> {
        self.map_at(0)
    }

    fn map_at<M: Entries>(&mut self, depth: u32) -> Read<M> {
        let n = self.len()?;
        // Sized once: growing a map of a task's ten or so values rehashes
        // it twice or three times. `n` is at most the bytes left, so a
        // damaged length cannot ask for more than the block could hold.
        let mut map = M::with_len(n);
        for _ in 0..n {
            let k = self.str()?;
            let v = self.value_at(depth)?;
            map.extend(std::iter::once((k, v)));
        }
        Ok(map)
    }

    #[cfg(test)]
    pub(crate) fn value(&mut self) -> Read<Value> {
        self.value_at(0)
    }

    fn value_at(&mut self, depth: u32) -> Read<Value> {
        if depth > MAX_DEPTH {
            return Err(Damaged);
        }
        Ok(match self.byte()? {
            NULL => Value::Null,
            FALSE => Value::Bool(false),
            TRUE => Value::Bool(true),
            UNSIGNED => Value::Number(Number::from(self.uint()?)),
            NEGATIVE => {
                let i = !self.uint()? as i64;
                if i >= 0 {
                    return Err(Damaged);
                }
                Value::Number(Number::from(i))
            }
            FLOAT => {
                let (bits, rest) = self.bytes.split_first_chunk::<8>().ok_or(Damaged)?;
                self.bytes = rest;
                let f = f64::from_le_bytes(*bits);
                Value::Number(Number::from_f64(f).ok_or(Damaged)?)
            }
            STRING => Value::String(self.str()?),
            ARRAY => {
                let n = self.len()?;
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    items.push(self.value_at(depth + 1)?);
                }
                Value::Array(items)
            }
            OBJECT => Value::Object(self.map_at::<Map<String, Value>>(depth + 1)?),
            _ => return Err(Damaged),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn round_trip(value: &Value) -> Value {
        let mut bytes = Vec::new();
        Writer(&mut bytes).value(value);
        let mut reader = Reader::new(&bytes);
        let back = reader.value().expect("decodes");
        assert!(reader.is_empty());
        back
    }

    #[test]
    fn a_value_comes_back_exactly_numbers_and_order_included() {
        let value = json!({
            "z": 1, "a": [0, u64::MAX, -1, i64::MIN, 0.1, 1e300, -0.0, 2.5e-308],
            "text": "ünïcode \"quoted\"\n", "nested": {"b": null, "a": [true, false, {}]},
        });
        let back = round_trip(&value);
        assert_eq!(back, value);
        // Equality of numbers is by kind and value: also compare the text
        // and the float bits serde_json would print.
        assert_eq!(back.to_string(), value.to_string());
        let keys: Vec<&String> = back.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["z", "a", "text", "nested"]);
        assert!(back["a"][0].is_u64() && back["a"][2].is_i64() && back["a"][4].is_f64());
        assert_eq!(
            back["a"][6].as_f64().unwrap().to_bits(),
            (-0.0f64).to_bits()
        );
    }

    #[test]
    fn a_map_read_in_part_gives_the_named_entries_and_the_reader_ends_where_a_whole_read_does() {
        let value = json!({
            "a": [1, -2, 3.5, {"deep": [null, true, false, "x"]}],
            "keep": {"k": "v", "n": [1, 2]},
            "b": "text",
            "also": -7,
            "c": {"nested": {"more": [1.25]}}
        });
        let map = value.as_object().unwrap();
        let mut block = Vec::new();
        let mut w = Writer(&mut block);
        w.map(map.iter());
        w.str("after");
        let mut r = Reader::new(&block);
        let part = r
            .map_only(|k| k == "keep" || k == "also" || k == "missing")
            .expect("reads");
        assert_eq!(
            Value::Object(part),
            json!({"keep": {"k": "v", "n": [1, 2]}, "also": -7})
        );
        assert_eq!(r.str().expect("the rest"), "after");
        assert!(r.is_empty());

        let mut r = Reader::new(&block);
        r.skip_map().expect("skips");
        assert_eq!(r.str().expect("the rest"), "after");
        // Every cut of the block fails to read in part, and never panics.
        for cut in 0..block.len() - 6 {
            let mut r = Reader::new(&block[..cut]);
            assert!(r.map_only(|_| false).is_err() || r.str().is_err());
        }
    }

    #[test]
    fn a_damaged_block_fails_to_read_and_never_panics() {
        let mut bytes = Vec::new();
        Writer(&mut bytes).value(&json!({"key": ["a", 1, -2, 0.5, {"x": null}]}));
        for cut in 0..bytes.len() {
            assert_eq!(Reader::new(&bytes[..cut]).value(), Err(Damaged), "{cut}");
        }
        for i in 0..bytes.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut damaged = bytes.clone();
                damaged[i] ^= flip;
                let _ = Reader::new(&damaged).value();
            }
        }
        let deep = [ARRAY, 1].repeat(10_000);
        assert_eq!(Reader::new(&deep).value(), Err(Damaged));
        assert_eq!(
            Reader::new(&[STRING, 0xff, 0xff, 0xff, 0xff, 0x0f]).value(),
            Err(Damaged)
        );
    }
}
