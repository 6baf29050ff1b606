import { describe, expect, it } from "vitest";
import type { Finding } from "../generated/Finding";
import { findingsAt } from "./hints";

function finding(path: string, code = "X"): Finding {
  return { code, severity: "warning", path, message: "m" } as Finding;
}

// What a field showed before the index: a scan of every finding.
function scan(findings: Finding[], pointer: string, nested: boolean): Finding[] {
  return findings.filter((f) => f.path === pointer || (nested && f.path.startsWith(pointer + "/")));
}

describe("findingsAt", () => {
  const paths = ["", "/", "/name", "/workflow/build", "/workflow/build/roles/0", "/workflow/build/roles/0/name", "/workflow/build/roles/10",
    "/workflow/a~1b/roles/1", "/a//b", "/a/", "no-slash", "/workflow/build/roles/0/retry_policy/escalate_on/2", "/__proto__", "/constructor/x"];
  const findings = paths.map((p, i) => finding(p, `C${i}`));
  const pointers = [...paths, "/workflow", "/workflow/build/roles", "/workflow/build/roles/1", "/a", "no", "/missing", "/toString"];

  it("finds what a scan of every finding finds, in the same order", () => {
    for (const pointer of pointers)
      for (const nested of [true, false]) expect(findingsAt(findings, pointer, nested), `${pointer} nested=${nested}`).toEqual(scan(findings, pointer, nested));
  });

  it("answers the same array while the findings are the same, so memoised hints skip rendering", () => {
    expect(findingsAt(findings, "/workflow/build")).toBe(findingsAt(findings, "/workflow/build"));
    expect(findingsAt(findings, "/nothing")).toBe(findingsAt([], "/other"));
    expect(findingsAt([...findings], "/name")).not.toBe(findingsAt(findings, "/name"));
  });
});
