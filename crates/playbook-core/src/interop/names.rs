//! Names of imported playbooks, from the folder (or crew) they came from.

/// The last component of a folder path, or `fallback` when there is none
/// (`.`, `..`, `/`).
pub(crate) fn display_name<'a>(path: &'a str, fallback: &'a str) -> &'a str {
    let trimmed = path.trim_end_matches(['/', '\\']);
    let last = trimmed.rsplit(['/', '\\']).next().unwrap_or(trimmed);
    if last.is_empty() || last == "." || last == ".." {
        fallback
    } else {
        last
    }
}

/// A playbook id from a name: lowercase ASCII letters and digits, other runs
/// as one `-`, at most 64 characters; `fallback` when nothing is left.
pub(crate) fn id_from(name: &str, fallback: &str) -> String {
    let mut id = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            id.push(c.to_ascii_lowercase());
        } else if !id.ends_with('-') && !id.is_empty() {
            id.push('-');
        }
        if id.len() >= 64 {
            break;
        }
    }
    let id = id.trim_end_matches('-');
    if id.is_empty() {
        fallback.into()
    } else {
        id.to_string()
    }
}
