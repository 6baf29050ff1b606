// The editor: an outline of stages and roles, the form (playbook, stage or
// role), the flow graph and the Source tab, with the Problems panel below.
import { lazy, memo, Suspense, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { backend, messageOf } from "../backend";
import type { Authored } from "../generated/Authored";
import type { Checked } from "../generated/Checked";
import type { Finding } from "../generated/Finding";
import type { FlowView } from "../generated/FlowView";
import type { Playbook } from "../generated/Playbook";
import { FindingsContext, Hints, severityRank } from "../validation/hints";
import { Problems } from "../validation/Problems";
import { QuickFixContext, type QuickFixes } from "../validation/QuickFix";
import {
  insertRole,
  moveRole,
  removeRoleAndReferences,
  removeStage,
  roleAt,
  roleOfPointer,
  rolePointer,
  stageOfPointer,
  stagePointer,
  stages,
  withField,
  type RoleAddress,
} from "./document";
import { ChipList, TextField } from "./fields";
import { MemoOutline } from "./Outline";
import { RoleEditor } from "./RoleEditor";
import { SourceTab, type SourceTabHandle } from "./SourceTab";
import { StageEditor, type TemplateChoice } from "./StageEditor";
import { LegacyNotice } from "./Upgrade";

const MemoProblems = memo(Problems);

// The graph's code loads when the Flow graph tab is first opened: a window
// that only edits never parses it.
const FlowGraph = lazy(() => import("./FlowGraph").then((m) => ({ default: m.FlowGraph })));

export type Selection = { kind: "playbook" } | { kind: "stage"; stage: string } | ({ kind: "role" } & RoleAddress);
export type Tab = "form" | "flow" | "source";

type Props = {
  doc: Playbook;
  checked: Checked | null;
  flow: FlowView | null;
  /**
   * `source`: text the author typed in the Source tab, the author's text
   * from then on; `answer`: that text's check, which is the document's.
   */
  edit: (doc: Playbook, key?: string, source?: Authored, answer?: Checked) => void;
  selection: Selection;
  setSelection: (s: Selection) => void;
  tab: Tab;
  setTab: (t: Tab) => void;
  onSaveRoleAsTemplate?: (address: RoleAddress, name: string) => void;
  notify: (message: string, kind?: "info" | "error") => void;
  /** Source-tab text that is not a playbook yet, held by the window (see `SourceTab`). */
  broken?: Authored | null;
  /** The check of `broken`, once known. */
  brokenChecked?: Checked | null;
  onBroken?: (typed: Authored, answer: Checked) => void;
  onHeldChecked?: (held: Authored, answer: Checked) => void;
};

/**
 * What the Problems panel lists: the document's findings, except while the
 * Source tab holds text that does not read as a playbook. Then it lists
 * that text's findings, as the Source editor marks them (the parse error at
 * its line:column), or, until they are known, the last valid version's,
 * said to be its (see `validation/Problems.tsx`).
 */
export function problemsOf(
  findings: Finding[],
  broken: Authored | null | undefined,
  brokenChecked: Checked | null | undefined,
): { findings: Finding[]; of?: "typed" | "last-valid" } {
  if (!broken) return { findings };
  if (brokenChecked && !brokenChecked.playbook) return { findings: brokenChecked.findings, of: "typed" };
  return { findings, of: brokenChecked ? undefined : "last-valid" };
}

export function Editor(props: Props) {
  const { doc, checked, flow, edit, selection, setSelection, tab, setTab, notify } = props;
  // One array per check result, not a fresh `[]` per render: the outline's
  // ranks and the findings context would otherwise recompute on every render.
  const findings = useMemo(() => checked?.findings ?? [], [checked]);
  const problems = useMemo(() => problemsOf(findings, props.broken, props.brokenChecked), [findings, props.broken, props.brokenChecked]);
  const [pendingFocus, setPendingFocus] = useState<string | null>(null);
  /** A typed-text finding activated outside the Source tab, for the tab to place once it is open. */
  const [pendingGoTo, setPendingGoTo] = useState<Finding | null>(null);
  const [fixable, setFixable] = useState<ReadonlySet<string>>(new Set());
  useEffect(() => {
    backend
      .fixableCodes()
      .then((codes) => setFixable(new Set(codes)))
      .catch(() => undefined);
  }, []);
  // The outline only changes when stage or role names, enabled flags, the
  // selection or the findings change, not on every keystroke in a field:
  // on a 200-role playbook re-rendering it per keystroke costs a frame.
  // The same goes for the Problems panel and every hint: what they are
  // given stays the same object while the findings do, and callbacks read
  // the latest document from `docRef` when they run.
  const docRef = useRef(doc);
  docRef.current = doc;
  const quickFixes: QuickFixes = useMemo(
    () => ({
      fixable,
      fixesOf: (finding) => backend.quickFixes(docRef.current, finding),
      apply: (fix) =>
        void backend
          .applyFix(docRef.current, fix)
          .then((fixed) => {
            edit(fixed);
            notify(`Applied: ${fix.title}. Ctrl+Z undoes it.`);
          })
          .catch((e) => notify(messageOf(e), "error")),
    }),
    [fixable, edit, notify],
  );
  const structure = useMemo(
    () => JSON.stringify([doc.name, stages(doc).map(([n, s]) => [n, s.enabled !== false, (s.roles ?? []).map((r) => r.name)])]),
    [doc],
  );
  const ranks = useMemo(() => outlineRanks(findings), [findings]);
  const selectFromOutline = useCallback(
    (s: Selection) => {
      setSelection(s);
      setTab("form");
    },
    [setSelection, setTab],
  );

  const addRole = useCallback(
    async (stage: string, template: TemplateChoice) => {
      try {
        const role =
          template.kind === "builtin"
            ? await backend.roleTemplate(template.mode)
            : template.kind === "team"
              ? await backend.templateRole(template.name)
              : { name: "role" };
        const { doc: next, address } = insertRole(doc, stage, role);
        edit(next);
        setSelection({ kind: "role", ...address });
        setTab("form");
      } catch (e) {
        notify(`Could not add the role: ${messageOf(e)}`, "error");
      }
    },
    [doc, edit, setSelection, setTab, notify],
  );

  // Moves keyboard focus to the field a problem is about, once it is on screen.
  useEffect(() => {
    if (!pendingFocus) return;
    const target = focusTarget(pendingFocus);
    if (target) {
      target.scrollIntoView({ block: "center" });
      target.focus();
      target.classList.add("flash");
      window.setTimeout(() => target.classList.remove("flash"), 1200);
    }
    setPendingFocus(null);
  }, [pendingFocus, selection, tab]);

  const source = useRef<SourceTabHandle>(null);
  useEffect(() => {
    if (!pendingGoTo || tab !== "source") return;
    source.current?.goToFinding(pendingGoTo);
    setPendingGoTo(null);
  }, [pendingGoTo, tab]);
  const activate = useCallback(
    (f: Finding) => {
      // The typed text is only in the Source tab (the form shows the last
      // valid version): its findings go there, to their line:column.
      if (problems.of === "typed") {
        if (tab === "source") source.current?.goToFinding(f);
        else {
          setPendingGoTo(f);
          setTab("source");
        }
        return;
      }
      // In the Source tab, "go to" moves the editor's cursor to the finding.
      if (tab === "source" && f.location) {
        source.current?.goToFinding(f);
        return;
      }
      const doc = docRef.current;
      const role = roleOfPointer(f.path);
      const stage = stageOfPointer(f.path);
      if (role && roleAt(doc, role)) setSelection({ kind: "role", ...role });
      else if (stage && doc.workflow[stage]) setSelection({ kind: "stage", stage });
      else setSelection({ kind: "playbook" });
      setTab("form");
      setPendingFocus(f.path || "/name");
    },
    [problems.of, tab, setSelection, setTab],
  );

  let form: React.ReactNode;
  if (selection.kind === "role") {
    const role = roleAt(doc, selection);
    form = role ? (
      <RoleEditor
        key={rolePointer(selection)}
        doc={doc}
        address={selection}
        role={role}
        edit={edit}
        route={routeOf(flow, selection, role.name)}
        onDelete={() => {
          edit(removeRoleAndReferences(doc, selection));
          setSelection({ kind: "stage", stage: selection.stage });
        }}
        onMove={(delta) => {
          const next = moveRole(doc, selection, delta);
          if (next !== doc) {
            edit(next);
            setSelection({ ...selection, index: selection.index + delta });
          }
        }}
        onSaveAsTemplate={props.onSaveRoleAsTemplate ? (name) => props.onSaveRoleAsTemplate?.(selection, name) : undefined}
      />
    ) : (
      <p className="muted">That role no longer exists.</p>
    );
  } else if (selection.kind === "stage" && doc.workflow[selection.stage]) {
    const stage = doc.workflow[selection.stage]!;
    form = (
      <StageEditor
        key={selection.stage}
        doc={doc}
        name={selection.stage}
        stage={stage}
        edit={edit}
        onRenamed={(name) => setSelection({ kind: "stage", stage: name })}
        onSelectRole={(index) => setSelection({ kind: "role", stage: selection.stage, index })}
        onAddRole={(template) => addRole(selection.stage, template)}
        onDelete={() => {
          edit(removeStage(doc, selection.stage));
          setSelection({ kind: "playbook" });
        }}
      />
    );
  } else {
    form = <PlaybookForm doc={doc} edit={edit} />;
  }

  return (
    <FindingsContext.Provider value={findings}>
      <QuickFixContext.Provider value={quickFixes}>
      <div className="editor">
        <MemoOutline
          docRef={docRef}
          structure={structure}
          ranks={ranks}
          selection={selection}
          setSelection={selectFromOutline}
          edit={edit}
          notify={notify}
        />
        <div className="editor-main">
          <LegacyNotice doc={doc} edit={edit} notify={notify} />
          <div className="tabs" role="tablist" aria-label="Editor views">
            {(["form", "flow", "source"] as Tab[]).map((t) => (
              <button key={t} type="button" role="tab" aria-selected={tab === t} data-tab={t} onClick={() => setTab(t)}>
                {t === "form" ? "Form" : t === "flow" ? "Flow graph" : "Source"}
              </button>
            ))}
          </div>
          <div className="tab-body">
            {tab === "form" && form}
            {tab === "flow" &&
              (flow ? (
                <Suspense fallback={<p className="muted">Loading the graph…</p>}>
                  <FlowGraph
                    flow={flow}
                    stale={!!checked && !checked.structurally_valid}
                    selected={selection.kind === "role" ? selection : null}
                    onSelectRole={(a) => {
                      setSelection({ kind: "role", ...a });
                      setTab("form");
                    }}
                  />
                </Suspense>
              ) : (
                <p className="muted">{checked && !checked.structurally_valid ? "The graph appears once the playbook has a valid structure." : "Drawing the graph…"}</p>
              ))}
            {tab === "source" && <SourceTab
                ref={source}
                doc={doc}
                checked={checked}
                onDoc={(d, typed, answer) => edit(d, "source", typed, answer)}
                broken={props.broken}
                brokenChecked={props.brokenChecked}
                onBroken={props.onBroken}
                onHeldChecked={props.onHeldChecked}
              />}
          </div>
        </div>
        <MemoProblems findings={problems.findings} of={problems.of} onActivate={activate} quickFixes={quickFixes} />
      </div>
      </QuickFixContext.Provider>
    </FindingsContext.Provider>
  );
}

/**
 * The routes of the role at `a` from the flow view, when the view is of the
 * current document (same role at the same place); otherwise none rather
 * than another role's.
 */
function routeOf(flow: FlowView | null, a: RoleAddress, name: string) {
  const node = flow?.nodes.find((n) => n.stage === a.stage && n.index === a.index && n.role === name);
  return node ? { on_pass: node.on_pass, on_fail: node.on_fail } : undefined;
}

/** The element for a pointer, or for the closest enclosing value that has one. */
export function focusTarget(pointer: string): HTMLElement | null {
  let p = pointer;
  for (;;) {
    const el = document.querySelector<HTMLElement>(`[data-pointer="${CSS.escape(p)}"]`);
    if (el) return el;
    const field = document.querySelector<HTMLElement>(`[data-field="${CSS.escape(p)}"] input, [data-field="${CSS.escape(p)}"] select, [data-field="${CSS.escape(p)}"] textarea`);
    if (field) return field;
    const cut = p.lastIndexOf("/");
    if (cut <= 0) return document.querySelector<HTMLElement>(".role-editor h2, .stage-editor h2, .playbook-form input");
    p = p.slice(0, cut);
  }
}

/** Worst severity per stage policy and per role pointer, as a string so memo can compare it. */
function outlineRanks(findings: Finding[]): string {
  const worst = new Map<string, string>();
  for (const f of findings) {
    const role = roleOfPointer(f.path);
    const stage = stageOfPointer(f.path);
    const key = role ? rolePointer(role) : stage && f.path.startsWith(stagePointer(stage) + "/stage_policy") ? stagePointer(stage) + "/stage_policy" : null;
    if (!key) continue;
    const rank = severityRank([f]);
    const before = worst.get(key);
    if (rank && (!before || (before !== "error" && (rank === "error" || (rank === "warning" && before === "info"))))) worst.set(key, rank);
  }
  return JSON.stringify([...worst.entries()].sort());
}

function PlaybookForm({ doc, edit }: { doc: Playbook; edit: (doc: Playbook, key?: string) => void }) {
  const set = <K extends keyof Playbook>(key: K, value: Playbook[K] | undefined) => edit(withField(doc, key, value), `/${String(key)}`);
  return (
    <article className="playbook-form" aria-label="Playbook">
      <h2>Playbook</h2>
      <Hints pointer="" nested={false} />
      <fieldset className="section">
        <legend>About</legend>
        <TextField label="Name" pointer="/name" value={doc.name} help="Shown in the library." onChange={(v) => edit({ ...doc, name: v }, "/name")} />
        <div className="field" data-field="/id">
          <label htmlFor="playbook-id">Id</label>
          <input id="playbook-id" type="text" data-pointer="/id" value={doc.id} readOnly />
          <p className="help">The playbook's id in the library. To copy it under another id, use Duplicate in the library.</p>
          <Hints pointer="/id" />
        </div>
        <TextField label="Description" pointer="/description" multiline value={doc.description ?? ""} help="What the playbook is for." onChange={(v) => set("description", v)} />
      </fieldset>
      <fieldset className="section">
        <legend>Run</legend>
        <ChipList
          label="Run inputs"
          pointer="/run_inputs"
          values={doc.run_inputs}
          help="Inputs the caller supplies to every run, beyond goal and task."
          onChange={(v) => set("run_inputs", v)}
        />
        <ChipList
          label="Mutating actions"
          pointer="/mutating_actions"
          values={doc.mutating_actions}
          help="Tools that change the workspace and need approval. Leave empty for the built-in list."
          onChange={(v) => set("mutating_actions", v && v.length ? v : undefined)}
        />
      </fieldset>
    </article>
  );
}
