//! Python string helpers: escape decoding, `posixpath.join`, `shlex.quote`, dotted names.

/// `posixpath.join`: an absolute part restarts the path.
pub fn join(a: &str, b: &str) -> String {
    if b.starts_with('/') || a.is_empty() {
        b.to_string()
    } else if a.ends_with('/') {
        format!("{a}{b}")
    } else {
        format!("{a}/{b}")
    }
}

/// `shlex.quote`: POSIX shell quoting (`crate::ir::shell_quote`).
pub use crate::ir::shell_quote as quote;

/// Dotted names as written may hold spaces (`os . path`); the name has none.
pub fn compact(name: &str) -> String {
    name.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Decodes Python string escapes (`\n`, `\x41`, `\u00e9`, `\101`, line continuations).
pub fn unescape(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        match e {
            '\n' => {}
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            '0'..='7' => {
                let mut n = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            n = n * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.extend(char::from_u32(n));
            }
            'x' | 'u' | 'U' => {
                let len = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let hex: String = (0..len).filter_map(|_| chars.next()).collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(ch) => out.push(ch),
                    None => {
                        out.push('\\');
                        out.push(e);
                        out.push_str(&hex);
                    }
                }
            }
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'f' => out.push('\x0c'),
            'v' => out.push('\x0b'),
            '\\' | '\'' | '"' => out.push(e),
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unescape_table() {
        assert_eq!(unescape(r"a\nb"), "a\nb");
        assert_eq!(unescape(r"\x72\x6d"), "rm");
        assert_eq!(unescape(r"\162m"), "rm");
        assert_eq!(unescape(r"\u0072m"), "rm");
        assert_eq!(unescape(r"\d"), r"\d");
        assert_eq!(unescape(r#"\"x\""#), "\"x\"");
    }

    #[test]
    fn join_and_quote() {
        assert_eq!(join("/etc", "passwd"), "/etc/passwd");
        assert_eq!(join("/tmp", "/etc"), "/etc");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("/tmp/x"), "/tmp/x");
    }
}
