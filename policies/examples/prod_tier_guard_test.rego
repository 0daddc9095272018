package honey_test.prod_tier_guard

import rego.v1

msg := "high-risk command blocked on prod tier"

cmd(severity, tier) := {
	"action": "command_exec", "schema_version": 1,
	"command": {"raw": "systemctl stop nginx", "max_severity": severity, "detected": {"commands": ["systemctl"]}},
	"target": {"env": "", "host_vars": {"tier": tier}},
	"execution": {"dry_run": false},
}

test_high_on_prod_tier_is_denied if {
	msg in data.honey.deny_reasons with input as cmd("high", "prod")
}

test_high_on_web_tier_is_not_denied if {
	not msg in data.honey.deny_reasons with input as cmd("high", "web")
}

test_low_on_prod_tier_is_not_denied if {
	not msg in data.honey.deny_reasons with input as cmd("low", "prod")
}

test_missing_host_vars_is_not_denied if {
	not msg in data.honey.deny_reasons with input as object.union(cmd("high", "prod"), {"target": {"host_vars": null}})
}
