//! A small string-aware tokenizer for perl, ruby, node, php, lua and awk programs: identifiers,
//! string literals (static when they hold no interpolation), command literals (backticks,
//! `qx{}`, `%x()`), word lists (`qw()`, `%w()`) and punctuation, with comments skipped. It is
//! enough to find calls and their literal arguments; it is not a parser.

use super::Language;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    Ident(String),
    /// A string literal: its value, `None` when it interpolates run-time values.
    Str(Option<String>),
    /// A command literal run by a shell (`` `cmd` ``, `qx{cmd}`, `%x(cmd)`).
    Command(Option<String>),
    /// A literal list of words (`qw(a b)`, `%w(a b)`).
    Words(Vec<String>),
    Punct(char),
    Newline,
}

/// Most tokens kept per program.
const MAX_TOKENS: usize = 200_000;

pub fn tokens(language: Language, text: &str) -> Vec<Tok> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() && out.len() < MAX_TOKENS {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '\n' {
            out.push(Tok::Newline);
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if is_comment(language, &chars, i, out.last()) {
            i = skip_comment(language, &chars, i);
        } else if c == '\'' || c == '"' {
            let (value, end) = quoted(language, &chars, i + 1, c);
            out.push(Tok::Str(value));
            i = end;
        } else if c == '`' && language != Language::Lua && language != Language::Awk {
            let (value, end) = quoted(language, &chars, i + 1, '`');
            out.push(if language == Language::Node {
                Tok::Str(value)
            } else {
                Tok::Command(value)
            });
            i = end;
        } else if language == Language::Lua && c == '[' && matches!(next, Some('[' | '=')) {
            let (value, end) = long_bracket(&chars, i);
            out.push(Tok::Str(value));
            i = end;
        } else if c == '%' && language == Language::Ruby && percent_literal(&chars, i) {
            let (tok, end) = ruby_percent(&chars, i);
            out.push(tok);
            i = end;
        } else if c == '/' && regex_can_start(language, out.last()) {
            i = match delimited(&chars, i) {
                Some((_, end)) => end,
                None => i + 1,
            };
            out.push(Tok::Str(None));
        } else if c.is_alphabetic() || c == '_' || c == '$' || c == '@' {
            let start = i;
            i += 1;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            if language == Language::Perl {
                if let Some((tok, end)) = perl_quote_like(&word, &chars, i) {
                    out.push(tok);
                    i = end;
                    continue;
                }
            }
            out.push(Tok::Ident(word));
        } else {
            out.push(Tok::Punct(c));
            i += 1;
        }
    }
    out
}

/// A `/` that starts a regex literal (perl, ruby, node, awk) rather than a division: after an
/// operator, an opening bracket, a separator or at the start.
fn regex_can_start(language: Language, last: Option<&Tok>) -> bool {
    if !matches!(
        language,
        Language::Perl | Language::Ruby | Language::Node | Language::Awk
    ) {
        return false;
    }
    match last {
        None | Some(Tok::Newline) => true,
        Some(Tok::Punct(p)) => "(,~{};!&|=?:[".contains(*p),
        Some(Tok::Ident(w)) => matches!(
            w.as_str(),
            "split" | "grep" | "if" | "unless" | "and" | "or" | "not" | "return" | "when"
        ),
        _ => false,
    }
}

fn is_comment(language: Language, chars: &[char], i: usize, last: Option<&Tok>) -> bool {
    let c = chars[i];
    let next = chars.get(i + 1).copied();
    match language {
        Language::Perl | Language::Ruby | Language::Awk => {
            // `$#array` is not a comment.
            c == '#' && !matches!(last, Some(Tok::Punct('$')))
        }
        Language::Php => c == '#' || c == '/' && matches!(next, Some('/' | '*')),
        Language::Node => c == '/' && matches!(next, Some('/' | '*')),
        Language::Lua => c == '-' && next == Some('-'),
        Language::Python | Language::Sed => false,
    }
}

fn skip_comment(language: Language, chars: &[char], i: usize) -> usize {
    let block = match language {
        Language::Php | Language::Node => chars.get(i + 1) == Some(&'*'),
        Language::Lua => chars.get(i + 2) == Some(&'[') && chars.get(i + 3) == Some(&'['),
        _ => false,
    };
    if block {
        let close: &[char] = if language == Language::Lua {
            &[']', ']']
        } else {
            &['*', '/']
        };
        let mut j = i + 2;
        while j + 1 < chars.len() && !(chars[j] == close[0] && chars[j + 1] == close[1]) {
            j += 1;
        }
        return (j + 2).min(chars.len());
    }
    let mut j = i;
    while j < chars.len() && chars[j] != '\n' {
        j += 1;
    }
    j
}

/// Whether a quote interpolates in this language.
fn interpolates(language: Language, quote: char) -> bool {
    match language {
        Language::Perl | Language::Php => quote == '"' || quote == '`',
        Language::Ruby => quote == '"' || quote == '`',
        Language::Node => quote == '`',
        _ => false,
    }
}

/// A quoted literal starting after its opening `quote` at `i`; returns its static value (or
/// `None` when it interpolates) and the index after the closing quote.
fn quoted(
    language: Language,
    chars: &[char],
    mut i: usize,
    quote: char,
) -> (Option<String>, usize) {
    let mut out = String::new();
    let mut dynamic = false;
    let interp = interpolates(language, quote);
    let single_raw =
        quote == '\'' && matches!(language, Language::Perl | Language::Ruby | Language::Php);
    while i < chars.len() {
        let c = chars[i];
        if c == quote {
            return ((!dynamic).then_some(out), i + 1);
        }
        if c == '\\' {
            let e = chars.get(i + 1).copied().unwrap_or('\\');
            if single_raw {
                if e == quote || e == '\\' {
                    out.push(e);
                } else {
                    out.push('\\');
                    out.push(e);
                }
            } else {
                out.push(match e {
                    'n' => '\n',
                    't' => '\t',
                    'r' => '\r',
                    '0' => '\0',
                    other => other,
                });
            }
            i += 2;
            continue;
        }
        if interp {
            let next = chars.get(i + 1).copied();
            let starts = match language {
                Language::Perl => {
                    (c == '$' || c == '@')
                        && next.is_some_and(|n| n.is_alphanumeric() || "_{:".contains(n))
                }
                Language::Php => {
                    c == '$' && next.is_some_and(|n| n.is_alphabetic() || n == '_' || n == '{')
                }
                Language::Ruby => c == '#' && matches!(next, Some('{' | '$' | '@')),
                Language::Node => c == '$' && next == Some('{'),
                _ => false,
            };
            dynamic |= starts;
        }
        out.push(c);
        i += 1;
    }
    (None, i)
}

/// Lua `[[…]]` and `[==[…]==]`.
fn long_bracket(chars: &[char], i: usize) -> (Option<String>, usize) {
    let mut j = i + 1;
    let mut level = 0;
    while chars.get(j) == Some(&'=') {
        level += 1;
        j += 1;
    }
    if chars.get(j) != Some(&'[') {
        return (None, i + 1);
    }
    j += 1;
    let start = j;
    while j < chars.len() {
        if chars[j] == ']' {
            let mut k = j + 1;
            let mut l = 0;
            while chars.get(k) == Some(&'=') {
                l += 1;
                k += 1;
            }
            if l == level && chars.get(k) == Some(&']') {
                let body: String = chars[start..j].iter().collect();
                return (
                    Some(body.strip_prefix('\n').unwrap_or(&body).to_string()),
                    k + 1,
                );
            }
        }
        j += 1;
    }
    (None, j)
}

fn closing(open: char) -> char {
    match open {
        '(' => ')',
        '[' => ']',
        '{' => '}',
        '<' => '>',
        other => other,
    }
}

/// The body of a delimited literal starting at the delimiter `chars[i]`, with nesting for
/// bracket pairs; returns the body and the index after the closing delimiter.
fn delimited(chars: &[char], i: usize) -> Option<(String, usize)> {
    let open = *chars.get(i)?;
    if open.is_alphanumeric() || open.is_whitespace() || open == '_' {
        return None;
    }
    let close = closing(open);
    let mut depth = 0;
    let mut j = i + 1;
    let mut body = String::new();
    while j < chars.len() {
        let c = chars[j];
        if c == '\\' {
            if let Some(n) = chars.get(j + 1) {
                body.push(c);
                body.push(*n);
            }
            j += 2;
            continue;
        }
        if c == close && depth == 0 {
            return Some((body, j + 1));
        }
        if open != close && c == open {
            depth += 1;
        } else if open != close && c == close {
            depth -= 1;
        }
        body.push(c);
        j += 1;
    }
    None
}

fn has_perl_interpolation(body: &str) -> bool {
    let chars: Vec<char> = body.chars().collect();
    chars
        .windows(2)
        .any(|w| (w[0] == '$' || w[0] == '@') && (w[1].is_alphanumeric() || "_{:".contains(w[1])))
}

/// `q{…}`, `qq{…}`, `qx{…}`, `qw{…}` after the word `word` ending at `i`.
fn perl_quote_like(word: &str, chars: &[char], i: usize) -> Option<(Tok, usize)> {
    if !matches!(
        word,
        "q" | "qq" | "qx" | "qw" | "m" | "qr" | "s" | "tr" | "y"
    ) {
        return None;
    }
    let mut j = i;
    while chars.get(j).is_some_and(|c| *c == ' ') {
        j += 1;
    }
    if chars.get(j) == Some(&'=') || chars.get(j) == Some(&',') {
        return None; // a hash key or variable named q
    }
    let (body, mut end) = delimited(chars, j)?;
    if matches!(word, "s" | "tr" | "y") {
        // A second part: `s/a/b/`, or `s{a}{b}` with its own delimiters.
        let open = chars.get(j).copied().unwrap_or('/');
        end = if closing(open) != open {
            let mut k = end;
            while chars.get(k).is_some_and(|c| c.is_whitespace()) {
                k += 1;
            }
            delimited(chars, k).map_or(end, |(_, e)| e)
        } else {
            let mut k = end;
            while k < chars.len() && chars[k] != open {
                k += if chars[k] == '\\' { 2 } else { 1 };
            }
            k + 1
        };
        while chars.get(end).is_some_and(|c| c.is_ascii_alphabetic()) {
            end += 1;
        }
        return Some((Tok::Str(None), end.min(chars.len())));
    }
    if matches!(word, "m" | "qr") {
        return Some((Tok::Str(None), end));
    }
    let static_body = (!has_perl_interpolation(&body)).then(|| body.clone());
    let tok = match word {
        "q" => Tok::Str(Some(body)),
        "qq" => Tok::Str(static_body),
        "qx" => Tok::Command(if chars.get(j) == Some(&'\'') {
            Some(body)
        } else {
            static_body
        }),
        _ => Tok::Words(body.split_whitespace().map(str::to_string).collect()),
    };
    Some((tok, end))
}

fn percent_literal(chars: &[char], i: usize) -> bool {
    match chars.get(i + 1) {
        Some('x' | 'w' | 'W' | 'q' | 'Q') => {
            chars.get(i + 2).is_some_and(|c| "({[<|!/".contains(*c))
        }
        _ => false,
    }
}

/// Ruby `%x(…)`, `%w(…)`, `%q(…)`, `%Q(…)`.
fn ruby_percent(chars: &[char], i: usize) -> (Tok, usize) {
    let kind = chars.get(i + 1).copied().unwrap_or('q');
    let Some((body, end)) = delimited(chars, i + 2) else {
        return (Tok::Punct('%'), i + 1);
    };
    let interpolates = kind != 'q' && kind != 'w' && body.contains("#{");
    let value = (!interpolates).then(|| body.clone());
    let tok = match kind {
        'x' => Tok::Command(value),
        'w' | 'W' => Tok::Words(body.split_whitespace().map(str::to_string).collect()),
        _ => Tok::Str(value),
    };
    (tok, end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals() {
        let t = tokens(
            Language::Perl,
            r#"system("ls $x"); `id`; qx{whoami}; qw(a b) # c"#,
        );
        assert!(t.contains(&Tok::Str(None)));
        assert!(t.contains(&Tok::Command(Some("id".into()))));
        assert!(t.contains(&Tok::Command(Some("whoami".into()))));
        assert!(t.contains(&Tok::Words(vec!["a".into(), "b".into()])));
        assert!(!t.contains(&Tok::Ident("c".into())));
        let t = tokens(Language::Ruby, "%x(ls -l); \"a#{b}\"");
        assert!(t.contains(&Tok::Command(Some("ls -l".into()))));
        assert!(t.contains(&Tok::Str(None)));
        let t = tokens(Language::Lua, "os.execute[[rm -rf /]] -- x");
        assert!(t.contains(&Tok::Str(Some("rm -rf /".into()))));
        let t = tokens(Language::Node, "exec(`ls ${x}`) // y");
        assert!(t.contains(&Tok::Str(None)));
    }
}
