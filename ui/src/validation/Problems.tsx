// The Problems panel: every finding of the open document. Activating one
// takes the user to the field it is about; a finding whose fix is
// mechanical offers it ("Quick fix"), the same fixes `playbook fix` applies,
// each one undoable edit.
import { useState } from "react";
import type { Finding } from "../generated/Finding";
import type { Fix } from "../generated/Fix";
import { inFormWords, labelOfPointer } from "./labels";

/** Where the quick fixes come from; absent where the screen offers none. */
export type QuickFixes = {
  /** Codes that have a fix, so only their rows offer one. */
  fixable: ReadonlySet<string>;
  fixesOf: (finding: Finding) => Promise<Fix[]>;
  apply: (fix: Fix) => void;
};

type Props = {
  findings: Finding[];
  onActivate: (finding: Finding) => void;
  /** Where the findings' pointers start (the template editor's role), shown without it. */
  root?: { pointer: string; label: string };
  quickFixes?: QuickFixes;
};

export function Problems({ findings, onActivate, root, quickFixes }: Props) {
  // The row whose fixes are shown, by code and path (findings change on every edit).
  const [offered, setOffered] = useState<{ key: string; fixes: Fix[] | string } | null>(null);
  const keyOf = (f: Finding) => `${f.code} ${f.path}`;
  const offer = (f: Finding) => {
    if (!quickFixes) return;
    const key = keyOf(f);
    if (offered?.key === key) return setOffered(null);
    setOffered({ key, fixes: "Looking for fixes…" });
    quickFixes
      .fixesOf(f)
      .then((fixes) => setOffered({ key, fixes: fixes.length ? fixes : "No mechanical fix for this one: the hint says what to decide." }))
      .catch(() => setOffered({ key, fixes: "The fixes could not be computed." }));
  };
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
              {quickFixes?.fixable.has(f.code) && (
                <button type="button" className="quick-fix" data-fix-for={f.code} aria-expanded={offered?.key === keyOf(f)} onClick={() => offer(f)}>
                  Quick fix…
                </button>
              )}
              {offered?.key === keyOf(f) &&
                (typeof offered.fixes === "string" ? (
                  <p className="muted small">{offered.fixes}</p>
                ) : (
                  <ul className="fixes">
                    {offered.fixes.map((fix) => (
                      <li key={fix.title}>
                        <button
                          type="button"
                          data-fix={fix.title}
                          onClick={() => {
                            setOffered(null);
                            quickFixes?.apply(fix);
                          }}
                        >
                          {fix.title}
                        </button>
                      </li>
                    ))}
                  </ul>
                ))}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
