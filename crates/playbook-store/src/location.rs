//! Where the library file lives.

use std::path::PathBuf;

/// Environment variable that overrides the library location.
pub const DB_ENV: &str = "PLAYBOOK_DB";

/// File name of the library inside the data directory.
pub const DB_FILE: &str = "library.db";

/// The library path: `explicit` (from `--db`) if given, else `$PLAYBOOK_DB`
/// if set and non-empty, else `library.db` in the platform data directory
/// (`~/.local/share/playbook-studio` on Linux, `~/Library/Application
/// Support/studio.playbook.playbook-studio` on macOS, `%APPDATA%` on Windows).
/// When no home directory is known, the current directory is used.
pub fn resolve_db_path(explicit: Option<PathBuf>) -> PathBuf {
    if let Some(path) = explicit {
        return path;
    }
    if let Some(path) = std::env::var_os(DB_ENV).filter(|p| !p.is_empty()) {
        return PathBuf::from(path);
    }
    directories::ProjectDirs::from("studio", "playbook", "playbook-studio")
        .map(|dirs| dirs.data_dir().join(DB_FILE))
        .unwrap_or_else(|| PathBuf::from(DB_FILE))
}
