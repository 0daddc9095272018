//! Held commands end to end, through the built binary: second-person approval by another Unix
//! user (requester and approvers are throwaway users run via `runuser`; these tests need root
//! and say so when skipped), expiry, a changed command, a different host, self-approval (at the
//! command and on disk), a policy that still denies an approved command, audit records, and no
//! prompt without a terminal. The terminal confirmation is in `approval_tty.rs`.
//!
//! The users and the group stay on the host, so `cargo test` does not run these (they are
//! ignored); `tests/run.sh`, which modifies the host, runs them as root with
//! `cargo test --test integration approval_flow:: -- --ignored`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_guarded-sh");
const GROUP: &str = "gsapr-approvers";
/// The requester; not an approver.
const ALICE: &str = "gsapr-alice";
/// An approver.
const BOB: &str = "gsapr-bob";
/// An approver who also requests (for self-approval).
const CAROL: &str = "gsapr-carol";
/// Neither.
const DAVE: &str = "gsapr-dave";

const POLICY: &str = r#"package honey
import rego.v1

default allow := true
default decision := "allow"

decision := "require_approval" if {
	input.command.max_severity == "high"
	not input.execution.approved
}

allow := false if {
	input.execution.approved
	contains(input.command.raw, "still-denied")
}

deny_reason := "still denied after approval" if {
	input.execution.approved
	contains(input.command.raw, "still-denied")
}
"#;

fn root() -> bool {
    if nix::unistd::getuid().is_root() {
        return true;
    }
    eprintln!("SKIPPED: approval_flow needs root (useradd, runuser); CI runs it as root");
    false
}

fn sh(args: &[&str]) -> Output {
    Command::new(args[0]).args(&args[1..]).output().unwrap()
}

/// Creates the group and users once per test binary (idempotent across runs).
fn users() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        if !sh(&["getent", "group", GROUP]).status.success() {
            assert!(sh(&["groupadd", GROUP]).status.success(), "groupadd");
        }
        for (user, approver) in [(ALICE, false), (BOB, true), (CAROL, true), (DAVE, false)] {
            if !sh(&["id", user]).status.success() {
                let mut args = vec!["useradd", "-M", "-N", "-s", "/bin/sh"];
                if approver {
                    args.extend(["-G", GROUP]);
                }
                args.push(user);
                assert!(sh(&args).status.success(), "useradd {user}");
            }
        }
    });
}

fn uid(user: &str) -> u32 {
    nix::unistd::User::from_name(user)
        .unwrap()
        .unwrap()
        .uid
        .as_raw()
}

fn gid(group: &str) -> u32 {
    nix::unistd::Group::from_name(group)
        .unwrap()
        .unwrap()
        .gid
        .as_raw()
}

/// A root-owned setup: configuration, policy, approvals directory with the documented modes,
/// and a shared audit file.
struct Setup {
    dir: tempfile::TempDir,
}

impl Setup {
    fn new(ttl: u64) -> Self {
        users();
        let dir = tempfile::Builder::new()
            .prefix("gs-approval")
            .tempdir_in("/tmp")
            .unwrap();
        let p = dir.path();
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::create_dir(p.join("policy")).unwrap();
        std::fs::write(p.join("policy/approval.rego"), POLICY).unwrap();
        let approvals = p.join("approvals");
        std::fs::create_dir(&approvals).unwrap();
        for (sub, mode) in [("requests", 0o3773), ("approved", 0o3775)] {
            let d = approvals.join(sub);
            std::fs::create_dir(&d).unwrap();
            nix::unistd::chown(&d, Some(0.into()), Some(gid(GROUP).into())).unwrap();
            std::fs::set_permissions(&d, std::fs::Permissions::from_mode(mode)).unwrap();
        }
        std::fs::write(p.join("audit.jsonl"), "").unwrap();
        std::fs::set_permissions(
            p.join("audit.jsonl"),
            std::fs::Permissions::from_mode(0o666),
        )
        .unwrap();
        std::fs::create_dir(p.join("scratch")).unwrap();
        std::fs::set_permissions(p.join("scratch"), std::fs::Permissions::from_mode(0o777))
            .unwrap();
        let s = Setup { dir };
        s.config("config.toml", "web-1", ttl);
        s
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn config(&self, name: &str, target: &str, ttl: u64) {
        let p = self.dir.path();
        let text = format!(
            "[audit]\nsyslog = false\nfile = \"{audit}\"\n[policy]\ndir = \"{policy}\"\nallow_env_dir = false\ncache_dir = \"{cache}\"\n\
             [target]\nname = \"{target}\"\n[approval]\ngroup = \"{GROUP}\"\nttl_seconds = {ttl}\ndir = \"{approvals}\"\n",
            audit = p.join("audit.jsonl").display(),
            policy = p.join("policy").display(),
            cache = p.join("no-policy-cache").display(),
            approvals = p.join("approvals").display(),
        );
        std::fs::write(p.join(name), text).unwrap();
    }

    /// A high-risk but harmless command (the policy holds it) that says when it ran.
    fn held_command(&self, tag: &str) -> String {
        format!(
            "rm -rf {}/{tag} && echo ran-{tag}",
            self.path("scratch").display()
        )
    }

    /// Runs the binary as `user` with `args`, stdin from `input` (never a terminal), and the
    /// configuration file `config` at the default path of a private `/etc` overlay
    /// (`GUARDED_SH_CONFIG` is honoured for root only).
    fn run_as(&self, user: &str, config: &str, args: &[&str], input: &str) -> Output {
        let argv: Vec<&str> = ["PATH=/usr/bin:/bin", BIN]
            .into_iter()
            .chain(args.iter().copied())
            .collect();
        self.env_as(user, config, &argv, input)
    }

    /// A session of the real hook (`bash -i` with `share/interactive.bash`, stdin a pipe, as
    /// the interactive-line tests run it) as `user`, the built binary its check server.
    fn session_as(&self, user: &str, input: &str) -> Output {
        let hook = format!("{}/share/interactive.bash", crate::setup::REPO);
        let bin = format!("GUARDED_SH_BIN={BIN}");
        let argv = [
            "PATH=/usr/bin:/bin",
            "HOME=/",
            "HISTFILE=/dev/null",
            "TERM=dumb",
            &bin,
            "bash",
            "--noprofile",
            "--rcfile",
            &hook,
            "-i",
        ];
        self.env_as(user, "config.toml", &argv, input)
    }

    /// Runs `env -i ARGV` as `user`, stdin from `input` (never a terminal), with the
    /// configuration file `config` at the default path of a private `/etc` overlay
    /// (`GUARDED_SH_CONFIG` is honoured for root only).
    fn env_as(&self, user: &str, config: &str, argv: &[&str], input: &str) -> Output {
        let args = argv;
        let upper = self.path("etc-upper");
        std::fs::create_dir_all(upper.join("guarded-sh")).unwrap();
        for dir in [&upper, &upper.join("guarded-sh")] {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        std::fs::copy(self.path(config), upper.join("guarded-sh/config.toml")).unwrap();
        let argv: Vec<std::ffi::OsString> = ["runuser", "-u", user, "--", "env", "-i"]
            .into_iter()
            .chain(args.iter().copied())
            .map(Into::into)
            .collect();
        let mut c = crate::setup::in_etc_overlay(&upper, &argv);
        c.current_dir("/")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(input.as_bytes()).unwrap();
        drop(stdin);
        let started = Instant::now();
        loop {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "{args:?} as {user} hung (a prompt without a terminal?)"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        child.wait_with_output().unwrap()
    }

    /// The requester runs `cmd` on the shell surface.
    fn request(&self, user: &str, config: &str, cmd: &str) -> Output {
        self.run_as(user, config, &["-c", cmd], "")
    }

    fn approve(&self, user: &str, id: &str, answer: &str) -> Output {
        self.run_as(user, "config.toml", &["--approve", id], answer)
    }

    fn audit(&self) -> Vec<serde_json::Value> {
        crate::setup::audit_records(&self.path("audit.jsonl"))
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The request id from a denial line (`… request 0a1b2c3d; …`).
fn request_id(stderr: &str) -> String {
    let at = stderr
        .find("(request ")
        .unwrap_or_else(|| panic!("no request id in: {stderr}"));
    stderr[at + 9..at + 17].to_string()
}

fn held(out: &Output) -> String {
    let err = text(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(126),
        "stdout {} stderr {err}",
        text(&out.stdout)
    );
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    assert_eq!(err.lines().count(), 1, "one denial line: {err}");
    assert!(
        err.starts_with("guarded-sh: denied: approval required: approval required by policy ("),
        "{err}"
    );
    err
}

#[test]
#[ignore = "root-only: creates users and a group on the host; tests/run.sh runs it"]
fn second_person_approves_and_the_requester_runs_it() {
    if !root() {
        return;
    }
    let s = Setup::new(900);
    let cmd = s.held_command("a");
    let first = s.request(ALICE, "config.toml", &cmd);
    let err = held(&first);
    assert!(
        err.contains("no approval for this exact command, user and host"),
        "{err}"
    );
    let id = request_id(&err);
    assert!(err.contains(&format!("guarded-sh --approve {id}")), "{err}");

    let shown = s.approve(BOB, &id, "yes\n");
    let out = text(&shown.stdout);
    assert_eq!(shown.status.code(), Some(0), "{out}{}", text(&shown.stderr));
    for needle in [
        format!("Requester: {ALICE}"),
        "Host:      web-1".into(),
        "Reason:    approval required by policy".into(),
        cmd.clone(),
    ] {
        assert!(out.contains(&needle), "approver must see {needle:?}: {out}");
    }

    let again = s.request(ALICE, "config.toml", &cmd);
    assert_eq!(
        text(&again.stdout),
        "ran-a\n",
        "stderr: {}",
        text(&again.stderr)
    );
    assert_eq!(again.status.code(), Some(0));

    let audit = s.audit();
    let verdicts: Vec<(&str, &str)> = audit
        .iter()
        .map(|r| (r["mode"].as_str().unwrap(), r["verdict"].as_str().unwrap()))
        .collect();
    assert_eq!(
        verdicts,
        [
            ("command", "require_approval"),
            ("command", "deny"),
            ("approve", "approved"),
            ("command", "require_approval"),
            ("command", "approved"),
        ],
        "{audit:#?}"
    );
    assert!(audit[1]["reason"].as_str().unwrap().contains(&id));
    assert_eq!(audit[2]["user"], BOB);
    assert!(
        audit[4]["reason"]
            .as_str()
            .unwrap()
            .contains(&format!("approval {id} by {BOB}")),
        "{:?}",
        audit[4]
    );
    assert_eq!(audit[3]["decision_id"], audit[4]["decision_id"]);
}

/// Issue 15 item 5: a held line in a session is held as on `-c`. It is refused whole, a request
/// is filed whose id `--approve` accepts (it was the decision id, which `--approve` rejected),
/// and the grant for the exact line is honoured in a later session, where the line's own held
/// command is approved with it.
#[test]
#[ignore = "root-only: creates users and a group on the host; tests/run.sh runs it"]
fn a_held_session_line_files_a_request_and_its_grant_runs_it() {
    if !root() {
        return;
    }
    let s = Setup::new(900);
    let line = s.held_command("s");
    let first = s.session_as(ALICE, &format!("{line}\nexit 0\n"));
    let err = text(&first.stderr);
    assert_eq!(first.status.code(), Some(0), "{err}");
    assert!(!text(&first.stdout).contains("ran-s"), "{err}");
    let denial = err
        .lines()
        .find(|l| l.starts_with("guarded-sh: denied:"))
        .unwrap_or_else(|| panic!("no denial: {err}"));
    assert!(
        denial.starts_with(
            "guarded-sh: denied: approval required: approval required by policy (request "
        ),
        "{denial}"
    );
    let id = request_id(denial);
    assert!(
        denial.contains(&format!("guarded-sh --approve {id}")),
        "{denial}"
    );

    let shown = s.approve(BOB, &id, "yes\n");
    let out = text(&shown.stdout);
    assert_eq!(shown.status.code(), Some(0), "{out}{}", text(&shown.stderr));
    assert!(out.contains(&line), "the approver sees the line: {out}");

    let again = s.session_as(ALICE, &format!("{line}\nexit 0\n"));
    assert!(
        text(&again.stdout).contains("ran-s"),
        "stderr: {}",
        text(&again.stderr)
    );
    assert!(
        !text(&again.stderr).contains("denied"),
        "{}",
        text(&again.stderr)
    );
    let audit = s.audit();
    let of_line: Vec<(&str, &str)> = audit
        .iter()
        .filter(|r| r["command"] == line.as_str())
        .map(|r| (r["mode"].as_str().unwrap(), r["verdict"].as_str().unwrap()))
        .collect();
    assert_eq!(
        of_line,
        [
            ("interactive", "require_approval"),
            ("interactive", "deny"),
            ("approve", "approved"),
            ("interactive", "require_approval"),
            ("interactive", "approved"),
        ],
        "{audit:#?}"
    );
    let granted = audit
        .iter()
        .rfind(|r| r["command"] == line.as_str())
        .unwrap();
    assert!(
        granted["reason"]
            .as_str()
            .unwrap()
            .contains(&format!("approval {id} by {BOB}")),
        "{granted}"
    );
    let rm = line.split(" && ").next().unwrap();
    let inner = audit.iter().rfind(|r| r["command"] == rm).unwrap();
    assert_eq!(inner["verdict"], "approved", "{inner}");
}

#[test]
#[ignore = "root-only: creates users and a group on the host; tests/run.sh runs it"]
fn approvals_are_bound_to_command_host_and_requester() {
    if !root() {
        return;
    }
    let s = Setup::new(900);
    s.config("other-host.toml", "web-2", 900);
    let cmd = s.held_command("b");
    let id = request_id(&held(&s.request(ALICE, "config.toml", &cmd)));
    assert_eq!(s.approve(BOB, &id, "yes\n").status.code(), Some(0));

    // A changed command (one more space), another host, another user: all still held.
    let cases: [(&str, &str, String); 3] = [
        (ALICE, "config.toml", format!("{cmd} ")),
        (ALICE, "other-host.toml", cmd.clone()),
        (DAVE, "config.toml", cmd.clone()),
    ];
    for (user, config, command) in &cases {
        let err = held(&s.request(user, config, command));
        assert!(
            err.contains("no approval for this exact command, user and host"),
            "{user} {config}: {err}"
        );
    }
    // The original still passes.
    assert_eq!(
        text(&s.request(ALICE, "config.toml", &cmd).stdout),
        "ran-b\n"
    );
}

#[test]
#[ignore = "root-only: creates users and a group on the host; tests/run.sh runs it"]
fn approvals_expire() {
    if !root() {
        return;
    }
    let s = Setup::new(2);
    let cmd = s.held_command("c");
    let id = request_id(&held(&s.request(ALICE, "config.toml", &cmd)));
    assert_eq!(s.approve(BOB, &id, "yes\n").status.code(), Some(0));
    assert_eq!(
        text(&s.request(ALICE, "config.toml", &cmd).stdout),
        "ran-c\n"
    );
    std::thread::sleep(Duration::from_millis(2_200));
    let err = held(&s.request(ALICE, "config.toml", &cmd));
    assert!(
        err.contains(&format!("approval {id} expired")) && err.contains("[approval.expired]"),
        "{err}"
    );
    // The request has expired too: it can no longer be approved.
    let late = s.approve(BOB, &id, "yes\n");
    assert_eq!(late.status.code(), Some(1));
    assert!(
        text(&late.stderr).contains("[approval.request_expired]"),
        "{}",
        text(&late.stderr)
    );
}

#[test]
#[ignore = "root-only: creates users and a group on the host; tests/run.sh runs it"]
fn self_approval_is_refused_at_the_command_and_on_disk() {
    if !root() {
        return;
    }
    let s = Setup::new(900);
    let cmd = s.held_command("d");
    let id = request_id(&held(&s.request(CAROL, "config.toml", &cmd)));
    let own = s.approve(CAROL, &id, "yes\n");
    assert_eq!(own.status.code(), Some(1));
    assert!(
        text(&own.stderr).contains(&format!("you cannot approve your own request {id}")),
        "{}",
        text(&own.stderr)
    );
    assert!(
        text(&own.stdout).is_empty(),
        "nothing is shown before the refusal"
    );

    // Carol is an approver and can write into approved/: a grant she writes for herself is
    // recognised by its file owner and refused.
    let binding = guarded_sh::approval::store::binding(&cmd, uid(CAROL), "web-1");
    let now = guarded_sh::approval::store::now();
    let grant = serde_json::json!({
        "version": 1, "request_id": id, "binding": binding, "command": cmd, "requester": CAROL,
        "requester_uid": uid(CAROL), "host": "web-1", "reason": "x", "approver": CAROL,
        "approver_uid": uid(CAROL), "approved_at": now, "expires_at": now + 600,
    });
    let forged = s.path(&format!("approvals/approved/{}.0.json", &binding[..32]));
    std::fs::write(&forged, grant.to_string()).unwrap();
    nix::unistd::chown(&forged, Some(uid(CAROL).into()), None).unwrap();
    let err = held(&s.request(CAROL, "config.toml", &cmd));
    assert!(err.contains("[approval.granted_by_self]"), "{err}");

    // Non-members cannot approve at all.
    let id2 = request_id(&held(&s.request(
        ALICE,
        "config.toml",
        &s.held_command("d2"),
    )));
    let outsider = s.approve(DAVE, &id2, "yes\n");
    assert_eq!(outsider.status.code(), Some(1));
    assert!(
        text(&outsider.stderr).contains("not a member of the approvers group"),
        "{}",
        text(&outsider.stderr)
    );
    // Refusals are audited on the approver's side.
    let refusals: Vec<String> = s
        .audit()
        .iter()
        .filter(|r| r["mode"] == "approve" && r["verdict"] == "deny")
        .map(|r| {
            format!(
                "{} {}",
                r["user"].as_str().unwrap(),
                r["reason"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(refusals.len(), 2, "{refusals:?}");
    assert!(
        refusals[0].starts_with(CAROL) && refusals[0].contains("[approval.self_approval]"),
        "{refusals:?}"
    );
    assert!(
        refusals[1].starts_with(DAVE) && refusals[1].contains("[approval.not_approver]"),
        "{refusals:?}"
    );
}

#[test]
#[ignore = "root-only: creates users and a group on the host; tests/run.sh runs it"]
fn approver_must_confirm_and_the_requester_cannot_write_grants() {
    if !root() {
        return;
    }
    let s = Setup::new(900);
    let cmd = s.held_command("e");
    let id = request_id(&held(&s.request(ALICE, "config.toml", &cmd)));
    for answer in ["no\n", "", "YES\n"] {
        let out = s.approve(BOB, &id, answer);
        assert_eq!(out.status.code(), Some(1), "{answer:?}");
        assert!(text(&out.stderr).contains("[approval.not_confirmed]"));
    }
    held(&s.request(ALICE, "config.toml", &cmd));
    let target = s.path("approvals/approved/x.json");
    let write = sh(&[
        "runuser",
        "-u",
        ALICE,
        "--",
        "sh",
        "-c",
        &format!("echo x > {}", target.display()),
    ]);
    assert!(
        !write.status.success() && !target.exists(),
        "the requester wrote into approved/"
    );
    for bad in ["../../etc", "0A1B2C3D", "zzzzzzzz"] {
        let out = s.approve(BOB, bad, "yes\n");
        assert_eq!(out.status.code(), Some(1), "{bad}");
    }
}

#[test]
#[ignore = "root-only: creates users and a group on the host; tests/run.sh runs it"]
fn a_policy_can_still_deny_an_approved_command() {
    if !root() {
        return;
    }
    let s = Setup::new(900);
    let cmd = format!("{} # still-denied", s.held_command("f"));
    let id = request_id(&held(&s.request(ALICE, "config.toml", &cmd)));
    assert_eq!(s.approve(BOB, &id, "yes\n").status.code(), Some(0));
    let out = s.request(ALICE, "config.toml", &cmd);
    assert_eq!(out.status.code(), Some(126));
    assert_eq!(
        text(&out.stderr),
        "guarded-sh: denied: still denied after approval\n"
    );
    assert!(out.stdout.is_empty());
}

#[test]
#[ignore = "root-only: creates users and a group on the host; tests/run.sh runs it"]
fn no_prompt_without_a_terminal_and_no_group_means_a_plain_denial() {
    if !root() {
        return;
    }
    let s = Setup::new(900);
    // stdin is a pipe that stays open: a prompt would hang; run_as fails the test after 20 s.
    let started = Instant::now();
    let out = s.run_as(
        ALICE,
        "config.toml",
        &["-c", &s.held_command("g")],
        "web-1\n",
    );
    held(&out);
    assert!(started.elapsed() < Duration::from_secs(5));
    // Without an approvers group: denied, no request filed.
    let cfg = std::fs::read_to_string(s.path("config.toml")).unwrap();
    std::fs::write(
        s.path("nogroup.toml"),
        cfg.replace(&format!("group = \"{GROUP}\"\n"), ""),
    )
    .unwrap();
    let out = s.request(ALICE, "nogroup.toml", &s.held_command("g"));
    let err = held(&out);
    assert!(
        err.contains("no approvers are configured") && !err.contains("(request "),
        "{err}"
    );
}

#[test]
#[ignore = "root-only: creates users and a group on the host; tests/run.sh runs it"]
fn approvers_can_list_pending_requests() {
    if !root() {
        return;
    }
    let s = Setup::new(900);
    let id = request_id(&held(&s.request(
        ALICE,
        "config.toml",
        &s.held_command("h"),
    )));
    let out = s.run_as(BOB, "config.toml", &["--approvals"], "");
    assert_eq!(out.status.code(), Some(0));
    let listing = text(&out.stdout);
    assert!(
        listing.contains(&id) && listing.contains(ALICE) && listing.contains("host=web-1"),
        "{listing}"
    );
    assert_eq!(
        s.run_as(ALICE, "config.toml", &["--approvals"], "")
            .status
            .code(),
        Some(2)
    );
}
