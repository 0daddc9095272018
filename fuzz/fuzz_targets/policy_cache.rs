//! Fuzzes the compiled-policy cache reader with corrupted cache files: the input overwrites (and
//! optionally truncates) bytes of the stored file of the shipped `policies/` — header or payload —
//! and the directory is loaded and evaluated. Every corruption must be caught by the header
//! checks (a cache miss, then a recompile) and the decision must be the uncorrupted one; nothing
//! may panic, abort or allocate without bound.
//!
//! Not fuzzed here: payloads re-signed after mutation. An earlier version of this target did that
//! and found that regorus 0.14's RVM can overflow its stack on a malformed program (an abort:
//! nothing runs, but the process dies). Only root (or the cache owner) can write a signed cache
//! file, which `cache::read` enforces, so that is a regorus robustness issue outside the gate's
//! threat model; see docs/hardening.md.
#![no_main]

use guarded_sh::policy::cache;
use guarded_sh::policy::engine::{self, CacheMode};
use libfuzzer_sys::fuzz_target;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

struct Fixture {
    policies: PathBuf,
    cache: PathBuf,
    file: PathBuf,
    valid: Vec<u8>,
    expected: guarded_sh::policy::decision::PolicyDecision,
}

fn input() -> serde_json::Value {
    serde_json::json!({
        "schema_version": 1, "action": "command_exec",
        "command": {"raw": "ls", "max_severity": "", "critical": false, "riskSignals": []},
        "target": {"env": "prod"}, "execution": {"approved": false}
    })
}

fn fixture() -> Option<&'static Fixture> {
    static FIXTURE: OnceLock<Option<Fixture>> = OnceLock::new();
    FIXTURE
        .get_or_init(|| {
            let policies = Path::new(env!("CARGO_MANIFEST_DIR")).join("../policies");
            let cache = std::env::temp_dir().join(format!("gsh-fuzz-cache-{}", std::process::id()));
            std::fs::create_dir_all(&cache).ok()?;
            let policy = engine::load(&policies, &CacheMode::Dir(cache.clone())).ok()?;
            let key = cache::cache_key(policy.digest());
            let file = cache::cache_file(&cache, &key);
            let valid = std::fs::read(&file).ok()?;
            let expected = policy.evaluate(&input()).ok()?;
            Some(Fixture {
                policies,
                cache,
                file,
                valid,
                expected,
            })
        })
        .as_ref()
}

fuzz_target!(|data: &[u8]| {
    let Some(f) = fixture() else {
        return;
    };
    let mut payload = f.valid.clone();
    let (head, patch) = data.split_at(data.len().min(5));
    let mut at = [0u8; 4];
    at[..head.len().min(4)].copy_from_slice(&head[..head.len().min(4)]);
    let at = u32::from_le_bytes(at) as usize % payload.len().max(1);
    for (i, b) in patch.iter().enumerate() {
        if let Some(slot) = payload.get_mut(at + i) {
            *slot = *b;
        }
    }
    if head.get(4).is_some_and(|b| b & 1 == 1) {
        payload.truncate(at + patch.len());
    }
    let bytes = payload;
    if std::fs::write(&f.file, &bytes).is_err() {
        return;
    }
    // Whatever happened to the file, the decision is the one the uncorrupted policy gives.
    let policy = engine::load(&f.policies, &CacheMode::Dir(f.cache.clone()));
    let decision = policy.ok().and_then(|p| p.evaluate(&input()).ok());
    assert_eq!(
        decision.as_ref(),
        Some(&f.expected),
        "a corrupted cache file changed the decision"
    );
});
