//! Go to definition: from a `handoff_to` entry to the `name:` of the role it
//! names.

use tower_lsp_server::ls_types::{Location, Position, Uri};

use crate::document::Document;
use crate::roles;

pub fn at(document: &Document, uri: &Uri, position: Position) -> Option<Location> {
    let (line, column) = document.index.char_column(&document.text, position);
    let scalar = document.outline.at(line, column)?;
    if scalar.is_key || !roles::is_handoff_entry(&scalar.pointer) {
        return None;
    }
    let target = roles::names(&document.outline).find(|name| name.value == scalar.value)?;
    Some(Location::new(
        uri.clone(),
        document
            .index
            .char_range(&document.text, target.line, target.start, target.end),
    ))
}
