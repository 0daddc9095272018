#!/usr/bin/env bash
# Cost of the gate inside an interactive session, in bash with the session hook (every request
# asked of the check server, decided with the installed policy and audited) and in plain bash,
# RUNS times each: the median overhead per checked simple command (a loop of N iterations on one
# line; target at most 0.5 ms), and per submitted line (LINES lines of one `:` each: the whole
# line judged, then its one command; target at most 1 ms).
#   benches/interactive.sh                 (uses the installed /usr/local/bin/guarded-sh)
#   GSH_BENCH_BINARY=target/release/guarded-sh N=3000 LINES=500 RUNS=7 benches/interactive.sh
#   BODY=var benches/interactive.sh        (the loop's command names a variable)
# Every decision is audited to a JSON-lines file in a scratch directory (a decision that no sink
# records is denied, so there is no audit-off mode to measure).
set -euo pipefail

BINARY=${GSH_BENCH_BINARY:-/usr/local/bin/guarded-sh}
HOOK=${GSH_BENCH_HOOK:-/usr/local/lib/guarded-sh/interactive.bash}
POLICIES=${GSH_BENCH_POLICIES:-/etc/guarded-sh/policies}
N=${N:-2000}
LINES=${LINES:-300}
RUNS=${RUNS:-5}

[[ -x $BINARY && -r $HOOK ]] || {
	echo "benches/interactive.sh: needs $BINARY and $HOOK (run install.sh, or set GSH_BENCH_BINARY/GSH_BENCH_HOOK)" >&2
	exit 2
}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/home"
policy_line="dir = \"$POLICIES\""
[[ -d $POLICIES ]] || policy_line="# no policy directory"
cat >"$T/config.toml" <<EOF
[policy]
$policy_line
cache_dir = "/var/cache/guarded-sh"
[audit]
system_log = "off"
file = "$T/audit.jsonl"
[interactive]
hook = "$HOOK"
EOF

# The loop: per iteration bash runs three simple commands ((i<N)), BODY, ((i++)). BODY is
# `true` (a command that names no variable), or with BODY=var `: "$i"`, which names one: the
# server asks the hook for its value first (one more round trip).
body=true
# shellcheck disable=SC2016 # expands inside the measured shell
[[ ${BODY-} == var ]] && body=': "$i"'
# shellcheck disable=SC2016 # expands inside the measured shell
loop='t0=$EPOCHREALTIME; for ((i = 0; i < '"$N"'; i++)); do '"$body"'; done; t1=$EPOCHREALTIME; echo "elapsed $t0 $t1"; exit'

# The lines: LINES submitted lines of one simple command each, between two time stamps.
# shellcheck disable=SC2016 # expands inside the measured shell
lines=$(
	echo 't0=$EPOCHREALTIME'
	for ((l = 0; l < LINES; l++)); do echo ':'; done
	echo 't1=$EPOCHREALTIME; echo "elapsed $t0 $t1"; exit'
)

elapsed_us() { awk '/^elapsed / { printf "%d\n", ($3 - $2) * 1000000 }'; }

# gated/plain INPUT: the elapsed microseconds the input reports.
gated() {
	printf '%s\n' "$1" | env -i HOME="$T/home" PATH=/usr/bin:/bin TERM=dumb \
		GUARDED_SH_CONFIG="$T/config.toml" GUARDED_SH_BIN="$BINARY" \
		bash --noprofile --rcfile "$HOOK" -i 2>/dev/null | elapsed_us
}
plain() {
	printf '%s\n' "$1" | env -i HOME="$T/home" PATH=/usr/bin:/bin TERM=dumb \
		bash --noprofile --norc -i 2>/dev/null | elapsed_us
}

checks=$((3 * N + 1))
results=()
for ((r = 0; r < RUNS; r++)); do
	g=$(gated "$loop")
	p=$(plain "$loop")
	[[ -n $g && -n $p ]] || {
		echo "benches/interactive.sh: a run produced no timing" >&2
		exit 1
	}
	per=$(awk -v g="$g" -v p="$p" -v c="$checks" 'BEGIN { printf "%.1f", (g - p) / c }')
	results+=("$per")
	printf 'run %d: gated %.3f s, plain %.3f s, %d checks, %s us/check\n' "$((r + 1))" \
		"$(awk -v x="$g" 'BEGIN { print x / 1e6 }')" "$(awk -v x="$p" 'BEGIN { print x / 1e6 }')" "$checks" "$per"
done
line_results=()
for ((r = 0; r < RUNS; r++)); do
	g=$(gated "$lines")
	p=$(plain "$lines")
	[[ -n $g && -n $p ]] || {
		echo "benches/interactive.sh: a line run produced no timing" >&2
		exit 1
	}
	per=$(awk -v g="$g" -v p="$p" -v c="$((LINES + 1))" 'BEGIN { printf "%.1f", (g - p) / c }')
	line_results+=("$per")
	printf 'lines run %d: gated %.3f s, plain %.3f s, %d lines, %s us/line\n' "$((r + 1))" \
		"$(awk -v x="$g" 'BEGIN { print x / 1e6 }')" "$(awk -v x="$p" 'BEGIN { print x / 1e6 }')" "$((LINES + 1))" "$per"
done
# The lines and what was refused are recorded; an allowed simple command is counted in the
# session's end record (docs/audit.md), so a run of the loop writes a handful of records.
printf 'audit records written: %d\n' "$(wc -l <"$T/audit.jsonl")"
median=$(printf '%s\n' "${results[@]}" | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
verdict=$(awk -v m="$median" 'BEGIN { print (m <= 500) ? "within" : "OVER" }')
printf 'median overhead per simple command: %s us (%s the 500 us target; N=%d, runs=%d, policy=%s)\n' \
	"$median" "$verdict" "$N" "$RUNS" "$POLICIES"
line_median=$(printf '%s\n' "${line_results[@]}" | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
line_verdict=$(awk -v m="$line_median" 'BEGIN { print (m <= 1000) ? "within" : "OVER" }')
printf 'median overhead per submitted line (line judged, then its one command): %s us (%s the 1000 us target; LINES=%d, runs=%d)\n' \
	"$line_median" "$line_verdict" "$LINES" "$RUNS"
