//! The Rego unit-test runner: loads a policy directory together with its `*_test.rego` modules
//! (any package, usually `honey_test`) and evaluates every rule named `test_*` with the
//! interpreter, as `opa test` does: a test passes when it evaluates to `true`; `todo_test_*`
//! rules are counted as todo and not run; a name filter picks the tests by substring.

use super::engine::{build_engine, read_sources, Limits};
use super::error::{split_diagnostic, PolicyError};
use regorus::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What to run: the tests whose rule path (`data.honey_test.test_x`) contains `filter`, all
/// of them when it is `None`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TestOptions {
    pub filter: Option<String>,
}

/// How one test ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Pass,
    /// Why it failed: `undefined`, `evaluated to …` or `error: …`.
    Fail(String),
    /// A `todo_test_*` rule: reported, never run.
    Todo,
}

/// One test: its rule path, the file that defines it (its name, and the path and line of the
/// rule), how it ended and how long it ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestResult {
    pub path: String,
    pub file: String,
    /// `FILE:LINE` of the rule, the file as read (`DIR/name_test.rego`).
    pub location: String,
    pub outcome: Outcome,
    pub elapsed: Duration,
}

impl TestResult {
    /// `PASS <rule> (<file>)`, `FAIL <rule> (<file>): <why>` or `TODO <rule> (<file>)`.
    pub fn line(&self) -> String {
        let (word, why) = match &self.outcome {
            Outcome::Pass => ("PASS", String::new()),
            Outcome::Fail(why) => ("FAIL", format!(": {why}")),
            Outcome::Todo => ("TODO", String::new()),
        };
        format!("{word} {} ({}){why}", self.path, self.file)
    }

    /// [`TestResult::line`] with the time the test took (`--verbose`).
    pub fn timed_line(&self) -> String {
        match self.outcome {
            Outcome::Todo => self.line(),
            _ => format!(
                "{} [{:.3}ms]",
                self.line(),
                self.elapsed.as_secs_f64() * 1e3
            ),
        }
    }
}

/// The outcome of [`run_tests`]: the counts and one [`TestResult`] per test.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TestReport {
    pub passed: usize,
    pub failed: usize,
    pub todo: usize,
    pub results: Vec<TestResult>,
}

impl TestReport {
    /// Each result's [`TestResult::line`], in order.
    pub fn lines(&self) -> Vec<String> {
        self.results.iter().map(TestResult::line).collect()
    }

    /// `N passed, M failed`, with `, K todo` when there are todo tests.
    pub fn summary(&self) -> String {
        let todo = match self.todo {
            0 => String::new(),
            n => format!(", {n} todo"),
        };
        format!("{} passed, {} failed{todo}", self.passed, self.failed)
    }
}

/// Why no report could be made: the directory does not load (as for enforcement), or it holds
/// no `test_*` rule to run (a test suite that tests nothing is not a pass).
#[derive(Debug, thiserror::Error)]
pub enum TestsError {
    #[error(transparent)]
    Policy(#[from] PolicyError),

    #[error("{} holds no test_* rule{}{}", dir.display(), matching(filter), todo_note(filter, *todo))]
    NoTests {
        dir: PathBuf,
        filter: Option<String>,
        todo: usize,
    },
}

fn matching(filter: &Option<String>) -> String {
    filter
        .as_ref()
        .map(|f| format!(" whose name contains '{f}'"))
        .unwrap_or_default()
}

fn todo_note(filter: &Option<String>, todo: usize) -> String {
    match (filter, todo) {
        (None, 0) => " (tests are rules named test_* in *_test.rego files)".into(),
        (Some(_), 0) => String::new(),
        (_, n) => format!(" ({n} todo_test_* not run)"),
    }
}

impl TestsError {
    /// The stable identifier: the policy's own (`policy.*`) or `policy_test.no_tests`.
    pub fn reason_id(&self) -> &'static str {
        match self {
            Self::Policy(e) => e.reason_id(),
            Self::NoTests { .. } => "policy_test.no_tests",
        }
    }
}

/// [`run`] with every test.
pub fn run_tests(dir: &Path) -> Result<TestReport, TestsError> {
    run(dir, &TestOptions::default())
}

/// Run the `test_*` rules of `dir`'s modules (not recursive) that `options` picks. A failing
/// test is a `FAIL` result, not an error.
pub fn run(dir: &Path, options: &TestOptions) -> Result<TestReport, TestsError> {
    let sources = read_sources(dir, true)?;
    if sources.modules.is_empty() && sources.tests.is_empty() {
        return Err(PolicyError::DirEmpty {
            dir: dir.to_path_buf(),
        }
        .into());
    }
    let limits = Limits {
        timeout: Duration::from_secs(5),
        ..Limits::default()
    };
    let mut engine = build_engine(&sources, true, &limits)?;
    super::lint::check(engine.get_modules())?;
    let picked = |path: &str| options.filter.as_ref().is_none_or(|f| path.contains(f));
    // (rule path, file, location, todo)
    let mut tests: Vec<(String, String, String, bool)> = Vec::new();
    for module in engine.get_modules() {
        let package = module.package.refr.span().text().trim().to_string();
        let source = module.package.span.source.get_path().clone();
        let file = Path::new(&source)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        for rule in &module.policy {
            let head = rule.span().text();
            let name: String = head
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let todo = name.starts_with("todo_test_");
            let path = format!("data.{package}.{name}");
            if (todo || name.starts_with("test_"))
                && picked(&path)
                && !tests.iter().any(|(p, _, _, _)| *p == path)
            {
                let location = format!("{source}:{}", rule.span().line);
                tests.push((path, file.clone(), location, todo));
            }
        }
    }
    let mut report = TestReport::default();
    for (path, file, location, todo) in tests {
        let started = Instant::now();
        let outcome = if todo {
            Outcome::Todo
        } else {
            evaluate(&mut engine, &path)
        };
        match outcome {
            Outcome::Pass => report.passed += 1,
            Outcome::Fail(_) => report.failed += 1,
            Outcome::Todo => report.todo += 1,
        }
        let result = TestResult {
            path,
            file,
            location,
            outcome,
            elapsed: started.elapsed(),
        };
        report.results.push(result);
    }
    if report.passed + report.failed == 0 {
        return Err(TestsError::NoTests {
            dir: dir.to_path_buf(),
            filter: options.filter.clone(),
            todo: report.todo,
        });
    }
    Ok(report)
}

fn evaluate(engine: &mut regorus::Engine, path: &str) -> Outcome {
    match engine.eval_rule(path.to_string()) {
        Ok(Value::Bool(true)) => Outcome::Pass,
        Ok(Value::Undefined) => Outcome::Fail("undefined".into()),
        Ok(other) => Outcome::Fail(format!("evaluated to {other}")),
        Err(error) => {
            let (location, message) = split_diagnostic(&error.to_string());
            Outcome::Fail(format!("error: {location} {message}").replace("  ", " "))
        }
    }
}
