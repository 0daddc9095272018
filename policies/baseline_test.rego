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

# What guarded-sh reads from the baseline alone (no `allow` anywhere): a deny reason denies,
# else an approval reason holds, else it allows.
verdict(inp) := "deny" if {
	count(data.honey.deny_reasons) > 0 with input as inp
} else := "require_approval" if {
	count(data.honey.approval_reasons) > 0 with input as inp
} else := "allow"

test_plain_read_is_allowed if {
	verdict(base) == "allow"
	count(data.honey.deny_reasons) == 0 with input as base
	count(data.honey.approval_reasons) == 0 with input as base
}

test_automation_profile_is_allowed if {
	every raw in ["scp -t /tmp", "/usr/lib/openssh/sftp-server", "rsync --server -vlogDtpre.iLsfxC . /srv", "git-upload-pack '/srv/repo.git'"] {
		cmd := split(raw, " ")[0]
		verdict(with_command(raw, cmd, "")) == "allow"
	}
}

test_high_on_prod_requires_approval if {
	inp := with_command("kubectl delete pod x -n prod", "kubectl", "high")
	verdict(inp) == "require_approval"
	data.honey.approval_reasons == {"high-severity command on prod"} with input as inp
}

test_high_on_prod_approved_is_allowed if {
	inp := object.union(with_command("kubectl delete pod x", "kubectl", "high"), {"execution": {"approved": true}})
	verdict(inp) == "allow"
}

test_high_on_staging_is_allowed if {
	inp := object.union(with_command("kubectl delete pod x", "kubectl", "high"), {"target": {"env": "staging"}})
	verdict(inp) == "allow"
}

test_medium_on_prod_is_allowed if {
	verdict(with_command("rm -rf build", "rm", "medium")) == "allow"
}

test_unknown_schema_is_denied if {
	inp := object.union(base, {"schema_version": 2})
	verdict(inp) == "deny"
	data.honey.deny_reasons == {"unsupported policy input schema_version 2"} with input as inp
}

test_unknown_action_is_denied if {
	verdict(object.union(base, {"action": "mcp_exec"})) == "deny"
}

test_critical_is_denied if {
	verdict(object.union(base, {"command": {"critical": true}})) == "deny"
}

# Every reason is kept (guarded-sh joins them sorted with "; "), a deny next to a hold.
test_every_reason_is_kept if {
	inp := object.union(with_command("x", "x", "high"), {"command": {"critical": true}, "action": "x"})
	data.honey.deny_reasons == {"critical command", "unknown policy action"} with input as inp
	verdict(inp) == "deny"
}

# The baseline defines no complete rule, so the reference's entry points stay the reference
# examples' own: nothing of the baseline can conflict with them.
test_defines_only_the_reason_sets if {
	not data.honey.allow with input as base
	not data.honey.deny_reason with input as base
	not data.honey.decision with input as base
}
