package honey_test.command_allowlist

import rego.v1

cmd(commands) := {
	"action": "command_exec", "schema_version": 1,
	"command": {"raw": concat(" | ", commands), "max_severity": "", "detected": {"commands": commands}},
	"target": {"env": "dev"},
	"execution": {"dry_run": false},
}

test_listed_commands_pass if {
	count({r | some r in data.honey.deny_reasons; startswith(r, "command not in allowlist")}) == 0 with input as cmd(["systemctl", "journalctl"])
}

test_each_unlisted_command_is_named if {
	reasons := data.honey.deny_reasons with input as cmd(["cat", "rm", "curl"])
	"command not in allowlist: rm" in reasons
	"command not in allowlist: curl" in reasons
	not "command not in allowlist: cat" in reasons
}

test_hidden_second_command_is_caught if {
	"command not in allowlist: rm" in data.honey.deny_reasons with input as cmd(["ls", "rm"])
}
