//! Fuzzes the compiled-policy cache reader with checksum-valid but mutated programs: the input
//! overwrites (and optionally truncates) the serialized RVM program of the shipped `policies/`,
//! the result is stored under the real cache key with a correct header, and the directory is
//! loaded and evaluated. A corrupt program must be rejected or evaluate to a type-checked
//! decision; it must never panic, abort or allocate without bound. (The cache directory is
//! trusted — root-owned — so this is defence in depth against corruption, not an attack.)
#![no_main]

use guarded_sh::policy::cache;
use guarded_sh::policy::engine::{self, CacheMode};
use libfuzzer_sys::fuzz_target;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

struct Fixture {
    policies: PathBuf,
    cache: PathBuf,
    key: String,
    file: PathBuf,
    valid: Vec<u8>,
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
            Some(Fixture {
                policies,
                cache,
                key,
                file,
                valid,
            })
        })
        .as_ref()
}

/// Header: magic (8), key (64), sha256 of the payload (32), payload length (8 LE).
const HEADER_LEN: usize = 8 + 64 + 32 + 8;

fuzz_target!(|data: &[u8]| {
    let Some(f) = fixture() else {
        return;
    };
    let Some(payload) = f.valid.get(HEADER_LEN..) else {
        return;
    };
    let mut payload = payload.to_vec();
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
    let mut bytes = f.valid[..8 + 64].to_vec();
    bytes.extend_from_slice(&sha256(&payload));
    bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&payload);
    if std::fs::write(&f.file, &bytes).is_err() {
        return;
    }
    let _ = &f.key;
    if let Ok(policy) = engine::load(&f.policies, &CacheMode::Dir(f.cache.clone())) {
        let input = serde_json::json!({
            "schema_version": 1, "action": "command_exec",
            "command": {"raw": "ls", "max_severity": "", "critical": false, "riskSignals": []},
            "target": {"env": "prod"}, "execution": {"approved": false}
        });
        let _ = policy.evaluate(&input);
    }
});

fn sha256(bytes: &[u8]) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).into()
}
