#!/usr/bin/env bash
# What starting a static exec wrapper costs here, by part (BENCHMARKS.md §1, "Where the time
# goes"): four programs that only exec `bash -c true`, measured side by side with guarded-sh by
# benches/process.rs (`--compare`):
#   c-floor       a static C program (the bench's own floor row, built the same way);
#   c-stack       the same, first asking glibc for the main thread's stack (`pthread_getattr_np`,
#                 which reads /proc/self/maps), as Rust's start-up does;
#   rust-main     a static Rust program (std's start-up: stack guard, signal stack, SIGPIPE);
#   rust-no-main  the same with `#![no_main]`: std's start-up skipped (a `#[no_mangle]` entry
#                 point, which guarded-sh cannot have: its crate forbids `unsafe` code).
# The Rust programs are built with the flags of build/static.sh (static, non-PIE, panic=abort).
#
#   benches/startup_costs.sh [ROUNDS]   (default 800)
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
rounds=${1:-800}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat >"$work/floor.c" <<'C'
#include <pthread.h>
#include <unistd.h>
int main(void) {
#ifdef STACK
    pthread_attr_t attr;
    pthread_getattr_np(pthread_self(), &attr);
#endif
    char *args[] = {"bash", "-c", "true", NULL};
    execv("/bin/bash", args);
    return 126;
}
C
cc -O2 -static -o "$work/c-floor" "$work/floor.c"
cc -O2 -static -DSTACK -D_GNU_SOURCE -o "$work/c-stack" "$work/floor.c" -lpthread

cat >"$work/main.rs" <<'RS'
use std::os::unix::process::CommandExt;
fn main() {
    let args: Vec<_> = std::env::args_os().skip(1).collect();
    let error = std::process::Command::new("/bin/bash").args(&args).exec();
    eprintln!("{error}");
    std::process::exit(126);
}
RS
cat >"$work/no_main.rs" <<'RS'
#![no_main]
use std::os::unix::process::CommandExt;
#[no_mangle]
pub extern "C" fn main(_argc: i32, _argv: *const *const u8) -> i32 {
    // glibc hands std the arguments through .init_array, so args_os works without std's start-up.
    let args: Vec<_> = std::env::args_os().skip(1).collect();
    let error = std::process::Command::new("/bin/bash").args(&args).exec();
    eprintln!("{error}");
    126
}
RS
for name in main no_main; do
	rustc --edition 2021 -C opt-level=3 -C panic=abort -C target-feature=+crt-static \
		-C relocation-model=static --target x86_64-unknown-linux-gnu \
		-o "$work/rust-${name//_/-}" "$work/$name.rs"
done

bench=$(cd "$REPO" && cargo bench --bench process --no-run --message-format=json 2>/dev/null |
	grep '"name":"process"' | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1)
[[ -x $bench ]] || { echo "benches/startup_costs.sh: cannot build the process bench" >&2; exit 2; }
# The C programs ignore their arguments; the Rust ones pass on the bench's `-c true`.
env -u RUST_BACKTRACE "$bench" --bench --rounds "$rounds" \
	--compare "$work/c-floor" --compare "$work/c-stack" \
	--compare "$work/rust-main" --compare "$work/rust-no-main"
