#!/usr/bin/env bash
# shellcheck disable=SC2016 # remote commands are single-quoted on purpose: they expand remotely
# End-to-end test of guarded-sh as an SSH login shell, against a real OpenSSH sshd on
# 127.0.0.1 (own port, generated host and client keys, UsePAM no, external sftp-server) and a
# throwaway user whose login shell is the installed binary: ssh, scp (both protocols), sftp,
# rsync, git, ansible-core, a stdin script, and an interactive session driven through a
# pseudo-terminal (expect), the same account under exec supervision, with a negative control that reruns the interactive checks with a
# plain /bin/bash login shell and expects them to fail. Run as root on Debian 12:
#   tests/e2e/sshd.sh                    (installs the packages it needs if missing)
#   GSH_E2E_BINARY=path tests/e2e/sshd.sh   (test that binary instead of a fresh debug build)
# Prints one line per check and ends with "N passed, N failed"; exits non-zero on any failure.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PORT=${GSH_E2E_PORT:-22722}
RC_PORT=$((PORT + 1)) # the same sshd, with PermitUserRC yes: ~/.ssh/rc runs (Match LocalPort)
TUSER=${GSH_E2E_USER:-gshe2e}
BIN=/usr/local/bin/guarded-sh
HOOK=/usr/local/lib/guarded-sh/interactive.bash
POLICIES=/etc/guarded-sh/policies
started=$SECONDS
# shellcheck source=tests/e2e/checks.sh
. "$REPO/tests/e2e/checks.sh"

[[ $(id -u) == 0 ]] || {
	echo "tests/e2e/sshd.sh: run as root" >&2
	exit 2
}

# --- packages -------------------------------------------------------------------------
need=()
for c in sshd:openssh-server ssh:openssh-client rsync:rsync git:git ansible:ansible-core \
	expect:expect python3:python3 tmux:tmux sudo:sudo; do
	command -v "${c%%:*}" >/dev/null || [[ -x /usr/sbin/${c%%:*} ]] || need+=("${c#*:}")
done
if ((${#need[@]})); then
	echo "installing: ${need[*]}" >&2
	DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi

# --- workspace, binary, install ---------------------------------------------------------
T=$(mktemp -d /tmp/gsh-e2e.XXXXXX)
chmod 0755 "$T"
: >"$T/check.log"
SSHD_PID=""
CONFIG=/etc/guarded-sh/config.toml
SAVED_CONFIG=$T/config.toml.saved
# Puts back the configuration the test replaced for its run, once (see "test configuration").
restore_config() {
	if [[ -e $SAVED_CONFIG ]]; then
		install -d -m 0755 "${CONFIG%/*}"
		cp -p "$SAVED_CONFIG" "$CONFIG" && rm -f "$SAVED_CONFIG"
	elif [[ -n ${TEST_CONFIG_INSTALLED-} ]]; then
		rm -f "$CONFIG"
	fi
	TEST_CONFIG_INSTALLED=
}
cleanup() {
	restore_config
	if [[ -n $SSHD_PID ]]; then kill "$SSHD_PID" 2>/dev/null || true; fi
	pkill -u "$TUSER" 2>/dev/null || true
	sleep 0.2
	if id "$TUSER" >/dev/null 2>&1; then
		usermod -s /bin/bash "$TUSER" 2>/dev/null || true
		userdel -r "$TUSER" 2>/dev/null || true
	fi
	rm -f "/var/lib/guarded-sh/previous-shell.$TUSER" /etc/sudoers.d/gsh-e2e
	if id gshe2e-appr >/dev/null 2>&1; then userdel gshe2e-appr 2>/dev/null || true; fi
	if getent group gshe2e-approvers >/dev/null; then groupdel gshe2e-approvers 2>/dev/null || true; fi
	[[ -n ${GSH_E2E_KEEP-} ]] || rm -rf "$T"
}
trap cleanup EXIT

if [[ -n ${GSH_E2E_BINARY-} ]]; then
	binary=$GSH_E2E_BINARY
else
	(cd "$REPO" && cargo build -q >&2)
	binary=$REPO/target/debug/guarded-sh
fi

id "$TUSER" >/dev/null 2>&1 && userdel -r "$TUSER" 2>/dev/null
useradd -m -s /bin/bash "$TUSER"
usermod -p '*' "$TUSER" # not locked: UsePAM no refuses '!'
THOME=$(getent passwd "$TUSER" | cut -d: -f6)

# Audit to a JSON-lines file (the user's processes append to it), via a test configuration
# installed at the default path for the run (GUARDED_SH_CONFIG is honoured for root only): the
# one there is saved and put back before the uninstall step, and on any exit.
AUDIT=$T/audit.jsonl
install -m 0666 /dev/null "$AUDIT"
cat >"$T/config.toml" <<EOF
[policy]
dir = "$POLICIES"
cache_dir = "/var/cache/guarded-sh"
allow_env_dir = false
[escape]
allow = false
[audit]
syslog = false
file = "$AUDIT"
[interactive]
hook = "$HOOK"
EOF
chmod 0644 "$T/config.toml"

# What an earlier version left: its retired boot unit, enabled. The install must remove it.
RETIRED=/etc/systemd/system/guarded-sh-page-cache.service
if [[ -d /etc/systemd/system ]]; then
	printf '[Service]\nExecStart=/bin/true\n' >"$RETIRED"
	mkdir -p /etc/systemd/system/multi-user.target.wants
	ln -sf "$RETIRED" "/etc/systemd/system/multi-user.target.wants/${RETIRED##*/}"
fi
"$REPO/install.sh" --binary "$binary" --user "$TUSER" >"$T/install.log" 2>&1 ||
	{
		cat "$T/install.log" >&2
		exit 1
	}
check "install.sh --user: self-test passed and login shell set" \
	test "$(getent passwd "$TUSER" | cut -d: -f7)" = "$BIN"
check "install.sh removed the retired boot unit and its link" bash -c \
	"test ! -e '$RETIRED' && test ! -L '/etc/systemd/system/multi-user.target.wants/${RETIRED##*/}'"
check "install.sh is idempotent" "$REPO/install.sh" --binary "$binary"
# --- test configuration -----------------------------------------------------------------
if [[ -e $CONFIG ]]; then cp -p "$CONFIG" "$SAVED_CONFIG"; fi
TEST_CONFIG_INSTALLED=1
install -m 0644 -o root -g root "$T/config.toml" "$CONFIG"
check "install.sh --help shows every mode" bash -c \
	'out=$("$0" --help 2>&1); for m in "--binary PATH" --uninstall --self-test; do grep -qF -- "$m" <<<"$out" || exit 1; done' \
	"$REPO/install.sh"

# --- sshd and client --------------------------------------------------------------------
install -d -m 0755 /run/sshd
ssh-keygen -q -t ed25519 -N '' -f "$T/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$T/client_key"
install -d -m 0700 -o "$TUSER" -g "$TUSER" "$THOME/.ssh"
install -m 0600 -o "$TUSER" -g "$TUSER" "$T/client_key.pub" "$THOME/.ssh/authorized_keys"
SFTP_SERVER=/usr/lib/openssh/sftp-server
cat >"$T/sshd_config" <<EOF
Port $PORT
Port $RC_PORT
ListenAddress 127.0.0.1
HostKey $T/host_key
PidFile $T/sshd.pid
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
AuthorizedKeysFile .ssh/authorized_keys
PermitRootLogin no
AllowUsers $TUSER
StrictModes yes
PrintMotd no
PermitUserRC no
PermitUserEnvironment no
DisableForwarding yes
Subsystem sftp $SFTP_SERVER
LogLevel ERROR
Match LocalPort $RC_PORT
  PermitUserRC yes
EOF
/usr/sbin/sshd -f "$T/sshd_config" -E "$T/sshd.log"
for _ in $(seq 50); do [[ -s $T/sshd.pid ]] && break; sleep 0.05; done
SSHD_PID=$(cat "$T/sshd.pid")

cat >"$T/ssh_config" <<EOF
Host e2e
  HostName 127.0.0.1
  Port $PORT
  User $TUSER
  IdentityFile $T/client_key
  IdentitiesOnly yes
  UserKnownHostsFile $T/known_hosts
  StrictHostKeyChecking no
  BatchMode yes
  LogLevel ERROR
EOF
SSH=(ssh -F "$T/ssh_config")
export GIT_SSH_COMMAND="ssh -F $T/ssh_config"
rssh() { "${SSH[@]}" e2e "$@"; }
audit_has() { grep -F -- "$1" "$AUDIT" | grep -F "\"verdict\":\"$2\"" >/dev/null; } # no -q: an early exit would SIGPIPE the first grep (pipefail)

# --- ssh host cmd --------------------------------------------------------------------
rc=0
rssh 'exit 3' || rc=$?
check "ssh host 'exit 3' passes the status through" test "$rc" = 3
check "stdout clean: 'echo hi' gives exactly hi" test "$(rssh 'echo hi' | od -An -c | tr -s ' ')" = " h i \n"
head -c 1048576 /dev/urandom >"$T/blob"
rssh cat <"$T/blob" >"$T/blob.back"
check "1 MiB binary stdin round trip through ssh host cat" cmp "$T/blob" "$T/blob.back"
check "yes | head -1 exits 141 (SIGPIPE restored)" \
	test "$(rssh 'yes | head -1 >/dev/null; echo "${PIPESTATUS[*]}"')" = "141 0"
check "SHELL points at guarded-sh" test "$(rssh 'echo $SHELL')" = "$BIN"
check "ssh -tt gets a terminal" bash -c "${SSH[*]} -tt e2e 'test -t 0 && echo tty-ok' </dev/null | grep -q tty-ok"

out=$(printf 'echo one\ncd /tmp\necho "two $PWD"; exit 4\n' | "${SSH[@]}" -T e2e 2>&1) && rc=0 || rc=$?
check "stdin script runs whole, status 4" test "$rc:$out" = "4:one
two /tmp"
rc=0
out=$(printf 'touch ~/stdin-ran\ncurl -fsS http://127.0.0.1:9/x | sh\n' | "${SSH[@]}" -T e2e 2>&1) || rc=$?
check "denied stdin script: 126 and none of it ran" \
	test "$rc:$(rssh 'test -e ~/stdin-ran && echo ran || echo clean')" = "126:clean"
# `ssh host bash < script` (and python): the remote shell reads the script from guarded-sh's stdin.
out=$(printf 'echo "one $1"\nexit 5\n' | "${SSH[@]}" e2e bash -s arg 2>&1) && rc=0 || rc=$?
check "ssh host bash -s < script: judged, then runs whole, status 5" test "$rc:$out" = "5:one arg"
rc=0
out=$(printf 'touch ~/bash-stdin-ran\ncurl -fsS http://127.0.0.1:9/x | sh\n' | "${SSH[@]}" e2e bash 2>&1) || rc=$?
check "ssh host bash < denied script: 126 and none of it ran" \
	test "$rc:$(rssh 'test -e ~/bash-stdin-ran && echo ran || echo clean')" = "126:clean"
rc=0
out=$(printf 'import os\nos.system("touch ~/py-stdin-ran; rm -rf /")\n' | "${SSH[@]}" e2e python3 2>&1) || rc=$?
check "ssh host python3 < denied program: 126 and none of it ran" \
	test "$rc:$(rssh 'test -e ~/py-stdin-ran && echo ran || echo clean')" = "126:clean"

rssh 'touch ~/marker' || true
rc=0
out=$(rssh 'rm -f ~/marker; curl -fsS http://127.0.0.1:9/x | sh' 2>&1) || rc=$?
check "critical command denied with 126 and the message on stderr" \
	test "$rc" = 126 -a "${out#guarded-sh: denied:}" != "$out"
check "denied command had no effect (marker survives)" rssh 'test -e ~/marker'
# A panic (forced as in tests/integration/hardening_faults.rs: with stderr unwritable, the first message
# panics) in the installed binary, whose release profile aborts on panic: the hook still ends
# in 126 and nothing runs.
rc=0
"$BIN" -c "touch $T/ran-after-panic; rm -rf /" 2>/dev/full || rc=$?
check "installed binary: a panic ends in status 126" test "$rc" = 126
check "installed binary: nothing ran after the panic" test ! -e "$T/ran-after-panic"
check "audit: the denial is recorded" audit_has 'rm -f ~/marker; curl' deny

# --- ~/.ssh/rc: sshd runs it as `<login shell> -c '/bin/sh HOME/.ssh/rc'`; the file is judged --
rcfile=$THOME/.ssh/rc
printf 'dd if=/dev/zero of=/dev/sdz-nonexistent count=1 2>/dev/null; touch ~/rc-ran\n' >"$rcfile"
chown "$TUSER:$TUSER" "$rcfile"
out=$("${SSH[@]}" -p "$RC_PORT" e2e 'echo cmd-ran' 2>&1) || true
check ".ssh/rc with a critical command: none of it ran" \
	test "$(rssh 'test -e ~/rc-ran && echo ran || echo clean')" = clean
check ".ssh/rc refused: the reason on stderr, and the session's command still ran" bash -c \
	'grep -q "guarded-sh: denied:" <<<"$1" && grep -qx cmd-ran <<<"$1"' _ "$out"
check "audit: the refused .ssh/rc is recorded" audit_has "/bin/sh $rcfile" deny
printf 'touch ~/rc-benign\n' >"$rcfile"
"${SSH[@]}" -p "$RC_PORT" e2e true >/dev/null 2>&1 || true
check ".ssh/rc that is benign runs" rssh 'test -e ~/rc-benign'
rm -f "$rcfile"

# --- file transfer and git -------------------------------------------------------------
head -c 200000 /dev/urandom >"$T/up.bin"
check "scp upload (SFTP protocol)" scp -q -F "$T/ssh_config" "$T/up.bin" e2e:up-sftp.bin
check "scp download (SFTP protocol)" scp -q -F "$T/ssh_config" e2e:up-sftp.bin "$T/down-sftp.bin"
check "scp round trip identical (SFTP)" cmp "$T/up.bin" "$T/down-sftp.bin"
check "scp -O upload (scp -t)" scp -O -q -F "$T/ssh_config" "$T/up.bin" e2e:up-legacy.bin
check "scp -O download (scp -f)" scp -O -q -F "$T/ssh_config" e2e:up-legacy.bin "$T/down-legacy.bin"
check "scp -O round trip identical" cmp "$T/up.bin" "$T/down-legacy.bin"
printf 'put %s sftp.bin\nget sftp.bin %s\nls -l sftp.bin\n' "$T/up.bin" "$T/down-sftpb.bin" >"$T/batch"
check "sftp -b batch put/get" sftp -q -F "$T/ssh_config" -b "$T/batch" e2e
check "sftp round trip identical" cmp "$T/up.bin" "$T/down-sftpb.bin"
mkdir -p "$T/rs/src/d" && cp "$T/up.bin" "$T/rs/src/d/a.bin" && echo x >"$T/rs/src/b.txt"
check "rsync upload" rsync -a -e "ssh -F $T/ssh_config" "$T/rs/src/" e2e:rs/
check "rsync download" rsync -a -e "ssh -F $T/ssh_config" e2e:rs/ "$T/rs/back/"
check "rsync round trip identical" diff -r "$T/rs/src" "$T/rs/back"
rssh 'git init -q --bare -b main repo.git' || true
(
	cd "$T" && git init -q -b main work && cd work &&
		git -c user.name=e2e -c user.email=e2e@x commit -q --allow-empty -m one
) >>"$T/check.log" 2>&1
check "git push" git -C "$T/work" push -q e2e:repo.git main
check "git clone" git clone -q e2e:repo.git "$T/clone"
check "git ls-remote" bash -c "git ls-remote e2e:repo.git | grep -q refs/heads/main"
check "git archive --remote (upload-archive)" bash -c "git archive --remote=e2e:repo.git --format=tar main | tar -t >/dev/null"

# --- ansible ---------------------------------------------------------------------------
export ANSIBLE_HOME=$T/ansible ANSIBLE_LOCAL_TEMP=$T/ansible/tmp ANSIBLE_HOST_KEY_CHECKING=False
export ANSIBLE_SSH_ARGS='-o ControlMaster=no -o ControlPersist=no' ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3
printf 'e2e ansible_host=127.0.0.1 ansible_port=%s ansible_user=%s ansible_ssh_private_key_file=%s\n' \
	"$PORT" "$TUSER" "$T/client_key" >"$T/inventory"
for pipelining in False True; do
	export ANSIBLE_PIPELINING=$pipelining
	check "ansible ping (pipelining $pipelining)" ansible -i "$T/inventory" e2e -m ping
	check "ansible command (pipelining $pipelining)" bash -c "ansible -i '$T/inventory' e2e -m command -a 'echo cmd-ok' | grep -q cmd-ok"
	check "ansible shell (pipelining $pipelining)" bash -c "ansible -i '$T/inventory' e2e -m shell -a 'echo sh-ok | tr a-z A-Z' | grep -q SH-OK"
	check "ansible raw (pipelining $pipelining)" bash -c "ansible -i '$T/inventory' e2e -m raw -a 'uname -s' | grep -q Linux"
done

# --- ansible playbooks: every task judged, in four modes ----------------------------------
# Everyday tasks run; each denied task fails with the gate's reason (status 126) and has no
# effect. become uses a NOPASSWD sudoer; the delete and the crontab task run without it.
PLAYS=$REPO/tests/e2e/ansible
install -m 0440 /dev/stdin /etc/sudoers.d/gsh-e2e <<<"$TUSER ALL=(ALL) NOPASSWD: ALL"
for mode in default pipelining become become+pipelining; do
	export ANSIBLE_PIPELINING=False ANSIBLE_BECOME=False
	[[ $mode == *pipelining ]] && ANSIBLE_PIPELINING=True
	[[ $mode == become* ]] && ANSIBLE_BECOME=True
	rm -rf "$THOME"/e2e-*
	check "playbook ($mode): everyday tasks run" bash -c \
		"ansible-playbook -i '$T/inventory' '$PLAYS/allowed.yml' >'$T/allowed-$mode.log' 2>&1 && grep -q 'E2E-ALLOWED-DONE uid=' '$T/allowed-$mode.log'"
	check "playbook ($mode): copy, template and file made their files" \
		test -s "$THOME/e2e-copied.txt" -a -s "$THOME/e2e-templated.txt" -a -d "$THOME/e2e-dir"
	check "playbook ($mode): every denied task failed with the gate's reason and 126" bash -c \
		"ansible-playbook -i '$T/inventory' '$PLAYS/denied.yml' >'$T/denied-$mode.log' 2>&1; '$PLAYS/denied_check.py' <'$T/denied-$mode.log'"
	check "playbook ($mode): the denied tasks had no effect" bash -c \
		"test ! -e /dev/sdzz9 && test -d /etc/ssh && ! crontab -u '$TUSER' -l 2>/dev/null | grep -q gsh-e2e"
done
unset ANSIBLE_BECOME
check "audit: a denied task is recorded with its module" bash -c \
	"grep -F '\"module\":\"ansible.modules.command\"' '$AUDIT' | grep -qF '\"verdict\":\"deny\"'"
check "audit: a pipelined task is recorded with its module" bash -c \
	"grep -F '\"command\":\"/bin/sh -c '\\''/usr/bin/python3 && sleep 0'\\''\"' '$AUDIT' | grep -qF '\"module\":\"ansible.modules.ping\"'"

# --- automation profile: allowed by the installed baseline and logged ----------------------
check "audit: sftp-server allowed" audit_has '"command":"/usr/lib/openssh/sftp-server"' allow
check "audit: scp -t allowed" audit_has '"command":"scp -t up-legacy.bin"' allow
check "audit: scp -f allowed" audit_has '"command":"scp -f up-legacy.bin"' allow
check "audit: rsync --server allowed" audit_has '"command":"rsync --server' allow
check "audit: git-receive-pack allowed" audit_has "\"command\":\"git-receive-pack 'repo.git'\"" allow
check "audit: git-upload-pack allowed" audit_has "\"command\":\"git-upload-pack 'repo.git'\"" allow
check "audit: git-upload-archive allowed" audit_has "\"command\":\"git-upload-archive 'repo.git'\"" allow
check "audit: ansible /bin/sh -c wrapper allowed" audit_has '"command":"/bin/sh -c '"'"'echo ~' allow
check "audit: ansible pipelined python allowed" audit_has "/usr/bin/python3 && sleep 0'" allow
# become is not configured for the test user; its exact templates are decided as that user.
as_user() { (cd / && runuser -u "$TUSER" -- "$@"); }
become="/bin/sh -c 'sudo -H -S -n  -u root /bin/sh -c '\"'\"'echo BECOME-SUCCESS-abcdef ; /usr/bin/python3 /home/u/.ansible/tmp/ansible-tmp-1/AnsiballZ_ping.py'\"'\"' && sleep 0'"
check "ansible become template allowed by the baseline" as_user "$BIN" --check "$become"
become_pipe="/bin/sh -c 'sudo -H -S -n  -u root /bin/sh -c '\"'\"'echo BECOME-SUCCESS-abcdef ; /usr/bin/python3'\"'\"' && sleep 0'"
check "ansible become (pipelining) template allowed by the baseline" as_user "$BIN" --check "$become_pipe"

# --- interactive session through a pseudo-terminal -------------------------------------
# expect prints "RESULT <name> ok|fail" per step; a missing marker is a failure, never a pass.
# What every session script starts with (sourced): the steps and an ssh -tt login.
cat >"$T/steps.tcl" <<'EOF'
set timeout $env(EXP_TIMEOUT)
log_file -a $env(EXP_LOG)
proc result {name ok} { puts stdout "\nRESULT $name $ok" }
# Waits for a marker only command output contains; multi-line blocks, so a timeout is seen.
proc step {name pattern} {
  expect {
    -re $pattern {
      result $name ok
    }
    timeout {
      result $name fail
    }
  }
}
proc sync {marker} {
  expect {
    $marker {}
    timeout {}
  }
}
# EXP_REMOTE, when set: the remote command (a shell asked for, which gets a gated session).
set remote {}
if {[info exists env(EXP_REMOTE)]} { set remote $env(EXP_REMOTE) }
spawn -noecho {*}$env(EXP_SSH) -tt e2e {*}$remote
expect_after {
  eof {
    puts stdout "\nRESULT session-eof fail"
    exit 1
  }
}
EOF
cat >"$T/session.exp" <<'EOF'
source $env(EXP_STEPS)
send "echo ready-\$((1+1))\r"
expect {
  -re {(.*)ready-2} {
    if {[string first "denied" $expect_out(1,string)] < 0} { result login-files-clean ok } else { result login-files-clean fail }
  }
  timeout {
    result session-started fail
    exit 1
  }
}
send "cd /tmp && export GSH_FOO=bar\r"
send "echo \"at-\$PWD-\$GSH_FOO-\$((3*3))\"\r"
step cd-export-persist {at-/tmp-bar-9}
send "sleep 3 & echo bg-\$((6*7))\r"
sync bg-42
send "jobs; echo jobs-\$((7*7))\r"
step background-job {Running.*sleep 3.*jobs-49}
send "kill %1 2>/dev/null; echo killed-\$((8*8))\r"
sync killed-64
send "touch ~/victim; echo made-\$((5*5))\r"
sync made-25
# One simple command (the session gates each simple command): had it run, ~/victim would be gone.
send "rm -rf ~/victim \$GSH_NOPE/x\r"
step critical-denied {guarded-sh: denied}
send "test -e ~/victim && echo still-\$((4*4))\r"
step session-continues {still-16}
# The line is judged whole before any of it runs: neither of its harmless parts runs either.
send "touch ~/part-a; rm -rf ~/victim \$GSH_NOPE/x; touch ~/part-b\r"
step whole-line-denied {guarded-sh: denied}
send "test -e ~/part-a || test -e ~/part-b || echo no-part-ran-\$((2*11))\r"
step whole-line-nothing-ran {no-part-ran-22}
# State from earlier lines: a device in a variable, a function called with the target.
send "dev=/dev/sdz-nonexistent; echo set-\$((2*13))\r"
sync set-26
send "dd if=/dev/zero of=\$dev count=1; touch ~/state-ran\r"
step state-variable-denied {guarded-sh: denied}
send "wipe() { dd if=/dev/zero of=\"\$1\" count=1; }; echo defined-\$((3*11))\r"
sync defined-33
send "wipe /dev/sdz-nonexistent; touch ~/state-ran\r"
step state-function-denied {guarded-sh: denied}
send "test -e ~/state-ran || echo state-nothing-ran-\$((4*11))\r"
step state-nothing-ran {state-nothing-ran-44}
foreach {name attempt} {
  trap-removed {trap - DEBUG}
  enable-n-trap {enable -n trap}
  unset-hook {unset -f __gsh_guard}
  shopt-extdebug {shopt -u extdebug}
  set-functrace {set +T}
  bash-env {export BASH_ENV=~/evil.sh}
  bash-norc {bash --norc}
  bin-bash {/bin/bash}
  exec-bash {exec bash --norc}
} {
  send "$attempt\r"
  expect {
    "guarded-sh: denied" {
      result tamper-$name ok
    }
    timeout {
      result tamper-$name fail
      send "exit\r"
    }
  }
}
send "__gsh_guard() { :; }\r"
step tamper-redefine-hook {guarded-sh: denied|readonly function}
send "rm -rf ~/victim \$GSH_NOPE/x\r"
step still-gated-after-tampering {guarded-sh: denied}
send "test -e ~/victim && echo intact-\$((9*9))\r"
step victim-intact-at-the-end {intact-81}
send "exit 7\r"
expect eof
lassign [wait] pid spawnid oserr status
if {$status == 7} { result exit-status ok } else { result exit-status fail }
EOF
# Runs the session script $1 with step timeout $2 and log $3; prints its "NAME ok|fail" lines.
run_expect() {
	EXP_STEPS=$T/steps.tcl EXP_TIMEOUT=$2 EXP_LOG=$3 EXP_SSH="${SSH[*]}" expect -f "$1" 2>&1 |
		tr -d '\r' | sed -n 's/^RESULT //p' || true
}
run_session() { run_expect "$T/session.exp" "$@"; }
# One check per "NAME ok|fail" line of $4 (labelled $1, failures pointing at log $2), and one
# that all $3 steps reported (a step that never reported is a failure, never a pass).
report_steps() {
	local name verdict
	while read -r name verdict; do
		[[ -n $name ]] || continue
		if [[ $verdict == ok ]]; then pass "$1$name"; else fail "$1$name" "see $2"; fi
	done <<<"$4"
	if [[ $(wc -l <<<"$4") -eq $3 ]]; then
		pass "$1every step reported"
	else
		fail "$1every step reported" "$(wc -l <<<"$4") results"
	fi
}
interactive=$(run_session 10 "$T/session.log")
report_steps "interactive: " "$T/session.log" 23 "$interactive"
for cmd in 'trap - DEBUG' 'enable -n trap' 'unset -f __gsh_guard' 'shopt -u extdebug' 'set +T' \
	'export BASH_ENV=~/evil.sh' 'bash --norc' '/bin/bash' 'exec bash --norc'; do
	check "audit: interactive denial of '$cmd' recorded" audit_has "\"command\":\"$cmd\"" deny
done
check "audit: interactive commands recorded with mode interactive" grep -qF '"mode":"interactive","tty":true' "$AUDIT"
check "no check server left behind" bash -c "! pgrep -u $TUSER -f -- '--serve' >/dev/null"

# --- negative control: the same session with an ungated login shell must fail -----------
usermod -s /bin/bash "$TUSER"
control=$(run_session 2 "$T/control.log")
usermod -s "$BIN" "$TUSER"
pkill -u "$TUSER" -x bash 2>/dev/null || true # the ungated control shells, if any linger
gating=(critical-denied state-variable-denied state-function-denied tamper-trap-removed tamper-enable-n-trap tamper-unset-hook tamper-shopt-extdebug
	tamper-set-functrace tamper-bash-env tamper-bash-norc tamper-bin-bash tamper-exec-bash)
missed=0
for g in "${gating[@]}"; do
	grep -qx "$g ok" <<<"$control" && missed=$((missed + 1))
done
if [[ $missed == 0 ]] && grep -qx 'cd-export-persist ok' <<<"$control"; then
	pass "negative control: with /bin/bash as login shell every gating check fails (the test can fail)"
else
	fail "negative control" "$missed gating checks passed without the gate; see $T/control.log"
fi

# --- a shell asked for on the command line gets a gated session --------------------------
# `ssh -tt host bash --norc -i` (sshd runs `guarded-sh -c 'bash --norc -i'` on a terminal).
cat >"$T/shell-asked.exp" <<'EOF'
source $env(EXP_STEPS)
send "touch ~/asked-victim; echo ready-\$((1+1))\r"
step shell-asked-started {ready-2}
send "rm -rf ~/asked-victim \$GSH_NOPE/x\r"
step shell-asked-gated {guarded-sh: denied}
send "test -e ~/asked-victim && echo kept-\$((5*7))\r"
step shell-asked-nothing-ran {kept-35}
send "exit 0\r"
expect eof
EOF
asked=$(EXP_REMOTE="bash --norc -i" run_expect "$T/shell-asked.exp" 10 "$T/shell-asked.log")
report_steps "ssh -tt host bash --norc -i: " "$T/shell-asked.log" 3 "$asked"

# --- approval of a held line in a session over ssh -tt (docs/approvals.md) ------------------
# A policy that holds one harmless line; the approvers group and directories of the test's own.
# The held line asks on the terminal (a wrong answer refuses it whole and files a request),
# an approver (a second user, a member of the group) approves the request, the same line then
# runs on the grant; another held line runs when the host name is typed at its question.
APPROVERS=gshe2e-approvers
APPROVER=gshe2e-appr
groupadd -f "$APPROVERS"
id "$APPROVER" >/dev/null 2>&1 || useradd -M -N -g "$APPROVERS" -s /usr/sbin/nologin "$APPROVER"
install -d -m 0755 "$T/approvals" "$T/approval-policy"
install -d -o root -g "$APPROVERS" -m 3773 "$T/approvals/requests"
install -d -o root -g "$APPROVERS" -m 3775 "$T/approvals/approved"
cat >"$T/approval-policy/hold.rego" <<'EOF'
package honey
import rego.v1

default allow := true
default decision := "allow"

decision := "require_approval" if {
	contains(input.command.raw, "gsh-held-")
	not input.execution.approved
}
EOF
sed -e "s|^dir = \"$POLICIES\"|dir = \"$T/approval-policy\"|" "$T/config.toml" >"$T/approval.toml"
printf '[target]\nname = "e2e-host"\n[approval]\ngroup = "%s"\ndir = "%s"\n' "$APPROVERS" "$T/approvals" >>"$T/approval.toml"
install -m 0644 -o root -g root "$T/approval.toml" "$CONFIG"
cat >"$T/approval.exp" <<'EOF'
source $env(EXP_STEPS)
send "echo ready-\$((1+1))\r"
step approval-session-started {ready-2}
send "echo gsh-held-\$((6*7)) >~/held-ran; echo wrote-\$((6*8))\r"
step approval-asked-on-the-terminal {Type the host name \(e2e-host\)}
send "not-this-host\r"
set id none
expect {
  -re {denied: approval required: [^\r\n]*\(request ([0-9a-f]{8});} {
    set id $expect_out(1,string)
    result approval-refused-with-a-request ok
  }
  timeout { result approval-refused-with-a-request fail }
}
send "test -e ~/held-ran || echo not-run-\$((3*5))\r"
step approval-nothing-ran {not-run-15}
# Tcl's exec fails on any output to stderr, where --approve asks its question.
if {[catch {exec runuser -u $env(GSH_APPROVER) -- sh -c "echo yes | $env(GSH_BIN) --approve $id 2>&1"} shown]} {
  send_log "\n--approve $id failed: $shown\n"
  result approval-approved-by-the-approver fail
} else {
  result approval-approved-by-the-approver ok
}
send "echo gsh-held-\$((6*7)) >~/held-ran; echo wrote-\$((6*8))\r"
expect {
  "Type the host name" { result approval-grant-honoured fail }
  -re {wrote-48} { result approval-grant-honoured ok }
  timeout { result approval-grant-honoured fail }
}
send "cat ~/held-ran\r"
step approval-line-ran {gsh-held-42}
send "echo gsh-held-\$((7*7)) >~/confirmed-ran\r"
expect {
  "Type the host name (e2e-host)" { send "e2e-host\r" }
  timeout {}
}
send "cat ~/confirmed-ran\r"
step approval-confirmed-on-the-terminal {gsh-held-49}
send "exit 0\r"
expect eof
EOF
approval=$(GSH_BIN="$BIN" GSH_APPROVER="$APPROVER" run_expect "$T/approval.exp" 10 "$T/approval.log")
report_steps "session approval: " "$T/approval.log" 8 "$approval"
check "audit: the approved session line recorded as approved by the approver" bash -c \
	"grep -F 'echo gsh-held-\$((6*7)) >~/held-ran' '$AUDIT' | grep -F '\"verdict\":\"approved\"' | grep -qF 'by $APPROVER'"
install -m 0644 -o root -g root "$T/config.toml" "$CONFIG"

# --- exec supervision: the same account, supervised (docs/supervise.md) --------------------
# Every program a command starts is judged on its real argv. The protocols, an editor on a
# terminal and everyday ansible must work unchanged; what only exists at run time is refused.
{
	cat "$T/config.toml"
	printf '[supervise]\nmode = "enforce"\nusers = ["%s"]\n' "$TUSER"
} >"$T/config-supervised.toml"
install -m 0644 -o root -g root "$T/config-supervised.toml" "$CONFIG"
printf 'touch ~/sup-ran; dd if=/dev/zero of=/dev/sdz-nonexistent conv=nocreat count=1 2>/dev/null\n' >"$THOME/payload.txt"
printf 'import os, sys\nsys.exit(os.system(open(os.path.expanduser("~/payload.txt")).read()) != 0)\n' >"$THOME/run.py"
chown "$TUSER:$TUSER" "$THOME/payload.txt" "$THOME/run.py"
rc=0
rssh 'exit 3' || rc=$?
check "supervised: ssh host 'exit 3' passes the status through" test "$rc" = 3
check "supervised: stdout clean: 'echo hi' gives exactly hi" test "$(rssh 'echo hi' | od -An -c | tr -s ' ')" = " h i \n"
rssh cat <"$T/blob" >"$T/blob.sup"
check "supervised: 1 MiB binary stdin round trip" cmp "$T/blob" "$T/blob.sup"
check "supervised: execs are judged and recorded" bash -c \
	"grep -F '\"mode\":\"exec\"' '$AUDIT' | grep -qF '\"supervision\":\"enforce\"'"
rc=0
out=$(rssh 'python3 ~/run.py' 2>&1) || rc=$?
check "supervised: a command python builds at run time is refused, with the reason" bash -c \
	'test "$1" != 0 && grep -qF "guarded-sh: denied: /bin/sh: command risk" <<<"$2"' _ "$rc" "$out"
check "supervised: the refused command had no effect" test ! -e "$THOME/sup-ran"
# A memfd run by a /proc/self path (docs/supervise.md, the open-file rule). The control: the
# same program as the user outside guarded-sh does run its stand-in.
printf 'import os\nfd = os.memfd_create("p", 0)\nos.write(fd, b"#!/bin/sh\\ntouch $HOME/sup-memfd\\n")\nos.execv("/proc/self/fd/%%d" %% fd, ["p"])\n' >"$THOME/memfd.py"
chown "$TUSER:$TUSER" "$THOME/memfd.py"
su -s /bin/bash "$TUSER" -c 'python3 ~/memfd.py' </dev/null >/dev/null 2>&1 || true
check "supervised (control): outside guarded-sh the memfd runs its stand-in" test -e "$THOME/sup-memfd"
rm -f "$THOME/sup-memfd"
rc=0
out=$(rssh 'python3 ~/memfd.py' 2>&1) || rc=$?
check "supervised: a memfd run by /proc/self/fd is refused, with the reason" bash -c \
	'test "$1" != 0 && grep -qF "that is not the file at that path" <<<"$2"' _ "$rc" "$out"
check "supervised: the refused memfd had no effect" test ! -e "$THOME/sup-memfd"
check "supervised: scp upload and download (SFTP protocol)" bash -c \
	"scp -q -F '$T/ssh_config' '$T/up.bin' e2e:sup-sftp.bin && scp -q -F '$T/ssh_config' e2e:sup-sftp.bin '$T/down-sup-sftp.bin' && cmp '$T/up.bin' '$T/down-sup-sftp.bin'"
check "supervised: scp -O upload and download" bash -c \
	"scp -O -q -F '$T/ssh_config' '$T/up.bin' e2e:sup-legacy.bin && scp -O -q -F '$T/ssh_config' e2e:sup-legacy.bin '$T/down-sup-legacy.bin' && cmp '$T/up.bin' '$T/down-sup-legacy.bin'"
printf 'put %s sup-b.bin\nget sup-b.bin %s\n' "$T/up.bin" "$T/down-sup-b.bin" >"$T/batch-sup"
check "supervised: sftp -b put/get identical" bash -c \
	"sftp -q -F '$T/ssh_config' -b '$T/batch-sup' e2e && cmp '$T/up.bin' '$T/down-sup-b.bin'"
check "supervised: rsync up and down identical" bash -c \
	"rsync -a -e 'ssh -F $T/ssh_config' '$T/rs/src/' e2e:rs-sup/ && rsync -a -e 'ssh -F $T/ssh_config' e2e:rs-sup/ '$T/rs/back-sup/' && diff -r '$T/rs/src' '$T/rs/back-sup'"
rssh 'git init -q --bare -b main sup.git' || true
check "supervised: git push and clone" bash -c \
	"git -C '$T/work' push -q e2e:sup.git main && git clone -q e2e:sup.git '$T/clone-sup' && test -d '$T/clone-sup/.git'"
# An editor on a terminal: the text typed is saved, and what its shell escape starts is judged
# (vim runs `$SHELL -c 'python3 ~/run.py'`; guarded-sh allows that text and execs its real shell
# under the same supervisor, which refuses the command python builds).
cat >"$T/editor.exp" <<'EXP'
set timeout 10
log_file -a $env(EXP_LOG)
spawn -noecho {*}$env(EXP_SSH) -tt e2e vim -u NONE -i NONE -N edited.txt
sleep 1
send "isupervised-edit\033:w\r"
sleep 0.5
send ":!python3 ~/run.py\r"
expect {
  "denied: /bin/sh" { puts stdout "\nRESULT escape-denied" }
  timeout { puts stdout "\nRESULT escape-timeout" }
}
send "\r:q!\r"
expect eof
EXP
editor=$(EXP_LOG="$T/editor.log" EXP_SSH="${SSH[*]}" expect -f "$T/editor.exp" 2>&1 | tr -d '\r' || true)
check "supervised: ssh -t with an editor saves the file" test "$(cat "$THOME/edited.txt" 2>/dev/null)" = supervised-edit
check "supervised: what the editor's shell escape starts is refused, with no effect" bash -c \
	'grep -qx "RESULT escape-denied" <<<"$1" && test ! -e "$2/sup-ran"' _ "$editor" "$THOME"
export ANSIBLE_PIPELINING=False
check "supervised: ansible command task runs" bash -c \
	"ansible -i '$T/inventory' e2e -m command -a 'echo sup-cmd-ok' | grep -q sup-cmd-ok"
rc=0
ansible -i "$T/inventory" e2e -m command -a "python3 $THOME/run.py" >"$T/ansible-sup.log" 2>&1 || rc=$?
check "supervised: an ansible command task that builds its command at run time fails with the reason" bash -c \
	'test "$1" != 0 && grep -qF "guarded-sh: denied: /bin/sh: command risk" "$2"' _ "$rc" "$T/ansible-sup.log"
check "supervised: the refused task had no effect" test ! -e "$THOME/sup-ran"
install -m 0644 -o root -g root "$T/config.toml" "$CONFIG"

check "nothing of the test user still runs" bash -c "for _ in \$(seq 30); do pgrep -u $TUSER >/dev/null || exit 0; sleep 0.1; done; pgrep -u $TUSER -a; pkill -u $TUSER; exit 1"

# --- uninstall, then install again (the host is left as the test found it) ------------------
restore_config
if "$REPO/install.sh" --uninstall >"$T/uninstall.log" 2>&1; then
	check "uninstall: the test user has a shell back" test "$(getent passwd "$TUSER" | cut -d: -f7)" != "$BIN"
	check "uninstall: the binary is gone" test ! -e "$BIN"
else
	fail "install.sh --uninstall" "see $T/uninstall.log"
fi
"$REPO/install.sh" --binary "$binary" >"$T/reinstall.log" 2>&1 || fail "install.sh after --uninstall" "see $T/reinstall.log"
echo "# e2e took $((SECONDS - started))s" >&2
echo "$passed passed, $failed failed"
[[ $failed == 0 ]]
