//! Ansible tasks that arrive as AnsiballZ payloads: a payload that cannot be decoded (damaged,
//! truncated or over a bound: fail closed; or a format this build does not know), and a module
//! whose effect this build cannot say. What a known task does meets the shell families through
//! the shell lines `crate::interp` lowered for it.

use super::python::once;
use super::{Family, Severity, Signal, Spec};
use crate::ir::{Analysis, Payload};

spec!(ANSIBLE_PAYLOAD_MALFORMED, "ANSIBLE_PAYLOAD_MALFORMED", Critical, Ansible, "Ansible payload damaged, truncated or too large to decode",
    "A python program is an Ansible AnsiballZ wrapper, but its task arguments, its base64 zip or the module in it cannot be decoded within `limits.max_payload_bytes` and the zip bounds. What it would run cannot be judged, so it is denied (fail closed).");
spec!(ANSIBLE_PAYLOAD_UNDECODED, "ANSIBLE_PAYLOAD_UNDECODED", High, Ansible, "Ansible payload of an unknown format",
    "A python program is marked as an Ansible AnsiballZ wrapper, but not in a format this build decodes (no `ANSIBALLZ_PARAMS`, `ZIPDATA` or `runpy.run_module` where ansible-core puts them): the task it carries is not judged. A policy can deny it.");
spec!(ANSIBLE_MODULE_UNKNOWN, "ANSIBLE_MODULE_UNKNOWN", Medium, Ansible, "Ansible module whose effect is not known",
    "An Ansible task runs a module this build cannot say as shell commands (a module from a collection, or a builtin outside the table in `src/payload/task.rs`). `args` carries the module's name, so a policy can allow or deny modules by name.");

pub static SPECS: &[&Spec] = &[
    &ANSIBLE_PAYLOAD_MALFORMED,
    &ANSIBLE_PAYLOAD_UNDECODED,
    &ANSIBLE_MODULE_UNKNOWN,
];

pub fn detect(a: &Analysis, out: &mut Vec<Signal>) {
    for (i, report) in &a.programs {
        let Some(cmd) = a.commands.get(*i) else {
            continue;
        };
        match &report.payload {
            Some(Payload::Undecoded { malformed, reason }) => {
                let spec = if *malformed {
                    &ANSIBLE_PAYLOAD_MALFORMED
                } else {
                    &ANSIBLE_PAYLOAD_UNDECODED
                };
                once(out, spec, *i, cmd, reason);
            }
            Some(Payload::AnsibleTask {
                module,
                known: false,
                ..
            }) => once(out, &ANSIBLE_MODULE_UNKNOWN, *i, cmd, module),
            _ => {}
        }
    }
}
