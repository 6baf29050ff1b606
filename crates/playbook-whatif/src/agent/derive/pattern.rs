//! Texts a `matches` gate's regular expression does and does not match.
//!
//! A gate's `matches` compiles its pattern with the `regex` crate, default
//! settings (RE2 syntax, unanchored search; `playbook_core`'s
//! `gate/matches.rs`), so the same crate compiles
//! it here and has the last word on every text: a matching text is made
//! from the pattern's syntax tree (`regex-syntax`'s HIR, the tree `regex`
//! itself compiles), a non-matching one picked among plain candidates, and
//! each is kept only if `Regex::is_match` agrees.

use cel::common::ast::{Expr, IdedExpr};
use regex::Regex;
use regex_syntax::hir::{Class, Hir, HirKind};
use serde_json::Value;

use super::{MAX_TEXT, constant};

/// Most non-matching texts offered for one `matches`: each is one more
/// alternative of every `&&` around it.
const MAX_OTHERS: usize = 2;

/// A pattern as `matches` compiles it.
pub struct Pattern {
    regex: Regex,
    hir: Hir,
}

impl Pattern {
    /// The pattern, or why `matches` refuses it (the gate then cannot be
    /// evaluated, whatever the text).
    pub fn new(pattern: &str) -> Result<Pattern, String> {
        let regex = Regex::new(pattern).map_err(|e| reason(&e.to_string()))?;
        // `regex` accepted it with these same (default) settings, so the
        // parse cannot fail; an error is still an answer, not a panic.
        let hir = regex_syntax::Parser::new()
            .parse(pattern)
            .map_err(|e| reason(&e.to_string()))?;
        Ok(Pattern { regex, hir })
    }

    /// A shortest text the pattern matches, when one fits in a simulated
    /// output field and `regex` confirms it.
    pub fn matching(&self) -> Option<String> {
        let mut text = String::new();
        shortest(&self.hir, &mut text)?;
        self.regex.is_match(&text).then_some(text)
    }

    /// Texts the pattern does not match, plainest first.
    pub fn others(&self) -> Vec<String> {
        let mut candidates = vec![
            String::new(),
            "fail".to_string(),
            "~".to_string(),
            "simulated".to_string(),
            "\n".to_string(),
        ];
        if let Some(m) = self.matching() {
            // One character off a match: what an anchored pattern refuses.
            candidates.push(format!("{m}~"));
            candidates.push(format!("~{m}"));
        }
        // Longer than a bounded repetition of a short text allows.
        candidates.push("simulated ".repeat(110));
        let mut out: Vec<String> = Vec::new();
        for c in candidates {
            if out.len() == MAX_OTHERS {
                break;
            }
            if !self.regex.is_match(&c) && !out.contains(&c) {
                out.push(c);
            }
        }
        out
    }

    /// Why no text can be made to match, for the report; `None` when one is.
    fn unmatched(&self, pattern: &str) -> Option<String> {
        if self.matching().is_some() {
            return None;
        }
        Some(match self.hir.properties().minimum_len() {
            None => format!("no text matches the pattern `{pattern}`"),
            Some(n) if n > MAX_TEXT => format!(
                "the shortest text the pattern `{pattern}` matches is {n} bytes long, more than a simulated output field holds ({MAX_TEXT})"
            ),
            Some(_) => format!("the simulation found no text the pattern `{pattern}` matches"),
        })
    }
}

/// The last line of a `regex` error (its caret diagram goes), without its
/// `error: ` label: "unclosed group".
fn reason(message: &str) -> String {
    let line = message
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("not a valid pattern");
    line.strip_prefix("error: ").unwrap_or(line).to_string()
}

/// Appends a shortest text `hir` matches to `out`: a class's plainest
/// character, an alternation's first branch that fits, a repetition's
/// least count; assertions (`^`, `$`, `\b`) add nothing. `None` when
/// nothing matches or the text would pass [`MAX_TEXT`] bytes, checked
/// before anything is repeated, so `(a{1000}){1000}` costs nothing.
fn shortest(hir: &Hir, out: &mut String) -> Option<()> {
    let least = hir.properties().minimum_len()?;
    if out.len().saturating_add(least) > MAX_TEXT {
        return None;
    }
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(lit) => out.push_str(std::str::from_utf8(&lit.0).ok()?),
        HirKind::Class(class) => out.push(plainest(class)?),
        HirKind::Capture(c) => shortest(&c.sub, out)?,
        HirKind::Concat(parts) => {
            for part in parts {
                shortest(part, out)?;
            }
        }
        HirKind::Alternation(branches) => {
            let start = out.len();
            let found = branches.iter().any(|b| {
                out.truncate(start);
                shortest(b, out).is_some()
            });
            if !found {
                return None;
            }
        }
        HirKind::Repetition(r) => {
            let mut once = String::new();
            if r.min > 0 {
                shortest(&r.sub, &mut once)?;
            }
            let count = usize::try_from(r.min).ok()?;
            let total = once.len().checked_mul(count)?;
            if out.len().saturating_add(total) > MAX_TEXT {
                return None;
            }
            if !once.is_empty() {
                out.push_str(&once.repeat(count));
            }
        }
    }
    Some(())
}

/// Characters a class is answered with, by preference: letters and digits
/// read as text, where the class's first character may be a control one
/// (`[^a]` starts at NUL).
const PLAIN: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_.,:;/=+!?#@%&*()[]{}<>'\"|\\^$~`";

fn plainest(class: &Class) -> Option<char> {
    match class {
        Class::Unicode(c) => {
            let ranges = c.ranges();
            let holds = |ch: char| {
                ranges
                    .binary_search_by(|r| {
                        if r.end() < ch {
                            std::cmp::Ordering::Less
                        } else if r.start() > ch {
                            std::cmp::Ordering::Greater
                        } else {
                            std::cmp::Ordering::Equal
                        }
                    })
                    .is_ok()
            };
            PLAIN
                .chars()
                .find(|ch| holds(*ch))
                .or_else(|| ranges.first().map(|r| r.start()))
        }
        // A byte class of a text pattern holds ASCII only (`regex` refuses
        // one that could match invalid UTF-8).
        Class::Bytes(c) => {
            let ranges = c.ranges();
            let holds = |b: u8| ranges.iter().any(|r| r.start() <= b && b <= r.end());
            PLAIN
                .bytes()
                .find(|b| holds(*b))
                .or_else(|| ranges.first().map(|r| r.start()))
                .filter(u8::is_ascii)
                .map(char::from)
        }
    }
}

/// `x.matches(re)` or `matches(x, re)`: the text and the pattern.
fn matches_call(e: &IdedExpr) -> Option<(&IdedExpr, &IdedExpr)> {
    let Expr::Call(c) = &e.expr else { return None };
    if c.func_name != "matches" {
        return None;
    }
    match (&c.target, c.args.as_slice()) {
        (Some(text), [re]) => Some((text, re)),
        (None, [text, re]) => Some((text, re)),
        _ => None,
    }
}

/// What the report should say of the gate's `matches` patterns: one that
/// `matches` refuses (the gate cannot be evaluated where it is reached),
/// one no text the simulation can answer matches.
pub fn problems(e: &IdedExpr, out: &mut Vec<String>) {
    if let Some((_, re)) = matches_call(e)
        && let Some(Value::String(pattern)) = constant(re)
    {
        let problem = match Pattern::new(&pattern) {
            Err(why) => Some(format!(
                "`matches` refuses the pattern `{pattern}` ({why}): the gate cannot be evaluated where it reaches it, and fails"
            )),
            Ok(p) => p.unmatched(&pattern),
        };
        if let Some(problem) = problem
            && !out.contains(&problem)
        {
            out.push(problem);
        }
    }
    for child in super::children(e) {
        problems(child, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(re: &str) -> Pattern {
        Pattern::new(re).unwrap_or_else(|e| panic!("{re}: {e}"))
    }

    #[test]
    fn a_shortest_match_and_non_matches_are_made_and_confirmed() {
        for (re, want) in [
            ("^(pass|lgtm)$", "pass"),
            ("^v[0-9]+$", "v0"),
            ("^[A-Z]{3}-\\d{2,}$", "AAA-00"),
            ("(?i)^ok$", "ok"),
            ("[^a]", "b"),
            ("^\\s*$", ""),
            ("^.{0,40}$", ""),
            ("\\bdone\\b", "done"),
            ("^(?:x?){5}y+$", "y"),
            ("^\\p{Greek}$", "Ͱ"),
            ("^a{1000}$", &"a".repeat(1000)),
        ] {
            let p = pattern(re);
            assert_eq!(p.matching().as_deref(), Some(want), "{re}");
            let others = p.others();
            assert!(!others.is_empty(), "{re}: no non-matching text");
            for o in others {
                assert!(!p.regex.is_match(&o), "{re} matches {o:?}");
            }
        }
    }

    #[test]
    fn hostile_patterns_give_no_text_and_say_why_without_hanging() {
        let nothing = pattern("[^\\s\\S]");
        assert_eq!(nothing.matching(), None);
        assert!(nothing.unmatched("p").unwrap().contains("no text matches"));
        // `regex` accepts them; the texts would be far too long.
        for (big, len) in [("a{100000}", "100000"), ("(?:ab{100}){900}", "90900")] {
            let p = pattern(big);
            assert_eq!(p.matching(), None, "{big}");
            let why = p.unmatched(big).unwrap();
            assert!(why.contains(&format!("{len} bytes")), "{why}");
            assert_eq!(p.others().first().map(String::as_str), Some(""), "{big}");
        }
        // Too big for `regex` to compile: refused, with its reason.
        let e = Pattern::new("(?:a{1000}){1000}").err().expect("refused");
        assert!(e.contains("size limit"), "{e}");
        // Everything matches: nothing fails it.
        assert!(pattern("").others().is_empty());
        assert!(pattern(".*").others().is_empty());
        let e = Pattern::new("(").err().expect("refused");
        assert_eq!(e, "unclosed group");
    }
}
