// The playbook outline: the stages and their roles as a tree, with a badge
// for each one's worst finding, a filter by role name and foldable stages,
// so a playbook of 150 roles stays navigable.
import { memo, useMemo, useState } from "react";
import type { Playbook } from "../generated/Playbook";
import { addStage, rolePointer, stagePointer, stages } from "./document";
import type { Selection } from "./Editor";

function OutlineBadge({ pointer, ranks }: { pointer: string; ranks: Map<string, string> }) {
  const rank = ranks.get(pointer);
  return rank ? <span className={`dot dot-${rank}`} aria-label={`has ${rank}s`} /> : null;
}

export const MemoOutline = memo(Outline);

/** From this many roles on, the outline starts with its stages folded. */
const FOLD_FROM = 40;

function allRoleCount(doc: Playbook): number {
  return stages(doc).reduce((n, [, s]) => n + (s.roles?.length ?? 0), 0);
}

function Outline({
  docRef,
  ranks: rankText,
  selection,
  setSelection,
  edit,
  notify,
}: {
  docRef: React.RefObject<Playbook>;
  structure: string;
  ranks: string;
  selection: Selection;
  setSelection: (s: Selection) => void;
  edit: (doc: Playbook, key?: string) => void;
  notify: (message: string, kind?: "info" | "error") => void;
}) {
  // Reads the newest document at render and at click time; re-renders are
  // driven by `structure` and `ranks`.
  const doc = docRef.current;
  const ranks = useMemo(() => new Map<string, string>(JSON.parse(rankText) as [string, string][]), [rankText]);
  const [newStage, setNewStage] = useState("");
  // With many roles the tree starts with its stages folded (the selected
  // one stays open) and a filter finds a role by name.
  const [filter, setFilter] = useState("");
  const [folded, setFolded] = useState<Set<string>>(() =>
    allRoleCount(doc) > FOLD_FROM ? new Set(stages(doc).map(([n]) => n)) : new Set(),
  );
  const needle = filter.trim().toLowerCase();
  const toggle = (stage: string) =>
    setFolded((f) => {
      const next = new Set(f);
      if (next.has(stage)) next.delete(stage);
      else next.add(stage);
      return next;
    });
  const add = () => {
    const name = newStage.trim();
    if (!name) return notify("Type a name for the new stage first.", "error");
    if (docRef.current.workflow[name]) return notify(`There is already a stage named "${name}".`, "error");
    edit(addStage(docRef.current, name));
    setNewStage("");
    setSelection({ kind: "stage", stage: name });
  };
  return (
    <nav className="outline" aria-label="Playbook outline">
      <button type="button" className={`outline-item ${selection.kind === "playbook" ? "current" : ""}`} onClick={() => setSelection({ kind: "playbook" })}>
        {doc.name || "(unnamed playbook)"}
      </button>
      <input
        type="search"
        className="outline-filter"
        aria-label="Filter roles"
        placeholder="Filter roles"
        value={filter}
        onChange={(e) => setFilter(e.target.value.slice(0, 200))}
        onKeyDown={(e) => e.key === "Escape" && setFilter("")}
      />
      <ul>
        {stages(doc).map(([name, stage]) => {
          const roles = (stage.roles ?? []).map((r, i) => ({ r, i }));
          const shown = needle ? roles.filter(({ r }) => r.name.toLowerCase().includes(needle)) : roles;
          if (needle && shown.length === 0 && !name.toLowerCase().includes(needle)) return null;
          const open = needle !== "" || !folded.has(name) || (selection.kind !== "playbook" && selection.stage === name);
          return (
            <li key={name}>
              <span className="outline-stage-row">
                <button
                  type="button"
                  className="fold"
                  aria-expanded={open}
                  aria-label={`${open ? "Fold" : "Unfold"} stage ${name} (${roles.length} role${roles.length === 1 ? "" : "s"})`}
                  data-fold-stage={name}
                  onClick={() => toggle(name)}
                >
                  {open ? "▾" : "▸"}
                </button>
                <button
                  type="button"
                  className={`outline-item stage ${selection.kind === "stage" && selection.stage === name ? "current" : ""} ${stage.enabled === false ? "disabled" : ""}`}
                  data-outline-stage={name}
                  onClick={() => setSelection({ kind: "stage", stage: name })}
                >
                  {name} {!open && <span className="muted">({roles.length})</span>} <OutlineBadge pointer={stagePointer(name) + "/stage_policy"} ranks={ranks} />
                </button>
              </span>
              {open && (
                <ul>
                  {shown.map(({ r, i }) => {
                    const current = selection.kind === "role" && selection.stage === name && selection.index === i;
                    return (
                      <li key={i}>
                        <button
                          type="button"
                          className={`outline-item role ${current ? "current" : ""}`}
                          data-outline-role={r.name}
                          onClick={() => setSelection({ kind: "role", stage: name, index: i })}
                        >
                          {r.name || "(unnamed)"} <OutlineBadge pointer={rolePointer({ stage: name, index: i })} ranks={ranks} />
                        </button>
                      </li>
                    );
                  })}
                </ul>
              )}
            </li>
          );
        })}
      </ul>
      {needle && stages(doc).every(([, s]) => !(s.roles ?? []).some((r) => r.name.toLowerCase().includes(needle))) && (
        <p className="muted">No role matches “{filter.trim()}”.</p>
      )}
      <div className="add-stage">
        <input
          type="text"
          aria-label="New stage name"
          placeholder="new stage"
          value={newStage}
          onChange={(e) => setNewStage(e.target.value.slice(0, 200))}
          onKeyDown={(e) => e.key === "Enter" && add()}
        />
        <button type="button" onClick={add}>
          Add stage
        </button>
      </div>
    </nav>
  );
}

