//! One back end for enforcement, with budgets that do not depend on load: the verdict for a
//! policy and input is the same with and without a cache directory; a builtin that would
//! allocate gigabytes is stopped by the memory bound; 200 processes on a cold cache compile the
//! policy once; a write to a shared cache leaves other versions' files alone.

use crate::setup::{run, Setup};
use guarded_sh::policy::engine::{load, BackendKind, CacheMode};
use std::process::Stdio;
use std::time::Duration;

/// Longer than the gate's settle window (a file changed within it is not read yet).
const SETTLED: Duration = Duration::from_millis(600);

/// A case: name, modules (name, text), input, and the expected outcome: a verdict word, or
/// `Err(reason id)`.
type Case = (
    &'static str,
    Vec<(String, String)>,
    serde_json::Value,
    Result<&'static str, &'static str>,
);

fn cases() -> Vec<Case> {
    let header = "package honey\nimport rego.v1\n";
    let module = |text: &str| vec![("p.rego".to_string(), format!("{header}{text}"))];
    let mut many: Vec<(String, String)> = (0..300)
        .map(|i| {
            (
                format!("m{i:03}.rego"),
                format!("{header}deny contains {i} if input.x == {i}\n"),
            )
        })
        .collect();
    many.push((
        "main.rego".into(),
        format!("{header}default allow := false\nallow if count(deny) == 0\n"),
    ));
    vec![
        (
            // 600,000 comprehension steps: the RVM's instruction budget (1M) stops it, on every
            // machine, however loaded; the interpreter (no budget, a wall clock) allowed it.
            "1.2M-step rule",
            module("default allow := false\nallow if count([x | some x in numbers.range(1, input.n); x > 0]) > 0\n"),
            serde_json::json!({"n": 600000}),
            Err("policy.budget"),
        ),
        (
            // Conflicting complete rules: the RVM reads them as undefined, the interpreter
            // failed. One back end: one answer, with or without a cache directory.
            "conflicting deny_reason rules",
            module("allow := true\ndeny_reason := \"a\" if input.x == 1\ndeny_reason := \"b\" if input.x == 1\n"),
            serde_json::json!({"x": 1}),
            Ok("allow"),
        ),
        (
            // More modules than a compiled program holds: refused with a message, never handed
            // to the interpreter.
            "a policy of 301 files",
            many,
            serde_json::json!({"x": 1000}),
            Err("policy.too_many_files"),
        ),
    ]
}

fn outcome(
    dir: &std::path::Path,
    cache: &CacheMode,
    input: &serde_json::Value,
) -> Result<String, String> {
    let policy = load(dir, cache).map_err(|e| e.reason_id().to_string())?;
    assert_eq!(policy.backend(), BackendKind::Rvm, "{dir:?} {cache:?}");
    policy
        .evaluate(input)
        .map(|d| d.verdict_word().to_string())
        .map_err(|e| e.reason_id().to_string())
}

#[test]
fn the_verdict_does_not_depend_on_the_cache_directory() {
    for (name, files, input, expected) in cases() {
        let dir = tempfile::tempdir().unwrap();
        for (file, text) in &files {
            std::fs::write(dir.path().join(file), text).unwrap();
        }
        std::thread::sleep(SETTLED);
        let cache = tempfile::tempdir().unwrap();
        let cached = CacheMode::Dir(cache.path().to_path_buf());
        let expected = expected.map(str::to_string).map_err(str::to_string);
        let off = outcome(dir.path(), &CacheMode::Off, &input);
        let cold = outcome(dir.path(), &cached, &input);
        let warm = outcome(dir.path(), &cached, &input);
        eprintln!("{name}: no cache {off:?}, cold {cold:?}, warm {warm:?}");
        assert_eq!(off, expected, "{name}: no cache directory");
        assert_eq!(cold, expected, "{name}: cold cache");
        assert_eq!(warm, expected, "{name}: warm cache");
    }
}

/// `numbers.range(1, 3e8)` asks for gigabytes in one builtin call, which no instruction budget
/// sees: the address-space bound stops it at once, nothing runs.
#[test]
fn a_builtin_allocating_gigabytes_is_stopped_by_the_memory_bound() {
    for cache in ["", "cache_dir = \"{dir}/cache\"\n"] {
        let s = Setup::with(&format!("[policy]\ndir = \"{{dir}}/policies\"\n{cache}"));
        std::fs::create_dir_all(s.path("cache")).unwrap();
        s.write(
            "policies/p.rego",
            "package honey\nimport rego.v1\ndefault allow := false\nallow if { input.command.raw != \"\"; count(numbers.range(1, 3e8)) > 0 }\n",
        );
        std::thread::sleep(SETTLED);
        let marker = s.path("ran");
        let command = format!("echo ran > {}", marker.display());
        let r = run(
            s.command(&["-c", &command]),
            b"",
            Duration::from_secs(20),
            true,
        );
        eprintln!(
            "numbers.range(1, 3e8) {cache:?}: {:?}, code {:?}, signal {:?}, peak RSS {:?} KiB: {}",
            r.elapsed,
            r.code,
            r.signal,
            r.max_rss_kib,
            r.stderr.trim()
        );
        assert!(!r.timed_out, "hung");
        assert!(!marker.exists(), "ran");
        assert_ne!(r.code, Some(0));
        assert!(r.elapsed < Duration::from_secs(5), "{:?}", r.elapsed);
        assert!(r.stderr.contains("memory allocation"), "{}", r.stderr);
        if let Some(kib) = r.max_rss_kib {
            assert!(kib < 1536 * 1024, "peak RSS {kib} KiB");
        }
    }
}

/// 200 processes started together on a cold cache: one compiles (under the lock), the others
/// wait for its file; every one decides.
#[test]
fn two_hundred_cold_starts_compile_once() {
    const N: usize = 200;
    let s = Setup::with("[policy]\ndir = \"{dir}/policies\"\ncache_dir = \"{dir}/cache\"\n");
    std::fs::create_dir_all(s.path("cache")).unwrap();
    s.write("policies/p.rego", crate::setup::FORBIDDEN_TOOL);
    std::thread::sleep(SETTLED);
    let children: Vec<_> = (0..N)
        .map(|_| {
            let mut c = s.command(&["-c", "echo ok"]);
            c.env("GUARDED_SH_LOG", "guarded_sh::policy=debug")
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            c.spawn().unwrap()
        })
        .collect();
    let mut compiled = 0;
    let mut allowed = 0;
    for child in children {
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        compiled += stderr.matches("policy compiled").count();
        if out.status.code() == Some(0) && out.stdout == b"ok\n" {
            allowed += 1;
        } else {
            eprintln!("{:?}: {stderr}", out.status);
        }
    }
    eprintln!("{N} cold starts: {compiled} compilations, {allowed} allowed");
    assert_eq!(allowed, N);
    assert_eq!(compiled, 1);
}

/// Binaries of several versions share the cache: this one's write leaves another format's
/// files (older and newer) alone while they are in use.
#[test]
fn a_write_leaves_other_versions_cache_files() {
    let s = Setup::with("[policy]\ndir = \"{dir}/policies\"\ncache_dir = \"{dir}/cache\"\n");
    std::fs::create_dir_all(s.path("cache")).unwrap();
    s.write("policies/p.rego", crate::setup::FORBIDDEN_TOOL);
    let older = s.path(&format!("cache/{}.rvm", "a".repeat(64)));
    let newer = s.path(&format!("cache/{}.rvm", "b".repeat(64)));
    std::fs::write(&older, b"GSHRVM03 an older guarded-sh's program").unwrap();
    std::fs::write(&newer, b"GSHRVM99 a newer guarded-sh's program").unwrap();
    std::thread::sleep(SETTLED);
    let r = run(
        s.command(&["-c", "echo ok"]),
        b"",
        Duration::from_secs(30),
        false,
    );
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let programs = std::fs::read_dir(s.path("cache"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".rvm")
        })
        .count();
    assert_eq!(
        programs, 3,
        "this binary's program was not written next to the others"
    );
    assert!(older.exists(), "the older format's file was removed");
    assert!(newer.exists(), "the newer format's file was removed");
}
