//! Sizes of agent answers, measured the same way whatever form they take.
//!
//! An agent may answer with raw text, a structured value, a result envelope
//! or a list of questions; the output limit (`limits.max_output_bytes`)
//! applies to each, measured as the bytes of its compact JSON text.
//! Measuring stops as soon as the limit is passed, so a huge value costs no
//! more than the limit to reject.
//!
//! The length is counted, not written: a serde serializer that adds up
//! what `serde_json` would write (digits, quotes, escapes, punctuation)
//! without formatting or copying anything. Every answer of every step is
//! measured, twice with its result envelope, so this is on the engine's
//! hottest path; `tests` hold it to `serde_json`'s own output.

mod count;

/// The size of `value` as compact JSON, or `Err(seen)` as soon as it passes
/// `limit` bytes (`seen` is then a lower bound of the real size). A value
/// `serde_json` could not write either (a map with non-text keys) is an
/// `Err` too, as it was when this wrote through `serde_json`.
pub fn json_len_within<T: serde::Serialize + ?Sized>(value: &T, limit: u64) -> Result<u64, u64> {
    let mut counter = count::Counter::new(limit);
    match value.serialize(&mut counter) {
        Ok(()) => Ok(counter.seen()),
        Err(_) => Err(counter.seen()),
    }
}

#[cfg(test)]
mod tests;
