//! Simple commands: the command word, arguments, assignments and redirections after static
//! evaluation, how the command's stdin is fed, and the structural context it runs in.

use super::word::Word;

/// How a command's standard input is fed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stdin {
    /// Whatever the surrounding shell had.
    Inherited,
    /// The output of the earlier stages of pipeline `pipeline` (an index into `Analysis::pipelines`).
    Pipe { pipeline: usize, stage: usize },
    /// A heredoc body; `text` is its static value when it has one. `template` is, for a body
    /// with run-time expansions, the body with them left as written (`rm -rf $D`).
    Heredoc {
        text: Option<String>,
        template: Option<String>,
    },
    /// A here-string.
    HereString(Word),
    /// `< file` (the word may be a process substitution, see `Redirect::process`).
    File(Word),
    /// `< <(…)`: the output of process substitution number `id`.
    Process { id: usize },
}

/// Where a command sits relative to substitutions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Substitution {
    /// Inside `$(…)` or backticks; `executed` when the output becomes a command word, an `eval`
    /// argument or a shell's `-c` string.
    Command { id: usize, executed: bool },
    /// Inside `<(…)` or `>(…)`; `id` numbers it so readers (`source <(…)`) can find it.
    Process { id: usize },
}

/// A redirection attached to a command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redirect {
    /// The operator text: `>`, `>>`, `<`, `>|`, `&>`, `&>>`, `<>`, `>&`, `<&`, `<<`, `<<<`…
    pub op: String,
    /// The file descriptor written before the operator, if any.
    pub fd: Option<u32>,
    pub target: Word,
    /// The process substitution id when the target is `<(…)`/`>(…)`.
    pub process: Option<usize>,
}

impl Redirect {
    /// True when the redirection opens its target for writing.
    pub fn writes(&self) -> bool {
        matches!(
            self.op.as_str(),
            ">" | ">>" | ">|" | "&>" | "&>>" | "<>" | ">&"
        ) && !self.target.is_fd_number()
    }
}

/// One way a command was reached: a wrapper, a nested shell, an `eval`, a remote exec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Via {
    /// A wrapper that runs its argv (`sudo`, `env`, `timeout`, `xargs`, `find -exec` …).
    Wrapper(String),
    /// A shell string (`bash -c`, `eval`, `su -c`, `watch`, heredoc or pipe fed to a shell).
    Shell(String),
    /// A remote or container exec (`ssh`, `docker exec`, `kubectl exec`).
    Remote(String),
}

/// A simple command after static word evaluation.
#[derive(Clone, Debug)]
pub struct Command {
    pub name: Word,
    pub args: Vec<Word>,
    /// `NAME=value` prefixes (and the operands of `export`/`declare`/`local`… are kept as args).
    pub assignments: Vec<(String, Word)>,
    pub redirects: Vec<Redirect>,
    pub stdin: Stdin,
    pub context: Context,
}

/// The structural context of a command.
#[derive(Clone, Debug, Default)]
pub struct Context {
    /// Nesting level: 0 for the text itself, +1 for each shell string, eval or remote command.
    pub depth: usize,
    /// How the command was reached, outermost first.
    pub via: Vec<Via>,
    pub substitution: Option<Substitution>,
    /// `(pipeline index, stage index)` when the command is a stage (or inside one).
    pub pipeline: Option<(usize, usize)>,
    /// Run with a trailing `&` (itself or an enclosing list).
    pub background: bool,
    /// Inside the body of this function.
    pub function: Option<String>,
    /// Inside the condition of an `if`/`while`/`until` or left of `&&`/`||`.
    pub condition: bool,
    /// The index of the wrapper command this one was unwrapped from, if any.
    pub wrapped_by: Option<usize>,
    /// The arguments after the wrapped argv come from elsewhere (`xargs`, `find -exec {}`).
    pub extra_args: bool,
    /// This command is one reading of command `reading_of`: the same command with some word
    /// that is only known at run time replaced by one of its known alternatives
    /// (`Word::alternatives`), so that every rule sees every value a word can take.
    pub reading_of: Option<usize>,
}

impl Command {
    /// The statically known command name, as written after quote removal (`/bin/rm`, `rm`).
    pub fn name_value(&self) -> Option<&str> {
        self.name.value()
    }

    /// The basename of the command after path normalisation (`/usr/bin//rm` → `rm`), when static.
    pub fn base(&self) -> Option<&str> {
        let value = self.name.value()?;
        let trimmed = value.trim_end_matches('/');
        // Asked by every rule family for every command: one byte search, no splitter.
        Some(match trimmed.as_bytes().iter().rposition(|b| *b == b'/') {
            Some(slash) => &trimmed[slash + 1..],
            None => trimmed,
        })
    }

    /// True when the basename is one of `names`.
    pub fn is(&self, names: &[&str]) -> bool {
        self.base().is_some_and(|b| names.contains(&b))
    }

    /// The name shown in signals: the basename when static, else the raw text.
    pub fn display_name(&self) -> Option<String> {
        match self.base() {
            Some(b) => Some(b.to_string()),
            None if self.name.raw.is_empty() => None,
            None => Some(self.name.raw.clone()),
        }
    }

    /// Each argument's value, `None` for one only known at run time (for the data tables of
    /// `programs`, which read values, not words).
    pub fn arg_words(&self) -> Vec<Option<&str>> {
        self.args.iter().map(Word::value).collect()
    }

    /// Static argument values (dynamic ones are skipped).
    pub fn arg_values(&self) -> impl Iterator<Item = &str> {
        self.args.iter().filter_map(|w| w.value())
    }

    /// True when some argument's static value equals `token`.
    pub fn has_arg(&self, token: &str) -> bool {
        self.arg_values().any(|a| a == token)
    }

    /// True when some argument equals one of `tokens`.
    pub fn has_any_arg(&self, tokens: &[&str]) -> bool {
        self.arg_values().any(|a| tokens.contains(&a))
    }

    /// The letters of single-dash flags (`-rf` → r, f) before a `--`.
    pub fn short_flags(&self) -> String {
        let mut letters = String::new();
        for arg in self.arg_values() {
            if arg == "--" {
                break;
            }
            if let Some(rest) = arg.strip_prefix('-') {
                if !rest.starts_with('-') {
                    letters.push_str(rest);
                }
            }
        }
        letters
    }

    /// True when the short flags include `letter` or a long flag equals `long`.
    pub fn has_flag(&self, letter: char, long: &str) -> bool {
        self.short_flags().contains(letter) || self.option_args().any(|a| a == long)
    }

    /// Arguments that look like options (before a `--`).
    pub fn option_args(&self) -> impl Iterator<Item = &str> {
        self.arg_values()
            .take_while(|a| *a != "--")
            .filter(|a| a.starts_with('-') && a.len() > 1)
    }

    /// Argument words that are not options (everything after `--` counts as an operand).
    pub fn operands(&self) -> Vec<&Word> {
        let mut out = Vec::new();
        let mut after_dashdash = false;
        for w in &self.args {
            match w.value() {
                Some("--") if !after_dashdash => after_dashdash = true,
                Some(v) if !after_dashdash && v.starts_with('-') && v.len() > 1 => {}
                _ => out.push(w),
            }
        }
        out
    }

    /// The static text of the whole command (name and args joined by spaces), for messages.
    pub fn text(&self) -> String {
        let mut s = self.name.shown.clone();
        for a in &self.args {
            s.push(' ');
            s.push_str(&a.shown);
        }
        s
    }
}
