// The code editor (CodeMirror 6) of the Source tabs. It knows nothing of
// playbooks: it shows `text`, reports each change with `onChange`, marks
// `diagnostics` at their places, and asks `assist` (when given) for
// completions and hover documentation. Where the text comes from and what
// the diagnostics are is the caller's business. This module is loaded
// lazily (see LazyCodeEditor.tsx): CodeMirror is not part of start-up.
import { autocompletion, completionKeymap, type Completion, type CompletionContext, type CompletionResult } from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap, indentWithTab, redo, undo } from "@codemirror/commands";
import { json } from "@codemirror/lang-json";
import { yamlLanguage } from "./yamlLanguage";
import { bracketMatching, foldGutter, foldKeymap, HighlightStyle, indentOnInput, syntaxHighlighting } from "@codemirror/language";
import { lintGutter, lintKeymap, setDiagnostics, type Diagnostic } from "@codemirror/lint";
import { highlightSelectionMatches, openSearchPanel, search, searchKeymap } from "@codemirror/search";
import { Compartment, EditorSelection, EditorState, type Extension } from "@codemirror/state";
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  hoverTooltip,
  keymap,
  lineNumbers,
  type Tooltip,
} from "@codemirror/view";
import { tags } from "@lezer/highlight";
import { forwardRef, useEffect, useImperativeHandle, useRef } from "react";
import type { SourceCompletion } from "../generated/SourceCompletion";
import type { SourceCompletionKind } from "../generated/SourceCompletionKind";
import type { SourceHover } from "../generated/SourceHover";
import type { SourcePosition } from "../generated/SourcePosition";
import { registerEditor } from "./active";
import { markdownElement } from "./markdown";
import { lineStarts, offsetOfLocation, offsetOfPosition, positionOf, tokenEnd } from "./positions";

/** A finding to mark: 1-based line and column (in characters), as the core reports them. */
export type EditorDiagnostic = {
  line: number;
  column: number;
  severity: "error" | "warning" | "info";
  message: string;
  code?: string;
};

/** Completion and hover for the text, by position (0-based line, UTF-16 column). */
export type EditorAssist = {
  completions: (text: string, position: SourcePosition) => Promise<SourceCompletion[]>;
  hover: (text: string, position: SourcePosition) => Promise<SourceHover | null>;
};

export type CodeEditorProps = {
  text: string;
  language: "yaml" | "json";
  diagnostics: readonly EditorDiagnostic[];
  onChange: (text: string) => void;
  /** The accessible name of the text area. */
  label: string;
  testId?: string;
  assist?: EditorAssist;
  /** Edits that would make the text longer than this are refused, and `onTooLong` says so. */
  maxLength?: number;
  onTooLong?: (length: number) => void;
};

export type CodeEditorHandle = {
  /** Moves the cursor to a 1-based line and column (characters) and focuses the editor. */
  goTo: (line: number, column: number) => void;
  /** Opens the search panel. */
  find: () => void;
};

// Colours come from the app's CSS variables, so the light and dark themes
// (data-theme on the root) restyle the text without reconfiguring it.
const highlight = HighlightStyle.define([
  { tag: [tags.propertyName, tags.definition(tags.propertyName)], color: "var(--syntax-key)" },
  { tag: [tags.string, tags.special(tags.string)], color: "var(--syntax-string)" },
  { tag: [tags.number, tags.bool, tags.null, tags.atom], color: "var(--syntax-atom)" },
  { tag: [tags.comment, tags.lineComment], color: "var(--syntax-comment)", fontStyle: "italic" },
  { tag: [tags.keyword, tags.meta, tags.labelName, tags.typeName], color: "var(--syntax-meta)" },
  { tag: [tags.punctuation, tags.separator, tags.bracket, tags.squareBracket, tags.brace], color: "var(--muted)" },
]);

const look = EditorView.theme({
  "&": { color: "var(--text)", backgroundColor: "var(--panel)", border: "1px solid var(--border)", borderRadius: "6px" },
  "&.cm-focused": { outline: "2px solid var(--focus)", outlineOffset: "1px" },
  ".cm-content": { caretColor: "var(--text)", fontFamily: "var(--mono, ui-monospace, monospace)" },
  ".cm-cursor, .cm-dropCursor": { borderLeftColor: "var(--text)" },
  ".cm-gutters": { backgroundColor: "var(--bg)", color: "var(--muted)", borderRight: "1px solid var(--border)" },
  ".cm-activeLine, .cm-activeLineGutter": { backgroundColor: "var(--info-bg)" },
  ".cm-tooltip": { backgroundColor: "var(--panel)", color: "var(--text)", border: "1px solid var(--border)" },
  ".cm-panels": { backgroundColor: "var(--bg)", color: "var(--text)" },
  ".cm-hover-doc": { maxWidth: "32rem", padding: "2px 8px", fontFamily: "var(--sans, sans-serif)" },
  ".cm-hover-doc p": { margin: "4px 0" },
});

const kinds: Record<SourceCompletionKind, string> = {
  field: "property",
  role: "variable",
  builtin_policy: "constant",
  own_policy: "variable",
  value: "enum",
};

/** The app's theme, read from the root element (theme.ts sets it). */
function isDark(): boolean {
  return document.documentElement.dataset.theme === "dark";
}

function toDiagnostics(text: string, diagnostics: readonly EditorDiagnostic[]): Diagnostic[] {
  const starts = lineStarts(text);
  return diagnostics.map((d) => {
    const from = offsetOfLocation(text, d.line, d.column, starts);
    return {
      from,
      to: tokenEnd(text, from),
      severity: d.severity,
      message: d.message,
      source: d.code,
    };
  });
}

export const CodeEditor = forwardRef<CodeEditorHandle, CodeEditorProps>(function CodeEditor(props, ref) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  // The latest props, for the editor's callbacks, which outlive a render.
  const latest = useRef(props);
  // The text the editor last showed or reported: a prop equal to it is not
  // a change from elsewhere.
  const known = useRef<string | null>(null);
  const themeSlot = useRef(new Compartment());
  useEffect(() => {
    latest.current = props;
  });

  // Created once; a change of language would need a new editor (never happens in place).
  useEffect(() => {
    const parent = host.current;
    if (!parent) return;
    const { language, label, testId, text } = latest.current;
    const completionSource = async (context: CompletionContext): Promise<CompletionResult | null> => {
      const assist = latest.current.assist;
      if (!assist) return null;
      const word = context.matchBefore(/[\w$.-]+/);
      if (!context.explicit && !word) return null;
      const content = context.state.doc.toString();
      const items = await assist.completions(content, positionOf(content, context.pos)).catch(() => []);
      if (context.aborted || items.length === 0) return null;
      const starts = lineStarts(content);
      const from = offsetOfPosition(content, items[0].from.line, items[0].from.character, starts);
      const to = offsetOfPosition(content, items[0].to.line, items[0].to.character, starts);
      const options: Completion[] = items.map((item) => ({
        label: item.label,
        detail: item.detail,
        type: kinds[item.kind],
        apply: item.insert,
        info: item.documentation ? () => markdownElement(item.documentation!, "cm-hover-doc") : undefined,
      }));
      return { from, to: Math.max(from, to), options, validFor: /^[\w$.-]*$/ };
    };
    const hoverSource = async (v: EditorView, pos: number): Promise<Tooltip | null> => {
      const assist = latest.current.assist;
      if (!assist) return null;
      const content = v.state.doc.toString();
      const found = await assist.hover(content, positionOf(content, pos)).catch(() => null);
      if (!found || v.state.doc.toString() !== content) return null;
      const starts = lineStarts(content);
      const from = found.from ? offsetOfPosition(content, found.from.line, found.from.character, starts) : pos;
      const to = found.to ? offsetOfPosition(content, found.to.line, found.to.character, starts) : pos;
      return {
        pos: Math.min(from, pos),
        end: Math.max(to, pos),
        above: true,
        create: () => {
          const dom = markdownElement(found.markdown, "cm-hover-doc");
          dom.dataset.testid = "source-hover";
          return { dom };
        },
      };
    };
    const extensions: Extension[] = [
      lineNumbers(),
      highlightActiveLineGutter(),
      foldGutter(),
      lintGutter(),
      highlightSpecialChars(),
      history(),
      drawSelection(),
      indentOnInput(),
      bracketMatching(),
      highlightActiveLine(),
      highlightSelectionMatches(),
      syntaxHighlighting(highlight),
      search({ top: true }),
      autocompletion({ override: [completionSource], icons: true }),
      hoverTooltip(hoverSource, { hideOnChange: true }),
      language === "json" ? json() : yamlLanguage(),
      EditorState.tabSize.of(2),
      // Tab indents; Escape then Tab leaves the editor (CodeMirror's own
      // escape hatch), so the keyboard is never trapped.
      keymap.of([...completionKeymap, ...searchKeymap, ...historyKeymap, ...foldKeymap, ...lintKeymap, ...defaultKeymap, indentWithTab]),
      look,
      themeSlot.current.of(EditorView.theme({}, { dark: isDark() })),
      EditorView.contentAttributes.of({
        "aria-label": label,
        "aria-multiline": "true",
        ...(testId ? { "data-testid": testId } : {}),
      }),
      EditorState.transactionFilter.of((tr) => {
        const max = latest.current.maxLength;
        if (max === undefined || !tr.docChanged || tr.newDoc.length <= max) return tr;
        const length = tr.newDoc.length;
        queueMicrotask(() => latest.current.onTooLong?.(length));
        return [];
      }),
      EditorView.updateListener.of((update) => {
        if (!update.docChanged) return;
        const next = update.state.doc.toString();
        known.current = next;
        latest.current.onChange(next);
      }),
    ];
    known.current = text;
    const editor = new EditorView({ parent, state: EditorState.create({ doc: text, extensions }) });
    view.current = editor;
    // Remembered so that a text from elsewhere keeps the configuration.
    stateConfig.set(editor, extensions);
    const unregister = registerEditor({
      element: editor.dom,
      undo: () => undo(editor),
      redo: () => redo(editor),
      find: () => {
        editor.focus();
        openSearchPanel(editor);
      },
    });
    // Follow the app's theme (base colours of panels, tooltips, selection).
    const observer = new MutationObserver(() =>
      editor.dispatch({ effects: themeSlot.current.reconfigure(EditorView.theme({}, { dark: isDark() })) }),
    );
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
    return () => {
      observer.disconnect();
      unregister();
      editor.destroy();
      view.current = null;
    };
  }, []);

  // A text from elsewhere (the form, undo, a file) replaces the editor's
  // content and starts a fresh editing history: the editor's undo covers
  // the typing since the text last came from elsewhere; older steps are the
  // app's undo.
  const { text, diagnostics } = props;
  useEffect(() => {
    const editor = view.current;
    if (!editor || text === known.current) return;
    known.current = text;
    if (editor.state.doc.toString() === text.replace(/\r\n?/g, "\n")) return;
    const extensions = stateConfig.get(editor);
    if (!extensions) return;
    const selection = editor.state.selection.main.head;
    const state = EditorState.create({ doc: text, extensions, selection: EditorSelection.cursor(Math.min(selection, text.length)) });
    editor.setState(state);
    editor.dispatch({ effects: themeSlot.current.reconfigure(EditorView.theme({}, { dark: isDark() })) });
    const marks = latest.current.diagnostics;
    editor.dispatch(setDiagnostics(editor.state, toDiagnostics(editor.state.doc.toString(), marks)));
  }, [text]);

  // Between two checks the editor moves the marks along with the typing;
  // a new check's diagnostics replace them.
  useEffect(() => {
    const editor = view.current;
    if (!editor) return;
    editor.dispatch(setDiagnostics(editor.state, toDiagnostics(editor.state.doc.toString(), diagnostics)));
  }, [diagnostics]);

  useImperativeHandle(ref, () => ({
    goTo: (line, column) => {
      const editor = view.current;
      if (!editor) return;
      const offset = offsetOfLocation(editor.state.doc.toString(), line, column);
      editor.dispatch({ selection: EditorSelection.cursor(offset), scrollIntoView: true });
      editor.focus();
    },
    find: () => {
      const editor = view.current;
      if (!editor) return;
      editor.focus();
      openSearchPanel(editor);
    },
  }));

  return <div ref={host} className="code-editor" data-code-editor />;
});

const stateConfig = new WeakMap<EditorView, Extension[]>();

export default CodeEditor;
