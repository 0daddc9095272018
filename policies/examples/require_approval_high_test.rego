package honey_test.require_approval_high

import rego.v1

msg := "high-risk command requires approval"

cmd(severity, approved) := {
	"action": "command_exec", "schema_version": 1,
	"command": {"raw": "helm uninstall web", "max_severity": severity, "detected": {"commands": ["helm"]}},
	"target": {"env": "dev", "host_vars": {}},
	"execution": {"dry_run": false, "approved": approved},
}

test_high_requires_approval if {
	msg in data.honey.approval_reasons with input as cmd("high", false)
	data.honey.decision == "require_approval" with input as cmd("high", false)
}

test_approved_high_is_not_held if {
	not msg in data.honey.approval_reasons with input as cmd("high", true)
}

test_medium_is_not_held if {
	not msg in data.honey.approval_reasons with input as cmd("medium", false)
}
