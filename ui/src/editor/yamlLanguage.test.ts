/// <reference types="vite/client" />
import { EditorState } from "@codemirror/state";
import { describe, expect, it } from "vitest";
import { indentationFold } from "./yamlLanguage";

/** Numbers below `n` from a fixed seed: the same random cases on every run. */
function seededRandom(seed: number): (n: number) => number {
  return (n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
}

const text = ["id: x", "workflow:", "  build:", "    roles:", "      - name: a", "", "        # a comment", "        mode: worker", "      - name: b", "name: last", ""].join("\n");
const state = EditorState.create({ doc: text });
const fold = (n: number) => {
  const line = state.doc.line(n);
  const range = indentationFold(state, line.from, line.to);
  return range && state.doc.sliceString(range.from, range.to);
};

describe("indentationFold", () => {
  it("folds the lines indented deeper than a line, blank lines and comments inside, up to the next line that is not", () => {
    expect(fold(2)).toBe("\n  build:\n    roles:\n      - name: a\n\n        # a comment\n        mode: worker\n      - name: b");
    expect(fold(5)).toBe("\n\n        # a comment\n        mode: worker");
    expect(fold(4)).toBe("\n      - name: a\n\n        # a comment\n        mode: worker\n      - name: b");
  });

  it("answers every line as a line-by-line scan would, whichever line is asked first", () => {
    // The old way: from each line, read on until a line not indented deeper.
    const naive = (doc: EditorState["doc"], n: number): number | null => {
      const own = /^[ \t]*(?=[^ \t#])/.exec(doc.line(n).text)?.[0].length;
      if (own === undefined) return null;
      let end: number | null = null;
      for (let m = n + 1; m <= doc.lines; m++) {
        const indent = /^[ \t]*(?=[^ \t#])/.exec(doc.line(m).text)?.[0].length;
        if (indent === undefined) continue;
        if (indent <= own) break;
        end = doc.line(m).to;
      }
      return end;
    };
    const random = seededRandom(7);
    for (let round = 0; round < 20; round++) {
      const lines = Array.from({ length: 60 }, () => {
        const kind = random(8);
        const indent = " ".repeat(random(5) * 2);
        return kind === 0 ? "" : kind === 1 ? `${indent}# note` : `${indent}key${random(9)}: v`;
      });
      // A fresh text each order, so nothing is remembered between them.
      const orders = [(n: number) => n, (n: number) => lines.length + 1 - n, () => 1 + random(lines.length)];
      for (const order of orders) {
        const fresh = EditorState.create({ doc: lines.join("\n") });
        for (let i = 1; i <= lines.length; i++) {
          const n = order(i);
          const line = fresh.doc.line(n);
          const range = indentationFold(fresh, line.from, line.to);
          expect(range ? range.to : null, `line ${n} of ${JSON.stringify(lines)}`).toBe(naive(fresh.doc, n));
        }
      }
    }
  });

  it("does not fold a line with nothing deeper after it, a blank line or a comment", () => {
    expect(fold(1)).toBeNull();
    expect(fold(9)).toBeNull();
    expect(fold(10)).toBeNull();
    expect(fold(6)).toBeNull();
    expect(fold(7)).toBeNull();
    expect(fold(11)).toBeNull();
  });
});

import { StringStream } from "@codemirror/language";
import { yamlParser, yamlStreamParser } from "./yamlLanguage";

/** Each line's tokens as [text, style], runs of unstyled characters merged. */
function yamlTokens(lines: string[]): [string, string | null][][] {
  const state = yamlParser.startState!(2);
  return lines.map((line) => {
    const stream = new StringStream(line, 4, 2);
    const tokens: [string, string | null][] = [];
    while (!stream.eol()) {
      stream.start = stream.pos;
      const style = yamlParser.token(stream, state) ?? null;
      const text = stream.current();
      const last = tokens[tokens.length - 1];
      if (style === null && last && last[1] === null) last[0] += text;
      else tokens.push([text, style]);
    }
    return tokens;
  });
}

describe("yaml tokens", () => {
  it("give a mapping's key as a token of its own, without the line's indentation", () => {
    expect(yamlTokens(["id: x", "    mode: worker", "  - name: a"])).toEqual([
      [["id", "atom"], [": ", "meta"], ["x", null]],
      [["    ", null], ["mode", "atom"], [": ", "meta"], ["worker", null]],
      [["  - ", "meta"], ["name", "atom"], [": ", "meta"], ["a", null]],
    ]);
  });

  it("keep a quote inside a word in its plain value, and quoted values quoted", () => {
    expect(yamlTokens(["a: the task's tests", "b: 'quoted' and", 'c: "double"'])).toEqual([
      [["a", "atom"], [": ", "meta"], ["the task's tests", null]],
      [["b", "atom"], [": ", "meta"], ["'quoted'", "string"], [" and", null]],
      [["c", "atom"], [": ", "meta"], ['"double"', "string"]],
    ]);
  });
});

/** The style of every character of `lines`, read by `parser` as the editor reads them. */
function styles(parser: ReturnType<typeof yamlStreamParser>, lines: string[]): (string | null)[][] {
  const state = parser.startState!(2);
  return lines.map((line) => {
    const stream = new StringStream(line, 4, 2);
    const out: (string | null)[] = [];
    while (!stream.eol()) {
      stream.start = stream.pos;
      const style = parser.token(stream, state) ?? null;
      if (stream.pos <= stream.start) throw new Error(`no progress at ${stream.pos} of ${JSON.stringify(line)}`);
      for (let i = stream.start; i < stream.pos; i++) out.push(style);
    }
    return out;
  });
}

describe("plain runs in values", () => {
  const runs = yamlStreamParser(true);
  const byCharacter = yamlStreamParser(false);

  it("colour every character of the shipped playbooks as the mode does a character at a time", () => {
    const files = import.meta.glob<string>("../../../playbooks/**/*.yaml", { query: "?raw", import: "default", eager: true });
    expect(Object.keys(files).length).toBeGreaterThan(3);
    for (const [file, text] of Object.entries(files)) {
      const lines = text.split("\n");
      expect(styles(runs, lines), file).toEqual(styles(byCharacter, lines));
    }
  });

  it("colour random lines with every character that starts a token as the mode does", () => {
    const pieces = ["key", ": ", " ", "value", "#", " # note", "'", '"', "{", "}", "[", "]", ",", "\\", ":", "- ", "|", ">", "&a", "*a", "42", "true", "x's", "http://h:1/p", "\t"];
    const random = seededRandom(11);
    for (let round = 0; round < 300; round++) {
      const lines = Array.from({ length: 8 }, () => {
        const indent = " ".repeat(random(3) * 2);
        return indent + Array.from({ length: 1 + random(7) }, () => pieces[random(pieces.length)]).join("");
      });
      expect(styles(runs, lines), JSON.stringify(lines)).toEqual(styles(byCharacter, lines));
    }
  });
});

describe("very long lines", () => {
  it("are coloured up to LONG_LINE and the rest is one unstyled token", async () => {
    const { LONG_LINE } = await import("./yamlLanguage");
    const line = "workflow: " + "[".repeat(200_000) + "]".repeat(200_000);
    const state = yamlParser.startState!(2);
    const stream = new StringStream(line, 4, 2);
    let tokens = 0;
    let last: string | null = "";
    while (!stream.eol()) {
      stream.start = stream.pos;
      last = yamlParser.token(stream, state) ?? null;
      tokens++;
    }
    expect(tokens).toBeLessThanOrEqual(LONG_LINE + 1);
    expect(last).toBeNull();
    // The next line is coloured again.
    expect(yamlTokens(["id: x"])).toEqual([[["id", "atom"], [": ", "meta"], ["x", null]]]);
  });
});
