//! Recently opened files (Open Recent), newest first, kept beside the
//! library database so each library has its own list.
//!
//! Only this side adds to the list, and only paths the person chose (a
//! dialog, a drop, a launch with a file): a path in the list was chosen once,
//! so choosing it again from the menu may grant it (`grants.rs`). The list is
//! a convenience: a missing or unreadable file gives an empty list, and a
//! failed write is reported on stderr, never to the person's work.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// How many files Open Recent lists.
pub const MAX_RECENT: usize = 10;

/// The recent files (Tauri managed state).
#[derive(Debug)]
pub struct Recent {
    file: PathBuf,
    list: Mutex<Vec<String>>,
}

impl Recent {
    /// The list kept in `file` (`recent.json` beside the library).
    pub fn load(file: PathBuf) -> Recent {
        let list = std::fs::read(&file)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Vec<String>>(&bytes).ok())
            .map(|mut list| {
                list.truncate(MAX_RECENT);
                list
            })
            .unwrap_or_default();
        Recent {
            file,
            list: Mutex::new(list),
        }
    }

    /// The list for the library at `database`.
    pub fn beside(database: &Path) -> Recent {
        let dir = database.parent().unwrap_or(Path::new("."));
        Recent::load(dir.join("recent.json"))
    }

    /// Puts `path` first; `false` when it already was.
    pub fn add(&self, path: &Path) -> bool {
        let path = path.display().to_string();
        let mut list = self.lock();
        if list.first() == Some(&path) {
            return false;
        }
        list.retain(|p| *p != path);
        list.insert(0, path);
        list.truncate(MAX_RECENT);
        self.save(&list);
        true
    }

    pub fn get(&self, index: usize) -> Option<String> {
        self.lock().get(index).cloned()
    }

    pub fn list(&self) -> Vec<String> {
        self.lock().clone()
    }

    pub fn clear(&self) {
        let mut list = self.lock();
        list.clear();
        self.save(&list);
    }

    fn save(&self, list: &[String]) {
        let written = serde_json::to_vec_pretty(list)
            .map_err(std::io::Error::other)
            .and_then(|text| {
                if let Some(dir) = self.file.parent() {
                    std::fs::create_dir_all(dir)?;
                }
                playbook_store::userfile::write_atomically(&self.file, &text)
            });
        if let Err(e) = written {
            eprintln!(
                "playbook-studio: the recent files list could not be kept in {}: {e}",
                self.file.display()
            );
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<String>> {
        self.list.lock().unwrap_or_else(|e| e.into_inner())
    }
}
