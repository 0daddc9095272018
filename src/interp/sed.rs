//! sed scripts: the `e COMMAND` command, `e` alone (runs the pattern space) and the `s///e`
//! flag (runs the result of the substitution). Addresses, `y`, text and file commands are
//! skipped so their arguments are never mistaken for commands.

use super::others::shell;
use super::{Finding, Output};

/// sed's `e COMMAND` and `e` (runs the pattern space), and the `s///e` flag (runs the result).
pub fn sed(script: &str, out: &mut Output) {
    for line in script.lines() {
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            i = skip_address(&chars, i);
            let Some(&c) = chars.get(i) else { break };
            i += 1;
            match c {
                'e' => {
                    let rest: String = chars[i..].iter().collect();
                    let rest = rest.trim();
                    if rest.is_empty() {
                        out.find(Finding::DynamicShell("sed e".into()));
                    } else {
                        shell(out, "sed e", rest.to_string());
                    }
                    break;
                }
                's' => {
                    let Some(&delim) = chars.get(i) else { break };
                    let (_, after_pattern) = sed_part(&chars, i + 1, delim);
                    let (replacement, after) = sed_part(&chars, after_pattern, delim);
                    let mut j = after;
                    let mut execute = false;
                    while let Some(&f) = chars.get(j) {
                        if f == 'w' {
                            let file: String = chars[j + 1..].iter().collect();
                            written(out, "sed s///w", file.trim());
                            j = chars.len();
                            break;
                        }
                        if !(f.is_ascii_alphanumeric()) {
                            break;
                        }
                        execute |= f == 'e';
                        j += 1;
                    }
                    if execute {
                        let dynamic = replacement.contains('&') || replacement.contains('\\');
                        if dynamic || replacement.trim().is_empty() {
                            out.find(Finding::DynamicShell("sed s///e".into()));
                        } else {
                            shell(out, "sed s///e", replacement);
                        }
                    }
                    i = j;
                }
                'y' => {
                    let Some(&delim) = chars.get(i) else { break };
                    let (_, a) = sed_part(&chars, i + 1, delim);
                    let (_, b) = sed_part(&chars, a, delim);
                    i = b;
                }
                'w' | 'W' => {
                    let file: String = chars[i..].iter().collect();
                    written(out, "sed w", file.trim());
                    break;
                }
                'a' | 'i' | 'c' | 'r' | 'R' | ':' | 'b' | 't' | 'T' | '#' => break,
                _ => {}
            }
        }
    }
}

/// The file of a `w FILE` command or `s///w FILE` flag (to the end of the line, as GNU sed
/// reads it): `/dev/stdout` and `/dev/stderr` are output, not files.
fn written(out: &mut Output, call: &str, file: &str) {
    if !file.is_empty() && !matches!(file, "/dev/stdout" | "/dev/stderr") {
        out.find(Finding::Write {
            call: call.into(),
            path: file.to_string(),
        });
    }
}

/// Skips separators and an address (`1`, `$`, `/re/`, `\%re%`, `1,5`, `!`) before a command.
fn skip_address(chars: &[char], mut i: usize) -> usize {
    loop {
        match chars.get(i) {
            Some(c)
                if c.is_whitespace()
                    || matches!(c, ';' | '{' | '}' | ',' | '!' | '$' | '~' | '+') =>
            {
                i += 1
            }
            Some(c) if c.is_ascii_digit() => i += 1,
            Some('/') => {
                i = sed_part(chars, i + 1, '/').1
                    + usize::from(
                        chars
                            .get(sed_part(chars, i + 1, '/').1)
                            .is_some_and(|c| *c == 'I' || *c == 'M'),
                    )
            }
            Some('\\') => match chars.get(i + 1) {
                Some(&d) => i = sed_part(chars, i + 2, d).1,
                None => return i + 1,
            },
            _ => return i,
        }
    }
}

/// One delimited part of an `s` or `y` command starting at `i`; returns its text (escapes of
/// the delimiter removed) and the index after the closing delimiter.
fn sed_part(chars: &[char], mut i: usize, delim: char) -> (String, usize) {
    let mut out = String::new();
    while let Some(&c) = chars.get(i) {
        if c == '\\' {
            match chars.get(i + 1) {
                Some(&n) if n == delim => out.push(n),
                Some(&n) => {
                    out.push('\\');
                    out.push(n);
                }
                None => {}
            }
            i += 2;
            continue;
        }
        if c == delim {
            return (out, i + 1);
        }
        out.push(c);
        i += 1;
    }
    (out, i)
}
