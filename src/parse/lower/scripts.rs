//! Script files read during the one analysis: the files a command runs (as a shell script or by
//! path) or feeds to an interpreter are asked of the caller's reader when the command is lowered, each path once, at
//! most `MAX_FILES` per analysis and at most `MAX_FILE_NESTING` scripts deep.

use super::Lowerer;
use crate::ir::{Code, Command, Origin, Stdin, PROCESS_STDIN};
use crate::parse::ReadScript;

/// Most script files asked for in one analysis (read or not).
const MAX_FILES: usize = 16;
/// Most levels of scripts run by scripts whose files are read (`python3 a.py`, where `a.py`
/// runs `b.py`, which runs `c.py`: `c.py`'s own scripts are not read).
const MAX_FILE_NESTING: usize = 3;

/// The reader and what it was asked.
pub(super) struct Scripts<'l> {
    read: &'l mut ReadScript<'l>,
    /// Every path asked for, in order, whether it could be read or not.
    asked: Vec<String>,
    /// The script files whose programs are being lowered, outermost first.
    open: Vec<String>,
}

impl<'l> Scripts<'l> {
    pub(super) fn new(read: &'l mut ReadScript<'l>) -> Self {
        Scripts {
            read,
            asked: Vec::new(),
            open: Vec::new(),
        }
    }

    /// `path` is known from the text itself (written earlier in it): never read from disk.
    pub(super) fn mark_asked(&mut self, path: String) {
        if !self.asked.contains(&path) {
            self.asked.push(path);
        }
    }
}

impl Lowerer<'_> {
    /// Reads the script files `cmd` names that were not asked for yet, into `Analysis::scripts`.
    pub(super) fn read_scripts(&mut self, index: usize, cmd: &Command) {
        let mut paths = self.interpreters.script_paths(cmd);
        if let Some(path) = crate::parse::unwrap::shell_script_path(cmd) {
            if !paths.iter().any(|p| p == path) {
                paths.push(path.to_string());
            }
        }
        if crate::parse::unwrap::reads_process_stdin(cmd) {
            paths.push(PROCESS_STDIN.to_string());
        }
        // Every reader of the process's stdin is recorded, past the bounds too: two of them do
        // not read the same program.
        if paths.iter().any(|p| p == PROCESS_STDIN) {
            self.out.stdin_programs.push(index);
        }
        if self.scripts.open.len() >= MAX_FILE_NESTING {
            return;
        }
        for path in paths {
            if self.scripts.asked.contains(&path) {
                continue;
            }
            if self.scripts.asked.len() >= MAX_FILES {
                return;
            }
            if let Some(text) = (self.scripts.read)(&path) {
                self.out.scripts.insert(path.clone(), text);
            }
            self.scripts.asked.push(path);
        }
    }

    /// Marks `file` as being lowered; false when it already is (a script that runs itself,
    /// directly or through others), so its program is not lowered again inside itself.
    pub(super) fn open_script(&mut self, file: &str) -> bool {
        if self.scripts.open.iter().any(|f| f == file) {
            return false;
        }
        self.scripts.open.push(file.to_string());
        true
    }

    pub(super) fn close_script(&mut self) {
        self.scripts.open.pop();
    }
}

/// The script file a program's text was read from: its own (`python3 x.py`, `./x.py`) or the
/// one on its stdin (`python3 < x.py`); `None` for inline code, heredocs and pipes.
pub(super) fn source_file<'c>(code: &'c Code, cmd: &'c Command) -> Option<&'c str> {
    match (&code.origin, &cmd.stdin) {
        (Origin::File(path), _) => Some(path),
        (Origin::Stdin, Stdin::File(word)) => word.value(),
        _ => None,
    }
}
