#!/bin/sh
# Differential test of the shipped policies against the real OPA engine (Go, through PyPI's
# opa-golib-python-bindings). Creates (or reuses) a venv, runs the Rust side
# (tests/integration/policy_differential.rs: interpreter vs RVM, writes the cases JSON), then compares with
# OPA. Skips when the bindings cannot be installed: a line `SKIP: <reason>` and exit status 77
# (tests/run.sh fails a skip that names no reason).
set -eu
cd "$(dirname "$0")/../.."
VENV="${OPA_VENV:-target/opa-venv}"
OUT="${POLICY_ORACLE_OUT:-$PWD/target/policy-oracle/cases.json}"
# Every release declares Requires-Python >= 3.14 but works on 3.11+ (pure ctypes over a Go .so).
PKG="opa-golib-python-bindings==0.4.4"

if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import opa_bindings' 2>/dev/null; then
    if ! python3 -m venv "$VENV" >/dev/null 2>&1 ||
        ! "$VENV/bin/pip" install -q --ignore-requires-python "$PKG" >/dev/null 2>&1 ||
        ! "$VENV/bin/python" -c 'import opa_bindings' 2>/dev/null; then
        echo "SKIP: could not install $PKG into $VENV"
        exit 77
    fi
fi

unset RUST_BACKTRACE RUST_LIB_BACKTRACE
POLICY_ORACLE_OUT="$OUT" cargo test -q --test integration policy_differential::
"$VENV/bin/python" tests/oracle/opa_diff.py "$OUT"
