#!/usr/bin/env bash
# The whole test suite, as CI runs it (`.ci/run` calls exactly this). Run as root on Debian 12:
# installs the system packages the tests need, then checks formatting, lints and the scripts
# (shellcheck), runs the unit, table and integration tests, the policy unit tests, the OPA
# differential oracle, installs the static release build and drives it through a real sshd end
# to end.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(openssh-server openssh-client rsync git ansible-core expect tmux shellcheck python3-venv procps time valgrind)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

echo "== cargo fmt --check"
cargo fmt --check
echo "== cargo clippy --all-targets -- -D warnings"
cargo clippy --all-targets -- -D warnings
echo "== shellcheck (every script in the repo but the review fixtures, which are input)"
git ls-files -z | while IFS= read -r -d '' f; do
  [[ $f == tests/review/* || -L $f ]] && continue
  if head -n 1 "$f" | grep -qE '^#!.*[/ ](ba|da)?sh( |$)'; then printf '%s\0' "$f"; fi
done | xargs -0 shellcheck
echo "== cargo test"
cargo test --all-targets
echo "== policy unit tests (policies/, policies/examples/)"
cargo run --quiet -- --policy-test policies
cargo run --quiet -- --policy-test policies/examples
if [ -x tests/oracle/run.sh ]; then
  echo "== OPA differential oracle"
  tests/oracle/run.sh
fi
echo "== fuzz smoke (each target briefly; skips with a line when nightly or cargo-fuzz are missing)"
if cargo +nightly --version >/dev/null 2>&1 && ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  cargo install --locked cargo-fuzz
fi
FUZZ_SECONDS=15 tests/fuzz_smoke.sh
echo "== install.sh (static, non-PIE release build) and the end-to-end test through a real sshd"
./install.sh
GSH_E2E_BINARY="$PWD/target/x86_64-unknown-linux-gnu/release/guarded-sh" tests/e2e/sshd.sh
