# Example: hold high-risk commands for a second person instead of denying them.
# `input.execution.approved` is set once the approval flow has granted the command.
#
# Reference: a complete `decision := "require_approval" if {...}`. Rewritten as an
# `approval_reasons` contribution (same meaning); the baseline turns a non-empty set into
# `decision := "require_approval"`.
package honey

import rego.v1

approval_reasons contains "high-risk command requires approval" if {
	input.action == "command_exec"
	input.command.max_severity in {"high", "critical"}
	not input.execution.approved
}
