//! Runs every case table under `tests/cases/*.tsv` through the analysis, the signal families and
//! the built-in decision (no policy, command mode).
//!
//! One case per line, tab-separated: `command`, `expected`, `max severity`, `verdict`, and an
//! optional `xfail: reason` for a known gap. `expected` lists IDs that must be present, `!ID`
//! for IDs that must be absent, or `-`. `max severity` is `none|low|medium|high|critical`,
//! `verdict` is `allow|deny`. In the command, `\n` is a newline, `\t` a tab and `\\` a
//! backslash (other backslashes stay as written). `#` starts a comment line.

use crate::setup::unescape;
use guarded_sh::analysis::analyse;
use guarded_sh::decision::{builtin, Mode};
use guarded_sh::parse::Limits;
use guarded_sh::signals::{detect, max_severity};
use std::fs;
use std::path::Path;

struct Case {
    file: String,
    line: usize,
    command: String,
    expected: Vec<String>,
    max: String,
    verdict: String,
    xfail: Option<String>,
}

fn load() -> Vec<Case> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut files: Vec<_> = fs::read_dir(&dir)
        .expect("tests/cases exists")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "tsv"))
        .collect();
    files.sort();
    let mut cases = Vec::new();
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = fs::read_to_string(&path).expect("readable table");
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = line.split('\t').collect();
            assert!(
                (4..=5).contains(&fields.len()),
                "{name}:{}: want 4 or 5 tab-separated fields, got {}",
                n + 1,
                fields.len()
            );
            let xfail = fields.get(4).map(|f| {
                f.strip_prefix("xfail:")
                    .unwrap_or_else(|| panic!("{name}:{}: 5th field must start with xfail:", n + 1))
                    .trim()
                    .to_string()
            });
            cases.push(Case {
                file: name.clone(),
                line: n + 1,
                command: unescape(fields[0]),
                expected: fields[1]
                    .split_whitespace()
                    .filter(|t| *t != "-")
                    .map(str::to_string)
                    .collect(),
                max: fields[2].trim().to_string(),
                verdict: fields[3].trim().to_string(),
                xfail,
            });
        }
    }
    cases
}

/// Checks one case; `Err` says what differed.
fn check(case: &Case) -> Result<(), String> {
    let analysis = analyse(&case.command, &Limits::default());
    let signals = detect(&analysis);
    let ids: Vec<&str> = signals.iter().map(|s| s.id()).collect();
    let max = max_severity(&signals).map_or("none", |s| s.as_str());
    let verdict = if builtin(&signals, Mode::Command).is_some() {
        "deny"
    } else {
        "allow"
    };
    let mut problems = Vec::new();
    for want in &case.expected {
        match want.strip_prefix('!') {
            Some(absent) if ids.contains(&absent) => problems.push(format!("{absent} present")),
            None if !ids.contains(&want.as_str()) => problems.push(format!("{want} missing")),
            _ => {}
        }
    }
    if max != case.max {
        problems.push(format!("max {max}, want {}", case.max));
    }
    if verdict != case.verdict {
        problems.push(format!("verdict {verdict}, want {}", case.verdict));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{} (signals: {ids:?})", problems.join("; ")))
    }
}

#[test]
fn case_tables() {
    let cases = load();
    let mut failures = Vec::new();
    let mut xfails = 0;
    for case in &cases {
        let result = check(case);
        let at = format!("{}:{}: {:?}", case.file, case.line, case.command);
        match (&case.xfail, result) {
            (None, Err(e)) => failures.push(format!("{at}: {e}")),
            (Some(reason), Ok(())) => failures.push(format!(
                "{at}: passes but is marked xfail ({reason}); remove the mark"
            )),
            (Some(_), Err(_)) => xfails += 1,
            (None, Ok(())) => {}
        }
    }
    eprintln!(
        "case tables: {} cases, {} known gaps (xfail), {} failures",
        cases.len(),
        xfails,
        failures.len()
    );
    assert!(
        cases.len() >= 400,
        "at least 400 cases expected, found {}",
        cases.len()
    );
    assert!(
        failures.is_empty(),
        "{} case(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
