# Example: deny any command outside a permitted set of binaries.
#
# Reference: a complete `allow := false` plus `deny_reason := sprintf(..., [all commands])`.
# Rewritten as one `deny_reasons` entry per command outside the list (same meaning, one
# reason per offending command, no complete-rule conflicts). The set is named
# `allowlist_commands` so that it cannot clash with other files of package honey.
#
# Note: the reference's MCP variant matched `startswith(input.command.raw, cmd)`, which
# `ls; rm -rf /` passes. This one checks every command the parser found.
package honey

import rego.v1

allowlist_commands := {"systemctl", "journalctl", "kubectl", "helm", "echo", "cat"}

deny_reasons contains sprintf("command not in allowlist: %v", [cmd]) if {
	input.action == "command_exec"
	some cmd in input.command.detected.commands
	not allowlist_commands[cmd]
}
