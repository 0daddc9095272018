//! The review surface: `--check`, `--check-file`, `--input`, `--list-signals`, `--explain`,
//! `--policy-test`.
//! It analyses and decides, and never runs anything; ShellCheck and the advisory model only
//! ever add text next to a verdict already made.

mod check;
pub mod defaults;
mod input;
mod policy_test;
pub mod reference;
pub mod script;
pub mod shellcheck;
pub mod split;

use crate::config::Config;
use crate::context::Context;
use crate::gate::{self, Assessment, Facts, Overrides, Request};
use crate::invocation::{Review, ReviewAction};
use crate::policy::enforcement;
use crate::target::TargetOverrides;
use crate::verdict::{Surface, EXIT_USAGE};
use std::path::{Path, PathBuf};

/// Runs a review; `--check`, `--check-file` and `--input` first take their policy directory
/// (`--policy-dir`, else `HONEY_POLICY_DIR`, else `review.toml`'s; with none of them,
/// enforcement's configured one decides) and the rest of the what-if context the command line
/// left out from the user's review defaults (`defaults`).
pub fn run(ctx: &Context, config: &Config, review: &Review) -> i32 {
    if !matches!(
        review.action,
        ReviewAction::Check(_) | ReviewAction::CheckFile(_) | ReviewAction::Input(_)
    ) {
        return check::run(ctx, config, review);
    }
    let env_dir = ctx.env_policy_dir();
    let Some(path) = defaults::path() else {
        return check::run(
            ctx,
            config,
            &defaults::apply(review, &defaults::Defaults::default(), env_dir),
        );
    };
    match defaults::load(&path) {
        Ok(d) => check::run(ctx, config, &defaults::apply(review, &d, env_dir)),
        Err(e) => {
            eprintln!("guarded-sh: review defaults: {e} (nothing was run)");
            EXIT_USAGE
        }
    }
}

/// The policy a review used: its directory (`None` when no policy is configured) and the
/// digest of what was loaded from it ("" when nothing could be loaded). A command the built-in
/// floor decided never reached the policy; the directory is loaded here to name it all the
/// same (through the same loader, once per process).
pub(crate) fn policy_used(
    ctx: &Context,
    config: &Config,
    review: &Review,
    gated: &Assessment,
) -> (Option<PathBuf>, String) {
    let dir = enforcement::dir(ctx, config, true, review.policy_dir.as_deref());
    let digest = match &dir {
        _ if !gated.policy_digest.is_empty() => gated.policy_digest.clone(),
        Some(d) => enforcement::load(ctx, config, d, review.policy_dir.is_none())
            .map(|p| p.digest().to_string())
            .unwrap_or_default(),
        None => String::new(),
    };
    (dir, digest)
}

/// The one line on stderr that names the policy a text review used (stdout keeps the
/// reference's format line for line); nothing when no policy is configured.
pub(crate) fn policy_note(dir: Option<&Path>, digest: &str) -> Option<String> {
    let dir = dir?;
    Some(if digest.is_empty() {
        format!("guarded-sh: policy: {} (not loaded)", dir.display())
    } else {
        format!("guarded-sh: policy: {} (digest {digest})", dir.display())
    })
}

/// Decides `text` for review: a dry run, with the review's what-if context, never the escape.
pub(crate) fn decide(ctx: &Context, config: &Config, review: &Review, text: &str) -> Assessment {
    let overrides = overrides(review);
    gate::decide(ctx, config, &request(text, &overrides))
}

/// What [`decide`] decides on (`--input`): the same request, stopped before any decision.
pub(crate) fn facts(ctx: &Context, config: &Config, review: &Review, text: &str) -> Facts {
    let overrides = overrides(review);
    gate::facts(ctx, config, &request(text, &overrides))
}

/// The review's what-if context: a dry run with its target and policy directory.
fn overrides(review: &Review) -> Overrides {
    Overrides {
        dry_run: true,
        policy_dir: review.policy_dir.clone(),
        target: TargetOverrides {
            name: review.target.clone(),
            env: review.env.clone(),
            host_vars: review.host_vars.clone(),
        },
    }
}

fn request<'a>(text: &'a str, overrides: &'a Overrides) -> Request<'a> {
    Request {
        text,
        surface: Surface::Review,
        escape: false,
        overrides,
        stdin: None,
        session_state: None,
        started_by: None,
    }
}

/// Writes review output to stdout; a closed pipe (`| head`) is not an error worth a panic.
pub(crate) fn emit(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}
