//! The blind rows (`tests/cases/blind/*.tsv`, written by people who had not read the rules)
//! scored in process as `--check` scores them with no policy: a critical row must be denied, a
//! high row rated high or above, an everyday row neither. The figures may only get better:
//! each file's are held to `tests/cases/blind/floor.tsv`. `tests/blind/score.py BINARY` scores
//! any build the same way through `--check --json` (the build before a change included).

use crate::setup::unescape;
use guarded_sh::analysis::analyse;
use guarded_sh::decision::{builtin, Mode};
use guarded_sh::parse::Limits;
use guarded_sh::signals::{detect, max_severity, Severity};
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

#[derive(Debug, Default, PartialEq)]
struct Score {
    critical_denied: usize,
    high_rated: usize,
    everyday_denied: usize,
    everyday_high: usize,
    rows: usize,
}

fn score(text: &str, file: &str) -> Score {
    let mut s = Score::default();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        assert!(
            fields.len() >= 2,
            "{file}:{}: want command<TAB>expect<TAB>note",
            n + 1
        );
        let command = unescape(fields[0]);
        let analysis = analyse(&command, &Limits::default());
        let signals = detect(&analysis);
        let denied = builtin(&signals, Mode::Command).is_some();
        let high = max_severity(&signals).is_some_and(|m| m >= Severity::High);
        s.rows += 1;
        match fields[1] {
            "critical" => s.critical_denied += usize::from(denied),
            "high" => s.high_rated += usize::from(denied || high),
            "everyday" => {
                s.everyday_denied += usize::from(denied);
                s.everyday_high += usize::from(high);
            }
            other => panic!("{file}:{}: unknown expectation {other:?}", n + 1),
        }
    }
    s
}

#[test]
fn blind_rows_score_at_least_their_floor() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/blind");
    let floors: BTreeMap<String, [usize; 4]> = fs::read_to_string(dir.join("floor.tsv"))
        .expect("floor.tsv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let n = |i: usize| f[i].parse::<usize>().expect("a count");
            (f[0].to_string(), [n(1), n(2), n(3), n(4)])
        })
        .collect();
    let mut problems = Vec::new();
    let mut seen = 0;
    for entry in fs::read_dir(&dir).expect("tests/cases/blind") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "tsv") || path.ends_with("floor.tsv") {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let s = score(&fs::read_to_string(&path).expect("readable"), &name);
        eprintln!("{name}: {s:?}");
        seen += 1;
        let Some([critical, high, denied, rated]) = floors.get(&name) else {
            problems.push(format!("{name}: no floor in floor.tsv"));
            continue;
        };
        if s.critical_denied < *critical {
            problems.push(format!(
                "{name}: {} critical rows denied, floor {critical}",
                s.critical_denied
            ));
        }
        if s.high_rated < *high {
            problems.push(format!(
                "{name}: {} high rows rated high, floor {high}",
                s.high_rated
            ));
        }
        if s.everyday_denied > *denied {
            problems.push(format!(
                "{name}: {} everyday rows denied, at most {denied}",
                s.everyday_denied
            ));
        }
        if s.everyday_high > *rated {
            problems.push(format!(
                "{name}: {} everyday rows rated high, at most {rated}",
                s.everyday_high
            ));
        }
    }
    assert_eq!(
        seen,
        floors.len(),
        "every blind file has a floor and every floor a file"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
