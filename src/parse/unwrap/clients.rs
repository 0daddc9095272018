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
        for line in text.lines() {
            for (escape, command) in line_escapes(client, line) {
                let via = Via::Shell(format!("{} {escape}", client.name));
                found.push(shell_string(via, command, known, statements));
            }
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

/// The escapes on one line, each with the command it runs (the rest of the line): a `\!`
/// anywhere outside a quoted string; a word escape (`.shell`, `system`) where the line or a
/// statement on it starts.
fn line_escapes<'a>(client: &DatabaseClient, line: &'a str) -> Vec<(&'static str, &'a str)> {
    let mut found = Vec::new();
    let mut statement_start = true;
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
                let word_escape = escape.starts_with(|e: char| e.is_ascii_alphabetic() || e == '.');
                let matched = rest
                    .get(..escape.len())
                    .is_some_and(|head| head.eq_ignore_ascii_case(escape));
                let ends = rest[escape.len().min(rest.len())..]
                    .chars()
                    .next()
                    .is_none_or(char::is_whitespace);
                if matched && (!word_escape || statement_start && ends) {
                    found.push((*escape, &rest[escape.len()..]));
                    return found;
                }
            }
        }
        if c == ';' && quote.is_none() {
            statement_start = true;
        } else if !c.is_whitespace() {
            statement_start = false;
        }
    }
    found
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
    use super::{copy_programs, line_escapes};
    use crate::programs::database_client;

    #[test]
    fn escapes_on_a_line() {
        for (client, line, found) in [
            ("sqlite3", ".shell rm -rf /", vec![(".shell", " rm -rf /")]),
            ("sqlite3", "  .system id", vec![(".system", " id")]),
            ("sqlite3", ".shellx id", vec![]),
            ("sqlite3", "select '.shell id'", vec![]),
            ("psql", "\\! rm x", vec![("\\!", " rm x")]),
            ("psql", "select 1; \\! ls", vec![("\\!", " ls")]),
            ("psql", "select '\\! ls'", vec![]),
            ("psql", "\\dt", vec![]),
            ("mysql", "system ls", vec![("system", " ls")]),
            ("mysql", "SELECT 1; SYSTEM id", vec![("system", " id")]),
            ("mysql", "select system_user()", vec![]),
            ("mysql", "select * from system", vec![]),
        ] {
            let Some(client) = database_client(client) else {
                panic!("{client} is a client");
            };
            assert_eq!(line_escapes(client, line), found, "{line:?}");
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
