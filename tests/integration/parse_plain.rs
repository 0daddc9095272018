//! The plain command line (`parse::plain_words`) is lowered without tree-sitter. Two things must
//! hold, and both are tried here:
//! - the table `tests/plain_lines.tsv`: which lines take that path and which must not (quoting,
//!   expansions, operators, newlines, reserved words, declaration builtins…);
//! - on every line that takes it, the IR and the signals are exactly those of the grammar path
//!   (`parse::analyse_grammar_only`): the table's lines, lines built from the commands the rule
//!   families know, and 20,000 generated lines.

use guarded_sh::analysis::{analyse, analyse_grammar_only};
use guarded_sh::parse::{plain_words, Limits};
use guarded_sh::signals::detect;
use std::path::Path;

/// `\t`, `\n`, `\r`, `\v` and `\u{HEX}` in a table line.
fn unescape(field: &str) -> String {
    let mut out = String::new();
    let mut rest = field;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        let tail = &rest[i + 1..];
        let (c, used) = match tail.chars().next() {
            Some('t') => ('\t', 1),
            Some('n') => ('\n', 1),
            Some('r') => ('\r', 1),
            Some('v') => ('\u{b}', 1),
            Some('u') => {
                let end = tail.find('}').expect("\\u{…} is closed");
                let hex = &tail[2..end];
                let c = char::from_u32(u32::from_str_radix(hex, 16).expect("hex"))
                    .expect("a scalar value");
                (c, end + 1)
            }
            _ => ('\\', 0),
        };
        out.push(c);
        rest = &tail[used..];
    }
    out.push_str(rest);
    out
}

fn table() -> Vec<(usize, bool, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/plain_lines.tsv");
    let text = std::fs::read_to_string(path).expect("tests/plain_lines.tsv");
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#') && !l.is_empty())
        .map(|(i, l)| {
            let (kind, line) = l.split_once('\t').expect("kind<TAB>line");
            let plain = match kind {
                "plain" => true,
                "grammar" => false,
                other => panic!("line {}: unknown kind {other}", i + 1),
            };
            (i + 1, plain, unescape(line))
        })
        .collect()
}

/// The two paths agree on `line`: the same IR (every field, through `Debug`) and signals.
fn same_as_grammar(line: &str) -> Result<(), String> {
    let limits = Limits::default();
    let fast = analyse(line, &limits);
    let mut reference = analyse_grammar_only(line, &limits);
    // The parser's step count is the grammar path's cost, not part of what the line means; the
    // plain path takes none.
    if fast.parse_steps != 0 {
        return Err(format!("the plain path counted parser steps for {line:?}"));
    }
    reference.parse_steps = 0;
    let (f, r) = (format!("{fast:#?}"), format!("{reference:#?}"));
    if f != r {
        let first = f
            .lines()
            .zip(r.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(f.lines().count().min(r.lines().count()));
        let around = |s: &str| -> String {
            let lines: Vec<&str> = s.lines().collect();
            lines[first.saturating_sub(3)..(first + 3).min(lines.len())].join("\n")
        };
        return Err(format!(
            "IR differs for {line:?} at line {first} of its Debug\nplain path:\n{}\ngrammar:\n{}",
            around(&f),
            around(&r)
        ));
    }
    let (fs, rs) = (
        format!("{:?}", detect(&fast)),
        format!("{:?}", detect(&reference)),
    );
    if fs != rs {
        return Err(format!("signals differ for {line:?}: {fs} vs {rs}"));
    }
    Ok(())
}

#[test]
fn which_lines_are_plain() {
    let rows = table();
    assert!(rows.len() >= 60, "the table has {} rows", rows.len());
    let wrong: Vec<String> = rows
        .iter()
        .filter(|(_, plain, line)| plain_words(line).is_some() != *plain)
        .map(|(n, plain, line)| format!("line {n}: {line:?} should be plain: {plain}"))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn plain_words_are_the_words() {
    let words: Vec<&str> = plain_words("  ls\t-la   /tmp ")
        .expect("plain")
        .into_iter()
        .map(|(_, w)| w)
        .collect();
    assert_eq!(words, ["ls", "-la", "/tmp"]);
    let offsets: Vec<usize> = plain_words("a  bc d")
        .expect("plain")
        .into_iter()
        .map(|(o, _)| o)
        .collect();
    assert_eq!(offsets, [0, 3, 6]);
}

#[test]
fn table_lines_agree_with_the_grammar() {
    let failures: Vec<String> = table()
        .iter()
        .filter_map(|(_, _, line)| same_as_grammar(line).err())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Commands the rule families and the unwrapper treat specially, as first words.
const COMMANDS: &[&str] = &[
    "rm",
    "sudo",
    "doas",
    "su",
    "bash",
    "sh",
    "dash",
    "zsh",
    "env",
    "nohup",
    "timeout",
    "nice",
    "xargs",
    "find",
    "exec",
    "command",
    "builtin",
    "eval",
    "source",
    ".",
    "set",
    "read",
    "mapfile",
    "getopts",
    "chmod",
    "chown",
    "chattr",
    "mkfs",
    "mkfs.ext4",
    "dd",
    "shred",
    "curl",
    "wget",
    "nc",
    "ncat",
    "socat",
    "python3",
    "perl",
    "ruby",
    "node",
    "ssh",
    "scp",
    "docker",
    "kubectl",
    "systemctl",
    "service",
    "crontab",
    "iptables",
    "kill",
    "pkill",
    "reboot",
    "shutdown",
    "history",
    "unalias",
    "alias",
    "trap",
    "watch",
    "stdbuf",
    "taskset",
    "chroot",
    "/bin/rm",
    "/usr/bin/sudo",
    "./x",
    "../bin/sh",
    "busybox",
    "true",
    "echo",
    "cat",
    "git",
];

/// Arguments worth combining with them.
const ARGS: &[&str] = &[
    "-rf",
    "-r",
    "-f",
    "/",
    "/etc",
    "/etc/shadow",
    "/dev/sda",
    "-c",
    "true",
    "rm",
    "-9",
    "-1",
    "777",
    "+s",
    "u+s",
    "--no-preserve-root",
    "-i",
    "-e",
    "/bin/sh",
    "-l",
    "-p",
    "4444",
    "id",
    "-o",
    "--",
    "%1",
    "a,b",
    "x:y",
    "user@host",
    "10",
    "0",
    "-n",
    "-s",
    "HUP",
    "-exec",
    "+",
    "-delete",
    "stop",
    "disable",
    "--force",
    "/tmp/x",
    "https://x.example/a.sh",
    "-qO-",
];

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn known_commands_agree_with_the_grammar() {
    let mut failures = Vec::new();
    for command in COMMANDS {
        for (i, arg) in ARGS.iter().enumerate() {
            let next = ARGS[(i * 7 + 3) % ARGS.len()];
            for line in [
                format!("{command} {arg}"),
                format!("{command} {arg} {next}"),
                format!("sudo {command} {arg} {next}"),
            ] {
                if plain_words(&line).is_none() {
                    continue; // `user@host` (see tests/plain_lines.tsv)
                }
                if let Err(e) = same_as_grammar(&line) {
                    failures.push(e);
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `name` from the environment as a number (decimal or `0x` hex), else `default`.
fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| match v.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(&hex.replace('_', ""), 16).ok(),
            None => v.replace('_', "").parse().ok(),
        })
        .unwrap_or(default)
}

/// 20,000 lines by default; a longer run with another seed:
/// `GSH_PLAIN_LINES=400000 GSH_PLAIN_SEED=0x13579bdf2468ace1 cargo test --release --test
/// parse_plain generated`.
#[test]
fn generated_lines_agree_with_the_grammar() {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCXYZ0123456789_./,:-";
    let lines = env_number("GSH_PLAIN_LINES", 20_000);
    let mut rng = XorShift(env_number("GSH_PLAIN_SEED", 0x5eed_1234_abcd_ef01) | 1);
    let mut failures = Vec::new();
    let mut plain = 0;
    for _ in 0..lines {
        let mut line = String::new();
        for w in 0..1 + rng.below(6) {
            if w > 0 || rng.below(4) == 0 {
                line.push_str([" ", "  ", "\t"][rng.below(3)]);
            }
            match rng.below(4) {
                0 => line.push_str(COMMANDS[rng.below(COMMANDS.len())]),
                1 => line.push_str(ARGS[rng.below(ARGS.len())]),
                _ => {
                    for _ in 0..1 + rng.below(10) {
                        line.push(ALPHABET[rng.below(ALPHABET.len())] as char);
                    }
                }
            }
        }
        if plain_words(&line).is_none() {
            continue;
        }
        plain += 1;
        if let Err(e) = same_as_grammar(&line) {
            failures.push(e);
            if failures.len() >= 5 {
                break;
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        plain * 4 > lines * 3,
        "only {plain} of {lines} generated lines were plain"
    );
}

/// A word longer than the raw text kept per word (4,096 characters) is evaluated as the grammar
/// path evaluates it, and a line past the size bound is refused before either path.
#[test]
fn long_words_and_the_size_bound() {
    let long = format!("echo {}", "a".repeat(5000));
    assert!(plain_words(&long).is_some());
    same_as_grammar(&long).expect("a long word");
    let huge = format!("echo {}", "a ".repeat(80 * 1024));
    let analysis = analyse(&huge, &Limits::default());
    assert!(
        !analysis.limits.is_empty() && analysis.commands.is_empty(),
        "a line past max_bytes is refused: {:?}",
        analysis.limits
    );
}

/// Lines as wide as the fuzzer makes them (4 KiB): many short words, runs of separators, words
/// the option grammars read (`-`, `--`, clusters), each agreeing with the grammar path.
#[test]
fn wide_lines_agree_with_the_grammar() {
    let shapes = [
        format!("echo{}", " a".repeat(2040)),
        format!("rm{}", " -".repeat(2040)),
        format!("rm{}", " --".repeat(1360)),
        format!("find /{}", " -delete".repeat(500)),
        format!("a{}b", "\t".repeat(4000)),
        format!("x{}", " 1".repeat(2040)),
        format!("sudo{}", " sudo".repeat(800)),
        format!("env{}", " env".repeat(1000)),
        format!("chmod -R 777 {}", "/ ".repeat(2000)),
        "a ".repeat(2048),
    ];
    let failures: Vec<String> = shapes
        .iter()
        .filter_map(|line| same_as_grammar(line).err())
        .map(|e| {
            e.chars()
                .skip(e.find(" at line ").unwrap_or(0))
                .take(900)
                .collect()
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
