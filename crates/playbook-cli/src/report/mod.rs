//! Machine reports of `playbook validate` for the places teams review:
//! SARIF for code scanning, workflow commands for GitHub Actions. Both are
//! built from the same per-file outcomes as the text and JSON output, so the
//! exit code and the set of findings never differ between formats.

pub mod docs;
pub mod github;
pub mod sarif;
