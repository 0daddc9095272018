//! The compiled-policy cache: hits, stale and corrupt files (never trusted, never fatal),
//! concurrent writers, and the interpreter fallback for policies the RVM cannot compile.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use guarded_sh::policy::cache::{cache_file, cache_key, CacheMiss};
use guarded_sh::policy::engine::{load, BackendKind, CacheMode, CacheStatus, Policy};
use serde_json::json;
use std::path::Path;

const POLICY: &str = r#"package honey
import rego.v1
default allow := true
default decision := "allow"
allow := false if input.command.max_severity == "high"
deny_reason := "high" if input.command.max_severity == "high"
decision := "require_approval" if input.command.max_severity == "medium"
"#;

fn input(severity: &str) -> serde_json::Value {
    json!({"action": "command_exec", "schema_version": 1, "command": {"max_severity": severity}})
}

fn verdicts(policy: &Policy) -> Vec<&'static str> {
    ["high", "medium", ""]
        .iter()
        .map(|s| policy.evaluate(&input(s)).unwrap().verdict_word())
        .collect()
}

const EXPECTED: [&str; 3] = ["deny", "require_approval", "allow"];

fn setup() -> (tempfile::TempDir, tempfile::TempDir) {
    let policies = tempfile::tempdir().unwrap();
    std::fs::write(policies.path().join("p.rego"), POLICY).unwrap();
    (policies, tempfile::tempdir().unwrap())
}

fn cached(policies: &Path, cache: &Path) -> Policy {
    load(policies, &CacheMode::Dir(cache.to_path_buf())).unwrap()
}

fn cache_path(policy: &Policy, cache: &Path) -> std::path::PathBuf {
    cache_file(cache, &cache_key(policy.digest()))
}

#[test]
fn second_load_is_a_verified_hit() {
    let (policies, cache) = setup();
    let first = cached(policies.path(), cache.path());
    assert_eq!(
        first.cache_status(),
        &CacheStatus::Compiled {
            previous: CacheMiss::Absent,
            stored: true
        }
    );
    assert_eq!(first.backend(), BackendKind::Rvm);
    assert_eq!(verdicts(&first), EXPECTED);
    let second = cached(policies.path(), cache.path());
    assert_eq!(second.cache_status(), &CacheStatus::Hit);
    assert_eq!(second.entry_points(), ["allow", "deny_reason", "decision"]);
    assert_eq!(verdicts(&second), EXPECTED);
    assert_eq!(second.digest(), first.digest());
    let reason = second.evaluate(&input("high")).unwrap().reason();
    assert_eq!(reason, "high");
}

#[test]
fn changed_policy_gets_a_new_key() {
    let (policies, cache) = setup();
    let old = cached(policies.path(), cache.path());
    let old_file = cache_path(&old, cache.path());
    std::fs::write(
        policies.path().join("p.rego"),
        POLICY.replace("\"high\"", "\"low\""),
    )
    .unwrap();
    let new = cached(policies.path(), cache.path());
    assert_ne!(new.digest(), old.digest());
    assert!(matches!(
        new.cache_status(),
        CacheStatus::Compiled {
            previous: CacheMiss::Absent,
            ..
        }
    ));
    assert_eq!(verdicts(&new), ["allow", "require_approval", "allow"]);
    // A file stored under the new key but written for the old one is rejected.
    std::fs::copy(&old_file, cache_path(&new, cache.path())).unwrap();
    let again = cached(policies.path(), cache.path());
    assert_eq!(
        again.cache_status(),
        &CacheStatus::Compiled {
            previous: CacheMiss::Invalid("stored for another key".into()),
            stored: true
        }
    );
    assert_eq!(verdicts(&again), ["allow", "require_approval", "allow"]);
}

#[test]
fn corrupt_cache_files_are_recompiled() {
    let (policies, cache) = setup();
    let policy = cached(policies.path(), cache.path());
    let file = cache_path(&policy, cache.path());
    let good = std::fs::read(&file).unwrap();
    let key = cache_key(policy.digest());
    let resigned = {
        // A header that verifies around a payload regorus cannot read.
        use sha2::Digest;
        let payload = b"REGO\x06\0\0\0garbage garbage garbage garbage".to_vec();
        let mut bytes = good[..8].to_vec();
        bytes.extend_from_slice(key.as_bytes());
        bytes.extend_from_slice(&sha2::Sha256::digest(&payload));
        bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&payload);
        bytes
    };
    let mut flipped = good.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x55;
    let cases: [(&str, Vec<u8>); 5] = [
        ("empty", Vec::new()),
        ("truncated", good[..good.len() - 7].to_vec()),
        ("flipped byte", flipped),
        (
            "random bytes",
            (0..4096u32).map(|i| (i * 7919 % 251) as u8).collect(),
        ),
        ("resigned garbage", resigned),
    ];
    for (name, bytes) in cases {
        std::fs::write(&file, &bytes).unwrap();
        let policy = cached(policies.path(), cache.path());
        assert!(
            matches!(
                policy.cache_status(),
                CacheStatus::Compiled {
                    previous: CacheMiss::Invalid(_),
                    stored: true
                }
            ),
            "{name}: {:?}",
            policy.cache_status()
        );
        assert_eq!(verdicts(&policy), EXPECTED, "{name}");
        assert_eq!(std::fs::read(&file).unwrap(), good, "{name}: not rewritten");
        assert_eq!(
            cached(policies.path(), cache.path()).cache_status(),
            &CacheStatus::Hit
        );
    }
}

#[test]
fn concurrent_writers_leave_one_valid_file() {
    let (policies, cache) = setup();
    let threads: Vec<_> = (0..16)
        .map(|_| {
            let p = policies.path().to_path_buf();
            let c = cache.path().to_path_buf();
            std::thread::spawn(move || verdicts(&cached(&p, &c)))
        })
        .collect();
    for thread in threads {
        assert_eq!(thread.join().unwrap(), EXPECTED);
    }
    let names: Vec<String> = std::fs::read_dir(cache.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".lock"))
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    assert!(names[0].ends_with(".rvm"));
    assert_eq!(
        cached(policies.path(), cache.path()).cache_status(),
        &CacheStatus::Hit
    );
}

#[test]
fn missing_cache_directory_still_evaluates() {
    let (policies, cache) = setup();
    let absent = cache.path().join("not-created");
    let policy = cached(policies.path(), &absent);
    assert_eq!(
        policy.cache_status(),
        &CacheStatus::Compiled {
            previous: CacheMiss::Absent,
            stored: false
        }
    );
    assert_eq!(verdicts(&policy), EXPECTED);
    assert!(!absent.exists());
}

/// The RVM cannot compile `with`; enforcement does not switch to the interpreter (whose bounds
/// and conflict semantics differ) but denies, with and without a cache directory alike.
#[test]
fn with_keyword_is_unsupported_not_a_back_end_switch() {
    let (policies, cache) = setup();
    std::fs::write(
        policies.path().join("with.rego"),
        "package honey\nimport rego.v1\nrequires contains \"w\" if { medium with input.command.max_severity as \"medium\" }\nmedium if input.command.max_severity == \"medium\"\n",
    )
    .unwrap();
    for mode in [CacheMode::Dir(cache.path().to_path_buf()), CacheMode::Off] {
        let error = load(policies.path(), &mode).unwrap_err();
        assert_eq!(error.reason_id(), "policy.unsupported", "{mode:?}: {error}");
        assert!(error.to_string().contains("with"), "{error}");
    }
    let programs = std::fs::read_dir(cache.path())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".rvm")
        })
        .count();
    assert_eq!(programs, 0);
}

#[test]
fn cache_off_compiles_the_same_program_in_memory() {
    let (policies, _cache) = setup();
    let policy = load(policies.path(), &CacheMode::Off).unwrap();
    assert_eq!(policy.backend(), BackendKind::Rvm);
    assert_eq!(policy.cache_status(), &CacheStatus::Off);
    assert_eq!(verdicts(&policy), EXPECTED);
    assert_eq!(policy.files(), [policies.path().join("p.rego")]);
}

#[test]
fn a_program_without_the_combined_entry_point_is_recompiled() {
    // The layout before the combined entry point: one entry point per answer. A verified file
    // of that shape (same key) is a miss, not a program to run with the wrong entry point.
    let (policies, cache) = setup();
    let policy = cached(policies.path(), cache.path());
    let key = cache_key(policy.digest());
    let mut engine = regorus::Engine::new();
    engine.add_policy("p.rego".into(), POLICY.into()).unwrap();
    let compiled = engine
        .compile_with_entrypoint(&"data.honey.allow".into())
        .unwrap();
    let program = regorus::languages::rego::compiler::Compiler::compile_from_policy(
        &compiled,
        &[
            "data.honey.allow",
            "data.honey.deny_reason",
            "data.honey.decision",
        ],
    )
    .unwrap();
    guarded_sh::policy::cache::write(cache.path(), &key, &program).unwrap();
    let again = cached(policies.path(), cache.path());
    assert_eq!(
        again.cache_status(),
        &CacheStatus::Compiled {
            previous: CacheMiss::Invalid("no combined entry point".into()),
            stored: true
        }
    );
    assert_eq!(verdicts(&again), EXPECTED);
    assert_eq!(
        cached(policies.path(), cache.path()).cache_status(),
        &CacheStatus::Hit
    );
}

/// The cached program leaves out the Rego sources and the source span of each instruction (the
/// VM reads neither): the file holds no line of the policy and the program no span, and the
/// program read back from it still decides as compiled.
#[test]
fn the_cached_program_carries_no_sources_or_spans() {
    let (policies, cache) = setup();
    let first = cached(policies.path(), cache.path());
    let bytes = std::fs::read(cache_path(&first, cache.path())).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    for line in POLICY.lines().filter(|l| l.len() > 20) {
        assert!(
            !text.contains(line),
            "the cache file holds the source line {line:?}"
        );
    }
    // regorus's own serialization starts at its magic, after guarded-sh's header.
    let start = bytes.windows(4).position(|w| w == b"REGO").unwrap();
    let program = match regorus::rvm::program::Program::deserialize_binary(&bytes[start..]) {
        Ok(regorus::rvm::program::DeserializationResult::Complete(p)) => p,
        _ => panic!("the cached payload does not deserialize"),
    };
    assert!(!program.instructions.is_empty());
    assert!(
        program.instruction_spans.is_empty(),
        "the cached program carries spans"
    );
    let second = cached(policies.path(), cache.path());
    assert_eq!(second.cache_status(), &CacheStatus::Hit);
    assert_eq!(verdicts(&second), EXPECTED);
}

/// A write prunes what nobody has used for `UNUSED_FOR` (read or written: the later of atime and
/// mtime), whatever its format, and temp and lock files a dead writer left over an hour ago.
/// Everything else stays: another version's files in use (older or newer format: mixed versions
/// sharing the cache do not evict each other), entries of this format for other policies, fresh
/// temps (a writer may be mid-write), links (and what they point to), directories, foreign
/// names. A cache hit prunes nothing.
#[test]
fn a_write_prunes_only_what_nobody_used_for_a_month() {
    let (policies, cache) = setup();
    let dir = cache.path();
    let first = cached(policies.path(), dir);
    let current = std::fs::read(cache_path(&first, dir)).unwrap();
    let outside = tempfile::tempdir().unwrap();
    let old_target = outside.path().join("old.rvm");
    std::fs::write(&old_target, b"GSHRVM02 from an older guarded-sh").unwrap();
    let key = |c: char| c.to_string().repeat(64);
    let hours_ago =
        |h: u64| std::time::SystemTime::now() - std::time::Duration::from_secs(h * 3600);
    let unused = guarded_sh::policy::cache::UNUSED_FOR.as_secs() / 3600 + 24;
    // (name, what it is, kept?)
    let cases: &[(String, &str, bool)] = &[
        (format!("{}.rvm", key('a')), "older format, in use", true),
        (format!("{}.rvm", key('7')), "older format, unused", false),
        (
            format!("{}.rvm", key('6')),
            "older format, read lately",
            true,
        ),
        (
            format!("{}.rvm", key('b')),
            "shorter than a magic, unused",
            false,
        ),
        (
            format!("{}.rvm", key('c')),
            "this format, another policy",
            true,
        ),
        (format!("{}.rvm", key('5')), "this format, unused", false),
        (
            format!(".{}.99.0.tmp", key('d')),
            "temp, two hours old",
            false,
        ),
        (
            format!(".{}.99.1.tmp", key('e')),
            "temp, just written",
            true,
        ),
        (format!(".{}.lock", key('4')), "lock, two hours old", false),
        (format!(".{}.lock", key('3')), "lock, just made", true),
        (format!("{}.rvm", key('9')), "a newer format, in use", true),
        (format!("{}.rvm", key('2')), "a newer format, unused", false),
        (format!("{}.rvm", key('8')), "no guarded-sh header", true),
        (format!("{}.rvm", key('f')), "link to an older format", true),
        (format!("{}.rvm", key('1')), "directory", true),
        ("notes.txt".to_string(), "foreign name, unused", true),
        (
            format!("{}.rvm", "A".repeat(64)),
            "upper-case key, unused",
            true,
        ),
    ];
    for (name, what, _) in cases {
        let path = dir.join(name);
        match *what {
            "older format, in use" | "older format, unused" | "older format, read lately" => {
                std::fs::write(&path, b"GSHRVM02 old payload").unwrap()
            }
            "foreign name, unused" | "upper-case key, unused" => {
                std::fs::write(&path, b"GSHRVM02 old payload").unwrap()
            }
            "shorter than a magic, unused" => std::fs::write(&path, b"GSH").unwrap(),
            "this format, another policy" | "this format, unused" => {
                std::fs::write(&path, &current).unwrap()
            }
            "a newer format, in use" | "a newer format, unused" => {
                std::fs::write(&path, b"GSHRVM99 from a newer one").unwrap()
            }
            "no guarded-sh header" => std::fs::write(&path, b"REGO\x06\0\0\0 bare").unwrap(),
            "temp, two hours old"
            | "temp, just written"
            | "lock, two hours old"
            | "lock, just made" => {
                let file = std::fs::File::create(&path).unwrap();
                if what.contains("two hours") {
                    file.set_modified(hours_ago(2)).unwrap();
                }
            }
            "link to an older format" => std::os::unix::fs::symlink(&old_target, &path).unwrap(),
            "directory" => std::fs::create_dir(&path).unwrap(),
            other => panic!("no setup for {other}"),
        }
        if what.ends_with("unused") || what.ends_with("read lately") {
            let read = if what.ends_with("read lately") {
                hours_ago(1)
            } else {
                hours_ago(unused)
            };
            let times = std::fs::FileTimes::new()
                .set_accessed(read)
                .set_modified(hours_ago(unused));
            std::fs::File::options()
                .write(true)
                .open(&path)
                .unwrap()
                .set_times(times)
                .unwrap();
        }
    }
    // A hit writes nothing, so it prunes nothing.
    assert_eq!(
        cached(policies.path(), dir).cache_status(),
        &CacheStatus::Hit
    );
    for (name, what, _) in cases {
        assert!(
            dir.join(name).symlink_metadata().is_ok(),
            "a hit removed {what}"
        );
    }
    // A changed policy is a miss: compiled, written, and the directory pruned.
    std::fs::write(
        policies.path().join("p.rego"),
        POLICY.replace("\"medium\"", "\"low\""),
    )
    .unwrap();
    let changed = cached(policies.path(), dir);
    assert!(matches!(
        changed.cache_status(),
        CacheStatus::Compiled { stored: true, .. }
    ));
    for (name, what, kept) in cases {
        let exists = dir.join(name).symlink_metadata().is_ok();
        assert_eq!(exists, *kept, "{what} ({name}): expected kept={kept}");
    }
    assert!(
        old_target.exists(),
        "the link's target outside the cache was touched"
    );
    assert!(
        cache_path(&first, dir).exists(),
        "the first policy's entry was removed"
    );
    assert!(cache_path(&changed, dir).exists());
    // Nothing is left to prune.
    assert_eq!(guarded_sh::policy::cache::prune(dir), 0);
}
