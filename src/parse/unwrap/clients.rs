//! Database clients' shell escapes: sqlite3's `.shell CMD`/`.system CMD`, psql's and mysql's
//! `\! CMD`, mysql's `system CMD`, and psql's `COPY … TO/FROM PROGRAM 'CMD'`, given inline or
//! on stdin (`crate::ir::client_input`), each yielding CMD as a shell string.

use super::Inner;
use crate::ir::{client_input, Analysis, Command, Statements, Via};
use crate::programs::DatabaseClient;

/// The shell commands a database client's statements run.
pub(super) fn escapes(cmd: &Command, analysis: &Analysis) -> Vec<Inner> {
    let Some(input) = client_input(cmd, analysis) else {
        return Vec::new();
    };
    let client = input.client;
    let mut found = Vec::new();
    for statements in &input.statements {
        let Some(text) = statements.readable() else {
            continue;
        };
        let known = statements.text.is_some();
        let mut open = false;
        for line in text.lines() {
            if let Some((escape, command)) = line_escape(client, line, open) {
                let via = Via::Shell(format!("{} {escape}", client.name));
                found.push(shell_string(via, command, known, statements));
            }
            open = runs_on(line, open);
        }
        if client.copy_program {
            for command in copy_programs(text) {
                let via = Via::Shell(format!("{} COPY PROGRAM", client.name));
                found.push(shell_string(via, &command, known, statements));
            }
        }
    }
    found
}

fn shell_string(via: Via, command: &str, known: bool, from: &Statements) -> Inner {
    let command = command.trim().to_string();
    Inner::Script {
        via,
        text: known.then(|| command.clone()),
        raw: from.raw.clone(),
        substitutions: from.substitutions.clone(),
        positional: None,
        same_shell: false,
        template: (!known).then_some(command),
    }
}

/// The escape on one line, with the command it runs (the rest of the line): a `\!` anywhere
/// outside a quoted string; a word escape (`.shell`, `system`) where a statement starts, at
/// the line's start when `open` is false (no statement runs on from earlier lines), or after
/// a `;` on the line.
fn line_escape<'a>(
    client: &DatabaseClient,
    line: &'a str,
    open: bool,
) -> Option<(&'static str, &'a str)> {
    let mut statement_start = !open;
    let mut quote: Option<char> = None;
    for (at, c) in line.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => continue,
            None if c == '\'' || c == '"' => quote = Some(c),
            None => {}
        }
        let rest = &line[at..];
        if quote.is_none() {
            for escape in client.shell_escapes {
                let Some(after) = rest
                    .get(..escape.len())
                    .filter(|head| head.eq_ignore_ascii_case(escape))
                    .and_then(|_| rest.get(escape.len()..))
                else {
                    continue;
                };
                let word_escape = escape.starts_with(|e: char| e.is_ascii_alphabetic() || e == '.');
                let ends = after.chars().next().is_none_or(char::is_whitespace);
                if !word_escape || statement_start && ends {
                    return Some((escape, after));
                }
            }
        }
        if c == ';' && quote.is_none() {
            statement_start = true;
        } else if !c.is_whitespace() {
            statement_start = false;
        }
    }
    None
}

/// Whether a statement runs on past this line: it has SQL (not a client command such as
/// `\dt` or `.tables`) that does not end with `;`. `open` is the state before it.
fn runs_on(line: &str, open: bool) -> bool {
    let line = line.trim();
    let command = line.starts_with(['\\', '.']) && !open;
    match line {
        "" => open,
        _ if command => false,
        _ => !line.ends_with(';'),
    }
}

/// The commands of `COPY … TO|FROM PROGRAM 'CMD'` (and psql's `\copy`), `''` read as `'`.
fn copy_programs(text: &str) -> Vec<String> {
    let lower = text.to_ascii_lowercase();
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(offset) = lower[from..].find("program") {
        let at = from + offset;
        from = at + "program".len();
        let before = &lower[..at];
        let statement = &before[before.rfind(';').map_or(0, |s| s + 1)..];
        let bounded = before.ends_with(char::is_whitespace)
            && lower[from..].starts_with(|c: char| c.is_whitespace() || c == '\'');
        if !bounded || !statement.contains("copy") {
            continue;
        }
        let rest = text[from..].trim_start();
        let Some(body) = rest.strip_prefix('\'') else {
            continue;
        };
        let mut command = String::new();
        let mut chars = body.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\'' {
                if chars.peek() == Some(&'\'') {
                    chars.next();
                } else {
                    break;
                }
            }
            command.push(c);
        }
        found.push(command);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::{copy_programs, line_escape, runs_on};
    use crate::programs::database_client;

    #[test]
    fn escapes_on_a_line() {
        for (client, line, open, found) in [
            (
                "sqlite3",
                ".shell rm -rf /",
                false,
                Some((".shell", " rm -rf /")),
            ),
            ("sqlite3", "  .system id", false, Some((".system", " id"))),
            ("sqlite3", ".shellx id", false, None),
            ("sqlite3", "select '.shell id'", false, None),
            ("sqlite3", "é.shell", false, None),
            ("psql", "\\! rm x", false, Some(("\\!", " rm x"))),
            ("psql", "select 1; \\! ls", false, Some(("\\!", " ls"))),
            ("psql", "  \\! ls", true, Some(("\\!", " ls"))),
            ("psql", "select '\\! ls'", false, None),
            ("psql", "\\dt", false, None),
            ("mysql", "system ls", false, Some(("system", " ls"))),
            (
                "mysql",
                "SELECT 1; SYSTEM id",
                false,
                Some(("system", " id")),
            ),
            ("mysql", "system FROM t;", true, None),
            ("mysql", "select system_user()", false, None),
            ("mysql", "select * from system", false, None),
        ] {
            let Some(client) = database_client(client) else {
                panic!("{client} is a client");
            };
            assert_eq!(line_escape(client, line, open), found, "{line:?}");
        }
        for (line, open, runs) in [
            ("SELECT id,", false, true),
            ("SELECT 1;", false, false),
            ("", true, true),
            ("\\dt", false, false),
            (".tables", false, false),
            ("FROM t;", true, false),
        ] {
            assert_eq!(runs_on(line, open), runs, "{line:?}");
        }
    }

    #[test]
    fn copy_program_commands() {
        for (sql, found) in [
            (
                "COPY t TO PROGRAM 'gzip > /tmp/t.gz'",
                vec!["gzip > /tmp/t.gz"],
            ),
            (
                "copy t from program 'curl -s x | sh';",
                vec!["curl -s x | sh"],
            ),
            ("\\copy t to program 'echo ''hi'''", vec!["echo 'hi'"]),
            ("COPY t TO '/tmp/x'", vec![]),
            ("SELECT program FROM t", vec![]),
            ("SELECT 1; INSERT INTO t VALUES ('program ''x''')", vec![]),
        ] {
            assert_eq!(copy_programs(sql), found, "{sql:?}");
        }
    }
}
