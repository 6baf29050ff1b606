// The code editor, loaded on first use: CodeMirror stays out of the
// start-up bundle and is fetched when a Source tab is first opened.
import { forwardRef, lazy, Suspense } from "react";
import type { CodeEditorHandle, CodeEditorProps } from "./CodeEditor";

const CodeEditor = lazy(() => import("./CodeEditor"));

export type { CodeEditorHandle, CodeEditorProps, EditorAssist, EditorDiagnostic } from "./CodeEditor";

export const LazyCodeEditor = forwardRef<CodeEditorHandle, CodeEditorProps>(function LazyCodeEditor(props, ref) {
  return (
    <Suspense fallback={<p className="muted" data-testid="editor-loading">Loading the editor…</p>}>
      <CodeEditor ref={ref} {...props} />
    </Suspense>
  );
});
