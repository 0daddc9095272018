#!/usr/bin/env bash
# How the page cache holds the binary changes what a gated command costs (BENCHMARKS.md §1,
# "The page cache"). The same bytes, side by side in one run of benches/process.rs (no policy and
# the six examples), in the states a host sees:
#   written   a copy just written by `install` (what install.sh leaves): the kernel caches a
#             written file in large folios (64 KiB here), so mapping it is cheap;
#   read-back a copy whose cached pages were dropped and read back by executing it (what a host
#             has after a reboot or memory pressure): one 4 KiB folio per page;
#   unit      a copy read back the same way, then put through the commands of the boot unit
#             install.sh installs (share/guarded-sh-page-cache.service: drop, then `cat`):
#             readahead gives large folios again;
#   the binary as given (its row in the bench's own table), e.g. the linker's output.
# Needs root (to drop a file's pages the file must be clean: it is synced first).
#
#   benches/page_cache_states.sh [BINARY] [ROUNDS]   (default: the static build, 500)
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=$(realpath "${1:-$REPO/target/x86_64-unknown-linux-gnu/release/guarded-sh}")
rounds=${2:-500}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '[audit]\nsyslog = false\n[policy]\nenabled = false\n' >"$work/config.toml"
for k in 1 2; do
	install -m 0755 "$bin" "$work/written-$k"
	install -m 0755 "$bin" "$work/read-back-$k"
	sync "$work/read-back-$k"
	dd if="$work/read-back-$k" iflag=nocache count=0 status=none
	GUARDED_SH_CONFIG=$work/config.toml "$work/read-back-$k" -c true
	install -m 0755 "$bin" "$work/unit-$k"
	sync "$work/unit-$k"
	dd if="$work/unit-$k" iflag=nocache count=0 status=none
	GUARDED_SH_CONFIG=$work/config.toml "$work/unit-$k" -c true
	# The unit's commands, with this copy's path for the installed one.
	ran=0
	while read -ra words; do
		"${words[@]}" >/dev/null
		ran=$((ran + 1))
	done < <(sed -n "s|^ExecStart=||; T; s|/usr/local/bin/guarded-sh|$work/unit-$k|gp" \
		"$REPO/share/guarded-sh-page-cache.service")
	((ran > 0)) || { echo "benches/page_cache_states.sh: no ExecStart of the unit names the binary" >&2; exit 2; }
done

bench=$(cd "$REPO" && cargo bench --bench process --no-run --message-format=json 2>/dev/null |
	grep '"name":"process"' | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1)
[[ -x $bench ]] || { echo "benches/page_cache_states.sh: cannot build the process bench" >&2; exit 2; }
env -u RUST_BACKTRACE "$bench" --bench --rounds "$rounds" --binary "$bin" \
	--compare-six "$work/written-1" --compare-six "$work/written-2" \
	--compare-six "$work/read-back-1" --compare-six "$work/read-back-2" \
	--compare-six "$work/unit-1" --compare-six "$work/unit-2"
# What each state was, read after the runs (reading a copy caches all of it).
for f in "$work"/written-* "$work"/read-back-* "$work"/unit-*; do
	printf '%-12s %s\n' "${f##*/}" "$("$REPO/tests/e2e/folios.py" "$f")"
done
