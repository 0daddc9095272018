# Example: deny high-risk commands on hosts whose inventory variables say tier "prod"
# (input.target.host_vars comes from guarded-sh's host-vars file).
#
# Reference: complete `allow := false` / `deny_reason := ...` rules; rewritten as a
# `deny_reasons` contribution (same meaning), "critical" included with "high".
package honey

import rego.v1

deny_reasons contains "high-risk command blocked on prod tier" if {
	input.action == "command_exec"
	input.command.max_severity in {"high", "critical"}
	input.target.host_vars.tier == "prod"
}
