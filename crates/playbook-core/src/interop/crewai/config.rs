//! One CrewAI YAML file (`agents.yaml` or `tasks.yaml`) read through the
//! core's hardened YAML reader, with typed access to each entry's fields
//! that names the file and line of anything of the wrong shape.

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::{CrewFile, ImportError};
use crate::document::{Format, parse_document};
use crate::finding::escape_pointer;
use crate::ids::id_problem;
use crate::locate::SourceMap;

/// Most agents, and most tasks, one import reads: a crew is a handful of
/// each; more is generated content, not a crew.
pub const MAX_ENTRIES: usize = 500;

/// A parsed file: entry id → its fields, in file order.
pub(super) struct Config<'a> {
    pub file: &'a str,
    pub entries: IndexMap<String, Map<String, Value>>,
    map: SourceMap,
}

impl<'a> Config<'a> {
    /// `what` is `agent` or `task`, for the messages.
    pub fn parse(source: CrewFile<'a>, what: &str) -> Result<Config<'a>, ImportError> {
        let file = source.file;
        let value = parse_document(source.text, Format::Yaml).map_err(|findings| {
            let first = findings.into_iter().next();
            match first {
                // The reader's hint for an empty file is about playbooks.
                Some(f) if f.message.starts_with("the document is empty") => ImportError::new(
                    file,
                    None,
                    format!("the file has no {what}s"),
                    format!("define at least one `<{what}_id>:` with its fields"),
                ),
                Some(f) => ImportError::new(file, f.location.map(|l| l.line), f.message, f.hint),
                None => ImportError::new(file, None, "cannot be read as YAML", ""),
            }
        })?;
        let map = SourceMap::new(source.text.trim_start_matches('\u{feff}'));
        let Value::Object(top) = value else {
            return Err(ImportError::new(
                file,
                Some(1),
                format!("the file is {}, not a mapping of {what} ids", kind(&value)),
                format!(
                    "write one `<{what}_id>:` key per {what} at the start of a line, its fields indented below"
                ),
            ));
        };
        if top.len() > MAX_ENTRIES {
            return Err(ImportError::new(
                file,
                None,
                format!(
                    "{} {what}s; one import reads at most {MAX_ENTRIES}",
                    top.len()
                ),
                "import one crew at a time",
            ));
        }
        let mut config = Config {
            file,
            entries: IndexMap::new(),
            map,
        };
        for (id, fields) in top {
            if let Some(why) = id_problem(&id) {
                return Err(config.err(
                    &id,
                    None,
                    format!("the {what} id `{}` cannot name a role: {why}", shorten(&id)),
                    format!("rename the {what} with letters, digits and `_`"),
                ));
            }
            match fields {
                Value::Object(fields) => {
                    config.entries.insert(id, fields);
                }
                other => {
                    return Err(config.err(
                        &id,
                        None,
                        format!("{what} `{id}` is {}, not a mapping of fields", kind(&other)),
                        format!(
                            "indent the {what}'s fields (`role:`, `description:`...) under `{id}:`"
                        ),
                    ));
                }
            }
        }
        Ok(config)
    }

    /// The line of `/<id>/<key>/<index>` (as much of it as exists).
    pub fn line(&self, id: &str, key: Option<&str>, index: Option<usize>) -> Option<usize> {
        let mut pointer = format!("/{}", escape_pointer(id));
        if let Some(key) = key {
            pointer.push('/');
            pointer.push_str(&escape_pointer(key));
            if let Some(i) = index {
                pointer.push_str(&format!("/{i}"));
            }
        }
        self.map.locate(&pointer).map(|l| l.line)
    }

    pub fn err(
        &self,
        id: &str,
        key: Option<&str>,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> ImportError {
        ImportError::new(self.file, self.line(id, key, None), message, hint)
    }

    fn field(&self, id: &str, key: &str) -> Option<&Value> {
        self.entries
            .get(id)
            .and_then(|f| f.get(key))
            .filter(|v| !v.is_null())
    }

    /// Whether the entry gives `key` a value (anything but absent or null):
    /// CrewAI refuses a required field only then, and takes an empty text.
    pub fn is_set(&self, id: &str, key: &str) -> bool {
        self.field(id, key).is_some()
    }

    /// A text field. Numbers and booleans are text to CrewAI's templates
    /// too, so they are accepted as written.
    pub fn text(&self, id: &str, key: &str) -> Result<Option<String>, ImportError> {
        match self.field(id, key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.trim().to_string()).filter(|s| !s.is_empty())),
            Some(v @ (Value::Number(_) | Value::Bool(_))) => Ok(Some(v.to_string())),
            Some(other) => Err(self.err(
                id,
                Some(key),
                format!("`{id}.{key}` is {}, not text", kind(other)),
                format!("write `{key}` as text; use `>` for a folded paragraph"),
            )),
        }
    }

    /// A list of names; one name written as text is a list of one.
    pub fn names(&self, id: &str, key: &str) -> Result<Option<Vec<String>>, ImportError> {
        match self.field(id, key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(vec![s.trim().to_string()])),
            Some(Value::Array(items)) => {
                let mut names = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    match item {
                        Value::String(s) if !s.trim().is_empty() => {
                            names.push(s.trim().to_string())
                        }
                        other => {
                            return Err(ImportError::new(
                                self.file,
                                self.line(id, Some(key), Some(i)),
                                format!("`{id}.{key}` lists {}, not a name", kind(other)),
                                format!("list names as text, e.g. `{key}: [first, second]`"),
                            ));
                        }
                    }
                }
                Ok(Some(names))
            }
            Some(other) => Err(self.err(
                id,
                Some(key),
                format!("`{id}.{key}` is {}, not a list of names", kind(other)),
                format!("write `{key}` as a list, e.g. `{key}: [first, second]`"),
            )),
        }
    }

    /// A boolean field, as CrewAI reads one: PyYAML (YAML 1.1) reads `yes`,
    /// `on`, `no`, `off` (and their `Yes`/`YES` spellings) as booleans, and
    /// its pydantic models take those words as booleans even when quoted.
    /// The core's YAML 1.2 reader left them text, so they are read here.
    pub fn flag(&self, id: &str, key: &str) -> Result<Option<bool>, ImportError> {
        match self.field(id, key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(Value::String(word)) if PYYAML_TRUE.contains(&word.as_str()) => Ok(Some(true)),
            Some(Value::String(word)) if PYYAML_FALSE.contains(&word.as_str()) => Ok(Some(false)),
            Some(other) => Err(self.err(
                id,
                Some(key),
                format!("`{id}.{key}` is {}, not true or false", kind(other)),
                format!("write `{key}: true` or `{key}: false`"),
            )),
        }
    }

    /// A whole-number field, as CrewAI's pydantic models take one: an
    /// integer, a float with no fraction (`15.0`) or text that is one
    /// (`"15"`). Its size is the caller's to judge: however large, it is
    /// read (`i128` saturates far beyond any limit a playbook has).
    pub fn integer(&self, id: &str, key: &str) -> Result<Option<Whole>, ImportError> {
        let Some(value) = self.field(id, key) else {
            return Ok(None);
        };
        let read = match value {
            Value::Number(n) => n.as_i64().map(i128::from).or_else(|| {
                // A float here is whole when it has no fraction; `as`
                // saturates, and every float beyond i64 is whole.
                let f = n.as_f64()?;
                (f.fract() == 0.0).then_some(f as i128)
            }),
            Value::String(s) => s.trim().parse::<i128>().ok(),
            _ => None,
        };
        match read {
            Some(read) => Ok(Some(Whole {
                value: read,
                written: match value {
                    Value::String(s) => format!("\"{}\"", s.trim()),
                    other => other.to_string(),
                },
            })),
            None => Err(self.err(
                id,
                Some(key),
                format!("`{id}.{key}` is {}, not a whole number", kind(value)),
                format!("write `{key}` as a whole number, e.g. `{key}: 15`"),
            )),
        }
    }
}

/// A whole number read from a field, and the value as the file has it.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Whole {
    pub value: i128,
    pub written: String,
}

/// What PyYAML's YAML 1.1 resolver reads as a boolean (`true` and `false`
/// the YAML 1.2 reader already has, but quoted they are text to both).
const PYYAML_TRUE: &[&str] = &[
    "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE",
];
const PYYAML_FALSE: &[&str] = &[
    "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE",
];

pub(super) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "empty",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

/// At most 60 characters of `s`, for messages about hostile ids.
fn shorten(s: &str) -> String {
    let mut out: String = s.chars().take(60).filter(|c| !c.is_control()).collect();
    if s.chars().count() > 60 {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config<'_>, ImportError> {
        Config::parse(
            CrewFile {
                file: "tasks.yaml",
                text,
            },
            "task",
        )
    }

    #[test]
    fn refusals_name_the_line() {
        let c = parse("a:\n  description: x\n  context: [b, 3]\n")
            .ok()
            .unwrap();
        let e = c.names("a", "context").unwrap_err();
        assert_eq!(e.line, Some(3), "{e}");
        let e = parse("a:\n  description: [x\n").err().unwrap();
        assert!(e.line.is_some(), "{e}");
        let e = parse("- a\n- b\n").err().unwrap();
        assert!(e.message.contains("a list"), "{e}");
        let e = parse("a: 3\n").err().unwrap();
        assert!(e.message.contains("not a mapping"), "{e}");
        let e = parse("a:\n  x: 1\na:\n  x: 2\n").err().unwrap();
        assert!(e.line.is_some(), "{e}");
        let e = parse("").err().unwrap();
        assert_eq!(e.file, "tasks.yaml");
        let e = parse("\"a/b\":\n  x: 1\n").err().unwrap();
        assert!(e.message.contains("path separator"), "{e}");
    }

    #[test]
    fn typed_fields() {
        let c = parse("t:\n  human_input: maybe\n  max_iter: 2.5\n  tools: one\n  goal: 42\n")
            .ok()
            .unwrap();
        assert!(c.flag("t", "human_input").is_err());
        assert_eq!(c.integer("t", "max_iter").unwrap_err().line, Some(3));
        assert_eq!(
            c.names("t", "tools").unwrap(),
            Some(vec!["one".to_string()])
        );
        assert_eq!(c.text("t", "goal").unwrap().as_deref(), Some("42"));
    }

    #[test]
    fn booleans_are_read_as_pyyaml_and_pydantic_read_them() {
        for (word, read) in [
            ("yes", true),
            ("On", true),
            ("TRUE", true),
            ("'yes'", true),
            ("\"true\"", true),
            ("no", false),
            ("OFF", false),
            ("False", false),
        ] {
            let text = format!("t:\n  human_input: {word}\n");
            let c = parse(&text).ok().unwrap();
            assert_eq!(c.flag("t", "human_input").unwrap(), Some(read), "{word}");
        }
        // YAML 1.1 spellings PyYAML does not have stay refused.
        for word in ["y", "n", "yEs", "1"] {
            let text = format!("t:\n  human_input: {word}\n");
            let c = parse(&text).ok().unwrap();
            assert!(c.flag("t", "human_input").is_err(), "{word}");
        }
    }

    #[test]
    fn whole_numbers_are_read_as_pydantic_reads_them_whatever_their_size() {
        for (written, value) in [
            ("15", 15),
            ("15.0", 15),
            ("\"25\"", 25),
            ("' 7 '", 7),
            ("-3", -3),
            ("99999999999999999999", 100_000_000_000_000_000_000),
        ] {
            let text = format!("t:\n  max_iter: {written}\n");
            let c = parse(&text).ok().unwrap();
            let read = c.integer("t", "max_iter").unwrap().unwrap();
            assert_eq!(read.value, value, "{written}");
        }
        for written in ["2.5", "many", "\"2.5\"", "[1]"] {
            let text = format!("t:\n  max_iter: {written}\n");
            let c = parse(&text).ok().unwrap();
            assert!(c.integer("t", "max_iter").is_err(), "{written}");
        }
    }
}
