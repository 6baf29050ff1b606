//! A role assigner that is a command (spec/role-assignment-llm-contract.md).
//!
//! For each decision the command is started with the
//! `RoleAssignmentRequest` JSON on its standard input and the stage name in
//! `PLAYBOOK_STAGE`; whatever it prints on standard output (at most
//! [`MAX_ASSIGNER_OUTPUT_BYTES`]) within the time limit is the answer. The
//! engine parses and checks that text exactly as it checks a model's, and
//! falls back deterministically when it is unusable, so every failure here
//! — a missing program, a non-zero exit, a timeout, a flood — answers the
//! empty string, which the engine rejects. The reason is kept in
//! [`CommandAssigner::last_error`] (the program and what went wrong, never
//! the request or the output, which may hold secrets).

use std::path::PathBuf;
use std::time::Duration;

use playbook_orchestrator::agent::RoleAssigner;
use playbook_orchestrator::envelope::RoleAssignmentRequest;

use crate::process::AgentProcess;

/// Most bytes of an assigner's answer; a role assignment response is a few
/// hundred bytes.
pub const MAX_ASSIGNER_OUTPUT_BYTES: usize = 64 * 1024;

/// Runs a command for each role assignment.
#[derive(Debug, Clone)]
pub struct CommandAssigner {
    pub argv: Vec<String>,
    pub cwd: PathBuf,
    pub timeout: Duration,
    /// Why the last decision failed, if it did.
    pub last_error: Option<String>,
}

impl CommandAssigner {
    pub fn new(argv: Vec<String>, cwd: PathBuf, timeout: Duration) -> Self {
        CommandAssigner {
            argv,
            cwd,
            timeout,
            last_error: None,
        }
    }

    async fn run(&self, stage: &str, request: &RoleAssignmentRequest) -> Result<String, String> {
        let program = self.argv.first().cloned().unwrap_or_default();
        let input =
            serde_json::to_string(request).map_err(|e| format!("cannot write the request: {e}"))?;
        let env = [("PLAYBOOK_STAGE".to_string(), stage.to_string())];
        let mut process = AgentProcess::spawn(
            &self.argv,
            &self.cwd,
            &env,
            Some(input),
            MAX_ASSIGNER_OUTPUT_BYTES,
        )
        .map_err(|e| format!("assigner `{program}` could not start: {e}"))?;
        let waited = tokio::time::timeout(self.timeout, process.child.wait()).await;
        // Whatever happened, nothing the assigner started outlives the
        // decision (and holds its output open).
        process.kill_tree();
        let status = match waited {
            Err(_) => {
                return Err(format!(
                    "assigner `{program}` gave no answer within {} s and was killed",
                    self.timeout.as_secs_f64()
                ));
            }
            Ok(Err(e)) => return Err(format!("waiting for assigner `{program}` failed: {e}")),
            Ok(Ok(status)) => status,
        };
        if !status.success() {
            return Err(format!("assigner `{program}` exited with {status}"));
        }
        let captured =
            match tokio::time::timeout(Duration::from_secs(5), &mut process.stdout).await {
                Ok(read) => read
                    .map_err(|e| format!("assigner `{program}`: reading its output failed: {e}"))?,
                Err(_) => {
                    // Something that left the process group still holds the
                    // pipe open; stop reading.
                    process.stdout.abort();
                    return Err(format!("assigner `{program}`: its output did not end"));
                }
            };
        if captured.flooded {
            return Err(format!(
                "assigner `{program}` printed more than {MAX_ASSIGNER_OUTPUT_BYTES} bytes"
            ));
        }
        String::from_utf8(captured.bytes)
            .map_err(|_| format!("assigner `{program}` printed text that is not UTF-8"))
    }
}

impl RoleAssigner for CommandAssigner {
    async fn assign(&mut self, stage: &str, request: &RoleAssignmentRequest) -> String {
        match self.run(stage, request).await {
            Ok(text) => {
                self.last_error = None;
                text
            }
            Err(reason) => {
                self.last_error = Some(reason);
                String::new()
            }
        }
    }
}
