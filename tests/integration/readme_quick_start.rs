//! The README's quick start, run as written: the "write and test a policy" block (its
//! `/root/policies.next` a scratch directory, the live policy directory a copy of the shipped
//! baseline) must give the results its comments say, and the directory it writes must pass
//! `--validate`, as the next step of the quick start expects before copying it in.

use crate::setup::{Setup, BIN, REPO};
use std::path::Path;
use std::process::Command;

/// The shell block of the README that contains `marker`.
fn readme_block(marker: &str) -> String {
    let readme = std::fs::read_to_string(Path::new(REPO).join("README.md")).unwrap();
    readme
        .split("```sh\n")
        .skip(1)
        .filter_map(|rest| rest.split_once("\n```").map(|(block, _)| block))
        .find(|block| block.contains(marker))
        .unwrap_or_else(|| panic!("no ```sh block with {marker:?} in README.md"))
        .to_string()
}

#[test]
fn write_and_test_a_policy_runs_as_written() {
    let s = Setup::with("");
    let live = s.path("live-policies");
    std::fs::create_dir_all(&live).unwrap();
    std::fs::copy(
        Path::new(REPO).join("policies/baseline.rego"),
        live.join("baseline.rego"),
    )
    .unwrap();
    let next = s.path("policies.next");
    let block = readme_block("policies.next/terraform_test.rego")
        .replace("/root/policies.next", &next.display().to_string())
        .replace("/etc/guarded-sh/policies", &live.display().to_string());
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut c = Command::new("bash");
    c.arg("-c").arg(&block);
    s.configure(&mut c);
    let out = c
        .env("PATH", path)
        .env_remove("RUST_BACKTRACE")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let all = format!("{stdout}{stderr}");
    // The block's own comments: `# 2 passed, 0 failed`, `# Policy[…]: deny — …; exit 1`.
    assert!(all.contains("2 passed, 0 failed"), "{all}");
    assert!(
        stdout.contains("Policy[") && stdout.contains("deny"),
        "the --check line: {all}"
    );
    assert!(
        all.contains("terraform destroy runs from the pipeline only"),
        "{all}"
    );
    assert!(
        stdout.contains("\"schema_version\""),
        "the --input line: {all}"
    );

    // What --validate says of the directory (the rest of the test's configuration, such as a
    // session hook this host may not have installed, is not the quick start's business).
    let validate = s
        .command(&["--validate", "--policy-dir", &next.display().to_string()])
        .env_remove("RUST_BACKTRACE")
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&validate.stdout),
        String::from_utf8_lossy(&validate.stderr)
    );
    let problems: Vec<&str> = said
        .lines()
        .filter(|l| l.contains("policies.next") && !l.contains("validate: note:"))
        .collect();
    assert!(
        problems.is_empty(),
        "--validate of what the quick start wrote: {said}"
    );
    assert!(said.contains("Rego tests: 2 passed, 0 failed"), "{said}");
}
