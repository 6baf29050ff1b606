//! Tool permissions: `policy/role-permissions.json` and the overlays,
//! applied to a role's `actions_allowed` (docs/architecture-orchestrator.md,
//! "A real run: context and verification").
//!
//! ```json
//! {"roles": {"Executor": {"allow": ["read_file", "write_file"], "deny": ["git_commit"]}}}
//! ```
//!
//! The effective tools of a role are
//! `actions_allowed ∩ policy.allow − policy.deny − overlay.forbidden_actions
//! (∩ overlay.allowed_actions when given)`. Every step is an intersection or
//! a difference taken from `actions_allowed`, so the result is always a
//! subset of it: neither a policy nor an overlay can grant a tool the
//! playbook did not. A policy file that exists but does not name a role is
//! fail-closed: reading the bundle refuses the run
//! ([`super::ContextError::RoleNotInPolicy`]), and [`narrow`] gives such a
//! role no tools at all.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::overlay::Overlay;
use super::{Bundle, ContextError};

/// Repository path of the permissions policy.
pub const ROLE_PERMISSIONS: &str = "policy/role-permissions.json";

/// `policy/role-permissions.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    title = "Role permissions",
    description = "policy/role-permissions.json: the tools each role may call, intersected with the role's actions_allowed (docs/architecture-orchestrator.md). Keys starting with x_ are extensions and are ignored."
)]
pub struct RolePermissions {
    /// Role name (as in the playbook) → its rule. A role that runs must be
    /// named here.
    pub roles: IndexMap<String, RoleRule>,
}

/// The rule of one role.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RoleRule {
    /// Tools the role may call (`"*"`: any of its actions_allowed).
    /// Required, so that a rule that forgets it allows nothing rather than
    /// everything.
    pub allow: Vec<String>,
    /// Tools the role may never call, even when allowed (`"*"`: none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deny: Vec<String>,
}

impl RolePermissions {
    /// Reads the policy from its parsed JSON; `x_` keys are dropped first so
    /// extensions never trip the unknown-field check.
    pub fn from_value(mut value: Value) -> Result<RolePermissions, ContextError> {
        strip_extensions(&mut value);
        if let Some(Value::Object(roles)) = value.get_mut("roles") {
            roles.values_mut().for_each(strip_extensions);
        }
        let permissions: RolePermissions =
            serde_json::from_value(value).map_err(|e| ContextError::InvalidPolicy {
                path: ROLE_PERMISSIONS.into(),
                message: format!(
                    "{e}; the shape is {{\"roles\": {{\"<role>\": {{\"allow\": [\"read_file\"], \"deny\": []}}}}}} (schemas/role-permissions.schema.json)"
                ),
            })?;
        for (role, rule) in &permissions.roles {
            if let Some(bad) = rule
                .allow
                .iter()
                .chain(&rule.deny)
                .find(|t| t.trim().is_empty())
            {
                return Err(ContextError::InvalidPolicy {
                    path: ROLE_PERMISSIONS.into(),
                    message: format!("role `{role}` lists an empty tool name `{bad}`"),
                });
            }
        }
        Ok(permissions)
    }

    /// The rule for `role`: the exact name, else the one name equal ignoring
    /// case. `Err` lists the ambiguous names.
    pub fn rule(&self, role: &str) -> Result<Option<&RoleRule>, Vec<String>> {
        let found = super::match_name(role, self.roles.keys().map(String::as_str))?;
        Ok(found.and_then(|name| self.roles.get(name)))
    }
}

fn strip_extensions(value: &mut Value) {
    if let Value::Object(map) = value {
        map.retain(|k, _| !k.starts_with("x_"));
    }
}

/// The JSON Schema of `policy/role-permissions.json`.
pub fn role_permissions_schema() -> Value {
    let mut schema =
        serde_json::to_value(schemars::schema_for!(RolePermissions)).unwrap_or(Value::Null);
    let extensions = serde_json::json!({"^x_": {}});
    if let Value::Object(map) = &mut schema {
        map.insert(
            "$id".into(),
            "https://playbook.studio/schemas/role-permissions.schema.json".into(),
        );
        map.insert("patternProperties".into(), extensions.clone());
    }
    if let Some(Value::Object(rule)) = schema.pointer_mut("/$defs/RoleRule") {
        rule.insert("patternProperties".into(), extensions);
    }
    schema
}

/// What the policy says about a role.
#[derive(Debug, Clone, Copy)]
pub enum PolicyFor<'a> {
    /// No `policy/role-permissions.json`: `actions_allowed` alone governs.
    Absent,
    /// The policy exists but does not name the role: no tools (fail-closed).
    Unnamed,
    Rule(&'a RoleRule),
}

/// Why a tool of `actions_allowed` is not among the effective tools, or
/// why a widening was ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NarrowReason {
    /// The policy's `allow` does not list it.
    NotAllowedByPolicy,
    /// The policy's `deny` lists it.
    DeniedByPolicy,
    /// The policy does not name the role at all.
    RoleNotInPolicy,
    /// The overlay's `forbidden_actions` lists it.
    ForbiddenByOverlay,
    /// The overlay's `allowed_actions` does not list it.
    NotAllowedByOverlay,
    /// A policy or overlay allows a tool the role's `actions_allowed` does
    /// not: ignored, since they can only narrow.
    WideningIgnored,
}

/// One tool removed from (or refused to) a role, and by which file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Narrowing {
    pub tool: String,
    /// Repository path of the file that narrowed it.
    pub source: String,
    pub reason: NarrowReason,
}

/// The tools a role may call: `actions_allowed` narrowed by the policy
/// rule and the overlay (at `overlay_path`), in `actions_allowed` order
/// without duplicates, and every narrowing with its reason.
pub fn narrow(
    actions_allowed: &[String],
    policy: PolicyFor<'_>,
    overlay: Option<(&str, &Overlay)>,
) -> (Vec<String>, Vec<Narrowing>) {
    let mut tools: Vec<String> = Vec::new();
    let mut narrowed = Vec::new();
    let note = |narrowed: &mut Vec<Narrowing>, tool: &str, source: &str, reason| {
        narrowed.push(Narrowing {
            tool: tool.to_string(),
            source: source.to_string(),
            reason,
        })
    };
    let lists = |list: &[String], tool: &str| list.iter().any(|t| t == tool || t == "*");
    for tool in actions_allowed {
        if tools.contains(tool) {
            continue;
        }
        let refused = match policy {
            PolicyFor::Absent => None,
            PolicyFor::Unnamed => Some((ROLE_PERMISSIONS, NarrowReason::RoleNotInPolicy)),
            PolicyFor::Rule(rule) if lists(&rule.deny, tool) => {
                Some((ROLE_PERMISSIONS, NarrowReason::DeniedByPolicy))
            }
            PolicyFor::Rule(rule) if !lists(&rule.allow, tool) => {
                Some((ROLE_PERMISSIONS, NarrowReason::NotAllowedByPolicy))
            }
            PolicyFor::Rule(_) => None,
        }
        .or_else(|| {
            let (path, overlay) = overlay?;
            if lists(&overlay.forbidden_actions, tool) {
                Some((path, NarrowReason::ForbiddenByOverlay))
            } else if overlay
                .allowed_actions
                .as_ref()
                .is_some_and(|allowed| !lists(allowed, tool))
            {
                Some((path, NarrowReason::NotAllowedByOverlay))
            } else {
                None
            }
        });
        match refused {
            Some((source, reason)) => note(&mut narrowed, tool, source, reason),
            None => tools.push(tool.clone()),
        }
    }
    // Record attempts to widen, so the audit shows them; they change nothing.
    let mut widened: Vec<(&str, &String)> = Vec::new();
    if let PolicyFor::Rule(rule) = policy {
        widened.extend(rule.allow.iter().map(|t| (ROLE_PERMISSIONS, t)));
    }
    if let Some((path, overlay)) = overlay {
        widened.extend(overlay.allowed_actions.iter().flatten().map(|t| (path, t)));
    }
    for (source, tool) in widened {
        if tool != "*" && !actions_allowed.contains(tool) {
            note(&mut narrowed, tool, source, NarrowReason::WideningIgnored);
        }
    }
    (tools, narrowed)
}

/// The tools `role` may call in a run governed by `bundle`. See [`narrow`].
pub fn effective_tools(
    bundle: &Bundle,
    role: &str,
    actions_allowed: &[String],
) -> (Vec<String>, Vec<Narrowing>) {
    let policy = match &bundle.permissions {
        None => PolicyFor::Absent,
        // Ambiguous names were refused when the bundle was read; were one
        // to get here, the role gets nothing.
        Some(p) => match p.rule(role) {
            Ok(Some(rule)) => PolicyFor::Rule(rule),
            _ => PolicyFor::Unnamed,
        },
    };
    let overlay = bundle.overlay(role);
    narrow(actions_allowed, policy, overlay)
}
