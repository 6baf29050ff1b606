//! The keystroke's check, answered inside the edit's own input event.
//!
//! WebKitGTK paints a typed character in the frame right after the key and
//! paces the next frame up to 16.7 ms later, so hints that come back through
//! the asynchronous IPC (3–5 ms after the key) are painted 9–12 ms after it
//! (docs/benchmarks.md, "The keystroke against its own floor"). For a small
//! change the page asks this URI scheme with a *synchronous* request instead
//! and renders the edit together with its answer, in the key's own frame
//! (`ui/src/validation/check.ts`, `checkNow`).
//!
//! The page waits for the answer, so the answer never waits: a check already
//! running answers `busy` at once ([`LastChecked::try_check`]), and a large
//! request is refused. Either way the page falls back to the `check_document`
//! command, which this shares its held document and its answer with.

use serde::Deserialize;

use crate::api::{DocumentChange, Include};
use crate::error::{AppError, ErrorCode};
use crate::workbench::{LastChecked, check_document_in};
use playbook_core::Format;
use playbook_store::Authored;

/// The scheme's name: `check://localhost/` (`http://check.localhost/` on
/// Windows), allowed by the page's `connect-src`.
pub const SCHEME: &str = "check";

/// A keystroke's change is one value; a request this large is a whole
/// document, which the asynchronous command checks without holding up the page.
pub const MAX_REQUEST_BYTES: usize = 256 * 1024;

/// The origins of the app's own page (`tauri://localhost` on Linux and
/// macOS, `http(s)://tauri.localhost` on Windows): nothing else may ask.
const PAGE_ORIGINS: [&str; 3] = [
    "tauri://localhost",
    "http://tauri.localhost",
    "https://tauri.localhost",
];

/// The arguments of the `check_document` command, as one JSON body.
#[derive(Deserialize)]
struct Request {
    change: DocumentChange,
    format: Format,
    include: Include,
    source: Option<Authored>,
}

/// An answer: an HTTP status, the JSON body (`Checked`, or an `AppError`),
/// and the origin allowed to read it.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub body: Vec<u8>,
    pub allow_origin: Option<String>,
}

/// Answers one request: `POST` with the command's arguments as JSON, from
/// the app's page.
pub fn answer(last: &LastChecked, method: &str, origin: Option<&str>, body: &[u8]) -> Answer {
    // A same-origin request carries no Origin; a cross-origin one must be the page's.
    let allow_origin = match origin {
        None => None,
        Some(origin) if PAGE_ORIGINS.contains(&origin) => Some(origin.to_owned()),
        Some(origin) => {
            let refused = AppError::new(
                ErrorCode::InvalidInput,
                format!("the check scheme answers the app's page only, not {origin}"),
            );
            return failed(403, &refused, None);
        }
    };
    let refused = |status, code, message: String| {
        failed(status, &AppError::new(code, message), allow_origin.clone())
    };
    if method != "POST" {
        return refused(
            405,
            ErrorCode::InvalidInput,
            format!("the check scheme takes POST, not {method}"),
        );
    }
    if body.len() > MAX_REQUEST_BYTES {
        return refused(
            413,
            ErrorCode::TooLarge,
            format!(
                "a request of {} bytes is over the {MAX_REQUEST_BYTES} bytes of a keystroke; send it with check_document",
                body.len()
            ),
        );
    }
    let request: Request = match serde_json::from_slice(body) {
        Ok(request) => request,
        Err(e) => {
            return refused(
                400,
                ErrorCode::InvalidInput,
                format!("the check request is malformed: {e}"),
            );
        }
    };
    let answered = last
        .try_check(request.change, |document| {
            check_document_in(
                document,
                request.format,
                request.include,
                request.source.as_ref(),
            )
        })
        .flatten()
        .and_then(|checked| {
            serde_json::to_vec(&checked)
                .map_err(|e| AppError::new(ErrorCode::Internal, e.to_string()))
        });
    match answered {
        Ok(body) => Answer {
            status: 200,
            body,
            allow_origin,
        },
        Err(e) => {
            let status = match e.code {
                ErrorCode::Stale => 409,
                ErrorCode::Busy => 503,
                _ => 500,
            };
            failed(status, &e, allow_origin)
        }
    }
}

fn failed(status: u16, error: &AppError, allow_origin: Option<String>) -> Answer {
    Answer {
        status,
        // An error of two strings always serialises.
        body: serde_json::to_vec(error).unwrap_or_default(),
        allow_origin,
    }
}

/// [`answer`] as the scheme's HTTP response.
pub fn respond(
    last: &LastChecked,
    request: &tauri::http::Request<Vec<u8>>,
) -> tauri::http::Response<Vec<u8>> {
    let origin = request
        .headers()
        .get(tauri::http::header::ORIGIN)
        .and_then(|origin| origin.to_str().ok());
    // This runs on the window's thread, called from WebKit: a panic must not
    // unwind into C and end the app. The page then asks the command, which
    // reports the failure; the held document's lock recovers from poisoning.
    let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        answer(last, request.method().as_str(), origin, request.body())
    }))
    .unwrap_or_else(|_| {
        let failed_check = AppError::new(ErrorCode::Internal, "the check failed unexpectedly");
        failed(500, &failed_check, None)
    });
    let mut response = tauri::http::Response::builder()
        .status(answer.status)
        .header(tauri::http::header::CONTENT_TYPE, "application/json")
        .header(tauri::http::header::CACHE_CONTROL, "no-store");
    if let Some(origin) = answer.allow_origin {
        response = response.header(tauri::http::header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    }
    response.body(answer.body).unwrap_or_else(|_| {
        // Every header above is a valid value: not reached.
        tauri::http::Response::new(Vec::new())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    const PAGE: Option<&str> = Some("tauri://localhost");

    fn ask(last: &LastChecked, body: Value) -> (u16, Value) {
        let answer = answer(last, "POST", PAGE, body.to_string().as_bytes());
        assert_eq!(answer.allow_origin.as_deref(), PAGE);
        (
            answer.status,
            serde_json::from_slice(&answer.body).expect("the answer is JSON"),
        )
    }

    fn playbook() -> Value {
        let text = include_str!("../../playbooks/tdd.yaml");
        playbook_core::document::parse_value(text, Format::Yaml).expect("tdd.yaml parses")
    }

    fn request(change: Value) -> Value {
        json!({ "change": change, "format": "yaml", "include": { "source": false, "flow": false }, "source": null })
    }

    #[test]
    fn a_patch_is_checked_against_the_document_the_command_holds() {
        let last = LastChecked::default();
        let (status, whole) = ask(
            &last,
            request(json!({ "kind": "whole", "revision": 1, "document": playbook() })),
        );
        assert_eq!(status, 200, "{whole}");
        assert_eq!(whole["allow"], true, "{whole}");
        // An edit that breaks the playbook: the answer says so.
        let broken = request(
            json!({ "kind": "patch", "base": 1, "revision": 2, "pointer": "/schema_version", "value": "one" }),
        );
        let (status, checked) = ask(&last, broken);
        assert_eq!(status, 200, "{checked}");
        assert_eq!(checked["allow"], false, "{checked}");
        // The next patch builds on revision 2, as the asynchronous command would.
        let (status, again) = ask(
            &last,
            request(
                json!({ "kind": "patch", "base": 2, "revision": 3, "pointer": "/schema_version", "value": "1.0.0" }),
            ),
        );
        assert_eq!(status, 200, "{again}");
        assert_eq!(again["allow"], true, "{again}");
    }

    #[test]
    fn a_patch_to_a_revision_not_held_is_stale() {
        let last = LastChecked::default();
        let (status, error) = ask(
            &last,
            request(
                json!({ "kind": "patch", "base": 7, "revision": 8, "pointer": "/id", "value": "x" }),
            ),
        );
        assert_eq!((status, &error["code"]), (409, &json!("stale")));
    }

    #[test]
    fn a_check_already_running_answers_busy_without_waiting() {
        let last = LastChecked::default();
        let whole = request(json!({ "kind": "whole", "revision": 1, "document": playbook() }));
        let inner = last.check(
            DocumentChange::Whole {
                revision: 0,
                document: playbook(),
            },
            // The page's request comes while this check holds the document.
            |_| answer(&last, "POST", PAGE, whole.to_string().as_bytes()),
        );
        let inner = inner.expect("the outer check ran");
        assert_eq!(inner.status, 503);
        let error: Value = serde_json::from_slice(&inner.body).expect("JSON");
        assert_eq!(error["code"], "busy");
    }

    #[test]
    fn anything_but_a_small_post_from_the_page_is_refused_with_a_reason() {
        let last = LastChecked::default();
        let body =
            request(json!({ "kind": "whole", "revision": 1, "document": playbook() })).to_string();
        let cases = [
            ("GET", PAGE, body.clone().into_bytes(), 405),
            (
                "POST",
                Some("https://example.com"),
                body.clone().into_bytes(),
                403,
            ),
            ("POST", PAGE, b"{\"change\":".to_vec(), 400),
            ("POST", PAGE, vec![b' '; MAX_REQUEST_BYTES + 1], 413),
        ];
        for (method, origin, body, status) in cases {
            let answer = answer(&last, method, origin, &body);
            assert_eq!(answer.status, status, "{method} from {origin:?}");
            let error: Value = serde_json::from_slice(&answer.body).expect("JSON");
            assert!(
                error["message"].as_str().is_some_and(|m| !m.is_empty()),
                "{error}"
            );
        }
        // Hostile bodies: nesting deeper than the JSON reader's limit, a
        // pointer to an index no list has, a number too large for any field.
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(answer(&last, "POST", PAGE, deep.as_bytes()).status, 400);
        let (status, _) = ask(
            &last,
            request(json!({ "kind": "whole", "revision": 1, "document": playbook() })),
        );
        assert_eq!(status, 200);
        let far = request(
            json!({ "kind": "patch", "base": 1, "revision": 2, "pointer": "/workflow/build/roles/18446744073709551616/name", "value": "x" }),
        );
        let (status, error) = ask(&last, far);
        assert_eq!((status, &error["code"]), (409, &json!("stale")), "{error}");
        let (status, _) = ask(
            &last,
            request(json!({ "kind": "whole", "revision": 3, "document": playbook() })),
        );
        assert_eq!(status, 200);
        let huge = request(
            json!({ "kind": "patch", "base": 3, "revision": 4, "pointer": "/workflow/build/roles/2/retry_policy/max_iterations", "value": 1e308 }),
        );
        let (status, checked) = ask(&last, huge);
        assert_eq!(status, 200, "{checked}");
        assert_eq!(
            checked["allow"], false,
            "a retry limit of 1e308 is refused: {checked}"
        );
        // A foreign origin is not told it may read the answer.
        assert_eq!(
            answer(&last, "POST", Some("https://example.com"), body.as_bytes()).allow_origin,
            None
        );
    }
}
