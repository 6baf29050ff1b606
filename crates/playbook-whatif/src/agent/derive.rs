//! Values that give a gate expression a wanted verdict, read off its
//! compiled CEL syntax tree: the literal a field is compared with, the
//! values just across each boundary, the length a `size` asks for, a text
//! a `matches` pattern does or does not match (`derive/pattern.rs`), the
//! truth value a bare field must have. They are guesses, nothing more:
//! every one is checked by evaluating the real gate before it is used
//! (`patch.rs`), so a form this file does not understand costs a note in
//! the report, never a wrong verdict.

mod pattern;
mod values;

use cel::common::ast::{CallExpr, Expr, IdedExpr, LiteralValue, operators as op};
use serde_json::{Map, Value, json};

use pattern::Pattern;
pub use pattern::problems;
pub use values::compared;
use values::outside;

/// Fields to set, each to a value: one way of giving a gate a verdict.
pub type Assignment = Vec<(String, Value)>;

/// Alternatives kept per node of the tree: a gate of many `&&` and `||`
/// would otherwise multiply them.
const MAX_ALTERNATIVES: usize = 16;

/// Longest text made for a `size` comparison or a `matches` pattern, in
/// bytes. A gate that asks for more gets no such value (and the report
/// says it cannot pass), rather than an output the engine may refuse as too
/// large: it stays far below the default output limit of 1 MiB, and a call
/// clones and the engine measures it on every answer. 1 024, the old bound
/// of both, was too few for a gate asking for a long text
/// (`size(summary) >= 2000`).
pub const MAX_TEXT: usize = 64 * 1024;

/// Longest list made for a `size` comparison: an item is about 20 bytes of
/// JSON, and each is converted to a CEL value on every evaluation.
pub const MAX_LIST: usize = 4 * 1024;

/// Most bytes of JSON the values of one assignment hold together: a
/// quarter of the engine's default output limit, so that an answer made
/// of them is never refused as too large.
const MAX_ANSWER: usize = 256 * 1024;

/// What a derivation may touch and how fields are answered by default.
pub struct Deriver<'a> {
    /// The fields the simulated agent may set: anything else (the run
    /// state, the run input, another role's output) it must leave alone.
    pub patchable: &'a dyn Fn(&str) -> bool,
    /// The role's output as answered by default: the shape (text or list)
    /// a `size` comparison gets.
    pub shapes: &'a Map<String, Value>,
}

/// `true` holds without changing anything.
fn unconstrained() -> Vec<Assignment> {
    vec![Vec::new()]
}

impl Deriver<'_> {
    /// Ways to make `e` evaluate to `truth`, most direct first. Empty: no
    /// way is known (a literal of the other value, say). A part it does not
    /// understand, or that reads only what the agent may not change, is
    /// left as it is (one empty assignment): the gate's evaluation decides.
    pub fn assignments(&self, e: &IdedExpr, truth: bool) -> Vec<Assignment> {
        let mut out = self.node(e, truth);
        dedup(&mut out);
        out.truncate(MAX_ALTERNATIVES);
        out
    }

    fn node(&self, e: &IdedExpr, truth: bool) -> Vec<Assignment> {
        match &e.expr {
            Expr::Literal(LiteralValue::Boolean(b)) => {
                if **b == truth {
                    unconstrained()
                } else {
                    Vec::new()
                }
            }
            Expr::Select(s) if s.test => self.presence(&s.operand, &s.field, truth),
            // A bare field in a boolean position holds its truth value.
            Expr::Ident(_) | Expr::Select(_) => self.set(e, vec![json!(truth)]),
            Expr::Call(call) => self.call(call, truth),
            _ => unconstrained(),
        }
    }

    fn call(&self, call: &CallExpr, truth: bool) -> Vec<Assignment> {
        let args = &call.args;
        match (call.func_name.as_str(), args.len(), &call.target) {
            (op::LOGICAL_AND, _, None) if truth => self.every(args, true),
            (op::LOGICAL_AND, _, None) => self.any(args, false),
            (op::LOGICAL_OR, _, None) if truth => self.any(args, true),
            (op::LOGICAL_OR, _, None) => self.every(args, false),
            (op::LOGICAL_NOT, 1, None) => self.assignments(&args[0], !truth),
            (op::NOT_STRICTLY_FALSE, 1, None) => self.assignments(&args[0], truth),
            (op::CONDITIONAL, 3, None) => {
                let mut out = cross(
                    &self.assignments(&args[0], true),
                    &self.assignments(&args[1], truth),
                );
                out.extend(cross(
                    &self.assignments(&args[0], false),
                    &self.assignments(&args[2], truth),
                ));
                out
            }
            (
                op::EQUALS
                | op::NOT_EQUALS
                | op::LESS
                | op::LESS_EQUALS
                | op::GREATER
                | op::GREATER_EQUALS,
                2,
                None,
            ) => self.comparison(&call.func_name, &args[0], &args[1], truth),
            (op::IN, 2, None) => self.membership(&args[0], &args[1], truth),
            ("matches", 1, Some(target)) => self.matching(target, &args[0], truth),
            ("matches", 2, None) => self.matching(&args[0], &args[1], truth),
            ("startsWith" | "endsWith" | "contains", 1, Some(target)) => {
                match constant(&args[0]) {
                    Some(Value::String(part)) => {
                        let values = if truth {
                            vec![json!(part)]
                        } else if part.is_empty() {
                            // Every text starts with, ends with and holds "".
                            return Vec::new();
                        } else {
                            vec![json!("")]
                        };
                        self.set(target, values)
                    }
                    _ => unconstrained(),
                }
            }
            _ => unconstrained(),
        }
    }

    /// Every one of `args` evaluates to `truth`: their assignments merged.
    fn every(&self, args: &[IdedExpr], truth: bool) -> Vec<Assignment> {
        args.iter().fold(unconstrained(), |acc, a| {
            let mut next = cross(&acc, &self.assignments(a, truth));
            next.truncate(MAX_ALTERNATIVES);
            next
        })
    }

    /// Any one of `args` evaluates to `truth`.
    fn any(&self, args: &[IdedExpr], truth: bool) -> Vec<Assignment> {
        args.iter()
            .flat_map(|a| self.assignments(a, truth))
            .collect()
    }

    /// `has(operand.field)`.
    fn presence(&self, operand: &IdedExpr, field: &str, truth: bool) -> Vec<Assignment> {
        let Some((root, mut path)) = field_path(operand) else {
            return unconstrained();
        };
        if !(self.patchable)(root) {
            return unconstrained();
        }
        let value = if truth {
            path.push(field);
            nest(&path[..path.len() - 1], json!({ field: "simulated" }))
        } else {
            nest(&path, json!({}))
        };
        vec![vec![(root.to_string(), value)]]
    }

    /// `left <op> right` where one side reads a field and the other is a
    /// constant (or both read fields the agent may set).
    fn comparison(
        &self,
        name: &str,
        left: &IdedExpr,
        right: &IdedExpr,
        truth: bool,
    ) -> Vec<Assignment> {
        let (op, term, c) = match (constant(left), constant(right)) {
            (None, Some(c)) => (name, left, c),
            // `5 <= score` is `score >= 5`.
            (Some(c), None) => (mirror(name), right, c),
            (None, None) => return self.two_fields(name, left, right, truth),
            (Some(_), Some(_)) => return unconstrained(),
        };
        if let Some((root, path)) = size_of(term) {
            return self.sized(root, &path, op, &c, truth);
        }
        self.set(term, compared(op, &c, truth))
    }

    /// `a == b` and `a != b` over two fields the agent sets: both get one
    /// value, or two different ones.
    fn two_fields(
        &self,
        name: &str,
        left: &IdedExpr,
        right: &IdedExpr,
        truth: bool,
    ) -> Vec<Assignment> {
        let same = match name {
            op::EQUALS => truth,
            op::NOT_EQUALS => !truth,
            _ => return unconstrained(),
        };
        let a = self.set(left, vec![json!("simulated")]);
        let b = self.set(right, vec![json!(if same { "simulated" } else { "other" })]);
        cross(&a, &b)
    }

    /// `size(field) <op> n`: a text or a list of a length that answers it.
    fn sized(
        &self,
        root: &str,
        path: &[&str],
        op: &str,
        n: &Value,
        truth: bool,
    ) -> Vec<Assignment> {
        if !(self.patchable)(root) {
            return unconstrained();
        }
        let Some(n) = integer(n) else {
            return unconstrained();
        };
        let lengths: Vec<usize> = compared(op, &json!(n), truth)
            .iter()
            .filter_map(Value::as_i64)
            .filter_map(|l| usize::try_from(l).ok())
            .collect();
        // A field answered as text by default stays text; anything else is
        // a list.
        let text_first = path.is_empty() && self.shapes.get(root).is_some_and(Value::is_string);
        let mut out = Vec::new();
        for len in lengths {
            let (text, list) = (sized_text(len), sized_list(len));
            let shapes = if text_first {
                [text, list]
            } else {
                [list, text]
            };
            for value in shapes.into_iter().flatten() {
                out.push(vec![(root.to_string(), nest(path, value))]);
            }
        }
        out
    }

    /// `text.matches(re)` with a literal pattern: a text it matches, or
    /// texts it does not. A pattern `matches` refuses makes the gate fail
    /// to evaluate whatever the text: no way (`pattern::problems` says why).
    fn matching(&self, text: &IdedExpr, re: &IdedExpr, truth: bool) -> Vec<Assignment> {
        let Some(Value::String(re)) = constant(re) else {
            return unconstrained();
        };
        let Ok(pattern) = Pattern::new(&re) else {
            return Vec::new();
        };
        let texts = if truth {
            pattern.matching().into_iter().collect()
        } else {
            pattern.others()
        };
        if texts.is_empty() {
            return Vec::new();
        }
        self.set(text, texts.into_iter().map(Value::String).collect())
    }

    /// `x in [..]` or `"a" in field`.
    fn membership(&self, item: &IdedExpr, range: &IdedExpr, truth: bool) -> Vec<Assignment> {
        match (constant(item), constant(range)) {
            (None, Some(Value::Array(list))) => {
                let values = if truth {
                    list.into_iter().take(3).collect()
                } else {
                    vec![outside(&list)]
                };
                self.set(item, values)
            }
            (Some(c), None) => {
                let value = if truth { json!([c]) } else { json!([]) };
                self.set(range, vec![value])
            }
            _ => unconstrained(),
        }
    }

    /// Sets the field `term` reads to each of `values`, one alternative
    /// each; a term that is not a field the agent may set is left alone.
    fn set(&self, term: &IdedExpr, values: Vec<Value>) -> Vec<Assignment> {
        match field_path(term) {
            Some((root, path)) if (self.patchable)(root) => values
                .into_iter()
                .map(|v| vec![(root.to_string(), nest(&path, v))])
                .collect(),
            _ => unconstrained(),
        }
    }
}

/// A text of `len` bytes, when it is not too long to answer.
pub fn sized_text(len: usize) -> Option<Value> {
    (len <= MAX_TEXT).then(|| json!("s".repeat(len)))
}

/// A list of `len` items, when it is not too long to answer.
pub fn sized_list(len: usize) -> Option<Value> {
    (len <= MAX_LIST).then(|| {
        Value::Array(
            (1..=len)
                .map(|i| json!(format!("simulated item {i}")))
                .collect(),
        )
    })
}

/// `a.b.c` as the variable `a` and the path `[b, c]`; `m["k"]` as `m`
/// and `[k]`. `None` for anything that is not a field of a variable.
pub fn field_path(e: &IdedExpr) -> Option<(&str, Vec<&str>)> {
    match &e.expr {
        Expr::Ident(name) => Some((name.as_str(), Vec::new())),
        Expr::Select(s) if !s.test => {
            let (root, mut path) = field_path(&s.operand)?;
            path.push(s.field.as_str());
            Some((root, path))
        }
        Expr::Call(c) if c.func_name == op::INDEX && c.args.len() == 2 && c.target.is_none() => {
            let Expr::Literal(LiteralValue::String(key)) = &c.args[1].expr else {
                return None;
            };
            let (root, mut path) = field_path(&c.args[0])?;
            path.push(key.inner());
            Some((root, path))
        }
        _ => None,
    }
}

/// `size(x)` or `x.size()` over a field.
fn size_of(e: &IdedExpr) -> Option<(&str, Vec<&str>)> {
    let Expr::Call(c) = &e.expr else { return None };
    if c.func_name != "size" {
        return None;
    }
    match (&c.target, c.args.as_slice()) {
        (None, [arg]) => field_path(arg),
        (Some(target), []) => field_path(target),
        _ => None,
    }
}

/// `value` at `path` inside an object: `[b, c]` and 1 give `{b: {c: 1}}`.
fn nest(path: &[&str], value: Value) -> Value {
    path.iter().rev().fold(value, |inner, key| {
        let mut map = Map::new();
        map.insert((*key).to_string(), inner);
        Value::Object(map)
    })
}

/// The comparison with its sides swapped.
fn mirror(name: &str) -> &str {
    match name {
        op::LESS => op::GREATER,
        op::LESS_EQUALS => op::GREATER_EQUALS,
        op::GREATER => op::LESS,
        op::GREATER_EQUALS => op::LESS_EQUALS,
        other => other,
    }
}

/// A literal (or a negated one, or a list of them) as JSON, typed as the
/// gate will read it back: a non-negative integer is a `uint` there, as
/// `json!(5)` is.
pub fn constant(e: &IdedExpr) -> Option<Value> {
    match &e.expr {
        Expr::Literal(lit) => literal(lit),
        Expr::Call(c) if c.func_name == op::NEGATE && c.args.len() == 1 => {
            match constant(&c.args[0])? {
                Value::Number(n) => match (n.as_i64(), n.as_f64()) {
                    (Some(i), _) => i.checked_neg().map(|v| json!(v)),
                    (None, Some(f)) => Some(json!(-f)),
                    _ => None,
                },
                _ => None,
            }
        }
        Expr::List(list) => list
            .elements
            .iter()
            .map(constant)
            .collect::<Option<Vec<_>>>()
            .map(Value::Array),
        _ => None,
    }
}

fn literal(lit: &LiteralValue) -> Option<Value> {
    Some(match lit {
        LiteralValue::Boolean(b) => json!(**b),
        LiteralValue::Int(i) => json!(**i),
        LiteralValue::UInt(u) => json!(**u),
        LiteralValue::Double(d) if d.is_finite() => json!(**d),
        LiteralValue::String(s) => json!(s.inner()),
        LiteralValue::Null => Value::Null,
        LiteralValue::Double(_) | LiteralValue::Bytes(_) => return None,
    })
}

/// An integral number as i64.
fn integer(v: &Value) -> Option<i64> {
    v.as_i64()
        .or_else(|| v.as_u64().map(|_| i64::MAX))
        .or_else(|| {
            v.as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() < 9e15)
                .map(|f| f as i64)
        })
}

/// Every literal in the expression, in the order written: the values a
/// field is most likely compared with, for the plain search of `patch.rs`.
pub fn literals(e: &IdedExpr, out: &mut Vec<Value>) {
    if let Some(v) = constant(e)
        && !matches!(v, Value::Array(_))
    {
        out.push(v);
        return;
    }
    for child in children(e) {
        literals(child, out);
    }
}

/// The expressions directly inside `e`, in the order written (a call's
/// target before its arguments).
pub fn children(e: &IdedExpr) -> Vec<&IdedExpr> {
    match &e.expr {
        Expr::Call(c) => c.target.iter().map(|t| &**t).chain(&c.args).collect(),
        Expr::Select(s) => vec![&*s.operand],
        Expr::List(l) => l.elements.iter().collect(),
        Expr::Comprehension(c) => vec![
            &c.iter_range,
            &c.accu_init,
            &c.loop_cond,
            &c.loop_step,
            &c.result,
        ],
        _ => Vec::new(),
    }
}

/// The two assignments together, when they agree: objects set at one
/// variable are merged, any other clash drops the pair.
fn cross(a: &[Assignment], b: &[Assignment]) -> Vec<Assignment> {
    let mut out = Vec::new();
    for x in a {
        for y in b {
            if let Some(both) = merge(x, y) {
                out.push(both);
            }
        }
    }
    out
}

fn merge(a: &Assignment, b: &Assignment) -> Option<Assignment> {
    let mut out = a.clone();
    for (field, value) in b {
        match out.iter_mut().find(|(f, _)| f == field) {
            None => out.push((field.clone(), value.clone())),
            Some((_, existing)) => *existing = merge_values(existing, value)?,
        }
    }
    fits(&out).then_some(out)
}

/// Whether an assignment's values stay within [`MAX_ANSWER`] bytes of
/// JSON together: `&&` of many long texts would otherwise multiply them.
fn fits(a: &Assignment) -> bool {
    let mut left = MAX_ANSWER;
    a.iter().all(
        |(_, v)| match playbook_orchestrator::size::json_len_within(v, left as u64) {
            Ok(n) => {
                left = left.saturating_sub(usize::try_from(n).unwrap_or(usize::MAX));
                true
            }
            Err(_) => false,
        },
    )
}

fn merge_values(a: &Value, b: &Value) -> Option<Value> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut out = x.clone();
            for (k, v) in y {
                let merged = match out.get(k) {
                    Some(existing) => merge_values(existing, v)?,
                    None => v.clone(),
                };
                out.insert(k.clone(), merged);
            }
            Some(Value::Object(out))
        }
        _ if a == b => Some(a.clone()),
        _ => None,
    }
}

fn dedup(list: &mut Vec<Assignment>) {
    let mut seen: Vec<Assignment> = Vec::new();
    list.retain(|a| {
        if seen.contains(a) {
            false
        } else {
            seen.push(a.clone());
            true
        }
    });
}

pub fn dedup_values(list: &mut Vec<Value>) {
    let mut seen: Vec<Value> = Vec::new();
    list.retain(|v| {
        if seen.contains(v) {
            false
        } else {
            seen.push(v.clone());
            true
        }
    });
}
