//! The approvals directory: requests (`requests/<id>.json`, written by the requester) and grants
//! (`approved/<key>.<slot>.json`, written by an approver). Files are opened without following
//! symlinks, bounded in size, and trusted by their kernel-attested owner, never by what they say
//! about themselves.

use super::error::ApprovalError;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// Largest record read, in bytes.
const MAX_RECORD: u64 = 256 * 1024;
/// Grant slots per binding: one per approver who approved the same command.
pub const SLOTS: usize = 8;
/// Record format version.
const VERSION: u32 = 1;

/// A held command waiting for a second person.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Request {
    pub version: u32,
    pub id: String,
    pub command: String,
    pub requester: String,
    pub requester_uid: u32,
    pub host: String,
    pub reason: String,
    pub requested_at: u64,
    pub expires_at: u64,
    pub decision_id: String,
    pub mode: String,
    pub cwd: String,
    pub ssh_client: String,
}

/// An approval: bound to the exact command text, the requester's uid and the host.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Grant {
    pub version: u32,
    pub request_id: String,
    pub binding: String,
    pub command: String,
    pub requester: String,
    pub requester_uid: u32,
    pub host: String,
    pub reason: String,
    pub approver: String,
    pub approver_uid: u32,
    pub approved_at: u64,
    pub expires_at: u64,
}

/// Where the two kinds of record live under the configured directory.
#[derive(Clone, Debug)]
pub struct Layout {
    pub requests: PathBuf,
    pub approved: PathBuf,
}

impl Layout {
    pub fn new(dir: &Path) -> Self {
        Layout {
            requests: dir.join("requests"),
            approved: dir.join("approved"),
        }
    }

    fn request(&self, id: &str) -> PathBuf {
        self.requests.join(format!("{id}.json"))
    }

    fn grant(&self, binding: &str, slot: usize) -> PathBuf {
        self.approved.join(format!("{}.{slot}.json", key(binding)))
    }
}

pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default()
}

/// The binding an approval is for: SHA-256 over the requester's uid, the host (length-prefixed)
/// and the exact command text, so no two different triples share an encoding.
pub fn binding(command: &str, uid: u32, host: &str) -> String {
    let mut h = Sha256::new();
    h.update(b"guarded-sh approval v1\0");
    h.update(format!("{uid}\0{}\0", host.len()).as_bytes());
    h.update(host.as_bytes());
    h.update(command.as_bytes());
    hex(&h.finalize())
}

fn key(binding: &str) -> &str {
    binding.get(..32).unwrap_or(binding)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// True for the ids this module hands out: 8 lowercase hexadecimal characters.
pub fn valid_id(id: &str) -> bool {
    id.len() == 8
        && id
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Files a request with a fresh short id; returns the id.
pub fn file_request(layout: &Layout, request: &Request) -> Result<String, ApprovalError> {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    for attempt in 0u32..8 {
        let mut h = Sha256::new();
        h.update(format!(
            "{nanos}\0{}\0{attempt}\0{}\0",
            std::process::id(),
            request.decision_id
        ));
        h.update(request.command.as_bytes());
        let id: String = hex(&h.finalize()).chars().take(8).collect();
        let record = Request {
            version: VERSION,
            id: id.clone(),
            ..request.clone()
        };
        match create(&layout.request(&id), &record, 0o640) {
            Ok(()) => return Ok(id),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(ApprovalError::io(&layout.requests, e)),
        }
    }
    Err(ApprovalError::io(&layout.requests, "no free request id"))
}

/// Reads request `id` and the uid that owns its file.
pub fn read_request(layout: &Layout, id: &str) -> Result<(Request, u32), ApprovalError> {
    if !valid_id(id) {
        return Err(ApprovalError::BadId(id.to_string()));
    }
    let path = layout.request(id);
    match read::<Request>(&path) {
        Ok(Some(found)) => Ok(found),
        Ok(None) => Err(ApprovalError::NoSuchRequest(id.to_string())),
        Err(e) => Err(e),
    }
}

/// Pending requests, newest first (at most `max`).
pub fn list_requests(layout: &Layout, max: usize) -> Result<Vec<(Request, u32)>, ApprovalError> {
    let entries =
        std::fs::read_dir(&layout.requests).map_err(|e| ApprovalError::io(&layout.requests, e))?;
    let mut out = Vec::new();
    for entry in entries.flatten().take(max) {
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(id) = name.strip_suffix(".json").filter(|id| valid_id(id)) {
            if let Ok(found) = read_request(layout, id) {
                out.push(found);
            }
        }
    }
    out.sort_by_key(|(r, _)| std::cmp::Reverse(r.requested_at));
    Ok(out)
}

/// Writes `grant` into the approver's own slot for its binding (replacing an earlier grant of
/// theirs), or the first free one.
pub fn write_grant(layout: &Layout, grant: &Grant) -> Result<PathBuf, ApprovalError> {
    let mut free = None;
    let mut own = None;
    for slot in 0..SLOTS {
        let path = layout.grant(&grant.binding, slot);
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.uid() == grant.approver_uid && m.is_file() => {
                own = Some(path);
                break;
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                free = free.or(Some(path));
            }
            Err(e) => return Err(ApprovalError::io(&path, e)),
        }
    }
    let target = own.or(free).ok_or_else(|| {
        ApprovalError::io(
            &layout.approved,
            "every approval slot for this command is taken; remove expired ones",
        )
    })?;
    let tmp = layout.approved.join(format!(
        ".{}.{}.tmp",
        key(&grant.binding),
        std::process::id()
    ));
    create(&tmp, grant, 0o644).map_err(|e| ApprovalError::io(&tmp, e))?;
    std::fs::rename(&tmp, &target).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        ApprovalError::io(&target, e)
    })?;
    Ok(target)
}

/// How a grant found on disk is judged.
pub struct Check<'a> {
    pub binding: &'a str,
    pub command: &'a str,
    pub requester_uid: u32,
    pub host: &'a str,
    pub ttl_seconds: u64,
    pub now: u64,
    /// Whether a uid may approve (a member of the approvers group, or root).
    pub approver: &'a dyn Fn(u32) -> bool,
}

/// The valid grant for this binding, if any. When grants exist but none is valid, the first
/// problem found (expired, granted by the requester, by an outsider, mismatched).
pub fn find_grant(layout: &Layout, check: &Check) -> Result<Option<Grant>, ApprovalError> {
    let mut problem = None;
    for slot in 0..SLOTS {
        let path = layout.grant(check.binding, slot);
        let verdict = match read::<Grant>(&path) {
            Ok(None) => continue,
            Ok(Some((grant, owner))) => judge(&grant, owner, check),
            Err(e) => Err(e),
        };
        match verdict {
            Ok(grant) => return Ok(Some(grant)),
            Err(e) => {
                problem.get_or_insert(e);
            }
        }
    }
    problem.map_or(Ok(None), Err)
}

fn judge(grant: &Grant, owner: u32, c: &Check) -> Result<Grant, ApprovalError> {
    let id = grant.request_id.clone();
    if grant.binding != c.binding
        || grant.command != c.command
        || grant.requester_uid != c.requester_uid
        || grant.host != c.host
        || grant.approver_uid != owner
        || grant.version != VERSION
    {
        return Err(ApprovalError::GrantMismatch(id));
    }
    if owner == c.requester_uid {
        return Err(ApprovalError::GrantBySelf(id));
    }
    if !(c.approver)(owner) {
        return Err(ApprovalError::GrantByOutsider { id, uid: owner });
    }
    // The requester's own TTL caps what a grant claims, and a grant from the future is void.
    let expires = grant
        .expires_at
        .min(grant.approved_at.saturating_add(c.ttl_seconds));
    if c.now >= expires || grant.approved_at > c.now.saturating_add(60) {
        return Err(ApprovalError::GrantExpired {
            id,
            at: ago(c.now, expires),
        });
    }
    Ok(grant.clone())
}

/// "12s ago" / "in 5m 3s", for messages.
pub fn ago(now: u64, then: u64) -> String {
    let span = |s: u64| {
        if s >= 60 {
            format!("{}m {}s", s / 60, s % 60)
        } else {
            format!("{s}s")
        }
    };
    if then <= now {
        format!("{} ago", span(now - then))
    } else {
        format!("in {}", span(then - now))
    }
}

/// Creates `path` exclusively (no symlink follow) with exactly `mode`, and writes `record`.
fn create<T: Serialize>(path: &Path, record: &T, mode: u32) -> std::io::Result<()> {
    let json = serde_json::to_vec_pretty(record).map_err(std::io::Error::other)?;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .custom_flags(nix::libc::O_NOFOLLOW)
        .open(path)?;
    // The umask may have narrowed the mode; the reader needs exactly this one.
    file.set_permissions(std::fs::Permissions::from_mode(mode))?;
    file.write_all(&json)?;
    file.write_all(b"\n")?;
    file.sync_all()
}

/// Reads a record without following symlinks; `None` when absent. Returns the owner's uid.
fn read<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Option<(T, u32)>, ApprovalError> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK)
        .open(path);
    let file = match file {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(ApprovalError::io(path, e)),
    };
    let meta = file.metadata().map_err(|e| ApprovalError::io(path, e))?;
    if !meta.is_file() {
        return Err(ApprovalError::Untrusted {
            path: path.into(),
            message: "not a regular file".into(),
        });
    }
    let mut text = String::new();
    file.take(MAX_RECORD)
        .read_to_string(&mut text)
        .map_err(|e| ApprovalError::io(path, e))?;
    let record = serde_json::from_str(&text).map_err(|e| ApprovalError::Malformed {
        path: path.into(),
        message: e.to_string(),
    })?;
    Ok(Some((record, meta.uid())))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn binding_separates_its_parts() {
        let b = binding("ls", 1000, "web");
        assert_eq!(b.len(), 64);
        assert_ne!(b, binding("ls ", 1000, "web"));
        assert_ne!(b, binding("ls", 1001, "web"));
        assert_ne!(b, binding("ls", 1000, "web2"));
        assert_ne!(binding("b", 1, "a\0"), binding("\0b", 1, "a"));
    }

    #[test]
    fn ids() {
        assert!(valid_id("0a1b2c3d"));
        for bad in ["", "0a1b2c3", "0A1B2C3D", "../../x", "0a1b2c3d0"] {
            assert!(!valid_id(bad), "{bad}");
        }
    }

    #[test]
    fn ago_table() {
        assert_eq!(ago(100, 88), "12s ago");
        assert_eq!(ago(100, 403), "in 5m 3s");
    }

    fn grant(now: u64) -> Grant {
        Grant {
            version: VERSION,
            request_id: "0a1b2c3d".into(),
            binding: binding("ls", 1000, "web"),
            command: "ls".into(),
            requester: "alice".into(),
            requester_uid: 1000,
            host: "web".into(),
            reason: "r".into(),
            approver: "bob".into(),
            approver_uid: 1001,
            approved_at: now,
            expires_at: now + 600,
        }
    }

    #[test]
    fn judge_table() {
        let b = binding("ls", 1000, "web");
        let any = |_: u32| true;
        let check = |now: u64| Check {
            binding: &b,
            command: "ls",
            requester_uid: 1000,
            host: "web",
            ttl_seconds: 300,
            now,
            approver: &any,
        };
        let g = grant(1_000);
        assert!(judge(&g, 1001, &check(1_100)).is_ok());
        assert_eq!(
            judge(&g, 1001, &check(1_300)).unwrap_err().reason_id(),
            "approval.expired",
            "the requester's TTL caps the grant's"
        );
        assert_eq!(
            judge(&g, 1002, &check(1_100)).unwrap_err().reason_id(),
            "approval.mismatch",
            "owner differs from the named approver"
        );
        let selfish = Grant {
            approver_uid: 1000,
            ..g.clone()
        };
        assert_eq!(
            judge(&selfish, 1000, &check(1_100))
                .unwrap_err()
                .reason_id(),
            "approval.granted_by_self"
        );
        let none = |_: u32| false;
        let outsider = Check {
            approver: &none,
            ..check(1_100)
        };
        assert_eq!(
            judge(&g, 1001, &outsider).unwrap_err().reason_id(),
            "approval.granted_by_outsider"
        );
        let other = Grant {
            command: "ls -la".into(),
            ..g
        };
        assert_eq!(
            judge(&other, 1001, &check(1_100)).unwrap_err().reason_id(),
            "approval.mismatch"
        );
    }

    #[test]
    fn files_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::new(dir.path());
        std::fs::create_dir_all(&layout.requests).unwrap();
        std::fs::create_dir_all(&layout.approved).unwrap();
        let r = Request {
            version: 0,
            id: String::new(),
            command: "ls".into(),
            requester: "alice".into(),
            requester_uid: 1000,
            host: "web".into(),
            reason: "r".into(),
            requested_at: 1,
            expires_at: 2,
            decision_id: "d".into(),
            mode: "command".into(),
            cwd: "/".into(),
            ssh_client: String::new(),
        };
        let id = file_request(&layout, &r).unwrap();
        let (back, _) = read_request(&layout, &id).unwrap();
        assert_eq!(
            (back.id.as_str(), back.command.as_str(), back.version),
            (id.as_str(), "ls", VERSION)
        );
        let uid = nix::unistd::getuid().as_raw();
        let g = Grant {
            approver_uid: uid,
            ..grant(now())
        };
        let first = write_grant(&layout, &g).unwrap();
        assert_eq!(
            write_grant(&layout, &g).unwrap(),
            first,
            "an approver replaces their own grant"
        );
        let ok = |_: u32| true;
        let check = Check {
            binding: &g.binding,
            command: "ls",
            requester_uid: 1000,
            host: "web",
            ttl_seconds: 300,
            now: now(),
            approver: &ok,
        };
        assert_eq!(
            find_grant(&layout, &check).unwrap().map(|g| g.request_id),
            Some("0a1b2c3d".into())
        );
        let link = layout.grant(&g.binding, 1);
        std::os::unix::fs::symlink(&first, &link).unwrap();
        std::fs::remove_file(&first).unwrap();
        assert_eq!(
            find_grant(&layout, &check).unwrap_err().reason_id(),
            "approval.io",
            "symlinks are not followed"
        );
    }
}
