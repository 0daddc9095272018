# Baseline policy for hosts managed through guarded-sh.
#
# It defines every entry point guarded-sh reads (allow, deny_reason, decision; `requires` is
# left to other files) and combines the reasons that the other files of the directory add to
# three sets, so that any number of them can be loaded together without complete-rule
# conflicts:
#
#   deny_reasons contains msg if { ... }       deny (strictest)
#   approval_reasons contains msg if { ... }   hold for a second person
#   dry_run_bypass if { ... }                  allow a preview (`--check`) that would be denied
#
# On its own it denies nothing the automation profile needs (scp, sftp-server, rsync --server,
# git-upload-pack, ...): it only refuses inputs it does not understand and holds high-severity
# commands on env "prod" for approval. Built-in critical patterns are denied before policy.
package honey

import rego.v1

default allow := false

default deny_reason := ""

default decision := "allow"

default dry_run_bypass := false

allow if count(deny_reasons) == 0

allow if dry_run_bypass

decision := "deny" if {
	not allow
} else := "require_approval" if {
	count(approval_reasons) > 0
	not dry_run_bypass
}

# The reason guarded-sh prints: why it is denied, or else why it is held.
deny_reason := concat("; ", sort(deny_reasons)) if {
	not allow
} else := concat("; ", sort(approval_reasons)) if {
	count(approval_reasons) > 0
	not dry_run_bypass
}

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
