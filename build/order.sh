#!/usr/bin/env bash
# The code layout of the installed binary: build/symbol-order.txt lists the functions gated
# commands run, most common path first, and build/static.sh links them in that order.
#
#   build/order.sh [ARGS]     regenerate build/symbol-order.txt (needs valgrind), then relink
#                             (ARGS go to build/static.sh, e.g. --target-dir DIR)
#   build/order.sh --check BIN  fail when fewer than 90% of the listed symbols are in BIN
#                               (a stale layout is silently slower, so CI says so instead)
#
# Why: every 64 KiB window of the binary a command touches is mapped on a fault and unmapped at
# the exec of the real shell; with the hot functions spread over 4.8 MB of text that was the
# largest part of guarded-sh's start-up cost. Regenerate after a toolchain or dependency upgrade
# or a large change (CI's --check says when).
#
# How: callgrind records every function each workload runs up to the exec of the real shell
# (--dump-before=execve). The workloads, in order: no policy; the baseline policy; the six
# examples; a denied pipeline; an ordinary command list; a Python one-liner. Each adds the
# functions the earlier ones did not run. Valgrind runs glibc's SSE2 string functions, so the
# AVX2/EVEX variants real machines pick follow the first workload, with execve.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ORDER=$REPO/build/symbol-order.txt

if [[ ${1:-} == --check ]]; then
	bin=${2:?usage: build/order.sh --check BINARY}
	nm "$bin" 2>/dev/null | awk '{print $NF}' | sort -u >"${TMPDIR:-/tmp}/gsh-symbols.$$"
	total=$(grep -c . "$ORDER")
	found=$(grep -cxFf "${TMPDIR:-/tmp}/gsh-symbols.$$" "$ORDER" || true)
	rm -f "${TMPDIR:-/tmp}/gsh-symbols.$$"
	echo "symbol order: $found of $total listed symbols are in $bin"
	if ((found * 10 < total * 9)); then
		echo "build/order.sh: the layout in build/symbol-order.txt is stale; regenerate it with build/order.sh" >&2
		exit 1
	fi
	exit 0
fi

command -v valgrind >/dev/null || { echo "build/order.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
[[ -f $ORDER ]] || : >"$ORDER"
bin=$("$REPO/build/static.sh" "$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

config() { # name, policy dir or ""
	mkdir -p "$work/cache-$1"
	{
		printf '[audit]\nsyslog = false\n[policy]\nallow_env_dir = false\n'
		printf 'cache_dir = "%s"\n' "$work/cache-$1"
		if [[ -n $2 ]]; then printf 'dir = "%s"\n' "$2"; else printf 'enabled = false\n'; fi
	} >"$work/$1.toml"
	echo "$work/$1.toml"
}
none=$(config none "")
baseline=$(config baseline "$REPO/policies")
examples=$(config examples "$REPO/policies/examples")

n=0
workload() { # config, command
	n=$((n + 1))
	# Warm the policy cache first: the layout is for the common case, a cache hit.
	GUARDED_SH_CONFIG=$1 "$bin" -c "$2" >/dev/null 2>&1 || true
	env -u RUST_BACKTRACE GUARDED_SH_CONFIG="$1" valgrind --tool=callgrind --dump-before=execve \
		--demangle=no --dump-instr=no --compress-strings=no --compress-pos=no \
		--callgrind-out-file="$work/run.$n" "$bin" -c "$2" >/dev/null 2>&1 || true
	cat "$work"/run.$n* | sed -n 's/^c\{0,1\}fn=//p' | grep -v '^0x\|^(' | sort -u >"$work/names.$n"
	[[ -s $work/names.$n ]] || { echo "build/order.sh: workload $n recorded nothing" >&2; exit 1; }
}
workload "$none" 'true'
workload "$baseline" 'true'
workload "$examples" 'echo >/dev/null'
workload "$baseline" 'curl -fsSL https://example.com/x.sh | sudo bash'
# shellcheck disable=SC2016 # the command text is for guarded-sh, not this shell
workload "$baseline" 'ls -la /var/log && git status; grep -r foo . | head -5; for f in *.txt; do cat "$f"; done'
workload "$examples" 'python3 -c "import os; os.system(\"id\")"'

nm "$bin" | awk '{print $NF}' | sort -u >"$work/symbols"
: >"$work/order"
for ((i = 1; i <= n; i++)); do
	# This workload's functions that no earlier one ran, in name order.
	grep -vxFf "$work/order" "$work/names.$i" >"$work/new" || true
	cat "$work/new" >>"$work/order"
	if ((i == 1)); then
		# What callgrind does not see: execve itself (the profile is dumped on entry to it), the
		# start-up code valgrind does not run (frame_dummy; the vDSO set-up of static glibc:
		# valgrind gives no vDSO), found with `perf record -e exceptions:page_fault_user`, and the string functions glibc picks on
		# real hardware (valgrind's CPU gets the SSE2 ones).
		{
			printf '%s\n' execve frame_dummy register_tm_clones deregister_tm_clones \
				__do_global_dtors_aux _dl_new_object _dl_setup_hash _dl_add_to_namespace_list \
				_dl_lookup_symbol_x do_lookup_x check_match _dl_name_match_p _dl_vsym
			for base in memmove memcpy mempcpy memset memcmp bcmp memchr memrchr rawmemchr \
				strlen strnlen strchr strchrnul strrchr strcmp strncmp strcpy stpcpy; do
				grep -E "^__${base}_(avx|avx2|evex|avx512)[a-z0-9_]*$" "$work/symbols" | grep -v '_rtm$' || true
			done
		} | grep -vxFf "$work/order" >"$work/new" || true
		cat "$work/new" >>"$work/order"
	fi
done
mv "$work/order" "$ORDER"
echo "build/order.sh: $(grep -c . "$ORDER") symbols in $ORDER; relinking" >&2
"$REPO/build/static.sh" "$@" >/dev/null
"$0" --check "$bin"
