//! `validate_source` on arbitrary text, as YAML and as JSON: whatever the
//! bytes, validation returns findings and never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use playbook_core::{Format, Options, validate_source};

fuzz_target!(|data: &[u8]| {
    // The CLI and the app refuse non-UTF-8 before validating; lossy decoding
    // still lets every byte sequence reach the parsers.
    let text = String::from_utf8_lossy(data);
    let strict = Options {
        strict: true,
        ..Options::default()
    };
    for format in [Format::Yaml, Format::Json] {
        let report = validate_source(&text, format, &Options::default());
        // A playbook that validates must validate again once printed: the
        // editor round-trips documents through the model.
        if let Some(playbook) = &report.playbook
            && let Ok(json) = serde_json::to_string(playbook)
        {
            let _ = validate_source(&json, Format::Json, &Options::default());
        }
        let _ = validate_source(&text, format, &strict);
    }
});
