//! The files of one invocation: the prompt, packet and MCP configuration
//! the runner writes, and the result file the agent may write. The agent
//! knows where they are (its environment names them) and runs as the
//! person, so nothing found there is trusted: the runner's files are
//! created new, and the result file is read only if it is a regular file,
//! without following a link or blocking (`crate::regular_file`).

use std::path::Path;

/// Creates the file at `path`, which must not exist: whatever is there
/// (planted by a program) is an error, never opened or followed.
pub(super) fn write_new(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)?
        .write_all(bytes)
}

/// The result file the agent may have written (`Ok(None)`: none, or not
/// text), read only up to `limit` bytes. Anything but a regular file there
/// fails the invocation (`Err`, the words to report): the agent made it
/// (its invocation's folder is new), so a FIFO, which would
/// block the read forever, or a link to a file the agent wants quoted is
/// its fault, said at once. A longer file is refused like a flood on stdout
/// rather than read in part: a part could end inside a credential, and its
/// beginning is quoted when it does not parse.
pub(super) fn read_small(path: &Path, limit: usize) -> Result<Option<String>, String> {
    use crate::regular_file::{Refused, read_bounded};
    match read_bounded(path, limit) {
        Ok(None) => Ok(None),
        Ok(Some((_, true))) => Err(format!(
            "the agent wrote more than {limit} bytes to its result file; an answer is one JSON object"
        )),
        Ok(Some((bytes, false))) => Ok(String::from_utf8(bytes).ok()),
        Err(Refused::Link) => Err(
            "the agent's result file (PLAYBOOK_RESULT_FILE) is a symbolic link; it is not followed: write the answer into the file itself".into(),
        ),
        Err(Refused::NotRegular(what)) => Err(format!(
            "the agent's result file (PLAYBOOK_RESULT_FILE) is {what}, not a regular file, so it was not read; write the answer into a regular file (or print it on stdout)"
        )),
        Err(e) => Err(format!(
            "the agent's result file (PLAYBOOK_RESULT_FILE) cannot be read: {e}"
        )),
    }
}
