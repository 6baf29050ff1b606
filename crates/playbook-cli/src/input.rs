//! Reading playbook files with the checks every subcommand needs: a size
//! limit before reading, UTF-8 text only, and `-` for standard input.

use std::io::Read;
use std::path::Path;

use anyhow::{Context, Result, bail};
use playbook_core::{Format, MAX_DOCUMENT_BYTES, Options};

/// A file's text, the format it is read in, and its name.
pub struct Source {
    pub text: String,
    pub format: Format,
    /// The file's name without its directory; none for standard input.
    pub name: Option<String>,
}

impl Source {
    /// The default validation options for this file.
    pub fn options(&self) -> Options {
        self.named(&Options::default())
    }

    /// `options` for this file: a legacy (agenterm) file without `id`
    /// takes its id from the file's name, as agenterm did.
    pub fn named(&self, options: &Options) -> Options {
        Options {
            file_name: self.name.clone(),
            ..options.clone()
        }
    }
}

/// Reads `path` (or standard input for `-`), refusing what is not a regular
/// file, files over the size limit (without reading past it) and files that
/// are not UTF-8 text.
pub fn read(path: &str) -> Result<Source> {
    let bytes = if path == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .take(MAX_DOCUMENT_BYTES as u64 + 1)
            .read_to_end(&mut bytes)
            .context("cannot read standard input")?;
        bytes
    } else {
        read_file(path, MAX_DOCUMENT_BYTES, "playbooks")?
    };
    if bytes.len() > MAX_DOCUMENT_BYTES {
        bail!("{path}: input is larger than {MAX_DOCUMENT_BYTES} bytes");
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "{path} is not UTF-8 text (invalid byte at offset {}); is it a binary file?",
            e.utf8_error().valid_up_to()
        )
    })?;
    let (format, name) = if path == "-" {
        (Format::sniff(&text), None)
    } else {
        let name = Path::new(path)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned());
        (Format::from_path(path), name)
    };
    Ok(Source { text, format, name })
}

/// Reads at most `limit` bytes of a regular file (the store's shared
/// reader: FIFOs, devices and directories are refused without blocking).
pub fn read_file(path: &str, limit: usize, what: &str) -> Result<Vec<u8>> {
    use playbook_store::userfile::{ReadError, read_bounded};
    read_bounded(Path::new(path), limit).map_err(|e| match e {
        ReadError::TooLarge { limit } => anyhow::anyhow!(
            "{path} is larger than {limit} bytes; {what} are limited to {limit} bytes. Split it or remove generated content"
        ),
        ReadError::Io(source) => anyhow::Error::new(source).context(format!("cannot read {path}")),
        other => anyhow::anyhow!("cannot read {path}: {other}"),
    })
}

/// Replaces a file's content atomically (`playbook_store::userfile`), so a
/// crash leaves either the old or the new text. Permissions and owner are
/// kept, a symbolic link is written through, a read-only file is refused;
/// a file with other hard links gets a new file under this name, which is
/// said, because the other names keep the old text.
pub fn write_atomically(path: &str, text: &str) -> Result<()> {
    let replaced = playbook_store::userfile::replace(Path::new(path), text.as_bytes())
        .map_err(|error| write_error(error, path))?;
    note_other_links(path, &replaced);
    Ok(())
}

/// Says that the hard links a replaced file had keep its old text.
fn note_other_links(path: &str, replaced: &playbook_store::userfile::Replaced) {
    if replaced.other_links > 0 {
        eprintln!(
            "note: {path} had {} other hard link(s); it was replaced by a new file (so that a crash never leaves half a file), and those links keep the old text",
            replaced.other_links
        );
    }
}

/// Writes `text`, an edit of the `read` text of `path`, over that file
/// atomically like [`write_atomically`], but only if the file still holds
/// `read`: a change made meanwhile (an editor's save, a line another process
/// appended) is never overwritten; the command then fails and says so.
pub fn write_edit(path: &str, read: &str, text: &str) -> Result<()> {
    let replaced =
        playbook_store::userfile::replace_unchanged(Path::new(path), read.as_bytes(), text.as_bytes())
            .map_err(|error| {
                if playbook_store::userfile::is_changed_on_disk(&error) {
                    anyhow::anyhow!(
                        "{path} changed on disk while it was being worked on (another program or an editor wrote it); nothing was written, so that change is kept. Run the command again on the file as it is now"
                    )
                } else {
                    write_error(error, path)
                }
            })?;
    note_other_links(path, &replaced);
    Ok(())
}

/// Fails, without writing, when [`write_atomically`] would refuse `path`
/// (read-only, not the user's to write, not a regular file): for commands
/// that report what they will write before writing it.
pub fn check_writable(path: &str) -> Result<()> {
    playbook_store::userfile::check_replaceable(Path::new(path))
        .map_err(|error| write_error(error, path))
}

/// Refuses to write over an existing file (or symbolic link) unless the
/// person passed `--force`: the rule of every command that writes a file
/// it is given a name for.
pub fn refuse_existing(path: &Path, force: bool) -> Result<()> {
    if !force && std::fs::symlink_metadata(path).is_ok() {
        bail!("{} exists; pass --force to replace it", path.display());
    }
    Ok(())
}

fn write_error(error: std::io::Error, path: &str) -> anyhow::Error {
    if playbook_store::is_disk_full(&error) {
        anyhow::anyhow!("disk full: cannot write {path}; the file was left as it was")
    } else {
        anyhow::Error::new(error).context(format!("cannot write {path}"))
    }
}

/// True when any cause of `error` is a full disk (or quota).
pub fn is_disk_full(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(playbook_store::is_disk_full)
            || cause
                .downcast_ref::<playbook_store::Error>()
                .is_some_and(|e| e.code() == playbook_store::ErrorCode::DiskFull)
            || cause.to_string().starts_with("disk full")
    })
}

/// The first error of a refused file where it is, as a scenario's or a
/// model's first error is named: "PB002 message at /pointer (line L, column
/// C)", the line and column when the text places it.
pub fn first_error(findings: &[playbook_core::Finding]) -> String {
    findings
        .iter()
        .find(|f| f.is_error())
        .map(|f| {
            let at = if f.path.is_empty() { "/" } else { &f.path };
            let line = f
                .location
                .map(|l| format!(" (line {}, column {})", l.line, l.column))
                .unwrap_or_default();
            format!("{} {} at {at}{line}", f.code, f.message)
        })
        .unwrap_or_else(|| "invalid document".to_string())
}
