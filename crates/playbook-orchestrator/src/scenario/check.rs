//! Checking scenario text as an editor does: every problem at its place
//! (a JSON pointer and, in the text, a line and column), and the `roles`
//! keys the playbook cannot resolve with their candidate roles.
//!
//! [`Scenario::parse`] stops at the first problem, as a run must; an editor
//! wants them all, so this module validates the parsed value against the
//! published scenario schema first and parses only a value that passes.

use std::sync::LazyLock;

use playbook_core::Playbook;
use playbook_core::finding::{Location, escape_pointer};
use playbook_core::locate::SourceMap;
use serde::Serialize;
use serde_json::Value;

use super::selector::{self, Unmatched};
use super::{MAX_SCENARIO_BYTES, Scenario, limits};

/// Most key problems explained for an editor.
const MAX_KEY_PROBLEMS: usize = 50;

/// One problem of a scenario text.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct ScenarioProblem {
    /// JSON pointer of the offending value, e.g. `/roles/worker`; empty for
    /// the whole text.
    pub path: String,
    pub message: String,
    /// How to fix it.
    pub hint: String,
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
}

/// What checking a scenario text found.
#[derive(Debug, Clone, Default, PartialEq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct ScenarioCheck {
    /// Every problem, in text order where known.
    pub problems: Vec<ScenarioProblem>,
    /// `roles` keys that match no role of the playbook, with candidates:
    /// what a mapping step asks about. Also listed in `problems`.
    pub unmatched: Vec<Unmatched>,
    /// The parsed scenario (as JSON) when the text is a valid scenario.
    #[ts(type = "Record<string, unknown> | null")]
    pub scenario: Option<Value>,
}

impl ScenarioCheck {
    pub fn is_ok(&self) -> bool {
        self.problems.is_empty()
    }
}

static VALIDATOR: LazyLock<Result<jsonschema::Validator, String>> = LazyLock::new(|| {
    let schema = crate::envelope::schema_of::<Scenario>("scenario.schema.json");
    jsonschema::options()
        .build(&schema)
        .map_err(|e| e.to_string())
});

fn problem(path: impl Into<String>, message: impl Into<String>, hint: &str) -> ScenarioProblem {
    ScenarioProblem {
        path: path.into(),
        message: message.into(),
        hint: hint.to_string(),
        location: None,
    }
}

/// Checks scenario text, and its `roles` keys against `playbook` when one
/// is given.
pub fn check_text(text: &str, playbook: Option<&Playbook>) -> ScenarioCheck {
    let mut check = ScenarioCheck::default();
    if text.len() > MAX_SCENARIO_BYTES {
        check.problems.push(problem(
            "",
            format!(
                "the scenario is {} bytes; the limit is {MAX_SCENARIO_BYTES}",
                text.len()
            ),
            "split it, or move large repository files out of `repo`",
        ));
        return check;
    }
    let text = text.trim_start_matches('\u{feff}');
    let value = if text.trim().is_empty() {
        Value::Object(Default::default())
    } else {
        match playbook_core::document::parse_value(text, playbook_core::Format::Yaml) {
            Ok(value) => value,
            Err(f) => {
                check.problems.push(ScenarioProblem {
                    path: f.path,
                    message: f.message,
                    hint: f.hint,
                    location: f.location,
                });
                return check;
            }
        }
    };
    match &*VALIDATOR {
        Ok(validator) => {
            for f in playbook_core::schema::check_with(validator, &value) {
                check.problems.push(problem(f.path, f.message, &f.hint));
            }
        }
        Err(message) => check.problems.push(problem(
            "",
            format!("the scenario schema could not be built: {message}"),
            "this is a bug in Playbook Studio; please report it",
        )),
    }
    if check.problems.is_empty() {
        // The schema passed; what remains are the checks it cannot say.
        match Scenario::parse(text) {
            Err(e) => check.problems.push(problem("", e.message, "")),
            Ok(scenario) => {
                if let Err(e) = limits::check(&scenario) {
                    check.problems.push(problem("", e.message, ""));
                }
                match playbook {
                    Some(playbook) => {
                        keys(&scenario, playbook, &mut check);
                        references(super::references::dangling(&scenario, playbook), &mut check);
                    }
                    // Without a playbook, what the input says of itself.
                    None => references(scenario.input.dangling_dependencies("/input"), &mut check),
                }
                check.scenario = serde_json::to_value(&scenario).ok();
            }
        }
    }
    locate(text, &mut check.problems);
    check
}

/// One refusal of a `what` (scenario, run input) as one line: its message,
/// the pointer and line and column of its place, and how to fix it.
pub(crate) fn refusal(
    what: &str,
    message: &str,
    pointer: &str,
    location: Option<Location>,
    hint: &str,
) -> String {
    let path = if pointer.is_empty() {
        String::new()
    } else {
        format!(" at {pointer}")
    };
    let at = location
        .map(|l| format!(" (line {}, column {})", l.line, l.column))
        .unwrap_or_default();
    let hint = if hint.is_empty() {
        String::new()
    } else {
        format!("; {hint}")
    };
    format!("not a valid {what}: {message}{path}{at}{hint}")
}

/// The first problem the published schema finds in a parsed scenario, as one
/// line naming its place (pointer, line and column) and its fix; `None` when
/// the schema accepts the value.
pub(crate) fn first_schema_problem(text: &str, value: &Value) -> Option<String> {
    let validator = VALIDATOR.as_ref().ok()?;
    let first = playbook_core::schema::check_with(validator, value)
        .into_iter()
        .next()?;
    let location = SourceMap::new(text).locate(&first.path);
    Some(refusal(
        "scenario",
        &first.message,
        &first.path,
        location,
        &first.hint,
    ))
}

/// The published schema's patterns, which the typed read does not prove:
/// `schema_version` is `1.x.y` and a lock's `task_id` is `T-n` or a UUID.
/// Without this a scenario the schema refuses (`schema_version: 1.banana`,
/// a lock of task `zzz`) was read and run. The first one broken, at its
/// place; `input_at` is the run input's pointer (`/input` in a scenario,
/// empty in a run input file).
pub(crate) fn unproven_pattern(
    what: &str,
    text: &str,
    version: Option<&str>,
    input: &super::RunInput,
    input_at: &str,
) -> Option<String> {
    let broken = |pointer: String, value: &str, pattern: &str| {
        let location = SourceMap::new(text).locate(&pointer);
        refusal(
            what,
            &format!("{value:?} does not match \"{pattern}\""),
            &pointer,
            location,
            &format!("write a value matching {pattern}"),
        )
    };
    if let Some(version) = version
        && !playbook_contracts::is_supported_version(version)
    {
        return Some(broken(
            "/schema_version".into(),
            version,
            playbook_contracts::VERSION_PATTERN,
        ));
    }
    let (i, lock) = input
        .active_locks
        .iter()
        .enumerate()
        .find(|(_, lock)| !playbook_contracts::is_task_id(&lock.task_id))?;
    Some(broken(
        format!("{input_at}/active_locks/{i}/task_id"),
        &lock.task_id,
        playbook_contracts::TASK_ID_PATTERN,
    ))
}

/// A typed read's failure the schema did not foresee, at the place serde
/// stopped: its pointer, line and column.
pub(crate) fn serde_problem(
    what: &str,
    text: &str,
    error: &serde_path_to_error::Error<serde_json::Error>,
) -> String {
    let (pointer, message) = stopped_at(error);
    let location = SourceMap::new(text).locate(&pointer);
    refusal(
        what,
        &message,
        if pointer.is_empty() { "/" } else { &pointer },
        location,
        "compare it with schemas/scenario.schema.json (`playbook schema scenario.schema.json`)",
    )
}

/// Where a typed read stopped (a JSON pointer) and why, in plain words.
pub fn stopped_at(error: &serde_path_to_error::Error<serde_json::Error>) -> (String, String) {
    let pointer = error
        .path()
        .iter()
        .filter_map(|segment| match segment {
            serde_path_to_error::Segment::Seq { index } => Some(format!("/{index}")),
            serde_path_to_error::Segment::Map { key } => Some(format!("/{}", escape_pointer(key))),
            serde_path_to_error::Segment::Enum { .. } | serde_path_to_error::Segment::Unknown => {
                None
            }
        })
        .collect();
    let message = error.inner().to_string();
    // serde's words for an untagged enum name a Rust type; say it plainly.
    let message = if message.starts_with("data did not match any variant") {
        "the value fits none of the forms this field allows".to_string()
    } else {
        message
    };
    (pointer, message)
}

/// Problems of the `roles` keys, each at its key.
fn keys(scenario: &Scenario, playbook: &Playbook, check: &mut ScenarioCheck) {
    let keys = || scenario.roles.keys().map(String::as_str);
    let analysis = selector::analyse(keys(), playbook, MAX_KEY_PROBLEMS);
    for p in analysis.problems {
        check.problems.push(problem(
            format!("/roles/{}", escape_pointer(&p.key)),
            p.message,
            "use a role name of the playbook, `mode:<mode>`, `mode:<mode>#<n>`, `stage:<stage>` or `stage:<stage>#<n>`; or map it onto a role",
        ));
    }
    if analysis.unexplained > 0 {
        check.problems.push(problem(
            "/roles",
            format!(
                "and {} more key(s) that do not resolve",
                analysis.unexplained
            ),
            "",
        ));
    }
    check.unmatched = scenario.unmatched(playbook);
}

/// Names that point at nothing, each at its place (the run refuses them).
fn references(dangling: Vec<super::references::Dangling>, check: &mut ScenarioCheck) {
    for d in dangling.into_iter().take(MAX_KEY_PROBLEMS) {
        check.problems.push(problem(d.path, d.message, &d.hint));
    }
}

/// Adds the line and column of each problem's value in the text.
fn locate(text: &str, problems: &mut [ScenarioProblem]) {
    if problems.iter().all(|p| p.location.is_some()) {
        return;
    }
    let map = SourceMap::new(text);
    for p in problems.iter_mut().filter(|p| p.location.is_none()) {
        p.location = map.locate(&p.path);
    }
}
