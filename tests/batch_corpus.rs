//! A small batch over the real LDV corpus end to end: a fixed-seed sample of
//! 20 `ldv-regression` rows of `single.tsv` at 5 s each, through `mpv batch`
//! and `mpv report --fail-on-wrong` (no verdict may contradict LDV's).

use std::process::Command;

mod common;

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
