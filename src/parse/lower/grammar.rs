//! tree-sitter-bash under the parse budget (steps counted, a wall-clock backstop): the parser, made once per analysis, and the decoding
//! that keeps non-ASCII code points away from the grammar's C `ctype` calls.

use super::Lowerer;
use tree_sitter::{Parser, Tree};

impl Lowerer<'_> {
    /// Parses `text` under the parse budget; `None` (recorded) when it ran out.
    pub(super) fn parse(&mut self, text: &str) -> Option<Tree> {
        let budget = &mut self.budget;
        let mut cancel = |_: &tree_sitter::ParseState| budget.step();
        let options = tree_sitter::ParseOptions::new().progress_callback(&mut cancel);
        let bytes = text.as_bytes();
        let mut read = |offset: usize, _| bytes.get(offset..).unwrap_or_default();
        let parser = self.parser.get_or_insert_with(|| {
            let mut parser = Parser::new();
            // The grammar is compiled in; a version mismatch is caught by the tests, and a parser
            // without a language makes `parse` return `None`, which is reported as a limit.
            let _ = parser.set_language(&tree_sitter_bash::LANGUAGE.into());
            parser
        });
        let tree =
            parser.parse_custom_encoding::<CtypeSafeUtf8, _, _>(&mut read, None, Some(options));
        if tree.is_none() {
            self.limit(self.budget.crossed());
            self.stopped = true;
        }
        tree
    }
}

/// UTF-8 as tree-sitter-bash's lexer may see it. Its external scanner passes the lookahead code
/// point to C's `isdigit`, `isalpha` and friends, which are only defined for -1..=255: a code point
/// above that read outside glibc's tables and crashed the process (found by
/// `analysis_never_panics_on_arbitrary_bytes`). Such code points reach the lexer as U+00E9, a
/// letter above ASCII like them: no shell syntax is outside ASCII, byte offsets stay those of the
/// real text, and node text is still read from the real text.
struct CtypeSafeUtf8;

impl tree_sitter::Decode for CtypeSafeUtf8 {
    fn decode(bytes: &[u8]) -> (i32, u32) {
        let len = match bytes.first() {
            None => return (-1, 0),
            Some(b) if *b < 0x80 => return (i32::from(*b), 1),
            Some(b) if *b >= 0xF0 => 4,
            Some(b) if *b >= 0xE0 => 3,
            Some(_) => 2,
        };
        let decoded = bytes
            .get(..len)
            .and_then(|b| std::str::from_utf8(b).ok())
            .and_then(|s| s.chars().next());
        match decoded {
            Some(c) if u32::from(c) <= 0xFF => (u32::from(c) as i32, len as u32),
            Some(_) => (0xE9, len as u32),
            None => (-1, 1),
        }
    }
}
