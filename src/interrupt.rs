//! Signals during the decision. SIGTERM, SIGINT and SIGHUP are blocked from the first line of
//! the process (no handler, no `unsafe`): one that lands while the gate decides, or while a held
//! command waits for approval, is recorded as a final deny (nothing runs), and the process then
//! dies of that signal, as the real shell would have. A pending signal is taken at each step of
//! the decision ([`deciding`], [`release`]) through a non-blocking signalfd; before a wait that
//! can be long (a pipe read to its end, the approval prompt) [`watch`] starts one thread that
//! takes it at once. The common command starts no thread and reads no `/proc` file.

use crate::audit::{self, Record};
use crate::config::AuditConfig;
use crate::stderr::say;
use crate::verdict::{Effect, Stage, Verdict};
use nix::sys::signal::{pthread_sigmask, raise, SigSet, SigmaskHow, Signal};
use nix::sys::signalfd::{SfdFlags, SignalFd};
use std::os::fd::AsFd;
use std::sync::{Mutex, MutexGuard, Once};
use std::time::Instant;

/// The stable reason id of a decision cut short by a signal.
pub const REASON_ID: &str = "interrupted";

/// The signals that end a decision with a record.
const TERMINATING: [Signal; 3] = [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP];

/// What a signal taken now does.
enum State {
    /// No decision under way yet (arguments, configuration) or none at all (help, review,
    /// the check server): a signal is not recorded, it only ends the process.
    Idle,
    /// A decision is under way: the record to finish, where to write it, and when it began.
    Deciding {
        record: Box<Record>,
        audit: Box<AuditConfig>,
        started: Instant,
    },
    /// The decision is final and the mask restored for the exec: a signal ends the process
    /// as it would have ended the real shell, and is not recorded.
    Released,
}

/// What [`arm`] did: the mask the process started with (restored before the exec) and the
/// terminating signals it blocked that the process did not start with blocked.
struct Armed {
    original: SigSet,
    blocked: SigSet,
    pending: Option<SignalFd>,
}

static STATE: Mutex<State> = Mutex::new(State::Idle);
static ARMED: Mutex<Option<Armed>> = Mutex::new(None);
static WATCHER: Once = Once::new();

/// Blocks the terminating signals the process did not start with blocked. Call it before any
/// other thread starts (threads inherit the mask). Without it (an error), signals keep their
/// default effect: no record, nothing run.
pub fn arm() {
    let mut wanted = SigSet::empty();
    TERMINATING.into_iter().for_each(|s| wanted.add(s));
    let mut original = SigSet::empty();
    if pthread_sigmask(SigmaskHow::SIG_BLOCK, Some(&wanted), Some(&mut original)).is_err() {
        return;
    }
    let mut blocked = SigSet::empty();
    for signal in TERMINATING.into_iter().filter(|s| !original.contains(*s)) {
        blocked.add(signal);
    }
    let pending = SignalFd::with_flags(&blocked, SfdFlags::SFD_NONBLOCK | SfdFlags::SFD_CLOEXEC);
    let Ok(pending) = pending else {
        // Nothing could take them: back to the mask the process was given.
        let _ = pthread_sigmask(SigmaskHow::SIG_SETMASK, Some(&original), None);
        return;
    };
    *lock(&ARMED) = Some(Armed {
        original,
        blocked,
        pending: Some(pending),
    });
}

/// From now on a signal ends the decision with `record` (its verdict replaced by the
/// interruption): the record of the command as far as it is decided, under its decision id. A
/// signal that came during the step before ends it with that step's record first.
pub fn deciding(record: &Record, audit: &AuditConfig, started: Instant) {
    take_pending();
    let mut state = lock(&STATE);
    if !matches!(*state, State::Released) {
        *state = State::Deciding {
            record: Box::new(record.clone()),
            audit: Box::new(audit.clone()),
            started,
        };
    }
}

/// A wait that can be long follows: from now on a signal is taken at once, by a thread that
/// waits for it (started once, only for such waits).
pub fn watch() {
    let Some(waited) = waited_signals() else {
        return;
    };
    WATCHER.call_once(|| {
        let Ok(fd) = SignalFd::with_flags(&waited, SfdFlags::SFD_NONBLOCK | SfdFlags::SFD_CLOEXEC)
        else {
            return;
        };
        let _ = spawn_deaf("guarded-sh-signals", 256 * 1024, move || {
            take_when_it_comes(fd)
        });
    });
}

/// The signals a terminal's keys send to its foreground process group: Ctrl-C, Ctrl-\\, Ctrl-Z.
const KEYBOARD: [Signal; 3] = [Signal::SIGINT, Signal::SIGQUIT, Signal::SIGTSTP];

/// Blocks the signals of a terminal's keys, for a process that shares the foreground process
/// group of a session it serves and must outlive every key pressed there (the check server, a
/// coprocess in bash's own group: a Ctrl-C at the prompt ended it, and a Ctrl-Z stopped it, so
/// the session's next check waited for it). They stay pending; a wait that gives up on Ctrl-C
/// takes SIGINT through [`next_interrupt`].
pub fn deaf_to_the_keyboard() -> nix::Result<()> {
    let mut keys = SigSet::empty();
    KEYBOARD.into_iter().for_each(|s| keys.add(s));
    pthread_sigmask(SigmaskHow::SIG_BLOCK, Some(&keys), None)
}

/// For a wait that a long-lived process gives up, and goes on, when the user presses Ctrl-C (the
/// check server's approval prompt): a descriptor that becomes readable on the next SIGINT, the
/// ones that came before it dropped (a Ctrl-C at the session's prompt reaches the server too).
/// `None` when SIGINT is not blocked here, so it would end the process instead.
pub fn next_interrupt() -> Option<SignalFd> {
    let mut mask = SigSet::empty();
    pthread_sigmask(SigmaskHow::SIG_BLOCK, None, Some(&mut mask)).ok()?;
    if !mask.contains(Signal::SIGINT) {
        return None;
    }
    let mut set = SigSet::empty();
    set.add(Signal::SIGINT);
    let fd = SignalFd::with_flags(&set, SfdFlags::SFD_NONBLOCK | SfdFlags::SFD_CLOEXEC).ok()?;
    while let Ok(Some(_)) = fd.read_signal() {}
    Some(fd)
}

/// Starts a thread with every signal blocked from its first instruction: it takes the ones it
/// wants through a signalfd, and a signal sent to the process (a child's SIGCHLD, the
/// terminal's SIGQUIT or SIGTSTP) is never delivered to it at its default disposition, where it
/// would be lost or would end the process, but stays for the thread that waits for it.
pub fn spawn_deaf<F>(
    name: &str,
    stack: usize,
    run: F,
) -> std::io::Result<std::thread::JoinHandle<()>>
where
    F: FnOnce() + Send + 'static,
{
    let mut before = SigSet::empty();
    pthread_sigmask(
        SigmaskHow::SIG_BLOCK,
        Some(&SigSet::all()),
        Some(&mut before),
    )?;
    let spawned = std::thread::Builder::new()
        .name(name.into())
        .stack_size(stack)
        .spawn(run);
    pthread_sigmask(SigmaskHow::SIG_SETMASK, Some(&before), None)?;
    spawned
}

/// The waiting thread: waits until a signal is pending, then takes it only while the decision
/// is not yet final. After [`release`] it leaves the signal pending, so it reaches the process
/// (and, across the exec, the real shell) as it would have without guarded-sh: never lost.
fn take_when_it_comes(fd: SignalFd) {
    use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
    loop {
        let mut ready = [PollFd::new(fd.as_fd(), PollFlags::POLLIN)];
        match poll(&mut ready, PollTimeout::NONE) {
            Ok(_) | Err(nix::Error::EINTR) => {}
            Err(_) => return,
        }
        let state = lock(&STATE);
        if matches!(*state, State::Released) {
            return;
        }
        if let Ok(Some(info)) = fd.read_signal() {
            if let Ok(signal) = Signal::try_from(info.ssi_signo as i32) {
                finish_with(signal, state);
            }
        }
    }
}

/// The decision is final: a signal that came before now is still recorded, later ones are
/// not, and this thread gets back the mask the process started with (so the exec, which keeps
/// the mask, hands the real shell exactly that one). Blocks while a signal's record is being
/// written; the process then dies of it.
pub fn release() {
    take_pending();
    let mut state = lock(&STATE);
    *state = State::Released;
    let mut armed = lock(&ARMED);
    if let Some(armed) = armed.as_mut() {
        armed.pending = None;
        let _ = pthread_sigmask(SigmaskHow::SIG_SETMASK, Some(&armed.original), None);
    }
}

/// Takes a terminating signal that is pending, if any: one the process started with ignored is
/// dropped (a background job's SIGINT must not end the command), any other ends it.
fn take_pending() {
    loop {
        let taken = {
            let mut armed = lock(&ARMED);
            let Some(fd) = armed.as_mut().and_then(|a| a.pending.as_mut()) else {
                return;
            };
            match fd.read_signal() {
                Ok(Some(info)) => Signal::try_from(info.ssi_signo as i32).ok(),
                _ => return,
            }
        };
        if let Some(signal) = taken {
            if !ignored_signals().contains(&signal) {
                finish(signal);
            }
        }
    }
}

/// The blocked terminating signals the process did not start with ignored; `None` when there
/// is none (nothing was armed).
fn waited_signals() -> Option<SigSet> {
    let armed = lock(&ARMED);
    let blocked = armed.as_ref()?.blocked;
    let ignored = ignored_signals();
    let mut set = SigSet::empty();
    for signal in TERMINATING {
        if blocked.contains(signal) && !ignored.contains(&signal) {
            set.add(signal);
        }
    }
    set.iter().next().map(|_| set)
}

/// Records `signal`'s end of the decision under way, if one is, and ends the process with it.
/// The state stays locked throughout, so the exec can never follow.
fn finish(signal: Signal) -> ! {
    finish_with(signal, lock(&STATE))
}

fn finish_with(signal: Signal, state: MutexGuard<'_, State>) -> ! {
    if let State::Deciding {
        record,
        audit,
        started,
    } = &*state
    {
        let held = record.verdict.effect == Effect::Held;
        let mut last = (**record).clone();
        last.verdict = interrupted(signal, record.verdict.effect);
        last.time = audit::now_rfc3339();
        last.duration_us = started.elapsed().as_micros() as u64;
        // At the prompt the cursor is after the question.
        let line_break = if held { "\n" } else { "" };
        say(&format!(
            "{line_break}guarded-sh: denied: {}",
            last.verdict.reason
        ));
        audit::record(audit, &last);
    }
    die_of(signal, state);
}

/// The verdict of a decision cut short by `signal`.
/// `so_far` is the effect decided when it came: held (at the prompt), allowed (approved, not yet
/// run), or none yet.
pub fn interrupted(signal: Signal, so_far: Effect) -> Verdict {
    let when = match so_far {
        Effect::Held => "while waiting for approval",
        Effect::Allow => "before the allowed command ran",
        Effect::Deny => "before a decision",
    };
    Verdict::deny(
        Stage::Error,
        REASON_ID,
        format!("interrupted by {} {when}; nothing was run", signal.as_str()),
    )
}

/// The signals ignored at start, from `SigIgn` in /proc/self/status (the safe way to read a
/// disposition).
fn ignored_signals() -> Vec<Signal> {
    ignored_in(&std::fs::read_to_string("/proc/self/status").unwrap_or_default())
}

/// Which of ours a `/proc/PID/status` text says are ignored; all of them when it says nothing
/// readable, so that nothing is taken that should not be.
fn ignored_in(status: &str) -> Vec<Signal> {
    let mask = status
        .lines()
        .find_map(|l| l.strip_prefix("SigIgn:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok());
    TERMINATING
        .into_iter()
        .filter(|&s| mask.is_none_or(|m| m & (1u64 << (s as i32 - 1)) != 0))
        .collect()
}

/// Ends the process with `signal` at its default disposition, so the caller sees what the real
/// shell killed by it would show (a calling shell stops its script on a child's SIGINT, not on
/// status 130); 128 + the signal number if it somehow survives.
fn die_of(signal: Signal, _held: MutexGuard<'_, State>) -> ! {
    let mut only = SigSet::empty();
    only.add(signal);
    let _ = pthread_sigmask(SigmaskHow::SIG_UNBLOCK, Some(&only), None);
    let _ = raise(signal);
    std::process::exit(128 + signal as i32)
}

/// A lock that a panicking holder did not poison for the rest (the state stays meaningful).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignored_signals_are_read_from_the_status_mask() {
        let status = |ign: &str| format!("Name:\tx\nSigBlk:\t0000000000000000\nSigIgn:\t{ign}\n");
        // SIGHUP is bit 0, SIGINT bit 1, SIGTERM bit 14.
        assert_eq!(ignored_in(&status("0000000000000000")), vec![]);
        assert_eq!(
            ignored_in(&status("0000000000000002")),
            vec![Signal::SIGINT]
        );
        assert_eq!(
            ignored_in(&status("0000000000004001")),
            vec![Signal::SIGTERM, Signal::SIGHUP]
        );
        assert_eq!(ignored_in("no such line"), TERMINATING.to_vec());
        assert_eq!(ignored_in(&status("zz")), TERMINATING.to_vec());
    }

    #[test]
    fn the_interrupted_verdict_says_what_happened() {
        let v = interrupted(Signal::SIGTERM, Effect::Deny);
        assert_eq!((v.effect, v.reason_id), (Effect::Deny, REASON_ID));
        assert_eq!(
            v.reason,
            "interrupted by SIGTERM before a decision; nothing was run"
        );
        let held = interrupted(Signal::SIGINT, Effect::Held);
        assert_eq!(
            held.reason,
            "interrupted by SIGINT while waiting for approval; nothing was run"
        );
    }
}
