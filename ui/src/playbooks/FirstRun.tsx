// The first-run view: what a role contract is, and one click to open the
// TDD example and look at a real one.
import type { Example } from "../generated/Example";

type Props = {
  examples: Example[];
  /** Opens the library's unchanged copy of the example, or makes one when there is none. */
  onOpenExample: (example: Example) => void;
  /** Always makes a new copy, for someone who wants to start over from the example. */
  onNewCopy: (example: Example) => void;
  onBlank: () => void;
  onLibrary?: () => void;
};

const PARTS: [string, string, string][] = [
  ["Intent", "mode, responsibilities, allowed agents", "Who the role is: a planner, worker, reviewer or tester, and which agents may play it."],
  ["Inputs", "inputs_required", "What must exist before the role acts, e.g. a reviewer needs spec_path and commit_sha."],
  ["Execution", "actions_allowed", "The tools it may call. Anything else is denied before it runs; mutating tools can require approval."],
  ["Output", "outputs_contract", "The structured result it must hand back, e.g. a review_result with a verdict and issues."],
  ["Control", "gates, handoff_to, retry_policy, completion_criteria", "When the work passes, who gets it next, and how many fix/review rounds run before a human is called."],
];

export function FirstRun({ examples, onOpenExample, onNewCopy, onBlank, onLibrary }: Props) {
  const tdd = examples.find((e) => e.id === "tdd") ?? examples[0];
  return (
    <section className="first-run" aria-label="Welcome">
      <h1>Welcome to Playbook Studio</h1>
      <p className="lead">
        A playbook describes how a team of AI coding agents works: stages (plan, build, test), the roles in each stage,
        and a <strong>role contract</strong> for every role that a program checks before anything runs.
      </p>
      <div className="first-run-actions">
        {tdd && (
          <>
            <button
              type="button"
              className="primary"
              data-testid="open-tdd"
              title="Opens the library's copy of the example; a copy you have edited is kept, and a fresh one is added"
              onClick={() => onOpenExample(tdd)}
            >
              Open the {tdd.name} example
            </button>
            <button type="button" data-testid="copy-tdd" title="Adds another copy of the example to the library, to start over" onClick={() => onNewCopy(tdd)}>
              New copy of it
            </button>
          </>
        )}
        <button type="button" onClick={onBlank}>
          Start a blank playbook
        </button>
        {onLibrary && (
          <button type="button" onClick={onLibrary}>
            Go to the library
          </button>
        )}
      </div>
      <h2>The five parts of a role contract</h2>
      <ol className="contract-parts">
        {PARTS.map(([title, fields, text]) => (
          <li key={title}>
            <h3>{title}</h3>
            <code>{fields}</code>
            <p>{text}</p>
          </li>
        ))}
      </ol>
      <p>
        While you edit, every problem appears next to its field and in the Problems panel; errors block a run until they are
        fixed. The flow graph shows handoffs and review loops with their retry bound.
      </p>
      {examples.length > 1 && (
        <>
          <h2>More examples</h2>
          <ul className="examples">
            {examples.map((e) => (
              <li key={e.id}>
                <button type="button" className="link" data-example={e.id} onClick={() => onOpenExample(e)}>
                  {e.name}
                </button>
                {e.description && <span className="muted"> — {e.description}</span>}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
