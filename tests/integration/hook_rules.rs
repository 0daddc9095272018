//! The session hook's exit and refusal rules and the check server's, from one table
//! (`tests/hook_rules.tsv`). The hook side runs the real `share/interactive.bash` as bash's
//! rcfile, as a session does, with a stub check server that records each request and allows
//! only the row's marker: an `exit` row must end the session without a request, a `refused` row
//! must be sent flagged `guard` and a `gate` row unflagged, each exactly as the table writes it.
//! The Rust side asks the built binary (`--serve`, and `--hook-check` where the hook falls back
//! to it) what it does with each row, flagged as the hook flags it.

use crate::setup::{hook_session, run, table, text, Setup};
use std::io::Write;
use std::time::Duration;

/// The audit reason of the server's own exit rule.
const EXIT_RULE: &str = "exit and logout always run";

/// The line each session runs first; the stub allows it (so `$?` is 0), and the requests after
/// it are the row's.
const MARKER: &str = ": gsh-row-begin";

/// The stub check server (`GUARDED_SH_BIN=stub`, run by the hook as `stub --serve`): writes the
/// descriptors its parent holds on its pipes to `$GSH_STUB_DIR/fds` (`rfd N`, `wfd N`), allows
/// whole-line requests, appends each other request to `$GSH_STUB_DIR/requests` (NUL-terminated),
/// allows the marker, denies the rest.
const STUB: &str = r#"#!/bin/bash
[[ $1 == --serve ]] || exit 64
in=$(readlink "/proc/$$/fd/0") out=$(readlink "/proc/$$/fd/1")
for f in "/proc/$PPID/fd/"*; do
	l=$(readlink "$f") || continue
	[[ $l == "$in" ]] && printf 'wfd %s\n' "${f##*/}"
	[[ $l == "$out" ]] && printf 'rfd %s\n' "${f##*/}"
done >"$GSH_STUB_DIR/fds"
while IFS= read -r -d '' req; do
	nonce=${req%% *} rest=${req#* }
	flag=${rest%% *} text=${rest#* }
	# The command number (`-:N`) is the server's to check (interactive_server.rs), not this table's.
	flag=${flag%%:*}
	# Whole-line requests (tests/integration/interactive_lines.rs covers them) are allowed.
	[[ $flag == line ]] && { printf '%s allow\n' "$nonce"; continue; }
	printf '%s %s %s\0' "$nonce" "$flag" "$text" >>"$GSH_STUB_DIR/requests"
	if [[ $flag == - && $text == "$GSH_STUB_ALLOW" ]]; then
		printf '%s allow\n' "$nonce"
	else
		printf '%s deny stub\n' "$nonce"
	fi
done
"#;

/// The table: (line, outcome, text with `{rfd}`/`{wfd}`).
fn rows() -> Vec<(usize, String, String)> {
    table("hook_rules.tsv")
        .into_iter()
        .map(|(line, f)| {
            let [outcome, text] = &f[..] else {
                panic!("hook_rules.tsv:{line}: want 2 tab-separated fields, got {f:?}");
            };
            assert!(
                ["exit", "refused", "gate"].contains(&outcome.as_str()),
                "hook_rules.tsv:{line}: outcome {outcome}"
            );
            (line, outcome.clone(), text.clone())
        })
        .collect()
}

fn with_fds(text: &str, fds: &(String, String)) -> String {
    text.replace("{rfd}", &fds.0).replace("{wfd}", &fds.1)
}

/// How one session went: its exit status, the channel descriptors the stub saw (read, write),
/// and the requests after the marker as (flag, text).
struct Session {
    code: Option<i32>,
    fds: (String, String),
    requests: Vec<(String, String)>,
}

/// One session of the real hook with the stub server, `lines` on stdin.
fn session(s: &Setup, run_dir: &str, lines: &[&str]) -> Session {
    let dir = s.path(run_dir);
    std::fs::create_dir_all(&dir).unwrap();
    let stub = s.path("stub");
    let mut c = hook_session(
        &[],
        stub.as_os_str(),
        &s.path("config.toml"),
        &s.path("home"),
    );
    c.env("GSH_STUB_DIR", &dir)
        .env("GSH_STUB_ALLOW", MARKER)
        .current_dir(&dir);
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let r = run(c, input.as_bytes(), Duration::from_secs(30), false);
    assert!(!r.timed_out, "the session hung: {}", r.stderr);
    let fds = std::fs::read_to_string(dir.join("fds")).unwrap_or_default();
    let fd = |name: &str| {
        fds.lines()
            .find_map(|l| l.strip_prefix(&format!("{name} ")))
            .unwrap_or_else(|| panic!("the stub saw no {name}: {fds:?}; {}", r.stderr))
            .to_string()
    };
    let requests = std::fs::read(dir.join("requests")).unwrap_or_default();
    let requests: Vec<(String, String)> = requests
        .split(|b| *b == 0)
        .filter(|r| !r.is_empty())
        .map(|r| {
            let r = text(r);
            let mut parts = r.splitn(3, ' ');
            let (_nonce, flag) = (parts.next(), parts.next().unwrap_or_default());
            (
                flag.to_string(),
                parts.next().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let after = requests
        .iter()
        .position(|(_, t)| t == MARKER)
        .map_or_else(Vec::new, |i| requests[i + 1..].to_vec());
    Session {
        code: r.code,
        fds: (fd("rfd"), fd("wfd")),
        requests: after,
    }
}

fn hook_setup() -> Setup {
    let s = Setup::with("[policy]\nenabled = false\n");
    s.write_executable("stub", STUB);
    std::fs::create_dir(s.path("home")).unwrap();
    s
}

#[test]
fn the_hook_follows_the_table() {
    let s = hook_setup();
    // The descriptors of the server's pipes, from a session that runs nothing: bash picks the
    // same ones every time (each session below checks).
    let fds = session(&s, "probe", &[]).fds;
    let mut failures = Vec::new();
    for (line, outcome, row) in rows() {
        let text = with_fds(&row, &fds);
        let at = format!("hook_rules.tsv:{line}: {outcome} {text:?}");
        let Session {
            code,
            fds: seen_fds,
            requests,
        } = session(&s, &format!("row-{line}"), &[MARKER, &text, "exit 97"]);
        assert_eq!(seen_fds, fds, "{at}: the channel moved");
        match outcome.as_str() {
            "exit" => {
                // The session ends on the row, with its status ($? is the marker's 0).
                let status = text
                    .split_whitespace()
                    .last()
                    .and_then(|w| w.parse::<i32>().ok())
                    .unwrap_or(0);
                if code != Some(status) || !requests.is_empty() {
                    failures.push(format!(
                        "{at}: session status {code:?} (want {status}), requests {requests:?}"
                    ));
                }
            }
            _ => {
                let flag = if outcome == "refused" { "guard" } else { "-" };
                let want = vec![(flag.to_string(), text.clone())];
                // The stub denies the row, so the session goes on to `exit 97`.
                if code != Some(97) || requests != want {
                    failures.push(format!(
                        "{at}: session status {code:?} (want 97), requests {requests:?} (want {want:?})"
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_server_follows_the_table() {
    let rows = rows();
    // Any descriptors do: the server sees text.
    let fds = ("63".to_string(), "60".to_string());
    let mut requests = Vec::new();
    for (i, (_, outcome, row)) in rows.iter().enumerate() {
        let flag = if outcome == "refused" { "guard" } else { "-" };
        write!(requests, "{} {flag} {}\0", i + 1, with_fds(row, &fds)).unwrap();
    }
    let (replies, audit) = crate::interactive_server::serve(&requests);
    // A command the gate allows is counted, not recorded; `exit` and a refusal are recorded.
    let mut records = crate::interactive_server::decisions(&audit).into_iter();
    assert_eq!(replies.len(), rows.len(), "{replies:?}");
    let mut failures = Vec::new();
    for (i, (line, outcome, row)) in rows.iter().enumerate() {
        let at = format!("hook_rules.tsv:{line}: {outcome} {row:?}");
        let reply = replies[i]
            .strip_prefix(&format!("{} ", i + 1))
            .unwrap_or_else(|| panic!("{at}: reply {:?} answers another request", replies[i]));
        let record = if reply != "allow" || outcome == "exit" {
            records.next().unwrap_or_default()
        } else {
            serde_json::Value::Null
        };
        let reason = record["reason"].as_str().unwrap_or_default();
        let ok = match outcome.as_str() {
            "exit" => reply == "allow" && reason == EXIT_RULE,
            "refused" => reply.starts_with("deny ") && record["verdict"] == "deny",
            _ => reason != EXIT_RULE,
        };
        if !ok {
            failures.push(format!("{at}: reply {reply:?}, audit {record}"));
        }
    }
    assert_eq!(records.next(), None, "a record no request accounts for");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Where the server cannot be used (a subshell), the hook asks `--hook-check` about what it
/// does not refuse itself: the same exit rule.
#[test]
fn the_hook_check_follows_the_table() {
    let s = hook_setup();
    let mut failures = Vec::new();
    for (line, outcome, row) in rows().into_iter().filter(|(_, o, _)| o != "refused") {
        let at = format!("hook_rules.tsv:{line}: {outcome} {row:?}");
        let text = with_fds(&row, &("63".into(), "60".into()));
        let before = s.audit().len();
        let out = s.output(&["--hook-check", &text]);
        let audit = s.audit();
        let reason = audit
            .get(before)
            .and_then(|r| r["reason"].as_str())
            .unwrap_or_default()
            .to_string();
        let ok = match outcome.as_str() {
            "exit" => out.status.code() == Some(0) && reason == EXIT_RULE,
            _ => audit.len() == before + 1 && reason != EXIT_RULE,
        };
        if !ok {
            failures.push(format!(
                "{at}: status {:?}, audit reason {reason:?}",
                out.status.code()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
