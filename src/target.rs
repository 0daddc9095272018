//! The policy's `target`: the configuration, then the host-vars file, then the review surface's
//! overrides. The file must be trusted (not writable by the gated user), regular, bounded and a
//! JSON object; anything else is an error that the gate turns into a deny.

use crate::config::Config;
use crate::context::Context;
use crate::policy::input::Target;
use crate::policy::PolicyFailure;
use crate::trust;

/// Largest host-vars file read: it must be a regular file, read whole up to this bound (a FIFO
/// or device is refused unread, never waited on).
pub const MAX_HOST_VARS_BYTES: usize = 1 << 20;

/// What the review surface may override (`--target`, `--env`, `--host-var`); enforcement has none.
#[derive(Clone, Debug, Default)]
pub struct TargetOverrides {
    pub name: Option<String>,
    pub env: Option<String>,
    pub host_vars: Vec<(String, String)>,
}

/// The target with the host-vars file read; an untrusted, unreadable or ill-formed file is a
/// failure (the policy must not decide on partial facts).
pub fn resolve(
    ctx: &Context,
    config: &Config,
    overrides: &TargetOverrides,
) -> Result<Target, PolicyFailure> {
    let mut target = configured(ctx, config, overrides);
    let Some(file) = &config.target.host_vars_file else {
        return Ok(target);
    };
    let fail = |reason_id: &'static str, message: String| PolicyFailure { reason_id, message };
    trust::check(file, ctx.uid, &trust::groups())
        .map_err(|e| fail(e.reason_id(), format!("host vars [{}]: {e}", e.reason_id())))?;
    let text = crate::bounded_read::regular_file(file, MAX_HOST_VARS_BYTES).map_err(|e| {
        fail(
            "target.host_vars_unreadable",
            format!("host vars: cannot read {}: {e}", file.display()),
        )
    })?;
    match serde_json::from_slice(&text) {
        Ok(serde_json::Value::Object(map)) => target.host_vars.extend(map),
        Ok(_) => {
            return Err(fail(
                "target.host_vars_invalid",
                format!("host vars: {} is not a JSON object", file.display()),
            ))
        }
        Err(e) => {
            return Err(fail(
                "target.host_vars_invalid",
                format!("host vars: {}: {e}", file.display()),
            ))
        }
    }
    for (k, v) in &overrides.host_vars {
        target
            .host_vars
            .insert(k.clone(), serde_json::Value::String(v.clone()));
    }
    Ok(target)
}

/// The target from the configuration and the overrides alone (no host-vars file).
pub fn configured(ctx: &Context, config: &Config, overrides: &TargetOverrides) -> Target {
    let mut host_vars: serde_json::Map<String, serde_json::Value> = config
        .target
        .host_vars
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for (k, v) in &overrides.host_vars {
        host_vars.insert(k.clone(), serde_json::Value::String(v.clone()));
    }
    Target {
        name: overrides
            .name
            .clone()
            .or_else(|| config.target.name.clone())
            .unwrap_or_else(|| ctx.host.clone()),
        provider: config
            .target
            .provider
            .clone()
            .unwrap_or_else(|| if ctx.under_sshd { "ssh" } else { "local" }.into()),
        env: overrides
            .env
            .clone()
            .unwrap_or_else(|| config.target.env.clone()),
        host_vars,
    }
}
