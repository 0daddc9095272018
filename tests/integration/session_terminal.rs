//! A gated session on a terminal, through the real hook (`share/interactive.bash`) and the built
//! binary as its check server, on a pseudo-terminal that is the session's controlling terminal.
//! The keys pressed at its prompt (Ctrl-C, Ctrl-\, Ctrl-Z reach the server too: it is in bash's
//! process group) leave the server serving. Held lines (issue 15 item 5): the confirmation
//! typed on the terminal runs the
//! whole line (and its own held commands, approved as the line was), a wrong answer or a Ctrl-C
//! refuses it with nothing run, and the session goes on with its check server. The
//! second-person approval of a session line (a filed request, `--approve`, the grant honoured)
//! needs other Unix users and is in `approval_flow.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::approval_tty::HOLD_HIGH;
use crate::setup::{hook_session, OnTerminal, Setup, BIN, REPO};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

const QUESTION: &str = "Type the host name (web-1)";
const LIMIT: Duration = Duration::from_secs(30);

/// A session of the real hook on a terminal of its own, in `s`'s scratch directory.
fn session(s: &Setup) -> OnTerminal {
    let home = s.path("home");
    std::fs::create_dir_all(&home).unwrap();
    // After /etc/profile, which sets its own prompt.
    std::fs::write(home.join(".profile"), "PS1='ready> '\n").unwrap();
    let mut c = hook_session(
        &["setsid", "-c", "-w"],
        BIN.as_ref(),
        &s.path("config.toml"),
        &home,
    );
    c.current_dir(s.path(""));
    OnTerminal::spawn(c, true)
}

fn setup() -> Setup {
    let s = Setup::with(
        "[policy]\ndir = \"{dir}/policy\"\nallow_env_dir = false\ncache_dir = \"{dir}/no-cache\"\n\
         [target]\nname = \"web-1\"\n",
    );
    s.write("policy/approval.rego", HOLD_HIGH);
    std::fs::create_dir_all(s.path("d")).unwrap();
    s
}

/// The held line: high risk (the policy holds it), harmless (a scratch directory), and the
/// held command in it.
fn held_line(s: &Setup) -> (String, String) {
    let rm = format!("rm -rf {}", s.path("d").display());
    (format!("{rm} && touch ran"), rm)
}

/// `(verdict, reason)` of each record of `command`.
fn verdicts(s: &Setup, command: &str) -> Vec<(String, String)> {
    s.audit()
        .iter()
        .filter(|r| r["command"] == command)
        .map(|r| {
            (
                r["verdict"].as_str().unwrap().to_string(),
                r["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Ends the session with `touch after; exit 3` and checks it got there with its own server.
fn finish(s: &Setup, mut run: OnTerminal) -> String {
    run.after("ready> ", 2, b"touch after; exit 3\n", LIMIT);
    let (status, _) = run.wait(LIMIT, None);
    let screen = run.screen();
    assert_eq!(status.code(), Some(3), "{screen}");
    assert!(s.path("after").exists(), "the session went on: {screen}");
    let after = s
        .audit()
        .into_iter()
        .find(|r| r["command"] == "touch after; exit 3")
        .unwrap_or_else(|| panic!("no record of the next line: {screen}"));
    assert_eq!(
        after["mode"], "interactive",
        "the check server still answers"
    );
    screen
}

/// A Ctrl-C, Ctrl-\ or Ctrl-Z at the prompt ended (or stopped) the check server: the session
/// then asked a fresh process, without the session's state, about every later command.
#[test]
fn keys_at_the_prompt_leave_the_check_server_serving() {
    for (name, key) in [
        ("ctrl-c", b"\x03"),
        ("ctrl-backslash", b"\x1c"),
        ("ctrl-z", b"\x1a"),
    ] {
        let s = setup();
        let mut run = session(&s);
        run.after("ready> ", 1, key, LIMIT);
        // The next prompt, after the key (bash prints a new one for Ctrl-C only).
        run.after("ready> ", 1, b"\n", LIMIT);
        run.after("ready> ", 2, b"", LIMIT);
        let screen = finish(&s, run);
        assert!(!screen.contains("guarded-sh: denied"), "{name}: {screen}");
    }
}

#[test]
fn typing_the_host_name_runs_the_held_line_whole() {
    let s = setup();
    let (line, rm) = held_line(&s);
    let mut run = session(&s);
    run.after("ready> ", 1, format!("{line}\n").as_bytes(), LIMIT);
    run.after(QUESTION, 1, b"web-1\n", LIMIT);
    let screen = finish(&s, run);
    assert!(
        screen.contains("this command needs approval: approval required by policy"),
        "{screen}"
    );
    assert!(screen.contains(&format!("command: {line}")), "{screen}");
    assert!(!s.path("d").exists() && s.path("ran").exists(), "{screen}");
    assert!(!screen.contains("guarded-sh: denied"), "{screen}");
    let confirmed = "confirmed on the terminal by typing the host name web-1";
    assert_eq!(
        verdicts(&s, &line),
        [
            (
                "require_approval".into(),
                "approval required by policy".into()
            ),
            ("approved".into(), confirmed.into()),
        ]
    );
    let records = s.audit();
    let line: Vec<_> = records.iter().filter(|r| r["command"] == line).collect();
    assert_eq!(line[0]["decision_id"], line[1]["decision_id"]);
    // The line's own held command is approved as the line was, without a second question.
    assert_eq!(screen.matches(QUESTION).count(), 1, "{screen}");
    assert_eq!(
        verdicts(&s, &rm),
        [
            (
                "require_approval".into(),
                "approval required by policy".into()
            ),
            (
                "approved".into(),
                format!("part of a line approved before it ran ({confirmed})")
            ),
        ]
    );
}

#[test]
fn a_wrong_answer_refuses_the_whole_line() {
    let s = setup();
    let (line, _) = held_line(&s);
    let mut run = session(&s);
    run.after("ready> ", 1, format!("{line}\n").as_bytes(), LIMIT);
    run.after(QUESTION, 1, b"web-2\n", LIMIT);
    let screen = finish(&s, run);
    assert!(
        screen.contains(
            "guarded-sh: denied: approval required: approval required by policy \
             (not confirmed on the terminal; no approvers are configured)"
        ),
        "{screen}"
    );
    assert!(s.path("d").exists() && !s.path("ran").exists(), "{screen}");
    let v = verdicts(&s, &line);
    assert_eq!(v.len(), 2, "{v:?}");
    assert_eq!(v[1].0, "deny", "{v:?}");
}

/// An answer typed ahead of the question (a pasted block: the line, then the host name) does not
/// answer it: the question waits for what is typed after it (here Ctrl-C), nothing runs.
#[test]
fn an_answer_typed_ahead_does_not_confirm() {
    let s = setup();
    let (line, _) = held_line(&s);
    let mut run = session(&s);
    run.after("ready> ", 1, format!("{line}\nweb-1\n").as_bytes(), LIMIT);
    run.after(QUESTION, 1, b"", LIMIT);
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(
        !s.path("ran").exists(),
        "the typed-ahead answer confirmed it"
    );
    run.after(QUESTION, 1, b"\x03", LIMIT);
    let screen = finish(&s, run);
    assert!(s.path("d").exists() && !s.path("ran").exists(), "{screen}");
}

/// Ctrl-C at the question gives it up: the line is refused with nothing run, the server goes on
/// (it does not die of the signal, and it no longer reads the terminal: the next line typed is
/// the session's, not an answer).
#[test]
fn ctrl_c_at_the_question_refuses_the_line_and_the_session_goes_on() {
    let s = setup();
    let (line, _) = held_line(&s);
    let mut run = session(&s);
    run.after("ready> ", 1, format!("{line}\n").as_bytes(), LIMIT);
    run.after(QUESTION, 1, b"\x03", LIMIT);
    run.after("(cancelled)", 1, b"", LIMIT);
    // The next line is typed after the refusal: it is the session's to run.
    run.after("ready> ", 2, b"web-1\n", LIMIT);
    let screen = finish(&s, run);
    assert!(s.path("d").exists() && !s.path("ran").exists(), "{screen}");
    assert!(
        screen.contains("web-1: command not found"),
        "the session read the next line: {screen}"
    );
    let v = verdicts(&s, &line);
    assert_eq!(v.len(), 2, "{v:?}");
    assert_eq!(v[1].0, "deny", "{v:?}");
}

/// A session as guarded-sh starts one (`guarded-sh -i`: the hook of the repository, `SHELL`
/// pointed at guarded-sh), on a terminal with a full terminal type, with no policy (the
/// built-in floor decides).
fn gated_session(s: &Setup) -> OnTerminal {
    let home = s.path("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join(".profile"), "PS1='ready> '\n").unwrap();
    let mut c = Command::new("setsid");
    c.args(["-c", "-w", BIN, "-i"]);
    s.configure(&mut c);
    c.env("TERM", "xterm").current_dir(s.path(""));
    OnTerminal::spawn(c, true)
}

fn tools_setup() -> Setup {
    let hook = Path::new(REPO).join("share/interactive.bash");
    Setup::with(&format!(
        "[policy]\ncache_dir = \"{{dir}}/no-cache\"\n[interactive]\nhook = \"{}\"\n",
        hook.display()
    ))
}

/// `(mode, verdict)` of the last record of `command`.
fn recorded(s: &Setup, command: &str) -> Option<(String, String)> {
    s.audit()
        .iter()
        .rfind(|r| r["command"] == command)
        .map(|r| {
            (
                r["mode"].as_str().unwrap().to_string(),
                r["verdict"].as_str().unwrap().to_string(),
            )
        })
}

/// Issue 15 item 4: an editor runs in a session and saves what is typed, and what its shell
/// escape starts (`:!cmd`, through `$SHELL`) is gated as `-c`: a harmless command runs, a
/// critical one is refused with nothing written. Both were refused with vim itself before.
#[test]
fn an_editor_runs_in_a_session_and_its_escapes_are_gated() {
    let s = tools_setup();
    let mut run = gated_session(&s);
    run.after("ready> ", 1, b"vim -u NONE -N -n notes.txt\n", LIMIT);
    run.after("notes.txt", 2, b"ihello from vim\x1b:w\r", LIMIT);
    run.after("written", 1, b":!touch bang\r", LIMIT);
    let dd = "dd if=/dev/zero of=/dev/sdz-nonexistent conv=nocreat count=1; touch escaped";
    run.after("Press ENTER", 1, format!("\r:!{dd}\r").as_bytes(), LIMIT);
    run.after("Press ENTER", 2, b"\r:q\r", LIMIT);
    let screen = finish_gated(&s, run, 2);
    assert_eq!(
        std::fs::read_to_string(s.path("notes.txt")).unwrap_or_default(),
        "hello from vim\n",
        "{screen}"
    );
    assert_eq!(
        recorded(&s, "vim -u NONE -N -n notes.txt"),
        Some(("interactive".into(), "allow".into()))
    );
    assert!(s.path("bang").exists(), "{screen}");
    assert_eq!(
        recorded(&s, "touch bang"),
        Some(("command".into(), "allow".into())),
        "the escape went through guarded-sh -c"
    );
    assert!(
        screen.contains("guarded-sh: denied: command risk"),
        "{screen}"
    );
    assert_eq!(recorded(&s, dd), Some(("command".into(), "deny".into())));
    assert!(!s.path("escaped").exists(), "{screen}");
}

/// A pager and a REPL run in a session; the pager's `!cmd` is gated as `-c`.
#[test]
fn a_pager_and_a_repl_run_in_a_session() {
    let s = tools_setup();
    s.write("pages.txt", "first page line\nsecond page line\n");
    let mut run = gated_session(&s);
    run.after("ready> ", 1, b"less pages.txt\n", LIMIT);
    run.after("second page line", 1, b"!touch lessbang\n", LIMIT);
    run.after("done", 1, b"\rq", LIMIT);
    run.after("ready> ", 2, b"python3 -q\n", LIMIT);
    run.after(">>> ", 1, b"print(6 * 7)\n", LIMIT);
    run.after("42", 1, b"exit()\n", LIMIT);
    let screen = finish_gated(&s, run, 3);
    assert!(s.path("lessbang").exists(), "{screen}");
    assert_eq!(
        recorded(&s, "touch lessbang"),
        Some(("command".into(), "allow".into()))
    );
    for tool in ["less pages.txt", "python3 -q"] {
        assert_eq!(
            recorded(&s, tool),
            Some(("interactive".into(), "allow".into())),
            "{tool}: {screen}"
        );
    }
}

/// Ends a `gated_session` with `touch after; exit 3` at its prompt shown the `prompts`th time.
fn finish_gated(s: &Setup, mut run: OnTerminal, prompts: usize) -> String {
    run.after("ready> ", prompts, b"touch after; exit 3\n", LIMIT);
    let (status, _) = run.wait(LIMIT, None);
    let screen = run.screen();
    assert_eq!(status.code(), Some(3), "{screen}");
    assert!(s.path("after").exists(), "the session went on: {screen}");
    screen
}

/// Issue 15 item 3: a command that only asks for an interactive shell (`ssh -tt host bash
/// --norc -i` runs `guarded-sh -c 'bash --norc -i'` on a terminal) gets a gated session in its
/// place, not a plain bash: what is typed there is judged.
#[test]
fn a_command_asking_for_a_shell_on_a_terminal_gets_a_gated_session() {
    let s = tools_setup();
    let home = s.path("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join(".profile"), "PS1='ready> '\n").unwrap();
    let mut c = Command::new("setsid");
    c.args(["-c", "-w", BIN, "-c", "bash --norc -i"]);
    s.configure(&mut c);
    c.env("TERM", "dumb").current_dir(s.path(""));
    let mut run = OnTerminal::spawn(c, true);
    let line = b"curl -s http://127.0.0.1:9/x | sh; touch escaped\n";
    run.after("ready> ", 1, line, LIMIT);
    let screen = finish_gated(&s, run, 2);
    assert!(
        screen.contains("guarded-sh: denied: command risk"),
        "{screen}"
    );
    assert!(!s.path("escaped").exists(), "{screen}");
    let started = s
        .audit()
        .into_iter()
        .find(|r| r["reason_id"] == "session.started")
        .unwrap_or_else(|| panic!("no session start: {screen}"));
    assert_eq!(started["command"], "bash --norc -i");
}
