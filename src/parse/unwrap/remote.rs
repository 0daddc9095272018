//! Remote and container execs: `ssh host CMD…` and `gcloud compute ssh HOST -- CMD` (a shell
//! string on the remote side), `aws ssm send-command … commands=…` (shell code on every
//! instance), `docker`/`podman`/`nerdctl exec` and `kubectl`/`oc exec -- …` (an argv in the
//! container), and a container or node debug pod that mounts the host's root (`docker run -v
//! /:/host … CMD`, `kubectl debug node/x -- CMD`): its argv with the mount's paths read as the
//! host's (`/host/etc` is `/etc`).

use super::{joined, script, skip_options, Inner};
use crate::ir::{Via, Word};
use crate::programs::tools;

pub(super) fn ssh(args: &[Word]) -> Vec<Inner> {
    const VALUES: &str = "BbcDEeFIiJLlmOoPpQRSWw";
    let at = skip_options(args, VALUES, &[]);
    // OpenSSH reads options after the destination too (`ssh host -t -- CMD`).
    let after = args.get(at + 1..).unwrap_or_default();
    let rest = after
        .get(skip_options(after, VALUES, &[])..)
        .unwrap_or_default();
    if rest.is_empty() {
        return Vec::new();
    }
    let mut inner = joined(Via::Remote("ssh".into()), rest, false);
    if let Inner::Script { via, .. } = &mut inner {
        *via = Via::Remote("ssh".into());
    }
    vec![inner]
}

pub(super) fn container(base: &str, args: &[Word]) -> Vec<Inner> {
    // The subcommand after the tool's global options (`docker -H tcp://h run …`).
    let sub_at = tools::tool(base).and_then(|tool| {
        let values: Vec<Option<&str>> = args.iter().map(Word::value).collect();
        let sub = tools::subcommand(tool, &values).into_iter().next()??;
        args.iter().position(|w| w.value() == Some(sub))
    });
    let Some(at) = sub_at else {
        return Vec::new();
    };
    let rest = args.get(at + 1..).unwrap_or_default();
    match args[at].value() {
        Some("exec") => {
            let skip = skip_options(
                rest,
                "euw",
                &[
                    "--env",
                    "--env-file",
                    "--user",
                    "--workdir",
                    "--detach-keys",
                ],
            );
            let words = rest.get(skip + 1..).unwrap_or_default().to_vec();
            if words.is_empty() {
                return Vec::new();
            }
            vec![Inner::Argv {
                via: Via::Remote(format!("{base} exec")),
                words,
                extra_args: false,
            }]
        }
        Some("run") => container_run(base, rest),
        Some("container") if rest.first().and_then(Word::value) == Some("run") => {
            container_run(base, &rest[1..])
        }
        _ => Vec::new(),
    }
}

/// `docker run [opts] IMAGE CMD…` with a host directory of the system mounted (`-v /:/host`,
/// `--mount type=bind,source=/,target=/host`) or `--privileged` (the host's devices): the
/// command acts on the host, so its argv is analysed with each mount's paths as the host's.
fn container_run(base: &str, rest: &[Word]) -> Vec<Inner> {
    let mut mounts: Vec<(String, String)> = Vec::new();
    let mut privileged = false;
    let mut entrypoint: Option<String> = None;
    let mut i = 0;
    while let Some(v) = rest.get(i).and_then(Word::value) {
        if !v.starts_with('-') || v == "-" {
            break;
        }
        if v == "--" {
            i += 1;
            break;
        }
        let (name, inline) = match v.split_once('=') {
            Some((n, value)) if n.starts_with("--") => (n, Some(value.to_string())),
            // `-v/:/h`, `-eX=1`: a short value option with its value attached.
            _ if v.len() > 2 && !v.starts_with("--") && RUN_SHORT_VALUES.contains(&v[1..2]) => {
                (&v[..2], Some(v[2..].to_string()))
            }
            _ => (v, None),
        };
        privileged |= name == "--privileged";
        let entrypoint_option = name == "--entrypoint";
        let takes = RUN_VALUE_OPTIONS.contains(&name)
            || name.len() > 2
                && !name.starts_with("--")
                && RUN_SHORT_VALUES.contains(name.chars().last().unwrap_or(' '));
        let value = match (takes, inline) {
            (_, Some(value)) => Some(value),
            (true, None) => {
                i += 1;
                rest.get(i).and_then(Word::value).map(str::to_string)
            }
            (false, None) => None,
        };
        if let Some(value) = value {
            if entrypoint_option {
                entrypoint = Some(value.clone());
            }
            if matches!(name, "-v" | "--volume") {
                let mut parts = value.split(':');
                if let (Some(src), Some(dst)) = (parts.next(), parts.next()) {
                    mounts.push((src.to_string(), dst.to_string()));
                }
            } else if name == "--mount" {
                let field = |keys: &[&str]| {
                    value.split(',').find_map(|kv| {
                        let (k, v) = kv.split_once('=')?;
                        keys.contains(&k).then(|| v.to_string())
                    })
                };
                if let (Some(src), Some(dst)) = (
                    field(&["source", "src"]),
                    field(&["target", "destination", "dst"]),
                ) {
                    mounts.push((src, dst));
                }
            }
        }
        i += 1;
    }
    let host_system = |src: &str| {
        let src = src.trim_end_matches('/');
        src.is_empty()
            || HOST_SYSTEM_DIRS
                .iter()
                .any(|d| src == *d || src.starts_with(&format!("{d}/")))
    };
    mounts.retain(|(src, _)| host_system(src));
    if mounts.is_empty() && !privileged {
        return Vec::new();
    }
    // The image, then the command (after the entrypoint, when one is given).
    let words: Vec<Word> = entrypoint
        .iter()
        .map(|e| Word::literal(e))
        .chain(rest.get(i + 1..).unwrap_or_default().iter().cloned())
        .map(|w| as_host_path(&w, &mounts))
        .collect();
    if words.is_empty() {
        return Vec::new();
    }
    vec![Inner::Argv {
        via: Via::Remote(format!("{base} run")),
        words,
        extra_args: false,
    }]
}

/// Options of `docker run` that take a value in the next word.
const RUN_VALUE_OPTIONS: &[&str] = &[
    "-v",
    "--volume",
    "-e",
    "--env",
    "--env-file",
    "--name",
    "-p",
    "--publish",
    "-w",
    "--workdir",
    "-u",
    "--user",
    "--network",
    "--net",
    "--mount",
    "--entrypoint",
    "-l",
    "--label",
    "--label-file",
    "--device",
    "--cap-add",
    "--cap-drop",
    "-h",
    "--hostname",
    "--platform",
    "--pull",
    "--restart",
    "-m",
    "--memory",
    "--cpus",
    "--add-host",
    "--dns",
    "--log-driver",
    "--log-opt",
    "--ulimit",
    "--pid",
    "--ipc",
    "--security-opt",
    "--tmpfs",
    "--runtime",
    "--gpus",
    "--shm-size",
    "--stop-signal",
    "-a",
    "--attach",
    "--cidfile",
    "--group-add",
    "--expose",
    "--link",
    "--volumes-from",
    "--userns",
    "--uts",
    "--cgroupns",
    "--health-cmd",
    "--cpu-shares",
    "-c",
    "--memory-swap",
    "--stop-timeout",
    "--ip",
];

/// Short options of `docker run` that take a value, for clusters (`-itv /:/h`).
const RUN_SHORT_VALUES: &str = "vepwuhlmac";

/// Host directories whose mount into a container hands the container the system.
const HOST_SYSTEM_DIRS: &[&str] = &[
    "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib64", "/proc", "/root", "/run", "/sbin",
    "/sys", "/usr", "/var",
];

/// A word of the container's command with a mounted path read as the host's.
fn as_host_path(word: &Word, mounts: &[(String, String)]) -> Word {
    let Some(value) = word.value() else {
        return word.clone();
    };
    for (src, dst) in mounts {
        let dst = dst.trim_end_matches('/');
        if dst.is_empty() {
            continue;
        }
        // Inside a word too: `of=/host/dev/sda`, `/host/etc/passwd`.
        if let Some(at) = value.find(dst) {
            let after = &value[at + dst.len()..];
            if after.is_empty() || after.starts_with('/') {
                let src = src.trim_end_matches('/');
                let host = format!("{}{}{}", &value[..at], src, after);
                let host = if host.is_empty() {
                    "/".to_string()
                } else {
                    host
                };
                return Word::literal(&host);
            }
        }
    }
    word.clone()
}

pub(super) fn kubectl(base: &str, args: &[Word]) -> Vec<Inner> {
    let values: Vec<Option<&str>> = args.iter().map(Word::value).collect();
    let sub = tools::tool(base).and_then(|tool| {
        tools::subcommand(tool, &values)
            .into_iter()
            .next()
            .flatten()
    });
    let Some(dash) = args.iter().position(|w| w.value() == Some("--")) else {
        return Vec::new();
    };
    let words = args[dash + 1..].to_vec();
    if words.is_empty() {
        return Vec::new();
    }
    let words = match sub {
        Some("exec") => words,
        // `kubectl debug node/NAME … -- CMD`: the node's root is mounted at /host.
        Some("debug")
            if args
                .iter()
                .any(|w| w.value().is_some_and(|v| v.starts_with("node/"))) =>
        {
            let mounts = [("/".to_string(), "/host".to_string())];
            words.iter().map(|w| as_host_path(w, &mounts)).collect()
        }
        _ => return Vec::new(),
    };
    vec![Inner::Argv {
        via: Via::Remote(format!("{base} {}", sub.unwrap_or_default())),
        words,
        extra_args: false,
    }]
}

/// `gcloud compute ssh HOST [opts] -- CMD…`: a shell string on the instance.
pub(super) fn gcloud(args: &[Word]) -> Vec<Inner> {
    let words: Vec<Option<&str>> = args.iter().take(2).map(Word::value).collect();
    let ssh = words == [Some("compute"), Some("ssh")]
        || args
            .windows(2)
            .any(|p| p[0].value() == Some("compute") && p[1].value() == Some("ssh"));
    if !ssh {
        return Vec::new();
    }
    let via = || Via::Remote("gcloud compute ssh".into());
    // `--command CMD`, `--command=CMD`, or everything after `--`.
    for (k, w) in args.iter().enumerate() {
        match w.value() {
            Some("--command") => {
                if let Some(code) = args.get(k + 1) {
                    return vec![script(via(), code, None, false)];
                }
            }
            Some(v) if v.starts_with("--command=") => {
                let code = Word::literal(&v["--command=".len()..]);
                return vec![script(via(), &code, None, false)];
            }
            Some("--") if k + 1 < args.len() => return vec![joined(via(), &args[k + 1..], false)],
            _ => {}
        }
    }
    Vec::new()
}

/// `az vm run-command invoke … --scripts CMD…`: shell code run on the VM.
pub(super) fn az(args: &[Word]) -> Vec<Inner> {
    let Some(at) = args.iter().position(|w| w.value() == Some("--scripts")) else {
        return Vec::new();
    };
    let scripts: Vec<Word> = args[at + 1..]
        .iter()
        .take_while(|w| !w.value().is_some_and(|v| v.starts_with("--")))
        .cloned()
        .collect();
    if !args.iter().any(|w| w.value() == Some("run-command")) || scripts.is_empty() {
        return Vec::new();
    }
    vec![joined(
        Via::Remote("az vm run-command".into()),
        &scripts,
        false,
    )]
}

/// `aws ssm send-command --parameters commands=…` (a JSON list, `commands=["a","b"]`, or one
/// string): shell code run on every instance targeted.
pub(super) fn aws(args: &[Word]) -> Vec<Inner> {
    if !args
        .windows(2)
        .any(|p| p[0].value() == Some("ssm") && p[1].value() == Some("send-command"))
    {
        return Vec::new();
    }
    let mut out = Vec::new();
    for pair in args.windows(2) {
        let parameters = match (pair[0].value(), pair[1].value()) {
            (Some("--parameters"), Some(v)) => v.to_string(),
            (Some(v), _) if v.starts_with("--parameters=") => {
                v["--parameters=".len()..].to_string()
            }
            _ => continue,
        };
        let Some(body) = parameters.strip_prefix("commands=") else {
            continue;
        };
        let commands: Vec<String> = match serde_json::from_str::<Vec<String>>(body) {
            Ok(list) => list,
            Err(_) => vec![body.trim_matches(['"', '\'']).to_string()],
        };
        let code = Word::literal(&commands.join("\n"));
        out.push(script(
            Via::Remote("aws ssm send-command".into()),
            &code,
            None,
            false,
        ));
    }
    out
}
