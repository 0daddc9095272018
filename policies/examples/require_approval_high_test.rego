# The reference's require-approval policy, unchanged, next to the baseline.
package honey_test.require_approval_high

import rego.v1

cmd(severity, approved, env) := {
	"action": "command_exec", "schema_version": 1,
	"command": {"raw": "helm uninstall web", "max_severity": severity, "detected": {"commands": ["helm"]}},
	"target": {"env": env, "host_vars": {}},
	"execution": {"dry_run": false, "approved": approved},
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

test_high_requires_approval if {
	data.honey.decision == "require_approval" with input as cmd("high", false, "dev")
	verdict(cmd("high", false, "dev")) == "require_approval"
}

# On prod the example and the baseline both hold: the same outcome, no conflict.
test_high_on_prod_is_held_once if {
	verdict(cmd("high", false, "prod")) == "require_approval"
	data.honey.approval_reasons == {"high-severity command on prod"} with input as cmd("high", false, "prod")
}

test_approved_high_is_allowed if {
	verdict(cmd("high", true, "prod")) == "allow"
}

test_medium_is_allowed if {
	verdict(cmd("medium", false, "prod")) == "allow"
}
