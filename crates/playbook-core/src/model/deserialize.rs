//! `Deserialize` for the model's objects, which keep unknown keys in `extra`.
//!
//! Why not `#[serde(flatten)]`: serde's derive buffers every entry of an
//! object with a flattened map into its own intermediate tree, copying each
//! string and nested value once more before building the fields from it. On
//! a 500-role playbook that doubled the time from checked value to typed
//! model, which the editor pays on every keystroke. These visitors read each
//! entry once: a known key goes straight into its field, any other key (and
//! its value) moves into `extra`, in document order.
//!
//! What they accept is what the derive accepted: a map; required fields
//! must be present; optional fields may be absent or `null`; a known field
//! given twice is an error; an unknown key given twice keeps the last value
//! in the first one's place. The serialised form is still derived, and
//! `#[serde(...)]` attributes on the model still describe the format to the
//! JSON Schema and TypeScript generators.

use std::fmt;

use serde::de::{Deserialize, Deserializer, Error, MapAccess, Visitor};

use super::{Extra, Gates, OutputsContract, Playbook, RetryPolicy, Role, Stage, StagePolicy};

/// Implements `Deserialize` for a model object from its fields: `required`
/// fields have no default, `optional` ones are `Option`s; every other key
/// goes to `extra`.
macro_rules! deserialize_keeping_extra {
    (
        $ty:ident, $expecting:literal,
        required { $($req:ident: $req_key:literal),* $(,)? },
        optional { $($opt:ident: $opt_key:literal),* $(,)? } $(,)?
    ) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct ObjectVisitor;

                impl<'de> Visitor<'de> for ObjectVisitor {
                    type Value = $ty;

                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str($expecting)
                    }

                    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<$ty, A::Error> {
                        $(let mut $req = None;)*
                        $(let mut $opt = None;)*
                        let mut extra = Extra::new();
                        while let Some(key) = map.next_key::<String>()? {
                            match key.as_str() {
                                $($req_key => {
                                    if $req.is_some() {
                                        return Err(A::Error::duplicate_field($req_key));
                                    }
                                    $req = Some(map.next_value()?);
                                })*
                                $($opt_key => {
                                    if $opt.is_some() {
                                        return Err(A::Error::duplicate_field($opt_key));
                                    }
                                    $opt = Some(map.next_value()?);
                                })*
                                _ => {
                                    let value = map.next_value()?;
                                    extra.insert(key, value);
                                }
                            }
                        }
                        Ok($ty {
                            $($req: $req.ok_or_else(|| A::Error::missing_field($req_key))?,)*
                            // Present-but-null reads as absent, like `Option`'s own impl.
                            $($opt: $opt.unwrap_or(None),)*
                            extra,
                        })
                    }
                }

                deserializer.deserialize_map(ObjectVisitor)
            }
        }
    };
}

deserialize_keeping_extra!(
    Playbook,
    "a playbook (a mapping with id, name and workflow)",
    required {
        id: "id",
        name: "name",
        workflow: "workflow"
    },
    optional {
        schema: "$schema",
        schema_version: "schema_version",
        description: "description",
        phases: "phases",
        policies: "policies",
        run_inputs: "run_inputs",
        mutating_actions: "mutating_actions",
    },
);

deserialize_keeping_extra!(
    Stage,
    "a stage (a mapping)",
    required {},
    optional {
        enabled: "enabled",
        roles: "roles",
        stage_policy: "stage_policy"
    },
);

deserialize_keeping_extra!(
    StagePolicy,
    "a stage policy (a mapping)",
    required {},
    optional {
        enter_gate: "enter_gate",
        exit_gate: "exit_gate",
        max_parallel_worktrees: "max_parallel_worktrees",
    },
);

deserialize_keeping_extra!(
    Role,
    "a role (a mapping with a name)",
    required { name: "name" },
    optional {
        responsibilities: "responsibilities",
        allowed_agents: "allowed_agents",
        suggested_prompt: "suggested_prompt",
        mode: "mode",
        inputs_required: "inputs_required",
        outputs_contract: "outputs_contract",
        actions_allowed: "actions_allowed",
        gates: "gates",
        handoff_to: "handoff_to",
        retry_policy: "retry_policy",
        completion_criteria: "completion_criteria",
    },
);

deserialize_keeping_extra!(
    OutputsContract,
    "an outputs contract (a mapping)",
    required {},
    optional {
        kind: "type",
        required: "required"
    },
);

deserialize_keeping_extra!(
    Gates,
    "gates (a mapping)",
    required {},
    optional {
        requires_user_approval: "requires_user_approval",
        pass_condition: "pass_condition"
    },
);

deserialize_keeping_extra!(
    RetryPolicy,
    "a retry policy (a mapping)",
    required {},
    optional {
        max_iterations: "max_iterations",
        escalate_on: "escalate_on"
    },
);

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    /// Every field of every object set, and an unknown key beside them.
    fn full() -> Value {
        json!({
            "$schema": "https://example.test/playbook.json",
            "schema_version": "1.0.0",
            "id": "full",
            "name": "Full",
            "description": "every field",
            "phases": [{"name": "old"}],
            "policies": {"ok": "verdict == 'pass'"},
            "run_inputs": ["ticket"],
            "mutating_actions": ["bash"],
            "x_top": 1,
            "workflow": {
                "build": {
                    "enabled": true,
                    "x_stage": [1, 2],
                    "stage_policy": {
                        "enter_gate": "always",
                        "exit_gate": "ok",
                        "max_parallel_worktrees": 2,
                        "x_policy": "p"
                    },
                    "roles": [{
                        "name": "worker",
                        "responsibilities": "work",
                        "allowed_agents": ["codex"],
                        "suggested_prompt": "do {task}",
                        "mode": "worker",
                        "inputs_required": ["task"],
                        "outputs_contract": {"type": "work", "required": ["sha"], "x_out": true},
                        "actions_allowed": ["bash"],
                        "gates": {"requires_user_approval": true, "pass_condition": "ok", "x_gate": null},
                        "handoff_to": [],
                        "retry_policy": {"max_iterations": 3, "escalate_on": ["retry_limit"], "x_retry": {}},
                        "completion_criteria": ["done"],
                        "x_role": "r"
                    }]
                }
            }
        })
    }

    #[test]
    fn every_field_is_read_and_written_back_unchanged() {
        let value = full();
        let playbook: Playbook = serde_json::from_value(value.clone()).unwrap();
        // Each known key landed in its field: none is left over in `extra`.
        assert_eq!(playbook.extra.keys().collect::<Vec<_>>(), ["x_top"]);
        let stage = &playbook.workflow["build"];
        assert_eq!(stage.extra.keys().collect::<Vec<_>>(), ["x_stage"]);
        let policy = stage.stage_policy.as_ref().unwrap();
        assert_eq!(policy.extra.keys().collect::<Vec<_>>(), ["x_policy"]);
        let role = &stage.roles()[0];
        assert_eq!(role.extra.keys().collect::<Vec<_>>(), ["x_role"]);
        assert_eq!(role.output_type(), Some("work"));
        assert_eq!(
            role.gates.as_ref().unwrap().extra.get("x_gate"),
            Some(&Value::Null)
        );
        assert_eq!(serde_json::to_value(&playbook).unwrap(), value);
        // The same from text, through a borrowing deserializer.
        let from_text: Playbook = serde_json::from_str(&value.to_string()).unwrap();
        assert_eq!(from_text, playbook);
    }

    #[test]
    fn null_reads_as_absent_and_unknown_keys_keep_their_order() {
        let playbook: Playbook = serde_json::from_value(json!({
            "z_b": 1, "id": "p", "description": null, "a_a": 2, "name": "P",
            "workflow": {"s": {"roles": null, "stage_policy": null}}
        }))
        .unwrap();
        assert_eq!(playbook.description, None);
        assert_eq!(playbook.workflow["s"].roles, None);
        assert_eq!(playbook.extra.keys().collect::<Vec<_>>(), ["z_b", "a_a"]);
    }

    #[test]
    fn what_the_derive_refused_is_still_refused() {
        let error = |text: &str| {
            serde_json::from_str::<Playbook>(text)
                .unwrap_err()
                .to_string()
        };
        assert!(error(r#"{"name": "P", "workflow": {}}"#).contains("missing field `id`"));
        assert!(
            error(r#"{"id": "a", "id": "b", "name": "P", "workflow": {}}"#)
                .contains("duplicate field `id`")
        );
        assert!(error(r#"["id"]"#).contains("expected a playbook"));
        assert!(
            error(
                r#"{"id": "a", "name": "P", "workflow": {"s": {"roles": [{"mode": "worker"}]}}}"#
            )
            .contains("missing field `name`")
        );
        assert!(
            error(r#"{"id": "a", "name": "P", "workflow": {"s": {"roles": [{"name": "r", "mode": "boss"}]}}}"#)
                .contains("unknown variant `boss`")
        );
        assert!(
            error(r#"{"id": 1, "name": "P", "workflow": {}}"#)
                .contains("invalid type: integer `1`")
        );
    }
}
