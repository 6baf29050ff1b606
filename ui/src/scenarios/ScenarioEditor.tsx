// The scenario editor: the same form-plus-source approach as the playbook
// editor. The text is what is saved; the form edits the last valid scenario
// and writes it back as YAML. Every change is checked by the Rust side
// against the open playbook, and each problem shows at its field (form) or
// its line (source).
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { messageOf } from "../backend";
import { LazyCodeEditor, type CodeEditorHandle, type EditorDiagnostic } from "../editor/LazyCodeEditor";
import type { Playbook } from "../generated/Playbook";
import type { ScenarioCheck } from "../generated/ScenarioCheck";
import type { ScenarioProblem } from "../generated/ScenarioProblem";
import type { StoredScenario } from "../generated/StoredScenario";
import { scenarioApi } from "./api";
import { type RoleScript, type Scenario, freshKey, renameKey, selectorSuggestions } from "./model";
import { ScriptForm } from "./ScriptForm";
import { ProblemList, problemsAt } from "./problems";

type Props = {
  doc: Playbook;
  /** The library playbook the scenarios are kept with; without one they can be tried but not saved. */
  playbookId: string | null;
  /** A scenario to start from (its name and text), e.g. a shipped one to adapt. */
  start: { name: string; text: string } | null;
  onSaved: (saved: StoredScenario) => void;
  onDeleted: (name: string) => void;
  onClose: () => void;
};

const MAX_TEXT = 4 * 1024 * 1024;

function tooLong(length: number): string {
  return `The text is ${length.toLocaleString()} characters; a scenario may be at most ${MAX_TEXT.toLocaleString()} bytes. The previous text is kept.`;
}

export function ScenarioEditor({ doc, playbookId, start, onSaved, onDeleted, onClose }: Props) {
  const [name, setName] = useState(start?.name ?? "");
  const [text, setText] = useState(start?.text ?? "");
  const [scenario, setScenario] = useState<Scenario>({});
  const [checked, setChecked] = useState<ScenarioCheck | null>(null);
  const [tab, setTab] = useState<"form" | "source">("form");
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [keyError, setKeyError] = useState<string | null>(null);
  const seq = useRef(0);
  const editor = useRef<CodeEditorHandle>(null);

  const check = useCallback(
    (next: string, fromForm: boolean) => {
      const mine = ++seq.current;
      scenarioApi
        .check(doc, next)
        .then((result) => {
          if (mine !== seq.current) return;
          setChecked(result);
          // A source edit that parses becomes the form's scenario; a form
          // edit already is.
          if (!fromForm && result.scenario) setScenario(result.scenario as Scenario);
        })
        .catch((e) => mine === seq.current && setError(messageOf(e)));
    },
    [doc],
  );

  // The starting text, and the text again whenever the playbook changes.
  const textRef = useRef(start?.text ?? "");
  const show = (next: string) => {
    textRef.current = next;
    setText(next);
  };
  useEffect(() => check(textRef.current, false), [check]);

  const editSource = (next: string) => {
    if (next.length > MAX_TEXT) {
      setError(tooLong(next.length));
      return;
    }
    setError(null);
    setStatus(null);
    show(next);
    check(next, false);
  };

  const editForm = (next: Scenario) => {
    setScenario(next);
    setStatus(null);
    const mine = ++seq.current;
    scenarioApi
      .render(next)
      .then((yaml) => {
        if (mine !== seq.current) return;
        show(yaml);
        check(yaml, true);
      })
      .catch((e) => mine === seq.current && setError(messageOf(e)));
  };

  const roles = scenario.roles ?? {};
  const suggestions = selectorSuggestions(doc);
  const problems = useMemo(() => checked?.problems ?? [], [checked]);
  const broken = checked !== null && !checked.scenario;
  // A scenario's problems are all errors: it runs only without any.
  const marks = useMemo<EditorDiagnostic[]>(
    () => problems.flatMap((p) => (p.location ? [{ line: p.location.line, column: p.location.column, severity: "error" as const, message: `${p.message} ${p.hint}` }] : [])),
    [problems],
  );

  const setRoles = (next: Record<string, RoleScript>) => editForm({ ...scenario, roles: next });
  const addScript = () => setRoles({ ...roles, [freshKey(roles, ["mode:worker", "mode:reviewer", "mode:tester", "mode:planner"])]: { default: {} } });
  const rename = (from: string, to: string) => {
    const next = renameKey(roles, from, to);
    if (!next) return setKeyError(`Another script is keyed \`${to}\`; a role selector is used once.`);
    setKeyError(null);
    setRoles(next);
  };
  const removeScript = (key: string) => {
    const next = { ...roles };
    delete next[key];
    setRoles(next);
  };

  const tasks = scenario.input?.tasks ?? [];
  const setInput = (field: string, value: unknown) => editForm({ ...scenario, input: { ...(scenario.input ?? {}), [field]: value } });

  const save = async () => {
    if (!playbookId) return;
    if (!name.trim()) return setError("Give the scenario a name before saving it.");
    try {
      const saved = await scenarioApi.save(playbookId, name.trim(), text);
      setError(null);
      setStatus(`Saved “${saved.name}” with the playbook.`);
      onSaved(saved);
    } catch (e) {
      setError(messageOf(e));
    }
  };

  const remove = async () => {
    if (!playbookId || !name.trim()) return;
    try {
      await scenarioApi.remove(playbookId, name.trim());
      setStatus(`Deleted “${name.trim()}”.`);
      onDeleted(name.trim());
    } catch (e) {
      setError(messageOf(e));
    }
  };

  // The editor loads on first use of the Source tab: wait for it a few frames.
  const goTo = (p: ScenarioProblem) => {
    const at = p.location;
    if (!at) return;
    setTab("source");
    let frames = 0;
    const attempt = () => {
      if (editor.current) editor.current.goTo(at.line, at.column);
      else if (++frames < 120) requestAnimationFrame(attempt);
    };
    requestAnimationFrame(attempt);
  };

  return (
    <section className="scenario-editor" aria-label="Scenario editor" data-testid="scenario-editor">
      <div className="preview-controls">
        <label className="inline">
          Name{" "}
          <input type="text" value={name} maxLength={100} onChange={(e) => setName(e.target.value)} data-testid="scenario-name" placeholder="e.g. reviewer fails once" />
        </label>
        <button type="button" className="primary" onClick={() => void save()} disabled={!playbookId || broken} data-testid="scenario-save" title={playbookId ? "Keep the scenario with this playbook in the library" : "Save the playbook in the library first"}>
          Save scenario
        </button>
        <button type="button" onClick={() => void remove()} disabled={!playbookId || !name.trim()} data-testid="scenario-delete">
          Delete
        </button>
        <button type="button" onClick={onClose} data-testid="scenario-close">
          Close
        </button>
        <span className={`status ${problems.length ? "status-error" : ""}`} data-testid="scenario-status" data-problems={problems.length}>
          {checked === null ? "Checking…" : problems.length === 0 ? "No problems" : `${problems.length} problem${problems.length === 1 ? "" : "s"}`}
        </span>
      </div>
      {status && (
        <p className="banner" role="status">
          {status}
        </p>
      )}
      {error && (
        <p className="banner banner-error" role="alert">
          {error}
        </p>
      )}
      <div className="tabs" role="tablist" aria-label="Scenario views">
        <button type="button" role="tab" aria-selected={tab === "form"} onClick={() => setTab("form")} data-scenario-tab="form">
          Form
        </button>
        <button type="button" role="tab" aria-selected={tab === "source"} onClick={() => setTab("source")} data-scenario-tab="source">
          Source
        </button>
      </div>
      {tab === "form" && broken && (
        <p className="banner banner-error" role="alert">
          The source is not a valid scenario yet; the form shows the last valid one until it is fixed.
        </p>
      )}
      {tab === "form" && (
        <div className="scenario-form">
          <ProblemList problems={problemsAt(problems, "", true)} onGo={goTo} />
          <div className="field">
            <label htmlFor="scenario-goal">Goal</label>
            <input id="scenario-goal" type="text" value={scenario.input?.goal ?? ""} onChange={(e) => setInput("goal", e.target.value)} data-testid="scenario-goal" />
            <p className="help">What the run works on. Without tasks, one task carries the goal and a planner&apos;s `tasks` output creates the rest.</p>
            <ProblemList problems={problemsAt(problems, "/input/goal")} onGo={goTo} />
          </div>
          <fieldset className="field">
            <legend>Tasks</legend>
            {tasks.map((task, i) => (
              <div key={i} className="inline-row">
                <input type="text" aria-label={`Task ${i + 1} id`} value={task.id ?? ""} placeholder={`T-${i + 1}`} style={{ width: 70 }} onChange={(e) => setInput("tasks", tasks.map((t, k) => (k === i ? { ...t, id: e.target.value || undefined } : t)))} />
                <input type="text" aria-label={`Task ${i + 1} title`} value={task.title} onChange={(e) => setInput("tasks", tasks.map((t, k) => (k === i ? { ...t, title: e.target.value } : t)))} data-testid="scenario-task-title" />
                <button type="button" className="link" onClick={() => setInput("tasks", tasks.filter((_, k) => k !== i))} aria-label={`Remove task ${i + 1}`}>
                  Remove
                </button>
                <ProblemList problems={problemsAt(problems, `/input/tasks/${i}`)} onGo={goTo} />
              </div>
            ))}
            <button type="button" onClick={() => setInput("tasks", [...tasks, { title: "" }])} data-testid="scenario-add-task">
              Add task
            </button>
          </fieldset>
          <fieldset className="field">
            <legend>Role scripts</legend>
            <p className="help">
              Key a script by a role name (<code>coder</code>), a position (<code>stage:build#2</code>, <code>mode:worker#1</code>) or a group (
              <code>mode:reviewer</code>, <code>stage:build</code>). A role plays its most precise key: name, then position, then group. Whatever a turn
              leaves out passes with values from the role&apos;s contract.
            </p>
            {keyError && (
              <p className="field-error" role="alert">
                {keyError}
              </p>
            )}
            <datalist id="scenario-selectors">
              {suggestions.map((s) => (
                <option key={s} value={s} />
              ))}
            </datalist>
            {Object.entries(roles).map(([key, script], i) => (
              <ScriptForm
                key={i}
                selector={key}
                script={script}
                problems={problems}
                onRename={(to) => rename(key, to)}
                onChange={(next) => setRoles({ ...roles, [key]: next })}
                onRemove={() => removeScript(key)}
                onGo={goTo}
              />
            ))}
            <button type="button" onClick={addScript} data-testid="scenario-add-script">
              Add role script
            </button>
          </fieldset>
        </div>
      )}
      {tab === "source" && (
        <div className="source">
          <LazyCodeEditor ref={editor} text={text} language="yaml" diagnostics={marks} onChange={editSource} label="Scenario source (YAML)" testId="scenario-source" maxLength={MAX_TEXT} onTooLong={(n) => setError(tooLong(n))} />
          <ProblemList problems={problems} onGo={goTo} showWhere />
        </div>
      )}
    </section>
  );
}
