//! The core of Playbook Studio: the playbook model, its validation, role
//! templates and the preview orchestrator.
//!
//! Everything here is pure: no file, network or database access, and no
//! panics on user input. Callers (the CLI, the store, the desktop app) pass
//! text in and get values and findings back:
//!
//! ```
//! use playbook_core::{Format, Options, validate_source};
//!
//! let text = "id: demo\nname: Demo\nworkflow:\n  build:\n    roles:\n      - name: coder\n        handoff_to: [nobody]\n";
//! let report = validate_source(text, Format::Yaml, &Options::default());
//! assert!(!report.allow());
//! assert!(report.findings.iter().any(|f| f.code.as_str() == "PB301"));
//! ```
//!
//! Validation never stops at the first problem: [`validate_source`] returns
//! the parsed playbook (when it parses) together with every finding.

pub mod diff;
pub mod document;
pub mod edit;
pub mod events;
pub mod finding;
pub mod fix;
pub mod flow;
pub mod gate;
pub mod ids;
pub mod interop;
pub mod legacy;
pub mod locate;
pub mod model;
pub mod printable;
pub mod schema;
pub mod scope;
pub mod templates;
pub mod validate;

pub use document::{Format, MAX_DOCUMENT_BYTES};
pub use finding::{Code, Finding, Location, Severity};
pub use model::{
    Gates, OutputsContract, Playbook, RetryPolicy, Role, RoleMode, Stage, StagePolicy,
};
pub use validate::{
    Options, Report, Session, validate, validate_parsed, validate_source, validate_value,
};
