//! Script files: `python3 x.py`, `./x.py` with a shebang, `python3 < x.py`, scripts that run
//! scripts. The files are handed in (the core never reads them); a table of commands, files,
//! expected signals, verdict and the policy's `command.interpreter`.

use guarded_sh::analysis::{analyse, analyse_reading};
use guarded_sh::decision::{builtin, Mode};
use guarded_sh::interp::{interpreter, script_paths};
use guarded_sh::parse::Limits;
use guarded_sh::signals::detect;

struct Case {
    command: &'static str,
    files: &'static [(&'static str, &'static str)],
    expected: &'static [&'static str],
    verdict: &'static str,
    interpreter: &'static str,
}

const CASES: &[Case] = &[
    Case {
        command: "python3 deploy.py --force",
        files: &[("deploy.py", "import shutil\nshutil.rmtree('/')\n")],
        expected: &["PYTHON_RMTREE_SYSTEM_PATH"],
        verdict: "deny",
        interpreter: "python3",
    },
    Case {
        command: "./tool.py",
        files: &[(
            "./tool.py",
            "#!/usr/bin/env python3\nimport os\nos.system(f'echo {1}')\nos.system('rm -rf /')\n",
        )],
        expected: &["DELETE_ROOT_PATH", "PYTHON_DYNAMIC_SHELL_EXEC"],
        verdict: "deny",
        interpreter: "python3",
    },
    Case {
        command: "sudo /opt/bin/cleanup",
        files: &[(
            "/opt/bin/cleanup",
            "#!/usr/bin/python3.12 -E\nfrom pathlib import Path\nPath('/etc/shadow').unlink()\n",
        )],
        expected: &["PYTHON_DELETE_SYSTEM_PATH", "SUDO_PRIVILEGE_ESCALATION"],
        verdict: "deny",
        interpreter: "python3.12",
    },
    Case {
        command: "./wipe",
        files: &[("./wipe", "#!/usr/bin/perl -w\nsystem('rm -rf /');\n")],
        expected: &["DELETE_ROOT_PATH", "!INTERPRETER_INLINE_CODE"],
        verdict: "deny",
        interpreter: "perl",
    },
    Case {
        command: "ruby task.rb",
        files: &[("task.rb", "puts `uname -a`\nsystem('ls', '-l')\n")],
        expected: &["!INTERPRETER_INLINE_CODE", "!DELETE_ROOT_PATH"],
        verdict: "allow",
        interpreter: "ruby",
    },
    Case {
        command: "python3 < job.py",
        files: &[("job.py", "import os\nos.system('rm -rf /')\n")],
        expected: &["DELETE_ROOT_PATH"],
        verdict: "deny",
        interpreter: "python3",
    },
    Case {
        command: "python3 a.py",
        files: &[
            ("a.py", "import subprocess\nsubprocess.run(['python3', 'b.py'])\n"),
            ("b.py", "import shutil\nshutil.rmtree('/usr')\n"),
        ],
        expected: &["PYTHON_RMTREE_SYSTEM_PATH"],
        verdict: "deny",
        interpreter: "python3",
    },
    Case {
        command: "python3 broken.py",
        files: &[("broken.py", "import os\nos.system('rm -rf /')\ndef (:\n")],
        expected: &["PYTHON_PARSE_INCOMPLETE", "DELETE_ROOT_PATH"],
        verdict: "deny",
        interpreter: "python3",
    },
    Case {
        command: "python3 missing.py",
        files: &[],
        expected: &["!INTERPRETER_DYNAMIC_CODE"],
        verdict: "allow",
        interpreter: "python3",
    },
    Case {
        command: "./build.sh",
        files: &[("./build.sh", "#!/bin/bash\nmake all\n")],
        expected: &[],
        verdict: "allow",
        interpreter: "",
    },
    Case {
        command: "python3 app.py",
        files: &[(
            "app.py",
            "import json, sys\n\ndef main() -> int:\n    data = json.load(sys.stdin)\n    print(data)\n    return 0\n\nif __name__ == '__main__':\n    raise SystemExit(main())\n",
        )],
        expected: &["!PYTHON_MODULE_IMPORT"],
        verdict: "allow",
        interpreter: "python3",
    },
    Case {
        command: "ls -la",
        files: &[],
        expected: &[],
        verdict: "allow",
        interpreter: "",
    },
    Case {
        command: "sed -n 1p f | awk '{print $1}' | perl -ne 'print' && python3 -V",
        files: &[],
        expected: &["INTERPRETER_INLINE_CODE"],
        verdict: "allow",
        interpreter: "perl",
    },
    Case {
        command: "grep x f | sed s/a/b/",
        files: &[],
        expected: &[],
        verdict: "allow",
        interpreter: "",
    },
    // Shell script files: a shell's file operand, `source`/`.`, a script run by path (a shell
    // `#!`, or none), read and judged like the text of `-c`.
    Case {
        command: "sh deploy.sh",
        files: &[("deploy.sh", "echo deploying\nrm -rf /\n")],
        expected: &["DELETE_ROOT_PATH"],
        verdict: "deny",
        interpreter: "",
    },
    Case {
        command: "bash -e ./wipe.sh /dev/sdz-nonexistent",
        files: &[("./wipe.sh", "dd if=/dev/zero of=\"$1\" count=1\n")],
        expected: &["DD_WRITE_BLOCK_DEVICE"],
        verdict: "deny",
        interpreter: "",
    },
    Case {
        command: "bash -e ./wipe.sh out.img",
        files: &[("./wipe.sh", "dd if=/dev/zero of=\"$1\" count=1\n")],
        expected: &["!DD_WRITE_BLOCK_DEVICE"],
        verdict: "allow",
        interpreter: "",
    },
    Case {
        command: "source lib.sh; cleanup",
        files: &[("lib.sh", "cleanup() { rm -rf /etc; }\n")],
        expected: &["DELETE_ROOT_PATH"],
        verdict: "deny",
        interpreter: "",
    },
    Case {
        command: ". ./env.sh && make",
        files: &[("./env.sh", "export PATH=$HOME/bin:$PATH\nCC=gcc\n")],
        expected: &[],
        verdict: "allow",
        interpreter: "",
    },
    Case {
        command: "./install.sh --prefix /opt",
        files: &[(
            "./install.sh",
            "#!/usr/bin/env bash\nset -e\ncurl -s http://127.0.0.1:9/x | sh\n",
        )],
        expected: &["CURL_PIPE_SHELL"],
        verdict: "deny",
        interpreter: "",
    },
    Case {
        command: "./setup",
        files: &[("./setup", "mkfs.ext4 /dev/sdz-nonexistent\n")],
        expected: &["MKFS_FILESYSTEM"],
        verdict: "deny",
        interpreter: "",
    },
    Case {
        command: "./a.out",
        files: &[("./a.out", "\x7fELF\x02\x01\x01\x00\nrm -rf /\n")],
        expected: &["!DELETE_ROOT_PATH"],
        verdict: "allow",
        interpreter: "",
    },
    Case {
        command: "sh retry.sh",
        files: &[("retry.sh", "ls /tmp || sh retry.sh\n")],
        expected: &["!NESTING_LIMIT_EXCEEDED"],
        verdict: "allow",
        interpreter: "",
    },
    Case {
        command: "/bin/sh .ssh/rc",
        files: &[(".ssh/rc", "nc 127.0.0.1 9 -e /bin/sh\n")],
        expected: &["NETCAT_EXEC"],
        verdict: "deny",
        interpreter: "",
    },
    Case {
        command: "sh -c 'sh inner.sh'",
        files: &[("inner.sh", "rm -rf /usr\n")],
        expected: &["DELETE_ROOT_PATH"],
        verdict: "deny",
        interpreter: "",
    },
    Case {
        command: "sh not-there-yet.sh; sh -s < stdin.sh",
        files: &[],
        expected: &[],
        verdict: "allow",
        interpreter: "",
    },
];

#[test]
fn script_table() {
    let limits = Limits::default();
    let mut failures = Vec::new();
    for case in CASES {
        let mut read = |path: &str| {
            case.files
                .iter()
                .find(|(p, _)| *p == path)
                .map(|(_, text)| text.to_string())
        };
        let analysis = analyse_reading(case.command, &limits, &mut read);
        let signals = detect(&analysis);
        let ids: Vec<&str> = signals.iter().map(|s| s.id()).collect();
        let verdict = if builtin(&signals, Mode::Command).is_some() {
            "deny"
        } else {
            "allow"
        };
        for want in case.expected {
            let ok = match want.strip_prefix('!') {
                Some(absent) => !ids.contains(&absent),
                None => ids.contains(want),
            };
            if !ok {
                failures.push(format!("{}: {want} (got {ids:?})", case.command));
            }
        }
        if verdict != case.verdict {
            failures.push(format!("{}: verdict {verdict} (got {ids:?})", case.command));
        }
        let got = interpreter(&analysis);
        if got != case.interpreter {
            failures.push(format!("{}: interpreter {got:?}", case.command));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn script_paths_lists_what_to_read() {
    let analysis = analyse(
        "python3 -u a.py x && ./b.pl; perl -e 1; cat c; sudo /opt/d; python3 < e.py; python3 -c 1",
        &Limits::default(),
    );
    assert_eq!(
        script_paths(&analysis),
        ["a.py", "./b.pl", "/opt/d", "e.py"]
    );
}

/// Oversized inline code fails closed; an oversized script *file* is flagged for the policy but
/// not denied outright (files on disk are outside the gate's promise, and automation runs large
/// generated scripts: ansible's AnsiballZ modules are over 64 KiB).
#[test]
fn oversized_code_fails_closed_and_oversized_files_are_flagged() {
    let big = format!("import os\n{}os.system('ls')\n", "x = 1\n".repeat(12_000));
    let mut read = |_: &str| Some(big.clone());
    let analysis = analyse_reading("python3 big.py", &Limits::default(), &mut read);
    let signals = detect(&analysis);
    let ids: Vec<&str> = signals.iter().map(|s| s.id()).collect();
    assert!(ids.contains(&"INTERPRETER_SCRIPT_TOO_LARGE"), "{ids:?}");
    assert!(!ids.contains(&"INTERPRETER_CODE_TOO_LARGE"), "{ids:?}");
    assert!(builtin(&signals, Mode::Command).is_none());

    let tight = Limits {
        max_code_bytes: 16,
        ..Limits::default()
    };
    let inline = analyse("python3 -c 'print(\"hello world\")'", &tight);
    let ids: Vec<&str> = detect(&inline).iter().map(|s| s.id()).collect();
    assert!(ids.contains(&"INTERPRETER_CODE_TOO_LARGE"), "{ids:?}");
    let small = analyse("perl -e 1", &tight);
    let ids: Vec<&str> = detect(&small).iter().map(|s| s.id()).collect();
    assert!(!ids.contains(&"INTERPRETER_CODE_TOO_LARGE"), "{ids:?}");
}

#[test]
fn unreadable_files_are_asked_for_once() {
    let mut asked = Vec::new();
    let mut read = |p: &str| {
        asked.push(p.to_string());
        None
    };
    let _ = analyse_reading(
        "python3 a.py; python3 a.py; ./x",
        &Limits::default(),
        &mut read,
    );
    assert_eq!(asked, ["a.py", "./x"]);
}

#[test]
fn real_files_through_the_edge_reader() {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = dir.path().join("wipe.py");
    std::fs::write(
        &script,
        "#!/usr/bin/env python3\nimport shutil\nshutil.rmtree('/')\n",
    )
    .expect("write");
    let fifo = dir.path().join("fifo.py");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
    let limits = Limits::default();
    let mut read =
        |p: &str| guarded_sh::script_files::read_script(dir.path(), p, limits.max_code_bytes);
    for command in ["python3 wipe.py", "./wipe.py", "sudo python3 ./wipe.py"] {
        let analysis = analyse_reading(command, &limits, &mut read);
        let ids: Vec<&str> = detect(&analysis).iter().map(|s| s.id()).collect();
        assert!(
            ids.contains(&"PYTHON_RMTREE_SYSTEM_PATH"),
            "{command}: {ids:?}"
        );
        assert_eq!(interpreter(&analysis), "python3", "{command}");
    }
    let analysis = analyse_reading("python3 fifo.py; ./missing.py", &limits, &mut read);
    assert!(detect(&analysis).is_empty());
}

/// A shell script file over `max_bytes` is flagged, not denied (generated installers and
/// `./configure` are that large); the same text inline (`-c`) is denied as too large.
#[test]
fn oversized_shell_script_files_are_flagged_not_denied() {
    let big = format!("#!/bin/sh\n{}rm -rf /\n", "echo padding\n".repeat(12_000));
    let mut read = |_: &str| Some(big.clone());
    for command in ["sh big.sh", "./configure", ". ./big.sh"] {
        let analysis = analyse_reading(command, &Limits::default(), &mut read);
        let signals = detect(&analysis);
        let ids: Vec<&str> = signals.iter().map(|s| s.id()).collect();
        assert!(
            ids.contains(&"SHELL_SCRIPT_TOO_LARGE"),
            "{command}: {ids:?}"
        );
        assert!(
            builtin(&signals, Mode::Command).is_none(),
            "{command}: {ids:?}"
        );
    }
    let inline = analyse(&big, &Limits::default());
    assert!(builtin(&detect(&inline), Mode::Command).is_some());
}

/// A shell script file is judged before anything runs, on each surface that can start one:
/// `-c 'sh FILE'`, a script that sources it, and a program on stdin that runs it by path.
/// The file's first command would leave a mark; the stand-in target is a device that does not
/// exist.
#[test]
fn a_shell_script_file_is_judged_on_every_surface() {
    let s = crate::setup::Setup::with("[policy]\nenabled = false\n");
    let wipe = s.write_executable(
        "wipe.sh",
        &s.expand("touch {dir}/ran\ndd if=/dev/zero of=/dev/sdz-nonexistent count=1\n"),
    );
    let wipe = wipe.display().to_string();
    let sourcing = s.write("outer.sh", &format!(". {wipe}\n"));
    let runs = [
        ("-c sh FILE", s.output(&["-c", &format!("sh {wipe}")])),
        (
            "script sourcing it",
            s.output(&[sourcing.to_str().unwrap()]),
        ),
        (
            "stdin running it by path",
            s.output_with_stdin(&[], format!("{wipe}\n").as_bytes()),
        ),
    ];
    for (label, out) in runs {
        assert_eq!(
            out.status.code(),
            Some(126),
            "{label}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!s.path("ran").exists(), "{label}: part of the file ran");
    }
    // The same file with a harmless target runs.
    std::fs::write(&wipe, s.expand("touch {dir}/ran\n")).unwrap();
    let out = s.output(&["-c", &format!("sh {wipe}")]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(s.path("ran").exists());
}
