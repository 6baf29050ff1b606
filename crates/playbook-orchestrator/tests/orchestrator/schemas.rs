//! The schema the preview adds to `schemas/` (the scenario) is fresh. The
//! envelope schemas it re-publishes are checked where they are defined, in
//! `playbook-contracts`.

use playbook_orchestrator::envelope;

use crate::repo_dir;

/// Writes the schemas when `UPDATE_SCHEMAS=1`; otherwise fails when a file differs.
#[test]
fn published_schemas_are_up_to_date() {
    let dir = repo_dir().join("schemas");
    let update = std::env::var_os("UPDATE_SCHEMAS").is_some();
    let envelopes: Vec<&str> = playbook_contracts::published()
        .iter()
        .map(|p| p.file)
        .collect();
    for published in envelope::published()
        .into_iter()
        .filter(|p| !envelopes.contains(&p.file))
    {
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
