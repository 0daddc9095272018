//! Recovery from tree-sitter-bash misparses of valid bash: extglob patterns (`ls @(a|b)`), which
//! it reads as an error plus a bogus subshell, and brace-expanded command words
//! (`{rm,-rf,/}`), which it reads as a broken `{ …; }` group. Both are rewritten into text that
//! means the same to bash and parses cleanly; also the short evidence text of a real error.

use tree_sitter::Node;

/// Characters that start an extglob pattern when directly followed by `(`.
const EXTGLOB: &[u8] = b"@!+*?";
/// Characters escaped inside an extglob pattern so it reads as one word.
const SPECIAL: &[u8] = b"()|&;<> \t";

/// One rewrite: insert `text` before byte `at`, or escape the specials of `at..end`.
enum Edit {
    Insert { at: usize, text: &'static str },
    Escape { at: usize, end: usize },
}

impl Edit {
    fn start(&self) -> usize {
        match self {
            Edit::Insert { at, .. } | Edit::Escape { at, .. } => *at,
        }
    }
}

/// The text rewritten so that the misparses above parse as bash reads them, or `None` when the
/// tree has none. Visits at most `max_nodes` nodes (only those inside error subtrees).
pub(crate) fn repair(src: &str, root: Node, max_nodes: usize) -> Option<String> {
    let bytes = src.as_bytes();
    let mut edits = Vec::new();
    let mut stack = vec![root];
    let mut visited = 0usize;
    while let Some(node) = stack.pop() {
        visited += 1;
        if visited > max_nodes {
            break;
        }
        if is_extglob(bytes, node) {
            edits.push(Edit::Escape {
                at: node.start_byte(),
                end: node.end_byte(),
            });
            continue;
        }
        if node.kind() == "{" && !node.is_named() && opens_word(bytes, node.end_byte()) {
            edits.push(Edit::Insert {
                at: node.start_byte(),
                text: "''",
            });
        }
        if node.has_error() {
            let mut cursor = node.walk();
            stack.extend(node.children(&mut cursor));
        }
    }
    (!edits.is_empty()).then(|| apply(src, edits))
}

/// A `subshell` glued to a preceding word that ends in an extglob character (`@(a|b)`,
/// `x*(y)`, `!(keep)`): bash never runs it; it is a pattern (or, without `extglob`, a syntax
/// error). A `!` keyword before a subshell is an anonymous token, so `!(cmd)` is not matched.
fn is_extglob(bytes: &[u8], node: Node) -> bool {
    if node.kind() != "subshell" {
        return false;
    }
    let start = node.start_byte();
    let mut prev = node.prev_sibling();
    while let Some(p) = prev.filter(|p| p.is_missing()) {
        prev = p.prev_sibling();
    }
    let Some(prev) = prev else { return false };
    (prev.is_named() || prev.is_error())
        && prev.end_byte() == start
        && start > 0
        && bytes.get(start - 1).is_some_and(|b| EXTGLOB.contains(b))
}

/// True when the byte at `at` continues a word (a `{` followed by it is not a group opener).
fn opens_word(bytes: &[u8], at: usize) -> bool {
    bytes
        .get(at)
        .is_some_and(|b| !b.is_ascii_whitespace() && !b";&|()<>".contains(b))
}

fn apply(src: &str, mut edits: Vec<Edit>) -> String {
    edits.sort_by_key(Edit::start);
    let bytes = src.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(src.len() + 16);
    let mut pos = 0;
    for edit in edits {
        if edit.start() < pos {
            continue;
        }
        out.extend_from_slice(bytes.get(pos..edit.start()).unwrap_or_default());
        match edit {
            Edit::Insert { at, text } => {
                out.extend_from_slice(text.as_bytes());
                pos = at;
            }
            Edit::Escape { at, end } => {
                for &b in bytes.get(at..end).unwrap_or_default() {
                    if SPECIAL.contains(&b) {
                        out.push(b'\\');
                    }
                    out.push(b);
                }
                pos = end;
            }
        }
    }
    out.extend_from_slice(bytes.get(pos..).unwrap_or_default());
    // Only ASCII was inserted, at node boundaries, so the result is still UTF-8.
    String::from_utf8_lossy(&out).into_owned()
}

/// Pipe operators (`|`, `|&`, not `||`) outside quotes and comments: a cheap pre-parse count
/// that bounds tree-sitter's worst case on long pipelines.
pub(crate) fn pipe_count(src: &str) -> usize {
    let bytes = src.as_bytes();
    let (mut count, mut i) = (0, 0);
    let (mut single, mut double, mut comment) = (false, false, false);
    // Heredocs whose bodies start at the next newline: (delimiter, strip leading tabs).
    let mut pending: Vec<(Vec<u8>, bool)> = Vec::new();
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' if !single => i += 1,
            b'\n' => {
                comment = false;
                if !single && !double {
                    // Heredoc bodies are data: skip them whole.
                    for (delimiter, strip) in pending.drain(..) {
                        i = skip_heredoc_body(bytes, i + 1, &delimiter, strip);
                    }
                }
            }
            _ if comment => {}
            b'\'' if !double => single = !single,
            b'"' if !single => double = !double,
            b'#' if !single && !double && (i == 0 || bytes[i - 1].is_ascii_whitespace()) => {
                comment = true
            }
            b'<' if !single
                && !double
                && bytes.get(i + 1) == Some(&b'<')
                && bytes.get(i + 2) != Some(&b'<') =>
            {
                let (delimiter, strip, end) = heredoc_delimiter(bytes, i + 2);
                if !delimiter.is_empty() {
                    pending.push((delimiter, strip));
                }
                i = end.saturating_sub(1).max(i + 1);
            }
            b'|' if !single && !double => {
                if bytes.get(i + 1) == Some(&b'|') {
                    i += 1;
                } else {
                    count += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    count
}

/// The delimiter word of a heredoc starting at `at` (just after `<<`), unquoted, whether `<<-`
/// strips tabs, and where the word ends.
fn heredoc_delimiter(bytes: &[u8], mut at: usize) -> (Vec<u8>, bool, usize) {
    let strip = bytes.get(at) == Some(&b'-');
    if strip {
        at += 1;
    }
    while bytes.get(at).is_some_and(|b| *b == b' ' || *b == b'\t') {
        at += 1;
    }
    let mut word = Vec::new();
    let mut quote = None;
    while let Some(&b) = bytes.get(at) {
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => word.push(b),
            None if b == b'\'' || b == b'"' => quote = Some(b),
            None if b == b'\\' => {}
            None if b.is_ascii_whitespace() || b";|&<>()".contains(&b) => break,
            None => word.push(b),
        }
        at += 1;
    }
    (word, strip, at)
}

/// The index of the newline ending a heredoc body that starts at `start`, or the end of input.
fn skip_heredoc_body(bytes: &[u8], start: usize, delimiter: &[u8], strip: bool) -> usize {
    let mut line_start = start;
    while line_start < bytes.len() {
        let line_end = bytes[line_start..]
            .iter()
            .position(|b| *b == b'\n')
            .map_or(bytes.len(), |p| line_start + p);
        let mut line = &bytes[line_start..line_end];
        if strip {
            while line.first() == Some(&b'\t') {
                line = &line[1..];
            }
        }
        if line == delimiter {
            return line_end;
        }
        line_start = line_end + 1;
    }
    bytes.len()
}

/// A short text near the first syntax error, for the signal's evidence; `None` when the only
/// errors are misparses of valid bash (the `<>` read-write redirection).
pub(crate) fn error_snippet(src: &str, root: Node) -> Option<String> {
    let mut cursor = root.walk();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if is_read_write_redirect(src, node) {
            continue;
        }
        if node.is_error() || node.is_missing() {
            let start = node.start_byte();
            let snippet: String = src
                .get(start..)
                .unwrap_or_default()
                .chars()
                .take(40)
                .collect();
            return Some(if node.is_missing() {
                format!("missing {} at byte {start}", node.kind())
            } else {
                format!("near byte {start}: {snippet}")
            });
        }
        if node.has_error() {
            let children: Vec<Node> = node.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
    }
    None
}

/// tree-sitter-bash reads `3<> file` as `<`, an `ERROR` holding `>`, then the file.
pub(crate) fn is_read_write_redirect(src: &str, node: Node) -> bool {
    node.is_error()
        && src.get(node.start_byte()..node.end_byte()) == Some(">")
        && node.prev_sibling().is_some_and(|p| p.kind() == "<")
        && node.parent().is_some_and(|p| p.kind() == "file_redirect")
}
