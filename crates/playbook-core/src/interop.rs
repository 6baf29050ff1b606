//! Reading and writing the agent files of other tools, so playbooks meet
//! people where their agent workflows already live. Pure: callers read and
//! write the files; these modules turn text into playbooks and back.

pub mod claude_code;
pub mod crewai;
mod names;

/// How an importer's error reads: `file:line: message; hint` (the line
/// when known, the hint when there is one).
pub(crate) fn fmt_located(
    f: &mut std::fmt::Formatter<'_>,
    file: &str,
    line: Option<usize>,
    message: &str,
    hint: &str,
) -> std::fmt::Result {
    match line {
        Some(line) => write!(f, "{file}:{line}: {message}")?,
        None => write!(f, "{file}: {message}")?,
    }
    if !hint.is_empty() {
        write!(f, "; {hint}")?;
    }
    Ok(())
}
