//! Programs known by name, shared by every layer of the analysis: the shells whose `-c` string
//! and stdin are shell code, and the interpreters that run a program given inline or on stdin.
//! Data only; `parse`, `interp` and `signals` all read it. Subcommand tools (git, kubectl,
//! terraform…), their global options and their destructive subcommands are in [`tools`].

pub mod tools;
pub mod wrappers;

/// The languages whose programs are analysed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    Python,
    Perl,
    Ruby,
    Node,
    Php,
    Lua,
    Awk,
    Sed,
}

impl Language {
    /// General-purpose languages whose inline code can do anything (not awk or sed).
    pub fn is_general(self) -> bool {
        !matches!(self, Self::Awk | Self::Sed)
    }
}

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

/// What a database client's statements are written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Sql,
    /// Redis commands: the operands, or one command a line on stdin.
    Redis,
    /// MongoDB shell JavaScript.
    Mongo,
}

/// How a database client is given what it runs. Options are matched as whole words unless
/// `clusters` (getopt: `-qAtc SQL`, `-cSQL`); a leading `--` also reads as `-` when not.
#[derive(Debug)]
pub struct DatabaseClient {
    pub name: &'static str,
    pub dialect: Dialect,
    /// Options whose value is statements to run (`-c`, `--command`, `-e`).
    pub inline: &'static [&'static str],
    /// Of those, the ones whose statements run before stdin is read (`sqlite3 -cmd`); after the
    /// others the client exits.
    pub before_stdin: &'static [&'static str],
    /// Other options that take a value (the next word, or `--opt=value`).
    pub valued: &'static [&'static str],
    /// Options whose value, if any, is attached (`mysql -pSECRET`): the rest of a cluster.
    pub attached: &'static [&'static str],
    pub clusters: bool,
    /// Operands after the first (the database file) are statements (`sqlite3 DB SQL…`); for
    /// Redis every operand is one word of the command.
    pub operand_statements: bool,
    /// Reads statements on stdin when none are given inline.
    pub stdin: bool,
    /// Client commands that run the rest of their line as a shell command (`\!`, `.shell`).
    pub shell_escapes: &'static [&'static str],
    /// `COPY … TO/FROM PROGRAM 'CMD'` runs CMD (PostgreSQL).
    pub copy_program: bool,
}

const MYSQL_VALUED: &[&str] = &[
    "-h",
    "-u",
    "-P",
    "-S",
    "-D",
    "-O",
    "--host",
    "--user",
    "--port",
    "--socket",
    "--database",
    "--default-character-set",
    "--defaults-file",
    "--defaults-extra-file",
    "--login-path",
    "--protocol",
    "--delimiter",
    "--ssl-ca",
    "--ssl-cert",
    "--ssl-key",
    "--ssl-mode",
];
const MYSQL_INLINE: &[&str] = &["-e", "--execute", "--init-command"];
const SQLITE_VALUED: &[&str] = &[
    "-init",
    "-separator",
    "-nullvalue",
    "-newline",
    "-vfs",
    "-mmap",
    "-maxsize",
    "-lookaside",
    "-pagecache",
    "-heap",
    "-escape",
];
const MONGO_VALUED: &[&str] = &[
    "--host",
    "--port",
    "-u",
    "--username",
    "-p",
    "--password",
    "--authenticationDatabase",
    "--authenticationMechanism",
    "-f",
    "--file",
    "--tlsCAFile",
    "--tlsCertificateKeyFile",
];

/// mysql, whose client mariadb is under another name.
const MYSQL: DatabaseClient = DatabaseClient {
    name: "mysql",
    dialect: Dialect::Sql,
    inline: MYSQL_INLINE,
    before_stdin: &["--init-command"],
    valued: MYSQL_VALUED,
    attached: &["-p"],
    clusters: true,
    operand_statements: false,
    stdin: true,
    shell_escapes: &["\\!", "system"],
    copy_program: false,
};

/// The database clients whose statements the analysis reads (signals) and whose shell escapes
/// it follows (parse).
pub const DATABASE_CLIENTS: &[DatabaseClient] = &[
    DatabaseClient {
        name: "psql",
        dialect: Dialect::Sql,
        inline: &["-c", "--command"],
        before_stdin: &[],
        valued: &[
            "-d",
            "-f",
            "-h",
            "-p",
            "-U",
            "-v",
            "-P",
            "-o",
            "-L",
            "-T",
            "-F",
            "-R",
            "--dbname",
            "--file",
            "--host",
            "--port",
            "--username",
            "--set",
            "--variable",
            "--pset",
            "--output",
            "--log-file",
            "--field-separator",
            "--record-separator",
            "--table-attr",
        ],
        attached: &[],
        clusters: true,
        operand_statements: false,
        stdin: true,
        shell_escapes: &["\\!"],
        copy_program: true,
    },
    MYSQL,
    DatabaseClient {
        name: "mariadb",
        ..MYSQL
    },
    DatabaseClient {
        name: "sqlite3",
        dialect: Dialect::Sql,
        inline: &["-cmd"],
        before_stdin: &["-cmd"],
        valued: SQLITE_VALUED,
        attached: &[],
        clusters: false,
        operand_statements: true,
        stdin: true,
        shell_escapes: &[".shell", ".system"],
        copy_program: false,
    },
    DatabaseClient {
        name: "duckdb",
        dialect: Dialect::Sql,
        inline: &["-c", "-s", "-cmd"],
        before_stdin: &["-cmd"],
        valued: SQLITE_VALUED,
        attached: &[],
        clusters: false,
        operand_statements: true,
        stdin: true,
        shell_escapes: &[".shell", ".system"],
        copy_program: false,
    },
    DatabaseClient {
        name: "clickhouse-client",
        dialect: Dialect::Sql,
        inline: &["-q", "--query"],
        before_stdin: &[],
        valued: &[
            "-h",
            "-u",
            "-d",
            "-f",
            "--host",
            "--port",
            "--user",
            "--password",
            "--database",
            "--format",
            "--config-file",
            "-C",
        ],
        attached: &[],
        clusters: false,
        operand_statements: false,
        stdin: true,
        shell_escapes: &[],
        copy_program: false,
    },
    DatabaseClient {
        name: "cqlsh",
        dialect: Dialect::Sql,
        inline: &["-e", "--execute"],
        before_stdin: &[],
        valued: &[
            "-u",
            "-p",
            "-k",
            "-f",
            "--username",
            "--password",
            "--keyspace",
            "--file",
            "--cqlshrc",
            "--encoding",
            "--cqlversion",
            "--connect-timeout",
            "--request-timeout",
        ],
        attached: &[],
        clusters: true,
        operand_statements: false,
        stdin: true,
        shell_escapes: &[],
        copy_program: false,
    },
    DatabaseClient {
        name: "redis-cli",
        dialect: Dialect::Redis,
        inline: &[],
        before_stdin: &[],
        valued: &[
            "-h",
            "-p",
            "-s",
            "-a",
            "-u",
            "-n",
            "-r",
            "-i",
            "-d",
            "-D",
            "--user",
            "--pass",
            "--cacert",
            "--cacertdir",
            "--cert",
            "--key",
            "--sni",
            "--eval",
            "--pattern",
            "--count",
            "--rdb",
            "--pipe-timeout",
            "--memkeys-samples",
            "--intrinsic-latency",
        ],
        attached: &[],
        clusters: false,
        operand_statements: true,
        stdin: true,
        shell_escapes: &[],
        copy_program: false,
    },
    DatabaseClient {
        name: "mongosh",
        dialect: Dialect::Mongo,
        inline: &["--eval"],
        before_stdin: &[],
        valued: MONGO_VALUED,
        attached: &[],
        clusters: false,
        operand_statements: false,
        stdin: true,
        shell_escapes: &[],
        copy_program: false,
    },
    DatabaseClient {
        name: "mongo",
        dialect: Dialect::Mongo,
        inline: &["--eval"],
        before_stdin: &[],
        valued: MONGO_VALUED,
        attached: &[],
        clusters: false,
        operand_statements: false,
        stdin: true,
        shell_escapes: &[],
        copy_program: false,
    },
];

/// The database client `base` names, if any.
pub fn database_client(base: &str) -> Option<&'static DatabaseClient> {
    DATABASE_CLIENTS.iter().find(|c| c.name == base)
}
