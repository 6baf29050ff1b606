//! New playbooks whose id may already be taken, and finding an existing copy.
//!
//! A deleted playbook keeps its id until it is purged (so that it can be
//! restored), which makes "is this id free?" a question about every row, not
//! only the listed ones. Callers that make a playbook from a document whose
//! id they do not control (an example, a blank playbook, the role templates)
//! go through [`Store::create_unique`], which answers it under the write
//! lock instead of from a list read earlier.

use playbook_core::ids::MAX_ID_CHARS;
use playbook_core::model::Playbook;

use crate::content::Content;
use crate::error::{Error, Result};
use crate::playbooks::Playbooks;
use crate::store::{Store, create_in};
use crate::types::{PlaybookId, Saved, suffixed_name};

/// How many suffixed ids are tried before giving up; a library holds far
/// fewer playbooks of one id than this.
const MAX_SUFFIX: u32 = 10_000;

impl Store {
    /// Adds `playbook` as a new playbook under the first id that no live or
    /// deleted playbook holds: its own id, else `<id>-2`, `<id>-3` ... (the
    /// name then gets the same ` (2)`, ` (3)` ..., shortened to stay within
    /// the schema's 200 characters). Never fails with `ALREADY_EXISTS`.
    pub fn create_unique(&mut self, playbook: Playbook, note: &str) -> Result<Saved> {
        self.create_unique_from(playbook, note, None)
    }

    /// [`Store::create_unique`] of a playbook read from `authored` (an
    /// example's file): the new version keeps that text, rewritten to the
    /// id and name it gets, when its comments and layout can be kept.
    pub fn create_unique_from(
        &mut self,
        mut playbook: Playbook,
        note: &str,
        authored: Option<crate::types::Authored>,
    ) -> Result<Saved> {
        let base = PlaybookId::new(playbook.id.clone())?;
        let tx = self.write()?;
        let mut chosen = None;
        for n in 1..=MAX_SUFFIX {
            let candidate = suffixed(base.as_str(), n)?;
            if Playbooks(&tx).find(&candidate)?.is_none() {
                chosen = Some((n, candidate));
                break;
            }
        }
        let Some((n, id)) = chosen else {
            return Err(Error::AlreadyExists {
                what: format!("playbook `{base}` and its first {MAX_SUFFIX} numbered copies"),
            });
        };
        if n > 1 {
            playbook.id = id.to_string();
            playbook.name = suffixed_name(&playbook.name, &format!(" ({n})"));
        }
        let content = Content::from_playbook(playbook)?.with_authored_from(authored);
        let saved = create_in(&tx, &content, note)?;
        tx.commit()?;
        Ok(saved)
    }

    /// The live playbook that is an unchanged copy of `playbook`: one that
    /// [`Store::create_unique`] made from it (its own id, or `<id>-n` named
    /// `<name> (n)`) and whose latest version still has exactly that content.
    /// The playbook's own id comes first, then the lowest `n`. `None` when
    /// every copy was edited or deleted: deleted playbooks are out of the
    /// list and stay out until restored.
    pub fn find_copy(&self, playbook: &Playbook) -> Result<Option<PlaybookId>> {
        let stem = playbook.id.as_str();
        let mut candidates: Vec<(u32, PlaybookId)> = self
            .list(false)?
            .into_iter()
            .filter_map(|p| copy_number(p.id.as_str(), stem).map(|n| (n, p.id)))
            .collect();
        candidates.sort();
        for (n, candidate) in candidates {
            // A version this build cannot read is nobody's unchanged copy.
            let Ok(stored) = self.playbook(&candidate, None) else {
                continue;
            };
            let mut expected = playbook.clone();
            expected.id = candidate.to_string();
            if n > 1 {
                expected.name = suffixed_name(&playbook.name, &format!(" ({n})"));
            }
            if stored == expected {
                return Ok(Some(candidate));
            }
        }
        Ok(None)
    }
}

/// `Some(1)` when `id` is `stem`, `Some(n)` when it is `stem-n` (n ≥ 2, as
/// [`suffixed`] writes it, the stem possibly shortened), else `None`.
fn copy_number(id: &str, stem: &str) -> Option<u32> {
    if id == stem {
        return Some(1);
    }
    let (_, number) = id.rsplit_once('-')?;
    let n: u32 = number.parse().ok().filter(|n| *n >= 2)?;
    // Only the digits `suffixed` writes: no sign, no leading zero.
    if number != n.to_string() {
        return None;
    }
    (suffixed(stem, n).ok()?.as_str() == id).then_some(n)
}

/// `id` for the first, `id-n` after, shortened so that the result is still
/// a valid id (at most [`MAX_ID_CHARS`] characters, no blank or dot left at
/// the cut).
fn suffixed(id: &str, n: u32) -> Result<PlaybookId> {
    if n == 1 {
        return PlaybookId::new(id);
    }
    let suffix = format!("-{n}");
    let keep = MAX_ID_CHARS.saturating_sub(suffix.chars().count());
    let mut stem: String = id.chars().take(keep).collect();
    // The cut may leave whitespace at the end of the stem; the suffix then
    // follows a blank, which is allowed inside an id but confusing to read.
    while stem.ends_with(char::is_whitespace) {
        stem.pop();
    }
    if stem.is_empty() {
        stem.push_str("playbook");
    }
    PlaybookId::new(format!("{stem}{suffix}"))
}

#[cfg(test)]
mod tests {
    use super::suffixed;

    #[test]
    fn a_suffixed_id_is_always_a_valid_id() {
        let long = "a".repeat(200);
        for id in ["tdd", long.as_str(), ".x", "a b", "é"] {
            for n in [1, 2, 10, 9999] {
                let made = suffixed(id, n).expect("valid");
                assert!(made.as_str().chars().count() <= 200, "{made}");
            }
        }
        assert_eq!(suffixed("tdd", 3).unwrap().as_str(), "tdd-3");
    }
}
