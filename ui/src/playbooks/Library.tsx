// The library: every playbook with its name, last edit and validity; new,
// open a file, export, duplicate, delete (confirmed, undoable), search.
import { useEffect, useMemo, useState } from "react";
import { backend, BackendError, messageOf } from "../backend";
import { ConfirmDialog } from "../Modal";
import type { Example } from "../generated/Example";
import type { Finding } from "../generated/Finding";
import type { PlaybookSummary } from "../generated/PlaybookSummary";

type Props = {
  examples: Example[];
  refresh: number;
  onOpen: (id: string, from?: string) => void;
  onNewBlank: () => void;
  onNewFromTemplates: () => void;
  /** Opens the library's unchanged copy of an example, or makes one. */
  onOpenExample: (example: Example) => void;
  /** After a delete: the app closes the playbook if it is open and offers Undo. */
  onDeleted: (playbook: PlaybookSummary) => void;
  notify: (m: string, kind?: "info" | "error") => void;
};

type ImportError = { message: string; findings: Finding[] };

function importError(e: unknown): ImportError {
  const details = e instanceof BackendError ? (e.details as { findings?: Finding[] } | undefined) : undefined;
  return { message: messageOf(e), findings: details?.findings ?? [] };
}

export function Library({ examples, refresh, onOpen, onNewBlank, onNewFromTemplates, onOpenExample, onDeleted, notify }: Props) {
  const [items, setItems] = useState<PlaybookSummary[] | null>(null);
  const [deleted, setDeleted] = useState<PlaybookSummary[]>([]);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [query, setQuery] = useState("");
  const [failure, setFailure] = useState<ImportError | null>(null);
  const [confirmDelete, setConfirmDelete] = useState<PlaybookSummary | null>(null);
  const [tick, setTick] = useState(0);
  const reload = () => setTick((t) => t + 1);

  useEffect(() => {
    backend
      .list(true)
      .then((list) => {
        setItems(list.filter((p) => !p.deleted_at));
        setDeleted(list.filter((p) => p.deleted_at));
        setLoadError(null);
      })
      .catch((e) => setLoadError(messageOf(e)));
  }, [tick, refresh]);

  const shown = useMemo(() => {
    const q = query.trim().toLowerCase();
    return (items ?? []).filter((p) => !q || p.name.toLowerCase().includes(q) || p.id.toLowerCase().includes(q));
  }, [items, query]);

  /** Imports a file into the library and opens what it imported in the editor. */
  const importFrom = async (file: string | null) => {
    if (file === null) return;
    setFailure(null);
    try {
      const imported = await backend.importFile(file);
      // The source names the importer when the file was not a playbook (Claude Code subagents).
      notify(`Imported ${imported.map((i) => `${i.saved.playbook} (${i.outcome.replace("_", " ")}) from ${i.source}`).join(", ")}.`);
      reload();
      if (imported[0]) onOpen(imported[0].saved.playbook, imported[0].source);
    } catch (e) {
      setFailure(importError(e));
    }
  };

  return (
    <section className="library" aria-label="Library">
      <header className="library-header">
        <h1>Library</h1>
        <input
          type="search"
          data-find
          aria-label="Search playbooks"
          placeholder="Search by name or id"
          value={query}
          data-testid="library-search"
          onChange={(e) => setQuery(e.target.value.slice(0, 200))}
        />
      </header>
      <div className="library-actions">
        <button type="button" onClick={onNewBlank}>
          New blank playbook
        </button>
        <button type="button" onClick={onNewFromTemplates} data-testid="new-from-templates">
          New from role templates
        </button>
        <label className="inline" title="Opens the library's copy of the example while it is unchanged; otherwise adds a fresh copy. Duplicate makes more copies.">
          Open example:{" "}
          <select
            aria-label="Open example"
            value=""
            data-testid="new-from-example"
            onChange={(e) => {
              const ex = examples.find((x) => x.id === e.target.value);
              if (ex) onOpenExample(ex);
            }}
          >
            <option value="">choose…</option>
            {examples.map((x) => (
              <option key={x.id} value={x.id}>
                {x.name}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          data-testid="open-file"
          title="Adds a playbook file (YAML or JSON, a Claude Code subagent file, a CrewAI crew) to the library and opens it in the editor. A file whose id is already in the library becomes its next version."
          onClick={() => backend.choosePlaybookFile().then((f) => importFrom(f)).catch((e) => setFailure(importError(e)))}
        >
          Open file…
        </button>
      </div>
      <p className="muted small" data-testid="library-file-help">
        Open file… (or a file dropped on the window) adds a file to the library and opens it. Export… writes a
        playbook's latest saved version to a file; the editor's Export to file… writes what is open, unsaved edits included.
      </p>
      {failure && (
        <div className="banner banner-error" role="alert" data-testid="import-error">
          <p>
            <strong>Import refused; the library is unchanged.</strong> {failure.message}
          </p>
          {failure.findings.length > 0 && (
            <ul>
              {failure.findings.slice(0, 10).map((f, i) => (
                <li key={i}>
                  <code>{f.code}</code> {f.message}
                  {f.location ? ` (line ${f.location.line}, column ${f.location.column})` : ""}
                </li>
              ))}
            </ul>
          )}
          <button type="button" onClick={() => setFailure(null)}>
            Dismiss
          </button>
        </div>
      )}
      {loadError && (
        <p className="banner banner-error" role="alert">
          {loadError}
        </p>
      )}
      {items === null && !loadError && <p className="muted">Loading the library…</p>}
      {items !== null && (
        <table className="library-table" data-testid="library-table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Last edit</th>
              <th>Validity</th>
              <th>Versions</th>
              <th>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {shown.map((p) => (
              <tr key={p.id} data-playbook={p.id}>
                <td>
                  <button type="button" className="link" onClick={() => onOpen(p.id)} data-open={p.id}>
                    {p.name}
                  </button>
                  <div className="muted small">
                    {p.id}
                    {p.has_draft && <span className="draft-badge"> · unsaved draft</span>}
                  </div>
                </td>
                <td>{formatTime(p.updated_at)}</td>
                <td>
                  <Validity errors={p.latest.validity.errors} warnings={p.latest.validity.warnings} />
                </td>
                <td>{p.latest.number}</td>
                <td className="row-actions">
                  <button type="button" onClick={() => onOpen(p.id)}>
                    Open
                  </button>
                  <button
                    type="button"
                    onClick={() =>
                      backend
                        .duplicate(p.id)
                        .then((s) => {
                          notify(`Duplicated as ${s.playbook}.`);
                          reload();
                        })
                        .catch((e) => notify(messageOf(e), "error"))
                    }
                  >
                    Duplicate
                  </button>
                  <button
                    type="button"
                    data-export={p.id}
                    title="Write the latest saved version to a YAML or JSON file (unsaved edits are not included)"
                    onClick={async () => {
                      try {
                        const target = await backend.chooseExportPath(`${p.id}.yaml`);
                        if (!target) return;
                        await backend.exportFile(p.id, target);
                        notify(`Exported ${p.name} to ${target}.`);
                      } catch (e) {
                        notify(messageOf(e), "error");
                      }
                    }}
                  >
                    Export…
                  </button>
                  <button
                    type="button"
                    data-export-claude={p.id}
                    title="Write one Claude Code subagent per role and a hook that holds each to its contract"
                    onClick={async () => {
                      try {
                        const done = await backend.exportClaudeCode(p.id);
                        if (!done) return;
                        const notes = done.notes.length ? ` Notes: ${done.notes.join(" ")}` : "";
                        notify(
                          `Exported ${p.name} for Claude Code into ${done.dir}: ${done.files.length} files. The hook runs \`playbook gate\`: the playbook CLI must be installed there.${notes}`,
                        );
                      } catch (e) {
                        notify(messageOf(e), "error");
                      }
                    }}
                  >
                    Claude Code…
                  </button>
                  <button type="button" className="danger" data-delete={p.id} onClick={() => setConfirmDelete(p)}>
                    Delete…
                  </button>
                </td>
              </tr>
            ))}
            {shown.length === 0 && (
              <tr>
                <td colSpan={5} className="muted">
                  {items.length === 0 ? "The library is empty: start from an example or a blank playbook." : "No playbook matches the search."}
                </td>
              </tr>
            )}
          </tbody>
        </table>
      )}
      {deleted.length > 0 && (
        <details className="deleted-playbooks" data-testid="deleted-playbooks">
          <summary>Deleted playbooks ({deleted.length})</summary>
          <p className="muted small">
            Kept with their history until purged from a terminal (<code>playbook db purge ID</code>). Restore brings one back
            to the list; its id stays taken until then, so new copies get the next free id.
          </p>
          <ul>
            {deleted.map((p) => (
              <li key={p.id} data-deleted-playbook={p.id}>
                {p.name} <span className="muted small">({p.id}, {versionsOf(p.latest.number)}, deleted {formatTime(p.deleted_at ?? "")})</span>{" "}
                <button
                  type="button"
                  data-restore={p.id}
                  onClick={() =>
                    backend
                      .undelete(p.id)
                      .then(() => {
                        notify(`Restored ${p.name} with its ${versionsOf(p.latest.number)}.`);
                        reload();
                      })
                      .catch((e) => notify(`Could not restore ${p.name}: ${messageOf(e)}`, "error"))
                  }
                >
                  Restore
                </button>
              </li>
            ))}
          </ul>
        </details>
      )}
      {confirmDelete && (
        <ConfirmDialog
          title={`Delete ${confirmDelete.name}?`}
          confirmLabel={`Delete it and its ${versionsOf(confirmDelete.latest.number)}`}
          testid="confirm-delete"
          onCancel={() => setConfirmDelete(null)}
          onConfirm={() => {
            const p = confirmDelete;
            setConfirmDelete(null);
            backend
              .remove(p.id)
              .then(() => {
                reload();
                onDeleted(p);
                // Its row and Delete… button are gone: keyboard focus goes to the top of the list.
                document.querySelector<HTMLElement>("[data-testid=library-search]")?.focus();
              })
              .catch((e) => notify(`Could not delete ${p.name}: ${messageOf(e)}`, "error"));
          }}
        >
          <p>
            The playbook <strong>{confirmDelete.name}</strong> (<code>{confirmDelete.id}</code>) and its{" "}
            {versionsOf(confirmDelete.latest.number)}
            {confirmDelete.has_draft ? ", with its unsaved draft," : ""} leave the library.
          </p>
          <p className="muted small">
            Undo in the notice right after, or Restore under “Deleted playbooks” below at any later time, brings it back with its
            history.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

/** "1 version", "3 versions". Versions are numbered 1..latest, so the latest number is the count. */
export function versionsOf(count: number): string {
  return `${count} version${count === 1 ? "" : "s"}`;
}

export function Validity({ errors, warnings }: { errors: number; warnings: number }) {
  if (errors > 0) return <span className="badge badge-error">{errors} error{errors > 1 ? "s" : ""}</span>;
  if (warnings > 0) return <span className="badge badge-warning">valid · {warnings} warning{warnings > 1 ? "s" : ""}</span>;
  return <span className="badge badge-ok">valid</span>;
}

export function formatTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}
