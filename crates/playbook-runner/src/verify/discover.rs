//! Finding the fastest obvious check of a worktree.
//!
//! The first of these that applies, in this order (a repository usually has
//! one; where it has several, the compiled-language check comes first,
//! since it type-checks as well as tests):
//!
//! 1. `Cargo.toml` → `cargo test`;
//! 2. `package.json` whose `scripts.test` is set and is not npm's
//!    placeholder (`echo "Error: no test specified" && exit 1`) → `npm test`;
//! 3. pytest: `pytest.ini`, `pyproject.toml` with a `[tool.pytest...]`
//!    table, `setup.cfg` with `[tool:pytest]`, `conftest.py`, or `tests/`
//!    holding a `test_*.py` → `python3 -m pytest -q`;
//! 4. `go.mod` → `go test ./...`;
//! 5. `GNUmakefile`, `Makefile` or `makefile` with a `test:` target →
//!    `make test`.
//!
//! Files are read only when they are regular files of at most 1 MiB: the
//! worktree is written by an agent.

use std::path::Path;

const MAX_PROBE_BYTES: usize = 1024 * 1024;

fn argv(words: &[&str]) -> Vec<Vec<String>> {
    vec![words.iter().map(|w| w.to_string()).collect()]
}

fn is_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// The text of a regular file of at most 1 MiB. A link is followed (a
/// repository may link its Makefile), then what it leads to is opened the
/// way every file an agent can plant is: never blocking, regular files
/// only, so a FIFO there cannot hang the verification.
fn probe(path: &Path) -> Option<String> {
    let path = path.canonicalize().ok()?;
    let (bytes, clipped) = crate::regular_file::read_bounded(&path, MAX_PROBE_BYTES).ok()??;
    if clipped {
        return None;
    }
    String::from_utf8(bytes).ok()
}

fn npm_test(root: &Path) -> bool {
    let Some(text) = probe(&root.join("package.json")) else {
        return false;
    };
    let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) else {
        return false;
    };
    match value.pointer("/scripts/test").and_then(|v| v.as_str()) {
        Some(script) => !script.trim().is_empty() && !script.contains("no test specified"),
        None => false,
    }
}

fn pytest(root: &Path) -> bool {
    if is_file(&root.join("pytest.ini")) || is_file(&root.join("conftest.py")) {
        return true;
    }
    let pyproject = probe(&root.join("pyproject.toml"))
        .and_then(|text| toml::from_str::<toml::Table>(&text).ok())
        .is_some_and(|table| {
            table
                .get("tool")
                .and_then(|tool| tool.get("pytest"))
                .is_some()
        });
    if pyproject {
        return true;
    }
    // setup.cfg is INI; a section header is a whole line.
    let setup_cfg = probe(&root.join("setup.cfg"))
        .is_some_and(|text| text.lines().any(|l| l.trim() == "[tool:pytest]"));
    if setup_cfg {
        return true;
    }
    std::fs::read_dir(root.join("tests")).is_ok_and(|dir| {
        dir.flatten().take(10_000).any(|entry| {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            name.starts_with("test_") && name.ends_with(".py")
        })
    })
}

/// A `test` target: `test:` or `test::` at the start of a line, not a
/// variable assignment (`test := ...`).
fn make_test(root: &Path) -> bool {
    ["GNUmakefile", "Makefile", "makefile"].iter().any(|name| {
        probe(&root.join(name)).is_some_and(|text| {
            text.lines().any(|line| {
                let Some(rest) = line.strip_prefix("test") else {
                    return false;
                };
                let rest = rest.trim_start_matches([' ', '\t']);
                rest.starts_with(':') && !rest.starts_with(":=")
            })
        })
    })
}

/// The commands of the fastest obvious check of `root`, or None when there
/// is nothing to run.
pub fn discover(root: &Path) -> Option<Vec<Vec<String>>> {
    if is_file(&root.join("Cargo.toml")) {
        return Some(argv(&["cargo", "test"]));
    }
    if npm_test(root) {
        return Some(argv(&["npm", "test"]));
    }
    if pytest(root) {
        return Some(argv(&["python3", "-m", "pytest", "-q"]));
    }
    if is_file(&root.join("go.mod")) {
        return Some(argv(&["go", "test", "./..."]));
    }
    if make_test(root) {
        return Some(argv(&["make", "test"]));
    }
    None
}
