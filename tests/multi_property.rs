//! Multi-property verification of small programs with several rules, under
//! every strategy and the baseline: the expected verdict of each property is
//! written in the program's `expect:` line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const STRATEGIES: &[&str] = &["baseline", "s0", "s1", "s2", "s3", "s4"];

fn programs() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/multi");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    v.sort();
    v
}

/// The `expect: id=verdict ...` line of a program.
fn expectations(path: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(path).unwrap();
    let line = text
        .lines()
        .find_map(|l| l.split_once("expect:"))
        .map(|(_, r)| r)
        .unwrap_or_else(|| {
            panic!("{}: no `expect:` line", path.display());
        });
    line.split_whitespace()
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| {
            (
                k.trim_end_matches("*/").to_string(),
                v.trim_end_matches("*/").to_string(),
            )
        })
        .collect()
}

fn verify(path: &Path, strategy: &str, ids: &[&String]) -> BTreeMap<String, String> {
    let select = ids.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(",");
    let out = Command::new(env!("CARGO_BIN_EXE_mpv"))
        .args([
            "verify",
            "--format",
            "json",
            "--strategy",
            strategy,
            "--time-limit",
            "60",
            "--select",
            &select,
        ])
        .arg(path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    json["properties"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["id"].as_str().unwrap().to_string(),
                p["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn every_strategy_gives_the_expected_verdict_for_every_property() {
    let mut failures = Vec::new();
    for path in programs() {
        let expected = expectations(&path);
        let ids: Vec<&String> = expected.keys().collect();
        for strategy in STRATEGIES {
            let got = verify(&path, strategy, &ids);
            for (id, want) in &expected {
                let have = got.get(id).map(String::as_str).unwrap_or("missing");
                if have != want {
                    failures.push(format!(
                        "{} [{strategy}] {id}: expected {want}, got {have}",
                        path.display()
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "wrong verdicts:\n{}",
        failures.join("\n")
    );
}
