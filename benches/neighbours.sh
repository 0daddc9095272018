#!/usr/bin/env bash
# Against the neighbours, side by side in one run on this machine (not part of CI: slow).
#
#   benches/neighbours.sh [RUNS]        (default 30 timed runs per command, 3 warm-up runs)
#
# 1. Per-command cost, whole process, interleaved, medians: guarded-sh -c true / --check
#    (static release build; no policy, and with policies/ and a warm compiled cache) against
#    shellfirm's `check -c` (crates.io, installed under target/neighbours/cargo), lshell's `-c`
#    (PyPI limited-shell, in a venv under target/neighbours/venv), and bash/dash -c true.
# 2. Parse throughput over the same corpus (every command of tests/cases/*.tsv without a
#    newline, plus a ~96 KB script made of the repo's shell scripts): guarded-sh's analysis
#    (`--check-file` / `--check`, process start-up subtracted) against the reference engine's
#    parser (npm mvdan-sh under target/neighbours/node, parse + walk, timed inside node).
# Prints a markdown table; the numbers in docs/hardening.md come from this script.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
runs="${1:-30}"
work="$root/target/neighbours"
mkdir -p "$work"
bin="$root/target/x86_64-unknown-linux-gnu/release/guarded-sh"
[ -x "$bin" ] || bin="$root/target/release/guarded-sh"
[ -x "$bin" ] || { echo "build first: build/static.sh"; exit 2; }

log() { echo "== $*" >&2; }

# --- the neighbours, installed privately under target/neighbours ---------------------------
shellfirm="$work/cargo/bin/shellfirm"
if [ ! -x "$shellfirm" ]; then
  log "cargo install shellfirm --locked (into $work/cargo)"
  CARGO_TARGET_DIR="$work/cargo-build" cargo install shellfirm --locked --root "$work/cargo" >&2 || true
fi
lshell="$work/venv/bin/lshell"
if [ ! -x "$lshell" ]; then
  log "pip install limited-shell (venv $work/venv)"
  if python3 -m venv "$work/venv" >&2; then
    "$work/venv/bin/pip" install -q limited-shell >&2 || true
  fi
fi
if [ ! -d "$work/node/node_modules/mvdan-sh" ]; then
  log "npm install mvdan-sh (prefix $work/node)"
  npm install --silent --prefix "$work/node" mvdan-sh >&2 || true
fi

# --- configurations --------------------------------------------------------------------------
cat >"$work/gsh.toml" <<TOML
[audit]
syslog = false
file = "$work/audit.jsonl"
[policy]
allow_env_dir = false
TOML
mkdir -p "$work/cache"
cat >"$work/gsh-policy.toml" <<TOML
[audit]
syslog = false
file = "$work/audit.jsonl"
[policy]
dir = "$root/policies"
cache_dir = "$work/cache"
allow_env_dir = false
TOML
GUARDED_SH_CONFIG="$work/gsh-policy.toml" "$bin" -c true  # warms the compiled-policy cache
cat >"$work/lshell.conf" <<'CONF'
[global]
logpath : /tmp
loglevel : 0
[default]
allowed : ['ls', 'echo', 'true']
overssh : ['ls', 'echo', 'true']
forbidden : [';', '&', '|', '`', '>', '<', '$(', '${']
warning_counter : 2
strict : 0
CONF

# --- 1. per-command cost -----------------------------------------------------------------------
python3 - "$bin" "$work" "$shellfirm" "$lshell" >"$work/commands.json" <<'PY'
import json, os, sys
bin, work, shellfirm, lshell = sys.argv[1:]
g = {"GUARDED_SH_CONFIG": f"{work}/gsh.toml"}
gp = {"GUARDED_SH_CONFIG": f"{work}/gsh-policy.toml"}
c = [
  {"name": "guarded-sh -c true", "argv": [bin, "-c", "true"], "env": g},
  {"name": "guarded-sh --check 'ls -la'", "argv": [bin, "--check", "ls -la"], "env": g},
  {"name": "guarded-sh --check 'rm -rf /'", "argv": [bin, "--check", "rm -rf /"], "env": g},
  {"name": "guarded-sh -c true, policies/ (cached)", "argv": [bin, "-c", "true"], "env": gp},
  {"name": "bash -c true", "argv": ["/bin/bash", "-c", "true"]},
  {"name": "dash -c true", "argv": ["/bin/dash", "-c", "true"]},
]
if os.access(shellfirm, os.X_OK):
  nc = {"SHELLFIRM_NO_CONTEXT": "1"}
  c += [{"name": "shellfirm check -c 'ls -la'", "argv": [shellfirm, "check", "-c", "ls -la"], "env": nc},
        {"name": "shellfirm check -c 'rm -rf /'", "argv": [shellfirm, "check", "-c", "rm -rf /"], "env": nc}]
if os.access(lshell, os.X_OK):
  ssh = {"SSH_CLIENT": "127.0.0.1 40000 22"}
  c += [{"name": "lshell -c true", "argv": [lshell, "--config", f"{work}/lshell.conf", "-c", "true"], "env": ssh},
        {"name": "lshell -c 'bash' (denied)", "argv": [lshell, "--config", f"{work}/lshell.conf", "-c", "bash"], "env": ssh}]
json.dump(c, sys.stdout)
PY
log "per-command cost: $runs interleaved runs each"
python3 benches/neighbours/measure.py "$runs" 3 <"$work/commands.json" >"$work/cost.json"

# --- 2. parse throughput -----------------------------------------------------------------------
python3 - "$root" "$work" <<'PY'
import glob, sys
root, work = sys.argv[1:]
def unescape(s):
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s) and s[i + 1] in "nt\\":
            out.append({"n": "\n", "t": "\t", "\\": "\\"}[s[i + 1]]); i += 2
        else:
            out.append(s[i]); i += 1
    return "".join(out)
cmds = []
for f in sorted(glob.glob(f"{root}/tests/cases/*.tsv")):
    for line in open(f, encoding="utf-8"):
        if line.startswith("#") or not line.strip():
            continue
        c = unescape(line.rstrip("\n").split("\t")[0])
        if c and "\n" not in c:
            cmds.append(c)
open(f"{work}/corpus.txt", "w").write("\n".join(cmds) + "\n")
parts = [open(p, encoding="utf-8").read() for p in sorted(glob.glob(f"{root}/tests/*.sh") + glob.glob(f"{root}/tests/*/*.sh") + glob.glob(f"{root}/benches/*.sh"))]
text = "\n".join(parts)
long = ""
while len(long) + len(text) < 96 * 1024:
    long += text + "\n"
open(f"{work}/long.sh", "w").write(long)
PY
log "parse throughput"
corpus_ms() { # median ms of a guarded-sh review run, over 7 runs
  python3 - "$@" <<'PY'
import os, statistics, subprocess, sys, time
env = dict(os.environ, GUARDED_SH_CONFIG=sys.argv[1])
ts = []
for _ in range(7):
    t = time.perf_counter()
    subprocess.run(sys.argv[2:], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ts.append((time.perf_counter() - t) * 1e3)
print(statistics.median(ts))
PY
}
noop=$(corpus_ms "$work/gsh.toml" "$bin" --check true)
ours_corpus=$(corpus_ms "$work/gsh.toml" "$bin" --check-file "$work/corpus.txt")
ours_long=$(corpus_ms "$work/gsh.toml" "$bin" --check "$(cat "$work/long.sh")")
mvdan='{}'
if [ -d "$work/node/node_modules/mvdan-sh" ]; then
  mvdan=$(NODE_PATH="$work/node/node_modules" node --stack-size=65500 benches/neighbours/mvdan_parse.js "$work/corpus.txt" "$work/long.sh" 5)
fi

# --- report --------------------------------------------------------------------------------------
python3 - "$work" "$noop" "$ours_corpus" "$ours_long" "$mvdan" <<'PY'
import json, sys
work, noop, oc, ol, mv = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), json.loads(sys.argv[5])
cost = json.load(open(f"{work}/cost.json"))
base = next(c["median_ms"] for c in cost if c["name"] == "guarded-sh -c true")
bash = next(c["median_ms"] for c in cost if c["name"] == "bash -c true")
print("| command | exit | median ms | p90 ms | × guarded-sh -c true | − bash -c true (ms) |")
print("|---|---:|---:|---:|---:|---:|")
for c in cost:
    print(f"| `{c['name']}` | {c['status']} | {c['median_ms']:.2f} | {c['p90_ms']:.2f} | {c['median_ms']/base:.2f} | {c['median_ms']-bash:+.2f} |")
corpus = open(f"{work}/corpus.txt").read().splitlines()
cbytes = sum(len(l.encode()) for l in corpus)
lbytes = len(open(f"{work}/long.sh", "rb").read())
print()
print("| parser | input | items | bytes | ms | MB/s | ratio (mvdan ms / ours ms) |")
print("|---|---|---:|---:|---:|---:|---:|")
ours = {"corpus": max(oc - noop, 0.001), "long": max(ol - noop, 0.001)}
for key, items, nbytes in (("corpus", len(corpus), cbytes), ("long", 1, lbytes)):
    o = ours[key]
    print(f"| guarded-sh analysis (process − start-up {noop:.2f} ms) | {key} | {items} | {nbytes} | {o:.2f} | {nbytes/o/1e3:.2f} | |")
    if key in mv:
        m = mv[key]
        print(f"| mvdan-sh 0.10.1 parse + walk (in node; {m['errors']} parse errors) | {key} | {m['items']} | {m['bytes']} | {m['ms']:.2f} | {m['bytes']/m['ms']/1e3:.2f} | {m['ms']/o:.1f} |")
PY
