// Help ▸ Documentation and Help ▸ About: the shortcuts, where the documentation
// is, and what this app is (version, library file). Escape or Close ends it.
import { useEffect, useRef, useState } from "react";
import { backend } from "../backend";
import type { AppInfo } from "../generated/AppInfo";

export type HelpTopic = "documentation" | "about";

const SHORTCUTS: [string, string][] = [
  ["Ctrl+N", "New playbook (from an example or blank)"],
  ["Ctrl+O", "Open a playbook file (added to the library)"],
  ["Ctrl+S", "Save a version of the open playbook"],
  ["Ctrl+Shift+S", "Export to file (save as): the open playbook, unsaved edits included, as YAML or JSON"],
  ["Ctrl+E", "Export for Claude Code: subagents, settings and the gate hook into a project folder"],
  ["Ctrl+Z / Ctrl+Shift+Z", "Undo / redo, across the form, the source and the graph"],
  ["Ctrl+F", "Find: the search box of the screen"],
  ["F1", "This help"],
  ["Ctrl+Q", "Quit"],
];

export function Help({ topic, onClose }: { topic: HelpTopic; onClose: () => void }) {
  const close = useRef<HTMLButtonElement>(null);
  const [info, setInfo] = useState<AppInfo | null>(null);
  useEffect(() => close.current?.focus({ preventScroll: true }), []);
  useEffect(() => {
    backend
      .appInfo()
      .then(setInfo)
      .catch(() => setInfo(null));
  }, []);
  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === "Escape") {
      e.preventDefault();
      onClose();
    }
  };
  return (
    <div className="modal-backdrop">
      <div className="modal" role="dialog" aria-modal="true" aria-labelledby="help-title" onKeyDown={onKeyDown} data-testid={`help-${topic}`}>
        {topic === "about" ? (
          <>
            <h2 id="help-title">Playbook Studio {info?.version ?? ""}</h2>
            <p>Author, check, preview and run playbooks: the role contracts, stage policies and templates that govern a team of AI coding agents.</p>
            {info?.database && (
              <p className="small">
                Library: <code data-testid="about-database">{info.database}</code>
              </p>
            )}
          </>
        ) : (
          <>
            <h2 id="help-title">Documentation and shortcuts</h2>
            <table className="small">
              <tbody>
                {SHORTCUTS.map(([keys, what]) => (
                  <tr key={keys}>
                    <th scope="row">
                      <kbd>{keys}</kbd>
                    </th>
                    <td>{what}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <p className="small">
              The same checks run in a terminal and in CI: <code>playbook validate</code>, <code>playbook preview</code>, <code>playbook run</code>;{" "}
              <code>playbook --help</code> lists every command. The documentation of every lint code, the playbook format and the agents is in the{" "}
              <code>docs/</code> folder of Playbook Studio's source (<code>docs/lints.md</code>, <code>docs/agents.md</code>).
            </p>
          </>
        )}
        <div className="modal-actions">
          <button ref={close} type="button" onClick={onClose} data-testid="help-close">
            Close
          </button>
        </div>
      </div>
    </div>
  );
}
