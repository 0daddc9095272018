//! Fuzzes the policy input (`policy::input::build`) through a gated evaluation: arbitrary text is
//! analysed, turned into the schema-1 input and evaluated by the shipped `policies/` directory on
//! both regorus back ends (interpreter and RVM). Invariants: the input carries the raw text and a
//! `critical` flag that matches the signals; the two back ends agree (or both fail, which is a
//! deny); and the final decision never allows a critical signal.
#![no_main]

use guarded_sh::analysis::analyse;
use guarded_sh::decision::{decide, Effect, Mode, PolicyFailure};
use guarded_sh::parse::Limits;
use guarded_sh::policy::engine::{self, Backend, CacheMode, LoadOptions, Policy};
use guarded_sh::policy::error::PolicyError;
use guarded_sh::policy::input::{build, InputParts, Session, Target};
use guarded_sh::signals::{detect, first_critical};
use libfuzzer_sys::fuzz_target;
use std::path::Path;
use std::sync::OnceLock;

fn policies() -> &'static Option<(Policy, Policy)> {
    static POLICIES: OnceLock<Option<(Policy, Policy)>> = OnceLock::new();
    POLICIES.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../policies");
        let load = |backend| {
            engine::load_with(
                &dir,
                &LoadOptions {
                    cache: CacheMode::Off,
                    backend,
                    limits: engine::Limits::default(),
                },
            )
        };
        Some((load(Backend::Interpreter).ok()?, load(Backend::Rvm).ok()?))
    })
}

fuzz_target!(|data: &[u8]| {
    // The first byte picks the target environment, so `prod`-only rules are reached too.
    let (env, text) = match data.split_first() {
        Some((b, rest)) => (["", "prod", "staging", "dev"][usize::from(*b % 4)], rest),
        None => ("", data),
    };
    let text = String::from_utf8_lossy(text);
    let analysis = analyse(&text, &Limits::default());
    let found = detect(&analysis);
    let target = Target {
        name: "fuzz-host".into(),
        provider: "ssh".into(),
        env: env.into(),
        host_vars: serde_json::Map::new(),
    };
    let session = Session {
        mode: "command".into(),
        user: "fuzz".into(),
        uid: 1000,
        ..Session::default()
    };
    let input = build(&InputParts {
        raw: &text,
        interpreter: "",
        analysis: &analysis,
        signals: &found,
        target: &target,
        session: &session,
        dry_run: false,
        approved: false,
        supervised: false,
    });
    assert_eq!(input["command"]["raw"].as_str(), Some(&*text));
    assert_eq!(
        input["command"]["critical"].as_bool(),
        Some(first_critical(&found).is_some())
    );
    assert_eq!(
        input["command"]["riskSignals"].as_array().map(Vec::len),
        Some(found.len())
    );
    let Some((interpreter, rvm)) = policies() else {
        return;
    };
    let a = interpreter.evaluate(&input);
    let b = rvm.evaluate(&input);
    match (&a, &b) {
        (Ok(x), Ok(y)) => assert_eq!(x, y, "interpreter and RVM disagree"),
        // A wall-clock limit can trip on one back end only on a loaded machine.
        (Err(PolicyError::Timeout { .. }), _) | (_, Err(PolicyError::Timeout { .. })) => {}
        (Err(x), Err(y)) => assert_eq!(x.reason_id(), y.reason_id()),
        _ => panic!("one back end failed: interpreter {a:?}, rvm {b:?}"),
    }
    let policy = a.as_ref().map_err(|e| PolicyFailure {
        reason_id: e.reason_id(),
        message: e.to_string(),
    });
    let verdict = decide(false, &found, Mode::Command, Some(policy.as_ref().copied()));
    if first_critical(&found).is_some() {
        assert!(
            verdict.effect == Effect::Deny,
            "critical allowed: {verdict:?}"
        );
    }
});
