// The Source tab: the document as YAML, kept in sync both ways. Text that
// does not parse (or has the wrong shape) stays in the editor with its
// diagnostics, which the window holds with it for the Problems panel; the
// form and graph keep the last valid playbook. The code
// editor shows the findings inline while typing and asks the language
// server's logic (source_completions, source_hover) for completion and
// field documentation.
import { forwardRef, useEffect, useImperativeHandle, useMemo, useRef, useState } from "react";
import { backend, messageOf } from "../backend";
import { LazyCodeEditor, type CodeEditorHandle, type EditorAssist, type EditorDiagnostic } from "../editor/LazyCodeEditor";
import type { Authored } from "../generated/Authored";
import type { Checked } from "../generated/Checked";
import type { Finding } from "../generated/Finding";
import type { Format } from "../generated/Format";
import type { Playbook } from "../generated/Playbook";

type Props = {
  doc: Playbook;
  checked: Checked | null;
  /** The playbook of the typed text, the text itself (the author's from now on), and its check's answer. */
  onDoc: (doc: Playbook, typed: Authored, answer: Checked) => void;
  /**
   * Text typed here that does not read as a playbook yet, which the window
   * holds over `doc` (autosaved as typed): shown again when the tab opens,
   * after a restart or a visit to another tab.
   */
  broken?: Authored | null;
  /** The check of `broken`, when the window knows it: its marks are shown at once, not the document's. */
  brokenChecked?: Checked | null;
  /** Typed text that does not read as a playbook, and its check: the window keeps and autosaves it. */
  onBroken?: (typed: Authored, answer: Checked) => void;
  /** The check of `broken` made when the tab opens on it (the Problems panel lists its findings). */
  onHeldChecked?: (held: Authored, answer: Checked) => void;
};

const MAX_SOURCE = 8 * 1024 * 1024;

const assists: Record<Format, EditorAssist> = {
  yaml: {
    completions: (text, position) => backend.sourceCompletions(text, "yaml", position),
    hover: (text, position) => backend.sourceHover(text, "yaml", position),
  },
  json: {
    completions: (text, position) => backend.sourceCompletions(text, "json", position),
    hover: (text, position) => backend.sourceHover(text, "json", position),
  },
};

function tooLong(length: number): string {
  return `The text is ${length.toLocaleString()} characters; a playbook may be at most ${MAX_SOURCE.toLocaleString()} bytes. The previous text is kept.`;
}

/** The findings that have a place in the text, as the editor marks them. */
export function editorDiagnostics(findings: readonly Finding[]): EditorDiagnostic[] {
  return findings.flatMap((f) =>
    f.location ? [{ line: f.location.line, column: f.location.column, severity: f.severity, message: `${f.code} ${f.message}`, code: f.code }] : [],
  );
}

export type SourceTabHandle = {
  /** Moves the editor's cursor to a finding (the Problems panel's "go to"). */
  goToFinding: (finding: Finding) => void;
};

export const SourceTab = forwardRef<SourceTabHandle, Props>(function SourceTab(props, ref) {
  const { doc, checked, onDoc, broken: held, brokenChecked, onBroken, onHeldChecked } = props;
  // Opened on text the window holds (see `broken`), the editor starts from it.
  const [draft, setDraft] = useState<string | null>(held?.text ?? null);
  const [draftChecked, setDraftChecked] = useState<Checked | null>(held ? (brokenChecked ?? null) : null);
  const [error, setError] = useState<string | null>(null);
  // The document the shown draft stands over; an edit from elsewhere replaces it.
  const pushed = useRef<Playbook | null>(held ? doc : null);
  const seq = useRef(0);
  const editor = useRef<CodeEditorHandle>(null);

  // An edit from elsewhere (form, undo, template) replaces the draft.
  useEffect(() => {
    if (doc !== pushed.current) {
      setDraft(null);
      setDraftChecked(null);
    }
  }, [doc]);

  // The author's text keeps its format: a JSON file is edited as JSON.
  const [heldFormat] = useState<Format | null>(held?.format ?? null);
  const format: Format = (draft !== null && heldFormat) || checked?.format || "yaml";

  const change = (text: string) => {
    if (text.length > MAX_SOURCE) {
      setError(tooLong(text.length));
      return;
    }
    setError(null);
    setDraft(text);
    const mine = ++seq.current;
    backend
      // The editor holds the text, and the graph is not shown here: neither comes back.
      .checkSource(text, format, { source: false, flow: false })
      .then((result) => {
        if (mine !== seq.current) return;
        setDraftChecked(result);
        if (result.playbook) {
          pushed.current = result.playbook;
          onDoc(result.playbook, { text, format }, result);
        } else {
          // Not a playbook yet: the window keeps the text, so neither a
          // crash, a quit nor another tab loses it.
          onBroken?.({ text, format }, result);
        }
      })
      .catch((e) => mine === seq.current && setError(messageOf(e)));
  };

  // Text the window held comes back with its diagnostics.
  const opening = useRef(held ?? null);
  const reportHeld = useRef(onHeldChecked);
  reportHeld.current = onHeldChecked;
  useEffect(() => {
    const typed = opening.current;
    if (typed === null) return;
    const mine = ++seq.current;
    backend
      .checkSource(typed.text, heldFormat ?? "yaml", { source: false, flow: false })
      .then((result) => {
        if (mine !== seq.current) return;
        setDraftChecked(result);
        reportHeld.current?.(typed, result);
      })
      .catch((e) => mine === seq.current && setError(messageOf(e)));
  }, [heldFormat]);

  const shown = draftChecked ?? checked;
  const broken = draftChecked !== null && !draftChecked.playbook;
  const diagnostics = (shown?.findings ?? []).filter((f) => f.location || broken);

  const marks = useMemo(() => editorDiagnostics(shown?.findings ?? []), [shown]);
  const goTo = (line: number, column: number) => editor.current?.goTo(line, column);
  useImperativeHandle(ref, () => ({
    goToFinding: (finding) => {
      // The shown text's own finding when it has one: while a draft is
      // typed, the document's findings are placed in its canonical text.
      // One of the shown text's findings (the typed text's, listed in the
      // Problems panel) is its own: another with the same code and path
      // may sit elsewhere.
      const same = shown?.findings.includes(finding)
        ? finding
        : shown?.findings.find((f) => f.code === finding.code && f.path === finding.path && f.location);
      const at = same?.location ?? finding.location;
      if (at) goTo(at.line, at.column);
    },
  }));

  return (
    <section className="source" aria-label="Source">
      {broken && (
        <p className="banner banner-error" role="alert" data-testid="source-invalid">
          This text is not a valid playbook yet. The form and the graph keep the last valid version until it is fixed.
        </p>
      )}
      {checked?.comments_kept === false && (
        <p className="banner banner-error" role="alert" data-testid="source-rewritten">
          The last change could not keep every comment of your text: what it changed is written afresh, without the comments that were in it. Undo the change to get them back.
        </p>
      )}
      {error && (
        <p className="banner banner-error" role="alert">
          {error}
        </p>
      )}
      <LazyCodeEditor
        key={format}
        ref={editor}
        text={draft ?? checked?.source ?? ""}
        language={format}
        diagnostics={marks}
        onChange={change}
        label={`Playbook source (${format.toUpperCase()})`}
        testId="source-text"
        assist={assists[format]}
        maxLength={MAX_SOURCE}
        onTooLong={(length) => setError(tooLong(length))}
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
});
