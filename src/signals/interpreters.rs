//! Interpreter programs of every language, and shell script files: code too large to scan (fail
//! closed inline, flagged in a file), code only known
//! at run time, and for perl, ruby, node, php, lua, awk and sed their run-time shell-outs, inline
//! code that is not analysed, reverse shells and shell escapes. Literal shell-outs were lowered
//! into the IR by `crate::interp` and meet the shell families there.

use super::python::{once, shared};
use super::{Family, Severity, Signal, Spec};
use crate::ir::Analysis;
use crate::ir::{Finding, Language, Origin, Stdin, PROCESS_STDIN};
use crate::programs::STDIN_NON_READERS;

spec!(INTERPRETER_CODE_TOO_LARGE, "INTERPRETER_CODE_TOO_LARGE", Critical, Limits, "interpreter code too large to analyse",
    "Inline interpreter code (`python3 -c`, a heredoc or here-string, `perl -e` …) is larger than `limits.max_code_bytes` (64 KiB by default). It is denied unanalysed, so padding cannot push a dangerous call past the scan (the seed's CodeExecutionGuard `max_scan_bytes`).");
spec!(INTERPRETER_SCRIPT_TOO_LARGE, "INTERPRETER_SCRIPT_TOO_LARGE", Medium, Interpreter, "interpreter script file too large to analyse",
    "A script file an interpreter runs (`python3 x.py`, a shebang script) is larger than `limits.max_code_bytes`, so it was not analysed. Unlike inline code this is not denied outright: a file on disk is outside what a command-line gate promises to see (a user who can write it can write a binary too), and automation runs large generated scripts (ansible's AnsiballZ modules are over 64 KiB). A policy can deny it.");
spec!(SHELL_SCRIPT_TOO_LARGE, "SHELL_SCRIPT_TOO_LARGE", Medium, Interpreter, "shell script file too large to analyse",
    "A shell script file a command runs (`sh FILE`, `. FILE`, `./deploy.sh`) is larger than `limits.max_bytes`, so it was not analysed. As for an interpreter's script file, this is not denied outright: generated installers and `./configure` scripts are that large, and a file on disk is outside what a command-line gate promises to see. A policy can deny it.");
spec!(INTERPRETER_DYNAMIC_CODE, "INTERPRETER_DYNAMIC_CODE", Medium, Interpreter, "interpreter code only known at run time",
    "An interpreter's program is built at run time, wholly (`python3 -c \"$CODE\"`, a heredoc with expansions) or partly (`python3 -c \"print('$X')\"`, analysed with the expansions left as written): what it finally runs cannot be seen.");
spec!(INTERPRETER_INLINE_CODE, "INTERPRETER_INLINE_CODE", Medium, Interpreter, "inline interpreter code",
    "Inline code for `perl -e`, `ruby -e`, `node -e/--eval/-p`, `php -r`, `lua -e`: only its shell-outs are analysed (literal `system`, backticks, `qx`, `exec`, `child_process`, `popen`, `os.execute`, `shell_exec` … are followed into the shell analyzer), the rest can do anything the language can. `command` names the interpreter, so a policy can allow one and deny another. Python is analysed in full and has its own signals.");
spec!(INTERPRETER_DYNAMIC_SHELL_EXEC, "INTERPRETER_DYNAMIC_SHELL_EXEC", Medium, Interpreter, "shell command built at runtime",
    "A perl, ruby, node, php, lua, awk or sed program runs a shell command or program only known at run time: `system($cmd)`, `` `ls $dir` ``, `exec(cmd)`, awk `system(\"rm \" $1)` or `print | cmd`, sed `e` or `s/…/…&/e`.");

spec!(STDIN_PROGRAM_SHARED, "STDIN_PROGRAM_SHARED", Critical, Interpreter, "the program read from stdin is not what runs",
    "A shell or interpreter reads its program from guarded-sh's own stdin, which was read and judged whole, but another command may read that stdin first or too (`read x; python3`, `head -c 4 >/dev/null; bash`, a `python3` inside a shell program on stdin): what runs would be a part of what was judged, or judged as another language. Denied (fail closed).");

spec!(INTERPRETER_DELETE_SYSTEM_PATH, "INTERPRETER_DELETE_SYSTEM_PATH", Critical, Interpreter, "interpreter code deletes a system path",
    "A perl, ruby, node or php program deletes `/`, a system directory or a home directory by its file API (`FileUtils.rm_rf(\"/usr\")`, `fs.rmSync(\"/etc\", {recursive: true})`, `rmtree(\"/var\")`, `unlink(\"/etc/passwd\")`), with the path a literal. Python's are PYTHON_RMTREE_SYSTEM_PATH and PYTHON_DELETE_SYSTEM_PATH.");
spec!(INTERPRETER_RECURSIVE_DELETE, "INTERPRETER_RECURSIVE_DELETE", High, Interpreter, "interpreter code deletes a directory tree",
    "A perl, ruby, node or php program deletes a tree (`FileUtils.rm_rf`, `fs.rmSync` / `fs.rm`, `rmtree`/`remove_tree`) outside the system paths, or at a path only known at run time: the program's `rm -rf`.");

pub static SPECS: &[&Spec] = &[
    &INTERPRETER_DELETE_SYSTEM_PATH,
    &INTERPRETER_RECURSIVE_DELETE,
    &STDIN_PROGRAM_SHARED,
    &INTERPRETER_CODE_TOO_LARGE,
    &INTERPRETER_SCRIPT_TOO_LARGE,
    &SHELL_SCRIPT_TOO_LARGE,
    &INTERPRETER_DYNAMIC_CODE,
    &INTERPRETER_INLINE_CODE,
    &INTERPRETER_DYNAMIC_SHELL_EXEC,
];

pub fn detect(a: &Analysis, out: &mut Vec<Signal>) {
    if let Some((i, why)) = stdin_shared(a) {
        if let Some(cmd) = a.commands.get(i) {
            once(out, &STDIN_PROGRAM_SHARED, i, cmd, &why);
        }
    }
    for (i, path, bytes) in &a.oversized_scripts {
        if let Some(cmd) = a.commands.get(*i) {
            once(
                out,
                &SHELL_SCRIPT_TOO_LARGE,
                *i,
                cmd,
                &format!("{bytes} bytes of {path}"),
            );
        }
    }
    for (i, report) in &a.programs {
        let Some(cmd) = a.commands.get(*i) else {
            continue;
        };
        if report.too_large {
            let evidence = format!("{} bytes of {}", report.bytes, report.interpreter);
            let spec = match report.origin {
                crate::ir::Origin::File(_) => &INTERPRETER_SCRIPT_TOO_LARGE,
                _ => &INTERPRETER_CODE_TOO_LARGE,
            };
            once(out, spec, *i, cmd, &evidence);
            continue;
        }
        // awk and sed programs with `$VAR` in them are everyday text processing, not code.
        if report.dynamic && report.language.is_general() {
            once(out, &INTERPRETER_DYNAMIC_CODE, *i, cmd, &report.interpreter);
        }
        if report.language == Language::Python {
            continue;
        }
        if report.language.is_general() && report.origin == Origin::Inline {
            once(out, &INTERPRETER_INLINE_CODE, *i, cmd, &report.interpreter);
        }
        for finding in &report.findings {
            match finding {
                Finding::DynamicShell(call) => {
                    once(out, &INTERPRETER_DYNAMIC_SHELL_EXEC, *i, cmd, call)
                }
                Finding::Delete {
                    path, recursive, ..
                } => {
                    let system = path.as_deref().is_some_and(|p| {
                        super::paths::is_system_path(p)
                            || !recursive
                                && super::clobber::clobber_spec(&super::paths::normalize(p))
                                    .is_some()
                    });
                    if system {
                        let shown = path.as_deref().unwrap_or_default();
                        once(out, &INTERPRETER_DELETE_SYSTEM_PATH, *i, cmd, shown);
                    } else if *recursive && !path.as_deref().is_some_and(stays_inside_cwd) {
                        let shown = path.as_deref().unwrap_or("<runtime>");
                        once(out, &INTERPRETER_RECURSIVE_DELETE, *i, cmd, shown);
                    }
                }
                Finding::Write { path, .. } => {
                    let norm = super::paths::normalize(path);
                    if super::paths::is_block_device(&norm) {
                        once(
                            out,
                            &super::destructive::REDIRECT_BLOCK_DEVICE,
                            *i,
                            cmd,
                            path,
                        );
                    } else if let Some(spec) = super::clobber::clobber_spec(&norm) {
                        once(out, spec, *i, cmd, path);
                    }
                }
                _ => {}
            }
        }
        shared(*i, cmd, report, out);
    }
}

/// A static relative path that stays inside the working directory (`dist`, `./build`).
fn stays_inside_cwd(path: &str) -> bool {
    !path.is_empty()
        && !path.starts_with(['/', '~', '$'])
        && !path.split('/').any(|part| part == "..")
        && !matches!(path, "." | "./" | "*")
}

/// When the process's stdin was read as one command's program: another command that may read
/// that stdin too (another such program, or a command that inherits it and is neither a wrapper
/// of the reader, inside its program, nor one that never reads stdin).
fn stdin_shared(a: &Analysis) -> Option<(usize, String)> {
    if !a.scripts.contains_key(PROCESS_STDIN) {
        return None;
    }
    let (&reader, others) = a.stdin_programs.split_first()?;
    if let Some(&second) = others.first() {
        return Some((
            second,
            "a second command reads its program from stdin".into(),
        ));
    }
    let wrappers: Vec<usize> = a
        .commands
        .iter()
        .filter_map(|c| c.context.wrapped_by)
        .collect();
    let inside = |mut j: usize| loop {
        match a.commands.get(j).and_then(|c| c.context.wrapped_by) {
            Some(w) if w == reader => return true,
            Some(w) => j = w,
            None => return false,
        }
    };
    a.commands.iter().enumerate().find_map(|(j, cmd)| {
        let may_read = matches!(cmd.stdin, Stdin::Inherited)
            && j != reader
            && !wrappers.contains(&j)
            && !inside(j)
            && !cmd.base().is_some_and(|b| STDIN_NON_READERS.contains(&b));
        may_read.then(|| (j, format!("{} may read stdin too", cmd.text())))
    })
}
