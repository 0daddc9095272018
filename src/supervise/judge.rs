//! An exec as the gate sees it. Its words are already expanded, so the command line is each word
//! quoted, led by the loader and shell variables that make a program run other code
//! ([`INJECTING`]) where the caller changed them; the program is named by the path the kernel
//! runs, and by `argv[0]` too where that names another program (a multi-call binary decides by
//! it). Whether the caller is a shell decides whether an interactive shell it starts is a shell
//! escape. What is refused before the gate is here too: the supervisor's own entry, and in
//! `enforce` mode setuid and setgid programs (`no_new_privs` would run them unprivileged).

use super::child;
use super::tracee::ExecCall;
use crate::ir::shell_quote;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Environment variables that make the loader or a shell run code of their choosing: a caller
/// that sets or changes one is judged as if it had written the assignment.
pub const INJECTING: &[&str] = &[
    "LD_PRELOAD",
    "LD_AUDIT",
    "LD_LIBRARY_PATH",
    "BASH_ENV",
    "ENV",
];

/// What the gate is asked about one exec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Judged {
    /// The command line: assignments, the program's path, its arguments.
    pub text: String,
    /// The caller's program name when it is not a shell.
    pub started_by: Option<String>,
}

/// Why an exec is refused before the gate.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("guarded-sh's supervised entry may not be started inside a supervised command (only guarded-sh itself starts it)")]
    SupervisorEntry,
    #[error("{0} is setuid or setgid, and under exec supervision it would run without its privilege ([supervise] mode = \"enforce\" in {1}): run it from an account that is not supervised")]
    Privileged(String, String),
    #[error("{0} is run through an open file ({1}) that is not the file at that path (a memfd, or a file deleted or replaced since it was opened): what it holds cannot be judged")]
    Descriptor(String, String),
}

impl Refusal {
    pub fn reason_id(&self) -> &'static str {
        match self {
            Refusal::SupervisorEntry => "supervise.entry",
            Refusal::Privileged(..) => "supervise.setuid",
            Refusal::Descriptor(..) => "supervise.descriptor",
        }
    }
}

/// The gate's question for `call`. `start_env` is the environment the supervised command was
/// started with: an injecting variable it already had, unchanged, was judged with it.
pub fn judge(call: &ExecCall, start_env: &[Vec<u8>]) -> Judged {
    let mut words: Vec<String> = call
        .env
        .iter()
        .filter(|entry| injecting(entry) && !start_env.contains(entry))
        .map(|entry| assignment(entry))
        .collect();
    words.push(quote(&call.path));
    words.extend(call.argv.iter().skip(1).map(|a| quote(a)));
    let mut text = words.join(" ");
    if let Some(other) = other_program(call) {
        // Both names, as two commands: each is judged, the strictest wins.
        let mut again = vec![quote(&other)];
        again.extend(call.argv.iter().skip(1).map(|a| quote(a)));
        text.push('\n');
        text.push_str(&again.join(" "));
    }
    Judged {
        text,
        started_by: (!is_shell(&call.caller))
            .then(|| base_name(call.caller.as_os_str().as_bytes())),
    }
}

/// Refusals that come before the gate: the supervisor's own entry and a descriptor whose file
/// is not at its path always, a privileged program when `enforce` (`config_file` is named in
/// the message). `program` is what the exec's path names (links followed), when it could be
/// looked at; `opened` the file a descriptor exec runs (`/proc/PID/fd/N` followed).
pub fn refusal(
    call: &ExecCall,
    program: Option<&std::fs::Metadata>,
    opened: Option<&std::fs::Metadata>,
    enforce: bool,
    config_file: &Path,
) -> Option<Refusal> {
    if call
        .argv
        .get(1)
        .is_some_and(|a| a == child::FLAG.as_bytes())
    {
        return Some(Refusal::SupervisorEntry);
    }
    // The gate judges the file at the path; the kernel runs the descriptor's.
    if let Some(link) = &call.opened {
        let same = matches!((opened, program), (Some(a), Some(b)) if (a.dev(), a.ino()) == (b.dev(), b.ino()));
        if !same {
            return Some(Refusal::Descriptor(
                String::from_utf8_lossy(&call.path).into_owned(),
                link.display().to_string(),
            ));
        }
    }
    if !enforce {
        return None;
    }
    match program {
        Some(m) if m.is_file() && m.mode() & 0o6000 != 0 => Some(Refusal::Privileged(
            call.program().display().to_string(),
            config_file.display().to_string(),
        )),
        _ => None,
    }
}

fn injecting(entry: &[u8]) -> bool {
    let name = entry.split(|b| *b == b'=').next().unwrap_or_default();
    INJECTING.iter().any(|n| n.as_bytes() == name)
}

/// `NAME=value` as a shell assignment word.
fn assignment(entry: &[u8]) -> String {
    match entry.iter().position(|b| *b == b'=') {
        Some(eq) => format!(
            "{}={}",
            String::from_utf8_lossy(&entry[..eq]),
            quote(&entry[eq + 1..])
        ),
        None => quote(entry),
    }
}

/// `argv[0]` where it names a different program than the path: a basename of its own, not a
/// login shell's `-NAME`, not empty.
fn other_program(call: &ExecCall) -> Option<Vec<u8>> {
    let argv0 = call.argv.first()?;
    let name = base_name(argv0);
    let name = name.strip_prefix('-').unwrap_or(&name);
    if name.is_empty() || name == base_name(&call.path) {
        return None;
    }
    Some(argv0.clone())
}

/// A word for the shell, exactly: single quotes for text, `$'…'` with `\xNN` for bytes that are
/// not UTF-8 (the analysis decodes both).
pub fn quote(word: &[u8]) -> String {
    if let Ok(text) = std::str::from_utf8(word) {
        if !text.contains('\0') {
            return shell_quote(text);
        }
    }
    let mut out = String::from("$'");
    for &b in word {
        match b {
            b'\'' | b'\\' => {
                out.push('\\');
                out.push(b as char);
            }
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push('\'');
    out
}

fn base_name(path: &[u8]) -> String {
    let name = path.rsplit(|b| *b == b'/').next().unwrap_or(path);
    String::from_utf8_lossy(name).into_owned()
}

/// Whether `program` (a caller's executable) is a shell or guarded-sh itself.
fn is_shell(program: &Path) -> bool {
    let name = base_name(program.as_os_str().as_bytes());
    if crate::programs::SHELLS.contains(&name.as_str()) || name == "guarded-sh" {
        return true;
    }
    // guarded-sh installed under another name (a `sh` shim is a link to it).
    let own = std::fs::metadata("/proc/self/exe");
    let theirs = std::fs::metadata(program);
    matches!((own, theirs), (Ok(a), Ok(b)) if (a.dev(), a.ino()) == (b.dev(), b.ino()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(path: &str, argv: &[&str], env: &[&str], caller: &str) -> ExecCall {
        ExecCall {
            pid: 1,
            ppid: 0,
            path: path.as_bytes().to_vec(),
            argv: argv.iter().map(|a| a.as_bytes().to_vec()).collect(),
            env: env.iter().map(|e| e.as_bytes().to_vec()).collect(),
            cwd: "/tmp".into(),
            caller: caller.into(),
            threads: 1,
            opened: None,
        }
    }

    #[test]
    fn the_command_line_of_an_exec() {
        let cases: &[(ExecCall, &str, Option<&str>)] = &[
            (
                call(
                    "/usr/bin/rm",
                    &["rm", "-rf", "/tmp/a b"],
                    &[],
                    "/usr/bin/bash",
                ),
                "/usr/bin/rm -rf '/tmp/a b'",
                None,
            ),
            (
                call(
                    "/bin/sh",
                    &["sh", "-c", "echo 'x'"],
                    &[],
                    "/usr/bin/vim.basic",
                ),
                "/bin/sh -c 'echo '\"'\"'x'\"'\"''",
                Some("vim.basic"),
            ),
            // argv[0] names another program: both are judged.
            (
                call("/bin/busybox", &["rm", "-rf", "/"], &[], "/usr/bin/bash"),
                "/bin/busybox -rf /\nrm -rf /",
                None,
            ),
            // A login shell's argv[0] is the same program.
            (
                call("/bin/bash", &["-bash"], &[], "/usr/sbin/sshd"),
                "/bin/bash",
                Some("sshd"),
            ),
            // An injecting variable the caller set is part of the command; others are not.
            (
                call(
                    "/bin/ls",
                    &["ls"],
                    &["LD_PRELOAD=/tmp/x.so", "HOME=/root"],
                    "/usr/bin/python3.11",
                ),
                "LD_PRELOAD=/tmp/x.so /bin/ls",
                Some("python3.11"),
            ),
        ];
        for (call, text, started_by) in cases {
            let judged = judge(call, &[]);
            assert_eq!(judged.text, *text, "{call:?}");
            assert_eq!(judged.started_by.as_deref(), *started_by, "{call:?}");
        }
    }

    #[test]
    fn an_injecting_variable_the_command_started_with_is_not_judged_again() {
        let c = call(
            "/bin/ls",
            &["ls"],
            &["LD_LIBRARY_PATH=/opt/lib"],
            "/usr/bin/bash",
        );
        assert_eq!(
            judge(&c, &[b"LD_LIBRARY_PATH=/opt/lib".to_vec()]).text,
            "/bin/ls"
        );
        let changed = call(
            "/bin/ls",
            &["ls"],
            &["LD_LIBRARY_PATH=/tmp/evil"],
            "/usr/bin/bash",
        );
        assert_eq!(
            judge(&changed, &[b"LD_LIBRARY_PATH=/opt/lib".to_vec()]).text,
            "LD_LIBRARY_PATH=/tmp/evil /bin/ls"
        );
    }

    #[test]
    fn bytes_that_are_not_utf8_are_quoted_exactly() {
        assert_eq!(quote(b"a\xffb'"), "$'a\\xffb\\''");
        assert_eq!(quote(b"plain"), "plain");
        assert_eq!(quote(b""), "''");
    }

    #[test]
    fn the_supervised_entry_is_refused_inside_supervision() {
        let c = call(
            "/usr/local/bin/guarded-sh",
            &["guarded-sh", child::FLAG, "x"],
            &[],
            "/bin/bash",
        );
        assert_eq!(
            refusal(&c, None, None, false, Path::new("/c")),
            Some(Refusal::SupervisorEntry)
        );
        let plain = call("/bin/true", &["true"], &[], "/bin/bash");
        let true_program = std::fs::metadata("/bin/true").ok();
        assert_eq!(
            refusal(&plain, true_program.as_ref(), None, true, Path::new("/c")),
            None
        );
    }

    #[test]
    fn a_descriptor_exec_is_judged_only_when_its_file_is_at_its_path() {
        let mut c = call("/bin/true", &["true"], &[], "/usr/bin/python3");
        c.opened = Some("/proc/1/fd/3".into());
        let at_path = std::fs::metadata("/bin/true").ok();
        let other = std::fs::metadata("/bin/sh").ok();
        let config = Path::new("/c");
        assert_eq!(
            refusal(&c, at_path.as_ref(), at_path.as_ref(), true, config),
            None
        );
        for (program, opened) in [
            (at_path.as_ref(), other.as_ref()),
            (None, at_path.as_ref()),
            (at_path.as_ref(), None),
        ] {
            let refused = refusal(&c, program, opened, false, config);
            assert_eq!(
                refused,
                Some(Refusal::Descriptor(
                    "/bin/true".into(),
                    "/proc/1/fd/3".into()
                )),
                "{program:?} {opened:?}"
            );
        }
    }
}
