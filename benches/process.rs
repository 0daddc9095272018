//! Whole-process cost of the gate, side by side in one run: `guarded-sh -c true` against
//! `bash -c true` and `dash -c true`, with no policy, the baseline policy, the six reference
//! examples together, and 50 generated policies; and the floor, a static C program that only
//! execs `bash -c true`. Every round runs each variant once, in a fresh random order, so drift
//! and the previous process's after-effects hit every variant alike; medians and ratios are
//! printed.
//!
//! `env -u RUST_BACKTRACE cargo bench --bench process -- [--binary PATH] [--compare PATH]…
//! [--compare-six PATH]… [--rounds N]`
//! (default binary: the static release build, else target/release/guarded-sh)

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

struct Variant {
    name: String,
    program: PathBuf,
    args: Vec<String>,
    env: Vec<(String, String)>,
    samples: Vec<f64>,
    /// Runs that did not exit 0 (a denial would not exec the shell and would look cheap).
    failures: usize,
}

/// A small xorshift generator for the run order (no dependency; quality is not a concern).
struct XorShift(u64);

impl XorShift {
    fn seeded() -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0x9e37_79b9_7f4a_7c15);
        XorShift(nanos | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Fisher–Yates.
    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = (self.next() % (i as u64 + 1)) as usize;
            items.swap(i, j);
        }
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    if v.is_empty() {
        return f64::NAN;
    }
    v[v.len() / 2]
}

fn write_config(dir: &Path, name: &str, policy: Option<&Path>) -> PathBuf {
    let cache = dir.join(format!("cache-{name}"));
    std::fs::create_dir_all(&cache).ok();
    let mut text = String::from("[audit]\nsyslog = false\n[policy]\nallow_env_dir = false\n");
    text.push_str(&format!("cache_dir = \"{}\"\n", cache.display()));
    match policy {
        Some(p) => text.push_str(&format!("dir = \"{}\"\n", p.display())),
        None => text.push_str("enabled = false\n"),
    }
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).ok();
    path
}

fn generated_policies(dir: &Path, n: usize) -> PathBuf {
    let p = dir.join("generated");
    std::fs::create_dir_all(&p).ok();
    let mut base = String::from("package honey\nimport rego.v1\n\ndefault allow := true\ndefault deny_reason := \"\"\ndefault decision := \"allow\"\n\ndeny_reason := concat(\"; \", sort(deny_reasons))\nallow := false if count(deny_reasons) > 0\n");
    base.push_str("deny_reasons contains \"never\" if { input.command.raw == \"__never__\" }\n");
    std::fs::write(p.join("base.rego"), base).ok();
    for i in 0..n.saturating_sub(1) {
        let rule = format!(
            "package honey\nimport rego.v1\n\ndeny_reasons contains \"rule {i}\" if {{\n  input.action == \"command_exec\"\n  some cmd in input.command.detected.commands\n  cmd == \"blocked{i}\"\n  input.target.env == \"prod\"\n}}\n"
        );
        std::fs::write(p.join(format!("rule{i}.rego")), rule).ok();
    }
    p
}

/// Compile the floor with the C compiler Rust links with; `None` (no row) when that fails.
fn build_floor(dir: &Path) -> Option<PathBuf> {
    let source = dir.join("floor.c");
    let binary = dir.join("floor");
    std::fs::write(
        &source,
        "#include <unistd.h>\nint main(void) {\n  char *argv[] = {\"bash\", \"-c\", \"true\", 0};\n  execv(\"/bin/bash\", argv);\n  return 127;\n}\n",
    )
    .ok()?;
    let built = Command::new("cc")
        .args(["-O2", "-static", "-o"])
        .arg(&binary)
        .arg(&source)
        .stderr(Stdio::null())
        .status()
        .ok()?;
    built.success().then_some(binary)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    // `cargo test --all-targets` runs bench targets without `--bench`: nothing to measure then.
    if !args.iter().any(|a| a == "--bench") {
        println!("process benchmark: run it with `cargo bench --bench process`");
        return;
    }
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let static_build = root.join("target/x86_64-unknown-linux-gnu/release/guarded-sh");
    let binary = arg("--binary").map(PathBuf::from).unwrap_or_else(|| {
        if static_build.exists() {
            static_build.clone()
        } else {
            root.join("target/release/guarded-sh")
        }
    });
    let rounds: usize = arg("--rounds").and_then(|r| r.parse().ok()).unwrap_or(300);
    if !binary.exists() {
        eprintln!("no binary at {} (build it first)", binary.display());
        std::process::exit(2);
    }
    let tmp = std::env::temp_dir().join(format!("gsh-bench-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).ok();
    let examples = root.join("policies/examples");
    let baseline = root.join("policies");
    let generated = generated_policies(&tmp, 50);
    let mut variants = vec![
        Variant {
            name: "bash -c true".into(),
            program: "/bin/bash".into(),
            args: vec!["-c".into(), "true".into()],
            env: vec![],
            samples: vec![],
            failures: 0,
        },
        Variant {
            name: "dash -c true".into(),
            program: "/bin/dash".into(),
            args: vec!["-c".into(), "true".into()],
            env: vec![],
            samples: vec![],
            failures: 0,
        },
    ];
    // The floor: a static C program that only execs `bash -c true`. What it costs over bash is
    // what any static exec wrapper costs here (one more execve of a static image); guarded-sh's
    // own work is what it costs over the floor.
    if let Some(floor) = build_floor(&tmp) {
        variants.push(Variant {
            name: "floor: static C exec of bash -c true".into(),
            program: floor,
            args: vec![],
            env: vec![],
            samples: vec![],
            failures: 0,
        });
    }
    // The examples include an allowlist without `true`; `echo` is on it and, like `true`, a
    // builtin, so the real shell does the same work and the command is allowed, not denied. Both
    // are plain command lines (`parse::plain_words`); the `>/dev/null` row is the same command
    // through tree-sitter.
    let scenarios: Vec<(&str, &str, Option<&Path>)> = vec![
        ("no policy", "true", None),
        ("baseline policy", "true", Some(baseline.as_path())),
        ("six examples", "echo", Some(examples.as_path())),
        ("six examples", "echo >/dev/null", Some(examples.as_path())),
        ("50 policies", "true", Some(generated.as_path())),
    ];
    for (name, command, policy) in scenarios {
        if policy.is_some_and(|p| !p.is_dir()) {
            eprintln!(
                "skipping {name}: {} missing",
                policy.map(|p| p.display().to_string()).unwrap_or_default()
            );
            continue;
        }
        let config = write_config(&tmp, &name.replace(' ', "-"), policy);
        variants.push(Variant {
            name: format!("guarded-sh -c {command} ({name})"),
            program: binary.clone(),
            args: vec!["-c".into(), command.into()],
            env: vec![("GUARDED_SH_CONFIG".into(), config.display().to_string())],
            samples: vec![],
            failures: 0,
        });
    }
    // `--compare PATH` (repeatable): other builds of guarded-sh (another profile, a dynamic PIE
    // build), each measured with no policy in the same rounds; `--compare-six PATH` also with the
    // six examples (a plain command line, and the same through tree-sitter).
    let no_policy = write_config(&tmp, "compare-no-policy", None);
    let six = write_config(&tmp, "compare-six", Some(examples.as_path()));
    for (k, a) in args.iter().enumerate() {
        let scenarios: &[(&str, &str, &Path)] = match a.as_str() {
            "--compare" => &[("no policy", "true", &no_policy)],
            "--compare-six" => &[
                ("no policy", "true", &no_policy),
                ("six examples", "echo", &six),
                ("six examples", "echo >/dev/null", &six),
            ],
            _ => continue,
        };
        let Some(other) = args.get(k + 1) else {
            continue;
        };
        for (name, command, config) in scenarios {
            variants.push(Variant {
                name: format!("{other} -c {command} ({name})"),
                program: PathBuf::from(other),
                args: vec!["-c".into(), command.to_string()],
                env: vec![("GUARDED_SH_CONFIG".into(), config.display().to_string())],
                samples: vec![],
                failures: 0,
            });
        }
    }
    // Warm up: fills the page cache and each scenario's policy cache.
    for v in &variants {
        for _ in 0..5 {
            let _ = Command::new(&v.program)
                .args(&v.args)
                .envs(v.env.iter().map(|(k, val)| (k, val)))
                .env_remove("RUST_BACKTRACE")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
    }
    // Each round runs every variant once, in a fresh random order: a process's cost depends on
    // what ran just before it (warm per-CPU page lists, caches), so no variant may always follow
    // the same one.
    let mut order: Vec<usize> = (0..variants.len()).collect();
    let mut rng = XorShift::seeded();
    for _ in 0..rounds {
        rng.shuffle(&mut order);
        for &i in &order {
            let v = &mut variants[i];
            let start = Instant::now();
            let status = Command::new(&v.program)
                .args(&v.args)
                .envs(v.env.iter().map(|(k, val)| (k, val)))
                .env_remove("RUST_BACKTRACE")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            let ms = start.elapsed().as_secs_f64() * 1000.0;
            match status {
                Ok(s) if s.success() => v.samples.push(ms),
                _ => v.failures += 1,
            }
        }
    }
    let medians: Vec<(String, f64, usize)> = variants
        .iter_mut()
        .map(|v| {
            let n = v.samples.len();
            (v.name.clone(), median(&mut v.samples), n)
        })
        .collect();
    let bash = medians[0].1;
    let dash = medians[1].1;
    println!(
        "binary: {}  rounds: {rounds} (interleaved, shuffled each round)",
        binary.display()
    );
    println!(
        "{:<64} {:>9} {:>12} {:>9} {:>9}",
        "command", "median ms", "vs bash (ms)", "x bash", "x dash"
    );
    for (name, m, n) in &medians {
        println!(
            "{name:<64} {m:>9.3} {:>+12.3} {:>9.2} {:>9.2}   (n={n})",
            m - bash,
            m / bash,
            m / dash
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
