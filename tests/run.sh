#!/usr/bin/env bash
# The whole test suite, as CI runs it (`.ci/run` calls exactly this). Run as root on Debian 12:
# installs the system packages the tests need, then checks formatting, lints and the scripts
# (shellcheck), runs the unit, table and integration tests (`cargo test`, which changes nothing
# outside its temporary directories), the policy unit tests, the OPA differential oracle, the fuzz
# smoke run, and the root-only parts that modify the host: the approval tests with throwaway
# users, the install of the static release build, install.sh's lifecycle (--user, --remove-user,
# the audit sink, the baseline conffile, approvals, sshd's settings, --uninstall, --purge), the
# sshd settings check against sshd's own reading of a table of configurations, and a real sshd
# end to end.
set -euo pipefail
cd "$(dirname "$0")/.."

# A step that can skip (the oracle, the fuzz smoke run, the root-only approval tests) runs through
# `step NAME CMD...`. It skips by exiting 77 after printing a line `SKIP: <reason>`; a skip that
# names no reason fails the run, and so do any other non-zero status and a `SKIP:` line from a
# step that then exits 0. Every skip is printed again as `SKIP: NAME: <reason>` and listed at
# the end.
skipped=()
list_skipped() {
  if ((${#skipped[@]})); then
    printf 'skipped, each with its reason:\n'
    printf '  SKIP: %s\n' "${skipped[@]}"
  fi
}
trap list_skipped EXIT
step() {
  local name=$1 log status reason
  shift
  echo "== $name"
  log=$(mktemp)
  set +e
  "$@" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  set -e
  reason=$(sed -n 's/^SKIP:[[:space:]]*//p' "$log" | head -n 1)
  rm -f "$log"
  if [[ $status == 77 ]]; then
    if [[ -z ${reason//[[:space:]]/} ]]; then
      echo "FAIL: $name: skipped without naming a reason"
      exit 1
    fi
    echo "SKIP: $name: $reason"
    skipped+=("$name: $reason")
  elif [[ $status != 0 ]]; then
    echo "FAIL: $name (exit status $status)"
    exit "$status"
  elif [[ -n $reason ]]; then
    echo "FAIL: $name: printed a SKIP line but exited 0 (a skip exits 77)"
    exit 1
  fi
}

# The second-person approval tests create throwaway users and a group (cargo test ignores them):
# root only; the users and the group are removed afterwards.
approval_flow() {
  if [[ $(id -u) != 0 ]]; then
    echo "SKIP: needs root (it creates throwaway users and a group)"
    return 77
  fi
  local status=0
  cargo test --test integration approval_flow:: -- --ignored || status=$?
  for u in gsapr-alice gsapr-bob gsapr-carol gsapr-dave; do
    if id "$u" >/dev/null 2>&1; then userdel "$u"; fi
  done
  if getent group gsapr-approvers >/dev/null; then groupdel gsapr-approvers; fi
  return "$status"
}

packages=(openssh-server openssh-client rsync git ansible-core python3-apt sudo expect tmux shellcheck python3-venv procps time valgrind libseccomp-dev gcc make vim less)
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

echo "== cargo fmt --check (the crate and the fuzz crate, a workspace of its own)"
cargo fmt --check
(cd fuzz && cargo fmt --check)
echo "== cargo clippy --all-targets -- -D warnings"
cargo clippy --all-targets -- -D warnings
echo "== shellcheck (every script in the repo but the review fixtures, which are input)"
git ls-files -z | while IFS= read -r -d '' f; do
  [[ $f == tests/review/* || -L $f ]] && continue
  if head -n 1 "$f" | grep -qE '^#!.*[/ ](ba|da)?sh( |$)'; then printf '%s\0' "$f"; fi
done | xargs -0 shellcheck -x
echo "== module graph of src/ (no import cycle between top-level modules)"
tests/module_cycles.sh src >/dev/null
echo "== cargo test"
cargo test --all-targets
echo "== policy unit tests (policies/, each of policies/examples/ next to the baseline)"
cargo run --quiet -- --policy-test policies
# The reference examples each bring `default allow := true`: one at a time, never together.
for test in policies/examples/*_test.rego; do
  one=$(mktemp -d)
  cp policies/baseline.rego "${test%_test.rego}.rego" "$test" "$one/"
  cargo run --quiet -- --policy-test "$one"
  rm -rf "$one"
done
step "OPA differential oracle" tests/oracle/run.sh
if cargo +nightly --version >/dev/null 2>&1 && ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  cargo install --locked cargo-fuzz
fi
step "fuzz smoke (each target briefly)" env FUZZ_SECONDS=15 tests/fuzz_smoke.sh
step "second-person approval through real users (root only; creates and removes them)" approval_flow
step "sshd's settings check (share/sshd-settings.sh against sshd -T; root)" tests/e2e/sshd_settings.sh
echo "== install.sh (static, non-PIE release build), its lifecycle, and the end-to-end test through a real sshd"
./install.sh
GSH_E2E_BINARY="$PWD/target/x86_64-unknown-linux-gnu/release/guarded-sh" tests/e2e/lifecycle.sh
GSH_E2E_BINARY="$PWD/target/x86_64-unknown-linux-gnu/release/guarded-sh" tests/e2e/sshd.sh
