// What a drop on the window opens: the first file of a kind Open file
// takes (a playbook, a CrewAI config, a Claude Code subagent file), or why
// nothing.
const OPENABLE = ["yaml", "yml", "json", "md"];

export type DropChoice = { file: string; ignored: number } | { error: string };

export function droppedFile(paths: string[]): DropChoice {
  const openable = paths.filter((p) => OPENABLE.includes(p.split(".").pop()?.toLowerCase() ?? ""));
  const [file] = openable;
  if (!file) {
    return {
      error:
        paths.length === 0
          ? "Nothing was dropped."
          : `Drop a playbook (.yaml, .yml, .json), a CrewAI agents.yaml or tasks.yaml, or a Claude Code subagent file (.md); ${paths.length === 1 ? "that file is" : "those files are"} none of these.`,
    };
  }
  return { file, ignored: paths.length - 1 };
}
