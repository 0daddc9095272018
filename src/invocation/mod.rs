//! The argv grammar, pure: sh/bash's own options (`-c STR [NAME ARG…]`, clusters such as `-ec`,
//! `-o pipefail`, long options) for the shell surface, hand-written to mimic bash; and the
//! dispatch rule that hands guarded-sh's own long options to `own` (clap). Anything it does not
//! understand is an error, never an ungated exec.

mod own;

pub use own::document;
use std::ffi::OsString;
use std::path::PathBuf;

/// Which real shell the invocation stands in for (by the name it was called as).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShellName {
    /// Called as `guarded-sh` (or a name we do not shim): the configured default shell.
    Default,
    Sh,
    Bash,
    Dash,
}

impl ShellName {
    fn from_argv0(argv0: &str) -> Self {
        let base = argv0.trim_start_matches('-');
        let base = base.rsplit('/').next().unwrap_or(base);
        match base {
            "sh" => Self::Sh,
            "bash" => Self::Bash,
            "dash" => Self::Dash,
            _ => Self::Default,
        }
    }
}

/// A parsed shell-surface invocation: what to gate and the arguments to hand the real shell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShellCall {
    pub name: ShellName,
    /// `argv[0]` began with `-`, or `-l`/`--login` was given.
    pub login: bool,
    /// `-i` was given.
    pub interactive_flag: bool,
    pub mode: ShellMode,
    /// Options before the operands, as given (handed to the real shell).
    pub options: Vec<OsString>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShellMode {
    /// `-c STR [NAME [ARG…]]`.
    Command {
        text: OsString,
        operands: Vec<OsString>,
    },
    /// `FILE [ARG…]`.
    Script {
        path: PathBuf,
        operands: Vec<OsString>,
    },
    /// No operand (or `-s`): commands come from stdin, a terminal or not.
    Stdin { operands: Vec<OsString> },
}

/// The review surface: analyse and decide, run nothing.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Review {
    pub action: ReviewAction,
    pub json: bool,
    pub target: Option<String>,
    pub env: Option<String>,
    pub host_vars: Vec<(String, String)>,
    pub policy_dir: Option<PathBuf>,
    pub shellcheck: bool,
    /// `--debug`: trace each stage's decision on stderr (as `GUARDED_SH_LOG=debug`).
    pub debug: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum ReviewAction {
    Check(String),
    CheckFile(PathBuf),
    #[default]
    ListSignals,
    Explain(String),
    PolicyTest(PolicyTest),
    /// `--input CMD`: the policy input `--check CMD` gives the policy, as JSON.
    Input(String),
}

/// `--policy-test DIR [-v] [--run TEXT]`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct PolicyTest {
    pub dir: PathBuf,
    /// `-v`/`--verbose`: each test's line with the time it took.
    pub verbose: bool,
    /// `--run TEXT`: only the tests whose rule path contains TEXT.
    pub run: Option<String>,
}

/// `--validate [--config FILE] [--policy-dir DIR]`: the pre-flight of a configuration and the
/// policy directory it selects (or `policy_dir`), as enforcement would load them; runs nothing.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Validate {
    /// `--config FILE`; unset: the file enforcement would read.
    pub config: Option<PathBuf>,
    /// `--policy-dir DIR`; unset: the directory enforcement would use.
    pub policy_dir: Option<PathBuf>,
}

/// `--print-config [--config FILE] [--json]`: the effective configuration, each value with
/// where it came from.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct PrintConfig {
    /// `--config FILE`; unset: the file enforcement would read.
    pub config: Option<PathBuf>,
    /// `--json`: JSON instead of annotated TOML.
    pub json: bool,
}

/// The shells `--completions` writes for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionShell {
    Bash,
    Zsh,
    Fish,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Invocation {
    Shell(ShellCall),
    Review(Review),
    /// The interactive session's check server (`--serve`): requests on stdin, replies on stdout.
    Serve,
    /// One check from the session hook when the server is unavailable (`--hook-check CMD`).
    HookCheck(String),
    /// A second person approves a held command's request (`--approve ID`).
    Approve(String),
    /// The pending approval requests (`--approvals`).
    Approvals,
    /// guarded-sh's own help (`--help` called as guarded-sh, `--gs-help`), on stdout.
    Help,
    /// guarded-sh's own version (`--version` called as guarded-sh, `--gs-version`), on stdout.
    Version,
    /// Shell completions for guarded-sh's own options (`--completions SHELL`), on stdout.
    Completions(CompletionShell),
    /// Check a configuration and its policy before deploying them (`--validate`).
    Validate(Validate),
    /// The effective configuration with each value's origin (`--print-config`).
    PrintConfig(PrintConfig),
}

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum UsageError {
    #[error("unsupported shell option '{0}'")]
    UnknownOption(String),
    #[error("option '{0}' needs an argument")]
    MissingArgument(String),
    /// guarded-sh's own command line (`cli`), as one line.
    #[error("{0}")]
    Review(String),
}

/// Single-letter options of sh and bash that are safe to pass through.
const SHORT_FLAGS: &str = "abefhkmnptuvxBCEHPTilrsD";

/// Long options of bash that are safe to pass through.
const LONG_FLAGS: &[&str] = &[
    "--norc",
    "--noprofile",
    "--login",
    "--posix",
    "--restricted",
    "--verbose",
    "--noediting",
    "--debugger",
    "--dump-strings",
    "--dump-po-strings",
    "--pretty-print",
    "--help",
    "--version",
];

/// guarded-sh's own long options: when `argv[1]` is one of them (or `NAME=VALUE` of one), under
/// whatever name it was called, argv goes to `cli` (clap). sh and bash have none of them.
pub const OWN_OPTIONS: &[&str] = &[
    "--check",
    "--check-file",
    "--list-signals",
    "--explain",
    "--policy-test",
    "--run",
    "--input",
    "--json",
    "--target",
    "--env",
    "--host-var",
    "--policy-dir",
    "--shellcheck",
    "--debug",
    "--gs-version",
    "--gs-help",
    "--serve",
    "--hook-check",
    "--approve",
    "--approvals",
    "--validate",
    "--print-config",
    "--config",
];

/// Long options that are guarded-sh's own only when it is called by its own name: through an
/// `sh`/`bash`/`dash` shim (or as a login shell, `-guarded-sh`) they are the real shell's.
pub const OWN_NAME_OPTIONS: &[&str] = &["--help", "--version", "--completions"];

/// Long options of guarded-sh's own that never select its command line as `argv[1]`: they are
/// bash's there (`--verbose`), and guarded-sh's only after one of its own actions.
pub const OWN_LATER_OPTIONS: &[&str] = &["--verbose"];

/// The name guarded-sh answers to with its own `--help`, `--version` and `--completions`.
const OWN_NAME: &str = "guarded-sh";

/// Parses argv (`args[0]` is `argv[0]`).
pub fn parse(args: &[OsString]) -> Result<Invocation, UsageError> {
    let argv0 = args
        .first()
        .map(|a| a.to_string_lossy().into_owned())
        .unwrap_or_default();
    let rest = args.get(1..).unwrap_or_default();
    if rest
        .first()
        .and_then(|a| a.to_str())
        .is_some_and(|first| is_own(&argv0, first))
    {
        return own::parse(args);
    }
    shell(&argv0, rest).map(Invocation::Shell)
}

/// Whether `first` (`argv[1]`) selects guarded-sh's own command line rather than the shell's.
fn is_own(argv0: &str, first: &str) -> bool {
    if !first.starts_with("--") {
        return false;
    }
    let name = first.split_once('=').map_or(first, |(name, _)| name);
    OWN_OPTIONS.contains(&name)
        || (OWN_NAME_OPTIONS.contains(&name) && argv0.rsplit('/').next() == Some(OWN_NAME))
}

fn shell(argv0: &str, rest: &[OsString]) -> Result<ShellCall, UsageError> {
    let mut call = ShellCall {
        name: ShellName::from_argv0(argv0),
        login: argv0.starts_with('-'),
        interactive_flag: false,
        mode: ShellMode::Stdin {
            operands: Vec::new(),
        },
        options: Vec::new(),
    };
    let mut command = false;
    let mut stdin_flag = false;
    let mut i = 0;
    while let Some(arg) = rest.get(i) {
        let text = arg.to_string_lossy();
        if text == "--" || text == "-" {
            call.options.push(arg.clone());
            i += 1;
            break;
        }
        if let Some(long) = text.strip_prefix("--") {
            let long = format!("--{long}");
            // `--rcfile`/`--init-file` name code bash would source behind the gate; sessions
            // use guarded-sh's own hook file instead, so they are refused like any unknown option.
            if !LONG_FLAGS.contains(&long.as_str()) {
                return Err(UsageError::UnknownOption(long));
            }
            call.login |= long == "--login";
            call.options.push(arg.clone());
            i += 1;
            continue;
        }
        let Some(letters) = text.strip_prefix('-').or_else(|| text.strip_prefix('+')) else {
            break;
        };
        if letters.is_empty() {
            break;
        }
        let plus = text.starts_with('+');
        let mut takes_value = false;
        for c in letters.chars() {
            match c {
                'c' if !plus => command = true,
                'o' | 'O' => takes_value = true,
                'l' if !plus => call.login = true,
                'i' if !plus => call.interactive_flag = true,
                's' if !plus => stdin_flag = true,
                c if SHORT_FLAGS.contains(c) => {}
                c => {
                    return Err(UsageError::UnknownOption(format!(
                        "{}{c}",
                        if plus { '+' } else { '-' }
                    )))
                }
            }
        }
        call.options.push(arg.clone());
        i += 1;
        if takes_value {
            let value = rest
                .get(i)
                .ok_or_else(|| UsageError::MissingArgument(text.to_string()))?;
            call.options.push(value.clone());
            i += 1;
        }
    }
    let operands: Vec<OsString> = rest.get(i..).unwrap_or_default().to_vec();
    call.mode = if command {
        let (text, operands) = operands
            .split_first()
            .ok_or_else(|| UsageError::MissingArgument("-c".into()))?;
        ShellMode::Command {
            text: text.clone(),
            operands: operands.to_vec(),
        }
    } else if stdin_flag || operands.is_empty() {
        ShellMode::Stdin { operands }
    } else {
        ShellMode::Script {
            path: PathBuf::from(&operands[0]),
            operands: operands[1..].to_vec(),
        }
    };
    Ok(call)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    fn command(v: &[&str]) -> (String, Vec<String>, bool) {
        match parse(&args(v)) {
            Ok(Invocation::Shell(ShellCall {
                mode: ShellMode::Command { text, operands },
                login,
                ..
            })) => (
                text.to_string_lossy().into(),
                operands
                    .iter()
                    .map(|o| o.to_string_lossy().into())
                    .collect(),
                login,
            ),
            other => panic!("{v:?} gave {other:?}"),
        }
    }

    #[test]
    fn command_forms() {
        let table: &[(&[&str], &str, &[&str], bool)] = &[
            (&["bash", "-c", "ls"], "ls", &[], false),
            (
                &["guarded-sh", "-ec", "ls", "n", "a"],
                "ls",
                &["n", "a"],
                false,
            ),
            (&["sh", "-o", "pipefail", "-c", "ls"], "ls", &[], false),
            (&["bash", "--norc", "-lc", "ls"], "ls", &[], true),
            (&["bash", "-c", "-x", "ls"], "ls", &[], false),
            (&["bash", "-c", "--", "-x"], "-x", &[], false),
            (&["bash", "+e", "-c", "ls"], "ls", &[], false),
            (&["-bash", "-c", "ls"], "ls", &[], true),
        ];
        for (argv, text, operands, login) in table {
            let (t, o, l) = command(argv);
            assert_eq!(
                (
                    t.as_str(),
                    o.iter().map(String::as_str).collect::<Vec<_>>().as_slice(),
                    l
                ),
                (*text, *operands, *login),
                "{argv:?}"
            );
        }
    }

    #[test]
    fn other_modes_and_errors() {
        assert!(matches!(
            parse(&args(&["-bash"])),
            Ok(Invocation::Shell(ShellCall {
                login: true,
                mode: ShellMode::Stdin { .. },
                ..
            }))
        ));
        assert!(matches!(
            parse(&args(&["sh", "x.sh", "a"])),
            Ok(Invocation::Shell(ShellCall {
                mode: ShellMode::Script { .. },
                name: ShellName::Sh,
                ..
            }))
        ));
        assert!(matches!(
            parse(&args(&["bash", "-s", "a"])),
            Ok(Invocation::Shell(ShellCall {
                mode: ShellMode::Stdin { .. },
                ..
            }))
        ));
        assert_eq!(
            parse(&args(&["bash", "-i", "--rcfile", "/tmp/x", "-c", "true"])),
            Err(UsageError::UnknownOption("--rcfile".into()))
        );
        assert_eq!(
            parse(&args(&["bash", "-Z", "-c", "x"])),
            Err(UsageError::UnknownOption("-Z".into()))
        );
        assert_eq!(
            parse(&args(&["bash", "--frobnicate"])),
            Err(UsageError::UnknownOption("--frobnicate".into()))
        );
        assert_eq!(
            parse(&args(&["bash", "-c"])),
            Err(UsageError::MissingArgument("-c".into()))
        );
        assert_eq!(
            parse(&args(&["bash", "-o"])),
            Err(UsageError::MissingArgument("-o".into()))
        );
        assert!(matches!(
            parse(&args(&["g", "--check", "ls", "--json"])),
            Ok(Invocation::Review(Review {
                json: true,
                action: ReviewAction::Check(_),
                ..
            }))
        ));
        assert!(parse(&args(&["g", "--check"])).is_err());
        assert!(parse(&args(&["g", "--json"])).is_err());
        assert_eq!(
            parse(&args(&["g", "--approve", "0a1b2c3d"])),
            Ok(Invocation::Approve("0a1b2c3d".into()))
        );
        assert_eq!(
            parse(&args(&["g", "--approvals"])),
            Ok(Invocation::Approvals)
        );
        assert!(parse(&args(&["g", "--approve"])).is_err());
    }

    #[test]
    fn dispatch_by_first_argument_and_name() {
        use Invocation as I;
        let review = |action: ReviewAction| Review {
            action,
            ..Review::default()
        };
        let check_json = Review {
            action: ReviewAction::Check("ls".into()),
            json: true,
            ..Review::default()
        };
        let table: &[(&[&str], Result<Invocation, ()>)] = &[
            (&["guarded-sh", "--help"], Ok(I::Help)),
            (&["/usr/local/bin/guarded-sh", "--version"], Ok(I::Version)),
            (&["sh", "--gs-help"], Ok(I::Help)),
            (&["bash", "--gs-version"], Ok(I::Version)),
            (&["guarded-sh", "--check", "ls", "--help"], Ok(I::Help)),
            (
                &["guarded-sh", "--completions", "zsh"],
                Ok(I::Completions(CompletionShell::Zsh)),
            ),
            (
                &["guarded-sh", "--completions=fish"],
                Ok(I::Completions(CompletionShell::Fish)),
            ),
            (
                &["g", "--check", "ls", "--json"],
                Ok(I::Review(check_json.clone())),
            ),
            (
                &["g", "--json", "--check", "ls"],
                Ok(I::Review(check_json.clone())),
            ),
            (
                &["g", "--json", "--check=ls"],
                Ok(I::Review(check_json.clone())),
            ),
            (
                &["g", "--check", "x", "--check", "ls", "--json"],
                Ok(I::Review(check_json)),
            ),
            (
                &["g", "--check", "-rf"],
                Ok(I::Review(review(ReviewAction::Check("-rf".into())))),
            ),
            (
                &["g", "--check-file", "-"],
                Ok(I::Review(review(ReviewAction::CheckFile("-".into())))),
            ),
            (
                &["g", "--explain", "DELETE_ROOT_PATH"],
                Ok(I::Review(review(ReviewAction::Explain(
                    "DELETE_ROOT_PATH".into(),
                )))),
            ),
            (
                &["g", "--policy-test", "p"],
                Ok(I::Review(review(ReviewAction::PolicyTest(PolicyTest {
                    dir: "p".into(),
                    ..PolicyTest::default()
                })))),
            ),
            (
                &["g", "--policy-test", "p", "-v", "--run", "deny"],
                Ok(I::Review(review(ReviewAction::PolicyTest(PolicyTest {
                    dir: "p".into(),
                    verbose: true,
                    run: Some("deny".into()),
                })))),
            ),
            (
                &["g", "--run=x", "--verbose", "--policy-test=p"],
                Ok(I::Review(review(ReviewAction::PolicyTest(PolicyTest {
                    dir: "p".into(),
                    verbose: true,
                    run: Some("x".into()),
                })))),
            ),
            (
                &["g", "--input", "rm -rf /tmp/x", "--env", "prod"],
                Ok(I::Review(Review {
                    env: Some("prod".into()),
                    ..review(ReviewAction::Input("rm -rf /tmp/x".into()))
                })),
            ),
            (
                &["g", "--list-signals"],
                Ok(I::Review(review(ReviewAction::ListSignals))),
            ),
            (&["g", "--serve"], Ok(I::Serve)),
            (
                &["g", "--hook-check", "--help"],
                Ok(I::HookCheck("--help".into())),
            ),
            (
                &["g", "--approve", "0a1b2c3d"],
                Ok(I::Approve("0a1b2c3d".into())),
            ),
            (&["g", "--approvals"], Ok(I::Approvals)),
            (&["g", "--validate"], Ok(I::Validate(Validate::default()))),
            (
                &[
                    "g",
                    "--validate",
                    "--config",
                    "/c.toml",
                    "--policy-dir",
                    "/p",
                ],
                Ok(I::Validate(Validate {
                    config: Some("/c.toml".into()),
                    policy_dir: Some("/p".into()),
                })),
            ),
            (
                &["g", "--config=/c.toml", "--validate"],
                Ok(I::Validate(Validate {
                    config: Some("/c.toml".into()),
                    policy_dir: None,
                })),
            ),
            (
                &["g", "--print-config"],
                Ok(I::PrintConfig(PrintConfig::default())),
            ),
            (
                &["g", "--print-config", "--json", "--config", "c"],
                Ok(I::PrintConfig(PrintConfig {
                    config: Some("c".into()),
                    json: true,
                })),
            ),
            // Errors: exit 2, nothing run.
            (&["g", "--config", "c"], Err(())),
            (&["g", "--config", "c", "--check", "ls"], Err(())),
            (&["g", "--validate", "--check", "ls"], Err(())),
            (&["g", "--validate", "--json"], Err(())),
            (&["g", "--validate", "--env", "prod"], Err(())),
            (&["g", "--validate", "-v"], Err(())),
            (&["g", "--validate", "x"], Err(())),
            (&["g", "--print-config", "--policy-dir", "/p"], Err(())),
            (&["g", "--print-config", "--target", "t"], Err(())),
            (&["g", "--print-config", "--validate"], Err(())),
            (&["g", "--validate", "--config"], Err(())),
            (&["g", "--check"], Err(())),
            (&["g", "--json"], Err(())),
            (&["g", "--check", "ls", "--explain", "X"], Err(())),
            (&["g", "--check", "ls", "--frobnicate"], Err(())),
            (&["g", "--host-var", "novalue", "--check", "ls"], Err(())),
            (&["g", "--approve"], Err(())),
            (&["g", "--input", "ls", "--json"], Err(())),
            (&["g", "--input", "ls", "--shellcheck"], Err(())),
            (&["g", "--input", "ls", "-v"], Err(())),
            (&["g", "--input"], Err(())),
            (&["g", "--check", "ls", "-v"], Err(())),
            (&["g", "--check", "ls", "--run", "x"], Err(())),
            (&["g", "--approve", "a", "b"], Err(())),
            (&["g", "--approvals", "--json"], Err(())),
            (&["g", "--serve", "x"], Err(())),
            (&["g", "--hook-check"], Err(())),
            (&["guarded-sh", "--completions", "tcsh"], Err(())),
            (&["guarded-sh", "--help=x"], Err(())),
        ];
        for (argv, expected) in table {
            let got = parse(&args(argv)).map_err(|_| ());
            assert_eq!(&got, expected, "{argv:?}");
        }
        // --help, --version and --completions are the real shell's under any other name, and
        // not guarded-sh's past argv[1].
        let shells: &[&[&str]] = &[
            &["bash", "--help"],
            &["sh", "--version"],
            &["dash", "--help"],
            &["-guarded-sh", "--version"],
            &["guarded-sh-old", "--help"],
            &["guarded-sh", "--norc", "--version"],
        ];
        for argv in shells {
            assert!(
                matches!(parse(&args(argv)), Ok(Invocation::Shell(_))),
                "{argv:?}"
            );
        }
        assert_eq!(
            parse(&args(&["bash", "--completions", "bash"])),
            Err(UsageError::UnknownOption("--completions".into()))
        );
        let host_vars = parse(&args(&[
            "g",
            "--host-var=a=1",
            "--check",
            "ls",
            "--host-var",
            "b=",
            "--target",
            "t",
            "--env=prod",
            "--policy-dir",
            "/p",
            "--shellcheck",
        ]));
        assert_eq!(
            host_vars,
            Ok(Invocation::Review(Review {
                action: ReviewAction::Check("ls".into()),
                json: false,
                target: Some("t".into()),
                env: Some("prod".into()),
                host_vars: vec![("a".into(), "1".into()), ("b".into(), String::new())],
                policy_dir: Some("/p".into()),
                shellcheck: true,
                debug: false,
            }))
        );
    }

    #[test]
    fn own_options_are_exactly_the_clap_definition() {
        let mut own: Vec<String> = OWN_OPTIONS
            .iter()
            .chain(OWN_NAME_OPTIONS)
            .chain(OWN_LATER_OPTIONS)
            .map(|o| o.to_string())
            .collect();
        own.sort();
        assert_eq!(own, own::long_options());
        // None of them is an option of bash's.
        assert!(own.iter().all(|o| !LONG_FLAGS.contains(&o.as_str())
            || OWN_NAME_OPTIONS.contains(&o.as_str())
            || OWN_LATER_OPTIONS.contains(&o.as_str())));
        // And those that are bash's never select guarded-sh's command line.
        for later in OWN_LATER_OPTIONS {
            assert!(matches!(
                parse(&args(&["guarded-sh", later, "-c", "ls"])),
                Ok(Invocation::Shell(_))
            ));
        }
    }
}
