//! The library: playbooks, their versions and drafts.

use std::path::{Path, PathBuf};

use playbook_core::diff::Diff;
use playbook_core::document::{self, Format};
use playbook_core::model::Playbook;
use rusqlite::{Connection, Transaction, TransactionBehavior};

use crate::content::Content;
use crate::db;
use crate::drafts::{Drafts, DraftsMut};
use crate::error::{Error, Result};
use crate::playbooks::{PlaybookRow, Playbooks, PlaybooksMut};
use crate::scenarios::{self, Scenarios, ScenariosMut};
use crate::types::{
    Base, Draft, DraftNumber, PlaybookId, PlaybookSummary, Saved, StoredScenario, Version,
    VersionInfo, check_display_name, suffixed_name,
};
use crate::versions::{self, Versions, VersionsMut};

/// An open library file. One `Store` is one SQLite connection; open one per
/// thread or process. Every method that writes runs in its own `IMMEDIATE`
/// transaction, so it either happens completely or not at all.
pub struct Store {
    pub(crate) conn: Connection,
    path: PathBuf,
}

impl Store {
    /// Opens the library at `path`, creating and seeding it when the file
    /// does not exist and migrating it when an older build wrote it.
    pub fn open(path: impl AsRef<Path>) -> Result<Store> {
        Store::open_with(path, db::Durability::Full)
    }

    /// Opens the library with a chosen [`Durability`](db::Durability);
    /// [`Store::open`] uses `Full`.
    pub fn open_with(path: impl AsRef<Path>, durability: db::Durability) -> Result<Store> {
        let path = path.as_ref();
        let conn = db::open(path, durability)?;
        Ok(Store {
            conn,
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Starts a write. IMMEDIATE takes the write lock at once, so the reads
    /// a write depends on (the latest version, above all) cannot go stale
    /// before it commits.
    pub(crate) fn write(&mut self) -> Result<Transaction<'_>> {
        Ok(self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?)
    }

    /// SQLite's own consistency check: `["ok"]` when the file is sound.
    pub fn integrity_check(&self) -> Result<Vec<String>> {
        let mut statement = self.conn.prepare("PRAGMA integrity_check")?;
        let rows = statement.query_map([], |r| r.get::<_, String>(0))?;
        let report = rows.collect::<rusqlite::Result<Vec<_>>>()?;
        if report != ["ok"] {
            return Ok(report);
        }
        // A sound file can still hold a version that does not read back
        // (written by an older build with looser limits): name each one.
        let unreadable = self.unreadable_versions()?;
        if unreadable.is_empty() {
            Ok(report)
        } else {
            Ok(unreadable)
        }
    }

    /// One line per stored version whose content does not parse as a
    /// playbook, e.g. `version 2 of tdd does not read: ...` (the words
    /// every reader of that version uses, `versions::unreadable`), and per
    /// version whose kept source text is damaged.
    pub fn unreadable_versions(&self) -> Result<Vec<String>> {
        let mut statement = self.conn.prepare(
            "SELECT p.id, v.number, v.content, v.source FROM versions v JOIN playbooks p ON p.pk = v.playbook ORDER BY p.id, v.number",
        )?;
        let mut rows = statement.query([])?;
        let mut lines = Vec::new();
        while let Some(row) = rows.next()? {
            // Ids were checked when written; shown as stored either way.
            let id = PlaybookId::unchecked(
                String::from_utf8_lossy(row.get_ref(0)?.as_bytes().unwrap_or_default())
                    .into_owned(),
            );
            let number: u32 = row.get(1)?;
            // Read as raw bytes: a stored text that is not UTF-8 is reported
            // too, not turned into an error that hides the others.
            let problem = match row.get_ref(2)?.as_str() {
                Err(_) => Some(versions::NOT_UTF8.to_string()),
                Ok(text) => Content::from_stored(text).err(),
            };
            if let Some(problem) = problem {
                lines.push(versions::unreadable_line(&id, number, &problem));
            }
            if row.get_ref(3)?.as_str_or_null().is_err() {
                lines.push(format!(
                    "version {number} of {id}: the text it was saved from is not UTF-8 text; exports give the version in canonical form"
                ));
            }
        }
        Ok(lines)
    }

    /// Playbooks with their latest version, by id. Deleted ones only when asked.
    pub fn list(&self, include_deleted: bool) -> Result<Vec<PlaybookSummary>> {
        Playbooks(&self.conn).list(include_deleted, None)
    }

    /// One playbook with its latest version, deleted or not.
    pub fn summary(&self, id: &PlaybookId) -> Result<PlaybookSummary> {
        Playbooks(&self.conn)
            .list(true, Some(id))?
            .pop()
            .ok_or_else(|| Error::NotFound {
                what: format!("playbook `{id}`"),
            })
    }

    /// A version with its canonical content; the latest when `number` is `None`.
    pub fn version(&self, id: &PlaybookId, number: Option<u32>) -> Result<Version> {
        let row = Playbooks(&self.conn).get(id)?;
        let number = number.unwrap_or(row.head);
        let stored = Versions(&self.conn)
            .get(row.pk, id, number)?
            .ok_or_else(|| version_not_found(id, number))?;
        Ok(Version {
            playbook: id.clone(),
            info: stored.info,
            content: stored.content,
            authored: stored.authored,
        })
    }

    /// The typed playbook of a version; the latest when `number` is `None`.
    pub fn playbook(&self, id: &PlaybookId, number: Option<u32>) -> Result<Playbook> {
        let row = Playbooks(&self.conn).get(id)?;
        let number = number.unwrap_or(row.head);
        Versions(&self.conn)
            .get(row.pk, id, number)?
            .ok_or_else(|| version_not_found(id, number))?
            .playbook(id)
    }

    /// Every version, newest first.
    pub fn history(&self, id: &PlaybookId) -> Result<Vec<VersionInfo>> {
        let row = Playbooks(&self.conn).get(id)?;
        Versions(&self.conn).history(row.pk)
    }

    /// Adds a new playbook as version 1. Fails with `ALREADY_EXISTS` when the
    /// id is taken, by a live or a deleted playbook, and with `INVALID_NAME`
    /// when its display name is one the schema refuses (a playbook built in
    /// code starts valid; text is [`Store::create_from_text`]'s).
    pub fn create(&mut self, playbook: Playbook, note: &str) -> Result<Saved> {
        check_display_name(&playbook.name)?;
        let content = Content::from_playbook(playbook)?;
        let tx = self.write()?;
        let saved = create_in(&tx, &content, note)?;
        tx.commit()?;
        Ok(saved)
    }

    /// Adds a new playbook from YAML or JSON text.
    pub fn create_from_text(&mut self, text: &str, format: Format, note: &str) -> Result<Saved> {
        let content = Content::from_text(text, format)?;
        let tx = self.write()?;
        let saved = create_in(&tx, &content, note)?;
        tx.commit()?;
        Ok(saved)
    }

    /// Saves `text` as the next version of playbook `id`.
    ///
    /// `base` names the version the author edited. When another version was
    /// saved since, or the text is not a playbook, nothing is saved, the
    /// text is kept as a draft of its own (never over another draft: see
    /// `drafts.rs`), and the error says why (`CONCURRENCY_CONFLICT` names
    /// both versions and the draft). A save whose content equals the latest
    /// version adds no version and reports `unchanged`.
    pub fn save_version(
        &mut self,
        id: &PlaybookId,
        base: Base,
        text: &str,
        format: Format,
        note: &str,
    ) -> Result<Saved> {
        let content = Content::from_text(text, format);
        let tx = self.write()?;
        let row = Playbooks(&tx).live(id)?;
        let outcome = content.and_then(|content| {
            check_id(id, &content)?;
            save_in(&tx, &row, base, &content, note)
        });
        match outcome {
            Ok(saved) => {
                clear_matching_draft(&tx, &row, text, &saved.version)?;
                tx.commit()?;
                Ok(saved)
            }
            Err(mut error) => {
                // Keep the author's text when the refusal is about the text or
                // its base; a failing database is reported as it is.
                let keep = matches!(
                    error,
                    Error::ConcurrencyConflict { .. }
                        | Error::InvalidPlaybook { .. }
                        | Error::InvalidName { .. }
                        | Error::InvalidDisplayName { .. }
                ) && text.len() <= document::MAX_DOCUMENT_BYTES;
                if keep {
                    let base = match base {
                        Base::Version(n) => Some(n),
                        Base::Latest => Some(row.head),
                    };
                    // If the text cannot be kept, that failure is what the
                    // caller must hear: the refusal promises a kept draft.
                    let now = db::now(&tx)?;
                    let number = DraftsMut(&tx).keep(row.pk, text, format, base, &now)?;
                    tx.commit()?;
                    if let Error::ConcurrencyConflict { draft, .. } = &mut error {
                        *draft = Some(number);
                    }
                }
                Err(error)
            }
        }
    }

    /// Saves a typed playbook as the next version; see [`Store::save_version`].
    pub fn save_playbook(
        &mut self,
        id: &PlaybookId,
        base: Base,
        playbook: &Playbook,
        note: &str,
    ) -> Result<Saved> {
        let text = crate::content::canonical_json(playbook)?;
        self.save_version(id, base, &text, Format::Json, note)
    }

    /// Makes an old version the latest again, as a new version: history
    /// only ever grows.
    pub fn restore(&mut self, id: &PlaybookId, number: u32, note: Option<&str>) -> Result<Saved> {
        let tx = self.write()?;
        let row = Playbooks(&tx).live(id)?;
        let old = Versions(&tx)
            .get(row.pk, id, number)?
            .ok_or_else(|| version_not_found(id, number))?;
        // The restored version comes back as it was written, comments included.
        let content = Content::from_playbook(old.playbook(id)?)?.with_authored_from(old.authored);
        let note = note
            .map(str::to_string)
            .unwrap_or_else(|| format!("restored version {number}"));
        let saved = save_in(&tx, &row, Base::Latest, &content, &note)?;
        tx.commit()?;
        Ok(saved)
    }

    /// Changes the display name, as a new version (the name is part of the
    /// content). A name the schema refuses is refused here, before anything
    /// is saved, instead of becoming a version that fails validation.
    pub fn rename(&mut self, id: &PlaybookId, name: &str) -> Result<Saved> {
        check_display_name(name)?;
        let tx = self.write()?;
        let row = Playbooks(&tx).live(id)?;
        let (mut playbook, authored) = head_playbook(&tx, &row)?;
        let note = format!("renamed from {:?}", playbook.name);
        playbook.name = name.to_string();
        let content = Content::from_playbook(playbook)?.with_authored_from(authored);
        let saved = save_in(&tx, &row, Base::Latest, &content, &note)?;
        tx.commit()?;
        Ok(saved)
    }

    /// Copies the latest version of `id` into a new playbook `new_id`, named
    /// `new_name` (checked like [`Store::rename`]'s) or `<name> (copy)`, the
    /// name shortened when the suffix would make it too long.
    pub fn duplicate(
        &mut self,
        id: &PlaybookId,
        new_id: &PlaybookId,
        new_name: Option<&str>,
    ) -> Result<Saved> {
        if let Some(name) = new_name {
            check_display_name(name)?;
        }
        let tx = self.write()?;
        let row = Playbooks(&tx).get(id)?;
        let (mut playbook, authored) = head_playbook(&tx, &row)?;
        playbook.id = new_id.to_string();
        playbook.name = new_name
            .map(str::to_string)
            .unwrap_or_else(|| suffixed_name(&playbook.name, " (copy)"));
        let content = Content::from_playbook(playbook)?.with_authored_from(authored);
        let saved = create_in(
            &tx,
            &content,
            &format!("duplicated from {id} version {}", row.head),
        )?;
        tx.commit()?;
        Ok(saved)
    }

    /// Deletes a playbook, recoverably: it leaves the list but keeps its
    /// history until purged.
    pub fn delete(&mut self, id: &PlaybookId) -> Result<()> {
        let tx = self.write()?;
        let row = Playbooks(&tx).live(id)?;
        let now = db::now(&tx)?;
        PlaybooksMut(&tx).set_deleted(row.pk, Some(&now))?;
        tx.commit()?;
        Ok(())
    }

    /// Brings a deleted playbook back.
    pub fn undelete(&mut self, id: &PlaybookId) -> Result<()> {
        let tx = self.write()?;
        let row = Playbooks(&tx).get(id)?;
        if row.deleted_at.is_none() {
            return Err(Error::NotDeleted {
                what: format!("playbook `{id}`"),
            });
        }
        PlaybooksMut(&tx).set_deleted(row.pk, None)?;
        tx.commit()?;
        Ok(())
    }

    /// Removes a deleted playbook for good, with its versions, draft and runs.
    pub fn purge(&mut self, id: &PlaybookId) -> Result<()> {
        let tx = self.write()?;
        let row = Playbooks(&tx).get(id)?;
        if row.deleted_at.is_none() {
            return Err(Error::NotDeleted {
                what: format!("playbook `{id}`"),
            });
        }
        PlaybooksMut(&tx).purge(row.pk)?;
        tx.commit()?;
        Ok(())
    }

    /// Purges every deleted playbook; returns their ids.
    pub fn purge_deleted(&mut self) -> Result<Vec<PlaybookId>> {
        let deleted: Vec<PlaybookId> = self
            .list(true)?
            .into_iter()
            .filter(|p| p.deleted_at.is_some())
            .map(|p| p.id)
            .collect();
        let tx = self.write()?;
        for id in &deleted {
            if let Some(row) = Playbooks(&tx).find(id)? {
                PlaybooksMut(&tx).purge(row.pk)?;
            }
        }
        tx.commit()?;
        Ok(deleted)
    }

    /// What changed from version `from` to version `to`, in domain terms.
    pub fn diff(&self, id: &PlaybookId, from: u32, to: u32) -> Result<Diff> {
        let old = self.playbook(id, Some(from))?;
        let new = self.playbook(id, Some(to))?;
        Ok(playbook_core::diff::diff(&old, &new))
    }

    /// Autosaves the author's text, whatever it is, as a draft of the
    /// playbook; its format is sniffed (see [`Store::save_draft_as`]).
    pub fn save_draft(
        &mut self,
        id: &PlaybookId,
        text: &str,
        base: Option<u32>,
        replacing: Option<DraftNumber>,
    ) -> Result<Draft> {
        self.save_draft_as(id, text, Format::sniff(text), base, replacing)
    }

    /// Autosaves the author's text in `format` over draft `replacing` (the
    /// draft the caller holds: the one it opened or last autosaved), or as
    /// a new draft when that is gone or none is named. Only the holder of
    /// a draft writes over it, so an autosave never replaces text another
    /// save was refused with.
    pub fn save_draft_as(
        &mut self,
        id: &PlaybookId,
        text: &str,
        format: Format,
        base: Option<u32>,
        replacing: Option<DraftNumber>,
    ) -> Result<Draft> {
        if text.len() > document::MAX_DOCUMENT_BYTES {
            return Err(Error::InvalidPlaybook {
                message: format!(
                    "the draft is {} bytes; the limit is {} bytes",
                    text.len(),
                    document::MAX_DOCUMENT_BYTES
                ),
                findings: Vec::new(),
            });
        }
        let tx = self.write()?;
        let row = Playbooks(&tx).live(id)?;
        let now = db::now(&tx)?;
        let number = DraftsMut(&tx).put(row.pk, replacing, text, format, base, &now)?;
        tx.commit()?;
        Ok(Draft {
            playbook: id.clone(),
            number,
            content: text.to_string(),
            format,
            base,
            updated_at: now,
        })
    }

    /// The newest draft of the playbook: the one the app opens.
    pub fn draft(&self, id: &PlaybookId) -> Result<Option<Draft>> {
        let row = Playbooks(&self.conn).get(id)?;
        Drafts(&self.conn).latest(row.pk, id)
    }

    /// Every draft of the playbook, newest first.
    pub fn drafts(&self, id: &PlaybookId) -> Result<Vec<Draft>> {
        let row = Playbooks(&self.conn).get(id)?;
        Drafts(&self.conn).list(row.pk, id)
    }

    /// Throws draft `number` of the playbook away; returns whether it was there.
    pub fn discard_draft(&mut self, id: &PlaybookId, number: DraftNumber) -> Result<bool> {
        let tx = self.write()?;
        let row = Playbooks(&tx).get(id)?;
        let removed = DraftsMut(&tx).remove(row.pk, number)?;
        tx.commit()?;
        Ok(removed)
    }

    /// The playbook's own preview scenarios, by name.
    pub fn scenarios(&self, id: &PlaybookId) -> Result<Vec<StoredScenario>> {
        let row = Playbooks(&self.conn).get(id)?;
        Scenarios(&self.conn).list(row.pk, id)
    }

    /// One of the playbook's scenarios.
    pub fn scenario(&self, id: &PlaybookId, name: &str) -> Result<StoredScenario> {
        let row = Playbooks(&self.conn).get(id)?;
        Scenarios(&self.conn)
            .get(row.pk, id, name)?
            .ok_or_else(|| Error::NotFound {
                what: format!("scenario {name:?} of playbook {id:?}"),
            })
    }

    /// Keeps a scenario with the playbook under `name`, replacing one of
    /// that name. The text is stored as given; check it before.
    pub fn save_scenario(
        &mut self,
        id: &PlaybookId,
        name: &str,
        content: &str,
    ) -> Result<StoredScenario> {
        scenarios::check_name(name)?;
        if content.len() > scenarios::MAX_SCENARIO_BYTES {
            return Err(Error::InvalidInput {
                message: format!(
                    "the scenario is {} bytes; the limit is {} bytes",
                    content.len(),
                    scenarios::MAX_SCENARIO_BYTES
                ),
            });
        }
        let tx = self.write()?;
        let row = Playbooks(&tx).live(id)?;
        let now = db::now(&tx)?;
        ScenariosMut(&tx).put(row.pk, name, content, &now)?;
        tx.commit()?;
        Ok(StoredScenario {
            playbook: id.clone(),
            name: name.to_string(),
            content: content.to_string(),
            updated_at: now,
        })
    }

    /// Removes one of the playbook's scenarios; returns whether it existed.
    pub fn delete_scenario(&mut self, id: &PlaybookId, name: &str) -> Result<bool> {
        let tx = self.write()?;
        let row = Playbooks(&tx).live(id)?;
        let removed = ScenariosMut(&tx).remove(row.pk, name)?;
        tx.commit()?;
        Ok(removed)
    }
}

pub(crate) fn version_not_found(id: &PlaybookId, number: u32) -> Error {
    Error::NotFound {
        what: format!("version {number} of playbook `{id}`"),
    }
}

fn check_id(id: &PlaybookId, content: &Content) -> Result<()> {
    if content.id != *id {
        return Err(Error::InvalidPlaybook {
            message: format!(
                "the text has id {:?} but is saved to playbook {:?}; to keep it under another id, duplicate the playbook",
                content.id.as_str(),
                id.as_str()
            ),
            findings: Vec::new(),
        });
    }
    Ok(())
}

/// The latest version's playbook and the text it was saved from.
fn head_playbook(
    tx: &Transaction<'_>,
    row: &PlaybookRow,
) -> Result<(Playbook, Option<crate::types::Authored>)> {
    let head = Versions(tx)
        .get(row.pk, &row.id, row.head)?
        .ok_or_else(|| version_not_found(&row.id, row.head))?;
    Ok((head.playbook(&row.id)?, head.authored))
}

pub(crate) fn create_in(tx: &Transaction<'_>, content: &Content, note: &str) -> Result<Saved> {
    let now = db::now(tx)?;
    let row = PlaybooksMut(tx).insert(&content.id, &content.name, &now)?;
    let version = VersionsMut(tx).insert(row.pk, 1, None, content, note, &now)?;
    PlaybooksMut(tx).set_head(row.pk, 1, &content.name, &now)?;
    Ok(Saved {
        playbook: content.id.clone(),
        version,
        unchanged: false,
    })
}

/// The one place a version is added to an existing playbook.
pub(crate) fn save_in(
    tx: &Transaction<'_>,
    row: &PlaybookRow,
    base: Base,
    content: &Content,
    note: &str,
) -> Result<Saved> {
    if let Base::Version(edited) = base
        && edited != row.head
    {
        return Err(Error::ConcurrencyConflict {
            what: "playbook",
            playbook: row.id.to_string(),
            edited,
            latest: row.head,
            // Set by the caller that keeps the text (`save_version`).
            draft: None,
        });
    }
    let head = Versions(tx)
        .info(row.pk, row.head)?
        .ok_or_else(|| version_not_found(&row.id, row.head))?;
    if head.content_hash == content.hash {
        return Ok(Saved {
            playbook: row.id.clone(),
            version: head,
            unchanged: true,
        });
    }
    let now = db::now(tx)?;
    let version =
        VersionsMut(tx).insert(row.pk, row.head + 1, Some(row.head), content, note, &now)?;
    PlaybooksMut(tx).set_head(row.pk, version.number, &content.name, &now)?;
    Ok(Saved {
        playbook: row.id.clone(),
        version,
        unchanged: false,
    })
}

/// A successful save makes a draft obsolete only when the draft holds what
/// was saved; drafts with other edits (say, from the app while the CLI
/// saved a file, or another refused save) are kept.
fn clear_matching_draft(
    tx: &Transaction<'_>,
    row: &PlaybookRow,
    saved_text: &str,
    saved: &VersionInfo,
) -> Result<()> {
    for draft in Drafts(tx).list(row.pk, &row.id)? {
        let same = draft.content == saved_text
            || Content::from_text(&draft.content, draft.format)
                .is_ok_and(|c| c.hash == saved.content_hash);
        if same {
            DraftsMut(tx).remove(row.pk, draft.number)?;
        }
    }
    Ok(())
}
