//! Scenario parsing (YAML or JSON) and its check against each example
//! playbook: errors come back as `ScenarioError`, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use playbook_orchestrator::Scenario;
use std::sync::LazyLock;

static PLAYBOOKS: LazyLock<Vec<playbook_core::Playbook>> = LazyLock::new(|| {
    [
        include_str!("../../playbooks/compound-engineering.yaml"),
        include_str!("../../playbooks/tdd.yaml"),
        include_str!("../../playbooks/pairing.yaml"),
        include_str!("../../playbooks/legacy.yaml"),
    ]
    .into_iter()
    .filter_map(|text| playbook_orchestrator::load_playbook(text).ok())
    .collect()
});

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(scenario) = Scenario::parse(&text) {
        for playbook in PLAYBOOKS.iter() {
            let _ = scenario.check_against(playbook);
        }
    }
});
