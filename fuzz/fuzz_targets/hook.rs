//! Claude Code's `PreToolUse` hook (`playbook gate`) on arbitrary `Bash`
//! commands: whatever the text, the decision is made without a panic, and a
//! role whose only tool behind `Bash` is `git_diff` (the reviewer of
//! playbooks/tdd.yaml) is never allowed a command that is not git.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use playbook_core::interop::claude_code::{GateInput, Permission, Scopes, decide};
use playbook_core::model::Playbook;
use playbook_core::{Format, document};
use serde_json::json;

fn playbook() -> &'static Playbook {
    static PLAYBOOK: OnceLock<Playbook> = OnceLock::new();
    PLAYBOOK.get_or_init(|| {
        let text = include_str!("../../playbooks/tdd.yaml");
        let (value, _) = document::parse_playbook(text, Format::Yaml).expect("tdd.yaml parses");
        document::from_value(value).expect("tdd.yaml is a playbook")
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(command) = std::str::from_utf8(data) else {
        return;
    };
    let scopes = Scopes {
        lock_scope: vec!["src".into()],
        forbidden_scope: vec![],
        protected: vec!["/home/u/project/tdd.yaml".into()],
    };
    for role in ["reviewer", "tester", "test_author", "worker"] {
        let input = GateInput {
            tool_name: "Bash".into(),
            tool_input: json!({ "command": command }),
            cwd: Some("/home/u/project".into()),
            agent_type: Some(role.into()),
        };
        let decision = decide(playbook(), None, &input, &scopes, false);
        if role == "reviewer" && decision.permission == Some(Permission::Allow) {
            // The program is the first word, as the shell reads it (a
            // `2>&1` may stand anywhere, even before it).
            let program = shlex::split(&command.replace("2>&1", " "))
                .and_then(|words| words.into_iter().next());
            assert_eq!(
                program.as_deref(),
                Some("git"),
                "the reviewer may run only git through Bash, yet {command:?} was allowed"
            );
        }
    }
});
