package honey_test.autonomy_tiers

import rego.v1

cmd(tier, classes) := {
	"action": "command_exec", "schema_version": 1,
	"command": {"raw": "x", "max_severity": "", "detected": {"commands": []}, "classes": classes},
	"target": {"env": "dev", "host_vars": {"autonomy": tier}},
	"execution": {"dry_run": false, "approved": false},
}

verdict(inp) := "deny" if {
	some r in data.honey.deny_reasons with input as inp
	contains(r, "autonomy")
} else := "prompt" if {
	some r in data.honey.approval_reasons with input as inp
	contains(r, "autonomy")
} else := "allow"

# The OpenHuman gate matrix, one row per (tier, class).
matrix := [
	["read-only", "read", "allow"],
	["read-only", "write", "deny"],
	["read-only", "network", "deny"],
	["read-only", "install", "deny"],
	["read-only", "destructive", "deny"],
	["supervised", "read", "allow"],
	["supervised", "write", "prompt"],
	["supervised", "network", "prompt"],
	["supervised", "install", "prompt"],
	["supervised", "destructive", "prompt"],
	["full", "read", "allow"],
	["full", "write", "allow"],
	["full", "network", "prompt"],
	["full", "install", "prompt"],
	["full", "destructive", "prompt"],
]

test_gate_matrix if {
	every row in matrix {
		verdict(cmd(row[0], [row[1]])) == row[2]
	}
}

test_strictest_class_wins if {
	verdict(cmd("full", ["read", "write", "destructive"])) == "prompt"
	verdict(cmd("read-only", ["read", "write"])) == "deny"
}

test_read_only_reason_names_classes if {
	"autonomy read-only blocks network, write commands" in data.honey.deny_reasons with input as cmd("read-only", ["write", "network", "read"])
}

test_unknown_class_is_gated if {
	verdict(cmd("full", ["teleport"])) == "prompt"
}

test_approved_is_not_held_but_read_only_still_denies if {
	approved := object.union(cmd("supervised", ["write"]), {"execution": {"approved": true}})
	verdict(approved) == "allow"
	ro := object.union(cmd("read-only", ["write"]), {"execution": {"approved": true}})
	verdict(ro) == "deny"
}

test_no_tier_has_no_effect if {
	no_tier := object.remove(cmd("x", ["destructive"]), ["target"])
	verdict(no_tier) == "allow"
}

test_unknown_tier_is_denied if {
	"unknown autonomy tier yolo" in data.honey.deny_reasons with input as cmd("yolo", ["read"])
}

test_missing_classes_is_denied if {
	inp := object.union(cmd("supervised", []), {"command": {"classes": null}})
	"autonomy tier set but command classes are missing" in data.honey.deny_reasons with input as inp
}

test_empty_classes_are_allowed if {
	verdict(cmd("read-only", [])) == "allow"
}
