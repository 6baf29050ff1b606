// The refusals of a run, in its summary (preview and real runs alike).
import type { EventRecord } from "../generated/EventRecord";
import { refusals } from "./refusals";

export function Refusals({ events }: { events: EventRecord[] }) {
  const list = refusals(events);
  if (list.length === 0) return null;
  return (
    <details className="refusals" data-testid="refusals">
      <summary>
        {list.length} refused by the contract: {list.length === 1 ? "it" : "they"} did not happen
      </summary>
      <ul>
        {list.map((r, i) => (
          <li key={i}>
            {r.task}: {r.what} — <code>{r.code}</code>
          </li>
        ))}
      </ul>
    </details>
  );
}
