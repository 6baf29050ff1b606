//! The decision of `playbook gate`, Claude Code's `PreToolUse` hook that
//! holds a subagent to its role's contract.
//!
//! Protocol, as <https://code.claude.com/docs/en/hooks> gives it:
//! - input on stdin: a JSON object with the common fields `session_id`,
//!   `transcript_path`, `cwd`, `permission_mode`, `hook_event_name`, and —
//!   inside a subagent — `agent_id` and `agent_type` (the subagent's name),
//!   plus, for `PreToolUse`, `tool_name`, `tool_input` and `tool_use_id`
//!   (`Write`/`Edit`/`MultiEdit` name their file in `tool_input.file_path`,
//!   `NotebookEdit` in `tool_input.notebook_path`, as absolute paths);
//! - output: exit 0 with
//!   `{"hookSpecificOutput": {"hookEventName": "PreToolUse",
//!   "permissionDecision": "allow"|"deny"|"ask", "permissionDecisionReason": "..."}}`
//!   on stdout (see "PreToolUse decision control"); exit 0 with no output
//!   leaves the call to Claude Code's own permission flow.
//!
//! The role is the subagent's `agent_type` unless the command names one.
//! The main session (no `agent_type`) and subagents the playbook does not
//! know get no decision: the playbook governs its roles, not the person's
//! own session. `strict` denies calls of subagents the playbook lacks.

use serde_json::{Value, json};

use super::command;
use super::import::EXTENSION_KEY;
use super::tools::{FILE_WRITERS, mcp_server_grants, tools_behind};
use crate::model::{Playbook, Role};
use crate::scope::{holds_any_case, is_git_name, within_any_case};
use crate::validate::DEFAULT_MUTATING_ACTIONS;

/// Largest hook input read; real ones are a few KB plus the content of a
/// `Write`, which can be a whole file.
pub const MAX_HOOK_INPUT_BYTES: usize = 16 * 1024 * 1024;

/// The role extension with write scopes for Claude Code use:
/// `x_scope: {lock_scope: [...], forbidden_scope: [...]}`.
pub const SCOPE_KEY: &str = "x_scope";

/// The fields of a `PreToolUse` hook input the gate reads.
#[derive(Debug, Clone, PartialEq)]
pub struct GateInput {
    pub tool_name: String,
    pub tool_input: Value,
    pub cwd: Option<String>,
    pub agent_type: Option<String>,
}

/// Claude Code's three permission decisions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permission {
    Allow,
    Deny,
    Ask,
}

impl Permission {
    pub fn as_str(self) -> &'static str {
        match self {
            Permission::Allow => "allow",
            Permission::Deny => "deny",
            Permission::Ask => "ask",
        }
    }
}

/// What the gate answers: a decision with its reason, or none (`None`:
/// Claude Code's own permission flow decides).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub permission: Option<Permission>,
    pub reason: String,
}

impl Decision {
    fn new(permission: Permission, reason: String) -> Self {
        Decision {
            permission: Some(permission),
            reason,
        }
    }

    /// A deny for input the gate cannot read: failing closed.
    pub fn malformed(why: &str) -> Self {
        Decision::new(
            Permission::Deny,
            format!("the hook input cannot be read ({why}); the call is denied to be safe"),
        )
    }

    /// The documented hook output, or `None` for no decision.
    pub fn output(&self) -> Option<Value> {
        let p = self.permission?;
        Some(json!({
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": p.as_str(),
                "permissionDecisionReason": self.reason,
            }
        }))
    }
}

/// Write scopes given on the command line (relative to the hook's `cwd`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scopes {
    pub lock_scope: Vec<String>,
    pub forbidden_scope: Vec<String>,
    /// Absolute paths no subagent may write: the playbook the gate reads
    /// (a role that rewrote it could widen its own contract).
    pub protected: Vec<String>,
}

/// Reads a `PreToolUse` hook input.
pub fn parse_input(text: &str) -> Result<GateInput, String> {
    if text.len() > MAX_HOOK_INPUT_BYTES {
        return Err(format!(
            "the input is larger than {MAX_HOOK_INPUT_BYTES} bytes"
        ));
    }
    let value: Value = serde_json::from_str(text.trim_start_matches('\u{feff}'))
        .map_err(|e| format!("not JSON: {e}"))?;
    let Value::Object(map) = value else {
        return Err("the input is not a JSON object".into());
    };
    let text_field = |key: &str| -> Result<Option<String>, String> {
        match map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(format!("`{key}` is not text")),
        }
    };
    match text_field("hook_event_name")?.as_deref() {
        None | Some("PreToolUse") => {}
        Some(other) => {
            return Err(format!(
                "`hook_event_name` is `{other}`; playbook gate answers `PreToolUse` hooks only"
            ));
        }
    }
    let tool_name = text_field("tool_name")?
        .filter(|t| !t.is_empty())
        .ok_or("`tool_name` is missing")?;
    let tool_input = match map.get("tool_input") {
        Some(v @ Value::Object(_)) => v.clone(),
        None | Some(Value::Null) => json!({}),
        Some(_) => return Err("`tool_input` is not an object".into()),
    };
    Ok(GateInput {
        tool_name,
        tool_input,
        cwd: text_field("cwd")?.filter(|c| !c.is_empty()),
        agent_type: text_field("agent_type")?.filter(|a| !a.is_empty()),
    })
}

/// The decision for one tool call. `role` names the role when the hook
/// command does; otherwise the input's `agent_type` does.
pub fn decide(
    playbook: &Playbook,
    role: Option<&str>,
    input: &GateInput,
    scopes: &Scopes,
    strict: bool,
) -> Decision {
    let Some(name) = role.or(input.agent_type.as_deref()) else {
        return Decision {
            permission: None,
            reason: "no subagent is active (the main session); the playbook governs its roles only"
                .into(),
        };
    };
    let Some(found) = playbook.role(name) else {
        let reason = format!("`{name}` is not a role of playbook `{}`", playbook.id);
        return if strict {
            Decision::new(
                Permission::Deny,
                format!("{reason}; the gate is strict, so its calls are denied"),
            )
        } else {
            Decision {
                permission: None,
                reason,
            }
        };
    };
    let r = found.role;
    let tool = input.tool_name.as_str();
    let who = format!("role `{}` of playbook `{}`", r.name, playbook.id);
    // A `Bash` call is held to the role's tools behind it (`command.rs`);
    // what it then stands for decides whether it changes the workspace.
    let mut stands_for = None;
    if tool == BASH {
        match bash_call(r, input, scopes) {
            Ok(call) => stands_for = call,
            Err(why) => return Decision::new(Permission::Deny, format!("{who} {why}")),
        }
    } else if let Some(why) = tool_refusal(r, tool) {
        // Only a Claude Code rule the gate does not read grants the tool:
        // a person decides, rather than the hook approving any use of it.
        if let Some(rule) = restricted_rule(r, tool) {
            return Decision::new(
                Permission::Ask,
                format!(
                    "{who} may use `{tool}` only as `{rule}` (kept from Claude Code), which the gate does not read"
                ),
            );
        }
        return Decision::new(Permission::Deny, format!("{who} {why}"));
    }
    if let Some((_, key)) = FILE_WRITERS.iter().find(|(t, _)| *t == tool) {
        let path = match input.tool_input.get(*key) {
            Some(Value::String(p)) if !p.is_empty() => p,
            _ => {
                return Decision::new(
                    Permission::Deny,
                    format!(
                        "`{tool}` names no file in `tool_input.{key}`; {who} writes only where its scopes allow"
                    ),
                );
            }
        };
        if let Some(why) = write_refusal(path, input.cwd.as_deref(), r, scopes, false) {
            return Decision::new(Permission::Deny, format!("{who}: {why}"));
        }
    }
    let mutating = match stands_for {
        Some(ours) => listed_mutating(playbook, ours),
        None => is_mutating(playbook, tool),
    };
    if r.requires_user_approval() && mutating {
        return Decision::new(
            Permission::Ask,
            format!(
                "{who} needs a person's approval before a tool that changes the workspace (`{tool}`)"
            ),
        );
    }
    Decision::new(
        Permission::Allow,
        format!("`{tool}` is within the contract of {who}"),
    )
}

/// Why the role may not call `tool`, or `None`.
fn tool_refusal(role: &Role, tool: &str) -> Option<String> {
    let actions = role.actions_allowed.as_deref()?;
    let ours: Vec<&str> = tools_behind(tool).collect();
    // A restricted form kept from Claude Code (`WebFetch(domain:x)`) does
    // not grant the whole tool: see `restricted_rule`.
    let kept = kept_claude_tools(role);
    let granted = actions
        .iter()
        .any(|a| a == tool || ours.contains(&a.as_str()))
        || kept.contains(&tool)
        // A whole MCP server (`mcp__github`, `mcp__github__*`) grants its
        // tools, as it does in the subagent's own `tools`.
        || actions
            .iter()
            .map(String::as_str)
            .chain(kept.iter().copied())
            .any(|rule| mcp_server_grants(rule, tool));
    if granted {
        return None;
    }
    let listed = if actions.is_empty() {
        "none".to_string()
    } else {
        actions.join(", ")
    };
    let counterpart = if ours.is_empty() {
        String::new()
    } else {
        format!(" (`{tool}` is the playbook's {})", ours.join(" or "))
    };
    Some(format!(
        "may not use `{tool}`{counterpart}: its actions_allowed are {listed}"
    ))
}

fn is_mutating(playbook: &Playbook, tool: &str) -> bool {
    FILE_WRITERS.iter().any(|(t, _)| *t == tool)
        || listed_mutating(playbook, tool)
        || tools_behind(tool).any(|t| listed_mutating(playbook, t))
}

/// Whether the playbook counts `tool` as changing the workspace.
fn listed_mutating(playbook: &Playbook, tool: &str) -> bool {
    match &playbook.mutating_actions {
        Some(list) => list.iter().any(|m| m == tool),
        None => DEFAULT_MUTATING_ACTIONS.contains(&tool),
    }
}

const BASH: &str = "Bash";

/// Whether the role may make this `Bash` call: `Ok(Some(tool))` when the
/// command is one of its narrow tools behind `Bash`, `Ok(None)` when the
/// role may run any command (or a Claude Code rule it keeps allows this
/// one), `Err` why not.
fn bash_call(
    role: &Role,
    input: &GateInput,
    scopes: &Scopes,
) -> Result<Option<&'static str>, String> {
    // No actions_allowed: every tool.
    let Some(actions) = role.actions_allowed.as_deref() else {
        return Ok(None);
    };
    let kept = kept_claude_tools(role);
    let any_command =
        actions.iter().any(|a| a == BASH || a == "run_command") || kept.contains(&BASH);
    if any_command {
        return Ok(None);
    }
    let granted: Vec<&str> = tools_behind(BASH)
        .filter(|ours| actions.iter().any(|a| a == ours))
        .collect();
    let rules: Vec<&str> = kept
        .iter()
        .filter_map(|t| t.strip_prefix("Bash(")?.strip_suffix(')'))
        .collect();
    if granted.is_empty() && rules.is_empty() {
        return Err(tool_refusal(role, BASH).unwrap_or_else(|| "may not use `Bash`".into()));
    }
    let Some(Value::String(command)) = input.tool_input.get("command") else {
        return Err("calls `Bash` without a `tool_input.command` to hold to its tools".into());
    };
    let words = command::plain(command).map_err(|why| {
        format!("may run through `Bash` only one plain command of its tools: {why}")
    })?;
    if rules
        .iter()
        .any(|rule| command::rule_matches(rule, command))
    {
        return Ok(None);
    }
    if granted.is_empty() {
        return Err(format!(
            "may run through `Bash` only what its Claude Code rules allow ({}); `{command}` matches none",
            rules
                .iter()
                .map(|r| format!("`Bash({r})`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let found = command::tool_of(&words, &granted)?;
    let paths = command::written_paths(&found).map_err(|why| {
        format!("may run `{command}` only as the gate reads it: {why}; give it run_command to run any command")
    })?;
    let verb = if found.tool == "delete_file" {
        "delete"
    } else {
        "restore"
    };
    for path in paths {
        // Held like a deletion: a restored directory may hold what the
        // role may not change.
        if let Some(why) = write_refusal(path, input.cwd.as_deref(), role, scopes, true) {
            return Err(format!("may not {verb} `{path}`: {why}"));
        }
    }
    Ok(Some(found.tool))
}

/// A restricted form of `tool` the role keeps from Claude Code
/// (`WebFetch(domain:example.com)`), if any.
fn restricted_rule<'r>(role: &'r Role, tool: &str) -> Option<&'r str> {
    kept_claude_tools(role).into_iter().find(|t| {
        t.strip_prefix(tool)
            .is_some_and(|rest| rest.starts_with('(') && rest.ends_with(')'))
    })
}

/// The Claude Code tools the role keeps from import (`Bash(npm run lint:*)`).
fn kept_claude_tools(role: &Role) -> Vec<&str> {
    role.extra
        .get(EXTENSION_KEY)
        .and_then(|x| x.get("tools_unmapped"))
        .and_then(Value::as_array)
        .map(|l| l.iter().filter_map(Value::as_str).map(str::trim).collect())
        .unwrap_or_default()
}

/// Why the role may not write (or, `deleting`, remove) `path`, or `None`.
fn write_refusal(
    path: &str,
    cwd: Option<&str>,
    role: &Role,
    scopes: &Scopes,
    deleting: bool,
) -> Option<String> {
    // Every check below places the path in the project by the hook's
    // `cwd`; without an absolute one (Claude Code always sends it) none
    // can be made, so the write is refused rather than let through.
    let Some(cwd) = cwd.filter(|c| is_absolute(c)) else {
        return Some(format!(
            "the hook input has no absolute `cwd` to place `{path}` in the project, so no write can be checked"
        ));
    };
    let cwd = Some(cwd);
    let rel = match project_relative(path, cwd) {
        Err(why) => return Some(format!("{why}; it writes only inside the project")),
        Ok(rel) => rel,
    };
    if let Some(p) = protected(&rel, cwd, &scopes.protected, deleting) {
        return Some(format!(
            "`{path}` is (or holds) the playbook `{p}` whose contracts the gate enforces; it may not change it"
        ));
    }
    if let Some(why) = guarded(&rel) {
        return Some(why);
    }
    // A directory removed with what is in it: nothing guarded may be in it.
    if deleting {
        let lower = rel.to_ascii_lowercase();
        if let Some(g) = GUARDED.iter().find(|g| within(g, &lower)) {
            return Some(format!(
                "`{path}` holds `{g}`, Claude Code configuration that holds subagents to their contracts"
            ));
        }
    }
    scope_refusal(&rel, role, scopes, deleting)
}

/// The protected path that the project-relative `rel` (under `cwd`) is,
/// or, `or_holds`, that lies inside it, if any.
fn protected<'a>(
    rel: &str,
    cwd: Option<&str>,
    protected: &'a [String],
    or_holds: bool,
) -> Option<&'a str> {
    let cwd = lexical(&cwd?.replace('\\', "/"))?;
    let full: Vec<String> = cwd
        .into_iter()
        .chain(rel.split('/').map(str::to_string))
        .collect();
    protected
        .iter()
        .find(|p| {
            lexical(&p.replace('\\', "/")).is_some_and(|pp| {
                (pp.len() == full.len() || or_holds && pp.len() > full.len())
                    && pp.iter().zip(&full).all(|(a, b)| a.eq_ignore_ascii_case(b))
            })
        })
        .map(String::as_str)
}

/// Claude Code files that decide what a subagent may do: a subagent that
/// could rewrite them could remove the hook or widen its own tools.
const GUARDED: &[&str] = &[
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".claude/agents",
];

/// Why a write to the project-relative `path` would change the rules the
/// subagent runs under, or `None`. Compared without case, as the file
/// systems of macOS and Windows do.
fn guarded(path: &str) -> Option<String> {
    let lower = path.to_ascii_lowercase();
    GUARDED.iter().find(|g| within(&lower, g)).map(|g| {
        format!("`{path}` is Claude Code configuration (`{g}`) that holds subagents to their contracts; only a person changes it")
    })
}

/// Why writing the project-relative `path` breaks a scope, or `None`.
/// `whole` (a deletion or a restore, which may act on a directory and all
/// it holds): a forbidden path inside `path` refuses it too, as `rm -rf
/// src` removes `src/secret/`. A lock_scope needs no such check: what lies
/// inside a path within it is within it.
fn scope_refusal(path: &str, role: &Role, scopes: &Scopes, whole: bool) -> Option<String> {
    let from_role = |key: &str| -> Result<Vec<String>, String> {
        scope_entries(role.extra.get(SCOPE_KEY), key).ok_or_else(|| {
            format!(
                "its `{SCOPE_KEY}.{key}` is not a list of paths, so no write can be checked against it"
            )
        })
    };
    let role_forbidden = match from_role("forbidden_scope") {
        Ok(list) => list,
        Err(why) => return Some(why),
    };
    let role_lock = match from_role("lock_scope") {
        Ok(list) => list,
        Err(why) => return Some(why),
    };
    // Without case: on a case-insensitive file system `SRC/x` is `src/x`,
    // and a forbidden path must not be reachable by spelling it otherwise.
    // Unicode's lowercase, as the runner folds (`crate::scope`).
    let forbidden = || scopes.forbidden_scope.iter().chain(&role_forbidden);
    if let Some(f) = forbidden().find(|f| within_any_case(path, f)) {
        return Some(format!("`{path}` is in the forbidden_scope (`{f}`)"));
    }
    if whole && let Some(f) = forbidden().find(|f| holds_any_case(path, f)) {
        return Some(format!(
            "`{path}` holds `{f}`, which is in the forbidden_scope; removing or restoring `{path}` would change it too"
        ));
    }
    // Each source that gives a lock_scope confines the writes.
    for lock in [&scopes.lock_scope, &role_lock] {
        if !lock.is_empty() && !lock.iter().any(|l| within(path, l)) {
            return Some(format!(
                "`{path}` is outside the lock_scope ({})",
                lock.join(", ")
            ));
        }
    }
    None
}

/// The entries of one scope (`lock_scope` or `forbidden_scope`) of a
/// role's `x_scope` value, as the gate reads them: none when `x_scope` or
/// the key is absent, one path as text, or a list of paths. `None` for any
/// other shape: a scope the gate cannot read confines every write (fail
/// closed) rather than none. The semantic diff judges scope changes with
/// the same reading.
pub(crate) fn scope_entries(x_scope: Option<&Value>, key: &str) -> Option<Vec<String>> {
    let Some(scope) = x_scope else {
        return Some(Vec::new());
    };
    match scope.get(key) {
        None | Some(Value::Null) if scope.is_object() => Some(Vec::new()),
        Some(Value::String(s)) => Some(vec![s.clone()]),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| i.as_str().map(str::to_string))
            .collect(),
        _ => None,
    }
}

/// A scope entry as a path: `/`-separated, without `./`, `**` or a
/// trailing `/` (`./src/**` is `src`; `.` and `` are everything).
pub(crate) fn scope_path(scope: &str) -> String {
    scope
        .replace('\\', "/")
        .trim_start_matches("./")
        .trim_end_matches("**")
        .trim_end_matches('/')
        .to_string()
}

/// Whether `path` lies in the scope entry `scope`: the file itself or a
/// directory above it (`src`, `src/`, `src/**`; `.` is everything).
pub(crate) fn within(path: &str, scope: &str) -> bool {
    let scope = scope_path(scope);
    let scope = scope.as_str();
    scope.is_empty()
        || scope == "."
        || path == scope
        || (path.len() > scope.len()
            && path.starts_with(scope)
            && path.as_bytes()[scope.len()] == b'/')
}

/// `path` relative to `cwd`, `/`-separated, without `.` or `..`; `Err`
/// when it leaves the project (absolute elsewhere, `..` above it, `~`),
/// or points into `.git`.
fn project_relative(path: &str, cwd: Option<&str>) -> Result<String, String> {
    if path.contains('\0') {
        return Err("the path contains a NUL byte".into());
    }
    let unified = path.replace('\\', "/");
    if unified.starts_with('~') {
        return Err(format!(
            "`{path}` is in a home directory, outside the project"
        ));
    }
    let parts = if is_absolute(&unified) {
        let cwd = cwd
            .map(|c| c.replace('\\', "/"))
            .filter(|c| is_absolute(c))
            .ok_or_else(|| format!("`{path}` is absolute and the hook input has no absolute `cwd` to compare it with"))?;
        let base = lexical(&cwd).ok_or_else(|| format!("`cwd` `{cwd}` is not a usable path"))?;
        let full =
            lexical(&unified).ok_or_else(|| format!("`{path}` goes above the file system root"))?;
        let same_drive = |a: &str, b: &str| a.eq_ignore_ascii_case(b);
        if full.len() < base.len()
            || !full
                .iter()
                .zip(&base)
                .all(|(a, b)| a == b || same_drive(a, b) && a.ends_with(':'))
        {
            return Err(format!("`{path}` is outside the project directory `{cwd}`"));
        }
        full[base.len()..].to_vec()
    } else {
        lexical(&unified).ok_or_else(|| format!("`{path}` leaves the project directory"))?
    };
    if parts.is_empty() {
        return Err(format!(
            "`{path}` is the project directory itself, not a file"
        ));
    }
    // At any depth: a nested repository's or a submodule's hooks and
    // configuration run programs on its next git command, as the
    // project's own do.
    if parts.iter().any(|p| is_git_name(p)) {
        return Err(format!("`{path}` goes into `.git` (git's own files)"));
    }
    Ok(parts.join("/"))
}

/// Whether `path` is absolute, POSIX (`/x`) or Windows (`C:\\x`, `C:/x`).
fn is_absolute(path: &str) -> bool {
    path.starts_with('/') || path.starts_with('\\') || path.as_bytes().get(1) == Some(&b':')
}

/// The segments of a `/`-separated path with `.` and `..` resolved;
/// `None` when `..` climbs above the start.
fn lexical(path: &str) -> Option<Vec<String>> {
    let mut parts: Vec<String> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p.to_string()),
        }
    }
    Some(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_relative_to_cwd_and_never_escape() {
        let cwd = Some("/work/proj");
        assert_eq!(
            project_relative("/work/proj/src/a.rs", cwd).unwrap(),
            "src/a.rs"
        );
        assert_eq!(
            project_relative("src/./b/../a.rs", cwd).unwrap(),
            "src/a.rs"
        );
        assert_eq!(
            project_relative("/work/proj/x/../src/a.rs", cwd).unwrap(),
            "src/a.rs"
        );
        for bad in [
            "/work/proj/../other/a.rs",
            "/work/projX/a.rs",
            "/etc/passwd",
            "../a.rs",
            "src/../../a.rs",
            "~/.bashrc",
            "/work/proj",
            "/work/proj/.git/config",
            "a\0b",
        ] {
            assert!(project_relative(bad, cwd).is_err(), "{bad}");
        }
        assert!(project_relative("/work/proj/a", None).is_err());
        assert_eq!(
            project_relative("C:\\p\\src\\a.rs", Some("c:\\p")).unwrap(),
            "src/a.rs"
        );
    }

    #[test]
    fn role_scopes_fail_closed() {
        let role = |scope: Value| Role {
            name: "w".into(),
            extra: [(SCOPE_KEY.to_string(), scope)].into_iter().collect(),
            ..Default::default()
        };
        let none = Scopes::default();
        assert!(
            scope_refusal("src/a", &role(json!({"lock_scope": "src"})), &none, false).is_none()
        );
        assert!(
            scope_refusal("doc/a", &role(json!({"lock_scope": ["src"]})), &none, false).is_some()
        );
        assert!(
            scope_refusal(
                "src/g/a",
                &role(json!({"forbidden_scope": ["src/g"]})),
                &none,
                false
            )
            .is_some()
        );
        for bad in [
            json!({"lock_scope": 3}),
            json!({"forbidden_scope": [1]}),
            json!("src"),
            json!(null),
        ] {
            assert!(
                scope_refusal("src/a", &role(bad.clone()), &none, false).is_some(),
                "{bad}"
            );
        }
        let flags = Scopes {
            lock_scope: vec!["src".into()],
            ..Default::default()
        };
        assert!(
            scope_refusal(
                "src/a",
                &role(json!({"lock_scope": ["src/a"]})),
                &flags,
                false
            )
            .is_none()
        );
        assert!(
            scope_refusal(
                "src/b",
                &role(json!({"lock_scope": ["src/a"]})),
                &flags,
                false
            )
            .is_some()
        );
    }

    #[test]
    fn the_hook_configuration_is_guarded() {
        assert!(guarded(".claude/settings.json").is_some());
        assert!(guarded(".CLAUDE/agents/worker.md").is_some());
        assert!(guarded(".claude/commands/x.md").is_none());
        assert!(guarded("src/.claude/settings.json").is_none());
    }

    #[test]
    fn scopes_are_prefixes_of_whole_segments() {
        assert!(within("src/a.rs", "src"));
        assert!(within("src/a.rs", "./src/"));
        assert!(within("src/a.rs", "src/**"));
        assert!(!within("srcx/a.rs", "src"));
        assert!(within("a.rs", "."));
    }

    #[test]
    fn malformed_input_is_refused_with_a_reason() {
        for bad in [
            "",
            "[]",
            "{}",
            "{\"tool_name\":3}",
            "{\"tool_name\":\"Write\",\"tool_input\":[]}",
            "{\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"Write\"}",
        ] {
            assert!(parse_input(bad).is_err(), "{bad}");
        }
        let d = Decision::malformed("x");
        assert_eq!(
            d.output().unwrap()["hookSpecificOutput"]["permissionDecision"],
            "deny"
        );
    }
}
