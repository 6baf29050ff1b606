//! Codes are closed sets: `docs/error-codes.md` is the one list, the enums
//! agree with it, and every code-typed field of every envelope refuses a
//! code that is not in it.

use playbook_contracts::{EnvelopeKind, ErrorCode, ValidatorCode, schema_of};
use serde_json::{Value, json};

use crate::timestamps::{handoff_bundle, orchestrator_output, worklog_entry};
use crate::{read, repo_dir, schema};

/// The codes of the table under `## {section}` of docs/error-codes.md.
fn documented(section: &str) -> Vec<String> {
    let doc = read(&repo_dir().join("docs/error-codes.md"));
    let heading = format!("## {section}\n");
    let start = doc
        .find(&heading)
        .unwrap_or_else(|| panic!("docs/error-codes.md has no section {section}"));
    let body = &doc[start + heading.len()..];
    let body = &body[..body.find("\n## ").unwrap_or(body.len())];
    body.lines()
        .filter_map(|line| line.strip_prefix("| `"))
        .filter_map(|rest| rest.split_once('`').map(|(code, _)| code.to_string()))
        .filter(|code| code != "code")
        .collect()
}

#[test]
fn the_orchestrator_codes_and_the_doc_list_agree() {
    let code: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(
        documented(ErrorCode::DOC_SECTION),
        code,
        "docs/error-codes.md (Orchestrator) and ErrorCode list the same codes in the same order"
    );
}

#[test]
fn the_validator_codes_and_the_doc_list_agree() {
    let code: Vec<&str> = ValidatorCode::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(documented(ValidatorCode::DOC_SECTION), code);
}

#[test]
fn codes_round_trip_through_their_text() {
    for code in ErrorCode::ALL {
        assert_eq!(ErrorCode::parse(code.as_str()), Some(*code));
        assert_eq!(json!(code), json!(code.as_str()));
        assert!(!code.title().is_empty());
    }
    for code in ValidatorCode::ALL {
        assert_eq!(code.as_str().parse::<ValidatorCode>(), Ok(*code));
    }
    for text in [
        "BANANA",
        "",
        "agent_blocked",
        "AGENT_BLOCKED ",
        "OK",
        "PB001",
    ] {
        assert!(ErrorCode::parse(text).is_none(), "{text:?}");
    }
}

/// Every code-typed field of every envelope, as (kind, valid document, pointer).
fn code_fields() -> Vec<(EnvelopeKind, Value, &'static str)> {
    let mut coded = worklog_entry();
    coded["code"] = json!("AGENT_BLOCKED");
    vec![
        (
            EnvelopeKind::OrchestratorOutput,
            orchestrator_output(),
            "/blockers/0/code",
        ),
        (
            EnvelopeKind::HandoffBundle,
            handoff_bundle(),
            "/open_blockers/0/code",
        ),
        (EnvelopeKind::WorklogEntry, coded, "/code"),
        (
            EnvelopeKind::ValidatorOutput,
            json!({"allow": false, "code": "VALIDATION_FAILED", "reason": "1 error"}),
            "/code",
        ),
    ]
}

#[test]
fn every_code_field_refuses_a_code_that_is_not_documented() {
    for (kind, document, pointer) in code_fields() {
        assert!(
            kind.check(&document, true).is_empty(),
            "{}: {:?}",
            kind.name(),
            kind.check(&document, true)
        );
        assert!(
            schema(kind.schema_file()).is_valid(&document),
            "{}",
            kind.name()
        );
        for bad in ["BANANA", "", "agent_blocked", "PB001"] {
            let mut value = document.clone();
            *value.pointer_mut(pointer).unwrap() = json!(bad);
            let violations = kind.check(&value, true);
            let found = violations.iter().find(|v| v.path == pointer);
            let found = found
                .unwrap_or_else(|| panic!("{} {pointer}={bad:?}: {violations:?}", kind.name()));
            assert!(
                found.message.contains("docs/error-codes.md"),
                "the message says where the codes are: {}",
                found.message
            );
            assert!(
                !schema(kind.schema_file()).is_valid(&value),
                "the schema refuses {} {pointer}={bad:?}",
                kind.name()
            );
        }
    }
}

#[test]
fn the_banana_blocker_is_refused_with_a_clear_message() {
    let mut value = orchestrator_output();
    value["blockers"][0]["code"] = json!("BANANA");
    let violations = EnvelopeKind::OrchestratorOutput.check(&value, false);
    assert_eq!(violations.len(), 1, "{violations:?}");
    assert_eq!(violations[0].path, "/blockers/0/code");
    assert_eq!(violations[0].code, ErrorCode::ResultInvalid);
    assert_eq!(
        violations[0].message,
        "code `BANANA` is not a documented code; the allowed codes are listed in docs/error-codes.md (section Orchestrator)"
    );
}

#[test]
fn the_code_schemas_list_exactly_the_codes() {
    let schema = schema_of::<ErrorCode>("x.json");
    let text = schema.to_string();
    for code in ErrorCode::ALL {
        assert!(text.contains(&format!("\"{}\"", code.as_str())), "{code}");
    }
}
