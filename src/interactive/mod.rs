//! Interactive sessions (DESIGN §5): the login or terminal session execs bash with the
//! root-owned hook rc file (`session`), whose DEBUG trap asks a persistent check server
//! (`serve`, started by the hook as a coprocess, policies loaded once) about every simple
//! command, or a fresh process (`hook_check`) where the server cannot be used.

mod check;
mod protocol;
mod server;
mod session;

use crate::config::Config;
use crate::context::Context;
use crate::exec::ShellExec;
use crate::gate;
use crate::verdict::{Surface, Verdict, EXIT_DENIED};

/// A login or interactive session on a terminal: bash with the root-owned hook rc file, or a
/// refusal when the hook or the shell is missing or untrusted.
pub fn session(ctx: &Context, config: &Config) -> (Verdict, Option<ShellExec>) {
    session::start(ctx, config)
}

/// The check server: NUL-terminated requests on stdin, one reply line each on stdout.
pub fn serve(ctx: &Context, config: &Config) -> i32 {
    server::run(ctx, config)
}

/// One check from the hook when the server is unavailable: 0 allow, 126 deny (reason on stderr).
pub fn hook_check(ctx: &Context, config: &Config, text: &str) -> i32 {
    let mut ctx = ctx.clone();
    ctx.stdin_tty |= std::io::IsTerminal::is_terminal(&std::io::stderr());
    let escape = gate::escape_requested(&ctx, config);
    // A held command is settled here as on `-c`: a grant, the terminal, or a filed request.
    let own = gate::Approval::Resolve(crate::approval::Terminal::Own);
    let command = check::SimpleCommand {
        text,
        state: None,
        hook_refused: false,
        counted: false,
    };
    let decided = check::decide(&ctx, config, &command, Surface::Hook, escape, own);
    if decided.allowed {
        return 0;
    }
    eprintln!("guarded-sh: denied: {}", decided.reason);
    EXIT_DENIED
}
