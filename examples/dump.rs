//! Developer aid: prints tree-sitter-bash's syntax tree, guarded-sh's IR and the signals for a
//! command. `cargo run --example dump -- 'curl x | sh'`; with `-` it reads one command per line
//! from stdin (`\n` escapes a newline, as in the case tables) and prints one summary line each:
//! `command<TAB>ids<TAB>max severity<TAB>verdict`, ready to paste into a table. With
//! `--file PATH` it analyses the whole file as one text and prints the signals and the time taken
//! (for measuring the bounds on pathological inputs).

use guarded_sh::analysis::analyse;
use guarded_sh::decision::{builtin, Mode};
use guarded_sh::parse::{Analysis, Limits};
use guarded_sh::signals::{detect, max_severity};
use std::io::BufRead;

fn main() {
    let text = std::env::args().nth(1).unwrap_or_default();
    if text == "--file" {
        let path = std::env::args().nth(2).unwrap_or_default();
        let bytes = std::fs::read(&path).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes);
        let started = std::time::Instant::now();
        let analysis = analyse(&text, &Limits::default());
        println!("analyse: {:?} ms", started.elapsed().as_millis());
        let signals = detect(&analysis);
        let ids: Vec<&str> = signals.iter().map(|s| s.id()).collect();
        println!(
            "{} bytes, {} commands, {:?} ms, signals {:?}, limits {:?}",
            bytes.len(),
            analysis.commands.len(),
            started.elapsed().as_millis(),
            ids.iter()
                .filter(|i| !matches!(**i, "COMMAND_SUBSTITUTION"))
                .collect::<Vec<_>>(),
            analysis.limits
        );
        return;
    }
    if text == "-" {
        for line in std::io::stdin().lock().lines().map_while(Result::ok) {
            summary(&line);
        }
        return;
    }
    let mut parser = tree_sitter::Parser::new();
    if parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .is_ok()
    {
        if let Some(tree) = parser.parse(&text, None) {
            println!("{}", tree.root_node().to_sexp());
        }
    }
    let analysis = analyse(&text, &Limits::default());
    ir(&analysis);
    for s in detect(&analysis) {
        println!(
            "signal [{}] {}: {} command={:?} args={:?}",
            s.severity(),
            s.id(),
            s.reason(),
            s.command,
            s.args
        );
    }
}

fn ir(analysis: &Analysis) {
    for (i, c) in analysis.commands.iter().enumerate() {
        println!(
            "#{i} name={:?} args={:?} stdin={:?} ctx={:?} redirects={:?}",
            c.name.value().unwrap_or(&format!("<dyn {}>", c.name.raw)),
            c.args
                .iter()
                .map(|a| a.value().unwrap_or("<dyn>").to_string())
                .collect::<Vec<_>>(),
            c.stdin,
            c.context,
            c.redirects
                .iter()
                .map(|r| format!("{}{}", r.op, r.target.raw))
                .collect::<Vec<_>>()
        );
    }
    println!("pipelines={:?}", analysis.pipelines);
    println!(
        "errors={:?} limits={:?} dynamic={:?}",
        analysis.parse_errors, analysis.limits, analysis.dynamic_code
    );
}

fn summary(line: &str) {
    let text = unescape(line);
    let analysis = analyse(&text, &Limits::default());
    let signals = detect(&analysis);
    let ids: Vec<&str> = signals.iter().map(|s| s.id()).collect();
    let max = max_severity(&signals).map_or("none", |s| s.as_str());
    let verdict = if builtin(&signals, Mode::Command).is_some() {
        "deny"
    } else {
        "allow"
    };
    println!("{line}\t{}\t{max}\t{verdict}", ids.join(" "));
}

/// The case tables' escapes: `\n` newline, `\t` tab, `\\` backslash.
fn unescape(field: &str) -> String {
    let mut out = String::new();
    let mut chars = field.chars().peekable();
    while let Some(c) = chars.next() {
        let escaped = match (c, chars.peek()) {
            ('\\', Some('n')) => Some('\n'),
            ('\\', Some('t')) => Some('\t'),
            ('\\', Some('\\')) => Some('\\'),
            _ => None,
        };
        match escaped {
            Some(e) => {
                chars.next();
                out.push(e);
            }
            None => out.push(c),
        }
    }
    out
}
