//! Gate compilation: the gate text, and (after the first NUL byte) the
//! expression of a playbook policy that the gate may name. A parser panic or
//! a deep expression must come back as an error, never abort.
#![no_main]

use libfuzzer_sys::fuzz_target;
use playbook_core::gate;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (gate_text, policy) = text.split_once('\0').unwrap_or((&text, ""));
    // With a policy part, the gate's own key (or `fuzz_policy`) resolves to it;
    // without one, keys go to the built-in policies or are unknown.
    let _ = gate::compile(gate_text, |key| {
        (!policy.is_empty() && (key == "fuzz_policy" || key == gate_text.trim())).then_some(policy)
    });
    let _ = gate::compile_expression(gate_text);
});
