//! The simulation model: how likely each outcome of an agent call is, per
//! role, how long a call takes and what it costs.
//!
//! A model is user input, read through the core's hardened document reader
//! (size limit, duplicate keys, alias bombs and deep nesting refused) and
//! then checked value by value, so every problem comes back as a
//! [`ModelError`] naming the JSON pointer and, when known, the line.
//!
//! Values are layered, field by field, from the most to the least specific:
//! the role's iteration override, the role, the `mode:<mode>` entry's
//! iteration override, the `mode:<mode>` entry, the `defaults` iteration
//! override, `defaults`, and last the built-in default ([`BUILTIN`]). The
//! report names the layer every value came from, so a figure that rests on
//! a default says so.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use playbook_core::model::{Playbook, RoleMode};

/// Largest model file accepted, in bytes.
pub const MAX_MODEL_BYTES: usize = 1024 * 1024;
/// Highest iteration an override may name.
pub const MAX_ITERATION: u32 = 10_000;
/// Longest call a duration may produce, in virtual seconds (about 115 days):
/// keeps every sum of milliseconds far from overflow.
pub const MAX_DURATION_SECONDS: f64 = 1.0e7;
/// Largest cost of one call, in the model's unit.
pub const MAX_COST: f64 = 1.0e12;
/// Largest `sigma` of a log-normal duration.
pub const MAX_SIGMA: f64 = 10.0;
/// Most roles and iteration overrides a model may list.
pub const MAX_ENTRIES: usize = 10_000;

/// A what-if simulation model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    title = "What-if model",
    description = "How likely each outcome of an agent call is, per role, and what calls take and cost: the input of `playbook whatif`."
)]
pub struct SimModel {
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Model format version, `1.x.y`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^1\.[0-9]+\.[0-9]+$"))]
    pub schema_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Unit of every `cost` (e.g. `USD`, `tokens`). Default `calls`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_unit: Option<String>,
    /// Values for every role that does not set its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defaults: Option<Params>,
    /// Role name, or `mode:<planner|worker|reviewer|tester>` for every role
    /// of that mode → its values.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub roles: IndexMap<String, Params>,
}

/// Outcome probabilities, duration and cost of a role's calls.
///
/// The exclusive outcomes of one call are `pass`, `violation`,
/// `blocked_tool`, `needs_input` and `error`; their sum is at most 1 and the
/// rest is the chance that the output fails its gate.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// The output passes its gate (a reviewer's verdict is `pass`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub pass: Option<f64>,
    /// The output lacks a required field (a contract violation).
    #[serde(
        default,
        alias = "contract_violation",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub violation: Option<f64>,
    /// The agent attempts a tool outside `actions_allowed`, then answers
    /// with a passing output.
    #[serde(
        default,
        alias = "tool_blocked",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub blocked_tool: Option<f64>,
    /// The agent answers `needs_input`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub needs_input: Option<f64>,
    /// The agent fails (crash, model error).
    #[serde(
        default,
        alias = "agent_error",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub error: Option<f64>,
    /// How long one call takes, in virtual seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<Duration>,
    /// Cost of one call, in `cost_unit`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub cost: Option<f64>,
    /// Overrides for the role's k-th call on a task (1-based): `{2: {pass: 0.8}}`.
    /// Only on a role, a mode or `defaults`, not inside another override.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iterations: Option<IndexMap<String, Params>>,
}

/// A distribution of call durations, in virtual seconds. A bare number is
/// a fixed duration.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema, ts_rs::TS)]
#[serde(rename_all = "snake_case", from = "DurationInput")]
#[ts(export, export_to = "whatif/")]
#[schemars(with = "DurationInput")]
pub enum Duration {
    /// Every call takes this long.
    Fixed(f64),
    /// Uniform between `min` and `max`.
    Uniform { min: f64, max: f64 },
    /// Log-normal: half of the calls are shorter than `median`; `sigma` is
    /// the standard deviation of the logarithm.
    Lognormal { median: f64, sigma: f64 },
}

/// How a duration may be written: `60`, or one of the named forms.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum DurationInput {
    /// Seconds: every call takes this long.
    Seconds(f64),
    Form(DurationForm),
}

/// The named forms of a duration.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum DurationForm {
    /// Every call takes this long.
    Fixed(f64),
    /// Uniform between `min` and `max`.
    Uniform { min: f64, max: f64 },
    /// Log-normal: half of the calls are shorter than `median`; `sigma` is
    /// the standard deviation of the logarithm.
    Lognormal { median: f64, sigma: f64 },
}

impl From<DurationInput> for Duration {
    fn from(input: DurationInput) -> Duration {
        match input {
            DurationInput::Seconds(s) | DurationInput::Form(DurationForm::Fixed(s)) => {
                Duration::Fixed(s)
            }
            DurationInput::Form(DurationForm::Uniform { min, max }) => {
                Duration::Uniform { min, max }
            }
            DurationInput::Form(DurationForm::Lognormal { median, sigma }) => {
                Duration::Lognormal { median, sigma }
            }
        }
    }
}

/// The built-in default, used for whatever neither a role, its mode nor
/// `defaults` sets (documented in docs/whatif.md).
pub const BUILTIN: Resolved = Resolved {
    pass: 0.7,
    violation: 0.02,
    blocked_tool: 0.01,
    needs_input: 0.01,
    error: 0.01,
    duration: Duration::Fixed(60.0),
    cost: 1.0,
};

/// Default cost unit: with the built-in cost of 1 per call, cost counts calls.
pub const DEFAULT_COST_UNIT: &str = "calls";

/// The values that apply to one call.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, ts_rs::TS)]
#[ts(export, export_to = "whatif/")]
pub struct Resolved {
    pub pass: f64,
    pub violation: f64,
    pub blocked_tool: f64,
    pub needs_input: f64,
    pub error: f64,
    pub duration: Duration,
    pub cost: f64,
}

impl Resolved {
    /// Chance that the output fails its gate: what the exclusive outcomes leave.
    pub fn fail(&self) -> f64 {
        (1.0 - self.exclusive_sum()).max(0.0)
    }

    fn exclusive_sum(&self) -> f64 {
        self.pass + self.violation + self.blocked_tool + self.needs_input + self.error
    }
}

/// Where a resolved value came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case", tag = "layer", content = "key")]
#[ts(export, export_to = "whatif/", rename = "ValueSource")]
pub enum Source {
    /// The role's own entry (or its iteration override: the key says which).
    Role(String),
    /// A `mode:<mode>` entry.
    Mode(String),
    /// The model's `defaults`.
    Defaults(String),
    /// The built-in default: nothing in the model set it.
    Builtin,
}

impl Source {
    /// True when the value is a default (the model's or the built-in one).
    pub fn is_default(&self) -> bool {
        matches!(self, Source::Defaults(_) | Source::Builtin)
    }

    pub fn describe(&self) -> String {
        match self {
            Source::Role(key) | Source::Mode(key) => key.clone(),
            Source::Defaults(key) => format!("{key} (default)"),
            Source::Builtin => "built-in default".into(),
        }
    }
}

/// Resolved values of one role at one iteration, with the layer of each.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(export, export_to = "whatif/")]
pub struct Explained {
    pub values: Resolved,
    /// Field name → where it came from, in field order.
    pub sources: IndexMap<&'static str, Source>,
}

/// Why a model was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}{}: {message}{}", if pointer.is_empty() { "model" } else { pointer.as_str() }, location.map(|(l, c)| format!(" (line {l}, column {c})")).unwrap_or_default(), if hint.is_empty() { String::new() } else { format!("; {hint}") })]
pub struct ModelError {
    /// JSON pointer of the offending value; empty for the whole model.
    pub pointer: String,
    /// Line and column in the source text, when known.
    pub location: Option<(usize, usize)>,
    pub message: String,
    /// How to fix it.
    pub hint: String,
}

fn error(pointer: impl Into<String>, message: impl Into<String>, hint: &str) -> ModelError {
    ModelError {
        pointer: pointer.into(),
        location: None,
        message: message.into(),
        hint: hint.into(),
    }
}

/// A number as an error message shows it: short, even when huge.
fn show(v: f64) -> String {
    if v != 0.0 && v.is_finite() && !(1e-4..1e6).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

const PROBABILITY_HINT: &str = "a probability is a number from 0 to 1";

impl SimModel {
    /// Parses a model from YAML or JSON text and checks every value that
    /// can be checked without the playbook.
    pub fn parse(text: &str) -> Result<SimModel, ModelError> {
        if text.len() > MAX_MODEL_BYTES {
            return Err(error(
                "",
                format!(
                    "the model is {} bytes; the limit is {MAX_MODEL_BYTES}",
                    text.len()
                ),
                "a model lists roles and a few numbers; remove generated content",
            ));
        }
        if text.trim().is_empty() {
            return Ok(SimModel::default());
        }
        let text = text.trim_start_matches('\u{feff}');
        let map = playbook_core::locate::SourceMap::new(text);
        let locate = |mut e: ModelError| {
            if e.location.is_none() {
                e.location = map.locate(&e.pointer).map(|l| (l.line, l.column));
            }
            e
        };
        // JSON is YAML: one reader for both, as for scenarios.
        let value = playbook_core::document::parse_value(text, playbook_core::Format::Yaml)
            .map_err(|f| ModelError {
                pointer: f.path.clone(),
                location: f.location.map(|l| (l.line, l.column)),
                message: format!("not a valid model: {}", f.message),
                hint: f.hint.clone(),
            })?;
        let model = from_value(&value).map_err(locate)?;
        model.check().map_err(locate)?;
        Ok(model)
    }

    /// Checks every value: probabilities in 0..=1 and finite, the exclusive
    /// outcomes of each entry summing to at most 1, iteration keys, mode
    /// names, durations and costs.
    pub fn check(&self) -> Result<(), ModelError> {
        if let Some(version) = &self.schema_version
            && !version.starts_with("1.")
        {
            return Err(error(
                "/schema_version",
                format!("model schema_version `{version}` is not 1.x.y"),
                "this version of Playbook Studio reads models 1.x.y",
            ));
        }
        if let Some(unit) = &self.cost_unit
            && (unit.trim().is_empty() || unit.chars().count() > 40)
        {
            return Err(error(
                "/cost_unit",
                "the cost unit must be 1 to 40 characters",
                "e.g. `USD` or `tokens`",
            ));
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
    /// `playbook`, at every iteration, sum to at most 1.
    pub fn check_sums(&self, playbook: &Playbook) -> Result<(), ModelError> {
        for role in playbook.roles() {
            let mode = role.role.mode;
            let mut iterations = vec![1u32];
            iterations.extend(self.override_keys(&role.role.name, mode));
            for k in iterations {
                let explained = self.resolve(&role.role.name, mode, k);
                let sum = explained.values.exclusive_sum();
                if sum > 1.0 + 1e-9 {
                    return Err(error(
                        format!("/roles/{}", escape(&role.role.name)),
                        format!(
                            "for role `{}` at iteration {k} the exclusive outcomes sum to {sum:.4} (pass, violation, blocked_tool, needs_input, error from {}); the sum must be at most 1",
                            role.role.name,
                            describe_sources(&explained)
                        ),
                        "lower one of them: what the sum leaves is the chance the output fails its gate",
                    ));
                }
            }
        }
        Ok(())
    }

    /// Iterations any layer of a role overrides.
    fn override_keys(&self, role: &str, mode: Option<RoleMode>) -> Vec<u32> {
        let mut keys: Vec<u32> = self
            .layers(role, mode)
            .into_iter()
            .flat_map(|(_, p)| p.iterations.iter().flat_map(|i| i.keys()))
            .filter_map(|k| k.parse().ok())
            .collect();
        keys.sort_unstable();
        keys.dedup();
        keys
    }

    fn layers(&self, role: &str, mode: Option<RoleMode>) -> Vec<(Source, &Params)> {
        let mut layers = Vec::new();
        if let Some(p) = self.roles.get(role) {
            layers.push((Source::Role(role.to_string()), p));
        }
        if let Some(mode) = mode {
            let key = format!("mode:{}", mode.as_str());
            if let Some(p) = self.roles.get(&key) {
                layers.push((Source::Mode(key), p));
            }
        }
        if let Some(p) = &self.defaults {
            layers.push((Source::Defaults("defaults".into()), p));
        }
        layers
    }

    /// The values that apply to `role` (of `mode`) on its `iteration`-th
    /// call for a task, and where each came from.
    pub fn resolve(&self, role: &str, mode: Option<RoleMode>, iteration: u32) -> Explained {
        let key = iteration.to_string();
        // Most specific first: each layer's iteration override, then the layer.
        let mut stack: Vec<(Source, &Params)> = Vec::new();
        for (source, params) in self.layers(role, mode) {
            if let Some(over) = params.iterations.as_ref().and_then(|i| i.get(&key)) {
                let at = match &source {
                    Source::Role(k) => Source::Role(format!("{k} iteration {iteration}")),
                    Source::Mode(k) => Source::Mode(format!("{k} iteration {iteration}")),
                    Source::Defaults(k) => Source::Defaults(format!("{k} iteration {iteration}")),
                    Source::Builtin => Source::Builtin,
                };
                stack.push((at, over));
            }
            stack.push((source, params));
        }
        let mut sources = IndexMap::new();
        macro_rules! pick {
            ($field:ident) => {{
                match stack.iter().find_map(|(s, p)| p.$field.map(|v| (s, v))) {
                    Some((s, v)) => {
                        sources.insert(stringify!($field), s.clone());
                        v
                    }
                    None => {
                        sources.insert(stringify!($field), Source::Builtin);
                        BUILTIN.$field
                    }
                }
            }};
        }
        let values = Resolved {
            pass: pick!(pass),
            violation: pick!(violation),
            blocked_tool: pick!(blocked_tool),
            needs_input: pick!(needs_input),
            error: pick!(error),
            duration: pick!(duration),
            cost: pick!(cost),
        };
        Explained { values, sources }
    }

    /// The cost unit the report uses.
    pub fn unit(&self) -> &str {
        self.cost_unit.as_deref().unwrap_or(DEFAULT_COST_UNIT)
    }
}

fn describe_sources(explained: &Explained) -> String {
    let mut seen: Vec<String> = Vec::new();
    for (field, source) in &explained.sources {
        if ["pass", "violation", "blocked_tool", "needs_input", "error"].contains(field) {
            let d = source.describe();
            if !seen.contains(&d) {
                seen.push(d);
            }
        }
    }
    seen.join(", ")
}

/// Reads a mode name.
pub fn parse_mode(name: &str) -> Option<RoleMode> {
    RoleMode::ALL.into_iter().find(|m| m.as_str() == name)
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
                Err(error(
                    format!("{at}/{field}"),
                    format!(
                        "`{field}` is {}; it must be from 0 to {MAX_DURATION_SECONDS:e} seconds",
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

    /// Draws one duration in milliseconds (capped at [`MAX_DURATION_SECONDS`]).
    pub fn sample_ms(&self, rng: &mut fastrand::Rng) -> u64 {
        let seconds = match *self {
            Duration::Fixed(v) => v,
            Duration::Uniform { min, max } => min + (max - min) * rng.f64(),
            Duration::Lognormal { median, sigma } => {
                // Box–Muller: two uniforms give one standard normal draw.
                let u1 = 1.0 - rng.f64();
                let u2 = rng.f64();
                let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                median * (sigma * z).exp()
            }
        };
        let seconds = if seconds.is_finite() {
            seconds.clamp(0.0, MAX_DURATION_SECONDS)
        } else {
            MAX_DURATION_SECONDS
        };
        (seconds * 1000.0).round() as u64
    }
}

/// Deserialises the model; on failure, the error names the pointer where
/// serde stopped (its own message names only the field).
fn from_value(value: &Value) -> Result<SimModel, ModelError> {
    serde_path_to_error::deserialize::<_, SimModel>(value).map_err(|e| {
        let (pointer, message) = playbook_orchestrator::scenario::check::stopped_at(&e);
        let hint = if pointer.ends_with("/duration") || pointer.contains("/duration/") {
            "write `{fixed: 60}`, `{uniform: {min: 30, max: 90}}` or `{lognormal: {median: 60, sigma: 0.5}}`"
        } else if pointer == "/roles" {
            "`roles` is a map of role name (or `mode:<mode>`) to values"
        } else {
            "see schemas/whatif-model.schema.json"
        };
        error(pointer, message, hint)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layers_resolve_field_by_field_and_say_where_from() {
        let model = SimModel::parse(
            "defaults: {pass: 0.5, cost: 2}\nroles:\n  mode:reviewer: {pass: 0.6, iterations: {2: {pass: 0.8}}}\n  reviewer: {error: 0.1}\n",
        )
        .unwrap();
        let r1 = model.resolve("reviewer", Some(RoleMode::Reviewer), 1);
        assert_eq!(r1.values.pass, 0.6);
        assert_eq!(r1.values.error, 0.1);
        assert_eq!(r1.values.cost, 2.0);
        assert!(r1.sources["cost"].is_default());
        assert_eq!(r1.sources["violation"], Source::Builtin);
        let r2 = model.resolve("reviewer", Some(RoleMode::Reviewer), 2);
        assert_eq!(r2.values.pass, 0.8);
        let w = model.resolve("worker", Some(RoleMode::Worker), 2);
        assert_eq!(w.values.pass, 0.5);
    }

    #[test]
    fn duration_samples_stay_in_bounds() {
        let mut rng = fastrand::Rng::with_seed(1);
        let d = Duration::Uniform { min: 1.0, max: 2.0 };
        for _ in 0..1000 {
            let ms = d.sample_ms(&mut rng);
            assert!((1000..=2000).contains(&ms));
        }
        let d = Duration::Lognormal {
            median: 1e7,
            sigma: 10.0,
        };
        for _ in 0..1000 {
            assert!(d.sample_ms(&mut rng) <= 10_000_000_000);
        }
    }
}
