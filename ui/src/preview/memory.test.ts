import { beforeEach, describe, expect, it } from "vitest";
import { loadPreviewMemory, savePreviewMemory, type KeyValue } from "./memory";

function fakeStorage(): KeyValue & { clear: () => void } {
  const items = new Map<string, string>();
  return {
    getItem: (k) => items.get(k) ?? null,
    setItem: (k, v) => void items.set(k, v),
    clear: () => items.clear(),
  };
}

describe("preview memory", () => {
  const storage = fakeStorage();
  beforeEach(() => storage.clear());

  it("remembers per playbook and merges changes", () => {
    savePreviewMemory("tdd", { scenario: "happy-path", approvals: "approve" }, storage);
    savePreviewMemory("tdd", { shownRun: 4 }, storage);
    savePreviewMemory("pairing", { scenario: "other" }, storage);
    expect(loadPreviewMemory("tdd", storage)).toEqual({ scenario: "happy-path", approvals: "approve", shownRun: 4 });
    expect(loadPreviewMemory("pairing", storage)).toEqual({ scenario: "other" });
    expect(loadPreviewMemory("unknown", storage)).toEqual({});
  });

  it("drops what it cannot read instead of failing", () => {
    storage.setItem("playbook-studio.preview.a", "{not json");
    expect(loadPreviewMemory("a", storage)).toEqual({});
    storage.setItem("playbook-studio.preview.b", JSON.stringify({ approvals: "yes", seed: "-1", shownRun: "3", scenario: 5 }));
    expect(loadPreviewMemory("b", storage)).toEqual({});
    storage.setItem("playbook-studio.preview.c", "null");
    expect(loadPreviewMemory("c", storage)).toEqual({});
    storage.setItem("playbook-studio.preview.d", "[1,2]");
    expect(loadPreviewMemory("d", storage)).toEqual({});
  });

  it("a storage that throws only makes it forget", () => {
    const broken: KeyValue = {
      getItem: () => {
        throw new Error("denied");
      },
      setItem: () => {
        throw new Error("full");
      },
    };
    expect(loadPreviewMemory("x", broken)).toEqual({});
    expect(() => savePreviewMemory("x", { seed: "7" }, broken)).not.toThrow();
  });
});
