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
//!
//! The checks of the values are in `model/check.rs`; what the published
//! schema states beyond the types (aliases, key patterns) in
//! `model/schema.rs`.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use playbook_core::model::{Playbook, RoleMode};

use crate::text::printable;

mod check;
mod schema;

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
    /// Unit of every `cost` (e.g. `USD`, `tokens`). Default `calls`. Plain
    /// text, printed after every cost: no control or invisible character,
    /// and nothing that reads as a credential (the tool refuses that too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 40), regex(pattern = schema::COST_UNIT))]
    pub cost_unit: Option<String>,
    /// Values for every role that does not set its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defaults: Option<Params>,
    /// Role name, or `mode:<planner|worker|reviewer|tester>` for every role
    /// of that mode → its values.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    #[schemars(schema_with = "schema::roles")]
    pub roles: IndexMap<String, Params>,
}

/// Outcome probabilities, duration and cost of a role's calls.
///
/// The exclusive outcomes of one call are `pass`, `violation`,
/// `blocked_tool`, `needs_input` and `error`; their sum is at most 1 and the
/// rest is the chance that the output fails its gate.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = schema::aliases)]
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
    #[schemars(range(min = 0.0, max = MAX_COST))]
    pub cost: Option<f64>,
    /// Overrides for the role's k-th call on a task (1-based): `{2: {pass: 0.8}}`.
    /// Only on a role, a mode or `defaults`, not inside another override.
    /// Keys are 1 to 10 000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "schema::iterations")]
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
    Seconds(#[schemars(range(min = 0.0, max = MAX_DURATION_SECONDS))] f64),
    Form(DurationForm),
}

/// The named forms of a duration.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum DurationForm {
    /// Every call takes this long.
    Fixed(#[schemars(range(min = 0.0, max = MAX_DURATION_SECONDS))] f64),
    /// Uniform between `min` and `max` (`min` at most `max`: the tool
    /// checks that, a schema cannot).
    Uniform {
        #[schemars(range(min = 0.0, max = MAX_DURATION_SECONDS))]
        min: f64,
        #[schemars(range(min = 0.0, max = MAX_DURATION_SECONDS))]
        max: f64,
    },
    /// Log-normal: half of the calls are shorter than `median`; `sigma` is
    /// the standard deviation of the logarithm.
    Lognormal {
        #[schemars(range(min = 0.0, max = MAX_DURATION_SECONDS))]
        median: f64,
        #[schemars(range(min = 0.0, max = MAX_SIGMA))]
        sigma: f64,
    },
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

    /// One of the [`EXCLUSIVE`] outcomes by name.
    fn exclusive(&self, field: &str) -> f64 {
        match field {
            "pass" => self.pass,
            "violation" => self.violation,
            "blocked_tool" => self.blocked_tool,
            "needs_input" => self.needs_input,
            _ => self.error,
        }
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
    /// The chance of a failing output: what the exclusive outcomes leave
    /// ([`Resolved::fail`]), as the text report shows it.
    pub fail: f64,
    /// Field name → where it came from, in field order.
    pub sources: IndexMap<&'static str, Source>,
}

/// Why a model was refused. The fields quote the model as written (the
/// pointer locates the value in the author's own file); what is shown of
/// it, its [`Display`](std::fmt::Display), is redacted and escaped.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelError {
    /// JSON pointer of the offending value, as the model's text writes it
    /// (an alias such as `contract_violation` is named as written); empty
    /// for the whole model. [`SimModel::parse`] and [`SimModel::parse_for`]
    /// only return pointers that exist in the text.
    pub pointer: String,
    /// Line and column in the source text, when known.
    pub location: Option<(usize, usize)>,
    pub message: String,
    /// How to fix it.
    pub hint: String,
}

impl std::fmt::Display for ModelError {
    /// `POINTER (line L, column C): message; hint`. Keys and values of the
    /// model, and the playbook's role names, are quoted in messages, so
    /// everything shown goes through [`printable`]: a role key that reads
    /// as a credential is shown `[REDACTED]`, and a key holding an escape
    /// sequence cannot act on the terminal the error is printed on.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pointer = if self.pointer.is_empty() {
            "model"
        } else {
            self.pointer.as_str()
        };
        write!(f, "{}", printable(pointer))?;
        if let Some((line, column)) = self.location {
            write!(f, " (line {line}, column {column})")?;
        }
        write!(f, ": {}", printable(&self.message))?;
        if !self.hint.is_empty() {
            write!(f, "; {}", printable(&self.hint))?;
        }
        Ok(())
    }
}

impl std::error::Error for ModelError {}

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

/// How to start a model: there is no `playbook template` for models.
const START_HINT: &str = "a model is a mapping such as `defaults: {pass: 0.8}`; docs/whatif.md (\"The model\") shows a whole one and schemas/whatif-model.schema.json lists every field; without a model the built-in defaults apply";

/// The exclusive outcomes of a call, whose probabilities sum to at most 1.
const EXCLUSIVE: [&str; 5] = ["pass", "violation", "blocked_tool", "needs_input", "error"];

/// The other names serde reads for a field of [`Params`] (its `alias`
/// attributes): an error about `violation` is placed at `contract_violation`
/// when that is what the text writes, and the published schema lists them
/// as properties too (`model/schema.rs`).
const ALIASES: [(&str, &str); 3] = [
    ("violation", "contract_violation"),
    ("blocked_tool", "tool_blocked"),
    ("error", "agent_error"),
];

/// The pointer of the value `pointer` names, as the text writes it: each
/// field under the name the text uses (an alias, see [`ALIASES`]), and cut
/// back to the nearest value that exists when the checker names a part the
/// text does not write (`duration/fixed` of `duration: -5`). So an error
/// never points at something that is not in the model.
fn written_pointer(value: &Value, pointer: &str) -> String {
    let mut node = value;
    let mut out = String::new();
    for token in playbook_core::finding::pointer_tokens(pointer) {
        let Value::Object(map) = node else {
            break;
        };
        let key = if map.contains_key(&token) {
            token
        } else if let Some((_, alias)) = ALIASES
            .iter()
            .find(|(name, alias)| *name == token && map.contains_key(*alias))
        {
            (*alias).to_string()
        } else {
            break;
        };
        out.push('/');
        out.push_str(&escape(&key));
        node = &map[&key];
    }
    out
}

/// `e` with a pointer that exists in the model's text and, when the text
/// places it, its line and column.
fn place(mut e: ModelError, text: &str, value: &Value) -> ModelError {
    e.pointer = written_pointer(value, &e.pointer);
    if e.location.is_none() {
        // Built only for an error: a model that is read without one never
        // pays for the walk.
        e.location = playbook_core::locate::SourceMap::new(text)
            .locate(&e.pointer)
            .map(|l| (l.line, l.column));
    }
    e
}

/// A refusal of the document reader, worded for a model: the reader's
/// messages and hints speak of playbooks.
fn document_error(f: playbook_core::Finding) -> ModelError {
    let location = f.location.map(|l| (l.line, l.column));
    if f.message == "the document is empty" {
        return ModelError {
            pointer: String::new(),
            location,
            message: "the model is empty: it holds no mapping (only `null`, `~` or comments)"
                .into(),
            hint: START_HINT.into(),
        };
    }
    let reword = |text: &str| {
        text.replace("a playbook", "a model")
            .replace("one playbook", "one model")
    };
    ModelError {
        pointer: f.path.clone(),
        location,
        message: format!("not a valid model: {}", reword(&f.message)),
        hint: reword(&f.hint),
    }
}

impl SimModel {
    /// Parses a model from YAML or JSON text and checks every value that
    /// can be checked without the playbook.
    pub fn parse(text: &str) -> Result<SimModel, ModelError> {
        SimModel::parse_for(text, &[])
    }

    /// [`SimModel::parse`], then the checks against `playbooks` (the
    /// playbook simulated, or both versions of a behavioural diff): every
    /// role key names a role of one of them, and the outcomes that apply to
    /// each of their roles sum to at most 1 ([`SimModel::check_sums`]).
    /// Done here, with the text at hand, so these errors too name a pointer
    /// that exists in the model and its line and column; a simulation run
    /// later checks the same and does not fail on them.
    pub fn parse_for(text: &str, playbooks: &[&Playbook]) -> Result<SimModel, ModelError> {
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
        // JSON is YAML: one reader for both, as for scenarios.
        let value = playbook_core::document::parse_value(text, playbook_core::Format::Yaml)
            .map_err(document_error)?;
        let located = |e: ModelError| place(e, text, &value);
        if !value.is_object() {
            // serde would read a list as the fields in order and complain
            // about its first item; the mistake is the shape.
            return Err(located(error(
                "",
                "the model is not a mapping of keys to values",
                START_HINT,
            )));
        }
        let model = from_value(&value).map_err(located)?;
        model.check().map_err(located)?;
        if !playbooks.is_empty() {
            model.check_against_any(playbooks).map_err(located)?;
            for playbook in playbooks {
                model.check_sums(playbook).map_err(located)?;
            }
        }
        Ok(model)
    }

    /// Iterations any layer of a role overrides.
    fn override_keys(&self, role: &str, mode: Option<RoleMode>) -> Vec<u32> {
        let mut keys: Vec<u32> = self
            .layers(role, mode)
            .into_iter()
            .flat_map(|(_, _, p)| p.iterations.iter().flat_map(|i| i.keys()))
            .filter_map(|k| k.parse().ok())
            .collect();
        keys.sort_unstable();
        keys.dedup();
        keys
    }

    /// The entries that apply to `role`, most specific first, each with
    /// the pointer where the model writes it.
    fn layers(&self, role: &str, mode: Option<RoleMode>) -> Vec<(Source, String, &Params)> {
        let mut layers = Vec::new();
        if let Some(p) = self.roles.get(role) {
            layers.push((
                Source::Role(role.to_string()),
                format!("/roles/{}", escape(role)),
                p,
            ));
        }
        if let Some(mode) = mode {
            let key = format!("mode:{}", mode.as_str());
            if let Some(p) = self.roles.get(&key) {
                let pointer = format!("/roles/{}", escape(&key));
                layers.push((Source::Mode(key), pointer, p));
            }
        }
        if let Some(p) = &self.defaults {
            layers.push((Source::Defaults("defaults".into()), "/defaults".into(), p));
        }
        layers
    }

    /// The entries that apply to `role` on its `iteration`-th call, most
    /// specific first: each layer's iteration override, then the layer.
    fn stack(
        &self,
        role: &str,
        mode: Option<RoleMode>,
        iteration: u32,
    ) -> Vec<(Source, String, &Params)> {
        let key = iteration.to_string();
        let mut stack = Vec::new();
        for (source, pointer, params) in self.layers(role, mode) {
            if let Some(over) = params.iterations.as_ref().and_then(|i| i.get(&key)) {
                let at = match &source {
                    Source::Role(k) => Source::Role(format!("{k} iteration {iteration}")),
                    Source::Mode(k) => Source::Mode(format!("{k} iteration {iteration}")),
                    Source::Defaults(k) => Source::Defaults(format!("{k} iteration {iteration}")),
                    Source::Builtin => Source::Builtin,
                };
                stack.push((at, format!("{pointer}/iterations/{key}"), over));
            }
            stack.push((source, pointer, params));
        }
        stack
    }

    /// The values that apply to `role` (of `mode`) on its `iteration`-th
    /// call for a task, and where each came from.
    pub fn resolve(&self, role: &str, mode: Option<RoleMode>, iteration: u32) -> Explained {
        let stack: Vec<(Source, &Params)> = self
            .stack(role, mode, iteration)
            .into_iter()
            .map(|(source, _, params)| (source, params))
            .collect();
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
        Explained {
            fail: values.fail(),
            values,
            sources,
        }
    }

    /// The cost unit the report uses.
    pub fn unit(&self) -> &str {
        self.cost_unit.as_deref().unwrap_or(DEFAULT_COST_UNIT)
    }
}

/// Reads a mode name.
pub fn parse_mode(name: &str) -> Option<RoleMode> {
    RoleMode::ALL.into_iter().find(|m| m.as_str() == name)
}

impl Params {
    /// One of the [`EXCLUSIVE`] outcomes by name, when this entry sets it.
    fn exclusive(&self, field: &str) -> Option<f64> {
        match field {
            "pass" => self.pass,
            "violation" => self.violation,
            "blocked_tool" => self.blocked_tool,
            "needs_input" => self.needs_input,
            _ => self.error,
        }
    }
}

impl Duration {
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
