//! Why a policy directory could not give a decision. Every variant denies (fail closed) and has
//! a stable reason id (`policy.*`) for audit records and tests; messages name the file and line
//! where regorus reports one.

use super::lint::LintFinding;
use std::path::PathBuf;

/// A policy directory that cannot produce a trustworthy decision.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    #[error("policy directory {} does not exist", dir.display())]
    DirMissing { dir: PathBuf },

    #[error("policy directory {} is unreadable: {source}", dir.display())]
    DirUnreadable {
        dir: PathBuf,
        source: std::io::Error,
    },

    #[error("policy file {} is unreadable: {source}", file.display())]
    FileUnreadable {
        file: PathBuf,
        source: std::io::Error,
    },

    #[error("policy file {} is {kind}; policy files must be regular files", file.display())]
    NotRegular { file: PathBuf, kind: &'static str },

    #[error("policy {} is larger than the limit of {limit} bytes", file.display())]
    TooLarge { file: PathBuf, limit: u64 },

    #[error("policy file name {} is not UTF-8; rename it", file.display())]
    NameNotUtf8 { file: PathBuf },

    #[error("policy directory {} holds {count} policy files; the limit is {limit} (merge modules)", dir.display())]
    TooManyFiles {
        dir: PathBuf,
        count: usize,
        limit: usize,
    },

    #[error("policy directory {} kept changing ({what}; read {attempts} times); deploy a complete new directory and swap a symlink to it", dir.display())]
    Unstable {
        dir: PathBuf,
        attempts: usize,
        what: String,
    },

    #[error("policy directory {} holds no *.rego module", dir.display())]
    DirEmpty { dir: PathBuf },

    #[error("policy does not parse: {location}: {message}")]
    Parse { location: String, message: String },

    #[error("policy module {} declares package {package}; enforcement modules must be `package honey`", file.display())]
    Package { file: PathBuf, package: String },

    #[error("policy data {} is invalid: {message}", file.display())]
    DataInvalid { file: PathBuf, message: String },

    #[error("policy does not compile: {location}: {message}")]
    Compile { location: String, message: String },

    #[error("policy recursion: {location}: {message}")]
    Recursion { location: String, message: String },

    #[error("policy result data.honey.allow is undefined: {message}")]
    Undefined { message: String },

    #[error("policy result data.honey.{entry} is ill-typed: {message}")]
    IllTyped {
        entry: &'static str,
        message: String,
    },

    #[error("policy cannot be compiled for the policy VM (guarded-sh enforces only through it): {message}")]
    Unsupported { message: String },

    #[error("policy rules conflict: {location}: {message}")]
    Conflict { location: String, message: String },

    /// What the load-time lint (`lint`) found; never empty, the first finding first.
    #[error("policy refused at load: {}", lint_summary(findings))]
    Lint { findings: Vec<LintFinding> },

    #[error("policy evaluation failed: {location}: {message}")]
    Eval { location: String, message: String },

    #[error("policy exceeded its instruction budget of {limit}")]
    Budget { limit: usize },

    #[error("policy evaluation timed out after {limit_ms} ms")]
    Timeout { limit_ms: u128 },
}

impl PolicyError {
    /// The stable identifier of this failure, e.g. `policy.dir_missing`.
    pub fn reason_id(&self) -> &'static str {
        match self {
            Self::DirMissing { .. } => "policy.dir_missing",
            Self::DirUnreadable { .. } => "policy.dir_unreadable",
            Self::FileUnreadable { .. } => "policy.file_unreadable",
            Self::NotRegular { .. } => "policy.not_regular",
            Self::TooLarge { .. } => "policy.too_large",
            Self::NameNotUtf8 { .. } => "policy.file_name",
            Self::TooManyFiles { .. } => "policy.too_many_files",
            Self::Unstable { .. } => "policy.unstable",
            Self::DirEmpty { .. } => "policy.dir_empty",
            Self::Parse { .. } => "policy.parse",
            Self::Package { .. } => "policy.package",
            Self::DataInvalid { .. } => "policy.data_invalid",
            Self::Compile { .. } => "policy.compile",
            Self::Recursion { .. } => "policy.recursion",
            Self::Undefined { .. } => "policy.undefined",
            Self::IllTyped { .. } => "policy.ill_typed",
            Self::Unsupported { .. } => "policy.unsupported",
            Self::Conflict { .. } => "policy.conflict",
            Self::Lint { findings } => findings.first().map_or("policy.conflict", |f| f.reason_id),
            Self::Eval { .. } => "policy.eval_error",
            Self::Budget { .. } => "policy.budget",
            Self::Timeout { .. } => "policy.timeout",
        }
    }

    /// Every reason id, in declaration order (for the exhaustive test).
    #[cfg(test)]
    pub const REASON_IDS: [&'static str; 21] = [
        "policy.dir_missing",
        "policy.dir_unreadable",
        "policy.file_unreadable",
        "policy.not_regular",
        "policy.too_large",
        "policy.too_many_files",
        "policy.unstable",
        "policy.dir_empty",
        "policy.parse",
        "policy.package",
        "policy.data_invalid",
        "policy.compile",
        "policy.recursion",
        "policy.undefined",
        "policy.ill_typed",
        "policy.unsupported",
        "policy.conflict",
        "policy.duplicate_default",
        "policy.eval_error",
        "policy.budget",
        "policy.timeout",
    ];
}

/// The first finding (`FILE:LINE: message`), and how many more there are.
fn lint_summary(findings: &[LintFinding]) -> String {
    let Some(first) = findings.first() else {
        return String::new();
    };
    let more = match findings.len() {
        1 => String::new(),
        n => format!(" (and {} more)", n - 1),
    };
    format!("{}: {}{more}", first.location, first.message)
}

impl PolicyError {
    /// Where the problem is, `FILE:LINE` (a column regorus gives is dropped) or the file or
    /// directory alone, and what it is without that place: one line of `--validate`.
    pub fn located(&self) -> (Option<String>, String) {
        let whole = self.to_string();
        let place = match self {
            Self::Parse { location, .. }
            | Self::Compile { location, .. }
            | Self::Recursion { location, .. }
            | Self::Conflict { location, .. }
            | Self::Eval { location, .. } => Some(location.clone()),
            Self::Lint { findings } => findings.first().map(|f| f.location.clone()),
            Self::DirMissing { dir }
            | Self::DirUnreadable { dir, .. }
            | Self::TooManyFiles { dir, .. }
            | Self::Unstable { dir, .. }
            | Self::DirEmpty { dir } => Some(dir.display().to_string()),
            Self::FileUnreadable { file, .. }
            | Self::NotRegular { file, .. }
            | Self::TooLarge { file, .. }
            | Self::NameNotUtf8 { file }
            | Self::Package { file, .. }
            | Self::DataInvalid { file, .. } => Some(file.display().to_string()),
            Self::Undefined { .. }
            | Self::IllTyped { .. }
            | Self::Unsupported { .. }
            | Self::Budget { .. }
            | Self::Timeout { .. } => None,
        };
        let place = place.filter(|p| !p.is_empty());
        let message = match &place {
            Some(p) => whole.replacen(&format!("{p}: "), "", 1),
            None => whole,
        };
        (place.map(|p| without_column(&p)), message)
    }
}

/// `file:line:col` → `file:line`; anything else unchanged.
pub(crate) fn without_column(location: &str) -> String {
    let mut parts = location.rsplitn(3, ':');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(col), Some(line), Some(file))
            if !col.is_empty()
                && col.bytes().all(|b| b.is_ascii_digit())
                && !line.is_empty()
                && line.bytes().all(|b| b.is_ascii_digit()) =>
        {
            format!("{file}:{line}")
        }
        _ => location.to_string(),
    }
}

/// Split a regorus diagnostic ("\n--> file:line:col\n  |\n...\nerror: message") into
/// `(location, message)`. Messages without a `-->` marker keep `location` empty.
pub(crate) fn split_diagnostic(text: &str) -> (String, String) {
    let location = text
        .lines()
        .find_map(|line| line.trim_start().strip_prefix("--> "))
        .map(|loc| loc.trim().to_string())
        .unwrap_or_default();
    let message = text
        .lines()
        .find_map(|line| line.trim_start().strip_prefix("error: "))
        .map(|msg| msg.trim().to_string())
        .unwrap_or_else(|| text.trim().lines().last().unwrap_or("").trim().to_string());
    (location, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_regorus_diagnostics() {
        let cases = [
            (
                "\n--> b.rego:5:1\n  |\n5 | }\n  | ^\nerror: expecting expression",
                "b.rego:5:1",
                "expecting expression",
            ),
            ("plain failure", "", "plain failure"),
            (
                "\n--> e.rego:3:1\n  |\n3 | x\n  | ^\nerror: rule conflicts with rule at d.rego:3:1",
                "e.rego:3:1",
                "rule conflicts with rule at d.rego:3:1",
            ),
        ];
        for (text, location, message) in cases {
            assert_eq!(
                split_diagnostic(text),
                (location.to_string(), message.to_string())
            );
        }
    }

    #[test]
    fn reason_ids_are_unique_and_namespaced() {
        let mut ids = PolicyError::REASON_IDS.to_vec();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), PolicyError::REASON_IDS.len());
        assert!(ids.iter().all(|id| id.starts_with("policy.")));
    }
}
