//! ShellCheck findings for the review surface (`--shellcheck`): `shellcheck -f json -s bash -`
//! on the command text when the binary is on the caller's `PATH`, bounded in time; reported in
//! the reference's lines (`ShellCheck: not installed (skipped)` | `no warnings` | findings).

use crate::context::Context;
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(10);

/// One ShellCheck finding.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
pub struct Finding {
    pub code: u32,
    pub level: String,
    pub line: u32,
    pub message: String,
}

/// What ShellCheck said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Report {
    NotInstalled,
    Failed(String),
    Findings(Vec<Finding>),
}

impl Report {
    /// The reference's lines; `indent` prefixes each.
    pub fn lines(&self, indent: &str) -> Vec<String> {
        match self {
            Report::NotInstalled => vec![format!("{indent}ShellCheck: not installed (skipped)")],
            Report::Failed(e) => vec![format!("{indent}ShellCheck: failed ({e})")],
            Report::Findings(f) if f.is_empty() => vec![format!("{indent}ShellCheck: no warnings")],
            Report::Findings(f) => std::iter::once(format!("{indent}ShellCheck:"))
                .chain(f.iter().map(|f| {
                    format!(
                        "{indent}  - SC{} ({}) line {}: {}",
                        f.code, f.level, f.line, f.message
                    )
                }))
                .collect(),
        }
    }

    pub fn json(&self) -> serde_json::Value {
        match self {
            Report::NotInstalled => serde_json::json!({"skipped": "not installed"}),
            Report::Failed(e) => serde_json::json!({"failed": e}),
            Report::Findings(f) => serde_json::json!({"findings": f}),
        }
    }
}

/// Runs ShellCheck on `text`, found on the `PATH` of the captured environment.
pub fn check(ctx: &Context, text: &str) -> Report {
    let path = ctx
        .var("PATH")
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    match find(&path) {
        None => Report::NotInstalled,
        Some(bin) => run(&bin, text).map_or_else(Report::Failed, Report::Findings),
    }
}

fn find(path: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    path.split(':')
        .filter(|d| !d.is_empty())
        .map(|d| Path::new(d).join("shellcheck"))
        .find(|p| {
            p.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

fn run(bin: &Path, text: &str) -> Result<Vec<Finding>, String> {
    let mut child = Command::new(bin)
        .args(["-f", "json", "-s", "bash", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let input = text.as_bytes().to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let mut stdout = child.stdout.take().ok_or("no stdout")?;
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = stdout.by_ref().take(4 << 20).read_to_end(&mut out);
        out
    });
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() > TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("timed out after {} s", TIMEOUT.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(e.to_string()),
        }
    }
    let _ = writer.join();
    let out = reader.join().map_err(|_| "reader failed".to_string())?;
    parse(&String::from_utf8_lossy(&out))
}

/// `shellcheck -f json` output: an array of `{line, level, code, message, …}`.
pub fn parse(json: &str) -> Result<Vec<Finding>, String> {
    serde_json::from_str::<Vec<Finding>>(json.trim()).map_err(|e| format!("unexpected output: {e}"))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn lines_table() {
        let f = Finding {
            code: 2086,
            level: "info".into(),
            line: 1,
            message: "Double quote to prevent globbing and word splitting.".into(),
        };
        assert_eq!(
            Report::NotInstalled.lines(""),
            ["ShellCheck: not installed (skipped)"]
        );
        assert_eq!(
            Report::Findings(vec![]).lines(""),
            ["ShellCheck: no warnings"]
        );
        assert_eq!(
            Report::Findings(vec![f]).lines("  "),
            [
                "  ShellCheck:",
                "    - SC2086 (info) line 1: Double quote to prevent globbing and word splitting."
            ]
        );
    }

    #[test]
    fn parses_shellcheck_json() {
        let json = r#"[{"file":"-","line":1,"endLine":1,"column":6,"endColumn":8,"level":"info","code":2086,"message":"m","fix":null}]"#;
        assert_eq!(parse(json).unwrap()[0].code, 2086);
        assert!(parse("oops").is_err());
    }
}
