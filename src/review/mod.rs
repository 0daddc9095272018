//! The review surface: `--check`, `--check-file`, `--input`, `--list-signals`, `--explain`,
//! `--policy-test`.
//! It analyses and decides, and never runs anything; ShellCheck and the advisory model only
//! ever add text next to a verdict already made.

mod check;
pub mod defaults;
mod input;
mod policy_test;
pub mod script;
pub mod shellcheck;
pub mod split;

use crate::config::Config;
use crate::context::Context;
use crate::gate::{self, Assessment, Facts, Overrides, Request};
use crate::invocation::{Review, ReviewAction};
use crate::target::TargetOverrides;
use crate::verdict::{Surface, EXIT_USAGE};

/// Runs a review; `--check`, `--check-file` and `--input` first take the user's review
/// defaults (`defaults`) for what the command line left out.
pub fn run(ctx: &Context, config: &Config, review: &Review) -> i32 {
    if !matches!(
        review.action,
        ReviewAction::Check(_) | ReviewAction::CheckFile(_) | ReviewAction::Input(_)
    ) {
        return check::run(ctx, config, review);
    }
    let Some(path) = defaults::path() else {
        return check::run(ctx, config, review);
    };
    match defaults::load(&path) {
        Ok(d) => {
            let env_dir = config.policy.enabled && ctx.env_policy_dir().is_some();
            check::run(ctx, config, &defaults::apply(review, &d, env_dir))
        }
        Err(e) => {
            eprintln!("guarded-sh: review defaults: {e} (nothing was run)");
            EXIT_USAGE
        }
    }
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
    }
}

/// Writes review output to stdout; a closed pipe (`| head`) is not an error worth a panic.
pub(crate) fn emit(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}
