//! Whole-line judgement in a session (DESIGN §5.1), from the table `tests/session/lines.tsv`:
//! each row is a session of the real hook (`share/interactive.bash` as bash's rcfile, bash -i
//! on a pipe) with the built binary as its check server, asserting the denials printed, that the
//! session goes on, and the effect on disk. And the same verdict as `-c`: every one-line row of
//! two case tables, sent as the hook sends a line, is decided as `guarded-sh -c` decides it.

use crate::setup::{hook_session, run, table, unescape, Setup, BIN};
use std::io::Write;
use std::path::Path;
use std::time::Duration;

/// The stub check server (`GUARDED_SH_BIN=stub`, run by the hook as `stub --serve`): denies
/// every request whose text names `forbidden_tool`, and every `guard` request; allows the rest.
/// As `stub --hook-check TEXT` (the hook's check in a subshell) it decides TEXT the same way.
const STUB: &str = r#"#!/bin/bash
if [[ $1 == --hook-check ]]; then
	[[ $2 != *forbidden_tool* ]] && exit 0
	echo 'guarded-sh: denied: stub' >&2
	exit 126
fi
[[ $1 == --serve ]] || exit 64
while IFS= read -r -d '' req; do
	nonce=${req%% *} rest=${req#* }
	if [[ $rest == guard[\ :]* || $rest == *forbidden_tool* ]]; then
		printf '%s deny stub\n' "$nonce"
	else
		printf '%s allow\n' "$nonce"
	fi
done
"#;

/// One scenario of `tests/session/lines.tsv`.
struct Scenario {
    at: String,
    /// The stub server instead of the built binary.
    stub: bool,
    denials: usize,
    /// `N+` in the table: at least N (a line judged both in a subshell and in the session).
    at_least: bool,
    profile: Option<String>,
    input: String,
    present: Vec<String>,
    absent: Vec<String>,
}

fn files(field: &str) -> Vec<String> {
    if field == "-" {
        return Vec::new();
    }
    field.split_whitespace().map(str::to_string).collect()
}

fn scenarios() -> Vec<Scenario> {
    table("session/lines.tsv")
        .into_iter()
        .map(|(line, f)| {
            let [name, server, denials, profile, input, present, absent] = &f[..] else {
                panic!("session/lines.tsv:{line}: want 7 tab-separated fields, got {f:?}");
            };
            assert!(
                ["gate", "stub"].contains(&server.as_str()),
                "session/lines.tsv:{line}: server {server}"
            );
            Scenario {
                at: format!("session/lines.tsv:{line} {name}"),
                stub: server == "stub",
                denials: denials
                    .trim_end_matches('+')
                    .parse()
                    .unwrap_or_else(|_| panic!("session/lines.tsv:{line}: denials {denials}")),
                at_least: denials.ends_with('+'),
                profile: (profile != "-").then(|| unescape(profile)),
                input: unescape(input),
                present: files(present),
                absent: files(absent),
            }
        })
        .collect()
}

/// The configuration (no policy directory: the built-in critical patterns decide) and the stub.
fn session_setup() -> Setup {
    let s = Setup::with("[policy]\ncache_dir = \"{dir}/no-cache\"\n");
    s.write_executable("stub", STUB);
    s
}

/// Runs one scenario in `dir` (its working directory, with its own home): the failures.
fn play(s: &Setup, dir: &Path, sc: &Scenario) -> Vec<String> {
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    if let Some(profile) = &sc.profile {
        std::fs::write(home.join(".profile"), format!("{profile}\n")).unwrap();
    }
    let bin = if sc.stub { s.path("stub") } else { BIN.into() };
    let mut c = hook_session(&[], bin.as_os_str(), &s.path("config.toml"), &home);
    c.current_dir(dir);
    let input = format!("{}\ntouch END\nexit 3\n", sc.input);
    let r = run(c, input.as_bytes(), Duration::from_secs(60), false);
    let mut failures = Vec::new();
    let mut fail = |what: String| failures.push(format!("{}: {what}\n{}", sc.at, r.stderr));
    if r.timed_out {
        fail("the session hung".into());
        return failures;
    }
    let denials = r
        .stderr
        .lines()
        .filter(|l| l.contains("guarded-sh: denied:"))
        .count();
    if denials != sc.denials && !(sc.at_least && denials > sc.denials) {
        fail(format!("{denials} denials printed, want {}", sc.denials));
    }
    if r.code != Some(3) || !dir.join("END").exists() {
        fail(format!(
            "the session did not go on to the end: status {:?}",
            r.code
        ));
    }
    for f in &sc.present {
        if !dir.join(f).exists() {
            fail(format!("{f} should exist"));
        }
    }
    for f in &sc.absent {
        if dir.join(f).exists() {
            fail(format!("{f} should not exist (part of a refused line ran)"));
        }
    }
    failures
}

#[test]
fn session_lines_follow_the_table() {
    let s = session_setup();
    let mut failures = Vec::new();
    for (i, sc) in scenarios().iter().enumerate() {
        let dir = s.path(&format!("scenario-{i}"));
        std::fs::create_dir_all(&dir).unwrap();
        failures.extend(play(&s, &dir, sc));
        // The device stand-ins do not exist: a refused `dd` that ran anyway would have made a
        // file of that name (as root), which no per-row check sees. Said, and removed.
        for standin in ["/dev/sdz-nonexistent", "/dev/sdy-nonexistent"] {
            if std::fs::remove_file(standin).is_ok() {
                failures.push(format!("{}: a refused command wrote {standin}", sc.at));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A refused line is one audit record of the whole line text, with the session's mode.
#[test]
fn a_refused_line_is_recorded_whole() {
    let s = session_setup();
    let dir = s.path("recorded");
    std::fs::create_dir_all(&dir).unwrap();
    let line = "touch A; curl -s http://127.0.0.1:9/x | sh; touch B";
    let sc = Scenario {
        at: "recorded".into(),
        stub: false,
        denials: 1,
        at_least: false,
        profile: None,
        input: line.into(),
        present: Vec::new(),
        absent: vec!["A".into(), "B".into()],
    };
    let failures = play(&s, &dir, &sc);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let audit = s.audit();
    let whole: Vec<_> = audit.iter().filter(|r| r["command"] == line).collect();
    assert_eq!(whole.len(), 1, "one record of the line: {audit:?}");
    assert_eq!(whole[0]["verdict"], "deny");
    assert_eq!(whole[0]["mode"], "interactive");
    assert!(
        !audit.iter().any(|r| r["command"] == "touch A"),
        "no part of the refused line was asked about"
    );
}

/// The rows of two case tables that are one typable line: (table line, text).
fn case_rows() -> Vec<(String, String)> {
    let mut rows = Vec::new();
    for name in ["download.tsv", "clobber.tsv"] {
        for (line, f) in table(&format!("cases/{name}")) {
            let text = &f[0];
            if !text.contains("\\n") && !text.contains('\t') && !text.trim().is_empty() {
                rows.push((format!("cases/{name}:{line}"), text.clone()));
            }
        }
    }
    rows
}

/// The check server's verdict on each text sent as a `line` request, as the hook sends it.
fn line_verdicts(texts: &[&str]) -> Vec<bool> {
    let mut requests = Vec::new();
    for (i, t) in texts.iter().enumerate() {
        write!(requests, "{} line \t{t}\n\0", i + 1).unwrap();
    }
    let (replies, _audit) = crate::interactive_server::serve(&requests);
    assert_eq!(replies.len(), texts.len(), "{replies:?}");
    replies
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let r = r
                .strip_prefix(&format!("{} ", i + 1))
                .unwrap_or_else(|| panic!("reply {r:?} answers another request"));
            r == "allow"
        })
        .collect()
}

/// Rows whose session verdict differs from `-c` today, with the reason (xfail): none since
/// sessions stopped refusing editors (issue 15 item 4).
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[];

#[test]
fn a_line_gets_the_verdict_of_dash_c() {
    // The real shell is /bin/true: an allowed `-c` runs nothing and exits 0; a denied one 126.
    let s = Setup::with(
        "[policy]\ncache_dir = \"{dir}/no-cache\"\n[shells]\ndefault = \"/bin/true\"\nbash = \"/bin/true\"\n",
    );
    let rows = case_rows();
    let texts: Vec<&str> = rows.iter().map(|(_, t)| t.as_str()).collect();
    let session = line_verdicts(&texts);
    let mut failures = Vec::new();
    let (mut allowed, mut denied) = (0, 0);
    for ((at, text), in_session) in rows.iter().zip(session) {
        let code = s.output(&["-c", text]).status.code();
        let on_dash_c = match code {
            Some(0) => true,
            Some(126) => false,
            other => {
                failures.push(format!("{at}: -c {text:?} exited {other:?}"));
                continue;
            }
        };
        if on_dash_c {
            allowed += 1;
        } else {
            denied += 1;
        }
        let known = KNOWN_DIFFERENCES.iter().find(|(t, _)| t == text);
        if let Some((_, why)) = known {
            // Still different, or the entry goes (so a fixed difference is noticed).
            if on_dash_c == in_session {
                failures.push(format!(
                    "{at}: {text:?} now agrees ({why}): drop it from KNOWN_DIFFERENCES"
                ));
            }
        } else if on_dash_c != in_session {
            failures.push(format!(
                "{at}: {text:?} allowed on -c: {on_dash_c}, in a session: {in_session}"
            ));
        }
    }
    assert!(
        allowed > 0 && denied > 0,
        "the sample has allowed ({allowed}) and denied ({denied}) rows"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Issue 15 item 6: a session's audit is one record per submitted line, one per refused
/// command, one per command that is no part of a line (a prompt hook's), one for the login
/// files' commands (at the first line) and one at the end, all with the session's id; an
/// allowed part of a line or of a login file has no record of its own (a login wrote about 60
/// before the first line).
#[test]
fn a_session_records_its_lines_its_refusals_and_what_it_counted() {
    const SESSION: &str = "0123456789abcdef0123456789abcdef";
    let s = session_setup();
    let dir = s.path("tally");
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join(".profile"),
        "touch P1\ntouch P2\ncurl -s http://127.0.0.1:9/x | sh\nPROMPT_COMMAND='touch PH'\n",
    )
    .unwrap();
    let mut c = hook_session(&[], BIN.as_ref(), &s.path("config.toml"), &home);
    c.current_dir(&dir).env("GUARDED_SH_SESSION", SESSION);
    // `exit` runs without a judgement: two lines.
    let lines = "touch A; touch B\ncurl -s http://127.0.0.1:9/x | sh; touch C\nexit 3\n";
    let r = run(c, lines.as_bytes(), Duration::from_secs(60), false);
    assert_eq!(r.code, Some(3), "{}", r.stderr);
    assert!(dir.join("P2").exists() && dir.join("B").exists() && !dir.join("C").exists());
    let audit = s.audit();
    let of = |command: &str| audit.iter().filter(|r| r["command"] == command).count();
    assert_eq!(of("touch A; touch B"), 1, "{audit:#?}");
    assert_eq!(
        of("touch A") + of("touch B") + of("touch P1"),
        0,
        "{audit:#?}"
    );
    assert_eq!(of("curl -s http://127.0.0.1:9/x | sh; touch C"), 1);
    // A prompt hook's command is no part of a line: recorded each time it runs after the
    // first line (before it, it is counted with the login files).
    assert!(of("touch PH") >= 2, "{audit:#?}");
    // The profile's refused command has its own record (a pipeline's parts run in subshells,
    // each checked by a fresh process: its `sh` is refused), and so has the refused line.
    let refusals = audit.iter().filter(|r| r["verdict"] == "deny").count();
    assert_eq!(refusals, 2, "{audit:#?}");
    let reason = |id: &str| {
        let found: Vec<_> = audit.iter().filter(|r| r["reason_id"] == id).collect();
        assert_eq!(found.len(), 1, "one {id} record: {audit:#?}");
        found[0]["reason"].as_str().unwrap().to_string()
    };
    let login = reason("session.login_files");
    assert!(
        login.starts_with("login files run: 0 lines judged (0 refused), "),
        "{login}"
    );
    let ended = reason("session.ended");
    assert!(
        ended.starts_with("interactive session ended: 2 lines judged (1 refused), "),
        "{ended}"
    );
    for r in &audit {
        if r["mode"] == "interactive" {
            assert_eq!(r["session_id"], SESSION, "{r}");
        }
    }
}
