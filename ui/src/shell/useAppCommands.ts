// The shell's commands, from keys and from the native menu bar: undo/redo,
// save and export of the open playbook, opening a file, find, theme and
// help. Undo/redo are the app's, not the text field's, so they work the
// same across the form, the Source tab and template insertions. The
// template editor has its own document, undo and save.
import { useCallback, useEffect } from "react";
import { backend, messageOf } from "../backend";
import { visibleEditor } from "../editor/active";
import type { Authored } from "../generated/Authored";
import type { Checked } from "../generated/Checked";
import type { Playbook } from "../generated/Playbook";
import type { Current } from "../playbooks/useAutosave";
import type { ThemeChoice } from "../theme";
import { dispatchCommand, useCommands } from "./commands";
import type { HelpTopic } from "./Help";
import type { Screen } from "./Topbar";

/** Why an export is written afresh. */
function exportLayoutNote(from: string | undefined, to: string): string {
  return from && from !== to
    ? `It is written afresh as ${to.toUpperCase()}: the comments of the ${from.toUpperCase()} text are not in it (export as .${from} to keep them).`
    : "Not every comment of your text could be kept: what changed was written afresh.";
}

type Options = {
  doc: Playbook | null;
  source: Authored | null;
  checked: Checked | null;
  current: Current | null;
  screen: Screen;
  setScreen: (screen: Screen) => void;
  undo: () => void;
  redo: () => void;
  /** Whether the Save version dialog is open. */
  saving: boolean;
  saveVersion: (note: string) => Promise<void>;
  openFiles: (paths: string[]) => void;
  chooseTheme: (choice: ThemeChoice) => void;
  setHelp: (topic: HelpTopic) => void;
  notify: (message: string, kind?: "info" | "error") => void;
};

export function useAppCommands(options: Options) {
  const { doc, source, checked, current, screen, setScreen, undo, redo, saving, saveVersion, openFiles, chooseTheme, setHelp, notify } = options;

  // The native menu bar's commands reach every screen as app commands.
  useEffect(() => {
    const stop = backend.onMenu(dispatchCommand);
    return () => void stop.then((unlisten) => unlisten()).catch(() => undefined);
  }, []);

  /**
   * Export to file…: the open playbook, unsaved edits included, as YAML or
   * JSON. One action for valid and invalid playbooks (there used to be a
   * second, "Export as valid…", that only differed by refusing errors): a
   * playbook with errors is written, and the notice says so, so work in
   * progress can be shared and CI's `playbook validate` still refuses it.
   */
  const exportDocument = useCallback(async () => {
    if (!doc) return;
    try {
      const target = await backend.chooseExportPath(`${doc.id || "playbook"}.yaml`, "Export the open playbook to a file");
      if (!target) return;
      const rendered = await backend.renderAuthored(doc, target.toLowerCase().endsWith(".json") ? "json" : "yaml", source);
      await backend.writeTextFile(target, rendered.text);
      const errorCount = checked?.findings.filter((f) => f.severity === "error").length ?? 0;
      const lost = rendered.comments_kept ? "" : ` ${exportLayoutNote(source?.format, rendered.format)}`;
      notify(
        errorCount > 0
          ? `Exported to ${target}, with ${errorCount} error${errorCount === 1 ? "" : "s"}: \`playbook validate\` refuses it until they are fixed.${lost}`
          : `Exported to ${target}.${lost}`,
        errorCount > 0 || lost ? "error" : "info",
      );
    } catch (e) {
      notify(`Could not export: ${messageOf(e)}`, "error");
    }
  }, [doc, source, checked, notify]);

  useCommands(
    {
      undo,
      redo,
      // Ctrl+S saves at once with the default note; "Save version…" asks for one.
      save: () => {
        if (!saving) void saveVersion("");
      },
      "save-as": () => void exportDocument(),
    },
    screen !== "templates" && !!doc,
  );
  useCommands({
    new: () => setScreen("welcome"),
    // The open playbook's latest saved version, as the Library's "Claude Code…" writes it.
    export: () => {
      if (!current) return notify("Open a playbook from the library first: the export writes its saved version.", "error");
      void backend
        .exportClaudeCode(current.id)
        .then((done) => {
          if (!done) return;
          const notes = done.notes.length ? ` Notes: ${done.notes.join(" ")}` : "";
          notify(`Exported for Claude Code into ${done.dir}: ${done.files.length} files. The hook runs \`playbook gate\`: the playbook CLI must be installed there.${notes}`);
        })
        .catch((e) => notify(messageOf(e), "error"));
    },
    open: () =>
      void backend
        .choosePlaybookFile()
        .then((file) => file && openFiles([file]))
        .catch((e) => notify(messageOf(e), "error")),
    find: () => {
      // A Source tab on screen: its editor's search panel.
      const editor = visibleEditor();
      if (editor) return editor.find();
      const box = window.document.querySelector<HTMLElement>("[data-find]");
      if (box) box.focus();
      else notify("This screen has no search box; the Library has one (Ctrl+F there).");
    },
    "theme-light": () => chooseTheme("light"),
    "theme-dark": () => chooseTheme("dark"),
    "theme-system": () => chooseTheme("system"),
    about: () => setHelp("about"),
    documentation: () => setHelp("documentation"),
  });

  return { exportDocument };
}
