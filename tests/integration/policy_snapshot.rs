//! One policy snapshot per decision: while the policy directory is updated under running
//! commands (four update styles, a file written in place a piece at a time), no decision is made
//! under a policy that never existed; special and oversized files are refused at once.

use crate::setup::{run, Setup};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Longer than the gate's settle window (a file changed within it is not read yet).
const SETTLED: Duration = Duration::from_millis(600);

/// An update left half done this long can be read as finished (the gate's settle window is
/// 500 ms, its documented limit, less a margin for the kernel's coarse timestamp tick): a
/// process that ran while the writer paused so long is not held to the snapshot guarantee.
const WRITER_PAUSE: Duration = Duration::from_millis(450);
// (Processes wait for the directory to settle, so one pause can cover a hundred of them.)

/// Version A: `a.rego` denies `echo`, `b.rego` adds nothing. Version B: the deny rule moved to
/// `b.rego`. Both versions deny `echo`; B's `a.rego` with A's `b.rego` (a policy that never
/// existed) allows it.
const A_A: &str = "package honey\nimport rego.v1\ndefault allow := false\nallow if count(deny) == 0\ndeny contains \"echo (a)\" if \"echo\" in input.command.detected.commands\n";
const A_B: &str =
    "package honey\nimport rego.v1\ndefault allow := false\nallow if count(deny) == 0\n";
const B_A: &str = "package honey\nimport rego.v1\ndeny contains \"never\" if input.never == 1\n";
const B_B: &str = "package honey\nimport rego.v1\ndeny contains \"echo (b)\" if \"echo\" in input.command.detected.commands\n";

const PROCESSES: usize = 500;
/// Processes at a time (most of them wait for the directory to settle, not for a CPU).
const PARALLEL: usize = 96;

fn version(dir: &Path, b: bool) {
    std::fs::create_dir_all(dir).unwrap();
    let (a, bb) = if b { (A_B, B_B) } else { (A_A, B_A) };
    std::fs::write(dir.join("a.rego"), a).unwrap();
    std::fs::write(dir.join("b.rego"), bb).unwrap();
    // Modules that sort between the two: a reader that opens each file by its path takes longer
    // between `a.rego` and `b.rego`, as with a real policy of many files.
    for i in 0..PADDING {
        let text = format!("package honey\nimport rego.v1\npad_{i} := {i}\n");
        std::fs::write(dir.join(format!("a_pad_{i:02}.rego")), text).unwrap();
    }
}

const PADDING: usize = 30;

#[derive(Clone, Copy, Debug)]
enum Style {
    SymlinkRename,
    Exchange,
    TwoFileRenames,
    InPlace,
}

/// Sets up the policy for `style` and returns the directory the configuration names.
fn prepare(s: &Setup, style: Style) -> PathBuf {
    let policies = s.path("policies");
    match style {
        Style::SymlinkRename => {
            version(&s.path("vA"), false);
            version(&s.path("vB"), true);
            std::os::unix::fs::symlink(s.path("vA"), &policies).unwrap();
        }
        Style::Exchange => {
            version(&policies, false);
            version(&s.path("other"), true);
        }
        Style::TwoFileRenames | Style::InPlace => version(&policies, false),
    }
    policies
}

/// One update of `style`, from version `b` to the other; returns when it began and ended.
fn flip(s: &Setup, style: Style, to_b: bool) -> (Instant, Instant) {
    let began = Instant::now();
    let policies = s.path("policies");
    let (a, b) = if to_b { (A_B, B_B) } else { (A_A, B_A) };
    match style {
        Style::SymlinkRename => {
            let link = s.path("policies.new");
            let target = s.path(if to_b { "vB" } else { "vA" });
            std::os::unix::fs::symlink(target, &link).unwrap();
            std::fs::rename(&link, &policies).unwrap();
        }
        Style::Exchange => {
            nix::fcntl::renameat2(
                nix::fcntl::AT_FDCWD,
                &policies,
                nix::fcntl::AT_FDCWD,
                &s.path("other"),
                nix::fcntl::RenameFlags::RENAME_EXCHANGE,
            )
            .unwrap();
        }
        Style::TwoFileRenames => {
            // Complete new files, each renamed over the old one: A -> B renames a.rego first
            // (B's a with A's b allows for a moment), B -> A renames b.rego first (the same).
            std::fs::write(policies.join(".a.new"), a).unwrap();
            std::fs::write(policies.join(".b.new"), b).unwrap();
            let order = if to_b { ["a", "b"] } else { ["b", "a"] };
            for name in order {
                std::fs::rename(
                    policies.join(format!(".{name}.new")),
                    policies.join(format!("{name}.rego")),
                )
                .unwrap();
            }
        }
        Style::InPlace => {
            // Each file truncated and written again in two pieces, the first complete enough
            // to parse and (for `a.rego`) to allow.
            let order = if to_b {
                [("a", a), ("b", b)]
            } else {
                [("b", b), ("a", a)]
            };
            for (name, text) in order {
                use std::io::Write;
                let mut file =
                    std::fs::File::create(policies.join(format!("{name}.rego"))).unwrap();
                let cut = text.find("\ndeny").map_or(text.len(), |i| i + 1);
                file.write_all(&text.as_bytes()[..cut]).unwrap();
                file.write_all(&text.as_bytes()[cut..]).unwrap();
            }
        }
    }
    (began, Instant::now())
}

/// What the processes of one run ended with.
#[derive(Debug, Default)]
struct Tally {
    ran: usize,
    denied_by_policy: usize,
    unstable: usize,
    /// Processes that ran while the writer had left an update half done for longer than
    /// [`WRITER_PAUSE`] (a loaded machine descheduling it), whatever they ended with.
    during_writer_pause: usize,
    other: Vec<String>,
}

fn flip_run(style: Style) -> Tally {
    let s = Setup::with("[policy]\ndir = \"{dir}/policies\"\ncache_dir = \"{dir}/cache\"\n");
    std::fs::create_dir_all(s.path("cache")).unwrap();
    prepare(&s, style);
    // Warm the cache for both versions, so the run measures reading, not compiling.
    for _ in 0..2 {
        let r = run(
            s.command(&["-c", "echo warm"]),
            b"",
            Duration::from_secs(30),
            false,
        );
        assert_eq!(r.code, Some(126), "{style:?} warm-up: {}", r.stderr);
        flip(&s, style, true);
        std::thread::sleep(SETTLED);
        let r = run(
            s.command(&["-c", "echo warm"]),
            b"",
            Duration::from_secs(30),
            false,
        );
        assert_eq!(r.code, Some(126), "{style:?} warm-up: {}", r.stderr);
        flip(&s, style, false);
        std::thread::sleep(SETTLED);
    }
    let s = Arc::new(s);
    let stop = Arc::new(AtomicBool::new(false));
    let flips = Arc::new(AtomicUsize::new(0));
    let pauses = Arc::new(Mutex::new(Vec::<(Instant, Instant)>::new()));
    let flipper = {
        let (s, stop, flips) = (Arc::clone(&s), Arc::clone(&stop), Arc::clone(&flips));
        let pauses = Arc::clone(&pauses);
        std::thread::spawn(move || {
            let mut to_b = true;
            while !stop.load(Ordering::Relaxed) {
                let (began, ended) = flip(&s, style, to_b);
                // Only these styles leave the directory half updated between two calls.
                let in_steps = matches!(style, Style::InPlace | Style::TwoFileRenames);
                if in_steps && ended - began >= WRITER_PAUSE {
                    pauses.lock().unwrap().push((began, ended));
                }
                to_b = !to_b;
                flips.fetch_add(1, Ordering::Relaxed);
                std::thread::yield_now();
            }
        })
    };
    let next = Arc::new(AtomicUsize::new(0));
    let workers: Vec<_> = (0..PARALLEL)
        .map(|_| {
            let (s, next) = (Arc::clone(&s), Arc::clone(&next));
            std::thread::spawn(move || {
                let mut outcomes = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= PROCESSES {
                        break outcomes;
                    }
                    let marker = s.path(&format!("ran.{i}"));
                    let command = format!("echo ran > {}", marker.display());
                    let started = Instant::now();
                    let out = s
                        .command(&["-c", &command])
                        .stdin(Stdio::null())
                        .output()
                        .unwrap();
                    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
                    let span = (started, Instant::now());
                    outcomes.push((span, marker.exists(), out.status.code(), stderr));
                }
            })
        })
        .collect();
    let mut tally = Tally::default();
    let outcomes: Vec<_> = workers
        .into_iter()
        .flat_map(|worker| worker.join().unwrap())
        .collect();
    stop.store(true, Ordering::Relaxed);
    flipper.join().unwrap();
    let pauses = pauses.lock().unwrap().clone();
    for ((started, ended), ran, code, stderr) in outcomes {
        if pauses.iter().any(|&(b, e)| b < ended && started < e) {
            tally.during_writer_pause += 1;
        } else if ran || code == Some(0) {
            tally.ran += 1;
        } else if code == Some(126) && stderr.contains("[policy.unstable]") {
            tally.unstable += 1;
        } else if code == Some(126) && stderr.contains("denied: denied by policy") {
            tally.denied_by_policy += 1;
        } else {
            tally.other.push(format!("{code:?}: {stderr}"));
        }
    }
    eprintln!(
        "{style:?}: {PROCESSES} processes, {} flips ({} paused over {WRITER_PAUSE:?}): {} ran, {} denied by the policy, {} policy.unstable, {} during a writer's pause, {} other",
        flips.load(Ordering::Relaxed),
        pauses.len(),
        tally.ran,
        tally.denied_by_policy,
        tally.unstable,
        tally.during_writer_pause,
        tally.other.len()
    );
    tally
}

fn assert_no_policy_that_never_existed(style: Style) {
    let started = Instant::now();
    let tally = flip_run(style);
    eprintln!("{style:?}: {:?}", started.elapsed());
    assert_eq!(tally.ran, 0, "{style:?}: {tally:?}");
    assert!(tally.other.is_empty(), "{style:?}: {:?}", tally.other);
    assert_eq!(
        tally.denied_by_policy + tally.unstable + tally.during_writer_pause,
        PROCESSES
    );
    // A run the writer's pauses swallowed would show nothing.
    assert!(
        tally.during_writer_pause * 2 <= PROCESSES,
        "{style:?}: {tally:?}"
    );
}

#[test]
fn symlinked_directory_re_pointed_by_rename() {
    assert_no_policy_that_never_existed(Style::SymlinkRename);
}

#[test]
fn directories_exchanged_by_renameat2() {
    assert_no_policy_that_never_existed(Style::Exchange);
}

#[test]
fn two_files_each_replaced_by_rename() {
    assert_no_policy_that_never_existed(Style::TwoFileRenames);
}

#[test]
fn files_rewritten_in_place() {
    assert_no_policy_that_never_existed(Style::InPlace);
}

/// A deny policy whose prefixes include policies that parse and allow.
const DENY_POLICY: &str = "package honey\nimport rego.v1\n\ndefault allow := true\n\n# The one rule of this directory: echo is not allowed here.\nallow := false if {\n\t\"echo\" in input.command.detected.commands\n}\n";

/// Every truncation of a deny policy, as a writer in the middle of writing it leaves it: the
/// command starts while the file holds the prefix, the rest follows 30 ms later. A reader that
/// takes the prefix for the policy allows where a prefix parses and allows; the settle window
/// and the re-checks make it wait for the whole file.
#[test]
fn a_file_being_written_is_never_read_half_written() {
    let prefixes: Vec<(usize, tempfile::TempDir)> = (1..DENY_POLICY.len())
        .map(|len| {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("p.rego"), &DENY_POLICY[..len]).unwrap();
            (len, dir)
        })
        .collect();
    std::thread::sleep(SETTLED);
    let input = serde_json::json!({"command": {"detected": {"commands": ["echo"]}}});
    let allowing: Vec<usize> = prefixes
        .iter()
        .filter(|(_, dir)| {
            guarded_sh::policy::engine::load(
                dir.path(),
                &guarded_sh::policy::engine::CacheMode::Off,
            )
            .ok()
            .and_then(|p| p.evaluate(&input).ok())
            .is_some_and(|d| d.allow)
        })
        .map(|(len, _)| *len)
        .collect();
    eprintln!(
        "{} of {} truncations of a {}-byte deny policy parse and allow as complete files",
        allowing.len(),
        DENY_POLICY.len() - 1,
        DENY_POLICY.len()
    );
    assert!(
        !allowing.is_empty(),
        "the policy has no allowing prefix to test"
    );
    let next = Arc::new(AtomicUsize::new(0));
    let lengths = Arc::new((1..DENY_POLICY.len()).collect::<Vec<_>>());
    let workers: Vec<_> = (0..8)
        .map(|_| {
            let (next, lengths) = (Arc::clone(&next), Arc::clone(&lengths));
            std::thread::spawn(move || {
                let mut ran = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&len) = lengths.get(i) else {
                        break ran;
                    };
                    // A writer descheduled for longer than the settle window is, to any reader,
                    // a writer that finished: such a try says nothing, so it is made again.
                    let runs = (0..3).find_map(|_| truncated_write_runs(len));
                    if runs != Some(false) {
                        ran.push((len, runs));
                    }
                }
            })
        })
        .collect();
    let ran: Vec<(usize, Option<bool>)> = workers
        .into_iter()
        .flat_map(|w| w.join().unwrap())
        .collect();
    eprintln!("commands run (Some(true)) or never tested inside the window (None): {ran:?}");
    assert!(
        ran.is_empty(),
        "ran under a half-written policy, or could not be tested, at lengths {ran:?}"
    );
}

/// Whether the command ran while the policy file was written in two pieces, `len` bytes first;
/// `None` when the second piece came later than the settle window after the first (the machine
/// held the writer up), so the try tested nothing.
fn truncated_write_runs(len: usize) -> Option<bool> {
    use std::io::Write;
    let s = Setup::with("[policy]\ndir = \"{dir}/policies\"\n");
    std::fs::create_dir_all(s.path("policies")).unwrap();
    let marker = s.path("ran");
    let mut file = std::fs::File::create(s.path("policies/p.rego")).unwrap();
    file.write_all(&DENY_POLICY.as_bytes()[..len]).unwrap();
    let first_written = std::time::Instant::now();
    let command = format!("echo ran > {}", marker.display());
    let child = s
        .command(&["-c", &command])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(30));
    file.write_all(&DENY_POLICY.as_bytes()[len..]).unwrap();
    drop(file);
    let inside_window = first_written.elapsed() < guarded_sh::policy::directory::SETTLE;
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code() == Some(126) || marker.exists(),
        "length {len}: {:?} {stderr}",
        out.status
    );
    inside_window.then(|| marker.exists())
}

/// A FIFO, a device, a link to /dev/zero, a directory named like a module and an oversized
/// module: each refused with a message naming it, within 5 s, nothing run.
#[test]
fn special_and_oversized_policy_files_are_refused_at_once() {
    let big = format!(
        "package honey\nimport rego.v1\nallow := true\n# {}\n",
        "x".repeat(5 * 1024 * 1024)
    );
    let cases: [(&str, &str, &str); 6] = [
        ("fifo.rego", "[policy.not_regular]", "a FIFO"),
        // A name that is not UTF-8 (x\xff.rego): refused as such, not "kept changing".
        ("x\u{fffd}.rego", "[policy.file_name]", "is not UTF-8"),
        ("null.rego", "[policy.not_regular]", "a character device"),
        ("zero.rego", "[policy.not_regular]", "a character device"),
        ("dir.rego", "[policy.not_regular]", "a directory"),
        ("big.rego", "[policy.too_large]", "larger than the limit"),
    ];
    for (name, reason, says) in cases {
        let s = Setup::with("[policy]\ndir = \"{dir}/policies\"\n");
        s.write(
            "policies/p.rego",
            "package honey\nimport rego.v1\nallow := true\n",
        );
        let path = s.path(&format!("policies/{name}"));
        match name {
            "x\u{fffd}.rego" => {
                use std::os::unix::ffi::OsStrExt;
                let raw = std::ffi::OsStr::from_bytes(b"x\xff.rego");
                std::fs::write(s.path("policies").join(raw), "package honey\n").unwrap()
            }
            "fifo.rego" => {
                nix::unistd::mkfifo(&path, nix::sys::stat::Mode::from_bits_truncate(0o644)).unwrap()
            }
            "null.rego" => std::os::unix::fs::symlink("/dev/null", &path).unwrap(),
            "zero.rego" => std::os::unix::fs::symlink("/dev/zero", &path).unwrap(),
            "dir.rego" => std::fs::create_dir(&path).unwrap(),
            _ => std::fs::write(&path, &big).unwrap(),
        }
        std::thread::sleep(SETTLED);
        let marker = s.path("ran");
        let command = format!("echo ran > {}", marker.display());
        let r = run(
            s.command(&["-c", &command]),
            b"",
            Duration::from_secs(5),
            true,
        );
        assert!(!r.timed_out, "{name}: hung");
        assert_eq!(r.code, Some(126), "{name}: {}", r.stderr);
        assert!(!marker.exists(), "{name}: ran");
        assert!(r.stderr.contains(reason), "{name}: {}", r.stderr);
        assert!(
            r.stderr.contains(says) && r.stderr.contains(name),
            "{name}: {}",
            r.stderr
        );
        if let Some(kib) = r.max_rss_kib {
            assert!(kib < 128 * 1024, "{name}: peak RSS {kib} KiB");
        }
        eprintln!("{name}: {:?}, {:?} KiB", r.elapsed, r.max_rss_kib);
    }
}
