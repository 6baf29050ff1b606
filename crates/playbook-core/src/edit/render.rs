//! New values written in the style of the text around them: block YAML
//! indented under its key or dash, flow YAML inside brackets, JSON compact
//! or pretty as the document is. Scalars go through `yaml_serde` or
//! `serde_json`, so quoting decisions (`'true'`, `'123'`) are the writers'.

use serde_json::Value;
use yaml_rust2::scanner::TScalarStyle;

/// A YAML scalar for block context, as `yaml_serde` writes it; a
/// multi-line string comes out as a block scalar whose lines are indented
/// two spaces relative to column 0 (see [`indent_after_first`]).
pub(super) fn yaml_scalar(value: &Value) -> String {
    match yaml_serde::to_string(value) {
        Ok(text) => text.trim_end_matches('\n').to_string(),
        Err(_) => json_compact(value),
    }
}

/// A string in the quoting the replaced scalar had, when that quoting can
/// hold it; otherwise the writer's choice.
pub(super) fn yaml_styled(value: &Value, style: TScalarStyle, in_flow: bool) -> String {
    if let Value::String(text) = value {
        match style {
            TScalarStyle::DoubleQuoted => return json_compact(value),
            TScalarStyle::SingleQuoted if text.chars().all(|c| c != '\n' && !c.is_control()) => {
                return format!("'{}'", text.replace('\'', "''"));
            }
            _ => {}
        }
    }
    if in_flow {
        yaml_flow(value)
    } else {
        yaml_scalar(value)
    }
}

/// A value on one line for flow context: plain words where the YAML writer
/// would leave them plain and no flow indicator is in them, JSON quoting
/// otherwise (JSON strings are valid YAML double-quoted scalars).
pub(super) fn yaml_flow(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let entries: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", yaml_key_flow(k), yaml_flow(v)))
                .collect();
            format!("{{{}}}", entries.join(", "))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(yaml_flow).collect();
            format!("[{}]", items.join(", "))
        }
        Value::String(text) => flow_word(text).unwrap_or_else(|| json_compact(value)),
        _ => yaml_scalar(value),
    }
}

/// A string left plain inside brackets only when it is plainly a word or
/// words: letters, digits and `_ . / -` (a dash never after a space or
/// first), single spaces between; anything else is quoted.
fn flow_word(text: &str) -> Option<String> {
    let plain = yaml_scalar(&Value::String(text.to_string()));
    let mut previous = ' ';
    let wordy = text.chars().all(|c| {
        let ok = c.is_alphanumeric()
            || "_./".contains(c)
            || (c == '-' && previous != ' ')
            || (c == ' ' && previous != ' ');
        previous = c;
        ok
    });
    let safe = plain == text && !text.is_empty() && wordy && !text.ends_with(' ');
    safe.then(|| text.to_string())
}

/// A mapping key for block context.
pub(super) fn yaml_key(key: &str) -> String {
    let text = yaml_scalar(&Value::String(key.to_string()));
    if text.contains('\n') || text.starts_with(['|', '>']) {
        json_compact(&Value::String(key.to_string()))
    } else {
        text
    }
}

fn yaml_key_flow(key: &str) -> String {
    flow_word(key).unwrap_or_else(|| json_compact(&Value::String(key.to_string())))
}

/// A key in the document's syntax.
pub(super) fn key(key: &str, json: bool, in_flow: bool) -> String {
    if json {
        json_compact(&Value::String(key.to_string()))
    } else if in_flow {
        yaml_key_flow(key)
    } else {
        yaml_key(key)
    }
}

/// Longest list of plain words written on one line (`[a, b]`) inside a
/// block: how hand-written playbooks write tool and field lists.
const FLOW_LIST_WIDTH: usize = 60;

/// A non-empty collection as block YAML at column 0, no final newline:
/// nested mappings and long lists indented two spaces, short lists of
/// scalars on one line.
pub(super) fn yaml_block(value: &Value) -> String {
    match value {
        Value::Object(map) if !map.is_empty() => map
            .iter()
            .map(|(key, v)| format!("{}:{}", yaml_key(key), block_child(v)))
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Array(items) if !items.is_empty() => items
            .iter()
            .map(|item| format!("- {}", indent_after_first(&block_item(item), 2)))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => yaml_scalar(value),
    }
}

/// A value after `key:`, with its separating space or newline.
pub(super) fn block_child(value: &Value) -> String {
    if let Some(flow) = short_flow_list(value) {
        return format!(" {flow}");
    }
    if is_block_collection(value) {
        format!("\n{}", indent_all(&yaml_block(value), 2))
    } else {
        format!(" {}", yaml_scalar(value))
    }
}

/// A value after `- `.
pub(super) fn block_item(value: &Value) -> String {
    short_flow_list(value).unwrap_or_else(|| yaml_block(value))
}

fn short_flow_list(value: &Value) -> Option<String> {
    let Value::Array(items) = value else {
        return None;
    };
    if items.iter().any(|i| i.is_object() || i.is_array()) {
        return None;
    }
    let flow = yaml_flow(value);
    (flow.len() <= FLOW_LIST_WIDTH).then_some(flow)
}

/// JSON on one line, spaced as people write it (`{"a": 1, "b": [2, 3]}`).
pub(super) fn json_compact(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let entries: Vec<String> = map
                .iter()
                .map(|(k, v)| {
                    format!(
                        "{}: {}",
                        json_compact(&Value::String(k.clone())),
                        json_compact(v)
                    )
                })
                .collect();
            format!("{{{}}}", entries.join(", "))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(json_compact).collect();
            format!("[{}]", items.join(", "))
        }
        _ => serde_json::to_string(value).unwrap_or_else(|_| "null".into()),
    }
}

/// JSON for a value placed at a line indented `indent` columns: pretty
/// (`unit` spaces per level, as the document is indented, continuing lines
/// shifted to the indent) when the document is multi-line, compact otherwise.
pub(super) fn json(value: &Value, pretty: bool, indent: usize, unit: usize) -> String {
    if !pretty || !is_block_collection(value) {
        return json_compact(value);
    }
    let pad = " ".repeat(unit.max(1));
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(pad.as_bytes());
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    let text = serde::Serialize::serialize(value, &mut serializer)
        .ok()
        .and_then(|()| String::from_utf8(out).ok())
        .unwrap_or_else(|| "null".into());
    indent_after_first(&text, indent)
}

/// Shifts every line but the first right by `indent` spaces (the first
/// continues a line that already has its indentation). Blank lines stay
/// empty, as YAML block scalars allow.
pub(super) fn indent_after_first(text: &str, indent: usize) -> String {
    let pad = " ".repeat(indent);
    let mut out = String::with_capacity(text.len() + indent * 8);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
            if !line.is_empty() {
                out.push_str(&pad);
            }
        }
        out.push_str(line);
    }
    out
}

/// Shifts every line right by `indent` spaces.
pub(super) fn indent_all(text: &str, indent: usize) -> String {
    let pad = " ".repeat(indent);
    format!("{pad}{}", indent_after_first(text, indent))
}

/// Whether a value is written over several lines in block YAML.
pub(super) fn is_block_collection(value: &Value) -> bool {
    match value {
        Value::Object(map) => !map.is_empty(),
        Value::Array(items) => !items.is_empty(),
        _ => false,
    }
}
