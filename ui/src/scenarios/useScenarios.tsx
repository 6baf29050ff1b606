// What the Preview needs for scenarios beyond the shipped ones: the open
// playbook's own scenarios in the picker, the scenario editor, and the
// mapping step that runs before a scenario whose roles the playbook lacks.
import { useCallback, useEffect, useState } from "react";
import "./scenarios.css";
import { messageOf } from "../backend";
import type { Playbook } from "../generated/Playbook";
import type { RoleMapping } from "../generated/RoleMapping";
import type { ScenarioInfo } from "../generated/ScenarioInfo";
import type { StoredScenario } from "../generated/StoredScenario";
import type { Unmatched } from "../generated/Unmatched";
import { scenarioApi } from "./api";
import { MappingStep } from "./MappingStep";
import { roleNames } from "./model";
import { ScenarioEditor } from "./ScenarioEditor";

/** The picker's value for a scenario kept with the playbook. */
export const OWN_PREFIX = "own:";

export type ScenarioOption = { id: string; label: string; description: string; source: string; own: boolean };

/** What the preview request says about the scenario. */
export type ScenarioPlan = { scenario: string; scenario_source?: string; mapping?: RoleMapping[] };

export function useScenarios(doc: Playbook, playbookId: string | null, shipped: ScenarioInfo[]) {
  const [own, setOwn] = useState<StoredScenario[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<{ name: string; text: string } | null | "closed">("closed");
  const [mapping, setMapping] = useState<{ id: string; label: string; unmatched: Unmatched[] } | null>(null);

  const load = useCallback(() => {
    if (!playbookId) return setOwn([]);
    scenarioApi
      .list(playbookId)
      .then(setOwn)
      .catch((e) => setError(`Could not load the playbook's scenarios: ${messageOf(e)}`));
  }, [playbookId]);
  useEffect(load, [load]);

  const options: ScenarioOption[] = [
    ...shipped.map((s) => ({ id: s.id, label: s.id, description: s.description, source: s.source, own: false })),
    ...own.map((s) => ({ id: `${OWN_PREFIX}${s.name}`, label: `${s.name} (this playbook)`, description: "Kept with this playbook in the library.", source: s.content, own: true })),
  ];

  /**
   * The request's scenario fields, or null when the run must wait: the
   * mapping step is shown first when the scenario names roles the playbook
   * lacks (and no mapping was given).
   */
  const prepare = async (id: string, given?: RoleMapping[]): Promise<ScenarioPlan | null> => {
    const option = options.find((o) => o.id === id);
    if (!option) return null;
    const base: ScenarioPlan = option.own ? { scenario: option.label, scenario_source: option.source } : { scenario: option.id };
    if (given) return { ...base, mapping: given };
    const checked = await scenarioApi.check(doc, option.source);
    if (checked.unmatched.length > 0) {
      setMapping({ id, label: option.label, unmatched: checked.unmatched });
      return null;
    }
    return base;
  };

  const selected = (id: string) => options.find((o) => o.id === id);

  /** The editor, the mapping step and their errors, rendered under the preview's controls. */
  const panel = (current: string, onRunMapped: (id: string, mapping: RoleMapping[]) => void, onPick: (id: string) => void) => (
    <>
      <div className="inline-row">
        <button type="button" onClick={() => setEditing(null)} data-testid="scenario-new">
          New scenario…
        </button>
        <button
          type="button"
          onClick={() => {
            const option = selected(current);
            if (option) setEditing({ name: option.own ? option.id.slice(OWN_PREFIX.length) : `${option.id} (copy)`, text: option.source });
          }}
          disabled={!selected(current)}
          data-testid="scenario-edit"
          title="Edit the chosen scenario; a shipped one is copied into this playbook's scenarios when saved"
        >
          Edit scenario…
        </button>
      </div>
      {error && (
        <p className="banner banner-error" role="alert">
          {error}
        </p>
      )}
      {mapping && (
        <MappingStep
          key={mapping.id}
          scenario={mapping.label}
          unmatched={mapping.unmatched}
          roles={roleNames(doc)}
          onCancel={() => setMapping(null)}
          onRun={(m) => {
            const id = mapping.id;
            setMapping(null);
            onRunMapped(id, m);
          }}
        />
      )}
      {editing !== "closed" && (
        <ScenarioEditor
          key={editing?.name ?? "new"}
          doc={doc}
          playbookId={playbookId}
          start={editing}
          onClose={() => setEditing("closed")}
          onSaved={(saved) => {
            load();
            onPick(`${OWN_PREFIX}${saved.name}`);
          }}
          onDeleted={() => load()}
        />
      )}
    </>
  );

  return { options, prepare, panel };
}
