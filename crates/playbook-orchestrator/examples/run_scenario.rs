//! Prints the JSONL events of a preview: `run_scenario PLAYBOOK [SCENARIO] [SEED]`.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let playbook = std::fs::read_to_string(&args[1]).unwrap_or_default();
    let scenario = args
        .get(2)
        .map(|p| std::fs::read_to_string(p).unwrap_or_default())
        .unwrap_or_default();
    let seed = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(0);
    match playbook_orchestrator::preview(
        &playbook,
        &scenario,
        seed,
        playbook_orchestrator::Approval::Scenario,
    ) {
        Ok(p) => print!("{}", p.jsonl),
        Err(e) => eprintln!("{e}"),
    }
}
