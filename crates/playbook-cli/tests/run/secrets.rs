//! No piece of a credential in any record of a real run when what an agent
//! printed is cut before it is kept: the tail of its standard error, the
//! quoted beginning of an answer that does not parse. A cut inside a token
//! used to leave a piece the redactor no longer recognised (`p_Zq8Wm2…`
//! without its `gh`, `ghp_Zq8Wm2Xr4Tn6Vb` too short for the rule), and that
//! piece reached events, report, outputs, ledger and worklogs.

use std::path::Path;

use serde_json::json;

use crate::harness::{Repo, Run, run, single};

const TOKEN: &str = "ghp_Zq8Wm2Xr4Tn6Vb1Kc3Ld5Fg7Hj9Pa0Se2Ud4Yo";

/// Every 8 characters of the token in a row.
fn pieces() -> Vec<&'static str> {
    (0..=TOKEN.len() - 8).map(|i| &TOKEN[i..i + 8]).collect()
}

/// Every file under `dir`, with its text (lossily).
fn files(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap_or_default();
                out.push((
                    path.display().to_string(),
                    String::from_utf8_lossy(&bytes).into_owned(),
                ));
            }
        }
    }
    out
}

/// The run failed as the agent made it fail, and no record holds a piece of
/// the token: the JSONL on stdout, the CLI's stderr, every file of the run
/// directory.
#[track_caller]
fn assert_no_piece_anywhere(repo: &Repo, run: &Run) {
    assert!(
        run.codes().contains(&"AGENT_FAILED".to_string()),
        "{}",
        run.stdout
    );
    let runs = repo.path().join(".git/playbook/runs");
    let mut records = files(&runs);
    assert!(
        records.iter().any(|(p, _)| p.ends_with("events.jsonl")),
        "the run directory holds the run's records: {records:?}"
    );
    records.push(("stdout (JSONL)".into(), run.stdout.clone()));
    records.push(("stderr".into(), run.stderr.clone()));
    for (path, text) in &records {
        for piece in pieces() {
            assert!(
                !text.contains(piece),
                "{piece} is in {path}:\n{}",
                &text[text.find(piece).unwrap().saturating_sub(200)..]
            );
        }
    }
}

#[test]
fn a_token_cut_at_the_edge_of_the_stderr_tail_leaves_no_piece_in_any_record() {
    // The probe's case: the token, padding, exit 3, where the last 4 096
    // bytes of standard error (all the runner used to keep) start two
    // characters into the token. The test agent's own last line counts.
    const EXIT_WORDS: &str = "testagent: exiting with 3 as scripted\n";
    let repo = Repo::new();
    let padding = 4096 + 2 - TOKEN.len() - 2 - EXIT_WORDS.len();
    let stderr = format!("{TOKEN}\n{}\n", "y".repeat(padding));
    let r = run(
        &repo,
        &single("read_file"),
        json!({"worker": [{"stderr": stderr, "exit": 3}]}),
        &[],
    );
    assert_no_piece_anywhere(&repo, &r);
    assert!(r.stdout.contains("yyyy"), "the last words are still quoted");
}

#[test]
fn a_token_cut_by_the_stderr_window_leaves_no_piece_in_any_record() {
    // 1 000 lines of 41 bytes: wherever the kept window of standard error
    // starts, it starts inside a token line (41 divides no power of two).
    let repo = Repo::new();
    let stderr = format!("{TOKEN}\n").repeat(1000);
    let r = run(
        &repo,
        &single("read_file"),
        json!({"worker": [{"stderr": stderr, "exit": 3}]}),
        &[],
    );
    assert_no_piece_anywhere(&repo, &r);
    assert!(r.stdout.contains("[REDACTED]"), "{}", r.stdout);
}

#[test]
fn a_token_cut_by_the_quote_of_an_unreadable_answer_leaves_no_piece_in_any_record() {
    // 181 characters, a space, the token: the 200-character quote of the
    // answer's beginning cuts it after `ghp_Zq8Wm2Xr4Tn6Vb`.
    let repo = Repo::new();
    let stdout = format!("{} {TOKEN} is not an answer", "x".repeat(181));
    let r = run(
        &repo,
        &single("read_file"),
        json!({"worker": [{"stdout": stdout}]}),
        &[],
    );
    assert_no_piece_anywhere(&repo, &r);
    assert!(r.stdout.contains("xxxx"), "the beginning is still quoted");
}
