//! Python analyzer throughput: the program analysis alone (tree-sitter-python parse, bindings,
//! calls) on scripts of 1, 8 and 60 KiB in bytes per second, and whole commands (shell parse,
//! Python analysis, shell-outs lowered, every signal family) over the python case table. The
//! bare tree-sitter-python parse of the 60 KiB script is the floor the analysis adds to.
//! `env -u RUST_BACKTRACE cargo bench --bench python`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use guarded_sh::analysis::analyse;
use guarded_sh::interp::{analyse as analyse_program, Code, Language, Origin};
use guarded_sh::parse::Limits;
use guarded_sh::signals::detect;

/// One realistic block of current Python (imports, dataclass, f-strings, walrus, match, shell-outs).
const BLOCK: &str = r#"import os, shutil, subprocess as sp
from pathlib import Path
from dataclasses import dataclass

@dataclass
class Job:
    name: str
    root: Path

    def clean(self) -> None:
        if (out := self.root / "build").exists():
            shutil.rmtree(out)

    def run(self, args: list[str]) -> int:
        cmd = ["make", "-C", str(self.root), *args]
        print(f"{self.name}: {' '.join(cmd)!r}")
        match args:
            case ["install", *rest]:
                return sp.call(["sudo", "make", "install", *rest])
            case _:
                return sp.run(cmd, check=False).returncode

os.system("ls -la /tmp")
"#;

fn script(bytes: usize) -> String {
    let mut s = String::new();
    let mut i = 0;
    while s.len() < bytes {
        s.push_str(&BLOCK.replace("Job", &format!("Job{i}")));
        i += 1;
    }
    s
}

fn corpus() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cases/python.tsv");
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split('\t').next())
        .map(|c| c.replace("\\n", "\n"))
        .collect()
}

fn programs(c: &mut Criterion) {
    let limits = Limits::default();
    let mut group = c.benchmark_group("python_program");
    for size in [1024, 8 * 1024, 60 * 1024] {
        let code = Code {
            language: Language::Python,
            interpreter: "python3".into(),
            origin: Origin::Stdin,
            text: Some(script(size)),
            partial: false,
        };
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_function(format!("{}KiB", size / 1024), |b| {
            b.iter(|| analyse_program(&code, &limits))
        });
    }
    group.finish();
}

fn commands(c: &mut Criterion) {
    let limits = Limits::default();
    let cases = corpus();
    let mut group = c.benchmark_group("python_commands");
    group.throughput(Throughput::Elements(cases.len() as u64));
    group.bench_function("case_table", |b| {
        b.iter(|| {
            for case in &cases {
                let analysis = analyse(case, &limits);
                std::hint::black_box(detect(&analysis));
            }
        })
    });
    group.finish();
}

/// The floor: tree-sitter-python alone on the 60 KiB script.
fn parse_only(c: &mut Criterion) {
    let text = script(60 * 1024);
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .expect("tree-sitter-python loads");
    c.bench_function("tree_sitter_python_parse_60KiB", |b| {
        b.iter(|| parser.parse(&text, None))
    });
}

criterion_group!(benches, programs, commands, parse_only);
criterion_main!(benches);
