//! The example playbooks a new library starts with.

use playbook_core::document::Format;
use rusqlite::Transaction;

use crate::content::Content;
use crate::error::Result;
use crate::playbooks::Playbooks;
use crate::store::create_in;

include!(concat!(env!("OUT_DIR"), "/examples.rs"));

/// Adds every example to a new library. An example that does not parse is
/// skipped rather than failing the open: a user's library must open even if
/// a build shipped a broken example (a test keeps that from happening).
pub(crate) fn examples(tx: &Transaction<'_>) -> Result<()> {
    for (name, text) in EXAMPLES {
        let Ok(content) = Content::from_text(text, Format::Yaml) else {
            continue;
        };
        if Playbooks(tx).find(&content.id)?.is_some() {
            continue;
        }
        create_in(tx, &content, &format!("example playbook {name}"))?;
    }
    Ok(())
}

/// The embedded examples, for tests and `playbook db` diagnostics.
pub fn example_files() -> &'static [(&'static str, &'static str)] {
    EXAMPLES
}
