//! The commands that messages and hints tell a person to type are real.
//!
//! A hint such as "export what still reads with `playbook db export --all
//! DIR`" is only help if the command parses: that one did not (`--all`
//! needs `--out DIR`), nor did `playbook db diff ID <your version> 2`.
//! This test reads every Rust source of the workspace's libraries and the
//! app, takes each `` `playbook ...` `` span of a line that is code (not a
//! comment), fills its placeholders with sample values and parses it with
//! the CLI's own clap definition. A span that only names a command (`see
//! `playbook db import``) may leave its required arguments out; one that
//! gives arguments must parse whole.

use std::path::{Path, PathBuf};

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser};

use super::Cli;

/// The directories whose sources speak to a person: every crate's `src`
/// and the app's.
fn source_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut dirs = vec![root.join("src-tauri/src")];
    for entry in std::fs::read_dir(root.join("crates")).expect("the crates directory") {
        dirs.push(entry.expect("a crate").path().join("src"));
    }
    dirs
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Each `` `playbook ...` `` span of the code lines of `text`, with its line.
fn spans(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("//") {
            continue;
        }
        let mut rest = line;
        while let Some(start) = rest.find("`playbook ") {
            let after = &rest[start + 1..];
            let Some(end) = after.find('`') else { break };
            found.push((n + 1, after[..end].to_string()));
            rest = &after[end + 1..];
        }
    }
    found
}

/// A sample value for a placeholder word: `{latest}`, `{playbook}`, `FILE`,
/// `N`... A word that is not a placeholder is kept.
fn sample(word: &str) -> String {
    let name = word.trim_start_matches('{').trim_end_matches('}');
    let braced = word.starts_with('{') && word.ends_with('}');
    let upper = !word.is_empty() && word.chars().all(|c| c.is_ascii_uppercase());
    if !braced && !upper {
        return word.to_string();
    }
    match name.to_ascii_lowercase().as_str() {
        "latest" | "edited" | "number" | "n" | "version" => "2".into(),
        "playbook" | "id" | "pid" | "name" => "team".into(),
        "dir" => "out".into(),
        _ => "x.yaml".into(),
    }
}

/// Whether every word names a subcommand or a flag: the span names a
/// command (and perhaps its options) rather than giving a whole invocation.
fn names_a_command(words: &[String]) -> bool {
    let mut command = Cli::command();
    for word in words {
        if word.starts_with('-') {
            continue;
        }
        match command.find_subcommand(word) {
            Some(sub) => command = sub.clone(),
            None => return false,
        }
    }
    true
}

#[test]
fn every_command_a_message_or_hint_names_parses_with_the_cli() {
    let mut files = Vec::new();
    for dir in source_dirs() {
        rust_files(&dir, &mut files);
    }
    assert!(files.len() > 50, "the sources were found: {}", files.len());
    let mut checked = 0;
    let mut wrong = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a source file");
        for (line, span) in spans(&text) {
            let words: Vec<String> = span.split_whitespace().skip(1).map(sample).collect();
            checked += 1;
            let args = std::iter::once("playbook".to_string()).chain(words.iter().cloned());
            let outcome = match Cli::try_parse_from(args) {
                Ok(_) => continue,
                Err(e) => e,
            };
            let partial = matches!(
                outcome.kind(),
                ErrorKind::MissingRequiredArgument
                    | ErrorKind::MissingSubcommand
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
                    | ErrorKind::InvalidValue
            );
            if matches!(
                outcome.kind(),
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
            ) || (partial && names_a_command(&words))
            {
                continue;
            }
            let first = outcome.to_string();
            let first = first.lines().next().unwrap_or_default().to_string();
            wrong.push(format!("{}:{line}: `{span}`: {first}", file.display()));
        }
    }
    assert!(checked > 20, "the spans were found: {checked}");
    assert!(
        wrong.is_empty(),
        "commands in messages that the CLI refuses:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn a_wrong_command_is_caught() {
    // The two hints this test was written for, as they were.
    for span in [
        "playbook db export --all DIR",
        "playbook db diff {playbook} <your version> {latest}",
    ] {
        let words: Vec<String> = span.split_whitespace().skip(1).map(sample).collect();
        let args = std::iter::once("playbook".to_string()).chain(words.iter().cloned());
        assert!(Cli::try_parse_from(args).is_err(), "{span}");
        assert!(!names_a_command(&words), "{span}");
    }
}
