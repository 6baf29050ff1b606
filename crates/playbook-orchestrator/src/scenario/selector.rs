//! Role selectors: how a scenario's `roles` keys address a playbook's roles.
//!
//! A key is one of
//!
//! | key               | scripts                                                        |
//! |-------------------|----------------------------------------------------------------|
//! | `worker`          | the role named `worker`                                        |
//! | `stage:build#2`   | the 2nd role of stage `build` (positions count from 1)         |
//! | `mode:worker#1`   | the 1st role whose mode is `worker`, in the playbook's order   |
//! | `mode:reviewer`   | every role whose mode is `reviewer`                            |
//! | `stage:build`     | every role of stage `build`                                    |
//!
//! A role matched by several keys takes the script of the most precise one:
//! exact name > position (`stage:S#n`, `mode:M#n`) > group (`mode:M`,
//! `stage:S`). Two keys of the same precision on one role are ambiguous and
//! refused. A key that equals a role name is always that name, whatever it
//! looks like, so no playbook can make its own role unaddressable.
//!
//! Resolution happens once, before a run, against the playbook; a selector
//! that matches nothing is refused with a short explanation (a few
//! suggestions and a count, never the whole role list).

use std::collections::{HashMap, HashSet};

use indexmap::IndexMap;
use playbook_core::Playbook;
use playbook_core::model::RoleMode;

/// Most role names quoted in one message.
const MAX_QUOTED: usize = 3;

/// A parsed `roles` key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    /// A role name.
    Name(String),
    /// Roles of a mode; `index` (0-based) picks one in the playbook's order.
    Mode {
        mode: RoleMode,
        index: Option<usize>,
    },
    /// Roles of a stage; `index` (0-based) picks one by position.
    Stage { stage: String, index: Option<usize> },
}

/// How precise a selector is: a role matched by several keys takes the
/// script of the most precise one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Precision {
    /// `mode:M`, `stage:S`: every role of a kind.
    Group,
    /// `stage:S#n`, `mode:M#n`: one role by its position.
    Position,
    /// The role's own name.
    Name,
}

impl Precision {
    fn as_str(self) -> &'static str {
        match self {
            Precision::Group => "group",
            Precision::Position => "position",
            Precision::Name => "name",
        }
    }
}

impl Selector {
    /// Parses a key. A key equal to one of the playbook's role names is that
    /// name, even when it contains `:` or `#`.
    pub fn parse(key: &str, index: &RoleIndex<'_>) -> Result<Selector, String> {
        if index.has(key) {
            return Ok(Selector::Name(key.to_string()));
        }
        Selector::parse_syntax(key)
    }

    /// Parses a key by its syntax alone.
    pub fn parse_syntax(key: &str) -> Result<Selector, String> {
        let (kind, rest) = match key.split_once(':') {
            Some((kind @ ("mode" | "stage"), rest)) => (kind, rest),
            _ => return Ok(Selector::Name(key.to_string())),
        };
        let (what, index) = match rest.rsplit_once('#') {
            Some((what, n)) => (what, Some(position(&short(key), n)?)),
            None => (rest, None),
        };
        let shown = short(key);
        if what.is_empty() {
            return Err(format!(
                "`{shown}` names no {kind}: write `{kind}:<{kind}>` or `{kind}:<{kind}>#<n>`"
            ));
        }
        if kind == "stage" {
            return Ok(Selector::Stage {
                stage: what.to_string(),
                index,
            });
        }
        match RoleMode::ALL.iter().find(|m| m.as_str() == what) {
            Some(&mode) => Ok(Selector::Mode { mode, index }),
            None => {
                let modes: Vec<&str> = RoleMode::ALL.iter().map(|m| m.as_str()).collect();
                let hint = closest(what, modes.iter().copied())
                    .map(|m| format!("did you mean `mode:{m}`? "))
                    .unwrap_or_default();
                Err(format!(
                    "`{shown}`: `{}` is not a mode; {hint}modes are {}",
                    short(what),
                    modes.join(", ")
                ))
            }
        }
    }

    pub fn precision(&self) -> Precision {
        match self {
            Selector::Name(_) => Precision::Name,
            Selector::Mode { index: Some(_), .. } | Selector::Stage { index: Some(_), .. } => {
                Precision::Position
            }
            Selector::Mode { index: None, .. } | Selector::Stage { index: None, .. } => {
                Precision::Group
            }
        }
    }

    /// The names of the roles the selector matches, in the playbook's
    /// order; `None` when it matches none ([`Selector::explain`] says why).
    pub fn find(&self, index: &RoleIndex<'_>) -> Option<Vec<String>> {
        // A position clones one name; only a group clones its list.
        let pick = |roles: &[String], at: Option<usize>| match at {
            None if roles.is_empty() => None,
            None => Some(roles.to_vec()),
            Some(k) => roles.get(k).map(|name| vec![name.clone()]),
        };
        match self {
            Selector::Name(name) => index.has(name).then(|| vec![name.clone()]),
            Selector::Mode { mode, index: at } => pick(index.of_mode(*mode), *at),
            Selector::Stage { stage, index: at } => pick(index.of_stage(stage)?, *at),
        }
    }

    /// Why the selector `key` matches no role: a short message with a few
    /// suggestions and counts.
    pub fn explain(&self, key: &str, index: &RoleIndex<'_>) -> String {
        let key = &short(key);
        let playbook = index.playbook;
        match self {
            Selector::Name(name) => missing_name(key, name, playbook),
            Selector::Mode { mode, index: at } => {
                let of_mode = index.of_mode(*mode);
                if of_mode.is_empty() {
                    return format!(
                        "`{key}`: no role of this playbook has mode {mode} ({})",
                        modes_present(playbook)
                    );
                }
                out_of_range(key, of_mode, *at, &format!("role(s) of mode {mode}"))
            }
            Selector::Stage { stage, index: at } => {
                let Some((_, found)) = playbook.stages().find(|(name, _)| name == stage) else {
                    let names: Vec<&str> = playbook.stages().map(|(name, _)| name).collect();
                    let hint = closest(stage, names.iter().copied())
                        .map(|s| format!("did you mean `stage:{s}`? "))
                        .unwrap_or_default();
                    return format!(
                        "`{key}`: the playbook has no stage `{stage}`; {hint}its {} stage(s): {}",
                        names.len(),
                        quote(&names)
                    );
                };
                let roles: Vec<String> = found.roles().iter().map(|r| r.name.clone()).collect();
                if roles.is_empty() {
                    return format!("`{key}`: stage `{stage}` has no roles");
                }
                out_of_range(key, &roles, *at, &format!("role(s) in stage {stage}"))
            }
        }
    }
}

/// The playbook's roles by name, mode and stage, indexed once for every key
/// of a scenario, so resolving is linear in keys plus roles.
#[derive(Debug)]
pub struct RoleIndex<'p> {
    pub playbook: &'p Playbook,
    names: HashSet<&'p str>,
    by_mode: HashMap<RoleMode, Vec<String>>,
    by_stage: HashMap<&'p str, Vec<String>>,
}

impl<'p> RoleIndex<'p> {
    pub fn new(playbook: &'p Playbook) -> Self {
        let mut by_mode: HashMap<RoleMode, Vec<String>> = HashMap::new();
        for r in playbook.roles() {
            if let Some(mode) = r.role.mode {
                by_mode.entry(mode).or_default().push(r.role.name.clone());
            }
        }
        RoleIndex {
            playbook,
            names: playbook.roles().map(|r| r.role.name.as_str()).collect(),
            by_mode,
            by_stage: playbook
                .stages()
                .map(|(name, stage)| (name, stage.roles().iter().map(|r| r.name.clone()).collect()))
                .collect(),
        }
    }

    pub fn has(&self, name: &str) -> bool {
        self.names.contains(name)
    }

    fn of_mode(&self, mode: RoleMode) -> &[String] {
        self.by_mode.get(&mode).map_or(&[], Vec::as_slice)
    }

    /// The roles of a stage; `None` when the playbook has no such stage.
    fn of_stage(&self, stage: &str) -> Option<&[String]> {
        self.by_stage.get(stage).map(Vec::as_slice)
    }
}

/// Parses the `n` of `#n`: a position counted from 1.
fn position(key: &str, n: &str) -> Result<usize, String> {
    match n.parse::<usize>() {
        Ok(k) if k >= 1 => Ok(k - 1),
        _ => Err(format!(
            "`{key}`: `#{}` is not a position; positions count from 1 (`#1` is the first)",
            short(n)
        )),
    }
}

fn out_of_range(key: &str, roles: &[String], at: Option<usize>, what: &str) -> String {
    let n = roles.len();
    let at = at.map_or(String::new(), |k| format!(" (asked for #{})", k + 1));
    format!(
        "`{key}`: the playbook has only {n} {what}: {}{at}; use a position from 1 to {n}",
        quote(roles)
    )
}

/// Why a role name matches nothing, with a few suggestions.
fn missing_name(key: &str, name: &str, playbook: &Playbook) -> String {
    let count = playbook.roles().count();
    let candidates = candidates(name, playbook);
    let mut message = format!("the playbook has no role `{key}`");
    if !candidates.is_empty() {
        let shown: Vec<String> = candidates
            .iter()
            .take(MAX_QUOTED)
            .map(|c| format!("`{c}`"))
            .collect();
        message.push_str(&format!("; did you mean {}?", shown.join(" or ")));
    }
    message.push_str(&format!(" ({count} role(s) in all)"));
    if let Some(mode) = RoleMode::ALL.iter().find(|m| m.as_str() == name) {
        message.push_str(&format!(
            "; to fit any playbook, address it by mode: `mode:{mode}` or `mode:{mode}#1`"
        ));
    }
    message
}

/// Roles of the playbook that could stand for a missing role `name`, best
/// first: roles whose mode is `name` (a scenario written for `worker` fits a
/// worker-mode role), then roles with a similar name.
pub fn candidates(name: &str, playbook: &Playbook) -> Vec<String> {
    // Role names are at most 200 characters: a longer key resembles none,
    // and comparing it would cost time for nothing.
    if name.chars().count() > MAX_NAME_CHARS {
        return Vec::new();
    }
    let lower = name.to_lowercase();
    // Edit distances cost length × length each: a playbook of many long
    // names gets them for its first roles only, so a refusal stays fast.
    let mut budget: usize = SIMILARITY_BUDGET;
    let mut scored: Vec<(usize, usize, String)> = playbook
        .roles()
        .filter_map(|r| {
            let role = r.role.name.as_str();
            let same_mode = r.role.mode.is_some_and(|m| m.as_str() == lower);
            let cost = lower.len().max(1) * role.len().max(1);
            let distance = if cost <= budget {
                budget -= cost;
                strsim::levenshtein(&lower, &role.to_lowercase())
            } else {
                usize::MAX
            };
            let similar = distance <= (name.chars().count() / 3).max(2)
                || role.to_lowercase().contains(&lower)
                || (lower.len() >= 3 && lower.contains(&role.to_lowercase()));
            (same_mode || similar).then(|| (usize::from(!same_mode), distance, role.to_string()))
        })
        .collect();
    scored.sort();
    scored.into_iter().map(|(_, _, role)| role).collect()
}

/// Character comparisons one suggestion list may spend on edit distances.
const SIMILARITY_BUDGET: usize = 4_000_000;

/// Longest name compared for suggestions (the longest role name allowed).
const MAX_NAME_CHARS: usize = 200;

fn closest<'a>(word: &str, options: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    if word.chars().count() > MAX_NAME_CHARS {
        return None;
    }
    options
        .map(|o| (strsim::levenshtein(word, o), o))
        .filter(|(d, _)| *d <= 3)
        .min()
        .map(|(_, o)| o)
}

/// `a, b, c and 7 more`.
fn quote<S: AsRef<str>>(names: &[S]) -> String {
    let shown: Vec<&str> = names.iter().take(MAX_QUOTED).map(AsRef::as_ref).collect();
    match names.len().saturating_sub(MAX_QUOTED) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

fn modes_present(playbook: &Playbook) -> String {
    let mut counts: IndexMap<&str, usize> = IndexMap::new();
    for r in playbook.roles() {
        let mode = r.role.mode.map_or("no mode", |m| m.as_str());
        *counts.entry(mode).or_default() += 1;
    }
    let parts: Vec<String> = counts.iter().map(|(m, n)| format!("{m}: {n}")).collect();
    format!("its roles by mode: {}", parts.join(", "))
}

/// Which key scripts each role, after precedence.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Resolution {
    /// Role name → the scenario key whose script it runs.
    pub roles: IndexMap<String, String>,
}

/// One key that matches nothing, with the roles that could stand for it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
#[ts(export)]
pub struct Unmatched {
    /// The scenario's key, e.g. `worker`.
    pub selector: String,
    /// Why it matches nothing.
    pub reason: String,
    /// Roles that could stand for it, best first (may be empty).
    pub candidates: Vec<String>,
}

/// Most keys explained in one refusal; the rest are counted.
const MAX_EXPLAINED: usize = 5;

/// Resolves every key of `keys` against the playbook: role name → key.
/// Errors name the keys that match nothing (the first few, then a count)
/// and every ambiguity.
pub fn resolve<'k>(
    keys: impl Iterator<Item = &'k str>,
    playbook: &Playbook,
) -> Result<Resolution, Vec<String>> {
    let analysis = analyse(keys, playbook, MAX_EXPLAINED);
    let mut problems: Vec<String> = analysis.problems.into_iter().map(|p| p.message).collect();
    if analysis.unexplained > 0 {
        problems.push(format!(
            "and {} more key(s) like these",
            analysis.unexplained
        ));
    }
    match problems.is_empty() {
        true => Ok(analysis.resolution),
        false => Err(problems),
    }
}

/// A key that does not resolve, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyProblem {
    pub key: String,
    pub message: String,
}

/// What resolving a scenario's keys found.
#[derive(Debug, Clone, Default)]
pub struct Analysis {
    pub resolution: Resolution,
    /// The first problems, explained, in key order.
    pub problems: Vec<KeyProblem>,
    /// Problems beyond the explained ones: counted only, since explaining
    /// costs a comparison with every role.
    pub unexplained: usize,
}

/// Resolves the keys, explaining up to `max_explained` problems.
pub fn analyse<'k>(
    keys: impl Iterator<Item = &'k str>,
    playbook: &Playbook,
    max_explained: usize,
) -> Analysis {
    let index = RoleIndex::new(playbook);
    let mut analysis = Analysis::default();
    let problem = |analysis: &mut Analysis, key: &str, message: &dyn Fn() -> String| {
        if analysis.problems.len() < max_explained {
            analysis.problems.push(KeyProblem {
                key: key.to_string(),
                message: message(),
            });
        } else {
            analysis.unexplained += 1;
        }
    };
    // role → (precision, key)
    let mut chosen: IndexMap<String, (Precision, String)> = IndexMap::new();
    for key in keys {
        let selector = match Selector::parse(key, &index) {
            Ok(s) => s,
            Err(e) => {
                problem(&mut analysis, key, &|| e.clone());
                continue;
            }
        };
        let precision = selector.precision();
        let Some(names) = selector.find(&index) else {
            problem(&mut analysis, key, &|| selector.explain(key, &index));
            continue;
        };
        for name in names {
            match chosen.get(&name) {
                Some((p, _)) if *p > precision => {}
                Some((p, other)) if *p == precision => {
                    let (other, shown) = (short(other), short(key));
                    problem(&mut analysis, key, &|| {
                        format!(
                            "`{other}` and `{shown}` both script role `{name}` at the same precedence ({}); \
                             key it by its name `{name}` or remove one",
                            precision.as_str()
                        )
                    })
                }
                _ => {
                    chosen.insert(name, (precision, key.to_string()));
                }
            }
        }
    }
    // In the playbook's order, so a resolution reads like the playbook.
    for r in playbook.roles() {
        if let Some((_, key)) = chosen.get(&r.role.name) {
            analysis
                .resolution
                .roles
                .insert(r.role.name.clone(), key.clone());
        }
    }
    analysis
}

/// The keys that match no role, each with candidate roles for a mapping.
pub fn unmatched<'k>(keys: impl Iterator<Item = &'k str>, playbook: &Playbook) -> Vec<Unmatched> {
    let index = RoleIndex::new(playbook);
    keys.filter_map(|key| {
        let reason = match Selector::parse(key, &index) {
            Err(reason) => reason,
            Ok(selector) => match selector.find(&index) {
                Some(_) => return None,
                None => selector.explain(key, &index),
            },
        };
        let candidates = match Selector::parse_syntax(key) {
            Ok(Selector::Name(name)) => candidates(&name, playbook),
            Ok(Selector::Mode { mode, .. }) => candidates(mode.as_str(), playbook),
            // A stage or a malformed key: any role may stand for it.
            _ => Vec::new(),
        };
        Some(Unmatched {
            selector: key.to_string(),
            reason,
            candidates,
        })
    })
    .take(MAX_UNMATCHED)
    .collect()
}

/// Most unmatched keys reported for a mapping: a mapping step with more is
/// not a mapping but a different scenario.
pub const MAX_UNMATCHED: usize = 50;

/// A key as quoted in a message: long keys are cut, so a refusal stays
/// readable whatever the scenario holds. Redacted before it is cut: a
/// credential cut in two would no longer be recognised by the records'
/// redaction.
pub fn short(key: &str) -> String {
    const MAX: usize = 60;
    playbook_redact::redact_then_clip(key, MAX, "…").into_owned()
}
