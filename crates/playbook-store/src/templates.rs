//! The `templates` and `template_versions` tables: the team's own role
//! templates, versioned like playbooks so a team lead can review and curate
//! what a team starts from. The built-in templates come from the core and
//! are listed beside them; their names are reserved.

use playbook_core::document::Format;
use playbook_core::model::{Role, RoleMode};
use playbook_core::templates::role_template;
use rusqlite::{Connection, OptionalExtension, Transaction, params};

use crate::content::{role_from_text, role_json, sha256_hex};
use crate::db::{self, Migration};
use crate::error::{Error, Result};
use crate::store::Store;
use crate::types::{
    Base, Template, TemplateSource, TemplateSummary, Validity, VersionId, VersionInfo, check_name,
};

pub(crate) const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    sql: "
        CREATE TABLE templates (
            pk         INTEGER PRIMARY KEY,
            name       TEXT NOT NULL UNIQUE,
            head       INTEGER NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            deleted_at TEXT
        ) STRICT;
        CREATE TABLE template_versions (
            pk           INTEGER PRIMARY KEY,
            template     INTEGER NOT NULL REFERENCES templates (pk) ON DELETE CASCADE,
            number       INTEGER NOT NULL,
            parent       INTEGER,
            content      TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            note         TEXT NOT NULL,
            created_at   TEXT NOT NULL,
            UNIQUE (template, number)
        ) STRICT;
        CREATE TRIGGER template_versions_are_immutable BEFORE UPDATE ON template_versions
        BEGIN
            SELECT RAISE(ABORT, 'template versions are immutable');
        END;
    ",
}];

const COLUMNS: &str = "v.pk, v.number, v.parent, v.content_hash, v.note, v.created_at, v.content";

fn builtin(name: &str) -> Option<RoleMode> {
    RoleMode::ALL.into_iter().find(|m| m.as_str() == name)
}

fn what(name: &str) -> String {
    format!("template {name:?}")
}

struct TemplateRow {
    pk: i64,
    head: u32,
    deleted: bool,
}

/// Read handle.
struct Templates<'a>(&'a Connection);

impl Templates<'_> {
    fn find(&self, name: &str) -> Result<Option<TemplateRow>> {
        Ok(self
            .0
            .query_row(
                "SELECT pk, head, deleted_at IS NOT NULL FROM templates WHERE name = ?1",
                [name],
                |r| {
                    Ok(TemplateRow {
                        pk: r.get(0)?,
                        head: r.get(1)?,
                        deleted: r.get(2)?,
                    })
                },
            )
            .optional()?)
    }

    fn version(&self, pk: i64, number: u32) -> Result<Option<(VersionInfo, String)>> {
        let sql = format!(
            "SELECT {COLUMNS} FROM template_versions v WHERE v.template = ?1 AND v.number = ?2"
        );
        Ok(self
            .0
            .query_row(&sql, params![pk, number], |r| Ok((info(r)?, r.get(6)?)))
            .optional()?)
    }
}

fn info(r: &rusqlite::Row<'_>) -> rusqlite::Result<VersionInfo> {
    Ok(VersionInfo {
        id: VersionId(r.get(0)?),
        number: r.get(1)?,
        parent: r.get(2)?,
        content_hash: r.get(3)?,
        note: r.get(4)?,
        created_at: r.get(5)?,
        // Templates are single roles; playbook validation does not apply.
        validity: Validity::default(),
    })
}

/// Write handle.
struct TemplatesMut<'a>(&'a Transaction<'a>);

impl TemplatesMut<'_> {
    fn insert(&self, name: &str, now: &str) -> Result<TemplateRow> {
        self.0.execute(
            "INSERT INTO templates (name, head, created_at, updated_at) VALUES (?1, 0, ?2, ?2)",
            params![name, now],
        )?;
        Ok(TemplateRow {
            pk: self.0.last_insert_rowid(),
            head: 0,
            deleted: false,
        })
    }

    fn add_version(
        &self,
        row: &TemplateRow,
        content: &str,
        hash: &str,
        note: &str,
        now: &str,
    ) -> Result<VersionInfo> {
        let number = row.head + 1;
        let parent = (row.head > 0).then_some(row.head);
        self.0.execute(
            "INSERT INTO template_versions (template, number, parent, content, content_hash, note, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![row.pk, number, parent, content, hash, note, now],
        )?;
        let id = VersionId(self.0.last_insert_rowid());
        self.0.execute(
            "UPDATE templates SET head = ?2, updated_at = ?3, deleted_at = NULL WHERE pk = ?1",
            params![row.pk, number, now],
        )?;
        Ok(VersionInfo {
            id,
            number,
            parent,
            content_hash: hash.to_string(),
            note: note.to_string(),
            created_at: now.to_string(),
            validity: Validity::default(),
        })
    }
}

impl Store {
    /// The built-in templates, then the team's, by name.
    pub fn templates(&self) -> Result<Vec<TemplateSummary>> {
        let mut list: Vec<TemplateSummary> = RoleMode::ALL
            .into_iter()
            .map(|mode| TemplateSummary {
                name: mode.as_str().to_string(),
                source: TemplateSource::Builtin,
                mode: Some(mode),
                latest: 0,
                updated_at: None,
            })
            .collect();
        let mut statement = self.conn.prepare(
            "SELECT t.name, t.head, t.updated_at, v.content FROM templates t
             JOIN template_versions v ON v.template = t.pk AND v.number = t.head
             WHERE t.deleted_at IS NULL ORDER BY t.name",
        )?;
        let rows = statement.query_map([], |r| {
            let content: String = r.get(3)?;
            let mode = serde_json::from_str::<Role>(&content)
                .ok()
                .and_then(|role| role.mode);
            Ok(TemplateSummary {
                name: r.get(0)?,
                source: TemplateSource::Team,
                mode,
                latest: r.get(1)?,
                updated_at: r.get(2)?,
            })
        })?;
        list.extend(rows.collect::<rusqlite::Result<Vec<_>>>()?);
        Ok(list)
    }

    /// A template as pretty JSON; for a team template the given version or the latest.
    pub fn template(&self, name: &str, number: Option<u32>) -> Result<Template> {
        if let Some(mode) = builtin(name) {
            return Ok(Template {
                name: name.to_string(),
                source: TemplateSource::Builtin,
                version: None,
                content: role_json(&role_template(mode))?,
            });
        }
        let templates = Templates(&self.conn);
        let row = templates
            .find(name)?
            .filter(|row| !row.deleted)
            .ok_or_else(|| Error::NotFound { what: what(name) })?;
        let number = number.unwrap_or(row.head);
        let (version, content) =
            templates
                .version(row.pk, number)?
                .ok_or_else(|| Error::NotFound {
                    what: format!("version {number} of template {name:?}"),
                })?;
        Ok(Template {
            name: name.to_string(),
            source: TemplateSource::Team,
            version: Some(version),
            content,
        })
    }

    /// The typed role of a template.
    pub fn template_role(&self, name: &str, number: Option<u32>) -> Result<Role> {
        role_from_text(&self.template(name, number)?.content, Format::Json)
    }

    /// Every version of a team template, newest first.
    pub fn template_history(&self, name: &str) -> Result<Vec<VersionInfo>> {
        let row = Templates(&self.conn)
            .find(name)?
            .ok_or_else(|| Error::NotFound { what: what(name) })?;
        let sql = format!(
            "SELECT {COLUMNS} FROM template_versions v WHERE v.template = ?1 ORDER BY v.number DESC"
        );
        let mut statement = self.conn.prepare(&sql)?;
        let rows = statement.query_map([row.pk], info)?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    /// What changed in team template `name` from version `from` to `to`.
    pub fn template_diff(
        &self,
        name: &str,
        from: u32,
        to: u32,
    ) -> Result<playbook_core::diff::Diff> {
        let old = self.template_role(name, Some(from))?;
        let new = self.template_role(name, Some(to))?;
        Ok(playbook_core::diff::diff_roles(&old, &new))
    }

    /// Saves `role` as the next version of team template `name`, creating it
    /// when new. `base` works as for playbooks.
    pub fn save_template(
        &mut self,
        name: &str,
        role: &Role,
        base: Base,
        note: &str,
    ) -> Result<TemplateSaved> {
        check_name(name)?;
        if builtin(name).is_some() {
            return Err(Error::InvalidName {
                name: name.to_string(),
                reason: "it is the name of a built-in template; choose another, e.g. team-"
                    .to_string()
                    + name,
            });
        }
        let content = role_json(role)?;
        let hash = sha256_hex(&content);
        let tx = self.write()?;
        let now = db::now(&tx)?;
        let row = match Templates(&tx).find(name)? {
            Some(row) => row,
            None => TemplatesMut(&tx).insert(name, &now)?,
        };
        if let Base::Version(edited) = base
            && edited != row.head
        {
            return Err(Error::ConcurrencyConflict {
                what: "template",
                playbook: name.to_string(),
                edited,
                latest: row.head,
                // A template's refused role is not kept: the message says
                // nothing was saved, and the caller still has it.
                draft: None,
            });
        }
        if row.head > 0 && !row.deleted {
            let (head, _) = Templates(&tx)
                .version(row.pk, row.head)?
                .ok_or_else(|| Error::NotFound { what: what(name) })?;
            if head.content_hash == hash {
                return Ok(TemplateSaved {
                    name: name.to_string(),
                    version: head,
                    unchanged: true,
                });
            }
        }
        let version = TemplatesMut(&tx).add_version(&row, &content, &hash, note, &now)?;
        tx.commit()?;
        Ok(TemplateSaved {
            name: name.to_string(),
            version,
            unchanged: false,
        })
    }

    /// Saves a role from YAML or JSON text as a team template.
    pub fn save_template_text(
        &mut self,
        name: &str,
        text: &str,
        format: Format,
        base: Base,
        note: &str,
    ) -> Result<TemplateSaved> {
        let role = role_from_text(text, format)?;
        self.save_template(name, &role, base, note)
    }

    /// Removes a team template from the list; its versions stay and saving
    /// under the same name again continues its history.
    pub fn delete_template(&mut self, name: &str) -> Result<()> {
        let tx = self.write()?;
        let row = Templates(&tx)
            .find(name)?
            .filter(|row| !row.deleted)
            .ok_or_else(|| Error::NotFound { what: what(name) })?;
        let now = db::now(&tx)?;
        tx.execute(
            "UPDATE templates SET deleted_at = ?2 WHERE pk = ?1",
            params![row.pk, now],
        )?;
        tx.commit()?;
        Ok(())
    }
}

/// What saving a template did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
#[ts(export)]
pub struct TemplateSaved {
    pub name: String,
    pub version: VersionInfo,
    pub unchanged: bool,
}
