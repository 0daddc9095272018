//! guarded-sh's own command line through the built binary: `--help`, `--version` and
//! `--completions` by invocation name (a shim passes them to the real shell), each review
//! option, usage errors (exit 2, one line, nothing run), and the per-user review defaults file,
//! which the review surface reads and the shell surface never does.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::setup::BIN;

/// The shared setup (no syslog, no policy, a temporary home) with this module's helpers.
struct Setup {
    s: crate::setup::Setup,
}

impl Setup {
    fn new() -> Self {
        Setup {
            s: crate::setup::Setup::with("[policy]\nenabled = false\nallow_env_dir = false\n"),
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.s.path(name)
    }

    fn command(&self, program: &Path, args: &[&str]) -> Command {
        let mut c = self.s.command_for(program, args);
        c.stdin(Stdio::null());
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(Path::new(BIN), args).output().unwrap()
    }

    fn run_with_stdin(&self, args: &[&str], input: &[u8]) -> Output {
        // Options that do not read stdin may exit before it is written: a closed pipe is fine.
        crate::setup::output_with_stdin(self.command(Path::new(BIN), args), input)
    }

    /// A policy directory whose every decision is `deny` with `reason`.
    fn deny_all(&self, name: &str, reason: &str) -> PathBuf {
        let dir = self.path(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("deny.rego"),
            format!(
                "package honey\nimport rego.v1\ndefault allow := false\ndefault deny_reason := \"{reason}\"\n"
            ),
        )
        .unwrap();
        dir
    }

    /// Writes `~/.config/guarded-sh/review.toml` in the temporary home.
    fn review_defaults(&self, text: &str) -> PathBuf {
        let dir = self.path("home/.config/guarded-sh");
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("review.toml");
        std::fs::write(&file, text).unwrap();
        file
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn own_help_version_and_completions_when_called_as_guarded_sh() {
    let s = Setup::new();
    let version = format!("guarded-sh {} (commit ", env!("CARGO_PKG_VERSION"));
    // (argv, a line stdout must hold)
    let table: &[(&[&str], &str)] = &[
        (&["--help"], "Usage: guarded-sh"),
        (&["--gs-help"], "Usage: guarded-sh"),
        (&["--check", "ls", "--help"], "Usage: guarded-sh"),
        (&["--version"], &version),
        (&["--gs-version"], &version),
        (&["--completions", "bash"], "--check"),
        (&["--completions", "zsh"], "--check"),
        (&["--completions=fish"], "-l check"),
        (&["--completions", "bash"], "--input"),
        (&["--completions", "zsh"], "--input"),
        (&["--completions", "fish"], "-l input"),
    ];
    for (args, expected) in table {
        let out = s.run(args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(
            text(&out.stdout).contains(expected),
            "{args:?}: {}",
            text(&out.stdout)
        );
        assert!(out.stderr.is_empty(), "{args:?}: {}", text(&out.stderr));
    }
    let help = text(&s.run(&["--help"]).stdout);
    for option in [
        "--check <CMD>",
        "--check-file <FILE>",
        "--input <CMD>",
        "--list-signals",
        "--explain <ID>",
        "--policy-test <DIR>",
        "-v, --verbose",
        "--run <TEXT>",
        "--policy-test          0 every test run passed",
        "--approve <ID>",
        "--approvals",
        "--completions <SHELL>",
        "--json",
        "--shellcheck",
        "--target <NAME>",
        "--env <ENV>",
        "--host-var <K=V>",
        "--policy-dir <DIR>",
        "Exit statuses",
        "review.toml",
    ] {
        assert!(help.contains(option), "--help lacks {option}:\n{help}");
    }
    assert!(text(&s.run(&["--version"]).stdout).starts_with(&version));
}

/// `--version` names the commit the binary was built from (this checkout's HEAD: build.rs
/// reruns when it moves) and the format of the policy cache files it writes, so mixed versions
/// sharing a cache can be told apart.
#[test]
fn version_names_the_commit_and_the_cache_format_it_writes() {
    let s = Setup::new();
    s.s.config(
        "config.toml",
        "[audit]\nsyslog = false\nfile = \"{dir}/audit.jsonl\"\n[policy]\ndir = \"{dir}/policies\"\n\
         cache_dir = \"{dir}/cache\"\nallow_env_dir = false\n",
    );
    s.s.write("policies/p.rego", crate::setup::FORBIDDEN_TOOL);
    std::fs::create_dir_all(s.path("cache")).unwrap();
    let out = s.run(&["--version"]);
    let line = text(&out.stdout);
    let re_words: Vec<&str> = line
        .trim_end()
        .trim_end_matches(')')
        .split([' ', ',', '('])
        .filter(|w| !w.is_empty())
        .collect();
    // guarded-sh VERSION commit HASH policy cache MAGIC regorus VERSION
    assert_eq!(re_words.len(), 9, "{line:?}");
    assert_eq!(
        (
            re_words[0],
            re_words[1],
            re_words[2],
            re_words[4],
            re_words[5],
            re_words[7]
        ),
        (
            "guarded-sh",
            env!("CARGO_PKG_VERSION"),
            "commit",
            "policy",
            "cache",
            "regorus"
        ),
        "{line:?}"
    );
    let head = std::process::Command::new("git")
        .args(["-C", crate::setup::REPO, "rev-parse", "--short=7", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| text(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".to_string());
    assert_eq!(re_words[3], head, "{line:?}");
    // The cache file a run writes starts with the format --version names.
    let run = s.run(&["-c", "true"]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let files: Vec<_> = std::fs::read_dir(s.path("cache"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension() == Some("rvm".as_ref()))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let bytes = std::fs::read(&files[0]).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&bytes[..8]),
        re_words[6],
        "{line:?} vs {}",
        files[0].display()
    );
    assert!(
        re_words[8]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit()),
        "{line:?}"
    );
}

#[test]
fn shims_and_login_names_pass_help_and_version_to_the_real_shell() {
    let s = Setup::new();
    for name in ["sh", "bash", "dash"] {
        std::os::unix::fs::symlink(BIN, s.path(name)).unwrap();
    }
    // (how guarded-sh is called, argv[0], args; the real shell it stands for, as that argv[0])
    let table: &[(&str, &str, &[&str], &str, &str)] = &[
        ("bash", "bash", &["--version"], "/bin/bash", "bash"),
        ("bash", "bash", &["--help"], "/bin/bash", "bash"),
        ("sh", "sh", &["--help"], "/bin/dash", "sh"),
        ("dash", "dash", &["--version"], "/bin/dash", "dash"),
        (BIN, "-guarded-sh", &["--version"], "/bin/bash", "bash"),
        (
            BIN,
            "guarded-sh",
            &["--norc", "--version"],
            "/bin/bash",
            "bash",
        ),
    ];
    for (program, argv0, args, real, real_argv0) in table {
        let program = if program.starts_with('/') {
            PathBuf::from(program)
        } else {
            s.path(program)
        };
        let out = s.command(&program, args).arg0(argv0).output().unwrap();
        let mut expected_args = if real.ends_with("bash") {
            vec!["--noprofile", "--norc"]
        } else {
            vec![]
        };
        expected_args.extend(args.iter());
        let expected = Command::new(real)
            .arg0(real_argv0)
            .args(&expected_args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(
            (out.status.code(), text(&out.stdout), text(&out.stderr)),
            (
                expected.status.code(),
                text(&expected.stdout),
                text(&expected.stderr)
            ),
            "{argv0} {args:?}"
        );
        assert!(
            !text(&out.stdout).contains("guarded-sh"),
            "{argv0} {args:?}"
        );
    }
    // --completions is guarded-sh's only under its own name; a shim refuses it like any
    // option bash lacks.
    let out = s
        .command(&s.path("bash"), &["--completions", "bash"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}

#[test]
fn each_review_option() {
    let s = Setup::new();
    let deny = s.deny_all("deny", "no by policy");
    let deny = deny.to_str().unwrap();
    let policies = concat!(env!("CARGO_MANIFEST_DIR"), "/policies");
    // (args, exit status, text stdout must hold)
    let table: &[(&[&str], i32, &str)] = &[
        (&["--check", "ls"], 0, "Command: ls\n"),
        (&["--check=ls"], 0, "Command: ls\n"),
        (
            &["--check", "rm -rf /"],
            1,
            "Decision: DENY (built-in critical",
        ),
        (&["--check", "ls", "--json"], 0, "\"command\":\"ls\""),
        (&["--json", "--check", "ls"], 0, "\"command\":\"ls\""),
        (&["--check", "ls", "--policy-dir", deny], 1, "no by policy"),
        (
            &["--policy-dir", deny, "--check", "ls", "--target", "t9"],
            1,
            "Policy[t9]: deny",
        ),
        (&["--check", "ls", "--shellcheck"], 0, "ShellCheck:"),
        (&["--list-signals"], 0, "DELETE_ROOT_PATH\tcritical"),
        (
            &["--explain", "DELETE_ROOT_PATH"],
            0,
            "DELETE_ROOT_PATH (critical",
        ),
        (&["--explain", "NO_SUCH_SIGNAL"], 2, ""),
        (&["--policy-test", policies], 0, " passed, 0 failed"),
        (&["--check-file", "-"], 0, "Step 0 [command]"),
        (&["--check-file", "-", "--json"], 0, "\"risk_assessment\""),
    ];
    for (args, status, expected) in table {
        let out = s.run_with_stdin(args, b"ls\n");
        assert_eq!(
            out.status.code(),
            Some(*status),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(
            text(&out.stdout).contains(expected),
            "{args:?}: {}",
            text(&out.stdout)
        );
    }
    let out = s.run(&[
        "--check",
        "ls",
        "--json",
        "--target",
        "t1",
        "--env",
        "prod",
        "--host-var",
        "region=eu",
        "--host-var=tier=web",
        "--policy-dir",
        deny,
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["target"]["name"], "t1");
    assert_eq!(v["target"]["env"], "prod");
    assert_eq!(v["target"]["host_vars"]["region"], "eu");
    assert_eq!(v["target"]["host_vars"]["tier"], "web");
    assert_eq!(v["decision"]["policy_dir"], deny);
    assert_eq!(v["decision"]["verdict"], "deny");
}

#[test]
fn bad_usage_is_exit_2_with_one_line_and_runs_nothing() {
    let s = Setup::new();
    let marker = s.path("ran");
    let touch = format!("touch {}", marker.display());
    let table: &[(&[&str], &str)] = &[
        (&["--check"], "a value is required for '--check <CMD>'"),
        (&["--check-file"], "a value is required"),
        (&["--json"], "choose one of --check"),
        (&["--json", "-c", &touch], "unexpected argument '-c'"),
        (&["--check", "ls", "--explain", "X"], "cannot be used with"),
        (
            &["--check", &touch, "--frobnicate"],
            "unexpected argument '--frobnicate'",
        ),
        (&["--host-var", "novalue", "--check", &touch], "expects K=V"),
        (&["--approve"], "a value is required"),
        (&["--approve", "a", "b"], "unexpected argument 'b'"),
        (&["--approvals", "--json"], "cannot be used with '--json'"),
        (&["--serve", "x"], "unexpected argument 'x'"),
        (&["--completions", "tcsh"], "invalid value 'tcsh'"),
        (&["--completions"], "a value is required"),
        (&["--help=x"], "unexpected value 'x'"),
    ];
    for (args, expected) in table {
        let out = s.run(args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("guarded-sh: ") && stderr.ends_with("(nothing was run)\n"),
            "{args:?}: {stderr}"
        );
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
    assert!(!marker.exists());
}

#[test]
fn review_defaults_apply_to_review_only_and_options_override_them() {
    let s = Setup::new();
    let deny = s.deny_all("deny", "denied by the defaults' policy");
    let other = s.deny_all("other", "denied by the option's policy");
    s.review_defaults(&format!(
        "policy_dir = \"{}\"\ntarget = \"stage-1\"\nenv = \"staging\"\n[host_vars]\nregion = \"eu\"\ntier = \"web\"\n",
        deny.display()
    ));
    let json = |args: &[&str]| -> serde_json::Value {
        let out = s.run(args);
        serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", text(&out.stderr)))
    };
    let v = json(&["--check", "ls", "--json"]);
    assert_eq!(v["target"]["name"], "stage-1");
    assert_eq!(v["target"]["env"], "staging");
    assert_eq!(v["target"]["host_vars"]["region"], "eu");
    assert_eq!(v["decision"]["policy_dir"], deny.to_str().unwrap());
    assert_eq!(v["decision"]["reason"], "denied by the defaults' policy");
    let other_dir = other.to_str().unwrap();
    let v = json(&[
        "--check",
        "ls",
        "--json",
        "--target",
        "t2",
        "--env=prod",
        "--host-var",
        "region=us",
        "--policy-dir",
        other_dir,
    ]);
    assert_eq!(v["target"]["name"], "t2");
    assert_eq!(v["target"]["env"], "prod");
    assert_eq!(v["target"]["host_vars"]["region"], "us");
    assert_eq!(v["target"]["host_vars"]["tier"], "web");
    assert_eq!(v["decision"]["policy_dir"], other_dir);
    assert_eq!(v["decision"]["reason"], "denied by the option's policy");
    // --check-file takes them too.
    let out = s.run_with_stdin(&["--check-file", "-"], b"ls\n");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("host=stage-1"),
        "{}",
        text(&out.stdout)
    );
    // --input takes them too, and its options override them.
    let v = json(&["--input", "ls"]);
    assert_eq!(v["target"]["name"], "stage-1");
    assert_eq!(v["target"]["env"], "staging");
    assert_eq!(v["target"]["host_vars"]["tier"], "web");
    let v = json(&["--input", "ls", "--env", "prod"]);
    assert_eq!(v["target"]["env"], "prod");
    // XDG_CONFIG_HOME is honoured over ~/.config.
    let xdg = s.path("xdg");
    std::fs::create_dir_all(xdg.join("guarded-sh")).unwrap();
    std::fs::write(
        xdg.join("guarded-sh/review.toml"),
        "target = \"from-xdg\"\n",
    )
    .unwrap();
    let out = s
        .command(Path::new(BIN), &["--check", "ls", "--json"])
        .env("XDG_CONFIG_HOME", &xdg)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["target"]["name"], "from-xdg");
    assert_eq!(v["decision"]["verdict"], "allow");
    // The shell surface never reads the file: a deny-all policy there does not deny.
    let out = s.run(&["-c", "echo ran"]);
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), "ran\n".into()),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn bad_review_defaults_are_exit_2_naming_the_file_and_ignored_by_the_shell() {
    let s = Setup::new();
    // (file text, what the one stderr line must hold after the file's name)
    let table: &[(&str, &str)] = &[
        (
            "target = \"a\"\npolcy_dir = \"/x\"\n",
            ":2:1: unknown field `polcy_dir`",
        ),
        ("env = [\n", ":1:8: unclosed array"),
        (
            "policy_dir = \"relative\"\n",
            ": policy_dir must be an absolute path",
        ),
        ("[host_vars]\nport = 22\n", ":2:8: invalid type"),
    ];
    for (contents, expected) in table {
        let file = s.review_defaults(contents);
        for args in [&["--check", "ls"][..], &["--check-file", "-"][..]] {
            let out = s.run_with_stdin(args, b"ls\n");
            let stderr = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{contents:?}: {stderr}");
            assert!(out.stdout.is_empty(), "{contents:?}");
            assert_eq!(stderr.lines().count(), 1, "{stderr}");
            assert!(
                stderr.contains(&format!("{}{expected}", file.display())),
                "{contents:?}: {stderr}"
            );
        }
        // Other review actions and the shell surface do not read it.
        assert_eq!(s.run(&["--list-signals"]).status.code(), Some(0));
        let out = s.run(&["-c", "true"]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    }
}

/// Diagnostics: `GUARDED_SH_LOG=debug` (any surface) or `--debug` (review) traces each stage's
/// decision on stderr, never on stdout, and never changes a decision; without either, nothing.
#[test]
fn diagnostics_trace_each_stage_on_stderr_only() {
    let s = Setup::new();
    let stages = [
        "stage=\"invocation\"",
        "stage=\"analysis\"",
        "stage=\"decide\"",
    ];
    let mut traced = s.command(Path::new(BIN), &["-c", "echo out"]);
    let out = traced.env("GUARDED_SH_LOG", "debug").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "out\n");
    for stage in stages.iter().chain(&["stage=\"exec\""]) {
        assert!(stderr.contains(stage), "{stage}: {stderr}");
    }
    let out = s.run(&["--check", "rm -rf /", "--debug"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("DELETE_ROOT_PATH") && stages.iter().all(|st| stderr.contains(st)));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("stage="));
    let quiet = s.run(&["-c", "echo out"]);
    assert!(
        quiet.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&quiet.stderr)
    );
    let mut bad = s.command(Path::new(BIN), &["-c", "rm -rf /"]);
    let out = bad.env("GUARDED_SH_LOG", "[nonsense").output().unwrap();
    assert_eq!(out.status.code(), Some(126));
    assert!(String::from_utf8_lossy(&out.stderr).contains("GUARDED_SH_LOG=\"[nonsense\" ignored"));
}

/// `--input CMD` prints the policy input `--check CMD` gives the policy: a policy that denies
/// with `json.marshal(input)` as its reason shows what it saw, and `--input` with the same
/// options must print exactly that, honour the context options, and run nothing.
#[test]
fn input_prints_what_the_policy_sees_and_runs_nothing() {
    let s = Setup::new();
    let seen = s.path("seen");
    std::fs::create_dir_all(&seen).unwrap();
    std::fs::write(
        seen.join("p.rego"),
        "package honey\nimport rego.v1\ndefault allow := false\ndeny_reason := json.marshal(input)\n",
    )
    .unwrap();
    let seen = seen.to_str().unwrap();
    let ran = s.path("ran");
    let touch = format!("touch {}", ran.display());
    let context: &[&[&str]] = &[
        &[],
        &["--env", "prod"],
        &[
            "--env=staging",
            "--target",
            "web-1",
            "--host-var",
            "tier=db",
        ],
    ];
    // Commands the built-in floor leaves to the policy, so the policy is asked.
    let commands = [
        "ls -la /etc",
        "rm -rf /tmp/x",
        "FOO=1 env bash -c 'echo hi'",
        &touch,
    ];
    for cmd in commands {
        for ctx in context {
            let args = |action: &str, more: &[&str]| -> Vec<String> {
                [action, cmd]
                    .iter()
                    .chain(ctx.iter())
                    .chain(more.iter())
                    .map(|a| a.to_string())
                    .collect()
            };
            let input_args = args("--input", &["--policy-dir", seen]);
            let out = s.run(&input_args.iter().map(String::as_str).collect::<Vec<_>>());
            assert_eq!(
                out.status.code(),
                Some(0),
                "{input_args:?}: {}",
                text(&out.stderr)
            );
            let printed = text(&out.stdout);
            assert!(
                printed.starts_with("{\n  \""),
                "not pretty-printed: {printed}"
            );
            let input: serde_json::Value = serde_json::from_str(&printed)
                .unwrap_or_else(|e| panic!("{input_args:?}: {e}: {printed}"));
            assert_eq!(input["action"], "command_exec", "{printed}");
            assert_eq!(input["command"]["raw"], cmd, "{printed}");
            let env = ctx
                .iter()
                .zip(ctx.iter().skip(1))
                .find_map(|(k, v)| (*k == "--env").then_some(*v))
                .or_else(|| ctx.iter().find_map(|a| a.strip_prefix("--env=")));
            if let Some(env) = env {
                assert_eq!(input["target"]["env"], env, "{input_args:?}: {printed}");
            }
            // What the policy saw for --check with the same options.
            let check_args = args("--check", &["--policy-dir", seen, "--json"]);
            let out = s.run(&check_args.iter().map(String::as_str).collect::<Vec<_>>());
            let report: serde_json::Value = serde_json::from_slice(&out.stdout)
                .unwrap_or_else(|e| panic!("{check_args:?}: {e}: {}", text(&out.stdout)));
            let reason = report["decision"]["reason"].as_str().unwrap_or_default();
            let policy_saw: serde_json::Value = serde_json::from_str(reason)
                .unwrap_or_else(|e| panic!("{check_args:?}: {e}: {report}"));
            assert_eq!(input, policy_saw, "{cmd} {ctx:?}");
        }
    }
    // --env is honoured: the same command with and without it differs only there.
    let plain: serde_json::Value =
        serde_json::from_slice(&s.run(&["--input", "ls"]).stdout).unwrap();
    let prod: serde_json::Value =
        serde_json::from_slice(&s.run(&["--input", "ls", "--env", "prod"]).stdout).unwrap();
    assert_eq!(prod["target"]["env"], "prod");
    assert_ne!(plain["target"]["env"], "prod");
    let mut unchanged = prod.clone();
    unchanged["target"]["env"] = plain["target"]["env"].clone();
    assert_eq!(unchanged, plain);
    // The input is built even where the floor decides and no policy would be asked, and a
    // policy directory that does not load is not even read: --input decides nothing.
    let broken = s.path("broken");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(broken.join("p.rego"), "package honey\nallow if {\n").unwrap();
    let out = s.run(&[
        "--input",
        "rm -rf /",
        "--policy-dir",
        broken.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let critical: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(critical["command"]["critical"], true, "{critical}");
    assert!(!ran.exists(), "--input or --check ran {touch}");
}

/// The options named in a block of exit-status rows, in order of first appearance.
fn options_named(rows: &str) -> std::collections::BTreeSet<String> {
    rows.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter(|w| w.starts_with("--") && w.chars().any(|c| c.is_ascii_alphanumeric()))
        .map(str::to_string)
        .collect()
}

/// The README's exit-status table is the one table: `--help` lists the same actions, and every
/// status `--help` names for an action is in that action's README row.
#[test]
fn help_and_readme_list_the_same_exit_statuses() {
    let readme = std::fs::read_to_string(Path::new(crate::setup::REPO).join("README.md")).unwrap();
    let table = readme
        .split_once("### Exit statuses")
        .and_then(|(_, rest)| rest.split_once("\n\n|"))
        .map(|(_, rest)| rest.split("\n\n").next().unwrap_or_default())
        .expect("README has an exit-status table");
    let first_columns: String = table
        .lines()
        .filter_map(|l| l.strip_prefix("| "))
        .filter_map(|l| l.split_once(" |").map(|(first, _)| first.to_string()))
        .collect::<Vec<_>>()
        .join("\n");
    let help = Setup::new().run(&["--help"]);
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    let block = help
        .split_once("Exit statuses:\n")
        .map(|(_, rest)| rest.split("\n\n").next().unwrap_or_default())
        .expect("--help has an exit-status block");
    // The action column of --help: the start of each row, up to its first status digit.
    let help_actions: String = block
        .lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .map(|l| {
            l.split(|c: char| c.is_ascii_digit())
                .next()
                .unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(
        options_named(&help_actions),
        options_named(&first_columns),
        "--help's exit statuses:\n{block}\nREADME's:\n{table}"
    );
    assert!(options_named(&first_columns).contains("--approve"));
}

/// `--list-signals` has one line per signal ID (the reference's IDs with several reasons list
/// each), and `--list-signals --json` one object per ID with its entries; both name every ID of
/// the catalogue.
#[test]
fn list_signals_has_one_line_per_id_and_a_json_form() {
    let s = Setup::new();
    let ids: std::collections::BTreeSet<&str> = guarded_sh::signals::catalogue()
        .map(|spec| spec.id)
        .collect();
    let out = s.run(&["--list-signals"]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = text(&out.stdout);
    let listed: Vec<&str> = stdout
        .lines()
        .map(|l| l.split('\t').next().unwrap_or_default())
        .collect();
    assert_eq!(listed.len(), ids.len(), "{stdout}");
    assert_eq!(
        listed
            .iter()
            .copied()
            .collect::<std::collections::BTreeSet<_>>(),
        ids
    );
    assert!(
        stdout.contains("PASSWORD_REMOVED\thigh | critical\t"),
        "{stdout}"
    );
    let out = s.run(&["--list-signals", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let entries = json.as_array().expect("an array");
    assert_eq!(entries.len(), ids.len());
    let kubectl = entries
        .iter()
        .find(|e| e["id"] == "KUBECTL_DELETE")
        .expect("KUBECTL_DELETE listed");
    assert_eq!(kubectl["entries"].as_array().map(Vec::len), Some(2));
}
