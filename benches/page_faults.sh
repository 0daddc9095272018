#!/usr/bin/env bash
# Page faults one gated command takes before it execs the real shell, by the section of the
# binary the faulting address falls in (BENCHMARKS.md §1, "Where the time goes"): every file-backed
# fault maps a 64 KiB window (fault-around), every heap, stack or writable-data fault one page.
# Averages over 10 runs of `perf record -e page-faults -d`. Needs perf and root.
#
#   benches/page_faults.sh [BINARY] [CONFIG] [COMMAND]
#       (default: the static build, no policy, `true`)
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=$(realpath "${1:-$REPO/target/x86_64-unknown-linux-gnu/release/guarded-sh}")
command=${3:-true}
command -v perf >/dev/null || { echo "benches/page_faults.sh: needs perf" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
config=${2:-$work/config.toml}
printf '[audit]\nsyslog = false\n[policy]\nenabled = false\n' >"$work/config.toml"
runs=10
# One run first: it fills the policy cache (the common case is a cache hit).
env -u RUST_BACKTRACE GUARDED_SH_CONFIG="$config" "$bin" -c "$command" >/dev/null 2>&1 || true
# shellcheck disable=SC2016 # the loop is for the inner bash
env -u RUST_BACKTRACE GUARDED_SH_CONFIG="$config" perf record -q -e page-faults -c 1 -d \
	-o "$work/perf.data" -- bash -c 'for ((i = 0; i < $2; i++)); do "$0" -c "$1"; done' \
	"$bin" "$command" "$runs" >/dev/null 2>&1
comm=$(basename "$bin" | cut -c1-15)
perf script -i "$work/perf.data" -F comm,addr 2>/dev/null | awk -v c="$comm" '$1 == c {print $2}' \
	>"$work/addresses"
readelf -SW "$bin" >"$work/sections"
python3 - "$work/sections" "$work/addresses" "$runs" <<'PY'
import collections, re, sys
sections = []
for line in open(sys.argv[1]):
    m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", line)
    if m and int(m.group(2), 16):
        sections.append((int(m.group(2), 16), int(m.group(3), 16), m.group(1)))
count = collections.Counter()
for line in open(sys.argv[2]):
    a = int(line, 16)
    name = next((n for s, size, n in sections if s <= a < s + size), None)
    count[name or ("heap" if a < 1 << 32 else "stack and mmap")] += 1
runs = int(sys.argv[3])
print("page faults per command:", round(sum(count.values()) / runs, 1))
for name, n in count.most_common():
    print(f"  {name:16} {n / runs:5.1f}")
PY
