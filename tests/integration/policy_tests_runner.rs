//! The Rego unit-test runner on the shipped policies (every test passes) and on a directory
//! with failing, erroring and undefined tests (each reported as a FAIL line); and
//! `--policy-test` through the built binary: a directory without tests fails, `-v` times each
//! test, `--run` picks tests by name, `todo_test_*` rules are counted and never fail a run.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::setup::{text, Setup};
use guarded_sh::policy::tests_runner::{run, run_tests, TestOptions};
use std::path::Path;
use std::process::Stdio;

#[test]
fn shipped_policies_pass_their_tests() {
    // The reference examples each bring `default allow := true`, so they load one at a time
    // next to the baseline (below), never all together.
    for dir in ["policies"] {
        let report = run_tests(&Path::new(env!("CARGO_MANIFEST_DIR")).join(dir))
            .unwrap_or_else(|e| panic!("{dir}: {e} ({})", e.reason_id()));
        for line in report.lines() {
            println!("{line}");
        }
        assert_eq!(report.failed, 0, "{dir}: {:#?}", report.lines());
        assert!(report.passed >= 5, "{dir}: only {} tests", report.passed);
        assert_eq!(report.lines().len(), report.passed + report.failed);
    }
}

#[test]
fn each_example_passes_its_tests_next_to_the_baseline_alone() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("policies/examples");
    let mut seen = 0;
    for entry in std::fs::read_dir(&examples).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if !name.ends_with("_test.rego") {
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let module = name.replace("_test.rego", ".rego");
        for file in ["baseline.rego", module.as_str(), name.as_str()] {
            std::fs::copy(examples.join(file), dir.path().join(file)).unwrap();
        }
        let report = run_tests(dir.path()).unwrap();
        assert_eq!(report.failed, 0, "{name}: {:#?}", report.lines());
        assert!(report.passed > 0, "{name}");
        seen += 1;
    }
    assert_eq!(seen, 7, "six reference examples and the autonomy tiers");
}

#[test]
fn failing_tests_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("p.rego"),
        "package honey\nimport rego.v1\ndefault allow := false\nallow if input.ok\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("p_test.rego"),
        r#"package honey_test
import rego.v1
test_passes if { data.honey.allow with input as {"ok": true} }
test_fails if { data.honey.allow with input as {"ok": false} }
test_errors if { 1 / 0 == 1 }
test_value := 3
"#,
    )
    .unwrap();
    let report = run_tests(dir.path()).unwrap();
    let expected: [(&str, &str); 4] = [
        ("PASS data.honey_test.test_passes", ""),
        ("FAIL data.honey_test.test_fails", "undefined"),
        ("FAIL data.honey_test.test_errors", ""),
        ("FAIL data.honey_test.test_value", "evaluated to 3"),
    ];
    assert_eq!(
        (report.passed, report.failed),
        (1, 3),
        "{:#?}",
        report.lines()
    );
    for (prefix, why) in expected {
        let lines = report.lines();
        let line = lines
            .iter()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no line for {prefix}: {:#?}", report.lines()));
        assert!(
            line.contains("(p_test.rego)") && line.contains(why),
            "{line}"
        );
    }
}

#[test]
fn a_broken_directory_is_an_error_not_a_report() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("p_test.rego"),
        "package honey_test\ntest_x if {\n",
    )
    .unwrap();
    let err = run_tests(dir.path()).unwrap_err();
    assert_eq!(err.reason_id(), "policy.parse");
    assert!(err.to_string().contains("p_test.rego:"), "{err}");
}

/// A policy and its tests: two passing, one failing, one todo (which would fail if it ran).
const MODULE: &str = "package honey\nimport rego.v1\ndefault allow := false\nallow if input.ok\n";
const TESTS: &str = r#"package honey_test
import rego.v1
test_allow_ok if { data.honey.allow with input as {"ok": true} }
test_deny_not_ok if { not data.honey.allow with input as {"ok": false} }
test_deny_broken if { data.honey.allow with input as {"ok": false} }
todo_test_allow_prod if { false }
"#;

fn suite() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("p.rego"), MODULE).unwrap();
    std::fs::write(dir.path().join("p_test.rego"), TESTS).unwrap();
    dir
}

/// `guarded-sh ARGS…` with the shared setup: (exit status, stdout, stderr).
fn guarded_sh(args: &[&str]) -> (Option<i32>, String, String) {
    let s = Setup::with("");
    let out = s.command(args).stdin(Stdio::null()).output().unwrap();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

/// `guarded-sh --policy-test DIR ARGS…`.
fn policy_test(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let dir = dir.to_str().unwrap();
    guarded_sh(&[&["--policy-test", dir][..], args].concat())
}

#[test]
fn a_directory_without_tests_fails_with_a_message() {
    let empty = tempfile::tempdir().unwrap();
    let rules_only = tempfile::tempdir().unwrap();
    std::fs::write(rules_only.path().join("p.rego"), MODULE).unwrap();
    // A test file whose rules are not tests: helpers and todo tests only.
    let todo_only = tempfile::tempdir().unwrap();
    std::fs::write(todo_only.path().join("p.rego"), MODULE).unwrap();
    std::fs::write(
        todo_only.path().join("p_test.rego"),
        "package honey_test\nimport rego.v1\nhelper := 1\ntodo_test_later if { false }\n",
    )
    .unwrap();
    let suite = suite();
    // (directory, extra arguments, reason id and text stderr must hold)
    let table: &[(&Path, &[&str], &[&str])] = &[
        (empty.path(), &[], &["[policy.dir_empty]"]),
        (
            rules_only.path(),
            &[],
            &["[policy_test.no_tests]", "holds no test_* rule"],
        ),
        (
            todo_only.path(),
            &[],
            &["[policy_test.no_tests]", "(1 todo_test_* not run)"],
        ),
        (
            suite.path(),
            &["--run", "no_such_test"],
            &[
                "[policy_test.no_tests]",
                "whose name contains 'no_such_test'",
            ],
        ),
    ];
    for (dir, args, expected) in table {
        let (status, stdout, stderr) = policy_test(dir, args);
        assert_eq!(status, Some(1), "{dir:?} {args:?}: {stdout}{stderr}");
        for e in *expected {
            assert!(stderr.contains(e), "{dir:?} {args:?}: {stderr}");
        }
        assert!(!stdout.contains(" passed, "), "{dir:?} {args:?}: {stdout}");
    }
}

#[test]
fn verbose_filter_and_todo_through_the_binary() {
    let suite = suite();
    let timed = |line: &str| line.ends_with("ms]") && line.contains(" [");
    // (arguments, exit status, summary, the tests listed in order)
    let table: &[(&[&str], i32, &str, &[&str])] = &[
        (
            &[],
            1,
            "2 passed, 1 failed, 1 todo",
            &[
                "PASS data.honey_test.test_allow_ok (p_test.rego)",
                "PASS data.honey_test.test_deny_not_ok (p_test.rego)",
                "FAIL data.honey_test.test_deny_broken (p_test.rego): undefined",
                "TODO data.honey_test.todo_test_allow_prod (p_test.rego)",
            ],
        ),
        (
            &["--run", "test_allow"],
            0,
            "1 passed, 0 failed, 1 todo",
            &[
                "PASS data.honey_test.test_allow_ok (p_test.rego)",
                "TODO data.honey_test.todo_test_allow_prod (p_test.rego)",
            ],
        ),
        (
            &["--run=deny_not", "-v"],
            0,
            "1 passed, 0 failed",
            &["PASS data.honey_test.test_deny_not_ok (p_test.rego)"],
        ),
        (
            &["--verbose", "--run", "_deny_"],
            1,
            "1 passed, 1 failed",
            &[
                "PASS data.honey_test.test_deny_not_ok (p_test.rego)",
                "FAIL data.honey_test.test_deny_broken (p_test.rego): undefined",
            ],
        ),
    ];
    for (args, status, summary, tests) in table {
        let (code, stdout, stderr) = policy_test(suite.path(), args);
        assert_eq!(code, Some(*status), "{args:?}: {stdout}{stderr}");
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.last(), Some(summary), "{args:?}: {stdout}");
        assert_eq!(lines.len(), tests.len() + 1, "{args:?}: {stdout}");
        let verbose = args.contains(&"-v") || args.contains(&"--verbose");
        for (line, test) in lines.iter().zip(tests.iter()) {
            assert!(line.starts_with(test), "{args:?}: {line} is not {test}");
            // -v times each test run (not a todo); the default output keeps the plain lines.
            let expect_time = verbose && !test.starts_with("TODO");
            assert_eq!(timed(line), expect_time, "{args:?}: {line}");
            if !verbose {
                assert_eq!(line, test, "{args:?}");
            }
        }
    }
    // -v and --run belong to --policy-test: with another action they are a usage error.
    for args in [
        &["--check", "ls", "-v"][..],
        &["--check", "ls", "--run", "x"],
    ] {
        let (status, _, stderr) = guarded_sh(args);
        assert_eq!(status, Some(2), "{args:?}: {stderr}");
    }
}

#[test]
fn the_runner_counts_filters_and_keeps_todo_out_of_failures() {
    let suite = suite();
    // (filter, passed, failed, todo)
    let table: &[(Option<&str>, usize, usize, usize)] = &[
        (None, 2, 1, 1),
        (Some("test_allow"), 1, 0, 1),
        (Some("data.honey_test.test_deny_broken"), 0, 1, 0),
        (Some("honey_test."), 2, 1, 1),
    ];
    for (filter, passed, failed, todo) in table {
        let options = TestOptions {
            filter: filter.map(str::to_string),
        };
        let report = run(suite.path(), &options).unwrap();
        assert_eq!(
            (report.passed, report.failed, report.todo),
            (*passed, *failed, *todo),
            "{filter:?}: {:#?}",
            report.lines()
        );
        assert_eq!(report.results.len(), passed + failed + todo);
    }
    let err = run(
        suite.path(),
        &TestOptions {
            filter: Some("zzz".into()),
        },
    )
    .unwrap_err();
    assert_eq!(err.reason_id(), "policy_test.no_tests");
}
