//! What a process asked to exec, read while the kernel holds it in `execve`/`execveat`: the path,
//! argv and environment from its memory (`/proc/PID/mem`, bounded in bytes and entries), and
//! what the judgement needs about the caller (its working directory, its own program, its parent
//! and its thread count, from `/proc/PID`). A process that cannot be read is refused by the
//! caller, never guessed at.

use std::fs::File;
use std::os::unix::ffi::OsStrExt;
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
    /// The program's path as given, made absolute against `execveat`'s directory descriptor
    /// (or named by it, for `AT_EMPTY_PATH`); relative to `cwd` otherwise.
    pub path: Vec<u8>,
    pub argv: Vec<Vec<u8>>,
    /// `NAME=value` entries.
    pub env: Vec<Vec<u8>>,
    pub cwd: PathBuf,
    /// The program that asks (the process's own executable, before the exec replaces it).
    pub caller: PathBuf,
    pub threads: u32,
    /// The descriptor `execveat` runs itself (`AT_EMPTY_PATH`, as `fexecve` calls it); `path`
    /// is then where that file was opened from.
    pub descriptor: Option<i32>,
}

#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("the process is gone")]
    Gone,
    #[error("cannot read the process's memory: {0}")]
    Memory(std::io::Error),
    #[error("the exec's path, arguments and environment exceed {0} bytes")]
    TooLarge(usize),
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
    let descriptor =
        (dirfd != AT_FDCWD && given.is_empty() && flags & AT_EMPTY_PATH != 0).then_some(dirfd);
    let path = if dirfd == AT_FDCWD || given.starts_with(b"/") {
        given
    } else {
        let dir = std::fs::read_link(proc.join("fd").join(dirfd.to_string()))
            .map_err(gone_or(ReadError::Memory))?;
        if descriptor.is_some() {
            dir.as_os_str().as_bytes().to_vec()
        } else {
            dir.join(std::ffi::OsStr::from_bytes(&given))
                .as_os_str()
                .as_bytes()
                .to_vec()
        }
    };
    let (ppid, threads) = stat_fields(&proc)?;
    Ok(ExecCall {
        pid,
        ppid,
        path,
        argv,
        env,
        cwd: std::fs::read_link(proc.join("cwd")).map_err(gone_or(ReadError::Memory))?,
        caller: std::fs::read_link(proc.join("exe")).unwrap_or_default(),
        threads,
        descriptor,
    })
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

/// `path` made absolute against the process's working directory.
pub fn absolute(call: &ExecCall) -> PathBuf {
    let path = Path::new(std::ffi::OsStr::from_bytes(&call.path));
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        call.cwd.join(path)
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
}
