#!/usr/bin/env bash
# The layout of the installed binary: build/symbol-order.txt lists the functions (and named data)
# gated commands run, most common path first, build/rodata-order.ld the read-only sections they
# read, and build/static.sh links them in that order.
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
# examples, with a plain command line and then with one tree-sitter parses; a denied pipeline; an
# ordinary command list; a Python one-liner. Each adds the functions the earlier ones did not run.
# Valgrind runs glibc's SSE2 string functions, so the AVX2/EVEX variants real machines pick follow
# the first workload, with execve. The named data each workload touches (lackey) is listed too:
# the linker then gathers glibc's start-up tables and Rust's named statics at the front of their
# sections. (Rust's unnamed constants have no symbol to list.) Needs valgrind and python3.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ORDER=$REPO/build/symbol-order.txt
RODATA=$REPO/build/rodata-order.ld

if [[ ${1:-} == --check ]]; then
	bin=${2:?usage: build/order.sh --check BINARY}
	nm "$bin" 2>/dev/null | awk '{print $NF}' | sort -u >"${TMPDIR:-/tmp}/gsh-symbols.$$"
	total=$(grep -c . "$ORDER")
	found=$(grep -cxFf "${TMPDIR:-/tmp}/gsh-symbols.$$" "$ORDER" || true)
	rm -f "${TMPDIR:-/tmp}/gsh-symbols.$$"
	echo "symbol order: $found of $total listed symbols are in $bin"
	# The sections the link put in .rodata.hot (a merged pool counts once however many
	# objects fed it), against the patterns of the script.
	patterns=$(grep -c '^    ' "$RODATA")
	placed=$(awk 'sub(/^ *[0-9a-f]+ +[0-9a-f]+ +[0-9a-f]+ +[0-9]+ /, "") {
			match($0, /^ */)
			if (RLENGTH == 0) out = $0
			else if (RLENGTH == 8 && out == ".rodata.hot") n++
		} END {print n + 0}' "$bin.map" 2>/dev/null || echo 0)
	echo "read-only data order: $placed of $patterns listed sections are in .rodata.hot ($bin.map)"
	if ((found * 10 < total * 9 || placed * 10 < patterns * 9)); then
		echo "build/order.sh: the layout in build/symbol-order.txt and build/rodata-order.ld is stale; regenerate it with build/order.sh" >&2
		exit 1
	fi
	exit 0
fi

command -v valgrind >/dev/null || { echo "build/order.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
[[ -f $ORDER ]] || : >"$ORDER"
bin=$("$REPO/build/static.sh" "$@")
map=$bin.map
[[ -f $map ]] || { echo "build/order.sh: no link map $map (build/static.sh writes it)" >&2; exit 1; }
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
	data_layout "$work/mem.$n" "$work/data.$n" "$work/rodata.$n"
}

# What the accesses in lackey log $1 fall inside, in two lists:
#   $2  the named data (nm types r/d/b, with a size), smallest first: the small ones then share
#       pages. tree-sitter's parse tables are left out: two grammars define them under the same
#       local names, and the parser reads them too sparsely for their place to matter.
#   $3  the read-only input sections (from the link map), as "size<TAB>linker-script pattern":
#       most of Rust's constants, the jump tables and the merged string and constant pools have no
#       symbol to list, so build/static.sh gathers them with the script build/rodata-order.ld (an
#       output section before .rodata) instead. Sections of 64 KiB or more (tree-sitter's parse
#       tables again) stay where they are.
data_layout() {
	python3 - "$1" "$2" "$3" "$map" <(nm -S --defined-only "$bin") <<-'PY'
		import bisect, re, sys
		log, data_out, rodata_out, map_file, nm_file = sys.argv[1:6]

		def extents(rows):
		    rows.sort()
		    return rows, [r[0] for r in rows]

		def find(table, address):
		    rows, starts = table
		    i = bisect.bisect_right(starts, address) - 1
		    return rows[i] if i >= 0 and address < rows[i][0] + rows[i][1] else None

		symbols = []
		for line in open(nm_file):
		    f = line.split()
		    if len(f) == 4 and f[2] in "rRdDbB" and not f[3].startswith("ts_"):
		        symbols.append((int(f[0], 16), int(f[1], 16), f[3]))
		sections, out = [], None
		line_re = re.compile(r"\s*([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+ ( *)(\S.*)$")
		for line in open(map_file):
		    m = line_re.match(line)
		    if not m:
		        continue
		    depth, name = len(m.group(3)), m.group(4).strip()
		    if depth == 0:
		        out = name
		    elif depth == 8 and out in (".rodata", ".rodata.hot") and 0 < int(m.group(2), 16) < 64 * 1024:
		        sections.append((int(m.group(1), 16), int(m.group(2), 16), name))
		symbols, sections = extents(symbols), extents(sections)

		def pattern(name):
		    m = re.match(r"(?:.*/)?(?:([^/(]+\.(?:a|rlib))\(([^)]+)\)|[^:]*):\((\S+)\)$", name)
		    if not m or not re.fullmatch(r"[A-Za-z0-9_.$]+", m.group(3)):
		        return None
		    archive, member, section = m.groups()
		    if archive:
		        # An rlib's name carries a build hash, its members a source hash: keep the crate.
		        archive = re.sub(r"-[0-9a-f]{16}\.rlib$", "-*.rlib", archive)
		        member = re.sub(r"^[0-9a-f]{16}-", "*-", member)
		        return f"*{archive}:{member}({section})"
		    return f"*({section})"

		named, read = {}, {}
		for line in open(log):
		    if line[:3] not in (" L ", " S ", " M "):
		        continue
		    address = int(line[3:].split(",")[0], 16)
		    symbol = find(symbols, address)
		    if symbol:
		        named[symbol[2]] = symbol[1]
		    section = find(sections, address)
		    if section:
		        p = pattern(section[2])
		        if p and p not in read:
		            read[p] = section[1]
		with open(data_out, "w") as f:
		    for name in sorted(named, key=lambda n: (named[n], n)):
		        print(name, file=f)
		with open(rodata_out, "w") as f:
		    for p, size in read.items():
		        print(f"{size}\t{p}", file=f)
	PY
}
workload "$none" 'true'
workload "$baseline" 'true'
workload "$examples" 'echo'
# The same through tree-sitter (a redirection is not a plain command line).
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
		# valgrind gives no vDSO), found with `perf record -e exceptions:page_fault_user`, the
		# string functions glibc picks on real hardware (valgrind's CPU gets the SSE2 ones), and
		# sha2's SHA-NI block function (valgrind's CPU has no SHA extensions; the policy digests).
		{
			printf '%s\n' execve frame_dummy register_tm_clones deregister_tm_clones \
				__do_global_dtors_aux _dl_new_object _dl_setup_hash _dl_add_to_namespace_list \
				_dl_lookup_symbol_x do_lookup_x check_match _dl_name_match_p _dl_vsym
			for base in memmove memcpy mempcpy memset memcmp bcmp memchr memrchr rawmemchr \
				strlen strnlen strchr strchrnul strrchr strcmp strncmp strcpy stpcpy; do
				grep -E "^__${base}_(avx|avx2|evex|avx512)[a-z0-9_]*$" "$work/symbols" | grep -v '_rtm$' || true
			done
			grep -E '^_ZN4sha26sha2563x8613digest_blocks17h[0-9a-f]+E$' "$work/symbols" || true
		} >>"$work/new"
	fi
	grep -vxFf "$work/order" "$work/new" | awk '!seen[$0]++' >"$work/fresh" || true
	{ grep -vxFf "$work/big" "$work/fresh" || true; grep -xFf "$work/big" "$work/fresh" || true; } >>"$work/order"
	grep -vxFf "$work/order" "$work/data.$i" >"$work/fresh" || true
	cat "$work/fresh" >>"$work/order"
done
mv "$work/order" "$ORDER"
{
	echo "/* Written by build/order.sh: the read-only input sections gated commands read, in the"
	echo "   order first read, gathered in one output section before .rodata (build/static.sh). */"
	echo "SECTIONS"
	echo "{"
	echo "  .rodata.hot : {"
	# Each workload's sections that no earlier one read, smallest first: the small ones then
	# share pages, and the few large ones (merged pools, glibc's ctype tables) go last.
	: >"$work/rodata-seen"
	for ((i = 1; i <= n; i++)); do
		cut -f2 "$work/rodata.$i" | grep -vxFf "$work/rodata-seen" >"$work/rodata-new" || true
		{ grep -Ff "$work/rodata-new" "$work/rodata.$i" || true; } | sort -n -s -k1,1 | cut -f2 |
			awk '!seen[$0]++ {print "    " $0}'
		cat "$work/rodata-new" >>"$work/rodata-seen"
	done
	echo "  }"
	echo "}"
	echo "INSERT BEFORE .rodata;"
} >"$RODATA"
echo "build/order.sh: $(grep -c . "$ORDER") symbols in $ORDER, $(grep -c '^    ' "$RODATA") sections in $RODATA; relinking" >&2
"$REPO/build/static.sh" "$@" >/dev/null
"$0" --check "$bin"
