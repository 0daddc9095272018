//! Platform and cloud operations of the reference catalogue: Kubernetes, Helm, Docker, AWS and
//! gcloud deletes and mutations. Subcommands are matched by position, not anywhere in argv.

use super::{Family, Severity, Signal, Spec};
use crate::ir::{Analysis, Command};

/// The family of every entry declared below.
const FAMILY: Family = Family::Platform;

spec!(
    KUBECTL_DELETE,
    "KUBECTL_DELETE",
    High,
    "kubectl delete",
    "`kubectl delete …` (the subcommand, not an argument that happens to read `delete`)."
);
spec!(
    KUBECTL_MUTATE,
    "KUBECTL_DELETE",
    High,
    "kubectl mutating operation",
    "`kubectl scale`, `drain` or `cordon`."
);
spec!(
    KUBECTL_APPLY_REMOTE,
    "KUBECTL_APPLY_REMOTE",
    High,
    "kubectl apply from a remote URL",
    "`kubectl apply|create -f http(s)://…`: manifests fetched at run time."
);
spec!(
    HELM_UNINSTALL,
    "HELM_UNINSTALL",
    High,
    "helm uninstall",
    "`helm uninstall` or `helm delete`."
);
spec!(
    DOCKER_RM_FORCE,
    "DOCKER_RM_FORCE",
    High,
    "docker force-remove",
    "`docker rm -f`/`--force`, `docker rmi -f`."
);
spec!(
    DOCKER_SYSTEM_PRUNE,
    "DOCKER_SYSTEM_PRUNE",
    High,
    "docker prune",
    "`docker system|image|volume|container|network|builder prune`."
);
spec!(
    AWS_S3_RM_RECURSIVE,
    "AWS_S3_RM_RECURSIVE",
    High,
    "aws s3 recursive delete",
    "`aws s3 rm --recursive`, `aws s3 rb --force`."
);
spec!(
    AWS_EC2_TERMINATE,
    "AWS_EC2_TERMINATE",
    High,
    "aws ec2 terminate",
    "`aws ec2 terminate-instances`."
);
spec!(
    GCLOUD_DELETE,
    "GCLOUD_DELETE",
    High,
    "gcloud destructive delete",
    "`gcloud … delete`."
);

pub static SPECS: &[&Spec] = &[
    &KUBECTL_DELETE,
    &KUBECTL_MUTATE,
    &KUBECTL_APPLY_REMOTE,
    &HELM_UNINSTALL,
    &DOCKER_RM_FORCE,
    &DOCKER_SYSTEM_PRUNE,
    &AWS_S3_RM_RECURSIVE,
    &AWS_EC2_TERMINATE,
    &GCLOUD_DELETE,
];

/// Global options that take a value in the next word (`kubectl --context prod delete …`).
const VALUE_OPTIONS: &[&str] = &[
    "-n",
    "--namespace",
    "--context",
    "--kubeconfig",
    "--cluster",
    "--user",
    "-s",
    "--server",
    "--as",
    "--as-group",
    "--token",
    "--kube-context",
    "-H",
    "--host",
    "--config",
    "--log-level",
    "--profile",
    "--region",
    "--endpoint-url",
    "--output",
    "--project",
    "--account",
    "--configuration",
    "--zone",
    "-c",
    "-l",
    "--selector",
];

/// The first three subcommand words: non-option words, skipping the values of known options.
fn subcommands(cmd: &Command) -> Vec<&str> {
    let mut out = Vec::new();
    let mut values = cmd.args.iter().map(|w| w.value());
    while let Some(v) = values.next() {
        match v {
            Some(v) if VALUE_OPTIONS.contains(&v) => {
                values.next();
            }
            Some(v) if !v.starts_with('-') => out.push(v),
            _ => {}
        }
        if out.len() == 3 {
            break;
        }
    }
    out
}

pub fn detect(a: &Analysis, out: &mut Vec<Signal>) {
    for (i, cmd) in a.commands.iter().enumerate() {
        let Some(base) = cmd.base() else { continue };
        let args: Vec<String> = cmd.args.iter().map(|w| w.shown.clone()).collect();
        let sub = subcommands(cmd);
        let first = sub.first().copied().unwrap_or_default();
        match base {
            "kubectl" | "oc" => {
                if first == "delete" {
                    out.push(KUBECTL_DELETE.on(i, cmd, args));
                } else if matches!(first, "apply" | "create" | "replace")
                    && cmd.arg_values().any(|v| {
                        v.starts_with("http://")
                            || v.starts_with("https://")
                            || v.starts_with("-f=http")
                            || v.starts_with("--filename=http")
                    })
                {
                    out.push(KUBECTL_APPLY_REMOTE.on(i, cmd, args));
                } else if matches!(first, "scale" | "drain" | "cordon") {
                    out.push(KUBECTL_MUTATE.on(i, cmd, args));
                }
            }
            "helm" if matches!(first, "uninstall" | "delete" | "del" | "un") => {
                out.push(HELM_UNINSTALL.on(i, cmd, args))
            }
            "docker" | "podman" | "nerdctl" => {
                let force = cmd.has_any_arg(&["-f", "--force"]) || cmd.short_flags().contains('f');
                if matches!(first, "rm" | "rmi") && force
                    || (first == "container" || first == "image")
                        && sub.get(1) == Some(&"rm")
                        && force
                {
                    out.push(DOCKER_RM_FORCE.on(i, cmd, args));
                } else if sub.contains(&"prune") {
                    out.push(DOCKER_SYSTEM_PRUNE.on(i, cmd, args));
                }
            }
            "aws" => {
                if first == "s3"
                    && (sub.get(1) == Some(&"rm") && cmd.has_arg("--recursive")
                        || sub.get(1) == Some(&"rb") && cmd.has_arg("--force"))
                {
                    out.push(AWS_S3_RM_RECURSIVE.on(i, cmd, args));
                } else if first == "ec2" && sub.get(1) == Some(&"terminate-instances") {
                    out.push(AWS_EC2_TERMINATE.on(i, cmd, args));
                }
            }
            "gcloud"
                if cmd
                    .arg_values()
                    .take_while(|v| !v.starts_with("--"))
                    .any(|v| v == "delete") =>
            {
                out.push(GCLOUD_DELETE.on(i, cmd, args))
            }
            _ => {}
        }
    }
}
