#!/usr/bin/env python3
"""Interleaved whole-process timing: run every command of a JSON list round-robin (so machine
noise is shared), after warm-up runs, and print medians and p90 in milliseconds as JSON.

Each round runs the commands in a fresh random order (fixed seed), so no command always runs
right after the same neighbour (lshell's Python start-up evicts caches).

Usage: measure.py RUNS WARMUP < commands.json   (a list of {"name", "argv", "env"?})"""
import json, os, random, statistics, subprocess, sys, time

runs, warmup = int(sys.argv[1]), int(sys.argv[2])
commands = json.load(sys.stdin)
samples = {c["name"]: [] for c in commands}
rng = random.Random(42)
order = list(range(len(commands)))
for i in range(warmup + runs):
    rng.shuffle(order)
    for k in order:
        c = commands[k]
        env = dict(os.environ, **c.get("env", {}))
        t = time.perf_counter()
        p = subprocess.run(c["argv"], env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        dt = (time.perf_counter() - t) * 1e3
        if i >= warmup:
            samples[c["name"]].append(dt)
        c["status"] = p.returncode
out = []
for c in commands:
    s = sorted(samples[c["name"]])
    out.append({"name": c["name"], "status": c["status"], "median_ms": statistics.median(s),
                "p90_ms": s[int(len(s) * 0.9) - 1], "runs": len(s)})
json.dump(out, sys.stdout, indent=1)
