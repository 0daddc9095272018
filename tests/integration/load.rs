//! Load (issue 19, item 5), through the built binary: 1,000 harmless commands released at the
//! same instant (held at a FIFO, then all let go) against a small policy on a warm cache must
//! all be allowed and run. A wall-clock analysis or policy limit turns such load into denials
//! (5–95 of 2,000 `echo` commands were denied before); the counts and wall time are printed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::setup::{Setup, BIN, FORBIDDEN_TOOL};
use std::collections::BTreeMap;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const N: usize = 1_000;

/// Harmless commands: plain lines (no grammar), ones that go through tree-sitter, and (for a
/// third of the processes) a 400-line script of builtins: about 80 ms of analysis in a debug
/// build, stretched by the load to seconds of wall time, which a wall-clock limit counted
/// against it (the old head denied 14–62 of the 1,000 with ANALYSIS_TIMEOUT).
fn harmless() -> Vec<String> {
    let script: String = (0..400)
        .map(|i| format!("x=\"line {i}\"; echo \"${{x}}\" >/dev/null\n"))
        .collect();
    let mut commands: Vec<String> = SHORT.iter().map(|c| c.to_string()).collect();
    commands.extend(std::iter::repeat_n(script, SHORT.len() / 2));
    commands
}

const SHORT: [&str; 6] = [
    "echo hello",
    "printf '%s\\n' load",
    "echo \"$HOME\" | wc -c",
    "for i in 1 2 3; do echo \"$i\"; done",
    "[ -d /tmp ] && echo ok || echo no",
    "x=$(echo one two); echo ${x%% *}",
];

#[test]
fn a_thousand_simultaneous_harmless_commands_are_all_allowed() {
    let _exclusive = crate::setup::exclusive();
    let s = Setup::with(
        "[policy]\ndir = \"{dir}/policies\"\ncache_dir = \"{dir}/cache\"\nallow_env_dir = false\n",
    );
    s.write("policies/honey.rego", FORBIDDEN_TOOL);
    std::fs::create_dir(s.path("cache")).unwrap();
    // Warm the cache with one process first.
    let warm = s.command(&["-c", "true"]).stdin(Stdio::null()).output();
    assert_eq!(warm.unwrap().status.code(), Some(0));
    let programs = std::fs::read_dir(s.path("cache"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension() == Some("rvm".as_ref()))
        .count();
    assert_eq!(programs, 1);
    std::fs::remove_file(s.path("audit.jsonl")).unwrap();

    let gate = s.path("gate");
    nix::unistd::mkfifo(&gate, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    // Held open read-write for the whole run, so a child that reaches the FIFO late still
    // finds a writer and its line.
    let mut release = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&gate)
        .unwrap();
    let harmless = harmless();
    let mut children = Vec::with_capacity(N);
    for i in 0..N {
        let mut c = Command::new("/bin/sh");
        c.args([
            "-c",
            "read _ < \"$0\"; exec \"$@\"",
            gate.to_str().unwrap(),
            BIN,
            "-c",
            &harmless[i % harmless.len()],
        ]);
        s.configure(&mut c);
        // No pipes: 1,000 of them would run into the descriptor limit; the audit record says
        // why a command was denied.
        c.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        children.push(c.spawn().unwrap());
    }
    let started = Instant::now();
    std::io::Write::write_all(&mut release, "go\n".repeat(N).as_bytes()).unwrap();
    let codes: Vec<Option<i32>> = children
        .into_iter()
        .map(|mut child| child.wait().unwrap().code())
        .collect();
    let wall = started.elapsed();
    drop(release);

    let records = s.audit();
    let mut verdicts: BTreeMap<String, usize> = BTreeMap::new();
    for r in &records {
        let key = format!(
            "{} {}",
            r["verdict"].as_str().unwrap_or("?"),
            r["reason_id"].as_str().unwrap_or("?")
        );
        *verdicts.entry(key).or_default() += 1;
    }
    let ran = codes.iter().filter(|c| **c == Some(0)).count();
    let denied: Vec<&serde_json::Value> =
        records.iter().filter(|r| r["verdict"] != "allow").collect();
    eprintln!(
        "{N} simultaneous commands: {ran} ran, {} denied, {} records {verdicts:?}, wall {wall:?}",
        denied.len(),
        records.len()
    );
    assert_eq!(records.len(), N, "{verdicts:?}");
    assert!(
        denied.is_empty(),
        "{} false denials: {verdicts:?}; first {}",
        denied.len(),
        denied[0]
    );
    assert_eq!(ran, N, "{verdicts:?}");
    assert!(wall < Duration::from_secs(90), "{wall:?}");
}
