//! What a record says about where it came from (issue 20 item 2): the pid and ppid of the
//! guarded-sh process, its version, the target name (configured, else the host name), and the
//! session id: kept from `GUARDED_SH_SESSION` when the environment has a valid one (32 lowercase
//! hex digits), fresh and random otherwise, and fresh for an interactive session, which exports
//! it so that a `-c` run inside the session records the session's id.

use crate::setup::{OnTerminal, Setup};
use std::process::Stdio;
use std::time::Duration;

const VALID: &str = "0123456789abcdef0123456789abcdef";

/// Runs `-c true` with `GUARDED_SH_SESSION` set to `session` (or unset); returns the record
/// and the child's pid.
fn record(s: &Setup, session: Option<&str>) -> (serde_json::Value, u32) {
    let before = s.audit().len();
    let mut c = s.command(&["-c", "true"]);
    match session {
        Some(id) => c.env("GUARDED_SH_SESSION", id),
        None => c.env_remove("GUARDED_SH_SESSION"),
    };
    let mut child = c.stdin(Stdio::null()).spawn().unwrap();
    let pid = child.id();
    assert!(child.wait().unwrap().success());
    let records = s.audit();
    assert_eq!(records.len(), before + 1);
    (records[before].clone(), pid)
}

fn session_id(r: &serde_json::Value) -> String {
    r["session_id"].as_str().unwrap().to_string()
}

#[test]
fn a_record_names_its_process_version_and_target() {
    let s = Setup::with("[target]\nname = \"web-1\"\n");
    let (r, pid) = record(&s, None);
    assert_eq!(r["pid"], pid);
    assert_eq!(r["ppid"], std::process::id(), "the test spawned it");
    assert_eq!(r["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(r["target"], "web-1");
    assert_eq!(r["schema"], 1);
    // No target name configured: the host name.
    let s = Setup::with("");
    let (r, _) = record(&s, None);
    let host = nix::unistd::gethostname().unwrap();
    assert_eq!(r["target"], host.to_string_lossy().as_ref());
    assert_eq!(r["host"], r["target"]);
}

#[test]
fn session_ids_are_kept_when_valid_and_fresh_otherwise() {
    let s = Setup::with("");
    let (a, _) = record(&s, None);
    let (b, _) = record(&s, None);
    assert_ne!(session_id(&a), session_id(&b), "two fresh ids");
    let (kept, _) = record(&s, Some(VALID));
    assert_eq!(session_id(&kept), VALID);
    for malformed in [
        "0123456789ABCDEF0123456789ABCDEF",
        "0123456789abcdef",
        "0123456789abcdef0123456789abcdef0",
        "0123456789abcdef0123456789abcdeg",
        "",
        "$(rm -rf /)",
    ] {
        let (r, _) = record(&s, Some(malformed));
        let id = session_id(&r);
        assert_ne!(id, malformed);
        assert_ne!(id, VALID);
        assert!(
            id.len() == 32
                && id
                    .bytes()
                    .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()),
            "{malformed:?} gave {id}"
        );
    }
}

/// An interactive session (here with a stand-in hook that runs one `-c` through guarded-sh and
/// ends the session) has a fresh id, not the one its environment offered, and the `-c` inside it
/// records that id.
#[test]
fn a_command_inside_an_interactive_session_records_the_sessions_id() {
    let s =
        Setup::with("[interactive]\nhook = \"{dir}/hooks/hook.bash\"\n[policy]\nenabled = false\n");
    s.write(
        "hooks/hook.bash",
        "\"$GUARDED_SH_BIN\" -c 'echo inside'\necho \"SESSION=$GUARDED_SH_SESSION\"\nexit 0\n",
    );
    let mut c = s.command(&["-i"]);
    c.env("GUARDED_SH_SESSION", VALID);
    let mut session = OnTerminal::spawn(c, true);
    let (status, _) = session.wait(Duration::from_secs(30), None);
    let screen = session.screen();
    assert_eq!(status.code(), Some(0), "{screen}");
    assert!(screen.contains("inside"), "{screen}");
    let records = s.audit();
    let started = records
        .iter()
        .find(|r| r["mode"] == "interactive")
        .unwrap_or_else(|| panic!("no session record: {records:?}"));
    let inside = records
        .iter()
        .find(|r| r["command"] == "echo inside")
        .unwrap_or_else(|| panic!("no record of the -c: {records:?}"));
    let id = session_id(started);
    assert_ne!(id, VALID, "the session took the environment's id");
    assert_eq!(session_id(inside), id);
    assert!(screen.contains(&format!("SESSION={id}")), "{screen}");
}
