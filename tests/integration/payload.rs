//! Ansible tasks as real AnsiballZ payloads, built at test time by the installed ansible-core
//! (`tests/payload/make_ansiballz.py`; nothing is run): every task in `tests/payload/tasks.tsv`
//! raises exactly the signals of the shell line it stands for, in the normal flow and behind
//! `become`; damaged, truncated, oversized and doctored payloads fail closed; the policy input
//! and the audit record name the task, and a `no_log` task's arguments are never recorded.

use crate::setup::{table, REPO};
use guarded_sh::analysis::analyse_reading;
use guarded_sh::decision::{builtin, Mode};
use guarded_sh::parse::{Analysis, Limits};
use guarded_sh::signals::detect;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

const PYTHON: &str = "/usr/bin/python3";

/// Whether ansible-core is importable; in CI it must be (tests/run.sh installs it).
fn ansible_present() -> bool {
    let home = tempfile::tempdir().unwrap();
    let present = Command::new(PYTHON)
        .args(["-c", "import ansible.executor.module_common"])
        .env("HOME", home.path())
        .env("ANSIBLE_HOME", home.path().join(".ansible"))
        .env("ANSIBLE_LOCAL_TEMP", home.path().join(".ansible/tmp"))
        .output()
        .is_ok_and(|o| o.status.success());
    if !present {
        assert!(
            std::env::var_os("CI").is_none(),
            "ansible-core is not installed, and CI must run these tests (tests/run.sh installs it)"
        );
        eprintln!(
            "SKIP: payload tests: ansible-core is not installed (apt-get install ansible-core)"
        );
    }
    present
}

/// The wrapper ansible-core builds for `module` with `args`, written into `dir`.
fn wrapper(dir: &Path, name: &str, module: &str, args: &str, no_log: bool) -> PathBuf {
    let out = dir.join(format!("AnsiballZ_{name}.py"));
    let mut cmd = Command::new(PYTHON);
    cmd.arg(Path::new(REPO).join("tests/payload/make_ansiballz.py"))
        .args([module, args])
        .arg(&out)
        .current_dir(dir)
        // ansible-core keeps its own state under its home: the test's directory, not the host's.
        .env("HOME", dir)
        .env("ANSIBLE_HOME", dir.join(".ansible"))
        .env("ANSIBLE_LOCAL_TEMP", dir.join(".ansible/tmp"));
    if no_log {
        cmd.arg("no_log");
    }
    let made = cmd.output().unwrap();
    assert!(
        made.status.success(),
        "{module} {args}: {}",
        String::from_utf8_lossy(&made.stderr)
    );
    out
}

fn analysis(text: &str, limits: &Limits) -> Analysis {
    let bound = limits.max_code_bytes.max(limits.max_payload_bytes);
    let mut read = |p: &str| guarded_sh::script_files::read_script(Path::new("/"), p, bound);
    analyse_reading(text, limits, &mut read)
}

fn ids(text: &str, limits: &Limits) -> BTreeSet<&'static str> {
    detect(&analysis(text, limits))
        .iter()
        .map(|s| s.id())
        .collect()
}

fn denied(text: &str, limits: &Limits) -> bool {
    builtin(&detect(&analysis(text, limits)), Mode::Command).is_some()
}

/// How ansible runs a module file, without and with become.
fn flows(file: &Path) -> [String; 2] {
    let f = file.display();
    [
        format!("/bin/sh -c '{PYTHON} {f} && sleep 0'"),
        format!("sudo -H -S -n -u root /bin/sh -c 'echo BECOME-SUCCESS-abc; {PYTHON} {f}'"),
    ]
}

#[test]
fn each_task_raises_the_signals_of_its_shell_equivalent() {
    if !ansible_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits::default();
    let mut failures = Vec::new();
    for (line, fields) in table("payload/tasks.tsv") {
        let [module, args, shell, extra, verdict] = &fields[..] else {
            panic!("tasks.tsv:{line}: five fields expected, got {fields:?}");
        };
        let file = wrapper(dir.path(), &line.to_string(), module, args, false);
        let shell = if shell == "-" { ":" } else { shell.as_str() };
        let extra: BTreeSet<&str> = extra.split(',').filter(|e| *e != "-").collect();
        let equivalents = [
            shell.to_string(),
            format!(
                "sudo -H -S -n -u root /bin/sh -c '{}'",
                format!("echo BECOME-SUCCESS-abc; {shell}").replace('\'', r"'\''")
            ),
        ];
        for (flow, equivalent) in flows(&file).iter().zip(&equivalents) {
            let mut want = ids(equivalent, &limits);
            want.extend(extra.iter().copied());
            let got = ids(flow, &limits);
            let deny = denied(flow, &limits);
            if got != want || deny != (verdict == "deny") {
                failures.push(format!(
                    "tasks.tsv:{line} {module} {args}\n  flow {flow}\n  got {got:?} (denied {deny})\n  want {want:?} ({verdict})"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A payload that cannot be decoded whole is denied; one of a format this build does not know
/// is reported; code added to a wrapper is analysed like any python.
#[test]
fn damaged_or_doctored_payloads_fail_closed() {
    if !ansible_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let good = wrapper(
        dir.path(),
        "id",
        "ansible.builtin.command",
        r#"{"_raw_params": "id"}"#,
        false,
    );
    let text = std::fs::read_to_string(&good).unwrap();
    let limits = Limits::default();
    let zip_at = text.find("ZIPDATA = \"\"\"").unwrap() + 20;
    let mut corrupt = text.clone();
    corrupt.replace_range(zip_at + 100..zip_at + 101, "!");
    let mut cases: Vec<(String, String, &str)> = vec![
        (
            "corrupt base64".into(),
            corrupt,
            "ANSIBLE_PAYLOAD_MALFORMED",
        ),
        (
            "module not in the zip".into(),
            text.replace(
                "mod_name='ansible.modules.command'",
                "mod_name='ansible.modules.nosuch'",
            ),
            "ANSIBLE_PAYLOAD_MALFORMED",
        ),
        (
            "arguments not JSON".into(),
            text.replacen("ANSIBALLZ_PARAMS = '{", "ANSIBALLZ_PARAMS = '{{", 1),
            "ANSIBLE_PAYLOAD_MALFORMED",
        ),
        (
            "no arguments at all (an unknown format)".into(),
            text.lines()
                .filter(|l| !l.contains("ANSIBALLZ_PARAMS"))
                .collect::<Vec<_>>()
                .join("\n"),
            "ANSIBLE_PAYLOAD_UNDECODED",
        ),
        // Decoys (found by red-teaming): the decoder must read what python runs, or refuse.
        (
            "code after the arguments' literal on its line".into(),
            text.replacen(
                "\n    ANSIBALLZ_PARAMS = '",
                "\n    ANSIBALLZ_PARAMS = '{}'; import os; os.system('rm -rf /'); ANSIBALLZ_PARAMS = '",
                1,
            ),
            "ANSIBLE_PAYLOAD_MALFORMED",
        ),
        (
            "a decoy argument literal in a docstring".into(),
            text.replacen(
                "_ANSIBALLZ_WRAPPER = True",
                "_ANSIBALLZ_WRAPPER = True\n'''\nANSIBALLZ_PARAMS = '{\"ANSIBLE_MODULE_ARGS\": {\"_raw_params\": \"echo hi\"}}'\n'''",
                1,
            ),
            "ANSIBLE_PAYLOAD_MALFORMED",
        ),
        (
            "a decoy module name in a comment".into(),
            text.replacen(
                "_ANSIBALLZ_WRAPPER = True",
                "_ANSIBALLZ_WRAPPER = True\n# runpy.run_module(mod_name='ansible.modules.ping')",
                1,
            ),
            "ANSIBLE_PAYLOAD_MALFORMED",
        ),
        (
            "a conditional argument literal".into(),
            {
                let at = text.find("\n    ANSIBALLZ_PARAMS = '").unwrap() + 1;
                let end = at + text[at..].find('\n').unwrap();
                let line = text[at..end].to_string();
                text.replacen(&line, &format!("{line} if 0 else '{{}}'"), 1)
            },
            "ANSIBLE_PAYLOAD_MALFORMED",
        ),
        (
            "a marked file that is no wrapper".into(),
            "_ANSIBALLZ_WRAPPER = True\nimport os\nANSIBALLZ_PARAMS = 0; os.system('rm -rf /')\n_ansiballz_main()\n".into(),
            "DELETE_ROOT_PATH",
        ),
        (
            "code added to the wrapper".into(),
            text.replacen(
                "if __name__ == '__main__':",
                "import os\nos.system('rm -rf /')\nif __name__ == '__main__':",
                1,
            ),
            "DELETE_ROOT_PATH",
        ),
    ];
    for fraction in [1, 10, 50, 90, 99] {
        let cut = text.len() * fraction / 100;
        cases.push((
            format!("truncated at {fraction}%"),
            text[..cut].to_string(),
            "ANSIBLE_PAYLOAD_MALFORMED",
        ));
    }
    cases.push((
        "one byte short".into(),
        text.trim_end().strip_suffix(')').unwrap().to_string(),
        "ANSIBLE_PAYLOAD_MALFORMED",
    ));
    for (i, (name, doctored, want)) in cases.iter().enumerate() {
        let file = dir.path().join(format!("doctored{i}.py"));
        std::fs::write(&file, doctored).unwrap();
        for flow in flows(&file) {
            let got = ids(&flow, &limits);
            assert!(got.contains(want), "{name}: {flow}: {got:?}");
            let critical = *want != "ANSIBLE_PAYLOAD_UNDECODED";
            assert_eq!(denied(&flow, &limits), critical, "{name}: {got:?}");
        }
    }
    // Over the payload bound: denied undecoded.
    let small = Limits {
        max_payload_bytes: text.len() - 1,
        ..Limits::default()
    };
    let [flow, _] = flows(&good);
    assert!(ids(&flow, &small).contains("ANSIBLE_PAYLOAD_MALFORMED"));
    assert!(denied(&flow, &small));
    // The good one, for contrast: allowed with nothing to say.
    assert!(ids(&flow, &limits).is_empty(), "{:?}", ids(&flow, &limits));
}

/// The policy sees the task under `command.ansible` (schema 1); the audit record names the
/// module and bounded arguments, and never a `no_log` task's arguments.
#[test]
fn the_policy_input_and_the_record_name_the_task() {
    if !ansible_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits::default();
    let file = wrapper(
        dir.path(),
        "file",
        "ansible.builtin.file",
        r#"{"path": "/srv/app/old", "state": "absent"}"#,
        false,
    );
    let [flow, _] = flows(&file);
    let a = analysis(&flow, &limits);
    let view = guarded_sh::payload::policy_view(&a);
    assert_eq!(view["schema_version"], 1);
    assert_eq!(view["tasks"][0]["module"], "ansible.modules.file");
    assert_eq!(view["tasks"][0]["args"]["path"], "/srv/app/old");
    assert_eq!(view["tasks"][0]["args"]["state"], "absent");
    assert_eq!(view["tasks"][0]["known"], true);
    assert!(view["tasks"][0]["args"].get("_ansible_version").is_none());
    let record = guarded_sh::payload::audit_view(&a);
    assert_eq!(record[0]["args"]["path"], "/srv/app/old");

    let secret = wrapper(
        dir.path(),
        "secret",
        "ansible.builtin.command",
        r#"{"_raw_params": "echo hunter2-secret"}"#,
        true,
    );
    let [flow, _] = flows(&secret);
    let a = analysis(&flow, &limits);
    let record = serde_json::to_string(&guarded_sh::payload::audit_view(&a)).unwrap();
    assert!(record.contains("(no_log)"), "{record}");
    assert!(!record.contains("hunter2"), "{record}");
    assert_eq!(
        guarded_sh::payload::policy_view(&a)["tasks"][0]["no_log"],
        true
    );
}

/// Pipelining: the program `python3` reads from guarded-sh's stdin is judged before it runs,
/// and the same bytes reach it; a program that is denied, too large or never ends does not run;
/// a command that is no interpreter reading its program keeps its stdin untouched.
#[test]
fn a_program_on_stdin_is_judged_and_handed_on() {
    use crate::setup::{exists, Setup};
    let s = Setup::with("[policy]\nenabled = false\n");
    let ran = s.path("ran");
    let program = format!(
        "open({:?}, 'w').write('ran')\nprint('handed on')\n",
        ran.display().to_string()
    );
    let out = s.output_with_stdin(&["-c", "/usr/bin/python3 && sleep 0"], program.as_bytes());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "handed on\n");
    assert!(exists(&ran));
    std::fs::remove_file(&ran).unwrap();

    // The same program after a destructive call: denied, nothing of it runs.
    let denied = format!("import os\nos.system('rm -rf /')\n{program}");
    for flow in [
        "/usr/bin/python3 && sleep 0",
        "python3 -",
        "sudo -n -u root /bin/sh -c 'python3'",
    ] {
        let out = s.output_with_stdin(&["-c", flow], denied.as_bytes());
        assert_eq!(out.status.code(), Some(126), "{flow}");
        assert!(!exists(&ran), "{flow}: ran");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("recursive delete of a system/root path"),
            "{flow}: {stderr}"
        );
    }

    // Over the payload bound: denied unread past it.
    let small = Setup::with("[policy]\nenabled = false\n[limits]\nmax_payload_bytes = 64\n");
    let out = small.output_with_stdin(&["-c", "python3"], program.repeat(4).as_bytes());
    assert_eq!(out.status.code(), Some(126));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is over 64 bytes"));
    assert!(!exists(&ran));

    // Binary data for a command that is no interpreter reading its program: byte for byte.
    let bytes: Vec<u8> = (0..=255u8).cycle().take(300_000).collect();
    let out = s.output_with_stdin(&["-c", "cat"], &bytes);
    assert_eq!(out.stdout, bytes);
}

/// A stdin that never ends (an open pipe) is denied with a message within the bound, not
/// waited on forever.
#[test]
fn a_program_on_stdin_that_never_ends_is_denied() {
    use crate::setup::Setup;
    use std::process::Stdio;
    let s = Setup::with("[policy]\nenabled = false\n");
    let started = std::time::Instant::now();
    let mut child = s
        .command(&["-c", "python3"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _open = child.stdin.take();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(126));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("did not end within"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
}

/// Ansible's become-with-pipelining handshake: ansible sends the module only after it reads the
/// `echo BECOME-SUCCESS-KEY` line, so guarded-sh writes that line first, and only when it is
/// about to read a program from stdin (ansible drops every such line from the output).
#[test]
fn the_become_handshake_is_answered_only_when_a_program_is_read() {
    use crate::setup::Setup;
    let s = Setup::with("[policy]\nenabled = false\n");
    let flow = "/bin/sh -c 'echo BECOME-SUCCESS-abcdef ; /usr/bin/python3'";
    let out = s.output_with_stdin(&["-c", flow], b"print('ran')\n");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "BECOME-SUCCESS-abcdef\nBECOME-SUCCESS-abcdef\nran\n"
    );
    let out = s.output_with_stdin(&["-c", flow], b"import os\nos.system('rm -rf /')\n");
    assert_eq!(out.status.code(), Some(126));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "BECOME-SUCCESS-abcdef\n"
    );
    // No program read, no line of guarded-sh's own.
    let out = s.output_with_stdin(&["-c", "echo BECOME-SUCCESS-abcdef ; cat"], b"data\n");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "BECOME-SUCCESS-abcdef\ndata\n"
    );
}

/// A shell or an interpreter reading the process's stdin by any name (`bash`, `sh -s ARGS`,
/// `python3 /dev/fd/0`, `/proc/self/fd/0`, `/dev/stdin`) has what it reads judged first; a
/// `/dev/stdin` redirected from a file is that file, and the process's stdin is left alone.
#[test]
fn every_name_for_stdin_is_judged() {
    use crate::setup::{exists, Setup};
    let s = Setup::with("[policy]\nenabled = false\n");
    let ran = s.path("ran");
    let shell_script = format!("rm -rf /\ntouch {}\n", ran.display());
    let python = format!(
        "import os\nos.system('rm -rf /')\nopen({:?}, 'w')\n",
        ran.display().to_string()
    );
    let cases: [(&str, &str); 8] = [
        ("bash", &shell_script),
        ("sh -s a b", &shell_script),
        ("dash -e", &shell_script),
        ("sudo -n /bin/sh", &shell_script),
        ("python3 /dev/fd/0", &python),
        ("python3 /proc/self/fd/0", &python),
        ("python3 /dev/stdin", &python),
        ("python3 -", &python),
    ];
    for (flow, input) in cases {
        let out = s.output_with_stdin(&["-c", flow], input.as_bytes());
        assert_eq!(
            out.status.code(),
            Some(126),
            "{flow}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!exists(&ran), "{flow}: ran");
    }
    let out = s.output_with_stdin(&["-c", "bash -s x"], b"echo \"shell $1\"\n");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "shell x\n");
    let file = s.write("ok.py", "print('from the file')\n");
    let cmd = format!("python3 /dev/stdin < {}", file.display());
    let out = s.output_with_stdin(&["-c", &cmd], python.as_bytes());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "from the file\n");
    assert!(!exists(&ran));
}

/// A program on stdin with a NUL byte is denied, as a script on stdin is: the analysis and the
/// real shell would not read the same text.
#[test]
fn a_program_on_stdin_with_a_nul_is_denied() {
    use crate::setup::{exists, Setup};
    let s = Setup::with("[policy]\nenabled = false\n");
    let ran = s.path("ran");
    let input = format!("echo ok\0rm -rf /\ntouch {}\n", ran.display());
    for flow in ["bash", "python3"] {
        let out = s.output_with_stdin(&["-c", flow], input.as_bytes());
        assert_eq!(out.status.code(), Some(126), "{flow}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("NUL bytes"),
            "{flow}"
        );
        assert!(!exists(&ran), "{flow}");
    }
}

/// What was judged must be what runs: when a program is read from stdin, another command that
/// may take part of that stdin first (or read it as a program of another language) denies it;
/// the wrappers, `echo`, `sleep` and the commands inside a shell's own program do not.
#[test]
fn a_program_on_stdin_that_another_command_may_read_is_denied() {
    use crate::setup::{exists, Setup};
    let s = Setup::with("[policy]\nenabled = false\n");
    let ran = s.path("ran");
    // As a whole this is one harmless python expression; without its first four bytes, bash
    // or python would run the rest.
    let input = format!("XXXXopen({:?}, 'w')\n", ran.display().to_string());
    for flow in [
        "head -c 4 >/dev/null; python3",
        "read x; python3",
        "dd bs=4 count=1 of=/dev/null 2>/dev/null; python3",
        "sed -n 1q; bash",
    ] {
        let out = s.output_with_stdin(&["-c", flow], input.as_bytes());
        assert_eq!(out.status.code(), Some(126), "{flow}");
        assert!(
            String::from_utf8_lossy(&out.stderr)
                .contains("the program read from stdin is not what runs"),
            "{flow}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!exists(&ran), "{flow}");
    }
    // A python program inside a shell program on stdin reads the rest of it as python.
    let out = s.output_with_stdin(&["-c", "bash"], b"python3\nprint('never')\n");
    assert_eq!(out.status.code(), Some(126));
    // Everyday: the wrappers and non-readers around the program, commands inside a shell's
    // program on stdin.
    let program = format!("open({:?}, 'w')\n", ran.display().to_string());
    for flow in [
        "sudo -n /bin/sh -c 'echo BECOME-SUCCESS-abc ; /usr/bin/python3'",
        "/bin/sh -c '/usr/bin/python3 && sleep 0'",
        "cd /tmp && env LC_ALL=C python3",
    ] {
        let out = s.output_with_stdin(&["-c", flow], program.as_bytes());
        assert_eq!(
            out.status.code(),
            Some(0),
            "{flow}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(exists(&ran), "{flow}");
        std::fs::remove_file(&ran).unwrap();
    }
    let out = s.output_with_stdin(
        &["-c", "bash"],
        b"uname -s >/dev/null\ngrep -c x /etc/hostname >/dev/null\necho fine\n",
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "fine\n");
}
