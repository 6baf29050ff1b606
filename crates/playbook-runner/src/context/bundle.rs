//! Reading the context bundle at the run's commit.

use std::path::Path;

use indexmap::IndexMap;
use playbook_core::document::{Format, parse_value};
use serde::Serialize;
use serde_json::Value;

use super::git::{AtCommit, Entry, Kind};
use super::overlay::Overlay;
use super::permissions::{ROLE_PERMISSIONS, RolePermissions};
use super::{ContextError, match_name, sha256_hex};

/// Largest context bundle, all files together, in bytes.
pub const MAX_BUNDLE_BYTES: u64 = 8 * 1024 * 1024;

/// What a context file is for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ItemKind {
    /// `AGENTS.md`.
    Governance,
    /// `agents/<ROLE>.md` of a role that runs.
    RoleOverlay { role: String },
    /// `policy/*.json`.
    Policy,
}

/// One file of the bundle, as it is at the run's commit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContextItem {
    /// Repository-relative path.
    pub path: String,
    /// SHA-256 (hex) of the file's bytes.
    pub sha256: String,
    #[serde(flatten)]
    pub kind: ItemKind,
    /// The text (UTF-8, at most [`super::MAX_CONTEXT_FILE_BYTES`]).
    #[serde(skip)]
    pub text: String,
}

/// The context bundle of a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Bundle {
    /// Full object id of the commit everything was read at.
    pub commit: String,
    /// `AGENTS.md`, then the overlays in role order, then the policies by
    /// name.
    pub items: Vec<ContextItem>,
    /// Context files the repository does not have, by path (a pattern such
    /// as `policy/*.json` when a whole directory is missing).
    pub absent: Vec<String>,
    /// Parsed `policy/*.json`, by path.
    pub policies: IndexMap<String, Value>,
    /// `policy/role-permissions.json`, when present.
    pub permissions: Option<RolePermissions>,
    /// Role → the enforced part of its overlay.
    pub overlays: IndexMap<String, Overlay>,
}

impl Bundle {
    /// Reads the bundle of `roles` at `commit` of the repository `repo_dir`.
    pub fn read(repo_dir: &Path, commit: &str, roles: &[&str]) -> Result<Bundle, ContextError> {
        let at = AtCommit::resolve(repo_dir, commit)?;
        let mut roles_unique: Vec<&str> = Vec::new();
        for role in roles {
            if role.trim().is_empty() || role.chars().any(char::is_control) {
                return Err(ContextError::BadRole {
                    role: role.escape_debug().to_string(),
                });
            }
            if !roles_unique.contains(role) {
                roles_unique.push(role);
            }
        }
        let root = at.list("")?;
        let mut bundle = Bundle {
            commit: at.commit.clone(),
            ..Bundle::default()
        };

        match root.iter().find(|e| e.name == "AGENTS.md") {
            Some(entry) => {
                let text = read_text(&at, "AGENTS.md", entry)?;
                bundle.push("AGENTS.md".into(), text, ItemKind::Governance)?;
            }
            None => bundle.absent.push("AGENTS.md".into()),
        }

        bundle.read_overlays(&at, &root, &roles_unique)?;
        bundle.read_policies(&at, &root)?;

        if let Some(permissions) = &bundle.permissions {
            for role in &roles_unique {
                match permissions.rule(role) {
                    Ok(Some(_)) => {}
                    Ok(None) => {
                        return Err(ContextError::RoleNotInPolicy {
                            role: role.to_string(),
                            path: ROLE_PERMISSIONS.into(),
                            named: permissions.roles.keys().cloned().collect(),
                        });
                    }
                    Err(candidates) => {
                        return Err(ContextError::InvalidPolicy {
                            path: ROLE_PERMISSIONS.into(),
                            message: format!(
                                "role `{role}` matches several entries only by case ({}); keep one",
                                candidates.join(", ")
                            ),
                        });
                    }
                }
            }
        }
        Ok(bundle)
    }

    /// Bytes read so far; the bundle as a whole is capped too, since every
    /// byte may reach each agent's prompt.
    fn total(&self) -> u64 {
        self.items.iter().map(|i| i.text.len() as u64).sum()
    }

    fn push(&mut self, path: String, text: String, kind: ItemKind) -> Result<(), ContextError> {
        let size = self.total() + text.len() as u64;
        if size > MAX_BUNDLE_BYTES {
            return Err(ContextError::TooLarge {
                path: format!("the context bundle (with {path})"),
                size,
                limit: MAX_BUNDLE_BYTES,
            });
        }
        self.items.push(ContextItem {
            sha256: sha256_hex(text.as_bytes()),
            path,
            kind,
            text,
        });
        Ok(())
    }

    fn read_overlays(
        &mut self,
        at: &AtCommit<'_>,
        root: &[Entry],
        roles: &[&str],
    ) -> Result<(), ContextError> {
        let has_dir = root
            .iter()
            .any(|e| e.name == "agents" && e.kind == Kind::Dir);
        if !has_dir {
            self.absent
                .extend(roles.iter().map(|r| format!("agents/{r}.md")));
            return Ok(());
        }
        let entries = at.list("agents")?;
        let md: Vec<&Entry> = entries
            .iter()
            .filter(|e| e.name.to_lowercase().ends_with(".md") && e.kind != Kind::Dir)
            .collect();
        for role in roles {
            let wanted = format!("{role}.md");
            let found =
                match_name(&wanted, md.iter().map(|e| e.name.as_str())).map_err(|candidates| {
                    ContextError::AmbiguousRoleFile {
                        role: role.to_string(),
                        candidates: candidates.iter().map(|c| format!("agents/{c}")).collect(),
                    }
                })?;
            let Some(name) = found else {
                return Err(ContextError::RoleFileMissing {
                    role: role.to_string(),
                    existing: md.iter().map(|e| format!("agents/{}", e.name)).collect(),
                });
            };
            let Some(entry) = md.iter().find(|e| e.name == name) else {
                continue;
            };
            let path = format!("agents/{name}");
            let text = read_text(at, &path, entry)?;
            let overlay = Overlay::parse(&path, &text)?;
            self.overlays.insert(role.to_string(), overlay);
            self.push(
                path,
                text,
                ItemKind::RoleOverlay {
                    role: role.to_string(),
                },
            )?;
        }
        Ok(())
    }

    fn read_policies(&mut self, at: &AtCommit<'_>, root: &[Entry]) -> Result<(), ContextError> {
        let has_dir = root
            .iter()
            .any(|e| e.name == "policy" && e.kind == Kind::Dir);
        let mut entries: Vec<Entry> = if has_dir {
            at.list("policy")?
                .into_iter()
                .filter(|e| e.name.ends_with(".json") && e.kind != Kind::Dir)
                .collect()
        } else {
            Vec::new()
        };
        if entries.is_empty() {
            self.absent.push("policy/*.json".into());
            return Ok(());
        }
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        for entry in &entries {
            let path = format!("policy/{}", entry.name);
            let text = read_text(at, &path, entry)?;
            let value = parse_policy(&path, &text)?;
            if path == ROLE_PERMISSIONS {
                self.permissions = Some(RolePermissions::from_value(value.clone())?);
            }
            self.policies.insert(path.clone(), value);
            self.push(path, text, ItemKind::Policy)?;
        }
        if self.permissions.is_none() {
            self.absent.push(ROLE_PERMISSIONS.into());
        }
        Ok(())
    }

    /// Path → SHA-256 of every file read, for the audit log.
    pub fn files(&self) -> IndexMap<String, String> {
        self.items
            .iter()
            .map(|i| (i.path.clone(), i.sha256.clone()))
            .collect()
    }

    /// Whether the repository has governance files (any of `AGENTS.md`,
    /// `agents/`, `policy/`): the preflight applies then.
    pub fn governed(&self) -> bool {
        !self.items.is_empty()
    }

    /// `AGENTS.md`, when present.
    pub fn agents_md(&self) -> Option<&ContextItem> {
        self.items
            .iter()
            .find(|i| matches!(i.kind, ItemKind::Governance))
    }

    /// The overlay file of `role`, when present.
    pub fn role_file(&self, role: &str) -> Option<&ContextItem> {
        self.items
            .iter()
            .find(|i| matches!(&i.kind, ItemKind::RoleOverlay { role: r } if r == role))
    }

    /// The overlay of `role` with its path, when present.
    pub fn overlay(&self, role: &str) -> Option<(&str, &Overlay)> {
        let file = self.role_file(role)?;
        Some((file.path.as_str(), self.overlays.get(role)?))
    }
}

fn read_text(at: &AtCommit<'_>, path: &str, entry: &Entry) -> Result<String, ContextError> {
    let bytes = at.read(path, entry)?;
    String::from_utf8(bytes).map_err(|_| ContextError::NotUtf8 {
        path: path.to_string(),
    })
}

/// Parses a policy file with the core's reader (duplicate keys, depth and
/// size refused), naming the file and line of a syntax error.
pub(crate) fn parse_policy(path: &str, text: &str) -> Result<Value, ContextError> {
    parse_value(text, Format::Json).map_err(|f| {
        let (line, column) = f.location.map_or((1, 1), |l| (l.line, l.column));
        ContextError::MalformedPolicy {
            path: path.to_string(),
            line,
            column,
            message: f.message,
        }
    })
}
