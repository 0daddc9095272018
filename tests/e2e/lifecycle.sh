#!/usr/bin/env bash
# End-to-end test of install.sh's lifecycle on this host, as root (Debian 12): the audit sink a
# new configuration gets (journald's socket, /dev/log, neither: the root-owned 0622 append-only
# file, and a gated user's record landing in it), `--user` on a current install changing one
# account only, `--remove-user` (other users and files untouched), the baseline as a conffile
# (unchanged: replaced; edited: kept, the shipped one as .dist), the approvers group and
# directories, `--uninstall` keeping approval state and audit files, `--uninstall --purge`
# removing them. Throwaway users and a group are created and removed.
#   tests/e2e/lifecycle.sh                      (tests a fresh debug build)
#   GSH_E2E_BINARY=path tests/e2e/lifecycle.sh  (tests that binary)
# The host as found (an installed binary, its configuration, approval state, audit files, the
# users whose login shell is guarded-sh) is set aside and put back at the end; those users are
# un-gated while the test runs. Fake journald and /dev/log sockets are created only where none
# exists, and removed. Prints one line per check, "skip NAME (reason)" for a check this host
# cannot run, and ends with "N passed, N failed, N skipped"; exits non-zero on any failure.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN=/usr/local/bin/guarded-sh
CONFIG=/etc/guarded-sh/config.toml
POLICIES=/etc/guarded-sh/policies
STATE=/var/lib/guarded-sh
APPROVALS=$STATE/approvals
AUDIT_DIR=/var/log/guarded-sh
AUDIT=$AUDIT_DIR/audit.jsonl
JOURNAL_SOCKET=/run/systemd/journal/socket
DEV_LOG=/dev/log
UA=gsinst-a
UB=gsinst-b
GROUP=gsinst-approvers
# shellcheck source=tests/e2e/checks.sh
. "$REPO/tests/e2e/checks.sh"

[[ $(id -u) == 0 ]] || {
	echo "tests/e2e/lifecycle.sh: run as root" >&2
	exit 2
}
shell_of() { getent passwd "$1" | cut -d: -f7; }
# A file's identity and times: equal before and after means it was not rewritten.
stamp() { stat -c '%i %Y %Z %s' "$@"; }
# install.sh with its log in $T/NAME.log; a failure is a failed check, with the log.
run_install() {
	local name=$1
	shift
	if "$@" >"$T/$name.log" 2>&1; then return 0; fi
	fail "$name: install.sh $* exited non-zero" "see $T/$name.log"
	return 1
}
logged() { grep -qF -- "$2" "$T/$1.log"; }

T=$(mktemp -d /tmp/gsh-lifecycle.XXXXXX)
chmod 0755 "$T"
: >"$T/check.log"

if [[ -n ${GSH_E2E_BINARY-} ]]; then
	binary=$GSH_E2E_BINARY
else
	(cd "$REPO" && cargo build -q >&2)
	binary=$REPO/target/debug/guarded-sh
fi

# --- the host as found, set aside ----------------------------------------------------------
SAVED=$T/saved
mkdir "$SAVED"
was_installed=false
gated=()
if [[ -x $BIN ]]; then
	was_installed=true
	cp -p "$BIN" "$SAVED/guarded-sh"
fi
while IFS=: read -r user _ _ _ _ _ shell; do
	[[ $shell == "$BIN" && $user != "$UA" && $user != "$UB" ]] && gated+=("$user")
done < <(getent passwd)
if [[ -e $CONFIG ]]; then cp -p "$CONFIG" "$SAVED/config.toml"; fi
if [[ -e $STATE/config.toml.installed ]]; then cp -p "$STATE/config.toml.installed" "$SAVED/config.toml.installed"; fi
# Renamed on their own filesystem (an append-only file moves with its directory).
SAVED_APPROVALS=/var/lib/guarded-sh-approvals.lifecycle-saved.$$
SAVED_AUDIT=/var/log/guarded-sh.lifecycle-saved.$$
if [[ -e $APPROVALS ]]; then mv "$APPROVALS" "$SAVED_APPROVALS"; fi
if [[ -e $AUDIT_DIR ]]; then mv "$AUDIT_DIR" "$SAVED_AUDIT"; fi

listeners=()
made=() # sockets and directories this test created, removed in reverse order
cleanup() {
	set +e
	local p i
	for p in "${listeners[@]}"; do kill "$p" 2>/dev/null; done
	for ((i = ${#made[@]} - 1; i >= 0; i--)); do
		if [[ -S ${made[i]} ]]; then rm -f "${made[i]}"; else rmdir "${made[i]}" 2>/dev/null; fi
	done
	for u in "$UA" "$UB"; do
		if id "$u" >/dev/null 2>&1; then
			pkill -u "$u" 2>/dev/null
			userdel -r "$u" 2>/dev/null
		fi
	done
	"$REPO/install.sh" --uninstall --purge >>"$T/cleanup.log" 2>&1
	if getent group "$GROUP" >/dev/null; then groupdel "$GROUP"; fi
	rm -f "$CONFIG"
	rmdir /etc/guarded-sh 2>/dev/null
	if [[ -e $SAVED_APPROVALS ]]; then
		install -d -m 0755 "$STATE"
		mv "$SAVED_APPROVALS" "$APPROVALS"
	fi
	if [[ -e $SAVED_AUDIT ]]; then mv "$SAVED_AUDIT" "$AUDIT_DIR"; fi
	if [[ -e $SAVED/config.toml ]]; then
		install -d -m 0755 /etc/guarded-sh
		cp -p "$SAVED/config.toml" "$CONFIG"
	fi
	if [[ $was_installed == true ]]; then
		local args=()
		for u in "${gated[@]}"; do args+=(--user "$u"); done
		"$REPO/install.sh" --binary "$SAVED/guarded-sh" "${args[@]}" >>"$T/cleanup.log" 2>&1 ||
			echo "tests/e2e/lifecycle.sh: putting the host's install back failed; see $T/cleanup.log" >&2
		if [[ -e $SAVED/config.toml.installed ]]; then cp -p "$SAVED/config.toml.installed" "$STATE/"; fi
	fi
	[[ -n ${GSH_E2E_KEEP-} ]] || rm -rf "$T"
}
trap cleanup EXIT

for u in "$UA" "$UB"; do
	if id "$u" >/dev/null 2>&1; then userdel -r "$u"; fi
done
if getent group "$GROUP" >/dev/null; then groupdel "$GROUP"; fi
useradd -m -s /bin/sh "$UA"
useradd -m -s /bin/bash "$UB"
as_user() { (cd / && runuser -u "$1" -- "${@:2}"); }

# A datagram socket at PATH that appends what it receives to FILE (a stand-in for journald's
# or syslog's socket), only where no socket exists; its directories are made if missing.
listen() {
	local path=$1 out=$2 d=${1%/*} parts=()
	while [[ ! -d $d ]]; do
		parts=("$d" "${parts[@]}")
		d=${d%/*}
	done
	for d in "${parts[@]}"; do
		mkdir -m 0755 "$d"
		made+=("$d")
	done
	python3 -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o666)
with open(sys.argv[2], "ab", buffering=0) as f:
    while True:
        f.write(s.recv(1 << 16) + b"\n")
' "$path" "$out" &
	listeners+=("$!")
	made+=("$path")
	for _ in $(seq 50); do [[ -S $path ]] && return 0; sleep 0.05; done
	return 1
}
stop_listening() {
	local p i
	for p in "${listeners[@]}"; do kill "$p" 2>/dev/null || true; done
	listeners=()
	for ((i = ${#made[@]} - 1; i >= 0; i--)); do
		if [[ -S ${made[i]} ]]; then rm -f "${made[i]}"; else rmdir "${made[i]}" 2>/dev/null || true; fi
	done
	made=()
}

# --- a clean start ---------------------------------------------------------------------------
run_install start "$REPO/install.sh" --uninstall --purge || true
rm -f "$CONFIG"
check "clean start: no binary, no configuration" test ! -e "$BIN" -a ! -e "$CONFIG"

# --- fresh install: the audit sink when the host has neither journald nor /dev/log -----------
run_install fresh "$REPO/install.sh" --binary "$binary"
if [[ -S $JOURNAL_SOCKET || -S $DEV_LOG ]]; then
	skip "no journald, no /dev/log: the file sink is configured" "this host has a system log socket"
	sed -i "s|^system_log = .*|system_log = \"off\"\nfile = \"$AUDIT\"|" "$CONFIG"
	run_install fresh "$REPO/install.sh" --binary "$binary"
else
	check "no journald, no /dev/log: the file sink is configured (system_log = \"off\", file = …)" bash -c \
		"grep -qx 'system_log = \"off\"' '$CONFIG' && grep -qxF 'file = \"$AUDIT\"' '$CONFIG'"
	check "no journald, no /dev/log: install.sh says the file sink was configured" \
		logged fresh "sink: the JSON-lines file $AUDIT"
fi
check "file sink: directory 0755 root:root" test "$(stat -c '%a %U:%G' "$AUDIT_DIR")" = "755 root:root"
check "file sink: file 0622 root:root" test "$(stat -c '%a %U:%G' "$AUDIT")" = "622 root:root"
append_only=false
if logged fresh "append-only attribute set on $AUDIT"; then
	append_only=true
	check "file sink: append-only attribute set (lsattr shows a)" bash -c "lsattr '$AUDIT' | cut -d' ' -f1 | grep -q a"
elif logged fresh "the append-only attribute could not be set on $AUDIT"; then
	skip "file sink: append-only attribute" "the filesystem refused chattr +a: $(grep -F 'chattr +a:' "$T/fresh.log" | head -n 1)"
else
	fail "file sink: install.sh says whether the append-only attribute took" "see $T/fresh.log"
fi
check "baseline installed, its shipped sha256 recorded" bash -c \
	"cmp -s '$REPO/policies/baseline.rego' '$POLICIES/baseline.rego' && grep -qxF \"\$(sha256sum <'$REPO/policies/baseline.rego' | cut -d' ' -f1)  baseline.rego\" '$STATE/policies.sha256'"

# --- --user on a current install: one account, nothing else ---------------------------------
before=$(stamp "$BIN" "$CONFIG" "$POLICIES/baseline.rego" /usr/local/lib/guarded-sh/interactive.bash)
run_install user-a "$REPO/install.sh" --user "$UA"
check "--user A: A's login shell is guarded-sh" test "$(shell_of "$UA")" = "$BIN"
check "--user A: A's previous shell recorded" test "$(cat "$STATE/previous-shell.$UA")" = /bin/sh
check "--user A: install.sh says it changes only the account" logged user-a "changing only the login shell of $UA"
check "--user A: the self-test ran as A" logged user-a "self-test as $UA passed"
check "--user A: binary, config, baseline and hook untouched" test "$(stamp "$BIN" "$CONFIG" "$POLICIES/baseline.rego" /usr/local/lib/guarded-sh/interactive.bash)" = "$before"
check "--user A: B untouched" test "$(shell_of "$UB")" = /bin/bash
run_install user-b "$REPO/install.sh" --binary "$binary" --user "$UB"
check "--binary (the installed one) --user B: only B changes" bash -c \
	"test '$(shell_of "$UB")' = '$BIN' && grep -qF 'changing only the login shell of $UB' '$T/user-b.log' && test \"\$(stat -c '%i %Y %Z %s' '$BIN' '$CONFIG' '$POLICIES/baseline.rego' /usr/local/lib/guarded-sh/interactive.bash)\" = '$before'"

# --- --user: sshd's effective settings for the user (sshd -T), warned about, never fatal ------
if PATH=/usr/sbin:$PATH command -v sshd >/dev/null; then
	mkdir -p /run/sshd
	ssh-keygen -q -t ed25519 -N '' -f "$T/sshd_host_key"
	printf '%s\n' "HostKey $T/sshd_host_key" "PermitUserRC yes" "AcceptEnv LANG LC_* BASH_ENV" \
		"X11Forwarding yes" >"$T/sshd-unsafe.conf"
	printf '%s\n' "HostKey $T/sshd_host_key" "PermitUserRC no" "PermitUserEnvironment no" \
		"DisableForwarding yes" "PermitTunnel no" "AcceptEnv LANG LC_*" \
		"Subsystem sftp /usr/lib/openssh/sftp-server" >"$T/sshd-safe.conf"
	if run_install sshd-unsafe "$REPO/install.sh" --user "$UA" --sshd-config "$T/sshd-unsafe.conf"; then
		check "--user A, unsafe sshd settings: the install succeeds, A gated" test "$(shell_of "$UA")" = "$BIN"
		check "--user A, unsafe sshd settings: PermitUserRC warned" logged sshd-unsafe "warning: PermitUserRC yes"
		check "--user A, unsafe sshd settings: AcceptEnv BASH_ENV warned" logged sshd-unsafe "warning: AcceptEnv BASH_ENV"
		check "--user A, unsafe sshd settings: X11Forwarding warned" logged sshd-unsafe "warning: X11Forwarding yes"
		check "--user A, unsafe sshd settings: no 'safe' line" bash -c "! grep -q 'settings are safe' '$T/sshd-unsafe.log'"
	fi
	if run_install sshd-safe "$REPO/install.sh" --user "$UA" --sshd-config "$T/sshd-safe.conf"; then
		check "--user A, safe sshd settings: said safe, no warning" bash -c \
			"grep -qF \"user $UA: sshd's settings are safe for a gated user\" '$T/sshd-safe.log' && ! grep -q 'warning:' '$T/sshd-safe.log'"
	fi
	if run_install sshd-unreadable "$REPO/install.sh" --user "$UA" --sshd-config "$T/no-such.conf"; then
		check "--user A, sshd settings unreadable: said so, the install succeeds" logged sshd-unreadable \
			"could not read sshd's settings"
	fi
else
	skip "--user: sshd's settings checked" "sshd is not installed"
fi

# --- a gated user's records land in the file sink ------------------------------------------------
probe="lifecycle-probe-$$"
check "gated A: an allowed command runs" test "$(as_user "$UA" "$BIN" -c "echo $probe")" = "$probe"
rc=0
as_user "$UA" "$BIN" -c "touch /tmp/$probe-ran; curl -fsS http://127.0.0.1:9/x | sh" 2>/dev/null || rc=$?
check "gated A: a critical command is denied (126) and did not run" test "$rc" = 126 -a ! -e "/tmp/$probe-ran"
check "file sink: A's allowed command is recorded with A's name" bash -c \
	"grep -F '\"command\":\"echo $probe\"' '$AUDIT' | grep -F '\"user\":\"$UA\"' | grep -qF '\"verdict\":\"allow\"'"
check "file sink: A's denied command is recorded" bash -c \
	"grep -F 'touch /tmp/$probe-ran' '$AUDIT' | grep -qF '\"verdict\":\"deny\"'"
check "file sink: A cannot read the records" bash -c "! runuser -u '$UA' -- cat '$AUDIT' >/dev/null 2>&1"
if [[ $append_only == true ]]; then
	runuser -u "$UA" -- sh -c ": >'$AUDIT'" 2>/dev/null || true
	truncate -s 0 "$AUDIT" 2>/dev/null || true
	check "file sink: append-only: neither A nor root could truncate it" grep -qF "$probe" "$AUDIT"
else
	skip "file sink: append-only: not truncatable" "the filesystem refused chattr +a"
fi

# --- --remove-user: one account back, nothing else -------------------------------------------
run_install remove-a "$REPO/install.sh" --remove-user "$UA"
check "--remove-user A: A's previous shell (/bin/sh) is back" test "$(shell_of "$UA")" = /bin/sh
check "--remove-user A: its record is gone" test ! -e "$STATE/previous-shell.$UA"
check "--remove-user A: B still gated" test "$(shell_of "$UB")" = "$BIN"
check "--remove-user A: binary, config, baseline and hook untouched" test "$(stamp "$BIN" "$CONFIG" "$POLICIES/baseline.rego" /usr/local/lib/guarded-sh/interactive.bash)" = "$before"
run_install remove-a-again "$REPO/install.sh" --remove-user "$UA"
check "--remove-user A again: left alone, says so" bash -c \
	"test '$(shell_of "$UA")' = /bin/sh && grep -qF 'not $BIN: left alone' '$T/remove-a-again.log'"
check "--remove-user of a user that does not exist fails" bash -c "! '$REPO/install.sh' --remove-user gsinst-nosuchuser"
usermod -s "$BIN" "$UA" # gated by hand: no previous shell recorded
run_install remove-a-unrecorded "$REPO/install.sh" --remove-user "$UA"
check "--remove-user with no record: /bin/bash" test "$(shell_of "$UA")" = /bin/bash
check "--remove-user goes alone" bash -c "! '$REPO/install.sh' --remove-user '$UA' --user '$UB' 2>/dev/null"

# --- the baseline as a conffile ---------------------------------------------------------------
# A checkout whose shipped baseline differs from the repo's by a comment ("version NAME").
checkout() {
	local d=$T/$1
	mkdir -p "$d/policies" "$d/share"
	cp "$REPO/install.sh" "$d/"
	cp "$REPO"/policies/*.rego "$d/policies/"
	cp "$REPO"/share/* "$d/share/"
	printf '\n# lifecycle test: shipped version %s\n' "$1" >>"$d/policies/baseline.rego"
}
checkout v2
checkout v3
run_install conffile-v2 "$T/v2/install.sh" --binary "$binary"
check "conffile: unchanged since the last install: replaced by the new shipped version" \
	cmp -s "$T/v2/policies/baseline.rego" "$POLICIES/baseline.rego"
check "conffile: replaced: no .dist, and install.sh says so" bash -c \
	"test ! -e '$POLICIES/baseline.rego.dist' && grep -qF 'replaced by the new shipped version' '$T/conffile-v2.log'"
printf '\n# edited by the administrator\n' >>"$POLICIES/baseline.rego"
cp "$POLICIES/baseline.rego" "$T/edited.rego"
run_install conffile-v3 "$T/v3/install.sh" --binary "$binary"
check "conffile: edited: kept" cmp -s "$T/edited.rego" "$POLICIES/baseline.rego"
check "conffile: edited: the new shipped version is baseline.rego.dist" cmp -s "$T/v3/policies/baseline.rego" "$POLICIES/baseline.rego.dist"
check "conffile: edited: install.sh says so" logged conffile-v3 "kept; the shipped version is $POLICIES/baseline.rego.dist"
check "conffile: the .dist file is not loaded (the policy still decides)" "$BIN" --check 'ls -l'
run_install conffile-repo "$REPO/install.sh" --binary "$binary"
check "conffile: edited, installed again: still kept, .dist is the repo's" bash -c \
	"cmp -s '$T/edited.rego' '$POLICIES/baseline.rego' && cmp -s '$REPO/policies/baseline.rego' '$POLICIES/baseline.rego.dist'"
cp "$REPO/policies/baseline.rego" "$POLICIES/baseline.rego" # the shipped version adopted
run_install conffile-adopted "$REPO/install.sh" --binary "$binary"
check "conffile: the shipped version adopted: .dist removed" test ! -e "$POLICIES/baseline.rego.dist"

# --- the approvers group and directories ----------------------------------------------------------
printf '\n[approval]\ngroup = "%s"\n' "$GROUP" >>"$CONFIG"
# --user alone: the install is no longer current (the configuration asks for more), so it is done.
run_install approvals "$REPO/install.sh" --user "$UA"
check "approval: --user on an install missing the approvers setup does the install" bash -c \
	"! grep -qF 'changing only the login shell' '$T/approvals.log' && grep -qF 'approvals   group $GROUP created' '$T/approvals.log'"
check "approval: --user A: A gated" test "$(shell_of "$UA")" = "$BIN"
check "approval: the group is created" getent group "$GROUP"
check "approval: $APPROVALS is 0755 root:root" test "$(stat -c '%a %U:%G' "$APPROVALS")" = "755 root:root"
check "approval: requests/ is 3773 root:$GROUP" test "$(stat -c '%a %U:%G' "$APPROVALS/requests")" = "3773 root:$GROUP"
check "approval: approved/ is 3775 root:$GROUP" test "$(stat -c '%a %U:%G' "$APPROVALS/approved")" = "3775 root:$GROUP"
# The state an uninstall must keep: a request and a grant (contents do not matter here).
echo '{}' >"$APPROVALS/requests/0a1b2c3d.json"
echo '{}' >"$APPROVALS/approved/0a1b2c3d.0.json"

# --- --uninstall keeps approval state and audit files ---------------------------------------------
run_install user-b-again "$REPO/install.sh" --user "$UB"
run_install uninstall "$REPO/install.sh" --uninstall
check "--uninstall: the binary is gone" test ! -e "$BIN"
check "--uninstall: B has its previous shell back" test "$(shell_of "$UB")" = /bin/bash
check "--uninstall: approval state kept" test -e "$APPROVALS/requests/0a1b2c3d.json" -a -e "$APPROVALS/approved/0a1b2c3d.0.json"
check "--uninstall: audit file kept, records intact" grep -qF "$probe" "$AUDIT"
check "--uninstall: says what it kept" bash -c \
	"grep -qF 'kept approval state $APPROVALS' '$T/uninstall.log' && grep -qF 'kept audit file $AUDIT' '$T/uninstall.log'"
check "--uninstall: the edited config is kept" test -e "$CONFIG"

# --- --uninstall --purge removes them ------------------------------------------------------------
run_install reinstall "$REPO/install.sh" --binary "$binary"
check "reinstall: the audit file and approval state found again" bash -c \
	"grep -qF '$AUDIT exists' '$T/reinstall.log' && test -e '$APPROVALS/requests/0a1b2c3d.json'"
run_install purge "$REPO/install.sh" --uninstall --purge
check "--purge: approval state removed" test ! -e "$APPROVALS"
check "--purge: audit files removed" test ! -e "$AUDIT_DIR"
check "--purge: says so" bash -c "grep -qF 'purged approval state' '$T/purge.log' && grep -qF 'purged audit' '$T/purge.log'"
check "--purge without --uninstall is a usage error" bash -c "! '$REPO/install.sh' --purge 2>/dev/null"
rm -f "$CONFIG"

# --- an existing configuration's [audit] choice is kept, even one that records nothing ----------
install -d -m 0755 /etc/guarded-sh
printf '[audit]\nsyslog = false\n' >"$CONFIG"
cp "$CONFIG" "$T/no-sink.toml"
# Exit status not checked: a binary that requires a record denies its self-test here.
"$REPO/install.sh" --binary "$binary" >"$T/no-sink.log" 2>&1 || true
check "existing config without a sink: kept as it was" cmp -s "$T/no-sink.toml" "$CONFIG"
check "existing config without a sink: install.sh warns, naming the fix" \
	logged no-sink 'configures no audit sink this host has ([audit] system_log = "off" and no file)'
run_install no-sink-uninstall "$REPO/install.sh" --uninstall --purge
rm -f "$CONFIG"

# --- the audit sink when /dev/log exists, and when journald's socket does ------------------------
if [[ -S $DEV_LOG || -S $JOURNAL_SOCKET ]]; then
	skip "/dev/log only: system_log = auto" "this host has a system log socket already"
else
	listen "$DEV_LOG" "$T/devlog.txt"
	run_install syslog "$REPO/install.sh" --binary "$binary" --user "$UA"
	check "/dev/log only: system_log = auto, no file sink" bash -c \
		"grep -qx 'system_log = \"auto\"' '$CONFIG' && ! grep -q '^file' '$CONFIG' && grep -qF 'sink: the system log ($DEV_LOG exists' '$T/syslog.log'"
	check "/dev/log only: a gated user's record reaches the socket" bash -c \
		"test \"\$(cd / && runuser -u '$UA' -- '$BIN' -c 'echo syslog-$probe')\" = syslog-$probe && sleep 0.2 && grep -qF 'echo syslog-$probe' '$T/devlog.txt'"
	stop_listening
	run_install syslog-uninstall "$REPO/install.sh" --uninstall --purge
	rm -f "$CONFIG"
fi
if [[ -S $JOURNAL_SOCKET ]]; then
	skip "journald: system_log = auto" "this host runs journald already"
else
	listen "$JOURNAL_SOCKET" "$T/journal.txt"
	run_install journald "$REPO/install.sh" --binary "$binary" --user "$UA"
	check "journald's socket: system_log = auto, no file sink" bash -c \
		"grep -qx 'system_log = \"auto\"' '$CONFIG' && ! grep -q '^file' '$CONFIG' && grep -qF \"sink: the system log (journald's socket\" '$T/journald.log'"
	check "journald's socket: a gated user's record reaches it in the native protocol" bash -c \
		"test \"\$(cd / && runuser -u '$UA' -- '$BIN' -c 'echo journald-$probe')\" = journald-$probe && grep -qF 'SYSLOG_IDENTIFIER=guarded-sh' '$T/journal.txt' && grep -qF 'echo journald-$probe' '$T/journal.txt'"
	stop_listening
	run_install journald-uninstall "$REPO/install.sh" --uninstall --purge
	rm -f "$CONFIG"
fi

echo "$passed passed, $failed failed, $skipped skipped"
[[ $failed == 0 ]]
