//! Faults, through the built binary: an unreadable or corrupt policy cache, a device as the
//! audit file (`/dev/full`, refused), a missing system-log socket, a missing or unusable real shell, a
//! policy that loops or recurses, and a panic (forced by making stderr unwritable). Each must end
//! in a defined verdict with an audit record or a stderr line; `audit.required` denies when a
//! configured audit sink did not take the record; a panic never lets the command run.

use crate::setup::{exists, run, Setup, AUDIT_FILE, FORBIDDEN_TOOL as POLICY};
use guarded_sh::policy::engine::{self, CacheMode, CacheStatus};
use std::os::unix::net::UnixDatagram;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(30);

fn policy_setup(extra: &str) -> Setup {
    let s = Setup::with(&format!(
        "[policy]\ndir = \"{{dir}}/policies\"\ncache_dir = \"{{dir}}/cache\"\n{extra}"
    ));
    s.write("policies/honey.rego", POLICY);
    std::fs::create_dir_all(s.path("cache")).unwrap();
    s
}

/// Runs `true` (allowed, prints a marker) and `forbidden_tool` (denied by policy) and checks both
/// verdicts, the reason and the audit records.
fn assert_policy_decides(s: &Setup, label: &str) {
    let before = s.audit().len();
    let r = run(s.command(&["-c", "echo allowed"]), b"", LIMIT, false);
    assert_eq!(
        (r.code, r.stdout_text().as_str()),
        (Some(0), "allowed\n"),
        "{label}: {}",
        r.stderr
    );
    let r = run(
        s.command(&["-c", "forbidden_tool --now"]),
        b"",
        LIMIT,
        false,
    );
    assert_eq!(r.code, Some(126), "{label}: {}", r.stderr);
    assert_eq!(
        r.stderr, "guarded-sh: denied: forbidden_tool is not allowed here\n",
        "{label}"
    );
    let audit = s.audit();
    assert_eq!(audit.len(), before + 2, "{label}: {audit:?}");
    assert_eq!(audit[before]["verdict"], "allow", "{label}");
    assert_eq!(audit[before + 1]["verdict"], "deny", "{label}");
    assert_eq!(audit[before + 1]["stage"], "policy", "{label}");
}

fn cache_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rvm"))
        .collect();
    v.sort();
    v
}

#[test]
fn corrupt_or_unreadable_policy_cache_still_decides_and_is_repaired() {
    let s = policy_setup("");
    assert_policy_decides(&s, "cold cache");
    let files = cache_files(&s.path("cache"));
    assert_eq!(files.len(), 1, "{files:?}");
    let file = &files[0];
    let good = std::fs::read(file).unwrap();
    type Corrupt = fn(&Path, &[u8]);
    let corruptions: [(&str, Corrupt); 6] = [
        ("truncated header", |p, g| {
            std::fs::write(p, &g[..10]).unwrap()
        }),
        ("truncated payload", |p, g| {
            std::fs::write(p, &g[..g.len() - 7]).unwrap()
        }),
        ("flipped payload byte", |p, g| {
            let mut b = g.to_vec();
            let i = b.len() - 3;
            b[i] ^= 0x55;
            std::fs::write(p, b).unwrap()
        }),
        ("garbage", |p, _| {
            std::fs::write(p, vec![0xa5; 4096]).unwrap()
        }),
        ("empty", |p, _| std::fs::write(p, b"").unwrap()),
        ("a directory in its place", |p, _| {
            std::fs::remove_file(p).unwrap();
            std::fs::create_dir(p).unwrap()
        }),
    ];
    for (label, corrupt) in corruptions {
        if file.is_dir() {
            std::fs::remove_dir(file).unwrap();
        }
        std::fs::write(file, &good).unwrap();
        corrupt(file, &good);
        assert_policy_decides(&s, label);
    }
    // The directory case could not be replaced; remove it and let the next run rewrite the file.
    std::fs::remove_dir(file).unwrap();
    assert_policy_decides(&s, "after corruption");
    let policy = engine::load(&s.path("policies"), &CacheMode::Dir(s.path("cache"))).unwrap();
    assert_eq!(
        policy.cache_status(),
        &CacheStatus::Hit,
        "the cache was repaired"
    );
    // A cache path that is not a directory turns the cache off; decisions do not change.
    let s = policy_setup("");
    std::fs::remove_dir(s.path("cache")).unwrap();
    std::fs::write(s.path("cache"), "not a directory").unwrap();
    assert_policy_decides(&s, "cache_dir is a file");
}

/// A special file in place of a cache entry (a FIFO, a link to /dev/zero) must be a cache miss,
/// not a hang or an unbounded read. Only root can put one there (the directory is trusted), so
/// this is robustness, not an attack.
#[test]
fn special_files_in_the_cache_are_misses_not_hangs() {
    let s = policy_setup("");
    assert_policy_decides(&s, "cold cache");
    let file = cache_files(&s.path("cache")).remove(0);
    std::fs::remove_file(&file).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &file).unwrap();
    let r = run(
        s.command(&["-c", "echo allowed"]),
        b"",
        Duration::from_secs(10),
        true,
    );
    assert!(!r.timed_out, "link to /dev/zero: hung");
    assert_eq!(r.code, Some(0), "link to /dev/zero: {}", r.stderr);
    if let Some(kib) = r.max_rss_kib {
        assert!(kib < 256 * 1024, "link to /dev/zero: read {kib} KiB");
    }
    std::fs::remove_file(&file).unwrap();
    nix::unistd::mkfifo(&file, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    let r = run(
        s.command(&["-c", "echo allowed"]),
        b"",
        Duration::from_secs(10),
        false,
    );
    assert!(!r.timed_out, "FIFO: hung");
    assert_eq!(r.code, Some(0), "FIFO: {}", r.stderr);
}

/// `/dev/full` as the audit file: a device is refused before anything is written to it (a real
/// full filesystem, with a torn record, is `audit_sinks::a_short_write_leaves_the_next_record_on_its_own_line`).
#[test]
fn full_disk_for_the_audit_file() {
    let cases = [
        // (required, command, exit, stderr must contain, ran)
        (
            false,
            "touch {dir}/ran",
            126,
            "guarded-sh: audit: audit file /dev/full: is not a regular file (a character device)",
            false,
        ),
        (
            false,
            "touch {dir}/ran",
            126,
            "guarded-sh: denied: no audit sink recorded this decision",
            false,
        ),
        (
            true,
            "touch {dir}/ran",
            126,
            "guarded-sh: denied: no audit sink recorded this decision",
            false,
        ),
        (
            false,
            "touch {dir}/ran; rm -rf /",
            126,
            "guarded-sh: denied: command risk: recursive delete",
            false,
        ),
    ];
    for (required, command, code, message, ran) in cases {
        let s = Setup::new(&format!(
            "[audit]\nsyslog = false\nfile = \"/dev/full\"\nrequired = {required}\n"
        ));
        let command = s.expand(command);
        let r = run(s.command(&["-c", &command]), b"", LIMIT, false);
        assert_eq!(
            r.code,
            Some(code),
            "{command} required={required}: {}",
            r.stderr
        );
        assert!(r.stderr.contains(message), "{command}: {}", r.stderr);
        assert_eq!(exists(&s.path("ran")), ran, "{command} required={required}");
    }
}

#[test]
fn missing_system_log_socket() {
    let cases = [
        // (audit section, exit, stderr must contain ("" = stderr empty), audit file written, ran)
        ("system_log = \"syslog\"\nsyslog_socket = \"{dir}/no/log\"\nfile = \"{dir}/audit.jsonl\"\n", 0, "guarded-sh: audit: syslog", true, true),
        ("system_log = \"syslog\"\nsyslog_socket = \"{dir}/no/log\"\n", 126, "guarded-sh: denied: no audit sink recorded this decision", false, false),
        ("system_log = \"syslog\"\nsyslog_socket = \"{dir}/no/log\"\nrequired = true\n", 126, "guarded-sh: denied: no audit sink recorded this decision", false, false),
        ("system_log = \"syslog\"\nsyslog_socket = \"{dir}/no/log\"\nfile = \"/dev/full\"\nrequired = true\n", 126, "guarded-sh: denied: no audit sink recorded this decision", false, false),
        ("system_log = \"syslog\"\nsyslog_socket = \"{dir}/no/log\"\nfile = \"{dir}/audit.jsonl\"\nrequired = true\n", 126, "guarded-sh: denied: a configured audit sink did not record this decision and [audit] required = true", true, false),
        // `auto` (and the old `syslog = true`) with neither socket present: the file only.
        ("syslog = true\nsyslog_socket = \"{dir}/no/log\"\njournald_socket = \"{dir}/no/journal\"\nfile = \"{dir}/audit.jsonl\"\n", 0, "", true, true),
    ];
    for (audit, code, message, file_written, ran) in cases {
        let s = Setup::new(&format!("[audit]\n{audit}"));
        let command = s.expand("touch {dir}/ran");
        let r = run(s.command(&["-c", &command]), b"", LIMIT, false);
        assert_eq!(r.code, Some(code), "{audit}: {}", r.stderr);
        if message.is_empty() {
            assert_eq!(r.stderr, "", "{audit}");
        } else {
            assert!(r.stderr.contains(message), "{audit}: {}", r.stderr);
        }
        assert_eq!(s.audit().len(), usize::from(file_written), "{audit}");
        assert_eq!(exists(&s.path("ran")), ran, "{audit}");
    }
}

#[test]
fn system_log_receives_one_datagram_per_decision() {
    let s = Setup::new("[audit]\nsystem_log = \"syslog\"\nsyslog_socket = \"{dir}/log\"\n");
    let sock = UnixDatagram::bind(s.path("log")).unwrap();
    sock.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    for (command, code, priority, verdict) in [
        ("true", 0, "<86>", "allow"),
        ("rm -rf /", 126, "<85>", "deny"),
    ] {
        let r = run(s.command(&["-c", command]), b"", LIMIT, false);
        assert_eq!(r.code, Some(code), "{}", r.stderr);
        let mut buf = vec![0u8; 65536];
        let n = sock.recv(&mut buf).unwrap();
        let message = String::from_utf8_lossy(&buf[..n]).into_owned();
        assert!(
            message.starts_with(&format!("{priority}guarded-sh[")),
            "{message}"
        );
        let json = crate::setup::audit_record(message.split_once("]: ").unwrap().1);
        assert_eq!(
            (json["verdict"].as_str(), json["command"].as_str()),
            (Some(verdict), Some(command))
        );
    }
}

#[test]
fn missing_or_unusable_real_shell_denies_with_a_stderr_line() {
    let cases = [
        ("{dir}/no/such/bash", "No such file or directory"),
        ("{dir}/not-executable", "Permission denied"),
    ];
    for (shell, why) in cases {
        // No policy, whatever the host has installed: the allow is the built-in one.
        let s = Setup::with(&format!(
            "[shells]\ndefault = \"{shell}\"\n[policy]\nenabled = false\n"
        ));
        s.write("not-executable", "#!/bin/sh\necho ran\n");
        let shell = s.expand(shell);
        let r = run(s.command(&["-c", "echo ran"]), b"", LIMIT, false);
        assert_eq!(r.code, Some(126), "{shell}");
        assert!(r.stdout.is_empty(), "{shell}: something ran");
        assert_eq!(
            r.stderr.trim_end(),
            format!(
                "guarded-sh: cannot run {shell}: {why} (os error {})",
                if why.starts_with("No") { 2 } else { 13 }
            )
        );
        // The allow is followed by the failure, under the same decision id.
        let audit = s.audit();
        let verdicts: Vec<_> = audit
            .iter()
            .map(|r| (r["verdict"].as_str(), r["reason_id"].as_str()))
            .collect();
        assert_eq!(
            verdicts,
            [
                (Some("allow"), Some("allow")),
                (Some("error"), Some("exec.failed"))
            ],
            "{shell}: {audit:?}"
        );
        assert_eq!(audit[0]["decision_id"], audit[1]["decision_id"], "{shell}");
    }
    // A relative path is a configuration error: nothing runs, status 2.
    let s = Setup::with("[shells]\ndefault = \"bash\"\n");
    let r = run(s.command(&["-c", "echo ran"]), b"", LIMIT, false);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(
        r.stderr.contains("shells.default must be an absolute path"),
        "{}",
        r.stderr
    );
}

#[test]
fn policies_that_loop_or_recurse_deny_within_bounds() {
    let base = "package honey\nimport rego.v1\ndefault deny_reason := \"\"\ndefault decision := \"allow\"\n";
    let cases = [
        ("mutual recursion", "allow if a\na if b\nb if a\n", &["[policy.recursion]"][..], false),
        ("self-recursive function", "f(x) := y if { y := f(x) }\nallow if f(1) == 1\n", &["[policy.recursion]"], false),
        // With no cache directory the same RVM program runs (compiled in memory): the same bound.
        ("9M-step loop, no cache", "allow if { not spin }\nspin if { some i in numbers.range(1, 3000); some j in numbers.range(1, 3000); i * j == -1 }\n", &["[policy.budget]"], false),
        ("9M-step loop, RVM", "allow if { not spin }\nspin if { some i in numbers.range(1, 3000); some j in numbers.range(1, 3000); i * j == -1 }\n", &["[policy.budget]", "[policy.timeout]"], true),
    ];
    for (label, rules, reasons, cached) in cases {
        let cache = if cached {
            "cache_dir = \"{dir}/cache\"\n"
        } else {
            ""
        };
        let s = Setup::with(&format!("[policy]\ndir = \"{{dir}}/policies\"\n{cache}"));
        std::fs::create_dir_all(s.path("cache")).unwrap();
        s.write("policies/honey.rego", &format!("{base}{rules}"));
        let command = s.expand("touch {dir}/ran");
        let r = run(s.command(&["-c", &command]), b"", LIMIT, true);
        assert_eq!(r.signal, None, "{label}: crashed: {}", r.stderr);
        assert_eq!(r.code, Some(126), "{label}: {}", r.stderr);
        assert!(
            r.stderr.starts_with("guarded-sh: denied: policy error ["),
            "{label}: {}",
            r.stderr
        );
        assert!(
            reasons.iter().any(|w| r.stderr.contains(w)),
            "{label}: {}",
            r.stderr
        );
        assert!(
            r.elapsed < Duration::from_secs(5),
            "{label}: {:?}",
            r.elapsed
        );
        assert!(!exists(&s.path("ran")), "{label}: ran");
        let last = s.audit().pop().unwrap();
        assert_eq!(
            (last["verdict"].as_str(), last["stage"].as_str()),
            (Some("deny"), Some("error")),
            "{label}"
        );
        eprintln!("{label}: {:?}, peak RSS {:?} KiB", r.elapsed, r.max_rss_kib);
    }
}

/// With stderr unwritable (`/dev/full`), the first `eprintln!` panics. The panic hook denies and the
/// command must not run, on the deny path and on an allow path that reports an audit failure.
#[test]
fn a_panic_never_lets_the_command_run() {
    let cases = [
        (AUDIT_FILE, "touch {dir}/ran; rm -rf /"),
        (
            "[audit]\nsyslog = false\nfile = \"/dev/full\"\n",
            "touch {dir}/ran",
        ),
    ];
    for (config, command) in cases {
        let s = Setup::new(config);
        let command = s.expand(command);
        let status = s
            .command(&["-c", &command])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(
                std::fs::OpenOptions::new()
                    .write(true)
                    .open("/dev/full")
                    .unwrap(),
            )
            .status()
            .unwrap();
        assert!(!status.success(), "{command}: {status:?}");
        assert!(!exists(&s.path("ran")), "{command}: ran after a panic");
    }
}

/// The same panic must end in the defined denial status, 126, not an abort: the panic hook
/// prints without panicking and exits 126 itself (the release profile aborts on panic; the
/// end-to-end test checks the installed binary the same way).
#[test]
fn a_panic_ends_in_status_126() {
    use std::os::unix::process::ExitStatusExt;
    let s = Setup::with("");
    let status = s
        .command(&["-c", "rm -rf /"])
        .stdin(Stdio::null())
        .stderr(
            std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap(),
        )
        .status()
        .unwrap();
    assert_eq!((status.code(), status.signal()), (Some(126), None));
}
