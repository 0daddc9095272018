//! What an Ansible task does, said as the shell command lines that would do the same: the
//! command modules' own command, and for the state-changing modules the equivalent command
//! (`file state=absent` is `rm -rf -- PATH`, `filesystem` is `mkfs.TYPE DEV`, a cron job is
//! its job's code). The gate analyses those lines like any other, so a task raises the same
//! signal IDs and severities as the shell command it stands for.

use super::ansiballz::Task;
use serde_json::{Map, Value};

/// The shell lines a task stands for, or `None` for a module this build does not know.
pub fn equivalent(task: &Task) -> Option<Vec<String>> {
    let module = task.known_name()?;
    let args = &task.args;
    let lines = match module {
        "command" | "shell" | "raw" | "script" => command(args).into_iter().collect(),
        "expect" => text(args, "command").into_iter().collect(),
        "file" => file(args),
        "copy" | "template" => write(args, "dest", "content", false),
        "lineinfile" | "blockinfile" => {
            let body = if module == "lineinfile" {
                "line"
            } else {
                "block"
            };
            write(args, "path", body, true)
        }
        "user" => account(args, "user"),
        "group" => account(args, "group"),
        "service" | "systemd" | "systemd_service" | "sysvinit" => service(args),
        "apt" | "dnf" | "yum" | "package" => packages(args),
        "cron" => cron(args),
        "authorized_key" => authorized_key(args),
        "mount" => mount(args),
        "filesystem" => filesystem(args),
        "parted" => parted(args),
        "iptables" => iptables(args),
        "reboot" => vec!["reboot".into()],
        "ping"
        | "setup"
        | "gather_facts"
        | "stat"
        | "package_facts"
        | "service_facts"
        | "wait_for_connection"
        | "getent" => Vec::new(),
        "slurp" | "fetch" => text(args, "src")
            .map(|p| format!("cat -- {}", q(&p)))
            .into_iter()
            .collect(),
        "find" => Vec::new(),
        _ => return None,
    };
    Some(lines)
}

/// A string argument (numbers and booleans as written).
fn text(args: &Map<String, Value>, key: &str) -> Option<String> {
    match args.get(key)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn is(args: &Map<String, Value>, key: &str, values: &[&str]) -> bool {
    text(args, key).is_some_and(|v| values.contains(&v.as_str()))
}

fn yes(args: &Map<String, Value>, key: &str) -> bool {
    is(args, key, &["true", "yes", "True", "1"])
}

/// A list argument (a list, or a comma-separated string).
fn list(args: &Map<String, Value>, key: &str) -> Vec<String> {
    match args.get(key) {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        Some(Value::String(s)) => s
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

/// Shell quoting (`shlex.quote`).
fn q(s: &str) -> String {
    crate::ir::shell_quote(s)
}

/// `command`/`shell`/`raw`: `_raw_params` or `cmd` as written, or `argv` quoted; `chdir` as a
/// `cd` before it.
fn command(args: &Map<String, Value>) -> Option<String> {
    let argv = list(args, "argv");
    let line = text(args, "_raw_params")
        .or_else(|| text(args, "cmd"))
        .or_else(|| {
            (!argv.is_empty()).then(|| argv.iter().map(|a| q(a)).collect::<Vec<_>>().join(" "))
        })?;
    Some(match text(args, "chdir") {
        Some(dir) => format!("cd -- {} && {line}", q(&dir)),
        None => line,
    })
}

fn path(args: &Map<String, Value>) -> Option<String> {
    text(args, "path")
        .or_else(|| text(args, "dest"))
        .or_else(|| text(args, "name"))
}

/// Mode, owner and group of a file module.
fn attributes(args: &Map<String, Value>, target: &str) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(mode) = text(args, "mode") {
        lines.push(format!("chmod {} {target}", q(&mode)));
    }
    if let Some(owner) = text(args, "owner") {
        lines.push(format!("chown {} {target}", q(&owner)));
    }
    if let Some(group) = text(args, "group") {
        lines.push(format!("chgrp {} {target}", q(&group)));
    }
    lines
}

fn file(args: &Map<String, Value>) -> Vec<String> {
    let Some(p) = path(args) else {
        return Vec::new();
    };
    let target = format!("-- {}", q(&p));
    let mut lines = match text(args, "state").as_deref() {
        Some("absent") => return vec![format!("rm -rf {target}")],
        Some("directory") => vec![format!("mkdir -p {target}")],
        Some("touch") => vec![format!("touch {target}")],
        Some("link" | "hard") => {
            let flag = if is(args, "state", &["hard"]) {
                "-f"
            } else {
                "-sfn"
            };
            let src = text(args, "src").unwrap_or_default();
            vec![format!("ln {flag} -- {} {}", q(&src), q(&p))]
        }
        _ => Vec::new(),
    };
    lines.extend(attributes(args, &target));
    lines
}

/// A write of `body` (or of the file the module was sent) to the file at `dest_key`.
fn write(args: &Map<String, Value>, dest_key: &str, body_key: &str, append: bool) -> Vec<String> {
    let Some(dest) = text(args, dest_key).or_else(|| text(args, "dest")) else {
        return Vec::new();
    };
    if is(args, "state", &["absent"]) {
        return vec![format!("sed -i -e d -- {}", q(&dest))];
    }
    let op = if append { ">>" } else { ">" };
    let mut lines = vec![match (text(args, body_key), text(args, "src")) {
        (Some(body), _) => format!("printf '%s\\n' {} {op} {}", q(&body), q(&dest)),
        (None, Some(src)) => format!("cp -- {} {}", q(&src), q(&dest)),
        (None, None) => format!("touch -- {}", q(&dest)),
    }];
    lines.extend(attributes(args, &format!("-- {}", q(&dest))));
    if let Some(body) = text(args, body_key) {
        lines.extend(code_written(&dest, &body));
    }
    lines
}

/// The code a write puts where something runs it later: a shell rc or profile file runs as
/// written; a crontab line runs its command (after the five schedule fields, and the user field
/// in the system crontabs).
fn code_written(dest: &str, body: &str) -> Vec<String> {
    let name = dest.rsplit('/').next().unwrap_or(dest);
    let rc = matches!(
        name,
        ".bashrc"
            | ".bash_profile"
            | ".bash_login"
            | ".profile"
            | ".zshrc"
            | ".zprofile"
            | "bash.bashrc"
            | "profile"
            | "rc.local"
            | "environment"
    ) || dest.starts_with("/etc/profile.d/");
    let system_cron = dest == "/etc/crontab" || dest.starts_with("/etc/cron.d/");
    let cron = system_cron || dest.starts_with("/var/spool/cron/");
    let lines = body
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'));
    if rc {
        return lines.map(str::to_string).collect();
    }
    if !cron {
        return Vec::new();
    }
    let fields = if system_cron { 6 } else { 5 };
    lines
        // `NAME=value` lines set the job's environment; `@reboot cmd` has one schedule word.
        .filter(|l| !l.split_whitespace().next().is_some_and(|w| w.contains('=')))
        .filter_map(|l| {
            let skip = if l.starts_with('@') {
                fields - 4
            } else {
                fields
            };
            let words: Vec<&str> = l.splitn(skip + 1, char::is_whitespace).collect();
            words.get(skip).map(|c| c.trim().to_string())
        })
        .collect()
}

fn account(args: &Map<String, Value>, kind: &str) -> Vec<String> {
    let Some(name) = text(args, "name") else {
        return Vec::new();
    };
    let name = q(&name);
    if is(args, "state", &["absent"]) {
        let remove = if kind == "user" && yes(args, "remove") {
            " -r"
        } else {
            ""
        };
        return vec![format!("{kind}del{remove} {name}")];
    }
    let groups = list(args, "groups");
    let mut lines = vec![format!("{kind}add {name}")];
    if kind == "user" && !groups.is_empty() {
        lines.push(format!("usermod -aG {} {name}", q(&groups.join(","))));
    }
    lines
}

fn service(args: &Map<String, Value>) -> Vec<String> {
    let Some(name) = text(args, "name") else {
        return vec!["systemctl daemon-reload".into()];
    };
    let name = q(&name);
    let mut lines = Vec::new();
    let verb = match text(args, "state").as_deref() {
        Some("stopped") => Some("stop"),
        Some("restarted") => Some("restart"),
        Some("reloaded") => Some("reload"),
        Some("started") => Some("start"),
        _ => None,
    };
    if let Some(verb) = verb {
        lines.push(format!("systemctl {verb} {name}"));
    }
    match args.get("enabled") {
        Some(Value::Bool(false)) => lines.push(format!("systemctl disable {name}")),
        Some(Value::Bool(true)) => lines.push(format!("systemctl enable {name}")),
        _ => {}
    }
    if let Some(Value::Bool(true)) = args.get("masked") {
        lines.push(format!("systemctl mask {name}"));
    }
    lines
}

fn packages(args: &Map<String, Value>) -> Vec<String> {
    let names: Vec<String> = list(args, "name").iter().map(|n| q(n)).collect();
    let mut lines = Vec::new();
    if yes(args, "update_cache") {
        lines.push("apt-get update".to_string());
    }
    if names.is_empty() {
        return lines;
    }
    let verb = match text(args, "state").as_deref() {
        Some("absent" | "removed") if yes(args, "purge") => "purge",
        Some("absent" | "removed") => "remove",
        _ => "install",
    };
    lines.push(format!("apt-get {verb} -y {}", names.join(" ")));
    lines
}

/// A cron entry: installing it, and the job's own code (it runs later, ungated).
fn cron(args: &Map<String, Value>) -> Vec<String> {
    if is(args, "state", &["absent"]) {
        return Vec::new();
    }
    let Some(job) = text(args, "job") else {
        return Vec::new();
    };
    vec![
        format!(
            "printf '%s\\n' {} | crontab -",
            q(&format!("* * * * * {job}"))
        ),
        job,
    ]
}

fn authorized_key(args: &Map<String, Value>) -> Vec<String> {
    let user = text(args, "user").unwrap_or_default();
    let key = text(args, "key").unwrap_or_default();
    let file = match text(args, "path") {
        Some(p) => p,
        None if user == "root" => "/root/.ssh/authorized_keys".into(),
        None => format!("/home/{user}/.ssh/authorized_keys"),
    };
    if is(args, "state", &["absent"]) {
        return vec![format!("sed -i -e d -- {}", q(&file))];
    }
    vec![format!("printf '%s\\n' {} >> {}", q(&key), q(&file))]
}

fn mount(args: &Map<String, Value>) -> Vec<String> {
    let Some(at) = text(args, "path").or_else(|| text(args, "name")) else {
        return Vec::new();
    };
    match text(args, "state").as_deref() {
        Some("absent" | "unmounted") => vec![format!("umount -- {}", q(&at))],
        _ => {
            let src = text(args, "src").unwrap_or_default();
            let fstype = text(args, "fstype").unwrap_or_else(|| "auto".into());
            vec![format!("mount -t {} {} {}", q(&fstype), q(&src), q(&at))]
        }
    }
}

fn filesystem(args: &Map<String, Value>) -> Vec<String> {
    let Some(dev) = text(args, "dev") else {
        return Vec::new();
    };
    let fstype = text(args, "fstype").unwrap_or_else(|| "ext4".into());
    if is(args, "state", &["absent"]) {
        return vec![format!("wipefs -a {}", q(&dev))];
    }
    vec![format!("mkfs.{} {}", q(&fstype), q(&dev))]
}

fn parted(args: &Map<String, Value>) -> Vec<String> {
    let Some(dev) = text(args, "device") else {
        return Vec::new();
    };
    let number = text(args, "number").unwrap_or_else(|| "1".into());
    let action = if is(args, "state", &["absent"]) {
        format!("rm {}", q(&number))
    } else if is(args, "state", &["info"]) {
        "print".to_string()
    } else {
        "mkpart primary 0% 100%".to_string()
    };
    vec![format!("parted -s {} {action}", q(&dev))]
}

fn iptables(args: &Map<String, Value>) -> Vec<String> {
    let chain = text(args, "chain").unwrap_or_else(|| "INPUT".into());
    if yes(args, "flush") {
        return vec![format!("iptables -F {}", q(&chain))];
    }
    if let Some(policy) = text(args, "policy") {
        return vec![format!("iptables -P {} {}", q(&chain), q(&policy))];
    }
    let jump = text(args, "jump").unwrap_or_else(|| "ACCEPT".into());
    let op = if is(args, "state", &["absent"]) {
        "-D"
    } else {
        "-A"
    };
    vec![format!("iptables {op} {} -j {}", q(&chain), q(&jump))]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(fqn: &str, args: serde_json::Value) -> Task {
        Task {
            fqn: fqn.into(),
            args: args.as_object().cloned().unwrap_or_default(),
        }
    }

    /// Content written where something runs it later is analysed as the code it becomes.
    #[test]
    fn written_code() {
        let cases: [(&str, &str, &[&str]); 6] = [
            (
                "/home/u/.bashrc",
                "export X=1\ncurl -s http://127.0.0.1:9/x | sh",
                &["export X=1", "curl -s http://127.0.0.1:9/x | sh"],
            ),
            (
                "/etc/cron.d/job",
                "SHELL=/bin/sh\n# c\n*/5 * * * * root /usr/local/bin/backup --all",
                &["/usr/local/bin/backup --all"],
            ),
            (
                "/var/spool/cron/crontabs/u",
                "0 3 * * * rm -rf /",
                &["rm -rf /"],
            ),
            ("/etc/crontab", "@reboot root /opt/start", &["/opt/start"]),
            (
                "/etc/profile.d/x.sh",
                "alias ll='ls -l'",
                &["alias ll='ls -l'"],
            ),
            ("/home/u/notes.txt", "rm -rf /", &[]),
        ];
        for (dest, body, want) in cases {
            assert_eq!(code_written(dest, body), want, "{dest}");
        }
    }

    /// Modules that live in collections (not in the ansible-core the end-to-end tests install,
    /// so no real wrapper of them can be built here): the table by name.
    #[test]
    fn collection_modules() {
        let cases: [(&str, serde_json::Value, Option<&[&str]>); 6] = [
            (
                "ansible_collections.ansible.posix.plugins.modules.authorized_key",
                serde_json::json!({"user": "root", "key": "ssh-ed25519 AAAA x"}),
                Some(&["printf '%s\\n' 'ssh-ed25519 AAAA x' >> /root/.ssh/authorized_keys"]),
            ),
            (
                "ansible_collections.community.general.plugins.modules.filesystem",
                serde_json::json!({"dev": "/dev/sdz", "fstype": "xfs"}),
                Some(&["mkfs.xfs /dev/sdz"]),
            ),
            (
                "ansible_collections.community.general.plugins.modules.parted",
                serde_json::json!({"device": "/dev/sdz", "number": 2, "state": "absent"}),
                Some(&["parted -s /dev/sdz rm 2"]),
            ),
            (
                "ansible_collections.ansible.posix.plugins.modules.mount",
                serde_json::json!({"path": "/mnt", "src": "/dev/sdz", "fstype": "ext4", "state": "mounted"}),
                Some(&["mount -t ext4 /dev/sdz /mnt"]),
            ),
            (
                "ansible_collections.ansible.posix.plugins.modules.mount",
                serde_json::json!({"path": "/mnt", "state": "absent"}),
                Some(&["umount -- /mnt"]),
            ),
            (
                "ansible_collections.acme.tools.plugins.modules.filesystem",
                serde_json::json!({"dev": "/dev/sdz"}),
                None,
            ),
        ];
        for (fqn, args, want) in cases {
            let got = equivalent(&task(fqn, args));
            assert_eq!(
                got.as_deref(),
                want.map(|w| w.iter().map(|s| s.to_string()).collect::<Vec<_>>())
                    .as_deref(),
                "{fqn}"
            );
        }
    }
}
