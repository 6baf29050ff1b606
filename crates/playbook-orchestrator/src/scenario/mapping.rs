//! Mapping a scenario onto a playbook whose roles are named differently:
//! `worker=coder` makes the script keyed `worker` play role `coder`.
//!
//! The CLI's `preview --map old=new` and the app's mapping step both end
//! here, so a mapping means the same wherever it is given.

use playbook_core::Playbook;

use super::selector::{self, short};
use super::{Scenario, ScenarioError, scenario_error};

/// One `old=new` pair: the scenario's key and what it should address.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct RoleMapping {
    /// A key of the scenario's `roles`, e.g. `worker`.
    pub from: String,
    /// A role name or selector of the playbook, e.g. `coder`.
    pub to: String,
}

impl RoleMapping {
    /// Parses `old=new` as given to `--map`.
    pub fn parse(text: &str) -> Result<RoleMapping, String> {
        match text.split_once('=') {
            Some((from, to)) if !from.trim().is_empty() && !to.trim().is_empty() => {
                Ok(RoleMapping {
                    from: from.trim().to_string(),
                    to: to.trim().to_string(),
                })
            }
            _ => Err(format!(
                "`{}` is not a mapping: write OLD=NEW, e.g. `worker=coder` (the scenario's role, then the playbook's)",
                short(text)
            )),
        }
    }
}

impl Scenario {
    /// Re-keys the scenario's `roles` as `mappings` say, keeping their
    /// order. Fails when a mapping names a key the scenario lacks, a target
    /// that addresses no role of `playbook` (the refusal names the roles
    /// that could stand for the key instead), or when two scripts would end
    /// up under one key.
    pub fn map_roles(
        &mut self,
        mappings: &[RoleMapping],
        playbook: &Playbook,
    ) -> Result<(), ScenarioError> {
        let mut problems = Vec::new();
        for m in mappings {
            // The target is a role of the playbook (or a selector matching
            // one): a mapping onto nothing would only move the refusal onto
            // the target, and its advice would name the target as the key.
            if let Some(target) =
                selector::unmatched(std::iter::once(m.to.as_str()), playbook).pop()
            {
                let like = selector::candidates(&m.from, playbook);
                let instead = match like.first() {
                    Some(best) => format!(
                        "; roles that could play `{}`: {} (e.g. `{}={}`)",
                        short(&m.from),
                        like.iter()
                            .take(3)
                            .map(|c| short(c))
                            .collect::<Vec<_>>()
                            .join(", "),
                        short(&m.from),
                        short(best)
                    ),
                    None => format!(
                        "; map `{}` onto one of the playbook's role names",
                        short(&m.from)
                    ),
                };
                problems.push(format!(
                    "mapping `{}={}`: the target `{}` is not a role of the playbook: {}{instead}",
                    short(&m.from),
                    short(&m.to),
                    short(&m.to),
                    target.reason
                ));
            }
            if !self.roles.contains_key(&m.from) {
                let keys: Vec<&str> = self.roles.keys().map(String::as_str).take(5).collect();
                let more = self.roles.len().saturating_sub(keys.len());
                let more = if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                };
                problems.push(format!(
                    "mapping `{}={}`: the scenario scripts no role `{}` (its roles keys: {}{more})",
                    short(&m.from),
                    short(&m.to),
                    short(&m.from),
                    if keys.is_empty() {
                        "none".to_string()
                    } else {
                        keys.join(", ")
                    }
                ));
            }
        }
        let target = |key: &str| -> String {
            mappings
                .iter()
                .rev()
                .find(|m| m.from == key)
                .map_or_else(|| key.to_string(), |m| m.to.clone())
        };
        let mut roles = indexmap::IndexMap::with_capacity(self.roles.len());
        for (key, script) in std::mem::take(&mut self.roles) {
            let to = target(&key);
            if roles.contains_key(&to) {
                problems.push(format!(
                    "two scripts would both be keyed `{}` after mapping; map only one of them there",
                    short(&to)
                ));
                continue;
            }
            roles.insert(to, script);
        }
        self.roles = roles;
        match problems.is_empty() {
            true => Ok(()),
            false => Err(scenario_error(problems.join("; "))),
        }
    }
}
