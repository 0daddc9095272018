//! The plain command line: one simple command of plain words (`true`, `uname -a`,
//! `systemctl status nginx`), which needs no grammar. Such a line is lowered without
//! tree-sitter: for these lines the parse tables were most of the pages the gate touched.
//!
//! The test is deliberately narrow. Every byte is an ASCII letter or digit, one of `_ . / , : -`,
//! a space or a tab (not `@`, `%` or `+`: tree-sitter-bash misreads them in some positions, and
//! its parse-error report and recovery must stay what they are); the first word is not one of
//! bash's reserved words or declaration builtins. Nothing else in bash gives such a line a meaning
//! beyond its words: no quoting, expansion, assignment, redirection, operator, comment, glob or
//! brace, and no newline. Anything else goes to tree-sitter. `tests/integration/parse_plain.rs` checks both
//! halves: the table of lines that must and must not take this path, and, over generated lines,
//! that the IR is the one the grammar path produces.

/// Bytes a plain word may contain.
fn is_plain_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'/' | b',' | b':' | b'-')
}

/// First words tree-sitter-bash gives a structure of their own (reserved words, and the
/// builtins it parses as declaration or unset commands).
const STRUCTURAL: &[&str] = &[
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do",
    "done", "in", "function", "time", "coproc", "declare", "typeset", "export", "readonly",
    "local", "unset", "unsetenv",
];

/// The words of `text` with the byte offset of each, when it is a plain command line; `None`
/// when it is anything else (including a line with no words).
pub fn plain_words(text: &str) -> Option<Vec<(usize, &str)>> {
    let bytes = text.as_bytes();
    if !bytes
        .iter()
        .all(|&b| is_plain_byte(b) || b == b' ' || b == b'\t')
    {
        return None;
    }
    let mut words = Vec::new();
    let mut offset = 0;
    for word in text.split([' ', '\t']) {
        if !word.is_empty() {
            words.push((offset, word));
        }
        offset += word.len() + 1;
    }
    let (_, first) = words.first()?;
    if STRUCTURAL.contains(first) {
        return None;
    }
    Some(words)
}
