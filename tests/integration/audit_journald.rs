//! The journald sink and the choice of system sink, through the built binary (issue 20 item 2).
//! A test-only journald ([`FakeJournald`]: a Unix datagram socket with `SO_PASSCRED`) stamps each
//! entry with `_PID`, `_UID`, `_COMM` and `_EXE` from the sender's kernel credentials and `/proc`,
//! as journald does. A real record from guarded-sh and a forged one (the same MESSAGE and
//! SYSLOG_IDENTIFIER, sent by python3) both arrive; the documented query
//! (`journalctl _EXE=/usr/local/bin/guarded-sh`, here the same field match over the stamped entries
//! with the test binary's path) keeps the real one and rejects the forgery. Then: `auto` picks
//! journald, else syslog, else no system sink (the file only; with no file, denied), and a
//! journald that never reads costs each command a bounded wait.

use crate::setup::{exists, in_etc_overlay, is_root, run, Run, Setup, BIN};
use nix::sys::socket::{recvmsg, setsockopt, sockopt, ControlMessageOwned, MsgFlags, UnixAddr};
use std::collections::BTreeMap;
use std::io::IoSliceMut;
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixDatagram;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const DECISION: Duration = Duration::from_secs(5);
/// How long the stand-in journald takes to get to a datagram (well within guarded-sh's wait).
const BUSY: Duration = Duration::from_millis(50);

/// One journal entry: its fields, the trusted `_…` ones stamped by the receiver.
type Entry = BTreeMap<String, String>;

/// A journald stand-in on `path`, receiving on a thread until dropped.
struct FakeJournald {
    entries: Arc<Mutex<Vec<Entry>>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl FakeJournald {
    fn bind(path: &Path) -> Self {
        let sock = UnixDatagram::bind(path).unwrap();
        setsockopt(&sock, sockopt::PassCred, &true).unwrap();
        sock.set_read_timeout(Some(Duration::from_millis(50)))
            .unwrap();
        let entries = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (seen, stopped) = (Arc::clone(&entries), Arc::clone(&stop));
        let thread = std::thread::spawn(move || {
            while !stopped.load(Ordering::Relaxed) {
                if let Some(entry) = receive(&sock) {
                    seen.lock().unwrap().push(entry);
                }
            }
        });
        FakeJournald {
            entries,
            stop,
            thread: Some(thread),
        }
    }

    /// The entries received so far, waiting up to `DECISION` for at least `n`.
    fn entries(&self, n: usize) -> Vec<Entry> {
        let started = std::time::Instant::now();
        while self.entries.lock().unwrap().len() < n && started.elapsed() < DECISION {
            std::thread::sleep(Duration::from_millis(10));
        }
        self.entries.lock().unwrap().clone()
    }
}

impl Drop for FakeJournald {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// One datagram: its credentials and the sender's `/proc` facts read first (peeking, as the
/// datagram is still queued, so a sender that waits for it to be taken is still what it was),
/// then the datagram taken and its native-protocol fields parsed.
fn receive(sock: &UnixDatagram) -> Option<Entry> {
    let mut buf = vec![0u8; 1 << 20];
    // Wait for a datagram, then take a while to get to it, like a busy journald: a sender
    // that did not wait for its record to be taken has exec'd the real shell or ended by then.
    let mut peek = [0u8; 1];
    let _ = nix::sys::socket::recv(sock.as_raw_fd(), &mut peek, MsgFlags::MSG_PEEK).ok()?;
    std::thread::sleep(BUSY);
    let mut space = nix::cmsg_space!(nix::sys::socket::UnixCredentials);
    let (pid, uid) = {
        let mut iov = [IoSliceMut::new(&mut buf)];
        let msg = recvmsg::<UnixAddr>(
            sock.as_raw_fd(),
            &mut iov,
            Some(&mut space),
            MsgFlags::MSG_PEEK,
        )
        .ok()?;
        let creds = msg.cmsgs().ok()?.find_map(|c| match c {
            ControlMessageOwned::ScmCredentials(c) => Some(c),
            _ => None,
        })?;
        (creds.pid(), creds.uid())
    };
    let mut entry = Entry::new();
    entry.insert("_PID".into(), pid.to_string());
    entry.insert("_UID".into(), uid.to_string());
    if let Ok(comm) = std::fs::read_to_string(format!("/proc/{pid}/comm")) {
        entry.insert("_COMM".into(), comm.trim_end().to_string());
    }
    if let Ok(exe) = std::fs::read_link(format!("/proc/{pid}/exe")) {
        entry.insert("_EXE".into(), exe.display().to_string());
    }
    let n = sock.recv(&mut buf).ok()?;
    for (k, v) in parse_native(&buf[..n]) {
        // A sender cannot set the trusted fields (journald drops them too).
        if !k.starts_with('_') {
            entry.insert(k, v);
        }
    }
    Some(entry)
}

/// The native protocol: `KEY=VALUE\n`, or `KEY\n` + 64-bit little-endian length + value + `\n`.
fn parse_native(mut data: &[u8]) -> Vec<(String, String)> {
    let mut fields = Vec::new();
    while let Some(end) = data.iter().position(|b| *b == b'\n') {
        let line = &data[..end];
        if let Some(eq) = line.iter().position(|b| *b == b'=') {
            let key = String::from_utf8_lossy(&line[..eq]).into_owned();
            fields.push((key, String::from_utf8_lossy(&line[eq + 1..]).into_owned()));
            data = &data[end + 1..];
        } else {
            let key = String::from_utf8_lossy(line).into_owned();
            let rest = &data[end + 1..];
            let len = u64::from_le_bytes(rest[..8].try_into().unwrap()) as usize;
            let value = &rest[8..8 + len];
            assert_eq!(rest[8 + len], b'\n', "{key}: no newline after the value");
            fields.push((key, String::from_utf8_lossy(value).into_owned()));
            data = &rest[9 + len..];
        }
    }
    assert!(data.is_empty(), "trailing bytes: {data:?}");
    fields
}

/// `journalctl _EXE=<exe> SYSLOG_IDENTIFIER=guarded-sh`: the entries that match both.
fn query<'a>(entries: &'a [Entry], exe: &Path) -> Vec<&'a Entry> {
    let exe = exe.display().to_string();
    entries
        .iter()
        .filter(|e| e.get("_EXE") == Some(&exe))
        .filter(|e| e.get("SYSLOG_IDENTIFIER").map(String::as_str) == Some("guarded-sh"))
        .collect()
}

fn binary() -> PathBuf {
    std::fs::canonicalize(BIN).unwrap()
}

fn gated(s: &Setup, command: &str) -> Run {
    run(s.command(&["-c", &s.expand(command)]), b"", DECISION, false)
}

/// Sends `datagram` to `socket` from python3 (another program, as a forger would).
fn forge(socket: &Path, datagram: &[u8]) {
    let script = "import socket,sys\ns=socket.socket(socket.AF_UNIX,socket.SOCK_DGRAM)\n\
                  s.sendto(sys.stdin.buffer.read(),sys.argv[1])\n";
    let mut c = std::process::Command::new("python3");
    c.args(["-c", script]).arg(socket);
    let out = crate::setup::output_with_stdin(c, datagram);
    assert!(out.status.success(), "python3: {out:?}");
}

fn python3() -> bool {
    std::process::Command::new("python3")
        .arg("-c")
        .arg("")
        .status()
        .is_ok_and(|s| s.success())
}

/// Real records (an allow, which then execs the real shell, and a denial, after which the
/// process ends) carry guarded-sh's `_EXE` and `_COMM`; a forgery with the same MESSAGE and
/// SYSLOG_IDENTIFIER carries python's; the query keeps the real ones only.
#[test]
fn the_trusted_fields_tell_a_real_record_from_a_forged_one() {
    if !python3() {
        eprintln!("SKIP audit_journald: python3 is not installed (the forger)");
        return;
    }
    let s = Setup::new("[audit]\nsystem_log = \"journald\"\njournald_socket = \"{dir}/journal\"\n");
    let journal = FakeJournald::bind(&s.path("journal"));
    let allowed = gated(&s, "true");
    assert_eq!(allowed.code, Some(0), "{}", allowed.stderr);
    let denied = gated(&s, "rm -rf /");
    assert_eq!(denied.code, Some(126), "{}", denied.stderr);
    let real = journal.entries(2);
    assert_eq!(real.len(), 2, "{real:?}");
    for entry in &real {
        assert_eq!(entry.get("SYSLOG_FACILITY").map(String::as_str), Some("10"));
        let record = crate::setup::audit_record(&entry["MESSAGE"]);
        assert_eq!(
            entry["GUARDED_SH_DECISION_ID"],
            record["decision_id"].as_str().unwrap()
        );
        assert_eq!(
            entry["GUARDED_SH_SESSION_ID"],
            record["session_id"].as_str().unwrap()
        );
        assert_eq!(
            entry["GUARDED_SH_VERDICT"],
            record["verdict"].as_str().unwrap()
        );
        assert_eq!(entry["GUARDED_SH_USER"], record["user"].as_str().unwrap());
        assert_eq!(entry["_PID"], record["pid"].to_string());
        assert_eq!(entry["_UID"], record["uid"].to_string());
    }
    assert_eq!(
        (real[0]["PRIORITY"].as_str(), real[1]["PRIORITY"].as_str()),
        ("6", "5")
    );
    // The forgery: the real record's every field, sent by another program.
    let mut forged = Vec::new();
    for key in [
        "MESSAGE",
        "PRIORITY",
        "SYSLOG_IDENTIFIER",
        "SYSLOG_FACILITY",
    ] {
        forged.extend_from_slice(format!("{key}={}\n", real[1][key]).as_bytes());
    }
    forged.extend_from_slice(format!("_EXE={}\n", binary().display()).as_bytes());
    forge(&s.path("journal"), &forged);
    let all = journal.entries(3);
    assert_eq!(all.len(), 3, "{all:?}");
    assert_eq!(all[2]["MESSAGE"], real[1]["MESSAGE"], "the forgery arrived");
    let kept = query(&all, &binary());
    assert_eq!(kept.len(), 2, "{all:#?}");
    assert!(kept.iter().all(|e| e.get("_COMM").is_some()), "{kept:?}");
    assert_ne!(all[2].get("_EXE"), Some(&binary().display().to_string()));
}

/// `auto` picks journald when its socket exists, else syslog, else no system sink: then the
/// file alone records, and with no file either the command is denied, naming the settings.
#[test]
fn auto_selects_journald_then_syslog_then_the_file_only() {
    let sockets = "journald_socket = \"{dir}/journal\"\nsyslog_socket = \"{dir}/log\"\n";
    let with_file =
        format!("[audit]\nsystem_log = \"auto\"\n{sockets}file = \"{{dir}}/audit.jsonl\"\n");

    // journald and syslog both present: journald only.
    let s = Setup::new(&with_file);
    let journal = FakeJournald::bind(&s.path("journal"));
    let syslog = UnixDatagram::bind(s.path("log")).unwrap();
    syslog.set_nonblocking(true).unwrap();
    let r = gated(&s, "touch {dir}/ran");
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(journal.entries(1).len(), 1);
    assert!(syslog.recv(&mut [0u8; 65536]).is_err(), "syslog got a copy");
    assert_eq!(s.audit().len(), 1, "the file too");

    // syslog only.
    let s = Setup::new(&with_file);
    let syslog = UnixDatagram::bind(s.path("log")).unwrap();
    syslog.set_read_timeout(Some(DECISION)).unwrap();
    let r = gated(&s, "touch {dir}/ran");
    assert_eq!((r.code, r.stderr.as_str()), (Some(0), ""));
    let mut buf = vec![0u8; 65536];
    let n = syslog.recv(&mut buf).unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("<86>guarded-sh["));

    // Neither: the file only, and nothing is reported missing.
    let s = Setup::new(&with_file);
    let r = gated(&s, "touch {dir}/ran");
    assert_eq!((r.code, r.stderr.as_str()), (Some(0), ""));
    assert!(exists(&s.path("ran")));
    assert_eq!(s.audit().len(), 1);

    // Neither, and no file: denied, naming the settings; nothing ran. (Written as is: the
    // setup would otherwise add its own file.)
    let s = Setup::new("");
    s.write(
        "config.toml",
        &s.expand(&format!(
            "[audit]\nsystem_log = \"auto\"\n{sockets}[policy]\nenabled = false\n"
        )),
    );
    for command in ["touch {dir}/ran", "rm -rf /"] {
        let r = gated(&s, command);
        assert_eq!(r.code, Some(126), "{command}: {}", r.stderr);
        let refusal = format!(
            "no audit sink recorded this decision (none is configured or present); set [audit] \
             system_log or [audit] file in {} [audit.no_sink]",
            s.path("config.toml").display()
        );
        assert!(r.stderr.contains(&refusal), "{command}: {}", r.stderr);
        assert!(!exists(&s.path("ran")), "{command}: ran unrecorded");
    }
}

/// No configuration at all on a host without journald or syslog: every gated command is
/// denied, and says which setting gives it a sink. (Root only: the `/etc` overlay hides the
/// host's configuration.)
#[test]
fn no_configuration_and_no_system_log_denies() {
    use std::os::unix::fs::FileTypeExt;
    if !is_root() {
        eprintln!("SKIP audit_journald: the /etc overlay needs root");
        return;
    }
    let host_log = ["/run/systemd/journal/socket", "/dev/log"]
        .iter()
        .any(|p| std::fs::metadata(p).is_ok_and(|m| m.file_type().is_socket()));
    if host_log {
        eprintln!("SKIP audit_journald: this host has a system log (the defaults record there)");
        return;
    }
    let s = Setup::new("");
    let marker = s.path("ran");
    let argv: Vec<std::ffi::OsString> = vec![
        BIN.into(),
        "-c".into(),
        format!("touch {}", marker.display()).into(),
    ];
    let mut c = in_etc_overlay(&s.etc(), &argv);
    s.configure(&mut c);
    c.env_remove("GUARDED_SH_CONFIG");
    let r = run(c, b"", DECISION, false);
    assert_eq!(r.code, Some(126), "{}", r.stderr);
    assert!(
        r.stderr
            .starts_with("guarded-sh: denied: no audit sink recorded this decision"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("[audit] system_log or [audit] file"),
        "{}",
        r.stderr
    );
    assert!(!exists(&marker));
}

/// A journald that never reads: the first commands wait (each at most the bound) for it to take
/// their record, the later ones find its queue full; all of them run, recorded in the file and
/// reported; with `required = true` they are denied.
#[test]
fn a_stalled_journald_costs_each_command_a_bounded_wait() {
    let _exclusive = crate::setup::exclusive();
    let audit = "[audit]\nsystem_log = \"journald\"\njournald_socket = \"{dir}/journal\"\nfile = \"{dir}/audit.jsonl\"\n";
    let s = Setup::new(audit);
    let _never_read = UnixDatagram::bind(s.path("journal")).unwrap();
    let bound = Duration::from_secs(2);
    let mut stalled = 0;
    for i in 0..20 {
        let r = gated(&s, &format!("echo {i}"));
        assert!(r.elapsed < bound, "command {i} took {:?}", r.elapsed);
        assert_eq!(
            (r.code, r.stdout_text()),
            (Some(0), format!("{i}\n")),
            "{i}"
        );
        stalled += usize::from(r.stderr.contains("[audit.journald.stalled]"));
    }
    assert!(
        stalled >= 5,
        "only {stalled} of 20 reported the stalled journal"
    );
    assert_eq!(s.audit().len(), 20);
    s.config("config.toml", &format!("{audit}required = true\n"));
    let r = gated(&s, "touch {dir}/ran");
    assert!(r.elapsed < bound, "required: {:?}", r.elapsed);
    assert_eq!(r.code, Some(126), "{}", r.stderr);
    assert!(r.stderr.contains("[audit.required]"), "{}", r.stderr);
    assert!(!exists(&s.path("ran")));
}

/// A journald socket that is missing, named explicitly: reported; the file still records.
#[test]
fn a_missing_journald_socket_is_reported() {
    let s = Setup::new(
        "[audit]\nsystem_log = \"journald\"\njournald_socket = \"{dir}/no/journal\"\nfile = \"{dir}/audit.jsonl\"\n",
    );
    let r = gated(&s, "touch {dir}/ran");
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(
        r.stderr
            .contains(&s.expand("guarded-sh: audit: journald {dir}/no/journal: ")),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("[audit.journald.io]"), "{}", r.stderr);
    assert_eq!(s.audit().len(), 1);
}

/// A record of some 720 KB (a command of bytes JSON escapes sixfold) reaches journald as one
/// entry: whole, or with its command cut and `truncated: true` where the socket takes less.
#[test]
fn a_large_record_reaches_journald() {
    let s = Setup::new(
        "[audit]\nsystem_log = \"journald\"\njournald_socket = \"{dir}/journal\"\nrequired = true\nmax_command_bytes = 1048576\n[limits]\nmax_bytes = 1048576\n",
    );
    let journal = FakeJournald::bind(&s.path("journal"));
    let command = format!("echo '{}' >/dev/null; echo done", "\u{1}".repeat(120_000));
    let r = run(s.command(&["-c", &command]), b"", DECISION, false);
    assert_eq!(
        (r.code, r.stdout_text()),
        (Some(0), "done\n".into()),
        "{}",
        r.stderr
    );
    let entries = journal.entries(1);
    let record = crate::setup::audit_record(&entries[0]["MESSAGE"]);
    let kept = record["command"].as_str().unwrap();
    match record["truncated"].as_bool() {
        Some(false) => assert_eq!(kept, command),
        _ => assert!(kept.len() < command.len() && command.starts_with(kept)),
    }
}
