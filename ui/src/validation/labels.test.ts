import { describe, expect, it } from "vitest";
import { inFormWords, labelOfPointer } from "./labels";

describe("form labels in findings", () => {
  it("replace the file's field names with the form's labels", () => {
    expect(inFormWords("did you mean `issues`? Otherwise add `issue` to outputs_contract.required, or gate on a promised field")).toBe(
      "did you mean `issues`? Otherwise add `issue` to “Required fields”, or gate on a promised field",
    );
    expect(inFormWords("add `verdict` to `outputs_contract.required` and set handoff_to")).toBe(
      "add `verdict` to “Required fields” and set “Hand off to”",
    );
    expect(inFormWords("retry_policy.max_iterations is 0")).toBe("“Max iterations” is 0");
  });
  it("leave words and unknown paths alone", () => {
    expect(inFormWords("the mode of a reviewer")).toBe("the mode of a reviewer");
    expect(inFormWords("x.handoff_to.y")).toBe("x.handoff_to.y");
  });
  it("name the field a pointer ends at", () => {
    expect(labelOfPointer("/workflow/build/roles/2/gates/pass_condition")).toBe("Pass condition");
    expect(labelOfPointer("/workflow/build/roles/2/handoff_to/0")).toBe("Hand off to");
    expect(labelOfPointer("/workflow/build/stage_policy/exit_gate")).toBe("Exit gate");
    expect(labelOfPointer("/workflow/build")).toBeNull();
  });
});
