//! A python program that is an Ansible AnsiballZ wrapper: the task it carries is decoded and
//! said as shell lines (lowered like any shell-out), and the wrapper's own code outside its two
//! data literals is analysed as python, less the template's own imports and temp-dir cleanup.
//! A wrapper that cannot be decoded is analysed whole, as any python program.

use super::python;
use crate::ir::{Code, Finding, Limits, Payload, ProgramAnalysis, Report, Run};
use crate::payload::ansiballz::{self, PayloadError};
use crate::payload::task;

/// Modules the AnsiballZ template itself imports (every wrapper does).
const TEMPLATE_IMPORTS: &[&str] = &[
    "os",
    "os.path",
    "sys",
    "tempfile",
    "base64",
    "zipfile",
    "runpy",
    "shutil",
    "json",
    "__main__",
    "ansible.module_utils",
    "ansible.module_utils.basic",
];

/// The decoded task and the wrapper's own code; `Err` with what the payload is when the wrapper
/// cannot be decoded, and the caller then analyses the whole text as any python program.
pub fn analyse(code: &Code, text: &str, limits: &Limits) -> Result<ProgramAnalysis, Payload> {
    let bounds = ansiballz::Bounds {
        max_bytes: limits.max_payload_bytes,
        ..ansiballz::Bounds::default()
    };
    let (decoded, own) = match ansiballz::decode(text, &bounds).and_then(|d| {
        ansiballz::wrapper_code(text)
            .map(|own| (d, own))
            .ok_or(PayloadError::Missing("ANSIBALLZ_PARAMS"))
    }) {
        Ok(found) => found,
        Err(e) => {
            return Err(Payload::Undecoded {
                malformed: !e.is_unknown_format(),
                reason: e.to_string(),
            })
        }
    };
    let lines = task::equivalent(&decoded);
    let call = format!("ansible {}", decoded.fqn);
    let mut runs: Vec<Run> = lines
        .iter()
        .flatten()
        .map(|line| Run::Shell {
            call: call.clone(),
            text: line.clone(),
            positional: None,
            fed: false,
        })
        .collect();
    let mut report = Report {
        language: code.language,
        interpreter: code.interpreter.clone(),
        origin: code.origin.clone(),
        bytes: text.len(),
        too_large: false,
        dynamic: code.partial,
        parse_incomplete: false,
        findings: Vec::new(),
        payload: Some(Payload::AnsibleTask {
            no_log: decoded.no_log(),
            module: decoded.fqn.clone(),
            args: decoded.user_args(),
            known: lines.is_some(),
        }),
    };
    let (timed_out, over_steps, exhausted) = if own.len() > limits.max_code_bytes {
        report.too_large = true;
        (false, false, false)
    } else {
        let out = python::analyse(&own, limits);
        report.parse_incomplete = out.parse_incomplete;
        report.findings = out
            .findings
            .into_iter()
            .filter(|f| !is_template_finding(f))
            .collect();
        runs.extend(out.runs);
        (out.timed_out, out.over_steps, out.exhausted)
    };
    Ok(ProgramAnalysis {
        report,
        runs,
        timed_out,
        over_steps,
        exhausted,
    })
}

/// What every AnsiballZ wrapper does itself: its imports, and removing its own temp directory.
fn is_template_finding(finding: &Finding) -> bool {
    match finding {
        Finding::Import(module) => TEMPLATE_IMPORTS.contains(&module.as_str()),
        Finding::Delete {
            call,
            path: None,
            recursive: true,
        } => call == "shutil.rmtree",
        _ => false,
    }
}
