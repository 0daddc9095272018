# shellcheck shell=bash
# The end-to-end tests' check helpers, sourced by tests/e2e/*.sh: one line per check
# ("ok   NAME", "FAIL NAME (why)", "skip NAME (reason)"), counted in $passed, $failed and
# $skipped; `check` runs a command and logs its output to $T/check.log (T: the test's scratch
# directory, set by the caller before its first check).
passed=0
failed=0
skipped=0

pass() {
	passed=$((passed + 1))
	printf 'ok   %s\n' "$1"
}
fail() {
	failed=$((failed + 1))
	printf 'FAIL %s%s\n' "$1" "${2:+ ($2)}"
}
skip() {
	skipped=$((skipped + 1))
	printf 'skip %s (%s)\n' "$1" "$2"
}
# check NAME CMD...: one check, by the status of CMD.
check() {
	local name=$1
	shift
	if "$@" >>"$T/check.log" 2>&1; then pass "$name"; else fail "$name" "see $T/check.log"; fi
}
