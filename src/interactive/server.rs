//! The check server (`guarded-sh --serve`), started once per session by the hook as a bash
//! coprocess: reads NUL-terminated requests on stdin (a simple command, or a whole submitted
//! line before any of it runs, for which it first asks the hook for the session's state of what
//! the line names: `need`, answered by `state`), decides each with the session's trusted
//! environment, audits it, and answers one line on stdout. It makes itself non-dumpable so the
//! gated user can neither attach to it nor open its pipes through `/proc`, and deaf to the
//! terminal's keys (it shares bash's process group). A held verdict is settled as on `-c`: a
//! grant, a confirmation asked on the terminal (announced with `wait`, given up on Ctrl-C or
//! the session's next request), or a filed request; the line's own held commands are approved
//! as the line was.

use super::check;
use super::protocol::{format_reply, parse_request, Reply, Unit};
use crate::approval::Terminal;
use crate::config::Config;
use crate::context::Context;
use crate::gate::Approval;
use crate::verdict::Surface;
use std::io::{BufRead, IsTerminal, Write};
use std::os::fd::AsFd;

/// Serves until stdin closes (the session ended): 0, or 1 when a pipe fails.
pub fn run(ctx: &Context, config: &Config) -> i32 {
    // Best effort: without it, same-uid processes could write forged replies into our stdout.
    let _ = nix::sys::prctl::set_dumpable(false);
    // In bash's own process group: the session's Ctrl-C and Ctrl-Z reach us too, and must
    // neither end nor stop the server (the session would fall back to a fresh process, without
    // its state, for every later command).
    if crate::interrupt::deaf_to_the_keyboard().is_err() {
        return 1;
    }
    let mut ctx = ctx.clone();
    // The coprocess's stdin and stdout are pipes; its stderr is the session's terminal.
    ctx.stdin_tty = std::io::stderr().is_terminal();
    // The environment was handed to the hook by guarded-sh before any user code ran: trusted.
    let escape = crate::gate::escape_requested(&ctx, config);
    let parent_cwd = format!("/proc/{}/cwd", nix::unistd::getppid());
    let mut input = std::io::stdin().lock();
    let mut output = std::io::stdout().lock();
    // A request read while waiting for a line's state that was not that state: served next.
    let mut pending: Option<Vec<u8>> = None;
    // The last line approved (its command number) and how: its own held commands are approved
    // so, and only while the requests carry that number.
    let mut approved_line: Option<(Option<u64>, String)> = None;
    // bash's command numbers: the login files' (the first request's) and the last line's
    // judged. A command with a later number than both belongs to a line never judged.
    let mut numbers = Numbers::default();
    // The last line's text: a command that is a part of it is counted, not recorded.
    let mut current_line: Option<String> = None;
    // What was decided, for the login files' record (at the first line) and the end's.
    let mut tally = check::SessionTally::default();
    let mut login_files_recorded = false;
    let end = |ctx: &Context, tally: &check::SessionTally, status: i32| {
        check::record_tally(
            ctx,
            config,
            "session.ended",
            "interactive session ended",
            tally,
        );
        status
    };
    let stdin = std::io::stdin();
    loop {
        let request = match pending.take() {
            Some(request) => request,
            None => match read_request(&mut input) {
                Some(Ok(request)) => request,
                Some(Err(())) => return end(&ctx, &tally, 1),
                None => return end(&ctx, &tally, 0),
            },
        };
        let reply = match parse_request(&request) {
            Some(req) => {
                // The session's working directory, for the policy input (cd does not reach us).
                if let Ok(cwd) = std::fs::read_link(&parent_cwd) {
                    ctx.cwd = cwd.display().to_string();
                }
                // The reply lock is re-entrant: the announcement goes out on this thread.
                let announce = |seconds| {
                    let wait = format_reply(req.nonce, &Reply::Wait(seconds));
                    let _ = send(&mut std::io::stdout().lock(), &wait);
                };
                let terminal = Terminal::Session {
                    announce: &announce,
                    requests: stdin.as_fd(),
                };
                if req.unit == Unit::Line && !login_files_recorded {
                    login_files_recorded = true;
                    let what = "login files run";
                    check::record_tally(&ctx, config, "session.login_files", what, &tally);
                }
                // The session's values of what it names, asked of the hook first (for a
                // command only when it names variables).
                let needs = match req.unit {
                    Unit::Line => check::line_needs(config, &req.text),
                    Unit::Command => check::command_needs(&req.text),
                    Unit::State => Vec::new(),
                };
                let state = match ask_state(&mut input, &mut output, req.nonce, needs) {
                    StateAnswer::State(state) => state,
                    StateAnswer::Other(next) => {
                        pending = Some(next);
                        None
                    }
                    StateAnswer::Gone(status) => return end(&ctx, &tally, status),
                };
                numbers.seen(req.number);
                let decided = match req.unit {
                    Unit::Line => {
                        let decided = check::decide_line(
                            &ctx,
                            config,
                            &req.text,
                            state.as_deref(),
                            Surface::Interactive,
                            escape,
                            Approval::Resolve(terminal),
                        );
                        approved_line = decided.approved.clone().map(|how| (req.number, how));
                        numbers.judged(req.number);
                        current_line = super::protocol::line_text(&req.text).map(str::to_string);
                        decided
                    }
                    Unit::Command => {
                        // Only the server's own memory of the line counts, never the flag alone.
                        let approval = match &approved_line {
                            Some((line, how)) if req.of_approved_line && *line == req.number => {
                                Approval::OfTheLine(how)
                            }
                            _ => Approval::Resolve(terminal),
                        };
                        // Before the first line: the login files (collapsed into their count).
                        let counted = match &current_line {
                            None => !login_files_recorded,
                            Some(line) => line.contains(req.text.as_str()),
                        };
                        let command = check::SimpleCommand {
                            text: &req.text,
                            state: state.as_deref(),
                            hook_refused: req.hook_refused,
                            counted,
                        };
                        if numbers.unjudged(req.number) && !check::is_exit(&req.text) {
                            check::refuse_unjudged(&ctx, config, &req.text)
                        } else {
                            check::decide(
                                &ctx,
                                config,
                                &command,
                                Surface::Interactive,
                                escape,
                                approval,
                            )
                        }
                    }
                    // State only follows a `need` reply, read above.
                    Unit::State => check::Decided {
                        allowed: false,
                        reason: "session state sent out of turn".into(),
                        approved: None,
                        recorded: false,
                    },
                };
                tally.count(req.unit, &decided);
                let reply = match (decided.allowed, decided.approved) {
                    (true, None) => Reply::Allow,
                    (true, Some(_)) => Reply::Approved,
                    (false, _) => Reply::Deny(decided.reason),
                };
                format_reply(req.nonce, &reply)
            }
            // No nonce to answer to: the hook sees a mismatch and falls back to a fresh check.
            None => format_reply("0", &Reply::Deny("malformed request".into())),
        };
        if send(&mut output, &reply).is_err() {
            return end(&ctx, &tally, 1);
        }
    }
}

/// bash's command numbers the requests carried (`\#`, which the user cannot change): every
/// command of a line is asked about after the line itself, so a command whose number is later
/// than the last line judged (and than the login files', the first request's) belongs to a line
/// the hook never asked about.
#[derive(Default)]
struct Numbers {
    first: Option<u64>,
    judged: Option<u64>,
}

impl Numbers {
    fn seen(&mut self, number: Option<u64>) {
        if self.first.is_none() {
            self.first = number;
        }
    }

    fn judged(&mut self, number: Option<u64>) {
        self.judged = self.judged.max(number);
    }

    /// A command's number (unnumbered requests are not held to it).
    fn unjudged(&self, number: Option<u64>) -> bool {
        match number {
            Some(n) => n > self.first.max(self.judged).unwrap_or(n),
            None => false,
        }
    }
}

/// What came back when the server asked the hook for the session's state.
enum StateAnswer {
    /// The state (`None` when nothing was to be asked).
    State(Option<String>),
    /// Another request instead (the hook could not send the state): served next; the request
    /// asked about is decided without it.
    Other(Vec<u8>),
    /// The session is gone (the status to end with).
    Gone(i32),
}

/// Asks the hook for the session's state of `needs` (a `need` reply to request `nonce`) and
/// reads its `state` answer; nothing when `needs` is empty.
fn ask_state(
    input: &mut impl BufRead,
    output: &mut impl Write,
    nonce: &str,
    needs: Vec<String>,
) -> StateAnswer {
    if needs.is_empty() {
        return StateAnswer::State(None);
    }
    if send(output, &format_reply(nonce, &Reply::Need(needs))).is_err() {
        return StateAnswer::Gone(1);
    }
    match read_request(input) {
        Some(Ok(next)) => match parse_request(&next) {
            Some(s) if s.unit == Unit::State && s.nonce == nonce => {
                StateAnswer::State(Some(s.text))
            }
            _ => StateAnswer::Other(next),
        },
        Some(Err(())) => StateAnswer::Gone(1),
        None => StateAnswer::Gone(0),
    }
}

/// One NUL-terminated request (without its NUL); `None` at the end of input.
fn read_request(input: &mut impl BufRead) -> Option<Result<Vec<u8>, ()>> {
    let mut request = Vec::new();
    match input.read_until(0, &mut request) {
        Ok(0) => None,
        Ok(_) => {
            if request.last() == Some(&0) {
                request.pop();
            }
            Some(Ok(request))
        }
        Err(_) => Some(Err(())),
    }
}

fn send(output: &mut impl Write, line: &str) -> std::io::Result<()> {
    output.write_all(line.as_bytes())?;
    output.flush()
}
