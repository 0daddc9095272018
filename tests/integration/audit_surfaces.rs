//! Fail closed on every surface that audits (issue 20 item 2): with no sink that records (the
//! system log off, no file), a `-c` command, a script, a script on stdin, the hook's check and
//! an interactive session are all denied, naming the setting, and nothing of them runs; only
//! `exit` from a session still works. (`--approve` applies the same rule, `audit::Delivery::refusal`,
//! and is tested with the approval flow's real users only.)

use crate::setup::{exists, OnTerminal, Setup};
use std::time::Duration;

/// The refusal, naming the configuration file in use (the test's, by `GUARDED_SH_CONFIG`).
fn no_sink_message(s: &Setup) -> String {
    format!(
        "guarded-sh: denied: no audit sink recorded this decision (none is configured or \
         present); set [audit] system_log or [audit] file in {} [audit.no_sink]",
        s.path("config.toml").display()
    )
}

/// A setup whose configuration has no sink at all (written as is: `Setup::new` would add a file).
fn no_sink(extra: &str) -> Setup {
    let s = Setup::new("");
    s.write(
        "config.toml",
        &s.expand(&format!(
            "[audit]\nsystem_log = \"off\"\n[policy]\nenabled = false\n{extra}"
        )),
    );
    s
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn commands_scripts_and_stdin_are_denied_without_a_sink() {
    let s = no_sink("");
    let touch = s.expand("touch {dir}/ran\n");
    let script = s.write("script.sh", &touch);
    let runs: [(&str, std::process::Output); 3] = [
        ("-c", s.output(&["-c", &touch])),
        ("script", s.output(&[script.to_str().unwrap()])),
        ("stdin", s.output_with_stdin(&[], touch.as_bytes())),
    ];
    for (label, out) in runs {
        assert_eq!(out.status.code(), Some(126), "{label}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(&no_sink_message(&s)),
            "{label}: {}",
            stderr(&out)
        );
        assert!(out.stdout.is_empty(), "{label}");
        assert!(!exists(&s.path("ran")), "{label}: ran unrecorded");
    }
    // The same configuration with a file: it runs.
    let s = Setup::with("[policy]\nenabled = false\n");
    let out = s.output(&["-c", &s.expand("touch {dir}/ran")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(exists(&s.path("ran")));
}

#[test]
fn the_hooks_check_is_denied_without_a_sink_but_exit_is_not() {
    let s = no_sink("");
    let out = s.output(&["--hook-check", "true"]);
    assert_eq!(out.status.code(), Some(126), "{}", stderr(&out));
    assert!(stderr(&out).contains("[audit.no_sink]"), "{}", stderr(&out));
    let out = s.output(&["--hook-check", "exit"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn an_interactive_session_does_not_start_without_a_sink() {
    let s = no_sink("[interactive]\nhook = \"{dir}/hooks/hook.bash\"\n");
    s.write("hooks/hook.bash", "echo HOOK-RAN\nexit 0\n");
    let mut session = OnTerminal::spawn(s.command(&["-i"]), true);
    let (status, _) = session.wait(Duration::from_secs(30), None);
    let screen = session.screen();
    assert_eq!(status.code(), Some(126), "{screen}");
    assert!(screen.contains("[audit.no_sink]"), "{screen}");
    assert!(screen.contains("no ungated shell is started"), "{screen}");
    assert!(!screen.contains("HOOK-RAN"), "{screen}");
}
