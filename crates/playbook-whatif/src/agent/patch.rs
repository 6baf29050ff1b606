//! The change a simulated output needs so that its role's gate gives the
//! drawn verdict. Candidates are found once per role and simulation: read
//! off the gate's syntax tree (`derive.rs`), plus a plain search over the
//! values it mentions, each tried on a representative call (the probe).
//! Each call then checks its candidate with the real gate over that call's
//! values before answering, so the figures never rest on a guess: when no
//! candidate gives the verdict, the call says so and the report notes it.

use serde_json::{Map, Value, json};

use playbook_core::gate::{Gate, GateKind, Verdict};

use super::derive::{self, Assignment, Deriver};

/// Fields an output sets on top of its default answer.
pub type Patch = Assignment;

/// Most candidates kept per verdict: the bound on a call's search when its
/// values differ from the probe's.
const MAX_CANDIDATES: usize = 64;

/// Longest text or list the plain search tries, from a literal of the
/// gate: one field at a time, for every field the gate reads.
const PLAIN_SIZE: usize = 1024;

/// Most literals of a gate the plain search tries.
const MAX_LITERALS: usize = 16;

/// The values a gate is evaluated over at one call, in the engine's order:
/// the run state wins over the task's values, the role's own output over
/// what earlier roles answered, which wins over the run input.
pub struct Scope<'a> {
    pub state: &'a [(&'a str, Value)],
    pub out: &'a Map<String, Value>,
    /// What earlier roles answered on the task.
    pub earlier: Option<&'a Map<String, Value>>,
    /// The task's values from the run input, in the engine's order.
    pub input: &'a [&'a Map<String, Value>],
}

impl<'a> Scope<'a> {
    fn get<'b>(&'b self, name: &str, patch: &'b Patch) -> Option<&'b Value>
    where
        'a: 'b,
    {
        if let Some((_, v)) = self.state.iter().find(|(k, _)| *k == name) {
            return Some(v);
        }
        if let Some((_, v)) = patch.iter().find(|(k, _)| k == name) {
            return Some(v);
        }
        self.out
            .get(name)
            .or_else(|| self.earlier.and_then(|e| e.get(name)))
            .or_else(|| self.input.iter().find_map(|m| m.get(name)))
    }

    fn verdict(&self, gate: &Gate, patch: &Patch) -> Option<Verdict> {
        gate.evaluate_with(|name| self.get(name, patch))
    }
}

/// What a call found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// Candidate `i` gives the wanted verdict over this call's values.
    Met(usize),
    /// No candidate does: the output is sent as answered by default.
    Unmet,
    /// No candidate does, and the gate cannot be evaluated over the output
    /// as answered (a pattern `matches` refuses, say): the engine fails
    /// the gate, so a fail is given, by an error, and a pass is not.
    Broken,
    /// The gate reads a value of the run the agent cannot see (a value of
    /// the run input it was not given), so no candidate could be checked:
    /// the probe's best is sent and the engine decides.
    Unknown,
}

/// A role's gate and the outputs that pass or fail it.
#[derive(Debug, Clone)]
pub struct GatePlan {
    pub gate: Gate,
    /// Reads the agent does not set: the run state, the run input, other
    /// roles' outputs.
    held: Vec<String>,
    /// Per wanted verdict (fail, pass): candidates, those that gave it on
    /// the probe first, and how many did.
    candidates: [Vec<Patch>; 2],
    on_probe: [usize; 2],
    /// What the report should say of the gate itself (`derive::problems`).
    problems: Vec<String>,
}

impl GatePlan {
    /// Finds the candidates of an expression gate; `None` for a manual one.
    /// `own` are the role's required output fields; `held` tells the names
    /// someone else sets (the run state or input, another role);
    /// `probe` is a representative call.
    pub fn new(
        gate: Gate,
        own: &[String],
        held: &dyn Fn(&str) -> bool,
        probe: &Scope<'_>,
    ) -> Option<GatePlan> {
        let GateKind::Expression { program, .. } = &gate.kind else {
            return None;
        };
        let patchable = |name: &str| own.iter().any(|f| f == name) || !held(name);
        let deriver = Deriver {
            patchable: &patchable,
            shapes: probe.out,
        };
        let expr = program.expression();
        let fields: Vec<String> = gate
            .reads()
            .filter(|r| patchable(r))
            .map(str::to_string)
            .collect();
        let mut literals = Vec::new();
        derive::literals(expr, &mut literals);
        derive::dedup_values(&mut literals);
        // The first literals of a long gate are plenty for the plain
        // search, which the tree's own ways come before anyway.
        literals.truncate(MAX_LITERALS);
        let plain = plain_values(&literals);
        let mut candidates: [Vec<Patch>; 2] = Default::default();
        let mut on_probe = [0; 2];
        for (want, list) in candidates.iter_mut().enumerate() {
            let truth = want == 1;
            // The output as answered, then the tree's ways, then each field
            // set to each plain value alone.
            let mut all: Vec<Patch> = vec![Vec::new()];
            all.extend(deriver.assignments(expr, truth));
            // Value by value, so that every field gets the gate's literals
            // first; twice the bound leaves room for duplicates without
            // making the dedup below quadratic in a gate of many fields.
            let singles = plain
                .iter()
                .flat_map(|v| fields.iter().map(move |f| vec![(f.clone(), v.clone())]));
            let room = (2 * MAX_CANDIDATES).saturating_sub(all.len());
            all.extend(singles.take(room));
            // A required field set to null is a missing field: a contract
            // violation, not a verdict.
            all.retain(|p| !p.iter().any(|(f, v)| v.is_null() && own.contains(f)));
            dedup(&mut all);
            all.truncate(MAX_CANDIDATES);
            let wanted = if truth { Verdict::Pass } else { Verdict::Fail };
            let (met, rest): (Vec<Patch>, Vec<Patch>) = all
                .into_iter()
                .partition(|p| probe.verdict(&gate, p).as_ref() == Some(&wanted));
            on_probe[want] = met.len();
            *list = met.into_iter().chain(rest).collect();
        }
        let held = gate
            .reads()
            .filter(|r| !patchable(r))
            .map(str::to_string)
            .collect();
        let mut problems = Vec::new();
        derive::problems(expr, &mut problems);
        Some(GatePlan {
            gate,
            held,
            candidates,
            on_probe,
            problems,
        })
    }

    pub fn patch(&self, pass: bool, i: usize) -> Option<&Patch> {
        self.candidates[usize::from(pass)].get(i)
    }

    /// The names the gate reads that the agent neither sets nor can see.
    pub fn held(&self) -> &[String] {
        &self.held
    }

    pub fn problems(&self) -> &[String] {
        &self.problems
    }

    /// The candidate that gives the wanted verdict (`pass` or fail) over
    /// this call's values, trying `memo` (the one that did last time on
    /// this run) first. Evaluates the real gate: at least once a call.
    pub fn choose(&self, pass: bool, memo: Option<usize>, scope: &Scope<'_>) -> Choice {
        let want = if pass { Verdict::Pass } else { Verdict::Fail };
        let list = &self.candidates[usize::from(pass)];
        // A gate that reads only what this role answers gives each
        // candidate the verdict it gave on the probe: when none gave the
        // wanted one there, the output as answered is checked, no more.
        let settled = self.held.is_empty() && self.on_probe[usize::from(pass)] == 0;
        let order = memo
            .into_iter()
            .chain((0..list.len()).filter(|i| Some(*i) != memo));
        let mut errors = false;
        // The verdict on the output as answered: what is sent when no
        // candidate gives the wanted one (always tried: it is a candidate).
        let mut answered = None;
        for i in order {
            let patch = &list[i];
            if settled && !patch.is_empty() {
                continue;
            }
            let verdict = scope.verdict(&self.gate, patch);
            if matches!(verdict, Some(Verdict::Error(_))) {
                errors = true;
            }
            if verdict.as_ref() == Some(&want) {
                return Choice::Met(i);
            }
            if patch.is_empty() {
                answered = verdict;
            }
        }
        // An error with a value the agent cannot see missing says nothing
        // of what the engine, which sees it, will find.
        let blind = self.held.iter().any(|r| scope.get(r, &EMPTY).is_none());
        if errors && blind {
            Choice::Unknown
        } else if matches!(answered, Some(Verdict::Error(_))) {
            Choice::Broken
        } else {
            Choice::Unmet
        }
    }
}

static EMPTY: Patch = Vec::new();

/// Values each field the gate reads is tried with alone: those the gate
/// mentions and their neighbours, texts and lists of the lengths it
/// mentions, and one value of each kind.
fn plain_values(literals: &[Value]) -> Vec<Value> {
    let mut out = Vec::new();
    for lit in literals {
        out.push(lit.clone());
        for op in [
            cel::common::ast::operators::GREATER,
            cel::common::ast::operators::LESS,
            cel::common::ast::operators::NOT_EQUALS,
        ] {
            out.extend(derive::compared(op, lit, true));
        }
    }
    for lit in literals {
        // The tree reads `size` comparisons itself: the plain search, a
        // fallback of one field each, keeps to short ones.
        if let Some(n) = lit
            .as_i64()
            .and_then(|n| usize::try_from(n).ok())
            .filter(|n| *n < PLAIN_SIZE)
        {
            for len in [n, n.saturating_add(1)] {
                out.extend(derive::sized_text(len));
                out.extend(derive::sized_list(len));
            }
        }
    }
    out.extend([
        json!(true),
        json!(false),
        json!(0),
        json!(1),
        json!(-1),
        json!(""),
        json!("simulated"),
        json!([]),
        json!(["simulated item"]),
        json!({}),
    ]);
    derive::dedup_values(&mut out);
    out
}

fn dedup(list: &mut Vec<Patch>) {
    let mut seen: Vec<Patch> = Vec::new();
    list.retain(|p| {
        if seen.contains(p) {
            false
        } else {
            seen.push(p.clone());
            true
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A role answering `out` by default, its gate `text`, nothing held.
    fn plan(text: &str, out: &Map<String, Value>) -> GatePlan {
        let gate = playbook_core::gate::compile(text, |_| None).expect("compiles");
        let own: Vec<String> = out.keys().cloned().collect();
        let scope = Scope {
            state: &[],
            out,
            earlier: None,
            input: &[],
        };
        GatePlan::new(gate, &own, &|_| false, &scope).expect("an expression gate")
    }

    /// The verdict the gate gives the output with the chosen patch, or
    /// `None` when no output gives the wanted one.
    fn answer(gp: &GatePlan, out: &Map<String, Value>, pass: bool) -> Option<Verdict> {
        let scope = Scope {
            state: &[],
            out,
            earlier: None,
            input: &[],
        };
        match gp.choose(pass, None, &scope) {
            Choice::Met(i) => {
                let mut patched = out.clone();
                for (f, v) in gp.patch(pass, i).expect("a candidate") {
                    patched.insert(f.clone(), v.clone());
                }
                gp.gate.evaluate(&patched)
            }
            _ => None,
        }
    }

    fn defaults(fields: &[&str]) -> Map<String, Value> {
        fields
            .iter()
            .map(|f| {
                let v = match *f {
                    "tasks" | "issues" => json!(["one"]),
                    "failed_cases" => json!(0),
                    "verdict" => json!("pass"),
                    f => json!(format!("{f} of T-1")),
                };
                (f.to_string(), v)
            })
            .collect()
    }

    #[test]
    fn ordinary_gate_shapes_pass_and_fail_on_demand() {
        for (gate, fields) in [
            ("status == \"green\"", &["status"][..]),
            ("score >= 5", &["score"]),
            ("5 <= score", &["score"]),
            ("approved == true", &["approved"]),
            ("!approved || false", &["approved"]),
            ("coverage > 80.0", &["coverage"]),
            ("pass_ratio >= 0.95", &["pass_ratio"]),
            ("has_todo == false", &["has_todo"]),
            ("a == b", &["a", "b"]),
            ("a != b", &["a", "b"]),
            ("verdict == \"lgtm\"", &["verdict"]),
            ("size(commit_sha) > 0", &["commit_sha"]),
            ("size(tasks) > 2", &["tasks"]),
            ("tasks.size() == 0", &["tasks"]),
            ("status in [\"green\", \"ok\"]", &["status"]),
            ("\"x\" in labels", &["labels"]),
            ("has(meta.ok)", &["meta"]),
            ("meta.level >= 3", &["meta"]),
            ("meta[\"level\"] < -3", &["meta"]),
            ("!(score < 5) && score != 7", &["score"]),
            ("mode == \"strict\" ? n > 10 : n > 0", &["mode", "n"]),
            ("n == 3u", &["n"]),
            ("n <= -2", &["n"]),
            ("n > 1e300", &["n"]),
            ("summary.startsWith(\"ok\")", &["summary"]),
            (
                "summary.contains(\"done\") || summary.endsWith(\"!\")",
                &["summary"],
            ),
            (
                "failed_cases == 0 && verdict == \"pass\"",
                &["failed_cases", "verdict"],
            ),
            (
                "verdict == \"pass\" && failed_cases == 0 && size(commit_sha) > 3",
                &["verdict", "failed_cases", "commit_sha"],
            ),
            ("s > \"m\"", &["s"]),
            ("s < \"m\"", &["s"]),
            ("size(summary) >= 2000", &["summary"]),
            ("size(tasks) > 2000", &["tasks"]),
            ("tag.matches(\"^v[0-9]+$\")", &["tag"]),
            ("matches(verdict, \"^(pass|lgtm)$\")", &["verdict"]),
            ("!summary.matches(\"TODO\")", &["summary"]),
            (r#"meta.tag.matches("^[a-z]+-\\d{2}$")"#, &["meta"]),
            (
                "verdict.matches(\"^(pass|lgtm)$\") && size(issues) == 0",
                &["verdict", "issues"],
            ),
            (
                "!(tag.matches(\"^wip\") || tag.matches(\"draft\")) && score > 3",
                &["tag", "score"],
            ),
            ("tag.matches(\"^.{0,40}$\")", &["tag"]),
            ("tag.matches(\"^a{1000}$\")", &["tag"]),
        ] {
            let out = defaults(fields);
            let gp = plan(gate, &out);
            assert_eq!(
                answer(&gp, &out, true),
                Some(Verdict::Pass),
                "{gate} must pass"
            );
            assert_eq!(
                answer(&gp, &out, false),
                Some(Verdict::Fail),
                "{gate} must fail"
            );
        }
    }

    #[test]
    fn a_verdict_no_output_gives_is_said_not_guessed() {
        for (gate, fields, pass) in [
            ("true", &[][..], false),
            ("false", &[], true),
            ("size(commit_sha) >= 0", &["commit_sha"], false),
            ("size(items) > 100000", &["items"], true),
            (r#"s.matches("[^\\s\\S]")"#, &["s"], true),
            ("s.matches(\".*\")", &["s"], false),
            ("s.matches(\"a{100000}\")", &["s"], true),
        ] {
            let out = defaults(fields);
            let gp = plan(gate, &out);
            let scope = Scope {
                state: &[],
                out: &out,
                earlier: None,
                input: &[],
            };
            assert_eq!(gp.choose(pass, None, &scope), Choice::Unmet, "{gate}");
        }
    }

    #[test]
    fn a_gate_that_cannot_be_evaluated_fails_by_its_error() {
        for gate in ["s.matches(\"(\")", "matches(s, \"(?:a{1000}){1000}\")"] {
            let out = defaults(&["s"]);
            let gp = plan(gate, &out);
            let scope = Scope {
                state: &[],
                out: &out,
                earlier: None,
                input: &[],
            };
            // The engine fails the gate with the error: never "passed".
            assert_eq!(gp.choose(false, None, &scope), Choice::Broken, "{gate}");
            assert_eq!(gp.choose(true, None, &scope), Choice::Broken, "{gate}");
            assert!(
                gp.problems()[0].contains("`matches` refuses the pattern"),
                "{gate}: {:?}",
                gp.problems()
            );
        }
    }

    #[test]
    fn the_run_state_is_read_not_set() {
        let out = defaults(&["verdict"]);
        let gp = plan("verdict == \"pass\" || iteration >= 2", &out);
        let first = [("iteration", json!(1))];
        let second = [("iteration", json!(2))];
        let at = |state: &[(&str, Value)], pass| {
            gp.choose(
                pass,
                None,
                &Scope {
                    state,
                    out: &out,
                    earlier: None,
                    input: &[],
                },
            )
        };
        assert!(matches!(at(&first, false), Choice::Met(_)));
        // From the second call on the gate holds whatever the output says.
        assert_eq!(at(&second, false), Choice::Unmet);
        assert!(matches!(at(&second, true), Choice::Met(_)));
    }

    #[test]
    fn a_value_the_agent_cannot_see_leaves_the_verdict_to_the_engine() {
        let gate =
            playbook_core::gate::compile("spec_path != \"\" && verdict == \"pass\"", |_| None)
                .expect("compiles");
        let out = defaults(&["verdict"]);
        let own = vec!["verdict".to_string()];
        let scope = Scope {
            state: &[],
            out: &out,
            earlier: None,
            input: &[],
        };
        let gp = GatePlan::new(gate, &own, &|name| name == "spec_path", &scope).unwrap();
        assert_eq!(gp.held(), ["spec_path"]);
        // A failing verdict does not need the unseen value...
        assert!(matches!(gp.choose(false, None, &scope), Choice::Met(_)));
        // ... a passing one does, and it is never made up.
        assert_eq!(gp.choose(true, None, &scope), Choice::Unknown);
        assert!(
            gp.patch(true, 0)
                .unwrap()
                .iter()
                .all(|(f, _)| f != "spec_path")
        );
    }
}
