// One role script of a scenario: its selector, its default turn and its
// per-iteration turns. A turn says only what differs from a passing answer:
// a verdict and issues, tool calls, an error, questions for a person.
import { useEffect, useState } from "react";
import type { ScenarioProblem } from "../generated/ScenarioProblem";
import { type RoleScript, type Turn, parseToolCalls, setOutput, setTurn, splitList, toolNames } from "./model";
import { ProblemList, pointerToken, problemsAt } from "./problems";

type Props = {
  selector: string;
  script: RoleScript;
  problems: ScenarioProblem[];
  onRename: (to: string) => void;
  onChange: (next: RoleScript) => void;
  onRemove: () => void;
  onGo: (p: ScenarioProblem) => void;
};

export function ScriptForm({ selector, script, problems, onRename, onChange, onRemove, onGo }: Props) {
  const base = `/roles/${pointerToken(selector)}`;
  // The key is applied on every keystroke, but typed text that would
  // collide with another script stays in the field until it is unique.
  const [typed, setTyped] = useState(selector);
  useEffect(() => setTyped(selector), [selector]);
  const iterations = script.iterations ?? [];
  return (
    <div className="scenario-script" data-testid="scenario-script" data-selector={selector}>
      <div className="inline-row">
        <label>
          Role selector{" "}
          <input
            type="text"
            list="scenario-selectors"
            value={typed}
            onChange={(e) => {
              setTyped(e.target.value);
              onRename(e.target.value);
            }}
            data-testid="script-selector"
          />
        </label>
        <button type="button" className="link" onClick={onRemove}>
          Remove script
        </button>
      </div>
      <ProblemList problems={problemsAt(problems, base, true)} onGo={onGo} />
      <TurnForm label="Every turn (default)" turn={script.default} path={`${base}/default`} problems={problems} onGo={onGo} onChange={(t) => onChange({ ...script, default: t })} testid="turn-default" />
      {iterations.map((turn, i) => (
        <div key={i} className="inline-row">
          <TurnForm
            label={`Iteration ${i + 1}`}
            turn={turn}
            path={`${base}/iterations/${i}`}
            problems={problems}
            onGo={onGo}
            onChange={(t) => onChange({ ...script, iterations: iterations.map((old, k) => (k === i ? t : old)) })}
            testid={`turn-iteration-${i + 1}`}
          />
          <button type="button" className="link" onClick={() => onChange({ ...script, iterations: iterations.filter((_, k) => k !== i) })}>
            Remove iteration {i + 1}
          </button>
        </div>
      ))}
      <button type="button" onClick={() => onChange({ ...script, iterations: [...iterations, {}] })} data-testid="script-add-iteration">
        Add iteration {iterations.length + 1}
      </button>
    </div>
  );
}

type TurnProps = {
  label: string;
  turn: Turn | undefined;
  path: string;
  problems: ScenarioProblem[];
  onGo: (p: ScenarioProblem) => void;
  onChange: (next: Turn) => void;
  testid: string;
};

function TurnForm({ label, turn, path, problems, onGo, onChange, testid }: TurnProps) {
  const verdict = typeof turn?.output?.verdict === "string" ? turn.output.verdict : "";
  const issues = Array.isArray(turn?.output?.issues) ? (turn.output.issues as unknown[]).map(String).join("\n") : "";
  // Lists are typed as text; the text is kept while it is typed so that a
  // trailing comma or newline does not vanish under the cursor.
  const [tools, setTools] = useSyncedText(toolNames(turn), byComma);
  const [issuesText, setIssuesText] = useSyncedText(issues, byLine);
  const [questions, setQuestions] = useSyncedText((turn?.needs_input ?? []).join("\n"), byLine);
  const [omit, setOmit] = useSyncedText((turn?.omit ?? []).join(", "), byComma);
  return (
    <fieldset className="scenario-turn" data-testid={testid}>
      <legend>{label}</legend>
      <label>
        Verdict{" "}
        <select value={verdict} onChange={(e) => onChange(setOutput(turn, "verdict", e.target.value || undefined))} data-testid="turn-verdict">
          <option value="">(from the contract: pass)</option>
          <option value="pass">pass</option>
          <option value="fail">fail</option>
        </select>
      </label>
      <label>
        Issues (one a line){" "}
        <textarea
          rows={2}
          value={issuesText}
          onChange={(e) => {
            setIssuesText(e.target.value);
            const list = splitList(e.target.value);
            onChange(setOutput(turn, "issues", list.length ? list : undefined));
          }}
          data-testid="turn-issues"
        />
      </label>
      <label>
        Tool calls (comma-separated){" "}
        <input
          type="text"
          value={tools}
          placeholder="read_file, edit_file"
          onChange={(e) => {
            setTools(e.target.value);
            onChange(setTurn(turn, "tool_calls", parseToolCalls(e.target.value, turn?.tool_calls)));
          }}
          data-testid="turn-tools"
        />
      </label>
      <label>
        Leave out output fields{" "}
        <input
          type="text"
          value={omit}
          placeholder="commit_sha"
          onChange={(e) => {
            setOmit(e.target.value);
            onChange(setTurn(turn, "omit", splitList(e.target.value, /,/)));
          }}
        />
      </label>
      <label>
        Fails with error{" "}
        <input type="text" value={turn?.error ?? ""} onChange={(e) => onChange(setTurn(turn, "error", e.target.value))} data-testid="turn-error" />
      </label>
      <label>
        Needs input (questions, one a line){" "}
        <textarea
          rows={2}
          value={questions}
          onChange={(e) => {
            setQuestions(e.target.value);
            onChange(setTurn(turn, "needs_input", splitList(e.target.value)));
          }}
        />
      </label>
      <ProblemList problems={problemsAt(problems, path)} onGo={onGo} />
    </fieldset>
  );
}

const byComma = (text: string) => splitList(text, /,/).join(", ");
const byLine = (text: string) => splitList(text).join("\n");

/**
 * The text of a list field: what was typed, until the list changes from
 * elsewhere (the Source tab, undo), which replaces it.
 */
function useSyncedText(canonical: string, normalize: (text: string) => string) {
  const [text, setText] = useState(canonical);
  useEffect(() => {
    setText((typed) => (normalize(typed) === canonical ? typed : canonical));
  }, [canonical, normalize]);
  return [text, setText] as const;
}
