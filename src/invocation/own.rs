//! guarded-sh's own command line, the review and admin surface, as a clap definition: parsing it
//! into an [`Invocation`], and the help, version and shell completions it defines as text.
//! Only `invocation::parse` calls in here, and only for guarded-sh's own long options: the shell
//! surface (`-c`, scripts, stdin, shims) never builds this definition.

use super::{
    CompletionShell, Invocation, PolicyTest, PrintConfig, Review, ReviewAction, UsageError,
    Validate,
};
use clap::error::ErrorKind;
use clap::{ArgAction, Args, CommandFactory, FromArgMatches, Parser};
use std::ffi::OsString;
use std::path::PathBuf;

/// The name completions and the help are written for.
const NAME: &str = "guarded-sh";

const USAGE: &str = "\
guarded-sh [SHELL OPTIONS] -c STRING [NAME [ARG...]]   gate STRING, then exec the real shell
       guarded-sh [SHELL OPTIONS] FILE [ARG...]               gate the script, then exec it
       guarded-sh --check CMD [CONTEXT]                       analyse and decide, run nothing
       guarded-sh --check-file FILE|- [CONTEXT]
       guarded-sh --input CMD [CONTEXT]                       the policy input for CMD, as JSON
       guarded-sh --list-signals | --explain ID
       guarded-sh --policy-test DIR [-v] [--run TEXT]
       guarded-sh --approve ID | --approvals
       guarded-sh --validate [--config FILE] [--policy-dir DIR]
       guarded-sh --print-config [--config FILE] [--json]
       guarded-sh --completions bash|zsh|fish | --help | --version";

const ABOUT: &str = "\
guarded-sh: a gate in front of sh/bash. The shell surface (sh/bash's own options, -c, scripts,
stdin, the sh/bash/dash shims) is a drop-in for the real shell; the options below are
guarded-sh's own review and admin surface, which runs nothing.";

const AFTER_HELP: &str = "\
Per-user review defaults (policy_dir, target, env, host_vars) are read from
$XDG_CONFIG_HOME/guarded-sh/review.toml (default ~/.config/guarded-sh/review.toml) by --check,
--check-file and --input only; the options above override them. Enforcement never reads that file.

Exit statuses:
  shell surface          the real shell's; 126 denied; 2 usage or configuration error
  --check, --check-file  0 allowed; 1 denied; 3 held for approval; 2 usage error
  --input                0 printed; 1 printed, but the target's host variables could not be
                         read (the policy would not be asked: denied); 2 usage error
  --policy-test          0 every test run passed (todo_test_* rules are counted, not run);
                         1 a test failed, the directory does not load, or it holds no test_*
                         rule (none that --run picks); 2 usage error
  --validate             0 no problem found; 1 problems found (one line each on stdout,
                         FILE:LINE: message [reason_id]); 2 usage error
  --print-config         0 printed; 1 the configuration does not load (the error on stderr,
                         as --validate reports it); 2 usage error
  --approve, --approvals 0 approved, or listed; 1 refused or not confirmed; 2 approvals not
                         configured or not usable, or usage error
  --explain, --list-signals, --completions
                         0 printed; 2 an unknown signal id or shell, or usage error

HONEY_RISK_LLM=1 with OPENAI_BASE_URL (http://) adds a model's advisory to reviews; it
never changes a decision.

--help and --version are guarded-sh's own only when it is called as guarded-sh; called through
an sh, bash or dash shim they reach the real shell.";

/// guarded-sh's own options. Repeating an option keeps the last value, as the hand-written
/// grammar before it did; two different actions are an error.
#[derive(Debug, Parser)]
#[command(
    name = NAME,
    version,
    about = ABOUT,
    override_usage = USAGE,
    after_help = AFTER_HELP,
    disable_help_flag = true,
    disable_version_flag = true,
    args_override_self = true
)]
struct Cli {
    #[command(flatten)]
    action: Action,
    #[command(flatten)]
    context: Context,
    #[command(flatten)]
    tests: Tests,
    #[command(flatten)]
    preflight: Preflight,
    /// Print this help
    #[arg(long, action = ArgAction::Help, visible_alias = "gs-help", help_heading = "Information")]
    help: Option<bool>,
    /// Print the version
    #[arg(long, action = ArgAction::Version, visible_alias = "gs-version", help_heading = "Information")]
    version: Option<bool>,
}

/// The context options, which the admin actions refuse.
const CONTEXT: [&str; 7] = [
    "debug",
    "json",
    "shellcheck",
    "target",
    "env",
    "host_vars",
    "policy_dir",
];

/// The actions other than --policy-test, which refuse its options. (clap's `requires` would
/// not: an action's group conflicts make a missing --policy-test look fine to it.)
const NOT_POLICY_TEST: [&str; 12] = [
    "check",
    "check_file",
    "input",
    "list_signals",
    "explain",
    "approve",
    "approvals",
    "completions",
    "serve",
    "hook_check",
    "validate",
    "print_config",
];

/// The actions other than --validate and --print-config, which refuse --config.
const NOT_PREFLIGHT: [&str; 11] = [
    "check",
    "check_file",
    "input",
    "list_signals",
    "explain",
    "policy_test",
    "approve",
    "approvals",
    "completions",
    "serve",
    "hook_check",
];

/// The context options --validate refuses (it takes --policy-dir).
const NOT_FOR_VALIDATE: [&str; 6] = ["debug", "json", "shellcheck", "target", "env", "host_vars"];

/// The context options --print-config refuses (it takes --json).
const NOT_FOR_PRINT_CONFIG: [&str; 6] = [
    "debug",
    "shellcheck",
    "target",
    "env",
    "host_vars",
    "policy_dir",
];

/// What to do: exactly one.
#[derive(Debug, Args)]
#[command(next_help_heading = "Actions")]
#[group(required = true, multiple = false)]
struct Action {
    /// Analyse and decide CMD (the reference engine's lines); run nothing
    #[arg(long, value_name = "CMD", allow_hyphen_values = true)]
    check: Option<String>,
    /// One block per step of a script or history file (- for stdin)
    #[arg(long, value_name = "FILE", allow_hyphen_values = true)]
    check_file: Option<PathBuf>,
    /// Print the JSON policy input --check CMD gives the policy; decide and run nothing
    #[arg(
        long,
        value_name = "CMD",
        conflicts_with_all = ["json", "shellcheck"],
        allow_hyphen_values = true
    )]
    input: Option<String>,
    /// The signal catalogue
    #[arg(long)]
    list_signals: bool,
    /// What a signal means
    #[arg(long, value_name = "ID", allow_hyphen_values = true)]
    explain: Option<String>,
    /// Run the test_* rules of a policy directory
    #[arg(long, value_name = "DIR", allow_hyphen_values = true)]
    policy_test: Option<PathBuf>,
    /// Approve another user's held command (approvers group only)
    #[arg(long, value_name = "ID", conflicts_with_all = CONTEXT, allow_hyphen_values = true)]
    approve: Option<String>,
    /// List pending approval requests
    #[arg(long, conflicts_with_all = CONTEXT)]
    approvals: bool,
    /// Shell completions for these options
    #[arg(long, value_name = "SHELL", value_parser = ["bash", "zsh", "fish"], conflicts_with_all = CONTEXT)]
    completions: Option<String>,
    /// Check a configuration and its policy directory as enforcement would load them; run nothing
    #[arg(long, conflicts_with_all = NOT_FOR_VALIDATE)]
    validate: bool,
    /// Print the effective configuration, each value with where it came from
    #[arg(long, conflicts_with_all = NOT_FOR_PRINT_CONFIG)]
    print_config: bool,
    /// The interactive session's check server (started by the session hook)
    #[arg(long, hide = true, conflicts_with_all = CONTEXT)]
    serve: bool,
    /// One check from the session hook when its server is unavailable
    #[arg(
        long,
        value_name = "CMD",
        hide = true,
        conflicts_with_all = CONTEXT,
        allow_hyphen_values = true
    )]
    hook_check: Option<String>,
}

/// How --policy-test runs and reports.
#[derive(Debug, Args)]
#[command(next_help_heading = "Tests (--policy-test)")]
struct Tests {
    /// One line per test with PASS, FAIL or TODO and the time it took
    #[arg(short = 'v', long, conflicts_with_all = NOT_POLICY_TEST)]
    verbose: bool,
    /// Only tests whose rule path contains TEXT (a substring, not a regex as for opa test)
    #[arg(
        long,
        value_name = "TEXT",
        conflicts_with_all = NOT_POLICY_TEST,
        allow_hyphen_values = true
    )]
    run: Option<String>,
}

/// Which configuration the pre-flight actions read.
#[derive(Debug, Args)]
#[command(next_help_heading = "Pre-flight (--validate, --print-config)")]
struct Preflight {
    /// The configuration file to check or print (default: the one enforcement reads)
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with_all = NOT_PREFLIGHT,
        allow_hyphen_values = true
    )]
    config: Option<PathBuf>,
}

/// What-if context and output form for --check and --check-file.
#[derive(Debug, Args)]
#[command(
    next_help_heading = "Context (--check, --check-file, --input; --policy-dir also --validate, --json also --print-config)"
)]
struct Context {
    /// Machine-readable output
    #[arg(long)]
    json: bool,
    /// Add ShellCheck's warnings when it is installed
    #[arg(long)]
    shellcheck: bool,
    /// Decide as for this target
    #[arg(long, value_name = "NAME", allow_hyphen_values = true)]
    target: Option<String>,
    /// Decide as for this environment (prod, staging, ...)
    #[arg(long, value_name = "ENV", allow_hyphen_values = true)]
    env: Option<String>,
    /// Add a host variable to the policy's target (repeatable)
    #[arg(long = "host-var", value_name = "K=V", value_parser = host_var, action = ArgAction::Append, allow_hyphen_values = true)]
    host_vars: Vec<(String, String)>,
    /// Decide with this policy directory (one's own: no trust check)
    #[arg(long, value_name = "DIR", allow_hyphen_values = true)]
    policy_dir: Option<PathBuf>,
    /// Trace each stage's decision on stderr (as GUARDED_SH_LOG=debug)
    #[arg(long)]
    debug: bool,
}

fn host_var(kv: &str) -> Result<(String, String), String> {
    kv.split_once('=')
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .ok_or_else(|| "expects K=V".to_string())
}

fn command() -> clap::Command {
    Cli::command()
}

/// Parses argv (`args[0]` is `argv[0]`) as guarded-sh's own command line.
pub fn parse(args: &[OsString]) -> Result<Invocation, UsageError> {
    let matches = match command().try_get_matches_from(args) {
        Ok(m) => m,
        Err(e) if e.kind() == ErrorKind::DisplayHelp => return Ok(Invocation::Help),
        Err(e) if e.kind() == ErrorKind::DisplayVersion => return Ok(Invocation::Version),
        Err(e) => return Err(usage_error(&e)),
    };
    let cli = Cli::from_arg_matches(&matches).map_err(|e| usage_error(&e))?;
    Ok(invocation(cli))
}

fn invocation(cli: Cli) -> Invocation {
    let Action {
        check,
        check_file,
        input,
        list_signals,
        explain,
        policy_test,
        approve,
        approvals,
        completions,
        serve,
        hook_check,
        validate,
        print_config,
    } = cli.action;
    let action = if let Some(cmd) = check {
        ReviewAction::Check(cmd)
    } else if let Some(path) = check_file {
        ReviewAction::CheckFile(path)
    } else if let Some(cmd) = input {
        ReviewAction::Input(cmd)
    } else if let Some(id) = explain {
        ReviewAction::Explain(id)
    } else if let Some(dir) = policy_test {
        ReviewAction::PolicyTest(PolicyTest {
            dir,
            verbose: cli.tests.verbose,
            run: cli.tests.run,
        })
    } else if let Some(id) = approve {
        return Invocation::Approve(id);
    } else if approvals {
        return Invocation::Approvals;
    } else if let Some(shell) = completions {
        return Invocation::Completions(match shell.as_str() {
            "zsh" => CompletionShell::Zsh,
            "fish" => CompletionShell::Fish,
            _ => CompletionShell::Bash,
        });
    } else if serve {
        return Invocation::Serve;
    } else if let Some(text) = hook_check {
        return Invocation::HookCheck(text);
    } else if validate {
        return Invocation::Validate(Validate {
            config: cli.preflight.config,
            policy_dir: cli.context.policy_dir,
        });
    } else if print_config {
        return Invocation::PrintConfig(PrintConfig {
            config: cli.preflight.config,
            json: cli.context.json,
        });
    } else {
        // The group is required: the one left is --list-signals.
        let _ = list_signals;
        ReviewAction::ListSignals
    };
    let c = cli.context;
    Invocation::Review(Review {
        action,
        json: c.json,
        target: c.target,
        env: c.env,
        host_vars: c.host_vars,
        policy_dir: c.policy_dir,
        shellcheck: c.shellcheck,
        debug: c.debug,
    })
}

/// clap's error as one line (its usage and tips dropped): the caller adds `(nothing was run)`.
fn usage_error(e: &clap::Error) -> UsageError {
    if e.kind() == ErrorKind::MissingRequiredArgument {
        return UsageError::Review(
            "choose one of --check, --check-file, --input, --list-signals, --explain, --policy-test, \
             --approve, --approvals, --validate, --print-config, --completions (see guarded-sh --help)"
                .into(),
        );
    }
    let rendered = e.render().to_string();
    let first = rendered.split("\n\n").next().unwrap_or_default();
    let line = first.split_whitespace().collect::<Vec<_>>().join(" ");
    UsageError::Review(line.strip_prefix("error: ").unwrap_or(&line).to_string())
}

/// The text `Help`, `Version` and `Completions` ask for; `None` for any other invocation.
pub fn document(invocation: &Invocation) -> Option<String> {
    Some(match invocation {
        Invocation::Help => format!("{}\n", command().render_help().to_string().trim_end()),
        Invocation::Version => version(),
        Invocation::Completions(shell) => completions(*shell),
        _ => return None,
    })
}

/// `guarded-sh VERSION (commit HASH, policy cache MAGIC, regorus VERSION)`: what a binary is
/// and which compiled-policy cache files it reads and writes. The commit is "unknown" for a
/// build outside a git checkout (build.rs).
pub fn version() -> String {
    let cache = String::from_utf8_lossy(crate::policy::cache::MAGIC);
    format!(
        "{NAME} {} (commit {}, policy cache {cache}, regorus {})\n",
        env!("CARGO_PKG_VERSION"),
        env!("GUARDED_SH_COMMIT"),
        env!("GUARDED_SH_REGORUS"),
    )
}

/// The completion script for `shell`, covering the review and admin options.
pub fn completions(shell: CompletionShell) -> String {
    use clap_complete::Shell;
    let shell = match shell {
        CompletionShell::Bash => Shell::Bash,
        CompletionShell::Zsh => Shell::Zsh,
        CompletionShell::Fish => Shell::Fish,
    };
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut command(), NAME, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// The long options this definition accepts, aliases included (for the dispatch test).
#[cfg(test)]
pub(crate) fn long_options() -> Vec<String> {
    let command = command();
    let mut longs: Vec<String> = command
        .get_arguments()
        .flat_map(|a| {
            a.get_long()
                .into_iter()
                .chain(a.get_all_aliases().unwrap_or_default())
                .map(|l| format!("--{l}"))
                .collect::<Vec<_>>()
        })
        .collect();
    longs.sort();
    longs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definition_is_consistent() {
        command().debug_assert();
    }
}
