//! The argv grammar, pure: sh/bash's own options (`-c STR [NAME ARG…]`, clusters such as `-ec`,
//! `-o pipefail`, long options) for the shell surface, and guarded-sh's long options for the
//! review surface. Anything it does not understand is an error, never an ungated exec.

use std::ffi::{OsStr, OsString};
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
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum ReviewAction {
    Check(String),
    CheckFile(PathBuf),
    #[default]
    ListSignals,
    Explain(String),
    PolicyTest(PathBuf),
    Version,
    Help,
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
}

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum UsageError {
    #[error("unsupported shell option '{0}'")]
    UnknownOption(String),
    #[error("option '{0}' needs an argument")]
    MissingArgument(String),
    #[error("argument is not valid UTF-8: {0:?}")]
    NotUtf8(OsString),
    #[error("'{0}' expects K=V")]
    BadHostVar(String),
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

/// Review-surface long options that switch to the review grammar.
const REVIEW_OPTIONS: &[&str] = &[
    "--check",
    "--check-file",
    "--list-signals",
    "--explain",
    "--policy-test",
    "--json",
    "--target",
    "--env",
    "--host-var",
    "--policy-dir",
    "--shellcheck",
    "--gs-version",
    "--gs-help",
];

/// Parses argv (`args[0]` is `argv[0]`).
pub fn parse(args: &[OsString]) -> Result<Invocation, UsageError> {
    let argv0 = args
        .first()
        .map(|a| a.to_string_lossy().into_owned())
        .unwrap_or_default();
    let rest = args.get(1..).unwrap_or_default();
    match rest.first().and_then(|a| a.to_str()) {
        Some("--serve") if rest.len() == 1 => return Ok(Invocation::Serve),
        Some("--hook-check") => {
            let text = rest
                .get(1)
                .ok_or_else(|| UsageError::MissingArgument("--hook-check".into()))?;
            return Ok(Invocation::HookCheck(utf8(text)?));
        }
        Some("--approve") => {
            let id = rest
                .get(1)
                .ok_or_else(|| UsageError::MissingArgument("--approve".into()))?;
            if rest.len() > 2 {
                return Err(UsageError::Review("--approve takes one request id".into()));
            }
            return Ok(Invocation::Approve(utf8(id)?));
        }
        Some("--approvals") if rest.len() == 1 => return Ok(Invocation::Approvals),
        Some(first)
            if REVIEW_OPTIONS
                .iter()
                .any(|o| first == *o || first.starts_with(&format!("{o}="))) =>
        {
            return review(rest).map(Invocation::Review);
        }
        _ => {}
    }
    shell(&argv0, rest).map(Invocation::Shell)
}

fn utf8(arg: &OsStr) -> Result<String, UsageError> {
    arg.to_str()
        .map(str::to_string)
        .ok_or_else(|| UsageError::NotUtf8(arg.to_os_string()))
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

fn review(rest: &[OsString]) -> Result<Review, UsageError> {
    let mut review = Review::default();
    let mut action = None;
    let mut i = 0;
    let value = |i: usize, name: &str, inline: Option<&str>| -> Result<String, UsageError> {
        match inline {
            Some(v) => Ok(v.to_string()),
            None => rest
                .get(i + 1)
                .map(|v| utf8(v))
                .transpose()?
                .ok_or_else(|| UsageError::MissingArgument(name.to_string())),
        }
    };
    while let Some(arg) = rest.get(i) {
        let text = utf8(arg)?;
        let (name, inline) = match text.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v)),
            _ => (text.clone(), None),
        };
        let mut step = if inline.is_some() { 1 } else { 2 };
        match name.as_str() {
            "--check" => action = Some(ReviewAction::Check(value(i, &name, inline)?)),
            "--check-file" => {
                action = Some(ReviewAction::CheckFile(value(i, &name, inline)?.into()))
            }
            "--explain" => action = Some(ReviewAction::Explain(value(i, &name, inline)?)),
            "--policy-test" => {
                action = Some(ReviewAction::PolicyTest(value(i, &name, inline)?.into()))
            }
            "--target" => review.target = Some(value(i, &name, inline)?),
            "--env" => review.env = Some(value(i, &name, inline)?),
            "--policy-dir" => review.policy_dir = Some(value(i, &name, inline)?.into()),
            "--host-var" => {
                let kv = value(i, &name, inline)?;
                let (k, v) = kv
                    .split_once('=')
                    .ok_or_else(|| UsageError::BadHostVar(kv.clone()))?;
                review.host_vars.push((k.to_string(), v.to_string()));
            }
            "--list-signals" | "--json" | "--shellcheck" | "--gs-version" | "--gs-help" => {
                step = 1;
                match name.as_str() {
                    "--list-signals" => action = Some(ReviewAction::ListSignals),
                    "--json" => review.json = true,
                    "--shellcheck" => review.shellcheck = true,
                    "--gs-version" => action = Some(ReviewAction::Version),
                    _ => action = Some(ReviewAction::Help),
                }
            }
            other => {
                return Err(UsageError::Review(format!(
                    "unknown review option '{other}'"
                )))
            }
        }
        i += step;
    }
    review.action = action.ok_or_else(|| {
        UsageError::Review(
            "choose one of --check, --check-file, --list-signals, --explain, --policy-test".into(),
        )
    })?;
    Ok(review)
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
}
