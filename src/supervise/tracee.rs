//! What a process asked to exec, read while the kernel holds it in `execve`/`execveat`: the path,
//! argv and environment from its memory (`/proc/PID/mem`, bounded in bytes and entries), and
//! what the judgement needs about the caller (its working directory, its own program, its parent
//! and its thread count, from `/proc/PID`). A process that cannot be read is refused by the
//! caller, never guessed at.

use std::fs::File;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// `AT_FDCWD` and `AT_EMPTY_PATH` as the kernel reads `execveat`'s arguments.
const AT_FDCWD: i32 = -100;
const AT_EMPTY_PATH: u64 = 0x1000;
/// Most argv or environment entries read (the kernel's own limit is about 2 MiB of them).
const MAX_ENTRIES: usize = 128 * 1024;
const PAGE: u64 = 4096;

/// Which of the two exec calls was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExecSyscall {
    Execve,
    Execveat,
}

/// One exec, as asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecCall {
    pub pid: u32,
    pub ppid: u32,
    /// The program's path as given, made absolute (against the working directory, or
    /// `execveat`'s directory descriptor); for an exec of an open file (`opened`), the path that
    /// file was opened from.
    pub path: Vec<u8>,
    pub argv: Vec<Vec<u8>>,
    /// `NAME=value` entries.
    pub env: Vec<Vec<u8>>,
    pub cwd: PathBuf,
    /// The program that asks (the process's own executable, before the exec replaces it).
    pub caller: PathBuf,
    pub threads: u32,
    /// The open file the kernel runs, named in the caller's `/proc` entry, where the exec goes
    /// through one: a descriptor (`execveat` with `AT_EMPTY_PATH`, as `fexecve` calls it) or a
    /// path through a `/proc` link (`/proc/self/fd/3`, `/dev/fd/3`, `/dev/stdin`,
    /// `/proc/self/exe`). `path` is then where that file was opened from.
    pub opened: Option<PathBuf>,
}

#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("the process is gone")]
    Gone,
    #[error("cannot read the process's memory: {0}")]
    Memory(std::io::Error),
    #[error("the exec's path, arguments and environment exceed {0} bytes")]
    TooLarge(usize),
    /// The exec names no file: it fails as the kernel would fail it.
    #[error("the exec names no file ({0})")]
    NoFile(nix::errno::Errno),
}

/// Reads the exec `pid` is making with the syscall's `args`, up to `max_bytes` of strings.
pub fn read(
    pid: u32,
    syscall: ExecSyscall,
    args: &[u64; 6],
    max_bytes: usize,
) -> Result<ExecCall, ReadError> {
    let proc = PathBuf::from(format!("/proc/{pid}"));
    let mem = File::open(proc.join("mem")).map_err(gone_or(ReadError::Memory))?;
    let mut reader = Reader {
        mem: &mem,
        budget: max_bytes,
        max_bytes,
        pages: Vec::new(),
    };
    let (dirfd, path_at, argv_at, envp_at, flags) = match syscall {
        ExecSyscall::Execve => (AT_FDCWD, args[0], args[1], args[2], 0),
        ExecSyscall::Execveat => (args[0] as i32, args[1], args[2], args[3], args[4]),
    };
    let given = reader.string(path_at)?;
    let argv = reader.strings(argv_at)?;
    let env = reader.strings(envp_at)?;
    let fd_link = |fd: i32| proc.join("fd").join(fd.to_string());
    // A closed descriptor fails the exec with EBADF, as the kernel would.
    let target_of = |link: &Path, errno| {
        std::fs::read_link(link).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => ReadError::NoFile(errno),
            _ => ReadError::Memory(e),
        })
    };
    let cwd = std::fs::read_link(proc.join("cwd")).map_err(gone_or(ReadError::Memory))?;
    let by_descriptor = dirfd != AT_FDCWD && given.is_empty() && flags & AT_EMPTY_PATH != 0;
    let (path, opened) = if by_descriptor {
        let link = fd_link(dirfd);
        let file = target_of(&link, nix::errno::Errno::EBADF)?;
        (file, Some(link))
    } else {
        let given = PathBuf::from(std::ffi::OsString::from_vec(given));
        let absolute = if given.is_absolute() {
            given
        } else if dirfd == AT_FDCWD {
            cwd.join(given)
        } else {
            target_of(&fd_link(dirfd), nix::errno::Errno::EBADF)?.join(given)
        };
        match through_proc(pid, &absolute) {
            Some((link, rest)) => {
                let file = target_of(&link, nix::errno::Errno::ENOENT)?;
                (joined(file, &rest), Some(joined(link, &rest)))
            }
            None => (absolute, None),
        }
    };
    let path = path.into_os_string().into_vec();
    let (ppid, threads) = stat_fields(&proc)?;
    Ok(ExecCall {
        pid,
        ppid,
        path,
        argv,
        env,
        cwd,
        caller: std::fs::read_link(proc.join("exe")).unwrap_or_default(),
        threads,
        opened,
    })
}

/// `rest` after `path` (`Path::join` of nothing would add a `/`).
fn joined(path: PathBuf, rest: &Path) -> PathBuf {
    if rest.as_os_str().is_empty() {
        path
    } else {
        path.join(rest)
    }
}

/// Most symbolic links followed in one path (the kernel's own limit).
const MAX_LINKS: usize = 40;

/// The `/proc` link an exec of `path` (absolute) goes through in process `pid`'s view, named by
/// its pid, if it goes through one. The path is resolved a component at a time as the kernel
/// resolves it for the caller: `/proc/self`, `/proc/thread-self` and `/dev/fd` name the caller
/// (not this process, which reads them), symbolic links are followed, and the first component
/// that is a `/proc/PID` link to an open file or directory (`fd/N`, `exe`, `cwd`, `root`,
/// `map_files/…`) ends it: that link, and the components left after it.
fn through_proc(pid: u32, path: &Path) -> Option<(PathBuf, PathBuf)> {
    use std::ffi::OsString;
    use std::path::Component;
    let own = PathBuf::from(format!("/proc/{pid}"));
    let push = |pending: &mut Vec<OsString>, path: &Path| {
        for c in path.components().rev() {
            match c {
                Component::Normal(name) => pending.push(name.to_os_string()),
                Component::ParentDir => pending.push("..".into()),
                Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
            }
        }
    };
    let mut pending = Vec::new();
    push(&mut pending, path);
    let mut at = PathBuf::from("/");
    let mut links = 0;
    while let Some(name) = pending.pop() {
        if name == ".." {
            at.pop();
            continue;
        }
        let mut next = at.join(&name);
        if next == Path::new("/proc/self") || next == Path::new("/proc/thread-self") {
            next = own.clone();
        } else if next == Path::new("/dev/fd") {
            next = own.join("fd");
        }
        if is_proc_link(&next) {
            let rest: PathBuf = pending.iter().rev().collect();
            return Some((next, rest));
        }
        match std::fs::symlink_metadata(&next) {
            Ok(m) if m.file_type().is_symlink() => {
                links += 1;
                if links > MAX_LINKS {
                    return None; // the kernel fails it (ELOOP)
                }
                let target = std::fs::read_link(&next).ok()?;
                if target.is_absolute() {
                    at = PathBuf::from("/");
                }
                push(&mut pending, &target);
            }
            _ => at = next,
        }
    }
    None
}

/// `/proc/PID/{fd/N,exe,cwd,root,map_files/X}`, also under `task/TID/`: a link the kernel
/// follows to an open file or directory, not to a name.
fn is_proc_link(path: &Path) -> bool {
    let parts: Vec<&std::ffi::OsStr> = path.iter().collect();
    let numeric =
        |p: &std::ffi::OsStr| !p.is_empty() && p.as_bytes().iter().all(u8::is_ascii_digit);
    let rest = match parts.as_slice() {
        [root, proc, pid, rest @ ..] if *root == "/" && *proc == "proc" && numeric(pid) => rest,
        _ => return false,
    };
    let rest = match rest {
        [task, tid, rest @ ..] if *task == "task" && numeric(tid) => rest,
        _ => rest,
    };
    match rest {
        [one] => *one == "exe" || *one == "cwd" || *one == "root",
        [dir, _] => *dir == "fd" || *dir == "map_files",
        _ => false,
    }
}

/// A process that vanished while it was read is [`ReadError::Gone`]; any other failure is `other`.
fn gone_or(other: fn(std::io::Error) -> ReadError) -> impl Fn(std::io::Error) -> ReadError {
    move |e| match e.kind() {
        std::io::ErrorKind::NotFound => ReadError::Gone,
        _ => other(e),
    }
}

/// The parent and the thread count of the process at `proc`, from its `stat` (one read; the
/// kernel makes it faster than `status`). Fields after the command name, which is in
/// parentheses and may hold anything: state, ppid (4th field), … num_threads (20th).
fn stat_fields(proc: &Path) -> Result<(u32, u32), ReadError> {
    use std::io::Read;
    // Its size shows as 0: one read of room enough (the name is at most 64 bytes, the 52
    // numbers at most 21 each), and the one that sees its end.
    let mut stat = Vec::with_capacity(2048);
    File::open(proc.join("stat"))
        .and_then(|f| f.take(64 * 1024).read_to_end(&mut stat))
        .map_err(gone_or(ReadError::Memory))?;
    let after = stat
        .iter()
        .rposition(|b| *b == b')')
        .map_or(&stat[..0], |at| &stat[at + 1..]);
    let fields: Vec<&[u8]> = after
        .split(|b| *b == b' ')
        .filter(|f| !f.is_empty())
        .collect();
    let number = |i: usize| {
        fields
            .get(i)
            .and_then(|f| std::str::from_utf8(f).ok())
            .and_then(|f| f.parse().ok())
    };
    // After the name: [0] state, [1] ppid, ..., [17] num_threads. Unreadable: more than one
    // thread, so the arguments are read twice.
    Ok((number(1).unwrap_or(0), number(17).unwrap_or(2)))
}

/// The parent of process `pid`, from its `/proc` status.
pub fn parent_of(pid: i32) -> Option<i32> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status_field(&status, "PPid:").and_then(|p| i32::try_from(p).ok())
}

fn status_field(status: &str, name: &str) -> Option<u32> {
    status
        .lines()
        .find_map(|l| l.strip_prefix(name))
        .and_then(|v| v.trim().parse().ok())
}

/// Reads strings and pointer arrays from another process's memory a whole page at a time (a
/// read never crosses into a page that may be unmapped), within a byte budget. The pages read
/// are kept for the rest of this exec's reading: the strings of one exec sit on a few pages,
/// and one read per page instead of one per string and per pointer is most of the cost of a
/// supervised exec.
struct Reader<'a> {
    mem: &'a File,
    budget: usize,
    max_bytes: usize,
    /// The pages read so far, by their address; the oldest is dropped past [`CACHED_PAGES`].
    pages: Vec<(u64, Vec<u8>)>,
}

/// Most pages kept while one exec is read.
const CACHED_PAGES: usize = 64;

impl Reader<'_> {
    /// Copies from `at` into `buf`, up to the end of `at`'s page; how much it copied.
    fn chunk(&mut self, at: u64, buf: &mut [u8]) -> Result<usize, ReadError> {
        let base = at - at % PAGE;
        let offset = (at - base) as usize;
        let page = self.page(base)?;
        let n = buf.len().min(page.len().saturating_sub(offset));
        if n == 0 {
            return Err(ReadError::Memory(std::io::Error::from(
                std::io::ErrorKind::UnexpectedEof,
            )));
        }
        buf[..n].copy_from_slice(&page[offset..offset + n]);
        Ok(n)
    }

    /// The page at `base`, read once.
    fn page(&mut self, base: u64) -> Result<&[u8], ReadError> {
        if let Some(i) = self.pages.iter().position(|(b, _)| *b == base) {
            return Ok(&self.pages[i].1);
        }
        let mut data = vec![0u8; PAGE as usize];
        let mut filled = 0;
        while filled < data.len() {
            match self.mem.read_at(&mut data[filled..], base + filled as u64) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if filled == 0 => return Err(ReadError::Memory(e)),
                Err(_) => break,
            }
        }
        data.truncate(filled);
        if self.pages.len() >= CACHED_PAGES {
            self.pages.remove(0);
        }
        self.pages.push((base, data));
        Ok(&self.pages[self.pages.len() - 1].1)
    }

    fn spend(&mut self, n: usize) -> Result<(), ReadError> {
        self.budget = self
            .budget
            .checked_sub(n)
            .ok_or(ReadError::TooLarge(self.max_bytes))?;
        Ok(())
    }

    /// The NUL-terminated string at `at` (without its NUL).
    fn string(&mut self, mut at: u64) -> Result<Vec<u8>, ReadError> {
        let mut out = Vec::new();
        let mut buf = [0u8; PAGE as usize];
        loop {
            let n = self.chunk(at, &mut buf)?;
            if let Some(end) = buf[..n].iter().position(|b| *b == 0) {
                self.spend(end + 1)?;
                out.extend_from_slice(&buf[..end]);
                return Ok(out);
            }
            self.spend(n)?;
            out.extend_from_slice(&buf[..n]);
            at += n as u64;
        }
    }

    /// The strings of the NULL-terminated pointer array at `at` (none for a NULL array).
    fn strings(&mut self, at: u64) -> Result<Vec<Vec<u8>>, ReadError> {
        let mut pointers = Vec::new();
        let mut next = at;
        let mut buf = [0u8; 8];
        if at == 0 {
            return Ok(Vec::new());
        }
        loop {
            if pointers.len() >= MAX_ENTRIES {
                return Err(ReadError::TooLarge(self.max_bytes));
            }
            let mut filled = 0;
            while filled < 8 {
                filled += self.chunk(next + filled as u64, &mut buf[filled..])?;
            }
            let pointer = u64::from_ne_bytes(buf);
            if pointer == 0 {
                break;
            }
            self.spend(8)?;
            pointers.push(pointer);
            next += 8;
        }
        pointers.into_iter().map(|p| self.string(p)).collect()
    }
}

impl ExecCall {
    /// The program's path (absolute).
    pub fn program(&self) -> &Path {
        Path::new(std::ffi::OsStr::from_bytes(&self.path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_gives_the_parent_and_the_threads() {
        let (ppid, threads) = stat_fields(Path::new("/proc/self")).unwrap();
        assert_eq!(ppid as i32, nix::unistd::getppid().as_raw());
        let tasks = std::fs::read_dir("/proc/self/task").unwrap().count() as u32;
        // The test harness may start or end a thread meanwhile: within one of the count.
        assert!(
            threads >= 1 && threads.abs_diff(tasks) <= 1,
            "{threads} {tasks}"
        );
    }

    #[test]
    fn reads_its_own_exec_shaped_memory() {
        // This process's own memory stands for a tracee's: a path, an argv and an envp laid out
        // as the kernel would read them.
        let path = b"/bin/echo\0".to_vec();
        let a0 = b"echo\0".to_vec();
        let a1 = b"hello world\0".to_vec();
        let e0 = b"LD_PRELOAD=/x.so\0".to_vec();
        let argv = [a0.as_ptr() as u64, a1.as_ptr() as u64, 0];
        let envp = [e0.as_ptr() as u64, 0];
        let args = [
            path.as_ptr() as u64,
            argv.as_ptr() as u64,
            envp.as_ptr() as u64,
            0,
            0,
            0,
        ];
        let call = read(std::process::id(), ExecSyscall::Execve, &args, 1 << 20).unwrap();
        assert_eq!(call.path, b"/bin/echo");
        assert_eq!(call.argv, vec![b"echo".to_vec(), b"hello world".to_vec()]);
        assert_eq!(call.env, vec![b"LD_PRELOAD=/x.so".to_vec()]);
        assert_eq!(call.pid, std::process::id());
        assert!(call.threads >= 1);
        // The byte budget holds.
        let small = read(std::process::id(), ExecSyscall::Execve, &args, 12);
        assert!(matches!(small, Err(ReadError::TooLarge(12))), "{small:?}");
        // A NULL argv is an empty one, as the kernel reads it.
        let no_argv = [path.as_ptr() as u64, 0, 0, 0, 0, 0];
        let call = read(std::process::id(), ExecSyscall::Execve, &no_argv, 1 << 20).unwrap();
        assert!(call.argv.is_empty() && call.env.is_empty());
        // An unmapped address is an error, not a guess.
        let bad = [8, 0, 0, 0, 0, 0];
        assert!(read(std::process::id(), ExecSyscall::Execve, &bad, 1 << 20).is_err());
    }

    #[test]
    fn links_to_open_files_are_found_in_the_callers_view() {
        for (path, link) in [
            ("/proc/12/fd/3", true),
            ("/proc/12/exe", true),
            ("/proc/12/cwd", true),
            ("/proc/12/task/13/fd/1", true),
            ("/proc/12/map_files/400000-401000", true),
            ("/proc/12/fd", false),
            ("/proc/self/fd/3", false),
            ("/proc/12/status", false),
            ("/tmp/proc/12/fd/3", false),
        ] {
            assert_eq!(is_proc_link(Path::new(path)), link, "{path}");
        }
        let dir = tempfile::tempdir().unwrap();
        let to_exe = dir.path().join("to-exe");
        std::os::unix::fs::symlink("/proc/self/exe", &to_exe).unwrap();
        let relative = dir.path().join("relative");
        std::os::unix::fs::symlink("../../proc/thread-self/fd/7", &relative).unwrap();
        let to_dev_fd = dir.path().join("to-dev-fd");
        std::os::unix::fs::symlink("/dev/fd/4", &to_dev_fd).unwrap();
        let through =
            |p: &Path| through_proc(4242, p).map(|(l, r)| joined(l, &r).display().to_string());
        let cases: Vec<(PathBuf, Option<&str>)> = vec![
            ("/proc/self/fd/0".into(), Some("/proc/4242/fd/0")),
            ("/dev/fd/1".into(), Some("/proc/4242/fd/1")),
            ("/proc/self/cwd/x.sh".into(), Some("/proc/4242/cwd/x.sh")),
            ("/proc/1/root/bin/sh".into(), Some("/proc/1/root/bin/sh")),
            (to_exe, Some("/proc/4242/exe")),
            (to_dev_fd, Some("/proc/4242/fd/4")),
            ("/bin/true".into(), None),
            ("/usr/bin/../bin/true".into(), None),
        ];
        for (path, want) in cases {
            assert_eq!(through(&path).as_deref(), want, "{}", path.display());
        }
        // A relative link climbs from where it is; the tempdir is two or more levels deep.
        let depth = dir.path().components().count();
        if depth == 3 {
            assert_eq!(through(&relative).as_deref(), Some("/proc/4242/fd/7"));
        }
    }
}
