package honey_test.dry_run_bypass

import rego.v1

cmd(dry_run) := {
	"action": "command_exec", "schema_version": 1,
	"command": {"raw": "kubectl delete pod x", "max_severity": "high", "detected": {"commands": ["kubectl"]}},
	"target": {"env": "prod", "host_vars": {"tier": "prod"}},
	"execution": {"dry_run": dry_run},
}

# The baseline denies an unknown schema version; a dry run still previews as allowed.
test_dry_run_is_allowed_even_when_denied_otherwise if {
	inp := object.union(cmd(true), {"schema_version": 2})
	count(data.honey.deny_reasons) > 0 with input as inp
	data.honey.allow with input as inp
	not data.honey.allow with input as object.union(cmd(false), {"schema_version": 2})
}

test_real_run_is_not_bypassed if {
	data.honey.dry_run_bypass == false with input as cmd(false)
}

# A dry run previews as allowed even where a real run would be held for approval.
test_dry_run_is_not_held if {
	data.honey.decision == "allow" with input as cmd(true)
	data.honey.decision != "allow" with input as cmd(false)
}
