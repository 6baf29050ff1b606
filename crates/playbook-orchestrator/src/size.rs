//! Sizes of agent answers, measured the same way whatever form they take.
//!
//! An agent may answer with raw text, a structured value, a result envelope
//! or a list of questions; the output limit (`limits.max_output_bytes`)
//! applies to each, measured as the bytes of its JSON text. Measuring stops
//! as soon as the limit is passed, so a huge value costs no more than the
//! limit to reject.

use std::io::{self, Write};

/// The size of `value` as compact JSON, or `Err(seen)` as soon as it passes
/// `limit` bytes (`seen` is then a lower bound of the real size).
pub fn json_len_within<T: serde::Serialize + ?Sized>(value: &T, limit: u64) -> Result<u64, u64> {
    let mut counter = Counter { seen: 0, limit };
    match serde_json::to_writer(&mut counter, value) {
        Ok(()) => Ok(counter.seen),
        Err(_) => Err(counter.seen),
    }
}

struct Counter {
    seen: u64,
    limit: u64,
}

impl Write for Counter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.seen = self.seen.saturating_add(buf.len() as u64);
        if self.seen > self.limit {
            return Err(io::Error::other("over the limit"));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn measures_compact_json_and_stops_past_the_limit() {
        let value = json!({"a": [1, 2, 3], "b": "text"});
        let exact = serde_json::to_string(&value).unwrap().len() as u64;
        assert_eq!(json_len_within(&value, exact), Ok(exact));
        assert!(json_len_within(&value, exact - 1).is_err());
        let huge = Value::String("x".repeat(10_000));
        assert!(json_len_within(&huge, 100).unwrap_err() > 100);
    }
}
