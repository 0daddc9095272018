#!/usr/bin/env python3
"""Reads ansible-playbook's default output for denied.yml on stdin and exits 0 only when every
task failed with guarded-sh's denial: its one-line reason, and status 126."""
import json
import re
import sys

results = {}
task = None
for line in sys.stdin:
    m = re.match(r"TASK \[(.+?)\]", line)
    if m:
        task = m.group(1)
        continue
    m = re.match(r"fatal: \[[^]]+\]: FAILED! => (\{.*\})\s*$", line)
    if m and task:
        results[task] = json.loads(m.group(1))
bad = []
for name in ["shell-dd", "command-dd", "file-absent", "cron-download"]:
    r = results.get(name)
    text = json.dumps(r)
    if r is None or "guarded-sh: denied" not in text or r.get("rc") != 126:
        bad.append(f"{name}: {text[:400]}")
if bad:
    print("\n".join(bad))
    sys.exit(1)
