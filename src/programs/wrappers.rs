//! Programs that run their operands as a command, as data: each wrapper's names, the options
//! that take a value, the subcommand words before the command (`npm exec`, `ip netns exec`)
//! and the operands before it (`setlock FILE CMD`). `parse::unwrap` follows every row as it
//! follows `sudo`; the wrappers with a shape of their own (`sudo`, `env`, `xargs`, `find`,
//! `timeout`…) keep their code there.

/// One wrapper of this table.
pub struct Wrapper {
    pub names: &'static [&'static str],
    /// Short options that take a value (in the next word, or at the end of a cluster).
    pub short_values: &'static str,
    /// Long options that take a value in the next word (`--opt=value` needs no entry).
    pub long_values: &'static [&'static str],
    /// Subcommand words before the command, each one of its alternatives, options allowed
    /// between them (`uv run`, `perf stat|record|trace`, `ip netns exec`).
    pub path: &'static [&'static [&'static str]],
    /// Operands before the command (`setlock FILE`, `ip netns exec NAME`, `gosu USER`).
    pub skip: usize,
}

/// Every wrapper of the table.
pub static WRAPPERS: &[Wrapper] = &[
    Wrapper {
        names: &["aa-exec"],
        short_values: "pn",
        long_values: &["--profile", "--namespace"],
        path: &[],
        skip: 0,
    },
    Wrapper {
        names: &["choom"],
        short_values: "np",
        long_values: &["--adjust", "--pid"],
        path: &[],
        skip: 0,
    },
    Wrapper {
        names: &["cpulimit"],
        short_values: "lpecm",
        long_values: &["--limit", "--pid", "--exe", "--cpu", "--path"],
        path: &[],
        skip: 0,
    },
    Wrapper {
        names: &["ssh-agent"],
        short_values: "aEPt",
        long_values: &[],
        path: &[],
        skip: 0,
    },
    Wrapper {
        names: &["perf"],
        short_values: "eopCGtrFcIjmMxsT",
        long_values: &[
            "--event",
            "--output",
            "--pid",
            "--cpu",
            "--repeat",
            "--field-separator",
        ],
        path: &[&["stat", "record", "trace"]],
        skip: 0,
    },
    Wrapper {
        names: &["ip"],
        short_values: "",
        long_values: &[],
        path: &[&["netns"], &["exec"]],
        skip: 1,
    },
    Wrapper {
        names: &[
            "pexec",
            "multitime",
            "torify",
            "distcc",
            "dbus-launch",
            "dbus-run-session",
            "xvfb-run",
            "tini",
            "dumb-init",
            "entr",
            "caffeinate",
            "fakechroot",
            "proot",
            "chpst",
        ],
        short_values: "nsu",
        long_values: &["--server-args", "--error-file"],
        path: &[],
        skip: 0,
    },
    Wrapper {
        names: &["softlimit"],
        short_values: "amdosflcrpt",
        long_values: &[],
        path: &[],
        skip: 0,
    },
    Wrapper {
        names: &[
            "setlock",
            "logsave",
            "envdir",
            "setuidgid",
            "envuidgid",
            "gosu",
            "su-exec",
        ],
        short_values: "",
        long_values: &[],
        path: &[],
        skip: 1,
    },
    Wrapper {
        names: &["rlwrap"],
        short_values: "abCeEfFgHlnOopPqsStwz",
        long_values: &[
            "--history-filename",
            "--file",
            "--logfile",
            "--prompt-colour",
        ],
        path: &[],
        skip: 0,
    },
    Wrapper {
        names: &["grc"],
        short_values: "c",
        long_values: &["--config", "--colour"],
        path: &[],
        skip: 0,
    },
    Wrapper {
        names: &["numactl"],
        short_values: "CNmilp",
        long_values: &[
            "--cpunodebind",
            "--membind",
            "--physcpubind",
            "--interleave",
            "--preferred",
        ],
        path: &[],
        skip: 0,
    },
    Wrapper {
        names: &["schroot"],
        short_values: "cud",
        long_values: &["--chroot", "--user", "--directory"],
        path: &[],
        skip: 0,
    },
    Wrapper {
        names: &["systemd-nspawn"],
        short_values: "DMuSdb",
        long_values: &[
            "--directory",
            "--machine",
            "--user",
            "--bind",
            "--bind-ro",
            "--image",
        ],
        path: &[],
        skip: 0,
    },
    Wrapper {
        names: &["uv", "poetry", "pipenv", "pdm", "hatch", "rye", "conda"],
        short_values: "pn",
        long_values: &[
            "--python",
            "--with",
            "--project",
            "--directory",
            "--package",
            "--env-file",
            "--env",
        ],
        path: &[&["run"]],
        skip: 0,
    },
    Wrapper {
        names: &[
            "npm", "pnpm", "yarn", "bundle", "cabal", "xdotool", "mise", "asdf",
        ],
        short_values: "nc",
        long_values: &["--package", "--project-file", "--name", "--prefix"],
        path: &[&["exec", "x"]],
        skip: 0,
    },
    Wrapper {
        names: &["openvt"],
        short_values: "cu",
        long_values: &["--console", "--user"],
        path: &[],
        skip: 0,
    },
];

/// The table's row for a wrapper run by `base`.
pub fn wrapper(base: &str) -> Option<&'static Wrapper> {
    WRAPPERS.iter().find(|w| w.names.contains(&base))
}
