//! Pre-flight, for operators before a deploy: `--validate` checks a configuration and the policy
//! directory it selects the way enforcement loads them (the same loaders), and reports every
//! problem as one line `FILE:LINE: message [reason_id]`; `--print-config` shows the effective
//! configuration with where each value came from. Both only read; neither runs anything.

mod config_check;
mod effective;
mod policy_check;
mod provenance;
mod writers;

use crate::config::{self, Located};
use crate::context::Context;
use crate::invocation::{PrintConfig, Validate};
use crate::verdict::{EXIT_REVIEW_ALLOW, EXIT_REVIEW_DENY};
use std::path::{Path, PathBuf};

/// One problem `--validate` found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// `FILE:LINE`, or `FILE` when no line is known, or none.
    pub place: Option<String>,
    pub message: String,
    pub reason_id: &'static str,
}

impl Problem {
    pub fn new(place: Option<String>, message: impl Into<String>, reason_id: &'static str) -> Self {
        Problem {
            place,
            message: message.into(),
            reason_id,
        }
    }

    /// `FILE:LINE: message [reason_id]`.
    pub fn line(&self) -> String {
        match &self.place {
            Some(place) => format!("{place}: {} [{}]", self.message, self.reason_id),
            None => format!("{} [{}]", self.message, self.reason_id),
        }
    }
}

/// `FILE` or `FILE:LINE`.
pub(crate) fn place(path: &Path, line: Option<usize>) -> String {
    match line {
        Some(line) => format!("{}:{line}", path.display()),
        None => path.display().to_string(),
    }
}

/// How the configuration file was chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FileOrigin {
    /// `--config FILE`.
    CommandLine,
    /// `GUARDED_SH_CONFIG` (root only, as enforcement honours it).
    Environment,
    /// `/etc/guarded-sh/config.toml`.
    DefaultPath,
}

/// The configuration file a pre-flight action reads: `--config`, else the one enforcement
/// would read for this caller ([`config::locate`]).
pub(crate) fn locate(
    ctx: &Context,
    flag: Option<&PathBuf>,
) -> Result<(Located, FileOrigin), Problem> {
    if let Some(path) = flag {
        let located = Located {
            path: path.clone(),
            required: true,
        };
        return Ok((located, FileOrigin::CommandLine));
    }
    let named = ctx.var(config::PATH_VARIABLE);
    let located = config::locate(named.map(|v| v.as_os_str()), ctx.uid)
        .map_err(|e| Problem::new(None, e.to_string(), e.reason_id()))?;
    let origin = if located.required {
        FileOrigin::Environment
    } else {
        FileOrigin::DefaultPath
    };
    Ok((located, origin))
}

/// `--validate`: every problem on stdout, a summary (and notes) on stderr; 0 when none.
pub fn validate(ctx: &Context, request: &Validate) -> i32 {
    let mut problems = Vec::new();
    let mut notes = Vec::new();
    match locate(ctx, request.config.as_ref()) {
        Err(problem) => problems.push(problem),
        Ok((located, _)) => {
            let checked = config_check::check(ctx, &located);
            problems.extend(checked.problems);
            if let Some(config) = &checked.config {
                let policy = policy_check::check(
                    ctx,
                    config,
                    &checked.lines,
                    &located.path,
                    request.policy_dir.as_deref(),
                );
                problems.extend(policy.problems);
                notes.extend(policy.notes);
            } else if let Some(dir) = &request.policy_dir {
                // The configuration does not load: the named directory is still checked.
                let policy = policy_check::check_dir(dir);
                problems.extend(policy.problems);
                notes.extend(policy.notes);
            }
        }
    }
    let mut out = String::new();
    for problem in &problems {
        out.push_str(&problem.line());
        out.push('\n');
    }
    crate::review::emit(&out);
    for note in &notes {
        crate::stderr::say(&format!("guarded-sh: validate: note: {note}"));
    }
    if problems.is_empty() {
        crate::stderr::say("guarded-sh: validate: no problem found");
        EXIT_REVIEW_ALLOW
    } else {
        let plural = if problems.len() == 1 { "" } else { "s" };
        crate::stderr::say(&format!(
            "guarded-sh: validate: {} problem{plural} found",
            problems.len()
        ));
        EXIT_REVIEW_DENY
    }
}

/// `--print-config`: the effective configuration on stdout; 1 (and the problems on stderr)
/// when the configuration does not load.
pub fn print_config(ctx: &Context, request: &PrintConfig) -> i32 {
    let (located, origin) = match locate(ctx, request.config.as_ref()) {
        Ok(found) => found,
        Err(problem) => {
            crate::stderr::say(&format!("guarded-sh: print-config: {}", problem.line()));
            return EXIT_REVIEW_DENY;
        }
    };
    let loaded = match config::load(&located, 0, &[]) {
        Ok(config) => config,
        Err(e) => {
            let problem = config_check::problem_of(&e, &located.path);
            crate::stderr::say(&format!("guarded-sh: print-config: {}", problem.line()));
            return EXIT_REVIEW_DENY;
        }
    };
    let text = config_check::read_text(&located.path);
    let lines = provenance::Lines::of(text.as_deref().unwrap_or_default());
    let view = effective::Effective::new(ctx, &loaded, &located, origin, &lines);
    let out = if request.json {
        view.json()
    } else {
        view.toml()
    };
    crate::review::emit(&out);
    EXIT_REVIEW_ALLOW
}
