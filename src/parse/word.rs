//! Static word text: character kinds, field splitting, brace expansion, unescaping and `env -S`
//! word splitting, the pure helpers behind a word's static value. The `Word` itself is in
//! `crate::ir`; evaluating a word node part by part is in `lower/word.rs`.

/// How a character of a word came to be, which decides brace expansion, field splitting and
/// globbing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CharKind {
    /// Unquoted literal text: braces expand, globs match.
    Literal,
    /// Quoted or escaped: inert.
    Quoted,
    /// From an unquoted expansion of a known constant: splits on `IFS`, globs match.
    Expanded,
    /// A boundary between fields that always splits (`"$@"`, `"${a[@]}"`); never part of a value.
    Break,
}

/// Characters of a static word with their kinds.
#[derive(Clone, Debug, Default)]
pub struct Chars(pub Vec<(char, CharKind)>);

impl Chars {
    pub fn push_str(&mut self, text: &str, kind: CharKind) {
        self.0.extend(text.chars().map(|c| (c, kind)));
    }

    /// Splits into fields (expansions on the characters of `ifs`, `Break` always), then
    /// brace-expands each field. Returns at most `max` values, each with its glob flag, or
    /// `None` when the expansion is larger than the budget (the word is then unknown).
    pub fn expand_with(&self, ifs: &str, max: usize) -> Option<Vec<(String, bool)>> {
        let mut budget = Budget {
            words: max,
            chars: MAX_EXPANDED_CHARS,
        };
        let mut out = Vec::new();
        for field in split_fields(&self.0, ifs) {
            for expanded in brace_expand(&field, &mut budget, 0)? {
                let glob = expanded
                    .iter()
                    .any(|(c, k)| *k != CharKind::Quoted && matches!(c, '*' | '?' | '['));
                out.push((expanded.iter().map(|(c, _)| *c).collect(), glob));
                if out.len() > max {
                    return None;
                }
            }
        }
        Some(out)
    }
}

/// Most characters one word's brace expansion may produce (and build on the way).
const MAX_EXPANDED_CHARS: usize = 64 * 1024;
/// Most brace groups expanded inside one another in one word.
const MAX_BRACE_GROUPS: usize = 32;

/// What one word's brace expansion may still produce.
struct Budget {
    words: usize,
    chars: usize,
}

impl Budget {
    fn charge(&mut self, chars: usize) -> Option<()> {
        self.chars = self.chars.checked_sub(chars)?;
        Some(())
    }
}

/// The field separators when `IFS` is unset or not assigned in the text.
pub const DEFAULT_IFS: &str = " \t\n";

fn split_fields(chars: &[(char, CharKind)], ifs: &str) -> Vec<Vec<(char, CharKind)>> {
    let splits = |&(c, k): &(char, CharKind)| {
        k == CharKind::Break || k == CharKind::Expanded && ifs.contains(c)
    };
    if !chars.iter().any(splits) {
        return vec![chars.to_vec()];
    }
    chars
        .split(splits)
        .filter(|f| !f.is_empty())
        .map(<[_]>::to_vec)
        .collect()
}

type Field = Vec<(char, CharKind)>;

/// Bash brace expansion over unquoted braces: `{a,b}` and `{1..3}`/`{a..c}` sequences.
/// `None` when the result would exceed `budget` or nest more than `MAX_BRACE_GROUPS` deep.
fn brace_expand(
    chars: &[(char, CharKind)],
    budget: &mut Budget,
    depth: usize,
) -> Option<Vec<Field>> {
    if depth > MAX_BRACE_GROUPS {
        return None;
    }
    budget.charge(chars.len())?;
    let Some((open, close, alternatives)) = find_brace(chars) else {
        return Some(vec![chars.to_vec()]);
    };
    let prefix = &chars[..open];
    let suffix = &chars[close + 1..];
    let mut out = Vec::new();
    for alt in alternatives {
        let mut combined = prefix.to_vec();
        combined.extend(alt);
        combined.extend_from_slice(suffix);
        for expanded in brace_expand(&combined, budget, depth + 1)? {
            out.push(expanded);
            if out.len() > budget.words {
                return None;
            }
        }
    }
    Some(out)
}

type Alternatives = Vec<Vec<(char, CharKind)>>;

/// Finds the leftmost unquoted `{…}` that expands (a comma list or a sequence), returning its
/// bounds and alternatives. One pass with a stack, so unbalanced braces stay linear.
fn find_brace(chars: &[(char, CharKind)]) -> Option<(usize, usize, Alternatives)> {
    let literal = |i: usize, ch: char| {
        chars
            .get(i)
            .is_some_and(|&(c, k)| c == ch && k == CharKind::Literal)
    };
    // Open braces: (position, commas directly inside).
    let mut open: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut best: Option<(usize, usize, Vec<usize>)> = None;
    for i in 0..chars.len() {
        if literal(i, '{') && !(i > 0 && literal(i - 1, '$')) {
            open.push((i, Vec::new()));
        } else if literal(i, ',') {
            if let Some((_, commas)) = open.last_mut() {
                commas.push(i);
            }
        } else if literal(i, '}') {
            let Some((start, commas)) = open.pop() else {
                continue;
            };
            let expands =
                !commas.is_empty() || i - start <= 64 && sequence(&chars[start + 1..i]).is_some();
            if expands && best.as_ref().is_none_or(|(b, _, _)| start < *b) {
                best = Some((start, i, commas));
            }
        }
    }
    let (start, end, commas) = best?;
    if commas.is_empty() {
        return Some((start, end, sequence(&chars[start + 1..end])?));
    }
    let mut alts = Vec::new();
    let mut from = start + 1;
    for c in commas {
        alts.push(chars[from..c].to_vec());
        from = c + 1;
    }
    alts.push(chars[from..end].to_vec());
    Some((start, end, alts))
}

/// `{1..5}`, `{05..10..2}`, `{a..e}` as alternatives; `None` when not a sequence.
fn sequence(inner: &[(char, CharKind)]) -> Option<Alternatives> {
    let text: String = inner.iter().map(|(c, _)| *c).collect();
    let parts: Vec<&str> = text.split("..").collect();
    if !(2..=3).contains(&parts.len()) {
        return None;
    }
    let step: i64 = match parts.get(2) {
        Some(s) => s.parse::<i64>().ok()?.abs().max(1),
        None => 1,
    };
    let lit = |s: String| {
        s.chars()
            .map(|c| (c, CharKind::Literal))
            .collect::<Vec<_>>()
    };
    if let (Ok(a), Ok(b)) = (parts[0].parse::<i64>(), parts[1].parse::<i64>()) {
        let count = (a - b).unsigned_abs() / step as u64;
        if count > 4096 {
            return None;
        }
        let dir = if a <= b { step } else { -step };
        let mut v = Vec::new();
        let mut x = a;
        loop {
            v.push(lit(x.to_string()));
            if x == b || (dir > 0 && x + dir > b) || (dir < 0 && x + dir < b) {
                break;
            }
            x += dir;
        }
        return Some(v);
    }
    let (a, b) = (single_char(parts[0])?, single_char(parts[1])?);
    let (lo, hi) = (a.min(b) as u32, a.max(b) as u32);
    let mut v: Vec<_> = (lo..=hi)
        .step_by(step as usize)
        .filter_map(char::from_u32)
        .map(|c| lit(c.to_string()))
        .collect();
    if a > b {
        v.reverse();
    }
    Some(v)
}

fn single_char(s: &str) -> Option<char> {
    let mut it = s.chars();
    let c = it.next()?;
    (it.next().is_none() && c.is_ascii_alphabetic()).then_some(c)
}

/// Removes backslash escapes from unquoted word text (`\r` → `r`, `\<newline>` → nothing).
/// Returns the text with a kind per char: escaped characters are `Quoted`.
pub fn unescape_unquoted(text: &str, out: &mut Chars) {
    let mut it = text.chars().peekable();
    while let Some(c) = it.next() {
        if c == '\\' {
            match it.next() {
                Some('\n') | None => {}
                Some(next) => out.0.push((next, CharKind::Quoted)),
            }
        } else {
            out.0.push((c, CharKind::Literal));
        }
    }
}

/// Removes the escapes that are special inside double quotes (`\"`, `\\`, `\$`, `` \` ``,
/// `\<newline>`); other backslashes stay.
pub fn unescape_double_quoted(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    let mut it = text.chars().peekable();
    while let Some(c) = it.next() {
        if c == '\\' {
            match it.peek() {
                Some('"' | '\\' | '$' | '`') => {
                    if let Some(n) = it.next() {
                        s.push(n);
                    }
                }
                Some('\n') => {
                    it.next();
                }
                _ => s.push(c),
            }
        } else {
            s.push(c);
        }
    }
    s
}

/// Splits `env -S` text into words (quotes and backslashes, no expansion).
pub fn split_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    cur.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => cur.extend(chars.next()),
                        _ => cur.push(q),
                    }
                }
            }
            '\\' => {
                in_word = true;
                cur.extend(chars.next());
            }
            c if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(text: &str) -> Vec<String> {
        let mut c = Chars::default();
        c.push_str(text, CharKind::Literal);
        c.expand_with(DEFAULT_IFS, 256)
            .unwrap_or_default()
            .into_iter()
            .map(|(s, _)| s)
            .collect()
    }

    #[test]
    fn brace_expansion_table() {
        let cases: &[(&str, &[&str])] = &[
            ("/{bin,etc}", &["/bin", "/etc"]),
            ("{rm,-rf,/}", &["rm", "-rf", "/"]),
            ("a{1..3}", &["a1", "a2", "a3"]),
            ("{c..a}", &["c", "b", "a"]),
            ("x{a,{b,c}}y", &["xay", "xby", "xcy"]),
            ("{}", &["{}"]),
            ("{a}", &["{a}"]),
            ("${x}", &["${x}"]),
        ];
        for (input, want) in cases {
            assert_eq!(expand(input), *want, "{input}");
        }
    }

    #[test]
    fn unescape_table() {
        let mut c = Chars::default();
        unescape_unquoted(r"\rm", &mut c);
        assert_eq!(c.0.iter().map(|(c, _)| *c).collect::<String>(), "rm");
        assert_eq!(unescape_double_quoted(r#"a\"b\n\$"#), "a\"b\\n$");
    }
}
