# Example: block Python steps on prod. input.command.interpreter is set for steps run through an
# interpreter, even when guarded-sh does not parse them.
#
# Reference: complete `allow := false` / `deny_reason := ...` for interpreter == "python3".
# Rewritten as a `deny_reasons` contribution; it also matches python, python2 and python3.x.
package honey

import rego.v1

# The cheap tests come first: regorus compiles the pattern on every call of regex.match, so it
# only runs for steps on prod that name an interpreter.
deny_reasons contains "python steps are not allowed on prod" if {
	input.action == "command_exec"
	input.target.env == "prod"
	input.command.interpreter != ""
	regex.match(`^python[0-9.]*$`, input.command.interpreter)
}
