//! Statistics with 95 % confidence intervals: Wilson score intervals for
//! rates, Student's t for means. Both shrink as 1/√N.
//!
//! An interval must be honest for small samples too, since a behavioural
//! diff flags a change as significant when the intervals of its two sides
//! do not overlap. So: a mean of fewer than two values has no interval at
//! all; a mean uses Student's t, not the normal z, which is far too narrow
//! for a handful of values (12.7 instead of 1.96 for two); and a sample
//! whose values are all equal does not get the zero-width interval its
//! zero variance gives (see [`Summary`]). Wilson intervals are never
//! degenerate: 0 events in n give [0, 3.84 / (n + 3.84)], about the rule
//! of three.

use std::collections::BTreeMap;

use serde::Serialize;

/// z of a two-sided 95 % interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The Wilson score interval of `k` successes in `n` trials.
pub fn wilson(k: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let n = n as f64;
    let p = k as f64 / n;
    let z2 = Z95 * Z95;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / (1.0 + z2 / n);
    // At the edges the interval touches 0 or 1 exactly (rounding aside).
    let lo = if k == 0 {
        0.0
    } else {
        (centre - half).max(0.0)
    };
    let hi = if k as f64 >= n {
        1.0
    } else {
        (centre + half).min(1.0)
    };
    (lo, hi)
}

/// The two-sided 95 % quantile of Student's t with `df` degrees of
/// freedom: exact to 9 digits up to 30, the Cornish–Fisher expansion
/// around [`Z95`] above (within 1e-5 of the exact value from 31 on).
pub fn t95(df: u64) -> f64 {
    const TABLE: [f64; 30] = [
        12.706_204_736,
        4.302_652_730,
        3.182_446_305,
        2.776_445_105,
        2.570_581_836,
        2.446_911_851,
        2.364_624_252,
        2.306_004_135,
        2.262_157_163,
        2.228_138_852,
        2.200_985_160,
        2.178_812_830,
        2.160_368_656,
        2.144_786_688,
        2.131_449_546,
        2.119_905_299,
        2.109_815_578,
        2.100_922_040,
        2.093_024_054,
        2.085_963_447,
        2.079_613_845,
        2.073_873_068,
        2.068_657_610,
        2.063_898_562,
        2.059_538_553,
        2.055_529_439,
        2.051_830_516,
        2.048_407_142,
        2.045_229_642,
        2.042_272_456,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => TABLE[df as usize - 1],
        _ => {
            let (z, d) = (Z95, df as f64);
            let z3 = z * z * z;
            let z5 = z3 * z * z;
            let z7 = z5 * z * z;
            z + (z3 + z) / (4.0 * d)
                + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * d * d)
                + (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / (384.0 * d * d * d)
        }
    }
}

/// A rate with its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, ts_rs::TS)]
#[ts(export, export_to = "whatif/")]
pub struct Rate {
    #[ts(type = "number")]
    pub count: u64,
    #[ts(type = "number")]
    pub of: u64,
    pub rate: f64,
    /// 95 % Wilson interval.
    pub ci: [f64; 2],
}

impl Rate {
    pub fn new(count: u64, of: u64) -> Rate {
        let (lo, hi) = wilson(count, of);
        Rate {
            count,
            of,
            rate: if of == 0 {
                0.0
            } else {
                count as f64 / of as f64
            },
            ci: [lo, hi],
        }
    }
}

/// Summary of a distribution.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, ts_rs::TS)]
#[ts(export, export_to = "whatif/")]
pub struct Summary {
    #[ts(type = "number")]
    pub n: u64,
    pub mean: f64,
    /// 95 % interval of the mean, Student's t; `None` for fewer than two
    /// values. When every value is the same, v, the sample variance is 0
    /// and says nothing about values not seen: the interval is then
    /// v ± u·max(|v|, 1), u the Wilson upper bound of 0 departures in n
    /// (what share of values could differ unseen), as if that share
    /// departed by as much as the value itself. An interval of values that
    /// are never negative does not reach below 0.
    pub ci: Option<[f64; 2]>,
    pub p50: f64,
    pub p95: f64,
    pub max: f64,
}

/// What [`Summary::of_moments`] needs of a sample.
struct Moments {
    n: u64,
    mean: f64,
    /// Sample variance (n − 1 in the denominator); 0 for n < 2.
    var: f64,
    min: f64,
    max: f64,
}

impl Summary {
    fn of_moments(m: Moments, p50: f64, p95: f64) -> Summary {
        let Moments {
            n,
            mean,
            var,
            min,
            max,
        } = m;
        if n == 0 {
            return Summary {
                n,
                mean: 0.0,
                ci: None,
                p50: 0.0,
                p95: 0.0,
                max: 0.0,
            };
        }
        let ci = if n < 2 {
            None
        } else {
            // Equal values are told by their range, not by the variance,
            // which rounding can leave a hair above 0.
            let half = if min == max {
                wilson(0, n).1 * mean.abs().max(1.0)
            } else {
                t95(n - 1) * (var / n as f64).sqrt()
            };
            let lo = mean - half;
            Some([if min >= 0.0 { lo.max(0.0) } else { lo }, mean + half])
        };
        Summary {
            n,
            mean,
            ci,
            p50,
            p95,
            max,
        }
    }

    /// Summary of real values (any order).
    pub fn of_values(values: &[f64]) -> Summary {
        let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len() as u64;
        let q = |p: f64| -> f64 {
            if sorted.is_empty() {
                return 0.0;
            }
            sorted[rank(p, sorted.len() as u64) as usize - 1]
        };
        let mean = if n == 0 {
            0.0
        } else {
            sorted.iter().sum::<f64>() / n as f64
        };
        // Two passes: the sum of squares less n·mean² cancels badly.
        let var = if n < 2 {
            0.0
        } else {
            sorted.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1) as f64
        };
        Summary::of_moments(
            Moments {
                n,
                mean,
                var,
                min: sorted.first().copied().unwrap_or(0.0),
                max: sorted.last().copied().unwrap_or(0.0),
            },
            q(0.5),
            q(0.95),
        )
    }
}

/// Nearest rank (1-based) of quantile `p` among `n` sorted values.
fn rank(p: f64, n: u64) -> u64 {
    ((p * n as f64).ceil() as u64).clamp(1, n.max(1))
}

/// Counts of whole-number values (calls per task), mergeable in any
/// grouping with the same result.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Histogram {
    pub counts: BTreeMap<u32, u64>,
}

impl Histogram {
    pub fn add(&mut self, value: u32) {
        *self.counts.entry(value).or_default() += 1;
    }

    pub fn merge(&mut self, other: &Histogram) {
        for (v, c) in &other.counts {
            *self.counts.entry(*v).or_default() += c;
        }
    }

    pub fn n(&self) -> u64 {
        self.counts.values().sum()
    }

    pub fn max(&self) -> Option<u32> {
        self.counts.keys().next_back().copied()
    }

    /// The value at nearest rank of quantile `p`.
    pub fn quantile(&self, p: f64) -> u32 {
        let target = rank(p, self.n());
        let mut seen = 0;
        for (v, c) in &self.counts {
            seen += c;
            if seen >= target {
                return *v;
            }
        }
        0
    }

    pub fn summary(&self) -> Summary {
        let n = self.n();
        let sum = self
            .counts
            .iter()
            .fold(0.0, |s, (v, c)| s + f64::from(*v) * *c as f64);
        let mean = if n == 0 { 0.0 } else { sum / n as f64 };
        let squares = self.counts.iter().fold(0.0, |q, (v, c)| {
            let d = f64::from(*v) - mean;
            q + d * d * *c as f64
        });
        let var = if n < 2 { 0.0 } else { squares / (n - 1) as f64 };
        let min = self.counts.keys().next().copied().unwrap_or(0);
        Summary::of_moments(
            Moments {
                n,
                mean,
                var,
                min: f64::from(min),
                max: f64::from(self.max().unwrap_or(0)),
            },
            f64::from(self.quantile(0.5)),
            f64::from(self.quantile(0.95)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_a_hand_computed_interval() {
        // 10 of 100: the textbook Wilson interval is about [0.0552, 0.1744].
        let (lo, hi) = wilson(10, 100);
        assert!((lo - 0.0552).abs() < 1e-3, "{lo}");
        assert!((hi - 0.1744).abs() < 1e-3, "{hi}");
        assert_eq!(wilson(0, 0), (0.0, 1.0));
        let (lo, hi) = wilson(0, 50);
        assert_eq!(lo, 0.0);
        assert!(hi > 0.0 && hi < 0.1);
    }

    #[test]
    fn histogram_quantiles_use_nearest_rank() {
        let mut h = Histogram::default();
        for v in 1..=100 {
            h.add(v);
        }
        assert_eq!(h.quantile(0.5), 50);
        assert_eq!(h.quantile(0.95), 95);
        assert_eq!(h.max(), Some(100));
        let s = h.summary();
        assert!((s.mean - 50.5).abs() < 1e-9);
        let [lo, hi] = s.ci.unwrap();
        assert!(lo < 50.5 && hi > 50.5);
    }

    #[test]
    fn one_value_gives_no_interval_and_equal_values_no_certainty() {
        // A single run: nothing is known of the spread.
        let one = Summary::of_values(&[6.0]);
        assert_eq!(one.ci, None);
        let mut h = Histogram::default();
        h.add(4);
        assert_eq!(h.summary().ci, None);
        // Three equal runs: the variance is 0, yet the interval is wide,
        // as three runs could easily miss a value that occurs one time in
        // three; it narrows as the equal values pile up.
        for _ in 0..2 {
            h.add(4);
        }
        let [lo, hi] = h.summary().ci.unwrap();
        assert!(lo < 2.5 && hi > 5.5, "{lo}–{hi}");
        for _ in 0..9997 {
            h.add(4);
        }
        let [lo, hi] = h.summary().ci.unwrap();
        assert!(lo < 4.0 && hi > 4.0 && hi - lo < 0.01, "{lo}–{hi}");
        // Equal values that rounding gives a variance a hair above 0.
        let [lo, hi] = Summary::of_values(&[0.1; 3]).ci.unwrap();
        assert!(hi - lo > 0.5, "{lo}–{hi}");
        // Never-negative values: the interval stops at 0.
        assert_eq!(Summary::of_values(&[0.0, 0.0]).ci.unwrap()[0], 0.0);
    }

    #[test]
    fn small_samples_use_students_t() {
        // Two values 4 and 6: s = √2, so the half-width is
        // t(1) · √2 / √2 = 12.71, where z would give 1.96.
        let [lo, hi] = Summary::of_values(&[4.0, 6.0]).ci.unwrap();
        assert!((hi - 5.0 - 12.706).abs() < 1e-3, "{lo}–{hi}");
        assert_eq!(lo, 0.0);
        assert!((t95(31) - 2.039_513).abs() < 1e-5);
        assert!((t95(100) - 1.983_972).abs() < 1e-5);
        assert!(t95(1_000_000) > Z95 && t95(1_000_000) - Z95 < 1e-5);
    }

    #[test]
    fn wilson_is_never_degenerate() {
        for n in [1, 2, 3, 10, 1000] {
            for k in [0, n] {
                let (lo, hi) = wilson(k, n);
                assert!(hi - lo > 0.0, "{k} of {n}: {lo}–{hi}");
            }
        }
        // One run in each version: even 0 against 1 overlaps.
        assert!(wilson(1, 1).0 < wilson(0, 1).1);
    }

    #[test]
    fn intervals_shrink_as_n_grows() {
        let narrow = Rate::new(300, 1000);
        let wide = Rate::new(30, 100);
        assert!(narrow.ci[1] - narrow.ci[0] < wide.ci[1] - wide.ci[0]);
    }
}
