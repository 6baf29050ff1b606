//! The engine on a fuzzed scenario: a preview of an example playbook (chosen
//! by the first byte) under the scenario in the remaining bytes, with every
//! approval mode. A run ends with a report, whatever the scenario says.
#![no_main]

use libfuzzer_sys::fuzz_target;
use playbook_orchestrator::{Approval, preview};

const PLAYBOOKS: [&str; 4] = [
    include_str!("../../playbooks/compound-engineering.yaml"),
    include_str!("../../playbooks/tdd.yaml"),
    include_str!("../../playbooks/pairing.yaml"),
    include_str!("../../playbooks/legacy.yaml"),
];

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let playbook = PLAYBOOKS[usize::from(selector) % PLAYBOOKS.len()];
    let approval = match (selector / 4) % 3 {
        0 => Approval::Scenario,
        1 => Approval::Auto,
        _ => Approval::Deny,
    };
    let scenario = String::from_utf8_lossy(rest);
    let _ = preview(playbook, &scenario, u64::from(selector), approval);
});
