//! Operations of subcommand tools: the reference catalogue's Kubernetes, Helm, Docker, AWS and
//! gcloud deletes and mutations, and git history, infrastructure as code, cloud resources,
//! storage pools, virtual machines and accounts. Which subcommand raises which entry is data
//! (`programs::tools`); subcommands are found after the tool's global options, by position.

use super::{Family, Severity, Signal, Spec};
use crate::ir::Analysis;
use crate::programs::tools;

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

spec!(
    GIT_DESTRUCTIVE,
    "GIT_DESTRUCTIVE",
    High,
    Destructive,
    "rewrites git history or discards work",
    "`git push --force` (and `-f`, `--force-with-lease`, a `+refspec`, `--mirror`, `--delete`), `reset --hard`, `clean -f`, `branch -D`, `filter-branch`/`filter-repo`, `reflog expire --expire=now`, `gc --prune=now`, `checkout -f`/`checkout .`, `restore .`, `stash clear`/`drop`, `update-ref -d`, found after any global option (`git -C DIR`, `git -c k=v`). Dry runs (`-n`, `--dry-run`) are not flagged."
);
spec!(
    INFRA_DESTROY,
    "INFRA_DESTROY",
    High,
    Destructive,
    "destroys infrastructure",
    "`terraform`/`tofu`/`terragrunt destroy`, `apply -destroy`, `state rm`, `workspace delete`; `pulumi destroy`, `stack rm`; `cdk destroy`; `serverless remove`; `eksctl delete cluster|nodegroup`, after any global option (`-chdir=DIR`)."
);
spec!(
    INFRA_UNREVIEWED_APPLY,
    "INFRA_UNREVIEWED_APPLY",
    High,
    "applies infrastructure changes without review",
    "`terraform apply -auto-approve`, `pulumi up --yes`: the plan is not shown to anyone before it changes real infrastructure. Applying a saved, reviewed plan file (`terraform apply tfplan`) is not flagged."
);
spec!(
    CLOUD_RESOURCE_DELETE,
    "CLOUD_RESOURCE_DELETE",
    High,
    Destructive,
    "deletes cloud resources",
    "`aws SERVICE delete-*` (databases, clusters, tables, users, stacks, buckets), `gcloud storage rm --recursive`, `gsutil rm -r`/`rb`, `az … delete`, `doctl`/`hcloud` deletes. Dry runs are not flagged."
);
spec!(
    STORAGE_DESTROY,
    "STORAGE_DESTROY",
    High,
    Destructive,
    "destroys a storage pool, volume or snapshot",
    "`zfs destroy` (not `-n`), `zfs rollback -r`, `zpool destroy|labelclear`, `lvremove`/`vgremove`/`pvremove` (not `--test`), `mdadm --zero-superblock`, `btrfs subvolume delete`."
);
spec!(
    VM_DESTROY,
    "VM_DESTROY",
    High,
    Destructive,
    "destroys a virtual machine or container host",
    "`virsh destroy|undefine|vol-delete|pool-delete`, `lxc`/`incus`/`multipass delete`, `vagrant destroy`, Proxmox `qm`/`pct destroy`, `VBoxManage unregistervm --delete`."
);
spec!(
    CONTAINER_VOLUME_DELETE,
    "CONTAINER_VOLUME_DELETE",
    High,
    Destructive,
    "deletes a container volume and its data",
    "`docker volume rm` (and podman's, nerdctl's): the data in the volume goes with it."
);
spec!(
    ACCOUNT_DELETE,
    "ACCOUNT_DELETE",
    High,
    Destructive,
    "deletes a user account",
    "`userdel`, `deluser`: the account (and with `-r`/`--remove-home` its files) is gone."
);

spec!(
    DEVICE_ERASE,
    "DEVICE_ERASE",
    Critical,
    Destructive,
    "erases a disk or firmware",
    "`nvme format|sanitize`, `hdparm --security-erase` (and `--write-sector`, `--trim-sector-ranges`), `cryptsetup luksFormat|erase`, `badblocks -w`, `flashrom -w|-E`, `sg_format`: the disk's data or the firmware is gone. Reading runs (`hdparm -I`, `badblocks -n`, `flashrom -r`) are not flagged."
);

spec!(
    BACKUP_DELETE,
    "BACKUP_DELETE",
    High,
    Destructive,
    "deletes backups",
    "`restic forget|prune|key remove`, `borg delete|prune`, `rclone purge|delete|deletefile`, `velero … delete`, `velero uninstall`: the copies a restore would need. Dry runs (`-n`, `--dry-run`) are not flagged."
);
spec!(
    SERVICE_DATA_DELETE,
    "SERVICE_DATA_DELETE",
    High,
    Destructive,
    "deletes data or configuration a service holds",
    "Secrets, streams, topics, queues, vaults and repositories deleted through their service's command-line client: `vault secrets disable`, `vault kv destroy`, `nats stream rm|purge`, `kafka-topics --delete`, `rabbitmqctl reset|delete_vhost|purge_queue`, `op … delete`, `doppler … delete`, `gh|glab repo delete`, `gh release delete`."
);

pub static SPECS: &[&Spec] = &[
    &BACKUP_DELETE,
    &SERVICE_DATA_DELETE,
    &DEVICE_ERASE,
    &KUBECTL_DELETE,
    &KUBECTL_MUTATE,
    &KUBECTL_APPLY_REMOTE,
    &HELM_UNINSTALL,
    &DOCKER_RM_FORCE,
    &DOCKER_SYSTEM_PRUNE,
    &AWS_S3_RM_RECURSIVE,
    &AWS_EC2_TERMINATE,
    &GCLOUD_DELETE,
    &GIT_DESTRUCTIVE,
    &INFRA_DESTROY,
    &INFRA_UNREVIEWED_APPLY,
    &CLOUD_RESOURCE_DELETE,
    &STORAGE_DESTROY,
    &VM_DESTROY,
    &CONTAINER_VOLUME_DELETE,
    &ACCOUNT_DELETE,
];

/// The entry a `programs::tools` row names, by its name here (`KUBECTL_MUTATE`, whose ID is
/// `KUBECTL_DELETE`).
pub fn spec_named(name: &str) -> Option<&'static Spec> {
    Some(match name {
        "KUBECTL_DELETE" => &KUBECTL_DELETE,
        "KUBECTL_MUTATE" => &KUBECTL_MUTATE,
        "KUBECTL_APPLY_REMOTE" => &KUBECTL_APPLY_REMOTE,
        "HELM_UNINSTALL" => &HELM_UNINSTALL,
        "DOCKER_RM_FORCE" => &DOCKER_RM_FORCE,
        "DOCKER_SYSTEM_PRUNE" => &DOCKER_SYSTEM_PRUNE,
        "AWS_S3_RM_RECURSIVE" => &AWS_S3_RM_RECURSIVE,
        "AWS_EC2_TERMINATE" => &AWS_EC2_TERMINATE,
        "GCLOUD_DELETE" => &GCLOUD_DELETE,
        "GIT_DESTRUCTIVE" => &GIT_DESTRUCTIVE,
        "INFRA_DESTROY" => &INFRA_DESTROY,
        "INFRA_UNREVIEWED_APPLY" => &INFRA_UNREVIEWED_APPLY,
        "CLOUD_RESOURCE_DELETE" => &CLOUD_RESOURCE_DELETE,
        "STORAGE_DESTROY" => &STORAGE_DESTROY,
        "VM_DESTROY" => &VM_DESTROY,
        "CONTAINER_VOLUME_DELETE" => &CONTAINER_VOLUME_DELETE,
        "ACCOUNT_DELETE" => &ACCOUNT_DELETE,
        "DEVICE_ERASE" => &DEVICE_ERASE,
        "BACKUP_DELETE" => &BACKUP_DELETE,
        "SERVICE_DATA_DELETE" => &SERVICE_DATA_DELETE,
        _ => return None,
    })
}

pub fn detect(a: &Analysis, out: &mut Vec<Signal>) {
    for (i, cmd) in a.commands.iter().enumerate() {
        let Some(tool) = cmd.base().and_then(tools::tool) else {
            continue;
        };
        let Some(spec) =
            tools::matching_rule(tool, &cmd.arg_words()).and_then(|r| spec_named(r.signal))
        else {
            continue;
        };
        let args: Vec<String> = cmd.args.iter().map(|w| w.shown.clone()).collect();
        out.push(spec.on(i, cmd, args));
        // `git --work-tree=/ clean -fdx`, `git -C /etc checkout -f`: the work tree git
        // discards is a system directory.
        if std::ptr::eq(spec, &GIT_DESTRUCTIVE) {
            if let Some(tree) = git_work_tree(cmd).filter(|t| super::paths::is_system_path(t)) {
                out.push(super::destructive::DELETE_ROOT_PATH.on(i, cmd, vec![tree]));
            }
        }
    }
}

/// The work tree a git command acts on when given (`--work-tree DIR`, `--work-tree=DIR`,
/// `-C DIR`; the last one wins).
fn git_work_tree(cmd: &crate::ir::Command) -> Option<String> {
    let mut tree = None;
    let mut words = cmd.args.iter();
    while let Some(w) = words.next() {
        match w.value() {
            Some("--work-tree" | "-C") => {
                tree = words.next().and_then(|v| v.value()).map(str::to_string)
            }
            Some(v) if v.starts_with("--work-tree=") => {
                tree = Some(v["--work-tree=".len()..].to_string())
            }
            _ => {}
        }
    }
    tree
}
