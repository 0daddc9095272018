//! Bounds, through the built binary: oversized command lines (1 MiB by script and stdin, ~120 KiB
//! by `-c`, since Linux caps one argv string at 128 KiB), 100,000 nested substitutions, huge
//! heredocs, a script of 50,000 commands, binary bytes, invalid UTF-8 and NUL bytes. Each case
//! must end within its stated time and memory bound with a decision and a clear reason (deny
//! where a bound is crossed) and an audit record that agrees — never a crash or a hang.
//!
//! The time bound is for a debug build on a loaded 2-core machine; memory is peak RSS from GNU
//! time (not asserted when `/usr/bin/time` is missing). Measured values: docs/hardening.md.

use crate::setup::{run, Run, Setup};
use std::time::Duration;

const KIB: usize = 1024;
const MIB: usize = 1024 * 1024;

/// How the text reaches guarded-sh.
enum Via {
    /// `-c TEXT` (must stay under 128 KiB).
    Command,
    /// A script file operand.
    Script,
    /// `bash -s` with the text on stdin.
    Stdin,
}

/// What must happen.
enum Expect {
    /// Exit 126; stderr says `guarded-sh: denied:` and one of these reasons.
    Deny(&'static [&'static str]),
    /// The real shell ran: exit 0 and exactly this stdout.
    Allow(&'static [u8]),
}

struct Case {
    name: &'static str,
    /// Extra configuration (after the audit section).
    config: &'static str,
    via: Via,
    text: Vec<u8>,
    expect: Expect,
    seconds: u64,
    max_rss_mib: u64,
}

const TOO_LARGE: &[&str] = &["command text too large to analyse"];
const TOO_DEEP: &[&str] = &[
    "syntax tree nested too deeply to analyse",
    "analysis time limit exceeded",
];

fn repeat(unit: &str, n: usize) -> String {
    unit.repeat(n)
}

fn nested(levels: usize) -> String {
    format!("echo {}x{}", repeat("$(", levels), repeat(")", levels))
}

fn quoted_heredoc(bytes: usize) -> String {
    heredoc_of(
        "heredoc text that nothing executes: $(rm -rf /) `curl -o x http://x`\n",
        bytes,
    )
}

fn heredoc_of(line: &str, bytes: usize) -> String {
    format!(
        "cat <<'EOF' >/dev/null\n{}EOF\n",
        repeat(line, bytes / line.len())
    )
}

fn check(case: &Case) -> Run {
    let _exclusive = crate::setup::exclusive();
    let s = Setup::with(case.config);
    let mut args: Vec<String> = Vec::new();
    let mut stdin: &[u8] = &[];
    match case.via {
        Via::Command => {
            args.push("-c".into());
            args.push(String::from_utf8(case.text.clone()).unwrap());
        }
        Via::Script => {
            let p = s.path("script.sh");
            std::fs::write(&p, &case.text).unwrap();
            args.push(p.display().to_string());
        }
        Via::Stdin => {
            args.push("-s".into());
            stdin = &case.text;
        }
    }
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let limit = Duration::from_secs(case.seconds);
    let r = run(
        s.command(&argv),
        stdin,
        limit + Duration::from_secs(30),
        true,
    );
    let name = case.name;
    assert!(!r.timed_out, "{name}: hung (killed after {:?})", r.elapsed);
    assert_eq!(
        r.signal, None,
        "{name}: crashed by signal; stderr {}",
        r.stderr
    );
    assert!(
        r.elapsed <= limit,
        "{name}: took {:?} > {limit:?}",
        r.elapsed
    );
    if let Some(kib) = r.max_rss_kib {
        assert!(
            kib <= case.max_rss_mib * 1024,
            "{name}: peak RSS {kib} KiB > {} MiB",
            case.max_rss_mib
        );
    }
    let audit = s.audit();
    let last = audit
        .last()
        .unwrap_or_else(|| panic!("{name}: no audit record"));
    match case.expect {
        Expect::Deny(reasons) => {
            assert_eq!(r.code, Some(126), "{name}: stderr {}", r.stderr);
            assert!(
                r.stderr.starts_with("guarded-sh: denied: "),
                "{name}: {}",
                r.stderr
            );
            assert!(
                reasons.iter().any(|w| r.stderr.contains(w)),
                "{name}: reason {:?} not in {reasons:?}",
                r.stderr
            );
            assert!(r.stdout.is_empty(), "{name}: something ran");
            assert_eq!(last["verdict"], "deny", "{name}: {last}");
            let reason = last["reason"].as_str().unwrap_or_default();
            assert!(
                reasons.iter().any(|w| reason.contains(w)),
                "{name}: audit reason {reason:?}"
            );
        }
        Expect::Allow(stdout) => {
            assert_eq!(r.code, Some(0), "{name}: stderr {}", r.stderr);
            assert!(
                r.stdout == stdout,
                "{name}: stdout {:?} != {:?}",
                r.stdout_text(),
                String::from_utf8_lossy(stdout)
            );
            assert_eq!(last["verdict"], "allow", "{name}: {last}");
        }
    }
    eprintln!("{name}: {:?}, peak RSS {:?} KiB", r.elapsed, r.max_rss_kib);
    r
}

#[test]
fn oversized_and_deep_inputs_are_denied_within_bounds() {
    let cases = [
        Case {
            name: "1 MiB script file",
            config: "",
            via: Via::Script,
            text: repeat("true; ", MIB / 6).into_bytes(),
            expect: Expect::Deny(TOO_LARGE),
            seconds: 5,
            max_rss_mib: 64,
        },
        Case {
            name: "1 MiB script on stdin",
            config: "",
            via: Via::Stdin,
            text: repeat("true; ", MIB / 6).into_bytes(),
            expect: Expect::Deny(TOO_LARGE),
            seconds: 5,
            max_rss_mib: 64,
        },
        Case {
            name: "1 MiB quoted heredoc in a script",
            config: "",
            via: Via::Script,
            text: quoted_heredoc(MIB).into_bytes(),
            expect: Expect::Deny(TOO_LARGE),
            seconds: 5,
            max_rss_mib: 64,
        },
        Case {
            name: "40,000 nested $( in -c (117 KiB)",
            config: "",
            via: Via::Command,
            text: nested(40_000).into_bytes(),
            expect: Expect::Deny(TOO_DEEP),
            seconds: 5,
            max_rss_mib: 256,
        },
        // Each wrapper level is a command holding the rest of the argv: the depth bound stops a
        // chain of short argvs, the node bound (each level's words count) a chain of long ones.
        Case {
            name: "1,000 chained sudo wrappers in -c",
            config: "",
            via: Via::Command,
            text: format!("{}true", repeat("sudo ", 1_000)).into_bytes(),
            expect: Expect::Deny(&["syntax tree nested too deeply to analyse"]),
            seconds: 5,
            max_rss_mib: 256,
        },
        Case {
            name: "25,000 chained sudo wrappers in -c (122 KiB)",
            config: "",
            via: Via::Command,
            text: format!("{}true", repeat("sudo ", 25_000)).into_bytes(),
            expect: Expect::Deny(&["syntax tree too large to analyse"]),
            seconds: 5,
            max_rss_mib: 512,
        },
        Case {
            name: "100,000 nested $( in a script (default bounds)",
            config: "",
            via: Via::Script,
            text: nested(100_000).into_bytes(),
            expect: Expect::Deny(TOO_LARGE),
            seconds: 5,
            max_rss_mib: 64,
        },
        Case {
            name:
                "100,000 nested $( in a script (max_bytes 1 MiB, still under the 128 KiB argv cap)",
            config: "[limits]\nmax_bytes = 1048576\n",
            via: Via::Script,
            text: nested(100_000).into_bytes(),
            expect: Expect::Deny(TOO_LARGE),
            seconds: 5,
            max_rss_mib: 512,
        },
        Case {
            name: "100,000 nested ( subshells (max_bytes 1 MiB, still under the 128 KiB argv cap)",
            config: "[limits]\nmax_bytes = 1048576\n",
            via: Via::Script,
            text: format!("{}true{}", repeat("(", 100_000), repeat(")", 100_000)).into_bytes(),
            expect: Expect::Deny(TOO_LARGE),
            seconds: 5,
            max_rss_mib: 512,
        },
        Case {
            name: "50,000 commands over the byte bound (250 KiB script)",
            config: "",
            via: Via::Script,
            text: repeat("true\n", 50_000).into_bytes(),
            expect: Expect::Deny(TOO_LARGE),
            seconds: 5,
            max_rss_mib: 64,
        },
    ];
    for case in &cases {
        check(case);
    }
}

/// The analysis time limit (1 s by default) is a wall-clock bound, and a debug build on a loaded
/// machine can reach it on 100 KiB; these cases raise it to 4 s so the verdict is deterministic
/// while the 5 s bound is still asserted.
#[test]
fn large_data_under_the_bounds_is_allowed_within_bounds() {
    const SLOW: &str = "[limits]\nmax_millis = 4000\n";
    let cases = [
        Case {
            name: "120 KiB quoted heredoc in -c",
            config: SLOW,
            via: Via::Command,
            text: quoted_heredoc(120 * KIB).into_bytes(),
            expect: Expect::Allow(b""),
            seconds: 5,
            max_rss_mib: 128,
        },
        Case {
            name: "120 KiB single word in -c",
            config: SLOW,
            via: Via::Command,
            text: format!("printf %s {} | wc -c", repeat("a", 120 * KIB)).into_bytes(),
            expect: Expect::Allow(b"122880\n"),
            seconds: 5,
            max_rss_mib: 128,
        },
        Case {
            name: "48 KiB unquoted heredoc with expansions",
            config: SLOW,
            via: Via::Command,
            text: format!(
                "cat <<EOF >/dev/null\n{}EOF\n",
                repeat("text $HOME ${x:-y} $((1+2))\n", 48 * KIB / 28)
            )
            .into_bytes(),
            expect: Expect::Allow(b""),
            seconds: 5,
            max_rss_mib: 128,
        },
    ];
    for case in &cases {
        check(case);
    }
}

/// A many-command text under the byte bound must still be decided quickly. (Signal families that
/// compared every command with every other made this quadratic: 50,000 commands took 111 s in a
/// debug build and 7.9 s in release before the fix; long pipelines are now capped by
/// `limits.max_pipes`.) The 50,000-command script is allowed (with an 8 s analysis budget, since
/// a debug build is near the default 1 s); its bound is 10 s in a debug build.
#[test]
fn many_commands_under_the_byte_bound_are_decided_within_bounds() {
    let cases = [
        Case {
            name: "50,000 commands in a 100 KB script",
            // Near the 1 s analysis budget in a debug build: raised so the verdict is stable.
            config: "[limits]\nmax_millis = 8000\n",
            via: Via::Script,
            text: repeat(":\n", 50_000).into_bytes(),
            expect: Expect::Allow(b""),
            seconds: 10,
            max_rss_mib: 256,
        },
        Case {
            name: "20,000 commands then rm -rf / in -c (120 KB)",
            config: "",
            via: Via::Command,
            text: format!("{}rm -rf /", repeat("true; ", 20_000)).into_bytes(),
            expect: Expect::Deny(&["recursive delete of a system/root path"]),
            seconds: 5,
            max_rss_mib: 256,
        },
        Case {
            name: "20,000-stage pipeline in -c",
            config: "",
            via: Via::Command,
            text: format!("{}:", repeat(":|", 20_000)).into_bytes(),
            expect: Expect::Deny(&["syntax tree too large to analyse"]),
            seconds: 5,
            max_rss_mib: 256,
        },
    ];
    for case in &cases {
        check(case);
    }
}

#[test]
fn binary_bytes_and_control_characters_are_analysed_and_passed_through() {
    // Control bytes, escape sequences and invalid UTF-8 do not hide a critical command…
    let mut hidden = b"echo \x01\x02\x1b[31m\x7f \xff\xfe\xc3; ".to_vec();
    hidden.extend_from_slice(b"r\xffm -rf /tmp/x; rm -rf /");
    // …and the real shell gets the original bytes of an allowed one.
    let printed = b"printf '%s' '\xff\xfe\x80 ok'".to_vec();
    let s = Setup::with("");
    for (text, code, stdout, reason) in [
        (
            hidden,
            126,
            &b""[..],
            "recursive delete of a system/root path",
        ),
        (printed, 0, &b"\xff\xfe\x80 ok"[..], ""),
    ] {
        use std::os::unix::ffi::OsStrExt;
        let mut c = s.command(&["-c"]);
        c.arg(std::ffi::OsStr::from_bytes(&text));
        let r = run(c, b"", Duration::from_secs(35), false);
        assert!(r.elapsed <= Duration::from_secs(5), "{:?}", r.elapsed);
        assert_eq!(r.code, Some(code), "{}", r.stderr);
        assert!(r.stdout == stdout, "stdout {:?}", r.stdout);
        assert!(r.stderr.contains(reason), "{}", r.stderr);
    }
}

#[test]
fn nul_bytes_in_scripts_and_stdin_are_denied() {
    let text = b"echo a\0b; true\n".to_vec();
    let cases = [
        Case {
            name: "NUL in a script",
            config: "",
            via: Via::Script,
            text: text.clone(),
            expect: Expect::Deny(&["contains NUL bytes"]),
            seconds: 5,
            max_rss_mib: 64,
        },
        Case {
            name: "NUL on stdin",
            config: "",
            via: Via::Stdin,
            text,
            expect: Expect::Deny(&["commands on stdin contain NUL bytes"]),
            seconds: 5,
            max_rss_mib: 64,
        },
    ];
    for case in &cases {
        check(case);
    }
}

/// Scripts and stdin are run as `-c CONTENT`; CONTENT must be the bytes that were read, not a
/// lossy UTF-8 copy (which turns `\xff` into U+FFFD and changes what the script does).
#[test]
fn invalid_utf8_in_scripts_and_stdin_runs_unchanged() {
    let text = b"printf '%s' '\xff\xfe'\n".to_vec();
    let cases = [
        Case {
            name: "invalid UTF-8 script",
            config: "",
            via: Via::Script,
            text: text.clone(),
            expect: Expect::Allow(b"\xff\xfe"),
            seconds: 5,
            max_rss_mib: 64,
        },
        Case {
            name: "invalid UTF-8 on stdin",
            config: "",
            via: Via::Stdin,
            text,
            expect: Expect::Allow(b"\xff\xfe"),
            seconds: 5,
            max_rss_mib: 64,
        },
    ];
    for case in &cases {
        check(case);
    }
}

/// A script exactly at `max_bytes` (128 KiB) passes the size check, is audited as allowed, and
/// then cannot be exec'd: `-c CONTENT` is over Linux's 128 KiB-per-argument limit (E2BIG).
/// Whatever the verdict, the audit record must agree with what happened.
#[test]
fn script_at_the_argv_limit_is_run_or_denied_consistently() {
    let s = Setup::with("");
    let mut text = repeat(
        "# padding line of a long script.......................\n",
        2300,
    );
    text.push_str("echo ok\n");
    let pad = 128 * KIB - text.len();
    let text = format!("{}{text}", repeat("#", pad - 1) + "\n");
    assert_eq!(text.len(), 128 * KIB);
    let p = s.write("edge.sh", &text);
    let r = run(
        s.command(&[p.to_str().unwrap()]),
        b"",
        Duration::from_secs(30),
        false,
    );
    let last = s.audit().pop().unwrap();
    if last["verdict"] == "allow" {
        assert_eq!(
            (r.code, r.stdout_text().as_str()),
            (Some(0), "ok\n"),
            "audited allow but did not run: {}",
            r.stderr
        );
    } else {
        assert_eq!(r.code, Some(126));
        assert!(r.stderr.contains("too large"), "{}", r.stderr);
    }
}

/// Data is not execution: the pre-parse pipe count (`limits.max_pipes`, 1,024) skips quotes and
/// comments but not heredoc bodies, so a quoted heredoc that mentions `|` often (a Markdown table,
/// a shell snippet written to a file) is denied as "syntax tree too large".
#[test]
fn heredoc_text_with_many_pipes_is_data() {
    let case = Case {
        name: "quoted heredoc with 2,000 table rows",
        config: "[limits]\nmax_millis = 4000\n",
        via: Via::Command,
        text: heredoc_of("| a | b | c |\n", 28 * KIB).into_bytes(),
        expect: Expect::Allow(b""),
        seconds: 5,
        max_rss_mib: 128,
    };
    check(&case);
}
