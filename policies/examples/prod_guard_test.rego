# The reference's prod guard, unchanged, next to the baseline.
package honey_test.prod_guard

import rego.v1

cmd(severity, env) := {
	"action": "command_exec", "schema_version": 1,
	"command": {"raw": "kubectl delete pod x -n prod", "max_severity": severity, "detected": {"commands": ["kubectl"]}},
	"target": {"env": env},
	"execution": {"dry_run": false, "approved": false},
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

test_high_on_prod_is_denied if {
	not data.honey.allow with input as cmd("high", "prod")
	data.honey.deny_reason == "high-risk command on prod" with input as cmd("high", "prod")
	verdict(cmd("high", "prod")) == "deny"
}

# The baseline's hold on prod is still there; the example's deny is stricter.
test_baseline_hold_is_kept_under_the_deny if {
	"high-severity command on prod" in data.honey.approval_reasons with input as cmd("high", "prod")
}

test_high_on_staging_is_allowed if {
	data.honey.allow with input as cmd("high", "staging")
	verdict(cmd("high", "staging")) == "allow"
}

test_medium_on_prod_is_allowed if {
	verdict(cmd("medium", "prod")) == "allow"
}
