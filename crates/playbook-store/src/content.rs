//! Canonical content: what a version stores.
//!
//! Text is parsed with the core's reader and written back as pretty JSON by
//! the core's writer. The model keeps absent keys absent and unknown keys
//! verbatim, so canonical JSON loses nothing but formatting and comments;
//! exporting it as YAML and importing that again yields the same bytes, and
//! the same content hash.
//!
//! Canonical JSON stays the identity of a version (its hash, equality,
//! diffs). Beside it a version keeps the text it was saved from
//! ([`Authored`]: comments, blank lines, key order), which exports and the
//! app's editor rewrite to the value instead of rendering it afresh.

use playbook_core::document::{self, Format};
use playbook_core::model::{Playbook, Role};
use playbook_core::{Options, Severity, validate_source};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::types::{Authored, PlaybookId, Validity, check_name_characters};

/// A playbook ready to be stored as a version: what a version row and the
/// playbook row need, and no more (the typed playbook, often the largest
/// part, is dropped once rendered), so an import can stage it as a row.
#[derive(Debug, Clone)]
pub(crate) struct Content {
    /// The display name (the playbook row shows it).
    pub name: String,
    pub id: PlaybookId,
    pub canonical: String,
    pub hash: String,
    pub validity: Validity,
    /// The author's text, when it says more than the canonical JSON.
    pub authored: Option<Authored>,
}

impl Content {
    /// Parses user text. Structural problems refuse the text; semantic
    /// findings only count into the validity summary, because an author must
    /// be able to save work in progress.
    pub fn from_text(text: &str, format: Format) -> Result<Content> {
        let mut content = Content::parse(text, format)?;
        // Text that is the canonical JSON itself adds nothing worth keeping.
        if text != content.canonical && text.len() <= document::MAX_DOCUMENT_BYTES {
            content.authored = Some(Authored {
                text: text.to_string(),
                format,
            });
        }
        Ok(content)
    }

    /// [`Content::from_text`] of a text the caller gives up: it becomes the
    /// kept source without a copy (import reads many large files).
    pub fn from_owned_text(text: String, format: Format) -> Result<Content> {
        let mut content = Content::parse(&text, format)?;
        if text != content.canonical && text.len() <= document::MAX_DOCUMENT_BYTES {
            content.authored = Some(Authored { text, format });
        }
        Ok(content)
    }

    fn parse(text: &str, format: Format) -> Result<Content> {
        let report = validate_source(text, format, &Options::default());
        let validity = validity_of(&report);
        let Some(playbook) = report.playbook else {
            return Err(Error::InvalidPlaybook {
                message: "the text is not a playbook".into(),
                findings: report.findings,
            });
        };
        // The findings of the typed playbook do not depend on formatting, so
        // the counts of the caller's text are those of the canonical text.
        Content::build(playbook, validity)
    }

    /// Keeps `base`'s comments and layout for content built in code
    /// (restore, rename, duplicate): its text is rewritten to this content's
    /// value, and kept only when the rewrite changed nothing but the values
    /// and reads back as this very content.
    pub fn with_authored_from(mut self, base: Option<Authored>) -> Content {
        self.authored = base.and_then(|base| kept_text(&base, &self.canonical, &self.hash));
        self
    }

    /// Content of a playbook built in code (rename, duplicate, restore).
    pub fn from_playbook(playbook: Playbook) -> Result<Content> {
        let canonical = canonical_json(&playbook)?;
        let report = validate_source(&canonical, Format::Json, &Options::default());
        Content::build(playbook, validity_of(&report))
    }

    fn build(playbook: Playbook, validity: Validity) -> Result<Content> {
        let id = PlaybookId::new(playbook.id.clone())?;
        // Every content the library keeps passes here: no name it lists can
        // act on a terminal (the finding at `/name` says the same).
        check_name_characters(&playbook.name)?;
        let canonical = canonical_json(&playbook)?;
        // What is stored must read back: the canonical text (which can be
        // longer than the source, e.g. escapes) stays within the limit
        // every reader applies.
        if canonical.len() > document::MAX_DOCUMENT_BYTES {
            return Err(Error::InvalidPlaybook {
                message: format!(
                    "the playbook is {} bytes as stored; the limit is {} bytes",
                    canonical.len(),
                    document::MAX_DOCUMENT_BYTES
                ),
                findings: Vec::new(),
            });
        }
        Ok(Content {
            hash: sha256_hex(&canonical),
            name: playbook.name,
            id,
            canonical,
            validity,
            authored: None,
        })
    }

    /// Re-reads stored canonical content; the error says why it does not
    /// read (`versions::unreadable` names the version).
    pub fn from_stored(canonical: &str) -> std::result::Result<Playbook, String> {
        let value = document::parse_value(canonical, Format::Json).map_err(|f| f.message)?;
        document::from_value(value).map_err(|f| f.message)
    }
}

/// `authored` rewritten to read as the canonical content `canonical`
/// (whose hash is `hash`), in its own format; `None` when that cannot be
/// done without losing comments or layout, or when the result would not
/// be read back as the same content (then the canonical render is used).
///
/// A text that already reads as that content is given back as it is,
/// byte for byte: the rewrite compares the text's plain reading with the
/// value, and the reader's own normalisations (a legacy file's
/// `max_parallel_worktrees: 0` read as not set, a count written `3.0`)
/// would otherwise be "edited" out of the text the version was saved from.
pub(crate) fn kept_text(authored: &Authored, canonical: &str, hash: &str) -> Option<Authored> {
    if reads_as(&authored.text, authored.format, hash) {
        return Some(authored.clone());
    }
    let value = document::parse_value(canonical, Format::Json).ok()?;
    let edited =
        playbook_core::edit::rewrite_typed(&authored.text, authored.format, &value).ok()?;
    if !edited.preserved || edited.text.len() > document::MAX_DOCUMENT_BYTES {
        return None;
    }
    // The identity of a version is its canonical JSON: the text given back
    // must import as exactly that version.
    reads_as(&edited.text, authored.format, hash).then_some(Authored {
        text: edited.text,
        format: authored.format,
    })
}

/// Whether `text` imports as exactly the version whose hash is `hash`.
fn reads_as(text: &str, format: Format, hash: &str) -> bool {
    validate_source(text, format, &Options::default())
        .playbook
        .and_then(|p| canonical_json(&p).ok())
        .is_some_and(|canonical| sha256_hex(&canonical) == hash)
}

fn validity_of(report: &playbook_core::Report) -> Validity {
    Validity {
        errors: report.count(Severity::Error) as u32,
        warnings: report.count(Severity::Warning) as u32,
        infos: report.count(Severity::Info) as u32,
    }
}

pub(crate) fn canonical_json(playbook: &Playbook) -> Result<String> {
    document::to_string(playbook, Format::Json).map_err(|e| Error::InvalidPlaybook {
        message: e.to_string(),
        findings: Vec::new(),
    })
}

/// Parses a role (a template) from YAML or JSON text.
pub(crate) fn role_from_text(text: &str, format: Format) -> Result<Role> {
    let value = document::parse_value(text, format).map_err(|f| Error::InvalidPlaybook {
        message: "the text is not a role".into(),
        findings: vec![f],
    })?;
    let role: Role = serde_json::from_value(value).map_err(|e| Error::InvalidPlaybook {
        message: format!("the text is not a role: {e}"),
        findings: Vec::new(),
    })?;
    if role.name.trim().is_empty() {
        return Err(Error::InvalidPlaybook {
            message: "the role has an empty name".into(),
            findings: Vec::new(),
        });
    }
    Ok(role)
}

pub(crate) fn role_json(role: &Role) -> Result<String> {
    serde_json::to_string_pretty(role)
        .map(|text| text + "\n")
        .map_err(|e| Error::InvalidPlaybook {
            message: e.to_string(),
            findings: Vec::new(),
        })
}

pub(crate) fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A new playbook with no stages, for "create blank".
pub fn blank(id: &PlaybookId, name: &str) -> Playbook {
    Playbook {
        schema: None,
        schema_version: Some(playbook_core::model::SCHEMA_VERSION.into()),
        id: id.to_string(),
        name: name.to_string(),
        description: None,
        phases: None,
        policies: None,
        run_inputs: None,
        mutating_actions: None,
        workflow: Default::default(),
        extra: Default::default(),
    }
}

/// A new playbook made of the built-in role templates: plan (planner),
/// build (worker ⇄ reviewer) and test (tester).
pub fn from_role_templates(id: &PlaybookId, name: &str) -> Playbook {
    use playbook_core::model::{RoleMode, Stage};
    use playbook_core::templates::role_template;
    let mut playbook = blank(id, name);
    let stage = |modes: &[RoleMode]| Stage {
        roles: Some(modes.iter().map(|m| role_template(*m)).collect()),
        ..Default::default()
    };
    playbook
        .workflow
        .insert("plan".into(), stage(&[RoleMode::Planner]));
    playbook.workflow.insert(
        "build".into(),
        stage(&[RoleMode::Worker, RoleMode::Reviewer]),
    );
    playbook
        .workflow
        .insert("test".into(), stage(&[RoleMode::Tester]));
    playbook
}
