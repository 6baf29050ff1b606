//! Refs and the checkout's `HEAD`: compared, reported, never moved back.

use std::collections::BTreeMap;
use std::path::Path;

use super::entries::QUOTED_WIDTH;
use crate::workspace::error::WorkspaceError;
use crate::workspace::git;

/// Where every run's task branches are: `playbook/<run8>/<task>`.
pub(super) const RUN_BRANCHES: &str = "refs/heads/playbook/";

/// Every ref of the repository and the commit or object it names.
pub(super) fn list_refs(root: &Path) -> Result<BTreeMap<String, String>, WorkspaceError> {
    let text = git::text(root, &["for-each-ref", "--format=%(objectname) %(refname)"])?;
    Ok(text
        .lines()
        .filter_map(|line| line.split_once(' '))
        .map(|(sha, name)| (name.to_string(), sha.to_string()))
        .collect())
}

/// The run a task branch `refs/heads/playbook/<run8>/<task>` belongs to.
pub(super) fn run_of(refname: &str) -> Option<&str> {
    let rest = refname.strip_prefix(RUN_BRANCHES)?;
    let (run8, _) = rest.split_once('/')?;
    Some(run8)
}

/// The refs that moved, appeared or went, except `theirs`: the run's own
/// branches and those of other runs going on at the same time, which their
/// own tasks move.
pub(super) fn describe_refs(
    before: &BTreeMap<String, String>,
    now: &BTreeMap<String, String>,
    theirs: impl Fn(&str) -> bool,
) -> Vec<String> {
    let short = |sha: &str| sha.chars().take(12).collect::<String>();
    let mut said = Vec::new();
    for (name, was) in before {
        if theirs(name) {
            continue;
        }
        match now.get(name) {
            None => said.push(format!(
                "`{name}` was deleted (it named {was}; `git update-ref {name} {was}` brings it back)"
            )),
            Some(is) if is != was => said.push(format!(
                "`{name}` moved from {} to {} (`git update-ref {name} {was}` moves it back)",
                short(was),
                short(is)
            )),
            Some(_) => {}
        }
    }
    for (name, is) in now {
        if !theirs(name) && !before.contains_key(name) {
            said.push(format!("`{name}` was created at {}", short(is)));
        }
    }
    said
}

/// The checkout's `HEAD` file, as bytes (at most a few KiB are read):
/// never blocking, never through a link, since a program may have put a
/// FIFO there (`crate::regular_file`).
pub(super) fn read_head(git_dir: &Path) -> Vec<u8> {
    crate::regular_file::read_bounded(&git_dir.join("HEAD"), 4096)
        .ok()
        .flatten()
        .map(|(bytes, _)| bytes)
        .unwrap_or_default()
}

pub(super) fn shown(head: &[u8]) -> String {
    String::from_utf8_lossy(head)
        .trim()
        .chars()
        .take(QUOTED_WIDTH)
        .collect()
}
