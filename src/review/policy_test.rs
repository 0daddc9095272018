//! `--policy-test DIR [-v] [--run TEXT]`: the Rego unit tests of a policy directory, one line
//! per test (with its time under `-v`) and a summary. Exit statuses: 0 every test run passed
//! (todo tests do not count), 1 a test failed, the directory does not load or it has no test.

use crate::invocation::PolicyTest;
use crate::policy::tests_runner::{self, TestOptions};
use crate::verdict::{EXIT_REVIEW_ALLOW, EXIT_REVIEW_DENY};
use std::fmt::Write as _;

pub fn run(request: &PolicyTest) -> i32 {
    let options = TestOptions {
        filter: request.run.clone(),
    };
    match tests_runner::run(&request.dir, &options) {
        Ok(report) => {
            let mut out = String::new();
            for result in &report.results {
                let line = if request.verbose {
                    result.timed_line()
                } else {
                    result.line()
                };
                let _ = writeln!(out, "{line}");
            }
            let _ = writeln!(out, "{}", report.summary());
            super::emit(&out);
            if report.failed == 0 {
                EXIT_REVIEW_ALLOW
            } else {
                EXIT_REVIEW_DENY
            }
        }
        Err(e) => {
            eprintln!("guarded-sh: policy test [{}]: {e}", e.reason_id());
            EXIT_REVIEW_DENY
        }
    }
}
