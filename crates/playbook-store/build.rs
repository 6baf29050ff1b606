//! Embeds the example playbooks of `playbooks/` into the library, so that a
//! new library can be seeded without any file at run time. Scanning the
//! directory (rather than naming each file) keeps the build working while
//! examples are added or renamed.

use std::path::Path;

fn main() {
    // Read when the script runs, not when it is compiled (`env!`): cargo
    // reuses a compiled build script for a checkout at another path, and the
    // path it was compiled in may be gone.
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dir = Path::new(&manifest).join("../../playbooks");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read the examples in {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    // A library seeded with nothing would be a broken build, not a choice.
    assert!(
        !files.is_empty(),
        "no example playbook (*.yaml) in {}",
        dir.display()
    );
    files.sort();
    let mut code = String::from(
        "/// Example playbooks: (file name, YAML text).\npub(crate) const EXAMPLES: &[(&str, &str)] = &[\n",
    );
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let absolute = path.canonicalize().unwrap_or_else(|_| path.clone());
        code.push_str(&format!(
            "    ({name:?}, include_str!({:?})),\n",
            absolute.display().to_string()
        ));
    }
    code.push_str("];\n");
    let out = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("examples.rs");
    std::fs::write(out, code).expect("OUT_DIR is writable");
}
