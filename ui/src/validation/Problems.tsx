// The Problems panel: every finding of the open document. Activating one
// takes the user to the field it is about; a finding whose fix is
// mechanical offers it ("Quick fix"), the same fixes `playbook fix` applies,
// each one undoable edit.
//
// While the Source tab holds text that does not read as a playbook, the
// panel lists that text's findings (`of: "typed"`), the same ones the Source
// editor marks, each at its line:column: the last valid version's findings
// are about a text no longer in the editor, and their lines point into it.
// Until the typed text's own check is known, the last valid version's
// findings stay, said to be its (`of: "last-valid"`).
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
  /** Whose findings these are while the Source text does not read as a playbook (see above); absent otherwise. */
  of?: "typed" | "last-valid";
};

export function Problems({ findings, onActivate, root, quickFixes, of }: Props) {
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
      {of === "typed" && (
        <p className="banner banner-error" data-testid="problems-of-typed">
          The text in the Source tab is not a valid playbook yet: these are its problems. The form and the graph keep the last valid version until it is fixed.
        </p>
      )}
      {of === "last-valid" && (
        <p className="banner" data-testid="problems-of-last-valid">
          The text in the Source tab is not a valid playbook yet; until its own problems are known, these are the last valid version's.
        </p>
      )}
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
                  {f.location ? ` · line ${f.location.line}${of === "typed" ? `:${f.location.column}` : ""}` : ""}
                </span>
              </button>
              {/* A fix is computed on the document, which the typed text is not. */}
              {of !== "typed" && <QuickFix finding={f} quickFixes={quickFixes} />}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
