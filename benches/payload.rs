//! Judging an Ansible task: one AnsiballZ wrapper ansible-core builds for a `command:` task
//! (about 140 KB), through the whole analysis as the login shell sees it (`/bin/sh -c
//! '/usr/bin/python3 …/AnsiballZ_command.py && sleep 0'`: shell parse, the wrapper decoded, its
//! zip checked, its own code analysed, the task lowered) and every signal family. The wrapper is
//! built at bench start by `tests/payload/make_ansiballz.py` (needs ansible-core).
//! `env -u RUST_BACKTRACE cargo bench --bench payload`

use criterion::{criterion_group, criterion_main, Criterion};
use guarded_sh::analysis::analyse_reading;
use guarded_sh::parse::Limits;
use guarded_sh::signals::detect;
use std::process::Command;

const FILE: &str = "/home/deploy/.ansible/tmp/ansible-tmp-1/AnsiballZ_command.py";

fn wrapper() -> Option<String> {
    let dir = tempfile::tempdir().ok()?;
    let out = dir.path().join("AnsiballZ_command.py");
    let made = Command::new("/usr/bin/python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/payload/make_ansiballz.py"
        ))
        .args([
            "ansible.builtin.command",
            r#"{"_raw_params": "systemctl status nginx"}"#,
        ])
        .arg(&out)
        .env("HOME", dir.path())
        .env("ANSIBLE_HOME", dir.path().join(".ansible"))
        .output()
        .ok()?;
    made.status
        .success()
        .then(|| std::fs::read_to_string(&out).ok())?
}

fn payload(c: &mut Criterion) {
    let Some(text) = wrapper() else {
        eprintln!("SKIP: payload bench: ansible-core is not installed");
        return;
    };
    let limits = Limits::default();
    let line = format!("/bin/sh -c '/usr/bin/python3 {FILE} && sleep 0'");
    let mut group = c.benchmark_group("payload");
    group.bench_function(format!("ansiballz_command_{}_kb", text.len() / 1000), |b| {
        b.iter(|| {
            let mut read = |p: &str| (p == FILE).then(|| text.clone());
            let analysis = analyse_reading(&line, &limits, &mut read);
            detect(&analysis)
        })
    });
    group.finish();
}

criterion_group!(benches, payload);
criterion_main!(benches);
