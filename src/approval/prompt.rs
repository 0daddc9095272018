//! Typed confirmations. The requester's is written to and read from `/dev/tty` (never stdout or
//! stdin, which may carry a protocol), only when stdin and stderr are both terminals, and gives
//! up after a timeout. The approver's is read from stdin, terminal or not.

use std::io::{BufRead, IsTerminal, Write};
use std::time::Duration;

/// True when a person is plausibly at the keyboard: stdin and stderr are terminals.
pub fn on_terminal(stdin_tty: bool) -> bool {
    stdin_tty && std::io::stderr().is_terminal()
}

/// Shows `lines` on the controlling terminal and reads one answer line, within `timeout`.
/// `None` when there is no terminal, on error, or when the time ran out.
pub fn ask_tty(lines: &[String], question: &str, timeout: Duration) -> Option<String> {
    let mut tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .ok()?;
    for line in lines {
        writeln!(tty, "{line}").ok()?;
    }
    write!(tty, "{question}").ok()?;
    tty.flush().ok()?;
    let reader = tty.try_clone().ok()?;
    let (send, receive) = std::sync::mpsc::channel();
    // A blocked read cannot be interrupted portably; the thread is abandoned on timeout and
    // dies with the process (which then exits or execs).
    std::thread::spawn(move || {
        let mut answer = String::new();
        let ok = std::io::BufReader::new(reader)
            .read_line(&mut answer)
            .is_ok();
        let _ = send.send(ok.then_some(answer));
    });
    match receive.recv_timeout(timeout) {
        Ok(answer) => answer.map(|a| a.trim().to_string()),
        Err(_) => {
            let _ = writeln!(tty, "\n(no answer within {} s)", timeout.as_secs());
            None
        }
    }
}

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
