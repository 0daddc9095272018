//! Strict defaults and the trusted configuration (DESIGN §8, issue 19 item 2; item 3 for the
//! configuration file): with no configuration file the escape and `HONEY_POLICY_DIR` are refused;
//! `GUARDED_SH_CONFIG` is honoured for root only and must name an existing regular file of at
//! most 1 MiB, or nothing runs. Runs as `nobody` use `Setup::as_user` (a private `/etc` overlay),
//! so these tests need root; as anyone else they skip, saying so.

use crate::setup::{exists, is_root, run, Run, Setup, FORBIDDEN_TOOL};
use std::os::unix::fs::PermissionsExt;
use std::process::Command;
use std::time::Duration;

const NOBODY: u32 = 65534;
const GROUP: u32 = 65534;
/// What the floor denies (MKFS_FILESYSTEM, critical), on a device that does not exist.
const CRITICAL: &str = "mkfs.ext4 /dev/gsh-nonexistent-device";
const ALLOW_ALL: &str = "package honey\nimport rego.v1\ndefault allow := true\n";
const ROOT_ONLY: &str = "is honoured for root only (uid 65534)";

fn skip(test: &str) -> bool {
    if !is_root() {
        eprintln!("SKIP strict_defaults::{test}: needs root (users, mount namespaces)");
        return true;
    }
    false
}

/// Whether the built-in defaults have an audit sink on this host (journald's or the syslog
/// socket, `[audit] system_log = "auto"`). Without one, every gated command under no
/// configuration is denied (`audit.no_sink`), and the tests below expect exactly that.
fn defaults_record() -> bool {
    use std::os::unix::fs::FileTypeExt;
    ["/run/systemd/journal/socket", "/dev/log"]
        .iter()
        .any(|p| std::fs::metadata(p).is_ok_and(|m| m.file_type().is_socket()))
}

/// The denial of a gated command under no configuration on a host without a system log.
const NO_SINK: &str = "guarded-sh: denied: no audit sink recorded this decision";

/// A root-owned policy directory `name` holding `policy`.
fn policy(s: &Setup, name: &str, policy: &str) -> String {
    let file = s.write(&format!("{name}/honey.rego"), policy);
    let dir = file.parent().unwrap();
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir.display().to_string()
}

/// `touch MARKER` before `command`, so a run that got past the gate leaves the marker (in a
/// directory anyone may write).
fn marked(s: &Setup, command: &str) -> (String, std::path::PathBuf) {
    let scratch = s.path("scratch");
    std::fs::create_dir_all(&scratch).unwrap();
    std::fs::set_permissions(&scratch, std::fs::Permissions::from_mode(0o777)).unwrap();
    let marker = scratch.join("ran");
    (format!("touch {}; {command}", marker.display()), marker)
}

fn finish(c: Command) -> Run {
    run(c, b"", Duration::from_secs(20), false)
}

fn nobody(s: &Setup, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut c = s.as_user(NOBODY, GROUP, args);
    c.envs(env.iter().copied());
    finish(c)
}

fn root(s: &Setup, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut c = s.command(args);
    c.envs(env.iter().copied());
    finish(c)
}

/// The escape needs a configuration that allows it in so many words: not with no file at all
/// (nobody, the overlay hides any `/etc/guarded-sh`), not with a file that does not say so.
#[test]
fn the_escape_is_refused_unless_the_configuration_allows_it() {
    if skip("the_escape_is_refused_unless_the_configuration_allows_it") {
        return;
    }
    // (label, configuration at the default path or none, run as root with GUARDED_SH_CONFIG)
    let cases: [(&str, Option<&str>, bool); 4] = [
        ("no configuration file, nobody", None, false),
        ("a configuration without [escape], nobody", Some(""), false),
        ("a configuration without [escape], root", Some(""), true),
        (
            "[escape] allow = false, nobody",
            Some("[escape]\nallow = false\n"),
            false,
        ),
    ];
    for (label, config, as_root) in cases {
        let s = Setup::shared(config.unwrap_or(""));
        if config.is_some() {
            s.install_config();
        }
        let (command, marker) = marked(&s, CRITICAL);
        let env = [("HONEY_RISK_DISABLE", "1")];
        let r = match as_root {
            true => root(&s, &["-c", &command], &env),
            false => nobody(&s, &["-c", &command], &env),
        };
        assert_eq!(r.code, Some(126), "{label}: {}", r.stderr);
        assert!(!exists(&marker), "{label}: the escape took effect");
        assert!(
            r.stderr.contains("guarded-sh: denied: command risk: "),
            "{label}: {}",
            r.stderr
        );
        // The refused escape changes nothing else: a harmless command still runs, unless no
        // sink records it (no configuration, and no system log on this host).
        let r = match as_root {
            true => root(&s, &["-c", "echo ok"], &env),
            false => nobody(&s, &["-c", "echo ok"], &env),
        };
        if config.is_none() && !defaults_record() {
            assert_eq!((r.code, r.stdout_text()), (Some(126), "".into()), "{label}");
            assert!(r.stderr.starts_with(NO_SINK), "{label}: {}", r.stderr);
            continue;
        }
        assert_eq!(
            (r.code, r.stdout_text()),
            (Some(0), "ok\n".into()),
            "{label}"
        );
    }
}

/// A configuration at the default path that allows the escape: it takes effect, and the record
/// says it was the escape.
#[test]
fn a_configured_escape_works_and_is_audited() {
    if skip("a_configured_escape_works_and_is_audited") {
        return;
    }
    let s = Setup::shared("[escape]\nallow = true\n");
    s.install_config();
    let (command, marker) = marked(&s, CRITICAL);
    let r = nobody(&s, &["-c", &command], &[("HONEY_RISK_DISABLE", "1")]);
    assert!(
        exists(&marker),
        "the escape did not take effect: {}",
        r.stderr
    );
    let last = s.audit().pop().expect("a record");
    assert_eq!(
        (&last["verdict"], &last["uid"]),
        (&"escape".into(), &NOBODY.into()),
        "{last}"
    );
}

/// `HONEY_POLICY_DIR` does not replace the configured policy for enforcement unless the
/// configuration allows it, nor select a policy when there is no configuration; the review
/// surface always honours it (it runs nothing).
#[test]
fn honey_policy_dir_is_refused_for_enforcement_unless_allowed() {
    if skip("honey_policy_dir_is_refused_for_enforcement_unless_allowed") {
        return;
    }
    // An allow-all policy in the environment does not lift the configured policy's deny.
    let s = Setup::shared("[policy]\ndir = \"{dir}/policies\"\n");
    policy(&s, "policies", FORBIDDEN_TOOL);
    let allow_all = policy(&s, "allowall", ALLOW_ALL);
    s.install_config();
    let env = [("HONEY_POLICY_DIR", allow_all.as_str())];
    let r = nobody(&s, &["-c", "forbidden_tool"], &env);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (
            Some(126),
            "guarded-sh: denied: forbidden_tool is not allowed here\n"
        )
    );
    // With `allow_env_dir = true` it does (forbidden_tool then runs and is not found).
    let allowed = Setup::shared("[policy]\ndir = \"{dir}/policies\"\nallow_env_dir = true\n");
    policy(&allowed, "policies", FORBIDDEN_TOOL);
    let allow_all = policy(&allowed, "allowall", ALLOW_ALL);
    allowed.install_config();
    let env = [("HONEY_POLICY_DIR", allow_all.as_str())];
    let r = nobody(&allowed, &["-c", "forbidden_tool"], &env);
    assert_eq!(r.code, Some(127), "{}", r.stderr);
    // No configuration: a policy in the environment that would deny is not consulted...
    let none = Setup::shared("");
    let deny = policy(&none, "deny", FORBIDDEN_TOOL);
    let env = [("HONEY_POLICY_DIR", deny.as_str())];
    let r = nobody(&none, &["-c", "echo forbidden_tool"], &env);
    if defaults_record() {
        assert_eq!(
            (r.code, r.stdout_text()),
            (Some(0), "forbidden_tool\n".into()),
            "{}",
            r.stderr
        );
    } else {
        // (No system log on this host: nothing records it, so it is denied, but not by the policy.)
        assert_eq!((r.code, r.stdout_text()), (Some(126), "".into()));
        assert!(r.stderr.starts_with(NO_SINK), "{}", r.stderr);
        assert!(
            !r.stderr.contains("forbidden_tool is not allowed"),
            "{}",
            r.stderr
        );
    }
    // ...but the review surface honours it.
    let r = nobody(&none, &["--check", "forbidden_tool"], &env);
    assert_eq!(r.code, Some(1), "{}\n{}", r.stdout_text(), r.stderr);
    assert!(
        r.stdout_text()
            .contains("forbidden_tool is not allowed here"),
        "{}",
        r.stdout_text()
    );
}

/// `GUARDED_SH_CONFIG`: for root it must name an existing regular file (never the defaults in its
/// place); for anyone else naming anything but the default path is refused.
#[test]
fn the_named_configuration_is_for_root_only_and_must_exist() {
    if skip("the_named_configuration_is_for_root_only_and_must_exist") {
        return;
    }
    let s = Setup::shared("[escape]\nallow = true\n");
    s.install_config();
    let absent = s.path("absent.toml").display().to_string();
    let named = s.path("config.toml").display().to_string();
    let (command, marker) = marked(&s, CRITICAL);
    // (label, as root, GUARDED_SH_CONFIG, what the message must say)
    let cases = [
        (
            "root, missing file",
            true,
            absent.as_str(),
            "does not exist",
        ),
        ("root, /nonexistent", true, "/nonexistent", "does not exist"),
        ("nobody, missing file", false, absent.as_str(), ROOT_ONLY),
        (
            "nobody, a root-owned valid file",
            false,
            named.as_str(),
            ROOT_ONLY,
        ),
    ];
    for (label, as_root, path, says) in cases {
        let mut c = match as_root {
            true => s.command(&["-c", &command]),
            false => s.as_user(NOBODY, GROUP, &["-c", &command]),
        };
        c.env("GUARDED_SH_CONFIG", path)
            .env("HONEY_RISK_DISABLE", "1");
        let r = finish(c);
        assert_eq!(r.code, Some(2), "{label}: {}", r.stderr);
        assert!(
            r.stderr.starts_with("guarded-sh: configuration error: ")
                && r.stderr.contains(says)
                && r.stderr.ends_with(" (nothing was run)\n"),
            "{label}: {}",
            r.stderr
        );
        assert!(!exists(&marker), "{label}: ran");
    }
    // The default path named explicitly is the default path, for anyone.
    let mut c = s.as_user(NOBODY, GROUP, &["-c", "echo ok"]);
    c.env("GUARDED_SH_CONFIG", guarded_sh::config::DEFAULT_PATH);
    let r = finish(c);
    assert_eq!(
        (r.code, r.stdout_text()),
        (Some(0), "ok\n".into()),
        "{}",
        r.stderr
    );
}

/// A configuration that is not a regular file is refused at once, never waited on (a FIFO with
/// no writer blocked the read forever); one over 1 MiB is refused; one of exactly 1 MiB is read.
#[test]
fn a_configuration_that_is_not_a_bounded_regular_file_is_refused_promptly() {
    if skip("a_configuration_that_is_not_a_bounded_regular_file_is_refused_promptly") {
        return;
    }
    let _quiet = crate::setup::exclusive();
    let s = Setup::shared("");
    let fifo = s.path("fifo.toml");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    std::fs::create_dir(s.path("dir.toml")).unwrap();
    let bound = guarded_sh::config::MAX_BYTES as usize;
    let head = s.expand("[audit]\nsystem_log = \"off\"\nfile = \"{dir}/audit.jsonl\"\n");
    let padded = |len: usize| format!("{head}{}\n", "#".repeat(len - head.len() - 1));
    let over = s.write("over.toml", &padded(bound + 1));
    let at = s.write("at.toml", &padded(bound));
    assert_eq!(std::fs::metadata(&at).unwrap().len() as usize, bound);
    // (label, GUARDED_SH_CONFIG, the message's end, or None for a run)
    let cases = [
        (
            "a FIFO",
            fifo.clone(),
            Some("is not a regular file (a FIFO)"),
        ),
        (
            "a directory",
            s.path("dir.toml"),
            Some("is not a regular file (a directory)"),
        ),
        (
            "a character device",
            "/dev/null".into(),
            Some("is not a regular file (a character device)"),
        ),
        ("over the bound", over, Some("is larger than 1048576 bytes")),
        ("at the bound", at, None),
    ];
    for (label, path, says) in cases {
        let (command, marker) = marked(&s, "echo ran");
        let mut c = s.command(&["-c", &command]);
        c.env("GUARDED_SH_CONFIG", &path);
        let r = finish(c);
        assert!(
            !r.timed_out && r.elapsed < Duration::from_secs(5),
            "{label}: no decision within 5 s ({:?})",
            r.elapsed
        );
        match says {
            Some(says) => {
                assert_eq!(r.code, Some(2), "{label}: {}", r.stderr);
                assert!(r.stderr.contains(says), "{label}: {}", r.stderr);
                assert!(!exists(&marker), "{label}: ran");
            }
            None => assert_eq!(r.stdout_text(), "ran\n", "{label}: {}", r.stderr),
        }
        let _ = std::fs::remove_file(&marker);
    }
    // The default path as a FIFO, for a gated user.
    let etc = s.etc().join("guarded-sh");
    std::fs::create_dir_all(&etc).unwrap();
    std::fs::set_permissions(&etc, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert!(Command::new("mkfifo")
        .arg(etc.join("config.toml"))
        .status()
        .unwrap()
        .success());
    let r = nobody(&s, &["-c", "echo ran"], &[]);
    assert!(
        !r.timed_out && r.elapsed < Duration::from_secs(5),
        "{:?}",
        r.elapsed
    );
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("/etc/guarded-sh/config.toml is not a regular file (a FIFO)"),
        "{}",
        r.stderr
    );
}
