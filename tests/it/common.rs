//! Helpers shared by the integration tests and the benches: where the LDV
//! benchmarks are, and the test programs of `tests/programs/` with the
//! verdicts their `expect:` comments give.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

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

/// Whether the LDV corpus can be had: `$MPV_BENCH_DIR` is set or
/// `../shared/benchmarks/unpack.sh` is there.
pub fn corpus_available() -> bool {
    std::env::var_os("MPV_BENCH_DIR").is_some()
        || Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/benchmarks/unpack.sh")
            .exists()
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

/// xorshift64*: a fixed, dependency-free pseudo-random sequence (the
/// fuzz tests' mutations).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// One of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// A program of `tests/programs/DIR` and the verdicts it is expected to
/// give.
pub struct TestProgram {
    pub path: PathBuf,
    pub expect: Vec<Expectation>,
}

/// One `KEY=VERDICTS` entry of an `expect:` comment: `KEY` names what gives
/// the verdict (a rule id in `multi/`; `symexec` or `cegar`, the analysis, in
/// `engine/` and `predicate/`), `VERDICTS` is one of `true`, `false`,
/// `unknown` — or `error`, the front end refuses the file — or several
/// joined by `|`, any of which is right (`false|unknown`: never TRUE).
pub struct Expectation {
    pub key: String,
    pub verdicts: Vec<String>,
}

const VERDICT_WORDS: [&str; 4] = ["true", "false", "unknown", "error"];

impl TestProgram {
    /// The file name.
    pub fn name(&self) -> String {
        self.path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned()
    }

    /// The expectation for `key`, if the program has one.
    pub fn expected(&self, key: &str) -> Option<&Expectation> {
        self.expect.iter().find(|e| e.key == key)
    }
}

impl Expectation {
    /// Whether `verdict` (`true`, `false`, `unknown` or `error`) is right.
    pub fn admits(&self, verdict: &str) -> bool {
        self.verdicts.iter().any(|v| v == verdict)
    }

    /// The verdicts as written (`false|unknown`).
    pub fn text(&self) -> String {
        self.verdicts.join("|")
    }
}

/// A verdict as the `expect:` comments and mpv's JSON output write it.
pub fn verdict_word(v: mpv::report::Verdict) -> &'static str {
    match v {
        mpv::report::Verdict::True => "true",
        mpv::report::Verdict::False => "false",
        mpv::report::Verdict::Unknown => "unknown",
    }
}

/// The `.c` programs of `tests/programs/DIR`, sorted by name, each with the
/// entries of its `expect:` comment (the first line containing `expect:`;
/// its `KEY=VERDICTS` words, up to the end of the line or a `*/`). A program
/// without one, a word that is not `KEY=VERDICTS` with known verdicts, or a
/// key outside `keys` (when `keys` is not empty) is an error: adding a
/// program is adding a file with its expected verdicts.
pub fn test_programs(dir: &str, keys: &[&str]) -> Vec<TestProgram> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/programs")
        .join(dir);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let src = std::fs::read_to_string(&path).unwrap();
            let expect =
                expectations(&src).unwrap_or_else(|why| panic!("{}: {why}", path.display()));
            for e in &expect {
                assert!(
                    keys.is_empty() || keys.contains(&e.key.as_str()),
                    "{}: `expect:` key {} is none of {keys:?}",
                    path.display(),
                    e.key
                );
            }
            TestProgram { path, expect }
        })
        .collect()
}

/// The entries of the first `expect:` comment of `src`.
pub fn expectations(src: &str) -> Result<Vec<Expectation>, String> {
    let line = src
        .lines()
        .find_map(|l| l.split_once("expect:").map(|(_, r)| r))
        .ok_or("no `expect:` comment")?;
    let line = line.split("*/").next().unwrap_or_default();
    let mut out = Vec::new();
    for word in line.split_whitespace() {
        let (key, verdicts) = word
            .split_once('=')
            .ok_or_else(|| format!("`expect:` word {word} is not KEY=VERDICTS"))?;
        let verdicts: Vec<String> = verdicts.split('|').map(str::to_string).collect();
        if key.is_empty()
            || verdicts
                .iter()
                .any(|v| !VERDICT_WORDS.contains(&v.as_str()))
        {
            return Err(format!(
                "`expect:` word {word}: a key and verdicts among {VERDICT_WORDS:?}"
            ));
        }
        if out.iter().any(|e: &Expectation| e.key == key) {
            return Err(format!("`expect:` key {key} twice"));
        }
        out.push(Expectation {
            key: key.to_string(),
            verdicts,
        });
    }
    if out.is_empty() {
        return Err("an empty `expect:` comment".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn expect_comments_give_keys_and_verdict_sets() {
        let e = super::expectations(
            "/* A program.\n * expect: 32_1=true cegar=false|unknown */\nint x;",
        )
        .unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].key, "32_1");
        assert!(e[0].admits("true") && !e[0].admits("false"));
        assert_eq!(e[1].text(), "false|unknown");
        assert!(e[1].admits("unknown") && !e[1].admits("true"));
        for bad in [
            "int x;",
            "/* expect: */",
            "/* expect: true */",
            "/* expect: cegar=maybe */",
            "/* expect: cegar=true cegar=false */",
        ] {
            assert!(super::expectations(bad).is_err(), "{bad}");
        }
    }
}
