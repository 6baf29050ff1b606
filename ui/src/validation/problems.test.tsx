import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { Authored } from "../generated/Authored";
import type { Checked } from "../generated/Checked";
import type { Finding } from "../generated/Finding";
import type { Playbook } from "../generated/Playbook";
import { Editor, problemsOf, type Tab } from "../playbooks/Editor";
import { Problems } from "./Problems";

const finding = (over: Partial<Finding>): Finding => ({ code: "PB302", severity: "error", path: "/name", message: "m", hint: "h", ...over }) as Finding;
/** A finding of the last valid document, in its canonical text. */
const stale = finding({ code: "PB302", path: "/workflow/build/roles/0/handoff_to/0", location: { line: 9, column: 7 } });
const lastValid = { source: "", format: "yaml", findings: [stale], allow: false, structurally_valid: true } as unknown as Checked;
const typed: Authored = { text: "id: p\nworkflow: [plan\n", format: "yaml" };
/** The typed text's check: it does not read as a playbook. */
const parseError = finding({ code: "PB001", path: "", message: "unclosed flow sequence", location: { line: 2, column: 11 } });
const typedChecked = { source: "", format: "yaml", findings: [parseError], allow: false, structurally_valid: false } as unknown as Checked;
const doc = { id: "p", name: "P", workflow: { build: { enabled: true, roles: [{ name: "worker" }] } } } as unknown as Playbook;

/** The Problems panel of the editor, as rendered on `tab`. */
function problemsPanel(broken: Authored | null, brokenChecked: Checked | null, tab: Tab = "form"): string {
  const html = renderToStaticMarkup(
    <Editor
      doc={doc}
      checked={lastValid}
      flow={null}
      edit={() => undefined}
      selection={{ kind: "playbook" }}
      setSelection={() => undefined}
      tab={tab}
      setTab={() => undefined}
      notify={() => undefined}
      broken={broken}
      brokenChecked={brokenChecked}
    />,
  );
  const panel = html.slice(html.indexOf('<section class="problems"'));
  expect(panel).not.toBe("");
  return panel;
}

describe("the Problems panel while the Source text does not read as a playbook", () => {
  it("lists the typed text's parse error at its line:column, not the last valid version's findings", () => {
    for (const tab of ["form", "source"] as const) {
      const panel = problemsPanel(typed, typedChecked, tab);
      expect(panel).toContain('data-code="PB001"');
      expect(panel).toContain("line 2:11");
      expect(panel).toContain('data-testid="problems-of-typed"');
      expect(panel).not.toContain('data-code="PB302"');
      expect(panel).toMatch(/1 errors · 0 warnings · 0 notes/);
    }
  });

  it("marks the last valid version's findings as such until the typed text's check is known", () => {
    const panel = problemsPanel(typed, null);
    expect(panel).toContain('data-testid="problems-of-last-valid"');
    expect(panel).toContain('data-code="PB302"');
    expect(panel).not.toContain('data-testid="problems-of-typed"');
  });

  it("is the document's, unmarked, when no such text is held", () => {
    const panel = problemsPanel(null, null);
    expect(panel).toContain('data-code="PB302"');
    expect(panel).not.toContain("problems-of-");
    expect(panel).toContain("line 9");
    expect(panel).not.toContain("line 9:7");
  });
});

describe("problemsOf", () => {
  it("takes the typed text's findings only when that text is held and does not read as a playbook", () => {
    expect(problemsOf([stale], null, null)).toEqual({ findings: [stale] });
    expect(problemsOf([stale], typed, typedChecked)).toEqual({ findings: [parseError], of: "typed" });
    expect(problemsOf([stale], typed, null)).toEqual({ findings: [stale], of: "last-valid" });
    const reads = { ...typedChecked, playbook: doc } as Checked;
    expect(problemsOf([stale], typed, reads)).toEqual({ findings: [stale] });
  });
});

describe("Problems", () => {
  it("offers no quick fix for the typed text's findings: a fix is computed on the document", () => {
    const quickFixes = { fixable: new Set(["PB001", "PB302"]), fixesOf: async () => [], apply: () => undefined };
    const typedPanel = renderToStaticMarkup(<Problems findings={[parseError]} of="typed" onActivate={() => undefined} quickFixes={quickFixes} />);
    expect(typedPanel).not.toContain("data-fix-for");
    const documentPanel = renderToStaticMarkup(<Problems findings={[stale]} onActivate={() => undefined} quickFixes={quickFixes} />);
    expect(documentPanel).toContain('data-fix-for="PB302"');
  });
});
