# Example: never block a dry run (`guarded-sh --check`, execution.dry_run == true), so that
# operators can preview risk without a hard deny. Nothing is executed under --check.
#
# Reference: `default allow := true` plus `allow if { dry_run }`, which conflicts with any
# `allow := false` of another file. Rewritten as the baseline's `dry_run_bypass` hook: the
# baseline allows when it holds, and still reports the deny reasons it would have given.
# Approval holds (`decision == "require_approval"`) still show.
package honey

import rego.v1

dry_run_bypass if {
	input.action == "command_exec"
	input.execution.dry_run == true
}
