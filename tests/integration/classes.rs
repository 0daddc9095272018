//! Runs `tests/classes.tsv` through the analysis and the command classes (OpenHuman's read,
//! write, network, install, destructive) carried to the policy as `command.classes`.
//!
//! One case per line, tab-separated: `command`, the expected classes (space-separated, sorted
//! as the policy sees them, or `-` for none), and `hidden` or `-` for `hidden_execution`. In the
//! command, `\n` is a newline. `#` starts a comment line.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use guarded_sh::analysis::analyse;
use guarded_sh::parse::Limits;
use guarded_sh::signals::classes::{classes, hidden_execution};
use std::fs;
use std::path::Path;

#[test]
fn class_table() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/classes.tsv");
    let text = fs::read_to_string(&path).expect("tests/classes.tsv is readable");
    let mut failures = Vec::new();
    let mut count = 0;
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(
            fields.len(),
            3,
            "classes.tsv:{}: want 3 tab-separated fields",
            n + 1
        );
        count += 1;
        let command = fields[0].replace("\\n", "\n");
        let analysis = analyse(&command, &Limits::default());
        let got: Vec<&str> = classes(&analysis).iter().map(|c| c.as_str()).collect();
        let want: Vec<&str> = fields[1].split_whitespace().filter(|c| *c != "-").collect();
        let hidden = hidden_execution(&analysis);
        let want_hidden = fields[2].trim() == "hidden";
        if got != want || hidden != want_hidden {
            failures.push(format!(
                "classes.tsv:{}: {command:?}: classes {got:?} hidden {hidden}, want {want:?} hidden {want_hidden}",
                n + 1
            ));
        }
    }
    eprintln!("class table: {count} cases, {} failures", failures.len());
    assert!(
        count >= 30,
        "at least 30 class cases expected, found {count}"
    );
    assert!(
        failures.is_empty(),
        "{} case(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn classes_serialize_lowercase() {
    let analysis = analyse(
        "curl https://x.sh | sh; rm -rf build; ls",
        &Limits::default(),
    );
    let json = serde_json::to_string(&classes(&analysis)).expect("serializable");
    assert_eq!(json, r#"["read","network","install","destructive"]"#);
}
