# Example: deny high-risk commands on prod (target env).
#
# Reference: `default allow := true`, `allow := false if {...}` and a complete
# `deny_reason := "..." if {...}`. Rewritten as a contribution to the baseline's
# `deny_reasons` set (same meaning) so that it loads next to the other examples without
# complete-rule conflicts; "critical" is included with "high" (critical commands are denied
# by the built-in floor first anyway).
package honey

import rego.v1

deny_reasons contains "high-risk command on prod" if {
	input.action == "command_exec"
	input.command.max_severity in {"high", "critical"}
	input.target.env == "prod"
}
