# The reference's command allowlist, unchanged, next to the baseline.
package honey_test.command_allowlist

import rego.v1

cmd(commands) := {
	"action": "command_exec", "schema_version": 1,
	"command": {"raw": concat(" | ", commands), "max_severity": "", "detected": {"commands": commands}},
	"target": {"env": "dev"},
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

test_listed_commands_pass if {
	verdict(cmd(["systemctl", "journalctl"])) == "allow"
}

test_an_unlisted_command_is_denied_with_the_list if {
	verdict(cmd(["cat", "rm", "curl"])) == "deny"
	data.honey.deny_reason == "command not in allowlist: [\"cat\", \"rm\", \"curl\"]" with input as cmd(["cat", "rm", "curl"])
}

test_hidden_second_command_is_caught if {
	verdict(cmd(["ls", "rm"])) == "deny"
}
