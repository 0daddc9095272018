//! Python programs (`python3 -c`, heredocs, here-strings, pipes, script files): the reference
//! engine's Python signals with its bypasses fixed, the code guard's module signals, and Python
//! reverse shells and shell escapes. The facts come from `crate::interp`; their shell commands
//! were lowered into the IR and meet the shell families there.

use super::clobber::clobber_spec;
use super::escape::INTERPRETER_SPAWNS_SHELL;
use super::paths::{is_block_device, is_system_path, normalize};
use super::reverse_shell::SCRIPTED_REVERSE_SHELL;
use super::{Family, Severity, Signal, Spec};
use crate::ir::{Analysis, Command};
use crate::ir::{Finding, Language, Report};
use crate::programs::SHELLS;

/// The family of every entry declared below.
const FAMILY: Family = Family::Python;

spec!(PYTHON_RMTREE_SYSTEM_PATH, "PYTHON_RMTREE_SYSTEM_PATH", Critical, "recursive delete of a system/root path",
    "`shutil.rmtree` of `/`, a system directory, a glob-free home directory (`~`) or a path that normalises to one (`//etc`, `/tmp/../usr`), by any spelling of the call (`from shutil import rmtree`, `import shutil as s`, `__import__('shutil')`) and as a keyword argument (`path=`).");
spec!(
    PYTHON_RMTREE,
    "PYTHON_RMTREE",
    High,
    "recursive delete",
    "`shutil.rmtree` of a literal path that is not a system path."
);
spec!(
    PYTHON_RMTREE_DYNAMIC,
    "PYTHON_RMTREE_DYNAMIC",
    High,
    "recursive delete of a runtime path",
    "`shutil.rmtree` of a path only known at run time (a variable, an f-string, a call)."
);
spec!(PYTHON_DELETE_SYSTEM_PATH, "PYTHON_DELETE_SYSTEM_PATH", Critical, "delete of a system/root path",
    "`os.remove`, `os.unlink`, `os.rmdir`, `os.removedirs` or `pathlib.Path(…).unlink()/rmdir()` of a system path (`/etc`, `/`, `~`), or of a file whose loss breaks login, boot or every command: the identity and authentication files (`/etc/passwd`, `/etc/shadow`, `/etc/sudoers`, `/etc/pam.d/*`, `/boot/*`) and system binaries and libraries (`/bin/*`, `/usr/bin/*`, `/lib*/*`). The reference engine only matched the directory itself, which `os.remove` cannot delete; such a file also gets the reference's PYTHON_FILE_DELETE next to this one, and a file inside an ordinary directory (`/etc/nginx/nginx.conf`, `/var/log/x`) gets PYTHON_FILE_DELETE alone.");
spec!(PYTHON_FILE_DELETE, "PYTHON_FILE_DELETE", Medium, "file deletion",
    "`os.remove`, `os.unlink`, `os.rmdir`, `os.removedirs` or `pathlib.Path(…).unlink()/rmdir()` of any path but the reference's system paths (`/`, `/etc`, `/usr`, … themselves), literal or not; next to PYTHON_DELETE_SYSTEM_PATH for a vital file (`/etc/passwd`), as the reference reports it.");
spec!(PYTHON_DYNAMIC_EXEC, "PYTHON_DYNAMIC_EXEC", Medium, "dynamic code execution",
    "The builtin `eval`, `exec` or `compile` (also as `builtins.eval`, or renamed), a `__import__`/`importlib.import_module` of a module named at run time, or `getattr` of a run-time name on a module. Literal code handed to `exec` is analysed as Python too.");
spec!(PYTHON_DYNAMIC_SHELL_EXEC, "PYTHON_DYNAMIC_SHELL_EXEC", Medium, "shell command built at runtime",
    "`os.system`, `os.popen`, `subprocess.*`, `os.exec*`, `os.spawn*`, `os.posix_spawn`, `pty.spawn`, `commands.getoutput`, `asyncio.create_subprocess_*` or `pexpect` with a command or program that is only known at run time (a variable, an f-string, `%` formatting). Literal commands and literal argument lists are analysed as shell commands instead (a list as an argv, never re-joined).");
spec!(PYTHON_BLOCK_DEVICE_WRITE, "DD_WRITE_BLOCK_DEVICE", Critical, "writing to a block device",
    "`open`, `io.open`, `os.open` or `pathlib.Path.write_bytes/open` of a block device (`/dev/sd*`, `/dev/nvme*`, `/dev/vd*`, `/dev/xvd*`, `/dev/mmcblk*`, `/dev/mapper/*` …) in a writing mode (`w`, `a`, `x`, `+`, `O_WRONLY`/`O_RDWR`, or a mode only known at run time), positional or `mode=`.");
spec!(PYTHON_PARSE_INCOMPLETE, "PYTHON_PARSE_INCOMPLETE", Low, "python source could not be parsed",
    "The Python text has a syntax error. tree-sitter-python reads current syntax (f-strings, walrus, `match`, type hints), so this is a real error; everything that did parse is still analysed.");
spec!(PYTHON_MODULE_IMPORT, "PYTHON_MODULE_IMPORT", Low, "imports a module that can run commands or change the system",
    "The code guard's dangerous modules, one signal per module named in `args`: `os`, `posix`, `subprocess`, `pty`, `commands`, `ctypes`, `cffi`, `shutil`, `pickle`, `cPickle`, `dill`, `marshal`, `shelve`, `importlib`, `runpy`, `code`, `pexpect` (also through `from x import`, `__import__('x')`, `importlib.import_module('x')`). `sys` is not listed: nearly every script imports it for `argv` or `exit`. Low: a policy can deny a module per host.");
spec!(PYTHON_NETWORK_MODULE, "PYTHON_NETWORK_MODULE", Medium, "imports a network module",
    "The code guard's network modules, one signal per module named in `args`: `socket`, `ssl`, `socketserver`, `requests`, `urllib`, `urllib2`, `urllib3`, `http` (`http.client`, `http.server`), `httpx`, `aiohttp`, `websockets`, `websocket`, `ftplib`, `smtplib`, `telnetlib`, `poplib`, `imaplib`, `nntplib`, `xmlrpc`, `paramiko`, `asyncssh`, `fabric`, `pycurl`, `twisted`, `grpc`, `scapy`, `boto3`, `botocore`. A policy can deny network access per host.");

pub static SPECS: &[&Spec] = &[
    &PYTHON_RMTREE_SYSTEM_PATH,
    &PYTHON_RMTREE,
    &PYTHON_RMTREE_DYNAMIC,
    &PYTHON_DELETE_SYSTEM_PATH,
    &PYTHON_FILE_DELETE,
    &PYTHON_DYNAMIC_EXEC,
    &PYTHON_DYNAMIC_SHELL_EXEC,
    &PYTHON_BLOCK_DEVICE_WRITE,
    &PYTHON_PARSE_INCOMPLETE,
    &PYTHON_MODULE_IMPORT,
    &PYTHON_NETWORK_MODULE,
];

/// Modules that run commands, load native code or deserialise code (the seed's denylist,
/// without `sys`).
const DANGEROUS_MODULES: &[&str] = &[
    "os",
    "posix",
    "subprocess",
    "pty",
    "commands",
    "ctypes",
    "cffi",
    "shutil",
    "pickle",
    "cPickle",
    "dill",
    "marshal",
    "shelve",
    "importlib",
    "runpy",
    "code",
    "pexpect",
];

const NETWORK_MODULES: &[&str] = &[
    "socket",
    "ssl",
    "socketserver",
    "requests",
    "urllib",
    "urllib2",
    "urllib3",
    "http",
    "httpx",
    "aiohttp",
    "websockets",
    "websocket",
    "ftplib",
    "smtplib",
    "telnetlib",
    "poplib",
    "imaplib",
    "nntplib",
    "xmlrpc",
    "paramiko",
    "asyncssh",
    "fabric",
    "pycurl",
    "twisted",
    "grpc",
    "scapy",
    "boto3",
    "botocore",
];

pub fn detect(a: &Analysis, out: &mut Vec<Signal>) {
    for (i, report) in &a.programs {
        if report.language != Language::Python {
            continue;
        }
        let Some(cmd) = a.commands.get(*i) else {
            continue;
        };
        program(*i, cmd, report, out);
        shared(*i, cmd, report, out);
    }
}

/// True when `module` (`urllib.request`) is `name` or inside it.
fn module_is(module: &str, name: &str) -> bool {
    module == name
        || module
            .strip_prefix(name)
            .is_some_and(|rest| rest.starts_with('.'))
}

fn program(i: usize, cmd: &Command, report: &Report, out: &mut Vec<Signal>) {
    // A template (`-c "$CODE"`) is not the real text: its parse errors mean nothing.
    if report.parse_incomplete && !report.dynamic {
        out.push(PYTHON_PARSE_INCOMPLETE.on(i, cmd, Vec::new()));
    }
    for finding in &report.findings {
        match finding {
            Finding::Import(module) => {
                if let Some(m) = DANGEROUS_MODULES.iter().find(|m| module_is(module, m)) {
                    once(out, &PYTHON_MODULE_IMPORT, i, cmd, m);
                }
                if let Some(m) = NETWORK_MODULES.iter().find(|m| module_is(module, m)) {
                    once(out, &PYTHON_NETWORK_MODULE, i, cmd, m);
                }
            }
            Finding::DynamicShell(call) => once(out, &PYTHON_DYNAMIC_SHELL_EXEC, i, cmd, call),
            Finding::DynamicExec(call) => once(out, &PYTHON_DYNAMIC_EXEC, i, cmd, call),
            Finding::Delete {
                path, recursive, ..
            } => {
                let path = path.as_deref().filter(|p| !expanded(report, p));
                delete(i, cmd, path, *recursive, out)
            }
            Finding::Write { path, .. } if expanded(report, path) => {}
            Finding::Write { path, .. } => {
                let norm = normalize(path);
                if is_block_device(&norm) {
                    once(out, &PYTHON_BLOCK_DEVICE_WRITE, i, cmd, path);
                } else if let Some(spec) = clobber_spec(&norm) {
                    once(out, spec, i, cmd, path);
                }
            }
            Finding::Spawn { .. } | Finding::Socket(_) | Finding::Dup2 => {}
        }
    }
}

/// A path from a template (`python3 <<EOF` with `$VAR` in it) that holds a shell expansion: its
/// value is only known at run time.
fn expanded(report: &Report, path: &str) -> bool {
    report.dynamic && path.contains('$')
}

fn delete(i: usize, cmd: &Command, path: Option<&str>, recursive: bool, out: &mut Vec<Signal>) {
    let Some(path) = path else {
        let spec = if recursive {
            &PYTHON_RMTREE_DYNAMIC
        } else {
            &PYTHON_FILE_DELETE
        };
        once(out, spec, i, cmd, "<runtime>");
        return;
    };
    let norm = normalize(path);
    let vital = clobber_spec(&norm).filter(|s| s.severity >= Severity::High);
    let spec = match (recursive, is_system_path(path)) {
        (true, true) => &PYTHON_RMTREE_SYSTEM_PATH,
        (true, false) => &PYTHON_RMTREE,
        (false, true) => &PYTHON_DELETE_SYSTEM_PATH,
        (false, false) if vital.is_some_and(|s| s.id != "SYSTEM_CONFIG_WRITE") => {
            // The reference's signal for a file outside its system-path list, then ours.
            once(out, &PYTHON_FILE_DELETE, i, cmd, path);
            &PYTHON_DELETE_SYSTEM_PATH
        }
        (false, false) => &PYTHON_FILE_DELETE,
    };
    once(out, spec, i, cmd, path);
    if let Some(v) = vital {
        once(out, v, i, cmd, path);
    }
}

/// Reverse shells and shell escapes, for every language: a socket plus a shell (or `dup2`
/// plumbing plus any process) is a reverse shell; starting a shell with no command is an escape.
pub fn shared(i: usize, cmd: &Command, report: &Report, out: &mut Vec<Signal>) {
    let mut socket = false;
    let mut dup2 = false;
    let mut spawn = false;
    let mut shell: Option<String> = None;
    for finding in &report.findings {
        match finding {
            Finding::Socket(_) => socket = true,
            Finding::Dup2 => dup2 = true,
            Finding::Spawn { call, argv } => {
                spawn = true;
                if let Some(program) = runs_shell(argv) {
                    shell.get_or_insert(format!("{call}: {program}"));
                    if interactive(argv) {
                        once(
                            out,
                            &INTERPRETER_SPAWNS_SHELL,
                            i,
                            cmd,
                            &format!("{call}: {program}"),
                        );
                    }
                }
            }
            _ => {}
        }
    }
    if socket && (shell.is_some() || dup2 && spawn) {
        let evidence = shell.unwrap_or_else(|| "socket + dup2".into());
        once(out, &SCRIPTED_REVERSE_SHELL, i, cmd, &evidence);
    }
}

/// The shell an argv starts, if its program is one (`/bin/sh`, `bash`).
fn runs_shell(argv: &[Option<String>]) -> Option<String> {
    let program = argv.first()?.as_deref()?;
    let base = program.trim_end_matches('/').rsplit('/').next()?;
    SHELLS.contains(&base).then(|| program.to_string())
}

/// A shell argv with no `-c` string and no script: it reads commands from the terminal.
fn interactive(argv: &[Option<String>]) -> bool {
    argv.iter().skip(1).all(|w| match w {
        Some(v) => v.starts_with('-') && !v.trim_start_matches('-').contains('c'),
        None => false,
    })
}

/// Pushes `spec` for command `i` unless it is already there (another family may have raised
/// it on the same command).
pub fn once(out: &mut Vec<Signal>, spec: &'static Spec, i: usize, cmd: &Command, evidence: &str) {
    let seen = out
        .iter()
        .any(|s| s.at == i && std::ptr::eq(s.spec, spec) && s.args.iter().any(|a| a == evidence))
        || out.iter().any(|s| {
            s.at == i
                && std::ptr::eq(s.spec, spec)
                && !matches!(spec.family, Family::Python | Family::Interpreter)
        });
    if !seen {
        out.push(spec.on(i, cmd, vec![evidence.to_string()]));
    }
}
