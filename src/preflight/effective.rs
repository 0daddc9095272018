//! `--print-config`'s view: the configuration enforcement runs with (every key, set or not),
//! each value with its source (`default`, or `FILE:LINE` of the file that sets it), the file's
//! own origin (`--config`, `environment` for `GUARDED_SH_CONFIG`, the default path), and the
//! policy directory the gate would use (`environment` for `HONEY_POLICY_DIR` where honoured)
//! with its digest; rendered as annotated TOML or as JSON.

use super::provenance::Lines;
use super::{place, FileOrigin};
use crate::config::{Config, Located};
use crate::context::Context;
use crate::policy::enforcement::{dir_with_origin, DirOrigin};
use serde_json::{json, Value};
use std::fmt::Write as _;

/// One configuration value and where it came from.
struct Setting {
    section: String,
    key: String,
    /// `Null` for an option that is unset.
    value: Value,
    /// `default` or `FILE:LINE`.
    source: String,
}

/// Everything `--print-config` shows.
pub(crate) struct Effective {
    file: String,
    file_source: &'static str,
    file_variable: Option<&'static str>,
    file_exists: bool,
    settings: Vec<Setting>,
    policy_dir: Option<String>,
    policy_source: String,
    policy_variable: Option<&'static str>,
    digest: Result<String, String>,
    notes: Vec<String>,
}

impl Effective {
    pub(crate) fn new(
        ctx: &Context,
        config: &Config,
        located: &Located,
        origin: FileOrigin,
        lines: &Lines,
    ) -> Self {
        let file = located.path.as_path();
        let source_of = |key: &str| match lines.line(key) {
            Some(line) => place(file, Some(line)),
            None => "default".to_string(),
        };
        let mut settings = Vec::new();
        if let Ok(Value::Object(sections)) = serde_json::to_value(config) {
            for (section, keys) in sections {
                let Value::Object(keys) = keys else {
                    continue;
                };
                for (key, value) in keys {
                    let source = source_of(&format!("{section}.{key}"));
                    settings.push(Setting {
                        section: section.clone(),
                        key,
                        value,
                        source,
                    });
                }
            }
        }
        let (file_source, file_variable) = match origin {
            FileOrigin::CommandLine => ("command line (--config)", None),
            FileOrigin::Environment => ("environment", Some(crate::config::PATH_VARIABLE)),
            FileOrigin::DefaultPath => ("default", None),
        };
        let mut notes = Vec::new();
        let (policy_dir, policy_source, policy_variable, digest) =
            match dir_with_origin(ctx, config, false, None) {
                Some((dir, how)) => {
                    let (source, variable) = match how {
                        DirOrigin::Environment => ("environment".to_string(), Some(ENV_DIR)),
                        DirOrigin::Config => (source_of("policy.dir"), None),
                        DirOrigin::Default | DirOrigin::Review => ("default".to_string(), None),
                    };
                    let digest = crate::policy::directory::digest_of(&dir).map_err(|e| {
                        format!("{} [{}]", e, e.reason_id())
                    });
                    (Some(dir.display().to_string()), source, variable, digest)
                }
                None if !config.policy.enabled => (
                    None,
                    source_of("policy.enabled"),
                    None,
                    Err("policy.enabled = false: only the built-in critical patterns decide"
                        .to_string()),
                ),
                None => (
                    None,
                    "default".to_string(),
                    None,
                    Err(format!(
                        "{} does not exist and policy.dir is unset: only the built-in critical patterns decide",
                        crate::config::DEFAULT_POLICY_DIR
                    )),
                ),
            };
        if ctx.env_policy_dir().is_some() && policy_variable.is_none() {
            notes.push(format!(
                "{ENV_DIR} is set but enforcement does not honour it (policy.allow_env_dir = {}, policy.enabled = {}); the review surface does",
                config.policy.allow_env_dir, config.policy.enabled
            ));
        }
        if ctx.escape_requested() {
            notes.push(match config.escape.allow {
                true => "HONEY_RISK_DISABLE is set and honoured (escape.allow = true): commands run ungated, audited".to_string(),
                false => "HONEY_RISK_DISABLE is set but not honoured (escape.allow = false)".to_string(),
            });
        }
        Effective {
            file: file.display().to_string(),
            file_source,
            file_variable,
            file_exists: file.is_file(),
            settings,
            policy_dir,
            policy_source,
            policy_variable,
            digest,
            notes,
        }
    }

    /// Annotated TOML: a configuration file that loads to the same configuration, each value
    /// followed by `# SOURCE`, unset options as comments, the file and policy facts on top.
    pub(crate) fn toml(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# guarded-sh --print-config: the configuration enforcement runs with"
        );
        let absent = match self.file_exists {
            true => "",
            false => ", absent: every value is the built-in default",
        };
        let _ = writeln!(
            out,
            "# configuration file: {} (source: {}{}){absent}",
            self.file,
            self.file_source,
            variable(self.file_variable),
        );
        match &self.policy_dir {
            Some(dir) => {
                let _ = writeln!(
                    out,
                    "# policy directory: {dir} (source: {}{})",
                    self.policy_source,
                    variable(self.policy_variable)
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "# policy directory: none (source: {})",
                    self.policy_source
                );
            }
        }
        match &self.digest {
            Ok(digest) => {
                let _ = writeln!(out, "# policy digest: {digest}");
            }
            Err(why) => {
                let _ = writeln!(out, "# policy digest: none ({why})");
            }
        }
        for note in &self.notes {
            let _ = writeln!(out, "# note: {note}");
        }
        let mut section = "";
        for setting in &self.settings {
            if setting.section != section {
                section = &setting.section;
                let _ = writeln!(out, "\n[{section}]");
            }
            let assignment = match inline(&setting.value) {
                Some(value) => format!("{} = {value}", setting.key),
                None if setting.value.is_null() => format!("# {} unset", setting.key),
                None => format!(
                    "# {} = {} (not expressible in TOML)",
                    setting.key, setting.value
                ),
            };
            let _ = writeln!(out, "{assignment:<40} # {}", setting.source);
        }
        out
    }

    /// The same as JSON: `config_file`, `values` (section → key → `{value, source}`),
    /// `policy_dir` and `notes`.
    pub(crate) fn json(&self) -> String {
        let mut values = serde_json::Map::new();
        for setting in &self.settings {
            let section = values
                .entry(setting.section.clone())
                .or_insert_with(|| Value::Object(serde_json::Map::new()));
            if let Value::Object(keys) = section {
                keys.insert(
                    setting.key.clone(),
                    json!({"value": setting.value, "source": setting.source}),
                );
            }
        }
        let (digest, digest_error) = match &self.digest {
            Ok(d) => (Value::String(d.clone()), Value::Null),
            Err(why) => (Value::Null, Value::String(why.clone())),
        };
        let view = json!({
            "config_file": {
                "path": self.file,
                "exists": self.file_exists,
                "source": self.file_source,
                "variable": self.file_variable,
            },
            "values": values,
            "policy_dir": {
                "path": self.policy_dir,
                "source": self.policy_source,
                "variable": self.policy_variable,
                "digest": digest,
                "digest_error": digest_error,
            },
            "notes": self.notes,
        });
        let mut text = serde_json::to_string_pretty(&view).unwrap_or_default();
        text.push('\n');
        text
    }
}

/// The variable enforcement reads a policy directory from.
const ENV_DIR: &str = "HONEY_POLICY_DIR";

fn variable(name: Option<&str>) -> String {
    name.map(|n| format!(", {n}")).unwrap_or_default()
}

/// A value as inline TOML; `None` for an unset option (or a value TOML cannot hold).
fn inline(value: &Value) -> Option<String> {
    if value.is_null() {
        return None;
    }
    toml::Value::try_from(value).ok().map(|v| v.to_string())
}
