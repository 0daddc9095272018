//! A program's option grammar, read the way getopt reads argv: short clusters (`-af`), short
//! options that take a value (attached `-ofile` or the next word), long options with `=value`
//! and their unique-prefix abbreviations (`--dum` is `--dump`), `--`, options after operands.
//! Rules use it to tell a read-only run of a tool from a writing one by its real grammar.

use crate::ir::Word;

/// Whether a long option takes a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    No,
    /// `--name=value` or `--name value`.
    Required,
    /// Only `--name=value`.
    Optional,
}

/// The options one program understands.
pub struct Grammar {
    /// Short options that take a value.
    pub short_values: &'static str,
    /// Long options, without the leading `--`.
    pub longs: &'static [(&'static str, Arg)],
    /// Options end at the first operand (getopt's leading `+`: `sudo`, `env`).
    pub options_end_at_operand: bool,
}

/// One option as the program reads it: `-x` or `--name` (the canonical long name), or the
/// word as written when the grammar does not know it (an unknown or ambiguous long option).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opt {
    pub spelling: String,
    /// The option's value when it takes one; `None` also when the value is only known at run time.
    pub value: Option<String>,
}

/// An argv read through a grammar.
pub struct Parsed<'c> {
    pub options: Vec<Opt>,
    pub operands: Vec<&'c Word>,
    /// A word only known at run time could be an option: callers must not call the run read-only.
    pub dynamic: bool,
}

impl Parsed<'_> {
    /// True when one of `spellings` (`-p`, `--print`) was given.
    pub fn has_any(&self, spellings: &[&str]) -> bool {
        self.options
            .iter()
            .any(|o| spellings.contains(&o.spelling.as_str()))
    }
}

/// Reads `args` through `grammar`.
pub fn parse<'c>(args: &'c [Word], grammar: &Grammar) -> Parsed<'c> {
    let mut parsed = Parsed {
        options: Vec::new(),
        operands: Vec::new(),
        dynamic: false,
    };
    let mut words = args.iter();
    let mut options_ended = false;
    while let Some(word) = words.next() {
        let Some(value) = word.value() else {
            parsed.dynamic = true;
            parsed.operands.push(word);
            continue;
        };
        if options_ended || value == "-" || !value.starts_with('-') {
            options_ended |= grammar.options_end_at_operand;
            parsed.operands.push(word);
        } else if value == "--" {
            options_ended = true;
        } else if let Some(long) = value.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            match lookup(grammar, name) {
                Some((canonical, arg)) => {
                    let value = match (arg, attached) {
                        (Arg::Required, None) => next_value(&mut words, &mut parsed.dynamic),
                        (_, v) => v,
                    };
                    parsed.options.push(Opt {
                        spelling: format!("--{canonical}"),
                        value,
                    });
                }
                None => parsed.options.push(Opt {
                    spelling: value.to_string(),
                    value: attached,
                }),
            }
        } else {
            let cluster: Vec<char> = value.chars().skip(1).collect();
            for (k, c) in cluster.iter().enumerate() {
                if grammar.short_values.contains(*c) {
                    let rest: String = cluster[k + 1..].iter().collect();
                    let value = if rest.is_empty() {
                        next_value(&mut words, &mut parsed.dynamic)
                    } else {
                        Some(rest)
                    };
                    parsed.options.push(Opt {
                        spelling: format!("-{c}"),
                        value,
                    });
                    break;
                }
                parsed.options.push(Opt {
                    spelling: format!("-{c}"),
                    value: None,
                });
            }
        }
    }
    parsed
}

fn next_value<'c>(
    words: &mut impl Iterator<Item = &'c Word>,
    dynamic: &mut bool,
) -> Option<String> {
    let word = words.next()?;
    let value = word.value().map(str::to_string);
    if value.is_none() {
        *dynamic = true;
    }
    value
}

/// The long option `name` names: itself, or the one long option it is a unique prefix of.
fn lookup(grammar: &Grammar, name: &str) -> Option<(&'static str, Arg)> {
    if let Some(exact) = grammar.longs.iter().find(|(n, _)| *n == name) {
        return Some(*exact);
    }
    let mut candidates = grammar.longs.iter().filter(|(n, _)| n.starts_with(name));
    match (candidates.next(), candidates.next()) {
        (Some(only), None) if !name.is_empty() => Some(*only),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const G: Grammar = Grammar {
        short_values: "o",
        longs: &[
            ("dump", Arg::No),
            ("delete", Arg::No),
            ("output", Arg::Required),
        ],
        options_end_at_operand: false,
    };

    fn spellings(args: &[&str]) -> (Vec<String>, Vec<String>) {
        let words: Vec<Word> = args.iter().map(|a| Word::literal(a)).collect();
        let p = parse(&words, &G);
        (
            p.options.iter().map(|o| o.spelling.clone()).collect(),
            p.operands
                .iter()
                .filter_map(|w| w.value().map(str::to_string))
                .collect(),
        )
    }

    #[test]
    fn grammar_table() {
        let cases: &[(&[&str], &[&str], &[&str])] = &[
            (&["-af", "x"], &["-a", "-f"], &["x"]),
            (&["-ofile", "x"], &["-o"], &["x"]),
            (&["-o", "file", "x"], &["-o"], &["x"]),
            (&["--dum", "x"], &["--dump"], &["x"]),
            (&["--de", "x"], &["--delete"], &["x"]),
            (&["--d", "x"], &["--d"], &["x"]),
            (&["--output", "f", "x"], &["--output"], &["x"]),
            (&["x", "--dump"], &["--dump"], &["x"]),
            (&["--", "-a"], &[], &["-a"]),
        ];
        for (args, options, operands) in cases {
            let (o, p) = spellings(args);
            assert_eq!(o, *options, "options of {args:?}");
            assert_eq!(p, *operands, "operands of {args:?}");
        }
    }
}
