package honey

import rego.v1

# The review tests' policy: high-risk steps wait for approval, `shutdown` and `forbidden-tool`
# are denied, everything else is allowed.

default allow := true

default decision := "allow"

decision := "require_approval" if {
	input.command.max_severity == "high"
	not input.execution.approved
	not denied
}

denied if {
	some c in input.command.detected.commands
	c in {"shutdown", "forbidden-tool"}
}

allow := false if denied

deny_reason := sprintf("%v is not allowed on %v", [concat(",", [c | some c in input.command.detected.commands; c in {"shutdown", "forbidden-tool"}]), input.target.name]) if denied

requires := ["change-ticket"] if {
	decision == "require_approval"
	input.target.env == "prod"
}
