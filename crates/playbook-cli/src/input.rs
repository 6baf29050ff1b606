//! Reading playbook files with the checks every subcommand needs: a size
//! limit before reading, UTF-8 text only, and `-` for standard input.

use std::io::Read;
use std::path::Path;

use anyhow::{Context, Result, bail};
use playbook_core::{Format, MAX_DOCUMENT_BYTES};

/// A file's text and the format it is read in.
pub struct Source {
    pub text: String,
    pub format: Format,
}

/// Reads `path` (or standard input for `-`), refusing files over the size
/// limit before loading them and files that are not UTF-8 text.
pub fn read(path: &str) -> Result<Source> {
    let bytes = if path == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .take(MAX_DOCUMENT_BYTES as u64 + 1)
            .read_to_end(&mut bytes)
            .context("cannot read standard input")?;
        bytes
    } else {
        let size = std::fs::metadata(path)
            .with_context(|| format!("cannot read {path}"))?
            .len();
        if Path::new(path).is_dir() {
            bail!("{path} is a directory; name playbook files instead");
        }
        if size > MAX_DOCUMENT_BYTES as u64 {
            bail!(
                "{path} is {size} bytes; playbooks are limited to {MAX_DOCUMENT_BYTES} bytes. Split it or remove generated content"
            );
        }
        std::fs::read(path).with_context(|| format!("cannot read {path}"))?
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
    let format = if path == "-" {
        Format::sniff(&text)
    } else {
        Format::from_path(path)
    };
    Ok(Source { text, format })
}

/// Replaces a file's content atomically: write a sibling, then rename it
/// over the original, so a crash leaves either the old or the new text.
pub fn write_atomically(path: &str, text: &str) -> Result<()> {
    let target = Path::new(path);
    let dir = target
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = target.file_name().context("path has no file name")?;
    let temp = dir.join(format!(
        ".{}.tmp-{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let mut file =
        std::fs::File::create(&temp).with_context(|| format!("cannot write {}", temp.display()))?;
    std::io::Write::write_all(&mut file, text.as_bytes())
        .and_then(|()| file.sync_all())
        .with_context(|| format!("cannot write {}", temp.display()))?;
    std::fs::rename(&temp, target).with_context(|| format!("cannot replace {path}"))?;
    Ok(())
}
