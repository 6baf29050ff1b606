//! The part of the playbook schema a typed reading does not already prove.
//!
//! When `document::typed` reads a value by itself, every type, required
//! field and enum of the schema holds (the reader gives up on anything
//! else). What the schema checks beyond that is a handful of values: the
//! id's and the version's patterns, three lengths and two maximums. Checking
//! those on the typed playbook, each with the very subschema the full
//! validator uses, answers "is the document schema-valid?" without walking
//! the whole value a second time (a sixth of validating a parsed 500-role
//! playbook). A document that fails here still gets the full validator, for
//! its findings; a test checks that every constraint of the generated schema
//! is one of these, so a new one cannot be skipped silently.

use std::sync::LazyLock;

use serde_json::Value;

use crate::model::Playbook;

/// Where each checked subschema sits in the generated playbook schema.
pub(crate) const CHECKED: [&str; 6] = [
    "/properties/id",
    "/properties/name",
    "/properties/schema_version",
    "/$defs/Role/properties/name",
    "/$defs/RetryPolicy/properties/max_iterations",
    "/$defs/StagePolicy/properties/max_parallel_worktrees",
];

/// The subschemas of [`CHECKED`], compiled, in that order.
struct Checks([jsonschema::Validator; 6]);

/// `None` when a subschema is missing or does not compile: then no document
/// skips the full validator.
static CHECKS: LazyLock<Option<Checks>> = LazyLock::new(|| {
    let schema = super::generate::<Playbook>("playbook.schema.json");
    let draft = schema.get("$schema").cloned();
    let compile = |pointer: &str| {
        let mut part = schema.pointer(pointer)?.clone();
        // The subschema is read under the whole schema's draft.
        if let (Some(object), Some(draft)) = (part.as_object_mut(), draft.clone()) {
            object.insert("$schema".into(), draft);
        }
        jsonschema::options().build(&part).ok()
    };
    let mut built = Vec::with_capacity(CHECKED.len());
    for pointer in CHECKED {
        built.push(compile(pointer)?);
    }
    built.try_into().ok().map(Checks)
});

/// Whether a playbook read by `document::typed` satisfies the rest of the
/// schema, so that the full validator would find nothing.
pub(crate) fn holds(playbook: &Playbook) -> bool {
    let Some(Checks([id, name, version, role_name, iterations, parallel])) = &*CHECKS else {
        return false;
    };
    // One string value, refilled for each text: the validators read a
    // `Value`, and a copy per role name would cost what is saved here.
    let mut scratch = Value::String(String::new());
    let mut text = |validator: &jsonschema::Validator, text: &str| {
        if let Value::String(held) = &mut scratch {
            held.clear();
            held.push_str(text);
        }
        validator.is_valid(&scratch)
    };
    let count = |validator: &jsonschema::Validator, n: u32| validator.is_valid(&Value::from(n));
    if !(text(id, &playbook.id)
        && text(name, &playbook.name)
        && playbook
            .schema_version
            .as_deref()
            .is_none_or(|v| text(version, v)))
    {
        return false;
    }
    for stage in playbook.workflow.values() {
        let parallel_ok = stage
            .stage_policy
            .as_ref()
            .and_then(|p| p.max_parallel_worktrees)
            .is_none_or(|n| count(parallel, n));
        if !parallel_ok {
            return false;
        }
        for role in stage.roles() {
            if !text(role_name, &role.name)
                || !role.max_iterations().is_none_or(|n| count(iterations, n))
            {
                return false;
            }
        }
    }
    true
}
