// History: the versions of a playbook or of a team template with their
// notes, a semantic diff of any two (plus a text diff), restore, and (for a
// playbook) a preview run of any version and a behavioural diff (what-if
// simulations of both versions).
import { type ReactNode, useEffect, useState } from "react";
import { backend, messageOf } from "../backend";
import type { Comparison } from "../generated/Comparison";
import type { VersionInfo } from "../generated/VersionInfo";
import { formatTime, Validity } from "../playbooks/Library";
import { lineDiff } from "./lineDiff";
import { BehaviourDiff } from "../whatif/BehaviourDiff";

type Props = {
  id: string;
  name: string;
  refresh: number;
  onRestored: (number: number) => void;
  /** Opens the Preview screen on that version, leaving the open edits as they are. */
  onPreview: (number: number) => void;
  notify: (m: string, kind?: "info" | "error") => void;
};

/** The history of a library playbook. */
export function History({ id, name, refresh, onRestored, onPreview, notify }: Props) {
  return (
    <VersionHistory
      title={`History of ${name}`}
      refresh={refresh}
      versions={() => backend.history(id)}
      compare={(from, to) => backend.compare(id, from, to)}
      restore={(number) =>
        backend
          .restore(id, number)
          .then((s) => {
            notify(`Restored version ${number} as version ${s.version.number}.`);
            onRestored(s.version.number);
          })
          .catch((e) => notify(messageOf(e), "error"))
      }
      preview={onPreview}
      showValidity
      behaviour={(from, to) => <BehaviourDiff id={id} from={from} to={to} />}
    />
  );
}

type VersionHistoryProps = {
  title: string;
  /** Changes when a new version may exist, to load the list again. */
  refresh: number | string;
  versions: () => Promise<VersionInfo[]>;
  compare: (from: number, to: number) => Promise<Comparison>;
  restore: (number: number) => void;
  /** When given, each version offers "Preview this version". */
  preview?: (number: number) => void;
  showValidity?: boolean;
  /** The behavioural diff of two versions, shown after the text diff. */
  behaviour?: (from: number, to: number) => ReactNode;
};

/** Versions newest first; pick any two to compare; restore an older one. */
export function VersionHistory({ title, refresh, versions: load, compare, restore, preview, showValidity = false, behaviour }: VersionHistoryProps) {
  const [versions, setVersions] = useState<VersionInfo[] | null>(null);
  const [from, setFrom] = useState<number | null>(null);
  const [to, setTo] = useState<number | null>(null);
  const [comparison, setComparison] = useState<Comparison | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    load()
      .then((list) => {
        setVersions(list);
        if (list.length >= 2) {
          setTo(list[0].number);
          setFrom(list[1].number);
        }
      })
      .catch((e) => setError(messageOf(e)));
    // `load` is a new closure on every render; the list follows `refresh`.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [refresh]);

  useEffect(() => {
    if (from === null || to === null || from === to) return setComparison(null);
    compare(from, to)
      .then(setComparison)
      .catch((e) => setError(messageOf(e)));
    // `compare` is a new closure on every render; the comparison follows the
    // chosen versions and `refresh`.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [from, to, refresh]);

  return (
    <section className="history" aria-label="History">
      <h1>{title}</h1>
      {error && (
        <p className="banner banner-error" role="alert">
          {error}
        </p>
      )}
      <table className="library-table" data-testid="history-table">
        <thead>
          <tr>
            <th>Version</th>
            <th>Saved</th>
            <th>Note</th>
            {showValidity && <th>Validity</th>}
            <th>From</th>
            <th>To</th>
            <th>
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {(versions ?? []).map((v, i) => (
            <tr key={v.number} data-version={v.number}>
              <td>
                {v.number}
                {i === 0 && <span className="muted"> (latest)</span>}
              </td>
              <td>{formatTime(v.created_at)}</td>
              <td data-testid="version-note">{v.note}</td>
              {showValidity && (
                <td>
                  <Validity errors={v.validity.errors} warnings={v.validity.warnings} />
                </td>
              )}
              <td>
                <input type="radio" name="from" aria-label={`Compare from version ${v.number}`} checked={from === v.number} onChange={() => setFrom(v.number)} />
              </td>
              <td>
                <input type="radio" name="to" aria-label={`Compare to version ${v.number}`} checked={to === v.number} onChange={() => setTo(v.number)} />
              </td>
              <td>
                {i > 0 && (
                  <button type="button" onClick={() => restore(v.number)}>
                    Restore
                  </button>
                )}
                {preview && (
                  <button
                    type="button"
                    className="link"
                    data-preview-version={v.number}
                    title="Run a preview of this version as it was saved; your open edits stay as they are"
                    onClick={() => preview(v.number)}
                  >
                    Preview this version
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {comparison && from !== null && to !== null && (
        <div className="comparison">
          <h2>
            Version {from} → {to}
          </h2>
          {comparison.diff.changes.length === 0 ? (
            <p className="muted">No change in meaning.</p>
          ) : (
            <ul className="changes" data-testid="semantic-diff">
              {comparison.diff.changes.map((c, i) => (
                <li key={i} className={`change change-${c.kind}${c.widening ? " widening" : ""}`} data-widening={c.widening || undefined}>
                  {c.widening && (
                    <strong className="badge badge-error" title="Agents may now do more without a person's say">
                      widens
                    </strong>
                  )}{" "}
                  {c.sentence}
                </li>
              ))}
            </ul>
          )}
          <details>
            <summary>Text diff</summary>
            <pre className="text-diff">
              {lineDiff(comparison.from_text, comparison.to_text).map((l, i) => (
                <div key={i} className={`diff-${l.kind}`}>
                  {l.kind === "add" ? "+ " : l.kind === "remove" ? "- " : "  "}
                  {l.text}
                </div>
              ))}
            </pre>
          </details>
          {behaviour?.(from, to)}
        </div>
      )}
    </section>
  );
}
