//! `--validate`'s policy half: the directory enforcement would use (or `--policy-dir`), who
//! besides root could write it or its files, loading it with enforcement's own loader
//! (`policy::engine::load_with`: the lint, regorus's analysis, the evaluation on an empty input,
//! the RVM compile; no cache is read or written), then its Rego tests (`tests_runner`).

use super::provenance::Lines;
use super::{place, writers, Problem};
use crate::config::Config;
use crate::context::Context;
use crate::policy::engine::{self, Backend, CacheMode, LoadOptions};
use crate::policy::error::PolicyError;
use crate::policy::tests_runner::{self, Outcome, TestsError};
use std::path::Path;

/// What the policy check found, and notes that are not problems.
#[derive(Default)]
pub(crate) struct Checked {
    pub problems: Vec<Problem>,
    pub notes: Vec<String>,
}

/// Checks the policy directory `config` selects for enforcement (`review_dir` replaces it).
pub(crate) fn check(
    ctx: &Context,
    config: &Config,
    lines: &Lines,
    file: &Path,
    review_dir: Option<&Path>,
) -> Checked {
    if let Some(dir) = review_dir {
        return check_dir(dir);
    }
    use crate::policy::enforcement::{dir_with_origin, DirOrigin};
    if let Some((dir, origin)) = dir_with_origin(ctx, config, false, None) {
        // A configured directory that is missing is the configuration's problem: its line.
        if origin == DirOrigin::Config && !dir.exists() {
            let error = PolicyError::DirMissing { dir: dir.clone() };
            return Checked {
                problems: vec![Problem::new(
                    Some(place(file, lines.line("policy.dir"))),
                    format!("policy.dir = {}: {error}", dir.display()),
                    error.reason_id(),
                )],
                notes: Vec::new(),
            };
        }
        return check_dir(&dir);
    }
    let why = if config.policy.enabled {
        format!(
            "no policy directory ({} does not exist and policy.dir is unset): only the built-in critical patterns decide",
            crate::config::DEFAULT_POLICY_DIR
        )
    } else {
        "policy.enabled = false: only the built-in critical patterns decide".to_string()
    };
    Checked {
        problems: Vec::new(),
        notes: vec![why],
    }
}

/// Checks one policy directory: trust, load, tests.
pub(crate) fn check_dir(dir: &Path) -> Checked {
    let mut checked = Checked::default();
    if !dir.exists() {
        checked
            .problems
            .push(from_policy_error(&PolicyError::DirMissing {
                dir: dir.to_path_buf(),
            }));
        return checked;
    }
    checked
        .problems
        .extend(writers::check_dir_entries(dir, "the policy directory"));
    let options = LoadOptions {
        cache: CacheMode::Off,
        backend: Backend::Auto,
        limits: engine::Limits::default(),
    };
    let loaded =
        match engine::load_with(dir, &options) {
            Ok(policy) => {
                checked.notes.push(format!(
                    "policy directory {} loads: {} file(s), digest {}",
                    dir.display(),
                    policy.files().len(),
                    policy.digest()
                ));
                true
            }
            Err(PolicyError::Lint { findings }) => {
                checked.problems.extend(findings.iter().map(|f| {
                    Problem::new(Some(f.location.clone()), f.message.clone(), f.reason_id)
                }));
                false
            }
            Err(e) => {
                checked.problems.push(from_policy_error(&e));
                false
            }
        };
    match tests_runner::run_tests(dir) {
        Ok(report) => {
            for result in &report.results {
                if let Outcome::Fail(why) = &result.outcome {
                    checked.problems.push(Problem::new(
                        Some(result.location.clone()),
                        format!("test {} failed: {why}", result.path),
                        "policy_test.failed",
                    ));
                }
            }
            checked
                .notes
                .push(format!("Rego tests: {}", report.summary()));
        }
        Err(TestsError::NoTests { .. }) => checked
            .notes
            .push(format!("{} holds no test_* rule", dir.display())),
        // The same failure as the load's is not reported twice.
        Err(TestsError::Policy(_)) if !loaded => {}
        Err(TestsError::Policy(PolicyError::Lint { findings })) => {
            checked.problems.extend(
                findings.iter().map(|f| {
                    Problem::new(Some(f.location.clone()), f.message.clone(), f.reason_id)
                }),
            );
        }
        Err(TestsError::Policy(e)) => checked.problems.push(from_policy_error(&e)),
    }
    checked
}

fn from_policy_error(error: &PolicyError) -> Problem {
    let (place, message) = error.located();
    Problem::new(place, message, error.reason_id())
}
