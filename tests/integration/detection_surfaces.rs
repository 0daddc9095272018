//! The detection of issue 35 tried through the real binary and the real bash, on the shell
//! surface's three ways in (`-c`, a script file, a script on stdin): each line touches a marker
//! first and then does its damage through one of the new mechanisms (a defaulted word, a nested
//! default, a launcher, a payload written to a startup file, a file written and then run, a
//! variable naming a command). Denied means 126 and no marker: nothing of the line ran. The
//! damage is a harmless stand-in (a device name that does not exist, written with `nocreat`;
//! a file under the test's own directory), each row's own, so a gate that let one through
//! could do no harm, and the row's stand-in is checked absent afterwards.

use crate::setup::{output_with_stdin, Setup};
use std::path::Path;

/// `(name, line, device stand-in)`; `{dir}` is the test's directory.
const ROWS: &[(&str, &str, &str)] = &[
    (
        "a default that is a device",
        "touch {dir}/ran; dd if=/dev/zero of=${OUT:-/dev/sdz-nonexistent-ds1} count=1 conv=nocreat",
        "/dev/sdz-nonexistent-ds1",
    ),
    (
        "a nested default",
        "touch {dir}/ran; dd if=/dev/zero of=${A:-${B:-/dev/sdz-nonexistent-ds2}} count=1 conv=nocreat",
        "/dev/sdz-nonexistent-ds2",
    ),
    (
        "a variable that took a default earlier",
        "touch {dir}/ran; D=${D:-/dev/sdz-nonexistent-ds3}; dd if=/dev/zero of=\"$D\" count=1 conv=nocreat",
        "/dev/sdz-nonexistent-ds3",
    ),
    (
        "a launcher from the wrapper table",
        "touch {dir}/ran; logsave {dir}/log dd if=/dev/zero of=/dev/sdz-nonexistent-ds4 count=1 conv=nocreat",
        "/dev/sdz-nonexistent-ds4",
    ),
    (
        "a payload appended to a startup file",
        "touch {dir}/ran; echo 'dd if=/dev/zero of=/dev/sdz-nonexistent-ds5 count=1 conv=nocreat' >> {dir}/.bashrc",
        "/dev/sdz-nonexistent-ds5",
    ),
    (
        "a file written and then run",
        "touch {dir}/ran; echo 'dd if=/dev/zero of=/dev/sdz-nonexistent-ds6 count=1 conv=nocreat' > {dir}/x.sh; sh {dir}/x.sh",
        "/dev/sdz-nonexistent-ds6",
    ),
    (
        "a variable that names a command",
        "touch {dir}/ran; RESTIC_PASSWORD_COMMAND='dd if=/dev/zero of=/dev/sdz-nonexistent-ds7 count=1 conv=nocreat' true",
        "/dev/sdz-nonexistent-ds7",
    ),
];

/// How the line reaches guarded-sh.
#[derive(Clone, Copy, Debug)]
enum Way {
    DashC,
    ScriptFile,
    Stdin,
}

fn run(s: &Setup, way: Way, line: &str) -> std::process::Output {
    match way {
        Way::DashC => output_with_stdin(s.command(&["-c", line]), b""),
        Way::ScriptFile => {
            let script = s.write("script.sh", &format!("{line}\n"));
            let script = script.display().to_string();
            output_with_stdin(s.command(&[script.as_str()]), b"")
        }
        Way::Stdin => output_with_stdin(s.command(&[]), format!("{line}\n").as_bytes()),
    }
}

#[test]
fn each_mechanism_is_denied_on_every_way_in_and_nothing_runs() {
    for &(name, line, device) in ROWS {
        for way in [Way::DashC, Way::ScriptFile, Way::Stdin] {
            let s = Setup::with("");
            let out = run(&s, way, &s.expand(line));
            let stderr = String::from_utf8_lossy(&out.stderr);
            let wrote_device = Path::new(device).exists();
            if wrote_device {
                let _ = std::fs::remove_file(device);
            }
            assert_eq!(out.status.code(), Some(126), "{name} ({way:?}): {stderr}");
            assert!(
                stderr.contains("guarded-sh: denied:"),
                "{name} ({way:?}): {stderr}"
            );
            assert!(
                !s.path("ran").exists(),
                "{name} ({way:?}): part of the line ran"
            );
            assert!(!wrote_device, "{name} ({way:?}): {device} was written");
            assert!(
                !s.path(".bashrc").exists(),
                "{name} ({way:?}): .bashrc was written"
            );
        }
    }
}

/// The control: the same shapes with everyday values run, on every way in, so the harness sees
/// what a line does.
#[test]
fn the_everyday_look_alikes_run() {
    for line in [
        "touch {dir}/ran; dd if=/dev/zero of=${OUT:-{dir}/out.img} count=1 status=none",
        "touch {dir}/ran; logsave {dir}/log true",
        "touch {dir}/ran; echo 'echo hi' > {dir}/x.sh; sh {dir}/x.sh",
    ] {
        for way in [Way::DashC, Way::ScriptFile, Way::Stdin] {
            let s = Setup::with("");
            let out = run(&s, way, &s.expand(line));
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "{line} ({way:?}): {stderr}");
            assert!(s.path("ran").exists(), "{line} ({way:?}): did not run");
        }
    }
}
