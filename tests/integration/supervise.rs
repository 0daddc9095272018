//! Exec supervision with the built binary: the table `tests/supervise/runs.tsv` (refusals with no
//! effect, benign runs unchanged, audit mode, the account filter, setuid and a kernel without
//! support), then the cases a table cannot hold: a pager's `!cmd` on a terminal, death by signal,
//! one record per exec with the real shell's own exec not judged twice, and the policy input.

use super::setup::{self, Setup};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::time::Duration;

const PAYLOAD: &str =
    "touch {dir}/RAN\ndd if=/dev/zero of=/dev/sdz-nonexistent conv=nocreat count=1 2>/dev/null\n";

/// Longest a row may run: a supervisor that misses its child's exit hangs, and fails here.
const RUN_LIMIT: Duration = Duration::from_secs(60);

/// A scratch directory with the fixtures the table names and `[supervise]` set to `settings`.
fn fixture(settings: &str) -> Setup {
    let s = Setup::with(&format!(
        "[policy]\nenabled = false\n[supervise]\n{settings}\n"
    ));
    s.write("payload.sh", &s.expand(PAYLOAD));
    // The same as programs of their own, for an exec by descriptor.
    for (name, text) in [
        ("payload.exe", s.expand(&format!("#!/bin/sh\n{PAYLOAD}"))),
        ("benign.exe", "#!/bin/sh\necho benign\n".to_string()),
    ] {
        use std::os::unix::fs::PermissionsExt;
        let path = s.write(name, &text);
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    s.write("payload.txt", &s.expand(&PAYLOAD.replace('\n', "; ")));
    s.write(
        "run.py",
        &s.expand("import os\nos.system(open('{dir}/payload.txt').read())\n"),
    );
    s.write("list.txt", &s.expand("{dir}/payload.sh\n"));
    s.write("escape.vim", &s.expand("silent !sh {dir}/payload.sh\n"));
    s.write("mk/Makefile", &s.expand("all:\n\tsh {dir}/payload.sh\n"));
    s.write(
        "cprog/hello.c",
        "#include <stdio.h>\nint main(void) { puts(\"hello from C\"); return 0; }\n",
    );
    s.write("cprog/Makefile", "hello: hello.c\n\tcc -o hello hello.c\n");
    s.write(
        "actions_avail",
        "kill_process kill_thread trap errno trace log allow\n",
    );
    let repo = s.path("repo");
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(&repo)
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            setup::text(&out.stderr)
        );
    };
    std::fs::create_dir_all(&repo).unwrap();
    git(&["init", "-q"]);
    git(&["config", "alias.x", &s.expand("!sh {dir}/payload.sh")]);
    s
}

fn user() -> String {
    nix::unistd::User::from_uid(nix::unistd::getuid())
        .unwrap()
        .unwrap()
        .name
}

fn exec_records(s: &Setup) -> Vec<serde_json::Value> {
    s.audit()
        .into_iter()
        .filter(|r| r["mode"] == "exec")
        .collect()
}

#[test]
fn supervised_runs_table() {
    let rows = setup::table("supervise/runs.tsv");
    assert!(rows.len() >= 20, "{} rows", rows.len());
    let mut failures = Vec::new();
    for (line, f) in rows {
        let [name, settings, command, status, stdout, stderr, present, absent, refused] = &f[..]
        else {
            panic!("runs.tsv:{line}: {} fields", f.len());
        };
        let settings = setup::unescape(settings).replace("{user}", &user());
        let s = fixture(if settings == "-" { "" } else { &settings });
        let command = s.expand(command).replace("{bin}", setup::BIN);
        // stdin is an empty pipe: a gate that reads it to its end (`sh` with no script reads
        // its program from stdin) starts its signal thread, which must not take the SIGCHLD
        // the supervisor waits for (that hung the run once).
        let out = setup::run(s.command(&["-c", &command]), b"", RUN_LIMIT, false);
        let (out_text, err_text) = (setup::text(&out.stdout), out.stderr.clone());
        let mut wrong = Vec::new();
        if out.timed_out {
            wrong.push(format!("still running after {RUN_LIMIT:?}"));
        }
        let code = out.code;
        let status_ok = match status.as_str() {
            "any" => true,
            "nonzero" => code.is_some_and(|c| c != 0),
            n => code == n.parse().ok(),
        };
        if !status_ok {
            wrong.push(format!(
                "status {:?} (signal {:?}), want {status}",
                out.code, out.signal
            ));
        }
        if stdout != "-" && !out_text.contains(stdout.as_str()) {
            wrong.push(format!("stdout lacks {stdout:?}"));
        }
        if stderr != "-" && !err_text.contains(stderr.as_str()) {
            wrong.push(format!("stderr lacks {stderr:?}"));
        }
        for p in present.split(' ').filter(|p| *p != "-") {
            if !setup::exists(&s.path(p)) {
                wrong.push(format!("{p} absent"));
            }
        }
        for p in absent.split(' ').filter(|p| *p != "-") {
            if setup::exists(&s.path(p)) {
                wrong.push(format!("{p} present"));
            }
        }
        if refused != "-" {
            let records = exec_records(&s);
            let n = records
                .iter()
                .filter(|r| r["exec"]["refused"] == true)
                .count();
            let enough = match refused.strip_suffix('+') {
                Some(at_least) => n >= at_least.parse().unwrap(),
                None => n.to_string() == *refused,
            };
            if !enough {
                wrong.push(format!("{n} refused exec records, want {refused}"));
            }
        }
        if !wrong.is_empty() {
            failures.push(format!(
                "runs.tsv:{line} {name}: {}\n  stdout: {out_text}\n  stderr: {err_text}",
                wrong.join("; ")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_pagers_shell_command_is_refused_on_a_terminal() {
    let s = fixture("mode = \"enforce\"");
    s.write("page.txt", "a page\n");
    let command = s.expand("less '+!sh {dir}/payload.sh\n' {dir}/page.txt");
    let mut cmd = s.command(&["-c", &command]);
    cmd.env("TERM", "xterm").env("LESS", "");
    let mut terminal = setup::OnTerminal::spawn(cmd, true);
    // less says `!done` once the command ended (here: refused); then a return and `q` end it.
    let (status, typed) = terminal.wait(Duration::from_secs(20), Some(("done", b"\rq")));
    let screen = terminal.screen();
    assert!(typed, "{screen}");
    assert!(status.success(), "{status:?} {screen}");
    assert!(screen.contains("guarded-sh: denied:"), "{screen}");
    assert!(!setup::exists(&s.path("RAN")), "{screen}");
}

/// Job control and the terminal's size under supervision, as a user meets them: in an
/// interactive bash on a terminal of its own, a supervised command (blocked on a FIFO the test
/// holds) is resized (the command's own shell gets SIGWINCH and reads the new size), stopped
/// with ^Z (the shell reports it stopped), resumed with `fg` and let go, and finishes with its
/// status. The same dialogue unsupervised shows the harness asks nothing supervision does not
/// owe.
#[test]
fn job_control_and_window_size_under_supervision() {
    for settings in ["mode = \"enforce\"", "mode = \"off\""] {
        let s = fixture(settings);
        let go = s.path("go");
        nix::unistd::mkfifo(&go, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let mut shell = s.command_for(
            Path::new("setsid"),
            &["--ctty", "bash", "--norc", "--noprofile", "-i"],
        );
        shell.env("PS1", "gsh$ ").env("TERM", "dumb");
        let mut terminal = setup::OnTerminal::spawn(shell, true);
        let limit = Duration::from_secs(20);
        terminal.after("gsh$ ", 1, b"tty\r", limit);
        // The outputs differ from the typed text (arithmetic), so the screen tells them apart.
        let command = format!(
            "{} -c 'trap \"echo winch-\\$((40+2))\" WINCH; echo started-$((0+1)); cat {}; stty size; echo resumed-$((6*7))'\r",
            setup::BIN,
            go.display()
        );
        terminal.after("gsh$ ", 2, command.as_bytes(), limit);
        terminal.after("started-1", 1, b"", limit);
        let screen = terminal.screen();
        let tty = screen
            .lines()
            .find_map(|l| l.trim().strip_prefix("/dev/pts/"))
            .map(|n| format!("/dev/pts/{n}"))
            .unwrap_or_else(|| panic!("{settings}: no tty shown: {screen}"));
        let resized = std::process::Command::new("stty")
            .args(["-F", &tty, "rows", "40", "cols", "100"])
            .status()
            .unwrap();
        assert!(resized.success(), "{settings}: stty -F {tty}");
        terminal.after("started-1", 1, b"\x1a", limit);
        terminal.after("Stopped", 1, b"fg\r", limit);
        // `cat` ends once the FIFO is written and closed (the write waits for its reader).
        let writer = std::thread::spawn(move || std::fs::write(go, "").unwrap());
        terminal.after("resumed-42", 1, b"echo status-$?\r", limit);
        terminal.after("status-0", 1, b"exit\r", limit);
        let (status, _) = terminal.wait(limit, None);
        writer.join().unwrap();
        let screen = terminal.screen();
        assert!(status.success(), "{settings}: {status:?} {screen}");
        assert!(screen.contains("winch-42"), "{settings}: {screen}");
        assert!(screen.contains("40 100"), "{settings}: {screen}");
        assert!(!screen.contains("guarded-sh:"), "{settings}: {screen}");
    }
}

/// An exec by the 32-bit system call ABI (`int 0x80`) is not a native `execve` the supervisor
/// is told of: the filter kills the process that makes it (SIGSYS) in both modes, and nothing
/// runs. Unsupervised, the same program does run its command (the stand-in: a file touched);
/// where it cannot (a kernel without 32-bit emulation) there is nothing to show, and the test
/// says so.
#[cfg(target_arch = "x86_64")]
#[test]
fn an_exec_by_the_32_bit_abi_is_killed_not_run_unjudged() {
    for (settings, supervised) in [
        ("mode = \"off\"", false),
        ("mode = \"enforce\"", true),
        ("mode = \"audit\"", true),
    ] {
        let s = fixture(settings);
        let source = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/supervise/i386_exec.c");
        let program = s.path("i386_exec");
        let built = std::process::Command::new("cc")
            .args(["-no-pie", "-O0", "-o"])
            .arg(&program)
            .arg(source)
            .output()
            .unwrap();
        assert!(built.status.success(), "{}", setup::text(&built.stderr));
        let command = format!("{} {}", program.display(), s.path("RAN").display());
        let out = s.output(&["-c", &command]);
        let ran = setup::exists(&s.path("RAN"));
        let stderr = setup::text(&out.stderr);
        if supervised {
            // The shell execs the program in its place; guarded-sh dies of the same signal.
            assert_eq!(out.status.signal(), Some(31), "{settings}: {stderr}");
            assert!(!ran, "{settings}: the 32-bit exec ran");
        } else if out.status.signal() == Some(11) {
            eprintln!("SKIP: this kernel has no 32-bit emulation (int 0x80 faults)");
            return;
        } else {
            assert!(out.status.success(), "{settings}: {stderr}");
            assert!(
                ran,
                "{settings}: the stand-in never ran, so the test shows nothing"
            );
        }
    }
}

#[test]
fn the_refusal_goes_where_the_callers_errors_go() {
    let s = fixture("mode = \"enforce\"");
    // python's stderr is a log file: the shell it starts inherits it, and so does the reason
    // its exec was refused (as ansible reads a task's stderr from a pipe of its own).
    let command = s.expand("python3 {dir}/run.py 2>{dir}/err.log");
    let out = s.output(&["-c", &command]);
    let log = std::fs::read_to_string(s.path("err.log")).unwrap();
    assert!(
        log.contains("guarded-sh: denied: /bin/sh: command risk: dd writing to a block device"),
        "err.log: {log:?}"
    );
    let stderr = setup::text(&out.stderr);
    assert!(!stderr.contains("denied"), "{stderr}");
    assert!(!setup::exists(&s.path("RAN")));
}

#[test]
fn audit_mode_without_kernel_support_warns_once_per_session() {
    // The kernel's list, as the fixture writes it, lacks user_notif.
    let s = fixture("mode = \"audit\"\nactions_file = \"{dir}/actions_avail\"");
    // The start of a session warns; a command inside it (its id inherited) does not again.
    let own = s.output(&["-c", "true"]);
    assert!(
        setup::text(&own.stderr).contains("warning: exec supervision is off for this session"),
        "{}",
        setup::text(&own.stderr)
    );
    let inside = s
        .command(&["-c", "true"])
        .env("GUARDED_SH_SESSION", "0123456789abcdef0123456789abcdef")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(inside.status.success(), "{inside:?}");
    assert!(
        !setup::text(&inside.stderr).contains("warning"),
        "{}",
        setup::text(&inside.stderr)
    );
}

#[test]
fn death_by_signal_passes_through() {
    let s = fixture("mode = \"enforce\"");
    let out = s.output(&["-c", "/bin/sh -c 'kill -TERM $$'"]);
    assert_eq!(out.status.signal(), Some(15), "{:?}", out.status);
    let out = s.output(&["-c", "kill -USR1 $$"]);
    assert_eq!(out.status.signal(), Some(10), "{:?}", out.status);
}

#[test]
fn one_record_per_exec_and_the_real_shell_is_not_judged_twice() {
    let s = fixture("mode = \"audit\"");
    let out = s.output(&["-c", "/bin/true; /bin/echo one | /usr/bin/cat; true"]);
    assert!(out.status.success(), "{}", setup::text(&out.stderr));
    let records = s.audit();
    // The command's own record, then one per program it started (the builtin starts none, and
    // the real shell's exec is the command's own decision).
    assert_eq!(records[0]["mode"], "command");
    // The two sides of the pipe start at once: in either order.
    let mut commands: Vec<String> = exec_records(&s)
        .iter()
        .map(|r| r["command"].as_str().unwrap().to_string())
        .collect();
    commands.sort();
    assert_eq!(
        commands,
        ["/bin/echo one", "/bin/true", "/usr/bin/cat"],
        "{records:#?}"
    );
    for r in exec_records(&s) {
        assert_eq!(r["session_id"], records[0]["session_id"]);
        assert_eq!(r["exec"]["supervision"], "audit");
        assert!(
            r["exec"]["caller"].as_str().unwrap().ends_with("bash"),
            "{r}"
        );
    }
}

#[test]
fn the_policy_is_told_whether_the_run_is_supervised() {
    for (settings, supervised) in [("mode = \"enforce\"", true), ("mode = \"off\"", false)] {
        let s = fixture(settings);
        let out = s.output(&["--input", "ls"]);
        let input: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", setup::text(&out.stdout)));
        assert_eq!(input["execution"]["supervised"], supervised, "{settings}");
    }
}
