#!/usr/bin/env bash
# Cost of exec supervision (docs/supervise.md): the same `guarded-sh -c` workloads with
# `[supervise] mode = "enforce"` and with `mode = "off"`, side by side, RUNS rounds in a fresh
# random order each round, medians reported:
#   loop  a shell loop of N execs of /bin/true: the cost per exec over unsupervised (target at
#         most 100 us) and the ratio (target at most 1.3x);
#   make  `make -j2` of a small C project (FILES sources, rebuilt from clean): the ratio (target
#         at most 1.3x).
# Every exec is judged and audited to a JSON-lines file in a scratch directory, with the policy
# directory POLICIES (default: none, the built-in floor decides).
#   benches/supervise.sh       (uses target/x86_64-unknown-linux-gnu/release/guarded-sh: build/static.sh)
#   GSH_BENCH_BINARY=/usr/local/bin/guarded-sh POLICIES=/etc/guarded-sh/policies N=2000 RUNS=9 benches/supervise.sh
set -euo pipefail

BINARY=${GSH_BENCH_BINARY:-target/x86_64-unknown-linux-gnu/release/guarded-sh}
POLICIES=${POLICIES:-}
N=${N:-2000}
FILES=${FILES:-24}
RUNS=${RUNS:-7}

[[ -x $BINARY ]] || {
	echo "benches/supervise.sh: needs $BINARY (run build/static.sh, or set GSH_BENCH_BINARY)" >&2
	exit 2
}
if ! command -v make >/dev/null || ! command -v cc >/dev/null; then
	echo "benches/supervise.sh: needs make and cc" >&2
	exit 2
fi
unset RUST_BACKTRACE
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

policy_line="enabled = false"
[[ -n $POLICIES ]] && policy_line="dir = \"$POLICIES\""
for mode in off enforce; do
	cat >"$T/$mode.toml" <<EOF
[policy]
$policy_line
cache_dir = "$T/cache"
[audit]
system_log = "off"
file = "$T/audit-$mode.jsonl"
[supervise]
mode = "$mode"
EOF
done

mkdir "$T/proj"
for ((f = 0; f < FILES; f++)); do
	printf 'int f%d(int x) { return x * %d + 1; }\n' "$f" "$f" >"$T/proj/f$f.c"
done
printf 'int main(void) { return 0; }\n' >"$T/proj/main.c"
# shellcheck disable=SC2016 # make expands these, not the shell
printf '%s\n' 'SRC := $(wildcard *.c)' 'prog: $(SRC:.c=.o)' '\t$(CC) -o $@ $^' '%.o: %.c' '\t$(CC) -O0 -c -o $@ $<' |
	sed 's/^\\t/\t/' >"$T/proj/Makefile"

loop="for i in \$(seq $N); do /bin/true; done"
build="rm -f $T/proj/*.o $T/proj/prog; make -s -j2 -C $T/proj"

# run MODE COMMAND: the wall-clock microseconds of one `guarded-sh -c COMMAND`.
run() {
	local t0 t1
	t0=$EPOCHREALTIME
	env -i HOME="$T" PATH=/usr/bin:/bin GUARDED_SH_CONFIG="$T/$1.toml" "$BINARY" -c "$2" >/dev/null || {
		echo "benches/supervise.sh: guarded-sh -c '$2' failed in mode $1" >&2
		exit 1
	}
	t1=$EPOCHREALTIME
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d\n", (b - a) * 1000000 }'
}

median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

declare -A times
for ((r = 0; r < RUNS; r++)); do
	for row in $(printf '%s\n' loop:off loop:enforce make:off make:enforce | shuf); do
		work=${row%%:*} mode=${row#*:}
		cmd=$loop
		[[ $work == make ]] && cmd=$build
		times[$row]+="$(run "$mode" "$cmd") "
	done
done

lo=$(tr ' ' '\n' <<<"${times[loop:off]}" | grep . | median)
le=$(tr ' ' '\n' <<<"${times[loop:enforce]}" | grep . | median)
mo=$(tr ' ' '\n' <<<"${times[make:off]}" | grep . | median)
me=$(tr ' ' '\n' <<<"${times[make:enforce]}" | grep . | median)
execs=$(($(wc -l <"$T/audit-enforce.jsonl") / RUNS))
awk -v lo="$lo" -v le="$le" -v mo="$mo" -v me="$me" -v n="$N" -v runs="$RUNS" -v execs="$execs" -v files="$FILES" 'BEGIN {
	per = (le - lo) / n
	printf "loop of %d execs: unsupervised %.1f ms, supervised %.1f ms: %.1f us per exec (%s 100 us), %.2fx (%s 1.3x)\n",
		n, lo / 1000, le / 1000, per, per <= 100 ? "within" : "OVER", le / lo, le / lo <= 1.3 ? "within" : "OVER"
	printf "make -j2 of %d C files: unsupervised %.1f ms, supervised %.1f ms: %.2fx (%s 1.3x)\n",
		files + 1, mo / 1000, me / 1000, me / mo, me / mo <= 1.3 ? "within" : "OVER"
	printf "execs judged and recorded per supervised round of both: %d; medians of %d rounds\n", execs, runs
}'
