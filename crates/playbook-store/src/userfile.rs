//! Reading and writing a file a user names: the functions the CLI, the app
//! and import share, so every path refuses the same things the same way and
//! no save can leave half a file.
//!
//! Only regular files are read. A FIFO would block forever and a device
//! (`/dev/zero`, `/dev/urandom`) never ends, and both report a size of 0,
//! so the size in the metadata proves nothing: the file is opened without
//! blocking, checked through the open handle (a path swapped between a
//! check and the open cannot fool it), and read through a reader that stops
//! one byte past the limit.

use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Why a user's file was not read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("it is a directory; name a file")]
    Directory,
    #[error("it is not a regular file (a FIFO, socket or device); name a playbook file")]
    NotRegular,
    #[error("it is larger than {limit} bytes")]
    TooLarge { limit: usize },
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Reads at most `limit` bytes of the regular file at `path` (symbolic
/// links are followed, then checked like the file they name).
pub fn read_bounded(path: &Path, limit: usize) -> Result<Vec<u8>, ReadError> {
    let file = open_nonblocking(path)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(ReadError::Directory);
    }
    if !meta.is_file() {
        return Err(ReadError::NotRegular);
    }
    let limit_plus_one = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    let mut bytes = Vec::new();
    file.take(limit_plus_one).read_to_end(&mut bytes)?;
    if bytes.len() > limit {
        return Err(ReadError::TooLarge { limit });
    }
    Ok(bytes)
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    // Opening a FIFO for reading waits for a writer unless O_NONBLOCK.
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    File::open(path)
}

/// Replaces a file's content atomically: write a sibling, flush it, then
/// rename it over the original, so a crash or a full disk leaves either
/// the old or the new text, never a mix; a partial sibling is removed.
pub fn write_atomically(target: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = target
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = target.file_name().ok_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, "the path names no file")
    })?;
    let temp = dir.join(format!(
        ".{}.tmp-{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let written = File::create(&temp).and_then(|mut file| {
        std::io::Write::write_all(&mut file, bytes)?;
        file.sync_all()
    });
    let renamed = written.and_then(|()| std::fs::rename(&temp, target));
    if renamed.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    renamed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_are_read_up_to_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.yaml");
        std::fs::write(&path, b"12345").unwrap();
        assert_eq!(read_bounded(&path, 5).unwrap(), b"12345");
        assert!(matches!(
            read_bounded(&path, 4),
            Err(ReadError::TooLarge { limit: 4 })
        ));
        assert!(matches!(
            read_bounded(dir.path(), 4),
            Err(ReadError::Directory)
        ));
    }

    #[cfg(unix)]
    #[test]
    fn devices_fifos_and_links_to_them_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("zero.yaml");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        assert!(matches!(
            read_bounded(&link, 1024),
            Err(ReadError::NotRegular)
        ));
        let fifo = dir.path().join("fifo.yaml");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            assert!(matches!(
                read_bounded(&fifo, 1024),
                Err(ReadError::NotRegular)
            ));
        }
    }

    #[test]
    fn an_atomic_write_replaces_the_whole_file_and_leaves_no_sibling() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.yaml");
        std::fs::write(&path, "old text that is longer than the new one\n").unwrap();
        write_atomically(&path, b"new\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file is left behind");
    }

    #[test]
    fn a_failed_atomic_write_leaves_the_original_untouched() {
        let dir = tempfile::tempdir().unwrap();
        // A folder where the file should be: the rename fails.
        let path = dir.path().join("taken");
        std::fs::create_dir(&path).unwrap();
        std::fs::write(path.join("inside"), "kept").unwrap();
        assert!(write_atomically(&path, b"new").is_err());
        assert_eq!(
            std::fs::read_to_string(path.join("inside")).unwrap(),
            "kept"
        );
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "the partial sibling is removed");
    }
}
