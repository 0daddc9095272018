//! Diagnostics: with `GUARDED_SH_LOG` set in the initial environment (an `EnvFilter` directive
//! such as `debug` or `guarded_sh::gate=trace`), each stage's decision is traced on stderr.
//! Nothing is installed otherwise; a trace never changes a verdict and never touches stdout.

use crate::context::Context;

/// The variable that turns diagnostics on.
pub const LOG_VAR: &str = "GUARDED_SH_LOG";

/// Installs the stderr subscriber when `GUARDED_SH_LOG` asks for one (or `forced`, for a
/// `--debug` flag); an unusable directive is reported and ignored. A second call is a no-op.
pub fn init(ctx: &Context, forced: bool) {
    let directive = match ctx.var(LOG_VAR).filter(|v| !v.is_empty()) {
        Some(v) => v.to_string_lossy().into_owned(),
        None if forced => "debug".to_string(),
        None => return,
    };
    let filter = match tracing_subscriber::EnvFilter::try_new(&directive) {
        Ok(filter) => filter,
        Err(e) => {
            eprintln!("guarded-sh: {LOG_VAR}={directive:?} ignored: {e}");
            return;
        }
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .without_time()
        .try_init();
}
