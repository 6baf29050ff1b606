//! Every wire envelope (assignment packet, subagent result, orchestrator
//! output, worklog entry, handoff bundle, role assignment request and
//! response, director task, associate result, validator output) parsed and
//! checked from arbitrary JSON, strict and lenient.
#![no_main]

use libfuzzer_sys::fuzz_target;
use playbook_orchestrator::envelope::{self, Envelope};
use serde_json::Value;

fn check<E: Envelope>(value: &Value) {
    for strict in [false, true] {
        // An accepted envelope must survive its own serialisation: what the
        // engine writes to records is read back by `validate` and the store.
        if let Ok(parsed) = envelope::parse::<E>(value, strict)
            && let Ok(again) = serde_json::to_value(&parsed)
        {
            let _ = envelope::parse::<E>(&again, strict);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    check::<envelope::AssignmentPacket>(&value);
    check::<envelope::SubagentResult>(&value);
    check::<envelope::OrchestratorOutput>(&value);
    check::<envelope::WorklogEntry>(&value);
    check::<envelope::HandoffBundle>(&value);
    check::<envelope::ValidatorOutput>(&value);
    check::<envelope::RoleAssignmentRequest>(&value);
    check::<envelope::RoleAssignmentResponse>(&value);
    check::<envelope::DirectorTask>(&value);
    check::<envelope::AssociateResult>(&value);
});
