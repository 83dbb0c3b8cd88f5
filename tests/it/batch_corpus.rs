//! A small batch over the real LDV corpus end to end: a fixed-seed sample of
//! 20 `ldv-regression` rows of `single.tsv` at 5 s each, through `mpv batch`
//! and `mpv report --fail-on-wrong` (no verdict may contradict LDV's).

use std::process::Command;

use crate::common;

#[test]
fn ldv_regression_sample_has_no_wrong_verdict() {
    let corpus = common::corpus_dir();
    let manifest = corpus.join("single.tsv");
    let out = std::env::temp_dir().join(format!("mpv-batch-corpus-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&out);
    let start = std::time::Instant::now();
    let b = Command::new(env!("CARGO_BIN_EXE_mpv"))
        .arg("batch")
        .arg("--manifest")
        .arg(&manifest)
        .args(["--set", "ldv-regression", "--sample", "20", "--seed", "1"])
        .args(["--time-limit", "5", "--jobs", "2", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(b.status.success(), "{}", String::from_utf8_lossy(&b.stderr));
    let lines = std::fs::read_to_string(&out).unwrap();
    assert_eq!(lines.lines().count(), 20, "one result per task");
    let r = Command::new(env!("CARGO_BIN_EXE_mpv"))
        .arg("report")
        .arg(&out)
        .arg("--expected")
        .arg(&manifest)
        .arg("--fail-on-wrong")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&r.stdout);
    assert!(r.status.success(), "wrong verdicts:\n{text}");
    assert!(text.contains("ldv-regression"), "{text}");
    eprintln!("{text}\n{:.1} s", start.elapsed().as_secs_f64());
    let _ = std::fs::remove_file(&out);
}

/// Multi-property end to end: revisions of `multi.tsv` (three with a
/// violated rule, three others) under S4 at 10 s each; the checked rules come
/// from mpv's library, and no verdict may contradict LDV's.
#[test]
fn multi_rule_sample_under_s4_has_no_wrong_verdict() {
    let corpus = common::corpus_dir();
    let text = std::fs::read_to_string(corpus.join("multi.tsv")).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let rows: Vec<&str> = lines.collect();
    let violated = |r: &str| r.split('\t').skip(2).any(|c| c == "false");
    let mut pick: Vec<&str> = rows
        .iter()
        .copied()
        .filter(|r| violated(r))
        .step_by(7)
        .take(3)
        .collect();
    pick.extend(
        rows.iter()
            .copied()
            .filter(|r| !violated(r))
            .step_by(97)
            .take(3),
    );
    let dir = std::env::temp_dir().join(format!("mpv-multi-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let manifest = dir.join("multi.tsv");
    std::fs::write(&manifest, format!("{header}\n{}\n", pick.join("\n"))).unwrap();
    let out = dir.join("multi.jsonl");
    let _ = std::fs::remove_file(&out);
    let b = Command::new(env!("CARGO_BIN_EXE_mpv"))
        .arg("batch")
        .arg("--manifest")
        .arg(&manifest)
        .arg("--root")
        .arg(&corpus)
        .args(["--time-limit", "10", "--jobs", "2", "--out"])
        .arg(&out)
        .args(["--", "--strategy", "s4"])
        .output()
        .unwrap();
    assert!(b.status.success(), "{}", String::from_utf8_lossy(&b.stderr));
    let results = std::fs::read_to_string(&out).unwrap();
    assert_eq!(results.lines().count(), 6, "one result per revision");
    for l in results.lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        assert_eq!(v["status"], "ok", "{l}");
        assert_eq!(v["strategy"], "s4");
        assert!(
            v["properties"].as_array().unwrap().len() >= 2,
            "the label and library rules: {l}"
        );
    }
    let r = Command::new(env!("CARGO_BIN_EXE_mpv"))
        .arg("report")
        .arg(&out)
        .arg("--fail-on-wrong")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&r.stdout);
    assert!(r.status.success(), "wrong verdicts:\n{text}");
    eprintln!("{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
