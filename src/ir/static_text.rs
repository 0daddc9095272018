//! Static text: what `echo` or `printf` of constants prints, what a pipe of such stages (through
//! plain `cat`s, heredocs and here-strings) feeds the next command, and the backslash escapes
//! that `$'…'`, `echo -e` and `printf` decode. Queries over the IR that every layer asks.

use super::analysis::Analysis;
use super::command::{Command, Stdin};
use super::word::Word;

/// The static text that `echo`/`printf` stages write into a pipe, if that is all that feeds it.
pub fn piped_text(stdin: &Stdin, analysis: &Analysis) -> Option<String> {
    let mut stdin = stdin;
    // `base64 -d` stages on the way, decoded once the text is found.
    let mut decodes = 0;
    for _ in 0..MAX_CAT_HOPS {
        let Stdin::Pipe { pipeline, stage } = stdin else {
            return None;
        };
        let previous = analysis
            .pipelines
            .get(*pipeline)?
            .stages
            .get(stage.checked_sub(1)?)?;
        let first = analysis.commands.get(*previous.first()?)?;
        let decoder = is_base64_decode(first);
        decodes += usize::from(decoder);
        let text = if decoder || first.is(&["cat"]) && first.args.is_empty() {
            match &first.stdin {
                Stdin::Heredoc { text, .. } => text.clone(),
                Stdin::HereString(w) => w.value().map(|v| format!("{v}\n")),
                other => {
                    stdin = other;
                    continue;
                }
            }
        } else {
            echoed(first)
        };
        return text.and_then(|t| decoded(t, decodes));
    }
    None
}

/// `base64 -d` (`--decode`, `-D`) reading its stdin.
fn is_base64_decode(cmd: &Command) -> bool {
    cmd.is(&["base64"])
        && cmd.has_any_arg(&["-d", "--decode", "-D", "-di", "-id"])
        && cmd.operands().is_empty()
}

/// `text` base64-decoded `times` times (whitespace ignored, as `base64 -d` does), when it is
/// valid base64 of UTF-8 text each time.
fn decoded(text: String, times: usize) -> Option<String> {
    use base64::Engine as _;
    let mut text = text;
    for _ in 0..times {
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(compact.as_bytes())
            .ok()?;
        text = String::from_utf8(bytes).ok()?;
    }
    Some(text)
}

/// How many plain `cat` stages `piped_text` looks back through (`echo x | cat | cat | sh`).
const MAX_CAT_HOPS: usize = 16;

/// What `echo ARGS` or `printf FMT ARGS` prints, when static.
pub fn echoed(cmd: &Command) -> Option<String> {
    let values: Option<Vec<&str>> = cmd.args.iter().map(Word::value).collect();
    let values = values?;
    match cmd.base()? {
        "echo" => {
            let mut escapes = false;
            let mut newline = true;
            let mut rest = values.as_slice();
            while let Some(flag) = rest.first().filter(|f| {
                f.len() > 1 && f.starts_with('-') && f[1..].chars().all(|c| "neE".contains(c))
            }) {
                escapes |= flag.contains('e');
                newline &= !flag.contains('n');
                rest = &rest[1..];
            }
            let mut text = rest.join(" ");
            if escapes {
                text = decode_ansi_c(&text);
            }
            if newline {
                text.push('\n');
            }
            Some(text)
        }
        "printf" => {
            let (format, args) = values.split_first()?;
            Some(printf(format, args))
        }
        _ => None,
    }
}

fn printf(format: &str, args: &[&str]) -> String {
    let mut out = String::new();
    let mut args = args.iter();
    let mut chars = format.chars().peekable();
    let mut literal = String::new();
    while let Some(c) = chars.next() {
        if c != '%' {
            literal.push(c);
            continue;
        }
        out.push_str(&decode_ansi_c(&std::mem::take(&mut literal)));
        while chars.peek().is_some_and(|c| "-+ #0123456789.".contains(*c)) {
            chars.next();
        }
        match chars.next() {
            Some('%') => out.push('%'),
            Some('b') => out.push_str(&decode_ansi_c(args.next().copied().unwrap_or(""))),
            Some(_) => out.push_str(args.next().copied().unwrap_or("")),
            None => {}
        }
    }
    out.push_str(&decode_ansi_c(&literal));
    out
}

/// Decodes the body of an ANSI-C string `$'…'` (without the `$'` and `'`). Like bash, the string
/// ends at the first NUL it decodes (`\x00`, `\0`, `\u0000`, `\c@` or a raw NUL): bash strings
/// are C strings, so `bash -c $'rm -rf /\n\x00…'` runs `rm -rf /` and nothing after the NUL.
pub fn decode_ansi_c(body: &str) -> String {
    let chars: Vec<char> = body.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    let radix_run = |i: usize, radix: u32, max: usize| -> (u32, usize) {
        let mut value = 0u32;
        let mut n = 0;
        while n < max {
            match chars.get(i + n).and_then(|c| c.to_digit(radix)) {
                Some(d) => value = value.saturating_mul(radix).saturating_add(d),
                None => break,
            }
            n += 1;
        }
        (value, n)
    };
    while i < chars.len() {
        let c = chars[i];
        if c == '\0' {
            return out;
        }
        if c != '\\' || i + 1 >= chars.len() {
            out.push(c);
            i += 1;
            continue;
        }
        let e = chars[i + 1];
        i += 2;
        let simple = match e {
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'e' | 'E' => Some('\u{1b}'),
            'f' => Some('\u{c}'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'v' => Some('\u{b}'),
            '\\' | '\'' | '"' | '?' => Some(e),
            _ => None,
        };
        if let Some(s) = simple {
            out.push(s);
            continue;
        }
        let (value, used) = match e {
            'x' => radix_run(i, 16, 2),
            'u' => radix_run(i, 16, 4),
            'U' => radix_run(i, 16, 8),
            '0'..='7' => {
                let (v, n) = radix_run(i - 1, 8, 3);
                (v, n.saturating_sub(1))
            }
            'c' => match chars.get(i) {
                Some(ctl) => ((*ctl as u32) & 0x1f, 1),
                None => (0, 0),
            },
            _ => {
                out.push('\\');
                out.push(e);
                continue;
            }
        };
        if used == 0 && e != '0' {
            out.push('\\');
            out.push(e);
            continue;
        }
        i += used;
        match char::from_u32(value) {
            Some('\0') => return out,
            Some(ch) => out.push(ch),
            None => {}
        }
    }
    out
}

/// A word quoted for a POSIX shell, as python's `shlex.quote` does: as it is when it holds only
/// safe characters, else in single quotes (a `'` inside written `'"'"'`).
pub fn shell_quote(s: &str) -> String {
    let safe = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "@%+=:,./-_".contains(c));
    if safe {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\"'\"'"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansi_c_table() {
        let cases = [
            (r"\x72\x6d", "rm"),
            (r"\162\155", "rm"),
            (r"\u0072m", "rm"),
            (r"a\nb", "a\nb"),
            (r"\'", "'"),
            (r"\q", r"\q"),
            // The string ends at a decoded NUL, as in bash.
            (r"a\x00b", "a"),
            (r"rm -rf /\n\\\t#\x00$\'x\'", "rm -rf /\n\\\t#"),
            (r"a\0b", "a"),
            (r"a\000b", "a"),
            (r"a\u0000b", "a"),
            (r"a\c@b", "a"),
            ("a\0b", "a"),
            (r"a\x0", "a"),
        ];
        for (input, want) in cases {
            assert_eq!(decode_ansi_c(input), want, "{input}");
        }
    }
}
