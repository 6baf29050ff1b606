//! Gate conditions: `pass_condition`, `enter_gate` and `exit_gate`.
//!
//! A gate is written one of three ways, told apart in this order:
//!
//! 1. a **policy key**: a bare identifier such as `review_passed`, resolved
//!    from the playbook's `policies` map first, then from [`BUILTIN_POLICIES`];
//! 2. a **CEL expression** such as `failed_cases == 0 && verdict == "pass"`,
//!    over the role's output fields and the run state;
//! 3. **free text** such as "spec file written": anything that does not
//!    compile and has no operator characters. It is valid but not machine
//!    checkable, so the orchestrator treats it as a manual approval.
//!
//! Gates are compiled once, at validation time, so syntax errors and reads of
//! fields nobody promises surface while the author types, not mid-run.

mod matches;

use std::collections::BTreeSet;
use std::sync::{Arc, LazyLock, Mutex};

use cel::common::types::{CelBool, CelDouble, CelInt, CelNull, CelString, CelUInt};
use cel::common::value::{CowVal, Val};
use cel::context::VariableResolver;
use foldhash::{HashMap, HashMapExt};
use serde_json::{Map, Value};

/// A policy every playbook can name without defining it.
#[derive(Debug, Clone, Copy)]
pub struct BuiltinPolicy {
    pub key: &'static str,
    /// The CEL expression, or `None` for a manual approval.
    pub expression: Option<&'static str>,
    pub description: &'static str,
}

/// Built-in policy keys, documented in `docs/lints.md` and the README.
pub const BUILTIN_POLICIES: &[BuiltinPolicy] = &[
    BuiltinPolicy {
        key: "always",
        expression: Some("true"),
        description: "Always passes.",
    },
    BuiltinPolicy {
        key: "review_passed",
        expression: Some("verdict == \"pass\""),
        description: "The reviewer's verdict is \"pass\".",
    },
    BuiltinPolicy {
        key: "tests_green",
        expression: Some("failed_cases == 0"),
        description: "The tester reports no failed cases.",
    },
    BuiltinPolicy {
        key: "plan_ready",
        expression: Some("size(tasks) > 0"),
        description: "The planner produced at least one task.",
    },
    BuiltinPolicy {
        key: "no_blocked_tasks",
        expression: Some("tasks_blocked == 0"),
        description: "No task of the stage is blocked or escalated.",
    },
    BuiltinPolicy {
        key: "user_approved",
        expression: None,
        description: "A person approves (a manual gate).",
    },
];

/// Run-state variables a role's `pass_condition` may read besides its outputs.
pub const ROLE_STATE_VARIABLES: &[&str] = &["iteration", "max_iterations", "task_id", "stage"];

/// Run-state variables a stage gate may read besides the task's outputs so far.
pub const STAGE_STATE_VARIABLES: &[&str] = &[
    "task_id",
    "stage",
    "tasks_total",
    "tasks_done",
    "tasks_failed",
    "tasks_blocked",
];

/// Longest gate text compiled; longer text is refused, not parsed.
pub const MAX_GATE_CHARS: usize = 2000;
/// Deepest bracket nesting compiled; deeper text could exhaust the parser's stack.
pub const MAX_GATE_NESTING: usize = 32;

/// A compiled gate, ready to evaluate.
#[derive(Clone)]
pub struct Gate {
    /// The text as written in the playbook.
    pub source: String,
    /// The policy key the text named, if it was one.
    pub policy: Option<String>,
    pub kind: GateKind,
}

#[derive(Clone)]
pub enum GateKind {
    /// A CEL program and the top-level variables it reads.
    Expression {
        expression: String,
        program: Arc<cel::Program>,
        reads: Arc<BTreeSet<String>>,
    },
    /// Not machine-checkable: a person decides.
    Manual,
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match &self.kind {
            GateKind::Expression { expression, .. } => expression.as_str(),
            GateKind::Manual => "<manual>",
        };
        f.debug_struct("Gate")
            .field("source", &self.source)
            .field("policy", &self.policy)
            .field("kind", &kind)
            .finish()
    }
}

/// Why a gate could not be compiled.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GateError {
    #[error("`{expression}` does not compile: {message}")]
    Syntax { expression: String, message: String },
    #[error("unknown policy key `{key}`")]
    UnknownPolicy { key: String },
    #[error("policy `{key}` does not compile: {message}")]
    PolicySyntax { key: String, message: String },
}

fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Text with none of CEL's operator characters reads as prose.
fn looks_like_prose(text: &str) -> bool {
    const OPERATORS: &str = "=<>!&|()[]{}+*/%?:\"";
    text.trim().contains(' ') && !text.chars().any(|c| OPERATORS.contains(c))
}

/// A compiled expression and the top-level variables it reads.
pub type Compiled = (Arc<cel::Program>, Arc<BTreeSet<String>>);

/// Expressions compiled so far in this process, by text. The editor
/// revalidates the whole playbook on every keystroke, and nearly every gate
/// is unchanged between two keystrokes; parsing CEL dominates validation
/// otherwise. Bounded: cleared when it reaches [`CACHE_ENTRIES`].
static CACHE: LazyLock<Mutex<HashMap<String, Result<Compiled, String>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));
const CACHE_ENTRIES: usize = 8192;

/// Compiles a CEL expression and lists the top-level variables it reads.
pub fn compile_expression(text: &str) -> Result<Compiled, String> {
    if let Ok(cache) = CACHE.lock()
        && let Some(hit) = cache.get(text)
    {
        return hit.clone();
    }
    let compiled = compile_uncached(text);
    if let Ok(mut cache) = CACHE.lock() {
        if cache.len() >= CACHE_ENTRIES {
            cache.clear();
        }
        cache.insert(text.to_string(), compiled.clone());
    }
    compiled
}

fn compile_uncached(text: &str) -> Result<Compiled, String> {
    if text.chars().count() > MAX_GATE_CHARS {
        return Err(format!("longer than {MAX_GATE_CHARS} characters"));
    }
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '(' | '[' | '{' => {
                depth += 1;
                if depth > MAX_GATE_NESTING {
                    return Err(format!("nested deeper than {MAX_GATE_NESTING} brackets"));
                }
            }
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    // The parser is third-party code fed user text; a panic in it must
    // become a finding, not take the editor down.
    let compiled = std::panic::catch_unwind(|| cel::Program::compile(text))
        .map_err(|_| "the expression parser failed on this text".to_string())?;
    let program = compiled.map_err(|e| syntax_message(&e))?;
    let reads = program
        .references()
        .variables()
        .into_iter()
        .map(str::to_string)
        .collect();
    Ok((Arc::new(program), Arc::new(reads)))
}

/// Longest parser message kept in a finding.
const SYNTAX_MESSAGE_CHARS: usize = 160;

/// One line for a syntax error: where in the expression (1-based line and
/// column) and the parser's first message, without its source excerpt and
/// carets (they only make sense in a monospace block, not in a hint).
fn syntax_message(errors: &cel::ParseErrors) -> String {
    let Some(first) = errors.errors.first() else {
        return "the expression does not parse".to_string();
    };
    let line = first.pos.0.max(1);
    let column = first.pos.1.max(1);
    let msg = first.msg.lines().next().unwrap_or("").trim();
    let msg = msg.strip_prefix("Syntax error: ").unwrap_or(msg);
    // The parser lists every token it would have taken; a person needs
    // only the one it found.
    let msg = match msg.split_once(" expecting {") {
        Some((found, _)) if found.contains("'<EOF>'") => {
            "the expression ends too early: an operand is missing"
        }
        Some((found, _)) => found,
        None => msg,
    };
    let mut text: String = msg.chars().take(SYNTAX_MESSAGE_CHARS).collect();
    if msg.chars().count() > SYNTAX_MESSAGE_CHARS {
        text.push('…');
    }
    let more = errors.errors.len().saturating_sub(1);
    let more = if more > 0 {
        format!(" ({more} more error{})", if more == 1 { "" } else { "s" })
    } else {
        String::new()
    };
    format!("at line {line}, column {column}: {text}{more}")
}

/// The position a syntax message of [`compile_expression`] names ("at line
/// L, column C: ..."), wherever it sits in a finding's message.
pub fn syntax_position(message: &str) -> Option<(usize, usize)> {
    let rest = &message
        [message.find("does not compile: at line ")? + "does not compile: at line ".len()..];
    let (line, rest) = rest.split_once(", column ")?;
    let (column, _) = rest.split_once(':')?;
    Some((line.parse().ok()?, column.parse().ok()?))
}

/// Compiles gate text, resolving policy keys through `policies` (the
/// playbook's map) and then the built-ins.
pub fn compile<'p>(
    text: &str,
    policies: impl Fn(&str) -> Option<&'p str>,
) -> Result<Gate, GateError> {
    let trimmed = text.trim();
    if is_identifier(trimmed) && trimmed != "true" && trimmed != "false" {
        let expression = match policies(trimmed) {
            // A policy may name a built-in (`plan_signed_off: user_approved`):
            // that is how a playbook declares its own manual gates.
            Some(expression) => {
                match BUILTIN_POLICIES.iter().find(|p| p.key == expression.trim()) {
                    Some(builtin) => builtin.expression.map(str::to_string),
                    None => Some(expression.to_string()),
                }
            }
            None => match BUILTIN_POLICIES.iter().find(|p| p.key == trimmed) {
                Some(builtin) => builtin.expression.map(str::to_string),
                None => {
                    return Err(GateError::UnknownPolicy {
                        key: trimmed.to_string(),
                    });
                }
            },
        };
        let kind = match expression {
            None => GateKind::Manual,
            Some(expression) => {
                let (program, reads) =
                    compile_expression(&expression).map_err(|message| GateError::PolicySyntax {
                        key: trimmed.to_string(),
                        message,
                    })?;
                GateKind::Expression {
                    expression,
                    program,
                    reads,
                }
            }
        };
        return Ok(Gate {
            source: text.to_string(),
            policy: Some(trimmed.to_string()),
            kind,
        });
    }
    match compile_expression(trimmed) {
        Ok((program, reads)) => Ok(Gate {
            source: text.to_string(),
            policy: None,
            kind: GateKind::Expression {
                expression: trimmed.to_string(),
                program,
                reads,
            },
        }),
        Err(_) if looks_like_prose(trimmed) => Ok(Gate {
            source: text.to_string(),
            policy: None,
            kind: GateKind::Manual,
        }),
        Err(message) => Err(GateError::Syntax {
            expression: trimmed.to_string(),
            message,
        }),
    }
}

/// Compiles a gate of `playbook`, with its policies, as its format reads it.
/// In a legacy (agenterm) file a gate is a *named condition*: a name that is
/// neither a policy nor built in, or text that does not compile, is a
/// condition a person confirms (a manual gate), not a mistake. Validation
/// and the engine both compile through here, so they agree.
pub fn compile_in(playbook: &crate::model::Playbook, text: &str) -> Result<Gate, GateError> {
    let compiled = compile(text, |key| {
        playbook
            .policies
            .as_ref()
            .and_then(|p| p.get(key))
            .map(String::as_str)
    });
    if !playbook.is_legacy() {
        return compiled;
    }
    match compiled {
        Err(GateError::UnknownPolicy { key }) => Ok(Gate {
            source: text.to_string(),
            policy: Some(key),
            kind: GateKind::Manual,
        }),
        Err(GateError::Syntax { .. }) => Ok(Gate {
            source: text.to_string(),
            policy: None,
            kind: GateKind::Manual,
        }),
        other => other,
    }
}

/// The outcome of evaluating a machine-checkable gate.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Pass,
    Fail,
    /// The expression could not be evaluated (a missing field, a type
    /// mismatch, a non-boolean result); the gate counts as failed.
    Error(String),
}

impl Gate {
    pub fn is_manual(&self) -> bool {
        matches!(self.kind, GateKind::Manual)
    }

    /// Variables the gate reads; empty for manual gates.
    pub fn reads(&self) -> impl Iterator<Item = &str> {
        let reads = match &self.kind {
            GateKind::Expression { reads, .. } => Some(reads.as_ref()),
            GateKind::Manual => None,
        };
        reads.into_iter().flatten().map(String::as_str)
    }

    /// Evaluates the gate over `variables`. Manual gates return `None`: the
    /// caller asks its approver.
    pub fn evaluate(&self, variables: &Map<String, Value>) -> Option<Verdict> {
        self.evaluate_with(|name| variables.get(name))
    }

    /// Evaluates the gate, reading each variable it needs from `lookup`, so
    /// callers with layered state (run counters over task outputs) need not
    /// merge maps first. Manual gates return `None`.
    ///
    /// A gate is evaluated after every agent call, so its variables are
    /// handed to CEL as they are: a text is borrowed, a number or a truth
    /// value copied, and only a list or a map converted (as CEL's own
    /// serializer does). A scope of named variables would copy every name
    /// and text into a map for each evaluation.
    pub fn evaluate_with<'v>(&self, lookup: impl Fn(&str) -> Option<&'v Value>) -> Option<Verdict> {
        let GateKind::Expression { program, reads, .. } = &self.kind else {
            return None;
        };
        let mut bound = Variables(Vec::with_capacity(reads.len()));
        for name in reads.iter() {
            if let Some(value) = lookup(name) {
                match cel_val(value) {
                    Ok(val) => bound.0.push((name.as_str(), val)),
                    Err(e) => {
                        return Some(Verdict::Error(format!("cannot read `{name}`: {e}")));
                    }
                }
            }
        }
        CEL_ROOT.with(|root| {
            let mut context = root.new_inner_scope();
            context.set_variable_resolver(&bound);
            Some(verdict(program.execute(&context)))
        })
    }
}

/// What a program's result says of the gate.
fn verdict(result: Result<cel::Value, cel::ExecutionError>) -> Verdict {
    match result {
        Ok(cel::Value::Bool(true)) => Verdict::Pass,
        Ok(cel::Value::Bool(false)) => Verdict::Fail,
        Ok(other) => Verdict::Error(format!("the expression gave {other:?}, not true or false")),
        Err(e) => Verdict::Error(e.to_string()),
    }
}

/// The variables of one evaluation: the names the gate reads that have a
/// value. Answers only those names, as the scope of named variables did.
struct Variables<'n, 'v>(Vec<(&'n str, Box<dyn Val + 'v>)>);

impl VariableResolver for Variables<'_, '_> {
    fn resolve<'b>(&'b self, variable: &str) -> Option<CowVal<'b, 'b>> {
        self.0
            .iter()
            .find(|(name, _)| *name == variable)
            .map(|(_, val)| CowVal::Borrowed(val.as_ref()))
    }
}

/// A JSON value as the CEL value CEL's serializer makes of it: a
/// non-negative integer is a `uint`, a negative one an `int`, any other
/// number a `double` (serde_json's own order of number kinds).
fn cel_val(value: &Value) -> Result<Box<dyn Val + '_>, String> {
    Ok(match value {
        Value::Null => Box::new(CelNull),
        Value::Bool(b) => Box::new(CelBool::from(*b)),
        Value::String(s) => Box::new(CelString::from(s.as_str())),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => Box::new(CelUInt::from(u)),
            (None, Some(i), _) => Box::new(CelInt::from(i)),
            (None, None, Some(f)) => Box::new(CelDouble::from(f)),
            (None, None, None) => return Err(format!("the number {n} has no CEL value")),
        },
        Value::Array(_) | Value::Object(_) => {
            let converted = cel::to_value(value).map_err(|e| e.to_string())?;
            Box::<dyn Val>::try_from(converted).map_err(|e| e.to_string())?
        }
    })
}

thread_local! {
    /// The CEL standard environment, built once per thread: building it is
    /// most of the cost of evaluating a gate (about 20 µs), and a preview
    /// evaluates a gate after every agent call.
    static CEL_ROOT: cel::Context<'static, 'static> = cel::Context::with_env(matches::environment());
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn no_policies(_: &str) -> Option<&'static str> {
        None
    }

    fn vars(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn expressions_compile_and_list_what_they_read() {
        let gate = compile("failed_cases == 0 && verdict == 'pass'", no_policies).unwrap();
        assert_eq!(
            gate.reads().collect::<Vec<_>>(),
            ["failed_cases", "verdict"]
        );
        assert_eq!(
            gate.evaluate(&vars(json!({"failed_cases": 0, "verdict": "pass"}))),
            Some(Verdict::Pass)
        );
        assert_eq!(
            gate.evaluate(&vars(json!({"failed_cases": 2, "verdict": "pass"}))),
            Some(Verdict::Fail)
        );
    }

    #[test]
    fn a_missing_variable_fails_the_gate_with_a_reason() {
        let gate = compile("verdict == 'pass'", no_policies).unwrap();
        assert!(matches!(
            gate.evaluate(&Map::new()),
            Some(Verdict::Error(_))
        ));
    }

    #[test]
    fn bare_identifiers_are_policy_keys() {
        let gate = compile("review_passed", no_policies).unwrap();
        assert_eq!(gate.policy.as_deref(), Some("review_passed"));
        assert_eq!(gate.reads().collect::<Vec<_>>(), ["verdict"]);
        assert_eq!(
            compile("ship_it", no_policies).unwrap_err(),
            GateError::UnknownPolicy {
                key: "ship_it".into()
            }
        );
        let own = compile("ship_it", |k| {
            (k == "ship_it").then_some("approved == true")
        })
        .unwrap();
        assert_eq!(own.reads().collect::<Vec<_>>(), ["approved"]);
    }

    #[test]
    fn prose_is_a_manual_gate_and_broken_expressions_are_errors() {
        assert!(
            compile("spec file written", no_policies)
                .unwrap()
                .is_manual()
        );
        assert!(compile("user_approved", no_policies).unwrap().is_manual());
        assert!(matches!(
            compile("failed_cases = = 0", no_policies),
            Err(GateError::Syntax { .. })
        ));
    }

    #[test]
    fn hostile_expressions_are_refused_without_parsing() {
        let deep = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
        assert!(matches!(
            compile(&deep, no_policies),
            Err(GateError::Syntax { .. })
        ));
        let long = "a == 1 && ".repeat(500) + "true";
        assert!(matches!(
            compile(&long, no_policies),
            Err(GateError::Syntax { .. })
        ));
    }
}

#[cfg(test)]
mod syntax_tests {
    use super::*;

    #[test]
    fn a_syntax_error_is_one_line_with_its_position_in_the_expression() {
        for (text, column) in [("failed_cases = 0", 14), ("verdict == \"pass\" &&", 0)] {
            let message = compile_expression(text).expect_err("does not compile");
            assert!(!message.contains('\n'), "{message}");
            assert!(!message.contains("^"), "{message}");
            assert!(
                message.starts_with("at line 1, column "),
                "{text}: {message}"
            );
            if column > 0 {
                assert!(
                    message.starts_with(&format!("at line 1, column {column}:")),
                    "{text}: {message}"
                );
            }
        }
        let message = compile_expression("a &&\n  = b").expect_err("does not compile");
        assert!(message.starts_with("at line 2, column "), "{message}");
    }
}

#[cfg(test)]
mod binding_tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// The evaluation as it was: every variable added to a scope of its
    /// own through CEL's serializer. The binding must agree with it.
    fn by_scope(gate: &Gate, variables: &Map<String, Value>) -> Option<Verdict> {
        let GateKind::Expression { program, reads, .. } = &gate.kind else {
            return None;
        };
        CEL_ROOT.with(|root| {
            let mut context = root.new_inner_scope();
            for name in reads.iter() {
                if let Some(value) = variables.get(name)
                    && let Err(e) = context.add_variable(name.as_str(), value)
                {
                    return Some(Verdict::Error(format!("cannot read `{name}`: {e}")));
                }
            }
            Some(verdict(program.execute(&context)))
        })
    }

    const EXPRESSIONS: &[&str] = &[
        "verdict == \"pass\"",
        "failed_cases == 0",
        "size(tasks) > 0",
        "size(commit_sha) > 0",
        "x > 1",
        "x == 1.0",
        "x == -1",
        "x == 1u",
        "x in [1, 2]",
        "type(x) == uint",
        "type(x) == int",
        "type(x) == double",
        "type(x) == string",
        "type(x) == null_type",
        "x + 1 > 2",
        "x == null",
        "x == true",
        "!(x == true) || x",
        "missing == 1",
        "s + \"b\" == \"ab\"",
        "s.startsWith(\"a\")",
        "s < \"m\"",
        "size(m) == 2",
        "m.k == \"v\"",
        "has(m.k)",
        "has(m.other)",
        "xs.all(t, t > 0)",
        "xs.exists(x, x == 2)",
        "[1, 2].all(t, t > 0) && t == \"outer\"",
        "xs.map(v, v * 2)[0] == 2",
        "size(xs) == 3 && xs[0] == x",
        "m[\"k\"] == s",
        "verdict == \"pass\" && failed_cases == 0",
    ];

    fn leaf() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            (-3i64..4).prop_map(Value::from),
            (-1e6f64..1e6).prop_map(Value::from),
            prop_oneof![Just("pass"), Just("a"), Just(""), Just("zz"), Just("é⇄")]
                .prop_map(Value::from),
        ]
    }

    fn value() -> impl Strategy<Value = Value> {
        leaf().prop_recursive(3, 12, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                prop::collection::vec(
                    (prop_oneof![Just("k"), Just("other"), Just("t")], inner),
                    0..3
                )
                .prop_map(|entries| {
                    Value::Object(
                        entries
                            .into_iter()
                            .map(|(k, v)| (k.to_string(), v))
                            .collect(),
                    )
                }),
            ]
        })
    }

    proptest! {
        #[test]
        fn bound_variables_evaluate_as_a_scope_of_named_ones(
            values in prop::collection::vec(
                (prop_oneof![
                    Just("verdict"), Just("failed_cases"), Just("tasks"),
                    Just("commit_sha"), Just("x"), Just("s"), Just("m"),
                    Just("xs"), Just("t"),
                ], value()),
                0..9,
            )
        ) {
            let variables: Map<String, Value> =
                values.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
            for text in EXPRESSIONS {
                let gate = compile(text, |_| None).expect("compiles");
                let (bound, scoped) = (gate.evaluate(&variables), by_scope(&gate, &variables));
                // CEL keeps a map in an order of its own, different for two
                // conversions of one map: which entry fails first, and how an
                // error prints the map, may differ.
                let map_order = |v: &Option<Verdict>| {
                    matches!(v, Some(Verdict::Error(e)) if e.contains("Map("))
                };
                let walks_a_map = text.contains("xs.")
                    && variables.get("xs").is_some_and(Value::is_object);
                if walks_a_map || map_order(&bound) || map_order(&scoped) {
                    prop_assert_eq!(
                        std::mem::discriminant(&bound),
                        std::mem::discriminant(&scoped),
                        "{} over {:?}", text, variables
                    );
                } else {
                    prop_assert_eq!(bound, scoped, "{} over {:?}", text, variables);
                }
            }
        }
    }

    #[test]
    fn numbers_keep_their_kind() {
        let gate = compile("type(x) == uint", |_| None).unwrap();
        let pass = |x: Value| gate.evaluate(json!({ "x": x }).as_object().unwrap());
        assert_eq!(pass(json!(5)), Some(Verdict::Pass));
        assert_eq!(pass(json!(-5)), Some(Verdict::Fail));
        assert_eq!(pass(json!(5.0)), Some(Verdict::Fail));
    }
}
