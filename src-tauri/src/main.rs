// No console window on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    // A real run hands its agent processes `<this binary> gateway --socket S
    // --token T` as their MCP server: the app serves the relay itself, so a
    // run needs no second program installed. It exits before any window.
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("gateway") {
        std::process::exit(playbook_studio::gateway::main(&args[1..]));
    }
    playbook_studio::run()
}
