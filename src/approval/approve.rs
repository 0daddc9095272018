//! The approver's commands: `--approve ID` (show the request, refuse self-approval, confirm,
//! write the grant, audit) and `--approvals` (list pending requests). Exit statuses: 0 approved
//! or listed, 1 refused or not confirmed, 2 not configured or unusable.

use super::error::ApprovalError;
use super::prompt::{ask_stdin, visible};
use super::store::{self, Grant, Layout};
use crate::audit::{self, Record};
use crate::config::Config;
use crate::context::Context;
use crate::trust;
use crate::verdict::{exit_status, Effect, Stage, Surface, Verdict, EXIT_USAGE};

/// The verdict an approver's command ends in, for the one exit-status table: approved or
/// listed, refused (`Stage::Approval`), or not configured or unusable (`Stage::Config`).
fn status(effect: Effect, stage: Stage) -> i32 {
    let verdict = Verdict::new(effect, stage, "approval", String::new());
    exit_status(Surface::Approve, &verdict).unwrap_or(EXIT_USAGE)
}

/// The approvers group: its gid and listed members.
pub struct Approvers {
    pub name: String,
    pub gid: u32,
    pub members: Vec<String>,
}

impl Approvers {
    pub fn lookup(name: &str) -> Result<Approvers, ApprovalError> {
        match nix::unistd::Group::from_name(name) {
            Ok(Some(g)) => Ok(Approvers {
                name: name.to_string(),
                gid: g.gid.as_raw(),
                members: g.mem,
            }),
            _ => Err(ApprovalError::NoSuchGroup(name.to_string())),
        }
    }

    /// Whether `uid` may approve: root, a listed member, or a user whose primary group it is.
    pub fn contains(&self, uid: u32) -> bool {
        if uid == 0 {
            return true;
        }
        match nix::unistd::User::from_uid(uid.into()) {
            Ok(Some(u)) => u.gid.as_raw() == self.gid || self.members.contains(&u.name),
            _ => false,
        }
    }
}

/// `--approve ID`.
pub fn approve(ctx: &Context, config: &Config, id: &str) -> i32 {
    match run_approve(ctx, config, id) {
        Ok(grant) => {
            println!(
                "approved request {} of {} on {}; valid for {} s",
                grant.request_id, grant.requester, grant.host, config.approval.ttl_seconds
            );
            status(Effect::Allow, Stage::Approval)
        }
        Err(e) => {
            eprintln!("guarded-sh: approval refused: {e} [{}]", e.reason_id());
            match e {
                ApprovalError::NotConfigured
                | ApprovalError::NoSuchGroup(_)
                | ApprovalError::Io { .. } => status(Effect::Deny, Stage::Config),
                _ => status(Effect::Deny, Stage::Approval),
            }
        }
    }
}

fn run_approve(ctx: &Context, config: &Config, id: &str) -> Result<Grant, ApprovalError> {
    let approvers = approvers(config)?;
    if !trust::groups().contains(&approvers.gid) {
        let e = ApprovalError::NotApprover(approvers.name);
        let why = format!("--approve {id}: {e} [{}]", e.reason_id());
        let _ = audit_approval(
            ctx,
            config,
            ("", ""),
            Verdict::deny(Stage::Approval, e.reason_id(), why),
        );
        return Err(e);
    }
    let layout = Layout::new(&config.approval.dir);
    let (request, owner) = store::read_request(&layout, id)?;
    let now = store::now();
    let refuse = |e: ApprovalError| {
        let _ = audit_approval(
            ctx,
            config,
            (&request.decision_id, &request.command),
            refused(&e),
        );
        e
    };
    if owner != request.requester_uid || request.id != id {
        return Err(refuse(ApprovalError::ForgedRequest(id.to_string())));
    }
    if ctx.uid == request.requester_uid {
        return Err(refuse(ApprovalError::SelfApproval(id.to_string())));
    }
    let expires = request.expires_at.min(
        request
            .requested_at
            .saturating_add(config.approval.ttl_seconds),
    );
    if now >= expires {
        return Err(refuse(ApprovalError::RequestExpired {
            id: id.to_string(),
            at: store::ago(now, expires),
        }));
    }
    println!("Request:   {}", request.id);
    println!(
        "Requester: {} (uid {})",
        visible(&request.requester),
        request.requester_uid
    );
    println!("Host:      {}", visible(&request.host));
    println!("Reason:    {}", visible(&request.reason));
    println!(
        "Requested: {} ({}, cwd {})",
        store::ago(now, request.requested_at),
        request.mode,
        visible(&request.cwd)
    );
    if !request.ssh_client.is_empty() {
        println!("SSH from:  {}", visible(&request.ssh_client));
    }
    println!("Command:");
    for line in request.command.lines() {
        println!("  {}", visible(line));
    }
    let answer = ask_stdin(&format!(
        "Approve this exact command for {} on {} for {} s? Type yes: ",
        request.requester, request.host, config.approval.ttl_seconds
    ));
    if answer.as_deref() != Some("yes") {
        return Err(refuse(ApprovalError::NotConfirmed));
    }
    let approved_at = store::now();
    let grant = Grant {
        version: 1,
        request_id: request.id.clone(),
        binding: store::binding(&request.command, request.requester_uid, &request.host),
        command: request.command.clone(),
        requester: request.requester.clone(),
        requester_uid: request.requester_uid,
        host: request.host.clone(),
        reason: request.reason.clone(),
        approver: ctx.user.clone(),
        approver_uid: ctx.uid,
        approved_at,
        expires_at: approved_at.saturating_add(config.approval.ttl_seconds),
    };
    let reason = format!(
        "approved request {} of {} (uid {}) on {} for {} s",
        request.id,
        request.requester,
        request.requester_uid,
        request.host,
        config.approval.ttl_seconds
    );
    // Audited before the grant exists, so no approval is ever usable unlogged.
    if !audit_approval(
        ctx,
        config,
        (&request.decision_id, &request.command),
        Verdict::new(Effect::Allow, Stage::Approval, "approval.granted", reason),
    ) {
        return Err(ApprovalError::io(
            &config.approval.dir,
            "the approval could not be audited",
        ));
    }
    store::write_grant(&layout, &grant)?;
    Ok(grant)
}

/// `--approvals`: pending requests, newest first.
pub fn list(ctx: &Context, config: &Config) -> i32 {
    let result = approvers(config).and_then(|a| {
        if !trust::groups().contains(&a.gid) && ctx.uid != 0 {
            return Err(ApprovalError::NotApprover(a.name));
        }
        store::list_requests(&Layout::new(&config.approval.dir), 1000)
    });
    match result {
        Ok(requests) => {
            let now = store::now();
            let pending: Vec<_> = requests
                .iter()
                .filter(|(r, _)| r.expires_at > now)
                .collect();
            if pending.is_empty() {
                println!("No pending approval requests.");
            }
            for (r, _) in pending {
                let first = r
                    .command
                    .lines()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or_default();
                println!(
                    "{}  {}  host={}  {}  {}",
                    r.id,
                    visible(&r.requester),
                    visible(&r.host),
                    store::ago(now, r.requested_at),
                    visible(first)
                );
            }
            status(Effect::Allow, Stage::Approval)
        }
        Err(e) => {
            eprintln!("guarded-sh: {e} [{}]", e.reason_id());
            status(Effect::Deny, Stage::Config)
        }
    }
}

fn approvers(config: &Config) -> Result<Approvers, ApprovalError> {
    let name = config
        .approval
        .group
        .as_deref()
        .ok_or(ApprovalError::NotConfigured)?;
    Approvers::lookup(name)
}

/// One `mode: approve` record; `held` is the held command's decision id and text. False when
/// the record was not kept as the configuration needs (`audit::Delivery::refusal`).
fn audit_approval(ctx: &Context, config: &Config, held: (&str, &str), verdict: Verdict) -> bool {
    let mut r = Record::new(
        ctx,
        config,
        Surface::Approve,
        held.1,
        verdict,
        std::time::Instant::now(),
    );
    if !held.0.is_empty() {
        r.decision_id = held.0.to_string();
    }
    let delivery = audit::record(&config.audit, &r);
    for e in &delivery.errors {
        eprintln!("guarded-sh: audit: {e}");
    }
    match delivery.refusal(config.audit.required, config.file_in_use()) {
        Some(refusal) => {
            eprintln!("guarded-sh: audit: {refusal}");
            false
        }
        None => true,
    }
}

/// The record's verdict for a refused approval.
fn refused(e: &ApprovalError) -> Verdict {
    Verdict::deny(
        Stage::Approval,
        e.reason_id(),
        format!("{e} [{}]", e.reason_id()),
    )
}
