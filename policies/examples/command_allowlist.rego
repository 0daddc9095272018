package honey
import rego.v1

default allow := true

allowed_commands := {"systemctl", "journalctl", "kubectl", "helm", "echo", "cat"}

allow := false if {
	input.action == "command_exec"
	some cmd in input.command.detected.commands
	not allowed_commands[cmd]
}
deny_reason := sprintf("command not in allowlist: %v", [input.command.detected.commands]) if {
	input.action == "command_exec"
	some cmd in input.command.detected.commands
	not allowed_commands[cmd]
}
