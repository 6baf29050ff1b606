//! Injected time and seeded choices.
//!
//! The engine never reads the wall clock. Time is virtual: a [`Clock`] gives
//! the instant the run starts at, and every duration (agent latency, approval
//! waits, lock waits) is a number the agents and scenario report. Every choice
//! that is not fixed by the playbook draws from [`Rng`], seeded by the caller,
//! so one playbook, one scenario and one seed always give the same run.

/// Where a run's virtual time starts.
pub trait Clock {
    /// Milliseconds since the Unix epoch at which the run starts.
    fn start_ms(&self) -> u64;
}

/// A clock that always starts at the same instant: the preview clock.
#[derive(Debug, Clone, Copy)]
pub struct FixedClock(pub u64);

/// 2026-01-01T00:00:00Z, the instant every preview starts at by default.
pub const PREVIEW_EPOCH_MS: u64 = 1_767_225_600_000;

impl Default for FixedClock {
    fn default() -> Self {
        FixedClock(PREVIEW_EPOCH_MS)
    }
}

impl Clock for FixedClock {
    fn start_ms(&self) -> u64 {
        self.0
    }
}

/// 9999-12-31T23:59:59.999Z, the last instant with a four-digit year.
pub const MAX_ISO8601_MS: u64 = 253_402_300_799_999;

/// Formats Unix milliseconds as ISO-8601 UTC (`2026-01-01T00:00:01.500Z`).
pub fn iso8601(unix_ms: u64) -> String {
    let mut out = String::with_capacity(24);
    write_iso8601(&mut out, unix_ms);
    out
}

/// Appends the ISO-8601 form of `unix_ms` to `out`.
pub fn write_iso8601(out: &mut String, unix_ms: u64) {
    // Virtual time saturates rather than overflows; past year 9999 the
    // instant is shown as the last representable ISO-8601 millisecond.
    let unix_ms = unix_ms.min(MAX_ISO8601_MS);
    let secs = unix_ms / 1000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    // Digits written by hand: every record of every step carries an
    // instant, and the formatting machinery cost ten times this.
    // From 1970 to 9999 the year has four digits, so the layout is fixed.
    let mut text = *b"0000-00-00T00:00:00.000Z";
    let mut put = |at: usize, width: u32, value: u64| {
        let mut value = value;
        for i in (0..width as usize).rev() {
            text[at + i] = b'0' + (value % 10) as u8;
            value /= 10;
        }
    };
    put(0, 4, u64::try_from(y).unwrap_or(0));
    put(5, 2, u64::from(m));
    put(8, 2, u64::from(d));
    put(11, 2, rem / 3600);
    put(14, 2, (rem / 60) % 60);
    put(17, 2, rem % 60);
    put(20, 3, unix_ms % 1000);
    // Only ASCII digits and punctuation: always UTF-8.
    if let Ok(text) = std::str::from_utf8(&text) {
        out.push_str(text);
    }
}

/// The ISO-8601 forms of the last two instants formatted. A step writes
/// its start, its end and a worklog entry at a handful of virtual
/// milliseconds, mostly the same ones (a step ends where the next starts),
/// so each instant is formatted once and then copied.
#[derive(Debug, Default, Clone)]
pub struct Instants {
    /// `(unix_ms, text)`; an empty text is an empty slot.
    slots: [(u64, String); 2],
    /// The slot the next new instant replaces.
    next: usize,
}

impl Instants {
    /// The ISO-8601 form of `unix_ms`, as [`iso8601`] gives it.
    pub fn at(&mut self, unix_ms: u64) -> &str {
        let hit = self
            .slots
            .iter()
            .position(|(ms, text)| *ms == unix_ms && !text.is_empty());
        let i = match hit {
            Some(i) => i,
            None => {
                let i = self.next;
                self.next = (i + 1) % self.slots.len();
                let (ms, text) = &mut self.slots[i];
                text.clear();
                write_iso8601(text, unix_ms);
                *ms = unix_ms;
                i
            }
        };
        &self.slots[i].1
    }
}

/// Days since 1970-01-01 to a proleptic Gregorian date (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// A small, fast, seeded generator (SplitMix64). Not for secrets; for
/// reproducible choices only.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `min..=max`.
    pub fn between(&mut self, min: u64, max: u64) -> u64 {
        if max <= min {
            return min;
        }
        // `max - min + 1` overflows for the full range; u128 cannot.
        let span = u128::from(max - min) + 1;
        min + (u128::from(self.next_u64()) % span) as u64
    }

    /// A UUID v4 string drawn from the generator: the run id of a preview.
    pub fn uuid_v4(&mut self) -> String {
        let hi = self.next_u64();
        let lo = self.next_u64();
        let hi = (hi & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000;
        let lo = (lo & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000;
        format!(
            "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
            hi >> 32,
            (hi >> 16) & 0xFFFF,
            hi & 0xFFFF,
            lo >> 48,
            lo & 0xFFFF_FFFF_FFFF
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembered_instants_are_the_instants_asked_for() {
        let mut instants = Instants::default();
        // Alternating, repeated and new instants, and 0 (an empty cache's
        // slot key) each give exactly what `iso8601` gives.
        for ms in [0, 0, 5, 0, 5, 7, 7, 5, 0, MAX_ISO8601_MS, u64::MAX, 1500] {
            assert_eq!(instants.at(ms), iso8601(ms), "at {ms}");
        }
    }

    /// The formatting machinery's way, which the hand-written digits
    /// must reproduce.
    fn by_format(unix_ms: u64) -> String {
        let unix_ms = unix_ms.min(MAX_ISO8601_MS);
        let secs = unix_ms / 1000;
        let rem = secs % 86_400;
        let (y, m, d) = civil_from_days((secs / 86_400) as i64);
        format!(
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
            rem / 3600,
            (rem / 60) % 60,
            rem % 60,
            unix_ms % 1000
        )
    }

    #[test]
    fn hand_written_digits_are_what_format_writes() {
        let mut rng = Rng::new(3);
        let mut instants = vec![
            0,
            1,
            999,
            1000,
            86_399_999,
            86_400_000,
            951_782_400_000, // 2000-02-29
            PREVIEW_EPOCH_MS,
            MAX_ISO8601_MS,
            MAX_ISO8601_MS + 1,
            u64::MAX,
        ];
        instants.extend((0..20_000).map(|_| rng.between(0, MAX_ISO8601_MS)));
        for ms in instants {
            let text = iso8601(ms);
            assert_eq!(text, by_format(ms), "at {ms}");
            assert_eq!(text.len(), 24, "{text}");
        }
    }

    #[test]
    fn the_preview_epoch_formats_as_new_year_2026() {
        assert_eq!(iso8601(PREVIEW_EPOCH_MS), "2026-01-01T00:00:00.000Z");
        assert_eq!(
            iso8601(PREVIEW_EPOCH_MS + 86_400_000 * 59 + 1_501),
            "2026-03-01T00:00:01.501Z"
        );
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
    }

    #[test]
    fn uuids_are_version_4_and_reproducible() {
        let a = Rng::new(7).uuid_v4();
        assert_eq!(
            a,
            Rng::new(7).uuid_v4(),
            "the same seed must give the same run id"
        );
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "4", "version nibble");
        assert!(
            matches!(&a[19..20], "8" | "9" | "a" | "b"),
            "variant nibble of {a}"
        );
        assert!(crate::envelope::is_uuid_v4(&a));
    }
}
