// Inline hints: each finding is shown next to the field its JSON pointer
// names. Fields declare their pointer; this module finds what applies.
import { createContext, useContext } from "react";
import type { Finding } from "../generated/Finding";
import { inFormWords } from "./labels";
import { QuickFix } from "./QuickFix";

export const FindingsContext = createContext<Finding[]>([]);

/** Findings for the value at `pointer`; with `nested`, also for values inside it. */
export function useFindings(pointer: string, nested = true): Finding[] {
  const findings = useContext(FindingsContext);
  return findings.filter((f) => f.path === pointer || (nested && f.path.startsWith(pointer + "/")));
}

export function Hints({ pointer, nested = true }: { pointer: string; nested?: boolean }) {
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
}

export function severityRank(findings: Finding[]): "error" | "warning" | "info" | null {
  if (findings.some((f) => f.severity === "error")) return "error";
  if (findings.some((f) => f.severity === "warning")) return "warning";
  if (findings.some((f) => f.severity === "info")) return "info";
  return null;
}
