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
//!
//! Writing replaces the file atomically ([`replace`]) while keeping what a
//! person set on it: permissions, owner where possible, symbolic links
//! (written through to their target), and a read-only bit (refused). A
//! command that read the file and writes back an edit of it uses
//! [`replace_unchanged`], which refuses when the file changed in between (an
//! editor saved, another process appended), so that change is not lost.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

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
    // Sized from the metadata (a hint only, capped by the limit), so a
    // file is read into one allocation instead of a doubling series.
    let hint = meta.len().min(limit_plus_one);
    let mut bytes = Vec::with_capacity(usize::try_from(hint).unwrap_or(0));
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

/// What [`replace`] did besides writing the text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Replaced {
    /// Other names (hard links) the replaced file had. The replace gives
    /// this name a new file, so those names keep the old text.
    pub other_links: u64,
}

/// How many symbolic links are followed before giving up (Linux's own
/// limit), so a loop of links is an error, not a hang.
const MAX_LINKS: usize = 40;

/// Replaces a file's content atomically; see [`replace`].
pub fn write_atomically(target: &Path, bytes: &[u8]) -> std::io::Result<()> {
    replace(target, bytes).map(drop)
}

/// Replaces a file's content atomically: write a sibling, flush it, then
/// rename it over the original, so a crash or a full disk leaves either
/// the old or the new text, never a mix; a partial sibling is removed.
///
/// The replace keeps what a person set on the file:
/// - a symbolic link is followed to the file it names, and that file is
///   replaced (beside itself, so the rename stays on one file system); the
///   link stays a link;
/// - the new file gets the old one's permission bits (a `0600` file stays
///   private) and, when the process may set them, its owner and group;
/// - a read-only file (no write bit at all) is refused, even for root, as
///   is a file this user may not write: replacing it would be the one
///   change its owner ruled out. The error says how to proceed;
/// - a directory or anything but a regular file is refused.
///
/// A file with other hard links is still replaced, not rewritten in place:
/// writing in place would give up the crash-safety (a crash mid-write
/// leaves half a file under every name), while a replace leaves every
/// byte of both texts on disk; the other names keep the old text, and
/// [`Replaced::other_links`] tells the caller so it can say it.
pub fn replace(target: &Path, bytes: &[u8]) -> std::io::Result<Replaced> {
    replace_checked(target, bytes, None)
}

/// Why [`replace_unchanged`] left a file alone: its content is no longer
/// what the caller read. Carried inside the `std::io::Error` it returns
/// (see [`is_changed_on_disk`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "the file changed on disk after it was read (another program or an editor wrote it), so it was left as it was, with that change"
)]
pub struct ChangedOnDisk;

/// Whether `error` is [`replace_unchanged`]'s refusal of a changed file.
pub fn is_changed_on_disk(error: &std::io::Error) -> bool {
    error
        .get_ref()
        .is_some_and(|inner| inner.is::<ChangedOnDisk>())
}

/// [`replace`] for a caller that read the file, edited its text and now
/// writes the edit back: the file is replaced only if its content is still
/// exactly `read`. Otherwise someone changed it meanwhile, and writing the
/// edit would silently drop their change (a lost update): the file is left
/// as it is and the error is [`ChangedOnDisk`].
///
/// The content itself is compared (not size and time, which a quick
/// second write can leave equal), right before the rename that replaces
/// the file, once the new text is written and flushed beside it; a write
/// that lands in the instant between that comparison and the rename is
/// the only one that can still be lost (no portable lock prevents it).
pub fn replace_unchanged(target: &Path, read: &[u8], bytes: &[u8]) -> std::io::Result<Replaced> {
    replace_checked(target, bytes, Some(read))
}

fn replace_checked(target: &Path, bytes: &[u8], read: Option<&[u8]>) -> std::io::Result<Replaced> {
    let real = resolve_links(target)?;
    let existing = inspect(&real)?;
    let dir = real
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = real.file_name().ok_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, "the path names no file")
    })?;
    let (temp, mut file) = create_sibling(dir, &name.to_string_lossy(), existing.is_some())?;
    let renamed = std::io::Write::write_all(&mut file, bytes)
        .and_then(|()| match &existing {
            Some(meta) => keep_owner_and_mode(&file, meta),
            None => Ok(()),
        })
        .and_then(|()| file.sync_all())
        .and_then(|()| match read {
            Some(read) => unchanged(&real, read),
            None => Ok(()),
        })
        .and_then(|()| std::fs::rename(&temp, &real));
    if renamed.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    renamed?;
    // The rename is durable only once the directory is flushed too. Best
    // effort: some file systems refuse fsync on a directory, and the text
    // is already in place by then.
    if let Ok(dir) = File::open(dir) {
        let _ = dir.sync_all();
    }
    Ok(Replaced {
        other_links: existing.as_ref().map_or(0, other_links),
    })
}

/// Fails with [`ChangedOnDisk`] unless the file at `real` holds exactly
/// `read` (a file that is gone, or longer, has changed too).
fn unchanged(real: &Path, read: &[u8]) -> std::io::Result<()> {
    let changed = || std::io::Error::other(ChangedOnDisk);
    match read_bounded(real, read.len()) {
        Ok(now) if now == read => Ok(()),
        Ok(_) | Err(ReadError::TooLarge { .. }) => Err(changed()),
        Err(ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => Err(changed()),
        Err(ReadError::Io(e)) => Err(e),
        Err(other) => Err(std::io::Error::other(other.to_string())),
    }
}

/// Checks, without writing, that [`replace`] would replace `target` (or
/// create it): for callers that check every file before writing any.
pub fn check_replaceable(target: &Path) -> std::io::Result<()> {
    inspect(&resolve_links(target)?).map(drop)
}

/// The path a chain of symbolic links ends at (the path itself when it is
/// not a link). A link to a missing file ends at that missing file, which
/// the write then creates, as an editor writing through the link would.
fn resolve_links(target: &Path) -> std::io::Result<PathBuf> {
    let mut path = target.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let to = std::fs::read_link(&path)?;
                // A relative link is relative to the directory holding it;
                // the kernel resolves the `..` in the joined path itself.
                path = match path.parent() {
                    Some(dir) => dir.join(to),
                    None => to,
                };
            }
            Ok(_) => return Ok(path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(path),
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        "too many levels of symbolic links",
    ))
}

/// The metadata of the file to be replaced, `None` when there is none yet;
/// an error when it must not be replaced.
fn inspect(real: &Path) -> std::io::Result<Option<std::fs::Metadata>> {
    use std::io::{Error, ErrorKind};
    let meta = match std::fs::metadata(real) {
        Ok(meta) => meta,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    if meta.is_dir() {
        return Err(Error::new(
            ErrorKind::IsADirectory,
            "it is a directory; name a file",
        ));
    }
    if !meta.is_file() {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            "it is not a regular file (a FIFO, socket or device); it was left as it was",
        ));
    }
    if let Some(mode) = read_only_mode(&meta) {
        return Err(Error::new(
            ErrorKind::PermissionDenied,
            format!(
                "the file is read-only ({mode}), so it was left as it was; make it writable (`chmod u+w`) if it should be replaced, or write the result to another file"
            ),
        ));
    }
    // Root may write anything, so this only stops a user replacing a file
    // they may not write (someone else's, in a directory they share): the
    // rename alone would let them, and would make the file theirs.
    if let Err(e) = open_for_writing(real) {
        return Err(if e.kind() == ErrorKind::PermissionDenied {
            Error::new(
                ErrorKind::PermissionDenied,
                "you may not write this file (it belongs to another user, or its permissions exclude you), so it was left as it was; write the result to another file",
            )
        } else {
            e
        });
    }
    Ok(Some(meta))
}

/// `Some(description)` when the file's permission bits grant no write at
/// all. Judged on the bits, not on access: root could write it anyway, but
/// a file someone made read-only is one they meant not to change.
#[cfg(unix)]
fn read_only_mode(meta: &std::fs::Metadata) -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    let mode = meta.permissions().mode() & 0o7777;
    (mode & 0o222 == 0).then(|| format!("mode {mode:04o}"))
}

#[cfg(not(unix))]
fn read_only_mode(meta: &std::fs::Metadata) -> Option<String> {
    meta.permissions()
        .readonly()
        .then(|| "the read-only attribute is set".to_string())
}

/// Opens for writing without writing (and without blocking, though only a
/// regular file gets here): whether this process may write the file.
fn open_for_writing(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

/// A new, empty sibling file named after the target. `create_new` (O_EXCL)
/// never opens an existing file or follows a link planted under the
/// name, so a leftover from a crashed run, or a link someone placed in a
/// shared directory, is stepped over, never written through. A sibling
/// for an existing file starts private (0600) and gets the file's mode
/// once written; one for a new file gets the usual 0666 less the umask.
fn create_sibling(dir: &Path, name: &str, private: bool) -> std::io::Result<(PathBuf, File)> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    if private {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    #[cfg(not(unix))]
    let _ = private;
    let pid = std::process::id();
    let mut last = None;
    for attempt in 0..100 {
        let temp = dir.join(format!(".{name}.tmp-{pid}-{attempt}"));
        match options.open(&temp) {
            Ok(file) => return Ok((temp, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free temporary name")))
}

/// Gives the new file the replaced one's owner (when this process may: as
/// root, or a group the user is in) and then its permission bits (after
/// the owner, because changing the owner clears set-id bits).
#[cfg(unix)]
fn keep_owner_and_mode(file: &File, old: &std::fs::Metadata) -> std::io::Result<()> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let new = file.metadata()?;
    if (new.uid(), new.gid()) != (old.uid(), old.gid())
        && std::os::unix::fs::fchown(file, Some(old.uid()), Some(old.gid())).is_err()
    {
        // Not root: the owner stays this user, but the group can still be
        // kept when the user belongs to it. Failing that, the mode bits
        // below still say who may read it.
        let _ = std::os::unix::fs::fchown(file, None, Some(old.gid()));
    }
    file.set_permissions(std::fs::Permissions::from_mode(
        old.permissions().mode() & 0o7777,
    ))
}

#[cfg(not(unix))]
fn keep_owner_and_mode(_file: &File, _old: &std::fs::Metadata) -> std::io::Result<()> {
    Ok(())
}

#[cfg(unix)]
fn other_links(meta: &std::fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    meta.nlink().saturating_sub(1)
}

#[cfg(not(unix))]
fn other_links(_meta: &std::fs::Metadata) -> u64 {
    0
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

    /// Regression (sweep C): `fix` and `fmt` wrote their edit over a line
    /// another process appended while they ran. The edit of what was read
    /// is refused once the file holds anything else, and the file keeps it.
    #[test]
    fn an_edit_of_a_file_that_changed_since_it_was_read_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.yaml");
        std::fs::write(&path, "read\n").unwrap();
        std::fs::write(&path, "read\n# appended meanwhile\n").unwrap();
        let error = replace_unchanged(&path, b"read\n", b"edited\n").unwrap_err();
        assert!(is_changed_on_disk(&error), "{error}");
        assert!(error.to_string().contains("changed on disk"), "{error}");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "read\n# appended meanwhile\n"
        );
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no sibling left"
        );
        // Same length, other bytes: changed too. A removed file as well.
        std::fs::write(&path, "reed\n").unwrap();
        assert!(is_changed_on_disk(
            &replace_unchanged(&path, b"read\n", b"x").unwrap_err()
        ));
        std::fs::remove_file(&path).unwrap();
        assert!(is_changed_on_disk(
            &replace_unchanged(&path, b"read\n", b"x").unwrap_err()
        ));
        // Unchanged: replaced as usual.
        std::fs::write(&path, "read\n").unwrap();
        replace_unchanged(&path, b"read\n", b"edited\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "edited\n");
    }

    #[cfg(unix)]
    fn mode(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
    }

    #[cfg(unix)]
    fn set_mode(path: &Path, mode: u32) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_replaced_file_keeps_its_permission_bits() {
        let dir = tempfile::tempdir().unwrap();
        for wanted in [0o600, 0o640, 0o664, 0o755, 0o200] {
            let path = dir.path().join(format!("m{wanted:o}.yaml"));
            std::fs::write(&path, "old\n").unwrap();
            set_mode(&path, wanted);
            write_atomically(&path, b"new\n").unwrap();
            assert_eq!(mode(&path), wanted, "mode {wanted:o} is kept");
            set_mode(&path, 0o600);
            assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_replaced_file_keeps_its_owner_and_group() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("owned.yaml");
        std::fs::write(&path, "old\n").unwrap();
        // Root can give the file away, which shows the owner being copied;
        // anyone else checks that their own file stays theirs.
        let _ = std::os::unix::fs::chown(&path, Some(4321), Some(4321));
        let before = std::fs::metadata(&path).unwrap();
        write_atomically(&path, b"new\n").unwrap();
        let after = std::fs::metadata(&path).unwrap();
        assert_eq!((after.uid(), after.gid()), (before.uid(), before.gid()));
    }

    #[cfg(unix)]
    #[test]
    fn a_read_only_file_is_refused_and_left_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ro.yaml");
        std::fs::write(&path, "kept\n").unwrap();
        set_mode(&path, 0o444);
        // Judged on the mode bits, so the answer is the same under root
        // (which could write the file anyway) as for anyone else.
        let error = write_atomically(&path, b"new\n").unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::PermissionDenied);
        assert!(
            error.to_string().contains("read-only (mode 0444)"),
            "{error}"
        );
        assert!(error.to_string().contains("chmod u+w"), "{error}");
        assert!(check_replaceable(&path).is_err());
        assert_eq!(mode(&path), 0o444);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "kept\n");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no sibling is left behind");
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_is_written_through_to_its_target() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("real")).unwrap();
        let target = dir.path().join("real").join("target.yaml");
        std::fs::write(&target, "old\n").unwrap();
        set_mode(&target, 0o600);
        // A relative link, and a link to that link.
        let link = dir.path().join("link.yaml");
        std::os::unix::fs::symlink("real/target.yaml", &link).unwrap();
        let chained = dir.path().join("chained.yaml");
        std::os::unix::fs::symlink(&link, &chained).unwrap();
        write_atomically(&chained, b"new\n").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert!(
            std::fs::symlink_metadata(&chained)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new\n");
        assert_eq!(mode(&target), 0o600);
        // The sibling was made beside the target, and is gone.
        assert_eq!(
            std::fs::read_dir(dir.path().join("real")).unwrap().count(),
            1
        );
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
    }

    #[cfg(unix)]
    #[test]
    fn a_dangling_link_creates_its_target_and_a_loop_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("link.yaml");
        std::os::unix::fs::symlink("made.yaml", &link).unwrap();
        write_atomically(&link, b"new\n").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("made.yaml")).unwrap(),
            "new\n"
        );
        let a = dir.path().join("a.yaml");
        let b = dir.path().join("b.yaml");
        std::os::unix::fs::symlink(&b, &a).unwrap();
        std::os::unix::fs::symlink(&a, &b).unwrap();
        assert!(write_atomically(&a, b"x").is_err());
        assert!(
            std::fs::symlink_metadata(&a)
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_hard_linked_file_is_replaced_and_the_other_names_are_counted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.yaml");
        let other = dir.path().join("b.yaml");
        std::fs::write(&path, "old\n").unwrap();
        std::fs::hard_link(&path, &other).unwrap();
        let replaced = replace(&path, b"new\n").unwrap();
        assert_eq!(replaced.other_links, 1);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n");
        // Documented: the other name keeps the old text, whole.
        assert_eq!(std::fs::read_to_string(&other).unwrap(), "old\n");
        assert_eq!(replace(&path, b"again\n").unwrap().other_links, 0);
    }

    #[cfg(unix)]
    #[test]
    fn a_new_file_is_created_and_a_leftover_sibling_is_stepped_over() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.yaml");
        // What a crashed run with this process id would have left, and a
        // link planted under the next name: neither is written through.
        let pid = std::process::id();
        let stale = dir.path().join(format!(".new.yaml.tmp-{pid}-0"));
        std::fs::write(&stale, "stale").unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "victim").unwrap();
        std::os::unix::fs::symlink(&victim, dir.path().join(format!(".new.yaml.tmp-{pid}-1")))
            .unwrap();
        write_atomically(&path, b"new\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n");
        assert_eq!(std::fs::read_to_string(&stale).unwrap(), "stale");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "victim");
    }

    #[cfg(unix)]
    #[test]
    fn devices_and_fifos_are_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("null.yaml");
        std::os::unix::fs::symlink("/dev/null", &link).unwrap();
        let error = write_atomically(&link, b"x").unwrap_err();
        assert!(error.to_string().contains("not a regular file"), "{error}");
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }
}
