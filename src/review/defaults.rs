//! Per-user review defaults: `review.toml` in the user's configuration directory
//! (`$XDG_CONFIG_HOME/guarded-sh`, else `~/.config/guarded-sh`) gives `--check` and
//! `--check-file` a default policy directory, target, environment and host variables. Only the
//! review surface reads it; enforcement takes its configuration from root-owned files alone.

use crate::config::{line_col, ConfigError};
use crate::invocation::Review;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::io::{ErrorKind, Read};
use std::path::{Path, PathBuf};

/// Largest defaults file read, in bytes.
const MAX_BYTES: u64 = 64 << 10;

/// What `review.toml` may set; every key is optional, anything else is an error.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Defaults {
    pub policy_dir: Option<PathBuf>,
    pub target: Option<String>,
    pub env: Option<String>,
    pub host_vars: BTreeMap<String, String>,
}

/// `review.toml`'s path for this user, if a home directory is known.
pub fn path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "guarded-sh")
        .map(|dirs| dirs.config_dir().join("review.toml"))
}

/// Reads the defaults at `path`. A missing file gives none, and so does one this user cannot
/// reach (a `HOME` that is another user's, as under `setpriv` or `sudo -u`).
pub fn load(path: &Path) -> Result<Defaults, ConfigError> {
    let read_error = |source| ConfigError::Read {
        path: path.into(),
        source,
    };
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e)
            if matches!(
                e.kind(),
                ErrorKind::NotFound | ErrorKind::PermissionDenied | ErrorKind::NotADirectory
            ) =>
        {
            return Ok(Defaults::default())
        }
        Err(e) => return Err(read_error(e)),
    };
    let invalid = |message: String| ConfigError::Invalid {
        path: path.into(),
        message,
    };
    if !file.metadata().map_err(read_error)?.is_file() {
        return Err(invalid("not a regular file".into()));
    }
    let mut bytes = Vec::new();
    file.take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(read_error)?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(invalid(format!("larger than {MAX_BYTES} bytes")));
    }
    let text = String::from_utf8(bytes).map_err(|_| invalid("not valid UTF-8".into()))?;
    let defaults: Defaults = toml::from_str(&text).map_err(|e| {
        let (line, column) = e.span().map_or((0, 0), |s| line_col(&text, s.start));
        ConfigError::Malformed {
            path: path.into(),
            line,
            column,
            message: e.message().to_string(),
        }
    })?;
    if let Some(dir) = defaults.policy_dir.as_ref().filter(|d| !d.is_absolute()) {
        return Err(invalid(format!(
            "policy_dir must be an absolute path, got {}",
            dir.display()
        )));
    }
    Ok(defaults)
}

/// `review` with the defaults filled in where the command line left a value out: the options
/// win, `--host-var` over a host variable of the same name. The policy directory is
/// `--policy-dir`, else `env_policy_dir` (`HONEY_POLICY_DIR`, which the review surface always
/// honours: it runs nothing), else the file's `policy_dir`; a directory chosen here is the
/// reviewer's own (no trust check, no cache). With none, enforcement's configured directory
/// decides.
pub fn apply(review: &Review, defaults: &Defaults, env_policy_dir: Option<PathBuf>) -> Review {
    let mut host_vars: Vec<(String, String)> = defaults
        .host_vars
        .iter()
        .filter(|(k, _)| !review.host_vars.iter().any(|(given, _)| given == *k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    host_vars.extend(review.host_vars.iter().cloned());
    Review {
        policy_dir: review
            .policy_dir
            .clone()
            .or(env_policy_dir)
            .or_else(|| defaults.policy_dir.clone()),
        target: review.target.clone().or_else(|| defaults.target.clone()),
        env: review.env.clone().or_else(|| defaults.env.clone()),
        host_vars,
        ..review.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_win_over_defaults() {
        let defaults = Defaults {
            policy_dir: Some("/srv/p".into()),
            target: Some("stage-1".into()),
            env: Some("staging".into()),
            host_vars: [("a", "1"), ("b", "2")]
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        };
        let given = Review {
            env: Some("prod".into()),
            host_vars: vec![("b".into(), "3".into())],
            ..Review::default()
        };
        let env = Some(PathBuf::from("/env/p"));
        let expected = |policy_dir: &str| Review {
            policy_dir: Some(policy_dir.into()),
            target: Some("stage-1".into()),
            env: Some("prod".into()),
            host_vars: vec![("a".into(), "1".into()), ("b".into(), "3".into())],
            ..Review::default()
        };
        let with_option = Review {
            policy_dir: Some("/cli/p".into()),
            ..given.clone()
        };
        // --policy-dir > HONEY_POLICY_DIR > review.toml
        let table: &[(&Review, Option<PathBuf>, Review)] = &[
            (&given, None, expected("/srv/p")),
            (&given, env.clone(), expected("/env/p")),
            (&with_option, env.clone(), expected("/cli/p")),
            (&with_option, None, expected("/cli/p")),
        ];
        for (review, env_dir, expected) in table {
            assert_eq!(&apply(review, &defaults, env_dir.clone()), expected);
        }
        assert_eq!(apply(&given, &Defaults::default(), None), given);
    }

    #[test]
    fn strict_and_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("review.toml");
        assert_eq!(load(&file).unwrap(), Defaults::default());
        let table: &[(&str, &str)] = &[
            (
                "target = \"a\"\npolcy_dir = \"/x\"\n",
                ":2:1: unknown field `polcy_dir`",
            ),
            ("target = 3\n", ":1:10: invalid type"),
            (
                "policy_dir = \"rel\"\n",
                "policy_dir must be an absolute path",
            ),
            ("[host_vars]\nk = 1\n", ":2:5: invalid type"),
        ];
        for (text, expected) in table {
            std::fs::write(&file, text).unwrap();
            let e = load(&file).unwrap_err().to_string();
            assert!(e.starts_with(&file.display().to_string()), "{e}");
            assert!(e.contains(expected), "{text:?}: {e}");
        }
        std::fs::write(&file, "#".repeat(MAX_BYTES as usize + 1)).unwrap();
        assert!(load(&file).unwrap_err().to_string().contains("larger than"));
        std::fs::write(&file, "env = \"prod\"\n[host_vars]\nregion = \"eu\"\n").unwrap();
        let d = load(&file).unwrap();
        assert_eq!((d.env.as_deref(), d.host_vars.len()), (Some("prod"), 1));
    }
}
