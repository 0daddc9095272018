//! The Rego unit-test runner: loads a policy directory together with its `*_test.rego` modules
//! (any package, usually `honey_test`) and evaluates every rule named `test_*` with the
//! interpreter, as `opa test` does. A test passes when it evaluates to `true`.

use super::engine::{build_engine, read_sources, Limits};
use super::error::{split_diagnostic, PolicyError};
use regorus::Value;
use std::path::Path;
use std::time::Duration;

/// The outcome of [`run_tests`]: one line per test, `PASS <rule> (<file>)` or
/// `FAIL <rule> (<file>): <why>`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TestReport {
    pub passed: usize,
    pub failed: usize,
    pub lines: Vec<String>,
}

/// Run every `test_*` rule of `dir`'s modules (not recursive). A directory that does not load
/// is an error, like for enforcement; a failing test is a `FAIL` line, not an error.
pub fn run_tests(dir: &Path) -> Result<TestReport, PolicyError> {
    let sources = read_sources(dir, true)?;
    if sources.modules.is_empty() && sources.tests.is_empty() {
        return Err(PolicyError::DirEmpty {
            dir: dir.to_path_buf(),
        });
    }
    let limits = Limits {
        timeout: Duration::from_secs(5),
        ..Limits::default()
    };
    let mut engine = build_engine(&sources, true, &limits)?;
    let mut tests: Vec<(String, String)> = Vec::new();
    for module in engine.get_modules() {
        let package = module.package.refr.span().text().trim().to_string();
        let file = Path::new(module.package.span.source.get_path())
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        for rule in &module.policy {
            let head = rule.span().text();
            let name: String = head
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let path = format!("data.{package}.{name}");
            if name.starts_with("test_") && !tests.iter().any(|(p, _)| *p == path) {
                tests.push((path, file.clone()));
            }
        }
    }
    let mut report = TestReport::default();
    for (path, file) in tests {
        let failure = match engine.eval_rule(path.clone()) {
            Ok(Value::Bool(true)) => None,
            Ok(Value::Undefined) => Some("undefined".to_string()),
            Ok(other) => Some(format!("evaluated to {other}")),
            Err(error) => {
                let (location, message) = split_diagnostic(&error.to_string());
                Some(format!("error: {location} {message}").replace("  ", " "))
            }
        };
        match failure {
            None => {
                report.passed += 1;
                report.lines.push(format!("PASS {path} ({file})"));
            }
            Some(why) => {
                report.failed += 1;
                report.lines.push(format!("FAIL {path} ({file}): {why}"));
            }
        }
    }
    Ok(report)
}
