# Example: OpenHuman's autonomy tiers, driven by the command classes guarded-sh derives
# (input.command.classes, among "read", "write", "network", "install", "destructive").
#
# The tier comes from the target's host vars: `autonomy = "read-only" | "supervised" | "full"`
# in the host-vars file (input.target.host_vars.autonomy). Hosts without it are not affected;
# any other value denies (fail closed).
#
#   tier         runs                 held for approval                       denied
#   read-only    read                 -                                       everything else
#   supervised   read                 write, network, install, destructive    -
#   full         read, write          network, install, destructive           -
#
# Unknown class strings are treated like the strictest known ones (held or denied). An
# approved command (input.execution.approved) is no longer held; read-only still denies.
package honey

import rego.v1

autonomy_tier := input.target.host_vars.autonomy

autonomy_runs := {
	"read-only": {"read"},
	"supervised": {"read"},
	"full": {"read", "write"},
}

# (is_array first: the compiled form errors where iterating a missing or null list is undefined.)
autonomy_gated contains class if {
	is_array(input.command.classes)
	some class in input.command.classes
	not class in autonomy_runs[autonomy_tier]
}

deny_reasons contains msg if {
	input.action == "command_exec"
	autonomy_tier == "read-only"
	count(autonomy_gated) > 0
	msg := sprintf("autonomy read-only blocks %s commands", [concat(", ", sort(autonomy_gated))])
}

approval_reasons contains msg if {
	input.action == "command_exec"
	autonomy_tier in {"supervised", "full"}
	count(autonomy_gated) > 0
	not input.execution.approved
	msg := sprintf("autonomy %s requires approval for %s commands", [autonomy_tier, concat(", ", sort(autonomy_gated))])
}

deny_reasons contains sprintf("unknown autonomy tier %v", [tier]) if {
	tier := autonomy_tier
	not autonomy_runs[tier]
}

deny_reasons contains "autonomy tier set but command classes are missing" if {
	autonomy_runs[autonomy_tier]
	not is_array(input.command.classes)
}
