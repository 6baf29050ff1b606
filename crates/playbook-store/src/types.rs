//! Identifiers and records the store hands out. They serialise as the app
//! receives them and export TypeScript types, so the UI never writes them by hand.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::error::{Error, Result};

/// Stable id of a playbook in the library; the same as the `id` field of its
/// content, e.g. `tdd`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[serde(transparent)]
#[ts(export)]
pub struct PlaybookId(String);

impl PlaybookId {
    /// Checks that `id` can name a playbook and an exported file.
    pub fn new(id: impl Into<String>) -> Result<PlaybookId> {
        let id = id.into();
        check_name(&id)?;
        Ok(PlaybookId(id))
    }

    /// For ids read back from the database, which were checked when written.
    pub(crate) fn unchecked(id: String) -> PlaybookId {
        PlaybookId(id)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for PlaybookId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Ids and template names become file names on export; the rule is the
/// core's (`playbook_core::ids`), the same one `validate` applies, so an id
/// the validator accepts is one the library accepts.
pub(crate) fn check_name(name: &str) -> Result<()> {
    match playbook_core::ids::id_problem(name) {
        Some(reason) => Err(Error::InvalidName {
            name: name.to_string(),
            reason: reason.to_string(),
        }),
        None => Ok(()),
    }
}

/// Longest display name of a playbook, in characters: the schema's
/// `maxLength` for `name` (a test holds the two together).
pub const MAX_NAME_CHARS: usize = 200;

/// Checks a display name the store writes itself (`rename`, `duplicate`,
/// `create` of a blank playbook), so that no operation of the library turns
/// a valid playbook into one the schema refuses (PB002). Text a person saves
/// is their work in progress and is not held to its length rule (the editor
/// shows the finding at `/name` instead); its character rule,
/// [`check_name_characters`], holds for every name.
pub(crate) fn check_display_name(name: &str) -> Result<()> {
    check_name_characters(name)?;
    let chars = name.chars().count();
    let reason = if name.trim().is_empty() {
        "it is empty".to_string()
    } else if chars > MAX_NAME_CHARS {
        format!("it is {chars} characters long; the limit is {MAX_NAME_CHARS}")
    } else {
        return Ok(());
    };
    Err(Error::InvalidDisplayName {
        // The message quotes the name: a long one is cut, not printed whole.
        name: shortened(name, 60),
        reason,
    })
}

/// Refuses a display name holding a control or invisible formatting
/// character, wherever a name enters the library (every content is checked
/// in `Content`, whoever sends it: a save, an import, a rename): shown in a
/// list it would act on the terminal, forge a row or disguise itself. Unlike
/// the length rule this holds for work in progress too: no such name is
/// ever written, so every reader of the library can show names as they are.
/// The rule is the validator's (`display_name_problem`, the finding at `/name`).
pub(crate) fn check_name_characters(name: &str) -> Result<()> {
    match playbook_core::validate::display_name_problem(name) {
        Some(reason) => Err(Error::InvalidDisplayName {
            name: shortened(&playbook_core::printable::printable(name), 60),
            reason,
        }),
        None => Ok(()),
    }
}

/// `name` followed by `suffix` (` (copy)`, ` (2)`), with `name` cut so the
/// result still fits [`MAX_NAME_CHARS`]; a name already too long is left
/// to the validator's finding rather than cut here.
pub(crate) fn suffixed_name(name: &str, suffix: &str) -> String {
    let room = MAX_NAME_CHARS.saturating_sub(suffix.chars().count());
    if name.chars().count() <= room || name.chars().count() > MAX_NAME_CHARS {
        return format!("{name}{suffix}");
    }
    let stem: String = name.chars().take(room).collect();
    format!("{}{suffix}", stem.trim_end())
}

fn shortened(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        text.chars().take(max).chain(['…']).collect()
    }
}

/// Database id of one version, unique across the library. Preview runs refer to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(transparent)]
#[ts(export)]
pub struct VersionId(#[ts(type = "number")] pub i64);

/// Number of one draft, unique in the library and never given to another
/// draft, even once this one is gone: whoever names a draft by number
/// (the app replacing the draft it holds, `db draft --number`) can only
/// ever reach that text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(transparent)]
#[ts(export)]
pub struct DraftNumber(#[ts(type = "number")] pub i64);

impl std::fmt::Display for DraftNumber {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Database id of one preview run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(transparent)]
#[ts(export)]
pub struct RunId(#[ts(type = "number")] pub i64);

/// Which version a save builds on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Base {
    /// The version the author edited; the save fails with
    /// `CONCURRENCY_CONFLICT` when it is no longer the latest.
    Version(u32),
    /// Whatever is latest: for imports and explicit overwrites.
    Latest,
}

/// Finding counts of a version, by severity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Validity {
    pub errors: u32,
    pub warnings: u32,
    pub infos: u32,
}

impl Validity {
    /// Valid means no errors; warnings and hints do not block a run.
    pub fn is_valid(&self) -> bool {
        self.errors == 0
    }
}

/// One immutable version of a playbook (or template), without its content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct VersionInfo {
    pub id: VersionId,
    /// 1, 2, 3... within the playbook.
    pub number: u32,
    /// The version this one was edited from; none for the first.
    pub parent: Option<u32>,
    /// sha256 of the canonical content, lowercase hex.
    pub content_hash: String,
    pub note: String,
    /// UTC, RFC 3339 with milliseconds.
    pub created_at: String,
    pub validity: Validity,
}

/// A version with its canonical content (pretty JSON).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Version {
    pub playbook: PlaybookId,
    #[serde(flatten)]
    pub info: VersionInfo,
    /// The canonical JSON: the version's identity (`content_hash`).
    pub content: String,
    /// The text the version was saved from, comments and layout included,
    /// when it was saved from text; it reads as `content`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    #[ts(optional)]
    pub authored: Option<Authored>,
}

/// Playbook text as its author wrote it: comments, blank lines, key order.
/// Kept beside the canonical content so that exports and the app's editor
/// can give the author's file back with only the edited values changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Authored {
    pub text: String,
    pub format: playbook_core::Format,
}

/// A playbook of the library with its latest version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct PlaybookSummary {
    pub id: PlaybookId,
    pub name: String,
    pub created_at: String,
    pub updated_at: String,
    /// Set when deleted; the playbook is recoverable until purged.
    pub deleted_at: Option<String>,
    pub latest: VersionInfo,
    /// Whether unsaved edits are waiting in a draft.
    pub has_draft: bool,
    /// How many drafts are waiting (each refused save keeps its own).
    pub drafts: u32,
}

/// Unsaved text of a playbook: the app's autosave, or the text of a save
/// that was refused. A playbook may have several; the newest is the one
/// the app opens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Draft {
    pub playbook: PlaybookId,
    /// Names this draft for good (see [`DraftNumber`]).
    pub number: DraftNumber,
    /// Exactly what the author typed; not necessarily valid.
    pub content: String,
    /// The format of `content` (sniffed for drafts kept before it was stored).
    pub format: playbook_core::Format,
    /// The version the draft was started from.
    pub base: Option<u32>,
    pub updated_at: String,
}

/// A preview scenario kept with a playbook (see `Store::save_scenario`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct StoredScenario {
    pub playbook: PlaybookId,
    /// Unique within the playbook; what the preview's picker shows.
    pub name: String,
    /// The scenario text (YAML or JSON) exactly as saved.
    pub content: String,
    pub updated_at: String,
}

/// What a save did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Saved {
    pub playbook: PlaybookId,
    pub version: VersionInfo,
    /// True when the content equalled the latest version, so no version was added.
    pub unchanged: bool,
}

/// Whether a template comes with Playbook Studio or was saved by the team.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum TemplateSource {
    Builtin,
    Team,
}

/// A role template in the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct TemplateSummary {
    pub name: String,
    pub source: TemplateSource,
    pub mode: Option<playbook_core::RoleMode>,
    /// Latest version number; 0 for built-in templates, which have no history.
    pub latest: u32,
    pub updated_at: Option<String>,
}

/// One version of a role template with its content (the role as pretty JSON).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Template {
    pub name: String,
    pub source: TemplateSource,
    /// Absent for built-in templates.
    pub version: Option<VersionInfo>,
    pub content: String,
}

/// One preview run of a playbook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct Run {
    pub id: RunId,
    pub playbook: PlaybookId,
    pub version: Option<VersionId>,
    pub scenario: String,
    /// The seed as stored; u64 seeds round-trip through SQLite's i64 bit for bit.
    #[ts(type = "number")]
    pub seed: u64,
    /// `running` until finished, then whatever the orchestrator reported.
    pub status: String,
    pub started_at: String,
    pub finished_at: Option<String>,
    /// JSON text the orchestrator stored when finishing.
    pub summary: Option<String>,
    pub events: u32,
}

/// One event of a run: its sequence number and JSON text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct RunEvent {
    #[ts(type = "number")]
    pub seq: u64,
    pub event: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use playbook_core::{Format, Options, validate_source};

    /// Whether the core (the schema) refuses `name` as a playbook's name.
    fn schema_refuses(name: &str) -> bool {
        let playbook = crate::content::blank(&PlaybookId::new("p").unwrap(), name);
        let text = playbook_core::document::to_string(&playbook, Format::Json).unwrap();
        validate_source(&text, Format::Json, &Options::default())
            .findings
            .iter()
            .any(|f| f.is_error() && f.path == "/name")
    }

    /// The store's rule is at least the schema's: a name it accepts is one
    /// the schema accepts (it also refuses a name of only spaces, which the
    /// schema lets through). Fails when the schema's `name` gains a rule.
    #[test]
    fn a_name_the_store_accepts_is_one_the_schema_accepts() {
        let names = [
            String::new(),
            " ".into(),
            "a".into(),
            "A long life".into(),
            "x".repeat(MAX_NAME_CHARS),
            "x".repeat(MAX_NAME_CHARS + 1),
            "é".repeat(MAX_NAME_CHARS),
            "é".repeat(MAX_NAME_CHARS + 1),
            "🙂".repeat(MAX_NAME_CHARS),
            "🙂".repeat(MAX_NAME_CHARS + 1),
            "line\nbreak".into(),
            " padded ".into(),
            "a/b\\c".into(),
            ".".into(),
        ];
        for name in &names {
            if check_display_name(name).is_ok() {
                assert!(
                    !schema_refuses(name),
                    "{name:?} is accepted by the store only"
                );
            }
        }
        assert!(schema_refuses(&"x".repeat(MAX_NAME_CHARS + 1)));
        assert!(!schema_refuses(&"x".repeat(MAX_NAME_CHARS)));
    }

    /// The other way for characters: a name the validator refuses for a
    /// character is one no content of the library may carry.
    #[test]
    fn a_name_with_a_control_or_bidi_character_is_refused_as_the_validator_refuses_it() {
        for name in [
            "Evil\u{1b}[31mRED",
            "a\nfake row",
            "x\u{202e}gnp",
            "zero\u{200b}width",
        ] {
            assert!(schema_refuses(name), "{name:?}: the validator refuses it");
            let error = check_name_characters(name).unwrap_err();
            assert_eq!(error.code(), crate::ErrorCode::InvalidName);
            assert!(
                error.to_string().contains("character") && error.to_string().contains("U+"),
                "the error names the character: {error}"
            );
            assert!(
                !error
                    .to_string()
                    .chars()
                    .any(playbook_core::printable::is_unprintable),
                "the error shows the name escaped: {error:?}"
            );
        }
        check_name_characters("Team A (café) ⇄ 日本").unwrap();
    }

    #[test]
    fn a_suffixed_name_fits_when_the_name_did() {
        assert_eq!(suffixed_name("Review", " (copy)"), "Review (copy)");
        for len in [190, 193, 194, 199, 200] {
            let name = "a".repeat(len);
            let made = suffixed_name(&name, " (copy)");
            assert!(made.chars().count() <= MAX_NAME_CHARS, "{len}");
            assert!(made.ends_with(" (copy)"));
        }
        // The cut does not leave a space before the suffix's own.
        let spaced = format!("{} {}", "a".repeat(195), "b".repeat(4));
        assert_eq!(
            suffixed_name(&spaced, " (2)"),
            format!("{} (2)", "a".repeat(195))
        );
        // Already too long: left as it was, for the finding to say.
        let long = "a".repeat(201);
        assert_eq!(suffixed_name(&long, " (2)"), format!("{long} (2)"));
    }
}
