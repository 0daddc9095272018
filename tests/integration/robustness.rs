//! Robustness: 10,000+ generated command lines (commands, words, quotes, operators,
//! substitutions, heredocs, nesting, random bytes) never panic and always give a finite
//! analysis, the whole run is loosely time-bounded, and wrapping a critical command in `sudo`,
//! `bash -c`, `env` or `timeout` never lowers its max severity.

use guarded_sh::analysis::analyse;
use guarded_sh::parse::Limits;
use guarded_sh::signals::{detect, max_severity, Severity};
use std::time::{Duration, Instant};

/// A small deterministic generator (xorshift64*), so failures reproduce from the seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const COMMANDS: &[&str] = &[
    "rm",
    "ls",
    "echo",
    "cat",
    "curl",
    "wget",
    "sh",
    "bash",
    "sudo",
    "env",
    "eval",
    "find",
    "xargs",
    "dd",
    "chmod",
    "kubectl",
    "docker",
    "ssh",
    "python3",
    "base64",
    "tee",
    "timeout",
    ":",
    "cd",
    "set",
    "alias",
    "coproc",
    "time",
    "busybox",
    "printf",
    "/bin/rm",
    "\\rm",
    "r''m",
    "$x",
    "${a[@]}",
    "$(echo rm)",
    "{rm,-rf,/}",
    "f",
    "exec",
    "nohup",
    "watch",
    "su",
];
const WORDS: &[&str] = &[
    "-rf",
    "/",
    "-c",
    "'rm -rf /'",
    "\"$HOME\"",
    "${D:?}",
    "${D:-}",
    "/etc/*",
    "~",
    "x",
    "https://x.sh",
    "-o",
    "of=/dev/sda",
    "-exec",
    "{}",
    "\\;",
    "--",
    "-d",
    "$1",
    "\"$@\"",
    "$'\\x72m'",
    "{a,b}",
    "{1..3}",
    "@(a|b)",
    "*",
    "'",
    "\"",
    "$((1+2))",
    "<(curl x)",
    ">(tee y)",
    "-S",
    "'ls -la'",
    "/dev/null",
    "-R",
    "777",
    "delete",
    "prune",
    "\\n",
];
const OPERATORS: &[&str] = &[
    " ; ",
    " && ",
    " || ",
    " | ",
    " |& ",
    " & ",
    "\n",
    " ",
    " > f ",
    " < /dev/sda ",
    " 2>&1 ",
];

/// One random command line of roughly `size` pieces, possibly nested.
fn line(rng: &mut Rng, size: usize, depth: usize) -> String {
    let mut out = String::new();
    for _ in 0..size {
        match rng.below(20) {
            0 if depth < 3 => out.push_str(&format!("$({})", line(rng, 3, depth + 1))),
            1 if depth < 3 => out.push_str(&format!(
                "bash -c '{}'",
                line(rng, 3, depth + 1).replace('\'', "")
            )),
            2 => out.push_str(&format!(
                "cat <<EOF | sh\n{}\nEOF\n",
                line(rng, 3, depth + 1)
            )),
            3 => out.push_str(&format!(
                "{}(){{ {} ; }}",
                rng.pick(COMMANDS),
                line(rng, 2, depth + 1)
            )),
            4 => out.push_str(&format!(
                "if {}; then {}; fi",
                rng.pick(COMMANDS),
                rng.pick(COMMANDS)
            )),
            5 => {
                let bytes: String = (0..rng.below(8))
                    .map(|_| char::from(rng.below(128) as u8))
                    .collect();
                out.push_str(&bytes);
            }
            6 => out.push_str(rng.pick(OPERATORS)),
            7..=10 => out.push_str(rng.pick(COMMANDS)),
            _ => out.push_str(rng.pick(WORDS)),
        }
        out.push(' ');
    }
    out
}

fn max_of(text: &str) -> Option<Severity> {
    let analysis = analyse(text, &Limits::default());
    max_severity(&detect(&analysis))
}

#[test]
fn generated_lines_never_panic_and_stay_bounded() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let started = Instant::now();
    let mut analysed = 0;
    for i in 0..10_000 {
        let size = 1 + rng.below(12);
        let text = line(&mut rng, size, 0);
        let analysis = analyse(&text, &Limits::default());
        let signals = detect(&analysis);
        // Finite and consistent: every signal has a known severity and the max is their max.
        let max = max_severity(&signals);
        assert_eq!(
            max,
            signals.iter().map(|s| s.severity()).max(),
            "case {i}: {text:?}"
        );
        assert!(analysis.commands.len() < 100_000, "case {i}");
        analysed += 1;
    }
    assert_eq!(analysed, 10_000);
    // Loose: about a millisecond per line in a debug build; this only catches blow-ups.
    assert!(
        started.elapsed() < Duration::from_secs(300),
        "took {:?}",
        started.elapsed()
    );
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng(42);
    for _ in 0..2_000 {
        let len = rng.below(200);
        let bytes: Vec<u8> = (0..len).map(|_| rng.below(256) as u8).collect();
        let text = String::from_utf8_lossy(&bytes);
        let analysis = analyse(&text, &Limits::default());
        let _ = detect(&analysis);
    }
    for text in [
        "\0",
        "rm -rf /\0",
        "\u{1b}[31mrm -rf /",
        "\u{feff}rm -rf /",
        "rm\u{a0}-rf /",
        "\r\n\r\n",
    ] {
        let _ = detect(&analyse(text, &Limits::default()));
    }
}

/// Simple commands that are critical on their own.
const CRITICAL: &[&str] = &[
    "rm -rf /",
    "rm -rf /etc",
    "rm / -rf",
    "rm --recursive --force /usr",
    "rm -rf \"$DIR\"",
    "dd if=/dev/zero of=/dev/sda",
    "mkfs.ext4 /dev/sdb1",
    "chmod -R 777 /",
    "chown -R x /etc",
    "find / -delete",
    "find / -exec rm -rf {} ;",
    "\\rm -rf /",
    "'rm' -rf /",
    "/bin/rm -rf //",
    "rm -rf /{bin,etc}",
    "rm -rf ~",
    "rm -r -f /var/lib",
    "r''m -rf /",
    "$'\\x72m' -rf /",
    "bash -c 'rm -rf /'",
    "eval 'rm -rf /'",
    "sh -c \"curl x | sh\"",
    "rm -rf /*",
];

fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

#[test]
fn wrapping_never_lowers_severity() {
    let mut rng = Rng(7);
    let mut checked = 0;
    for round in 0..400 {
        let base = CRITICAL[round % CRITICAL.len()];
        // Sometimes decorate the command with harmless words and spacing.
        let cmd = match rng.below(3) {
            0 => base.to_string(),
            1 => format!("{base} x"),
            _ => format!("X=1 {base}"),
        };
        let Some(before) = max_of(&cmd) else { continue };
        if before != Severity::Critical {
            continue;
        }
        for wrapped in [
            format!("sudo {cmd}"),
            format!("bash -c {}", quote(&cmd)),
            format!("env {cmd}"),
            format!("timeout 5 {cmd}"),
            format!("sudo -u root -- env A=1 timeout 5 {cmd}"),
            format!("sh -c {}", quote(&format!("sudo {cmd}"))),
        ] {
            let after = max_of(&wrapped);
            assert!(
                after >= Some(before),
                "{wrapped:?}: {after:?} < {before:?} (from {cmd:?})"
            );
            checked += 1;
        }
    }
    assert!(checked >= 1_000, "only {checked} wrapped cases checked");
}
