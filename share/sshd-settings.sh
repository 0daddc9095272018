#!/usr/bin/env bash
# Checks the running sshd's effective settings for gated users and warns, one line per setting,
# about each that lets a user reach the host around guarded-sh (forwarding, internal-sftp), run a
# file before the login shell (~/.ssh/rc), or hand the session an environment that changes what
# runs (~/.ssh/environment, AcceptEnv, SetEnv). It reads `sshd -T -C user=NAME,...` (Match blocks
# are evaluated as for a login from 127.0.0.1), so it reports what sshd would do, not what a file
# says. install.sh runs it for every `--user NAME`; docs/ssh.md explains each setting.
#
#   share/sshd-settings.sh [--sshd-config FILE] NAME...
#
# Exit status: 0 when every setting is safe, 1 when there is a warning, 2 when sshd's settings
# could not be read (sshd missing, a config it refuses, no host key).
set -euo pipefail

# Environment names a client must not be able to set for a gated user: each changes what the
# shell runs or how guarded-sh decides. BASH_FUNC_x%% stands for an exported function.
DANGEROUS_ENV=(BASH_ENV ENV SHELLOPTS BASHOPTS PS4 PROMPT_COMMAND IFS PATH BASH_FUNC_ls%%
	LD_PRELOAD LD_LIBRARY_PATH LD_AUDIT HONEY_RISK_DISABLE HONEY_POLICY_DIR GUARDED_SH_CONFIG
	GUARDED_SH_SESSION)

sshd_config=""
users=()
while (($#)); do
	case $1 in
	--sshd-config)
		[[ $# -ge 2 ]] || {
			echo "usage: $0 [--sshd-config FILE] NAME..." >&2
			exit 2
		}
		sshd_config=$2
		shift 2
		;;
	-h | --help)
		awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0" >&2
		exit 0
		;;
	*)
		users+=("$1")
		shift
		;;
	esac
done
((${#users[@]})) || {
	echo "usage: $0 [--sshd-config FILE] NAME..." >&2
	exit 2
}

say() { printf 'sshd-settings: %s\n' "$*" >&2; }

sshd=$(PATH=/usr/sbin:/usr/local/sbin:/sbin:$PATH command -v sshd) || {
	say "sshd is not installed: no sshd settings to check"
	exit 2
}

# An sshd pattern (`*`, `?`) matching NAME, compared literally otherwise.
pattern_matches() {
	local pattern=$1 name=$2 glob="" c i
	for ((i = 0; i < ${#pattern}; i++)); do
		c=${pattern:i:1}
		case $c in
		'*' | '?') glob+=$c ;;
		*) glob+="\\$c" ;;
		esac
	done
	# shellcheck disable=SC2053 # $glob is the pattern, by design
	[[ $name == $glob ]]
}

warnings=()
warn() { warnings+=("$*"); }

status=0
for user in "${users[@]}"; do
	args=(-T -C "user=$user,host=localhost,addr=127.0.0.1")
	[[ -z $sshd_config ]] || args+=(-f "$sshd_config")
	if ! settings=$("$sshd" "${args[@]}" 2>&1); then
		say "user $user: could not read sshd's settings ($sshd ${args[*]}: ${settings%%$'\n'*}); check them by hand (docs/ssh.md, \"sshd settings that matter\")"
		status=2
		continue
	fi
	declare -A one=()
	accept=()
	setenv=()
	subsystems=()
	while read -r key value; do
		case $key in
		acceptenv) accept+=("$value") ;;
		setenv) setenv+=("$value") ;;
		subsystem) subsystems+=("$value") ;;
		*) one[$key]=$value ;;
		esac
	done <<<"$settings"
	warnings=()

	[[ ${one[permituserrc]-} != yes ]] ||
		warn "PermitUserRC yes: ~/.ssh/rc, a file the user can write, runs at every login before the session; set PermitUserRC no"
	[[ ${one[permituserenvironment]-no} == no ]] ||
		warn "PermitUserEnvironment ${one[permituserenvironment]}: ~/.ssh/environment can set BASH_ENV, LD_PRELOAD or GUARDED_SH_CONFIG for every login; set PermitUserEnvironment no"
	for pattern in "${accept[@]}"; do
		for name in "${DANGEROUS_ENV[@]}"; do
			if pattern_matches "$pattern" "$name"; then
				warn "AcceptEnv $pattern: a client can send $name, which changes what the session runs; accept only LANG and LC_*"
				break
			fi
		done
	done
	for assignment in "${setenv[@]}"; do
		name=${assignment%%=*}
		case $name in
		HONEY_* | GUARDED_SH_* | BASH_ENV | ENV | LD_* | BASH_FUNC_*)
			warn "SetEnv $name: sshd gives every login $name, which changes how guarded-sh decides or what the shell runs; remove it"
			;;
		esac
	done
	if [[ ${one[disableforwarding]-no} != yes ]]; then
		[[ ${one[allowtcpforwarding]-no} == no ]] ||
			warn "AllowTcpForwarding ${one[allowtcpforwarding]}: ssh -L/-R/-D/-W connects through the host without a shell; set DisableForwarding yes"
		[[ ${one[allowstreamlocalforwarding]-no} == no ]] ||
			warn "AllowStreamLocalForwarding ${one[allowstreamlocalforwarding]}: a client reaches the host's Unix sockets without a shell; set DisableForwarding yes"
		[[ ${one[allowagentforwarding]-no} != yes ]] ||
			warn "AllowAgentForwarding yes: the session gets the client's agent, which guarded-sh does not see used; set DisableForwarding yes"
		[[ ${one[x11forwarding]-no} != yes ]] ||
			warn "X11Forwarding yes: X11 clients on the host reach the client's display without a gate; set DisableForwarding yes"
	fi
	[[ ${one[permittunnel]-no} == no ]] ||
		warn "PermitTunnel ${one[permittunnel]}: a tun device carries traffic without a shell; set PermitTunnel no"
	for subsystem in "${subsystems[@]}"; do
		[[ $subsystem != *internal-sftp* ]] ||
			warn "Subsystem $subsystem: internal-sftp is served inside sshd, so sftp and scp never run the login shell; use /usr/lib/openssh/sftp-server"
	done
	[[ ${one[forcecommand]-none} != *internal-sftp* ]] ||
		warn "ForceCommand ${one[forcecommand]}: internal-sftp is served inside sshd without the login shell; use /usr/lib/openssh/sftp-server"

	if ((${#warnings[@]})); then
		say "user $user: ${#warnings[@]} sshd setting(s) let this user around guarded-sh (from $sshd -T; see docs/ssh.md):"
		for w in "${warnings[@]}"; do say "  warning: $w"; done
		[[ $status == 2 ]] || status=1
	else
		say "user $user: sshd's settings are safe for a gated user"
	fi
	unset one
done
exit "$status"
