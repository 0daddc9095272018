package honey_test.prod_guard

import rego.v1

msg := "high-risk command on prod"

cmd(severity, env) := {
	"action": "command_exec", "schema_version": 1,
	"command": {"raw": "kubectl delete pod x -n prod", "max_severity": severity, "detected": {"commands": ["kubectl"]}},
	"target": {"env": env},
	"execution": {"dry_run": false, "approved": false},
}

test_high_on_prod_is_denied if {
	msg in data.honey.deny_reasons with input as cmd("high", "prod")
	not data.honey.allow with input as cmd("high", "prod")
}

test_high_on_staging_is_not_denied if {
	not msg in data.honey.deny_reasons with input as cmd("high", "staging")
}

test_medium_on_prod_is_not_denied if {
	not msg in data.honey.deny_reasons with input as cmd("medium", "prod")
}
