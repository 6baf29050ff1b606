// A scenario's problems where they belong: under the form field of their
// path, or listed with their line in the Source tab.
import type { ScenarioProblem } from "../generated/ScenarioProblem";

/**
 * The problems at `path` or inside it. With `exactOnly`, only those exactly
 * at it (the whole text's problems sit at "").
 */
export function problemsAt(problems: ScenarioProblem[], path: string, exactOnly = false): ScenarioProblem[] {
  return problems.filter((p) => p.path === path || (!exactOnly && path !== "" && p.path.startsWith(`${path}/`)));
}

/** Escapes a `roles` key for a JSON pointer, as the Rust side does. */
export function pointerToken(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

export function ProblemList({ problems, onGo, showWhere = false }: { problems: ScenarioProblem[]; onGo: (p: ScenarioProblem) => void; showWhere?: boolean }) {
  if (problems.length === 0) return null;
  return (
    <ul className="diagnostics" aria-label="Scenario problems">
      {problems.map((p, i) => (
        <li key={i}>
          <button type="button" className="problem problem-error" data-path={p.path} data-testid="scenario-problem" onClick={() => onGo(p)}>
            <span className="badge badge-error">error</span>
            {showWhere && p.location && (
              <span className="where">
                line {p.location.line}:{p.location.column}
              </span>
            )}
            {showWhere && p.path && <span className="code">{p.path}</span>}
            <span className="message">{p.message}</span>
            {p.hint && <span className="help"> {p.hint}</span>}
          </button>
        </li>
      ))}
    </ul>
  );
}
