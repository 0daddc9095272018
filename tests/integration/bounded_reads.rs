//! No read without a bound: a script operand, host-vars file or stdin script that is a FIFO, a
//! device, a pipe left open or one that trickles ends in a decision within 5 s, with a message
//! that says why; and a real shell that is guarded-sh itself (through a hard link or symlink) is
//! refused with one record instead of re-executing itself forever.

use crate::setup::{exists, run, text, Setup, BIN, FORBIDDEN_TOOL};
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Every case must have ended, with its decision, within this.
const DECIDED_WITHIN: Duration = Duration::from_secs(5);

fn mkfifo(p: &Path) {
    nix::unistd::mkfifo(
        p,
        nix::sys::stat::Mode::S_IRUSR | nix::sys::stat::Mode::S_IWUSR,
    )
    .unwrap();
}

/// The one audit record of a run, which must carry `reason_id`.
fn one_record(s: &Setup, reason_id: &str) {
    let records = s.audit();
    assert_eq!(records.len(), 1, "one record expected: {records:?}");
    assert_eq!(records[0]["reason_id"], reason_id, "{records:?}");
}

#[test]
fn a_script_operand_that_is_not_a_regular_file_ends_in_a_decision_within_its_bound() {
    // (name guarded-sh is called as, operand, the message after `script OPERAND `, reason id);
    // a FIFO is a pipe, read to its end within [limits] max_pipe_seconds: this one never gets a
    // writer.
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            "guarded-sh",
            "{dir}/fifo",
            "did not end within 1 s",
            "input.timed_out",
        ),
        (
            "sh",
            "{dir}/fifo",
            "did not end within 1 s",
            "input.timed_out",
        ),
        (
            "guarded-sh",
            "/dev/zero",
            "is a character device, not a regular file",
            "input.not_regular",
        ),
        (
            "guarded-sh",
            "{dir}",
            "is a directory, not a regular file",
            "input.not_regular",
        ),
    ];
    for (name, operand, message, reason_id) in cases {
        let s = Setup::with(
            "[policy]\nenabled = false\n[limits]\nmax_pipe_seconds = 1\n[shells]\nsh = \"/bin/dash\"\n",
        );
        mkfifo(&s.path("fifo"));
        std::os::unix::fs::symlink(BIN, s.path("sh")).unwrap();
        let program = if *name == "sh" {
            s.path("sh")
        } else {
            PathBuf::from(BIN)
        };
        let operand = s.expand(operand);
        let r = run(
            s.command_for(&program, &[&operand]),
            b"",
            Duration::from_secs(15),
            false,
        );
        let at = format!("{name} {operand}");
        assert!(!r.timed_out && r.elapsed < DECIDED_WITHIN, "{at}: {r:?}");
        assert_eq!(r.code, Some(126), "{at}: {}", r.stderr);
        assert!(
            r.stderr.contains(&format!("script {operand} {message}")),
            "{at}: {}",
            r.stderr
        );
        one_record(&s, reason_id);
    }
}

/// A script from a pipe that ends is read whole and run (`bash <(curl …)` through the shim);
/// one whose writer keeps it open is denied at the bound.
#[test]
fn a_script_operand_from_a_pipe_runs_when_it_ends_in_time() {
    let s = Setup::with("[policy]\nenabled = false\n[limits]\nmax_pipe_seconds = 1\n");
    let outer = |snippet: &str| {
        let mut c = Command::new("/bin/bash");
        c.args(["--noprofile", "--norc", "-c", &snippet.replace("{sh}", BIN)]);
        s.configure(&mut c);
        run(c, b"", Duration::from_secs(15), false)
    };
    let r = outer("{sh} <(printf 'echo \"from a pipe $1\"\\n') x");
    assert_eq!(
        (r.code, r.stdout_text()),
        (Some(0), "from a pipe x\n".into()),
        "{}",
        r.stderr
    );
    // The writer keeps no copy of the test's stderr, so the run ends with guarded-sh.
    let r = outer("{sh} <(exec 2>/dev/null; echo echo never; sleep 8)");
    assert!(!r.timed_out && r.elapsed < DECIDED_WITHIN, "{r:?}");
    assert_eq!(r.code, Some(126), "{}", r.stderr);
    assert!(r.stderr.contains("did not end within 1 s"), "{}", r.stderr);
    assert!(!r.stdout_text().contains("never"));
}

/// How a test feeds the stdin pipe it keeps open.
#[derive(Clone, Copy, Debug)]
enum Feed {
    /// Nothing (`sleep 100 | guarded-sh`).
    Nothing,
    /// One complete command, then nothing (`(echo true; sleep 100) | guarded-sh -s`).
    OneLine,
    /// One byte every 100 ms, never an end.
    Trickle,
}

/// Runs the binary as `program` with `args`, its stdin a pipe fed by `feed` and never closed
/// while it runs; killed (and the test failed) after 15 s.
fn with_open_stdin(s: &Setup, program: &Path, args: &[&str], feed: Feed) -> (Option<i32>, String) {
    let mut c = s.command_for(program, args);
    c.stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = c.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let done = Arc::new(AtomicBool::new(false));
    let stop = Arc::clone(&done);
    let line = s.expand("touch {dir}/ran\n").into_bytes();
    let feeder = std::thread::spawn(move || {
        let mut sent = 0;
        while !stop.load(Ordering::Relaxed) {
            match feed {
                Feed::OneLine if sent == 0 => {
                    let _ = stdin.write_all(&line);
                    sent = line.len();
                }
                Feed::Trickle => {
                    let _ = stdin.write_all(&line[sent % line.len()..][..1]);
                    sent += 1;
                }
                _ => {}
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        drop(stdin);
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > Duration::from_secs(15) {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(child.id() as i32),
                nix::sys::signal::Signal::SIGKILL,
            );
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let elapsed = started.elapsed();
    done.store(true, Ordering::Relaxed);
    feeder.join().unwrap();
    let mut stderr = String::new();
    let _ = child.stderr.take().unwrap().read_to_string(&mut stderr);
    assert!(
        status.is_some() && elapsed < DECIDED_WITHIN,
        "{args:?} {feed:?}: no decision within {DECIDED_WITHIN:?} ({elapsed:?}): {stderr}"
    );
    (status.and_then(|s| s.code()), stderr)
}

#[test]
fn a_stdin_script_that_does_not_end_is_denied_within_its_bound() {
    for feed in [Feed::Nothing, Feed::OneLine, Feed::Trickle] {
        for (name, args) in [
            ("guarded-sh", &[][..]),
            ("guarded-sh", &["-s"][..]),
            ("sh", &["-s"][..]),
        ] {
            let s = Setup::with(
                "[policy]\nenabled = false\n[limits]\nmax_pipe_seconds = 1\n[shells]\nsh = \"/bin/dash\"\n",
            );
            std::os::unix::fs::symlink(BIN, s.path("sh")).unwrap();
            let program = if name == "sh" {
                s.path("sh")
            } else {
                PathBuf::from(BIN)
            };
            let (code, stderr) = with_open_stdin(&s, &program, args, feed);
            let at = format!("{name} {args:?} {feed:?}");
            assert_eq!(code, Some(126), "{at}: {stderr}");
            assert!(
                stderr.contains("stdin script did not end within 1 s"),
                "{at}: {stderr}"
            );
            one_record(&s, "input.timed_out");
            assert!(!exists(&s.path("ran")), "{at}: the script ran");
        }
    }
}

/// A stdin script that ends in time still runs whole (the bound does not cut it short).
#[test]
fn a_stdin_script_that_ends_in_time_runs() {
    let s = Setup::with("[policy]\nenabled = false\n[limits]\nmax_pipe_seconds = 5\n");
    let r = run(
        s.command(&["-s", "x"]),
        b"echo one\necho \"two $1\"\n",
        Duration::from_secs(15),
        false,
    );
    assert_eq!(
        (r.code, r.stdout_text()),
        (Some(0), "one\ntwo x\n".into()),
        "{}",
        r.stderr
    );
}

#[test]
fn a_host_vars_file_that_is_a_fifo_is_refused_at_once() {
    let s = Setup::with(
        "[policy]\ndir = \"{dir}/policies\"\n[target]\nhost_vars_file = \"{dir}/hostvars\"\n",
    );
    s.write("policies/honey.rego", FORBIDDEN_TOOL);
    mkfifo(&s.path("hostvars"));
    let command = s.expand("touch {dir}/ran");
    let r = run(
        s.command(&["-c", &command]),
        b"",
        Duration::from_secs(15),
        false,
    );
    assert!(!r.timed_out && r.elapsed < DECIDED_WITHIN, "{r:?}");
    assert_eq!(r.code, Some(126), "{}", r.stderr);
    assert!(
        r.stderr.contains("is a FIFO, not a regular file"),
        "{}",
        r.stderr
    );
    assert!(!exists(&s.path("ran")));
}

/// A hard link to the binary in `s` (the same inode), or `None` across file systems.
fn hard_link(s: &Setup) -> Option<PathBuf> {
    let link = s.path("gsh-hard");
    match std::fs::hard_link(BIN, &link) {
        Ok(()) => Some(link),
        Err(e) => {
            eprintln!("SKIP hard link to {BIN}: {e}");
            None
        }
    }
}

#[test]
fn a_real_shell_that_is_guarded_sh_itself_is_refused_with_one_record() {
    let probe = Setup::with("");
    let hard = hard_link(&probe).is_some();
    // (how the link is made, the key it is configured as, how guarded-sh is called, stdin)
    let cases: &[(&str, &str, &[&str], &str)] = &[
        ("symlink", "default", &["-c", "touch {dir}/ran"], ""),
        ("hard", "default", &["-c", "touch {dir}/ran"], ""),
        ("hard", "default", &["{dir}/script.sh"], ""),
        ("symlink", "default", &["-s"], "touch {dir}/ran\n"),
        ("symlink", "sh", &["-c", "touch {dir}/ran"], ""),
        ("hard", "sh", &["-c", "touch {dir}/ran"], ""),
    ];
    for (kind, key, args, stdin) in cases {
        if *kind == "hard" && !hard {
            continue;
        }
        let s = Setup::with(&format!(
            "[policy]\nenabled = false\n[shells]\n{key} = \"{{dir}}/gsh-{kind}\"\n"
        ));
        match *kind {
            "hard" => std::fs::hard_link(BIN, s.path("gsh-hard")).unwrap(),
            _ => std::os::unix::fs::symlink(BIN, s.path("gsh-symlink")).unwrap(),
        }
        s.write("script.sh", &s.expand("touch {dir}/ran\n"));
        let program = if *key == "sh" {
            std::os::unix::fs::symlink(BIN, s.path("sh")).unwrap();
            s.path("sh")
        } else {
            PathBuf::from(BIN)
        };
        let args: Vec<String> = args.iter().map(|a| s.expand(a)).collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let r = run(
            s.command_for(&program, &args),
            s.expand(stdin).as_bytes(),
            Duration::from_secs(10),
            false,
        );
        let at = format!("{kind} link as shells.{key}, {args:?}");
        assert!(!r.timed_out && r.elapsed < DECIDED_WITHIN, "{at}: {r:?}");
        assert_eq!(r.code, Some(126), "{at}: {}", r.stderr);
        assert!(
            r.stderr
                .contains(&format!("shells.{key} is guarded-sh itself")),
            "{at}: {}",
            r.stderr
        );
        one_record(&s, "config.shell_is_self");
        assert!(!exists(&s.path("ran")), "{at}: ran");
    }
}

/// The session shell (`interactive.shell`) too, for a login on a terminal.
#[test]
fn an_interactive_shell_that_is_guarded_sh_itself_is_refused_with_one_record() {
    let s = Setup::with(
        "[policy]\nenabled = false\n[interactive]\nshell = \"{dir}/gsh-symlink\"\nhook = \"{dir}/hook.bash\"\n",
    );
    std::os::unix::fs::symlink(BIN, s.path("gsh-symlink")).unwrap();
    s.write("hook.bash", "# the session hook\n");
    let pty = nix::pty::openpty(None, None).unwrap();
    let slave = || Stdio::from(pty.slave.try_clone().unwrap());
    let mut c = Command::new("setsid");
    c.args(["-c", "-w", BIN]);
    s.configure(&mut c);
    let mut child = c
        .stdin(slave())
        .stdout(slave())
        .stderr(slave())
        .process_group(0)
        .spawn()
        .unwrap();
    // The command holds copies of the terminal: the screen ends only when they are closed.
    drop(c);
    drop(pty.slave);
    let mut master = std::fs::File::from(pty.master);
    let reader = std::thread::spawn(move || {
        let mut screen = Vec::new();
        let mut buf = [0u8; 1024];
        while let Ok(n) = master.read(&mut buf) {
            if n == 0 {
                break;
            }
            screen.extend_from_slice(&buf[..n]);
        }
        text(&screen)
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > Duration::from_secs(10) {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(child.id() as i32),
                nix::sys::signal::Signal::SIGKILL,
            );
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let screen = reader.join().unwrap();
    assert!(started.elapsed() < DECIDED_WITHIN, "{screen}");
    assert_eq!(status.and_then(|s| s.code()), Some(126), "{screen}");
    assert!(
        screen.contains("interactive.shell is guarded-sh itself"),
        "{screen}"
    );
    one_record(&s, "config.shell_is_self");
}

/// A copy of the binary is another file, so the first hop execs it; the copy then finds that
/// the shell it is configured with is itself, and refuses: two records, no loop.
#[test]
fn a_copy_of_guarded_sh_as_the_real_shell_stops_at_the_second_hop() {
    let s = Setup::with("[policy]\nenabled = false\n[shells]\ndefault = \"{dir}/gsh-copy\"\n");
    std::fs::copy(BIN, s.path("gsh-copy")).unwrap();
    let command = s.expand("touch {dir}/ran");
    let r = run(
        s.command(&["-c", &command]),
        b"",
        Duration::from_secs(10),
        false,
    );
    assert!(!r.timed_out && r.elapsed < DECIDED_WITHIN, "{r:?}");
    assert_eq!(r.code, Some(126), "{}", r.stderr);
    assert!(
        r.stderr.contains("shells.default is guarded-sh itself"),
        "{}",
        r.stderr
    );
    let records = s.audit();
    assert_eq!(records.len(), 2, "{records:?}");
    assert_eq!(records[1]["reason_id"], "config.shell_is_self");
    assert!(!exists(&s.path("ran")));
}

/// A real shell that is a wrapper around guarded-sh (a script that execs it) is a different
/// program: nothing at load time can tell that it comes back to guarded-sh.
// Known gap: stopping it needs a marker carried across the exec (an environment variable or an
// inherited descriptor), which would change what the real shell is given.
#[test]
#[ignore = "known gap: a wrapper script that execs guarded-sh, configured as the real shell, is not recognised and re-executes until killed"]
fn a_wrapper_around_guarded_sh_as_the_real_shell_is_refused() {
    let s = Setup::with("[policy]\nenabled = false\n[shells]\ndefault = \"{dir}/wrap\"\n");
    let wrapper = s.write("wrap", &format!("#!/bin/sh\nexec {BIN} \"$@\"\n"));
    std::fs::set_permissions(
        &wrapper,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let r = run(
        s.command(&["-c", "true"]),
        b"",
        Duration::from_secs(5),
        false,
    );
    assert!(!r.timed_out, "{} records", s.audit().len());
    assert!(s.audit().len() <= 2, "{} records", s.audit().len());
}
