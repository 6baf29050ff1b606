// The Problems panel: every finding of the open document. Activating one
// takes the user to the field it is about; a finding whose fix is
// mechanical offers it ("Quick fix"), the same fixes `playbook fix` applies,
// each one undoable edit.
import type { Finding } from "../generated/Finding";
import { inFormWords, labelOfPointer } from "./labels";
import { QuickFix, type QuickFixes } from "./QuickFix";

export type { QuickFixes };

type Props = {
  findings: Finding[];
  onActivate: (finding: Finding) => void;
  /** Where the findings' pointers start (the template editor's role), shown without it. */
  root?: { pointer: string; label: string };
  quickFixes?: QuickFixes;
};

export function Problems({ findings, onActivate, root, quickFixes }: Props) {
  const where = (path: string) =>
    root && (path === root.pointer || path.startsWith(root.pointer + "/")) ? path.slice(root.pointer.length) || root.label : path || "document";
  const errors = findings.filter((f) => f.severity === "error").length;
  const warnings = findings.filter((f) => f.severity === "warning").length;
  return (
    <section className="problems" aria-label="Problems">
      <header>
        <h2>Problems</h2>
        <span className="counts" data-testid="problem-counts">
          {errors} errors · {warnings} warnings · {findings.length - errors - warnings} notes
        </span>
      </header>
      {findings.length === 0 ? (
        <p className="muted">No problems: this playbook validates clean.</p>
      ) : (
        <ul>
          {findings.map((f, i) => (
            <li key={i}>
              <button
                type="button"
                className={`problem problem-${f.severity}`}
                data-code={f.code}
                data-path={f.path}
                onClick={() => onActivate(f)}
                title={inFormWords(f.hint)}
              >
                <span className={`badge badge-${f.severity}`}>{f.severity}</span>
                <span className="code">{f.code}</span>
                <span className="message">{inFormWords(f.message)}</span>
                <span className="where">
                  {where(f.path)}
                  {labelOfPointer(f.path) ? ` · ${labelOfPointer(f.path)}` : ""}
                  {f.location ? ` · line ${f.location.line}` : ""}
                </span>
              </button>
              <QuickFix finding={f} quickFixes={quickFixes} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
