import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { Checked } from "../generated/Checked";
import type { Finding } from "../generated/Finding";
import { Topbar } from "./Topbar";

const finding = (over: Partial<Finding>): Finding => ({ code: "PB302", severity: "error", path: "", message: "m", hint: "h", ...over }) as Finding;
const checkedWith = (findings: Finding[]) => ({ source: "", format: "yaml", findings, allow: false, structurally_valid: true }) as unknown as Checked;

/** The validity badge of the editor's toolbar. */
function badge(checked: Checked | null, typed: Checked | null): string {
  const html = renderToStaticMarkup(
    <Topbar
      screen="editor"
      setScreen={() => undefined}
      open={{ doc: true, library: true, previewVersion: false }}
      toolbar={{
        undo: () => undefined,
        redo: () => undefined,
        canUndo: false,
        canRedo: false,
        onSave: () => undefined,
        onExport: () => undefined,
        status: null,
        checked,
        typed,
      }}
      theme="light"
      toggleTheme={() => undefined}
    />,
  );
  const at = html.indexOf('data-testid="validity"');
  expect(at).toBeGreaterThan(-1);
  return html.slice(html.lastIndexOf("<span", at), html.indexOf("</span>", at));
}

describe("the validity badge", () => {
  it("says the open document's validity", () => {
    expect(badge(checkedWith([]), null)).toContain("valid");
    expect(badge(checkedWith([finding({})]), null)).toContain("1 error — run blocked");
  });

  it("while the Source text does not read as a playbook, counts that text's errors and says whose they are", () => {
    // The last valid version is clean; the typed text is not: the badge must not say "valid"
    // beside a Problems panel listing the typed text's parse error.
    const html = badge(checkedWith([]), checkedWith([finding({ code: "PB001" }), finding({ code: "PB002" })]));
    expect(html).toContain("Source text: 2 errors");
    expect(html).toContain('data-of="typed"');
    expect(html).toContain("last valid version");
  });
});
