//! Each interpreter's command-line grammar, as far as it says where the program is: inline code
//! options (`-c`, `-e`, `-r`, `--eval`, `-p`), a script operand, stdin, or none (`-m mod`,
//! `--version`). Option clusters (`-uc`, `-pie`, `-ne`) and options taking values are followed.

use super::Language;
use crate::ir::Word;

/// Where the program is, by the arguments alone.
#[derive(Debug)]
pub enum Found {
    /// Program text on the command line (several `-e` run as one).
    Inline(Vec<Word>),
    /// A script operand (`-` is stdin).
    File(Word),
    /// No program argument: the interpreter reads its program from stdin.
    Stdin,
    /// No program to analyse (`-m module`, `--version`, `sed --sandbox`).
    Nothing,
}

/// Option letters whose value may follow in the next word, per language.
fn separate_values(language: Language) -> &'static str {
    match language {
        Language::Python => "WX",
        Language::Ruby => "rICEF",
        Language::Php => "dcz",
        Language::Lua => "l",
        Language::Awk => "Fvil",
        Language::Sed => "l",
        Language::Node => "r",
        Language::Perl => "",
    }
}

/// Option letters whose value is only ever attached (`-i.bak`, `-MPOSIX`, `-F:`).
fn attached_values(language: Language) -> &'static str {
    match language {
        Language::Perl => "iIMmxFCdDV",
        Language::Ruby => "iWxK",
        Language::Sed => "i",
        _ => "",
    }
}

/// Letters that make inline code follow (in the rest of the cluster or the next word).
fn code_letters(language: Language) -> &'static str {
    match language {
        Language::Python => "c",
        Language::Perl => "eE",
        Language::Ruby | Language::Lua | Language::Sed => "e",
        Language::Node => "ep",
        Language::Php => "rBRE",
        Language::Awk => "e",
    }
}

/// Letters that make a script file follow.
fn file_letters(language: Language) -> &'static str {
    match language {
        Language::Php | Language::Awk | Language::Sed => "f",
        _ => "",
    }
}

/// Letters (and long options) after which there is no program to analyse.
fn nothing(language: Language, letter: char) -> bool {
    match language {
        Language::Python => matches!(letter, 'm' | 'V' | 'h' | '?'),
        Language::Node => matches!(letter, 'v' | 'h' | 'c'),
        Language::Php => matches!(letter, 'v' | 'h' | 'i' | 'm' | 'l' | 'S'),
        Language::Ruby | Language::Perl => matches!(letter, 'v' | 'h'),
        Language::Lua => letter == 'v',
        Language::Awk | Language::Sed => false,
    }
}

const LONG_NOTHING: &[&str] = &["--version", "--help", "--sandbox", "--check", "--module"];

/// Long options that take the next word as their value.
const LONG_VALUES: &[&str] = &[
    "--check-hash-based-pycs",
    "--require",
    "--import",
    "--field-separator",
    "--assign",
    "--include",
    "--load",
    "--line-length",
    "--input-type",
];

/// Long options whose value is inline code, or a script file.
const LONG_CODE: &[&str] = &["--eval", "--print", "--expression", "--source"];
const LONG_FILE: &[&str] = &["--file", "--exec"];

/// The value of a code option (`-c`, `-e`, `--eval`) or a program-file option (`-f`): code is
/// gathered, and ends the scan for a language that runs one program; a file ends it. `None`:
/// keep scanning.
fn take_value(
    language: Language,
    code: &mut Vec<Word>,
    value: Option<Word>,
    is_code: bool,
) -> Option<Found> {
    if !is_code {
        return Some(value.map_or(Found::Nothing, Found::File));
    }
    code.extend(value);
    single_program(language).then(|| Found::Inline(std::mem::take(code)))
}

/// Where `args` say the program of a `language` interpreter is.
pub fn code_args(language: Language, args: &[Word]) -> Found {
    let mut code: Vec<Word> = Vec::new();
    let mut i = 0;
    while let Some(w) = args.get(i) {
        i += 1;
        let Some(v) = w.value() else {
            return operand(language, code, w);
        };
        if v == "--" {
            return match args.get(i) {
                Some(next) => operand(language, code, next),
                None => ended(language, code),
            };
        }
        if v == "-" {
            return operand(language, code, w);
        }
        if let Some(long) = v.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (format!("--{n}"), Some(v)),
                None => (v.to_string(), None),
            };
            if LONG_NOTHING.contains(&name.as_str()) {
                return Found::Nothing;
            }
            let code_option = LONG_CODE.contains(&name.as_str());
            let file_option = LONG_FILE.contains(&name.as_str());
            let taken = match value {
                Some(val) => Some(Word::literal(val)),
                None if code_option || file_option || LONG_VALUES.contains(&name.as_str()) => {
                    i += 1;
                    args.get(i - 1).cloned()
                }
                None => None,
            };
            if code_option || file_option {
                if let Some(found) = take_value(language, &mut code, taken, code_option) {
                    return found;
                }
            }
            continue;
        }
        let Some(cluster) = v.strip_prefix('-').filter(|c| !c.is_empty()) else {
            return operand(language, code, w);
        };
        if language == Language::Awk && cluster.starts_with('W') {
            i += usize::from(cluster.len() == 1);
            continue;
        }
        let letters: Vec<(usize, char)> = cluster.char_indices().collect();
        for (pos, letter) in letters {
            let rest = &cluster[pos + letter.len_utf8()..];
            if nothing(language, letter) {
                return Found::Nothing;
            }
            let is_code = code_letters(language).contains(letter);
            let is_file = file_letters(language).contains(letter);
            if is_code && language == Language::Node && !rest.is_empty() {
                continue; // `-pe CODE`: node takes no attached code, the last letter takes it
            }
            if is_code || is_file || separate_values(language).contains(letter) {
                let value = if rest.is_empty() {
                    i += 1;
                    args.get(i - 1).cloned()
                } else {
                    Some(Word::literal(rest))
                };
                if is_code || is_file {
                    if let Some(found) = take_value(language, &mut code, value, is_code) {
                        return found;
                    }
                }
                break;
            }
            if attached_values(language).contains(letter) {
                break;
            }
        }
    }
    ended(language, code)
}

/// Languages whose first inline program ends option parsing (the rest is the program's argv).
fn single_program(language: Language) -> bool {
    matches!(language, Language::Python | Language::Node)
}

/// The first operand: a script file, or (after inline code, or for awk and sed) the program.
fn operand(language: Language, code: Vec<Word>, w: &Word) -> Found {
    if !code.is_empty() {
        return Found::Inline(code);
    }
    match language {
        Language::Awk | Language::Sed => Found::Inline(vec![w.clone()]),
        _ => Found::File(w.clone()),
    }
}

fn ended(language: Language, code: Vec<Word>) -> Found {
    if !code.is_empty() {
        return Found::Inline(code);
    }
    match language {
        Language::Awk | Language::Sed => Found::Nothing,
        _ => Found::Stdin,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(args: &[&str]) -> Vec<Word> {
        args.iter().map(|a| Word::literal(a)).collect()
    }

    fn inline(language: Language, args: &[&str]) -> Option<String> {
        match code_args(language, &words(args)) {
            Found::Inline(w) => Some(
                w.iter()
                    .filter_map(|w| w.value())
                    .collect::<Vec<_>>()
                    .join("|"),
            ),
            _ => None,
        }
    }

    #[test]
    fn inline_code_table() {
        use Language::*;
        let cases: &[(Language, &[&str], Option<&str>)] = &[
            (Python, &["-c", "X"], Some("X")),
            (Python, &["-u", "-c", "X"], Some("X")),
            (Python, &["-uc", "X"], Some("X")),
            (Python, &["-cX"], Some("X")),
            (Python, &["-W", "ignore", "-c", "X"], Some("X")),
            (Python, &["-I", "-E", "-c", "X", "a"], Some("X")),
            (Python, &["-m", "http.server"], None),
            (Python, &["x.py", "-c", "X"], None),
            (Perl, &["-e", "A", "-e", "B"], Some("A|B")),
            (Perl, &["-ne", "X", "file"], Some("X")),
            (Perl, &["-pi", "-e", "X", "f"], Some("X")),
            (Perl, &["-pie", "X"], None),
            (Perl, &["-MPOSIX", "-e", "X"], Some("X")),
            (Ruby, &["-r", "json", "-e", "X"], Some("X")),
            (Ruby, &["-E", "UTF-8", "-e", "X"], Some("X")),
            (Node, &["-e", "X"], Some("X")),
            (Node, &["--eval", "X"], Some("X")),
            (Node, &["--eval=X"], Some("X")),
            (Node, &["-pe", "X"], Some("X")),
            (Node, &["-r", "ts-node/register", "-e", "X"], Some("X")),
            (Php, &["-r", "X"], Some("X")),
            (Php, &["-d", "a=1", "-r", "X"], Some("X")),
            (Lua, &["-e", "X"], Some("X")),
            (Awk, &["-F:", "X", "f"], Some("X")),
            (Awk, &["-F", ":", "-v", "a=1", "X"], Some("X")),
            (Awk, &["-f", "prog.awk"], None),
            (Sed, &["-n", "X", "f"], Some("X")),
            (Sed, &["-e", "A", "--expression=B", "f"], Some("A|B")),
            (Sed, &["-i.bak", "X", "f"], Some("X")),
            (Sed, &["--sandbox", "X"], None),
        ];
        for (language, args, want) in cases {
            assert_eq!(
                inline(*language, args).as_deref(),
                *want,
                "{language:?} {args:?}"
            );
        }
    }

    #[test]
    fn where_table() {
        use Language::*;
        assert!(matches!(code_args(Python, &words(&[])), Found::Stdin));
        assert!(matches!(code_args(Python, &words(&["-"])), Found::File(_)));
        assert!(matches!(
            code_args(Python, &words(&["-u", "x.py"])),
            Found::File(_)
        ));
        assert!(matches!(
            code_args(Python, &words(&["--version"])),
            Found::Nothing
        ));
        assert!(matches!(
            code_args(Php, &words(&["-f", "x.php"])),
            Found::File(_)
        ));
        assert!(matches!(code_args(Awk, &words(&[])), Found::Nothing));
        assert!(matches!(
            code_args(Node, &words(&["app.js"])),
            Found::File(_)
        ));
    }
}
