package honey_test

import rego.v1

base := {
	"action": "command_exec", "actor": "alice", "schema_version": 1,
	"command": {
		"raw": "ls -la", "max_severity": "", "interpreter": "", "critical": false,
		"riskSignals": [], "detected": {"commands": ["ls"], "flags": ["-la"], "paths": []},
		"classes": ["read"],
	},
	"target": {"name": "web-1", "provider": "ssh", "env": "prod", "host_vars": {}},
	"execution": {"recipe": "", "dry_run": false, "approved": false},
	"session": {"mode": "command", "interactive": false, "tty": false, "login": false},
}

# object.union merges recursively: the second object's leaves replace the first's.
with_command(raw, cmd, severity) := object.union(base, {"command": {
	"raw": raw,
	"detected": {"commands": [cmd]},
	"max_severity": severity,
}})

test_plain_read_is_allowed if {
	data.honey.allow with input as base
	data.honey.decision == "allow" with input as base
	data.honey.deny_reason == "" with input as base
}

test_automation_profile_is_allowed if {
	every raw in ["scp -t /tmp", "/usr/lib/openssh/sftp-server", "rsync --server -vlogDtpre.iLsfxC . /srv", "git-upload-pack '/srv/repo.git'"] {
		cmd := split(raw, " ")[0]
		data.honey.decision == "allow" with input as with_command(raw, cmd, "")
	}
}

test_high_on_prod_requires_approval if {
	inp := with_command("kubectl delete pod x -n prod", "kubectl", "high")
	data.honey.allow with input as inp
	data.honey.decision == "require_approval" with input as inp
	data.honey.deny_reason == "high-severity command on prod" with input as inp
}

test_high_on_prod_approved_is_allowed if {
	inp := object.union(with_command("kubectl delete pod x", "kubectl", "high"), {"execution": {"approved": true}})
	data.honey.decision == "allow" with input as inp
}

test_high_on_staging_is_allowed if {
	inp := object.union(with_command("kubectl delete pod x", "kubectl", "high"), {"target": {"env": "staging"}})
	data.honey.decision == "allow" with input as inp
}

test_medium_on_prod_is_allowed if {
	data.honey.decision == "allow" with input as with_command("rm -rf build", "rm", "medium")
}

test_unknown_schema_is_denied if {
	inp := object.union(base, {"schema_version": 2})
	not data.honey.allow with input as inp
	data.honey.decision == "deny" with input as inp
	data.honey.deny_reason == "unsupported policy input schema_version 2" with input as inp
}

test_unknown_action_is_denied if {
	not data.honey.allow with input as object.union(base, {"action": "mcp_exec"})
}

test_critical_is_denied if {
	not data.honey.allow with input as object.union(base, {"command": {"critical": true}})
}

test_reasons_are_joined_sorted if {
	inp := object.union(base, {"command": {"critical": true}, "action": "x"})
	data.honey.deny_reason == "critical command; unknown policy action" with input as inp
}
