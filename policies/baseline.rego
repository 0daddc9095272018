# Baseline policy for hosts managed through guarded-sh.
#
# It only adds to two sets of reasons, which guarded-sh reads next to the reference engine's
# `allow`, `deny_reason`, `decision` and `requires`, strictest outcome first:
#
#   deny_reasons contains msg if { ... }       deny (a reason in it denies)
#   approval_reasons contains msg if { ... }   hold for a second person (unless something denies)
#
# It defines no complete rule and no `default`, so it loads unchanged next to any policy of the
# reference's shape (`default allow := true`, `allow := false if {...}`, `deny_reason := ...`,
# `decision := "require_approval" if {...}`) and next to other files that add to the same sets:
# partial rules never conflict. Alone, with no `allow` anywhere, the two sets decide.
#
# On its own it denies nothing the automation profile needs (scp, sftp-server, rsync --server,
# git-upload-pack, ...): it only refuses inputs it does not understand and holds high-severity
# commands on env "prod" for approval. Built-in critical patterns are denied before policy.
package honey

import rego.v1

# Policies are written against input schema version 1; refuse anything else.
deny_reasons contains msg if {
	input.schema_version != 1
	msg := sprintf("unsupported policy input schema_version %v", [input.schema_version])
}

deny_reasons contains "unknown policy action" if {
	input.action != "command_exec"
}

# Defence in depth: the built-in floor denies critical commands before policy runs.
deny_reasons contains "critical command" if {
	input.command.critical == true
}

approval_reasons contains "high-severity command on prod" if {
	input.command.max_severity in {"high", "critical"}
	input.target.env == "prod"
	not input.execution.approved
}
