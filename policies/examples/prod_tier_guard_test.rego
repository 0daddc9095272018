# The reference's prod-tier guard (host vars), unchanged, next to the baseline.
package honey_test.prod_tier_guard

import rego.v1

cmd(severity, tier) := {
	"action": "command_exec", "schema_version": 1,
	"command": {"raw": "systemctl stop nginx", "max_severity": severity, "detected": {"commands": ["systemctl"]}},
	"target": {"env": "", "host_vars": {"tier": tier}},
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

test_high_on_prod_tier_is_denied if {
	data.honey.deny_reason == "high-risk command blocked on prod tier" with input as cmd("high", "prod")
	verdict(cmd("high", "prod")) == "deny"
}

test_high_on_web_tier_is_allowed if {
	verdict(cmd("high", "web")) == "allow"
}

test_low_on_prod_tier_is_allowed if {
	verdict(cmd("low", "prod")) == "allow"
}

test_missing_host_vars_is_allowed if {
	verdict(object.union(cmd("high", "prod"), {"target": {"host_vars": null}})) == "allow"
}
