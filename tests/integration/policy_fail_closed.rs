//! The fail-closed table of the policy engine: every way a configured policy directory can fail
//! to give a trustworthy answer, under both back ends, with the stable reason id it must give.
//! An `Ok("deny")` row is a policy that evaluates to a plain deny on that back end.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use guarded_sh::policy::engine::{load_with, Backend, CacheMode, Limits, LoadOptions};
use std::path::Path;
use std::time::Duration;

const HEAD: &str = "package honey\nimport rego.v1\n";

/// A row: name, files (name, contents; `None` = dangling symlink), input, limits, and the
/// outcome for the interpreter and for the RVM.
struct Row {
    name: &'static str,
    files: Vec<(&'static str, Option<String>)>,
    input: &'static str,
    limits: Limits,
    interpreter: Result<&'static str, &'static str>,
    rvm: Result<&'static str, &'static str>,
}

fn module(body: &str) -> Option<String> {
    Some(format!("{HEAD}{body}\n"))
}

fn row(
    name: &'static str,
    files: Vec<(&'static str, Option<String>)>,
    input: &'static str,
    both: Result<&'static str, &'static str>,
) -> Row {
    Row {
        name,
        files,
        input,
        limits: Limits::default(),
        interpreter: both,
        rvm: both,
    }
}

const HEAVY: &str = "allow if { count([x | some i in numbers.range(1, 400); some j in numbers.range(1, 400); x := i * j]) > input.n }";

fn rows() -> Vec<Row> {
    let tight = Limits {
        max_instructions: 2_000,
        timeout: Duration::from_secs(30),
    };
    let quick = Limits {
        max_instructions: usize::MAX,
        timeout: Duration::from_millis(5),
    };
    vec![
        row("empty directory", vec![], "{}", Err("policy.dir_empty")),
        row(
            "only data and tests",
            vec![
                ("d.json", Some("{}".into())),
                ("p_test.rego", module("test_x := true")),
            ],
            "{}",
            Err("policy.dir_empty"),
        ),
        row(
            "dangling symlink",
            vec![("a.rego", None)],
            "{}",
            Err("policy.file_unreadable"),
        ),
        row(
            "not utf-8",
            vec![("a.rego", Some("package honey\n# \u{0}".into()))],
            "{}",
            Err("policy.file_unreadable"),
        ),
        row(
            "syntax error",
            vec![("bad.rego", module("allow if {\n  input.x ==\n}"))],
            "{}",
            Err("policy.parse"),
        ),
        row(
            "v0 syntax",
            vec![("old.rego", Some("package honey\nallow { true }\n".into()))],
            "{}",
            Err("policy.parse"),
        ),
        row(
            "wrong package",
            vec![("a.rego", Some("package other\nallow := true\n".into()))],
            "{}",
            Err("policy.package"),
        ),
        row(
            "bad data json",
            vec![("a.rego", module("allow := true")), ("d.json", Some("{".into()))],
            "{}",
            Err("policy.data_invalid"),
        ),
        row(
            "data not an object",
            vec![("a.rego", module("allow := true")), ("d.json", Some("[1]".into()))],
            "{}",
            Err("policy.data_invalid"),
        ),
        row(
            "data claims the combined entry point's package",
            vec![
                ("a.rego", module("allow := true")),
                (
                    "d.json",
                    Some(r#"{"guarded_sh_entry": {"result": [[true], [], null, null]}}"#.into()),
                ),
            ],
            "{}",
            Err("policy.data_invalid"),
        ),
        row(
            "unsafe variable",
            vec![("a.rego", module("allow if { x == 1 }"))],
            "{}",
            Err("policy.compile"),
        ),
        row(
            "unknown function",
            vec![("a.rego", module("allow if no_such_fn(1)"))],
            "{}",
            Err("policy.compile"),
        ),
        row(
            "mutual recursion",
            vec![("a.rego", module("allow := a\na := b\nb := a"))],
            "{}",
            Err("policy.recursion"),
        ),
        Row {
            name: "recursion behind an input condition",
            files: vec![(
                "a.rego",
                module("default allow := false\nallow if { input.x; a }\na if { input.x; b }\nb if { input.x; a }"),
            )],
            input: r#"{"x": true}"#,
            limits: Limits::default(),
            interpreter: Err("policy.recursion"),
            rvm: Err("policy.recursion"),
        },
        row(
            "rule shadowing a builtin",
            vec![("a.rego", module("allow := lower(\"A\") == \"a\"\nlower := lower(\"x\")"))],
            "{}",
            Err("policy.recursion"),
        ),
        row(
            "no allow rule",
            vec![("a.rego", module("deny_reason := \"x\""))],
            "{}",
            Err("policy.undefined"),
        ),
        row(
            "allow undefined for this input",
            vec![("a.rego", module("allow if input.ok"))],
            "{}",
            Err("policy.undefined"),
        ),
        row(
            "allow not a boolean",
            vec![("a.rego", module("allow := \"yes\""))],
            "{}",
            Err("policy.ill_typed"),
        ),
        row(
            "decision not a known word",
            vec![("a.rego", module("allow := true\ndecision := \"require_biometric\""))],
            "{}",
            Err("policy.ill_typed"),
        ),
        row(
            "requires not a list of strings",
            vec![("a.rego", module("allow := true\nrequires := [1]"))],
            "{}",
            Err("policy.ill_typed"),
        ),
        row(
            "deny_reason not a string",
            vec![("a.rego", module("allow := false\ndeny_reason := 3"))],
            "{}",
            Err("policy.ill_typed"),
        ),
        Row {
            name: "conflicting deny_reason from two files",
            files: vec![
                ("a.rego", module("default allow := true\nallow := false if input.x\ndeny_reason := \"a\" if input.x")),
                ("b.rego", module("deny_reason := \"b\" if input.x")),
            ],
            input: r#"{"x": true}"#,
            limits: Limits::default(),
            interpreter: Err("policy.conflict"),
            // The RVM reads the conflict as undefined: still a deny ("denied by policy").
            rvm: Ok("deny"),
        },
        row(
            "conflicting decision next to allow",
            vec![
                ("a.rego", module("default allow := true\ndecision := \"deny\" if input.x")),
                ("b.rego", module("decision := \"require_approval\" if input.x")),
            ],
            r#"{"x": true}"#,
            Err("policy.conflict"),
        ),
        row(
            "conflicting allow",
            vec![("a.rego", module("default allow := true\nallow := false if input.x\nallow if input.x"))],
            r#"{"x": true}"#,
            Err("policy.conflict"),
        )
        .rvm(Err("policy.undefined")),
        row(
            "evaluation error",
            vec![("a.rego", module("default allow := false\nallow if { input.n / 0 == 1 }"))],
            r#"{"n": 1}"#,
            Err("policy.eval_error"),
        )
        // The RVM reads a failing builtin as undefined: the default (false) holds.
        .rvm(Ok("deny")),
        Row {
            name: "instruction budget",
            files: vec![("a.rego", module(HEAVY))],
            input: r#"{"n": 0}"#,
            limits: tight,
            interpreter: Ok("allow"),
            rvm: Err("policy.budget"),
        },
        Row {
            name: "timeout",
            files: vec![("a.rego", module(HEAVY))],
            input: r#"{"n": 0}"#,
            limits: quick,
            interpreter: Err("policy.timeout"),
            rvm: Err("policy.timeout"),
        },
    ]
}

impl Row {
    fn rvm(mut self, outcome: Result<&'static str, &'static str>) -> Self {
        self.rvm = outcome;
        self
    }
}

fn evaluate(
    dir: &Path,
    row: &Row,
    backend: Backend,
    cache: CacheMode,
) -> Result<&'static str, &'static str> {
    let options = LoadOptions {
        cache,
        backend,
        limits: row.limits,
    };
    let policy = load_with(dir, &options).map_err(|e| e.reason_id())?;
    let input: serde_json::Value = serde_json::from_str(row.input).unwrap();
    policy
        .evaluate(&input)
        .map(|d| d.verdict_word())
        .map_err(|e| e.reason_id())
}

#[test]
fn fail_closed_table() {
    let mut failures = Vec::new();
    for row in rows() {
        let dir = tempfile::tempdir().unwrap();
        for (name, contents) in &row.files {
            let path = dir.path().join(name);
            match contents {
                Some(text) if text.contains('\u{0}') => {
                    let mut bytes = text.as_bytes().to_vec();
                    bytes.extend_from_slice(&[0xff, 0xfe]);
                    std::fs::write(path, bytes).unwrap();
                }
                Some(text) => std::fs::write(path, text).unwrap(),
                None => std::os::unix::fs::symlink(dir.path().join("missing"), path).unwrap(),
            }
        }
        let cache = tempfile::tempdir().unwrap();
        let runs = [
            (
                "interpreter",
                Backend::Interpreter,
                CacheMode::Off,
                row.interpreter,
            ),
            (
                "rvm",
                Backend::Rvm,
                CacheMode::Dir(cache.path().to_path_buf()),
                row.rvm,
            ),
            // Second RVM run: served from the cache written by the first (when it compiled).
            (
                "rvm cached",
                Backend::Rvm,
                CacheMode::Dir(cache.path().to_path_buf()),
                row.rvm,
            ),
        ];
        for (label, backend, cache, want) in runs {
            let got = evaluate(dir.path(), &row, backend, cache);
            if got != want {
                failures.push(format!(
                    "{} [{label}]: got {got:?}, want {want:?}",
                    row.name
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn missing_and_unreadable_directories() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain-file");
    std::fs::write(&file, "x").unwrap();
    let cases = [
        (dir.path().join("nope"), "policy.dir_missing"),
        (file, "policy.dir_unreadable"),
    ];
    for (path, want) in cases {
        for cache in [CacheMode::Off, CacheMode::Dir(dir.path().to_path_buf())] {
            let got = guarded_sh::policy::engine::load(&path, &cache).map(|_| ());
            assert_eq!(
                got.map_err(|e| e.reason_id()),
                Err(want),
                "{}",
                path.display()
            );
        }
    }
}

#[test]
fn parse_errors_name_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("ok.rego"),
        format!("{HEAD}default allow := true\n"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("bad.rego"),
        format!("{HEAD}allow if {{\n  input.x ==\n}}\n"),
    )
    .unwrap();
    let err = guarded_sh::policy::engine::load(dir.path(), &CacheMode::Off)
        .err()
        .unwrap();
    let text = err.to_string();
    assert!(text.contains("bad.rego:5:"), "{text}");
    assert!(text.contains("expecting expression"), "{text}");
}
