//! One rule per fixable code: from the document and the finding (its code
//! and pointer) to titled edits. A rule returns nothing when the document
//! does not have the shape its fix needs, so a fix is offered only when it
//! can apply.

use serde_json::{Value, json};

use crate::edit::Op;
use crate::finding::{Code, Finding, escape_pointer, pointer_tokens};
use crate::gate::BUILTIN_POLICIES;
use crate::validate::ESCALATION_TRIGGERS;
use crate::validate::Options;

/// Codes with a rule below (PB007 in `fix.rs`: it works on text), in
/// documentation order.
pub(super) const FIXABLE: &[Code] = &[
    Code::UnknownField,
    Code::DuplicateKey,
    Code::StageWithoutRoles,
    Code::ParallelismZero,
    Code::ParallelismHigh,
    Code::NoEnabledStage,
    Code::ReviewerInputs,
    Code::DuplicateRole,
    Code::MutatingWithoutApproval,
    Code::ReviewerWithoutVerdict,
    Code::TesterWithoutFailures,
    Code::UnknownPlaceholder,
    Code::UnknownHandoff,
    Code::UnboundedLoop,
    Code::HandoffToDisabled,
    Code::HandoffToItself,
    Code::NoEscalation,
    Code::ZeroIterations,
    Code::UnknownEscalation,
    Code::GateUnpromisedField,
    Code::UnknownPolicy,
];

/// The retry limit a fix sets: the common review budget the hints name.
const RETRY_LIMIT: u64 = 3;

type Fixes = Vec<(String, Vec<Op>)>;

pub(super) fn fixes(doc: &Value, f: &Finding) -> Fixes {
    let role = role_of(&f.path);
    let role = role.as_deref();
    let found = match f.code {
        Code::UnknownField => unknown_field(doc, &f.path),
        Code::StageWithoutRoles => stage_of(&f.path).and_then(|(stage, name)| {
            let ops = set(doc, &format!("{stage}/enabled"), json!(false))?;
            Some(vec![(format!("Disable stage `{name}`"), ops)])
        }),
        Code::ParallelismZero => replace_number(doc, &f.path, 1, "Run one task at a time"),
        Code::ParallelismHigh => {
            let limit = Options::default().max_parallel_worktrees;
            replace_number(
                doc,
                &f.path,
                u64::from(limit),
                &format!("Lower to {limit} parallel worktrees"),
            )
        }
        Code::NoEnabledStage => enable_a_stage(doc),
        Code::ReviewerInputs => role.and_then(|r| reviewer_inputs(doc, r)),
        Code::DuplicateRole => role.and_then(|r| rename_role(doc, r)),
        Code::MutatingWithoutApproval => role.and_then(|r| {
            let ops = set(
                doc,
                &format!("{r}/gates/requires_user_approval"),
                json!(true),
            )?;
            Some(vec![("Require a user's approval".to_string(), ops)])
        }),
        Code::ReviewerWithoutVerdict => role.and_then(|r| require_output(doc, r, "verdict")),
        Code::TesterWithoutFailures => role.and_then(|r| require_output(doc, r, "failed_cases")),
        Code::UnknownPlaceholder => role.and_then(|r| {
            let name = quoted(&f.message, "`{", "}`")?;
            let ops = append(doc, &format!("{r}/inputs_required"), name)?;
            Some(vec![(format!("Add `{name}` to the role's inputs"), ops)])
        }),
        Code::UnknownHandoff => unknown_handoff(doc, &f.path),
        Code::HandoffToDisabled | Code::HandoffToItself => {
            let target = doc.pointer(&f.path).and_then(Value::as_str);
            target.map(|t| {
                vec![(
                    format!("Remove the handoff to `{t}`"),
                    vec![Op::Remove {
                        path: f.path.clone(),
                    }],
                )]
            })
        }
        Code::UnboundedLoop => role.and_then(|r| retry_limit(doc, r)),
        Code::NoEscalation => role.and_then(|r| {
            let ops = append(doc, &format!("{r}/retry_policy/escalate_on"), "retry_limit")?;
            Some(vec![("Escalate on retry_limit".to_string(), ops)])
        }),
        Code::ZeroIterations => replace_number(
            doc,
            &f.path,
            RETRY_LIMIT,
            &format!("Set the retry limit to {RETRY_LIMIT}"),
        ),
        Code::UnknownEscalation => unknown_escalation(doc, &f.path),
        Code::GateUnpromisedField if f.path.ends_with("/gates/pass_condition") => {
            role.and_then(|r| require_output(doc, r, quoted(&f.message, "reads `", "`")?))
        }
        Code::UnknownPolicy => unknown_policy(doc, f, role),
        _ => None,
    };
    found.unwrap_or_default()
}

/// `/workflow/<stage>/roles/<i>` of a pointer inside a role.
fn role_of(path: &str) -> Option<String> {
    let tokens = pointer_tokens(path);
    match tokens.as_slice() {
        [w, stage, r, index, ..] if w == "workflow" && r == "roles" => {
            Some(format!("/workflow/{}/roles/{index}", escape_pointer(stage)))
        }
        _ => None,
    }
}

/// `/workflow/<stage>` of a pointer inside a stage, and the stage's name.
fn stage_of(path: &str) -> Option<(String, String)> {
    let tokens = pointer_tokens(path);
    match tokens.as_slice() {
        [w, stage, ..] if w == "workflow" => Some((
            format!("/workflow/{}", escape_pointer(stage)),
            stage.clone(),
        )),
        _ => None,
    }
}

/// The text between `open` and `close` in a message (the name a finding
/// quotes), when it is a plain identifier.
fn quoted<'a>(message: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = message.find(open)? + open.len();
    let len = message[start..].find(close)?;
    let name = &message[start..start + len];
    (!name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || "_-.".contains(c)))
    .then_some(name)
}

/// Ops that make `path` hold `value`, creating the mappings on the way.
fn set(doc: &Value, path: &str, value: Value) -> Option<Vec<Op>> {
    let tokens = pointer_tokens(path);
    let mut current = doc;
    let mut at = String::new();
    for (i, token) in tokens.iter().enumerate() {
        let next = format!("{at}/{}", escape_pointer(token));
        let child = match current {
            Value::Object(map) => map.get(token),
            Value::Array(items) => items.get(token.parse::<usize>().ok()?),
            _ => return None,
        };
        match child {
            Some(Value::Null) | None if i + 1 < tokens.len() => {
                // The rest does not exist: add it as one nested value.
                let nested = tokens[i + 1..]
                    .iter()
                    .rev()
                    .fold(value, |inner, key| json!({ key.as_str(): inner }));
                if !current.is_object() {
                    return None;
                }
                return Some(vec![Op::Add {
                    path: next,
                    value: nested,
                }]);
            }
            Some(child) if i + 1 < tokens.len() => {
                current = child;
                at = next;
            }
            Some(_) => return Some(vec![Op::Replace { path: next, value }]),
            None => {
                current.as_object()?;
                return Some(vec![Op::Add { path: next, value }]);
            }
        }
    }
    None
}

/// Ops that add `item` to the list at `path` (created when missing).
fn append(doc: &Value, path: &str, item: &str) -> Option<Vec<Op>> {
    match doc.pointer(path) {
        Some(Value::Array(items)) => {
            if items.iter().any(|i| i == item) {
                return None;
            }
            Some(vec![Op::Add {
                path: format!("{path}/-"),
                value: json!(item),
            }])
        }
        Some(Value::Null) | None => set(doc, path, json!([item])),
        Some(_) => None,
    }
}

fn replace_number(doc: &Value, path: &str, to: u64, title: &str) -> Option<Fixes> {
    // A count as the model reads it: `0.0` is the 0 the finding is about.
    crate::model::count::whole(doc.pointer(path)?)?;
    Some(vec![(
        title.to_string(),
        vec![Op::Replace {
            path: path.to_string(),
            value: json!(to),
        }],
    )])
}

fn require_output(doc: &Value, role: &str, field: &str) -> Option<Fixes> {
    let ops = append(doc, &format!("{role}/outputs_contract/required"), field)?;
    Some(vec![(format!("Add `{field}` to the required fields"), ops)])
}

fn retry_limit(doc: &Value, role: &str) -> Option<Fixes> {
    let policy = doc.pointer(&format!("{role}/retry_policy"));
    let escalates = policy
        .and_then(|p| p.get("escalate_on"))
        .and_then(Value::as_array)
        .is_some_and(|e| !e.is_empty());
    let mut ops = set(
        doc,
        &format!("{role}/retry_policy/max_iterations"),
        json!(RETRY_LIMIT),
    )?;
    let title = if escalates {
        format!("Add a retry limit of {RETRY_LIMIT}")
    } else {
        // Both fields at once, so the limit does not raise PB401.
        if policy.is_some_and(Value::is_object) {
            ops.extend(set(
                doc,
                &format!("{role}/retry_policy/escalate_on"),
                json!(["retry_limit"]),
            )?);
        } else {
            ops = set(
                doc,
                &format!("{role}/retry_policy"),
                json!({"max_iterations": RETRY_LIMIT, "escalate_on": ["retry_limit"]}),
            )?;
        }
        format!("Add a retry limit of {RETRY_LIMIT} escalating on retry_limit")
    };
    Some(vec![(title, ops)])
}

fn reviewer_inputs(doc: &Value, role: &str) -> Option<Fixes> {
    let path = format!("{role}/inputs_required");
    let present: Vec<&str> = doc
        .pointer(&path)
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let missing: Vec<&str> = ["spec_path", "commit_sha"]
        .into_iter()
        .filter(|i| !present.contains(i))
        .collect();
    let ops = match doc.pointer(&path) {
        Some(Value::Array(_)) => missing
            .iter()
            .map(|m| Op::Add {
                path: format!("{path}/-"),
                value: json!(m),
            })
            .collect(),
        _ => set(doc, &path, json!(missing))?,
    };
    if missing.is_empty() {
        return None;
    }
    let names: Vec<String> = missing.iter().map(|m| format!("`{m}`")).collect();
    Some(vec![(
        format!("Require {} as inputs", names.join(" and ")),
        ops,
    )])
}

/// Every role name of the document.
fn role_names(doc: &Value) -> Vec<&str> {
    let Some(workflow) = doc.get("workflow").and_then(Value::as_object) else {
        return Vec::new();
    };
    workflow
        .values()
        .filter_map(|stage| stage.get("roles")?.as_array())
        .flatten()
        .filter_map(|role| role.get("name")?.as_str())
        .collect()
}

fn rename_role(doc: &Value, role: &str) -> Option<Fixes> {
    let name = doc.pointer(&format!("{role}/name"))?.as_str()?;
    let (_, stage) = stage_of(role)?;
    let names = role_names(doc);
    let base = format!("{name}_{stage}");
    let fresh = std::iter::once(base.clone())
        .chain((2..100).map(|n| format!("{base}_{n}")))
        .find(|candidate| !names.contains(&candidate.as_str()))?;
    Some(vec![(
        format!("Rename to `{fresh}`"),
        vec![Op::Replace {
            path: format!("{role}/name"),
            value: json!(fresh),
        }],
    )])
}

/// The closest of `candidates` to `word`, within `distance` edits.
fn closest<'a>(
    word: &str,
    candidates: impl Iterator<Item = &'a str>,
    distance: usize,
) -> Option<&'a str> {
    candidates
        .filter(|c| *c != word)
        .map(|c| (strsim::levenshtein(c, word), c))
        .filter(|(d, _)| *d <= distance)
        .min()
        .map(|(_, c)| c)
}

fn unknown_handoff(doc: &Value, path: &str) -> Option<Fixes> {
    let target = doc.pointer(path)?.as_str()?;
    // A role never hands a task to itself (PB306): its own name is no
    // correction of a misspelt target.
    let own = path
        .rsplit_once("/handoff_to/")
        .and_then(|(role, _)| doc.pointer(&format!("{role}/name")))
        .and_then(Value::as_str);
    let mut fixes = Vec::new();
    let others = role_names(doc).into_iter().filter(|n| Some(*n) != own);
    if let Some(name) = closest(target, others, 3) {
        fixes.push((
            format!("Replace `{target}` with `{name}`"),
            vec![Op::Replace {
                path: path.to_string(),
                value: json!(name),
            }],
        ));
    }
    fixes.push((
        format!("Remove the handoff to `{target}`"),
        vec![Op::Remove {
            path: path.to_string(),
        }],
    ));
    Some(fixes)
}

fn unknown_escalation(doc: &Value, path: &str) -> Option<Fixes> {
    let trigger = doc.pointer(path)?.as_str()?;
    let mut fixes = Vec::new();
    if let Some(known) = closest(trigger, ESCALATION_TRIGGERS.iter().copied(), 3) {
        fixes.push((
            format!("Replace `{trigger}` with `{known}`"),
            vec![Op::Replace {
                path: path.to_string(),
                value: json!(known),
            }],
        ));
    }
    fixes.push((
        format!("Remove `{trigger}`"),
        vec![Op::Remove {
            path: path.to_string(),
        }],
    ));
    Some(fixes)
}

fn unknown_field(doc: &Value, path: &str) -> Option<Fixes> {
    doc.pointer(path)?;
    let tokens = pointer_tokens(path);
    let key = tokens.last()?;
    let parent: String = tokens[..tokens.len() - 1]
        .iter()
        .map(|t| format!("/{}", escape_pointer(t)))
        .collect();
    let extension = format!("x_{key}");
    let mut fixes = Vec::new();
    if doc.pointer(&parent)?.get(&extension).is_none() {
        // A rename in place: the key keeps its place, its comment and its
        // value as written (a remove and an add would move it to the end
        // and write the value afresh).
        fixes.push((
            format!("Rename to `{extension}` (an extension field)"),
            vec![Op::Rename {
                path: path.to_string(),
                to: extension,
            }],
        ));
    }
    fixes.push((
        format!("Remove `{key}`"),
        vec![Op::Remove {
            path: path.to_string(),
        }],
    ));
    Some(fixes)
}

fn enable_a_stage(doc: &Value) -> Option<Fixes> {
    let workflow = doc.get("workflow")?.as_object()?;
    let (name, _) = workflow.iter().find(|(_, stage)| {
        stage
            .get("roles")
            .and_then(Value::as_array)
            .is_some_and(|r| !r.is_empty())
    })?;
    let ops = set(
        doc,
        &format!("/workflow/{}/enabled", escape_pointer(name)),
        json!(true),
    )?;
    Some(vec![(format!("Enable stage `{name}`"), ops)])
}

fn unknown_policy(doc: &Value, f: &Finding, role: Option<&str>) -> Option<Fixes> {
    let key = quoted(&f.message, "names policy `", "`")?;
    let gate = doc.pointer(&f.path)?.as_str()?;
    let mut fixes = Vec::new();
    let defined = doc
        .get("policies")
        .and_then(Value::as_object)
        .map(|p| p.keys().map(String::as_str).collect::<Vec<_>>())
        .unwrap_or_default();
    let known = defined
        .into_iter()
        .chain(BUILTIN_POLICIES.iter().map(|p| p.key));
    if gate.trim() == key
        && let Some(name) = closest(key, known, 2)
    {
        fixes.push((
            format!("Replace `{key}` with `{name}`"),
            vec![Op::Replace {
                path: f.path.clone(),
                value: json!(name),
            }],
        ));
    }
    // Defining it as a boolean output is only whole for a role's gate,
    // whose outputs contract can promise the field.
    if let Some(role) = role
        && f.path.ends_with("/gates/pass_condition")
    {
        let expression = format!("{key} == true");
        let mut ops = set(
            doc,
            &format!("/policies/{}", escape_pointer(key)),
            json!(expression),
        )?;
        let promised = doc
            .pointer(&format!("{role}/outputs_contract/required"))
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|x| x == key));
        if !promised {
            ops.extend(append(
                doc,
                &format!("{role}/outputs_contract/required"),
                key,
            )?);
        }
        fixes.push((format!("Define policy `{key}` as `{expression}`"), ops));
    }
    Some(fixes)
}
