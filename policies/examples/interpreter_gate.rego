package honey
import rego.v1

default allow := true

allow := false if {
	input.action == "command_exec"
	input.command.interpreter == "python3"
	input.target.env == "prod"
}
deny_reason := "python steps are not allowed on prod" if {
	input.action == "command_exec"
	input.command.interpreter == "python3"
	input.target.env == "prod"
}
