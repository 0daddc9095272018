//! guarded-sh's entry point: neutralise `RUST_BACKTRACE` for this process only, capture the
//! context, run the sequence (a panic denies: the hook reports it and exits 126, so nothing after
//! it runs, whatever the panic strategy), then exec or exit.

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use guarded_sh::app::{self, Outcome, EXIT_DENIED};
use guarded_sh::context::{self, Context};
use guarded_sh::exec;

fn main() {
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        say(&format!(
            "guarded-sh: denied: internal error{at} (nothing was run)"
        ));
        std::process::exit(EXIT_DENIED);
    }));
    // Only this process stops capturing backtraces (anyhow with `std` does so for every error,
    // when they are enabled); the environment is left as it was given, for the real shell.
    context::disable_backtrace_capture();
    let ctx = Context::capture();
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    match app::run(&ctx, &args) {
        Outcome::Exec(spec, audit) => {
            let err = exec::exec(&spec);
            say(&format!(
                "guarded-sh: cannot run {}: {err}",
                spec.program.display()
            ));
            if let Some(audit) = audit {
                audit.failed(&err, &spec.program);
            }
            std::process::exit(EXIT_DENIED);
        }
        Outcome::Exit(code) => std::process::exit(code),
    }
}

/// One line on stderr, never panicking (stderr may be closed or full).
fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}
