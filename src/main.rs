//! guarded-sh's entry point: a panic denies (the hook reports it and exits 126, so nothing after
//! it runs, whatever the panic strategy); backtrace capture is neutralised for this process only;
//! then `app::run` tells the rest, and execs or returns the exit status.

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use guarded_sh::{app, context, supervise, verdict};

fn main() {
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        app::say(&format!(
            "guarded-sh: denied: internal error{at} (nothing was run)"
        ));
        std::process::exit(verdict::EXIT_DENIED);
    }));
    // Only this process stops capturing backtraces (anyhow with `std` does so for every error,
    // when they are enabled); the environment is left as it was given, for the real shell.
    context::disable_backtrace_capture();
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // The filtered side of exec supervision, started by the supervisor itself.
    if supervise::child::requested(&args) {
        std::process::exit(supervise::child::run(&args));
    }
    std::process::exit(app::run(&args));
}
