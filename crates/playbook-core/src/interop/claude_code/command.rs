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

use super::options;

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
            continue;
        }
        let Some(grammar) = options::filter(&stage_words[0]) else {
            return Err(format!(
                "`{command}` pipes into `{}`; only {} may read a command's output",
                stage_words.join(" "),
                FILTERS.join(", ")
            ));
        };
        // A filter's options can write (`sort -o`) or run a program (`sort
        // --compress-program`) too: only the ones the gate knows pass.
        options::check(&stage_words[0], grammar, &stage_words[1..])
            .map_err(|why| format!("`{command}` pipes into `{}`: {why}", stage_words.join(" ")))?;
    }
    Ok(words)
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// A plain command read as one of the playbook's tools.
pub(super) struct Command<'w> {
    pub tool: &'static str,
    /// The program whose options the arguments are (`cargo`; `pytest` of
    /// `python -m pytest`; `npm` of `npm run test:unit`).
    program: &'w str,
    /// The subcommand (`rm` of `git rm`), when the table names one.
    sub: Option<&'w str>,
    /// The words after the program and subcommand.
    args: &'w [String],
}

/// The playbook tool a plain command is, among `granted` (the role's tools
/// behind `Bash`); `Err` says what the role may run instead.
pub(super) fn tool_of<'w>(words: &'w [String], granted: &[&str]) -> Result<Command<'w>, String> {
    let found = identify(words);
    match found {
        Some(command) if granted.contains(&command.tool) => Ok(command),
        _ => {
            let allowed: Vec<String> = granted
                .iter()
                .map(|t| format!("{t} ({})", examples(t)))
                .collect();
            let what = match found {
                Some(command) => format!("is its {}, which it does not have", command.tool),
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

/// The paths `command` writes, to be held like a tool's writes (nothing
/// for a command that changes no file of the worktree); `Err` when its
/// options are not ones the gate knows (`options.rs`), or when it would
/// change the whole worktree, which no path check can hold to a scope.
pub(super) fn written_paths<'w>(command: &Command<'w>) -> Result<Vec<&'w str>, String> {
    let Command {
        tool,
        program,
        sub,
        args,
    } = *command;
    let shown = match sub {
        Some(sub) => format!("{program} {sub}"),
        None => program.to_string(),
    };
    let whole_tree = |how: &str| {
        Err(format!(
            "`{shown}` {how} changes every file of the worktree, the playbook and Claude Code's configuration among them, which the gate cannot hold to the role's scopes; name the files instead (`git checkout REV -- PATH`, `git restore PATH`)"
        ))
    };
    match (tool, sub) {
        ("run_tests", _) => {
            options::check(&shown, options::runner(program), args)?;
            Ok(Vec::new())
        }
        ("git_diff", _) => {
            // git takes any unambiguous abbreviation of a long option.
            if let Some(w) = args.iter().find(|w| abbreviates(w, &["output"])) {
                return Err(format!("`{w}` writes the output to a file"));
            }
            Ok(Vec::new())
        }
        ("git_checkpoint", Some("stash")) => match args.first().map(String::as_str) {
            Some("list" | "show") => Ok(Vec::new()),
            _ => whole_tree("(a stash puts every change aside)"),
        },
        ("git_reset", Some("reset")) => {
            let moves = ["hard", "merge", "keep", "recurse-submodules"];
            match args.iter().find(|w| abbreviates(w, &moves)) {
                Some(w) => whole_tree(&format!("`{w}`")),
                None => Ok(Vec::new()),
            }
        }
        ("git_reset", Some("restore")) => {
            let mut index_only = false;
            let mut worktree = false;
            for w in args.iter().take_while(|w| *w != "--") {
                index_only |= w == "--staged" || (is_short_group(w) && w.contains('S'));
                worktree |= w == "--worktree" || (is_short_group(w) && w.contains('W'));
            }
            let paths = git_paths(&shown, &RESTORE, args)?;
            Ok(if index_only && !worktree {
                Vec::new()
            } else {
                paths
            })
        }
        ("git_checkout", Some("checkout")) => match args {
            [flag, _name] if flag == "-b" || flag == "-B" => Ok(Vec::new()),
            _ if args.iter().any(|w| w == "--") => git_paths(&shown, &CHECKOUT, args),
            _ => whole_tree("(without `--` and the files to restore)"),
        },
        ("git_checkout", Some("switch")) => match args {
            [flag, _name] if flag == "-c" || flag == "-C" => Ok(Vec::new()),
            _ => whole_tree("to another branch"),
        },
        ("delete_file", Some(_)) => {
            let paths = deleted_paths(args)?;
            paths.iter().try_for_each(|p| not_magic(p))?;
            Ok(paths)
        }
        ("delete_file", None) => deleted_paths(args),
        _ => Ok(Vec::new()),
    }
}

/// Whether `word` is a long option naming one of `names`, whole or
/// abbreviated (`--outp=x` is `--output=x` to git and GNU tools).
fn abbreviates(word: &str, names: &[&str]) -> bool {
    word.strip_prefix("--")
        .map(|rest| rest.split_once('=').map_or(rest, |(name, _)| name))
        .is_some_and(|name| !name.is_empty() && names.iter().any(|n| n.starts_with(name)))
}

fn is_short_group(word: &str) -> bool {
    word.len() > 1 && word.starts_with('-') && !word.starts_with("--")
}

// `git restore [--source=REV] [--staged] [--worktree] PATH...`.
const RESTORE: options::Grammar = options::Grammar {
    flags: "qSW",
    valued: "s",
    long: &[
        "--staged",
        "--worktree",
        "--quiet",
        "--ours",
        "--theirs",
        "--overlay",
        "--no-overlay",
        "--ignore-unmerged",
    ],
    long_valued: &["--source"],
    single_dash_long: false,
    numeric: false,
    operands: options::Operands::Any,
    after_dashes: None,
};

// `git checkout [REV] -- PATH...`.
const CHECKOUT: options::Grammar = options::Grammar {
    flags: "q",
    valued: "",
    long: &["--quiet", "--ours", "--theirs"],
    long_valued: &[],
    ..RESTORE
};

/// The files a git command that restores files names: its words after
/// `--`, or without `--` its operands, each a plain path.
fn git_paths<'w>(
    shown: &str,
    grammar: &options::Grammar,
    args: &'w [String],
) -> Result<Vec<&'w str>, String> {
    options::check(shown, grammar, args)?;
    let paths: Vec<&str> = match args.iter().position(|w| w == "--") {
        Some(at) => args[at + 1..].iter().map(String::as_str).collect(),
        None => {
            let mut paths = Vec::new();
            let mut value_next = false;
            for w in args {
                if value_next {
                    value_next = false;
                } else if w == "--source" || w == "-s" {
                    value_next = true;
                } else if !w.starts_with('-') {
                    paths.push(w.as_str());
                }
            }
            paths
        }
    };
    if paths.is_empty() {
        return Err(format!("`{shown}` names no file to restore"));
    }
    for path in &paths {
        not_magic(path)?;
    }
    Ok(paths)
}

/// A path git reads as a pattern or with magic (`:/x` is `x` at the top
/// of the repository, `:!x` everything but `x`, `*` any file), which the
/// gate would read as another path.
fn not_magic(path: &str) -> Result<(), String> {
    if path.starts_with(':') {
        return Err(format!(
            "`{path}` is a git pathspec with magic (`:/`, `:(…)`, `:!`), which the gate does not read; name the files"
        ));
    }
    if path.contains(['*', '?', '[']) {
        return Err(format!("`{path}` is a pattern git expands; name the files"));
    }
    Ok(())
}

/// The tool a plain command is, with its program and arguments.
fn identify(words: &[String]) -> Option<Command<'_>> {
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
                return Some(Command {
                    tool: "run_tests",
                    program: runner,
                    sub: None,
                    args: &rest[skip + 1..],
                });
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
        return Some(Command {
            tool: "run_tests",
            program,
            sub: None,
            args: rest,
        });
    }
    if program == "git" {
        while let Some(option) = rest.first().filter(|w| w.starts_with('-')) {
            if !GIT_HARMLESS.contains(&option.as_str()) {
                return None;
            }
            rest = &rest[1..];
        }
    }
    COMMANDS.iter().find_map(|(tool, p, subs)| {
        if *p != program {
            return None;
        }
        if subs.is_empty() {
            return Some(Command {
                tool,
                program,
                sub: None,
                args: rest,
            });
        }
        let (sub, after) = rest.split_first()?;
        subs.contains(&sub.as_str()).then_some(Command {
            tool,
            program,
            sub: Some(sub.as_str()),
            args: after,
        })
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
fn deleted_paths(args: &[String]) -> Result<Vec<&str>, String> {
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
            "git status | sort -uo .claude/settings.json",
            "git status | sort --outp=.claude/settings.json",
            "git log | sort -S1 --compress-program=./x.sh",
            "git log | head -n",
            "git log | grep x /etc/shadow",
            "git log | tail -f",
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

    /// The tool a command is, when the gate reads all of it (options and
    /// paths' form; not where the paths lie).
    fn read_as(command: &str) -> Option<&'static str> {
        let words = words(command);
        let found = identify(&words)?;
        written_paths(&found).ok().map(|_| found.tool)
    }

    #[test]
    fn a_command_is_the_tool_its_program_and_subcommand_name() {
        let is = read_as;
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
        assert_eq!(is("go test -run TestX ./..."), Some("run_tests"));
        assert_eq!(is("make test"), Some("run_tests"));
        assert_eq!(is("git restore src/a.rs"), Some("git_reset"));
        assert_eq!(is("git restore --staged ."), Some("git_reset"));
        assert_eq!(is("git reset HEAD~1"), Some("git_reset"));
        assert_eq!(is("git checkout HEAD~2 -- src/a.rs"), Some("git_checkout"));
        assert_eq!(is("git checkout -b topic"), Some("git_checkout"));
        assert_eq!(is("git stash list"), Some("git_checkpoint"));
        // Not the tool, or not known to be harmless.
        for command in [
            "git push",
            "git -c diff.external=rm diff",
            "git -C / diff",
            "git diff --output=/etc/x",
            "git log --outp=x",
            "npm run build",
            "npx rimraf .",
            "python -c 'import os'",
            "cargo build",
            "sh -c 'git diff'",
            // A test run told to run another program is not a test run.
            "go test -exec 'rm -rf /' ./...",
            "go test -toolexec=./x ./...",
            "cargo test --config target.x.runner='rm'",
            "make test SHELL=/bin/evil",
            "make -f /tmp/evil.mk test",
            "make test -f/tmp/evil.mk",
            "make test -C/tmp",
            "make check --eval 'check: ; touch /tmp/pwned'",
            "make test install",
            "npm test --script-shell=./evil",
            "./gradlew test --init-script evil.gradle",
            "npx --package=evil jest",
            "pytest -p evil_plugin",
            "pytest --basetemp=/home/me",
            // Whole-tree changes no path check can hold to a scope.
            "git checkout main",
            "git checkout HEAD .claude/settings.json",
            "git switch main",
            "git reset --hard",
            "git reset --ha HEAD~1",
            "git stash -u",
            "git stash",
            // Pathspec magic and patterns read as other paths.
            "git rm -r ':/.claude'",
            "git rm -r ':(icase).CLAUDE'",
            "git rm -r ':!src'",
            "git restore ':/'",
            "git checkout HEAD -- 'src/*'",
            "git rm --pathspec-from-file=list",
        ] {
            assert_eq!(is(command), None, "{command}");
        }
    }

    #[test]
    fn a_restore_names_the_paths_it_writes() {
        let paths = |command: &str| {
            let words = words(command);
            let found = identify(&words).expect("a tool");
            written_paths(&found).map(|p| p.iter().map(|s| s.to_string()).collect::<Vec<_>>())
        };
        assert_eq!(
            paths("git checkout HEAD -- .claude/settings.json team.yaml").unwrap(),
            [".claude/settings.json", "team.yaml"]
        );
        assert_eq!(
            paths("git restore --source=HEAD~1 src/a.rs").unwrap(),
            ["src/a.rs"]
        );
        assert_eq!(
            paths("git restore -s HEAD~1 src/a.rs").unwrap(),
            ["src/a.rs"]
        );
        // The index only: no file of the worktree changes.
        assert!(paths("git restore --staged src/a.rs").unwrap().is_empty());
        assert!(paths("git restore").is_err());
        assert!(paths("git diff --stat").unwrap().is_empty());
    }

    #[test]
    fn a_refusal_names_what_the_role_may_run() {
        let why = tool_of(&words("rm -rf /"), &["git_diff"])
            .err()
            .expect("refused");
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
