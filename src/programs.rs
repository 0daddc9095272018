//! Programs known by name, shared by every layer of the analysis: the shells whose `-c` string
//! and stdin are shell code, and the interpreters that run a program given inline or on stdin.
//! Data only; `parse`, `interp` and `signals` all read it.

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
