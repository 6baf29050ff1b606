// YAML for the code editor: CodeMirror's line-by-line YAML mode, with
// folding by indentation.
//
// The Lezer YAML grammar (`@codemirror/lang-yaml`) reparses a large text
// from the top on every change: its tree could not reuse the unchanged
// nodes, so each keystroke in a 200-role playbook spent CodeMirror's whole
// 20 ms parse budget before the character was drawn (docs/benchmarks.md,
// "Desktop app"). The line mode keeps the state of each line, so a
// keystroke re-reads only from its line on, and only as far as the screen
// needs; the rest is read when the editor is idle.
import { foldService, StreamLanguage, type StreamParser } from "@codemirror/language";
import { yaml as yamlMode } from "@codemirror/legacy-modes/mode/yaml";
import type { EditorState, Extension, Text } from "@codemirror/state";
import { tags } from "@lezer/highlight";

/** Columns of leading whitespace of `text`, or `null` for a blank line or a comment (they do not end a block). */
function indentOf(text: string): number | null {
  let i = 0;
  while (i < text.length && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
  return i === text.length || text.charCodeAt(i) === 35 /* # */ ? null : i;
}

/**
 * Where each block ends, by line number, for one version of the text: the
 * end of its last deeper line, or -1 when no line after it is deeper.
 * A line such as `roles:` opens a block to the end of a large file; one
 * scan answers every block it passes, so folding every block on screen
 * reads the text once, not once per block.
 */
const blockEnds = new WeakMap<Text, Map<number, number>>();

function blockEnd(doc: Text, lineNumber: number): number {
  let ends = blockEnds.get(doc);
  if (!ends) {
    ends = new Map();
    blockEnds.set(doc, ends);
  }
  const known = ends.get(lineNumber);
  if (known !== undefined) return known;
  // Blocks still open, outermost first; every line between an open block's
  // start and the line that closes it is deeper, so a block closes at the
  // last non-blank line seen before the line that closes it.
  const open: { line: number; indent: number }[] = [];
  let last = { line: 0, to: -1 };
  const close = (block: { line: number }) => ends.set(block.line, last.line > block.line ? last.to : -1);
  for (let n = lineNumber; n <= doc.lines; n++) {
    const line = doc.line(n);
    const indent = indentOf(line.text);
    if (indent === null) continue;
    while (open.length > 0 && indent <= open[open.length - 1].indent) close(open.pop()!);
    if (open.length === 0 && n > lineNumber) break;
    open.push({ line: n, indent });
    last = { line: n, to: line.to };
  }
  while (open.length > 0) close(open.pop()!);
  return ends.get(lineNumber) ?? -1;
}

/**
 * The block under line `lineStart`..`lineEnd` that folds: from the end of
 * that line to the end of the last line after it that is indented deeper
 * (blank lines and comments inside are folded with it), or `null` when no
 * line after it is deeper. Whether a line folds is read from the next line
 * that is not blank or a comment; where its block ends is read only when
 * asked (`to`), since the fold gutter asks only whether each line on screen
 * folds, after every keystroke.
 */
export function indentationFold(state: EditorState, lineStart: number, lineEnd: number): { from: number; to: number } | null {
  const doc = state.doc;
  const line = doc.lineAt(lineStart);
  const own = indentOf(line.text);
  if (own === null) return null;
  for (let n = line.number + 1; n <= doc.lines; n++) {
    const indent = indentOf(doc.line(n).text);
    if (indent === null) continue;
    if (indent <= own) return null;
    return {
      from: lineEnd,
      get to() {
        return blockEnd(doc, line.number);
      },
    };
  }
  return null;
}

/** The mode's state is a flat record of flags and counters. */
type ModeState = Record<string, unknown>;
const mode = yamlMode as StreamParser<ModeState>;
/** The mode's state, and the length of a key still to be given as a token of its own. */
type State = { mode: ModeState; key: number };

/**
 * Characters that can start a token of the mode's in a mapping's value:
 * a comment, a quoted string, an inline collection and its separator, an
 * escape and a further `:`. Any other character the mode takes alone as
 * plain text, trying each of its patterns first.
 */
const VALUE_STOPS = /[#'"{}[\],\\:]/g;

/**
 * Past this column a line is not coloured: the rest of it is one unstyled
 * token. A pasted line of 400 000 brackets was 400 000 tokens (and as many
 * spans), which held the window for half a minute; no playbook line a
 * person reads is this long.
 */
export const LONG_LINE = 4096;

/**
 * What the mode does with plain text it does not recognise (no `\` in it):
 * the next token is not a value's first, and nothing is escaped. Unstyled.
 */
function plain(m: ModeState): null {
  m.pairStart = false;
  m.escaped = false;
  return null;
}

/**
 * The mode, with a mapping's key as a token of its own: the mode's key token
 * starts with the line's indentation, and the key alone is what is
 * coloured, hovered (field documentation) and found in the page.
 *
 * `plainRuns`: after a key, the plain text of its value is taken as one run
 * up to the next character that could start a token. The mode reads it a
 * character at a time, trying a dozen regular expressions for each; the
 * page runs them interpreted (JIT off, `src-tauri/src/lib.rs`), and the
 * editor reads the rest of the text again after each change. Same styles
 * either way (tested); `false` is the mode's own way, for that test.
 */
export function yamlStreamParser(plainRuns = true): StreamParser<State> {
  return {
    name: "yaml",
    startState: (indentUnit) => ({ mode: mode.startState?.(indentUnit) ?? {}, key: 0 }),
    copyState: (state) => ({ mode: { ...state.mode }, key: state.key }),
    token(stream, state) {
      if (stream.pos >= LONG_LINE) {
        stream.skipToEnd();
        state.key = 0;
        return plain(state.mode);
      }
      if (state.key > 0) {
        stream.pos += state.key;
        state.key = 0;
        return "atom";
      }
      const m = state.mode;
      if (plainRuns && m.pair && !m.pairStart && !m.literal && stream.pos > 0) {
        VALUE_STOPS.lastIndex = stream.pos;
        const stop = VALUE_STOPS.exec(stream.string);
        const end = stop ? stop.index : stream.string.length;
        if (end > stream.pos) {
          stream.pos = end;
          return plain(m);
        }
      }
      // A quote inside a word (`task's`) is part of a plain value, not the
      // start of a quoted one, which the mode would colour to the line's end.
      const next = stream.peek();
      if ((next === "'" || next === '"') && /\w/.test(stream.string.charAt(stream.pos - 1))) {
        stream.next();
        return plain(m);
      }
      const style = mode.token(stream, m);
      if (style === "atom") {
        const text = stream.current();
        const indent = text.length - text.trimStart().length;
        if (indent > 0 && indent < text.length) {
          state.key = text.length - indent;
          stream.backUp(state.key);
          return null;
        }
      }
      return style;
    },
    languageData: mode.languageData,
    // The mode calls a mapping's key `atom`: the editor colours it as a key.
    tokenTable: { atom: tags.propertyName },
  };
}

export const yamlParser = yamlStreamParser();

const language = StreamLanguage.define(yamlParser);

export function yamlLanguage(): Extension {
  return [language, foldService.of(indentationFold)];
}
