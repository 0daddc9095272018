//! What a script file's first line says: the interpreter its `#!` line names, and whether a
//! file without one is text a shell would run or a binary it would refuse.

/// The interpreter a `#!` line names: `#!/usr/bin/python3 -u` → `python3`,
/// `#!/usr/bin/env -S python3 -E` → `python3`.
pub fn shebang(text: &str) -> Option<String> {
    let line = text.strip_prefix("#!")?.lines().next()?;
    let mut words = line.split_whitespace();
    let first = words.next()?;
    let base = first.rsplit('/').next().unwrap_or(first);
    if base != "env" {
        return Some(base.to_string());
    }
    let mut words = words.peekable();
    while let Some(w) = words.next() {
        if w == "-S" || w == "--split-string" || w.starts_with('-') && !w.starts_with("-S") {
            if matches!(w, "-u" | "--unset" | "-C" | "--chdir") {
                words.next();
            }
            continue;
        }
        if let Some(rest) = w.strip_prefix("-S") {
            return Some(rest.rsplit('/').next().unwrap_or(rest).to_string());
        }
        if w.contains('=') {
            continue;
        }
        return Some(w.rsplit('/').next().unwrap_or(w).to_string());
    }
    None
}

/// Whether a file run by path is a shell script: its `#!` names a shell, or it has none and is
/// not binary (the shell then runs it itself, as bash and dash do when the kernel will not).
/// Binary: see [`is_binary`].
pub fn is_shell_script(text: &str) -> bool {
    if text.starts_with("#!") {
        return shebang(text).is_some_and(|i| crate::programs::SHELLS.contains(&i.as_str()));
    }
    !is_binary(text.as_bytes())
}

/// Binary as bash decides it: a NUL byte in the first line, within the first 80 bytes.
pub fn is_binary(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(80)];
    let first_line = head.split(|b| *b == b'\n').next().unwrap_or_default();
    first_line.contains(&0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shebang_table() {
        let cases = [
            ("#!/usr/bin/python3\n", Some("python3")),
            ("#!/usr/bin/env python3\nimport os", Some("python3")),
            ("#! /usr/bin/env -S python3 -u\n", Some("python3")),
            ("#!/usr/bin/env -Spython3.11\n", Some("python3.11")),
            ("#!/usr/bin/env FOO=1 perl -w\n", Some("perl")),
            ("#!/bin/bash\n", Some("bash")),
            ("print(1)\n", None),
        ];
        for (text, want) in cases {
            assert_eq!(shebang(text).as_deref(), want, "{text:?}");
        }
    }

    #[test]
    fn shell_script_table() {
        let cases = [
            ("#!/bin/sh\nrm -rf /\n", true),
            ("#!/usr/bin/env bash\n", true),
            ("#!/bin/dash -e\n", true),
            ("#!/usr/bin/python3\n", false),
            ("rm -rf /tmp/x\n", true),
            ("", true),
            ("\x7fELF\x02\x01\x01\x00\x00", false),
            ("line one\n\x00 later NULs do not make it binary", true),
        ];
        for (text, want) in cases {
            assert_eq!(is_shell_script(text), want, "{text:?}");
        }
    }
}
