//! How alike two roles are, ignoring their names: the evidence of last
//! resort when [`super::matching`] decides which role is which.
//!
//! The matcher compares every removed role with every added one (up to
//! [`super::matching`]'s cap on candidate pairs), so the cost of one
//! comparison is multiplied by tens of thousands. Each role is therefore
//! read once into a [`Profile`], and comparing two profiles costs a bounded
//! amount of work whatever the size of the roles:
//!
//! - prose of at most [`EXACT_PROSE_CHARS`] characters (the length of
//!   every responsibility and prompt in the repository's playbooks) is
//!   compared by normalised Levenshtein distance, as it always was, so
//!   rename decisions on ordinary playbooks do not change;
//! - longer prose, and every list, is compared through a [`Sketch`]: the
//!   [`SKETCH_ENTRIES`] smallest hashes of its words (or entries), a
//!   bottom-k sample of the whole text rather than of its beginning, so an
//!   edit at the end of a long text still counts;
//! - structured values (outputs contract, gates, retry policy) are compared
//!   by a hash of their canonical form.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::Value;

use crate::model::{Role, RoleMode};

/// Longest prose, in characters, compared by edit distance. Levenshtein
/// is quadratic in the lengths, so past this a comparison would cost more
/// than the rest of the diff.
pub(super) const EXACT_PROSE_CHARS: usize = 128;

/// Hashes kept per sketch: the bound on the work of comparing two long
/// texts or lists. Lists and texts with at most this many distinct entries
/// are compared exactly.
pub(super) const SKETCH_ENTRIES: usize = 256;

/// A role read once for comparisons.
pub(super) struct Profile {
    mode: Option<RoleMode>,
    responsibilities: Option<Prose>,
    suggested_prompt: Option<Prose>,
    allowed_agents: Option<Sketch>,
    inputs_required: Option<Sketch>,
    actions_allowed: Option<Sketch>,
    completion_criteria: Option<Sketch>,
    outputs_contract: Option<u64>,
    gates: Option<u64>,
    retry_policy: Option<u64>,
}

impl Profile {
    pub(super) fn new(role: &Role) -> Self {
        let prose = |text: &Option<String>| text.as_deref().map(Prose::new);
        let list = |items: &Option<Vec<String>>| {
            items
                .as_ref()
                .map(|items| Sketch::new(items.iter().map(String::as_str)))
        };
        let value = |v: Option<Value>| v.filter(|v| !v.is_null()).map(|v| canonical_hash(&v));
        Profile {
            mode: role.mode,
            responsibilities: prose(&role.responsibilities),
            suggested_prompt: prose(&role.suggested_prompt),
            allowed_agents: list(&role.allowed_agents),
            inputs_required: list(&role.inputs_required),
            actions_allowed: list(&role.actions_allowed),
            completion_criteria: list(&role.completion_criteria),
            outputs_contract: value(serde_json::to_value(&role.outputs_contract).ok()),
            gates: value(serde_json::to_value(&role.gates).ok()),
            retry_policy: value(serde_json::to_value(&role.retry_policy).ok()),
        }
    }
}

/// How alike two roles are, ignoring their names: the share of contract
/// fields with equal values, text fields counting by similarity and lists
/// by overlap; a field absent from both does not count.
pub(super) fn similarity(a: &Profile, b: &Profile) -> f64 {
    fn pair<T>(x: &Option<T>, y: &Option<T>, f: impl Fn(&T, &T) -> f64) -> Option<f64> {
        match (x, y) {
            (None, None) => None,
            (Some(x), Some(y)) => Some(f(x, y)),
            _ => Some(0.0),
        }
    }
    let equal = |x: &u64, y: &u64| if x == y { 1.0 } else { 0.0 };
    let lists = |x: &Sketch, y: &Sketch| {
        if x.total == 0 && y.total == 0 {
            1.0
        } else {
            x.jaccard(y)
        }
    };
    let scores = [
        pair(&a.responsibilities, &b.responsibilities, Prose::similarity),
        pair(&a.suggested_prompt, &b.suggested_prompt, Prose::similarity),
        pair(&a.allowed_agents, &b.allowed_agents, lists),
        pair(&a.mode, &b.mode, |x, y| if x == y { 1.0 } else { 0.0 }),
        pair(&a.inputs_required, &b.inputs_required, lists),
        pair(&a.outputs_contract, &b.outputs_contract, equal),
        pair(&a.actions_allowed, &b.actions_allowed, lists),
        pair(&a.gates, &b.gates, equal),
        pair(&a.retry_policy, &b.retry_policy, equal),
        pair(&a.completion_criteria, &b.completion_criteria, lists),
    ];
    let present: Vec<f64> = scores.into_iter().flatten().collect();
    if present.is_empty() {
        return 0.0;
    }
    let mut score = present.iter().sum::<f64>() / present.len() as f64;
    if a.mode != b.mode {
        // A worker renamed into a reviewer is a different role.
        score *= 0.5;
    }
    score
}

/// A text field read for comparison.
pub(super) enum Prose {
    /// Short enough to compare by edit distance.
    Short(String),
    Long(Sketch),
}

impl Prose {
    pub(super) fn new(text: &str) -> Self {
        if text.chars().nth(EXACT_PROSE_CHARS).is_none() {
            Prose::Short(text.to_string())
        } else {
            Prose::Long(Sketch::new(text.split_whitespace()))
        }
    }

    fn similarity(&self, other: &Prose) -> f64 {
        match (self, other) {
            (Prose::Short(a), Prose::Short(b)) => strsim::normalized_levenshtein(a, b),
            // A short text against a long one: mostly different, and the
            // sketch of the short one says by how much without a quadratic
            // comparison.
            (Prose::Short(short), Prose::Long(long)) | (Prose::Long(long), Prose::Short(short)) => {
                Sketch::new(short.split_whitespace()).dice(long)
            }
            (Prose::Long(a), Prose::Long(b)) => a.dice(b),
        }
    }
}

/// A bounded sample of a bag of words or entries: the [`SKETCH_ENTRIES`]
/// smallest distinct hashes, each with how often it occurs, sorted. Two
/// sketches are compared on the smallest hashes of their union, which
/// samples the whole of both bags evenly.
pub(super) struct Sketch {
    entries: Vec<(u64, u32)>,
    /// Hash of the whole bag, in order: equal bags are equal, whatever the
    /// sample says.
    whole: u64,
    /// How many entries the bag holds, repeats included.
    total: usize,
}

impl Sketch {
    pub(super) fn new<'a>(items: impl Iterator<Item = &'a str>) -> Self {
        let mut counts: HashMap<u64, u32> = HashMap::new();
        let mut whole = DefaultHasher::new();
        let mut total = 0;
        for item in items {
            item.hash(&mut whole);
            *counts.entry(hash(item)).or_default() += 1;
            total += 1;
        }
        let mut entries: Vec<(u64, u32)> = counts.into_iter().collect();
        if entries.len() > SKETCH_ENTRIES {
            entries.select_nth_unstable_by_key(SKETCH_ENTRIES, |e| e.0);
            entries.truncate(SKETCH_ENTRIES);
        }
        entries.sort_unstable_by_key(|e| e.0);
        Sketch {
            entries,
            whole: whole.finish(),
            total,
        }
    }

    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    /// (shared, union) over the smallest [`SKETCH_ENTRIES`] hashes of the
    /// union, counting each entry by `weigh(count here, count there)`.
    fn overlap(&self, other: &Sketch, weigh: impl Fn(u32, u32) -> (f64, f64)) -> (f64, f64) {
        let (a, b) = (&self.entries, &other.entries);
        let (mut i, mut j, mut seen) = (0, 0, 0);
        let (mut shared, mut union) = (0.0, 0.0);
        while seen < SKETCH_ENTRIES && (i < a.len() || j < b.len()) {
            let (x, y) = match (a.get(i), b.get(j)) {
                (Some(x), Some(y)) if x.0 == y.0 => {
                    i += 1;
                    j += 1;
                    (x.1, y.1)
                }
                (Some(x), Some(y)) if x.0 < y.0 => {
                    i += 1;
                    (x.1, 0)
                }
                (Some(x), None) => {
                    i += 1;
                    (x.1, 0)
                }
                (_, Some(y)) => {
                    j += 1;
                    (0, y.1)
                }
                (None, None) => break,
            };
            let (s, u) = weigh(x, y);
            shared += s;
            union += u;
            seen += 1;
        }
        (shared, union)
    }

    /// Share of distinct entries in both: the Jaccard index of the sets.
    fn jaccard(&self, other: &Sketch) -> f64 {
        if self.total == other.total && self.whole == other.whole {
            return 1.0;
        }
        let (shared, union) =
            self.overlap(other, |x, y| (if x > 0 && y > 0 { 1.0 } else { 0.0 }, 1.0));
        if union == 0.0 { 0.0 } else { shared / union }
    }

    /// Share of words in both, repeats counted: the Dice coefficient of
    /// the bags, so texts of very different lengths are unlike.
    fn dice(&self, other: &Sketch) -> f64 {
        if self.total == other.total && self.whole == other.whole {
            return 1.0;
        }
        let (shared, all) = self.overlap(other, |x, y| {
            (2.0 * f64::from(x.min(y)), f64::from(x) + f64::from(y))
        });
        if all == 0.0 { 0.0 } else { shared / all }
    }
}

fn hash(item: &str) -> u64 {
    let mut h = DefaultHasher::new();
    item.hash(&mut h);
    h.finish()
}

/// A hash of a JSON value that ignores the order of object keys, as
/// `Value`'s equality does.
fn canonical_hash(value: &Value) -> u64 {
    fn feed(value: &Value, h: &mut DefaultHasher) {
        match value {
            Value::Null => 0u8.hash(h),
            Value::Bool(b) => (1u8, b).hash(h),
            Value::Number(n) => (2u8, n.to_string()).hash(h),
            Value::String(s) => (3u8, s).hash(h),
            Value::Array(items) => {
                (4u8, items.len()).hash(h);
                for item in items {
                    feed(item, h);
                }
            }
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                (5u8, keys.len()).hash(h);
                for key in keys {
                    key.hash(h);
                    feed(&map[key], h);
                }
            }
        }
    }
    let mut h = DefaultHasher::new();
    feed(value, &mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_prose_is_sketched_with_a_bounded_number_of_entries() {
        // 200 000 distinct words: an edit distance over them would be 10^12
        // steps per pair; the sketch keeps a fixed number whatever the size.
        let text: String = (0..200_000).map(|i| format!("w{i} ")).collect();
        let Prose::Long(sketch) = Prose::new(&text) else {
            panic!("a long text is sketched, not compared by edit distance");
        };
        assert_eq!(sketch.len(), SKETCH_ENTRIES);
        let short = "x".repeat(EXACT_PROSE_CHARS);
        assert!(
            matches!(Prose::new(&short), Prose::Short(_)),
            "ordinary prose keeps the exact comparison"
        );
        assert!(matches!(Prose::new(&format!("{short}y")), Prose::Long(_)));
    }

    #[test]
    fn sketches_tell_alike_from_unlike_long_texts() {
        let words = |from: usize, n: usize| -> String {
            (from..from + n).map(|i| format!("word{i} ")).collect()
        };
        let base = words(0, 2000);
        let edited = format!("{} and a few more words at the end", words(0, 1990));
        let other = words(5000, 2000);
        let sim = |a: &str, b: &str| Prose::new(a).similarity(&Prose::new(b));
        assert_eq!(sim(&base, &base), 1.0);
        assert!(sim(&base, &edited) > 0.9, "{}", sim(&base, &edited));
        assert!(sim(&base, &other) < 0.1, "{}", sim(&base, &other));
        assert!(sim(&base, "Review the commit.") < 0.1);
    }

    #[test]
    fn lists_are_compared_exactly_while_they_fit_the_sketch() {
        let list = |items: &[&str]| Sketch::new(items.iter().copied());
        let (a, b) = (list(&["read", "write", "commit"]), list(&["read", "write"]));
        assert!((a.jaccard(&b) - 2.0 / 3.0).abs() < 1e-9);
        assert_eq!(a.jaccard(&list(&["commit", "write", "read"])), 1.0);
    }

    #[test]
    fn object_key_order_does_not_change_the_hash() {
        let a: Value = serde_json::from_str(r#"{"a": 1, "b": [true, "x"]}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"b": [true, "x"], "a": 1}"#).unwrap();
        assert_eq!(canonical_hash(&a), canonical_hash(&b));
        let c: Value = serde_json::from_str(r#"{"b": ["x", true], "a": 1}"#).unwrap();
        assert_ne!(canonical_hash(&a), canonical_hash(&c));
    }
}
