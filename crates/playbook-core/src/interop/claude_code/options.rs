//! The options a command the gate allows may carry, by program: a list of
//! the ones it knows, never a list of the ones it fears.
//!
//! A program's options are where a harmless command turns into another
//! one: `sort -o FILE` writes, `sort --compress-program=P` and `make
//! --eval=…` run a program, `git diff --outp=FILE` writes (GNU tools take
//! any unambiguous abbreviation of a long option). A list of dangerous
//! options misses the next one; so a command the gate allows may carry
//! only options this file lists for its program, spelled in full, and
//! anything else is refused with the option named. Every option listed
//! selects, filters, formats or limits; none names a program, a
//! configuration, a directory to work in or a file to write.

/// What the words of one command after its program (and subcommand) may be.
pub(super) struct Grammar {
    /// Short options without a value, combinable (`-qv`).
    pub flags: &'static str,
    /// Short options with a value, attached (`-n5`) or the next word.
    pub valued: &'static str,
    /// Long options without a value.
    pub long: &'static [&'static str],
    /// Long options with a value: `--name=value` or `--name value`.
    pub long_valued: &'static [&'static str],
    /// Go's flag style: long names after one dash (`-run X`, `-count=1`).
    pub single_dash_long: bool,
    /// `-20` (a number of lines, as `head` and `tail` take it).
    pub numeric: bool,
    /// What the other words may be.
    pub operands: Operands,
    /// The grammar of the words after `--`, which the runner hands to the
    /// program it starts; `None`: only operands follow `--`.
    pub after_dashes: Option<&'static Grammar>,
}

/// The words of a command that are not options.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Operands {
    /// Any number (test names, packages, paths to read).
    Any,
    /// At most this many (`grep PATTERN`: one; a filter of stdin: none).
    AtMost(usize),
    /// Only these words (`make test check`: targets; another would run
    /// another recipe).
    Only(&'static [&'static str]),
}

const NONE: Grammar = Grammar {
    flags: "",
    valued: "",
    long: &[],
    long_valued: &[],
    single_dash_long: false,
    numeric: false,
    operands: Operands::AtMost(0),
    after_dashes: None,
};

/// Checks `args` against `grammar`; `Err` names the first word it does not
/// allow. `program` is how a refusal names the command.
pub(super) fn check(program: &str, grammar: &Grammar, args: &[String]) -> Result<(), String> {
    let unknown = |word: &str| {
        Err(format!(
            "`{word}` is not an option the gate knows for `{program}` (it allows only options that select, filter, format or limit, spelled in full)"
        ))
    };
    let mut operands = 0usize;
    let mut i = 0;
    while i < args.len() {
        let word = args[i].as_str();
        i += 1;
        if word == "--" {
            let rest = &args[i..];
            return match grammar.after_dashes {
                Some(inner) => check(program, inner, rest),
                None => rest
                    .iter()
                    .try_for_each(|w| operand(program, grammar, w, &mut operands)),
            };
        }
        let Some(body) = word.strip_prefix('-').filter(|b| !b.is_empty()) else {
            operand(program, grammar, word, &mut operands)?;
            continue;
        };
        if grammar.numeric && body.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let long = match body.strip_prefix('-') {
            Some(name) => Some(name),
            None if grammar.single_dash_long => Some(body),
            None => None,
        };
        if let Some(long) = long {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            let dashed = format!("--{name}");
            let single = format!("-{name}");
            let is = |list: &[&str]| list.iter().any(|o| *o == dashed || *o == single);
            // A name in both lists (`--color`, `--bail`) is a flag when
            // nothing is attached to it.
            if inline.is_none() && is(grammar.long) {
                continue;
            }
            if is(grammar.long_valued) {
                if inline.is_none() {
                    // The value is the next word.
                    if i >= args.len() {
                        return Err(format!("`{word}` needs a value"));
                    }
                    i += 1;
                }
                continue;
            }
            return unknown(word);
        }
        // A group of short options: flags, then at most one with a value
        // that takes the rest of the word or the next word.
        for (at, c) in body.char_indices() {
            if grammar.flags.contains(c) {
                continue;
            }
            if grammar.valued.contains(c) {
                if at + c.len_utf8() == body.len() {
                    if i >= args.len() {
                        return Err(format!("`{word}` needs a value"));
                    }
                    i += 1;
                }
                break;
            }
            return unknown(word);
        }
    }
    Ok(())
}

fn operand(program: &str, grammar: &Grammar, word: &str, seen: &mut usize) -> Result<(), String> {
    *seen += 1;
    match grammar.operands {
        Operands::Any => Ok(()),
        Operands::AtMost(n) if *seen <= n => Ok(()),
        Operands::AtMost(0) => Err(format!(
            "`{program}` reads only the output piped into it; `{word}` would make it read something else"
        )),
        Operands::AtMost(_) => Err(format!(
            "`{program}` is given more than the gate allows (`{word}`)"
        )),
        Operands::Only(allowed) if allowed.contains(&word) => Ok(()),
        Operands::Only(allowed) => Err(format!(
            "`{program} {word}` is not one of {}",
            allowed
                .iter()
                .map(|a| format!("`{program} {a}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// The grammar of a program that reads a command's output, by name.
pub(super) fn filter(program: &str) -> Option<&'static Grammar> {
    Some(match program {
        "head" | "tail" => &HEAD_TAIL,
        "grep" | "egrep" | "fgrep" => &GREP,
        "wc" => &WC,
        "cut" => &CUT,
        "sort" => &SORT,
        "cat" => &CAT,
        _ => return None,
    })
}

// `tail -f` is left out: it never ends.
const HEAD_TAIL: Grammar = Grammar {
    flags: "qvz",
    valued: "nc",
    long: &["--quiet", "--silent", "--verbose", "--zero-terminated"],
    long_valued: &["--lines", "--bytes"],
    numeric: true,
    ..NONE
};

// `-f FILE`, `-r` and file operands would read files rather than the
// output; one operand is the pattern.
const GREP: Grammar = Grammar {
    flags: "EFGPiywxvcLlnhHoqsbaIzZTU",
    valued: "emABCdD",
    long: &[
        "--extended-regexp",
        "--fixed-strings",
        "--basic-regexp",
        "--perl-regexp",
        "--ignore-case",
        "--no-ignore-case",
        "--word-regexp",
        "--line-regexp",
        "--invert-match",
        "--count",
        "--files-with-matches",
        "--files-without-match",
        "--line-number",
        "--no-filename",
        "--with-filename",
        "--only-matching",
        "--quiet",
        "--silent",
        "--byte-offset",
        "--text",
        "--null",
        "--null-data",
        "--initial-tab",
        "--color",
        "--colour",
    ],
    long_valued: &[
        "--regexp",
        "--max-count",
        "--after-context",
        "--before-context",
        "--context",
        "--color",
        "--colour",
        "--label",
        "--binary-files",
    ],
    operands: Operands::AtMost(1),
    ..NONE
};

const WC: Grammar = Grammar {
    flags: "clmwL",
    long: &[
        "--bytes",
        "--chars",
        "--lines",
        "--words",
        "--max-line-length",
    ],
    ..NONE
};

const CUT: Grammar = Grammar {
    flags: "snz",
    valued: "bcdf",
    long: &["--complement", "--only-delimited", "--zero-terminated"],
    long_valued: &[
        "--bytes",
        "--characters",
        "--delimiter",
        "--fields",
        "--output-delimiter",
    ],
    ..NONE
};

// Not `-o`/`--output` (writes a file), `-T` (writes temporary files where
// told), `--compress-program` (runs a program), `--files0-from`,
// `--random-source` (read files).
const SORT: Grammar = Grammar {
    flags: "bdfgiMhnRrsuVzcC",
    valued: "kt",
    long: &[
        "--ignore-leading-blanks",
        "--dictionary-order",
        "--ignore-case",
        "--general-numeric-sort",
        "--ignore-nonprinting",
        "--month-sort",
        "--human-numeric-sort",
        "--numeric-sort",
        "--random-sort",
        "--reverse",
        "--stable",
        "--unique",
        "--version-sort",
        "--zero-terminated",
    ],
    long_valued: &["--key", "--field-separator"],
    ..NONE
};

const CAT: Grammar = Grammar {
    flags: "AbeEnstTuv",
    long: &[
        "--show-all",
        "--number-nonblank",
        "--number",
        "--squeeze-blank",
        "--show-ends",
        "--show-tabs",
        "--show-nonprinting",
    ],
    ..NONE
};

/// The grammar of a test runner's words after its subcommand, by the
/// runner's name (`cargo`, `go`, `jest`... and `npm` for a package's
/// test script).
pub(super) fn runner(name: &str) -> &'static Grammar {
    match name {
        "cargo" => &CARGO,
        "go" => &GO,
        "npm" | "pnpm" | "yarn" | "bun" => &PACKAGE_SCRIPT,
        "jest" | "vitest" | "mocha" => &JS_RUNNER,
        "pytest" | "py.test" => &PYTEST,
        "make" => &MAKE,
        "mvn" => &MAVEN,
        "gradle" | "./gradlew" => &GRADLE,
        "dotnet" => &DOTNET,
        "tox" | "nox" => &TOX,
        "rspec" => &RSPEC,
        "phpunit" => &PHPUNIT,
        "ctest" => &CTEST,
        "deno" | "mix" | "swift" => &FILTERED,
        _ => &NONE,
    }
}

// libtest's own options, after `cargo test --`. Not `--logfile` (writes).
const LIBTEST: Grammar = Grammar {
    flags: "q",
    long: &[
        "--nocapture",
        "--no-capture",
        "--ignored",
        "--include-ignored",
        "--exact",
        "--quiet",
        "--show-output",
        "--list",
    ],
    long_valued: &["--test-threads", "--skip", "--color", "--format"],
    operands: Operands::Any,
    ..NONE
};

// Not `--config`, `-Z`, `--manifest-path`, `--target-dir`, `-C`.
const CARGO: Grammar = Grammar {
    flags: "qvr",
    valued: "pFjE",
    long: &[
        "--workspace",
        "--all",
        "--lib",
        "--bins",
        "--tests",
        "--doc",
        "--examples",
        "--benches",
        "--all-targets",
        "--release",
        "--all-features",
        "--no-default-features",
        "--quiet",
        "--verbose",
        "--no-fail-fast",
        "--no-run",
        "--locked",
        "--offline",
        "--frozen",
        "--no-capture",
    ],
    long_valued: &[
        "--package",
        "--bin",
        "--test",
        "--example",
        "--bench",
        "--features",
        "--jobs",
        "--color",
        "--message-format",
        "--profile",
        "--target",
        "--exclude",
        "--retries",
        "--test-threads",
        "--run-ignored",
    ],
    operands: Operands::Any,
    after_dashes: Some(&LIBTEST),
    ..NONE
};

// Not `-exec`, `-toolexec`, `-o`, `-C`, `-modfile`, `-overlay` or the
// profile options that write files.
const GO: Grammar = Grammar {
    long: &[
        "-v",
        "-race",
        "-short",
        "-cover",
        "-failfast",
        "-json",
        "-benchmem",
    ],
    long_valued: &[
        "-run",
        "-count",
        "-timeout",
        "-p",
        "-parallel",
        "-bench",
        "-benchtime",
        "-tags",
        "-skip",
        "-cpu",
        "-shuffle",
        "-covermode",
        "-coverpkg",
    ],
    single_dash_long: true,
    operands: Operands::Any,
    ..NONE
};

// What jest, vitest and mocha take to pick and report tests. Not
// `--config`, `--setupFiles`, `--globalSetup`, `--require`, `--rootDir`
// or `--outputFile`.
const JS_RUNNER: Grammar = Grammar {
    flags: "i",
    valued: "t",
    long: &[
        "--run",
        "--ci",
        "--runInBand",
        "--bail",
        "--silent",
        "--verbose",
        "--passWithNoTests",
        "--no-watch",
        "--coverage",
        "--no-coverage",
        "--detectOpenHandles",
        "--forceExit",
        "--onlyChanged",
    ],
    long_valued: &[
        "--testNamePattern",
        "--reporter",
        "--maxWorkers",
        "--watch",
        "--grep",
        "--timeout",
        "--testTimeout",
        "--shard",
        "--bail",
    ],
    operands: Operands::Any,
    ..NONE
};

// `npm test` passes what follows `--` to the script; before it, npm reads
// options of its own (`--script-shell`, `--prefix`), so none is allowed.
const PACKAGE_SCRIPT: Grammar = Grammar {
    flags: "s",
    long: &["--silent", "--if-present"],
    operands: Operands::Any,
    after_dashes: Some(&JS_RUNNER),
    ..NONE
};

// Not `-p PLUGIN` (loads a module), `-c`, `--rootdir`, `--basetemp`
// (removes a directory), `--junitxml` or `--confcutdir`.
const PYTEST: Grammar = Grammar {
    flags: "qvxsl",
    valued: "kmrnW",
    long: &[
        "--lf",
        "--ff",
        "--nf",
        "--last-failed",
        "--failed-first",
        "--new-first",
        "--co",
        "--collect-only",
        "--no-header",
        "--disable-warnings",
        "--showlocals",
        "--strict-markers",
        "--exitfirst",
        "--verbose",
        "--quiet",
        "--sw",
        "--stepwise",
    ],
    long_valued: &[
        "--tb",
        "--maxfail",
        "--durations",
        "--deselect",
        "--capture",
    ],
    operands: Operands::Any,
    ..NONE
};

// Targets other than these would run other recipes; `-f`, `-C`, `-I`,
// `--eval` and `NAME=value` change what the recipes are.
const MAKE: Grammar = Grammar {
    flags: "ksBi",
    long: &["--keep-going", "--silent", "--quiet", "--always-make"],
    operands: Operands::Only(&["test", "check"]),
    ..NONE
};

const MAVEN: Grammar = Grammar {
    flags: "qoBe",
    long: &[
        "--quiet",
        "--offline",
        "--batch-mode",
        "--errors",
        "--fail-at-end",
    ],
    long_valued: &["--projects"],
    operands: Operands::Only(&["test", "verify"]),
    ..NONE
};

// Not `--init-script`/`-I`, `-D`/`-P` properties, `--project-dir`, `-b`.
const GRADLE: Grammar = Grammar {
    flags: "qi",
    long: &[
        "--offline",
        "--continue",
        "--info",
        "--quiet",
        "--stacktrace",
        "--no-daemon",
        "--rerun-tasks",
    ],
    long_valued: &["--tests"],
    operands: Operands::Only(&["test", "check"]),
    ..NONE
};

// Not `--logger`, `--results-directory`, `--settings`.
const DOTNET: Grammar = Grammar {
    long: &["--no-build", "--no-restore", "--nologo"],
    long_valued: &["--filter", "--configuration", "--framework", "--verbosity"],
    valued: "cfv",
    operands: Operands::Any,
    ..NONE
};

// `tox -e py312 -- -k name`: what follows `--` goes to pytest. Not `-c`
// (another configuration) or `-x` (overrides it).
const TOX: Grammar = Grammar {
    flags: "qvr",
    valued: "esk",
    long: &["--quiet", "--verbose", "--reuse-existing-virtualenvs"],
    long_valued: &["--sessions", "--keywords"],
    after_dashes: Some(&PYTEST),
    ..NONE
};

// Not `--require`/`-r` or `--format` (a formatter can be any class).
const RSPEC: Grammar = Grammar {
    valued: "te",
    long: &["--fail-fast", "--only-failures", "--next-failure"],
    long_valued: &["--tag", "--example", "--seed", "--order"],
    operands: Operands::Any,
    ..NONE
};

// Not `--bootstrap` (runs a file), `--configuration`, `--log-*`,
// `--coverage-*` (write files).
const PHPUNIT: Grammar = Grammar {
    long: &["--stop-on-failure", "--testdox", "--no-coverage"],
    long_valued: &["--filter", "--testsuite", "--group", "--exclude-group"],
    operands: Operands::Any,
    ..NONE
};

// Not `-S`/`-D` (dashboard scripts) or `--build-and-test`.
const CTEST: Grammar = Grammar {
    flags: "VQ",
    valued: "RELj",
    long: &[
        "--output-on-failure",
        "--verbose",
        "--quiet",
        "--stop-on-failure",
        "--rerun-failed",
    ],
    long_valued: &[
        "--tests-regex",
        "--exclude-regex",
        "--label-regex",
        "--parallel",
        "--timeout",
    ],
    ..NONE
};

// `deno test`, `mix test`, `swift test`: test names and a filter.
const FILTERED: Grammar = Grammar {
    long_valued: &["--filter", "--only", "--skip"],
    operands: Operands::Any,
    ..NONE
};

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_string).collect()
    }

    fn ok(grammar: &Grammar, args: &str) -> bool {
        check("x", grammar, &words(args)).is_ok()
    }

    #[test]
    fn only_listed_options_spelled_in_full_pass() {
        assert!(ok(&SORT, "-rn -k 2 -t, --unique"));
        assert!(ok(&HEAD_TAIL, "-20"));
        assert!(ok(&HEAD_TAIL, "-n5"));
        assert!(ok(&HEAD_TAIL, "-n 5 -q"));
        // Combined, abbreviated, attached: each is read as getopt reads it.
        for bad in [
            "-uo out",
            "-o out",
            "--outp=out",
            "--output=out",
            "--compress-program=./x",
            "-S1 --compress-program=./x",
            "-T /tmp",
            "--files0-from=list",
            "file.txt",
        ] {
            assert!(!ok(&SORT, bad), "{bad}");
        }
        assert!(!ok(&HEAD_TAIL, "-f"));
        assert!(ok(&GREP, "-c fix"));
        assert!(!ok(&GREP, "fix /etc/shadow"));
        assert!(!ok(&GREP, "-r fix"));
        assert!(!ok(&GREP, "-f patterns"));
    }

    #[test]
    fn a_value_is_taken_attached_or_as_the_next_word() {
        assert!(ok(&CUT, "-d: -f1"));
        assert!(ok(&CUT, "-d : -f 1"));
        assert!(!ok(&CUT, "-f"), "a missing value is refused");
        assert!(ok(&GO, "-run TestX -count=1 -v ./..."));
        assert!(ok(&GO, "--run=TestX"));
        assert!(!ok(&GO, "-exec /bin/sh ./..."));
        assert!(!ok(&GO, "-toolexec=./x"));
        assert!(!ok(&GO, "-o bin ./..."));
    }

    #[test]
    fn a_runner_hands_what_follows_dashes_to_its_own_grammar() {
        assert!(ok(
            &CARGO,
            "-p core --release -- --nocapture --test-threads=1 name"
        ));
        assert!(!ok(&CARGO, "-- --logfile /tmp/x"));
        assert!(!ok(&CARGO, "--config target.x.runner=sh"));
        assert!(ok(&PACKAGE_SCRIPT, "-- --run -t name"));
        assert!(!ok(&PACKAGE_SCRIPT, "--script-shell=./evil"));
        assert!(!ok(&PACKAGE_SCRIPT, "-- --config evil.js"));
        assert!(ok(&MAKE, "test -k"));
        for bad in [
            "test --eval=x",
            "check --eval x",
            "test -f/tmp/evil.mk",
            "test -C/tmp",
            "test install",
            "test CC=evil",
        ] {
            assert!(!ok(&MAKE, bad), "{bad}");
        }
        assert!(ok(&PYTEST, "-x -k name -q tests/"));
        assert!(!ok(&PYTEST, "-p evil"));
        assert!(!ok(&PYTEST, "--basetemp=/home"));
    }
}
