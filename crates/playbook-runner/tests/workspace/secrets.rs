//! A tool result clipped at a limit keeps no piece of a credential the clip
//! cut in two: the audit log redacts each result whole, and a piece such as
//! `ghp_Zq8Wm2` (too short for the GitHub rule) would pass its redaction.

use serde_json::{Value, json};

use crate::support::{gate, ran, setup};

const TOKEN: &str = "ghp_Zq8Wm2Xr4Tn6Vb1Kc3Ld5Fg7Hj9Pa0Se2Ud4Yo";

/// The result as the audit log keeps it (redacted whole), checked for any 8
/// characters of the token in a row.
#[track_caller]
fn assert_no_piece(result: &Value) {
    let mut record = result.clone();
    playbook_redact::redact_value(&mut record);
    let text = record.to_string();
    for i in 0..=TOKEN.len() - 8 {
        let piece = &TOKEN[i..i + 8];
        assert!(!text.contains(piece), "{piece} is left in the record");
    }
}

#[test]
fn a_file_clipped_inside_a_token_keeps_no_piece_of_it() {
    let (_fx, mut tools, root) = setup();
    // read_file's limit (`files::READ_LIMIT`).
    let limit = 1024 * 1024;
    // One long line, and lines: the clip falls 10 characters into the token.
    let before = limit - 10 - 1;
    for unit in ["y", "yyyy\n"] {
        let prefix = &unit.repeat(before / unit.len() + 1)[..before];
        let text = format!("{prefix} {TOKEN} and more\n");
        std::fs::write(root.join("big.txt"), &text).unwrap();
        let r = ran(gate(
            &mut tools,
            "T1",
            "read_file",
            json!({"path": "big.txt"}),
        ));
        assert_eq!(r["clipped"], true, "{}", r["note"]);
        assert!(r["content"].as_str().unwrap().starts_with("yyy"));
        assert_no_piece(&r);
    }
}

#[test]
fn command_output_clipped_inside_a_token_keeps_no_piece_of_it() {
    let (_fx, mut tools, _root) = setup();
    // run_command's limit per stream (`exec::OUTPUT_LIMIT`).
    let limit = 64 * 1024;
    let script = format!(
        "head -c {} /dev/zero | tr '\\0' x; printf ' {TOKEN} tail'; head -c {} /dev/zero | tr '\\0' y >&2; printf ' {TOKEN}' >&2",
        limit - 12,
        limit - 20
    );
    let r = ran(gate(
        &mut tools,
        "T1",
        "run_command",
        json!({"argv": ["sh", "-c", script]}),
    ));
    assert_eq!(r["stdout_clipped"], true, "{r}");
    assert_eq!(r["stderr_clipped"], true);
    assert!(r["stdout"].as_str().unwrap().starts_with("xxx"));
    assert_no_piece(&r);
}

#[test]
fn a_long_matching_line_is_redacted_before_it_is_cut() {
    let (_fx, mut tools, root) = setup();
    std::fs::write(
        root.join("notes.txt"),
        format!("needle {} {TOKEN} end\n", "z".repeat(283)),
    )
    .unwrap();
    let r = ran(gate(
        &mut tools,
        "T1",
        "search_code",
        json!({"pattern": "needle"}),
    ));
    assert_eq!(r["matches"].as_array().unwrap().len(), 1, "{r}");
    assert_no_piece(&r);
}
