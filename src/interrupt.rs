//! Signals during the decision. SIGTERM, SIGINT and SIGHUP are blocked from the first line of
//! the process and taken by one waiting thread (no handler, no `unsafe`): one that lands while
//! the gate decides, or while a held command waits for approval, is recorded as a final deny
//! (nothing runs), and the process then dies of that signal, as the real shell would have.

use crate::app::say;
use crate::audit::{self, Record};
use crate::config::AuditConfig;
use crate::verdict::{Effect, Stage, Verdict};
use nix::sys::signal::{pthread_sigmask, raise, SigSet, SigmaskHow, Signal};
use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

/// The stable reason id of a decision cut short by a signal.
pub const REASON_ID: &str = "interrupted";

/// The signals that end a decision with a record.
const TERMINATING: [Signal; 3] = [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP];

/// What the waiting thread writes if a signal comes now.
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

static STATE: Mutex<State> = Mutex::new(State::Idle);
/// The signal mask the process started with, restored before the exec.
static ORIGINAL_MASK: Mutex<Option<SigSet>> = Mutex::new(None);

/// Blocks the terminating signals the process did not start with blocked or ignored, and
/// starts the thread that waits for them. Call it before any other thread starts (they inherit
/// the mask). Without it (an error), signals keep their default effect: no record, nothing run.
pub fn arm() {
    let waited = waited_signals();
    if waited.iter().next().is_none() {
        return;
    }
    let mut original = SigSet::empty();
    if pthread_sigmask(SigmaskHow::SIG_BLOCK, Some(&waited), Some(&mut original)).is_err() {
        return;
    }
    *lock(&ORIGINAL_MASK) = Some(original);
    let started = std::thread::Builder::new()
        .name("guarded-sh-signals".into())
        .stack_size(256 * 1024)
        .spawn(move || wait_for(waited));
    if started.is_err() {
        // Nobody would take them: back to the mask the process was given.
        let _ = pthread_sigmask(SigmaskHow::SIG_SETMASK, Some(&original), None);
    }
}

/// From now on a signal ends the decision with `record` (its verdict replaced by the
/// interruption): the record of the command as far as it is decided, under its decision id.
pub fn deciding(record: &Record, audit: &AuditConfig, started: Instant) {
    let mut state = lock(&STATE);
    if !matches!(*state, State::Released) {
        *state = State::Deciding {
            record: Box::new(record.clone()),
            audit: Box::new(audit.clone()),
            started,
        };
    }
}

/// The decision is final: no signal is recorded any more, and this thread gets back the mask
/// the process started with (so an exec that keeps the mask hands the real shell exactly
/// that one). Blocks while a signal's record is being written; the process then dies of it.
pub fn release() {
    let mut state = lock(&STATE);
    *state = State::Released;
    if let Some(original) = *lock(&ORIGINAL_MASK) {
        let _ = pthread_sigmask(SigmaskHow::SIG_SETMASK, Some(&original), None);
    }
}

/// The verdict of a decision cut short by `signal`.
pub fn interrupted(signal: Signal, held: bool) -> Verdict {
    let when = if held {
        "while waiting for approval"
    } else {
        "before a decision"
    };
    Verdict::deny(
        Stage::Error,
        REASON_ID,
        format!("interrupted by {} {when}; nothing was run", signal.as_str()),
    )
}

/// The terminating signals this process may take: not those it started with blocked (the
/// caller holds them back on purpose) or ignored (a background job's SIGINT: a blocked
/// ignored signal would still be queued, and must not end the command).
fn waited_signals() -> SigSet {
    let blocked = SigSet::thread_get_mask().unwrap_or_else(|_| SigSet::empty());
    let ignored = ignored_signals();
    let mut set = SigSet::empty();
    for signal in TERMINATING {
        if !blocked.contains(signal) && !ignored.contains(&signal) {
            set.add(signal);
        }
    }
    set
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

/// The waiting thread: takes one signal, records it if a decision is under way, then ends the
/// process with it. It keeps the state locked throughout, so the exec can never follow.
fn wait_for(waited: SigSet) {
    let Ok(signal) = waited.wait() else { return };
    let state = lock(&STATE);
    if let State::Deciding {
        record,
        audit,
        started,
    } = &*state
    {
        let held = record.verdict.effect == Effect::Held;
        let mut last = (**record).clone();
        last.verdict = interrupted(signal, held);
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
        let v = interrupted(Signal::SIGTERM, false);
        assert_eq!((v.effect, v.reason_id), (Effect::Deny, REASON_ID));
        assert_eq!(
            v.reason,
            "interrupted by SIGTERM before a decision; nothing was run"
        );
        let held = interrupted(Signal::SIGINT, true);
        assert_eq!(
            held.reason,
            "interrupted by SIGINT while waiting for approval; nothing was run"
        );
    }
}
