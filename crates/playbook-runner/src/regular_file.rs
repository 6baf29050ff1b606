//! Files in places an agent's programs can reach — the worktree, the
//! invocation's private folder, the run's log folder, the git directory —
//! opened and written so that nothing planted there can hang the run or
//! redirect it. Agents run unsandboxed, as the person: whatever the runner
//! finds at such a path may be a FIFO (opening it blocks until a writer
//! comes, forever; and a blocked open on the run's one thread also keeps a
//! Ctrl+C or `SIGTERM` from being handled), a device, a symbolic link to a
//! file the agent wants quoted or overwritten, or a hard link to a file
//! outside the worktree.
//!
//! So every such file is:
//! - read through [`open`]: the last component is never followed
//!   (`O_NOFOLLOW`), the open never blocks (`O_NONBLOCK`; a FIFO opens at
//!   once) and never makes a terminal the run's own (`O_NOCTTY`), and
//!   anything but a regular file is refused by looking at the open handle
//!   (a path swapped between a check and the open cannot fool it), then
//!   read through [`read_capped`], which stops one byte past its limit;
//! - written through [`replace`] (a tool's write: a link or special file
//!   there is refused) or [`overwrite`] (the runner's own files: whatever
//!   is there is replaced): a new file is written beside it and renamed
//!   over the name. Nothing already there is ever opened for writing, so a
//!   FIFO cannot block the write, a link is not written through, and a
//!   hard link's other names (a file in the person's checkout, a package
//!   manager's store) keep their text.

use std::fs::{File, FileType, Metadata, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Why a file was not opened or replaced.
#[derive(Debug)]
pub enum Refused {
    /// Nothing is at the path.
    Missing,
    /// The last component is a symbolic link; it was not followed.
    Link,
    /// Something other than a regular file is there (what, in words: "a
    /// FIFO (named pipe)", "a folder"...).
    NotRegular(&'static str),
    Io(io::Error),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Missing => f.write_str("does not exist"),
            Refused::Link => f.write_str("is a symbolic link, which is not followed"),
            Refused::NotRegular(what) => write!(f, "is {what}, not a regular file"),
            Refused::Io(e) => e.fmt(f),
        }
    }
}

/// What something that is not a regular file is, in words.
fn kind(t: FileType) -> &'static str {
    if t.is_dir() {
        "a folder"
    } else if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_block_device() || t.is_char_device() {
        "a device"
    } else if t.is_symlink() {
        "a symbolic link"
    } else {
        "a special file"
    }
}

/// Opens the regular file at `path` for reading; see the module comment.
pub fn open(path: &Path) -> Result<File, Refused> {
    let opened = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path);
    let file = match opened {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(Refused::Missing),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err(Refused::Link),
        // A socket cannot be opened at all (ENXIO); say what is there
        // rather than the system's words for it.
        Err(e) => {
            return Err(match std::fs::symlink_metadata(path) {
                Ok(meta) if !meta.is_file() => Refused::NotRegular(kind(meta.file_type())),
                _ => Refused::Io(e),
            });
        }
    };
    let meta = file.metadata().map_err(Refused::Io)?;
    if !meta.is_file() {
        return Err(Refused::NotRegular(kind(meta.file_type())));
    }
    Ok(file)
}

/// Reads at most `limit` bytes; `true` when the file had more.
pub fn read_capped(file: File, limit: usize) -> io::Result<(Vec<u8>, bool)> {
    let limit_plus_one = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    let mut bytes = Vec::new();
    file.take(limit_plus_one).read_to_end(&mut bytes)?;
    let clipped = bytes.len() > limit;
    bytes.truncate(limit);
    Ok((bytes, clipped))
}

/// [`open`] then [`read_capped`]: `Ok(None)` when nothing is there.
pub fn read_bounded(path: &Path, limit: usize) -> Result<Option<(Vec<u8>, bool)>, Refused> {
    match open(path) {
        Ok(file) => read_capped(file, limit).map(Some).map_err(Refused::Io),
        Err(Refused::Missing) => Ok(None),
        Err(e) => Err(e),
    }
}

/// What [`replace`] did besides writing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Replaced {
    /// Other names (hard links) the replaced file had: they still name the
    /// old file, with its old text.
    pub other_links: u64,
}

/// Gives `path` a new regular file holding `bytes`: written beside it under
/// a temporary name, then renamed over it (see the module comment). A file
/// that was there keeps its permission bits. A symbolic link or anything
/// but a regular file at `path` is refused and left as it is. The folder
/// must exist.
pub fn replace(path: &Path, bytes: &[u8]) -> Result<Replaced, Refused> {
    let old: Option<Metadata> = match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => return Err(Refused::Link),
        Ok(meta) if !meta.is_file() => return Err(Refused::NotRegular(kind(meta.file_type()))),
        Ok(meta) => Some(meta),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(Refused::Io(e)),
    };
    fresh(
        path,
        bytes,
        old.as_ref().map(|m| m.permissions().mode() & 0o7777),
    )
    .map_err(Refused::Io)?;
    Ok(Replaced {
        other_links: old.map_or(0, |m| m.nlink().saturating_sub(1)),
    })
}

/// Gives `path` a new regular file holding `bytes` whatever is there: for
/// the runner's own files (a report), where a link or FIFO a program
/// planted under the name is replaced, never opened or followed. A folder
/// there is an error.
pub fn overwrite(path: &Path, bytes: &[u8]) -> io::Result<()> {
    fresh(path, bytes, None)
}

/// Writes `bytes` beside `path` under a temporary name and renames it over
/// `path`; `mode`: the permission bits to give it (none: those of a new
/// file).
fn fresh(path: &Path, bytes: &[u8], mode: Option<u32>) -> io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    // A short fixed prefix, not the file's own name: a name near the
    // system's length limit must still get a temporary sibling. Created
    // with O_EXCL (a planted link or FIFO under that name is an error, never
    // followed), with the permissions a new file gets (0666 less the umask).
    let mut tmp = tempfile::Builder::new()
        .prefix(".playbook-write-")
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    if let Some(mode) = mode {
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode))?;
    }
    // The rename replaces whatever the name holds by then without opening
    // it; a failed rename removes the temporary file (dropped).
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_a_link_and_a_folder_are_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mkfifo reads a NUL-terminated path and creates a FIFO.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert!(matches!(open(&fifo), Err(Refused::NotRegular(w)) if w.contains("FIFO")));
        assert!(matches!(replace(&fifo, b"x"), Err(Refused::NotRegular(_))));
        let target = dir.path().join("target");
        std::fs::write(&target, "kept\n").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(matches!(open(&link), Err(Refused::Link)));
        assert!(matches!(replace(&link, b"x"), Err(Refused::Link)));
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "kept\n");
        assert!(matches!(
            open(dir.path()),
            Err(Refused::NotRegular("a folder"))
        ));
        assert!(matches!(
            read_bounded(&dir.path().join("none"), 9),
            Ok(None)
        ));
        // The runner's own files replace whatever was planted, unopened.
        overwrite(&fifo, b"report\n").unwrap();
        overwrite(&link, b"report\n").unwrap();
        assert_eq!(std::fs::read_to_string(&fifo).unwrap(), "report\n");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "kept\n");
    }

    #[test]
    fn a_replace_breaks_a_hard_link_and_keeps_the_mode() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        let other = dir.path().join("other");
        std::fs::write(&file, "old\n").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o751)).unwrap();
        std::fs::hard_link(&file, &other).unwrap();
        let replaced = replace(&file, b"new\n").unwrap();
        assert_eq!(replaced.other_links, 1);
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "new\n");
        assert_eq!(std::fs::read_to_string(&other).unwrap(), "old\n");
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o751);
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 2, "no temporary file is left");
    }
}
