//! Open file accepts more than playbooks: a Claude Code subagent file opens
//! its folder of subagents as one playbook, and says which importer read it.

use playbook_studio::library::Library;

const REVIEWER: &str = "---\nname: code-reviewer\ndescription: Reviews the change for bugs.\ntools: Read, Grep\n---\nYou review code.\n";
const WRITER: &str = "---\nname: writer\ndescription: Writes the change.\n---\nYou write code.\n";

#[test]
fn a_subagent_file_imports_its_folder_as_one_playbook_named_by_its_importer() {
    let dir = tempfile::tempdir().unwrap();
    let agents = dir.path().join("shop").join(".claude").join("agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(agents.join("code-reviewer.md"), REVIEWER).unwrap();
    std::fs::write(agents.join("writer.md"), WRITER).unwrap();
    std::fs::write(agents.join("README.md"), "Our agents.\n").unwrap();
    let library = Library::open(dir.path().join("library.db"));

    let imported = library
        .import_file(agents.join("writer.md").to_str().unwrap())
        .expect("a subagent file imports");
    assert_eq!(imported.len(), 1);
    assert!(
        imported[0]
            .source
            .contains("Claude Code subagents, 2 file(s)"),
        "{}",
        imported[0].source
    );
    let opened = library
        .open_playbook(imported[0].saved.playbook.as_str())
        .unwrap();
    let text = serde_json::to_string(&opened).unwrap();
    assert!(
        text.contains("code-reviewer") && text.contains("writer"),
        "{text}"
    );

    // A malformed subagent is refused, naming the file, and nothing is imported.
    std::fs::write(agents.join("broken.md"), "---\nname: [unclosed\n---\nx\n").unwrap();
    let error = library
        .import_file(agents.join("writer.md").to_str().unwrap())
        .unwrap_err();
    assert!(error.message.contains("broken.md"), "{}", error.message);
}
