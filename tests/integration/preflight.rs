//! Pre-flight, run on the real binary: `--validate` on the table of broken configurations and
//! policies (`tests/preflight/cases.tsv`, fixtures beside it), enforcement refusing what
//! `--validate` refuses (a duplicate `default` denies every command, naming FILE:LINE), and
//! `--print-config`'s provenance (default, FILE:LINE, environment).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::setup::{table, Setup, BIN, REPO};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// The configuration a fixture without its own gets.
const DEFAULT_CONFIG: &str = "[audit]\nsyslog = false\n[policy]\ndir = \"{dir}/policies\"\ncache_dir = \"{dir}/cache\"\n[interactive]\nhook = \"{dir}/hook.bash\"\n[approval]\ndir = \"{dir}/approvals\"\n";

fn fixtures() -> std::path::PathBuf {
    Path::new(REPO).join("tests/preflight/fixtures")
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644)).unwrap();
        }
    }
}

/// guarded-sh with `args`, none of the variables that choose files, a home of its own.
fn guarded(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.args(args)
        .env("HOME", dir)
        .env_remove("GUARDED_SH_CONFIG")
        .env_remove("HONEY_POLICY_DIR")
        .env_remove("HONEY_RISK_DISABLE")
        .env_remove("HONEY_RISK_LLM")
        .env_remove("XDG_CONFIG_HOME")
        .stdin(Stdio::null());
    c
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// The `PLACE [reason_id]` of each problem line, DIR made relative. As another user than root
/// the test's own directory is writable by that user, which --validate reports on every row:
/// those lines are left out.
fn problems(out: &Output, dir: &Path) -> Vec<String> {
    let prefix = format!("{}/", dir.display());
    let own = format!("its owner, uid {}", nix::unistd::geteuid());
    text(&out.stdout)
        .lines()
        .filter(|l| is_root() || !(l.contains("[trust.writable]") && l.contains(&own)))
        .map(|line| {
            let (place, _) = line.split_once(": ").unwrap_or(("", line));
            let reason = line.rsplit_once(" [").map(|(_, r)| r).unwrap_or_default();
            let place = place.strip_prefix(&prefix).unwrap_or(place);
            format!("{place} [{reason}")
        })
        .collect()
}

#[test]
fn validate_table() {
    let rows = table("preflight/cases.tsv");
    assert!(rows.len() >= 15, "the table lost rows");
    let mut checked = 0;
    for (line, f) in rows {
        assert_eq!(f.len(), 8, "cases.tsv:{line}: 8 fields");
        let (name, fixture, policies, chmod, needs, exit) =
            (&f[0], &f[1], &f[2], &f[3], &f[4], &f[5]);
        if needs == "root" && !is_root() {
            eprintln!("cases.tsv:{line} {name}: needs root, not checked");
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        copy_tree(&fixtures().join(fixture), root);
        if policies != "-" {
            copy_tree(
                &fixtures().join(policies).join("policies"),
                &root.join("policies"),
            );
        }
        std::fs::write(root.join("hook.bash"), "# hook\n").unwrap();
        let config = root.join("config.toml");
        let template = std::fs::read_to_string(&config).unwrap_or_else(|_| DEFAULT_CONFIG.into());
        std::fs::write(
            &config,
            template.replace("{dir}", &root.display().to_string()),
        )
        .unwrap();
        if chmod != "-" {
            let (path, mode) = chmod.split_once('=').unwrap();
            let mode = u32::from_str_radix(mode, 8).unwrap();
            std::fs::set_permissions(root.join(path), std::fs::Permissions::from_mode(mode))
                .unwrap();
        }
        let out = guarded(root, &["--validate", "--config", config.to_str().unwrap()])
            .output()
            .unwrap();
        let want: Vec<String> = match f[6].as_str() {
            "-" => Vec::new(),
            list => list.split(" ; ").map(str::to_string).collect(),
        };
        let at = format!(
            "cases.tsv:{line} {name}\nstdout:\n{}stderr:\n{}",
            text(&out.stdout),
            text(&out.stderr)
        );
        assert_eq!(problems(&out, root), want, "{at}");
        assert_eq!(out.status.code().unwrap().to_string(), *exit, "{at}");
        checked += 1;
    }
    assert!(checked > 0);
}

/// The lines are `FILE:LINE: message [reason_id]`, and the summary goes to stderr.
#[test]
fn validate_lines_and_summary() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixtures().join("unknown_key"), dir.path());
    let config = dir.path().join("config.toml");
    let out = guarded(
        dir.path(),
        &["--validate", "--config", config.to_str().unwrap()],
    )
    .output()
    .unwrap();
    let stdout = text(&out.stdout);
    let first = stdout.lines().next().unwrap_or_default();
    assert!(first.starts_with(&format!("{}:3: unknown field `sylog`", config.display())));
    assert!(first.ends_with(" [config.malformed]"), "{first}");
    assert!(
        text(&out.stderr).contains("guarded-sh: validate: 2 problems found"),
        "{}",
        text(&out.stderr)
    );
    // A usage error is 2, and nothing is checked.
    let usage = guarded(dir.path(), &["--validate", "--json"])
        .output()
        .unwrap();
    assert_eq!(usage.status.code(), Some(2), "{}", text(&usage.stderr));
}

/// Enforcement refuses what --validate refuses: under a duplicate `default` every command is
/// denied (126) with a reason naming the file and line, and nothing runs.
#[test]
fn enforcement_denies_under_a_duplicate_default() {
    let s = Setup::with("[policy]\ndir = \"{dir}/policies\"\n");
    copy_tree(
        &fixtures().join("duplicate_default/policies"),
        &s.path("policies"),
    );
    let marker = s.path("ran");
    let command = format!("touch {}", marker.display());
    let out = s.output(&["-c", &command]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(126), "{stderr}");
    assert!(!marker.exists(), "the command ran");
    let place = format!("{}:3", s.path("policies/b.rego").display());
    assert!(stderr.contains(&place), "{stderr}");
    assert!(stderr.contains("policy.duplicate_default"), "{stderr}");
    let records = s.audit();
    let last = records.last().unwrap();
    assert_eq!(last["verdict"], "deny", "{last}");
    assert!(
        last.to_string().contains("policy.duplicate_default"),
        "{last}"
    );
    // --policy-test refuses the directory too, as opa test does.
    let tests = s.output(&["--policy-test", s.path("policies").to_str().unwrap()]);
    assert_eq!(tests.status.code(), Some(1));
    assert!(text(&tests.stderr).contains("policy.duplicate_default"));
}

/// A builtin this build lacks, on a branch no input takes, denies every command at load.
#[test]
fn enforcement_denies_a_missing_builtin_on_an_untaken_branch() {
    let s = Setup::with("[policy]\ndir = \"{dir}/policies\"\n");
    copy_tree(
        &fixtures().join("missing_builtin/policies"),
        &s.path("policies"),
    );
    let out = s.output(&["-c", "true"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(126), "{stderr}");
    let place = format!("{}:7", s.path("policies/a.rego").display());
    assert!(
        stderr.contains(&place) && stderr.contains("crypto.sha256"),
        "{stderr}"
    );
}

fn print_config(dir: &Path, args: &[&str], env: &[(&str, &Path)]) -> serde_json::Value {
    let mut c = guarded(dir, args);
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn print_config_names_default_and_file_lines() {
    let s = Setup::new("");
    let config = s.write(
        "c.toml",
        &s.expand("[audit]\nsyslog = false\n\n[target]\nenv = \"prod\"\n[policy]\ndir = \"{dir}/policies\"\n"),
    );
    copy_tree(&fixtures().join("clean/policies"), &s.path("policies"));
    let args = [
        "--print-config",
        "--json",
        "--config",
        config.to_str().unwrap(),
    ];
    let view = print_config(s.dir.path(), &args, &[]);
    let at = |line: usize| format!("{}:{line}", config.display());
    let values = &view["values"];
    assert_eq!(values["target"]["env"]["value"], "prod");
    assert_eq!(values["target"]["env"]["source"], at(5));
    // The old `syslog = false` is read as `system_log = "off"`, from its line.
    assert_eq!(values["audit"]["system_log"]["value"], "off");
    assert_eq!(values["audit"]["system_log"]["source"], at(2));
    assert_eq!(values["shells"]["sh"]["source"], "default");
    assert_eq!(values["shells"]["sh"]["value"], "/bin/dash");
    assert_eq!(values["target"]["name"]["value"], serde_json::Value::Null);
    assert_eq!(view["config_file"]["source"], "command line (--config)");
    assert_eq!(view["policy_dir"]["source"], at(7));
    let digest = guarded_sh::policy::engine::load(
        &s.path("policies"),
        &guarded_sh::policy::engine::CacheMode::Off,
    )
    .unwrap()
    .digest()
    .to_string();
    assert_eq!(view["policy_dir"]["digest"], digest);
}

#[test]
fn print_config_names_the_environment() {
    let s = Setup::new("");
    copy_tree(&fixtures().join("clean/policies"), &s.path("env-policies"));
    let config = s.write(
        "c.toml",
        &s.expand(
            "[audit]\nsyslog = false\n[policy]\nallow_env_dir = true\ndir = \"{dir}/policies\"\n",
        ),
    );
    let env_dir = s.path("env-policies");
    let honoured = [("HONEY_POLICY_DIR", env_dir.as_path())];
    let view = print_config(
        s.dir.path(),
        &[
            "--print-config",
            "--json",
            "--config",
            config.to_str().unwrap(),
        ],
        &honoured,
    );
    assert_eq!(view["policy_dir"]["source"], "environment");
    assert_eq!(view["policy_dir"]["variable"], "HONEY_POLICY_DIR");
    assert_eq!(view["policy_dir"]["path"], env_dir.display().to_string());
    // Not honoured without policy.allow_env_dir: the file's line decides, and a note says so.
    let strict = s.write(
        "strict.toml",
        &s.expand("[audit]\nsyslog = false\n[policy]\ndir = \"{dir}/policies\"\n"),
    );
    let view = print_config(
        s.dir.path(),
        &[
            "--print-config",
            "--json",
            "--config",
            strict.to_str().unwrap(),
        ],
        &honoured,
    );
    assert_eq!(
        view["policy_dir"]["source"],
        format!("{}:4", strict.display())
    );
    assert!(
        view["notes"]
            .to_string()
            .contains("HONEY_POLICY_DIR is set but"),
        "{view}"
    );
    // GUARDED_SH_CONFIG names the file: honoured for root only, as enforcement honours it.
    let mut c = guarded(s.dir.path(), &["--print-config", "--json"]);
    let out = c.env("GUARDED_SH_CONFIG", &config).output().unwrap();
    if is_root() {
        let view: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(view["config_file"]["source"], "environment");
        assert_eq!(view["config_file"]["variable"], "GUARDED_SH_CONFIG");
        assert_eq!(view["config_file"]["path"], config.display().to_string());
    } else {
        assert_eq!(out.status.code(), Some(1));
        assert!(text(&out.stderr).contains("config.named_not_root"));
    }
}

/// The TOML form is a configuration file that loads to the same configuration.
#[test]
fn print_config_toml_loads_to_the_same_configuration() {
    let s = Setup::new("");
    let source = s.expand(
        "[audit]\nsyslog = false\nmax_command_bytes = 100\n[target]\nenv = \"prod\"\nhost_vars = { tier = \"gold\", n = 3 }\n[limits]\nmax_bytes = 4096\n",
    );
    let config = s.write("c.toml", &source);
    let out = guarded(
        s.dir.path(),
        &["--print-config", "--config", config.to_str().unwrap()],
    )
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let printed = text(&out.stdout);
    let suffix = format!("# {}:8", config.display());
    assert!(
        printed
            .lines()
            .any(|l| l.starts_with("max_bytes = 4096 ") && l.ends_with(&suffix)),
        "{printed}"
    );
    let path = Path::new("printed");
    let reloaded = guarded_sh::config::parse(&printed, path).unwrap();
    let original = guarded_sh::config::parse(&source, path).unwrap();
    assert_eq!(reloaded, original);
    // A configuration that does not load is an error (1), reported as --validate reports it.
    let broken = s.write("broken.toml", "[shells]\nsh = 3\n");
    let out = guarded(
        s.dir.path(),
        &["--print-config", "--config", broken.to_str().unwrap()],
    )
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains(&format!("{}:2: ", broken.display())),
        "{}",
        text(&out.stderr)
    );
}

/// What the lint does not catch (both definitions conditional) still fails closed on the input
/// that defines both, as OPA fails on it; inputs that define one decide normally.
#[test]
fn an_uncaught_conflict_denies_the_command_that_meets_it() {
    use guarded_sh::policy::engine::{load, CacheMode};
    let dir = fixtures().join("conflict_both_conditional/policies");
    let policy = load(&dir, &CacheMode::Off).unwrap();
    let one = policy.evaluate(&serde_json::json!({"x": true})).unwrap();
    assert!(one.allow);
    let both = policy.evaluate(&serde_json::json!({"x": true, "y": true}));
    assert_eq!(
        both.map(|_| ()).map_err(|e| e.reason_id()),
        Err("policy.conflict")
    );
}
