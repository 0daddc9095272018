//! Database clients: statements that drop or empty a database (SQL `DROP`/`TRUNCATE`/`DELETE`
//! without `WHERE`, Redis `FLUSHALL`, MongoDB `dropDatabase()`), given inline or on stdin as
//! `crate::ir::client_input` finds them, and the programs that drop one (`dropdb`).

use super::{Family, Severity, Signal, Spec};
use crate::ir::{client_input, Analysis, Command};
use crate::programs::Dialect;

/// The family of every entry declared below.
const FAMILY: Family = Family::Databases;

spec!(
    DATABASE_DESTRUCTIVE,
    "DATABASE_DESTRUCTIVE",
    High,
    "drops or empties a database",
    "A database client is given a statement that destroys data: SQL `DROP DATABASE|SCHEMA|TABLE|KEYSPACE|COLLECTION`, `DROP OWNED`, `TRUNCATE`, `DELETE FROM` without `WHERE`, `ALTER TABLE … DROP` (a column or partition), through `psql -c`, `mysql -e`, `sqlite3 DB SQL`, `clickhouse-client --query`, `cqlsh -e`, `duckdb -c` or a heredoc, here-string or static pipe; Redis `FLUSHALL`/`FLUSHDB`; MongoDB `dropDatabase()`, `.drop()`, `deleteMany({})`, `remove({})` in `mongosh --eval`; or `dropdb`, `mysqladmin drop`. Text in SQL string literals and comments does not count. `args` names the statement."
);

pub static SPECS: &[&Spec] = &[&DATABASE_DESTRUCTIVE];

pub fn detect(a: &Analysis, out: &mut Vec<Signal>) {
    for (i, cmd) in a.commands.iter().enumerate() {
        if let Some(evidence) = destroys(cmd, a) {
            out.push(DATABASE_DESTRUCTIVE.on(i, cmd, vec![evidence]));
        }
    }
}

/// What in `cmd` drops or empties a database, if anything does.
fn destroys(cmd: &Command, a: &Analysis) -> Option<String> {
    match cmd.base()? {
        "dropdb" => {
            let asks = cmd.has_any_arg(&["--help", "-?", "--version", "-V"]);
            return (!asks).then(|| "dropdb".to_string());
        }
        "mysqladmin" => {
            let drop = cmd.arg_values().any(|v| v.eq_ignore_ascii_case("drop"));
            return drop.then(|| "mysqladmin drop".to_string());
        }
        _ => {}
    }
    let input = client_input(cmd, a)?;
    input.statements.iter().find_map(|s| {
        let text = s.readable()?;
        match input.client.dialect {
            Dialect::Sql => sql_destructive(text),
            Dialect::Redis => redis_destructive(text),
            Dialect::Mongo => mongo_destructive(text),
        }
    })
}

/// A piece of SQL text: a keyword or name (upper-cased), a literal or quoted identifier
/// (opaque), or one punctuation character.
#[derive(Debug, PartialEq)]
enum Token {
    Word(String),
    Literal,
    Punct(char),
}

/// SQL text as tokens, without comments; `'…'`, `"…"` and `` `…` `` are opaque literals, as is
/// a shell expansion left in a template (`$T`, `${T}`).
fn sql_tokens(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        let next = chars.get(i + 1).copied();
        match c {
            '\'' | '"' | '`' => {
                i += 1;
                while let Some(&d) = chars.get(i) {
                    i += 1;
                    if d == c {
                        if chars.get(i) == Some(&c) {
                            i += 1;
                        } else {
                            break;
                        }
                    }
                }
                tokens.push(Token::Literal);
            }
            '-' if next == Some('-') => {
                while chars.get(i).is_some_and(|&d| d != '\n') {
                    i += 1;
                }
            }
            '/' if next == Some('*') => {
                i += 2;
                while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                    i += 1;
                }
                i += 2;
            }
            '$' if next.is_some_and(|n| n == '{' || n == '_' || n.is_alphanumeric()) => {
                i += 1;
                if chars.get(i) == Some(&'{') {
                    while chars.get(i).is_some_and(|&d| d != '}') {
                        i += 1;
                    }
                    i += 1;
                } else {
                    while chars
                        .get(i)
                        .is_some_and(|&d| d == '_' || d.is_alphanumeric())
                    {
                        i += 1;
                    }
                }
                tokens.push(Token::Literal);
            }
            _ if c == '_' || c.is_alphanumeric() => {
                let start = i;
                while chars
                    .get(i)
                    .is_some_and(|&d| d == '_' || d.is_alphanumeric())
                {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                tokens.push(Token::Word(word.to_ascii_uppercase()));
            }
            _ if c.is_whitespace() => i += 1,
            _ => {
                tokens.push(Token::Punct(c));
                i += 1;
            }
        }
    }
    tokens
}

/// What `DROP` may destroy (the object named next).
const DROPPED: &[&str] = &[
    "DATABASE",
    "SCHEMA",
    "TABLE",
    "KEYSPACE",
    "COLLECTION",
    "OWNED",
];

/// What `ALTER TABLE … DROP` may remove without losing data.
const ALTER_DROP_KEEPS: &[&str] = &[
    "CONSTRAINT",
    "INDEX",
    "KEY",
    "PRIMARY",
    "FOREIGN",
    "DEFAULT",
    "NOT",
    "CHECK",
    "TRIGGER",
    "IDENTITY",
    "EXPRESSION",
    "SYSTEM",
    "PERIOD",
];

/// The first statement of `text` that drops or empties data, named.
fn sql_destructive(text: &str) -> Option<String> {
    let tokens = sql_tokens(text);
    tokens
        .split(|t| *t == Token::Punct(';'))
        .find_map(statement_destructive)
}

fn statement_destructive(st: &[Token]) -> Option<String> {
    let word = |k: usize| match st.get(k) {
        Some(Token::Word(w)) => Some(w.as_str()),
        _ => None,
    };
    let has = |w: &str| st.iter().any(|t| matches!(t, Token::Word(x) if x == w));
    match word(0) {
        // Privileges name statements without running them.
        Some("GRANT" | "REVOKE") => return None,
        Some("EXPLAIN" | "DESCRIBE" | "DESC") if !has("ANALYZE") && !has("ANALYSE") => return None,
        _ => {}
    }
    let altering_table = word(0) == Some("ALTER") && word(1) == Some("TABLE");
    for k in 0..st.len() {
        match word(k) {
            Some("DROP") => match word(k + 1) {
                Some(object) if DROPPED.contains(&object) => return Some(format!("DROP {object}")),
                Some(kept) if altering_table && ALTER_DROP_KEEPS.contains(&kept) => {}
                _ if altering_table && st.get(k + 1).is_some() => {
                    return Some("ALTER TABLE … DROP".to_string())
                }
                _ => {}
            },
            Some("TRUNCATE") if st.get(k + 1) != Some(&Token::Punct('(')) => {
                return Some("TRUNCATE".to_string())
            }
            Some("DELETE") if word(k + 1) == Some("FROM") => {
                let filtered = st[k..]
                    .iter()
                    .any(|t| matches!(t, Token::Word(x) if x == "WHERE"));
                if !filtered {
                    return Some("DELETE FROM without WHERE".to_string());
                }
            }
            _ => {}
        }
    }
    None
}

/// `FLUSHALL`/`FLUSHDB` as the command of a line (an operand list, or a line on stdin).
fn redis_destructive(text: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let command = line.split_whitespace().next()?.trim_matches(['"', '\'']);
        ["FLUSHALL", "FLUSHDB"]
            .into_iter()
            .find(|f| command.eq_ignore_ascii_case(f))
            .map(str::to_string)
    })
}

/// MongoDB shell calls that drop a database or collection or delete every document.
const MONGO_DESTROYERS: &[&str] = &["dropDatabase(", ".drop(", "deleteMany({})", "remove({})"];

fn mongo_destructive(text: &str) -> Option<String> {
    let code = js_code(text);
    MONGO_DESTROYERS
        .iter()
        .find(|m| code.contains(**m))
        .map(|m| m.to_string())
}

/// JavaScript without comments or whitespace, each string literal left as `""`.
fn js_code(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut code = String::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        let next = chars.get(i + 1).copied();
        match c {
            '\'' | '"' | '`' => {
                i += 1;
                while let Some(&d) = chars.get(i) {
                    i += if d == '\\' { 2 } else { 1 };
                    if d == c {
                        break;
                    }
                }
                code.push_str("\"\"");
            }
            '/' if next == Some('/') => {
                while chars.get(i).is_some_and(|&d| d != '\n') {
                    i += 1;
                }
            }
            '/' if next == Some('*') => {
                i += 2;
                while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                    i += 1;
                }
                i += 2;
            }
            _ if c.is_whitespace() => i += 1,
            _ => {
                code.push(c);
                i += 1;
            }
        }
    }
    code
}

#[cfg(test)]
mod tests {
    use super::{mongo_destructive, redis_destructive, sql_destructive};

    #[test]
    fn sql_statements_that_destroy() {
        for (sql, found) in [
            ("DROP TABLE users", Some("DROP TABLE")),
            ("drop database prod;", Some("DROP DATABASE")),
            ("DROP SCHEMA app CASCADE", Some("DROP SCHEMA")),
            ("DROP TABLE IF EXISTS \"Users\"", Some("DROP TABLE")),
            ("DROP KEYSPACE shop", Some("DROP KEYSPACE")),
            ("DROP OWNED BY app", Some("DROP OWNED")),
            ("select 1; Drop Table t", Some("DROP TABLE")),
            ("TRUNCATE orders", Some("TRUNCATE")),
            ("truncate table orders restart identity", Some("TRUNCATE")),
            ("DELETE FROM users", Some("DELETE FROM without WHERE")),
            ("delete from users;", Some("DELETE FROM without WHERE")),
            (
                "DELETE FROM t; SELECT 1 WHERE true",
                Some("DELETE FROM without WHERE"),
            ),
            (
                "ALTER TABLE users DROP COLUMN email",
                Some("ALTER TABLE … DROP"),
            ),
            ("alter table users drop email", Some("ALTER TABLE … DROP")),
            (
                "ALTER TABLE t DROP PARTITION p0",
                Some("ALTER TABLE … DROP"),
            ),
            ("DROP TABLE $T", Some("DROP TABLE")),
            ("BEGIN; TRUNCATE a, b; COMMIT;", Some("TRUNCATE")),
            ("DO $$ BEGIN DROP TABLE x; END $$", Some("DROP TABLE")),
            (
                "EXPLAIN ANALYZE DELETE FROM t",
                Some("DELETE FROM without WHERE"),
            ),
            ("SELECT 1 /* c */; DROP TABLE t", Some("DROP TABLE")),
            ("SELECT * FROM users", None),
            ("\\dt", None),
            ("\\l", None),
            ("EXPLAIN SELECT * FROM t", None),
            ("EXPLAIN DELETE FROM t", None),
            ("DELETE FROM t WHERE id=1", None),
            ("delete from t where id in (select id from u)", None),
            ("SELECT 'drop table x'", None),
            ("SELECT \"drop table x\"", None),
            ("SELECT 1 -- DROP TABLE x", None),
            ("SELECT 1 /* DROP TABLE x */", None),
            ("SELECT TRUNCATE(1.55, 1)", None),
            ("GRANT DELETE, TRUNCATE ON t TO app", None),
            ("REVOKE DROP ON db.* FROM app", None),
            ("ALTER TABLE t DROP CONSTRAINT t_pkey", None),
            ("ALTER TABLE t ALTER COLUMN c DROP DEFAULT", None),
            ("ALTER TABLE t ALTER COLUMN c DROP NOT NULL", None),
            ("ALTER TABLE t DROP INDEX i", None),
            ("DROP INDEX idx_users", None),
            ("DROP VIEW v", None),
            ("CREATE TABLE drop_log (id int)", None),
            ("SELECT drop FROM t", None),
            ("ALTER TABLE t ADD COLUMN c int", None),
            ("", None),
        ] {
            assert_eq!(sql_destructive(sql).as_deref(), found, "{sql:?}");
        }
    }

    #[test]
    fn redis_and_mongo_commands_that_destroy() {
        for (text, found) in [
            ("FLUSHALL", Some("FLUSHALL")),
            ("flushdb async", Some("FLUSHDB")),
            ("PING\nflushall\n", Some("FLUSHALL")),
            ("\"FLUSHALL\"", Some("FLUSHALL")),
            ("GET flushall", None),
            ("INFO", None),
            ("", None),
        ] {
            assert_eq!(redis_destructive(text).as_deref(), found, "{text:?}");
        }
        for (js, found) in [
            ("db.dropDatabase()", Some("dropDatabase(")),
            ("db.users.drop()", Some(".drop(")),
            ("db.getCollection('x').drop()", Some(".drop(")),
            ("db.users.deleteMany( { } )", Some("deleteMany({})")),
            ("db.users.remove({})", Some("remove({})")),
            ("db.stats()", None),
            ("db.users.deleteMany({ age: 3 })", None),
            ("db.users.deleteMany({'a': 1})", None),
            ("print('db.dropDatabase()')", None),
            ("// db.dropDatabase()\ndb.stats()", None),
        ] {
            assert_eq!(mongo_destructive(js).as_deref(), found, "{js:?}");
        }
    }
}
