// Run mode: the open playbook drives real agent processes on a repository
// the person chose, through the same runner as `playbook run`. The timeline
// and the approval dialog are the preview's; after the run, each task links
// to the branch its work is on and that branch's diff.
import { useEffect, useRef, useState } from "react";
import { backend, messageOf } from "../backend";
import type { AgentsFileChoice } from "../generated/AgentsFileChoice";
import type { ApprovalPrompt } from "../generated/ApprovalPrompt";
import type { Checked } from "../generated/Checked";
import type { EventRecord } from "../generated/EventRecord";
import type { Playbook } from "../generated/Playbook";
import type { RealRunResult } from "../generated/RealRunResult";
import type { RepoChoice } from "../generated/RepoChoice";
import { ApprovalDialog } from "../preview/ApprovalDialog";
import { Refusals } from "../preview/Refusals";
import { routeApproval } from "../preview/routeApproval";
import { Timeline } from "../preview/Timeline";
import { TimelinePicture } from "../preview/TimelinePicture";
import { agentSuggestions, describeRunError, remembered } from "./choices";
import { TaskBranches } from "./TaskBranches";

type Props = {
  doc: Playbook;
  checked: Checked | null;
  onShowProblems: () => void;
  /** The library playbook being edited and the version the edits started from: runs are recorded there. */
  library: { id: string; base: number } | null;
};

export function RunMode({ doc, checked, onShowProblems, library }: Props) {
  const [repo, setRepo] = useState<RepoChoice | null>(remembered.repo);
  const [agentsFile, setAgentsFile] = useState<AgentsFileChoice | null>(remembered.agentsFile);
  const [goal, setGoal] = useState(remembered.goal);
  const [agent, setAgent] = useState(remembered.agent);
  const [events, setEvents] = useState<EventRecord[]>([]);
  const [result, setResult] = useState<RealRunResult | null>(null);
  const [running, setRunning] = useState(false);
  const [stopping, setStopping] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [asking, setAsking] = useState<ApprovalPrompt[]>([]);
  const buffer = useRef<EventRecord[]>([]);
  const approveRest = useRef(false);

  // What was chosen survives leaving Run mode and coming back.
  useEffect(() => {
    Object.assign(remembered, { repo, agentsFile, goal, agent });
  }, [repo, agentsFile, goal, agent]);

  // A real run never goes on unseen: leaving Run mode stops it and denies
  // what waits for an answer.
  const shown = useRef(true);
  const live = useRef(false);
  useEffect(() => {
    shown.current = true;
    return () => {
      shown.current = false;
      if (live.current) void backend.stopRun().catch(() => undefined);
    };
  }, []);

  const errors = checked?.findings.filter((f) => f.severity === "error").length ?? 0;
  const blocked = !checked || !checked.allow;

  const chooseRepo = async () => {
    try {
      const chosen = await backend.chooseRepository();
      if (chosen) {
        setRepo(chosen);
        setError(null);
      }
    } catch (e) {
      setError(describeRunError(e));
    }
  };

  const chooseAgents = async () => {
    try {
      const chosen = await backend.chooseAgentsFile();
      if (chosen) {
        setAgentsFile(chosen);
        if (!agent.trim() && chosen.agents[0]) setAgent(chosen.agents[0]);
        setError(null);
      }
    } catch (e) {
      setError(describeRunError(e));
    }
  };

  const answer = (prompt: ApprovalPrompt, approved: boolean) => {
    setAsking((queue) => queue.filter((p) => p.id !== prompt.id));
    backend.answerApproval(prompt.id, approved).catch((e) => setError(`Could not answer the approval: ${messageOf(e)}`));
  };

  const run = async () => {
    if (!repo) return setError("Choose the repository to run on first.");
    if (!goal.trim()) return setError("Write the run's goal: what the agents are to achieve.");
    setError(null);
    setResult(null);
    setEvents([]);
    buffer.current = [];
    approveRest.current = false;
    setRunning(true);
    setStopping(false);
    live.current = true;
    const unlistenEvents = await backend.onRunEvent((record) => {
      buffer.current.push(record);
      setEvents([...buffer.current]);
    });
    const unlistenApprovals = await backend.onApprovalRequest((prompt) =>
      routeApproval(prompt, { shown: shown.current, approveRest: approveRest.current }, (p) => setAsking((queue) => [...queue, p])),
    );
    try {
      const finished = await backend.startRun(doc, {
        repository: repo.id,
        goal,
        agent,
        agents_file: agentsFile?.id,
        playbook: library?.id,
        base: library?.base,
      });
      setResult(finished);
      if (finished.record_error) setError(`The run was not recorded in the library: ${finished.record_error}`);
    } catch (e) {
      setError(describeRunError(e));
    } finally {
      live.current = false;
      unlistenEvents();
      unlistenApprovals();
      setAsking([]);
      setRunning(false);
      setStopping(false);
    }
  };

  const stop = () => {
    setStopping(true);
    approveRest.current = false;
    setAsking([]);
    backend.stopRun().catch((e) => setError(`Could not stop the run: ${messageOf(e)}`));
  };

  const finished = events.find((r) => r.type === "run_finished");
  const outcome = result?.outcome ?? (finished?.type === "run_finished" ? finished.outcome : undefined);
  const suggestions = agentSuggestions(agentsFile);

  return (
    <section className="preview run-mode" aria-label="Run">
      <h1>Run on a repository</h1>
      <p className="muted">
        Real agent processes work on the repository, each task on its own branch in its own worktree; your checkout is never
        changed. Every tool call goes through the playbook's contracts.
      </p>
      <div className="run-form">
        <div className="run-field">
          <button type="button" onClick={() => void chooseRepo()} disabled={running} data-testid="choose-repo">
            Choose repository…
          </button>
          {repo ? (
            <span data-testid="repo-path">
              <code>{repo.path}</code> at <code>{repo.commit}</code>
              {repo.branch ? ` on ${repo.branch}` : " (detached)"}
            </span>
          ) : (
            <span className="muted">No repository chosen.</span>
          )}
          {repo?.dirty && (
            <span className="status status-error" data-testid="repo-dirty">
              It has uncommitted changes: commit or stash them, or the run is refused.
            </span>
          )}
        </div>
        <label className="run-field">
          Goal
          <textarea
            value={goal}
            onChange={(e) => setGoal(e.target.value.slice(0, 10000))}
            rows={2}
            placeholder="What the agents are to achieve, e.g. Fix the failing date parser test"
            data-testid="goal"
          />
        </label>
        <div className="run-field">
          <label className="inline">
            Agent{" "}
            <input
              type="text"
              list="agent-names"
              value={agent}
              onChange={(e) => setAgent(e.target.value.slice(0, 64))}
              placeholder="each role's allowed_agents"
              data-testid="agent"
            />
          </label>
          <datalist id="agent-names">
            {suggestions.map((name) => (
              <option key={name} value={name} />
            ))}
          </datalist>
          <button type="button" onClick={() => void chooseAgents()} disabled={running} data-testid="choose-agents">
            Agents file…
          </button>
          {agentsFile && (
            <span data-testid="agents-path">
              <code>{agentsFile.path}</code> ({agentsFile.agents.join(", ")}){" "}
              <button type="button" className="link" onClick={() => setAgentsFile(null)} disabled={running}>
                clear
              </button>
            </span>
          )}
        </div>
        <div className="preview-controls">
          <button type="button" className="primary" onClick={() => void run()} disabled={blocked || running || !repo} data-testid="run-start">
            {running ? "Running…" : "Run"}
          </button>
          {running && (
            <button type="button" onClick={stop} disabled={stopping} title="Stop the run; its worktrees are kept" data-testid="run-stop">
              {stopping ? "Stopping…" : "Stop"}
            </button>
          )}
          {running && <span className="muted small">Leaving Run mode stops the run.</span>}
          {blocked && checked && (
            <span className="status status-error">
              Run blocked by {errors} error{errors === 1 ? "" : "s"}{" "}
              <button type="button" className="link" onClick={onShowProblems}>
                show problems
              </button>
            </span>
          )}
        </div>
      </div>
      {error && (
        <p className="banner banner-error" role="alert" data-testid="run-error">
          {error}
        </p>
      )}
      {asking[0] && (
        <ApprovalDialog
          prompt={asking[0]}
          waiting={asking.length - 1}
          onAnswer={(approved) => answer(asking[0], approved)}
          onApproveRest={() => {
            approveRest.current = true;
            asking.forEach((p) => answer(p, true));
          }}
        />
      )}
      {outcome && (
        <div className="preview-summary">
          <span className={`badge ${outcome === "passed" ? "badge-ok" : "badge-error"}`} data-testid="run-outcome" data-outcome={outcome}>
            {outcome}
          </span>
          <Refusals events={events} />
          {result && (
            <span className="muted" data-testid="run-dir">
              Log: <code>{result.run_dir}</code>
            </span>
          )}
        </div>
      )}
      {result && result.absent.length > 0 && (
        <p className="muted small" data-testid="context-absent">
          The repository has no {result.absent.join(", ")}: the playbook's contracts alone governed this run.
        </p>
      )}
      {result && <TaskBranches result={result} />}
      {(running || events.length > 0) && <h2>Timeline ({events.length})</h2>}
      <TimelinePicture events={events} />
      <Timeline events={events} />
    </section>
  );
}
