package honey_test.interpreter_gate

import rego.v1

msg := "python steps are not allowed on prod"

step(interpreter, env) := {
	"action": "command_exec", "schema_version": 1,
	"command": {"raw": "print(1)", "max_severity": "", "interpreter": interpreter, "detected": {"commands": []}},
	"target": {"env": env},
	"execution": {"dry_run": false},
}

test_python_on_prod_is_denied if {
	every interp in ["python3", "python", "python3.11"] {
		msg in data.honey.deny_reasons with input as step(interp, "prod")
	}
}

test_python_on_dev_is_allowed if {
	not msg in data.honey.deny_reasons with input as step("python3", "dev")
}

test_other_interpreters_are_allowed if {
	every interp in ["", "node", "pythonista"] {
		not msg in data.honey.deny_reasons with input as step(interp, "prod")
	}
}
