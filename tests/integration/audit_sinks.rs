//! Audit sinks under faults, through the built binary: a short write on a tiny filesystem (the
//! next record still gets a line of its own), a system-log reader that never reads (every command
//! still ends within a bound), a FIFO, a symbolic link or a directory as the audit file (refused,
//! never followed or opened for a blocking write, and denied as no sink recorded the decision),
//! one of two sinks failing (reported, and denying under `required = true`), and a record too large for a datagram (cut to fit, marked
//! `truncated`, not dropped).

use crate::setup::{exists, is_root, run, Run, Setup};
use std::os::unix::net::UnixDatagram;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Every case here must end with a decision within this bound (a hang is killed after it).
const DECISION: Duration = Duration::from_secs(5);

/// The audit file's lines, each parsed (`None` for a line that does not parse: a torn one), and
/// each of guarded-sh's records (a `schema` field; the tests also write foreign lines) checked
/// against the schema.
fn lines(path: &Path) -> Vec<Option<serde_json::Value>> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| {
            let record: Option<serde_json::Value> = serde_json::from_str(l).ok();
            if let Some(r) = record.as_ref().filter(|r| r.get("schema").is_some()) {
                crate::audit_schema::assert_valid("audit_record", r);
            }
            record
        })
        .collect()
}

fn gated(s: &Setup, command: &str) -> Run {
    run(s.command(&["-c", &s.expand(command)]), b"", DECISION, false)
}

/// A tmpfs of `size` bytes mounted on a directory of its own, unmounted when dropped.
struct TinyFs {
    dir: tempfile::TempDir,
}

impl TinyFs {
    fn mount(size: usize) -> Option<TinyFs> {
        let dir = tempfile::tempdir().ok()?;
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .status()
            .ok()?;
        status.success().then_some(TinyFs { dir })
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

impl Drop for TinyFs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

/// JSON lines of at most 100 bytes, `total` bytes in all.
fn filler(total: usize) -> String {
    let mut out = String::new();
    while out.len() < total {
        let room = (total - out.len()).min(100);
        let pad = room.saturating_sub(r#"{"f":""}"#.len() + 1);
        out.push_str(&format!("{{\"f\":\"{}\"}}\n", "x".repeat(pad)));
    }
    out
}

/// A record torn by a full filesystem: its command did not run (`required = true`), and once
/// there is room again the next record is on a line of its own. The tmpfs is 4 pages: a one-page
/// ballast file and an audit file 100 bytes short of 3 pages, so the next record's `write` can
/// put only 100 bytes.
#[test]
fn a_short_write_leaves_the_next_record_on_its_own_line() {
    if !is_root() {
        eprintln!("SKIP audit_sinks: mounting a tiny filesystem needs root");
        return;
    }
    let Some(fs) = TinyFs::mount(4 * 4096) else {
        eprintln!("SKIP audit_sinks: cannot mount a tmpfs here");
        return;
    };
    let audit = fs.path("audit.jsonl");
    std::fs::write(fs.path("ballast"), vec![b'.'; 4096]).unwrap();
    std::fs::write(&audit, filler(3 * 4096 - 100)).unwrap();
    let before = lines(&audit).len();
    let s = Setup::new(&format!(
        "[audit]\nsyslog = false\nfile = \"{}\"\nrequired = true\n",
        audit.display()
    ));

    let torn = gated(&s, "touch {dir}/torn");
    assert_eq!(torn.code, Some(126), "{}", torn.stderr);
    assert!(torn.stderr.contains("short write"), "{}", torn.stderr);
    assert!(!exists(&s.path("torn")), "the torn record's command ran");

    std::fs::remove_file(fs.path("ballast")).unwrap();
    let next = gated(&s, "touch {dir}/next");
    assert_eq!(next.code, Some(0), "{}", next.stderr);
    assert!(exists(&s.path("next")));

    let after = lines(&audit);
    let unparsed: Vec<usize> = (0..after.len()).filter(|i| after[*i].is_none()).collect();
    assert_eq!(unparsed, [before], "only the torn line fails to parse");
    let records: Vec<&serde_json::Value> = after[before..].iter().flatten().collect();
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0]["command"], s.expand("touch {dir}/next"));
    assert_eq!(records[0]["verdict"], "allow");
}

/// A system-log reader that never reads: its queue fills after about ten datagrams, and every
/// later command waits the bounded send timeout, not forever. With a file sink and
/// `required = false` they all run and are recorded in the file; with `required = true` they are
/// denied with a message.
#[test]
fn a_stalled_system_log_costs_each_command_a_bounded_wait() {
    let _exclusive = crate::setup::exclusive();
    let s = Setup::new(
        "[audit]\nsystem_log = \"syslog\"\nsyslog_socket = \"{dir}/log\"\nfile = \"{dir}/audit.jsonl\"\n",
    );
    let _never_read = UnixDatagram::bind(s.path("log")).unwrap();
    let bound = Duration::from_secs(2);
    let mut stalled = 0;
    for i in 0..50 {
        let r = gated(&s, &format!("echo {i}"));
        assert!(r.elapsed < bound, "command {i} took {:?}", r.elapsed);
        assert_eq!(
            (r.code, r.stdout_text()),
            (Some(0), format!("{i}\n")),
            "{i}"
        );
        stalled += usize::from(r.stderr.contains("guarded-sh: audit: syslog"));
    }
    assert!(
        stalled >= 30,
        "only {stalled} of 50 reported the stalled log"
    );
    let commands: Vec<String> = s.audit().iter().map(|r| r["command"].to_string()).collect();
    assert_eq!(commands.len(), 50, "{commands:?}");

    s.config(
        "config.toml",
        "[audit]\nsystem_log = \"syslog\"\nsyslog_socket = \"{dir}/log\"\nfile = \"{dir}/audit.jsonl\"\nrequired = true\n",
    );
    for i in 0..3 {
        let r = gated(&s, &format!("touch {{dir}}/ran{i}"));
        assert!(
            r.elapsed < bound,
            "required, command {i} took {:?}",
            r.elapsed
        );
        assert_eq!(r.code, Some(126), "{}", r.stderr);
        assert!(r.stderr.contains("stalled"), "{}", r.stderr);
        assert!(r.stderr.contains("[audit.required]"), "{}", r.stderr);
        assert!(!exists(&s.path(&format!("ran{i}"))), "required: ran");
    }
}

/// An audit file that is not a regular file the process may append to: refused with a message
/// naming why, within the bound, never written through; denied under `required = true`.
#[test]
fn special_or_linked_audit_files_are_refused() {
    // (label, make the audit path, stderr must contain)
    type Make = fn(&Setup) -> Option<std::fs::File>;
    let cases: [(&str, Make, &str); 4] = [
        (
            "FIFO, no reader",
            |s| {
                fifo(&s.path("audit.jsonl"));
                None
            },
            "is not a regular file (a FIFO)",
        ),
        (
            "FIFO, a reader",
            |s| {
                fifo(&s.path("audit.jsonl"));
                Some(reader(&s.path("audit.jsonl")))
            },
            "is not a regular file (a FIFO)",
        ),
        (
            "symlink to a file",
            |s| {
                s.write("real.jsonl", "");
                std::os::unix::fs::symlink(s.path("real.jsonl"), s.path("audit.jsonl")).unwrap();
                None
            },
            "is a symbolic link (not followed)",
        ),
        (
            "dangling symlink",
            |s| {
                std::os::unix::fs::symlink(s.path("real.jsonl"), s.path("audit.jsonl")).unwrap();
                None
            },
            "is a symbolic link (not followed)",
        ),
    ];
    for (label, make, message) in cases {
        for required in [false, true] {
            let s = Setup::new(&format!(
                "[audit]\nsyslog = false\nfile = \"{{dir}}/audit.jsonl\"\nrequired = {required}\n"
            ));
            let reader = make(&s);
            let r = gated(&s, "touch {dir}/ran");
            assert!(!r.timed_out, "{label}: no decision within {DECISION:?}");
            // The only sink failed: denied whatever `required` says.
            assert_eq!(r.code, Some(126), "{label} {required}: {}", r.stderr);
            assert!(
                r.stderr.contains("[audit.no_sink]"),
                "{label}: {}",
                r.stderr
            );
            let audit_line = s.expand("guarded-sh: audit: audit file {dir}/audit.jsonl: ");
            assert!(
                r.stderr.contains(&format!("{audit_line}{message}")),
                "{label}: {}",
                r.stderr
            );
            assert!(
                !exists(&s.path("ran")),
                "{label} {required}: ran unrecorded"
            );
            let linked = std::fs::read(s.path("real.jsonl")).unwrap_or_default();
            assert!(linked.is_empty(), "{label}: written through the link");
            assert!(
                !exists(&s.path("real.jsonl")) || label != "dangling symlink",
                "{label}: the link's target was created"
            );
            drop(reader);
        }
    }
}

fn fifo(path: &Path) {
    nix::unistd::mkfifo(path, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
}

/// A reader holding the FIFO open (opened without blocking), so a writer's open succeeds.
fn reader(path: &Path) -> std::fs::File {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NONBLOCK)
        .open(path)
        .unwrap()
}

/// Two sinks, one failing: the failure is reported on stderr either way, and with
/// `required = true` the command is denied although the other sink took the record.
#[test]
fn one_failing_sink_of_two_is_reported_and_denies_when_required() {
    let cases = [
        // (label, audit section without `required`, stderr must contain, file has the record)
        (
            "syslog missing",
            "system_log = \"syslog\"\nsyslog_socket = \"{dir}/no/log\"\nfile = \"{dir}/audit.jsonl\"\n",
            "guarded-sh: audit: syslog {dir}/no/log: ",
            true,
        ),
        (
            "file is a directory",
            "system_log = \"syslog\"\nsyslog_socket = \"{dir}/log\"\nfile = \"{dir}/audit.jsonl\"\n",
            "guarded-sh: audit: audit file {dir}/audit.jsonl: is not a regular file (a directory)",
            false,
        ),
    ];
    for (label, audit, message, file_written) in cases {
        for required in [false, true] {
            let s = Setup::new(&format!("[audit]\n{audit}required = {required}\n"));
            let log = UnixDatagram::bind(s.path("log")).unwrap();
            log.set_nonblocking(true).unwrap();
            if !file_written {
                std::fs::create_dir(s.path("audit.jsonl")).unwrap();
            }
            let r = gated(&s, "touch {dir}/ran");
            let expected = if required { 126 } else { 0 };
            assert_eq!(r.code, Some(expected), "{label} {required}: {}", r.stderr);
            assert!(
                r.stderr.contains(&s.expand(message)),
                "{label}: {}",
                r.stderr
            );
            assert_eq!(
                r.stderr.contains("[audit.required]"),
                required,
                "{label}: {}",
                r.stderr
            );
            assert_eq!(exists(&s.path("ran")), !required, "{label} {required}");
            if file_written {
                assert_eq!(s.audit().len(), 1, "{label}");
            } else {
                let mut buf = vec![0u8; 65536];
                assert!(log.recv(&mut buf).is_ok(), "{label}: syslog got no copy");
            }
        }
    }
}

/// A record longer than the socket takes in one datagram (its send buffer, `wmem_default`):
/// the system log receives it with the command cut, `truncated: true` and valid JSON, while the
/// file keeps it whole. The command is bytes JSON escapes sixfold (`\u0001`), within an argument's
/// 128 KiB.
#[test]
fn a_record_too_large_for_a_datagram_is_cut_to_fit() {
    let wmem: usize = std::fs::read_to_string("/proc/sys/net/core/wmem_default")
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(212_992);
    let payload = "\u{1}".repeat(120_000);
    if payload.len() * 6 <= wmem {
        eprintln!("SKIP audit_sinks: a {wmem}-byte send buffer takes a 720 KB datagram");
        return;
    }
    let s = Setup::new(
        "[audit]\nsystem_log = \"syslog\"\nsyslog_socket = \"{dir}/log\"\nfile = \"{dir}/audit.jsonl\"\nrequired = true\nmax_command_bytes = 1048576\n[limits]\nmax_bytes = 1048576\n",
    );
    let log = UnixDatagram::bind(s.path("log")).unwrap();
    log.set_read_timeout(Some(DECISION)).unwrap();
    let command = format!("echo '{payload}' >/dev/null; echo done");
    let r = run(s.command(&["-c", &command]), b"", DECISION, false);
    assert_eq!(
        (r.code, r.stdout_text()),
        (Some(0), "done\n".into()),
        "{}",
        r.stderr
    );
    let mut buf = vec![0u8; 1 << 20];
    let n = log.recv(&mut buf).expect("the system log got no record");
    let message = String::from_utf8_lossy(&buf[..n]).into_owned();
    let json = message.split_once("]: ").map_or("", |(_, j)| j);
    let record = crate::setup::audit_record(json);
    assert_eq!(record["truncated"], true);
    let cut = record["command"].as_str().unwrap_or_default();
    assert!(
        cut.len() < command.len() && command.starts_with(cut),
        "{}",
        cut.len()
    );
    assert!(
        n < wmem && n > wmem / 4,
        "a {n}-byte datagram for a {wmem}-byte buffer"
    );
    let whole = s.audit();
    assert_eq!(
        (whole[0]["command"].as_str(), &whole[0]["truncated"]),
        (Some(command.as_str()), &serde_json::Value::Bool(false))
    );
    assert_eq!(record["decision_id"], whole[0]["decision_id"]);
}

/// The audit file's trust rule for a gated user (`nobody`, via `setpriv`): gated users may append
/// to a file they cannot read, but not to one they own or one in a directory they can write
/// (they could replace it); those are refused with a message and denied under `required`.
#[test]
fn audit_file_trust_for_a_gated_user() {
    use std::os::unix::fs::{chown, PermissionsExt};
    if !is_root() {
        eprintln!("SKIP audit_sinks: needs root to run the binary as an unprivileged user");
        return;
    }
    const NOBODY: u32 = 65534;
    let mode =
        |p: &Path, m: u32| std::fs::set_permissions(p, PermissionsExt::from_mode(m)).unwrap();
    type Make = fn(&Setup) -> PathBuf;
    let cases: [(&str, Make, &str); 3] = [
        (
            "root-owned, group-writable, unreadable",
            |s| {
                let p = s.write("audit.jsonl", "");
                chown(&p, Some(0), Some(NOBODY)).unwrap();
                p
            },
            "",
        ),
        (
            "owned by the gated user",
            |s| {
                let p = s.write("audit.jsonl", "");
                chown(&p, Some(NOBODY), Some(NOBODY)).unwrap();
                p
            },
            "is owned by the gated user (uid 65534)",
        ),
        (
            "in a directory the gated user can write",
            |s| {
                let p = s.write("mine/audit.jsonl", "");
                chown(s.path("mine"), Some(NOBODY), Some(NOBODY)).unwrap();
                p
            },
            "its directory is not trusted",
        ),
    ];
    for (label, make, message) in cases {
        let s = Setup::new("[audit]\nsyslog = false\nfile = \"{dir}/audit\"\nrequired = true\n");
        mode(s.dir.path(), 0o755);
        let audit = make(&s);
        mode(&audit, 0o620);
        s.config(
            "config.toml",
            &format!(
                "[audit]\nsyslog = false\nfile = \"{}\"\nrequired = true\n",
                audit.display()
            ),
        );
        // As a gated user, the configuration is read from the default path only.
        s.install_config();
        let c = s.as_user(NOBODY, NOBODY, &["-c", "echo ran"]);
        let r = run(c, b"", DECISION, false);
        let records = lines(&audit);
        if message.is_empty() {
            assert_eq!(
                (r.code, r.stdout_text()),
                (Some(0), "ran\n".into()),
                "{label}: {}",
                r.stderr
            );
            assert_eq!(records.len(), 1, "{label}");
            assert_eq!(
                records[0].as_ref().map(|r| r["uid"].clone()),
                Some(NOBODY.into())
            );
        } else {
            assert_eq!(r.code, Some(126), "{label}: {}", r.stderr);
            assert!(r.stdout.is_empty(), "{label}: ran");
            assert!(r.stderr.contains(message), "{label}: {}", r.stderr);
            assert!(records.is_empty(), "{label}: written");
        }
    }
}

/// A torn tail met by many writers at once: 200 commands released together (held at a FIFO) all
/// append to a file that ends in a fragment. Exactly one line (the fragment, ended by the first
/// record that landed on it) fails to parse, and every command's record is on a line of its own.
#[test]
fn concurrent_writers_after_a_torn_tail_each_get_a_line() {
    use std::process::Stdio;
    const N: usize = 200;
    let _exclusive = crate::setup::exclusive();
    let s = Setup::new(crate::setup::AUDIT_FILE);
    s.write("audit.jsonl", "{\"f\":1}\n{\"time\":\"2026-");
    let gate = s.path("gate");
    fifo(&gate);
    let mut release = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&gate)
        .unwrap();
    let mut children = Vec::new();
    for i in 0..N {
        let mut c = Command::new("/bin/sh");
        let command = format!("echo {i}");
        c.args(["-c", "read _ < \"$0\"; exec \"$@\"", gate.to_str().unwrap()]);
        c.args([crate::setup::BIN, "-c", &command]);
        s.configure(&mut c);
        c.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        children.push(c.spawn().unwrap());
    }
    std::io::Write::write_all(&mut release, "go\n".repeat(N).as_bytes()).unwrap();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    let after = lines(&s.path("audit.jsonl"));
    let unparsed = after.iter().filter(|l| l.is_none()).count();
    assert_eq!(unparsed, 1, "{} lines", after.len());
    let commands: Vec<&str> = after
        .iter()
        .flatten()
        .filter_map(|r| r["command"].as_str())
        .collect();
    let missing: Vec<String> = (0..N)
        .map(|i| format!("echo {i}"))
        .filter(|c| !commands.contains(&c.as_str()))
        .collect();
    assert_eq!(
        missing,
        Vec::<String>::new(),
        "records with no line of their own"
    );
    assert_eq!(commands.len(), N, "each record once");
}
