//! Remote and container execs: `ssh host CMD…` (a shell string on the remote side),
//! `docker`/`podman`/`nerdctl exec` and `kubectl`/`oc exec -- …` (an argv in the container).

use super::{joined, skip_options, Inner};
use crate::ir::{Via, Word};

pub(super) fn ssh(args: &[Word]) -> Vec<Inner> {
    let at = skip_options(args, "BbcDEeFIiJLlmOoPpQRSWw", &[]);
    let rest = args.get(at + 1..).unwrap_or_default();
    if rest.is_empty() {
        return Vec::new();
    }
    let mut inner = joined(Via::Remote("ssh".into()), rest, false);
    if let Inner::Script { via, .. } = &mut inner {
        *via = Via::Remote("ssh".into());
    }
    vec![inner]
}

pub(super) fn container(base: &str, args: &[Word]) -> Vec<Inner> {
    if args.first().and_then(Word::value) != Some("exec") {
        return Vec::new();
    }
    let rest = args.get(1..).unwrap_or_default();
    let at = skip_options(
        rest,
        "euw",
        &[
            "--env",
            "--env-file",
            "--user",
            "--workdir",
            "--detach-keys",
        ],
    );
    let words = rest.get(at + 1..).unwrap_or_default().to_vec();
    if words.is_empty() {
        return Vec::new();
    }
    vec![Inner::Argv {
        via: Via::Remote(format!("{base} exec")),
        words,
        extra_args: false,
    }]
}

pub(super) fn kubectl(base: &str, args: &[Word]) -> Vec<Inner> {
    if !args.iter().any(|w| w.value() == Some("exec")) {
        return Vec::new();
    }
    let Some(dash) = args.iter().position(|w| w.value() == Some("--")) else {
        return Vec::new();
    };
    let words = args[dash + 1..].to_vec();
    if words.is_empty() {
        return Vec::new();
    }
    vec![Inner::Argv {
        via: Via::Remote(format!("{base} exec")),
        words,
        extra_args: false,
    }]
}
