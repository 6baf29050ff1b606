//! The rule set: one regular expression per kind of credential, in the
//! spirit of gitleaks' rules, compiled once.
//!
//! Every rule marks the secret with a named group: `s` (bare), `q` (inside
//! double quotes) or `a` (inside single quotes); what the rule needed around
//! it (a boundary, a key name, a scheme word) stays readable. Rules are
//! matched with the `regex` crate, whose searches are linear in the input:
//! no input can make redaction slow. A `RegexSet` of all rules answers "is
//! anything here at all?" in one pass, so clean text costs one scan and no
//! allocation. How the text is scanned with each rule, and why every
//! position a rule can match at is considered, is `scan.rs`.
//!
//! Boundaries: a credential prefix may follow a JSON escape (`\n`, `\t`,
//! `\u2060`) when a record holds JSON text inside a string, or a
//! percent-escape in a URL (`%2F`, `%E2%80%8B`), so "start of a word" is
//! `^`, a character that is not a letter or digit, or such an escape
//! (any character but an ASCII letter or digit, written as an escape: as
//! its own character it is a boundary too, or reads as nothing, which the
//! folded text of `fold.rs` shows). An underscore is a boundary: names
//! join words with it, and a message that proposes a name made from a key
//! (`rename it to x_sk-ant-…`) glues one to the front of a token; the
//! boundary keeps `task-…` and `risk-…` from reading as `sk-…`, which
//! letters do alone.

use std::sync::LazyLock;

use aho_corasick::AhoCorasick;
use regex::{Regex, RegexSet};

use crate::keys::KEY_LIKE_WORDS;

/// What must hold, besides the pattern, for a match to be redacted.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Check {
    /// The pattern alone is specific enough.
    Always,
    /// Not a placeholder (`${TOKEN}`, `true`, `***`...).
    NotPlaceholder,
    /// The key name (group `k`) and the value decide (see `keys`).
    ByName,
    /// A `user:password` pair (user in group `k`): not a placeholder, and
    /// not a user and group id such as `1000:1000` (`docker run -u`).
    UserPass,
}

/// Where the search for a rule's next match goes on after a match, so
/// that no match the rule has at a later start is passed over (`scan.rs`
/// gives the argument; `every_start_tests.rs` checks it against a scan
/// from every position).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Resume {
    /// Near the end of the whole match. A token's match runs to the end of
    /// its body's characters (a key block to its `END`), so a match that
    /// starts inside it and ends after it must cross the character that
    /// ended it, which only a prefix can hold (`…ghij` + `ghp_…`: the `_`
    /// of `ghp_`). The part of a prefix before such a character is at most
    /// [`PREFIX_OVERLAP`] bytes (`github` of `github_pat_`, a boundary
    /// character and `pypi` of `pypi-AgE`); the search goes on that far back.
    NearEnd,
    /// After the key name (group `k`). A match that starts inside the name
    /// has a shorter name with the same ending, the same separator and the
    /// same value, so it is this match or a weaker one; one that starts in
    /// the value (`auth: aws_secret_access_key = …`, `token: password = …`)
    /// is found.
    AfterKey,
    /// At the secret, less the boundary character a rule may need before
    /// its own prefix (`Bearer x.bearer y…`).
    AtSecret,
}

/// How far back from a token's end a match that crosses it can start
/// (see [`Resume::NearEnd`]): the longest prefix part (`github`, 6),
/// or a boundary of up to 6 bytes (`\u2060`) and `pypi`, rounded up.
pub(crate) const PREFIX_OVERLAP: usize = 16;

struct Rule {
    /// Shown in tests and docs: which kind of secret this is.
    #[cfg_attr(not(test), allow(dead_code))]
    name: &'static str,
    pattern: String,
    check: Check,
    resume: Resume,
}

/// Start of a word, also right after an escape such as `\n`, `\u200b`
/// or `%2F` (see the module comment). At most 6 bytes.
const B: &str = r"(?:^|[^A-Za-z0-9]|\\[nrt]|\\u[0-9A-Fa-f]{4}|%[0-9A-Fa-f]{2})";

/// A double-quoted value (JSON string, escaped quotes allowed), a
/// single-quoted one, or a bare one up to whitespace or punctuation.
///
/// A bare value is matched only up to a `:` or `=` (base64 padding aside)
/// and 256 characters, so that the text the search looks at again after a
/// match (from the key's end: `scan.rs`) is short, and no two bare values
/// overlap: a pair nested in one (`note: token=abc`) has its own value
/// after it. An accepted bare value is then redacted to its real end
/// (`p@ss:w0rd`, a long token).
const VALUE: &str = r#"(?:\\?"(?P<q>(?:[^"\\\r\n]|\\[^"nrt])+)|\\?'(?P<a>[^'\\\r\n]+)|(?P<s>[^\s"'\\,;&<>()\[\]`|:=]{1,256}={0,3}))"#;

fn rules() -> Vec<Rule> {
    use Resume::{AfterKey, AtSecret, NearEnd};
    let rule = |name, pattern: String, check, resume| Rule {
        name,
        pattern,
        check,
        resume,
    };
    vec![
        rule(
            "private key block",
            // The whole block, any key type; an unterminated block runs to
            // the end of the text (a truncated key is still a key).
            r"(?is)(?P<s>-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----|\z))".into(),
            Check::Always,
            NearEnd,
        ),
        rule(
            "GitHub token",
            r"(?P<s>gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{22,})".into(),
            Check::Always,
            NearEnd,
        ),
        rule(
            "GitLab token",
            r"(?P<s>gl(?:pat|dt|rt|ptt|ft|cbt|oas)-[A-Za-z0-9_-]{16,})".into(),
            Check::Always,
            NearEnd,
        ),
        rule(
            "Slack token or webhook",
            r"(?P<s>xox[abposre]-[A-Za-z0-9-]{10,}|hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9+/_-]{16,})".into(),
            Check::Always,
            NearEnd,
        ),
        rule(
            "AWS access key id",
            r"(?P<s>(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[A-Z0-9]{12,})"
                .into(),
            Check::Always,
            NearEnd,
        ),
        rule(
            "Google API key",
            r"(?P<s>AIza[0-9A-Za-z_-]{30,})".into(),
            Check::Always,
            NearEnd,
        ),
        rule(
            "OpenAI or Anthropic key",
            format!(r"{B}(?P<s>sk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{{20,}})"),
            Check::Always,
            NearEnd,
        ),
        rule(
            "Stripe secret key",
            r"(?P<s>(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,}|whsec_[0-9A-Za-z]{20,})".into(),
            Check::Always,
            NearEnd,
        ),
        rule(
            "package registry token",
            // A SendGrid key takes any further dotted parts, as a JSON web
            // token does, so that its match is a maximal run (`NearEnd`).
            format!(
                r"{B}(?P<s>npm_[A-Za-z0-9]{{30,}}|pypi-AgE[A-Za-z0-9_-]{{40,}}|hf_[A-Za-z0-9]{{30,}}|SG\.[A-Za-z0-9_-]{{16,}}\.[A-Za-z0-9_-]{{16,}}(?:\.[A-Za-z0-9_-]+)*|do[opr]_v1_[a-f0-9]{{64}}|shp(?:at|ca|pa|ss)_[a-fA-F0-9]{{32}}|dapi[a-f0-9]{{32}})"
            ),
            Check::Always,
            NearEnd,
        ),
        rule(
            "JSON web token",
            // Any further dotted parts (a JWE has five) belong to it: a
            // token whose third part starts with `eyJ` would otherwise hold
            // a match that starts inside it and ends after it.
            r"(?P<s>eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*)"
                .into(),
            Check::Always,
            NearEnd,
        ),
        rule(
            "password in a URL",
            // The user may be empty (`redis://:pw@host`) and the password
            // may hold `@` or `:` (`amqp://u:p@ss@host`): the userinfo ends
            // at the last `@` before the host, as URL parsers read it, and
            // the user at its first `:`. No match of the rule starts inside
            // another and ends after it: its `://` is the only one up to its
            // `@`, and a scheme cannot run across that `@`.
            r#"[A-Za-z][A-Za-z0-9+.-]{0,20}://[^\s:/?#"'<>]*:(?P<s>[^\s/?#"'<>]+)@"#.into(),
            Check::NotPlaceholder,
            NearEnd,
        ),
        rule(
            "authorization value",
            format!(r"(?i){B}(?:bearer|basic)[ \t]+(?P<s>[a-z0-9._~+/=-]{{8,}})"),
            Check::NotPlaceholder,
            AtSecret,
        ),
        rule(
            "user and password of a command-line flag",
            // `curl -u user:pass`, `curl --user user:pass`, `-U`/`--proxy-user`,
            // httpie's `--auth user:pass`; the user may be empty or an
            // address. A password starting with `/` is a URL's rest
            // (`pip install -U git+https://…`), not a password.
            r#"(?:^|\s)(?:-[uU][ \t]*|--(?:user|proxy-user|auth)(?:[ \t]+|=))["']?(?P<k>[^\s:/"']*):(?P<s>[^\s"'/][^\s"']*)"#
                .into(),
            Check::UserPass,
            AtSecret,
        ),
        rule(
            "password attached to a database client's -p",
            // `mysql -u root -pS3cret db`, `mysqldump`, `mysqladmin`,
            // `mariadb`: the password is the rest of the `-p` word; a word
            // after a bare `-p` is the database (the client asks), and the
            // port is `-P`, so the flag is case-sensitive. The flag is looked
            // for up to the end of the client's command (`;`, `&`, `|`), not
            // in the next one (`mysql x; cp -pR a b`). The resume at the
            // secret finds the next client of a line run after another.
            r#"(?:^|[\s/;&|(])(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)(?:[ \t][^\n;&|]*?)?[ \t]-p(?P<s>[^\s"';&|][^\s"';&|]*)"#
                .into(),
            Check::NotPlaceholder,
            AtSecret,
        ),
        rule(
            "password of sshpass -p",
            // `sshpass -p S3cret ssh host` (or `-pS3cret`).
            r#"(?:^|[\s/;&|(])sshpass[ \t]+-p[ \t]*(?P<s>[^\s"';&|-][^\s"';&|]*)"#.into(),
            Check::NotPlaceholder,
            AtSecret,
        ),
        rule(
            "secret in a command-line flag",
            r#"(?i)(?:^|\s)--?(?P<k>[a-z0-9_-]*(?:password|passwd|passphrase|token|secret|api[_-]?key))[ \t]+(?P<s>[^\s"'-][^\s"']*)"#
                .into(),
            Check::ByName,
            AfterKey,
        ),
        rule(
            "value of a secret-sounding key",
            // `key=value`, `key: value`, `"key": "value"`, `key => value`,
            // `Authorization: Bearer value`, in any quoting or spacing.
            format!(
                r#"(?i)(?P<k>[a-z0-9_.-]*{KEY_LIKE_WORDS}[a-z0-9_.-]*)["'\\]*[ \t]*(?:=>|:=|=|:)[ \t]*(?:(?:bearer|basic|token|digest)[ \t]+)?{VALUE}"#
            ),
            Check::ByName,
            AfterKey,
        ),
    ]
}

/// Literals, one of which (ignoring ASCII case) every match of every rule
/// contains: the credential prefixes, the scheme words and the key-like
/// words of [`KEY_LIKE_WORDS`]. Most record texts (ids, role names,
/// hashes, counts) contain none, and an Aho-Corasick scan rules them out
/// far faster than the rule set can. `every_rule_needs_a_prefilter_literal`
/// keeps this list in step with the rules.
const LITERALS: &[&str] = &[
    // Shapes.
    "-----begin",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "gldt-",
    "glrt-",
    "glptt-",
    "glft-",
    "glcbt-",
    "gloas-",
    "xox",
    "hooks.slack.com",
    "a3t",
    "akia",
    "asia",
    "abia",
    "acca",
    "agpa",
    "aida",
    "aroa",
    "aipa",
    "anpa",
    "anva",
    "aiza",
    "sk-",
    "sk_",
    "rk_",
    "whsec_",
    "npm_",
    "pypi-",
    "hf_",
    "sg.",
    "_v1_",
    "shp",
    "dapi",
    "eyj",
    "://",
    // `-u`/`-U` and `--user`, `--proxy-user` (`--auth` holds `auth`).
    "-u",
    // The clients whose `-p` holds a password.
    "mysql",
    "mariadb",
    "sshpass",
    "bearer",
    "basic",
    // Key-like words (`keys::KEY_LIKE_WORDS`).
    "key",
    "token",
    "secret",
    "passw",
    "passphrase",
    "pwd",
    "auth",
    "cred",
    "signature",
    "session",
    "cookie",
    "salt",
    "hmac",
    "private",
];

static PREFILTER: LazyLock<AhoCorasick> = LazyLock::new(|| {
    // A DFA: every event, record and entry of a run is scanned, mostly
    // short clean texts, where the DFA's per-byte step is the fastest the
    // crate offers; the automaton of these few literals is small.
    AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .kind(Some(aho_corasick::AhoCorasickKind::DFA))
        .build(LITERALS)
        .expect("the literals compile")
});

/// The prefilter's literals and what a fold needs (`fold.rs`: `%`, `\\`,
/// the characters that fold), in one automaton: a text with none of them (most record
/// texts) is ruled out by one pass over it, as it was before texts were
/// folded; any other is looked at by [`has_literal`] and the fold.
static GATE: LazyLock<AhoCorasick> = LazyLock::new(|| {
    let mut patterns: Vec<Vec<u8>> = LITERALS.iter().map(|l| l.as_bytes().to_vec()).collect();
    patterns.extend(crate::fold::fold_literals());
    AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .kind(Some(aho_corasick::AhoCorasickKind::DFA))
        .build(patterns)
        .expect("the literals compile")
});

/// Whether `text` needs a closer look: a literal, or a byte that can start
/// a fold (no false negatives).
pub(crate) fn may_need_scan(text: &str) -> bool {
    GATE.is_match(text)
}

/// Whether `text` as written holds a literal some rule needs.
pub(crate) fn has_literal(text: &str) -> bool {
    PREFILTER.is_match(text)
}

/// Whether `text` may hold a secret at all (no false negatives): a literal,
/// or something folded (`fold.rs`) that may spell one.
pub(crate) fn may_hold_secret(text: &str) -> bool {
    has_literal(text) || crate::fold::needs_fold(text)
}

/// Where the earliest prefilter literal in `text` starts. Every match of
/// every rule holds one at or before its secret (`window.rs` relies on it).
pub(crate) fn first_literal(text: &str) -> Option<usize> {
    // Overlapping search: the literal that ends first need not start first.
    PREFILTER
        .find_overlapping_iter(text)
        .map(|m| m.start())
        .min()
}

/// [`may_hold_secret`] of UTF-8 bytes (a record's JSON text).
pub(crate) fn may_hold_secret_bytes(text: &[u8]) -> bool {
    PREFILTER.is_match(text)
}

/// The rules, compiled: a set that says which rules match a text at all,
/// and each rule for its matches (`scan.rs`).
pub(crate) struct Compiled {
    pub(crate) set: RegexSet,
    pub(crate) rules: Vec<CompiledRule>,
    #[cfg_attr(not(test), allow(dead_code))]
    names: Vec<&'static str>,
}

/// One compiled rule.
pub(crate) struct CompiledRule {
    pub(crate) regex: Regex,
    pub(crate) check: Check,
    pub(crate) resume: Resume,
}

pub(crate) static COMPILED: LazyLock<Compiled> = LazyLock::new(|| {
    let rules = rules();
    // The patterns are constants of this file; a test compiles them all.
    let set = RegexSet::new(rules.iter().map(|r| &r.pattern)).expect("the rule set compiles");
    Compiled {
        set,
        names: rules.iter().map(|r| r.name).collect(),
        rules: rules
            .iter()
            .map(|r| CompiledRule {
                regex: Regex::new(&r.pattern).expect("each rule compiles"),
                check: r.check,
                resume: r.resume,
            })
            .collect(),
    }
});

/// Names of the rules that match `text` (for tests and diagnostics).
#[cfg(test)]
pub(crate) fn matching_rules(text: &str) -> Vec<&'static str> {
    let compiled = &*COMPILED;
    compiled
        .set
        .matches(text)
        .iter()
        .map(|i| compiled.names[i])
        .collect()
}
