import { describe, expect, it } from "vitest";
import type { Finding } from "../generated/Finding";
import { editorDiagnostics } from "./SourceTab";

const finding = (over: Partial<Finding>): Finding => ({ code: "PB004", severity: "warning", message: "unknown field `nmae`", path: "/nmae", ...over }) as Finding;

describe("findings as the editor marks them", () => {
  it("keeps those with a place, at the core's line and character column, with their code", () => {
    const marks = editorDiagnostics([finding({ location: { line: 3, column: 5 } }), finding({ code: "PB301", severity: "error", location: undefined })]);
    expect(marks).toEqual([{ line: 3, column: 5, severity: "warning", message: "PB004 unknown field `nmae`", code: "PB004" }]);
  });
});
