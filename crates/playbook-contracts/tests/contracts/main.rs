//! Integration tests of the wire contracts: one binary, modules by concern.
//! The envelopes' two faces — the typed checks and the published JSON
//! Schemas — are walked through the same tables and must agree.

mod agreement;
mod codes;
mod envelopes;
mod hostile;
mod kinds;
mod timestamps;

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The repository root, where `schemas/`, `docs/` and `tests/` live.
pub fn repo_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// A spec example of `tests/fixtures/envelopes/`.
pub fn fixture(name: &str) -> Value {
    serde_json::from_str(&read(
        &repo_dir().join(format!("tests/fixtures/envelopes/{name}.json")),
    ))
    .unwrap()
}

/// An independent validator of a published schema file, as another tool
/// would build it from `schemas/` (formats asserted).
pub fn schema(file: &str) -> jsonschema::Validator {
    let schema: Value =
        serde_json::from_str(&read(&repo_dir().join("schemas").join(file))).unwrap();
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the published schema compiles")
}
