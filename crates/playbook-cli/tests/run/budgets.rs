//! Budgets given on the command line: a refusal names the flag, and a run
//! that uses one up says which one it was.

use serde_json::json;

use crate::harness::{Repo, done, run, single};

#[test]
fn a_run_out_of_tool_calls_says_so_not_wall_time() {
    let repo = Repo::new();
    let script = json!({"worker": [{
        "calls": [{"tool": "read_file", "args": {"path": "src/lib.txt"}}],
        "answer": {"output": {"summary": "s"}, "result": done()}
    }]});
    let run = run(
        &repo,
        &single("read_file"),
        script,
        &["--max-tool-calls", "0"],
    );
    let budget: Vec<String> = run
        .events
        .iter()
        .filter(|e| e.to_string().contains("BUDGET_EXCEEDED"))
        .map(|e| e.to_string())
        .collect();
    assert!(!budget.is_empty(), "{}\n{}", run.stdout, run.stderr);
    for event in &budget {
        assert!(!event.contains("wall-time"), "{event}");
    }
    assert!(
        budget.iter().any(|e| e.contains("budget of tool calls")),
        "{budget:?}"
    );
}

#[test]
fn an_out_of_range_budget_is_refused_by_its_flag_before_the_run() {
    let repo = Repo::new();
    for (flag, value) in [
        ("--max-agent-calls", "18446744073709551615"),
        ("--max-tool-calls", "10000001"),
    ] {
        let run = run(&repo, &single("read_file"), json!({}), &[flag, value]);
        assert!(!run.out.status.success());
        assert!(run.stderr.contains(flag), "{flag}: {}", run.stderr);
        assert!(!run.stderr.contains("limits."), "{flag}: {}", run.stderr);
        assert!(
            run.events.is_empty(),
            "{flag}: the run started: {}",
            run.stdout
        );
    }
    // Nothing of a run was made.
    assert!(!repo.path().join(".git/playbook/runs").exists());
}
