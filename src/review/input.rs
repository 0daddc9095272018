//! `--input CMD`: the policy input `--check CMD` gives the policy, with the same what-if
//! context, pretty-printed JSON on stdout. It is the gate's own input (`gate::facts`), stopped
//! before the built-in floor and the policy: nothing is decided, loaded or run.
//! Exit statuses: 0 printed; 1 printed, but the target's host variables could not be read (the
//! policy would not be asked: denied); 2 usage error.

use crate::config::Config;
use crate::context::Context;
use crate::invocation::Review;
use crate::verdict::{EXIT_REVIEW_ALLOW, EXIT_REVIEW_DENY, EXIT_USAGE};

pub fn run(ctx: &Context, config: &Config, review: &Review, cmd: &str) -> i32 {
    let facts = super::facts(ctx, config, review, cmd);
    let Ok(text) = serde_json::to_string_pretty(&facts.input) else {
        eprintln!("guarded-sh: --input: the policy input does not serialise (nothing was run)");
        return EXIT_USAGE;
    };
    super::emit(&format!("{text}\n"));
    match facts.target_failure {
        None => EXIT_REVIEW_ALLOW,
        Some(failure) => {
            eprintln!(
                "guarded-sh: --input: {} [{}]: the policy would not be asked (denied)",
                failure.message, failure.reason_id
            );
            EXIT_REVIEW_DENY
        }
    }
}
