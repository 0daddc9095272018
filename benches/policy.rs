//! Policy load + evaluate, per process start: with a cache hit (RVM program read from the
//! cache directory) against no cache (the interpreter parses every module), for the baseline,
//! the shipped examples together, and 50 generated policies.
//!
//! Run with `RUST_BACKTRACE` unset: regorus's parser captures a backtrace per error-path object
//! when it is set, which makes the no-cache numbers several times slower (the guarded-sh binary
//! unsets it for itself). `cargo bench --bench policy`.

use criterion::{criterion_group, criterion_main, Criterion};
use guarded_sh::policy::engine::{load, CacheMode};
use serde_json::json;
use std::hint::black_box;
use std::path::{Path, PathBuf};

fn input() -> serde_json::Value {
    json!({"action": "command_exec", "actor": "alice", "schema_version": 1,
        "command": {"raw": "kubectl delete pod x -n prod", "max_severity": "high", "interpreter": "",
            "critical": false,
            "riskSignals": [{"id": "KUBECTL_DELETE", "severity": "high", "reason": "kubectl delete", "command": "kubectl"}],
            "detected": {"commands": ["kubectl"], "flags": ["-n"], "paths": ["delete", "pod", "x", "prod"]},
            "classes": ["destructive"]},
        "target": {"name": "prod-1", "provider": "ssh", "env": "prod", "host_vars": {"tier": "prod", "autonomy": "full"}},
        "execution": {"recipe": "", "dry_run": false, "approved": false},
        "session": {"mode": "command", "interactive": false, "tty": false, "login": false,
            "ssh": {"client": "127.0.0.1 5555 22", "original_command": ""}, "user": "alice", "uid": 1000, "cwd": "/home/alice"}})
}

/// The baseline plus 49 generated files, each adding reasons on its own conditions. (They use
/// `startswith`, not `glob.match`: regorus compiles a glob or regex pattern on every call, so
/// 49 `glob.match` rules cost about 15 ms per evaluation on their own.)
fn generated(dir: &Path, root: &Path) {
    std::fs::copy(
        root.join("policies/baseline.rego"),
        dir.join("baseline.rego"),
    )
    .ok();
    for i in 0..49 {
        let text = format!(
            "package honey\nimport rego.v1\n\ngen_{i}_blocked := {{\"tool{i}\", \"bin{i}\", \"x{i}\"}}\n\n\
             deny_reasons contains sprintf(\"policy {i}: %s blocked\", [cmd]) if {{\n\
             \tsome cmd in input.command.detected.commands\n\tgen_{i}_blocked[cmd]\n}}\n\n\
             approval_reasons contains \"policy {i}: review\" if {{\n\
             \tinput.target.host_vars.tier == \"t{i}\"\n\tstartswith(input.command.raw, \"deploy{i}\")\n}}\n\n\
             deny_reasons contains \"policy {i}: path\" if {{\n\
             \tsome p in input.command.detected.paths\n\tstartswith(p, \"/srv/p{i}/\")\n}}\n"
        );
        std::fs::write(dir.join(format!("gen_{i:02}.rego")), text).ok();
    }
}

fn bench(c: &mut Criterion) {
    if std::env::var_os("RUST_BACKTRACE").is_some() {
        eprintln!("warning: RUST_BACKTRACE is set; no-cache numbers will be inflated");
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let Ok(scratch) = tempfile::tempdir() else {
        return;
    };
    generated(scratch.path(), &root);
    let sets = [
        ("baseline", root.join("policies")),
        ("examples", root.join("policies/examples")),
        ("generated-50", scratch.path().to_path_buf()),
    ];
    let input = input();
    let mut group = c.benchmark_group("policy");
    for (name, dir) in &sets {
        let Ok(cache) = tempfile::tempdir() else {
            return;
        };
        let cached = CacheMode::Dir(cache.path().to_path_buf());
        // Warm the cache once; every measured iteration is then a verified hit.
        let _ = load(dir, &cached).map(|p| p.evaluate(&input));
        group.bench_function(format!("{name}/cache_hit"), |b| {
            b.iter(|| load(dir, &cached).map(|p| black_box(p.evaluate(&input))))
        });
        group.bench_function(format!("{name}/no_cache"), |b| {
            b.iter(|| load(dir, &CacheMode::Off).map(|p| black_box(p.evaluate(&input))))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
