// Inline hints: each finding is shown next to the field its JSON pointer
// names. Fields declare their pointer; this module finds what applies.
import { createContext, memo, useContext } from "react";
import type { Finding } from "../generated/Finding";
import { inFormWords } from "./labels";
import { QuickFix } from "./QuickFix";

export const FindingsContext = createContext<Finding[]>([]);

/** Per pointer, the findings at it and the findings at it or inside it. */
type Index = Map<string, { at: Finding[]; within: Finding[] }>;

const NONE: Finding[] = [];
// One index per findings array (one per check answer), shared by every
// field: a field looks its pointer up instead of scanning every finding, and
// gets the same array back until the findings change, so memoised fields
// skip rendering on keystrokes that change no finding.
const indexes = new WeakMap<Finding[], Index>();

function indexOf(findings: Finding[]): Index {
  let index = indexes.get(findings);
  if (index) return index;
  index = new Map();
  const entry = (pointer: string) => {
    let e = index!.get(pointer);
    if (!e) index!.set(pointer, (e = { at: [], within: [] }));
    return e;
  };
  for (const f of findings) {
    entry(f.path).at.push(f);
    // The finding is within its own pointer and every pointer above it.
    for (let p = f.path; ; ) {
      entry(p).within.push(f);
      const cut = p.lastIndexOf("/");
      if (cut < 0) break;
      p = p.slice(0, cut);
    }
  }
  indexes.set(findings, index);
  return index;
}

/** Findings for the value at `pointer`; with `nested`, also for values inside it. */
export function findingsAt(findings: Finding[], pointer: string, nested = true): Finding[] {
  const e = indexOf(findings).get(pointer);
  return (e && (nested ? e.within : e.at)) ?? NONE;
}

export function useFindings(pointer: string, nested = true): Finding[] {
  return findingsAt(useContext(FindingsContext), pointer, nested);
}

export const Hints = memo(function Hints({ pointer, nested = true }: { pointer: string; nested?: boolean }) {
  const findings = useFindings(pointer, nested);
  if (findings.length === 0) return null;
  return (
    <ul className="hints" data-hints-for={pointer}>
      {findings.map((f, i) => (
        <li key={i} className={`hint hint-${f.severity}`} data-code={f.code} role={f.severity === "error" ? "alert" : undefined}>
          <span className="code">{f.code}</span> {inFormWords(f.message)}
          {f.hint && <span className="fix"> — {inFormWords(f.hint)}</span>}
          <QuickFix finding={f} />
        </li>
      ))}
    </ul>
  );
});

export function severityRank(findings: Finding[]): "error" | "warning" | "info" | null {
  if (findings.some((f) => f.severity === "error")) return "error";
  if (findings.some((f) => f.severity === "warning")) return "warning";
  if (findings.some((f) => f.severity === "info")) return "info";
  return null;
}
