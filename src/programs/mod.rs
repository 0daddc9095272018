//! Programs known by name, shared by every layer of the analysis: the shells whose `-c` string
//! and stdin are shell code, and the interpreters that run a program given inline or on stdin.
//! Data only; `parse`, `interp` and `signals` all read it. Subcommand tools (git, kubectl,
//! terraform…), their global options and their destructive subcommands are in [`tools`].

pub mod tools;

use crate::ir::Language;

/// Shells whose `-c` string and stdin are shell code.
pub const SHELLS: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "mksh",
    "ash",
    "rbash",
    "yash",
    "posh",
    "fish",
    "tcsh",
    "csh",
    "ksh93",
    "pdksh",
    "lksh",
    "oksh",
    "busybox-sh",
];

/// Interpreters that run a program read from stdin or given with `-c`/`-e`, with the language
/// the analysis reads (`None`: run, but its code is not read). One list: the download rules,
/// the escapes, the classes and the program analysis all ask it. A versioned name counts as
/// its base (`python3.12`, `pypy3`, `perl5.36`, `ruby3.2`, `php8.3`, `lua5.4`, `tclsh8.6`).
pub const INTERPRETERS: &[(&str, Option<Language>)] = &[
    ("python", Some(Language::Python)),
    ("pypy", Some(Language::Python)),
    ("jython", Some(Language::Python)),
    ("ipython", Some(Language::Python)),
    ("perl", Some(Language::Perl)),
    ("ruby", Some(Language::Ruby)),
    ("jruby", Some(Language::Ruby)),
    ("truffleruby", Some(Language::Ruby)),
    ("irb", Some(Language::Ruby)),
    ("node", Some(Language::Node)),
    ("nodejs", Some(Language::Node)),
    ("deno", Some(Language::Node)),
    ("bun", Some(Language::Node)),
    ("php", Some(Language::Php)),
    ("php-cli", Some(Language::Php)),
    ("lua", Some(Language::Lua)),
    ("luajit", Some(Language::Lua)),
    ("tclsh", None),
    ("wish", None),
    ("expect", None),
    ("Rscript", None),
    ("R", None),
    ("pwsh", None),
    ("powershell", None),
    ("osascript", None),
    ("jshell", None),
    ("groovy", None),
    ("guile", None),
    ("sbcl", None),
    ("julia", None),
];

/// The interpreter `base` names (`python3.11` → `python`), with its language.
pub fn interpreter(base: &str) -> Option<(&'static str, Option<Language>)> {
    let stem = base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let stem = if stem.is_empty() { base } else { stem };
    INTERPRETERS
        .iter()
        .find(|(name, _)| *name == base || *name == stem)
        .copied()
}

/// True for an interpreter (`python3.11`, `pypy3` count).
pub fn is_interpreter(base: &str) -> bool {
    interpreter(base).is_some()
}

/// Commands that never read their stdin: with a program read from the process's stdin, any
/// other command that inherits that stdin and is not one of these may take part of it first.
pub const STDIN_NON_READERS: &[&str] = &[
    "echo", "printf", "true", "false", ":", "sleep", "cd", "export", "unset", "set", "shift",
    "exit", "return", "test", "[", "umask", "pwd", "mkdir", "touch", "chmod", "chown", "ln", "rm",
    "cp", "mv", "id", "whoami", "hostname", "uname", "date", "env", "printenv", "alias", "type",
    "hash", "trap", "ulimit", "wait", "kill",
];

/// Programs whose output is shell setup code they compute locally (colours, an agent's socket,
/// a version manager's shims, completions): `eval "$(dircolors -b)"` is how they are used.
/// Each row: the program, the subcommand it needs (`""` for none) and whether operands other
/// than that subcommand may follow (`ssh-agent CMD` would run CMD, so it takes none).
pub const SHELL_SETUP_PRINTERS: &[(&str, &str, bool)] = &[
    ("dircolors", "", true),
    ("ssh-agent", "", false),
    ("gpg-agent", "", false),
    ("keychain", "", true),
    ("resize", "", false),
    ("thefuck", "", false),
    ("pyenv", "init", true),
    ("pyenv", "virtualenv-init", true),
    ("rbenv", "init", true),
    ("nodenv", "init", true),
    ("goenv", "init", true),
    ("jenv", "init", true),
    ("plenv", "init", true),
    ("direnv", "hook", true),
    ("brew", "shellenv", true),
    ("starship", "init", true),
    ("zoxide", "init", true),
    ("mise", "activate", true),
    ("atuin", "init", true),
    ("fnm", "env", true),
    ("opam", "env", true),
    ("luarocks", "path", true),
    ("conda", "shell.bash", true),
    ("kubectl", "completion", true),
    ("helm", "completion", true),
    ("gh", "completion", true),
    ("rustup", "completions", true),
];
