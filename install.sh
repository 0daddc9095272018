#!/usr/bin/env bash
# Installs guarded-sh (as root, idempotent): the binary, the sh/bash/dash shims, the
# interactive session hook, a default configuration (only if absent; its audit sink is journald
# or the system log where their socket exists, else a root-owned, append-only JSON-lines file),
# the baseline policy (as a package manager treats a conffile: replaced only when unchanged since
# the last install, else the new one is written next to it as baseline.rego.dist), the approvers
# group and approval directories when the configuration has `[approval] group`, a warmed policy
# cache and an /etc/shells entry. `--user NAME` then makes guarded-sh NAME's login shell, but only
# after a self-test of the installed binary passes as that user; on a current install it changes
# only that account, and then warns about each sshd setting (read from `sshd -T` for NAME) that
# lets NAME around the login shell (share/sshd-settings.sh). `--uninstall` reverses the install,
# restoring the login shells it changed; it keeps approval state and audit files unless `--purge`
# is given too.
#
#   ./install.sh [--binary PATH] [--user NAME]... [--sshd-config FILE]
#                                                     install (builds a static binary if no PATH);
#                                                     FILE: sshd's config when not the default
#   ./install.sh --remove-user NAME [--remove-user NAME]...
#                                                     NAME's previous login shell back, nothing else
#   ./install.sh --uninstall [--purge] [--user NAME]... restore users, remove what was installed
#                                                     (--purge: approval state and audit files too)
#   ./install.sh --self-test [--user NAME]            only run the self-test
set -euo pipefail

BIN=/usr/local/bin/guarded-sh
LIB=/usr/local/lib/guarded-sh
HOOK=$LIB/interactive.bash
SSHD_CHECK=$LIB/sshd-settings.sh
ETC=/etc/guarded-sh
CONFIG=$ETC/config.toml
POLICIES=$ETC/policies
CACHE=/var/cache/guarded-sh
STATE=/var/lib/guarded-sh
APPROVALS=$STATE/approvals
AUDIT_DIR=/var/log/guarded-sh
AUDIT_FILE=$AUDIT_DIR/audit.jsonl
JOURNAL_SOCKET=/run/systemd/journal/socket
DEV_LOG=/dev/log
# sha256 of the installed binary and hook, and of each shipped policy file as last installed.
INSTALLED_SUMS=$STATE/installed.sha256
POLICY_SUMS=$STATE/policies.sha256
RETIRED_UNIT=/etc/systemd/system/guarded-sh-page-cache.service
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

binary=""
users=()
remove_users=()
sshd_config=""
action=install
purge=false

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
	--sshd-config)
		[[ $# -ge 2 ]] || usage
		sshd_config=$2
		shift 2
		;;
	--remove-user)
		[[ $# -ge 2 ]] || usage
		remove_users+=("$2")
		action=remove-user
		shift 2
		;;
	--uninstall) action=uninstall && shift ;;
	--purge) purge=true && shift ;;
	--self-test) action=self-test && shift ;;
	-h | --help) usage ;;
	*) die "unknown option $1 (see --help)" ;;
	esac
done

[[ $purge == false || $action == uninstall ]] || die "--purge goes with --uninstall"
[[ ${#remove_users[@]} == 0 || ($action == remove-user && ${#users[@]} == 0) ]] ||
	die "--remove-user goes alone (not with --user, --uninstall or --self-test)"
[[ $(id -u) == 0 ]] || die "run as root"

sha() { sha256sum "$1" | cut -d' ' -f1; }

# toml_get SECTION KEY FILE: the value of KEY in [SECTION] of FILE (a basic string without
# escapes, or a bare value such as true), empty when absent. Enough for the keys read here.
toml_get() {
	[[ -r $3 ]] || return 0
	awk -v sec="$1" -v key="$2" '
		/^[[:space:]]*\[/ { cur = $0; gsub(/^[[:space:]]*\[[[:space:]]*|[[:space:]]*\][[:space:]]*(#.*)?$/, "", cur); next }
		cur == sec && $0 ~ "^[[:space:]]*" key "[[:space:]]*=" {
			v = $0; sub(/^[^=]*=[[:space:]]*/, "", v)
			if (v ~ /^"/) { sub(/^"/, "", v); sub(/".*$/, "", v) } else sub(/[[:space:]]*(#.*)?$/, "", v)
			print v; exit
		}' "$3"
}

# The static, non-PIE release binary (LD_PRELOAD and friends cannot act before main).
build() {
	# Exec supervision links libseccomp's static archive (Debian: libseccomp-dev).
	if [[ ! -e /usr/lib/x86_64-linux-gnu/libseccomp.a ]] && command -v apt-get >/dev/null; then
		say "installing libseccomp-dev (the static libseccomp the build links)"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libseccomp-dev >/dev/null
	fi
	say "building the static release binary (build/static.sh)"
	binary=$("$REPO/build/static.sh")
}

# The sink a new configuration gets: journald where its socket exists, else the system log,
# else the JSON-lines file.
default_sink() {
	if [[ -S $JOURNAL_SOCKET ]]; then
		echo journald
	elif [[ -S $DEV_LOG ]]; then
		echo syslog
	else
		echo file
	fi
}

# The [audit] section of a new configuration for sink $1. `system_log = "auto"` lets the binary
# pick journald where it runs, else /dev/log.
audit_section() {
	if [[ $1 == file ]]; then
		cat <<EOF
[audit]
# No journald socket ($JOURNAL_SOCKET) and no $DEV_LOG when this was written: records go to
# a root-owned JSON-lines file every user can append to but only root can read, append-only
# (chattr +a) where the filesystem allows it, in a directory only root can write.
system_log = "off"
file = "$AUDIT_FILE"
EOF
	else
		cat <<EOF
[audit]
# $1 was found when this was written: every record goes to the system log (journald where it
# runs, else $DEV_LOG, facility authpriv).
system_log = "auto"
# file = "$AUDIT_FILE"   # also a JSON-lines file: root-owned 0622, in a directory only root can write
EOF
	fi
	echo "required = false"
}

default_config() {
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

$(audit_section "$1")

[interactive]
hook = "$HOOK"
shell = "/bin/bash"
max_stdin_bytes = 131072

# Second-person approval of held commands (docs/approvals.md). With a group set, install.sh
# creates the group and the approval directories.
# [approval]
# group = "guarded-approvers"
# ttl_seconds = 900
EOF
}

install_config() {
	local sink
	if [[ -e $CONFIG ]]; then
		say "config      $CONFIG exists, kept (and its [audit] choice)"
		return
	fi
	sink=$(default_sink)
	default_config "$sink" >"$CONFIG.new"
	chown root:root "$CONFIG.new"
	chmod 0644 "$CONFIG.new"
	mv -f "$CONFIG.new" "$CONFIG"
	cp "$CONFIG" "$STATE/config.toml.installed"
	say "config      $CONFIG written"
	case $sink in
	journald) say "audit       sink: the system log (journald's socket $JOURNAL_SOCKET exists): system_log = \"auto\"" ;;
	syslog) say "audit       sink: the system log ($DEV_LOG exists, no journald): system_log = \"auto\"" ;;
	file) say "audit       sink: the JSON-lines file $AUDIT_FILE (no journald socket, no $DEV_LOG): system_log = \"off\", file = \"$AUDIT_FILE\"" ;;
	esac
}

# The JSON-lines file the configuration names: its directory root-owned and writable by root
# only, the file root-owned, mode 0622 when created here (every user appends, only root reads
# the records), append-only where the filesystem allows it. Reports what it found and did.
prepare_audit_file() {
	local file=$1 dir err
	[[ $file == /* ]] || die "[audit] file = \"$file\" is not an absolute path"
	dir=${file%/*}
	dir=${dir:-/}
	[[ ! -L $dir ]] || die "the audit directory $dir is a symbolic link"
	if [[ ! -d $dir ]]; then
		install -d -o root -g root -m 0755 "$dir"
		say "audit       directory $dir created (0755 root:root)"
	elif [[ $dir == "$AUDIT_DIR" ]]; then
		chown root:root "$dir"
		chmod 0755 "$dir"
	elif [[ $(stat -c %u "$dir") != 0 ]] || (($(stat -c '0%a' "$dir") & 022)); then
		say "warning: the audit directory $dir is not root-owned or is writable by others: guarded-sh refuses the file for gated users"
	fi
	[[ ! -L $file ]] || die "the audit file $file is a symbolic link (guarded-sh never follows one)"
	if [[ ! -e $file ]]; then
		install -o root -g root -m 0622 /dev/null "$file"
		say "audit       file $file created (0622 root:root: every user appends, only root reads)"
	elif [[ ! -f $file ]]; then
		die "the audit file $file is not a regular file"
	else
		say "audit       file $file exists ($(stat -c '%04a %U:%G' "$file")), kept"
		[[ $(stat -c %u "$file") == 0 ]] ||
			say "warning: $file is not owned by root: guarded-sh refuses it for its owner; chown root:root it"
	fi
	if lsattr -d "$file" 2>/dev/null | cut -d' ' -f1 | grep -q a; then
		say "audit       append-only attribute already set on $file (chattr +a)"
	elif err=$(chattr +a "$file" 2>&1); then
		say "audit       append-only attribute set on $file (chattr +a): no one can truncate or rewrite it (rotate with chattr -a first)"
	else
		say "warning: the append-only attribute could not be set on $file (chattr +a: ${err:-refused}): users who append can also truncate or rewrite it; journald or syslog is the sink that prevents that"
	fi
}

# Reports the configuration's audit choice and prepares its file sink, if any; warns when the
# choice records nothing on this host (guarded-sh then denies every gated command).
audit_sinks() {
	local syslog system_log file journald devlog
	syslog=$(toml_get audit syslog "$CONFIG")
	system_log=$(toml_get audit system_log "$CONFIG")
	file=$(toml_get audit file "$CONFIG")
	journald=$(toml_get audit journald_socket "$CONFIG")
	devlog=$(toml_get audit syslog_socket "$CONFIG")
	journald=${journald:-$JOURNAL_SOCKET}
	devlog=${devlog:-$DEV_LOG}
	if [[ -z $system_log ]]; then
		# The old key: syslog = false is "off", true (or nothing) is "auto".
		[[ $syslog == false ]] && system_log=off || system_log=auto
	fi
	say "audit       configured: system_log = \"$system_log\"${file:+, file = $file}"
	[[ -z $file ]] || prepare_audit_file "$file"
	[[ -z $file ]] || return 0
	case $system_log in
	auto) [[ -S $journald || -S $devlog ]] && return 0 ;;
	journald) [[ -S $journald ]] && return 0 ;;
	syslog) [[ -S $devlog ]] && return 0 ;;
	esac
	say "warning: $CONFIG configures no audit sink this host has ([audit] system_log = \"$system_log\" and no file), so guarded-sh denies every gated command [audit.no_sink]; install.sh keeps your [audit] choice: set file = \"$AUDIT_FILE\" there (install.sh then prepares it) or system_log = \"auto\" where journald or $devlog runs"
}

# With `[approval] group` configured: the group, and the approval directories with the owners
# and modes src/approval/store.rs relies on (docs/approvals.md).
setup_approvals() {
	local group dir d
	group=$(toml_get approval group "$CONFIG")
	[[ -n $group ]] || return 0
	dir=$(toml_get approval dir "$CONFIG")
	dir=${dir:-$APPROVALS}
	[[ $dir == /?* ]] || die "[approval] dir = \"$dir\" is not an absolute path"
	if getent group "$group" >/dev/null; then
		say "approvals   group $group exists"
	else
		groupadd --system "$group"
		say "approvals   group $group created (add an approver: usermod -aG $group NAME)"
	fi
	for d in "$dir" "$dir/requests" "$dir/approved"; do
		[[ ! -L $d ]] || die "the approval directory $d is a symbolic link"
	done
	install -d -o root -g root -m 0755 "$dir"
	install -d -o root -g "$group" -m 3773 "$dir/requests"
	install -d -o root -g "$group" -m 3775 "$dir/approved"
	say "approvals   $dir (0755 root:root), requests/ (3773 root:$group), approved/ (3775 root:$group)"
}

# The shipped policies, each like a package manager's conffile: installed when absent, replaced
# when unchanged since the last install (its sha256 is in $POLICY_SUMS), else kept, with the
# shipped version written next to it as NAME.dist.
install_policies() {
	local f base dest shipped current recorded sums=() names=()
	for f in "$REPO"/policies/*.rego; do
		base=$(basename "$f")
		[[ $base == *_test.rego ]] && continue
		dest=$POLICIES/$base
		shipped=$(sha "$f")
		recorded=$(awk -v n="$base" '$2 == n {print $1; exit}' "$POLICY_SUMS" 2>/dev/null || true)
		if [[ -L $dest ]]; then
			die "$dest is a symbolic link; not touching it"
		elif [[ ! -e $dest ]]; then
			install -o root -g root -m 0644 "$f" "$dest.new" && mv -f "$dest.new" "$dest"
			say "policy      $base installed in $POLICIES"
		elif [[ $(sha "$dest") == "$shipped" ]]; then
			say "policy      $base is the shipped version, kept"
		elif current=$(sha "$dest") && [[ -n $recorded && $current == "$recorded" ]]; then
			install -o root -g root -m 0644 "$f" "$dest.new" && mv -f "$dest.new" "$dest"
			say "policy      $base replaced by the new shipped version (unchanged since the last install)"
		else
			install -o root -g root -m 0644 "$f" "$dest.dist"
			say "policy      $base was changed since the last install: kept; the shipped version is $dest.dist (compare, merge, then remove it)"
		fi
		if [[ -e $dest.dist && $(sha "$dest") == "$shipped" ]]; then rm -f "$dest.dist"; fi
		sums+=("$shipped  $base")
		names+=("$base")
	done
	[[ ${#names[@]} -gt 0 ]] || die "no policy files in $REPO/policies"
	printf '%s\n' "${sums[@]}" >"$POLICY_SUMS"
	printf '%s\n' "${names[@]}" >"$STATE/policies.installed"
}

install_files() {
	[[ -n $binary ]] || build
	[[ -x $binary ]] || die "no executable binary at $binary"
	# The configuration, its audit sink and the policy first: the new binary is tried with them.
	install -d -o root -g root -m 0755 "$ETC" "$POLICIES" "$CACHE" "$STATE"
	install_config
	audit_sinks
	setup_approvals
	install_policies

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

	say "hook        $HOOK (0644 root); sshd settings check $SSHD_CHECK"
	install -d -o root -g root -m 0755 "$LIB" "$LIB/shims"
	install -o root -g root -m 0644 "$REPO/share/interactive.bash" "$HOOK"
	install -o root -g root -m 0755 "$REPO/share/sshd-settings.sh" "$SSHD_CHECK"
	local n
	for n in sh bash dash; do
		ln -sfn "$BIN" "$LIB/shims/$n"
	done
	say "shims       $LIB/shims/{sh,bash,dash} -> $BIN"


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
	sha256sum "$BIN" "$HOOK" >"$INSTALLED_SUMS"
}

# True when everything install_files puts in place is there, as it left it, and current: the
# binary (the one --binary names, if given), the hook and the shipped policies are the ones
# installed last, no retired unit of an earlier version is left, and what the configuration
# asks for (its audit file, approvers group and directories) is in place. Then `--user` changes
# only the account.
install_is_current() {
	local f base n
	[[ -r $INSTALLED_SUMS && -e $CONFIG && -r $POLICY_SUMS ]] || return 1
	sha256sum --check --status "$INSTALLED_SUMS" 2>/dev/null || return 1
	[[ -z $binary || $(sha "$binary") == "$(sha "$BIN")" ]] || return 1
	[[ $(sha "$REPO/share/interactive.bash") == "$(sha "$HOOK")" ]] || return 1
	[[ -e $SSHD_CHECK && $(sha "$REPO/share/sshd-settings.sh") == "$(sha "$SSHD_CHECK")" ]] || return 1
	for n in sh bash dash; do
		[[ $(readlink "$LIB/shims/$n") == "$BIN" ]] || return 1
	done
	grep -qxF "$BIN" /etc/shells || return 1
	[[ ! -e $RETIRED_UNIT ]] || return 1
	# What the configuration asks for: its audit file, its approvers group and directories.
	f=$(toml_get audit file "$CONFIG")
	[[ -z $f || -f $f ]] || return 1
	n=$(toml_get approval group "$CONFIG")
	if [[ -n $n ]]; then
		getent group "$n" >/dev/null || return 1
		f=$(toml_get approval dir "$CONFIG")
		f=${f:-$APPROVALS}
		[[ $(stat -c '%a %U:%G' "$f/requests" "$f/approved" 2>/dev/null) == "3773 root:$n"$'\n'"3775 root:$n" ]] || return 1
	fi
	for f in "$REPO"/policies/*.rego; do
		base=$(basename "$f")
		[[ $base == *_test.rego ]] && continue
		grep -qxF "$(sha "$f")  $base" "$POLICY_SUMS" || return 1
	done
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

# Warns about each sshd setting that lets USER around the login shell; never fails the install
# (the warnings are the point, and an sshd that cannot be read is said so).
check_sshd_settings() {
	local user=$1
	"$REPO/share/sshd-settings.sh" ${sshd_config:+--sshd-config "$sshd_config"} "$user" || true
}

# Gives USER the login shell recorded before guarded-sh (or /bin/bash, also when the recorded
# one is no longer executable) and forgets the record; a user on another shell keeps it.
restore_user() {
	local user=$1 previous=/bin/bash current
	if [[ -r $STATE/previous-shell.$user ]]; then
		previous=$(<"$STATE/previous-shell.$user")
	fi
	if [[ ! -x $previous ]]; then
		say "user $user: the recorded shell $previous is not executable; using /bin/bash"
		previous=/bin/bash
	fi
	current=$(getent passwd "$user" | cut -d: -f7) || current=""
	if [[ $current == "$BIN" ]]; then
		usermod -s "$previous" "$user"
		say "user $user: login shell restored to $previous"
	else
		say "user $user: login shell is ${current:-unknown}, not $BIN: left alone"
	fi
	rm -f "$STATE/previous-shell.$user"
}

# Earlier versions installed a boot unit that re-read the binary into the page cache; it is
# retired (BENCHMARKS.md): disable and remove it wherever an install or uninstall finds one.
remove_retired_unit() {
	local unit=$RETIRED_UNIT
	[[ -e $unit ]] || return 0
	if command -v systemctl >/dev/null; then
		systemctl disable --quiet "${unit##*/}" 2>/dev/null || say "warning: systemctl disable ${unit##*/} failed"
	fi
	rm -f "$unit" "/etc/systemd/system/multi-user.target.wants/${unit##*/}"
	say "removed the retired boot unit $unit"
}


# Removes the approval directory DIR's records (requests/ and approved/, nothing else) and DIR
# when that leaves it empty.
purge_approvals() {
	local dir=$1 d
	[[ -d $dir && ! -L $dir ]] || return 0
	for d in "$dir/requests" "$dir/approved"; do
		if [[ -d $d && ! -L $d ]]; then rm -rf -- "$d"; fi
	done
	if rmdir -- "$dir" 2>/dev/null; then
		say "purged approval state $dir"
	else
		say "purged $dir/requests and $dir/approved; kept $dir (it holds files install.sh did not put there)"
	fi
}

# Removes the audit file FILE (append-only attribute lifted first) and $AUDIT_DIR.
purge_audit() {
	local file=$1 f
	if [[ -n $file && -f $file && ! -L $file ]]; then
		chattr -a -- "$file" 2>/dev/null || true
		rm -f -- "$file"
		say "purged audit file $file"
	fi
	if [[ -d $AUDIT_DIR && ! -L $AUDIT_DIR ]]; then
		while IFS= read -r -d '' f; do chattr -a -- "$f" 2>/dev/null || true; done < <(find "$AUDIT_DIR" -type f -print0)
		rm -rf -- "$AUDIT_DIR"
		say "purged audit directory $AUDIT_DIR"
	fi
}

uninstall() {
	local user f approvals audit_file group
	# Where the state lives, read before the configuration goes.
	group=$(toml_get approval group "$CONFIG")
	approvals=$(toml_get approval dir "$CONFIG")
	approvals=${approvals:-$APPROVALS}
	audit_file=$(toml_get audit file "$CONFIG")
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
	# A shipped policy is removed when it is unchanged since it was installed (a conffile).
	if [[ -r $STATE/policies.installed ]]; then
		while IFS= read -r f; do
			rm -f "$POLICIES/$f.dist"
			[[ -e $POLICIES/$f ]] || continue
			if grep -qxF "$(sha "$POLICIES/$f")  $f" "$POLICY_SUMS" 2>/dev/null; then
				rm -f "$POLICIES/$f"
			else
				say "kept $POLICIES/$f (changed since install)"
			fi
		done <"$STATE/policies.installed"
		rmdir "$POLICIES" 2>/dev/null || say "kept $POLICIES (it holds files install.sh did not put there, or that you changed)"
	fi
	if [[ -e $CONFIG && -e $STATE/config.toml.installed ]] && cmp -s "$CONFIG" "$STATE/config.toml.installed"; then
		rm -f "$CONFIG"
	elif [[ -e $CONFIG ]]; then
		say "kept $CONFIG (changed since install, or not written by install.sh)"
	fi
	rmdir "$ETC" 2>/dev/null || true
	rm -rf "$CACHE" "$LIB"
	rm -f "$BIN"
	# install.sh's own records go; the approval state stays unless --purge.
	if [[ -d $STATE ]]; then
		find "$STATE" -mindepth 1 -maxdepth 1 ! -path "$APPROVALS" ! -path "$approvals" -exec rm -rf -- {} +
	fi
	if [[ $purge == true ]]; then
		purge_approvals "$approvals"
		[[ $approvals == "$APPROVALS" ]] || purge_approvals "$APPROVALS"
		purge_audit "$audit_file"
	else
		if [[ -d $APPROVALS ]]; then say "kept approval state $APPROVALS (--uninstall --purge removes it)"; fi
		if [[ $approvals != "$APPROVALS" && -d $approvals ]]; then
			say "kept approval state $approvals (--uninstall --purge removes it)"
		fi
		if [[ -n $audit_file && -e $audit_file ]]; then
			say "kept audit file $audit_file (--uninstall --purge removes it)"
		elif [[ -d $AUDIT_DIR ]]; then
			say "kept audit files in $AUDIT_DIR (--uninstall --purge removes them)"
		fi
	fi
	rmdir "$STATE" 2>/dev/null || true
	if [[ -n $group ]] && getent group "$group" >/dev/null; then
		say "kept the approvers group $group (groupdel $group removes it)"
	fi
	say "uninstalled"
}

case $action in
install)
	if ((${#users[@]})) && install_is_current; then
		say "guarded-sh is installed and current${binary:+ (the binary $binary is the installed one)}: changing only the login shell of ${users[*]}"
		[[ -n $binary ]] || say "(no --binary given: the installed binary is kept; ./install.sh without --user upgrades)"
	else
		install_files
		remove_retired_unit
		self_test root
	fi
	for user in "${users[@]}"; do
		set_login_shell "$user"
		check_sshd_settings "$user"
	done
	say "done"
	;;
remove-user)
	for user in "${remove_users[@]}"; do
		getent passwd "$user" >/dev/null || die "no such user: $user"
		restore_user "$user"
	done
	;;
self-test)
	self_test root
	for user in "${users[@]}"; do
		self_test "$user"
	done
	;;
uninstall) uninstall ;;
esac
