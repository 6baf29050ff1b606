//! What a `Bash` command stands for, for a role that may not run any
//! command.
//!
//! Claude Code runs tests, git and deletions through `Bash` ([`TOOL_MAP`]),
//! so exporting a reviewer's `git_diff` gives its subagent `Bash`. Its
//! contract still grants `git diff`, not `rm -rf`: a role whose playbook
//! tools behind `Bash` do not include `run_command` may only run a command
//! that *is* one of those tools. That is one plain command (no `;`, `&&`,
//! pipe, redirection, substitution, variable or leading assignment, which
//! would run or change something else) whose program and subcommand name
//! the tool (`git diff`, `cargo test`, `rm src/old.rs`). A Claude Code rule
//! the role keeps (`Bash(npm run lint:*)` in `x_claude_code.tools_unmapped`)
//! allows the plain commands it matches, as Claude Code reads the rule.
//!
//! [`TOOL_MAP`]: super::tools::TOOL_MAP

/// The playbook tools a `Bash` call may stand for, with the commands that
/// are each: `(tool, program, subcommands)`; no subcommands: any
/// arguments. What the gate quotes in a refusal, so the table is the
/// documentation too (docs/interop.md).
const COMMANDS: &[(&str, &str, &[&str])] = &[
    ("git_status", "git", &["status"]),
    ("git_diff", "git", &["diff", "show", "log"]),
    ("git_commit", "git", &["add", "commit"]),
    ("git_checkpoint", "git", &["add", "commit", "stash"]),
    ("git_reset", "git", &["reset", "restore"]),
    ("git_checkout", "git", &["checkout", "switch"]),
    ("delete_file", "git", &["rm"]),
    ("delete_file", "rm", &[]),
    ("run_tests", "cargo", &["test", "nextest"]),
    ("run_tests", "go", &["test"]),
    ("run_tests", "npm", &["test", "t"]),
    ("run_tests", "pnpm", &["test", "t"]),
    ("run_tests", "yarn", &["test"]),
    ("run_tests", "bun", &["test"]),
    ("run_tests", "deno", &["test"]),
    ("run_tests", "dotnet", &["test"]),
    ("run_tests", "mix", &["test"]),
    ("run_tests", "swift", &["test"]),
    ("run_tests", "make", &["test", "check"]),
    ("run_tests", "mvn", &["test", "verify"]),
    ("run_tests", "gradle", &["test", "check"]),
    ("run_tests", "./gradlew", &["test", "check"]),
    ("run_tests", "pytest", &[]),
    ("run_tests", "py.test", &[]),
    ("run_tests", "tox", &[]),
    ("run_tests", "nox", &[]),
    ("run_tests", "jest", &[]),
    ("run_tests", "vitest", &[]),
    ("run_tests", "mocha", &[]),
    ("run_tests", "rspec", &[]),
    ("run_tests", "phpunit", &[]),
    ("run_tests", "ctest", &[]),
];

/// Runners started through another program: `npx jest`, `python -m
/// pytest`, `bundle exec rspec`, `npm run test:unit`.
const LAUNCHERS: &[(&str, &[&str])] = &[
    ("npx", &[]),
    ("pnpm", &["exec"]),
    ("yarn", &["exec"]),
    ("bundle", &["exec"]),
    ("uv", &["run"]),
    ("poetry", &["run"]),
    ("python", &["-m"]),
    ("python3", &["-m"]),
];

/// Options before git's subcommand that change nothing about what it does;
/// any other (`-c`, `-C`, `--git-dir`, `--exec-path`...) may run a program
/// from configuration or act on another repository.
const GIT_HARMLESS: &[&str] = &[
    "--no-pager",
    "-P",
    "--no-optional-locks",
    "--literal-pathspecs",
];

/// Programs that only read: a plain command's output may pass through
/// them, as agents do to keep it short (`cargo test 2>&1 | tail -20`).
const FILTERS: &[&str] = &[
    "head", "tail", "grep", "egrep", "fgrep", "wc", "cut", "sort", "cat",
];

/// Why `command` is not one plain command, or its words. Its output may be
/// piped through [`FILTERS`], and `2>&1` may join its error output to it.
pub(super) fn plain(command: &str) -> Result<Vec<String>, String> {
    let refused = |what: &str| {
        Err(format!(
            "`{command}` is not one plain command (`{}` would chain, group, redirect or substitute commands or expand a name)",
            what.escape_default()
        ))
    };
    let chars: Vec<char> = command.chars().collect();
    let mut stages = vec![String::new()];
    let mut quote = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let at_word_start = i == 0 || chars[i - 1].is_whitespace();
        let stage = stages.last_mut().expect("one stage at least");
        match (quote, c) {
            (Some('\''), '\'') | (Some('"'), '"') => {
                quote = None;
                stage.push(c);
            }
            (Some('\''), _) => stage.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                stage.push(c);
            }
            // Inside double quotes, `$` and backquotes still substitute.
            (_, '$' | '`') => return refused(&c.to_string()),
            (Some('"'), '\\') => {
                stage.push(c);
                if let Some(&next) = chars.get(i + 1) {
                    stage.push(next);
                    i += 1;
                }
            }
            (Some(_), _) => stage.push(c),
            (None, '|') if chars.get(i + 1) == Some(&'|') => return refused("||"),
            (None, '|') => stages.push(String::new()),
            (None, '2')
                if at_word_start
                    && chars[i + 1..].starts_with(&['>', '&', '1'])
                    && chars
                        .get(i + 4)
                        .is_none_or(|n| n.is_whitespace() || *n == '|') =>
            {
                i += 3;
            }
            (None, ';' | '&' | '<' | '>' | '(' | ')' | '{' | '}' | '\n' | '\r' | '\\' | '#') => {
                return refused(&c.to_string());
            }
            (None, _) => stage.push(c),
        }
        i += 1;
    }
    let mut words = Vec::new();
    for (n, stage) in stages.iter().enumerate() {
        let stage_words = shlex::split(stage)
            .filter(|w| !w.is_empty())
            .ok_or_else(|| {
                format!("`{command}` is not one plain command (no command, or a quote left open)")
            })?;
        if let Some(assignment) = stage_words.first().filter(|w| is_assignment(w)) {
            return Err(format!(
                "`{command}` sets `{assignment}` for the command, which can make it run another program"
            ));
        }
        if n == 0 {
            words = stage_words;
        } else if !FILTERS.contains(&stage_words[0].as_str())
            || stage_words
                .iter()
                .any(|w| w.starts_with("-o") || w.starts_with("--output"))
        {
            return Err(format!(
                "`{command}` pipes into `{}`; only {} may read a command's output",
                stage_words.join(" "),
                FILTERS.join(", ")
            ));
        }
    }
    Ok(words)
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The playbook tool a plain command is, among `granted` (the role's tools
/// behind `Bash`), with the words it acts on; `Err` says what the role may
/// run instead.
pub(super) fn tool_of<'w>(
    words: &'w [String],
    granted: &[&str],
) -> Result<(&'static str, &'w [String]), String> {
    let found = identify(words);
    match found {
        Some((tool, rest)) if granted.contains(&tool) => Ok((tool, rest)),
        _ => {
            let allowed: Vec<String> = granted
                .iter()
                .map(|t| format!("{t} ({})", examples(t)))
                .collect();
            let what = match found {
                Some((tool, _)) => format!("is its {tool}, which it does not have"),
                None => "is none of its tools".to_string(),
            };
            Err(format!(
                "may run through `Bash` only what its tools behind it are — {} —; `{}` {what}; give it run_command to run any command",
                allowed.join(", "),
                words.join(" "),
            ))
        }
    }
}

/// Options of test runners that make them run a program of the caller's
/// choosing (`go test -exec`, `cargo --config`, `gradle --init-script`,
/// `make -f`), which would let `run_tests` run any command.
const RUNNER_HOOKS: &[&str] = &[
    "-exec",
    "-toolexec",
    "--exec",
    "--config",
    "-Z",
    "--script-shell",
    "--node-options",
    "--init-script",
    "-I",
    "-f",
    "--file",
    "--makefile",
    "-C",
    "--directory",
];

/// The tool a plain command is, and the words after its subcommand; a test
/// run whose options would run another program is none.
fn identify(words: &[String]) -> Option<(&'static str, &[String])> {
    let found = identify_command(words)?;
    let program = words.first()?.as_str();
    let hooked = |w: &String| {
        RUNNER_HOOKS.iter().any(|h| {
            w.strip_prefix(h)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('='))
        })
        // `make test CC=…`: a variable set for the makefile's commands.
        || (program == "make" && w.contains('='))
    };
    if found.0 == "run_tests" && words.iter().skip(1).any(hooked) {
        return None;
    }
    Some(found)
}

fn identify_command(words: &[String]) -> Option<(&'static str, &[String])> {
    let (program, mut rest) = words.split_first()?;
    let program = program.as_str();
    // A runner behind a launcher: `npx jest`, `python -m pytest`.
    if let Some((_, via)) = LAUNCHERS.iter().find(|(l, _)| *l == program) {
        let skip = via.len();
        if rest.len() > skip && rest[..skip].iter().zip(via.iter()).all(|(w, v)| w == v) {
            let runner = rest[skip].as_str();
            if COMMANDS
                .iter()
                .any(|(t, p, subs)| *t == "run_tests" && *p == runner && subs.is_empty())
            {
                return Some(("run_tests", &rest[skip + 1..]));
            }
        }
    }
    // `npm run test:unit`, `yarn test:e2e`: a package script named for tests.
    if matches!(program, "npm" | "pnpm" | "yarn" | "bun")
        && let Some(script) = match rest.first().map(String::as_str) {
            Some("run" | "run-script") => rest.get(1),
            _ => rest.first(),
        }
        && (script == "test" || script.starts_with("test:"))
    {
        return Some(("run_tests", rest));
    }
    if program == "git" {
        while let Some(option) = rest.first().filter(|w| w.starts_with('-')) {
            if !GIT_HARMLESS.contains(&option.as_str()) {
                return None;
            }
            rest = &rest[1..];
        }
        // `--output` writes the diff to a file; `--exec` runs a program.
        if rest
            .iter()
            .any(|w| w.starts_with("--output") || w.starts_with("--exec"))
        {
            return None;
        }
    }
    COMMANDS.iter().find_map(|(tool, p, subs)| {
        if *p != program {
            return None;
        }
        if subs.is_empty() {
            return Some((*tool, rest));
        }
        let (sub, after) = rest.split_first()?;
        subs.contains(&sub.as_str()).then_some((*tool, after))
    })
}

/// Commands that are `tool`, for a refusal's list.
fn examples(tool: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    for (_, program, subs) in COMMANDS.iter().filter(|(t, ..)| *t == tool) {
        if subs.is_empty() {
            out.push(format!("`{program}`"));
        } else {
            out.extend(subs.iter().map(|s| format!("`{program} {s}`")));
        }
    }
    if tool == "run_tests" {
        out.truncate(6);
        out.push("a package's `test` script".into());
    }
    out.join(", ")
}

/// The paths a deletion (`rm`, `git rm`) removes: its words that are not
/// options; `Err` for an option the gate does not know (`rm
/// --no-preserve-root`), which could make it remove more than it names.
pub(super) fn deleted_paths(args: &[String]) -> Result<Vec<&str>, String> {
    let mut paths = Vec::new();
    let mut options = true;
    for arg in args {
        if options && arg == "--" {
            options = false;
        } else if options && arg.starts_with('-') && arg.len() > 1 {
            let known = matches!(
                arg.as_str(),
                "--force" | "--recursive" | "--verbose" | "--dir" | "--cached" | "--quiet"
            ) || (!arg.starts_with("--")
                && arg[1..]
                    .chars()
                    .all(|c| matches!(c, 'f' | 'r' | 'R' | 'v' | 'd' | 'q')));
            if !known {
                return Err(format!(
                    "the deletion's option `{arg}` is not one the gate knows (-f, -r, -v, -d, -q, --cached)"
                ));
            }
        } else if arg.contains(['*', '?', '[']) {
            return Err(format!(
                "`{arg}` is a pattern the shell expands; name the files to delete"
            ));
        } else {
            paths.push(arg.as_str());
        }
    }
    if paths.is_empty() {
        return Err("the deletion names no file".into());
    }
    Ok(paths)
}

/// Whether the Claude Code rule `Bash(spec)` matches `command`: `prefix:*`
/// and `prefix *` match the prefix followed by nothing or a space, any
/// other spec the whole command (Claude Code's permission rule syntax).
pub(super) fn rule_matches(spec: &str, command: &str) -> bool {
    let command = command.trim();
    match spec.strip_suffix(":*").or_else(|| spec.strip_suffix(" *")) {
        Some(prefix) => command
            .strip_prefix(prefix.trim())
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(' ')),
        None => command == spec.trim(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(command: &str) -> Vec<String> {
        plain(command).unwrap_or_else(|e| panic!("{command}: {e}"))
    }

    #[test]
    fn only_one_plain_command_is_read() {
        for command in [
            "git diff; rm -rf /",
            "git diff && rm -rf ~",
            "git diff || true",
            "git diff | sh",
            "git diff > /etc/passwd",
            "git diff < x",
            "git diff $(rm -rf /)",
            "git diff \"$(rm -rf /)\"",
            "git diff `rm -rf /`",
            "git diff $HOME",
            "git diff &",
            "git diff\nrm -rf /",
            "(rm -rf /)",
            "git diff \\; rm x",
            "rm {a,/etc/passwd}",
            "GIT_EXTERNAL_DIFF=rm git diff",
            "LD_PRELOAD=x.so cargo test",
            "git diff 'open",
            "",
            "   ",
        ] {
            assert!(plain(command).is_err(), "{command:?}");
        }
        assert_eq!(
            words("git diff -- 'a b' \"c;d\""),
            ["git", "diff", "--", "a b", "c;d"]
        );
        // Output kept short, as agents do.
        assert_eq!(words("cargo test 2>&1 | tail -20"), ["cargo", "test"]);
        assert_eq!(words("git log | grep -c fix | head"), ["git", "log"]);
        for command in [
            "cargo test | sh",
            "cargo test | tee out.txt",
            "cargo test | sort -o out.txt",
            "cargo test |",
            "| cargo test",
            "cargo test 2>&1x",
            "cargo test 2>&12",
            "cargo test 1>&2",
            "cargo test >&2",
            "cargo test | X=1 head",
        ] {
            assert!(plain(command).is_err(), "{command:?}");
        }
        assert_eq!(
            words("git commit -m 'fix: a > b; c'"),
            ["git", "commit", "-m", "fix: a > b; c"]
        );
    }

    #[test]
    fn a_command_is_the_tool_its_program_and_subcommand_name() {
        let is = |command: &str| identify(&words(command)).map(|(tool, _)| tool);
        assert_eq!(is("git diff HEAD~1"), Some("git_diff"));
        assert_eq!(is("git --no-pager log -p"), Some("git_diff"));
        assert_eq!(is("git status --short"), Some("git_status"));
        assert_eq!(is("git commit -m x"), Some("git_commit"));
        assert_eq!(is("git rm src/a.rs"), Some("delete_file"));
        assert_eq!(is("rm -f src/a.rs"), Some("delete_file"));
        assert_eq!(is("cargo test -p core"), Some("run_tests"));
        assert_eq!(is("npx vitest run"), Some("run_tests"));
        assert_eq!(is("python3 -m pytest -q"), Some("run_tests"));
        assert_eq!(is("npm run test:unit"), Some("run_tests"));
        assert_eq!(is("pnpm test"), Some("run_tests"));
        // Not the tool, or not known to be harmless.
        assert_eq!(is("git push"), None);
        assert_eq!(is("git -c diff.external=rm diff"), None);
        assert_eq!(is("git -C / diff"), None);
        assert_eq!(is("git diff --output=/etc/x"), None);
        assert_eq!(is("npm run build"), None);
        assert_eq!(is("npx rimraf ."), None);
        assert_eq!(is("python -c 'import os'"), None);
        assert_eq!(is("cargo build"), None);
        assert_eq!(is("sh -c 'git diff'"), None);
        // A test run told to run another program is not a test run.
        assert_eq!(is("go test -exec 'rm -rf /' ./..."), None);
        assert_eq!(is("go test -toolexec=./x ./..."), None);
        assert_eq!(is("cargo test --config target.x.runner='rm'"), None);
        assert_eq!(is("make test SHELL=/bin/evil"), None);
        assert_eq!(is("make -f /tmp/evil.mk test"), None);
        assert_eq!(is("npm test --script-shell=./evil"), None);
        assert_eq!(is("./gradlew test --init-script evil.gradle"), None);
        assert_eq!(is("npx --package=evil jest"), None);
        assert_eq!(is("go test -run TestX ./..."), Some("run_tests"));
    }

    #[test]
    fn a_refusal_names_what_the_role_may_run() {
        let why = tool_of(&words("rm -rf /"), &["git_diff"]).unwrap_err();
        assert!(why.contains("`git diff`"), "{why}");
        assert!(why.contains("delete_file, which it does not have"), "{why}");
        assert!(why.contains("run_command"), "{why}");
        assert!(tool_of(&words("git show abc"), &["git_diff"]).is_ok());
    }

    #[test]
    fn a_deletion_names_its_files() {
        let args = |c: &str| words(c)[1..].to_vec();
        assert_eq!(deleted_paths(&args("rm -rf -- a b")).unwrap(), ["a", "b"]);
        assert!(deleted_paths(&args("rm --no-preserve-root /")).is_err());
        assert!(deleted_paths(&args("rm -f")).is_err());
        assert!(deleted_paths(&args("rm src/*.rs")).is_err());
    }

    #[test]
    fn claude_code_rules_match_as_claude_code_reads_them() {
        assert!(rule_matches("npm run lint:*", "npm run lint"));
        assert!(rule_matches("npm run lint:*", "npm run lint -- --fix"));
        assert!(!rule_matches("npm run lint:*", "npm run linter"));
        assert!(rule_matches("git log *", "git log --oneline"));
        assert!(rule_matches("make docs", "make docs"));
        assert!(!rule_matches("make docs", "make docs clean"));
    }
}
