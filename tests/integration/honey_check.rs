//! Honey parity of `--check` through the built binary: the reference document's three `--check`
//! samples line for line (`tests/review/reference/*.expected`, stdout exactly) on a host
//! configured like the reference (target `prod-1` in env `prod`, no policy unless
//! `HONEY_POLICY_DIR` names one); the policy directory a review uses (`--policy-dir` >
//! `HONEY_POLICY_DIR` > `review.toml` > enforcement's), named with its digest in the JSON
//! (`policy_dir`, `policy_digest`) and on stderr in the text form; and `HONEY_POLICY_DIR`
//! honoured for a user's own directory on a host with an installed policy.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::setup::{text, Setup, REPO};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The reference host: target prod-1 in env prod, no policy configured.
const REFERENCE_HOST: &str =
    "[policy]\nenabled = false\n[target]\nname = \"prod-1\"\nenv = \"prod\"\n";

fn run(mut c: Command) -> Output {
    c.stdin(Stdio::null()).output().unwrap()
}

/// A directory holding the shipped baseline and the reference example `example`, unchanged.
fn reference_policy(s: &Setup, example: &str, with_baseline: bool) -> PathBuf {
    let dir = s.path(&format!("{example}-{with_baseline}"));
    std::fs::create_dir_all(&dir).unwrap();
    let root = Path::new(REPO).join("policies");
    let file = format!("{example}.rego");
    std::fs::copy(root.join("examples").join(&file), dir.join(&file)).unwrap();
    if with_baseline {
        std::fs::copy(root.join("baseline.rego"), dir.join("baseline.rego")).unwrap();
    }
    dir
}

#[test]
fn reference_samples_line_for_line() {
    let s = Setup::with(REFERENCE_HOST);
    // (command, the reference example HONEY_POLICY_DIR holds, expected file, exit status)
    let samples: &[(&str, Option<&str>, &str, i32)] = &[
        ("rm -rf /", None, "rm-rf-root", 1),
        ("apt-get remove nginx", None, "apt-get-remove", 0),
        (
            "kubectl delete pod x -n prod",
            Some("prod_guard"),
            "kubectl-delete-prod",
            1,
        ),
    ];
    for (command, example, expected, status) in samples {
        let expected_text = std::fs::read_to_string(
            Path::new(REPO).join(format!("tests/review/reference/{expected}.expected")),
        )
        .unwrap();
        let dirs: Vec<Option<PathBuf>> = match example {
            None => vec![None],
            // The reference's policy alone, and next to the shipped baseline: the same lines.
            Some(e) => vec![
                Some(reference_policy(&s, e, false)),
                Some(reference_policy(&s, e, true)),
            ],
        };
        for dir in dirs {
            let mut c = s.command(&["--check", command]);
            if let Some(d) = &dir {
                c.env("HONEY_POLICY_DIR", d);
            }
            let out = run(c);
            let stdout = text(&out.stdout);
            for (i, (got, want)) in stdout.lines().zip(expected_text.lines()).enumerate() {
                assert_eq!(got, want, "{command} ({dir:?}) line {}:\n{stdout}", i + 1);
            }
            assert_eq!(stdout, expected_text, "{command} ({dir:?})");
            assert_eq!(out.status.code(), Some(*status), "{command}");
            // stderr names the policy used, and only when there is one.
            let stderr = text(&out.stderr);
            match &dir {
                None => assert!(stderr.is_empty(), "{command}: {stderr}"),
                Some(d) => {
                    let note = format!("guarded-sh: policy: {} (digest ", d.display());
                    assert!(stderr.starts_with(&note), "{command}: {stderr}");
                    assert_eq!(stderr.lines().count(), 1, "{stderr}");
                }
            }
        }
    }
}

/// A policy directory that denies every command with `reason`.
fn deny_all(s: &Setup, name: &str, reason: &str) -> PathBuf {
    s.write(
        &format!("{name}/deny.rego"),
        &format!(
            "package honey\nimport rego.v1\ndefault allow := false\ndefault deny_reason := \"{reason}\"\n"
        ),
    );
    s.path(name)
}

fn check_json(c: Command) -> serde_json::Value {
    let out = run(c);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", text(&out.stdout), text(&out.stderr)))
}

#[test]
fn the_review_names_the_policy_it_used_in_precedence_order() {
    let s = Setup::with("[policy]\ndir = \"{dir}/installed\"\n[target]\nname = \"prod-1\"\n");
    let installed = deny_all(&s, "installed", "the installed policy");
    let from_file = deny_all(&s, "file", "review.toml's policy");
    let from_env = deny_all(&s, "env", "HONEY_POLICY_DIR's policy");
    let from_option = deny_all(&s, "option", "--policy-dir's policy");
    let review_toml = format!("policy_dir = \"{}\"\n", from_file.display());
    // (review.toml, HONEY_POLICY_DIR, --policy-dir, the directory that answers)
    let table: &[(bool, bool, bool, &Path, &str)] = &[
        (false, false, false, &installed, "the installed policy"),
        (true, false, false, &from_file, "review.toml's policy"),
        (false, true, false, &from_env, "HONEY_POLICY_DIR's policy"),
        (true, true, false, &from_env, "HONEY_POLICY_DIR's policy"),
        (true, true, true, &from_option, "--policy-dir's policy"),
        (false, false, true, &from_option, "--policy-dir's policy"),
    ];
    let defaults = s.path("home/.config/guarded-sh/review.toml");
    let mut digests = Vec::new();
    for (file, env, option, answers, reason) in table {
        if *file {
            s.write("home/.config/guarded-sh/review.toml", &review_toml);
        } else {
            let _ = std::fs::remove_file(&defaults);
        }
        let mut args = vec!["--check", "ls", "--json"];
        let option_dir = from_option.display().to_string();
        if *option {
            args.extend(["--policy-dir", option_dir.as_str()]);
        }
        let mut c = s.command(&args);
        if *env {
            c.env("HONEY_POLICY_DIR", &from_env);
        }
        let v = check_json(c);
        let row = format!("file={file} env={env} option={option}");
        assert_eq!(v["policy_dir"], answers.display().to_string(), "{row}");
        assert_eq!(v["decision"]["reason"], *reason, "{row}");
        let digest = v["policy_digest"].as_str().unwrap().to_string();
        assert!(
            digest.len() == 64 && digest.chars().all(|c| c.is_ascii_hexdigit()),
            "{row}: {digest}"
        );
        digests.push((answers.to_path_buf(), digest));
    }
    // One digest per directory, and different directories have different ones.
    for (dir, digest) in &digests {
        for (other, other_digest) in &digests {
            assert_eq!(dir == other, digest == other_digest, "{dir:?} {other:?}");
        }
    }
    // The digest is the one enforcement records for the same directory.
    let out = run(s.command(&["-c", "ls"]));
    assert_eq!(out.status.code(), Some(126), "{}", text(&out.stderr));
    let record = s.audit().pop().unwrap();
    let installed_digest = &digests[0].1;
    assert_eq!(record["policy_digest"], installed_digest.as_str());
    // The built-in floor decides before any policy: the directory is named all the same.
    let v = check_json(s.command(&["--check", "rm -rf /", "--json"]));
    assert_eq!(v["policy_dir"], installed.display().to_string());
    assert_eq!(v["policy_digest"], installed_digest.as_str());
    // No policy at all: null and "".
    let none = Setup::with("[policy]\nenabled = false\n");
    let v = check_json(none.command(&["--check", "ls", "--json"]));
    assert_eq!(v["policy_dir"], serde_json::Value::Null);
    assert_eq!(v["policy_digest"], "");
}

/// On a host with an installed policy, a user's own `HONEY_POLICY_DIR` answers `--check` and
/// `--check-file` (it runs nothing: no trust check), while the shell surface keeps the
/// installed one (`allow_env_dir` is off). Needs root (a run as `nobody` under an /etc overlay).
#[test]
fn honey_policy_dir_of_ones_own_answers_the_review_on_an_installed_host() {
    if !nix::unistd::getuid().is_root() {
        eprintln!("SKIPPED: needs root to run as another user");
        return;
    }
    let s = Setup::shared("[policy]\ndir = \"{dir}/installed\"\nallow_env_dir = false\n");
    deny_all(&s, "installed", "the installed policy");
    let mine = deny_all(&s, "mine", "my own policy");
    for p in [mine.clone(), mine.join("deny.rego")] {
        nix::unistd::chown(&p, Some(nix::unistd::Uid::from_raw(65534)), None).unwrap();
    }
    s.write("script.sh", "ls\n");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(s.path("script.sh"), std::fs::Permissions::from_mode(0o644)).unwrap();
    s.install_config();
    let script = s.path("script.sh").display().to_string();
    for args in [vec!["--check", "ls"], vec!["--check-file", script.as_str()]] {
        let mut c = s.as_user(65534, 65534, &args);
        c.env("HONEY_POLICY_DIR", &mine);
        let out = run(c);
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert!(
            stdout.contains("deny — my own policy"),
            "{args:?}: {stdout}{stderr}"
        );
        assert!(
            stderr.starts_with(&format!("guarded-sh: policy: {} (digest ", mine.display())),
            "{args:?}: {stderr}"
        );
    }
    let mut c = s.as_user(65534, 65534, &["-c", "ls"]);
    c.env("HONEY_POLICY_DIR", &mine);
    let out = run(c);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(126), "{stderr}");
    assert!(stderr.contains("the installed policy"), "{stderr}");
}
