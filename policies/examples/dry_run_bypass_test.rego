# The reference's dry-run bypass, unchanged, next to the baseline: it sets allow for a dry run
# (and allow is true anyway by its default), so the verdict is the baseline's alone.
package honey_test.dry_run_bypass

import rego.v1

cmd(dry_run, env) := {
	"action": "command_exec", "schema_version": 1,
	"command": {"raw": "kubectl delete pod x", "max_severity": "high", "detected": {"commands": ["kubectl"]}},
	"target": {"env": env, "host_vars": {"tier": "prod"}},
	"execution": {"dry_run": dry_run},
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

test_dry_run_is_allowed if {
	data.honey.allow with input as cmd(true, "dev")
	verdict(cmd(true, "dev")) == "allow"
	verdict(cmd(false, "dev")) == "allow"
}

# A dry run is not a way past the baseline: a preview shows the hold a real run would get.
test_baseline_hold_shows_in_a_dry_run if {
	verdict(cmd(true, "prod")) == "require_approval"
	verdict(cmd(false, "prod")) == "require_approval"
}

test_baseline_deny_is_not_bypassed if {
	verdict(object.union(cmd(true, "dev"), {"schema_version": 2})) == "deny"
}
