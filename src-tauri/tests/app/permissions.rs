//! Every command the app registers can be invoked by its window: a command
//! in `generate_handler!` without its `allow-…` permission is refused at
//! run time ("… not allowed. Command not found") however well it works in
//! the unit tests. The three places must name the same commands.

use std::collections::BTreeSet;

fn source(path: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// The text between `open` and the next `close` after it.
fn between<'a>(text: &'a str, open: &str, close: &str) -> &'a str {
    let start = text.find(open).unwrap_or_else(|| panic!("no `{open}`")) + open.len();
    let end = text[start..]
        .find(close)
        .unwrap_or_else(|| panic!("no `{close}`"));
    &text[start..start + end]
}

fn registered() -> BTreeSet<String> {
    let lib = source("src/lib.rs");
    between(&lib, "generate_handler![", "]")
        .split(',')
        .map(|h| h.trim().rsplit("::").next().unwrap_or("").to_string())
        .filter(|h| !h.is_empty())
        .collect()
}

#[test]
fn every_registered_command_is_declared_and_allowed_to_the_window() {
    let commands = registered();
    assert!(commands.len() > 50, "parsed the handler list: {commands:?}");

    let build = source("build.rs");
    let declared: BTreeSet<String> = between(&build, "const COMMANDS: &[&str] = &[", "];")
        .split(',')
        .map(|c| c.trim().trim_matches('"').to_string())
        .filter(|c| !c.is_empty())
        .collect();
    assert_eq!(
        commands, declared,
        "build.rs COMMANDS must list exactly the commands of generate_handler!"
    );

    let capability: serde_json::Value =
        serde_json::from_str(&source("capabilities/default.json")).unwrap();
    let allowed: BTreeSet<String> = capability["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p.as_str()?.strip_prefix("allow-"))
        .map(|p| p.replace('-', "_"))
        .collect();
    let missing: Vec<&String> = commands.iter().filter(|c| !allowed.contains(*c)).collect();
    assert!(
        missing.is_empty(),
        "capabilities/default.json must allow every command; missing: {missing:?}"
    );
    let unknown: Vec<&String> = allowed.iter().filter(|a| !commands.contains(*a)).collect();
    assert!(
        unknown.is_empty(),
        "allowed but not registered: {unknown:?}"
    );
}
