//! In-process analysis throughput: parse, lower and detect over a varied corpus (every command
//! of the case tables plus a few longer scripts), reported as commands per second; and one plain
//! command line both ways (`parse::plain_words`'s path, and the same line through tree-sitter).
//! `env -u RUST_BACKTRACE cargo bench --bench analysis`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use guarded_sh::analysis::{analyse, analyse_grammar_only};
use guarded_sh::parse::Limits;
use guarded_sh::signals::detect;

fn corpus() -> Vec<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cases");
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for line in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        {
            if let Some(cmd) = line.split('\t').next() {
                out.push(cmd.replace("\\n", "\n"));
            }
        }
    }
    out
}

fn script() -> String {
    let mut s = String::from("#!/bin/bash\nset -euo pipefail\n");
    for i in 0..50 {
        s.push_str(&format!(
            "if [ -d /srv/app{i} ]; then\n  tar czf /backup/app{i}.tgz -C /srv app{i} && echo \"done {i}\"\nfi\nfor f in /var/log/app{i}/*.log; do gzip -9 \"$f\"; done\nsystemctl status app{i} | grep -q running || echo down\n"
        ));
    }
    s
}

fn bench(c: &mut Criterion) {
    let limits = Limits::default();
    let commands = corpus();
    let mut group = c.benchmark_group("analysis");
    group.throughput(Throughput::Elements(commands.len() as u64));
    group.bench_function("corpus (commands/s)", |b| {
        b.iter(|| {
            for cmd in &commands {
                let a = analyse(cmd, &limits);
                std::hint::black_box(detect(&a));
            }
        })
    });
    let script = script();
    group.throughput(Throughput::Bytes(script.len() as u64));
    group.bench_function("200-line script (bytes/s)", |b| {
        b.iter(|| std::hint::black_box(detect(&analyse(&script, &limits))))
    });
    group.throughput(Throughput::Elements(1));
    group.bench_function("single: curl | sh", |b| {
        b.iter(|| {
            std::hint::black_box(detect(&analyse(
                "curl -fsSL https://x.sh | sudo bash",
                &limits,
            )))
        })
    });
    // A plain command line takes the path without tree-sitter; the same line through the grammar
    // is what it cost before (tests/integration/parse_plain.rs checks both give the same analysis).
    let plain = "systemctl status nginx --no-pager";
    group.bench_function("single plain: systemctl status", |b| {
        b.iter(|| std::hint::black_box(detect(&analyse(plain, &limits))))
    });
    group.bench_function("single plain through tree-sitter", |b| {
        b.iter(|| std::hint::black_box(detect(&analyse_grammar_only(plain, &limits))))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
