//! Approval of held commands (`decision := "require_approval"`): a typed confirmation on the
//! requester's terminal, or a second person's approval bound to the exact command text, the
//! requester's uid and the host, expiring after a TTL, stored where the requester cannot write.
//! This module only answers "approved or not"; `app` re-evaluates the policy with
//! `execution.approved = true` and audits, so a policy can still deny an approved command.
//!
//! Trust argument (see `docs/approvals.md`): `approved/` is `root:<group>` mode `3775`
//! (setgid, sticky, group-writable), so only approvers can create grants there and none can
//! replace another's; a grant counts only when its file's owner (attested by the kernel, not by
//! the record) is an approver other than the requester.

mod approve;
pub mod error;
pub mod prompt;
pub mod store;

pub use approve::{approve, list};
pub use error::ApprovalError;

pub use crate::config::ApprovalConfig;
use crate::context::Context;
use std::os::fd::{AsFd, BorrowedFd};
use std::time::Duration;
use store::{Check, Layout, Request};

/// Where the terminal confirmation is asked, and what gives it up.
#[derive(Clone, Copy)]
pub enum Terminal<'a> {
    /// By a process of its own (`-c`, a script, the hook's fresh check): a Ctrl-C at the
    /// prompt ends the process with a record (`interrupt::watch`).
    Own,
    /// By the session's check server, which outlives the prompt: `announce` is told how many
    /// seconds the prompt may take before it shows (the hook waits that long for the answer);
    /// a Ctrl-C, or the session's next request arriving on `requests`, gives it up (not
    /// confirmed) and the server goes on.
    Session {
        announce: &'a dyn Fn(u64),
        requests: BorrowedFd<'a>,
    },
}

/// A command the policy held, as the shell surface saw it.
pub struct Held<'a> {
    pub text: &'a str,
    pub reason: &'a str,
    /// The target name the policy saw (the host an approval is bound to).
    pub host: &'a str,
    pub decision_id: &'a str,
    /// `command`, `script`, `stdin`.
    pub mode: &'a str,
}

/// The answer for a held command.
#[derive(Debug, PartialEq, Eq)]
pub enum Resolution {
    /// Approved; `how` is for the audit record.
    Approved { how: String },
    /// Not approved; `message` follows `denied: ` on stderr and in the audit record.
    Denied { message: String },
}

/// Resolves a held command: an existing second-person approval, else a confirmation on the
/// terminal, else a filed request (its id in the message). Never prompts without a terminal.
pub fn resolve(
    ctx: &Context,
    config: &ApprovalConfig,
    held: &Held,
    terminal: Terminal,
) -> Resolution {
    let mut notes = Vec::new();
    let approvers = config.group.as_deref().map(approve::Approvers::lookup);
    if let Some(Ok(approvers)) = &approvers {
        let binding = store::binding(held.text, ctx.uid, held.host);
        let is_approver = |uid: u32| approvers.contains(uid);
        let check = Check {
            binding: &binding,
            command: held.text,
            requester_uid: ctx.uid,
            host: held.host,
            ttl_seconds: config.ttl_seconds,
            now: store::now(),
            approver: &is_approver,
        };
        let layout = Layout::new(&config.dir);
        match store::find_grant(&layout, &check) {
            Ok(Some(g)) => {
                return Resolution::Approved {
                    how: format!(
                        "approval {} by {} (uid {}), expires {}",
                        g.request_id,
                        g.approver,
                        g.approver_uid,
                        store::ago(
                            check.now,
                            g.expires_at.min(g.approved_at + config.ttl_seconds)
                        )
                    ),
                }
            }
            Ok(None) => notes.push("no approval for this exact command, user and host".to_string()),
            Err(e) => notes.push(format!("{e} [{}]", e.reason_id())),
        }
    }
    if config.tty_confirm && prompt::on_terminal(ctx.stdin_tty) {
        match confirm(held, config.prompt_timeout_seconds, terminal) {
            Ok(()) => {
                return Resolution::Approved {
                    how: format!(
                        "confirmed on the terminal by typing the host name {}",
                        held.host
                    ),
                }
            }
            Err(e) => notes.push(format!("{e} on the terminal")),
        }
    }
    match approvers {
        None => notes.push("no approvers are configured".into()),
        Some(Err(e)) => notes.push(e.to_string()),
        // The request id comes first: `(request 0a1b2c3d; …)`.
        Some(Ok(_)) => match file_request(ctx, config, held) {
            Ok(id) => {
                notes.insert(0, format!("request {id}"));
                notes.push(format!("an approver runs: guarded-sh --approve {id}"));
            }
            Err(e) => notes.push(format!("cannot file a request: {e} [{}]", e.reason_id())),
        },
    }
    Resolution::Denied {
        message: format!("approval required: {} ({})", held.reason, notes.join("; ")),
    }
}

fn confirm(held: &Held, seconds: u64, terminal: Terminal) -> Result<(), ApprovalError> {
    let interrupt = match terminal {
        Terminal::Own => {
            // The answer can take a while: a Ctrl-C at the prompt ends it at once, with a record.
            crate::interrupt::watch();
            None
        }
        Terminal::Session { announce, .. } => {
            announce(seconds);
            crate::interrupt::next_interrupt()
        }
    };
    let mut cancel: Vec<BorrowedFd> = interrupt.iter().map(AsFd::as_fd).collect();
    if let Terminal::Session { requests, .. } = terminal {
        cancel.push(requests);
    }
    let first = held
        .text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default();
    let lines = [
        format!(
            "guarded-sh: this command needs approval: {}",
            prompt::visible(held.reason)
        ),
        format!("  command: {}", prompt::visible(first)),
        format!("  host:    {}", held.host),
    ];
    let question = format!(
        "Type the host name ({}) to run it, anything else cancels: ",
        held.host
    );
    match prompt::ask_tty(&lines, &question, Duration::from_secs(seconds), &cancel) {
        Some(answer) if !held.host.is_empty() && answer == held.host => Ok(()),
        _ => Err(ApprovalError::NotConfirmed),
    }
}

fn file_request(
    ctx: &Context,
    config: &ApprovalConfig,
    held: &Held,
) -> Result<String, ApprovalError> {
    let now = store::now();
    let request = Request {
        version: 0,
        id: String::new(),
        command: held.text.to_string(),
        requester: ctx.user.clone(),
        requester_uid: ctx.uid,
        host: held.host.to_string(),
        reason: held.reason.to_string(),
        requested_at: now,
        expires_at: now.saturating_add(config.ttl_seconds),
        decision_id: held.decision_id.to_string(),
        mode: held.mode.to_string(),
        cwd: ctx.cwd.clone(),
        ssh_client: ctx.ssh_client.clone(),
    };
    store::file_request(&Layout::new(&config.dir), &request)
}
