// The scenario commands of the Rust side (src-tauri/src/scenarios.rs):
// live checks, YAML rendering of the form's scenario, and the playbook's own
// scenarios in the library.
import { call } from "../backend";
import type { Playbook } from "../generated/Playbook";
import type { ScenarioCheck } from "../generated/ScenarioCheck";
import type { StoredScenario } from "../generated/StoredScenario";
import type { Scenario } from "./model";

export const scenarioApi = {
  /** Every problem of the text, at its path and line, and the `roles` keys the playbook cannot resolve. */
  check: (document: Playbook | null, text: string) => call<ScenarioCheck>("scenario_check", { document, text }),
  render: (scenario: Scenario) => call<string>("scenario_render", { scenario }),
  list: (id: string) => call<StoredScenario[]>("scenario_list", { id }),
  save: (id: string, name: string, text: string) => call<StoredScenario>("scenario_save", { id, name, text }),
  remove: (id: string, name: string) => call<boolean>("scenario_delete", { id, name }),
};
