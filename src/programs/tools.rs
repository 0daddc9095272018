//! Subcommand tools as data: each tool's names, the global options that take a value before
//! its subcommand (`git -C DIR`, `kubectl -n NS`, `terraform -chdir=DIR`), and its risky
//! subcommands, one row each with the signal it raises and examples that must and must not
//! match (codex execpolicy's `prefix_rule` shape). The signal family (`signals::platform`)
//! and the command classes read this table; the examples are tests (`tests/integration/tools.rs`).

/// One subcommand tool.
pub struct Tool {
    /// Names it is run by (basename).
    pub names: &'static [&'static str],
    /// Options that take their value in the next word wherever they appear (before the
    /// subcommand, or between its words: `kubectl delete -n prod ns x`). `--opt=value` needs
    /// no entry.
    pub value_options: &'static [&'static str],
    /// Its risky subcommands, tried in order.
    pub rules: &'static [Rule],
}

/// One risky subcommand: `path` matched against the words after the global options, then the
/// option conditions.
pub struct Rule {
    /// Subcommand words in order; `*` matches any one word, `x*` any word starting with `x`.
    /// Empty for a tool that is its own subcommand (`dropdb`, `lvremove`).
    pub path: &'static [&'static str],
    /// At least one of these must be among the arguments (empty: none needed). `-x` is a
    /// short option (in any cluster), `--long` also matches `--long=v`, a trailing `*` matches
    /// any argument with that prefix (`+*` a forced refspec), other words match exactly.
    pub when_any: &'static [&'static str],
    /// None of these may be among the arguments (a dry run, a listing), same forms.
    pub unless_any: &'static [&'static str],
    /// The catalogue entry it raises, by its name in `signals::platform` (`KUBECTL_DELETE`).
    pub signal: &'static str,
    /// Command lines that raise the signal, and look-alikes that must not.
    pub matches: &'static [&'static str],
    pub not_matches: &'static [&'static str],
}

macro_rules! rule {
    ($signal:literal, [$($p:literal),*], when [$($w:literal),*], unless [$($u:literal),*],
     match [$($m:literal),* $(,)?], not [$($n:literal),* $(,)?]) => {
        Rule {
            path: &[$($p),*],
            when_any: &[$($w),*],
            unless_any: &[$($u),*],
            signal: $signal,
            matches: &[$($m),*],
            not_matches: &[$($n),*],
        }
    };
}

/// Every subcommand tool, looked up by name with [`tool`].
pub static TOOLS: &[Tool] = &[
    Tool {
        names: &["git"],
        value_options: &[
            "-C",
            "-c",
            "--git-dir",
            "--work-tree",
            "--namespace",
            "--config-env",
            "--super-prefix",
        ],
        rules: &[
            rule!("GIT_DESTRUCTIVE", ["push"],
                when ["-f", "--force", "--force-with-lease", "--force-if-includes", "--mirror", "--delete", "-d", "+*", ":*"],
                unless ["-n", "--dry-run"],
                match ["git push --force origin main", "git -C /srv/app push -f", "git push origin +main:main",
                       "git -c push.default=current push --force-with-lease", "git push --mirror backup",
                       "git push origin --delete release/1.0", "git push origin :old-branch"],
                not ["git push origin main", "git push -u origin feature", "git push --dry-run --force origin main",
                     "git -C /srv/app status", "git commit -m 'push --force later'"]),
            rule!("GIT_DESTRUCTIVE", ["reset"], when ["--hard", "--merge", "--keep"], unless [],
                match ["git reset --hard origin/main", "git -c core.x=y reset --hard HEAD~3"],
                not ["git reset HEAD file.txt", "git reset --soft HEAD~1"]),
            rule!("GIT_DESTRUCTIVE", ["clean"], when ["-f", "--force"], unless ["-n", "--dry-run"],
                match ["git clean -fdx", "git -C vendor/lib clean -f -d", "git clean --force"],
                not ["git clean -n", "git clean -ndx", "git clean --dry-run -fd"]),
            rule!("GIT_DESTRUCTIVE", ["branch"], when ["-D"], unless [],
                match ["git branch -D feature/old"],
                not ["git branch -d merged-feature", "git branch -a", "git branch new-feature"]),
            rule!("GIT_DESTRUCTIVE", ["filter-branch"], when [], unless [],
                match ["git filter-branch --force --index-filter 'git rm --cached x' -- --all"], not []),
            rule!("GIT_DESTRUCTIVE", ["filter-repo"], when [], unless ["--analyze", "--dry-run"],
                match ["git filter-repo --path secrets/ --invert-paths --force"],
                not ["git filter-repo --analyze"]),
            rule!("GIT_DESTRUCTIVE", ["reflog", "expire"], when ["--expire=now", "--expire=all", "--expire-unreachable=now", "--expire-unreachable=all"], unless ["-n", "--dry-run"],
                match ["git reflog expire --expire=now --all"],
                not ["git reflog", "git reflog expire --dry-run --expire=now --all"]),
            rule!("GIT_DESTRUCTIVE", ["gc"], when ["--prune=now", "--prune=all"], unless [],
                match ["git gc --prune=now --aggressive"], not ["git gc", "git gc --auto"]),
            rule!("GIT_DESTRUCTIVE", ["checkout"], when ["-f", "--force", ".", ":/"], unless [],
                match ["git checkout -- .", "git checkout -f main", "git checkout ."],
                not ["git checkout main", "git checkout -b feature", "git checkout -- src/main.rs"]),
            rule!("GIT_DESTRUCTIVE", ["restore"], when [".", ":/"], unless ["--staged", "-S"],
                match ["git restore ."], not ["git restore src/main.rs", "git restore --staged ."]),
            rule!("GIT_DESTRUCTIVE", ["stash", "clear"], when [], unless [],
                match ["git stash clear"], not ["git stash list", "git stash"]),
            rule!("GIT_DESTRUCTIVE", ["stash", "drop"], when [], unless [],
                match ["git stash drop stash@{0}"], not ["git stash pop"]),
            rule!("GIT_DESTRUCTIVE", ["update-ref"], when ["-d"], unless [],
                match ["git update-ref -d refs/heads/main"], not ["git update-ref refs/heads/x HEAD"]),
        ],
    },
    Tool {
        names: &["kubectl", "oc"],
        value_options: &[
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
            "-l",
            "--selector",
            "-o",
            "--output",
            "--field-selector",
            "--request-timeout",
            "-v",
        ],
        rules: &[
            rule!("KUBECTL_DELETE", ["delete"], when [], unless ["--dry-run*"],
                match ["kubectl delete ns prod", "kubectl -n prod delete deploy web", "kubectl --context prod delete pod x",
                       "oc delete project demo"],
                not ["kubectl get pods -n prod", "kubectl delete -f k8s/ --dry-run=client", "kubectl -n delete get pods",
                     "kubectl logs delete"]),
            rule!("KUBECTL_MUTATE", ["scale"], when [], unless ["--dry-run*"],
                match ["kubectl scale deploy web --replicas=0"], not ["kubectl get deploy web"]),
            rule!("KUBECTL_MUTATE", ["drain"], when [], unless ["--dry-run*"],
                match ["kubectl drain node-1 --ignore-daemonsets"], not ["kubectl describe node drain"]),
            rule!("KUBECTL_MUTATE", ["cordon"], when [], unless ["--dry-run*"],
                match ["kubectl --context prod cordon node-1"], not ["kubectl uncordon node-1"]),
            rule!("KUBECTL_APPLY_REMOTE", ["apply"], when ["http://*", "https://*", "-f=http*", "--filename=http*"], unless [],
                match ["kubectl apply -f https://example.com/x.yaml"], not ["kubectl apply -f k8s/"]),
            rule!("KUBECTL_APPLY_REMOTE", ["create"], when ["http://*", "https://*", "-f=http*", "--filename=http*"], unless [],
                match ["kubectl create -f http://example.com/x.yaml"], not ["kubectl create ns dev"]),
            rule!("KUBECTL_APPLY_REMOTE", ["replace"], when ["http://*", "https://*", "-f=http*", "--filename=http*"], unless [],
                match ["kubectl replace -f https://example.com/x.yaml"], not ["kubectl replace -f x.yaml"]),
        ],
    },
    Tool {
        names: &["helm"],
        value_options: &[
            "-n",
            "--namespace",
            "--kube-context",
            "--kubeconfig",
            "--registry-config",
            "--repository-config",
        ],
        rules: &[
            rule!("HELM_UNINSTALL", ["uninstall"], when [], unless ["--dry-run*"],
                match ["helm uninstall web", "helm -n prod uninstall web"], not ["helm -n prod list", "helm uninstall web --dry-run"]),
            rule!("HELM_UNINSTALL", ["delete"], when [], unless ["--dry-run*"], match ["helm delete web"], not []),
            rule!("HELM_UNINSTALL", ["del"], when [], unless ["--dry-run*"], match ["helm del web"], not []),
            rule!("HELM_UNINSTALL", ["un"], when [], unless ["--dry-run*"], match ["helm un web"], not []),
        ],
    },
    Tool {
        names: &["docker", "podman", "nerdctl"],
        value_options: &[
            "-H",
            "--host",
            "--context",
            "-c",
            "--config",
            "-l",
            "--log-level",
            "--url",
            "--connection",
        ],
        rules: &[
            rule!("DOCKER_RM_FORCE", ["rm"], when ["-f", "--force"], unless [],
                match ["docker rm -f web", "docker -H tcp://10.0.0.5:2375 rm -f web", "podman rm -af"], not ["docker rm web", "docker ps -a"]),
            rule!("DOCKER_RM_FORCE", ["rmi"], when ["-f", "--force"], unless [], match ["docker rmi -f app:old"], not ["docker rmi app:old"]),
            rule!("DOCKER_RM_FORCE", ["container", "rm"], when ["-f", "--force"], unless [], match ["docker container rm -f web"], not []),
            rule!("DOCKER_RM_FORCE", ["image", "rm"], when ["-f", "--force"], unless [], match ["docker image rm -f app"], not []),
            rule!("DOCKER_SYSTEM_PRUNE", ["system", "prune"], when [], unless [],
                match ["docker system prune -af --volumes", "docker --context prod system prune -f"], not ["docker system df"]),
            rule!("DOCKER_SYSTEM_PRUNE", ["volume", "prune"], when [], unless [], match ["docker volume prune -f"], not []),
            rule!("DOCKER_SYSTEM_PRUNE", ["container", "prune"], when [], unless [], match ["docker container prune -f"], not []),
            rule!("DOCKER_SYSTEM_PRUNE", ["image", "prune"], when ["-a", "--all"], unless [],
                match ["docker image prune -af"], not ["docker image prune -f", "docker image prune"]),
            rule!("DOCKER_SYSTEM_PRUNE", ["network", "prune"], when [], unless [], match ["docker network prune -f"], not []),
            rule!("CONTAINER_VOLUME_DELETE", ["volume", "rm"], when [], unless [],
                match ["docker volume rm pgdata", "docker --log-level error volume rm pgdata"], not ["docker volume ls"]),
        ],
    },
    Tool {
        names: &["aws"],
        value_options: &[
            "--profile",
            "--region",
            "--endpoint-url",
            "--output",
            "--query",
            "--color",
            "--ca-bundle",
            "--cli-read-timeout",
            "--cli-connect-timeout",
        ],
        rules: &[
            rule!("AWS_S3_RM_RECURSIVE", ["s3", "rm"], when ["--recursive"], unless ["--dryrun"],
                match ["aws s3 rm s3://b/x --recursive", "aws --profile prod s3 rm s3://b --recursive"],
                not ["aws s3 rm s3://b/x", "aws s3 rm s3://b/ --recursive --dryrun"]),
            rule!("AWS_S3_RM_RECURSIVE", ["s3", "rb"], when ["--force"], unless [],
                match ["aws --profile prod --region eu-west-1 s3 rb s3://b --force"], not ["aws s3 ls"]),
            rule!("AWS_EC2_TERMINATE", ["ec2", "terminate-instances"], when [], unless ["--dry-run"],
                match ["aws ec2 terminate-instances --instance-ids i-1"],
                not ["aws ec2 terminate-instances --dry-run --instance-ids i-1", "aws ec2 describe-instances"]),
            rule!("CLOUD_RESOURCE_DELETE", ["*", "delete-*"], when [], unless ["--dry-run"],
                match ["aws rds delete-db-instance --db-instance-identifier prod", "aws eks delete-cluster --name prod",
                       "aws --region us-east-1 dynamodb delete-table --table-name Orders"],
                not ["aws rds describe-db-instances", "aws ec2 delete-tags --dry-run --resources x"]),
            rule!("CLOUD_RESOURCE_DELETE", ["s3api", "delete-bucket"], when [], unless [], match ["aws s3api delete-bucket --bucket b"], not []),
        ],
    },
    Tool {
        names: &["gcloud"],
        value_options: &[
            "--project",
            "--account",
            "--configuration",
            "--zone",
            "--region",
            "--format",
            "--verbosity",
            "--impersonate-service-account",
        ],
        rules: &[
            rule!("GCLOUD_DELETE", ["*", "delete"], when [], unless [],
                match ["gcloud projects delete p1"], not ["gcloud projects list"]),
            rule!("GCLOUD_DELETE", ["*", "*", "delete"], when [], unless [],
                match ["gcloud --project prod compute instances delete web-1 --quiet"], not ["gcloud compute instances list"]),
            rule!("GCLOUD_DELETE", ["*", "*", "*", "delete"], when [], unless [],
                match ["gcloud container node-pools foo delete x"], not []),
            rule!("CLOUD_RESOURCE_DELETE", ["storage", "rm"], when ["--recursive", "-r"], unless [],
                match ["gcloud storage rm --recursive gs://b/"], not ["gcloud storage ls gs://b"]),
        ],
    },
    Tool {
        names: &["gsutil"],
        value_options: &["-o", "-h", "-u"],
        rules: &[
            rule!("CLOUD_RESOURCE_DELETE", ["rm"], when ["-r", "-R", "-a"], unless [],
                match ["gsutil -m rm -r gs://acme-logs"], not ["gsutil ls gs://b", "gsutil rm gs://b/one.txt"]),
            rule!("CLOUD_RESOURCE_DELETE", ["rb"], when [], unless [], match ["gsutil rb gs://b"], not []),
        ],
    },
    Tool {
        names: &["az"],
        value_options: &["--subscription", "-o", "--output", "--query"],
        rules: &[
            rule!("CLOUD_RESOURCE_DELETE", ["*", "delete"], when [], unless [],
                match ["az group delete --name rg-prod --yes", "az --subscription prod group delete -n rg"], not ["az group list"]),
            rule!("CLOUD_RESOURCE_DELETE", ["*", "*", "delete"], when [], unless [],
                match ["az storage account delete -n sa -g rg -y"], not ["az storage account list"]),
        ],
    },
    Tool {
        names: &["doctl", "hcloud", "linode-cli", "scw", "exo", "vultr-cli"],
        value_options: &["--context", "-t", "--access-token", "-o", "--output"],
        rules: &[
            rule!("CLOUD_RESOURCE_DELETE", ["*", "delete"], when [], unless [], match ["hcloud server delete web-1"], not ["hcloud server list"]),
            rule!("CLOUD_RESOURCE_DELETE", ["*", "*", "delete"], when [], unless [], match ["doctl compute droplet delete web"], not []),
        ],
    },
    Tool {
        names: &["terraform", "tofu", "terragrunt"],
        value_options: &[],
        rules: &[
            rule!("INFRA_DESTROY", ["destroy"], when [], unless [],
                match ["terraform destroy -auto-approve", "terraform -chdir=infra destroy", "tofu destroy -target=module.vpc"],
                not ["terraform plan", "terraform plan -destroy", "terraform -chdir=infra plan"]),
            rule!("INFRA_DESTROY", ["apply"], when ["-destroy", "--destroy"], unless [],
                match ["terraform apply -destroy -auto-approve"], not ["terraform apply"]),
            rule!("INFRA_DESTROY", ["state", "rm"], when [], unless ["-dry-run"],
                match ["terraform state rm module.db.aws_db_instance.main"], not ["terraform state list", "terraform state rm -dry-run x"]),
            rule!("INFRA_DESTROY", ["workspace", "delete"], when [], unless [],
                match ["terraform workspace delete -force prod"], not ["terraform workspace list"]),
            rule!("INFRA_UNREVIEWED_APPLY", ["apply"], when ["-auto-approve", "--auto-approve"], unless [],
                match ["terraform apply -auto-approve", "terraform -chdir=envs/prod apply -auto-approve -var-file=prod.tfvars"],
                not ["terraform apply", "terraform apply tfplan"]),
        ],
    },
    Tool {
        names: &["pulumi"],
        value_options: &["-s", "--stack", "-C", "--cwd"],
        rules: &[
            rule!("INFRA_DESTROY", ["destroy"], when [], unless ["--preview-only"],
                match ["pulumi destroy --yes --stack org/prod"], not ["pulumi preview", "pulumi destroy --preview-only"]),
            rule!("INFRA_DESTROY", ["stack", "rm"], when [], unless [], match ["pulumi stack rm --force --yes prod"], not ["pulumi stack ls"]),
            rule!("INFRA_UNREVIEWED_APPLY", ["up"], when ["--yes", "-y", "--skip-preview", "-f"], unless [],
                match ["pulumi up --yes"], not ["pulumi up"]),
        ],
    },
    Tool {
        names: &["cdk", "cdktf"],
        value_options: &["--profile", "-a", "--app", "-c", "--context"],
        rules: &[
            rule!("INFRA_DESTROY", ["destroy"], when [], unless [], match ["cdk destroy --force MyStack"], not ["cdk diff", "cdk synth"]),
        ],
    },
    Tool {
        names: &["serverless", "sls"],
        value_options: &["--stage", "-s", "--region", "-r", "--config", "-c"],
        rules: &[
            rule!("INFRA_DESTROY", ["remove"], when [], unless [], match ["serverless remove --stage prod"], not ["serverless deploy --stage dev"]),
        ],
    },
    Tool {
        names: &["eksctl"],
        value_options: &["--profile", "-r", "--region"],
        rules: &[
            rule!("INFRA_DESTROY", ["delete", "cluster"], when [], unless [], match ["eksctl delete cluster --name prod"], not ["eksctl get cluster"]),
            rule!("INFRA_DESTROY", ["delete", "nodegroup"], when [], unless [], match ["eksctl delete nodegroup --cluster prod --name ng"], not []),
        ],
    },
    Tool {
        names: &["zfs"],
        value_options: &[],
        rules: &[
            rule!("STORAGE_DESTROY", ["destroy"], when [], unless ["-n"],
                match ["zfs destroy -r tank/data", "zfs destroy tank/home@snap"], not ["zfs list", "zfs destroy -nv -r tank/home@%"]),
            rule!("STORAGE_DESTROY", ["rollback"], when ["-r", "-R"], unless [], match ["zfs rollback -r tank/db@old"], not ["zfs rollback tank/db@latest"]),
        ],
    },
    Tool {
        names: &["zpool"],
        value_options: &[],
        rules: &[
            rule!("STORAGE_DESTROY", ["destroy"], when [], unless [], match ["zpool destroy tank"], not ["zpool status", "zpool list"]),
            rule!("STORAGE_DESTROY", ["labelclear"], when [], unless [], match ["zpool labelclear -f /dev/sdb"], not []),
        ],
    },
    Tool {
        names: &["lvremove", "vgremove", "pvremove"],
        value_options: &[],
        rules: &[
            rule!("STORAGE_DESTROY", [], when [], unless ["-t", "--test"],
                match ["lvremove -y vg0/data", "vgremove -f vg0", "pvremove /dev/sdb1"], not ["lvremove --test vg0/data"]),
        ],
    },
    Tool {
        names: &["lvm"],
        value_options: &[],
        rules: &[
            rule!("STORAGE_DESTROY", ["lvremove"], when [], unless ["-t", "--test"], match ["lvm lvremove vg0/data"], not ["lvm lvs"]),
            rule!("STORAGE_DESTROY", ["vgremove"], when [], unless ["-t", "--test"], match ["lvm vgremove vg0"], not []),
            rule!("STORAGE_DESTROY", ["pvremove"], when [], unless ["-t", "--test"], match ["lvm pvremove /dev/sdb1"], not []),
        ],
    },
    Tool {
        names: &["mdadm"],
        value_options: &[],
        rules: &[
            rule!("STORAGE_DESTROY", [], when ["--zero-superblock"], unless [],
                match ["mdadm --zero-superblock /dev/sdb1"], not ["mdadm --detail /dev/md0"]),
        ],
    },
    Tool {
        names: &["btrfs"],
        value_options: &[],
        rules: &[
            rule!("STORAGE_DESTROY", ["subvolume", "delete"], when [], unless [],
                match ["btrfs subvolume delete /mnt/@old"], not ["btrfs subvolume list /"]),
        ],
    },
    Tool {
        names: &["virsh"],
        value_options: &[
            "-c",
            "--connect",
            "-l",
            "--log",
            "-k",
            "--keepalive-interval",
        ],
        rules: &[
            rule!("VM_DESTROY", ["destroy"], when [], unless [],
                match ["virsh destroy web01", "virsh -c qemu:///system destroy db01"], not ["virsh list --all", "virsh dominfo destroy"]),
            rule!("VM_DESTROY", ["undefine"], when [], unless [],
                match ["virsh --connect qemu+ssh://root@hv1/system undefine db01 --remove-all-storage"], not []),
            rule!("VM_DESTROY", ["vol-delete"], when [], unless [], match ["virsh vol-delete disk.qcow2 --pool default"], not []),
            rule!("VM_DESTROY", ["pool-delete"], when [], unless [], match ["virsh pool-delete default"], not []),
        ],
    },
    Tool {
        names: &["lxc", "incus", "multipass"],
        value_options: &["--project"],
        rules: &[
            rule!("VM_DESTROY", ["delete"], when [], unless [], match ["lxc delete --force web", "multipass delete vm1"], not ["lxc list"]),
        ],
    },
    Tool {
        names: &["vagrant"],
        value_options: &[],
        rules: &[
            rule!("VM_DESTROY", ["destroy"], when [], unless [], match ["vagrant destroy -f"], not ["vagrant status"]),
        ],
    },
    Tool {
        names: &["qm", "pct"],
        value_options: &[],
        rules: &[
            rule!("VM_DESTROY", ["destroy"], when [], unless [], match ["qm destroy 101 --purge", "pct destroy 201 --force"], not ["qm list"]),
        ],
    },
    Tool {
        names: &["VBoxManage", "vboxmanage"],
        value_options: &[],
        rules: &[
            rule!("VM_DESTROY", ["unregistervm"], when ["--delete"], unless [],
                match ["VBoxManage unregistervm web --delete"], not ["VBoxManage unregistervm web"]),
        ],
    },
    Tool {
        names: &["nvme"],
        value_options: &[
            "-n",
            "--namespace-id",
            "-s",
            "--ses",
            "-a",
            "--sanact",
            "-l",
            "--lbaf",
        ],
        rules: &[
            rule!("DEVICE_ERASE", ["format"], when [], unless [],
                match ["nvme format /dev/nvme0n1 --ses=1"], not ["nvme list", "nvme smart-log /dev/nvme0"]),
            rule!("DEVICE_ERASE", ["sanitize"], when [], unless [],
                match ["nvme sanitize /dev/nvme0n1 -a 2"], not ["nvme sanitize-log /dev/nvme0"]),
        ],
    },
    Tool {
        names: &["hdparm"],
        value_options: &["--user-master", "--security-set-pass", "--security-unlock"],
        rules: &[
            rule!("DEVICE_ERASE", [], when ["--security-erase", "--security-erase-enhanced", "--write-sector", "--trim-sector-ranges", "--make-bad-sector", "--dco-restore"], unless [],
                match ["hdparm --user-master u --security-erase p /dev/sdz-nonexistent"], not ["hdparm -I /dev/sda", "hdparm -tT /dev/sda"]),
        ],
    },
    Tool {
        names: &["cryptsetup"],
        value_options: &[
            "--type",
            "-c",
            "--cipher",
            "-s",
            "--key-size",
            "-d",
            "--key-file",
            "-S",
            "--key-slot",
            "--header",
        ],
        rules: &[
            rule!("DEVICE_ERASE", ["luksFormat"], when [], unless [],
                match ["cryptsetup luksFormat -q --type luks2 /dev/sdz1 -"], not ["cryptsetup luksOpen /dev/sdb1 data", "cryptsetup status data"]),
            rule!("DEVICE_ERASE", ["erase"], when [], unless [], match ["cryptsetup erase /dev/sdb1"], not []),
            rule!("DEVICE_ERASE", ["luksErase"], when [], unless [], match ["cryptsetup luksErase /dev/sdb1"], not []),
        ],
    },
    Tool {
        names: &["badblocks"],
        value_options: &["-b", "-c", "-e", "-i", "-o", "-p", "-t", "-d"],
        rules: &[rule!("DEVICE_ERASE", [], when ["-w"], unless [],
                match ["badblocks -wsv /dev/sdz"], not ["badblocks -sv /dev/sdb", "badblocks -nsv /dev/sdb"])],
    },
    Tool {
        names: &["flashrom"],
        value_options: &[
            "-p",
            "--programmer",
            "-c",
            "--chip",
            "-l",
            "--layout",
            "-i",
            "--image",
            "-r",
            "--read",
            "-v",
            "--verify",
        ],
        rules: &[
            rule!("DEVICE_ERASE", [], when ["-w", "--write", "-E", "--erase"], unless [],
                match ["flashrom -p internal -w coreboot.rom"], not ["flashrom -p internal -r bios-backup.rom"]),
        ],
    },
    Tool {
        names: &["sg_format", "sg_sanitize"],
        value_options: &[],
        rules: &[
            rule!("DEVICE_ERASE", [], when [], unless [], match ["sg_format --format /dev/sg1"], not []),
        ],
    },
    Tool {
        names: &["restic"],
        value_options: &[
            "-r",
            "--repo",
            "--password-file",
            "--cache-dir",
            "-o",
            "--option",
        ],
        rules: &[
            rule!("BACKUP_DELETE", ["forget"], when [], unless ["--dry-run", "-n"],
                match ["restic forget --keep-last 3 --prune", "restic -r /srv/repo forget latest"],
                not ["restic snapshots", "restic forget --dry-run --keep-last 3"]),
            rule!("BACKUP_DELETE", ["prune"], when [], unless ["--dry-run", "-n"], match ["restic prune"], not []),
            rule!("BACKUP_DELETE", ["key", "remove"], when [], unless [], match ["restic key remove 1"], not ["restic key list"]),
        ],
    },
    Tool {
        names: &["borg"],
        value_options: &["--remote-path", "--rsh"],
        rules: &[
            rule!("BACKUP_DELETE", ["delete"], when [], unless ["--dry-run", "-n"],
                match ["borg delete /srv/repo::old"], not ["borg list /srv/repo", "borg delete --dry-run repo::x"]),
            rule!("BACKUP_DELETE", ["prune"], when [], unless ["--dry-run", "-n"],
                match ["borg prune --keep-daily 7 repo"], not ["borg prune -n --keep-daily 7 repo"]),
        ],
    },
    Tool {
        names: &["rclone"],
        value_options: &["--config", "--transfers", "--checkers", "--log-file"],
        rules: &[
            rule!("BACKUP_DELETE", ["purge"], when [], unless ["--dry-run", "-n"], match ["rclone purge remote:bucket"], not ["rclone ls remote:bucket"]),
            rule!("BACKUP_DELETE", ["delete"], when [], unless ["--dry-run", "-n"], match ["rclone delete remote:bucket/old"], not ["rclone delete --dry-run remote:x"]),
            rule!("BACKUP_DELETE", ["deletefile"], when [], unless ["--dry-run", "-n"], match ["rclone deletefile remote:bucket/f"], not []),
        ],
    },
    Tool {
        names: &["velero"],
        value_options: &["-n", "--namespace", "--kubeconfig", "--kubecontext"],
        rules: &[
            rule!("BACKUP_DELETE", ["*", "delete"], when [], unless [], match ["velero backup delete nightly --confirm"], not ["velero backup get"]),
            rule!("BACKUP_DELETE", ["uninstall"], when [], unless [], match ["velero uninstall"], not []),
        ],
    },
    Tool {
        names: &["vault"],
        value_options: &["-address", "-namespace", "--namespace", "-n"],
        rules: &[
            rule!("SERVICE_DATA_DELETE", ["secrets", "disable"], when [], unless [], match ["vault secrets disable secret/"], not ["vault secrets list"]),
            rule!("SERVICE_DATA_DELETE", ["kv", "destroy"], when [], unless [], match ["vault kv destroy -versions=1-3 secret/app"], not ["vault kv get secret/app"]),
            rule!("SERVICE_DATA_DELETE", ["kv", "metadata", "delete"], when [], unless [], match ["vault kv metadata delete secret/app"], not []),
            rule!("SERVICE_DATA_DELETE", ["auth", "disable"], when [], unless [], match ["vault auth disable github"], not ["vault auth list"]),
            rule!("SERVICE_DATA_DELETE", ["policy", "delete"], when [], unless [], match ["vault policy delete app"], not ["vault policy read app"]),
        ],
    },
    Tool {
        names: &["nats"],
        value_options: &["-s", "--server", "--context", "--creds"],
        rules: &[
            rule!("SERVICE_DATA_DELETE", ["stream", "rm"], when [], unless [], match ["nats stream rm ORDERS"], not ["nats stream ls"]),
            rule!("SERVICE_DATA_DELETE", ["stream", "delete"], when [], unless [], match ["nats stream delete ORDERS"], not []),
            rule!("SERVICE_DATA_DELETE", ["stream", "purge"], when [], unless [], match ["nats stream purge ORDERS"], not []),
            rule!("SERVICE_DATA_DELETE", ["kv", "rm"], when [], unless [], match ["nats kv rm KV"], not ["nats kv get KV k"]),
        ],
    },
    Tool {
        names: &["kafka-topics", "kafka-topics.sh"],
        value_options: &[
            "--bootstrap-server",
            "--topic",
            "--command-config",
            "--zookeeper",
        ],
        rules: &[
            rule!("SERVICE_DATA_DELETE", [], when ["--delete"], unless [],
                match ["kafka-topics --bootstrap-server 127.0.0.1:9092 --delete --topic orders"], not ["kafka-topics --bootstrap-server 127.0.0.1:9092 --list"]),
        ],
    },
    Tool {
        names: &["rabbitmqctl"],
        value_options: &["-n", "--node", "-p", "--vhost"],
        rules: &[
            rule!("SERVICE_DATA_DELETE", ["reset"], when [], unless [], match ["rabbitmqctl reset"], not ["rabbitmqctl status"]),
            rule!("SERVICE_DATA_DELETE", ["force_reset"], when [], unless [], match ["rabbitmqctl force_reset"], not []),
            rule!("SERVICE_DATA_DELETE", ["delete_vhost"], when [], unless [], match ["rabbitmqctl delete_vhost /prod"], not ["rabbitmqctl list_vhosts"]),
            rule!("SERVICE_DATA_DELETE", ["purge_queue"], when [], unless [], match ["rabbitmqctl purge_queue jobs"], not []),
        ],
    },
    Tool {
        names: &["op"],
        value_options: &["--account", "--vault", "--session"],
        rules: &[
            rule!("SERVICE_DATA_DELETE", ["*", "delete"], when [], unless [], match ["op item delete 'Database Password'", "op vault delete Engineering"], not ["op item get x"]),
        ],
    },
    Tool {
        names: &["doppler"],
        value_options: &["--project", "-p", "--config", "-c"],
        rules: &[
            rule!("SERVICE_DATA_DELETE", ["*", "delete"], when [], unless [], match ["doppler secrets delete DATABASE_URL", "doppler projects delete backend --yes"], not ["doppler secrets get X"]),
        ],
    },
    Tool {
        names: &["gh", "glab"],
        value_options: &["-R", "--repo"],
        rules: &[
            rule!("SERVICE_DATA_DELETE", ["repo", "delete"], when [], unless [], match ["gh repo delete acme/app --yes", "glab repo delete my/group"], not ["gh repo view acme/app"]),
            rule!("SERVICE_DATA_DELETE", ["release", "delete"], when [], unless [], match ["gh release delete v1.2.3"], not ["gh release list"]),
        ],
    },
    Tool {
        names: &["wrangler"],
        value_options: &["-c", "--config", "--env", "-e"],
        rules: &[
            rule!("CLOUD_RESOURCE_DELETE", ["delete"], when [], unless ["--dry-run"], match ["wrangler delete my-worker"], not ["wrangler deploy"]),
            rule!("CLOUD_RESOURCE_DELETE", ["*", "delete"], when [], unless [], match ["wrangler d1 delete my-db"], not []),
            rule!("CLOUD_RESOURCE_DELETE", ["*", "*", "delete"], when [], unless [], match ["wrangler r2 bucket delete b"], not ["wrangler r2 bucket list"]),
        ],
    },
    Tool {
        names: &["mc"],
        value_options: &["--config-dir", "-C"],
        rules: &[
            rule!("CLOUD_RESOURCE_DELETE", ["rb"], when [], unless [], match ["mc rb --force myminio/bucket"], not ["mc ls myminio"]),
            rule!("CLOUD_RESOURCE_DELETE", ["rm"], when ["--recursive", "-r"], unless [], match ["mc rm --recursive --force myminio/bucket/"], not ["mc rm myminio/bucket/one.txt"]),
        ],
    },
    Tool {
        names: &["userdel", "deluser"],
        value_options: &["-R", "--root", "-P", "--prefix", "--conf"],
        rules: &[rule!("ACCOUNT_DELETE", [], when [], unless [],
                match ["userdel -r bob", "deluser --remove-home carol"], not [])],
    },
];

/// The tool run by the command's basename, if it is one of [`TOOLS`].
pub fn tool(base: &str) -> Option<&'static Tool> {
    TOOLS.iter().find(|t| t.names.contains(&base))
}

/// The subcommand words of a command's argument values (`None` for a word only known at run
/// time): the words that are not options, skipping the values of the tool's value options
/// (`git -C /srv push` → `push`). Everything after `--` counts.
pub fn subcommand<'c>(tool: &Tool, args: &[Option<&'c str>]) -> Vec<Option<&'c str>> {
    let mut out = Vec::new();
    let mut words = args.iter().copied();
    while let Some(w) = words.next() {
        match w {
            Some("--") => {
                out.extend(words);
                break;
            }
            Some(v) if v.starts_with('-') && v.len() > 1 => {
                if tool.value_options.contains(&v) {
                    words.next();
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// The first rule of `tool` that a command with these argument values matches.
pub fn matching_rule(tool: &'static Tool, args: &[Option<&str>]) -> Option<&'static Rule> {
    let words = subcommand(tool, args);
    tool.rules.iter().find(|rule| {
        path_matches(rule.path, &words)
            && (rule.when_any.is_empty() || has_any(args, rule.when_any))
            && !has_any(args, rule.unless_any)
    })
}

fn path_matches(path: &[&str], words: &[Option<&str>]) -> bool {
    path.len() <= words.len()
        && path.iter().zip(words).all(|(pattern, word)| match word {
            Some(word) => word_matches(pattern, word),
            None => false,
        })
}

fn word_matches(pattern: &str, word: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some("") => true,
        Some(prefix) => word.starts_with(prefix),
        None => pattern == word,
    }
}

/// True when an argument before `--` (any argument, for a pattern that is not an option)
/// matches one of `tokens` (the forms of [`Rule::when_any`]).
fn has_any(args: &[Option<&str>], tokens: &[&str]) -> bool {
    let mut options = true;
    args.iter().flatten().any(|arg| {
        if *arg == "--" {
            options = false;
            return false;
        }
        tokens
            .iter()
            .any(|token| token_matches(token, arg, options))
    })
}

fn token_matches(token: &str, arg: &str, options: bool) -> bool {
    let short = token.len() == 2 && token.starts_with('-') && token != "--";
    if short {
        let letter = token.chars().nth(1).unwrap_or('-');
        return options
            && arg.starts_with('-')
            && !arg.starts_with("--")
            && arg.len() > 1
            && arg[1..].chars().all(|c| c.is_ascii_alphanumeric())
            && arg[1..].contains(letter);
    }
    if token.starts_with('-') && !options {
        return false;
    }
    match token.strip_suffix('*') {
        Some(prefix) => arg.starts_with(prefix),
        None => {
            arg == token
                || token.starts_with("--")
                    && arg
                        .strip_prefix(token)
                        .is_some_and(|rest| rest.starts_with('='))
        }
    }
}
