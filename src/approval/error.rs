//! Typed errors of the approval flow, each with a stable reason id. None of them ever allows a
//! command: on the shell surface every one ends in a denial.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ApprovalError {
    #[error("second-person approval is not configured (set [approval] group)")]
    NotConfigured,
    #[error("approvers group '{0}' does not exist")]
    NoSuchGroup(String),
    #[error("you are not a member of the approvers group '{0}'")]
    NotApprover(String),
    #[error("'{0}' is not a request id (8 hexadecimal characters)")]
    BadId(String),
    #[error("no pending request {0}")]
    NoSuchRequest(String),
    #[error("request {id} expired at {at}")]
    RequestExpired { id: String, at: String },
    #[error("you cannot approve your own request {0}")]
    SelfApproval(String),
    #[error("request {0} was not written by the user it names")]
    ForgedRequest(String),
    #[error("approval {id} expired at {at}")]
    GrantExpired { id: String, at: String },
    #[error("approval {0} was granted by the requester itself")]
    GrantBySelf(String),
    #[error("approval {id} was granted by uid {uid}, who is not in the approvers group")]
    GrantByOutsider { id: String, uid: u32 },
    #[error("approval {0} does not match this command, user and host")]
    GrantMismatch(String),
    #[error("not confirmed")]
    NotConfirmed,
    #[error("{path}: {message}")]
    Io { path: PathBuf, message: String },
    #[error("{path}: malformed record: {message}")]
    Malformed { path: PathBuf, message: String },
    #[error("{path} is not trustworthy: {message}")]
    Untrusted { path: PathBuf, message: String },
}

impl ApprovalError {
    pub fn reason_id(&self) -> &'static str {
        match self {
            ApprovalError::NotConfigured => "approval.not_configured",
            ApprovalError::NoSuchGroup(_) => "approval.no_such_group",
            ApprovalError::NotApprover(_) => "approval.not_approver",
            ApprovalError::BadId(_) => "approval.bad_id",
            ApprovalError::NoSuchRequest(_) => "approval.no_such_request",
            ApprovalError::RequestExpired { .. } => "approval.request_expired",
            ApprovalError::SelfApproval(_) => "approval.self_approval",
            ApprovalError::ForgedRequest(_) => "approval.forged_request",
            ApprovalError::GrantExpired { .. } => "approval.expired",
            ApprovalError::GrantBySelf(_) => "approval.granted_by_self",
            ApprovalError::GrantByOutsider { .. } => "approval.granted_by_outsider",
            ApprovalError::GrantMismatch(_) => "approval.mismatch",
            ApprovalError::NotConfirmed => "approval.not_confirmed",
            ApprovalError::Io { .. } => "approval.io",
            ApprovalError::Malformed { .. } => "approval.malformed",
            ApprovalError::Untrusted { .. } => "approval.untrusted",
        }
    }

    pub(crate) fn io(path: &std::path::Path, e: impl std::fmt::Display) -> Self {
        ApprovalError::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
        }
    }
}
