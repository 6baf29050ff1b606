//! The schemas the preview publishes (the envelopes, from
//! `playbook-contracts`, and the scenario) are fresh in `schemas/`.

use playbook_orchestrator::envelope;

use crate::repo_dir;

/// Writes the schemas when `UPDATE_SCHEMAS=1`; otherwise fails when a file differs.
#[test]
fn published_schemas_are_up_to_date() {
    let dir = repo_dir().join("schemas");
    let update = std::env::var_os("UPDATE_SCHEMAS").is_some();
    for published in envelope::published() {
        let path = dir.join(published.file);
        let text = serde_json::to_string_pretty(&published.schema).unwrap() + "\n";
        if update {
            std::fs::write(&path, &text).unwrap();
        }
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            on_disk == text,
            "{} is stale; run `UPDATE_SCHEMAS=1 cargo test -p playbook-orchestrator --test orchestrator published`",
            published.file
        );
    }
}
