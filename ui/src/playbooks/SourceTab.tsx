// The Source tab: the document as YAML, kept in sync both ways. Text that
// does not parse (or has the wrong shape) stays in the editor with its
// diagnostics; the form and graph keep the last valid playbook.
import { useEffect, useRef, useState } from "react";
import { backend, messageOf } from "../backend";
import type { Authored } from "../generated/Authored";
import type { Checked } from "../generated/Checked";
import type { Playbook } from "../generated/Playbook";

type Props = {
  doc: Playbook;
  checked: Checked | null;
  /** The playbook of the typed text, and the text itself (the author's from now on). */
  onDoc: (doc: Playbook, typed: Authored) => void;
};

const MAX_SOURCE = 8 * 1024 * 1024;

export function SourceTab({ doc, checked, onDoc }: Props) {
  const [draft, setDraft] = useState<string | null>(null);
  const [draftChecked, setDraftChecked] = useState<Checked | null>(null);
  const [error, setError] = useState<string | null>(null);
  const pushed = useRef<Playbook | null>(null);
  const seq = useRef(0);
  const area = useRef<HTMLTextAreaElement>(null);

  // An edit from elsewhere (form, undo, template) replaces the draft.
  useEffect(() => {
    if (doc !== pushed.current) {
      setDraft(null);
      setDraftChecked(null);
    }
  }, [doc]);

  const change = (text: string) => {
    if (text.length > MAX_SOURCE) {
      setError(`The text is ${text.length.toLocaleString()} characters; a playbook may be at most ${MAX_SOURCE.toLocaleString()} bytes. The previous text is kept.`);
      return;
    }
    setError(null);
    setDraft(text);
    const mine = ++seq.current;
    const format = checked?.format ?? "yaml";
    backend
      .checkSource(text, format)
      .then((result) => {
        if (mine !== seq.current) return;
        setDraftChecked(result);
        if (result.playbook) {
          pushed.current = result.playbook;
          onDoc(result.playbook, { text, format });
        }
      })
      .catch((e) => mine === seq.current && setError(messageOf(e)));
  };

  const shown = draftChecked ?? checked;
  const broken = draftChecked !== null && !draftChecked.playbook;
  const diagnostics = (shown?.findings ?? []).filter((f) => f.location || broken);

  const goTo = (line: number, column: number) => {
    const el = area.current;
    if (!el) return;
    const lines = el.value.split("\n");
    let offset = 0;
    for (let i = 0; i < Math.min(line - 1, lines.length); i++) offset += lines[i].length + 1;
    offset += Math.max(0, column - 1);
    el.focus();
    el.setSelectionRange(offset, offset);
  };

  return (
    <section className="source" aria-label="Source">
      {broken && (
        <p className="banner banner-error" role="alert" data-testid="source-invalid">
          This text is not a valid playbook yet. The form and the graph keep the last valid version until it is fixed.
        </p>
      )}
      {checked?.comments_kept === false && (
        <p className="banner banner-error" role="alert" data-testid="source-rewritten">
          The last change could not be written into your text in place: this text is written afresh, without its comments. Undo the change to get them back.
        </p>
      )}
      {error && (
        <p className="banner banner-error" role="alert">
          {error}
        </p>
      )}
      <textarea
        ref={area}
        className="source-text"
        aria-label="Playbook source (YAML)"
        data-testid="source-text"
        spellCheck={false}
        value={draft ?? checked?.source ?? ""}
        onChange={(e) => change(e.target.value)}
      />
      <ul className="diagnostics" aria-label="Source diagnostics">
        {diagnostics.map((f, i) => (
          <li key={i}>
            <button type="button" className={`problem problem-${f.severity}`} data-code={f.code} onClick={() => f.location && goTo(f.location.line, f.location.column)}>
              <span className={`badge badge-${f.severity}`}>{f.severity}</span>
              {f.location && <span className="where">line {f.location.line}:{f.location.column}</span>}
              <span className="code">{f.code}</span>
              <span className="message">{f.message}</span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
