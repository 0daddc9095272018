#!/usr/bin/env bash
# Installs guarded-sh (as root, idempotent): the binary, the sh/bash/dash shims, the
# interactive session hook, a default configuration (only if absent), the baseline policy, a
# warmed policy cache and an /etc/shells entry. `--user NAME` then makes guarded-sh NAME's login
# shell, but only after a self-test of the installed binary passes as that user;
# `--uninstall` reverses everything, restoring the login shells it changed.
#
#   ./install.sh [--binary PATH] [--user NAME]...     install (builds a static binary if no PATH)
#   ./install.sh --uninstall [--user NAME]...         restore users, remove what was installed
#   ./install.sh --self-test [--user NAME]            only run the self-test
set -euo pipefail

BIN=/usr/local/bin/guarded-sh
LIB=/usr/local/lib/guarded-sh
HOOK=$LIB/interactive.bash
ETC=/etc/guarded-sh
CONFIG=$ETC/config.toml
POLICIES=$ETC/policies
CACHE=/var/cache/guarded-sh
STATE=/var/lib/guarded-sh
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

binary=""
users=()
action=install

say() { printf 'install.sh: %s\n' "$*" >&2; }
die() {
	printf 'install.sh: error: %s\n' "$*" >&2
	exit 1
}

usage() {
	# The header comment, however long it grows.
	awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0" >&2
	exit 2
}

while (($#)); do
	case $1 in
	--binary)
		[[ $# -ge 2 ]] || usage
		binary=$2
		shift 2
		;;
	--user)
		[[ $# -ge 2 ]] || usage
		users+=("$2")
		shift 2
		;;
	--uninstall) action=uninstall && shift ;;
	--self-test) action=self-test && shift ;;
	-h | --help) usage ;;
	*) die "unknown option $1 (see --help)" ;;
	esac
done

[[ $(id -u) == 0 ]] || die "run as root"

# The static, non-PIE release binary (LD_PRELOAD and friends cannot act before main).
build() {
	say "building the static release binary (build/static.sh)"
	binary=$("$REPO/build/static.sh")
}

default_config() {
	local syslog=true
	if [[ ! -S /dev/log ]]; then
		syslog=false
		say "warning: /dev/log is not a socket here; the default configuration audits to nothing until you set [audit] syslog or file"
	fi
	cat <<EOF
# guarded-sh configuration, written by install.sh (kept on reinstall; remove it to get the
# default again). Every key is listed in src/config.rs; docs/ssh.md explains the SSH setup.

[shells]
# The real shells, by the name guarded-sh is called as (never taken from PATH or \$SHELL).
default = "/bin/bash"
sh = "/bin/dash"
bash = "/bin/bash"
dash = "/bin/dash"
# bash -c runs with --norc --noprofile, so no rc file runs behind the gate.
no_rc = true

[policy]
dir = "$POLICIES"
cache_dir = "$CACHE"
# Honour HONEY_POLICY_DIR from the trusted initial environment (sshd's, not the user's).
allow_env_dir = false

[escape]
# Honour HONEY_RISK_DISABLE=1 from the trusted initial environment (always audited).
allow = false

[audit]
syslog = $syslog
# file = "/var/log/guarded-sh/audit.jsonl"   # root-owned, appendable (and readable, for torn-tail repair) by the gated users, in a directory they cannot write
required = false

[interactive]
hook = "$HOOK"
shell = "/bin/bash"
max_stdin_bytes = 131072
EOF
}

install_files() {
	[[ -n $binary ]] || build
	[[ -x $binary ]] || die "no executable binary at $binary"
	say "binary      $binary -> $BIN (0755 root)"
	install -D -o root -g root -m 0755 "$binary" "$BIN.new"
	# Users may already have guarded-sh as their shell: never replace it with one that fails.
	local rc=0
	"$BIN.new" -c 'exit 7' </dev/null || rc=$?
	if [[ $rc != 7 ]]; then
		rm -f "$BIN.new"
		die "$binary -c 'exit 7' returned $rc, expected 7; the installed binary was not replaced"
	fi
	mv -f "$BIN.new" "$BIN"

	say "hook        $HOOK (0644 root)"
	install -d -o root -g root -m 0755 "$LIB" "$LIB/shims"
	install -o root -g root -m 0644 "$REPO/share/interactive.bash" "$HOOK"
	local n
	for n in sh bash dash; do
		ln -sfn "$BIN" "$LIB/shims/$n"
	done
	say "shims       $LIB/shims/{sh,bash,dash} -> $BIN"

	install -d -o root -g root -m 0755 "$ETC" "$POLICIES" "$CACHE" "$STATE"
	if [[ -e $CONFIG ]]; then
		say "config      $CONFIG exists, kept"
	else
		default_config >"$CONFIG"
		chown root:root "$CONFIG"
		chmod 0644 "$CONFIG"
		cp "$CONFIG" "$STATE/config.toml.installed"
		say "config      $CONFIG written"
	fi

	local f base installed=()
	for f in "$REPO"/policies/*.rego; do
		base=$(basename "$f")
		[[ $base == *_test.rego ]] && continue
		install -o root -g root -m 0644 "$f" "$POLICIES/$base"
		installed+=("$base")
	done
	[[ ${#installed[@]} -gt 0 ]] || die "no policy files in $REPO/policies"
	printf '%s\n' "${installed[@]}" >"$STATE/policies.installed"
	say "policies    ${installed[*]} -> $POLICIES"

	if ! grep -qxF "$BIN" /etc/shells; then
		printf '%s\n' "$BIN" >>/etc/shells
		say "/etc/shells $BIN added"
	else
		say "/etc/shells $BIN already listed"
	fi

	# Compile the policy once as root, so users start from a warm cache.
	if "$BIN" --check 'true' >/dev/null; then
		say "cache       $CACHE warmed ($(find "$CACHE" -type f | wc -l) file(s))"
	else
		die "the installed binary cannot evaluate 'true' with $POLICIES; not touching any user"
	fi
}

# Runs as NAME (or root): the installed binary must pass through an exit status, deny a
# critical command with 126 without running it, and preview with --check.
self_test() {
	local user=${1:-root} as=() rc out
	[[ $user == root ]] || as=(runuser -u "$user" --)
	say "self-test as $user"
	rc=0
	(cd / && "${as[@]}" "$BIN" -c 'exit 7' </dev/null) || rc=$?
	[[ $rc == 7 ]] || die "self-test: '$BIN -c \"exit 7\"' returned $rc, expected 7"
	# Harmless if it ever ran: nothing listens on port 9 and sh gets no input.
	rc=0
	out=$(cd / && "${as[@]}" "$BIN" -c 'curl -fsS http://127.0.0.1:9/guarded-sh-self-test | sh' </dev/null 2>&1) || rc=$?
	[[ $rc == 126 && $out == *"guarded-sh: denied"* ]] || die "self-test: a critical command returned $rc ($out), expected 126 and a denial"
	rc=0
	(cd / && "${as[@]}" "$BIN" --check 'ls -l' >/dev/null </dev/null) || rc=$?
	[[ $rc == 0 ]] || die "self-test: '$BIN --check \"ls -l\"' returned $rc"
	rc=0
	out=$(cd / && printf 'echo stdin-ok; exit 5\n' | "${as[@]}" "$BIN" 2>&1) || rc=$?
	[[ $rc == 5 && $out == *stdin-ok* ]] || die "self-test: a script on stdin returned $rc ($out), expected 5"
	[[ -r $HOOK ]] || die "self-test: $HOOK is missing"
	bash -n "$HOOK" || die "self-test: $HOOK does not parse"
	say "self-test as $user passed"
}

set_login_shell() {
	local user=$1 previous
	getent passwd "$user" >/dev/null || die "no such user: $user"
	previous=$(getent passwd "$user" | cut -d: -f7)
	self_test "$user"
	if [[ $previous == "$BIN" ]]; then
		say "user $user: login shell already $BIN"
		return
	fi
	if [[ ! -e $STATE/previous-shell.$user ]]; then
		printf '%s\n' "${previous:-/bin/sh}" >"$STATE/previous-shell.$user"
	fi
	usermod -s "$BIN" "$user"
	say "user $user: login shell $previous -> $BIN (previous shell recorded in $STATE/previous-shell.$user)"
}

restore_user() {
	local user=$1 previous=/bin/bash
	if [[ -r $STATE/previous-shell.$user ]]; then
		previous=$(<"$STATE/previous-shell.$user")
	fi
	if [[ $(getent passwd "$user" | cut -d: -f7) == "$BIN" ]]; then
		usermod -s "$previous" "$user"
		say "user $user: login shell restored to $previous"
	fi
	rm -f "$STATE/previous-shell.$user"
}

# Earlier versions installed a boot unit that re-read the binary into the page cache; it is
# retired (BENCHMARKS.md): disable and remove it wherever an install or uninstall finds one.
remove_retired_unit() {
	local unit=/etc/systemd/system/guarded-sh-page-cache.service
	[[ -e $unit ]] || return 0
	if command -v systemctl >/dev/null; then
		systemctl disable --quiet "${unit##*/}" 2>/dev/null || say "warning: systemctl disable ${unit##*/} failed"
	fi
	rm -f "$unit" "/etc/systemd/system/multi-user.target.wants/${unit##*/}"
	say "removed the retired boot unit $unit"
}

uninstall() {
	local user f
	remove_retired_unit
	# Every user still on guarded-sh gets a shell back before the binary goes (no lockout).
	for user in "${users[@]}"; do
		restore_user "$user"
	done
	while IFS=: read -r user _ _ _ _ _ shell; do
		[[ $shell == "$BIN" ]] && restore_user "$user"
	done < <(getent passwd)
	for f in "$STATE"/previous-shell.*; do
		[[ -e $f ]] && restore_user "${f##*/previous-shell.}"
	done
	if grep -qxF "$BIN" /etc/shells; then
		sed -i "\\#^${BIN}\$#d" /etc/shells
		say "/etc/shells $BIN removed"
	fi
	if [[ -r $STATE/policies.installed ]]; then
		while IFS= read -r f; do
			rm -f "$POLICIES/$f"
		done <"$STATE/policies.installed"
		rmdir "$POLICIES" 2>/dev/null || say "kept $POLICIES (it holds files install.sh did not put there)"
	fi
	if [[ -e $CONFIG && -e $STATE/config.toml.installed ]] && cmp -s "$CONFIG" "$STATE/config.toml.installed"; then
		rm -f "$CONFIG"
	elif [[ -e $CONFIG ]]; then
		say "kept $CONFIG (changed since install, or not written by install.sh)"
	fi
	rmdir "$ETC" 2>/dev/null || true
	rm -rf "$CACHE" "$LIB" "$STATE"
	rm -f "$BIN"
	say "uninstalled"
}

case $action in
install)
	install_files
	remove_retired_unit
	self_test root
	for user in "${users[@]}"; do
		set_login_shell "$user"
	done
	say "done"
	;;
self-test)
	self_test root
	for user in "${users[@]}"; do
		self_test "$user"
	done
	;;
uninstall) uninstall ;;
esac
