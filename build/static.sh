#!/usr/bin/env bash
# Builds the binary install.sh installs and prints its path (cargo's output goes to stderr):
#   - static and non-PIE: nothing of the dynamic loader runs before main (no LD_PRELOAD, no
#     relocations to apply at start-up);
#   - the release profile (fat LTO, one codegen unit, `panic = "abort"`).
# Extra arguments go to cargo (e.g. --target-dir DIR).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TRIPLE=x86_64-unknown-linux-gnu

target_dir=$REPO/target
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
	[[ ${args[i]} == --target-dir ]] && target_dir=${args[i + 1]:-$target_dir}
done
[[ $target_dir == /* ]] || target_dir=$REPO/$target_dir # cargo runs in $REPO
export RUSTFLAGS="-C target-feature=+crt-static -C relocation-model=static"
# libseccomp (exec supervision) from its static archive (libseccomp-dev), like everything else.
export LIBSECCOMP_LINK_TYPE=static
export LIBSECCOMP_LIB_PATH=${LIBSECCOMP_LIB_PATH:-/usr/lib/x86_64-linux-gnu}
(cd "$REPO" && cargo build --release --target "$TRIPLE" "$@" >&2)
echo "$target_dir/$TRIPLE/release/guarded-sh"
