//! JSON pointers as the CLI prints them: the address of a finding, made of
//! a document's keys, which may be anything.

use std::borrow::Cow;

use crate::{is_clean, redact_str};

/// A JSON pointer (RFC 6901) with every secret replaced by [`crate::REDACTED`];
/// borrowed when clean. Its reference tokens are a document's keys, which
/// may be anything, escaped (`~1` for `/`, `~0` for `~`): each token is
/// redacted as the key it stands for (a key `https://u:pw@host` is written
/// `https:~1~1u:pw@host`, which no rule reads as a URL) and written back
/// escaped, and the pointer is redacted as written too (a secret can run
/// across a `/`). The result is still a pointer (the marker holds no `/`
/// or `~`); a redacted token no longer resolves.
pub fn redact_json_pointer(pointer: &str) -> Cow<'_, str> {
    let keys_clean = pointer
        .split('/')
        .all(|token| !token.contains('~') || is_clean(&unescape_pointer_token(token)));
    if keys_clean && is_clean(pointer) {
        return Cow::Borrowed(pointer);
    }
    let tokens: Vec<String> = pointer
        .split('/')
        .map(|token| {
            let key = unescape_pointer_token(token);
            match redact_str(&key) {
                Cow::Borrowed(_) => token.to_string(),
                Cow::Owned(clean) => clean.replace('~', "~0").replace('/', "~1"),
            }
        })
        .collect();
    Cow::Owned(redact_str(&tokens.join("/")).into_owned())
}

fn unescape_pointer_token(token: &str) -> Cow<'_, str> {
    if token.contains('~') {
        Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
    } else {
        Cow::Borrowed(token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "ghp_Zq8Wm2Xr4Tn6Vb1Kc3Ld5Fg7Hj9Pa0Se2Ud4Yo";

    #[test]
    fn each_key_of_a_pointer_is_redacted_as_the_key_it_stands_for() {
        assert!(matches!(
            redact_json_pointer("/workflow/build/roles/0/handoff_to/0"),
            Cow::Borrowed(_)
        ));
        assert!(matches!(redact_json_pointer(""), Cow::Borrowed(_)));
        assert_eq!(
            redact_json_pointer(&format!("/workflow/{TOKEN}/roles/0/{TOKEN}")),
            "/workflow/[REDACTED]/roles/0/[REDACTED]"
        );
        // `/` inside a key is written `~1`: the URL is seen as the key.
        assert_eq!(
            redact_json_pointer("/x_env/https:~1~1bob:S3cr3tPw9x@host~1path~0x/0"),
            "/x_env/https:~1~1bob:[REDACTED]@host~1path~0x/0"
        );
        // Folded keys too (`fold.rs`).
        assert_eq!(
            redact_json_pointer("/a/gh\u{200b}p_Zq8Wm2Xr4Tn6Vb1Kc3Ld5Fg7Hj9Pa0Se2Ud4Yo/b"),
            "/a/[REDACTED]/b"
        );
    }
}
