#!/usr/bin/env bash
# Fuzz smoke run: each cargo-fuzz target of fuzz/ for a short period (FUZZ_SECONDS, default 20),
# starting from the seeds in fuzz/seeds/<target>. Exits non-zero when a target crashes (the
# crashing input is left in fuzz/artifacts/<target>/). Skips when the nightly toolchain or
# cargo-fuzz is not available: a line `SKIP: <reason>` and exit status 77 (tests/run.sh fails a
# skip that names no reason). Long runs: see docs/hardening.md.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

seconds="${FUZZ_SECONDS:-20}"
skip() {
  echo "SKIP: $*"
  exit 77
}

cargo +nightly --version >/dev/null 2>&1 || skip "no nightly toolchain (rustup toolchain install nightly)"
cargo +nightly fuzz --version >/dev/null 2>&1 || skip "cargo-fuzz is not installed (cargo install cargo-fuzz)"

targets=$(cargo +nightly fuzz list 2>/dev/null) || skip "cargo fuzz list failed"
[ -n "$targets" ] || skip "no fuzz targets"

echo "== fuzz smoke: building targets"
cargo +nightly fuzz build -O || { echo "fuzz smoke: FAIL: build"; exit 1; }

failed=()
for t in $targets; do
  mkdir -p "fuzz/corpus/$t"
  seeds=()
  [ -d "fuzz/seeds/$t" ] && seeds=("fuzz/seeds/$t")
  echo "== fuzz smoke: $t for ${seconds}s"
  if cargo +nightly fuzz run -O "$t" "fuzz/corpus/$t" "${seeds[@]}" -- \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      >"fuzz/$t.log" 2>&1; then
    grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb)" "fuzz/$t.log" | tr '\n' ' '; echo
  else
    echo "fuzz smoke: FAIL: $t crashed; see fuzz/$t.log and fuzz/artifacts/$t/"
    grep -E "panicked at|ERROR: libFuzzer|SUMMARY" "fuzz/$t.log" | head -5
    failed+=("$t")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz smoke: ${#failed[@]} target(s) crashed: ${failed[*]}"
  exit 1
fi
echo "fuzz smoke: all targets ran ${seconds}s without a crash"
