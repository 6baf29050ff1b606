//! The checks of a model's values, as it is read: each value alone (ranges,
//! keys, the cost unit), each entry's outcomes together, and the model
//! against the playbooks it will simulate (role keys, sums after layering).
//!
//! The published schema (`schema.rs`) states every rule a JSON Schema can
//! state, so an editor flags what this refuses; what it cannot state is
//! checked only here: a sum of outcomes above 1 (per entry and after
//! layering), a `uniform` duration whose `min` is above its `max`, a cost
//! unit that reads as a credential, and role keys the playbook lacks.

use playbook_core::model::Playbook;

use super::{
    Duration, EXCLUSIVE, MAX_COST, MAX_DURATION_SECONDS, MAX_ENTRIES, MAX_ITERATION, MAX_SIGMA,
    ModelError, Params, Resolved, SimModel, Source, error, escape, parse_mode, show,
};

const PROBABILITY_HINT: &str = "a probability is a number from 0 to 1";

impl SimModel {
    /// Checks every value: probabilities in 0..=1 and finite, the exclusive
    /// outcomes of each entry summing to at most 1, iteration keys, mode
    /// names, durations and costs.
    pub fn check(&self) -> Result<(), ModelError> {
        if let Some(version) = &self.schema_version
            && !is_version_1(version)
        {
            return Err(error(
                "/schema_version",
                format!("model schema_version `{version}` is not 1.x.y"),
                "this version of Playbook Studio reads models 1.x.y, e.g. `1.0.0`",
            ));
        }
        if let Some(unit) = &self.cost_unit {
            if unit.trim().is_empty() || unit.chars().count() > 40 {
                return Err(error(
                    "/cost_unit",
                    "the cost unit must be 1 to 40 characters",
                    "e.g. `USD` or `tokens`",
                ));
            }
            // Refused rather than escaped: the unit is printed after every
            // cost of the report, and a unit that is only readable escaped
            // (`\u{1b}[31m`) is no unit; the error names the character.
            if let Some(c) = unit.chars().find(|c| crate::text::is_unprintable(*c)) {
                return Err(error(
                    "/cost_unit",
                    format!(
                        "the cost unit contains the control or invisible character U+{:04X}",
                        c as u32
                    ),
                    "the unit is printed after every cost: write plain text, e.g. `USD` or `tokens`",
                ));
            }
            // Refused, as a display name is: the unit would be printed
            // after every cost, and redacted it would name nothing. The
            // error does not quote it.
            if !playbook_redact::is_clean(unit) {
                return Err(error(
                    "/cost_unit",
                    "the cost unit reads as a credential (an API key or token), which is never printed",
                    "write the unit costs are counted in, e.g. `USD` or `tokens`; if a key was pasted here, revoke it",
                ));
            }
        }
        if self.roles.len() > MAX_ENTRIES {
            return Err(error(
                "/roles",
                format!("{} roles; the limit is {MAX_ENTRIES}", self.roles.len()),
                "",
            ));
        }
        if let Some(defaults) = &self.defaults {
            defaults.check("/defaults", true)?;
        }
        for (key, params) in &self.roles {
            let pointer = format!("/roles/{}", escape(key));
            if key.trim().is_empty() {
                return Err(error(
                    pointer,
                    "a role key is empty",
                    "name a role of the playbook or `mode:<mode>`",
                ));
            }
            if let Some(mode) = key.strip_prefix("mode:")
                && parse_mode(mode).is_none()
            {
                return Err(error(
                    pointer,
                    format!("`{mode}` is not a role mode"),
                    "modes are planner, worker, reviewer and tester",
                ));
            }
            params.check(&pointer, true)?;
        }
        Ok(())
    }

    /// Checks the model against a playbook: every role key names a role of
    /// it (modes need not be used), and the values that apply to each role
    /// at every iteration sum to at most 1.
    pub fn check_against(&self, playbook: &Playbook) -> Result<(), ModelError> {
        self.check_against_any(&[playbook])?;
        self.check_sums(playbook)
    }

    /// Checks that every role key names a role of at least one of the
    /// playbooks (two versions of one, in a behavioural diff).
    pub fn check_against_any(&self, playbooks: &[&Playbook]) -> Result<(), ModelError> {
        self.check()?;
        let mut names: Vec<&str> = Vec::new();
        for playbook in playbooks {
            for r in playbook.roles() {
                if !names.contains(&r.role.name.as_str()) {
                    names.push(r.role.name.as_str());
                }
            }
        }
        for key in self.roles.keys() {
            if !key.starts_with("mode:") && !names.contains(&key.as_str()) {
                return Err(error(
                    format!("/roles/{}", escape(key)),
                    format!("the model sets role `{key}`, which the playbook does not have"),
                    &format!(
                        "roles: {}; or use `mode:<mode>` for every role of a mode",
                        names.join(", ")
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Checks that the exclusive outcomes that apply to each role of
    /// `playbook`, at every iteration, sum to at most 1. The error points
    /// into the model, at the most specific entry that sets one of the
    /// outcomes for that role and iteration (the field itself when it sets
    /// only one), and lists where each of the five values comes from, as
    /// the sum may mix the role's values with `defaults` and the built-in
    /// default.
    pub fn check_sums(&self, playbook: &Playbook) -> Result<(), ModelError> {
        for role in playbook.roles() {
            let name = role.role.name.as_str();
            let mode = role.role.mode;
            let mut iterations = vec![1u32];
            iterations.extend(self.override_keys(name, mode));
            for k in iterations {
                let explained = self.resolve(name, mode, k);
                let sum = explained.values.exclusive_sum();
                if sum <= 1.0 + 1e-9 {
                    continue;
                }
                return Err(sum_refusal(
                    name,
                    k,
                    sum,
                    &explained.values,
                    &self.stack(name, mode, k),
                ));
            }
        }
        Ok(())
    }
}

/// The refusal of a sum above 1 for `role` at iteration `k`, whose values
/// `values` come from the entries of `stack` (most specific first) and the
/// built-in default: it points at the most specific entry that sets one of
/// the outcomes (the field itself when it sets only one), as that entry is
/// the one written for this role, and lists where each value comes from.
fn sum_refusal(
    role: &str,
    k: u32,
    sum: f64,
    values: &Resolved,
    stack: &[(Source, String, &Params)],
) -> ModelError {
    // Each outcome's value and the entry that sets it (None: built in).
    let parts: Vec<(&str, f64, Option<&str>)> = EXCLUSIVE
        .iter()
        .map(|&field| {
            let at = stack
                .iter()
                .find(|(_, _, p)| p.exclusive(field).is_some())
                .map(|(_, pointer, _)| pointer.as_str());
            (field, values.exclusive(field), at)
        })
        .collect();
    // Some entry sets an outcome: the built-in values alone sum to 0.75.
    let (pointer, fields) = stack
        .iter()
        .find_map(|(_, pointer, params)| {
            let set: Vec<&str> = EXCLUSIVE
                .into_iter()
                .filter(|f| params.exclusive(f).is_some())
                .collect();
            (!set.is_empty()).then(|| (pointer.clone(), set))
        })
        .unwrap_or_default();
    let pointer = match fields.as_slice() {
        [only] => format!("{pointer}/{only}"),
        _ => pointer,
    };
    let listed: Vec<String> = parts
        .iter()
        .map(|(field, v, at)| match at {
            Some(at) => format!("{field} {} (from {at})", show(*v)),
            None => format!("{field} {} (built-in default)", show(*v)),
        })
        .collect();
    let builtin: Vec<&str> = parts
        .iter()
        .filter(|(_, v, at)| at.is_none() && *v > 0.0)
        .map(|(field, _, _)| *field)
        .collect();
    let rest = "what the sum leaves is the chance the output fails its gate";
    let hint = if builtin.is_empty() {
        format!("lower one of them: {rest}")
    } else {
        let added: f64 = parts
            .iter()
            .filter(|(_, _, at)| at.is_none())
            .map(|(_, v, _)| v)
            .sum();
        // Rounded: 0.02 + 0.01 + ... must not print as 0.05000000000000001.
        let added = show((added * 1e6).round() / 1e6);
        let (verb, together, pronoun) = match builtin.len() {
            1 => ("comes", String::new(), "it"),
            _ => ("come", " together".to_string(), "them"),
        };
        // The example lowers a failure outcome, never `pass`.
        let example = builtin
            .iter()
            .find(|f| **f != "pass")
            .map(|f| format!(", e.g. `{f}: 0`"))
            .unwrap_or_default();
        format!(
            "lower one of them; {} {verb} from the built-in default ({added}{together}) until the model sets {pronoun}{example}; {rest}",
            builtin.join(", "),
        )
    };
    ModelError {
        pointer,
        location: None,
        message: format!(
            "for role `{role}` at iteration {k} the exclusive outcomes sum to {sum:.4}, above 1: {}",
            listed.join(", ")
        ),
        hint,
    }
}

impl Params {
    fn check(&self, at: &str, top: bool) -> Result<(), ModelError> {
        for (field, value) in [
            ("pass", self.pass),
            ("violation", self.violation),
            ("blocked_tool", self.blocked_tool),
            ("needs_input", self.needs_input),
            ("error", self.error),
        ] {
            if let Some(v) = value
                && !(v.is_finite() && (0.0..=1.0).contains(&v))
            {
                return Err(error(
                    format!("{at}/{field}"),
                    format!("`{field}` is {}, not a probability", show(v)),
                    PROBABILITY_HINT,
                ));
            }
        }
        let sum: f64 = [
            self.pass,
            self.violation,
            self.blocked_tool,
            self.needs_input,
            self.error,
        ]
        .into_iter()
        .flatten()
        .sum();
        if sum > 1.0 + 1e-9 {
            return Err(error(
                at,
                format!(
                    "the exclusive outcomes (pass, violation, blocked_tool, needs_input, error) sum to {sum:.4}; the sum must be at most 1"
                ),
                "what the sum leaves is the chance the output fails its gate",
            ));
        }
        if let Some(cost) = self.cost
            && !(cost.is_finite() && (0.0..=MAX_COST).contains(&cost))
        {
            return Err(error(
                format!("{at}/cost"),
                format!(
                    "`cost` is {}; it must be a number from 0 to {MAX_COST:e}",
                    show(cost)
                ),
                "the cost of one call in the model's `cost_unit`",
            ));
        }
        if let Some(duration) = &self.duration {
            duration.check(&format!("{at}/duration"))?;
        }
        if let Some(iterations) = &self.iterations {
            if !top {
                return Err(error(
                    format!("{at}/iterations"),
                    "an iteration override cannot hold its own `iterations`",
                    "list every iteration under the role, the mode or `defaults`",
                ));
            }
            if iterations.len() > MAX_ENTRIES {
                return Err(error(
                    format!("{at}/iterations"),
                    format!("{} overrides; the limit is {MAX_ENTRIES}", iterations.len()),
                    "",
                ));
            }
            for (key, params) in iterations {
                let pointer = format!("{at}/iterations/{}", escape(key));
                match key.trim().parse::<u32>() {
                    Ok(k) if (1..=MAX_ITERATION).contains(&k) && k.to_string() == *key => {}
                    _ => {
                        return Err(error(
                            pointer,
                            format!(
                                "iteration key `{key}` is not a whole number from 1 to {MAX_ITERATION}"
                            ),
                            "iterations count a role's calls on one task from 1: `2: {pass: 0.8}`",
                        ));
                    }
                }
                params.check(&pointer, false)?;
            }
        }
        Ok(())
    }
}

impl Duration {
    fn check(&self, at: &str) -> Result<(), ModelError> {
        let seconds = |field: &str, v: f64| {
            if v.is_finite() && (0.0..=MAX_DURATION_SECONDS).contains(&v) {
                Ok(())
            } else {
                // A fixed duration is most often a bare number
                // (`duration: 60`), which has no `fixed` to name.
                let name = if field == "fixed" {
                    "the duration".to_string()
                } else {
                    format!("`{field}`")
                };
                Err(error(
                    format!("{at}/{field}"),
                    format!(
                        "{name} is {}; it must be from 0 to {MAX_DURATION_SECONDS:e} seconds",
                        show(v)
                    ),
                    "durations are virtual seconds per call",
                ))
            }
        };
        match *self {
            Duration::Fixed(v) => seconds("fixed", v),
            Duration::Uniform { min, max } => {
                seconds("uniform/min", min)?;
                seconds("uniform/max", max)?;
                if min > max {
                    return Err(error(
                        format!("{at}/uniform"),
                        format!("`min` {} is above `max` {}", show(min), show(max)),
                        "swap them",
                    ));
                }
                Ok(())
            }
            Duration::Lognormal { median, sigma } => {
                seconds("lognormal/median", median)?;
                if !(sigma.is_finite() && (0.0..=MAX_SIGMA).contains(&sigma)) {
                    return Err(error(
                        format!("{at}/lognormal/sigma"),
                        format!(
                            "`sigma` is {}; it must be from 0 to {MAX_SIGMA}",
                            show(sigma)
                        ),
                        "sigma is the standard deviation of the logarithm of the duration; 0.5 is a wide spread",
                    ));
                }
                Ok(())
            }
        }
    }
}

/// `1.x.y` with x and y whole numbers: what the schema's pattern for
/// `schema_version` accepts.
fn is_version_1(version: &str) -> bool {
    let mut parts = version.split('.');
    parts.next() == Some("1")
        && parts.clone().count() == 2
        && parts.all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}
