//! How the model reads a count (`max_iterations`, `max_parallel_worktrees`).
//!
//! JSON Schema counts `3.0` as an integer (its `integer` type is "a number
//! with a zero fractional part"), and agenterm's `yaml.v3` decoded `2.0`
//! into a Go `int`, so a count written as a whole float (`3.0`, `1e2`) is
//! the count it says. serde's `u32` refuses every float, which left such a
//! file schema-valid yet unreadable. Both readings of the model (the
//! derive, through [`option`], and `document/typed.rs`) use [`whole`], so
//! they agree. A fraction (`2.5`) stays refused: it is not a count, and
//! truncating it (as `yaml.v3` did) would read something not written.

use serde::de::{self, Deserializer, Visitor};
use serde_json::Value;

/// A count as the model reads it: a whole number from 0 to `u32::MAX`,
/// written as an integer or as a float with no fractional part.
pub fn whole(value: &Value) -> Option<u32> {
    let number = value.as_number()?;
    if let Some(n) = number.as_u64() {
        return u32::try_from(n).ok();
    }
    if number.is_i64() {
        return None;
    }
    number.as_f64().and_then(whole_f64)
}

fn whole_f64(n: f64) -> Option<u32> {
    // Every u32 is exact in an f64, so the round trip proves wholeness.
    (n.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&n)).then_some(n as u32)
}

/// `deserialize_with` for an optional count: absent or null is `None`.
pub fn option<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u32>, D::Error> {
    deserializer.deserialize_option(OptionalCount)
}

struct OptionalCount;

impl<'de> Visitor<'de> for OptionalCount {
    type Value = Option<u32>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a whole number from 0 to 4294967295")
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(Count).map(Some)
    }
}

struct Count;

impl Visitor<'_> for Count {
    type Value = u32;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a whole number from 0 to 4294967295")
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<u32, E> {
        u32::try_from(n).map_err(|_| E::invalid_value(de::Unexpected::Unsigned(n), &self))
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<u32, E> {
        u32::try_from(n).map_err(|_| E::invalid_value(de::Unexpected::Signed(n), &self))
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<u32, E> {
        whole_f64(n).ok_or_else(|| E::invalid_value(de::Unexpected::Float(n), &self))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn whole_floats_are_counts_and_fractions_are_not() {
        for (value, read) in [
            (json!(3), Some(3)),
            (json!(3.0), Some(3)),
            (json!(1e2), Some(100)),
            (json!(0.0), Some(0)),
            (json!(-0.0), Some(0)),
            (json!(4_294_967_295.0), Some(u32::MAX)),
            (json!(4_294_967_296.0), None),
            (json!(2.5), None),
            (json!(-1), None),
            (json!(-1.0), None),
            (json!(1e300), None),
            (json!("3"), None),
        ] {
            assert_eq!(whole(&value), read, "{value}");
            #[derive(serde::Deserialize)]
            struct Holder {
                #[serde(default, deserialize_with = "option")]
                n: Option<u32>,
            }
            let derived = serde_json::from_value::<Holder>(json!({ "n": value }));
            assert_eq!(derived.ok().map(|h| h.n), read.map(Some), "{value}");
        }
    }
}
