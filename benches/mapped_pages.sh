#!/usr/bin/env bash
# How many pages of the guarded-sh binary one gated command has mapped when it execs the real
# shell (BENCHMARKS.md §1, "Where the time goes"): stops the process at execve under gdb and
# counts the present pages of the binary's mappings in /proc/PID/pagemap. Needs gdb and root.
#
#   benches/mapped_pages.sh [BINARY] [COMMAND]   (default: the static build, `true`, no policy)
set -euo pipefail
bin=$(realpath "${1:-$(dirname "$0")/../target/x86_64-unknown-linux-gnu/release/guarded-sh}")
command=${2:-true}
command -v gdb >/dev/null || { echo "benches/mapped_pages.sh: needs gdb" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '[audit]\nsyslog = false\n[policy]\nenabled = false\n' >"$work/config.toml"
cat >"$work/count.py" <<PY
import gdb, struct
pid = gdb.selected_inferior().pid
pages = {}
with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/pagemap", "rb") as pagemap:
    for line in maps:
        fields = line.split()
        if len(fields) < 6 or fields[5] != "$bin":
            continue
        lo, hi = (int(x, 16) for x in fields[0].split("-"))
        pagemap.seek((lo >> 12) * 8)
        data = pagemap.read(((hi - lo) >> 12) * 8)
        present = sum(struct.unpack_from("<Q", data, i)[0] >> 63 for i in range(0, len(data), 8))
        pages[fields[1]] = pages.get(fields[1], 0) + present
print("mapped pages of the binary:", sum(pages.values()), "by permission:", pages)
PY
env -u RUST_BACKTRACE GUARDED_SH_CONFIG="$work/config.toml" gdb -q -batch \
	-ex 'catch syscall execve' -ex run -ex "source $work/count.py" -ex kill \
	--args "$bin" -c "$command" 2>/dev/null | grep '^mapped pages'
