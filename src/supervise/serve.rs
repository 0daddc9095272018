//! The supervisor. It starts the filtered child ([`super::child`]) with the real shell's exec,
//! takes the filter's listener from it, and until the shell ends: judges every exec notification
//! with the one gate on a thread of its own (continue, or `EACCES` and a one-line reason on
//! stderr), relays signals to the shell, and passes its end through (exit status, death by
//! signal, stop and continue). It never writes to stdout and never reads stdin.

use super::judge::{self, Judged};
use super::tracee::{self, ExecCall, ExecSyscall, ReadError};
use super::{child, SuperviseMode};
use crate::audit::{self, ExecFacts, Record};
use crate::config::Config;
use crate::context::Context;
use crate::exec::{ShellEnv, ShellExec};
use crate::gate::{self, Overrides, Request};
use crate::stderr::say;
use crate::verdict::{Effect, Stage, Surface, Verdict};
use libseccomp::{notify_id_valid, ScmpNotifReq, ScmpNotifResp, ScmpNotifRespFlags, ScmpSyscall};
use nix::sys::signal::{kill, pthread_sigmask, SigSet, SigmaskHow, Signal};
use nix::sys::signalfd::{SfdFlags, SignalFd};
use nix::sys::socket::{getsockopt, recvmsg, sockopt, ControlMessageOwned, MsgFlags, UnixAddr};
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;
use std::io::IoSliceMut;
use std::os::fd::{AsFd, AsRawFd, RawFd};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::net::{SocketAddr, UnixListener};
use std::time::{Duration, Instant};

/// How long the child may take to hand over its listener.
const HANDOVER: Duration = Duration::from_secs(10);

/// Signals the supervisor takes itself: the child's changes of state, and those it relays.
const RELAYED: [Signal; 11] = [
    Signal::SIGHUP,
    Signal::SIGINT,
    Signal::SIGQUIT,
    Signal::SIGTERM,
    Signal::SIGUSR1,
    Signal::SIGUSR2,
    Signal::SIGALRM,
    Signal::SIGWINCH,
    Signal::SIGTSTP,
    Signal::SIGTTIN,
    Signal::SIGTTOU,
];

/// Runs `exec` supervised; returns its exit status (or dies of its signal). An error means the
/// real shell never ran.
pub fn run(
    ctx: &Context,
    config: &Config,
    exec: &ShellExec,
    mode: SuperviseMode,
) -> Result<i32, String> {
    let name = format!(
        "guarded-sh-supervise-{}",
        crate::context::fresh_session_id()
    );
    let listener = SocketAddr::from_abstract_name(name.as_bytes())
        .and_then(|a| UnixListener::bind_addr(&a))
        .map_err(|e| format!("cannot open the supervisor's socket: {e}"))?;
    let original = SigSet::thread_get_mask().map_err(|e| format!("signal mask: {e}"))?;
    let mut taken = SigSet::empty();
    taken.add(Signal::SIGCHLD);
    RELAYED.into_iter().for_each(|s| taken.add(s));
    pthread_sigmask(SigmaskHow::SIG_BLOCK, Some(&taken), None)
        .map_err(|e| format!("signal mask: {e}"))?;
    let signals = SignalFd::with_flags(&taken, SfdFlags::SFD_CLOEXEC)
        .map_err(|e| format!("signalfd: {e}"))?;
    let mut command = std::process::Command::new("/proc/self/exe");
    std::os::unix::process::CommandExt::arg0(&mut command, "guarded-sh");
    command
        .arg(child::FLAG)
        .arg(&name)
        .arg(child::mask_to_arg(&original))
        .arg(&exec.program)
        .arg(&exec.argv0)
        .args(&exec.args);
    if let ShellEnv::Exact(vars) = &exec.env {
        command.env_clear().envs(vars.iter().map(|(k, v)| (k, v)));
    }
    let start_env: Vec<Vec<u8>> = match &exec.env {
        ShellEnv::Exact(vars) => vars.iter().map(|(k, v)| entry(k, v)).collect(),
        ShellEnv::Inherit => std::env::vars_os().map(|(k, v)| entry(&k, &v)).collect(),
    };
    let spawned = command
        .spawn()
        .map_err(|e| format!("cannot start the supervised shell: {e}"))?;
    let child = Pid::from_raw(spawned.id() as i32);
    let notify = match take_listener(&listener, child) {
        Ok(fd) => fd,
        Err(e) => {
            // The child did not get to the real shell: make sure it never does.
            let _ = kill(child, Signal::SIGKILL);
            let _ = waitpid(child, None);
            return Err(e);
        }
    };
    drop(listener);
    let supervisor = Supervisor {
        ctx: ctx.clone(),
        config: config.clone(),
        mode,
        first: Some(child),
        start_env,
        execve: ScmpSyscall::from_name("execve").map_err(|e| e.to_string())?,
    };
    // The gate runs on this thread: the main thread's stack size, for the same analysis bounds.
    crate::interrupt::spawn_deaf("guarded-sh-supervisor", 8 << 20, move || {
        supervisor.serve(notify)
    })
    .map_err(|e| format!("cannot start the supervisor: {e}"))?;
    Ok(relay(&signals, child))
}

/// `NAME=value`.
fn entry(k: &std::ffi::OsStr, v: &std::ffi::OsStr) -> Vec<u8> {
    let mut e = k.as_bytes().to_vec();
    e.push(b'=');
    e.extend_from_slice(v.as_bytes());
    e
}

/// Whether an ancestor of this process is a guarded-sh supervisor: runs this very binary and
/// holds a seccomp listener. A supervisor starts one process, the filtered child, so everything
/// below it runs under its filter, and its judgement: a guarded-sh started there (`guarded-sh
/// -c` from an editor's `:!cmd`, a script) execs its real shell, which that supervisor judges,
/// rather than start a second one (the kernel refuses a second listener). Nothing a user runs
/// makes a process that passes: it would have to run this binary and hold a listener.
pub fn enclosing_supervisor() -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(own) = std::fs::metadata("/proc/self/exe") else {
        return false;
    };
    let ours = |pid: i32| {
        std::fs::metadata(format!("/proc/{pid}/exe"))
            .is_ok_and(|m| m.dev() == own.dev() && m.ino() == own.ino())
    };
    let listens = |pid: i32| {
        std::fs::read_dir(format!("/proc/{pid}/fd")).is_ok_and(|fds| {
            fds.flatten().any(|fd| {
                std::fs::read_link(fd.path())
                    .is_ok_and(|target| target.as_os_str() == "anon_inode:seccomp notify")
            })
        })
    };
    let mut pid = nix::unistd::getppid().as_raw();
    // A process tree is not this deep; the bound only ends a loop that cannot happen.
    for _ in 0..256 {
        if pid <= 1 {
            return false;
        }
        if ours(pid) && listens(pid) {
            return true;
        }
        match tracee::parent_of(pid) {
            Some(parent) => pid = parent,
            None => return false,
        }
    }
    false
}

/// Accepts the child's connection (checked by its pid) and receives the filter's listener.
fn take_listener(listener: &UnixListener, child: Pid) -> Result<RawFd, String> {
    use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
    let deadline = Instant::now() + HANDOVER;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err("the supervised shell did not start in time".into());
        }
        let mut ready = [PollFd::new(listener.as_fd(), PollFlags::POLLIN)];
        let wait =
            PollTimeout::try_from(left.as_millis().min(500) as i32).unwrap_or(PollTimeout::NONE);
        match poll(&mut ready, wait) {
            Ok(0) | Err(nix::Error::EINTR) => {
                // The child may have failed already (it said why on stderr).
                if let Ok(WaitStatus::Exited(..) | WaitStatus::Signaled(..)) =
                    waitpid(child, Some(WaitPidFlag::WNOHANG))
                {
                    return Err("the supervised shell could not be started".into());
                }
                continue;
            }
            Ok(_) => {}
            Err(e) => return Err(format!("supervisor socket: {e}")),
        }
        let (stream, _) = listener
            .accept()
            .map_err(|e| format!("supervisor socket: {e}"))?;
        let peer = getsockopt(&stream, sockopt::PeerCredentials)
            .map_err(|e| format!("supervisor socket: {e}"))?;
        if peer.pid() != child.as_raw() {
            continue; // not ours: whoever it was gets nothing
        }
        let mut byte = [0u8; 1];
        let mut iov = [IoSliceMut::new(&mut byte)];
        let mut space = nix::cmsg_space!(RawFd);
        let message = recvmsg::<UnixAddr>(
            stream.as_raw_fd(),
            &mut iov,
            Some(&mut space),
            MsgFlags::MSG_CMSG_CLOEXEC,
        )
        .map_err(|e| format!("supervisor socket: {e}"))?;
        let fds: Vec<RawFd> = message
            .cmsgs()
            .map_err(|e| format!("supervisor socket: {e}"))?
            .filter_map(|c| match c {
                ControlMessageOwned::ScmRights(fds) => Some(fds),
                _ => None,
            })
            .flatten()
            .collect();
        return match fds.as_slice() {
            [fd] => Ok(*fd),
            _ => {
                fds.into_iter().for_each(|fd| {
                    let _ = nix::unistd::close(fd);
                });
                Err("the supervised shell sent no exec filter".into())
            }
        };
    }
}

/// Waits for the shell's end, relaying signals; returns its exit status or dies of its signal.
fn relay(signals: &SignalFd, child: Pid) -> i32 {
    loop {
        match waitpid(child, Some(WaitPidFlag::WNOHANG | WaitPidFlag::WUNTRACED)) {
            Ok(WaitStatus::Exited(_, code)) => return code,
            Ok(WaitStatus::Signaled(_, signal, _)) => return die_of(signal),
            Ok(WaitStatus::Stopped(..)) => {
                // Stop as the shell stopped (the caller's job control sees this process), and
                // take it on again when continued.
                let _ = kill(Pid::this(), Signal::SIGSTOP);
                let _ = kill(child, Signal::SIGCONT);
                continue;
            }
            Ok(_) => {}
            Err(nix::Error::EINTR) => continue,
            Err(_) => return crate::verdict::EXIT_DENIED,
        }
        let Ok(Some(info)) = signals.read_signal() else {
            continue;
        };
        let Ok(signal) = Signal::try_from(info.ssi_signo as i32) else {
            continue;
        };
        // The terminal sends its signals to the whole foreground group, the shell included;
        // one sent to this process alone (kill, a hangup to the session leader) is passed on.
        let from_terminal = info.ssi_code == 0x80; // SI_KERNEL
        let always = matches!(signal, Signal::SIGHUP | Signal::SIGTERM);
        if signal != Signal::SIGCHLD && (always || !from_terminal) {
            let _ = kill(child, signal);
        }
    }
}

/// Ends this process as the shell ended: by the same signal where its disposition lets it,
/// else with the shell's status for it (128 + the signal).
fn die_of(signal: Signal) -> i32 {
    use nix::sys::resource::{setrlimit, Resource};
    // The shell's core, if any, is its own: this process leaves none.
    let _ = setrlimit(Resource::RLIMIT_CORE, 0, 0);
    let mut only = SigSet::empty();
    only.add(signal);
    let _ = pthread_sigmask(SigmaskHow::SIG_UNBLOCK, Some(&only), None);
    let _ = kill(Pid::this(), signal);
    128 + signal as i32
}

/// The supervisor's state, owned by its thread.
struct Supervisor {
    ctx: Context,
    config: Config,
    mode: SuperviseMode,
    /// The real shell's own exec, decided already, continued without a second judgement.
    first: Option<Pid>,
    start_env: Vec<Vec<u8>>,
    execve: ScmpSyscall,
}

/// What to answer one notification.
enum Answer {
    Continue,
    Refuse,
    /// Fails the exec with this error, as the kernel would have.
    Fail(nix::errno::Errno),
    /// The process left the exec (it died): there is nothing to answer.
    Gone,
}

impl Supervisor {
    /// Answers notifications until the listener fails; then closes it, so every exec still
    /// waiting and every later one fails (`ENOSYS`): nothing runs unjudged.
    fn serve(mut self, notify: RawFd) {
        let mut failures = 0;
        loop {
            let request = match ScmpNotifReq::receive(notify) {
                Ok(r) => {
                    failures = 0;
                    r
                }
                // ENOENT: the process died between the notification and its receipt, or no
                // process is left under the filter (then it comes back at once, every time,
                // and no process can join it: nothing is left to judge). libseccomp reports
                // every failure as ECANCELED; the kernel's errno says which.
                Err(_) if gone_before_receipt() => {
                    failures += 1;
                    if failures >= 3 {
                        let _ = nix::unistd::close(notify);
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(1));
                    continue;
                }
                Err(e) => {
                    say(&format!("guarded-sh: exec supervision stopped: {e}"));
                    let _ = nix::unistd::close(notify);
                    return;
                }
            };
            let answer = self.answer(notify, &request);
            let response = match answer {
                Answer::Continue => {
                    ScmpNotifResp::new_continue(request.id, ScmpNotifRespFlags::empty())
                }
                Answer::Refuse => ScmpNotifResp::new_error(
                    request.id,
                    -libc_eacces(),
                    ScmpNotifRespFlags::empty(),
                ),
                Answer::Fail(errno) => ScmpNotifResp::new_error(
                    request.id,
                    -(errno as i32),
                    ScmpNotifRespFlags::empty(),
                ),
                Answer::Gone => continue,
            };
            // A process that died meanwhile cannot be answered; nothing else to do.
            let _ = response.respond(notify);
        }
    }

    fn answer(&mut self, notify: RawFd, request: &ScmpNotifReq) -> Answer {
        if self.first == Some(Pid::from_raw(request.pid as i32)) {
            self.first = None;
            return Answer::Continue;
        }
        let started = Instant::now();
        let syscall = if request.data.syscall == self.execve {
            ExecSyscall::Execve
        } else {
            ExecSyscall::Execveat
        };
        let max = self.config.supervise.max_exec_bytes;
        let read = tracee::read(request.pid, syscall, &request.data.args, max);
        // What was read is the exec only if the process is still waiting in it.
        if notify_id_valid(notify, request.id).is_err() {
            return Answer::Gone;
        }
        let call = match read {
            Ok(call) => call,
            // Still waiting, so not gone, whatever could not be read: refused, never left
            // unanswered (the caller would wait in exec for ever).
            Err(ReadError::NoFile(errno)) => return Answer::Fail(errno),
            Err(e) => {
                let verdict = Verdict::deny(Stage::Error, "supervise.unreadable", e.to_string());
                return self.conclude(None, "", verdict, None, started);
            }
        };
        // Another thread of the caller could rewrite the arguments after they were read: read
        // them again, and refuse an exec that changed under the reading.
        if call.threads > 1 {
            let again = tracee::read(request.pid, syscall, &request.data.args, max);
            if notify_id_valid(notify, request.id).is_err() {
                return Answer::Gone;
            }
            if again.as_ref().ok() != Some(&call) {
                let verdict = Verdict::deny(
                    Stage::Error,
                    "supervise.racing",
                    "the exec's arguments changed while they were read (another thread wrote them)",
                );
                return self.conclude(Some(&call), "", verdict, None, started);
            }
        }
        // A path that does not exist (or a link to nothing) runs nothing: the exec fails as the
        // kernel would fail it (execvp tries every PATH directory), unjudged and unrecorded, and
        // no file created meanwhile can take its place. An open file runs what it holds, path
        // or not: that is for the refusals below.
        let program = std::fs::metadata(call.program());
        let opened = call.opened.as_ref().and_then(|l| std::fs::metadata(l).ok());
        if call.opened.is_none()
            && program
                .as_ref()
                .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
        {
            return Answer::Fail(nix::errno::Errno::ENOENT);
        }
        let judged = judge::judge(&call, &self.start_env);
        let enforce = self.mode == SuperviseMode::Enforce;
        let refusal = judge::refusal(
            &call,
            program.ok().as_ref(),
            opened.as_ref(),
            enforce,
            self.config.file_in_use(),
        );
        if let Some(refusal) = refusal {
            let verdict = Verdict::deny(Stage::BuiltIn, refusal.reason_id(), refusal.to_string());
            return self.conclude(Some(&call), &judged.text, verdict, None, started);
        }
        self.decide(&call, &judged, started)
    }

    /// The gate's verdict on one exec, recorded, then carried out as the mode says.
    fn decide(&self, call: &ExecCall, judged: &Judged, started: Instant) -> Answer {
        let ctx = self.context_of(call);
        let overrides = Overrides::enforcing();
        let request = Request {
            text: &judged.text,
            surface: Surface::Exec,
            escape: gate::escape_requested(&self.ctx, &self.config),
            overrides: &overrides,
            stdin: None,
            session_state: None,
            started_by: judged.started_by.as_deref(),
        };
        let assessment = gate::decide(&ctx, &self.config, &request);
        let verdict = match assessment.verdict.effect {
            // A held exec has no one to ask: approval is for the command as a whole.
            Effect::Held => Verdict::deny(
                Stage::Approval,
                "supervise.held",
                format!(
                    "approval required: {} (a program started inside a command cannot be approved on its own)",
                    assessment.verdict.reason
                ),
            ),
            _ => assessment.verdict.clone(),
        };
        let record = assessment.evidence_for(Record::new(
            &ctx,
            &self.config,
            Surface::Exec,
            &judged.text,
            verdict.clone(),
            started,
        ));
        self.conclude(Some(call), &judged.text, verdict, Some(record), started)
    }

    /// Records `verdict` for the exec (building the record if the gate did not) and answers:
    /// `enforce` refuses anything but an allow, and an allow that could not be recorded when
    /// the audit is required; `audit` refuses nothing.
    fn conclude(
        &self,
        call: Option<&ExecCall>,
        text: &str,
        verdict: Verdict,
        record: Option<Record>,
        started: Instant,
    ) -> Answer {
        let enforce = self.mode == SuperviseMode::Enforce;
        let ctx = call.map_or_else(|| self.ctx.clone(), |c| self.context_of(c));
        let mut record = record.unwrap_or_else(|| {
            Record::new(
                &ctx,
                &self.config,
                Surface::Exec,
                text,
                verdict.clone(),
                started,
            )
        });
        let program = call.map_or_else(String::new, |c| {
            String::from_utf8_lossy(&c.path).into_owned()
        });
        let mut refused = enforce && !verdict.allowed();
        record.exec = Some(ExecFacts {
            path: program.clone(),
            caller: call.map_or_else(String::new, |c| c.caller.display().to_string()),
            supervision: self.mode.as_str(),
            refused,
        });
        let delivery = audit::record(&self.config.audit, &record);
        for e in &delivery.errors {
            say(&format!("guarded-sh: audit: {e}"));
        }
        if !refused
            && enforce
            && delivery
                .refusal(self.config.audit.required, self.config.file_in_use())
                .is_some()
        {
            let line = format!("guarded-sh: denied: {program}: the exec could not be recorded");
            tell(call.map(|c| c.pid), &line);
            refused = true;
        }
        if refused {
            if verdict.effect != Effect::Allow {
                let line = format!("guarded-sh: denied: {program}: {}", verdict.reason);
                tell(call.map(|c| c.pid), &line);
            }
            Answer::Refuse
        } else {
            Answer::Continue
        }
    }

    /// The context an exec is decided in: the session's, with the caller's pid, parent and
    /// working directory.
    fn context_of(&self, call: &ExecCall) -> Context {
        Context {
            pid: call.pid,
            ppid: call.ppid,
            cwd: call.cwd.display().to_string(),
            ..self.ctx.clone()
        }
    }
}

/// Writes a refusal where the refused program's errors go: the stderr of the process that
/// called exec (a build log, the pipe ansible reads a task's stderr from, the terminal), opened
/// anew through `/proc`, appending and without blocking (a full pipe must not stall every
/// other exec); guarded-sh's own stderr when that cannot be opened (a socket, a closed fd).
fn tell(pid: Option<u32>, line: &str) {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let theirs = pid.and_then(|pid| {
        std::fs::OpenOptions::new()
            .append(true)
            .custom_flags(nix::libc::O_NOCTTY | nix::libc::O_NONBLOCK)
            .open(format!("/proc/{pid}/fd/2"))
            .ok()
    });
    let written = theirs.is_some_and(|mut f| f.write_all(format!("{line}\n").as_bytes()).is_ok());
    if !written {
        say(line);
    }
}

fn gone_before_receipt() -> bool {
    std::io::Error::last_os_error().raw_os_error() == Some(nix::errno::Errno::ENOENT as i32)
}

fn libc_eacces() -> i32 {
    nix::errno::Errno::EACCES as i32
}
