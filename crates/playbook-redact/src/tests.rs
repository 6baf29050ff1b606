//! The table of secret forms that must be hidden and of near misses that
//! must stay readable.

use serde_json::json;

use super::*;

/// Secrets, each in the form a record might carry it. The secret text
/// itself (second column) must be gone from the output.
pub(crate) const SECRETS: &[(&str, &str)] = &[
    ("api_key=abc123def456", "abc123def456"),
    ("failed: api_key=abc123def456", "abc123def456"),
    ("failed:\napi_key=abc123def456", "abc123def456"),
    ("failed:\tapi_key=abc123def456 retrying", "abc123def456"),
    ("api_key:\tabc123def456", "abc123def456"),
    ("API_KEY = \"abc 123 def\"", "abc 123 def"),
    ("ApiKey: 'abc123def456'", "abc123def456"),
    (r#"{"api_key": "abc123def456"}"#, "abc123def456"),
    (r#"{\"api_key\": \"abc123def456\"}"#, "abc123def456"),
    (
        r#"response {"error":"bad","apiKey":"abc123def456"}"#,
        "abc123def456",
    ),
    ("password=hunter2", "hunter2"),
    ("PASSWORD: letmein", "letmein"),
    ("db_password => s3cr3t!", "s3cr3t!"),
    ("passwd=correcthorse", "correcthorse"),
    ("pwd: tr0ub4dor", "tr0ub4dor"),
    ("client_secret=QWxhZGRpbjpvcGVu", "QWxhZGRpbjpvcGVu"),
    ("x-api-key: 0123456789abcdef", "0123456789abcdef"),
    ("access_token=ya29.a0AfH6SMB", "ya29.a0AfH6SMB"),
    ("https://example.com/cb?access_token=zzTOPzz&x=1", "zzTOPzz"),
    ("export GITHUB_TOKEN=abcdefabcdef", "abcdefabcdef"),
    ("--password hunter22 --user bob", "hunter22"),
    ("--api-key=k3yk3yk3y", "k3yk3yk3y"),
    ("note: token=abc123xyz", "abc123xyz"),
    (
        "ghp_abcdefghijklmnopqrstuvwxyzABCDEF0123",
        "ghp_abcdefghijklmnopqrstuvwxyzABCDEF0123",
    ),
    (
        "push failed (token ghp_abcdefghijklmnopqrstuvwxyzABCDEF0123)",
        "abcdefghijklmnopqrstuvwxyzABCDEF0123",
    ),
    ("gho_16charactersXYZ0", "16charactersXYZ0"),
    (
        "github_pat_11ABCDEFG0abcdefghijklmnopqrstuvwxyz",
        "11ABCDEFG0abcdefghijklmnopqrstuvwxyz",
    ),
    ("glpat-abcdefghij0123456789", "abcdefghij0123456789"),
    ("xoxb-1234567890-abcdefghij", "1234567890-abcdefghij"),
    ("AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ("key id\nAKIAIOSFODNN7EXAMPLE\n", "IOSFODNN7EXAMPLE"),
    ("ASIAY34FZKBOKMUTVV7A used", "Y34FZKBOKMUTVV7A"),
    (
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
    (
        "AIzaSyA-1234567890abcdefghijklmnopqrstu",
        "SyA-1234567890abcdefghijklmnopqrstu",
    ),
    (
        "key sk-abcdefghijklmnopqrstuv leaked",
        "abcdefghijklmnopqrstuv",
    ),
    (
        "sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
        "abcdefghijklmnopqrstuvwxyz",
    ),
    (
        "sk-proj-ABCDEFGHIJKLMNOPQRSTUV12",
        "ABCDEFGHIJKLMNOPQRSTUV12",
    ),
    (
        "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
        "4eC39HqLyjWDarjtT1zdp7dc",
    ),
    (
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ),
    ("Authorization: Bearer abc123.def456", "abc123.def456"),
    ("authorization: bearer x9", "x9"),
    (
        "curl -H 'Authorization: Basic dXNlcjpwYXNz'",
        "dXNlcjpwYXNz",
    ),
    (
        "sent BEARER ZXhhbXBsZXRva2Vu to the api",
        "ZXhhbXBsZXRva2Vu",
    ),
    ("Token: Bearer\tabcdef123456", "abcdef123456"),
    (
        "clone https://alice:Sup3rS3cret@git.example.com/repo.git",
        "Sup3rS3cret",
    ),
    ("postgres://app:pa55word@db:5432/app", "pa55word"),
    (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7\nabcDEF==\n-----END RSA PRIVATE KEY-----",
        "MIIEpAIBAAKCAQEA7",
    ),
    (
        "before -----BEGIN OPENSSH PRIVATE KEY-----\\nb3BlbnNzaC1rZXk\\n-----END OPENSSH PRIVATE KEY----- after",
        "b3BlbnNzaC1rZXk",
    ),
    (
        "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0B (truncated)",
        "MIIEvQIBADANBgkqhkiG9w0B",
    ),
    (
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF0\n-----END PGP PRIVATE KEY BLOCK-----",
        "lQOYBF0",
    ),
    (
        "signing_key: 9f8e7d6c5b4a39281706f5e4",
        "9f8e7d6c5b4a39281706f5e4",
    ),
    (
        "session_id=3f2a9c1e-7b4d-4e8a-9c2f-1a2b3c4d5e6f",
        "3f2a9c1e-7b4d-4e8a-9c2f-1a2b3c4d5e6f",
    ),
    ("MyPassword: Summer2024!", "Summer2024!"),
    // A rejected pair before the real one (the search goes on inside it).
    (
        "DEBUG auth: aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYA2A2A2A2A",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYA2A2A2A2A",
    ),
    // An accepted pair whose value is the key of the next.
    ("token: password = Hunter2Hunter2A3", "Hunter2Hunter2A3"),
    // URL credentials: an empty user, `@` in the password or the user.
    (
        "connecting to redis://:Tr0ub4dorC4C4@cache.internal:6379/0",
        "Tr0ub4dorC4C4",
    ),
    ("amqp://guest:p@ssC5C5word@host/", "ssC5C5word"),
    (
        "https://me@corp.example:S3cr3tPw9@git.example.com/r.git",
        "S3cr3tPw9",
    ),
    // Credentials of a command-line flag.
    ("curl -u admin:Tr0ub4dorB3B3 https://x", "Tr0ub4dorB3B3"),
    ("curl --user admin:Tr0ub4dorB3B3 https://x", "Tr0ub4dorB3B3"),
    ("curl -uadmin:Tr0ub4dorB3B3 https://x", "Tr0ub4dorB3B3"),
    ("curl -s -U 'proxy:Pr0xyPa55' https://x", "Pr0xyPa55"),
    ("http --auth me@corp.example:S3cr3tPw9 POST x", "S3cr3tPw9"),
    // A client's `-p` password.
    ("mysql -u root -pS3cr3tDb7 shop", "S3cr3tDb7"),
    (
        "cd /srv && mysqldump -h db -pS3cr3tDb7 shop > x.sql",
        "S3cr3tDb7",
    ),
    ("/usr/bin/mariadb -pS3cr3tDb7", "S3cr3tDb7"),
    ("sshpass -p S3cr3tSsh8 ssh deploy@host", "S3cr3tSsh8"),
    ("sshpass -pS3cr3tSsh8 scp a host:b", "S3cr3tSsh8"),
    // A name made from a token (`x_` + a key, as a finding's hint
    // proposes): an underscore starts a word.
    (
        "rename it to `x_sk-ant-api03-abcdefghijklmnopqrstuvwxyz`",
        "abcdefghijklmnopqrstuvwxyz",
    ),
    (
        "MY_npm_abcdefghijklmnopqrstuvwxyz0123",
        "abcdefghijklmnopqrstuvwxyz0123",
    ),
];

/// Text that must come through unchanged.
const CLEAN: &[&str] = &[
    "",
    // `-p` of other programs, a bare `-p` (the client asks), the port.
    "cargo test -p playbook-core",
    "mkdir -p src/tests && mysql -p shop",
    "mysql -h db -P3306 -u app shop",
    "mysql -p${DB_PASSWORD} shop",
    "sshpass -f ~/.pw ssh host",
    "mysql shop < dump.sql; cp -pR a b",
    "all tests pass",
    "token_count: 5",
    "max_tokens=4096",
    "the password rule is documented in SECURITY.md",
    "secret_name: prod-database",
    "auth: required",
    "author: Jane Doe",
    "password: ${DB_PASSWORD}",
    "token: <your-token>",
    "api_key: $API_KEY",
    "password=",
    "token: true",
    "password: ********",
    "prompt_hash: 3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a",
    "commit 3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e",
    "task-abcdefghijklmnopqrstuvwxyz done",
    "my_task-abcdefghijklmnopqrstuvwxyz and whisk-abcdefghijklmnopqrstuvwxyz",
    "risk-assessment-of-the-new-module",
    "Bearer tokens must be rotated",
    "see https://example.com/docs:8080/path",
    "the cache key: user-42",
    "keyboard: qwerty",
    "T-1 worker: gate `tests_passed == true` passed",
    "api_key=[REDACTED]",
    // Flags of other programs with a `:` in their value.
    "docker run -u 1000:1000 image",
    "pip install -U git+https://github.com/org/repo",
    "git push -u origin main",
    "ssh://git@github.com:22/org/repo.git",
    "see https://example.com:8080/a@b",
];

#[test]
fn every_rule_compiles() {
    // Forces the lazily compiled set and each rule.
    assert!(matching_rules_in(
        "ghp_abcdefghijklmnopqrstuvwxyzABCDEF0123"
    ));
}

fn matching_rules_in(text: &str) -> bool {
    !rules::matching_rules(text).is_empty()
}

#[test]
fn every_secret_form_is_redacted() {
    let mut missed = Vec::new();
    for (text, secret) in SECRETS {
        let clean = redact_str(text);
        if clean.contains(secret) || !clean.contains(REDACTED) {
            missed.push(format!(
                "{text:?} -> {clean:?} (rules: {:?})",
                rules::matching_rules(text)
            ));
        }
    }
    assert!(missed.is_empty(), "secrets left:\n{}", missed.join("\n"));
}

#[test]
fn near_misses_are_left_alone() {
    let mut touched = Vec::new();
    for text in CLEAN {
        if let Cow::Owned(changed) = redact_str(text) {
            touched.push(format!("{text:?} -> {changed:?}"));
        }
    }
    assert!(
        touched.is_empty(),
        "redacted by mistake:\n{}",
        touched.join("\n")
    );
}

#[test]
fn only_the_secret_goes_and_the_context_stays() {
    assert_eq!(
        redact_str("deployed with token=abc123"),
        "deployed with token=[REDACTED]"
    );
    assert_eq!(
        redact_str("password: hunter2 was set"),
        "password: [REDACTED] was set"
    );
    assert_eq!(
        redact_str("Authorization: Bearer eyJhbGciOi1234"),
        "Authorization: Bearer [REDACTED]"
    );
    assert_eq!(
        redact_str(r#"{"api_key": "abc def", "n": 1}"#),
        r#"{"api_key": "[REDACTED]", "n": 1}"#
    );
    assert_eq!(
        redact_str(
            "before -----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY----- after"
        ),
        "before [REDACTED] after"
    );
    assert_eq!(
        redact_str("https://alice:pw123456@host/x"),
        "https://alice:[REDACTED]@host/x"
    );
}

#[test]
fn a_long_bare_value_is_redacted_to_its_end() {
    let secret = "a1".repeat(400);
    let text = format!("token={secret} next");
    let clean = redact_str(&text);
    assert_eq!(clean, "token=[REDACTED] next");
}

#[test]
fn redaction_is_idempotent() {
    for (text, _) in SECRETS {
        let once = redact_str(text).into_owned();
        let twice = redact_str(&once).into_owned();
        assert_eq!(once, twice, "redacting {text:?} twice changes it again");
    }
}

#[test]
fn json_values_are_redacted_by_leaf_and_by_key() {
    let mut value = json!({
        "password": "plainword",
        "pin_password": 123456,
        "nested": [{"note": "used ghp_abcdefghijklmnopqrstuvwxyzABCDEF0123"}],
        "headers": {"Authorization": "Bearer abcdefgh12345678"},
        "clientSecret": "short",
        "session_key": "9f8e7d6c5b4a39281706f5e4d3c2b1a0",
        "token_count": 5,
        "secret_name": "prod-db",
        "prompt_hash": "3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a",
        "AKIAIOSFODNN7EXAMPLE": "a key as a key",
    });
    assert!(redact_value(&mut value));
    let text = value.to_string();
    for secret in [
        "plainword",
        "123456",
        "abcdefghijklmnopqrstuvwxyzABCDEF0123",
        "abcdefgh12345678",
        "short",
        "9f8e7d6c5b4a",
        "AKIAIOSFODNN7EXAMPLE",
    ] {
        assert!(!text.contains(secret), "{secret} is left in {text}");
    }
    assert_eq!(value["token_count"], 5);
    assert_eq!(value["secret_name"], "prod-db");
    assert!(value["prompt_hash"].as_str().unwrap().starts_with("3b4c"));
}

#[test]
fn deep_json_does_not_exhaust_the_stack() {
    let mut value = json!("password=hunter2");
    for _ in 0..100_000 {
        value = Value::Array(vec![value]);
    }
    assert!(redact_value(&mut value));
    // Dropping a deeply nested value recurses in serde_json; unwind it here.
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        if let Value::Array(items) = v {
            stack.extend(items);
        }
    }
}

#[test]
fn two_keys_that_redact_alike_are_both_kept() {
    let mut value = json!({
        "ghp_abcdefghijklmnopqrstuvwxyzABCDEF0123": 1,
        "ghp_ZYXWVUTSRQPONMLKJIHGFEDCBAzyxwvu9876": 2,
    });
    redact_value(&mut value);
    assert_eq!(value.as_object().unwrap().len(), 2);
}

#[test]
fn json_text_is_redacted_as_json_and_other_text_as_text() {
    assert_eq!(
        redact_json_text(r#"{"type":"x","error":"api_key=abc123def"}"#),
        r#"{"type":"x","error":"api_key=[REDACTED]"}"#
    );
    assert_eq!(
        redact_json_text("not json: token=abc123"),
        "not json: token=[REDACTED]"
    );
    assert!(matches!(
        redact_json_text(r#"{"ok":true}"#),
        Cow::Borrowed(_)
    ));
}

#[test]
fn typed_records_round_trip_through_redaction() {
    #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    struct Entry {
        actor: String,
        result: String,
        n: u32,
    }
    let entry = Entry {
        actor: "worker".into(),
        result: "pushed with password=hunter2".into(),
        n: 3,
    };
    let clean = redact_serde(&entry).unwrap().unwrap();
    assert_eq!(clean.result, "pushed with password=[REDACTED]");
    assert_eq!(clean.n, 3);
    let plain = Entry {
        actor: "worker".into(),
        result: "ok".into(),
        n: 1,
    };
    assert!(redact_serde(&plain).unwrap().is_none());
}

#[test]
fn hostile_input_is_linear() {
    // Patterns that would make a backtracking matcher or a naive rescan
    // quadratic; these must finish at the speed of a scan (the test suite
    // would time out otherwise).
    for unit in [
        "key:",
        "token=",
        "a_key: ",
        "\"k\":\"",
        "-----BEGIN PRIVATE KEY-----",
        "Bearer ",
        // Folds (`fold.rs`): escapes that never close, partial UTF-8
        // sequences, a token split at every character.
        "\\u{",
        "\\ud83d",
        "%E2%80",
        "gh\u{200b}p_a\u{200b}",
    ] {
        let text = unit.repeat(200_000 / unit.len());
        let _ = redact_str(&text);
    }
    let long_key = format!("{}token=abc123", "a".repeat(500_000));
    assert!(redact_str(&long_key).ends_with("token=[REDACTED]"));
}

#[test]
fn unicode_text_is_cut_on_character_boundaries() {
    let text = "ünïcödé password=pässwörd ✓ token=日本語のトークン";
    let clean = redact_str(text);
    assert_eq!(clean, "ünïcödé password=[REDACTED] ✓ token=[REDACTED]");
}

#[test]
fn every_rule_needs_a_prefilter_literal() {
    // A rule that can match without any prefilter literal would be skipped
    // for texts that hold nothing else: every secret form must pass it.
    for (text, _) in SECRETS {
        assert!(rules::may_hold_secret(text), "the prefilter drops {text:?}");
    }
    for word in keys::KEY_LIKE_WORDS
        .trim_start_matches("(?:")
        .trim_end_matches(')')
        .split('|')
    {
        assert!(
            rules::may_hold_secret(word),
            "key-like word {word} not prefiltered"
        );
    }
}

#[test]
fn the_json_prefilter_lets_no_secret_of_a_record_through() {
    // Each form in which a record can hold a secret: a string leaf, a key
    // that is a secret, a value hidden by its key's name (a string and a
    // number), nested in arrays and objects. Every one takes the full path
    // and is redacted.
    let records = [
        json!({"note": "pushed with password=hunter2"}),
        json!({"ghp_0123456789abcdefghijklmnopqrstuvwxyz": 1}),
        json!({"client_secret": "plainword"}),
        json!({"pin_password": 123456}),
        json!({"deep": [{"deeper": [{"signing_key": "9f8e7d6c5b4a39281706f5e4d3c2b1a0"}]}]}),
        json!(["Bearer abcdefghijklmnopqrstuvwxyz012345"]),
        json!({"quoted \"api_key\"": "x\"y password=hunter2"}),
    ];
    for record in records {
        assert!(json_may_hold_secret(&record), "{record}");
        let mut value = record.clone();
        assert!(redact_value(&mut value), "{record}");
        let clean: Value = redact_serde(&record).unwrap().unwrap();
        assert_eq!(clean, value);
    }
}

#[test]
fn a_record_the_json_prefilter_passes_is_what_the_full_path_leaves() {
    // The shortcut's promise, checked on records with no literal and on
    // near misses the full path also leaves alone.
    let records = [
        json!({"task_id": "T-1", "title": "Task 1", "iterations": {"worker": 2}}),
        json!({"verdict": "fail", "issues": ["needs another round"], "n": 3.5}),
        json!({"token_count": 5, "secret_name": "prod-db"}),
        json!({"escaped": "line\nbreak \"quoted\" \\ back"}),
        json!({"ünï": "日本語"}),
    ];
    for record in records {
        let mut value = record.clone();
        let changed = redact_value(&mut value);
        if !json_may_hold_secret(&record) {
            assert!(
                !changed,
                "the prefilter passed a record with a secret: {record}"
            );
        }
        assert_eq!(
            redact_serde(&record).unwrap().is_some(),
            changed,
            "{record}"
        );
    }
}

mod prefilter_property {
    use proptest::prelude::*;
    use serde_json::{Map, Value};

    use super::super::*;

    /// Texts mixing plain words, JSON punctuation, escapes and pieces of
    /// secret forms, so that both sides of the prefilter are exercised.
    fn text() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            Just("password".to_string()),
            Just("=hunter2".to_string()),
            Just("ghp_0123456789abcdefghijklmnopqrstuvwxyz".to_string()),
            Just("api_key".to_string()),
            // Names with a literal that are not secrets: the probe judges
            // them as names, and remembers them.
            Just("task_id".to_string()),
            Just("test_author".to_string()),
            Just("9f8e7d6c5b4a39281706f5e4d3c2b1a0".to_string()),
            // Secrets only their folded form shows (`fold.rs`).
            Just("gh\u{200b}p_0123456789abcdefghijklmnopqrstuvwxyz".to_string()),
            Just("pass%77ord".to_string()),
            Just("\"".to_string()),
            Just("\\".to_string()),
            Just("\n".to_string()),
            Just(": ".to_string()),
            "[a-z0-9 _.-]{0,12}",
        ];
        prop::collection::vec(piece, 0..4).prop_map(|p| p.concat())
    }

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            text().prop_map(Value::String),
            any::<i32>().prop_map(Value::from),
            Just(Value::Null),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec((text(), inner), 0..4)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
            ]
        })
    }

    proptest! {
        #[test]
        fn a_record_the_prefilter_passes_holds_no_secret(record in value()) {
            let mut redacted = record.clone();
            let changed = redact_value(&mut redacted);
            if !json_may_hold_secret(&record) {
                prop_assert!(!changed, "passed a record with a secret: {}", record);
            }
            prop_assert_eq!(redact_serde(&record).unwrap(), changed.then_some(redacted));
        }
    }
}

#[test]
fn names_that_keep_a_number_and_plain_names() {
    for name in ["worker", "test_author", "token_count", "session_id"] {
        assert!(keeps_number_under(name), "{name}");
        let mut value = json!({ name: 123456 });
        assert!(!redact_value(&mut value), "{name}");
    }
    for name in ["password", "api_key", "client_secret"] {
        assert!(!keeps_number_under(name), "{name}");
        assert!(!is_plain_name(name), "{name}");
    }
    assert!(is_plain_name("task_id") && is_plain_name("reason"));
    assert!(!is_plain_name("signing_key"));
}

#[test]
fn field_names_with_a_literal_do_not_send_a_clean_record_the_full_way() {
    // `task_id` holds `sk_`, `test_author` holds `auth`: names, not
    // secrets. A record made only of such names and clean values passes.
    for record in [
        json!({"task_id": "T-1", "test_author": 2, "owner": "worker"}),
        json!([{"task_id": "T-1"}, {"task_id": "T-2", "test_author": "done"}]),
        json!({"token_count": 5, "secret_name": "prod-db", "session_id": "s-1"}),
        json!({"7": "seven", "nested": {"task_id": ["T-1", "T-2"]}}),
    ] {
        assert!(!json_may_hold_secret(&record), "{record}");
        let mut value = record.clone();
        assert!(!redact_value(&mut value), "{record}");
    }
}

#[test]
fn a_secret_under_a_plain_name_or_an_invented_name_is_still_found() {
    let machine_made = "9f8e7d6c5b4a39281706f5e4d3c2b1a0zzQ";
    let records = [
        // A secret value under a name the records use.
        json!({"task_id": "ghp_0123456789abcdefghijklmnopqrstuvwxyz"}),
        json!({"task_id": "T-1", "reason": "pushed with password=hunter2"}),
        // A key-like name hides a machine-made value, nothing else.
        json!({"test_author": machine_made}),
        // Names an agent invents: secret names, and a secret as a name.
        json!({"task_id": "T-1", "x_api_key": "plainword"}),
        json!({"x_private_key": 4242}),
        json!({"extra": {"client_secret": "plainword"}}),
        json!({"ghp_0123456789abcdefghijklmnopqrstuvwxyz": "T-1"}),
        // Escapes inside a value are given back as what they stand for.
        json!({"x\tnote": "a\n\"password\": \"hunter2\""}),
    ];
    for record in records {
        assert!(json_may_hold_secret(&record), "{record}");
        let mut value = record.clone();
        assert!(redact_value(&mut value), "{record}");
        let clean: Value = redact_serde(&record).unwrap().unwrap();
        assert_eq!(clean, value, "{record}");
    }
    // The same names over clean values change nothing and pass.
    let near = json!({"test_author": "reviewer-2", "x_api_key": "", "x_private_key": "<yours>"});
    let mut value = near.clone();
    assert!(!redact_value(&mut value));
    assert!(!json_may_hold_secret(&near), "{near}");
}

#[test]
fn typed_records_with_non_string_keys_are_probed_as_their_json() {
    use std::collections::BTreeMap;
    let numbered: BTreeMap<u32, String> = [(1, "one".to_string())].into();
    assert!(!json_may_hold_secret(&numbered));
    let leaked: BTreeMap<u32, String> = [(1, "api_key=sv-probe-1x9q".to_string())].into();
    assert!(json_may_hold_secret(&leaked));
    let flagged: BTreeMap<bool, u32> = [(true, 1)].into();
    assert!(!json_may_hold_secret(&flagged));
}
