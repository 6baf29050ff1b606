import { describe, expect, it } from "vitest";
import { lineStarts, offsetOfLocation, offsetOfPosition, positionOf, tokenEnd } from "./positions";

describe("core locations (1-based, characters) to offsets", () => {
  it("counts an emoji as one character and two offsets", () => {
    const text = "a: é😀x\nb: 1\n";
    // "x" is the 6th character and sits at UTF-16 offset 6.
    expect(offsetOfLocation(text, 1, 6)).toBe(6);
    expect(text[offsetOfLocation(text, 1, 6)]).toBe("x");
    expect(offsetOfLocation(text, 2, 4)).toBe(text.indexOf("1"));
  });
  it("clamps stale and absurd locations into the text", () => {
    const text = "ab\r\ncd";
    expect(offsetOfLocation(text, 1, 99)).toBe(2); // before the "\r"
    expect(offsetOfLocation(text, 2, 99)).toBe(6);
    // Past the last line: the end of the text (an error at the end of the input).
    expect(offsetOfLocation(text, 99, 1)).toBe(text.length);
    expect(offsetOfLocation(text, 0, 0)).toBe(0);
    expect(offsetOfLocation(text, -3, -3)).toBe(0);
    expect(offsetOfLocation(text, Number.NaN, Number.NaN)).toBe(0);
    expect(offsetOfLocation("", 5, 5)).toBe(0);
    // A lone high surrogate at the end of a line does not swallow the newline.
    expect(offsetOfLocation("\ud83d\nx", 1, 3)).toBe(1);
  });
});

describe("LSP positions (0-based, UTF-16) and offsets", () => {
  const text = "a: é😀x\r\nsecond\n";
  it("round-trips every offset", () => {
    const starts = lineStarts(text);
    for (let offset = 0; offset <= text.length; offset++) {
      const p = positionOf(text, offset, starts);
      const back = offsetOfPosition(text, p.line, p.character, starts);
      // Inside "\r\n" or a surrogate pair, the nearest clean place before it.
      expect(back).toBeLessThanOrEqual(offset);
      expect(offset - back).toBeLessThanOrEqual(1);
    }
  });
  it("places lines and columns", () => {
    expect(positionOf(text, text.indexOf("x"))).toEqual({ line: 0, character: 6 });
    expect(positionOf(text, text.indexOf("second"))).toEqual({ line: 1, character: 0 });
    expect(positionOf(text, text.length)).toEqual({ line: 2, character: 0 });
    expect(positionOf(text, 999)).toEqual({ line: 2, character: 0 });
    expect(offsetOfPosition(text, 1, 3)).toBe(text.indexOf("ond"));
  });
  it("never splits a surrogate pair and clamps to the line", () => {
    // Column 5 is between the halves of 😀: the emoji's start.
    expect(offsetOfPosition(text, 0, 5)).toBe(4);
    expect(offsetOfPosition(text, 0, 99)).toBe(text.indexOf("\r"));
    expect(offsetOfPosition(text, 99, 0)).toBe(text.length);
    expect(offsetOfPosition(text, -1, -1)).toBe(0);
  });
});

describe("the end of a finding's mark", () => {
  it("covers the word, the key without its colon, or the quoted string", () => {
    const text = "mode: revewer, x\nname: \"a b\" c\nkey: 1";
    expect(text.slice(6, tokenEnd(text, 6))).toBe("revewer");
    expect(text.slice(0, tokenEnd(text, 0))).toBe("mode");
    const quoted = text.indexOf('"');
    expect(text.slice(quoted, tokenEnd(text, quoted))).toBe('"a b"');
  });
  it("marks at least one character and stays on the line", () => {
    const text = "a:  \nb";
    expect(tokenEnd(text, 3)).toBe(3 + 1);
    expect(tokenEnd(text, 4)).toBe(4); // at the end of the line: empty
    expect(tokenEnd(text, text.length)).toBe(text.length);
    expect(tokenEnd("😀", 0)).toBe(2);
    expect(tokenEnd("'open", 0)).toBe(5);
  });
});
