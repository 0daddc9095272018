//! The review surface: `--check`, `--check-file`, `--list-signals`, `--explain`, `--policy-test`.
//! It analyses and decides, and never runs anything; ShellCheck and the advisory model only
//! ever add text next to a verdict already made.

mod check;
pub mod script;
pub mod shellcheck;
pub mod split;

pub use check::{run, text_report, Extras, EXIT_ALLOW, EXIT_DENY, EXIT_HELD, EXIT_USAGE};

use crate::config::Config;
use crate::context::Context;
use crate::gate::{self, Assessment, Overrides, Request};
use crate::invocation::Review;
use crate::target::TargetOverrides;
use crate::verdict::Surface;

/// Decides `text` for review: a dry run, with the review's what-if context, never the escape.
pub(crate) fn decide(ctx: &Context, config: &Config, review: &Review, text: &str) -> Assessment {
    let overrides = Overrides {
        dry_run: true,
        policy_dir: review.policy_dir.clone(),
        target: TargetOverrides {
            name: review.target.clone(),
            env: review.env.clone(),
            host_vars: review.host_vars.clone(),
        },
    };
    let request = Request {
        text,
        surface: Surface::Review,
        escape: false,
        overrides: &overrides,
        stdin: None,
    };
    gate::decide(ctx, config, &request)
}

/// Writes review output to stdout; a closed pipe (`| head`) is not an error worth a panic.
pub(crate) fn emit(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}
