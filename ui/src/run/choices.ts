// What Run mode offers and remembers, and how its errors read.
import { BackendError, messageOf } from "../backend";
import type { AgentsFileChoice } from "../generated/AgentsFileChoice";
import type { RepoChoice } from "../generated/RepoChoice";

/** The agent definitions every run has without an agents file (docs/agents.md). */
export const BUILT_IN_AGENTS = ["claude-code", "codex", "gemini", "command"] as const;

/** The choices of Run mode, kept while the window is open. */
export const remembered: {
  repo: RepoChoice | null;
  agentsFile: AgentsFileChoice | null;
  goal: string;
  agent: string;
} = { repo: null, agentsFile: null, goal: "", agent: "" };

/** The agents file's names first, then the built-in ones, each once. */
export function agentSuggestions(file: AgentsFileChoice | null): string[] {
  return [...new Set([...(file?.agents ?? []), ...BUILT_IN_AGENTS])];
}

/** A failed run or choice, in words that say what to do. */
export function describeRunError(e: unknown): string {
  if (!(e instanceof BackendError)) return messageOf(e);
  switch (e.code) {
    case "repository":
      return `The repository cannot be used: ${e.message}`;
    case "agent":
      return `No agent could start: ${e.message}`;
    case "blocked":
      return `Run blocked: ${e.message}`;
    case "busy":
      return `Not started: ${e.message}`;
    default:
      return e.message;
  }
}
