# guarded-sh interactive session hook. Root-owned, read by bash as its --rcfile:
#   bash --noprofile --rcfile /usr/local/lib/guarded-sh/interactive.bash -i
# (guarded-sh execs that for a login or terminal session; see DESIGN §5 and
# reference/login-shell.md §3). Before any user file is read it
#   1. starts the check server (`guarded-sh --serve`) as a coprocess, policies loaded once;
#   2. installs a DEBUG trap that, with extdebug,
#      a. at the first command of each submitted line (a new top-level command number, `\#`)
#         sends the whole line, from its history entry, to the gate before any of it runs (with,
#         when the server asks, bash's own values of the variables, functions and positional
#         parameters the line names: the line is judged with the session's live state); a
#         held line is settled by the server as on -c (a grant for the exact line, the
#         question on the terminal, a filed request), and its own held commands are approved
#         with it; a denied or unapproved line is refused whole: the reason is printed once,
#         the line is abandoned as Ctrl-C abandons it (`$?` is 130; a user SIGINT trap is set aside for
#         that and put back before the next command) and any part of it still reached is
#         skipped; the session goes on at the next prompt;
#      b. then (for typed lines too) skips every simple command the gate denies, judged (when
#         the server asks) with bash's values of the variables and positional parameters it
#         names: a function's command run by a prompt hook, a trap or a completion has no line;
#      inside subshells, or when the server is gone, it runs `guarded-sh --hook-check` instead;
#   3. protects itself: readonly functions and variables, extdebug/functrace and history
#      (`set -o history`, `cmdhist`, `lithist`) re-asserted on every command, HISTCONTROL,
#      HISTIGNORE and HISTSIZE readonly (every line is recorded; a line that was not is
#      refused), user functions that would shadow the builtins it calls removed (in POSIX
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
__gsh_int_trap_re="^trap -- '([^']|'\\\\'')*' SIGINT\$"
readonly __gsh_chan_re __gsh_exit_re __gsh_int_trap_re

# Every submitted line goes into history whole, where the trap reads it: nothing is left out
# (HISTCONTROL, HISTIGNORE), the list is never turned off by its size, and a multi-line command
# is one entry with its newlines (cmdhist, lithist, re-asserted with `history` on every command).
__gsh_histsize=${HISTSIZE-}
[[ $__gsh_histsize =~ ^[1-9][0-9]{0,6}$ ]] || __gsh_histsize=1000
HISTSIZE=$__gsh_histsize HISTCONTROL='' HISTIGNORE=''
# HISTCMD stays dynamic when readonly, and can then be neither unset nor set.
readonly HISTSIZE HISTCONTROL HISTIGNORE HISTCMD
unset __gsh_histsize
set -o history
shopt -s cmdhist lithist

# The line being run. `\#` expands (with @P) to bash's top-level command number: one more for
# each command the shell reads from the terminal, untouched by PROMPT_COMMAND, traps and sourced
# files, and not settable. A trap whose number is not the last judged one is the first command
# of a new line. HISTCMD is the line's history number while it runs (one more in PROMPT_COMMAND
# after it); a new line with the number of the one before was not recorded.
__gsh_cmdno='\#'
readonly __gsh_cmdno
__gsh_line_no=${__gsh_cmdno@P} __gsh_line_hist='' __gsh_line_ok=1 __gsh_line_approved='' __gsh_int_trap=''

# The check for one simple command. Runs inside the DEBUG trap in POSIX mode (the trap set it
# and removed shadowing functions), with the positional parameters of the code being run as its
# arguments; returns 0 to run the command, non-zero to skip it. Every
# variable it uses is local and initialised; a local that cannot be created (a readonly global
# of the same name) refuses the command.
__gsh_guard() {
	local __gsh_c='' __gsh_f=- __gsh_n='' __gsh_r='' __gsh_s=1 __gsh_no='' __gsh_pos=("$@") || return 1
	__gsh_c=$BASH_COMMAND
	__gsh_no=${__gsh_cmdno@P}
	# The user's SIGINT trap, set aside to abandon a refused line, is back before anything else
	# runs. The text is `trap -p`'s; only that exact shape is read back (one single-quoted
	# handler, whose commands are gated when it runs), never other code.
	if [[ -n $__gsh_int_trap ]]; then
		[[ $__gsh_int_trap =~ $__gsh_int_trap_re ]] && eval "$__gsh_int_trap"
		__gsh_int_trap=''
	fi
	if [[ $__gsh_c =~ $__gsh_exit_re ]]; then
		__gsh_s=0
	elif [[ $__gsh_no != "$__gsh_line_no" ]] && ! __gsh_line "$__gsh_no" "$@"; then
		__gsh_s=1
	elif [[ $__gsh_line_ok != 1 && $__gsh_no == "$__gsh_line_no" && $HISTCMD == "$__gsh_line_hist" ]]; then
		# The rest of a refused line (reached only where the abandon did not take): skipped.
		__gsh_s=1
	else
		# The hook's own names and channel are refused here; the server still records it.
		if [[ $__gsh_c =~ $__gsh_chan_re || $__gsh_c == *__gsh_* || $__gsh_c == *__GSH_* ]]; then
			__gsh_f=guard
		elif [[ $__gsh_line_approved == 1 && $__gsh_no == "$__gsh_line_no" && $HISTCMD == "$__gsh_line_hist" ]]; then
			# A command of the line approved before it ran: held, it is approved as the line was.
			__gsh_f=approved
		fi
		if [[ $BASHPID == "$$" && -n $__gsh_wfd && -z ${__gsh_broken-} ]]; then
			__gsh_n=$SRANDOM$SRANDOM
			# With the command number: the server holds the command to the line it judged.
			if printf '%s %s:%s %s\0' "$__gsh_n" "$__gsh_f" "$__gsh_no" "$__gsh_c" 2>/dev/null 1>&"$__gsh_wfd" &&
				__gsh_reply "$__gsh_n" &&
				{ [[ $__gsh_r != "need "* ]] || __gsh_state "$__gsh_n" "${__gsh_r#need }"; }; then
				[[ ($__gsh_r == allow || $__gsh_r == approved) && $__gsh_f != guard ]] && __gsh_s=0
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

# The judgement of a new line, command number $1 (then the session's positional parameters),
# before any of it runs: its history entry
# (`fc -ln -0`, run in POSIX mode like all of the guard) goes whole to the server as a `line` request (to a fresh `--hook-check` in a
# subshell or without the server). Returns 0 when the line may run. A refused line: the reason
# once, then SIGINT to this shell, which abandons the line as Ctrl-C does (in a subshell: ends
# the subshell); what still runs of it is skipped by the caller.
__gsh_line() {
	local __gsh_h=$HISTCMD __gsh_n='' __gsh_r='' __gsh_t='' __gsh_prev=$__gsh_line_hist \
		__gsh_prev_no=$__gsh_line_no __gsh_pos=("${@:2}") __gsh_k='' || return 1
	__gsh_line_no=$1 __gsh_line_hist=$__gsh_h __gsh_line_ok=0 __gsh_line_approved=''
	if [[ ! -o history ]] || ! shopt -q cmdhist || [[ $__gsh_h == "$__gsh_prev" ]]; then
		__gsh_r="session guard: the submitted line was not recorded in history, so it cannot be judged (run it again)"
	elif [[ -n $__gsh_prev && "$__gsh_h $__gsh_prev $1 $__gsh_prev_no" =~ ^[0-9]+( [0-9]+){3}$ ]] &&
		((__gsh_h - __gsh_prev > $1 - __gsh_prev_no)); then
		# More new entries than lines read since the last line judged here (lines in between
		# were judged in a subshell): the line was split (cmdhist was off when it was read), or
		# entries were loaded (`history -r`). Its last entry may not be all of it.
		__gsh_r="session guard: the submitted line went into history as more than one entry, so it cannot be judged (run it again)"
	elif [[ $BASHPID == "$$" && -n $__gsh_wfd && -z ${__gsh_broken-} ]]; then
		__gsh_n=$SRANDOM$SRANDOM
		# The NUL ends the request even when fc fails (the server then refuses the line).
		if { printf '%s line:%s ' "$__gsh_n" "$1" && { builtin fc -ln -0 || :; } && printf '\0'; } 2>/dev/null 1>&"$__gsh_wfd" &&
			__gsh_reply "$__gsh_n" &&
			{ [[ $__gsh_r != "need "* ]] || __gsh_state "$__gsh_n" "${__gsh_r#need }"; }; then
			[[ $__gsh_r == allow || $__gsh_r == approved ]] && __gsh_line_ok=1
			[[ $__gsh_r == approved ]] && __gsh_line_approved=1
			__gsh_r=${__gsh_r#deny }
		else
			__gsh_broken=1
			__gsh_n=''
		fi
	fi
	# A line the hook refused itself is still told to the server (with no text: refused and
	# recorded there too), which holds every later command to the last line it was told of.
	if [[ -z $__gsh_n && -n $__gsh_r && $BASHPID == "$$" && -n $__gsh_wfd && -z ${__gsh_broken-} ]]; then
		__gsh_k=$__gsh_r __gsh_n=$SRANDOM$SRANDOM
		printf '%s line:%s \0' "$__gsh_n" "$1" 2>/dev/null 1>&"$__gsh_wfd" && __gsh_reply "$__gsh_n" || __gsh_broken=1
		__gsh_r=$__gsh_k
	fi
	if [[ -z $__gsh_n && $__gsh_line_ok != 1 && -z $__gsh_r ]]; then
		__gsh_t=$(builtin fc -ln -0 2>/dev/null)
		__gsh_t=${__gsh_t#$'\t'} # fc in POSIX mode: a tab, then the line
		if [[ $__gsh_t == *__gsh_* || $__gsh_t == *__GSH_* ]]; then
			__gsh_r="session guard: the session's own hook, variables and channel are off limits"
		elif [[ -z ${__gsh_t//[[:space:]]/} ]]; then
			__gsh_r="session guard: the submitted line could not be read from history, so it cannot be judged"
		elif GUARDED_SH_CONFIG=$__gsh_config HONEY_POLICY_DIR=$__gsh_policy_dir \
			HONEY_RISK_DISABLE=$__gsh_escape LD_PRELOAD='' LD_LIBRARY_PATH='' LD_AUDIT='' \
			command "$__gsh_bin" --hook-check "$__gsh_t"; then
			__gsh_line_ok=1
		fi
	fi
	[[ $__gsh_line_ok == 1 ]] && return 0
	[[ -n $__gsh_r ]] && printf 'guarded-sh: denied: %s\n' "$__gsh_r" >&2
	# A subshell ends itself only: a signal to the session from here could arrive after the
	# session has moved on to the next line. The session judges the line again at its next
	# command of it (so the reason may be printed twice).
	# A SIGINT the user traps or ignores would not abandon the line: that trap is set aside
	# until the next command (in the session; a subshell ends whatever it was).
	if [[ $BASHPID == "$$" ]]; then
		__gsh_int_trap=$(builtin trap -p INT)
		[[ -n $__gsh_int_trap ]] && builtin trap - INT
	fi
	builtin kill -INT "$BASHPID" 2>/dev/null
	return 1
}

# The session's state for the line being judged, sent when the server asks (`NONCE need
# TOKENS`: `$NAME` a variable, `@` the positional parameters, `NAME` a command that may be a
# function): bash's own `declare -p` and `declare -f` of them and `set --` with the positional
# parameters the trap saw, then the line's reply into the caller's __gsh_r. The tokens are the
# server's (identifiers and safe names only) and are passed as words, never evaluated.
__gsh_state() {
	local __gsh_w=$2 __gsh_v=() __gsh_fn=() __gsh_p='' __gsh_i='' || return 1
	# The tokens split on spaces by hand (a here-string to `read -a` costs a temporary file).
	while [[ -n $__gsh_w ]]; do
		__gsh_i=${__gsh_w%% *}
		__gsh_w=${__gsh_w#"$__gsh_i"}
		__gsh_w=${__gsh_w# }
		case $__gsh_i in
		'$'*) __gsh_v+=("${__gsh_i#'$'}") ;;
		@) __gsh_p=1 ;;
		*) __gsh_fn+=("$__gsh_i") ;;
		esac
	done
	{
		printf '%s state ' "$1"
		((${#__gsh_v[@]} == 0)) || builtin declare -p -- "${__gsh_v[@]}" || :
		((${#__gsh_fn[@]} == 0)) || builtin declare -f -- "${__gsh_fn[@]}" || :
		if [[ -n $__gsh_p ]]; then
			printf 'set --'
			printf ' %q' "${__gsh_pos[@]}"
			printf '\n'
		fi
		printf '\0'
	} 2>/dev/null 1>&"$__gsh_wfd" &&
		__gsh_reply "$1"
}

# The server's reply to request $1, without the nonce, into the caller's __gsh_r. A reply to an
# earlier request (one whose wait was cut short by Ctrl-C) is skipped. `wait SECONDS` comes
# first when the server asks for a confirmation on the terminal: the reply may take that long.
# Fails when no reply comes in time or the channel is gone.
__gsh_reply() {
	local __gsh_t=20 || return 1
	while IFS= read -r -t "$__gsh_t" -u "$__gsh_rfd" __gsh_r 2>/dev/null; do
		[[ $__gsh_r == "$1 "* ]] || continue
		__gsh_r=${__gsh_r#"$1 "}
		[[ $__gsh_r == "wait "* ]] || return 0
		__gsh_t=${__gsh_r#wait }
		[[ $__gsh_t =~ ^[0-9]{1,6}$ ]] || return 1
		__gsh_t=$((__gsh_t + 20))
	done
	return 1
}

# `shopt login_shell` is off in this non-login shell, so bash's logout would refuse.
logout() { exit "$@"; }

readonly -f __gsh_guard __gsh_line __gsh_state __gsh_reply logout
readonly BASH_COMMAND SRANDOM PS4
declare -r FUNCNEST

# The trap, in order: remember whether the user is in POSIX mode; enter it through the
# variable (an assignment: no command lookup); only if that worked, remove functions that
# shadow what the guard calls (special builtins such as `unset` cannot be shadowed in POSIX
# mode), re-assert functrace and extdebug, and decide. Words are quoted against aliases.
# A tampered POSIXLY_CORRECT makes the trap fail, which skips the command: fail closed.
trap -- '[[ -o posix ]] && __gsh_posix=1 || __gsh_posix=0; POSIXLY_CORRECT=y; [[ -o posix ]] && \unset -f builtin command local printf read set shopt return exit unset kill fc trap eval && \set -T -o history && \shopt -s extdebug cmdhist lithist && \__gsh_guard "$@"' DEBUG

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

# One more command after the login files, so the trap re-asserts history (`set -o history`,
# cmdhist, lithist) before the first line is read: a login file's last command cannot leave that
# line out of history, where its judgement could not tell it was missing.
:
