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
import type { EditorState, Extension } from "@codemirror/state";
import { tags } from "@lezer/highlight";

/** Columns of leading whitespace of `text`, or `null` for a blank line or a comment (they do not end a block). */
function indentOf(text: string): number | null {
  const match = /^[ \t]*/.exec(text)!;
  const rest = text.slice(match[0].length);
  return rest === "" || rest.startsWith("#") ? null : match[0].length;
}

/**
 * The block under line `lineStart`..`lineEnd` that folds: from the end of
 * that line to the end of the last line after it that is indented deeper
 * (blank lines and comments inside are folded with it), or `null` when no
 * line after it is deeper.
 */
export function indentationFold(state: EditorState, lineStart: number, lineEnd: number): { from: number; to: number } | null {
  const line = state.doc.lineAt(lineStart);
  const own = indentOf(line.text);
  if (own === null) return null;
  let end = -1;
  let at = line.to;
  // Lines in order after this one; each is followed by its line break.
  for (const text of state.doc.iterLines(line.number + 1)) {
    const indent = indentOf(text);
    at += 1 + text.length;
    if (indent === null) continue;
    if (indent <= own) break;
    end = at;
  }
  return end < 0 ? null : { from: lineEnd, to: end };
}

/** The mode's state is a flat record of flags and counters. */
type ModeState = Record<string, unknown>;
const mode = yamlMode as StreamParser<ModeState>;
/** The mode's state, and the length of a key still to be given as a token of its own. */
type State = { mode: ModeState; key: number };

/**
 * The mode, with a mapping's key as a token of its own: the mode's key token
 * starts with the line's indentation, and the key alone is what is
 * coloured, hovered (field documentation) and found in the page.
 */
export const yamlParser: StreamParser<State> = {
  name: "yaml",
  startState: (indentUnit) => ({ mode: mode.startState?.(indentUnit) ?? {}, key: 0 }),
  copyState: (state) => ({ mode: { ...state.mode }, key: state.key }),
  token(stream, state) {
    if (state.key > 0) {
      stream.pos += state.key;
      state.key = 0;
      return "atom";
    }
    // A quote inside a word (`task's`) is part of a plain value, not the
    // start of a quoted one, which the mode would colour to the line's end.
    const next = stream.peek();
    if ((next === "'" || next === '"') && /\w/.test(stream.string.charAt(stream.pos - 1))) {
      stream.next();
      // What the mode does with a character it does not recognise.
      state.mode.pairStart = false;
      state.mode.escaped = false;
      return null;
    }
    const style = mode.token(stream, state.mode);
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

const language = StreamLanguage.define(yamlParser);

export function yamlLanguage(): Extension {
  return [language, foldService.of(indentationFold)];
}
