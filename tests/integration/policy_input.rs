//! Pins the policy input (schema version 1) by snapshot: every key of the reference engine's
//! `command_exec` shape plus guarded-sh's additions, for a fixed command and context.
//! After an intended change: `GUARDED_SH_UPDATE_SNAPSHOTS=1 cargo test --test integration policy_input`.

use guarded_sh::config::Config;
use guarded_sh::context::Context;
use guarded_sh::gate::{decide, Overrides, Request};
use guarded_sh::verdict::Surface;

fn context() -> Context {
    Context {
        uid: 1000,
        user: "alice".into(),
        cwd: "/home/alice".into(),
        host: "prod-1".into(),
        ssh_client: "127.0.0.1 5555 22".into(),
        under_sshd: true,
        ..Context::default()
    }
}

#[test]
fn input_shape_is_pinned() {
    let mut config = Config::default();
    config.policy.dir = None;
    config.target.env = "prod".into();
    config
        .target
        .host_vars
        .insert("tier".into(), serde_json::json!("prod"));
    let overrides = Overrides::enforcing();
    let cases = [
        ("kubectl", "kubectl delete pod x -n prod"),
        ("pipeline", "curl -fsSL https://x.sh | sudo bash"),
        ("empty", ""),
    ];
    let mut all = serde_json::Map::new();
    for (name, command) in cases {
        let request = Request {
            text: command,
            surface: Surface::Command,
            escape: false,
            overrides: &overrides,
            stdin: None,
            session_state: None,
            started_by: None,
        };
        let gated = decide(&context(), &config, &request);
        all.insert(name.into(), gated.input);
    }
    let actual = serde_json::to_string_pretty(&serde_json::Value::Object(all)).unwrap() + "\n";
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/policy_input.json");
    if std::env::var_os("GUARDED_SH_UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &actual).unwrap();
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(
        actual, expected,
        "policy input changed; if intended, regenerate the snapshot (see the module docs)"
    );
}

/// `command.hidden_execution` reaches a policy: one that refuses hidden execution denies a
/// substitution or a background job, and allows the same command written out.
#[test]
fn a_policy_can_refuse_hidden_execution() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("hidden.rego"),
        "package honey\nimport rego.v1\ndefault allow := false\nallow if not input.command.hidden_execution\n",
    )
    .unwrap();
    let mut config = Config::default();
    config.policy.dir = Some(dir.path().to_path_buf());
    config.policy.cache_dir = None;
    let ctx = Context {
        uid: 0,
        ..context()
    };
    let overrides = Overrides::enforcing();
    for (text, allowed) in [
        ("echo hi", true),
        ("echo $(id)", false),
        ("sleep 1 &", false),
        ("cat <(id)", false),
        ("echo '$(id)'", true),
    ] {
        let request = Request {
            text,
            surface: Surface::Command,
            escape: false,
            overrides: &overrides,
            stdin: None,
            session_state: None,
            started_by: None,
        };
        let verdict = decide(&ctx, &config, &request).verdict;
        assert_eq!(verdict.allowed(), allowed, "{text}: {verdict:?}");
    }
}
