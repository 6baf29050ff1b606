//! Statistics with 95 % confidence intervals: Wilson score intervals for
//! rates, the normal approximation for means. Both shrink as 1/√N.

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
    /// 95 % interval of the mean (normal approximation).
    pub ci: [f64; 2],
    pub p50: f64,
    pub p95: f64,
    pub max: f64,
}

impl Summary {
    fn from_moments(n: u64, sum: f64, sum_sq: f64, p50: f64, p95: f64, max: f64) -> Summary {
        if n == 0 {
            return Summary {
                n,
                mean: 0.0,
                ci: [0.0, 0.0],
                p50: 0.0,
                p95: 0.0,
                max: 0.0,
            };
        }
        let nf = n as f64;
        let mean = sum / nf;
        let var = if n > 1 {
            ((sum_sq - nf * mean * mean) / (nf - 1.0)).max(0.0)
        } else {
            0.0
        };
        let half = Z95 * (var / nf).sqrt();
        Summary {
            n,
            mean,
            ci: [mean - half, mean + half],
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
        let sum: f64 = sorted.iter().sum();
        let sum_sq: f64 = sorted.iter().map(|v| v * v).sum();
        let q = |p: f64| -> f64 {
            if sorted.is_empty() {
                return 0.0;
            }
            sorted[rank(p, sorted.len() as u64) as usize - 1]
        };
        Summary::from_moments(
            n,
            sum,
            sum_sq,
            q(0.5),
            q(0.95),
            sorted.last().copied().unwrap_or(0.0),
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
        let (sum, sum_sq) = self.counts.iter().fold((0.0, 0.0), |(s, q), (v, c)| {
            let v = f64::from(*v);
            let c = *c as f64;
            (s + v * c, q + v * v * c)
        });
        Summary::from_moments(
            n,
            sum,
            sum_sq,
            f64::from(self.quantile(0.5)),
            f64::from(self.quantile(0.95)),
            f64::from(self.max().unwrap_or(0)),
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
        assert!(s.ci[0] < 50.5 && s.ci[1] > 50.5);
    }

    #[test]
    fn intervals_shrink_as_n_grows() {
        let narrow = Rate::new(300, 1000);
        let wide = Rate::new(30, 100);
        assert!(narrow.ci[1] - narrow.ci[0] < wide.ci[1] - wide.ci[0]);
    }
}
