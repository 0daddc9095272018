//! Typed confirmations. The requester's is written to and read from `/dev/tty` (never stdout or
//! stdin, which may carry a protocol), only when stdin and stderr are both terminals, and gives
//! up after a timeout or when told to. The approver's is read from stdin, terminal or not.

use nix::errno::Errno;
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use std::io::{BufRead, IsTerminal, Write};
use std::os::fd::{AsFd, BorrowedFd};
use std::time::{Duration, Instant};

/// True when a person is plausibly at the keyboard: stdin and stderr are terminals.
pub fn on_terminal(stdin_tty: bool) -> bool {
    stdin_tty && std::io::stderr().is_terminal()
}

/// Shows `lines` on the controlling terminal and reads one answer line, within `timeout`.
/// `None` when there is no terminal, on error, when the time ran out, or when one of `cancel`
/// became readable first (the session's check server gives up on Ctrl-C, or when the session
/// sends its next request). Waits by `poll`, never in a thread left behind: a long-lived
/// process (the check server) must not go on reading the terminal after it gave up.
pub fn ask_tty(
    lines: &[String],
    question: &str,
    timeout: Duration,
    cancel: &[BorrowedFd],
) -> Option<String> {
    let mut tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .ok()?;
    // Only what is typed after the question answers it: a pasted block that carries its own
    // answer (`cmd⏎web-1⏎`) must not confirm itself.
    let _ = nix::sys::termios::tcflush(&tty, nix::sys::termios::FlushArg::TCIFLUSH);
    for line in lines {
        writeln!(tty, "{line}").ok()?;
    }
    write!(tty, "{question}").ok()?;
    tty.flush().ok()?;
    let deadline = Instant::now() + timeout;
    let mut typed = Vec::new();
    loop {
        if let Some(end) = typed.iter().position(|b| matches!(b, b'\n' | b'\r')) {
            return Some(String::from_utf8_lossy(&typed[..end]).trim().to_string());
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || typed.len() > MAX_ANSWER {
            let _ = writeln!(tty, "\n(no answer within {} s)", timeout.as_secs());
            return None;
        }
        let mut fds: Vec<PollFd> = std::iter::once(tty.as_fd())
            .chain(cancel.iter().copied())
            .map(|fd| PollFd::new(fd, PollFlags::POLLIN))
            .collect();
        let millis = u16::try_from(left.as_millis()).unwrap_or(u16::MAX);
        match poll(&mut fds, PollTimeout::from(millis)) {
            Ok(0) | Err(Errno::EINTR) => continue,
            Ok(_) => {}
            Err(_) => return None,
        }
        let ready = |fd: &PollFd| fd.revents().is_some_and(|r| !r.is_empty());
        let (answered, cancelled) = (ready(&fds[0]), fds[1..].iter().any(ready));
        drop(fds);
        if cancelled {
            let _ = writeln!(tty, "\n(cancelled)");
            return None;
        }
        if answered {
            // One typed line in canonical mode; a character at a time in raw mode.
            let mut chunk = [0u8; 256];
            match std::io::Read::read(&mut tty, &mut chunk) {
                Ok(0) | Err(_) => return None,
                Ok(n) => typed.extend_from_slice(&chunk[..n]),
            }
        }
    }
}

/// The longest answer read: a host name is far shorter.
const MAX_ANSWER: usize = 4096;

/// Reads the approver's answer from stdin (one line, trimmed).
pub fn ask_stdin(question: &str) -> Option<String> {
    eprint!("{question}");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    match std::io::stdin().lock().read_line(&mut answer) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(answer.trim().to_string()),
    }
}

/// Control characters shown as escapes, so a command cannot repaint the approver's terminal.
pub fn visible(text: &str) -> String {
    text.chars()
        .flat_map(|c| match c {
            '\n' | '\t' => vec![c],
            c if c.is_control() => c.escape_default().collect(),
            c => vec![c],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visible_escapes_control_characters() {
        assert_eq!(visible("ls\x1b[2J\n\trm"), "ls\\u{1b}[2J\n\trm");
    }
}
