//! The shell surface as a table (`tests/shell_surface.tsv`): argv, stdin and environment in;
//! the real shell's argv and environment, and the exit status, out. The real shells are a
//! recording fake (a small C program the test compiles into its directory) that writes its
//! program, argv and environment to a file and exits with the status it is given; a denial or a
//! usage error must leave no such file.

use crate::setup::{table, text, unescape, Setup, BIN};
use std::collections::BTreeSet;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};

/// The fake shell: records `x` its program, `a` each argv entry, `e` each environment entry
/// (NUL-terminated) to `$GSH_FAKE_RECORD`, which must not exist yet, then exits with
/// `$GSH_FAKE_STATUS`.
const FAKE_SHELL: &str = r#"
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
extern char **environ;
static void put(FILE *f, char kind, const char *s) { fputc(kind, f); fputs(s, f); fputc(0, f); }
int main(int argc, char **argv) {
    const char *path = getenv("GSH_FAKE_RECORD"), *status = getenv("GSH_FAKE_STATUS");
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    int fd = path ? open(path, O_WRONLY | O_CREAT | O_EXCL, 0600) : -1;
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    if (!f) return 99;
    exe[n < 0 ? 0 : n] = 0;
    put(f, 'x', exe);
    for (int i = 0; i < argc; i++) put(f, 'a', argv[i]);
    for (char **e = environ; *e; e++) put(f, 'e', *e);
    if (fclose(f) != 0) return 99;
    return status ? atoi(status) : 0;
}
"#;

/// What the fake shell was started with.
#[derive(Debug, Default)]
struct Record {
    program: String,
    argv: Vec<String>,
    env: BTreeSet<String>,
}

fn read_record(path: &Path) -> Option<Record> {
    let bytes = std::fs::read(path).ok()?;
    let mut r = Record::default();
    for item in bytes.split(|b| *b == 0).filter(|i| !i.is_empty()) {
        let value = text(&item[1..]);
        match item[0] {
            b'x' => r.program = value,
            b'a' => r.argv.push(value),
            b'e' => {
                r.env.insert(value);
            }
            other => panic!("fake shell record: kind {other}"),
        }
    }
    Some(r)
}

/// A setup whose real shells are the fake (`fake-bash` for `default` and `bash`, `fake-dash`
/// for `sh` and `dash`), no policy, and the table's script files.
fn setup() -> Setup {
    let s = Setup::with(
        "[policy]\nenabled = false\n[shells]\ndefault = \"{dir}/fake-bash\"\nbash = \"{dir}/fake-bash\"\nsh = \"{dir}/fake-dash\"\ndash = \"{dir}/fake-dash\"\n",
    );
    let source = s.write("fake.c", FAKE_SHELL);
    let out = Command::new("cc")
        .arg("-o")
        .arg(s.path("fake-bash"))
        .arg(&source)
        .output()
        .expect("a C compiler (cc) for the fake shell");
    assert!(out.status.success(), "cc: {}", text(&out.stderr));
    std::fs::copy(s.path("fake-bash"), s.path("fake-dash")).unwrap();
    s.write("script.sh", "echo script\n");
    s.write("denied.sh", "rm -rf /\n");
    s
}

fn json_list(field: &str, s: &Setup) -> Vec<String> {
    let list: Vec<String> = serde_json::from_str(field)
        .unwrap_or_else(|e| panic!("not a JSON array of strings: {field}: {e}"));
    list.iter().map(|v| s.expand(v)).collect()
}

#[test]
fn the_shell_surface_table() {
    let s = setup();
    let rows = table("shell_surface.tsv");
    let mut failures = Vec::new();
    for (line, fields) in &rows {
        let [name, args, stdin, env, exit, shell, argv, removed] = &fields[..] else {
            panic!("shell_surface.tsv:{line}: want 8 tab-separated fields, got {fields:?}");
        };
        let at = format!("shell_surface.tsv:{line}: {name} {args}");
        let record = s.path(&format!("record-{line}"));
        let mut given = vec![
            "PATH=/usr/bin:/bin".to_string(),
            format!("GUARDED_SH_CONFIG={}", s.path("config.toml").display()),
            format!("GSH_FAKE_RECORD={}", record.display()),
            format!("GSH_FAKE_STATUS={exit}"),
        ];
        if env != "-" {
            given.extend(json_list(env, &s));
        }
        let mut c = Command::new(BIN);
        if name != "guarded-sh" {
            c.arg0(name);
        }
        c.args(json_list(args, &s)).env_clear();
        for entry in &given {
            let (k, v) = entry.split_once('=').unwrap();
            c.env(k, v);
        }
        let out = if stdin == "-" {
            c.stdin(Stdio::null()).output().unwrap()
        } else {
            crate::setup::output_with_stdin(c, unescape(stdin).as_bytes())
        };
        let code = out.status.code();
        if code.map(|c| c.to_string()).as_deref() != Some(exit.as_str()) {
            failures.push(format!(
                "{at}: exit {code:?}, want {exit}; stderr {}",
                text(&out.stderr)
            ));
        }
        let seen = read_record(&record);
        if shell == "-" {
            if let Some(r) = seen {
                failures.push(format!("{at}: the real shell ran: {:?}", r.argv));
            }
            continue;
        }
        let Some(seen) = seen else {
            failures.push(format!(
                "{at}: the real shell did not run; stderr {}",
                text(&out.stderr)
            ));
            continue;
        };
        let program = Path::new(&seen.program).file_name().unwrap_or_default();
        if program.to_string_lossy() != format!("fake-{shell}") {
            failures.push(format!("{at}: ran {}, want fake-{shell}", seen.program));
        }
        let want = json_list(argv, &s);
        if seen.argv != want {
            failures.push(format!(
                "{at}: argv\n    got  {:?}\n    want {want:?}",
                seen.argv
            ));
        }
        let removed: Vec<&str> = removed.split_whitespace().filter(|n| *n != "-").collect();
        let name_of = |e: &String| e.split_once('=').map_or(e.clone(), |(k, _)| k.to_string());
        for n in &removed {
            assert!(
                given.iter().any(|e| name_of(e) == *n),
                "{at}: removed {n} is not given"
            );
        }
        let want_env: BTreeSet<String> = given
            .iter()
            .filter(|e| !removed.contains(&name_of(e).as_str()))
            .cloned()
            .collect();
        if seen.env != want_env {
            failures.push(format!(
                "{at}: environment\n    got  {:?}\n    want {want_env:?}",
                seen.env
            ));
        }
    }
    assert!(rows.len() >= 50, "{} rows", rows.len());
    assert!(
        failures.is_empty(),
        "{} of {} rows failed:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
}
