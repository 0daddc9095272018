//! Payloads automation hands an interpreter instead of a command line: an Ansible task arrives
//! as an AnsiballZ wrapper run by python (from a file, or on stdin with pipelining). `ansiballz`
//! decodes the wrapper; `task` says what the task does as shell command lines, which the gate
//! analyses like any other.

pub mod ansiballz;
pub mod task;

use crate::ir::{Analysis, Payload};
use serde_json::{json, Value};

/// Version of the `command.ansible` object in the policy input.
pub const ANSIBLE_SCHEMA_VERSION: u32 = 1;

/// Largest task arguments an audit record carries, as JSON text.
const MAX_AUDIT_ARGS: usize = 4096;

/// The Ansible tasks an analysis decoded: module, arguments, `no_log`, and whether this build
/// knows the module's effect.
fn tasks(
    analysis: &Analysis,
) -> impl Iterator<Item = (&str, &serde_json::Map<String, Value>, bool, bool)> {
    analysis
        .programs
        .iter()
        .filter_map(|(_, r)| match &r.payload {
            Some(Payload::AnsibleTask {
                module,
                args,
                no_log,
                known,
            }) => Some((module.as_str(), args, *no_log, *known)),
            _ => None,
        })
}

/// The policy input's `command.ansible`: `{schema_version, tasks: [{module, args, no_log, known}]}`.
pub fn policy_view(analysis: &Analysis) -> Value {
    let tasks: Vec<Value> = tasks(analysis)
        .map(|(module, args, no_log, known)| {
            json!({"module": module, "args": args, "no_log": no_log, "known": known})
        })
        .collect();
    json!({"schema_version": ANSIBLE_SCHEMA_VERSION, "tasks": tasks})
}

/// The audit record's `ansible_tasks`: module and arguments, the arguments bounded and never
/// written for a `no_log` task.
pub fn audit_view(analysis: &Analysis) -> Vec<Value> {
    tasks(analysis)
        .map(|(module, args, no_log, _)| {
            if no_log {
                return json!({"module": module, "args": "(no_log)"});
            }
            let text = Value::Object(args.clone()).to_string();
            if text.len() <= MAX_AUDIT_ARGS {
                return json!({"module": module, "args": args});
            }
            let mut end = MAX_AUDIT_ARGS;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            json!({"module": module, "args": &text[..end], "truncated": true})
        })
        .collect()
}

/// Ansible's become-with-pipelining handshake: `sudo … /bin/sh -c 'echo BECOME-SUCCESS-KEY ;
/// /usr/bin/python3'`. Ansible sends the module on stdin only after it has read the marker line
/// that the `echo` prints, so the program cannot be read first unless the marker is printed
/// first: this is that line (`BECOME-SUCCESS-KEY`), when `text` has the handshake. Ansible
/// drops every marker line from the output, the one the `echo` prints later included.
pub fn become_marker(text: &str) -> Option<String> {
    let at = text.find("echo BECOME-SUCCESS-")? + "echo ".len();
    let marker: String = text[at..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    let key = marker.strip_prefix("BECOME-SUCCESS-")?;
    (!key.is_empty() && key.len() <= 64).then_some(marker)
}

#[cfg(test)]
mod tests {
    #[test]
    fn become_markers() {
        let cases: [(&str, Option<&str>); 5] = [
            (
                "sudo -n -u root /bin/sh -c 'echo BECOME-SUCCESS-abc ; /usr/bin/python3'",
                Some("BECOME-SUCCESS-abc"),
            ),
            ("echo BECOME-SUCCESS-; python3", None),
            ("echo BECOME-SUCCESS-a1;x", Some("BECOME-SUCCESS-a1")),
            ("echo hi; python3", None),
            ("printf BECOME-SUCCESS-abc", None),
        ];
        for (text, want) in cases {
            assert_eq!(super::become_marker(text).as_deref(), want, "{text}");
        }
    }
}
