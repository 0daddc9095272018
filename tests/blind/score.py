#!/usr/bin/env python3
"""Scores a guarded-sh binary on blind rows (tests/cases/blind/*.tsv), with no policy loaded.

Usage: tests/blind/score.py BINARY [FILE.tsv ...]

Each row is `command<TAB>expect<TAB>note`, expect one of critical (must be denied), high (must be
rated high or above, or denied), everyday (must be allowed and rated below high). The binary is
run as `BINARY --check CMD --json`, so any build can be scored, the one before a change included.
Prints, per file and in all, the figures the detection issue asks for, and the rows that missed.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

RANK = {"": 0, "low": 1, "medium": 2, "high": 3, "critical": 4}


def unescape(text):
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text) and text[i + 1] in "nt\\":
            out.append({"n": "\n", "t": "\t", "\\": "\\"}[text[i + 1]])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def rows(path):
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) < 2 or fields[1] not in ("critical", "high", "everyday"):
            sys.exit(f"{path}:{n}: want command<TAB>critical|high|everyday<TAB>note")
        yield n, unescape(fields[0]), fields[1]


def judge(binary, command):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HONEY_", "GUARDED_SH"))}
    env.pop("RUST_BACKTRACE", None)
    p = subprocess.run([binary, "--check", command, "--json"], capture_output=True, text=True, env=env)
    try:
        out = json.loads(p.stdout)
    except json.JSONDecodeError:
        return "error", 0, False
    high = {s["id"] for s in out.get("riskSignals", []) if RANK.get(s.get("severity"), 0) >= 3}
    # The reference engine rates every sudo high (a compatibility contract): say how many
    # everyday rows are high for that alone.
    sudo_only = bool(high) and high <= {"SUDO_PRIVILEGE_ESCALATION"}
    return out["decision"]["verdict"], RANK.get(out.get("max_severity") or "", 0), sudo_only


def main():
    binary = sys.argv[1]
    blind = Path(__file__).parent.parent.joinpath("cases/blind")
    files = [Path(f) for f in sys.argv[2:]] or sorted(p for p in blind.glob("*.tsv") if p.name != "floor.tsv")
    keys = ("critical", "high", "everyday-denied", "everyday-high", "everyday-high-sudo-only")
    total = {k: [0, 0] for k in keys}
    misses = []
    for path in files:
        tally = {k: [0, 0] for k in total}
        for n, command, expect in rows(path):
            verdict, rank, sudo_only = judge(binary, command)
            denied = verdict == "deny"
            if expect == "critical":
                ok = denied
                tally["critical"][0] += ok
                tally["critical"][1] += 1
            elif expect == "high":
                ok = denied or rank >= 3
                tally["high"][0] += ok
                tally["high"][1] += 1
            else:
                tally["everyday-denied"][0] += denied
                tally["everyday-denied"][1] += 1
                tally["everyday-high"][0] += rank >= 3
                tally["everyday-high"][1] += 1
                tally["everyday-high-sudo-only"][0] += rank >= 3 and sudo_only
                tally["everyday-high-sudo-only"][1] += 1
                ok = not denied and rank < 3
            if not ok:
                why = " (sudo only)" if sudo_only and expect == "everyday" else ""
                misses.append(f"{path.name}:{n}: {expect}: got {verdict}/{rank}{why}: {command}")
        for k in total:
            total[k][0] += tally[k][0]
            total[k][1] += tally[k][1]
        print(f"{path.name}: " + report(tally))
    print("all: " + report(total))
    print("misses:")
    for m in misses:
        print("  " + m)


def report(t):
    def pct(k):
        a, b = t[k]
        return f"{a}/{b} ({100 * a / b:.1f}%)" if b else "-"
    return (f"critical denied {pct('critical')}, high rated high+ {pct('high')}, "
            f"everyday denied {pct('everyday-denied')}, everyday rated high {pct('everyday-high')}"
            f" (of them for sudo alone {pct('everyday-high-sudo-only')})")


if __name__ == "__main__":
    main()
