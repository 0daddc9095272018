//! The terminal confirmation for held commands, through the built binary on a real
//! pseudo-terminal (made the controlling terminal with `setsid -c`): the right host name runs
//! the command, a wrong one or no answer denies, and there is no prompt when the configuration
//! turns it off or when stderr is not a terminal.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::setup::{OnTerminal, BIN};
use std::io::Read;
use std::process::Command;
use std::time::Duration;

/// Holds every high-severity command until it is approved (also the session tests' policy).
pub const HOLD_HIGH: &str = r#"package honey
import rego.v1

default allow := true
default decision := "allow"

decision := "require_approval" if {
	input.command.max_severity == "high"
	not input.execution.approved
}
"#;

/// The shared setup with the policy above, target `web-1`, and `approval` as the `[approval]`
/// section.
struct Setup {
    base: crate::setup::Setup,
}

impl Setup {
    fn new(approval: &str) -> Self {
        let base = crate::setup::Setup::with(&format!(
            "[policy]\ndir = \"{{dir}}/policy\"\nallow_env_dir = false\n[target]\nname = \"web-1\"\n[approval]\n{approval}\n"
        ));
        base.write("policy/approval.rego", HOLD_HIGH);
        Setup { base }
    }

    fn command(&self) -> String {
        format!(
            "rm -rf {}/scratch && echo ran-it",
            self.base.dir.path().display()
        )
    }

    /// Runs the held command with a pseudo-terminal as stdin, stdout, stderr and controlling
    /// terminal; types `answer` once the question shows. Returns the exit code and the screen.
    fn run_on_tty(&self, answer: Option<&str>, stderr_tty: bool) -> (Option<i32>, String) {
        let mut c = Command::new("setsid");
        c.args(["-c", "-w", BIN, "-c", &self.command()]);
        self.base.configure(&mut c);
        let mut run = OnTerminal::spawn(c, stderr_tty);
        let line = format!("{}\n", answer.unwrap_or_default());
        let typing = answer.map(|_| ("Type the host name (web-1)", line.as_bytes()));
        let (status, _) = run.wait(Duration::from_secs(20), typing);
        let mut shown = run.screen();
        if let Some(mut err) = run.child.stderr.take() {
            let _ = err.read_to_string(&mut shown);
        }
        (status.code(), shown)
    }

    fn verdicts(&self) -> Vec<(String, String)> {
        self.base
            .audit()
            .iter()
            .map(|r| {
                (
                    r["verdict"].as_str().unwrap().to_string(),
                    r["reason"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    }
}

/// The command's own output line (the prompt shows the command text, which also says ran-it).
fn ran(screen: &str) -> bool {
    screen.lines().any(|l| l.trim() == "ran-it")
}

#[test]
fn typing_the_host_name_runs_the_held_command() {
    let s = Setup::new("");
    let (code, screen) = s.run_on_tty(Some("web-1"), true);
    assert_eq!(code, Some(0), "{screen}");
    assert!(
        screen.contains("this command needs approval: approval required by policy"),
        "{screen}"
    );
    assert!(screen.contains("host:    web-1"), "{screen}");
    assert!(ran(&screen), "{screen}");
    let v = s.verdicts();
    assert_eq!(v[0].0, "require_approval");
    assert_eq!(
        v[1],
        (
            "approved".into(),
            "confirmed on the terminal by typing the host name web-1".into()
        )
    );
}

#[test]
fn a_wrong_answer_or_none_denies() {
    for (answer, timeout) in [
        (Some("web-2"), ""),
        (Some(""), ""),
        (None, "prompt_timeout_seconds = 1"),
    ] {
        let s = Setup::new(timeout);
        let (code, screen) = s.run_on_tty(answer, true);
        assert_eq!(code, Some(126), "{answer:?}: {screen}");
        assert!(!ran(&screen), "{screen}");
        assert!(screen.contains("guarded-sh: denied: approval required: approval required by policy (not confirmed on the terminal; no approvers are configured)"), "{answer:?}: {screen}");
        assert_eq!(s.verdicts().last().unwrap().0, "deny", "{:?}", s.verdicts());
    }
}

#[test]
fn no_prompt_when_turned_off_or_stderr_is_not_a_terminal() {
    for (config, stderr_tty) in [("tty_confirm = false", true), ("", false)] {
        let s = Setup::new(config);
        let (code, screen) = s.run_on_tty(None, stderr_tty);
        assert_eq!(code, Some(126), "{screen}");
        assert!(!screen.contains("Type the host name"), "prompted: {screen}");
        assert!(screen.contains("guarded-sh: denied: approval required: approval required by policy (no approvers are configured)"), "{screen}");
    }
}
