//! Which policy directory decides, and loading it for enforcement: the directory, its files and
//! the cache directory must not be writable by the gated user; a process loads each directory
//! once (the session's check server decides many commands with one load).

use super::engine::{self, CacheMode, Policy};
use super::PolicyFailure;
use crate::config::{self, Config};
use crate::context::Context;
use crate::trust;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Where the policy directory [`dir`] picked came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DirOrigin {
    /// `--policy-dir` (review only).
    Review,
    /// `HONEY_POLICY_DIR` from the initial environment.
    Environment,
    /// `policy.dir` of the configuration.
    Config,
    /// `/etc/guarded-sh/policies`, which exists.
    Default,
}

/// The policy directory: `--policy-dir` (review only), `HONEY_POLICY_DIR` from the trusted
/// initial environment (for enforcement only where the configuration allows it; the review
/// surface runs nothing, so it always honours it), the configuration, then
/// `/etc/guarded-sh/policies` if it exists.
pub fn dir(
    ctx: &Context,
    config: &Config,
    review: bool,
    review_dir: Option<&Path>,
) -> Option<PathBuf> {
    dir_with_origin(ctx, config, review, review_dir).map(|(dir, _)| dir)
}

/// [`dir`], and where it came from (`--print-config` shows it).
pub fn dir_with_origin(
    ctx: &Context,
    config: &Config,
    review: bool,
    review_dir: Option<&Path>,
) -> Option<(PathBuf, DirOrigin)> {
    if let Some(dir) = review_dir {
        return Some((dir.to_path_buf(), DirOrigin::Review));
    }
    if !config.policy.enabled {
        return None;
    }
    if review || config.policy.allow_env_dir {
        if let Some(dir) = ctx.env_policy_dir() {
            return Some((dir, DirOrigin::Environment));
        }
    }
    if let Some(dir) = &config.policy.dir {
        return Some((dir.clone(), DirOrigin::Config));
    }
    let default = Path::new(config::DEFAULT_POLICY_DIR);
    default
        .is_dir()
        .then(|| (default.to_path_buf(), DirOrigin::Default))
}

/// Loads `dir`. `enforcing`: the trust checks apply and the compiled-policy cache is used; a
/// review of one's own directory (`--policy-dir`) has neither.
pub fn load(
    ctx: &Context,
    config: &Config,
    dir: &Path,
    enforcing: bool,
) -> Result<Rc<Policy>, PolicyFailure> {
    thread_local! {
        static LOADED: RefCell<Vec<(PathBuf, Rc<Policy>)>> = const { RefCell::new(Vec::new()) };
    }
    let loaded = LOADED.with(|l| {
        l.borrow()
            .iter()
            .find(|(d, _)| d == dir)
            .map(|(_, p)| Rc::clone(p))
    });
    if let Some(policy) = loaded {
        return Ok(policy);
    }
    let cache = if enforcing {
        let groups = if ctx.uid == 0 {
            Vec::new()
        } else {
            trust::groups()
        };
        let refuse = |e: trust::TrustError| PolicyFailure {
            reason_id: e.reason_id(),
            message: format!("policy error [{}]: {e}", e.reason_id()),
        };
        trust::check(dir, ctx.uid, &groups).map_err(refuse)?;
        trust::check_entries(dir, ctx.uid, &groups, &["rego", "json"]).map_err(refuse)?;
        match &config.policy.cache_dir {
            Some(d) if d.is_dir() => {
                trust::check(d, ctx.uid, &groups).map_err(refuse)?;
                CacheMode::Dir(d.clone())
            }
            _ => CacheMode::Off,
        }
    } else {
        CacheMode::Off
    };
    let policy = Rc::new(engine::load(dir, &cache).map_err(|e| PolicyFailure {
        reason_id: e.reason_id(),
        message: format!("policy error [{}]: {e}", e.reason_id()),
    })?);
    LOADED.with(|l| l.borrow_mut().push((dir.to_path_buf(), Rc::clone(&policy))));
    Ok(policy)
}
