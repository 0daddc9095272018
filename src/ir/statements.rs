//! What a database client is given to run: the statements in its options and operands and, when
//! none are, on its stdin (heredoc, here-string, static pipe), read by the client table in
//! `crate::programs`. Signals judge the statements; parse follows the clients' shell escapes.

use super::analysis::Analysis;
use super::command::{Command, Stdin};
use super::static_text::piped_text;
use super::word::Word;
use crate::programs::{database_client, DatabaseClient, Dialect};

/// One text a database client runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Statements {
    /// The static text, when wholly known.
    pub text: Option<String>,
    /// For a text with run-time parts: the text with them left as written (`DROP TABLE $T`).
    pub template: Option<String>,
    /// As written (bounded by the word it came from).
    pub raw: String,
    /// Substitutions whose output becomes part of the text.
    pub substitutions: Vec<usize>,
}

impl Statements {
    /// The text to judge: the static value, else the template.
    pub fn readable(&self) -> Option<&str> {
        self.text.as_deref().or(self.template.as_deref())
    }

    fn of_word(word: &Word, prefix: &str) -> Self {
        Statements {
            text: word
                .value()
                .and_then(|v| v.strip_prefix(prefix))
                .map(str::to_string),
            template: word
                .template
                .as_deref()
                .and_then(|t| t.strip_prefix(prefix))
                .map(str::to_string),
            raw: word.raw.clone(),
            substitutions: word.substitutions.clone(),
        }
    }

    fn joined(words: &[&Word]) -> Self {
        let values: Option<Vec<&str>> = words.iter().map(|w| w.value()).collect();
        let templates: Option<Vec<&str>> = words
            .iter()
            .map(|w| w.value().or(w.template.as_deref()))
            .collect();
        Statements {
            text: values.map(|v| v.join(" ")),
            template: templates.map(|t| t.join(" ")),
            raw: words
                .iter()
                .map(|w| w.raw.as_str())
                .collect::<Vec<_>>()
                .join(" "),
            substitutions: words.iter().flat_map(|w| w.substitutions.clone()).collect(),
        }
    }
}

/// A database client and what it is given to run.
#[derive(Debug)]
pub struct ClientInput {
    pub client: &'static DatabaseClient,
    /// In order: the statements given as arguments, then those read on stdin.
    pub statements: Vec<Statements>,
    /// The client reads statements on stdin (after any given by `-cmd`-like options) rather
    /// than running those given as arguments and exiting.
    pub reads_stdin: bool,
}

/// The client `cmd` is and everything it is given to run; `None` for a command that is not a
/// database client.
pub fn client_input(cmd: &Command, analysis: &Analysis) -> Option<ClientInput> {
    let client = database_client(cmd.base()?)?;
    let (mut statements, exits, operands) = options(client, &cmd.args);
    let before = statements.len();
    match client.dialect {
        Dialect::Redis if !operands.is_empty() => statements.push(Statements::joined(&operands)),
        _ if client.operand_statements => {
            statements.extend(operands.iter().skip(1).map(|w| Statements::of_word(w, "")))
        }
        _ => {}
    }
    let reads_stdin = client.stdin && !exits && statements.len() == before;
    if reads_stdin {
        statements.extend(stdin_text(&cmd.stdin, analysis));
    }
    Some(ClientInput {
        client,
        statements,
        reads_stdin,
    })
}

/// The statements given in options, whether one of those options makes the client exit after
/// them (`-c`, not `-cmd`), and the operands, by the client's option grammar.
fn options<'a>(
    client: &DatabaseClient,
    args: &'a [Word],
) -> (Vec<Statements>, bool, Vec<&'a Word>) {
    let mut inline = Vec::new();
    let mut exits = false;
    let mut operands = Vec::new();
    let mut words = args.iter();
    let mut only_operands = false;
    while let Some(word) = words.next() {
        let value = match word.value() {
            Some(v) if !only_operands && v.len() > 1 && v.starts_with('-') => v,
            // Before a Redis command, words that may split may be options (`$REDIS_OPTS`): the
            // command is judged as the known words after them (a split into the command itself
            // only makes those its arguments, so this errs towards a finding).
            None if !only_operands && client.dialect == Dialect::Redis && word.may_split() => {
                continue
            }
            _ => {
                operands.push(word);
                // A Redis command's own arguments may start with `-`.
                only_operands |= client.dialect == Dialect::Redis;
                continue;
            }
        };
        if value == "--" {
            only_operands = true;
            continue;
        }
        if let Some((option, _)) = value.split_once('=') {
            if named(client, client.inline, option) {
                exits |= !named(client, client.before_stdin, option);
                inline.push(Statements::of_word(word, &format!("{option}=")));
            }
            continue;
        }
        if named(client, client.inline, value) {
            exits |= !named(client, client.before_stdin, value);
            if let Some(next) = words.next() {
                inline.push(Statements::of_word(next, ""));
            }
            continue;
        }
        if named(client, client.valued, value) {
            words.next();
            continue;
        }
        if client.clusters && !value.starts_with("--") {
            exits |= cluster(client, word, value, &mut words, &mut inline);
        }
    }
    (inline, exits, operands)
}

/// True when `option` is one of `list`; a client whose options do not cluster (sqlite3) also
/// spells them with two dashes (`--cmd`).
fn named(client: &DatabaseClient, list: &[&str], option: &str) -> bool {
    list.contains(&option)
        || !client.clusters && option.starts_with("--") && list.contains(&&option[1..])
}

/// A getopt cluster (`-qAtc SQL`, `-cSQL`): letters up to one that takes a value, which is the
/// rest of the word or else the next word. True when it gave statements (all such clients exit
/// after statements given in a cluster).
fn cluster<'a>(
    client: &DatabaseClient,
    word: &Word,
    value: &str,
    words: &mut impl Iterator<Item = &'a Word>,
    inline: &mut Vec<Statements>,
) -> bool {
    for (at, letter) in value.char_indices().skip(1) {
        let option = format!("-{letter}");
        let end = at + letter.len_utf8();
        let rest = &value[end..];
        if client.attached.contains(&option.as_str()) {
            return false;
        }
        let takes_statements = client.inline.contains(&option.as_str());
        if !takes_statements && !client.valued.contains(&option.as_str()) {
            continue;
        }
        let given = match rest.is_empty() {
            true => words.next().map(|next| Statements::of_word(next, "")),
            false => Some(Statements::of_word(word, &value[..end])),
        };
        if takes_statements {
            inline.extend(given);
        }
        return takes_statements;
    }
    false
}

/// The static text on a client's stdin, when the text shows it.
fn stdin_text(stdin: &Stdin, analysis: &Analysis) -> Option<Statements> {
    Some(match stdin {
        Stdin::Heredoc { text, template } => Statements {
            text: text.clone(),
            template: template.clone(),
            raw: text.clone().or(template.clone()).unwrap_or_default(),
            ..Statements::default()
        },
        Stdin::HereString(word) => Statements::of_word(word, ""),
        Stdin::Pipe { .. } => {
            let text = piped_text(stdin, analysis)?;
            Statements {
                raw: text.clone(),
                text: Some(text),
                ..Statements::default()
            }
        }
        _ => return None,
    })
}
