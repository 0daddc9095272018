//! The check server (`guarded-sh --serve`), started once per session by the hook as a bash
//! coprocess: reads NUL-terminated requests on stdin (a simple command, or a whole submitted
//! line before any of it runs), decides each with the session's trusted
//! environment, audits it, and answers one line on stdout. It makes itself non-dumpable so the
//! gated user can neither attach to it nor open its pipes through `/proc`.

use super::check;
use super::protocol::{format_reply, parse_request, Reply, Unit};
use crate::config::Config;
use crate::context::Context;
use crate::verdict::Surface;
use std::io::{BufRead, IsTerminal, Write};

/// Serves until stdin closes (the session ended): 0, or 1 when a pipe fails.
pub fn run(ctx: &Context, config: &Config) -> i32 {
    // Best effort: without it, same-uid processes could write forged replies into our stdout.
    let _ = nix::sys::prctl::set_dumpable(false);
    let mut ctx = ctx.clone();
    // The coprocess's stdin and stdout are pipes; its stderr is the session's terminal.
    ctx.stdin_tty = std::io::stderr().is_terminal();
    // The environment was handed to the hook by guarded-sh before any user code ran: trusted.
    let escape = crate::gate::escape_requested(&ctx, config);
    let parent_cwd = format!("/proc/{}/cwd", nix::unistd::getppid());
    let mut input = std::io::stdin().lock();
    let mut output = std::io::stdout().lock();
    let mut request = Vec::new();
    loop {
        request.clear();
        match input.read_until(0, &mut request) {
            Ok(0) => return 0,
            Ok(_) => {}
            Err(_) => return 1,
        }
        if request.last() == Some(&0) {
            request.pop();
        }
        let line = match parse_request(&request) {
            Some(req) => {
                // The session's working directory, for the policy input (cd does not reach us).
                if let Ok(cwd) = std::fs::read_link(&parent_cwd) {
                    ctx.cwd = cwd.display().to_string();
                }
                let decided = match req.unit {
                    Unit::Line => {
                        check::decide_line(&ctx, config, &req.text, Surface::Interactive, escape)
                    }
                    Unit::Command => check::decide(
                        &ctx,
                        config,
                        &req.text,
                        Surface::Interactive,
                        escape,
                        req.hook_refused,
                    ),
                };
                let reply = if decided.allowed {
                    Reply::Allow
                } else {
                    Reply::Deny(decided.reason)
                };
                format_reply(req.nonce, &reply)
            }
            // No nonce to answer to: the hook sees a mismatch and falls back to a fresh check.
            None => format_reply("0", &Reply::Deny("malformed request".into())),
        };
        if output
            .write_all(line.as_bytes())
            .and_then(|()| output.flush())
            .is_err()
        {
            return 1;
        }
    }
}
