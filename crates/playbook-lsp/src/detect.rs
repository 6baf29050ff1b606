//! Which open files are playbooks. Editors start the server for every YAML
//! and JSON file, so it lints only files that are playbooks by name or say
//! so themselves; any other YAML or JSON gets no diagnostics, no hover and
//! no completion.
//!
//! A file is a playbook when any of these holds:
//! - its name is `playbook.yaml` / `.yml` / `.json`, or ends in
//!   `.playbook.yaml` / `.yml` / `.json`;
//! - its top-level `$schema` names `playbook.schema.json`, or a
//!   `# yaml-language-server: $schema=...` comment does;
//! - it has both a top-level `schema_version` and a top-level `workflow`
//!   (`schema_version` alone is a common key in other formats).

use crate::outline::Outline;

/// The file name of the published playbook schema, as a `$schema` names it.
const SCHEMA_FILE: &str = "playbook.schema.json";

pub fn by_name(uri_path: &str) -> bool {
    let name = uri_path
        .rsplit('/')
        .next()
        .unwrap_or(uri_path)
        .to_ascii_lowercase();
    ["yaml", "yml", "json"]
        .iter()
        .any(|ext| name == format!("playbook.{ext}") || name.ends_with(&format!(".playbook.{ext}")))
}

pub fn by_content(text: &str, outline: &Outline) -> bool {
    let schema_declared = outline
        .scalars
        .iter()
        .any(|s| !s.is_key && s.pointer == "/$schema" && s.value.contains(SCHEMA_FILE));
    let modeline = text
        .lines()
        .take_while(|l| l.trim_start().starts_with('#') || l.trim().is_empty())
        .any(|l| {
            l.contains("yaml-language-server:") && l.contains("$schema=") && l.contains(SCHEMA_FILE)
        });
    let keys: Vec<&str> = outline.top_level_keys().collect();
    schema_declared || modeline || (keys.contains(&"schema_version") && keys.contains(&"workflow"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::LineIndex;

    fn content(text: &str) -> bool {
        by_content(text, &Outline::new(text, &LineIndex::new(text)))
    }

    #[test]
    fn playbooks_are_told_from_other_yaml() {
        assert!(by_name("/a/b/playbook.yaml"));
        assert!(by_name("/a/b/Team.Playbook.JSON"));
        assert!(!by_name("/a/b/docker-compose.yml"));
        assert!(!by_name("/a/myplaybook.yaml"));
        assert!(content("$schema: ../schemas/playbook.schema.json\nid: x\n"));
        assert!(content(
            "# yaml-language-server: $schema=https://playbook.studio/schemas/playbook.schema.json\nid: x\n"
        ));
        assert!(content("{\"schema_version\": \"1.0.0\", \"workflow\": {}}"));
        assert!(!content("schema_version: 2\nservices: {}\n"));
        assert!(!content("name: CI\non: push\njobs: {}\n"));
        assert!(!content("x: 1\nnested:\n  $schema: playbook.schema.json\n"));
    }
}
