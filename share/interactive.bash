# guarded-sh interactive session hook. Root-owned, read by bash as its --rcfile:
#   bash --noprofile --rcfile /usr/local/lib/guarded-sh/interactive.bash -i
# (guarded-sh execs that for a login or terminal session; see DESIGN §5 and
# reference/login-shell.md §3). Before any user file is read it
#   1. starts the check server (`guarded-sh --serve`) as a coprocess, policies loaded once;
#   2. installs a DEBUG trap that, with extdebug, skips every simple command the gate denies;
#      inside subshells, or when the server is gone, it runs `guarded-sh --hook-check` instead;
#   3. protects itself: readonly functions and variables, extdebug/functrace re-asserted on
#      every command, user functions that would shadow the builtins it calls removed (in POSIX
#      mode, where `unset` cannot be shadowed), its channel closed to redirection;
#   4. then sources /etc/profile and the first of ~/.bash_profile, ~/.bash_login, ~/.profile,
#      every command of which is gated.
# `exit` and `logout` always run. A user PROMPT_COMMAND works (its commands are gated too).
# shellcheck shell=bash disable=SC2034,SC1090,SC1091

# Nothing from the environment runs behind the gate.
unset BASH_ENV ENV

# What guarded-sh handed over, fixed before any user code runs.
__gsh_bin=${GUARDED_SH_BIN:-/usr/local/bin/guarded-sh}
__gsh_config=${GUARDED_SH_CONFIG-}
__gsh_policy_dir=${HONEY_POLICY_DIR-}
__gsh_escape=${HONEY_RISK_DISABLE-}
unset GUARDED_SH_BIN
readonly __gsh_bin __gsh_config __gsh_policy_dir __gsh_escape

# The check server. Its pipes are close-on-exec in bash; it is disowned so `jobs`, `wait`
# and `kill %N` never see it.
coproc __GSH_CO { exec "$__gsh_bin" --serve; }
__gsh_rfd=${__GSH_CO[0]-}
__gsh_wfd=${__GSH_CO[1]-}
__gsh_srv=${__GSH_CO_PID-}
readonly __gsh_rfd __gsh_wfd __gsh_srv
[[ -n $__gsh_srv ]] && disown "$__gsh_srv" 2>/dev/null

# Redirecting the channel's descriptors (`exec 63<file`, `>&60`) is refused before any check.
if [[ -n $__gsh_rfd && -n $__gsh_wfd ]]; then
	__gsh_chan_re="(^|[^0-9])(${__gsh_rfd}|${__gsh_wfd})[<>]|[<>]&[[:space:]]*(${__gsh_rfd}|${__gsh_wfd})([^0-9]|$)"
else
	__gsh_chan_re='^$.'
fi
__gsh_exit_re='^[[:space:]]*(builtin[[:space:]]+)?(exit|logout)([[:space:]]+([0-9]{1,3}|\$\?|"\$@"))?[[:space:]]*$'
readonly __gsh_chan_re __gsh_exit_re

# The check for one simple command. Runs inside the DEBUG trap in POSIX mode (the trap set it
# and removed shadowing functions); returns 0 to run the command, non-zero to skip it. Every
# variable it uses is local and initialised; a local that cannot be created (a readonly global
# of the same name) refuses the command.
__gsh_guard() {
	local __gsh_c='' __gsh_f=- __gsh_n='' __gsh_r='' __gsh_s=1 || return 1
	__gsh_c=$BASH_COMMAND
	if [[ $__gsh_c =~ $__gsh_exit_re ]]; then
		__gsh_s=0
	else
		# The hook's own names and channel are refused here; the server still records it.
		if [[ $__gsh_c =~ $__gsh_chan_re || $__gsh_c == *__gsh_* || $__gsh_c == *__GSH_* ]]; then
			__gsh_f=guard
		fi
		if [[ $BASHPID == "$$" && -n $__gsh_wfd && -z ${__gsh_broken-} ]]; then
			__gsh_n=$SRANDOM$SRANDOM
			if printf '%s %s %s\0' "$__gsh_n" "$__gsh_f" "$__gsh_c" 2>/dev/null 1>&"$__gsh_wfd" &&
				IFS= read -r -t 20 -u "$__gsh_rfd" __gsh_r 2>/dev/null &&
				[[ $__gsh_r == "$__gsh_n "* ]]; then
				__gsh_r=${__gsh_r#"$__gsh_n "}
				[[ $__gsh_r == allow && $__gsh_f == - ]] && __gsh_s=0
				__gsh_r=${__gsh_r#deny }
			else
				__gsh_broken=1
				__gsh_n=''
			fi
		fi
		# A subshell, an async job's child, or no server: ask a fresh process, with the
		# session's own settings rather than whatever the environment says by now.
		if [[ -z $__gsh_n && $__gsh_f == guard ]]; then
			__gsh_r="session guard: the session's own hook, variables and channel are off limits"
		elif [[ -z $__gsh_n ]]; then
			__gsh_r=''
			if GUARDED_SH_CONFIG=$__gsh_config HONEY_POLICY_DIR=$__gsh_policy_dir \
				HONEY_RISK_DISABLE=$__gsh_escape LD_PRELOAD='' LD_LIBRARY_PATH='' LD_AUDIT='' \
				command "$__gsh_bin" --hook-check "$__gsh_c"; then
				__gsh_s=0
			fi
		fi
	fi
	if [[ $__gsh_s != 0 && -n $__gsh_r ]]; then
		printf 'guarded-sh: denied: %s\n' "$__gsh_r" >&2
	fi
	[[ ${__gsh_posix-} == 1 ]] || unset POSIXLY_CORRECT
	[[ $__gsh_s == 0 ]]
}

# `shopt login_shell` is off in this non-login shell, so bash's logout would refuse.
logout() { exit "$@"; }

readonly -f __gsh_guard logout
readonly BASH_COMMAND SRANDOM PS4
declare -r FUNCNEST

# The trap, in order: remember whether the user is in POSIX mode; enter it through the
# variable (an assignment: no command lookup); only if that worked, remove functions that
# shadow what the guard calls (special builtins such as `unset` cannot be shadowed in POSIX
# mode), re-assert functrace and extdebug, and decide. Words are quoted against aliases.
# A tampered POSIXLY_CORRECT makes the trap fail, which skips the command: fail closed.
trap -- '[[ -o posix ]] && __gsh_posix=1 || __gsh_posix=0; POSIXLY_CORRECT=y; [[ -o posix ]] && \unset -f command local printf read set shopt return exit unset && \set -T && \shopt -s extdebug && \__gsh_guard' DEBUG

# The login files, as a login bash reads them (bash ignores --rcfile in a login shell, so this
# shell is not one), at the top level so their declarations stay global. Every command in
# them is gated.
if [[ -r /etc/profile ]]; then
	. /etc/profile
fi
if [[ -r ~/.bash_profile ]]; then
	. ~/.bash_profile
elif [[ -r ~/.bash_login ]]; then
	. ~/.bash_login
elif [[ -r ~/.profile ]]; then
	. ~/.profile
fi
