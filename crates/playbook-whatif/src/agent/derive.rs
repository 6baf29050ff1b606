//! Values that give a gate expression a wanted verdict, read off its
//! compiled CEL syntax tree: the literal a field is compared with, the
//! values just across each boundary, the length a `size` asks for, the
//! truth value a bare field must have. They are guesses, nothing more:
//! every one is checked by evaluating the real gate before it is used
//! (`patch.rs`), so a form this file does not understand costs a note in
//! the report, never a wrong verdict.

use cel::common::ast::{CallExpr, Expr, IdedExpr, LiteralValue, operators as op};
use serde_json::{Map, Value, json};

/// Fields to set, each to a value: one way of giving a gate a verdict.
pub type Assignment = Vec<(String, Value)>;

/// Alternatives kept per node of the tree: a gate of many `&&` and `||`
/// would otherwise multiply them.
const MAX_ALTERNATIVES: usize = 16;

/// Longest string or list made for a `size` comparison. A gate that asks
/// for more gets no such value (and the report says it cannot pass), rather
/// than an output the engine may refuse as too large.
pub const MAX_SIZE: i64 = 1024;

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
        let lengths: Vec<i64> = compared(op, &json!(n), truth)
            .iter()
            .filter_map(Value::as_i64)
            .filter(|l| (0..=MAX_SIZE).contains(l))
            .collect();
        // A field answered as text by default stays text; anything else is
        // a list.
        let text_first = path.is_empty() && self.shapes.get(root).is_some_and(Value::is_string);
        let mut out = Vec::new();
        for len in lengths {
            let len = usize::try_from(len).unwrap_or(0);
            let text = json!("s".repeat(len));
            let list = Value::Array(
                (1..=len)
                    .map(|i| json!(format!("simulated item {i}")))
                    .collect(),
            );
            let shapes = if text_first {
                [text, list]
            } else {
                [list, text]
            };
            for value in shapes {
                out.push(vec![(root.to_string(), nest(path, value))]);
            }
        }
        out
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

/// Values of a field for which `field <op> c` is `truth`, the nearest
/// first: the literal itself, then one step across the boundary.
pub fn compared(op: &str, c: &Value, truth: bool) -> Vec<Value> {
    // Wanting it false is wanting the comparison that is true exactly then.
    let op = match (truth, op) {
        (true, op) => op,
        (false, op::EQUALS) => op::NOT_EQUALS,
        (false, op::NOT_EQUALS) => op::EQUALS,
        (false, op::LESS) => op::GREATER_EQUALS,
        (false, op::LESS_EQUALS) => op::GREATER,
        (false, op::GREATER) => op::LESS_EQUALS,
        (false, op::GREATER_EQUALS) => op::LESS,
        _ => return Vec::new(),
    };
    let mut out = match op {
        op::EQUALS => vec![c.clone()],
        op::NOT_EQUALS => others(c),
        op::LESS => below(c),
        op::LESS_EQUALS => [vec![c.clone()], below(c)].concat(),
        op::GREATER => above(c),
        op::GREATER_EQUALS => [vec![c.clone()], above(c)].concat(),
        _ => Vec::new(),
    };
    dedup_values(&mut out);
    out
}

/// Values just above `c` in its own order.
fn above(c: &Value) -> Vec<Value> {
    match c {
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                u.checked_add(1).map(|v| vec![json!(v)]).unwrap_or_default()
            } else if let Some(i) = n.as_i64() {
                i.checked_add(1).map(|v| vec![json!(v)]).unwrap_or_default()
            } else {
                n.as_f64()
                    .map(|f| step(f, 1.0))
                    .filter(|f| f.is_finite())
                    .map(|f| vec![json!(f)])
                    .unwrap_or_default()
            }
        }
        // A text is below every longer text it starts.
        Value::String(s) => vec![json!(format!("{s}z"))],
        _ => Vec::new(),
    }
}

/// Values just below `c` in its own order.
fn below(c: &Value) -> Vec<Value> {
    match c {
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.checked_sub(1).map(|v| vec![json!(v)]).unwrap_or_default()
            } else if n.is_u64() {
                // Above i64::MAX: one less is still a u64.
                n.as_u64().map(|u| vec![json!(u - 1)]).unwrap_or_default()
            } else {
                n.as_f64()
                    .map(|f| step(f, -1.0))
                    .filter(|f| f.is_finite())
                    .map(|f| vec![json!(f)])
                    .unwrap_or_default()
            }
        }
        Value::String(s) if !s.is_empty() => vec![json!("")],
        _ => Vec::new(),
    }
}

/// `f` moved by one, or by one representable step where one is lost in
/// its precision.
fn step(f: f64, by: f64) -> f64 {
    let moved = f + by;
    if moved != f {
        moved
    } else if by > 0.0 {
        f.next_up()
    } else {
        f.next_down()
    }
}

/// Values of the same kind as `c` that differ from it, plainest first.
fn others(c: &Value) -> Vec<Value> {
    match c {
        Value::Bool(b) => vec![json!(!b)],
        Value::Number(_) => [above(c), below(c)].concat(),
        Value::String(s) => {
            let mut out = Vec::new();
            if s != "fail" {
                out.push(json!("fail"));
            }
            out.push(json!(format!("not {s}")));
            if !s.is_empty() {
                out.push(json!(""));
            }
            out
        }
        Value::Array(a) if a.is_empty() => vec![json!(["simulated item"])],
        Value::Array(_) => vec![json!([])],
        Value::Object(o) if o.is_empty() => vec![json!({"simulated": true})],
        Value::Object(_) => vec![json!({})],
        Value::Null => vec![json!("simulated")],
    }
}

/// A value that is not in `list`, of the kind of its first element.
fn outside(list: &[Value]) -> Value {
    let numbers: Vec<f64> = list.iter().filter_map(Value::as_f64).collect();
    if !numbers.is_empty() && numbers.len() == list.len() {
        let max = numbers.iter().copied().fold(f64::MIN, f64::max);
        return match list.iter().all(|v| v.as_i64().is_some()) {
            true => json!(
                list.iter()
                    .filter_map(Value::as_i64)
                    .max()
                    .unwrap_or(0)
                    .saturating_add(1)
            ),
            false => json!(step(max, 1.0)),
        };
    }
    let mut text = String::from("not ");
    for v in list {
        if let Value::String(s) = v {
            text.push_str(s);
        }
    }
    json!(text)
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
    match &e.expr {
        Expr::Call(c) => {
            if let Some(t) = &c.target {
                literals(t, out);
            }
            for a in &c.args {
                literals(a, out);
            }
        }
        Expr::Select(s) => literals(&s.operand, out),
        Expr::List(l) => l.elements.iter().for_each(|x| literals(x, out)),
        Expr::Comprehension(c) => {
            for x in [
                &c.iter_range,
                &c.accu_init,
                &c.loop_cond,
                &c.loop_step,
                &c.result,
            ] {
                literals(x, out);
            }
        }
        _ => {}
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
    Some(out)
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
