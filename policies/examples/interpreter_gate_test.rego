# The reference's interpreter gate, unchanged, next to the baseline.
package honey_test.interpreter_gate

import rego.v1

step(interpreter, env) := {
	"action": "command_exec", "schema_version": 1,
	"command": {"raw": "print(1)", "max_severity": "", "interpreter": interpreter, "detected": {"commands": []}},
	"target": {"env": env},
	"execution": {"dry_run": false},
}

# The verdict guarded-sh reads (strictest wins): allow false, decision "deny" or a deny reason
# denies; else decision "require_approval" or an approval reason holds; else it allows.
verdict(inp) := "deny" if {
	not data.honey.allow with input as inp
} else := "deny" if {
	data.honey.decision == "deny" with input as inp
} else := "deny" if {
	count(data.honey.deny_reasons) > 0 with input as inp
} else := "require_approval" if {
	data.honey.decision == "require_approval" with input as inp
} else := "require_approval" if {
	count(data.honey.approval_reasons) > 0 with input as inp
} else := "allow"

test_python3_on_prod_is_denied if {
	verdict(step("python3", "prod")) == "deny"
	data.honey.deny_reason == "python steps are not allowed on prod" with input as step("python3", "prod")
}

test_python3_on_dev_is_allowed if {
	verdict(step("python3", "dev")) == "allow"
}

# The reference matches "python3" exactly.
test_other_interpreters_are_allowed if {
	every interp in ["", "node", "python", "pythonista"] {
		verdict(step(interp, "prod")) == "allow"
	}
}
