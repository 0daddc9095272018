//! Configuration: one root-owned TOML file (`/etc/guarded-sh/config.toml`) naming the real
//! shells, the policy directory, bounds, audit sinks, the target context and the escape policy.
//! Which file is read ([`locate`]: `GUARDED_SH_CONFIG` for root only), reading it bounded and
//! trust-checked ([`load`]), strict defaults when the default file is missing (no escape, no
//! `HONEY_POLICY_DIR`); a malformed file is an error that names the line.

use crate::parse::Limits;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::io::Read;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

pub const DEFAULT_PATH: &str = "/etc/guarded-sh/config.toml";
pub const DEFAULT_POLICY_DIR: &str = "/etc/guarded-sh/policies";
/// The variable naming another configuration file (honoured for root only).
pub const PATH_VARIABLE: &str = "GUARDED_SH_CONFIG";
/// Largest configuration file read, in bytes.
pub const MAX_BYTES: u64 = 1024 * 1024;

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Default)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    pub shells: Shells,
    pub policy: PolicyConfig,
    pub escape: EscapeConfig,
    pub limits: Limits,
    pub audit: AuditConfig,
    pub target: TargetConfig,
    pub interactive: InteractiveConfig,
    /// `[approval]`: held commands (used by `approval`).
    pub approval: ApprovalConfig,
    /// `[advisory]`: the review surface's advisory model (owned by `advisory`).
    pub advisory: crate::advisory::AdvisoryConfig,
    /// `[supervise]`: exec supervision (used by `supervise`).
    pub supervise: SuperviseConfig,
    /// The file this configuration was read from, or would be (the default path when it is
    /// missing): what a message that says "set … in FILE" names. Not a setting.
    #[serde(skip)]
    pub file: PathBuf,
}

impl Config {
    /// The file to name in a message about a setting: the one in use.
    pub fn file_in_use(&self) -> &Path {
        if self.file.as_os_str().is_empty() {
            Path::new(DEFAULT_PATH)
        } else {
            &self.file
        }
    }
}

/// `[approval]` in the configuration.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(default, deny_unknown_fields)]
pub struct ApprovalConfig {
    /// The Unix group whose members may approve others' requests. Unset: no second-person
    /// approvals (held commands are denied unless confirmed on a terminal).
    pub group: Option<String>,
    /// How long a request can be approved, and an approval used, in seconds.
    pub ttl_seconds: u64,
    /// Holds `requests/` and `approved/` (see the module documentation for their modes).
    pub dir: PathBuf,
    /// A confirmation typed on the requester's own terminal (the host name) approves. Set to
    /// false when only a second person may approve.
    pub tty_confirm: bool,
    /// How long the terminal confirmation waits for an answer, in seconds.
    pub prompt_timeout_seconds: u64,
}

impl Default for ApprovalConfig {
    fn default() -> Self {
        ApprovalConfig {
            group: None,
            ttl_seconds: 900,
            dir: "/var/lib/guarded-sh/approvals".into(),
            tty_confirm: true,
            prompt_timeout_seconds: 60,
        }
    }
}

/// Absolute paths of the real shells, by the name guarded-sh was called as.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Shells {
    pub default: PathBuf,
    pub sh: PathBuf,
    pub bash: PathBuf,
    pub dash: PathBuf,
    /// Pass `--norc --noprofile` to bash for `-c` and scripts, so no rc file runs behind the gate.
    pub no_rc: bool,
}

impl Default for Shells {
    fn default() -> Self {
        Shells {
            default: "/bin/bash".into(),
            sh: "/bin/dash".into(),
            bash: "/bin/bash".into(),
            dash: "/bin/dash".into(),
            no_rc: true,
        }
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct PolicyConfig {
    /// `false`: no policy at all, only the built-in floor decides (the environment and the
    /// default directory are ignored too).
    pub enabled: bool,
    /// The policy directory. Unset: `/etc/guarded-sh/policies` if it exists, else none.
    pub dir: Option<PathBuf>,
    /// Honour `HONEY_POLICY_DIR` from the trusted initial environment for enforcement. Off
    /// unless the configuration says so (the review surface always honours it).
    pub allow_env_dir: bool,
    /// Where the compiled policy is cached (must not be writable by gated users).
    pub cache_dir: Option<PathBuf>,
}

impl Default for PolicyConfig {
    fn default() -> Self {
        PolicyConfig {
            enabled: true,
            dir: None,
            allow_env_dir: false,
            cache_dir: Some("/var/cache/guarded-sh".into()),
        }
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Default)]
#[serde(default, deny_unknown_fields)]
pub struct EscapeConfig {
    /// Honour `HONEY_RISK_DISABLE` from the trusted initial environment (always audited). Off
    /// unless the configuration says so.
    pub allow: bool,
}

/// `[audit]` in the configuration: where each decision's record goes (`audit` writes it). A
/// decision that no sink recorded is denied whatever `required` says; `required = true` denies
/// when any configured sink did not take it. Read from [`AuditSection`], which also accepts the
/// old `syslog = true|false` (an alias of `system_log = "auto"|"off"`; giving both is an error).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(try_from = "AuditSection")]
pub struct AuditConfig {
    /// The system sink: journald's native protocol, the syslog socket, either one that exists
    /// (`auto`), or none (`off`).
    pub system_log: SystemLog,
    /// journald's native socket, used when it exists as a socket (`journald`, `auto`).
    pub journald_socket: PathBuf,
    /// The syslog socket (facility authpriv); `auto` uses it when journald's does not exist.
    pub syslog_socket: PathBuf,
    /// Also append each record as one JSON line to this file: a regular file, not a link, in a
    /// directory the gated users cannot write (`audit::file` has the trust rule).
    pub file: Option<PathBuf>,
    /// Deny when any configured sink could not record the decision (each failure is reported
    /// on stderr either way).
    pub required: bool,
    /// Longest raw command kept in a record, in bytes.
    pub max_command_bytes: usize,
}

/// `[audit] system_log`: which system sink records the decisions.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SystemLog {
    /// journald when its socket exists, else syslog when its socket exists, else none.
    Auto,
    Journald,
    Syslog,
    Off,
}

impl Default for AuditConfig {
    fn default() -> Self {
        AuditConfig {
            system_log: SystemLog::Auto,
            journald_socket: "/run/systemd/journal/socket".into(),
            syslog_socket: "/dev/log".into(),
            file: None,
            required: false,
            max_command_bytes: 4096,
        }
    }
}

/// `[audit]` as written: [`AuditConfig`]'s keys, `system_log` optional, plus the old `syslog`.
#[derive(Deserialize)]
#[serde(default, deny_unknown_fields)]
struct AuditSection {
    system_log: Option<SystemLog>,
    syslog: Option<bool>,
    journald_socket: PathBuf,
    syslog_socket: PathBuf,
    file: Option<PathBuf>,
    required: bool,
    max_command_bytes: usize,
}

impl Default for AuditSection {
    fn default() -> Self {
        let d = AuditConfig::default();
        AuditSection {
            system_log: None,
            syslog: None,
            journald_socket: d.journald_socket,
            syslog_socket: d.syslog_socket,
            file: d.file,
            required: d.required,
            max_command_bytes: d.max_command_bytes,
        }
    }
}

impl TryFrom<AuditSection> for AuditConfig {
    type Error = String;

    fn try_from(s: AuditSection) -> Result<Self, String> {
        let system_log = match (s.system_log, s.syslog) {
            (Some(_), Some(_)) => {
                return Err("[audit] gives both system_log and syslog (its old alias: \
                     syslog = true is system_log = \"auto\", false is \"off\"); keep system_log"
                    .into())
            }
            (Some(chosen), None) => chosen,
            (None, Some(true)) | (None, None) => SystemLog::Auto,
            (None, Some(false)) => SystemLog::Off,
        };
        Ok(AuditConfig {
            system_log,
            journald_socket: s.journald_socket,
            syslog_socket: s.syslog_socket,
            file: s.file,
            required: s.required,
            max_command_bytes: s.max_command_bytes,
        })
    }
}

/// The policy's `target`: this host as the policy sees it.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Default)]
#[serde(default, deny_unknown_fields)]
pub struct TargetConfig {
    /// Defaults to the host name.
    pub name: Option<String>,
    pub env: String,
    /// Defaults to `ssh` under sshd, else `local`.
    pub provider: Option<String>,
    pub host_vars: BTreeMap<String, serde_json::Value>,
    /// A JSON object file merged over `host_vars`.
    pub host_vars_file: Option<PathBuf>,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct InteractiveConfig {
    /// The root-owned rc file that installs the session hook.
    pub hook: PathBuf,
    /// The shell for interactive sessions.
    pub shell: PathBuf,
    /// Largest script accepted on stdin, in bytes.
    pub max_stdin_bytes: usize,
}

impl Default for InteractiveConfig {
    fn default() -> Self {
        InteractiveConfig {
            hook: "/usr/local/lib/guarded-sh/interactive.bash".into(),
            shell: "/bin/bash".into(),
            max_stdin_bytes: 128 * 1024,
        }
    }
}

/// `[supervise] mode`.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SuperviseMode {
    /// The real shell is exec'd; what it starts is not seen (the default).
    #[default]
    Off,
    /// Every exec is judged and recorded; none is refused.
    Audit,
    /// Every exec is judged and recorded; what the gate does not allow fails with `EACCES`.
    Enforce,
}

impl SuperviseMode {
    pub fn as_str(self) -> &'static str {
        match self {
            SuperviseMode::Off => "off",
            SuperviseMode::Audit => "audit",
            SuperviseMode::Enforce => "enforce",
        }
    }
}

/// `[supervise]` in the configuration.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(default, deny_unknown_fields)]
pub struct SuperviseConfig {
    pub mode: SuperviseMode,
    /// Only these accounts (by name) are supervised; with `groups`, the members of either. Both
    /// empty: every account guarded-sh runs for.
    pub users: Vec<String>,
    pub groups: Vec<String>,
    /// Where the kernel lists the seccomp actions it offers (`user_notif` is needed).
    pub actions_file: PathBuf,
    /// Largest path, argv and environment read from one exec, in bytes (the kernel's own limit
    /// is about 2 MiB); a larger exec is refused in `enforce` mode.
    pub max_exec_bytes: usize,
}

impl SuperviseConfig {
    /// The mode that applies to the account `ctx` runs for: `Off` unless the setting is on and
    /// names the account, one of its groups, or nobody in particular.
    pub fn mode_for(&self, ctx: &crate::context::Context) -> SuperviseMode {
        let config = self;
        if config.mode == SuperviseMode::Off {
            return SuperviseMode::Off;
        }
        if config.users.is_empty() && config.groups.is_empty() {
            return config.mode;
        }
        if config.users.contains(&ctx.user) {
            return config.mode;
        }
        if config.groups.is_empty() {
            return SuperviseMode::Off;
        }
        let own = crate::trust::groups();
        let member = config.groups.iter().any(|name| {
            matches!(nix::unistd::Group::from_name(name), Ok(Some(g)) if own.contains(&g.gid.as_raw()))
        });
        if member {
            config.mode
        } else {
            SuperviseMode::Off
        }
    }

    /// Whether a command started now for `ctx` runs supervised: the setting applies and the kernel
    /// can do it (the policy input's `execution.supervised`).
    pub fn applies(&self, ctx: &crate::context::Context) -> bool {
        self.mode_for(ctx) != SuperviseMode::Off && self.kernel_supports().is_ok()
    }

    /// Whether the kernel offers seccomp user notification, by its own list of actions.
    pub fn kernel_supports(&self) -> Result<(), String> {
        let file = &self.actions_file;
        let mut text = String::new();
        let read = std::fs::File::open(file).and_then(|f| f.take(4096).read_to_string(&mut text));
        match read.map(|_| text) {
            Ok(text) if text.split_whitespace().any(|a| a == "user_notif") => Ok(()),
            Ok(_) => Err(format!(
                "the kernel does not offer seccomp user notification ({} has no user_notif)",
                file.display()
            )),
            Err(e) => Err(format!(
                "cannot tell whether the kernel offers seccomp user notification ({}: {e})",
                file.display()
            )),
        }
    }
}

impl Default for SuperviseConfig {
    fn default() -> Self {
        SuperviseConfig {
            mode: SuperviseMode::Off,
            users: Vec::new(),
            groups: Vec::new(),
            actions_file: "/proc/sys/kernel/seccomp/actions_avail".into(),
            max_exec_bytes: 4 * 1024 * 1024,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}:{line}:{column}: {message}")]
    Malformed {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error("{PATH_VARIABLE}={path} is honoured for root only (uid {uid}); unset it to use {DEFAULT_PATH}")]
    NamedNotRoot { path: PathBuf, uid: u32 },
    #[error("{path} (named by {PATH_VARIABLE}) does not exist; a named configuration is never replaced by the defaults")]
    Missing { path: PathBuf },
    #[error("{path} is not a regular file ({kind})")]
    NotRegular { path: PathBuf, kind: &'static str },
    #[error("{path} is larger than {MAX_BYTES} bytes")]
    TooLarge { path: PathBuf },
    #[error("{path} changed while it was checked")]
    Changed { path: PathBuf },
    #[error(transparent)]
    Untrusted(#[from] crate::trust::TrustError),
}

impl ConfigError {
    pub fn reason_id(&self) -> &'static str {
        match self {
            ConfigError::Read { .. } => "config.unreadable",
            ConfigError::Malformed { .. } => "config.malformed",
            ConfigError::Invalid { .. } => "config.invalid",
            ConfigError::NamedNotRoot { .. } => "config.named_not_root",
            ConfigError::Missing { .. } => "config.missing",
            ConfigError::NotRegular { .. } => "config.not_regular",
            ConfigError::TooLarge { .. } => "config.too_large",
            ConfigError::Changed { .. } => "config.changed",
            ConfigError::Untrusted(e) => e.reason_id(),
        }
    }
}

/// The configuration file to read and whether it must exist.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    pub path: PathBuf,
    /// Named by `GUARDED_SH_CONFIG`: a missing file is an error, never the defaults.
    pub required: bool,
}

/// Which configuration file a caller with `uid` gets, `named` being `GUARDED_SH_CONFIG` from the
/// initial environment. Honoured for root only: a user who can set it (`~/.ssh/environment`, an
/// ssh client's `SendEnv`) could name any root-owned file that parses (an empty one is the
/// defaults) in place of the operator's. Unset, empty or the default path: the default path.
pub fn locate(named: Option<&OsStr>, uid: u32) -> Result<Located, ConfigError> {
    let default = Located {
        path: DEFAULT_PATH.into(),
        required: false,
    };
    let Some(path) = named.filter(|v| !v.is_empty()).map(PathBuf::from) else {
        return Ok(default);
    };
    if path == Path::new(DEFAULT_PATH) {
        return Ok(default);
    }
    if uid != 0 {
        return Err(ConfigError::NamedNotRoot { path, uid });
    }
    Ok(Located {
        path,
        required: true,
    })
}

/// Loads the configuration at `located`: the strict defaults when the default file is missing.
/// For `uid` other than root (with groups `gids`) the file must pass the trust check.
pub fn load(located: &Located, uid: u32, gids: &[u32]) -> Result<Config, ConfigError> {
    let path = located.path.as_path();
    let Some(text) = read_trusted(path, uid, gids)? else {
        return match located.required {
            true => Err(ConfigError::Missing { path: path.into() }),
            false => Ok(Config {
                file: path.into(),
                ..Config::default()
            }),
        };
    };
    let mut config = parse(&text, path)?;
    validate(&config, path)?;
    config.file = path.into();
    Ok(config)
}

/// The text of `path`, read without blocking (a FIFO or a device is refused, not waited on), up
/// to [`MAX_BYTES`], after the trust check vouched for the very file that was opened. `None`
/// when it does not exist.
fn read_trusted(path: &Path, uid: u32, gids: &[u32]) -> Result<Option<String>, ConfigError> {
    let unreadable = |source| ConfigError::Read {
        path: path.into(),
        source,
    };
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NONBLOCK | nix::libc::O_CLOEXEC)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(unreadable(e)),
    };
    let opened = file.metadata().map_err(unreadable)?;
    if !opened.is_file() {
        return Err(ConfigError::NotRegular {
            path: path.into(),
            kind: crate::bounded_read::kind_name(&opened.file_type()),
        });
    }
    if opened.len() > MAX_BYTES {
        return Err(ConfigError::TooLarge { path: path.into() });
    }
    if uid != 0 {
        crate::trust::check(path, uid, gids)?;
        // The check walked the path: it must still lead to the file that is read.
        let checked = std::fs::metadata(path).map_err(unreadable)?;
        if (checked.dev(), checked.ino()) != (opened.dev(), opened.ino()) {
            return Err(ConfigError::Changed { path: path.into() });
        }
    }
    let mut bytes = Vec::new();
    file.take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(ConfigError::TooLarge { path: path.into() });
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|e| unreadable(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))
}

pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
    toml::from_str(text).map_err(|e| {
        let (line, column) = e.span().map(|s| line_col(text, s.start)).unwrap_or((0, 0));
        ConfigError::Malformed {
            path: path.into(),
            line,
            column,
            message: e.message().to_string(),
        }
    })
}

pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

impl Config {
    /// Every real-shell path of the configuration, with its key.
    pub fn shell_paths(&self) -> [(&'static str, &Path); 5] {
        [
            ("shells.default", &self.shells.default),
            ("shells.sh", &self.shells.sh),
            ("shells.bash", &self.shells.bash),
            ("shells.dash", &self.shells.dash),
            ("interactive.shell", &self.interactive.shell),
        ]
    }
}

fn validate(config: &Config, path: &Path) -> Result<(), ConfigError> {
    for (key, shell) in config.shell_paths() {
        if !shell.is_absolute() {
            return Err(ConfigError::Invalid {
                path: path.into(),
                message: format!("{key} must be an absolute path, got {}", shell.display()),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_names_the_line() {
        let err = parse(
            "[shells]\ndefault = \"/bin/bash\"\nsh = 3\n",
            Path::new("c.toml"),
        )
        .unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("c.toml:3:"), "{text}");
        let err = parse("[nope]\n", Path::new("c.toml")).unwrap_err();
        assert!(err.to_string().contains("c.toml:1:"), "{err}");
    }

    #[test]
    fn defaults_and_overrides() {
        let c = parse(
            "[limits]\nmax_bytes = 10\n[target]\nenv = \"prod\"\n",
            Path::new("c"),
        )
        .unwrap();
        assert_eq!(c.limits.max_bytes, 10);
        assert_eq!(c.limits.max_nesting, Limits::default().max_nesting);
        assert_eq!(c.target.env, "prod");
        assert_eq!(c.shells.sh, PathBuf::from("/bin/dash"));
    }

    #[test]
    fn strict_defaults_refuse_the_escape_and_the_environments_directory() {
        let c = Config::default();
        assert!(!c.escape.allow);
        assert!(!c.policy.allow_env_dir);
        let c = parse("[escape]\nallow = true\n", Path::new("c")).unwrap();
        assert!(c.escape.allow);
        assert!(!c.policy.allow_env_dir);
    }

    #[test]
    fn the_named_configuration_is_for_root_only() {
        let named = |v: &str, uid| locate(Some(OsStr::new(v)), uid);
        let default = Located {
            path: DEFAULT_PATH.into(),
            required: false,
        };
        assert_eq!(locate(None, 1000).unwrap(), default);
        assert_eq!(named("", 1000).unwrap(), default);
        assert_eq!(named(DEFAULT_PATH, 1000).unwrap(), default);
        assert_eq!(named(DEFAULT_PATH, 0).unwrap(), default);
        assert_eq!(
            named("/srv/c.toml", 0).unwrap(),
            Located {
                path: "/srv/c.toml".into(),
                required: true
            }
        );
        let err = named("/srv/c.toml", 1000).unwrap_err();
        assert_eq!(err.reason_id(), "config.named_not_root");
        assert!(err.to_string().contains("honoured for root only"), "{err}");
    }

    #[test]
    fn relative_shell_is_invalid() {
        let c = parse("[shells]\ndefault = \"bash\"\n", Path::new("c")).unwrap();
        assert!(validate(&c, Path::new("c")).is_err());
    }
}
