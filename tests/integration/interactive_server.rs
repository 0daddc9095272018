//! The interactive check server and the hook's fallback check, through the real binary: the
//! wire protocol (nonce echoed, `guard` flag, malformed requests), `exit` always allowed,
//! critical commands and tampering denied, every decision audited with mode `interactive`.

use crate::setup::Setup;
use std::io::Write;
use std::process::Stdio;

/// The shared setup (policy cache in the temporary directory, which stays absent).
fn setup() -> Setup {
    Setup::with("[policy]\ncache_dir = \"{dir}/no-cache\"\n")
}

/// Runs `--serve` with `requests` on stdin: the reply lines and the audit file's text.
pub(crate) fn serve(requests: &[u8]) -> (Vec<String>, String) {
    let s = setup();
    let mut child = s
        .command(&["--serve"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(requests).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let replies = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let audit = std::fs::read_to_string(s.path("audit.jsonl")).unwrap_or_default();
    (replies, audit)
}

#[test]
fn server_protocol_and_decisions() {
    let (replies, audit) = serve(
        b"11 - exit 3\x0022 - rm -rf /\x0033 guard exit\x00bogus\x0044 - trap - DEBUG\x0055 - logout\x00",
    );
    assert_eq!(replies.len(), 6, "{replies:?}");
    assert_eq!(replies[0], "11 allow");
    assert!(
        replies[1].starts_with("22 deny command risk: "),
        "{}",
        replies[1]
    );
    assert!(
        replies[2].starts_with("33 deny session guard"),
        "{}",
        replies[2]
    );
    assert_eq!(replies[3], "0 deny malformed request");
    assert!(replies[4].starts_with("44 deny "), "{}", replies[4]);
    assert_eq!(replies[5], "55 allow");
    let records: Vec<serde_json::Value> = audit.lines().map(crate::setup::audit_record).collect();
    assert_eq!(records.len(), 5, "one record per decided request: {audit}");
    assert!(records.iter().all(|r| r["mode"] == "interactive"));
    assert_eq!(records[1]["command"], "rm -rf /");
    assert_eq!(records[1]["verdict"], "deny");
    assert_eq!(records[2]["stage"], "session");
}

#[test]
fn server_exits_when_the_session_closes() {
    let (replies, audit) = serve(b"");
    assert!(replies.is_empty() && audit.is_empty());
}

#[test]
fn hook_check_fallback() {
    let s = setup();
    let run = |text: &str| s.output(&["--hook-check", text]);
    let denied = run("rm -rf /");
    assert_eq!(denied.status.code(), Some(126));
    assert!(String::from_utf8_lossy(&denied.stderr).starts_with("guarded-sh: denied: "));
    assert_eq!(run("exit").status.code(), Some(0));
    let records = s.audit();
    assert!(
        !records.is_empty() && records.iter().all(|r| r["mode"] == "hook"),
        "{records:?}"
    );
}

/// Whole-line requests: the line from `fc -ln -0`'s output, gated whole; output that holds no
/// line, or a line naming the hook's own names, is refused; `exit` always runs.
#[test]
fn server_line_requests() {
    let (replies, audit) = serve(
        b"1 line \tls -l; echo ok\n\x002 line \tmkdir -p D; curl -s http://127.0.0.1:9/x | sh\n\x003 line \x004 line \tfor i in 1; do\necho $i\ndone\n\x005 line \techo a; echo $__gsh_line_no\n\x006 line \texit 3\n\x007 line no tab\n\x00",
    );
    assert_eq!(replies.len(), 7, "{replies:?}");
    assert_eq!(replies[0], "1 allow");
    assert!(
        replies[1].starts_with("2 deny command risk: "),
        "{}",
        replies[1]
    );
    assert!(
        replies[2].starts_with("3 deny session guard: the submitted line could not be read"),
        "{}",
        replies[2]
    );
    assert_eq!(replies[3], "4 allow");
    assert!(
        replies[4].starts_with("5 deny session guard"),
        "{}",
        replies[4]
    );
    assert_eq!(replies[5], "6 allow");
    assert!(
        replies[6].starts_with("7 deny session guard: the submitted line could not be read"),
        "{}",
        replies[6]
    );
    let records: Vec<serde_json::Value> = audit.lines().map(crate::setup::audit_record).collect();
    assert_eq!(records.len(), 7, "one record per line: {audit}");
    assert_eq!(
        records[1]["command"],
        "mkdir -p D; curl -s http://127.0.0.1:9/x | sh"
    );
    assert_eq!(records[3]["command"], "for i in 1; do\necho $i\ndone");
    assert!(records.iter().all(|r| r["mode"] == "interactive"));
}
