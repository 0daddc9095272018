//! Fuzzes the argv grammar (`invocation::parse`): NUL-separated byte strings become argv (the
//! first is argv[0]). Besides "never panics", it checks the property the exec path relies on:
//! the real shell is handed exactly the arguments that were given, in order, with the gated text
//! among them — nothing dropped, added or reordered between what was gated and what runs.
#![no_main]

use guarded_sh::invocation::{parse, Invocation, ShellMode};
use libfuzzer_sys::fuzz_target;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

fuzz_target!(|data: &[u8]| {
    let args: Vec<OsString> = data
        .split(|b| *b == 0)
        .map(|a| OsString::from_vec(a.to_vec()))
        .collect();
    let Ok(Invocation::Shell(call)) = parse(&args) else {
        return;
    };
    let rest = args.get(1..).unwrap_or_default();
    let mut rebuilt = call.options.clone();
    match &call.mode {
        ShellMode::Command { text, operands } => {
            rebuilt.push(text.clone());
            rebuilt.extend(operands.iter().cloned());
        }
        ShellMode::Script { path, operands } => {
            rebuilt.push(path.clone().into_os_string());
            rebuilt.extend(operands.iter().cloned());
        }
        ShellMode::Stdin { operands } => rebuilt.extend(operands.iter().cloned()),
    }
    assert_eq!(
        rebuilt.as_slice(),
        rest,
        "options + operands must be argv[1..] unchanged"
    );
});
