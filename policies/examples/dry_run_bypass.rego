package honey
import rego.v1

default allow := true

allow if {
	input.action == "command_exec"
	input.execution.dry_run == true
}
