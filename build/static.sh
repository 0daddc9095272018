#!/usr/bin/env bash
# Builds the binary install.sh installs and prints its path (cargo's output goes to stderr):
#   - static and non-PIE: nothing of the dynamic loader runs before main (no LD_PRELOAD, no
#     relocations to apply at start-up);
#   - the release profile (fat LTO, one codegen unit);
#   - the functions a gated command runs laid out together, in the order of
#     build/symbol-order.txt, and the read-only data it reads gathered by build/rodata-order.ld
#     (both written by build/order.sh): a command then maps about half the pages it would
#     otherwise, and start-up time is mostly mapping and unmapping pages.
# Extra arguments go to cargo (e.g. --target-dir DIR).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TRIPLE=x86_64-unknown-linux-gnu
ORDER=$REPO/build/symbol-order.txt
RODATA=$REPO/build/rodata-order.ld
for f in "$ORDER" "$RODATA"; do
	[[ -f $f ]] || { echo "build/static.sh: $f is missing" >&2; exit 1; }
done

target_dir=$REPO/target
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
	[[ ${args[i]} == --target-dir ]] && target_dir=${args[i + 1]:-$target_dir}
done
[[ $target_dir == /* ]] || target_dir=$REPO/$target_dir # cargo runs in $REPO
# The link map (next to the binary) is what build/order.sh reads to find the read-only sections.
export RUSTFLAGS="-C target-feature=+crt-static -C relocation-model=static \
-C link-arg=-Wl,--symbol-ordering-file=$ORDER -C link-arg=-Wl,--no-warn-symbol-ordering \
-C link-arg=-Wl,-T,$RODATA -C link-arg=-Wl,-Map=$target_dir/$TRIPLE/release/guarded-sh.map"
(cd "$REPO" && cargo build --release --target "$TRIPLE" "$@" >&2)
echo "$target_dir/$TRIPLE/release/guarded-sh"
