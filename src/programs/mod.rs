//! Programs known by name, shared by every layer of the analysis: the shells whose `-c` string
//! and stdin are shell code, and the interpreters that run a program given inline or on stdin.
//! Data only; `parse`, `interp` and `signals` all read it. Subcommand tools (git, kubectl,
//! terraform…), their global options and their destructive subcommands are in [`tools`].

pub mod tools;

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

/// Interpreters that run a program read from stdin or given with `-c`/`-e`.
pub const INTERPRETERS: &[&str] = &[
    "python",
    "python2",
    "python3",
    "perl",
    "ruby",
    "node",
    "nodejs",
    "php",
    "lua",
    "luajit",
    "tclsh",
    "wish",
    "Rscript",
    "pwsh",
    "powershell",
    "osascript",
    "deno",
    "bun",
    "jshell",
    "irb",
    "groovy",
    "guile",
    "sbcl",
    "julia",
];

/// True for an interpreter (`python3.11` counts).
pub fn is_interpreter(base: &str) -> bool {
    INTERPRETERS.contains(&base)
        || base
            .strip_prefix("python")
            .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
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
