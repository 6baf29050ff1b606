//! Whether a typed record's JSON form may hold a secret, decided while it is
//! serialised, with its object keys and its string values told apart.
//!
//! The earlier test ran the prefilter over the whole JSON text, keys
//! included, so any record with a field named `task_id` (`sk_`) or
//! `test_author` (`auth`) took the full path — a JSON value built, walked
//! and read back — although such names neither are secrets nor hide a
//! value by themselves. Here a key is judged as a name (`is_clean` and
//! `keys::classify`, remembered per thread, as records repeat the same few
//! field names) and the strings are scanned as values.
//!
//! Why `false` is enough (no false negatives), rule by rule of
//! [`crate::redact_value`]:
//! - a string leaf is redacted only when `rules::spans` finds something,
//!   which needs a prefilter literal or something to fold (`fold.rs`): a
//!   value with something to fold takes the full path at once; every
//!   other value string is collected, `\0`-separated (no literal holds a
//!   `\0`), and the prefilter runs over them once;
//! - a key is renamed only when it is not clean: each key holding a
//!   literal or something to fold is checked with `is_clean` (any other
//!   key is clean);
//! - a string right under a key is hidden only when `keys::hides_value`
//!   says so, which it can only for a name that classifies as secret or
//!   key-like: such a key's string value is checked with exactly that
//!   test;
//! - a number right under a secret name is hidden: any number under such
//!   a name answers `true`.
//!
//! serde_json's formatter sees every key and string exactly as the JSON
//! value would hold it (escapes are given back as the characters they
//! stand for). Anything unexpected (a raw fragment, a float written as a
//! key) answers `true`: the full path is always correct.

use std::cell::RefCell;
use std::io;

use serde::Serialize;
use serde_json::ser::{CharEscape, Formatter};

use crate::keys::{self, Name};
use crate::rules;

/// Field names with a literal but clean (`task_id`, `test_author`), and
/// how each classifies. Records repeat the same few names in every run.
const MEMO_NAMES: usize = 32;
/// Names longer than this are classified afresh each time.
const MEMO_NAME_LEN: usize = 64;
/// Buffers grown past this by one large record are not kept.
const KEEP: usize = 1 << 16;

#[derive(Default)]
struct Probe {
    /// Every value string so far, each followed by `\0`.
    values: Vec<u8>,
    /// The string being written.
    text: String,
    in_string: bool,
    /// The string being written is an object key.
    in_key: bool,
    /// The value being written sits right under `key` (not nested deeper).
    under_key: bool,
    /// The current key's class; its text is `key`.
    key_class: Name,
    key: String,
    names: Vec<(String, Name)>,
}

/// Stops serialisation: the record may hold a secret.
fn found() -> io::Error {
    io::Error::other("may hold a secret")
}

impl Probe {
    fn reset(&mut self) {
        self.values.clear();
        self.text.clear();
        self.in_string = false;
        self.in_key = false;
        self.under_key = false;
        self.key_class = Name::Plain;
        self.key.clear();
        if self.values.capacity() > KEEP {
            self.values = Vec::new();
        }
        if self.text.capacity() > KEEP {
            self.text = String::new();
        }
    }

    /// A key has been written: judge it as a name.
    fn end_key(&mut self) -> io::Result<()> {
        std::mem::swap(&mut self.key, &mut self.text);
        self.text.clear();
        let key = self.key.as_str();
        if !rules::may_hold_secret(key) {
            self.key_class = Name::Plain;
            return Ok(());
        }
        if let Some((_, class)) = self.names.iter().find(|(name, _)| name == key) {
            self.key_class = *class;
            return Ok(());
        }
        if !crate::is_clean(key) {
            return Err(found());
        }
        let class = keys::classify(key);
        if key.len() <= MEMO_NAME_LEN && self.names.len() < MEMO_NAMES {
            self.names.push((key.to_string(), class));
        }
        self.key_class = class;
        Ok(())
    }

    /// A value string has been written.
    fn end_value(&mut self) -> io::Result<()> {
        // A value whose folded form may spell a secret the literals do not
        // show (`fold.rs`) takes the full path.
        if crate::fold::needs_fold(&self.text) {
            return Err(found());
        }
        if self.under_key
            && self.key_class != Name::Plain
            && keys::hides_value(&self.key, &self.text)
        {
            return Err(found());
        }
        self.values.extend_from_slice(self.text.as_bytes());
        self.values.push(0);
        self.text.clear();
        Ok(())
    }

    /// A number or boolean: part of a key's text (serde_json writes a
    /// non-string map key inside quotes), or a value.
    fn scalar(&mut self, text: impl std::fmt::Display, number: bool) -> io::Result<()> {
        if self.in_string {
            use std::fmt::Write;
            let _ = write!(self.text, "{text}");
            return Ok(());
        }
        if number && self.under_key && self.key_class == Name::Secret {
            return Err(found());
        }
        Ok(())
    }
}

macro_rules! scalars {
    ($($method:ident: $ty:ty, $number:expr;)*) => {
        $(
            fn $method<W: ?Sized + io::Write>(&mut self, _: &mut W, value: $ty) -> io::Result<()> {
                self.scalar(value, $number)
            }
        )*
    };
}

// On `&mut Probe`, so that the probe (and its buffers and remembered
// names) outlives one serialisation.
impl Formatter for &mut Probe {
    fn write_null<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        Ok(())
    }

    scalars! {
        write_bool: bool, false;
        write_i8: i8, true;
        write_i16: i16, true;
        write_i32: i32, true;
        write_i64: i64, true;
        write_i128: i128, true;
        write_u8: u8, true;
        write_u16: u16, true;
        write_u32: u32, true;
        write_u64: u64, true;
        write_u128: u128, true;
    }

    fn write_f32<W: ?Sized + io::Write>(&mut self, w: &mut W, value: f32) -> io::Result<()> {
        self.write_f64(w, f64::from(value))
    }

    fn write_f64<W: ?Sized + io::Write>(&mut self, _: &mut W, _: f64) -> io::Result<()> {
        // As a key, serde_json's own float text is not reproduced here.
        if self.in_string {
            return Err(found());
        }
        self.scalar("", true)
    }

    fn write_number_str<W: ?Sized + io::Write>(&mut self, _: &mut W, _: &str) -> io::Result<()> {
        Err(found())
    }

    fn begin_string<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.in_string = true;
        self.text.clear();
        Ok(())
    }

    fn end_string<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.in_string = false;
        if self.in_key {
            self.end_key()
        } else {
            self.end_value()
        }
    }

    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        _: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        self.text.push_str(fragment);
        Ok(())
    }

    fn write_char_escape<W: ?Sized + io::Write>(
        &mut self,
        _: &mut W,
        escape: CharEscape,
    ) -> io::Result<()> {
        self.text.push(match escape {
            CharEscape::Quote => '"',
            CharEscape::ReverseSolidus => '\\',
            CharEscape::Solidus => '/',
            CharEscape::Backspace => '\u{8}',
            CharEscape::FormFeed => '\u{c}',
            CharEscape::LineFeed => '\n',
            CharEscape::CarriageReturn => '\r',
            CharEscape::Tab => '\t',
            CharEscape::AsciiControl(byte) => char::from(byte),
        });
        Ok(())
    }

    fn begin_array<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        // A key decides only the value right under it, not nested ones.
        self.under_key = false;
        Ok(())
    }

    fn end_array<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        Ok(())
    }

    fn begin_array_value<W: ?Sized + io::Write>(&mut self, _: &mut W, _: bool) -> io::Result<()> {
        self.under_key = false;
        Ok(())
    }

    fn begin_object<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.under_key = false;
        Ok(())
    }

    fn end_object<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        Ok(())
    }

    fn begin_object_key<W: ?Sized + io::Write>(&mut self, _: &mut W, _: bool) -> io::Result<()> {
        self.in_key = true;
        self.under_key = false;
        Ok(())
    }

    fn end_object_key<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.in_key = false;
        Ok(())
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.under_key = true;
        Ok(())
    }

    fn end_object_value<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.under_key = false;
        Ok(())
    }

    fn write_raw_fragment<W: ?Sized + io::Write>(&mut self, _: &mut W, _: &str) -> io::Result<()> {
        Err(found())
    }
}

/// Whether the JSON form of `record` may hold a secret (see the module
/// comment): `false` only when [`crate::redact_value`] of it would change
/// nothing.
pub(crate) fn json_may_hold_secret<T: Serialize + ?Sized>(record: &T) -> bool {
    thread_local! {
        static PROBE: RefCell<Probe> = RefCell::new(Probe::default());
    }
    PROBE.with(|probe| {
        let Ok(mut probe) = probe.try_borrow_mut() else {
            // Not reachable (serialising does not redact); the full path is
            // always correct.
            return true;
        };
        probe.reset();
        let mut serializer = serde_json::Serializer::with_formatter(io::sink(), &mut *probe);
        // A record that does not serialise (or that the probe stopped)
        // takes the full path, which reports any error.
        if record.serialize(&mut serializer).is_err() {
            return true;
        }
        rules::may_hold_secret_bytes(&probe.values)
    })
}
