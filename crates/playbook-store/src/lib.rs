//! The playbook library of Playbook Studio: an SQLite file holding
//! playbooks, their immutable versions, their unsaved drafts,
//! the team's role templates, preview runs with their events, and each
//! playbook's own preview scenarios.
//!
//! This crate is the only code that touches the database. It uses the core
//! for everything about content: text is parsed and validated by
//! `playbook_core`, stored as canonical JSON with its sha256, and compared
//! with `playbook_core::diff`. Beside the canonical JSON, a version and a
//! draft keep the text they were written as ([`Authored`]), so comments
//! and layout survive the library: exports give that text back.
//!
//! ```
//! use playbook_store::{Base, PlaybookId, Store};
//! use playbook_core::Format;
//!
//! let dir = tempfile::tempdir().unwrap();
//! let mut store = Store::open(dir.path().join("library.db")).unwrap();
//! let saved = store
//!     .create_from_text("id: demo\nname: Demo\nworkflow: {}\n", Format::Yaml, "first")
//!     .unwrap();
//! let id = PlaybookId::new("demo").unwrap();
//! // Saving names the version it edited; a stale base fails with CONCURRENCY_CONFLICT.
//! store
//!     .save_version(&id, Base::Version(saved.version.number), "id: demo\nname: Demo 2\nworkflow: {}\n", Format::Yaml, "rename")
//!     .unwrap();
//! let stale = store.save_version(&id, Base::Version(1), "id: demo\nname: Other\nworkflow: {}\n", Format::Yaml, "");
//! assert_eq!(stale.unwrap_err().code().as_str(), "CONCURRENCY_CONFLICT");
//! ```
//!
//! **Design.** Each table is a module holding its migration next to its
//! code; reads go through handles wrapping `&Connection`, writes through
//! handles wrapping a `Transaction`, and every public method that writes is
//! one `IMMEDIATE` transaction: it happens completely or not at all, and the
//! check of the latest version cannot race another connection's save. The
//! file runs in WAL mode with `synchronous = FULL`, so a version that a save
//! reported is on disk, and a process killed at any point leaves the file
//! consistent. Versions are never updated (a trigger enforces it); restore
//! adds a new version. Opening never writes to a file that is not ours:
//! see [`Store::open`].

pub mod agent_files;
mod content;
mod copies;
pub mod crew_files;
mod db;
mod drafts;
mod error;
mod files;
mod location;
mod playbooks;
mod runs;
mod scenarios;
mod seed;
mod staging;
mod store;
mod templates;
mod types;
pub mod userfile;
mod versions;

pub use content::{blank, from_role_templates};
pub use db::{Durability, schema_version};
pub use error::{Error, ErrorCode, Result, is_disk_full};
pub use files::{ImportOutcome, Imported, Source};
pub use location::{DB_ENV, DB_FILE, resolve_db_path};
pub use scenarios::{MAX_SCENARIO_BYTES, MAX_SCENARIO_NAME_CHARS};
pub use seed::example_files;
pub use store::Store;
pub use templates::TemplateSaved;
pub use types::{
    Authored, Base, Draft, DraftNumber, PlaybookId, PlaybookSummary, Run, RunEvent, RunId, Saved,
    StoredScenario, Template, TemplateSource, TemplateSummary, Validity, Version, VersionId,
    VersionInfo,
};
