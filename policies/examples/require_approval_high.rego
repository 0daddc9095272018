package honey
import rego.v1

default allow := true

decision := "require_approval" if {
	input.action == "command_exec"
	input.command.max_severity == "high"
	not input.execution.approved
}
