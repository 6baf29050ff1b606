//! What the app's commands do with hostile input and hostile libraries:
//! never a panic, never lost text, and an error that says what to do.

use playbook_core::Format;
use playbook_store::{Base, PlaybookId, Store};
use playbook_studio::error::ErrorCode;
use playbook_studio::library::Library;
use serde_json::json;

fn library() -> (tempfile::TempDir, Library) {
    let dir = tempfile::tempdir().unwrap();
    let library = Library::open(dir.path().join("library.db"));
    (dir, library)
}

/// A save of text that does not parse is refused and the text is kept as
/// a draft (`playbook db save`, or another author's refused save): the
/// playbook must still open in the app, with that text where the person
/// can fix it, and the next autosave must not throw it away.
#[test]
fn a_draft_that_does_not_parse_still_opens_with_its_text() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("library.db");
    let typed = "id: tdd\nname: TDD\nworkflow: [\n  # half typed\n";
    {
        let mut store = Store::open(&path).unwrap();
        let tdd = PlaybookId::new("tdd").unwrap();
        let refused = store.save_version(&tdd, Base::Latest, typed, Format::Yaml, "broken");
        assert!(refused.is_err(), "the text does not parse");
        assert_eq!(store.draft(&tdd).unwrap().unwrap().content, typed);
    }
    let library = Library::open(path);
    let opened = library
        .open_playbook("tdd")
        .expect("a draft that does not parse must not lock the playbook out");
    assert!(opened.draft.is_none(), "it is no document");
    let broken = opened.broken_draft.expect("the draft's text comes back");
    assert_eq!(broken.text, typed);
    assert_eq!(broken.format, Format::Yaml);
    // The editor holds that draft: its next autosave (the fixed text)
    // replaces it rather than adding a second one.
    let fixed = library
        .save_draft_text("tdd", typed.replace('[', "{}"), Format::Yaml, Some(1))
        .unwrap();
    let again = library.open_playbook("tdd").unwrap();
    assert!(again.broken_draft.is_none());
    assert!(again.draft.is_some());
    let store = Store::open(dir.path().join("library.db")).unwrap();
    let drafts = store.drafts(&PlaybookId::new("tdd").unwrap()).unwrap();
    assert_eq!(drafts.len(), 1, "the fixed text replaced the broken one");
    assert_eq!(drafts[0].number, fixed.draft.number);
}

/// Text typed in the Source tab that is not a playbook yet is autosaved
/// as it is, so a crash or a quit keeps it; it opens again as typed.
#[test]
fn source_text_that_does_not_parse_is_autosaved_as_typed() {
    let (_dir, library) = library();
    for typed in [
        "id: tdd\nworkflow: {plan: {roles: [\n",
        "id: tdd\n\u{0}name: x\n",
        "{\"id\": \"tdd\", \"workflow\": ",
        "",
    ] {
        let format = Format::sniff(typed);
        library
            .save_draft_text("tdd", typed.to_string(), format, Some(1))
            .unwrap();
        let opened = library.open_playbook("tdd").unwrap();
        let broken = opened.broken_draft.expect("kept as typed");
        assert_eq!(broken.text, typed);
    }
    // Over the limit: refused with the size, nothing half-written.
    let huge = format!("id: tdd\nx: \"{}\n", "y".repeat(9 * 1024 * 1024));
    let refused = library
        .save_draft_text("tdd", huge, Format::Yaml, Some(1))
        .unwrap_err();
    assert!(refused.message.contains("limit"), "{}", refused.message);
    let still = library.open_playbook("tdd").unwrap().broken_draft.unwrap();
    assert_eq!(still.text, "");
}

/// `PLAYBOOK_DB` naming something that is no library: the app starts, and
/// each library command answers with the path and the reason.
#[test]
fn a_library_that_cannot_be_opened_says_where_and_why() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("a-folder");
    std::fs::create_dir(&folder).unwrap();
    let corrupt = dir.path().join("corrupt.db");
    std::fs::write(
        &corrupt,
        b"SQLite format 3\0 this is not a database".repeat(200),
    )
    .unwrap();
    let noise = dir.path().join("noise.db");
    std::fs::write(&noise, vec![0xffu8; 64 * 1024]).unwrap();
    for path in [folder, corrupt, noise] {
        let before = std::fs::read(&path).ok();
        let library = Library::open(path.clone());
        let e = library.list(false).unwrap_err();
        assert!(
            e.message.contains(&path.display().to_string()),
            "names the file: {}",
            e.message
        );
        let e = library.open_playbook("tdd").unwrap_err();
        assert!(!e.message.is_empty());
        // Nothing was written over what was there.
        assert_eq!(std::fs::read(&path).ok(), before, "{}", path.display());
    }
}

/// A library written by a newer build (a schema version this one does not
/// know) is refused as a whole, not written to.
#[test]
fn a_library_from_a_newer_build_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("library.db");
    drop(Store::open(&path).unwrap());
    // `PRAGMA user_version` is the big-endian u32 at offset 60 of the
    // header (the app has no SQLite of its own to set it with).
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[60..64].copy_from_slice(&9_999u32.to_be_bytes());
    std::fs::write(&path, &bytes).unwrap();
    let before = std::fs::read(&path).unwrap();
    let library = Library::open(path.clone());
    let e = library.list(false).unwrap_err();
    assert!(
        e.message.contains("newer") || e.message.contains("9999"),
        "{}",
        e.message
    );
    let e = library
        .save_draft("tdd", json!({"id": "tdd"}), Some(1), None)
        .unwrap_err();
    assert!(!e.message.is_empty());
    drop(library);
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

/// Ids, names and numbers a script could send: each a clear error.
#[test]
fn hostile_ids_and_numbers_are_refused_without_a_panic() {
    let (_dir, library) = library();
    let long = "a".repeat(100_000);
    for id in [
        "",
        "../../etc/passwd",
        "tdd\0",
        "TDD",
        " tdd",
        &long,
        "ghp_0123",
    ] {
        assert!(library.open_playbook(id).is_err(), "{id:?}");
        assert!(library.history(id).is_err(), "{id:?}");
        assert!(library.delete(id).is_err(), "{id:?}");
        assert!(
            library.save_draft(id, json!({}), None, None).is_err(),
            "{id:?}"
        );
    }
    assert!(library.version("tdd", u32::MAX).is_err());
    assert!(library.version("tdd", 0).is_err());
    assert!(library.compare("tdd", 0, u32::MAX).is_err());
    assert!(library.restore("tdd", u32::MAX).is_err());
    assert!(
        library
            .save("tdd", u32::MAX, json!({"id": "tdd"}), "", None)
            .is_err()
    );
    for run in [i64::MIN, -1, 0, i64::MAX] {
        let e = library
            .run_events(playbook_store::RunId(run))
            .map(|events| events.len());
        assert!(matches!(e, Ok(0) | Err(_)), "{run}");
    }
    let e = library.import_text("x", "id: a\0b\n").unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidPlaybook, "{}", e.message);
}

/// A token-shaped role name, a password in a prompt and in the scenario's
/// goal: none of them reaches the preview's answer (but the prompts, which
/// show the author's own text), the run list, the stored run or anywhere
/// in the library's files, for a run of unsaved edits.
#[test]
fn secrets_in_a_previewed_playbook_never_reach_the_run_records() {
    use playbook_studio::api::{ApprovalMode, PreviewRequest};
    let token = format!(
        "ghp_{}",
        "a1B2c3D4e5F6g7H8i9J0".repeat(2).get(..36).unwrap()
    );
    let password = "hunter2-sekrit-Value-9";
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("library.db");
    let library = Library::open(path.clone());
    let mut doc: serde_json::Value =
        yaml_serde::from_str(include_str!("../../../playbooks/tdd.yaml")).unwrap();
    doc["workflow"]["plan"]["roles"][0]["name"] = json!(token);
    doc["workflow"]["build"]["roles"][1]["suggested_prompt"] =
        json!(format!("Use password={password} to log in."));
    doc["x_env"] = json!({ "DB_PASSWORD": password, "line": format!("password={password}") });
    let scenario = include_str!("../../../playbooks/scenarios/review-fails-twice.yaml")
        .replace(
            "goal: Validate playbook names on save",
            &format!("goal: \"Rotate password={password} and {token}\""),
        )
        .replace(
            "issues: [No test for a name of only spaces]",
            &format!("issues: [\"password={password} is logged by {token}\"]"),
        );
    let request = PreviewRequest {
        scenario: format!("leaky {token}"),
        seed: 1,
        approvals: ApprovalMode::Scenario,
        playbook: Some("tdd".into()),
        base: Some(1),
        scenario_source: Some(scenario),
        mapping: None,
    };
    let mut shown = Vec::new();
    let ask: Option<playbook_studio::approvals::AskTheUser<fn(&_)>> = None;
    let mut result = playbook_studio::preview::run(doc, &request, Some(&library), ask, |e| {
        shown.push(serde_json::to_string(e).unwrap())
    })
    .unwrap();
    assert!(result.record_error.is_none(), "{:?}", result.record_error);
    let run = playbook_store::RunId(result.run.expect("recorded"));
    // The prompts are the author's own text, shown to the author.
    result.prompts.clear();
    let answer = serde_json::to_string(&result).unwrap();
    let listed = serde_json::to_string(&library.runs("tdd").unwrap()).unwrap();
    let stored = serde_json::to_string(&library.run_events(run).unwrap()).unwrap();
    drop(library);
    let mut files = String::new();
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        files.push_str(&String::from_utf8_lossy(&bytes));
    }
    assert!(
        shown.iter().any(|e| e.contains("[REDACTED]")),
        "the secrets were in the run, and were redacted"
    );
    for (what, text) in [
        ("the window's events", shown.join("\n")),
        ("the preview's answer", answer),
        ("the run list", listed),
        ("the stored events", stored),
        ("the library's files", files),
    ] {
        for secret in [token.as_str(), password] {
            assert!(!text.contains(secret), "{what} holds {secret}");
        }
    }
}

/// Preview scenarios with hostile numbers: the largest durations and
/// limits finish (saturating, not overflowing), and numbers that are no
/// durations are refused with where they are, all within seconds.
#[test]
fn preview_scenarios_with_hostile_numbers_finish_or_are_refused() {
    use playbook_studio::api::{ApprovalMode, PreviewRequest};
    let base = include_str!("../../../playbooks/scenarios/review-fails-twice.yaml");
    let max = u64::MAX;
    let huge = [
        format!(
            "{base}limits: {{lock_wait_ms: {max}, approval_timeout_ms: {max}, max_steps: {max}, max_tool_calls: {max}}}\n"
        ),
        base.replace(
            "tool_calls: [read_file, write_file]",
            &format!("tool_calls: [read_file, write_file]\n      duration_ms: {max}"),
        ),
        base.replace(
            "tool_calls: [read_file, write_file]",
            &format!(
                "tool_calls: [read_file, write_file]\n      duration_ms: {{min: {max}, max: 0}}"
            ),
        ),
        base.replace(
            "tool_calls: [read_file, write_file]",
            &format!(
                "tool_calls: [read_file, write_file]\n      duration_ms: {{min: 0, max: {max}}}"
            ),
        ),
        format!(
            "{base}limits: {{max_steps: 0, max_tool_calls: 0, lock_wait_ms: 0, approval_timeout_ms: 0}}\n"
        ),
    ];
    let refused = [
        "-1",
        "-0.5",
        "NaN",
        ".nan",
        "\"NaN\"",
        "1e400",
        "18446744073709551616",
        "\"12\"",
        "[]",
    ]
    .map(|n| {
        base.replace(
            "tool_calls: [read_file, write_file]",
            &format!("tool_calls: [read_file, write_file]\n      duration_ms: {n}"),
        )
    });
    let doc: serde_json::Value =
        yaml_serde::from_str(include_str!("../../../playbooks/tdd.yaml")).unwrap();
    for (i, text) in huge.iter().chain(refused.iter()).enumerate() {
        let request = PreviewRequest {
            scenario: "hostile".into(),
            seed: u64::MAX,
            approvals: ApprovalMode::Scenario,
            playbook: None,
            base: None,
            scenario_source: Some(text.clone()),
            mapping: None,
        };
        let doc = doc.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let ask: Option<playbook_studio::approvals::AskTheUser<fn(&_)>> = None;
            let _ = tx.send(playbook_studio::preview::run(
                doc,
                &request,
                None,
                ask,
                |_| {},
            ));
        });
        let answer = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .unwrap_or_else(|e| panic!("scenario {i} did not finish (or panicked): {e}"));
        if i >= huge.len() {
            let e = answer.expect_err(&format!("scenario {i} is refused"));
            assert_eq!(e.code, ErrorCode::InvalidInput, "{i}: {}", e.message);
            assert!(
                e.message.contains("duration_ms") || e.message.contains("line"),
                "{i}: {}",
                e.message
            );
        } else if let Err(e) = answer {
            assert_eq!(e.code, ErrorCode::InvalidInput, "{i}: {}", e.message);
        }
    }
}

/// The What-if panel's sliders at their ends (everything fails, nothing
/// passes, the sum of outcomes at 0 or 1), as the panel writes the model
/// (`ui/src/whatif/report.ts`): each simulation finishes, quickly, with
/// finite numbers, and a cancel stops it.
#[test]
fn whatif_at_the_sliders_extremes_finishes_with_finite_numbers() {
    use std::sync::atomic::AtomicBool;
    let doc: serde_json::Value =
        yaml_serde::from_str(include_str!("../../../playbooks/tdd.yaml")).unwrap();
    let playbook = playbook_studio::workbench::runnable(&doc, "simulating").unwrap();
    let fit = |pass: f64, violation: f64, error: f64| {
        let room = (1.0 - pass).max(0.0);
        let violation = violation.min(room);
        let error = error.min(room - violation).max(0.0);
        json!({"pass": pass, "violation": violation, "blocked_tool": 0, "needs_input": 0, "error": error})
    };
    for (pass, reviewer, violation, error) in [
        (0.0, 0.0, 0.0, 0.0),
        (0.0, 0.0, 1.0, 1.0),
        (1.0, 1.0, 1.0, 1.0),
        (0.0, 1.0, 0.0, 1.0),
        (0.01, 0.0, 0.99, 0.0),
        (0.9, 0.6, 0.07, 0.03),
    ] {
        let text = json!({"defaults": fit(pass, violation, error), "roles": {"mode:reviewer": fit(reviewer, violation, error)}}).to_string();
        let model = playbook_whatif::SimModel::parse(&text).unwrap();
        let options = playbook_whatif::Options {
            runs: 2000,
            seed: u64::MAX,
            ..Default::default()
        };
        let started = std::time::Instant::now();
        let report = playbook_whatif::whatif(
            &playbook,
            &model,
            &options,
            &AtomicBool::new(false),
            &|_| {},
        );
        let elapsed = started.elapsed();
        let report = report.unwrap_or_else(|e| panic!("{text}: {e}"));
        let shown = serde_json::to_value(&report).unwrap();
        let mut nulls = Vec::new();
        null_paths(&shown, String::new(), &mut nulls);
        // An interval is optional by type: none when nothing was sampled.
        nulls.retain(|p| !p.ends_with("ci"));
        assert!(nulls.is_empty(), "{text}: no number at {nulls:?}");
        assert!(elapsed.as_secs() < 20, "{text}: {elapsed:?}");
    }
}

/// Where a JSON `null` stands (serde writes a non-finite float as one).
fn null_paths(value: &serde_json::Value, at: String, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                null_paths(item, format!("{at}/{i}"), out);
            }
        }
        serde_json::Value::Object(map) => {
            for (key, item) in map {
                null_paths(item, format!("{at}/{key}"), out);
            }
        }
        serde_json::Value::Null => out.push(at),
        _ => {}
    }
}
