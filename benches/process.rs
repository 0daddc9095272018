//! Whole-process cost of the gate, side by side in one run: `guarded-sh -c true` against
//! `bash -c true` and `dash -c true`, with no policy, the baseline policy, six and 50
//! generated policies; and a floor, a static C program that only execs
//! `bash -c true`. Every round runs each row once, in a fresh random order, so drift and the
//! previous process's after-effects hit every row alike; medians and ratios are printed.
//!
//! `env -u RUST_BACKTRACE cargo bench --bench process -- [--binary [LABEL=]PATH]… [--rounds N]`
//!
//! Each `--binary` (repeatable) gets every guarded-sh row; with two or more, a second table puts
//! them side by side per row: the overhead over bash of each, and each against the first, as the
//! difference of the medians and as the median of the per-round differences (the same round's
//! runs, so the VM's drift cancels). Default binary: the static release build
//! (`build/static.sh`), else `target/release/guarded-sh`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// One row: a program with its arguments and environment, timed once per round.
struct Row {
    /// The binary's label for guarded-sh rows (`None` for the shells and the floor).
    binary: Option<usize>,
    /// What it measures: the command, and for guarded-sh rows the policy scenario.
    name: String,
    program: PathBuf,
    args: Vec<String>,
    env: Vec<(String, String)>,
    /// Milliseconds per round; `None` for a run that did not exit 0 (a denial would not exec
    /// the shell and would look cheap).
    samples: Vec<Option<f64>>,
}

impl Row {
    fn new(binary: Option<usize>, name: String, program: PathBuf, args: &[&str]) -> Self {
        Row {
            binary,
            name,
            program,
            args: args.iter().map(|a| a.to_string()).collect(),
            env: vec![],
            samples: vec![],
        }
    }

    fn command(&self) -> Command {
        let mut command = Command::new(&self.program);
        command
            .args(&self.args)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .env_remove("RUST_BACKTRACE")
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        command
    }

    fn run(&self) -> Option<f64> {
        let start = Instant::now();
        let status = self.command().status().ok()?;
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        status.success().then_some(ms)
    }

    fn ok(&self) -> Vec<f64> {
        self.samples.iter().flatten().copied().collect()
    }

    fn failures(&self) -> usize {
        self.samples.iter().filter(|s| s.is_none()).count()
    }
}

/// The guarded-sh scenarios: name, command, policy directory (`None`: policy disabled). Six
/// small policies: the generated base and five rules (the reference examples each bring a
/// `default allow`, so they no longer load as one directory). `echo` is a builtin, like `true`,
/// so the real shell does the same work; both are plain command lines (`parse::plain_words`);
/// the `>/dev/null` row is the same command through tree-sitter.
fn scenarios(
    root: &Path,
    six: &Path,
    fifty: &Path,
) -> Vec<(&'static str, &'static str, Option<PathBuf>)> {
    vec![
        ("no policy", "true", None),
        ("baseline policy", "true", Some(root.join("policies"))),
        ("six policies", "echo", Some(six.to_path_buf())),
        ("six policies", "echo >/dev/null", Some(six.to_path_buf())),
        ("50 policies", "true", Some(fifty.to_path_buf())),
    ]
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

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    if v.is_empty() {
        return f64::NAN;
    }
    v[v.len() / 2]
}

/// A configuration with syslog off and an audit file of its own (a decision no sink records is
/// denied; one append per command is the cheapest sink), its own policy cache, and the given
/// policy directory or none.
fn write_config(dir: &Path, name: &str, policy: Option<&Path>) -> PathBuf {
    let cache = dir.join(format!("cache-{name}"));
    std::fs::create_dir_all(&cache).ok();
    let audit = dir.join(format!("audit-{name}.jsonl"));
    let mut text = format!(
        "[audit]\nsyslog = false\nfile = \"{}\"\n[policy]\nallow_env_dir = false\n",
        audit.display()
    );
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
    let p = dir.join(format!("generated-{n}"));
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

/// `--binary [LABEL=]PATH`, repeatable; the label defaults to the path.
fn binaries(args: &[String], root: &Path) -> Vec<(String, PathBuf)> {
    let mut found: Vec<(String, PathBuf)> = args
        .windows(2)
        .filter(|w| w[0] == "--binary")
        .map(|w| match w[1].split_once('=') {
            Some((label, path)) => (label.to_string(), PathBuf::from(path)),
            None => (w[1].clone(), PathBuf::from(&w[1])),
        })
        .collect();
    if found.is_empty() {
        let static_build = root.join("target/x86_64-unknown-linux-gnu/release/guarded-sh");
        let path = if static_build.exists() {
            static_build
        } else {
            root.join("target/release/guarded-sh")
        };
        found.push((path.display().to_string(), path));
    }
    found
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    // `cargo test --all-targets` runs bench targets without `--bench`: nothing to measure then.
    if !args.iter().any(|a| a == "--bench") {
        println!("process benchmark: run it with `cargo bench --bench process`");
        return;
    }
    let rounds: usize = args
        .windows(2)
        .find(|w| w[0] == "--rounds")
        .and_then(|w| w[1].parse().ok())
        .unwrap_or(300);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let binaries = binaries(&args, &root);
    for (_, path) in &binaries {
        if !path.exists() {
            eprintln!("no binary at {} (build it first)", path.display());
            std::process::exit(2);
        }
    }
    let tmp = std::env::temp_dir().join(format!("gsh-bench-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).ok();
    let six = generated_policies(&tmp, 6);
    let fifty = generated_policies(&tmp, 50);

    let mut rows = vec![
        Row::new(
            None,
            "bash -c true".into(),
            "/bin/bash".into(),
            &["-c", "true"],
        ),
        Row::new(
            None,
            "dash -c true".into(),
            "/bin/dash".into(),
            &["-c", "true"],
        ),
    ];
    // What a static C program that only execs `bash -c true` costs over bash is what any static
    // exec wrapper costs here; guarded-sh's own work is what it costs over the floor.
    if let Some(floor) = build_floor(&tmp) {
        rows.push(Row::new(
            None,
            "floor: static C exec of bash -c true".into(),
            floor,
            &[],
        ));
    }
    let scenarios = scenarios(&root, &six, &fifty);
    for (k, (scenario, command, policy)) in scenarios.iter().enumerate() {
        if policy.as_ref().is_some_and(|p| !p.is_dir()) {
            eprintln!("skipping {scenario}: {policy:?} missing");
            continue;
        }
        for (b, (_, path)) in binaries.iter().enumerate() {
            // One configuration, so one policy cache, per binary and scenario: builds of
            // different code must not share (or fight over) a cache file.
            let config = write_config(&tmp, &format!("b{b}-s{k}"), policy.as_deref());
            let mut row = Row::new(
                Some(b),
                format!("-c {command} ({scenario})"),
                path.clone(),
                &["-c", command],
            );
            row.env
                .push(("GUARDED_SH_CONFIG".into(), config.display().to_string()));
            rows.push(row);
        }
    }

    // Warm up: each program read once, and each scenario's policy cache filled.
    for row in &rows {
        for _ in 0..5 {
            let _ = row.command().status();
        }
    }
    // Each round runs every row once, in a fresh random order: a process's cost depends on what
    // ran just before it (warm per-CPU page lists, caches), so no row may always follow the same
    // one.
    let mut order: Vec<usize> = (0..rows.len()).collect();
    let mut rng = XorShift::seeded();
    for _ in 0..rounds {
        rng.shuffle(&mut order);
        for &i in &order {
            let sample = rows[i].run();
            rows[i].samples.push(sample);
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);

    let medians: Vec<f64> = rows.iter().map(|r| median(r.ok())).collect();
    let (bash, dash) = (medians[0], medians[1]);
    println!("rounds: {rounds} (every row once per round, shuffled each round)");
    for (b, (label, path)) in binaries.iter().enumerate() {
        println!("binary {b}: {label} ({})", path.display());
    }
    println!(
        "{:<52} {:>9} {:>9} {:>8} {:>8}",
        "command", "median ms", "over bash", "x bash", "x dash"
    );
    for (row, m) in rows.iter().zip(&medians) {
        let who = row.binary.map(|b| format!("[{b}] ")).unwrap_or_default();
        let failed = match row.failures() {
            0 => String::new(),
            n => format!("   ({n} runs failed, left out)"),
        };
        println!(
            "{:<52} {m:>9.3} {:>+9.3} {:>8.2} {:>8.2}{failed}",
            format!("{who}{}", row.name),
            m - bash,
            m / bash,
            m / dash
        );
    }
    if binaries.len() < 2 {
        return;
    }
    // Side by side: per scenario, each binary's overhead over bash, and each against binary 0:
    // the difference of the medians, the median of the per-round differences, and the ratio of
    // the medians.
    println!();
    println!("side by side: [b]-[0] the difference of the medians (ms), paired the median of the per-round differences, ratio of the medians");
    let mut header = format!("{:<34}", "over bash, ms");
    for b in 0..binaries.len() {
        header.push_str(&format!(" {:>7}", format!("[{b}]")));
    }
    for b in 1..binaries.len() {
        header.push_str(&format!(
            "   {:>7}  {:>7}  {:>7}",
            format!("[{b}]-[0]"),
            "paired",
            "ratio"
        ));
    }
    println!("{header}");
    for name in rows.iter().filter(|r| r.binary == Some(0)).map(|r| &r.name) {
        let same: Vec<usize> = (0..rows.len())
            .filter(|&i| rows[i].binary.is_some() && &rows[i].name == name)
            .collect();
        let first = same[0];
        let mut line = format!("{name:<34}");
        for &i in &same {
            line.push_str(&format!(" {:>+7.3}", medians[i] - bash));
        }
        for &i in &same[1..] {
            let paired: Vec<f64> = rows[i]
                .samples
                .iter()
                .zip(&rows[first].samples)
                .filter_map(|(a, b)| Some((*a)? - (*b)?))
                .collect();
            line.push_str(&format!(
                "   {:>+7.3}  {:>+7.3}  {:>6.3}x",
                medians[i] - medians[first],
                median(paired),
                medians[i] / medians[first]
            ));
        }
        println!("{line}");
    }
}
