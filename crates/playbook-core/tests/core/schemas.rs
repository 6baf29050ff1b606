//! The checked-in schemas are the generated ones.

#[test]
fn checked_in_schemas_are_up_to_date() {
    for published in playbook_core::schema::published() {
        let path = crate::repo_root().join("schemas").join(published.file);
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        let fresh = serde_json::to_string_pretty(&published.schema).unwrap() + "\n";
        assert!(
            on_disk == fresh,
            "schemas/{} is stale; regenerate with `cargo run -p playbook-cli -- schema --out schemas`",
            published.file
        );
    }
}

#[test]
fn the_examples_validate_against_the_published_schema_with_an_independent_validator() {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(crate::repo_root().join("schemas/playbook.schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    for name in [
        "tdd.yaml",
        "pairing.yaml",
        "compound-engineering.yaml",
        "legacy.yaml",
    ] {
        let text =
            std::fs::read_to_string(crate::repo_root().join("playbooks").join(name)).unwrap();
        let value: serde_json::Value = yaml_serde::from_str(&text).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
    }
}
