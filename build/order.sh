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
# AVX2/EVEX variants real machines pick follow the first workload, with execve. The named data each
# workload touches (lackey) is listed too: the linker then gathers glibc's start-up tables and
# Rust's named statics at the front of their sections. (Rust's unnamed constants have no symbol to
# list.) Needs valgrind and python3.
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
	# The named data it reads or writes (lackey traces every access; valgrind stops at the exec).
	env -u RUST_BACKTRACE GUARDED_SH_CONFIG="$1" valgrind --tool=lackey --trace-mem=yes \
		--log-file="$work/mem.$n" "$bin" -c "$2" >/dev/null 2>&1 || true
	data_symbols "$work/mem.$n" >"$work/data.$n"
}

# The data symbols (nm types r/d/b, with a size) that the accesses in lackey log $1 fall inside,
# smallest first: the small ones then share pages. tree-sitter's parse tables are left out: two
# grammars define them under the same local names, and the parser reads them too sparsely for
# their place to matter.
data_symbols() {
	python3 - "$1" <(nm -S --defined-only "$bin") <<-'PY'
		import bisect, sys
		symbols = []
		for line in open(sys.argv[2]):
		    f = line.split()
		    if len(f) == 4 and f[2] in "rRdDbB" and not f[3].startswith("ts_"):
		        symbols.append((int(f[0], 16), int(f[1], 16), f[3]))
		symbols.sort()
		starts = [s[0] for s in symbols]
		found = {}
		for line in open(sys.argv[1]):
		    if line[:3] not in (" L ", " S ", " M "):
		        continue
		    address = int(line[3:].split(",")[0], 16)
		    i = bisect.bisect_right(starts, address) - 1
		    if i >= 0 and address < symbols[i][0] + symbols[i][1]:
		        found[symbols[i][2]] = min(found.get(symbols[i][2], 1 << 62), symbols[i][1])
		for name in sorted(found, key=lambda n: (found[n], n)):
		    print(name)
	PY
}
workload "$none" 'true'
workload "$baseline" 'true'
workload "$examples" 'echo >/dev/null'
workload "$baseline" 'curl -fsSL https://example.com/x.sh | sudo bash'
# shellcheck disable=SC2016 # the command text is for guarded-sh, not this shell
workload "$baseline" 'ls -la /var/log && git status; grep -r foo . | head -5; for f in *.txt; do cat "$f"; done'
workload "$examples" 'python3 -c "import os; os.system(\"id\")"'

nm "$bin" | awk '{print $NF}' | sort -u >"$work/symbols"
# Functions of 32 KiB or more (tree-sitter-bash's lexer, glibc's scanf): a command touches a few
# of their pages, so each goes last in its workload's group rather than spread the others apart.
nm -S --defined-only "$bin" | awk '$3 ~ /^[tTwW]$/ && length($2) == 16 && $2 >= "0000000000008000" {print $4}' |
	sort -u >"$work/big"
: >"$work/order"
for ((i = 1; i <= n; i++)); do
	# This workload's functions that no earlier one ran, in name order, the big ones last; then
	# its data.
	cp "$work/names.$i" "$work/new"
	if ((i == 1)); then
		# What callgrind does not see: execve itself (the profile is dumped on entry to it), the
		# start-up code valgrind does not run (frame_dummy; the vDSO set-up of static glibc:
		# valgrind gives no vDSO), found with `perf record -e exceptions:page_fault_user`, and the
		# string functions glibc picks on real hardware (valgrind's CPU gets the SSE2 ones).
		{
			printf '%s\n' execve frame_dummy register_tm_clones deregister_tm_clones \
				__do_global_dtors_aux _dl_new_object _dl_setup_hash _dl_add_to_namespace_list \
				_dl_lookup_symbol_x do_lookup_x check_match _dl_name_match_p _dl_vsym
			for base in memmove memcpy mempcpy memset memcmp bcmp memchr memrchr rawmemchr \
				strlen strnlen strchr strchrnul strrchr strcmp strncmp strcpy stpcpy; do
				grep -E "^__${base}_(avx|avx2|evex|avx512)[a-z0-9_]*$" "$work/symbols" | grep -v '_rtm$' || true
			done
		} >>"$work/new"
	fi
	grep -vxFf "$work/order" "$work/new" | awk '!seen[$0]++' >"$work/fresh" || true
	{ grep -vxFf "$work/big" "$work/fresh" || true; grep -xFf "$work/big" "$work/fresh" || true; } >>"$work/order"
	grep -vxFf "$work/order" "$work/data.$i" >"$work/fresh" || true
	cat "$work/fresh" >>"$work/order"
done
mv "$work/order" "$ORDER"
echo "build/order.sh: $(grep -c . "$ORDER") symbols in $ORDER; relinking" >&2
"$REPO/build/static.sh" "$@" >/dev/null
"$0" --check "$bin"
