// Quick fixes of a finding whose fix is mechanical: the same rules
// `playbook fix` applies (playbook_core::fix), offered in the Problems panel
// and next to the field, each applied as one undoable edit.
import { createContext, useContext, useState } from "react";
import type { Finding } from "../generated/Finding";
import type { Fix } from "../generated/Fix";

/** Where the quick fixes come from; absent where the screen offers none. */
export type QuickFixes = {
  /** Codes that have a fix, so only their findings offer one. */
  fixable: ReadonlySet<string>;
  fixesOf: (finding: Finding) => Promise<Fix[]>;
  apply: (fix: Fix) => void;
};

export const QuickFixContext = createContext<QuickFixes | null>(null);

/** "Quick fix…" for `finding`, then its fixes by title; nothing when it has none. */
export function QuickFix({ finding, quickFixes }: { finding: Finding; quickFixes?: QuickFixes | null }) {
  const fromContext = useContext(QuickFixContext);
  const source = quickFixes ?? fromContext;
  const [offered, setOffered] = useState<Fix[] | string | null>(null);
  if (!source || !source.fixable.has(finding.code)) return null;
  const offer = () => {
    if (offered !== null) return setOffered(null);
    setOffered("Looking for fixes…");
    source
      .fixesOf(finding)
      .then((fixes) => setOffered(fixes.length ? fixes : "No mechanical fix for this one: the hint says what to decide."))
      .catch(() => setOffered("The fixes could not be computed."));
  };
  return (
    <>
      <button type="button" className="quick-fix" data-fix-for={finding.code} aria-expanded={offered !== null} onClick={offer}>
        Quick fix…
      </button>
      {offered !== null &&
        (typeof offered === "string" ? (
          <p className="muted small">{offered}</p>
        ) : (
          <ul className="fixes">
            {offered.map((fix) => (
              <li key={fix.title}>
                <button
                  type="button"
                  data-fix={fix.title}
                  onClick={() => {
                    setOffered(null);
                    source.apply(fix);
                  }}
                >
                  {fix.title}
                </button>
              </li>
            ))}
          </ul>
        ))}
    </>
  );
}
