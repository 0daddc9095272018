//! The Rego unit-test runner on the shipped policies (every test passes) and on a directory
//! with failing, erroring and undefined tests (each reported as a FAIL line).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use guarded_sh::policy::tests_runner::run_tests;
use std::path::Path;

#[test]
fn shipped_policies_pass_their_tests() {
    for dir in ["policies", "policies/examples"] {
        let report = run_tests(&Path::new(env!("CARGO_MANIFEST_DIR")).join(dir))
            .unwrap_or_else(|e| panic!("{dir}: {e} ({})", e.reason_id()));
        for line in &report.lines {
            println!("{line}");
        }
        assert_eq!(report.failed, 0, "{dir}: {:#?}", report.lines);
        assert!(report.passed >= 5, "{dir}: only {} tests", report.passed);
        assert_eq!(report.lines.len(), report.passed + report.failed);
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
        assert_eq!(report.failed, 0, "{name}: {:#?}", report.lines);
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
        report.lines
    );
    for (prefix, why) in expected {
        let line = report
            .lines
            .iter()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no line for {prefix}: {:#?}", report.lines));
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
