//! File trust, through the built binary run as an unprivileged user (`nobody`, via `setpriv`,
//! with the configuration at the default path of a private `/etc` overlay, `Setup::as_user`):
//! for enforcement, the configuration, the policy directory and its files, the policy cache and
//! the host-vars file must not be writable by the user being gated — neither the file nor a
//! directory above it — or the command is denied with a message that names the file. The same
//! files root-owned work. The review surface (`--check --policy-dir DIR`) may read the user's own
//! directory. These tests switch users, so they need root; as anyone else they skip, saying so.

use crate::setup::{is_root, run, OnTerminal, Run, Setup, FORBIDDEN_TOOL as POLICY};
use guarded_sh::policy::cache;
use guarded_sh::policy::engine::{self, CacheMode};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

const NOBODY: u32 = 65534;
const GROUP: u32 = 65534;
const DEFAULT_CONFIG: &str = guarded_sh::config::DEFAULT_PATH;

fn skip() -> bool {
    if !is_root() {
        eprintln!("SKIP hardening_trust: needs root to run the binary as an unprivileged user");
        return true;
    }
    false
}

/// A root-owned, world-readable setup with a world-writable audit file (so the unprivileged run
/// can record) and `config` as its configuration, installed at the overlay's default path.
fn setup(config: &str) -> Setup {
    let s = Setup::shared(config);
    s.install_config();
    s
}

fn give_to_nobody(p: &Path) {
    std::os::unix::fs::chown(p, Some(NOBODY), Some(GROUP)).unwrap();
}

/// Runs the binary as `nobody` with this setup's installed configuration (and `env`).
fn as_nobody(s: &Setup, args: &[&str], env: &[(&str, String)]) -> Run {
    let mut c = s.as_user(NOBODY, GROUP, args);
    for (k, v) in env {
        c.env(k, v);
    }
    run(c, b"", Duration::from_secs(30), false)
}

fn policy_dir(s: &Setup, name: &str) -> std::path::PathBuf {
    let p = s.write(&format!("{name}/honey.rego"), POLICY);
    let dir = p.parent().unwrap().to_path_buf();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

#[test]
fn root_owned_files_work_for_an_unprivileged_user() {
    if skip() {
        return;
    }
    let s = setup("[policy]\ndir = \"{dir}/policies\"\ncache_dir = \"{dir}/cache\"\n");
    policy_dir(&s, "policies");
    std::fs::create_dir(s.path("cache")).unwrap();
    std::fs::set_permissions(s.path("cache"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let r = as_nobody(&s, &["-c", "echo ok; id -u"], &[]);
    assert_eq!(
        (r.code, r.stdout_text()),
        (Some(0), format!("ok\n{NOBODY}\n")),
        "{}",
        r.stderr
    );
    let r = as_nobody(&s, &["-c", "forbidden_tool"], &[]);
    assert_eq!(r.code, Some(126));
    assert_eq!(
        r.stderr,
        "guarded-sh: denied: forbidden_tool is not allowed here\n"
    );
    let audit = s.audit();
    assert_eq!(audit.len(), 2);
    assert!(audit.iter().all(|r| r["uid"] == NOBODY), "{audit:?}");
}

#[test]
fn configuration_writable_by_the_gated_user_is_refused() {
    if skip() {
        return;
    }
    // Each case changes the installed configuration and returns the path the message must name
    // (as the run sees it: the overlay's /etc).
    type Prepare = fn(&Setup) -> PathBuf;
    let cases: [(&str, Prepare); 3] = [
        ("config owned by the user", |s| {
            give_to_nobody(&s.etc().join("guarded-sh/config.toml"));
            PathBuf::from(DEFAULT_CONFIG)
        }),
        ("config mode 0666", |s| {
            std::fs::set_permissions(
                s.etc().join("guarded-sh/config.toml"),
                std::fs::Permissions::from_mode(0o666),
            )
            .unwrap();
            PathBuf::from(DEFAULT_CONFIG)
        }),
        ("config in a directory the user owns", |s| {
            give_to_nobody(&s.etc().join("guarded-sh"));
            PathBuf::from("/etc/guarded-sh")
        }),
    ];
    for (label, prepare) in cases {
        let s = setup("");
        let named = prepare(&s);
        let marker = s.path("ran");
        let r = as_nobody(&s, &["-c", &format!("touch {}", marker.display())], &[]);
        assert_eq!(r.code, Some(2), "{label}: {}", r.stderr);
        assert!(
            r.stderr.starts_with("guarded-sh: configuration error: "),
            "{label}: {}",
            r.stderr
        );
        assert!(
            r.stderr.contains(&format!(
                "{} is writable by the gated user (uid {NOBODY})",
                named.display()
            )),
            "{label}: {}",
            r.stderr
        );
        assert!(!marker.exists(), "{label}: ran");
    }
}

/// A root-owned link in a trusted place that points into a directory the user owns: the check
/// must follow the link (as sudo does) and refuse the real location.
#[test]
fn symlinked_configuration_into_a_user_directory_is_refused() {
    if skip() {
        return;
    }
    let s = setup("");
    std::fs::create_dir(s.path("userdir")).unwrap();
    let installed = s.etc().join("guarded-sh/config.toml");
    std::fs::rename(&installed, s.path("userdir/config.toml")).unwrap();
    std::os::unix::fs::symlink(s.path("userdir/config.toml"), &installed).unwrap();
    give_to_nobody(&s.path("userdir"));
    let r = as_nobody(&s, &["-c", "echo ran"], &[]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!(
            "{} is writable by the gated user",
            s.path("userdir").display()
        )),
        "{}",
        r.stderr
    );
}

#[test]
fn policy_directory_writable_by_the_gated_user_is_refused() {
    if skip() {
        return;
    }
    // (label, configured in the file or taken from HONEY_POLICY_DIR)
    for (label, from_env) in [("configured", false), ("HONEY_POLICY_DIR", true)] {
        let config = if from_env {
            "[policy]\nallow_env_dir = true\n"
        } else {
            "[policy]\ndir = \"{dir}/userpolicies\"\n"
        };
        let s = setup(config);
        let dir = policy_dir(&s, "userpolicies");
        give_to_nobody(&dir);
        let env = if from_env {
            vec![("HONEY_POLICY_DIR", dir.display().to_string())]
        } else {
            vec![]
        };
        let r = as_nobody(&s, &["-c", "echo ran"], &env);
        assert_eq!(r.code, Some(126), "{label}: {}", r.stderr);
        assert!(r.stdout.is_empty(), "{label}: ran");
        assert_eq!(
            r.stderr,
            format!("guarded-sh: denied: policy error [trust.writable]: {} is writable by the gated user (uid {NOBODY}); it must be root-owned and not group- or world-writable\n", dir.display()),
            "{label}"
        );
        let last = s.audit().pop().unwrap();
        assert_eq!(
            (last["verdict"].as_str(), last["stage"].as_str()),
            (Some("deny"), Some("error"))
        );
    }
}

/// The directory is root-owned but one file in it is not: the user can rewrite the policy.
#[test]
fn policy_file_writable_by_the_gated_user_is_refused() {
    if skip() {
        return;
    }
    for (label, mode, owned) in [
        ("file owned by the user", 0o644, true),
        ("file mode 0666", 0o666, false),
        ("data file 0666", 0o666, false),
    ] {
        let s = setup("[policy]\ndir = \"{dir}/policies\"\n");
        let dir = policy_dir(&s, "policies");
        let file = if label.starts_with("data") {
            s.write("policies/data.json", "{}")
        } else {
            dir.join("honey.rego")
        };
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
        if owned {
            give_to_nobody(&file);
        }
        let r = as_nobody(&s, &["-c", "echo ran"], &[]);
        assert_eq!(r.code, Some(126), "{label}: {}", r.stderr);
        assert!(
            r.stderr
                .contains(&format!("{} is writable by the gated user", file.display())),
            "{label}: {}",
            r.stderr
        );
    }
}

/// DESIGN §8 / issue 7: a cache directory the user can write is refused, naming it (today it is
/// silently ignored and the policy is interpreted instead, which is safe but hides the fault).
#[test]
fn policy_cache_writable_by_the_gated_user_is_refused() {
    if skip() {
        return;
    }
    let s = setup("[policy]\ndir = \"{dir}/policies\"\ncache_dir = \"{dir}/usercache\"\n");
    policy_dir(&s, "policies");
    std::fs::create_dir(s.path("usercache")).unwrap();
    give_to_nobody(&s.path("usercache"));
    let r = as_nobody(&s, &["-c", "echo ran"], &[]);
    assert_eq!(r.code, Some(126), "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!(
            "{} is writable by the gated user",
            s.path("usercache").display()
        )),
        "{}",
        r.stderr
    );
}

/// A world-writable cache *file* in a root-owned cache directory (a root process with umask 0
/// wrote it, or an admin copied it) holding a program compiled from an allow-everything policy
/// under the real policy's key: its header checksum is unkeyed, so anyone who can write the file
/// can forge it. It must not be used.
#[test]
fn forged_world_writable_cache_file_is_not_used() {
    if skip() {
        return;
    }
    let s = setup("[policy]\ndir = \"{dir}/policies\"\ncache_dir = \"{dir}/cache\"\n");
    let real = policy_dir(&s, "policies");
    let allow_all = s.write(
        "allowall/honey.rego",
        "package honey\nimport rego.v1\ndefault allow := true\n",
    );
    let scratch = s.path("scratch");
    std::fs::create_dir_all(&scratch).unwrap();
    let forged = engine::load(
        allow_all.parent().unwrap(),
        &CacheMode::Dir(scratch.clone()),
    )
    .unwrap();
    let forged_bytes = std::fs::read(cache::cache_file(
        &scratch,
        &cache::cache_key(forged.digest()),
    ))
    .unwrap();
    let real_key = cache::cache_key(engine::load(&real, &CacheMode::Off).unwrap().digest());
    let mut bytes = forged_bytes.clone();
    bytes[8..72].copy_from_slice(real_key.as_bytes());
    std::fs::create_dir(s.path("cache")).unwrap();
    std::fs::set_permissions(s.path("cache"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let file = cache::cache_file(&s.path("cache"), &real_key);
    std::fs::write(&file, bytes).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).unwrap();
    let r = as_nobody(&s, &["-c", "forbidden_tool"], &[]);
    assert_eq!(
        r.code,
        Some(126),
        "the forged cache allowed a denied command: {}",
        r.stderr
    );
}

/// `target.host_vars_file` feeds `target.host_vars`, which policies decide on (e.g. prod guards
/// by host vars); a user who can write it can reclassify the host.
#[test]
fn host_vars_file_writable_by_the_gated_user_is_refused() {
    if skip() {
        return;
    }
    // With a policy to feed: without one, nothing reads the host vars (the test passed only on
    // a host with /etc/guarded-sh/policies installed).
    let s = setup(
        "[policy]\ndir = \"{dir}/policies\"\n[target]\nhost_vars_file = \"{dir}/hostvars.json\"\n",
    );
    policy_dir(&s, "policies");
    s.write("hostvars.json", "{\"tier\": \"dev\"}");
    give_to_nobody(&s.path("hostvars.json"));
    let r = as_nobody(&s, &["-c", "echo ran"], &[]);
    assert_eq!(r.code, Some(126), "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!(
            "{} is writable by the gated user",
            s.path("hostvars.json").display()
        )),
        "{}",
        r.stderr
    );
}

#[test]
fn review_surface_may_read_the_users_own_policy_directory() {
    if skip() {
        return;
    }
    let s = setup("");
    let dir = policy_dir(&s, "mine");
    give_to_nobody(&dir);
    give_to_nobody(&dir.join("honey.rego"));
    let dir = dir.display().to_string();
    let r = as_nobody(
        &s,
        &["--check", "forbidden_tool", "--policy-dir", &dir],
        &[],
    );
    assert_ne!(r.code, Some(0), "a denied preview exits non-zero");
    let out = r.stdout_text();
    assert!(
        out.contains("forbidden_tool is not allowed here"),
        "{out}\n{}",
        r.stderr
    );
    assert!(!out.contains("trust"), "{out}");
    let r = as_nobody(&s, &["--check", "ls", "--policy-dir", &dir], &[]);
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout_text(), r.stderr);
}

/// Runs `guarded-sh -i` as `nobody` on a terminal (a pty of the test's own; stdout and stderr
/// too) and returns its status and everything it wrote there.
fn session_as_nobody(s: &Setup) -> (Option<i32>, String) {
    let mut run = OnTerminal::spawn(s.as_user(NOBODY, GROUP, &["-i"]), true);
    let (status, _) = run.wait(Duration::from_secs(30), None);
    (status.code(), run.screen())
}

/// The session hook is what keeps an interactive session gated: one the user could rewrite (in a
/// directory they own) starts no shell at all; the same hook root-owned runs (here a stand-in
/// hook that says so and exits).
#[test]
fn session_hook_writable_by_the_gated_user_is_refused() {
    if skip() {
        return;
    }
    let s = setup("[interactive]\nhook = \"{dir}/hooks/hook.bash\"\n");
    let hook = s.write("hooks/hook.bash", "echo STAND-IN-HOOK-RAN\nexit 0\n");
    std::fs::set_permissions(s.path("hooks"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let (code, screen) = session_as_nobody(&s);
    assert_eq!(code, Some(0), "{screen}");
    assert!(screen.contains("STAND-IN-HOOK-RAN"), "{screen}");

    give_to_nobody(&s.path("hooks"));
    let (code, screen) = session_as_nobody(&s);
    assert_eq!(code, Some(126), "{screen}");
    assert!(
        screen.contains(&format!(
            "session hook: {} is writable by the gated user (uid {NOBODY})",
            s.path("hooks").display()
        )),
        "{screen}"
    );
    assert!(screen.contains("no ungated shell is started"), "{screen}");
    assert!(!screen.contains("STAND-IN-HOOK-RAN"), "{screen}");
    assert!(hook.exists());
}
