//! Helpers shared by the corpus tests and benches: where the LDV benchmarks are.
#![allow(dead_code)]

use std::path::PathBuf;

/// The unpacked corpus: `$MPV_BENCH_DIR`, else `../shared/benchmarks/unpack.sh`,
/// run once per process: the script copies the manifests over the unpacked
/// ones on every run, so tests running it at once could read a manifest
/// another run has just truncated.
pub fn corpus_dir() -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(unpack).clone()
}

fn unpack() -> PathBuf {
    if let Ok(d) = std::env::var("MPV_BENCH_DIR") {
        return PathBuf::from(d);
    }
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/benchmarks/unpack.sh");
    let out = std::process::Command::new("bash")
        .arg(&script)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
    assert!(
        out.status.success(),
        "unpack.sh failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

/// Rows of a manifest as columns (header skipped).
pub fn manifest(name: &str) -> Vec<Vec<String>> {
    let path = corpus_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .skip(1)
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

/// A seeded FNV-1a hash: the fixed-seed order of the benches' samples.
pub fn seeded_hash(s: &str, seed: u64) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ seed;
    for b in s.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
    }
    h
}
