//! An edited YAML text parsed from its last parse (`document::reparse`)
//! against a parse of the whole edited text: when the edited part was
//! spliced in, the value and the position of every node must be the whole
//! parse's; whatever the bytes, nothing panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use playbook_core::document::reparse::Held;
use playbook_core::document::{Format, parse_value};
use playbook_core::locate::SourceMap;
use serde_json::Value;

/// What an edit inserts: typing, structure, and what reads differently
/// alone (anchors, markers, block scalars, flow pairs).
const INSERTS: &[&str] = &[
    "",
    "x",
    " ",
    "\n",
    "- ",
    ": ",
    "#",
    "  ",
    "'",
    "\"",
    "[",
    "]",
    "{",
    "}",
    "|",
    ">",
    "&a ",
    "*a",
    "---\n",
    "...\n",
    "\t",
    "? ",
    "!!str ",
    "\r\n",
    "é",
    "[a: b]",
    "|+\n\n",
    "-\n",
    "  - name: x\n    mode: worker\n",
    "key:\n",
    ",",
];

fuzz_target!(|data: &[u8]| {
    // The first three bytes choose the edit: where, how much is deleted,
    // what is inserted; the rest is the text.
    let [a, b, c, rest @ ..] = data else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let (Ok(value), map) = (parse_value(text, Format::Yaml), SourceMap::new(text)) else {
        return;
    };
    let Some(mut held) = Held::new(text.to_owned(), value, map) else {
        return;
    };
    let mut at = (usize::from(*a) << 8 | usize::from(*b)) % (text.len() + 1);
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let mut end = (at + usize::from(c & 0x0f)).min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    let insert = INSERTS[usize::from(c >> 4) % INSERTS.len()];
    let edited = format!("{}{insert}{}", &text[..at], &text[end..]);
    if !held.update(&edited) {
        assert_eq!(held.text(), text, "a refused update keeps what it held");
        return;
    }
    let whole = parse_value(&edited, Format::Yaml).expect("a spliced text parses whole");
    assert!(
        held.value() == &whole,
        "the spliced value is the whole parse's"
    );
    let map = SourceMap::new(&edited);
    let mut pointers = vec![String::new()];
    collect(&whole, String::new(), &mut pointers);
    for pointer in pointers {
        assert_eq!(
            held.map().locate(&pointer),
            map.locate(&pointer),
            "the position of {pointer}"
        );
    }
});

fn collect(value: &Value, at: String, out: &mut Vec<String>) {
    let escape = |k: &str| k.replace('~', "~0").replace('/', "~1");
    match value {
        Value::Object(map) => map.iter().for_each(|(k, v)| {
            let pointer = format!("{at}/{}", escape(k));
            out.push(pointer.clone());
            collect(v, pointer, out);
        }),
        Value::Array(items) => items.iter().enumerate().for_each(|(i, v)| {
            let pointer = format!("{at}/{i}");
            out.push(pointer.clone());
            collect(v, pointer, out);
        }),
        _ => {}
    }
}
