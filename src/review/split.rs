//! Splits a script (or a history file) into its steps: each top-level complete command of the
//! tree-sitter-bash parse, with its exact source text and first line. Comments are not steps;
//! a top-level parse error is a step of its own (so its analysis reports it).

use tree_sitter::Parser;

/// One step of a script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The step's source text, as written (heredoc bodies included).
    pub text: String,
    /// 1-based line where it starts.
    pub line: usize,
}

impl Step {
    /// The first non-empty line, for the block header.
    pub fn first_line(&self) -> &str {
        self.text
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or_default()
    }
}

/// The steps of `text`, in order. Text over `max_bytes` is one step (its analysis then reports
/// the size limit and the gate fails closed on it).
pub fn steps(text: &str, max_bytes: usize) -> Vec<Step> {
    let text = strip_zsh_history(text);
    if text.trim().is_empty() {
        return Vec::new();
    }
    let whole = || {
        vec![Step {
            text: text.clone(),
            line: 1,
        }]
    };
    if text.len() > max_bytes {
        return whole();
    }
    let mut parser = Parser::new();
    if parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .is_err()
    {
        return whole();
    }
    let Some(tree) = parser.parse(&text, None) else {
        return whole();
    };
    let root = tree.root_node();
    let mut cursor = root.walk();
    let mut out: Vec<Step> = Vec::new();
    for node in root.named_children(&mut cursor) {
        if node.kind() == "comment" {
            continue;
        }
        let mut end = node.end_byte();
        // A heredoc body is a later sibling in some grammar versions: keep it with its command.
        if let Some(last) = out.last_mut() {
            if node.kind() == "heredoc_body" {
                if let Some(body) = text.get(node.start_byte()..end) {
                    last.text.push('\n');
                    last.text.push_str(body);
                }
                continue;
            }
        }
        end = end.min(text.len());
        let Some(source) = text.get(node.start_byte()..end) else {
            continue;
        };
        if source.trim().is_empty() {
            continue;
        }
        out.push(Step {
            text: source.to_string(),
            line: node.start_position().row + 1,
        });
    }
    out
}

/// zsh's extended history prefixes every entry with `: <epoch>:<seconds>;`.
fn strip_zsh_history(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        out.push_str(zsh_entry(line).unwrap_or(line));
    }
    out
}

fn zsh_entry(line: &str) -> Option<&str> {
    let rest = line.strip_prefix(": ")?;
    let (stamp, command) = rest.split_once(';')?;
    let (epoch, elapsed) = stamp.split_once(':')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(epoch) && digits(elapsed)).then_some(command)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(script: &str) -> Vec<String> {
        steps(script, 1 << 20).into_iter().map(|s| s.text).collect()
    }

    #[test]
    fn steps_table() {
        let cases: &[(&str, &[&str])] = &[
            ("", &[]),
            ("# only a comment\n\n", &[]),
            ("ls\nrm -rf /tmp/x\n", &["ls", "rm -rf /tmp/x"]),
            ("a; b && c\n", &["a", "b && c"]),
            (
                "if true; then\n  rm -rf /\nfi\necho done\n",
                &["if true; then\n  rm -rf /\nfi", "echo done"],
            ),
            ("f() {\n  ls\n}\nf\n", &["f() {\n  ls\n}", "f"]),
            ("#1700000000\nls -la\n", &["ls -la"]),
            (
                ": 1700000000:0;sudo reboot\n: 1700000001:0;ls\n",
                &["sudo reboot", "ls"],
            ),
            ("curl x | sh # fetch\n", &["curl x | sh"]),
        ];
        for (script, expected) in cases {
            assert_eq!(texts(script), *expected, "{script:?}");
        }
    }

    #[test]
    fn heredoc_body_stays_with_its_command() {
        let got = texts("cat <<EOF > /etc/x\nrm -rf /\nEOF\nls\n");
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(
            got[0].starts_with("cat <<EOF") && got[0].contains("rm -rf /"),
            "{got:?}"
        );
        assert_eq!(got[1], "ls");
    }

    #[test]
    fn lines_and_first_line() {
        let s = steps("\n\nif true; then\n  x\nfi\n", 1 << 20);
        assert_eq!((s[0].line, s[0].first_line()), (3, "if true; then"));
    }
}
