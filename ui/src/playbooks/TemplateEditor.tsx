// The editor of a team template: the same role editor, hints and Problems
// panel as a playbook's role, its own undo stack, versions saved with the
// version the edits started from, and the template's history. Unsaved edits
// are kept in local storage, so nothing typed is lost when the window closes.
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { backend, BackendError, messageOf } from "../backend";
import type { Finding } from "../generated/Finding";
import type { Playbook } from "../generated/Playbook";
import type { Role } from "../generated/Role";
import type { TemplateChecked } from "../generated/TemplateChecked";
import { VersionHistory } from "../history/History";
import { FindingsContext } from "../validation/hints";
import { useCommands } from "../shell/commands";
import { Problems } from "../validation/Problems";
import { rolePointer, roleAt, type RoleAddress } from "./document";
import { focusTarget } from "./Editor";
import { RoleEditor } from "./RoleEditor";
import { useDocument } from "./useDocument";

/** The template stands alone in a one-stage playbook, as the backend checks it. */
const ADDRESS: RoleAddress = { stage: "template", index: 0 };
const POINTER = rolePointer(ADDRESS);

function holder(role: Role): Playbook {
  return { schema_version: "1.0.0", id: "template", name: "Template", workflow: { template: { roles: [role] } } } as Playbook;
}

type Draft = { base: number; role: Role };
const draftKey = (name: string) => `playbook-studio.template-draft.${name}`;

function readDraft(name: string): Draft | null {
  try {
    const text = localStorage.getItem(draftKey(name));
    return text ? (JSON.parse(text) as Draft) : null;
  } catch {
    return null;
  }
}

type Props = {
  name: string;
  handoffRoles: string[];
  notify: (m: string, kind?: "info" | "error") => void;
  onChanged: () => void;
};

export function TemplateEditor({ name, handoffRoles, notify, onChanged }: Props) {
  const { doc, edit, load, undo, redo, canUndo, canRedo, revision } = useDocument();
  const [base, setBase] = useState<number | null>(null);
  const [checked, setChecked] = useState<TemplateChecked | null>(null);
  const [savedRevision, setSavedRevision] = useState(-1);
  const [error, setError] = useState<string | null>(null);
  const [historyRefresh, setHistoryRefresh] = useState(0);
  const [confirmRemove, setConfirmRemove] = useState(false);
  /** The editor holds unsaved edits kept from an earlier session. */
  const [fromDraft, setFromDraft] = useState(false);
  const seq = useRef(0);
  const role = doc ? roleAt(doc, ADDRESS) : undefined;

  useEffect(() => {
    setError(null);
    setChecked(null);
    backend
      .openTemplate(name)
      .then((opened) => {
        const number = opened.version?.number ?? 0;
        const draft = readDraft(name);
        const resumed = draft !== null && draft.base === number;
        load(holder(resumed ? draft.role : opened.role));
        setFromDraft(resumed);
        setBase(number);
        if (draft && draft.base === number) notify(`Opened template ${name} with your unsaved edits.`);
        else if (draft) notify(`Your unsaved edits of ${name} started from version ${draft.base}, but version ${number} was saved since; they were set aside.`, "error");
      })
      .catch((e) => setError(`Could not open template ${name}: ${messageOf(e)}`));
  }, [name, load, notify]);

  // The first revision is what was loaded; later ones are edits to keep.
  useEffect(() => {
    if (doc) setSavedRevision((r) => (r === -1 ? revision : r));
  }, [doc, revision]);
  const dirty = fromDraft || (savedRevision !== -1 && revision !== savedRevision);
  useEffect(() => {
    if (!role || base === null) return;
    if (dirty) localStorage.setItem(draftKey(name), JSON.stringify({ base, role }));
  }, [role, base, dirty, name]);

  useEffect(() => {
    if (!role) return;
    const mine = ++seq.current;
    backend
      .checkTemplate(role)
      .then((result) => mine === seq.current && setChecked(result))
      .catch((e) => mine === seq.current && notify(`Checking failed: ${messageOf(e)}. Your edits are kept.`, "error"));
  }, [role, notify]);

  const findings: Finding[] = useMemo(() => (checked?.findings ?? []).map((f) => ({ ...f, path: POINTER + f.path })), [checked]);
  const errors = findings.filter((f) => f.severity === "error").length;

  const save = useCallback(async () => {
    if (!role || base === null) return;
    if (checked && !checked.allow) return notify(`Not saved: fix the ${errors} error${errors === 1 ? "" : "s"} first; a template others insert must validate.`, "error");
    try {
      const saved = await backend.saveTemplate(name, role, "edited in the template editor", base);
      setBase(saved.version.number);
      setSavedRevision(revision);
      setFromDraft(false);
      localStorage.removeItem(draftKey(name));
      setHistoryRefresh((r) => r + 1);
      onChanged();
      notify(saved.unchanged ? `No change since version ${saved.version.number}.` : `Saved template ${name}, version ${saved.version.number}.`);
    } catch (e) {
      const conflict = e instanceof BackendError && e.code === "conflict";
      notify(`${conflict ? "Not saved: " : "Could not save: "}${messageOf(e)}`, "error");
    }
  }, [role, base, checked, errors, name, revision, notify, onChanged]);

  const restore = async (number: number) => {
    try {
      const old = await backend.openTemplate(name, number);
      edit(holder(old.role));
      notify(`Version ${number} is in the editor; save to make it the latest.`);
    } catch (e) {
      notify(`Could not open version ${number}: ${messageOf(e)}`, "error");
    }
  };

  const remove = async () => {
    setConfirmRemove(false);
    try {
      await backend.deleteTemplate(name);
      localStorage.removeItem(draftKey(name));
      notify(`Removed template ${name}.`);
      onChanged();
    } catch (e) {
      notify(`Could not remove ${name}: ${messageOf(e)}`, "error");
    }
  };

  // This screen's own commands (keys and menu): undo and redo of the template, save a version.
  useCommands({ undo, redo, save: () => void save() });

  if (error) {
    return (
      <p className="banner banner-error" role="alert">
        {error}
      </p>
    );
  }
  if (!doc || !role) return <p className="muted">Opening {name}…</p>;
  return (
    <FindingsContext.Provider value={findings}>
      <div className="template-editor" data-template-editor={name}>
        <div className="template-toolbar">
          <h2>
            {name} <span className="muted small">version {base}</span>
          </h2>
          <button type="button" onClick={undo} disabled={!canUndo} title="Undo (Ctrl+Z)" data-testid="template-undo">
            Undo
          </button>
          <button type="button" onClick={redo} disabled={!canRedo} title="Redo (Ctrl+Shift+Z)" data-testid="template-redo">
            Redo
          </button>
          <button type="button" className="primary" onClick={() => void save()} disabled={!dirty} title="Save a version (Ctrl+S)" data-testid="template-save">
            Save version
          </button>
          {confirmRemove ? (
            <span className="inline" role="group" aria-label="Confirm removal">
              Remove {name} from the list? Its versions are kept.{" "}
              <button type="button" className="danger" onClick={() => void remove()} data-testid="template-remove-confirm">
                Remove
              </button>
              <button type="button" onClick={() => setConfirmRemove(false)}>
                Keep
              </button>
            </span>
          ) : (
            <button type="button" className="danger" onClick={() => setConfirmRemove(true)}>
              Remove template
            </button>
          )}
          {dirty && <span className="muted small">Unsaved edits (kept if you close the window)</span>}
          <span className={`status ${errors ? "status-error" : "status-ok"}`} data-testid="template-validity">
            {checked ? (errors ? `${errors} error${errors > 1 ? "s" : ""} — save blocked` : "valid") : "checking…"}
          </span>
        </div>
        <RoleEditor doc={doc} address={ADDRESS} role={role} edit={edit} handoffRoles={[...new Set([...handoffRoles, ...(role.handoff_to ?? [])])]} />
        <Problems
          findings={findings}
          root={{ pointer: POINTER, label: "the role" }}
          onActivate={(f) => {
            const target = focusTarget(f.path);
            target?.scrollIntoView({ block: "center" });
            target?.focus();
          }}
        />
        <VersionHistory
          title={`Versions of ${name}`}
          refresh={`${name}:${historyRefresh}`}
          versions={() => backend.templateHistory(name)}
          compare={(from, to) => backend.compareTemplates(name, from, to)}
          restore={(number) => void restore(number)}
        />
      </div>
    </FindingsContext.Provider>
  );
}
