//! Interactive sessions (placeholder with the agreed API; being written).

use crate::app::{Outcome, EXIT_DENIED};
use crate::config::Config;
use crate::context::Context;
use crate::invocation::ShellCall;

/// A login or interactive session on a terminal: exec bash with the root-owned hook rc file.
pub fn session(_ctx: &Context, _config: &Config, _call: &ShellCall) -> Outcome {
    eprintln!("guarded-sh: denied: interactive sessions are not available in this build");
    Outcome::Exit(EXIT_DENIED)
}

/// The check server: requests on stdin, one reply line each on stdout.
pub fn serve(_ctx: &Context, _config: &Config) -> i32 {
    EXIT_DENIED
}

/// One check from the hook when the server cannot be used: 0 allow, 126 deny.
pub fn hook_check(_ctx: &Context, _config: &Config, _text: &str) -> i32 {
    EXIT_DENIED
}
