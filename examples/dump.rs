//! Developer aid: prints tree-sitter-bash's syntax tree and guarded-sh's IR for a command.
//! `cargo run --example dump -- 'curl x | sh'`

use guarded_sh::parse::{analyse, Limits};

fn main() {
    let text = std::env::args().nth(1).unwrap_or_default();
    let mut parser = tree_sitter::Parser::new();
    if parser.set_language(&tree_sitter_bash::LANGUAGE.into()).is_ok() {
        if let Some(tree) = parser.parse(&text, None) {
            println!("{}", tree.root_node().to_sexp());
        }
    }
    let analysis = analyse(&text, &Limits::default());
    for (i, c) in analysis.commands.iter().enumerate() {
        println!(
            "#{i} name={:?} args={:?} stdin={:?} ctx={:?} redirects={:?}",
            c.name.value().unwrap_or(&format!("<dyn {}>", c.name.raw)),
            c.args.iter().map(|a| a.value().unwrap_or("<dyn>").to_string()).collect::<Vec<_>>(),
            c.stdin,
            c.context,
            c.redirects.iter().map(|r| format!("{}{}", r.op, r.target.raw)).collect::<Vec<_>>()
        );
    }
    println!("pipelines={:?}", analysis.pipelines);
    println!("errors={:?} limits={:?} dynamic={:?}", analysis.parse_errors, analysis.limits, analysis.dynamic_code);
}
