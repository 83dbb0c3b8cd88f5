//! `mpv eval` end to end: three hand-made results files of the same four
//! modules (baseline, s0, s4) with known CPU times and verdicts; the table's
//! counts, speedups, gained and lost results, and the plots.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{json, Value};

fn tmp_dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mpv-eval-cli-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn mpv(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mpv"))
        .args(args)
        .output()
        .unwrap()
}

/// A finished line of module `key` with verdicts for `label:ERROR` and the
/// rule-library property `ldv:32_1`; the benchmark expects `exp`.
fn line(key: &str, verdicts: [&str; 2], exp: [&str; 2], cpu: f64, parts: Option<usize>) -> Value {
    let mut stats = json!({"analysis_cpu_s": cpu - 1.0, "total_cpu_s": cpu});
    if let Some(n) = parts {
        let p = json!({"properties": ["label:ERROR"], "budget_s": null, "spent_s": 1.0,
                       "refinements": 0, "transitions": 10, "finished": true});
        stats["partitions"] = Value::Array(vec![p; n]);
    }
    json!({
        "key": format!("{key}.c|*|ALL.prp"), "file": format!("{key}.c"), "set": "s",
        "rule": "*", "status": "ok", "cpu_s": cpu + 0.5,
        "properties": [
            {"id": "label:ERROR", "verdict": verdicts[0], "reason": null},
            {"id": "ldv:32_1", "verdict": verdicts[1], "reason": null},
        ],
        "expected": [
            {"rule": "08_1a", "property": "label:ERROR", "verdict": exp[0]},
            {"rule": "32_1", "property": null, "verdict": exp[1]},
        ],
        "stats": stats,
    })
}

fn write(path: &Path, lines: &[Value]) {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(path, text).unwrap();
}

const T: &str = "true";
const F: &str = "false";
const U: &str = "unknown";

/// Baseline: m3's 32_1 undecided. s0: 5× faster on m1–m3, m2's label wrong,
/// m3's 32_1 gained, m4 killed (both its results lost, 2× slower). s4:
/// 2× faster on m1–m3, as fast on m4, the baseline's verdicts.
fn results(d: &Path) -> [PathBuf; 3] {
    let files = [d.join("base.jsonl"), d.join("s0.jsonl"), d.join("s4.jsonl")];
    write(
        &files[0],
        &[
            line("m1", [T, T], [T, T], 10.0, Some(2)),
            line("m2", [F, T], [F, T], 20.0, Some(2)),
            line("m3", [T, U], [T, T], 40.0, Some(2)),
            line("m4", [T, T], [T, T], 5.0, Some(2)),
        ],
    );
    let mut killed = line("m4", [U, U], [T, T], 0.0, None);
    killed["status"] = json!("timeout");
    killed["properties"] = json!([]);
    killed["stats"] = Value::Null;
    killed["cpu_s"] = json!(10.0);
    write(
        &files[1],
        &[
            line("m1", [T, T], [T, T], 2.0, None),
            line("m2", [T, T], [F, T], 4.0, None),
            line("m3", [T, T], [T, T], 8.0, None),
            killed,
        ],
    );
    let s4: Vec<Value> = [
        line("m1", [T, T], [T, T], 5.0, Some(1)),
        line("m2", [F, T], [F, T], 10.0, Some(1)),
        line("m3", [T, U], [T, T], 20.0, Some(3)),
        line("m4", [T, T], [T, T], 5.0, Some(1)),
    ]
    .into_iter()
    .map(|mut l| {
        l["strategy"] = json!("s4");
        l
    })
    .collect();
    write(&files[2], &s4);
    files
}

fn cell(row: &[String], header: &[String], name: &str) -> f64 {
    let i = header.iter().position(|h| h == name).expect(name);
    row[i]
        .parse()
        .unwrap_or_else(|_| panic!("{name}: {}", row[i]))
}

#[test]
fn compares_runs_against_the_baseline() {
    let d = tmp_dir("compare");
    let [base, s0, s4] = results(&d);
    let out = d.join("out");
    let o = mpv(&[
        "eval",
        "--run",
        &format!("baseline={}", base.display()),
        "--run",
        &format!("s0={}", s0.display()),
        "--run",
        s4.to_str().unwrap(),
        "--out-dir",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);

    let csv = std::fs::read_to_string(out.join("table.csv")).unwrap();
    let mut lines = csv
        .lines()
        .map(|l| l.split(',').map(str::to_string).collect::<Vec<_>>());
    let header = lines.next().unwrap();
    let rows: Vec<Vec<String>> = lines.collect();
    let names: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(
        names,
        ["baseline", "s0", "s4"],
        "s4 is named by its lines' strategy"
    );
    let c = |r: usize, name: &str| cell(&rows[r], &header, name);

    // Counts.
    for r in 0..3 {
        assert_eq!((c(r, "modules"), c(r, "properties")), (4.0, 8.0));
    }
    assert_eq!(
        (c(0, "TRUE"), c(0, "FALSE"), c(0, "UNKNOWN")),
        (6.0, 1.0, 1.0)
    );
    assert_eq!(
        (c(1, "TRUE"), c(1, "FALSE"), c(1, "UNKNOWN")),
        (6.0, 0.0, 2.0)
    );
    assert_eq!(
        (c(0, "wrong"), c(1, "wrong"), c(2, "wrong")),
        (0.0, 1.0, 0.0)
    );
    assert_eq!(c(0, "partitions"), 8.0);
    assert_eq!(
        c(1, "partitions"),
        4.0,
        "one per module without stats.partitions"
    );
    assert_eq!(c(2, "partitions"), 6.0);
    assert_eq!(c(0, "total CPU s"), 75.0);
    assert_eq!(c(1, "total CPU s"), 24.0, "the killed child's own CPU time");
    assert_eq!(c(2, "analysis CPU s"), 36.0);

    // Speedups: s0 5, 5, 5, 0.5; s4 2, 2, 2, 1.
    let close = |a: f64, b: f64| (a - b).abs() < 0.006;
    assert!(close(c(1, "speedup geo"), 62.5f64.powf(0.25)));
    assert!(close(c(1, "speedup mean"), 3.875));
    assert!(close(
        c(1, "speedup geo (baseline-solved)"),
        12.5f64.powf(1.0 / 3.0)
    ));
    assert!(close(c(1, "speedup mean (baseline-solved)"), 3.5));
    assert!(close(c(2, "speedup geo"), 8f64.powf(0.25)));
    assert!(close(c(2, "speedup mean"), 1.75));
    assert_eq!(c(0, "speedup geo"), 1.0);
    assert_eq!((c(1, "% speedup > 1"), c(2, "% speedup > 1")), (75.0, 75.0));

    // Results gained and lost against the baseline.
    assert_eq!(
        (c(1, "additional"), c(1, "lost"), c(1, "% lost")),
        (1.0, 2.0, 25.0)
    );
    assert_eq!((c(2, "additional"), c(2, "lost")), (0.0, 0.0));

    // Standard output holds the same table, aligned.
    for row in &rows {
        let text_row: Vec<&str> = stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(&row[0]))
            .unwrap_or_else(|| panic!("no row {} in\n{stdout}", row[0]))
            .split_whitespace()
            .collect();
        assert_eq!(text_row, *row, "{stdout}");
    }
    let md = std::fs::read_to_string(out.join("table.md")).unwrap();
    assert!(md.starts_with("| configuration | modules |"), "{md}");
    assert!(md.contains("\n| s0 | 4 | 8 | 6 | 0 | 2 | 1 | 4 |"), "{md}");

    // Plots: a scatter plot per configuration other than the baseline.
    assert!(!out.join("scatter-baseline.svg").exists());
    for name in ["scatter-s0.svg", "scatter-s4.svg", "quantile.svg"] {
        let svg = std::fs::read_to_string(out.join(name)).unwrap();
        mpv::eval::svg::well_formed(&svg).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let scatter = std::fs::read_to_string(out.join("scatter-s0.svg")).unwrap();
    assert_eq!(
        scatter.matches("<circle").count(),
        4 + 2,
        "4 modules, 2 legend marks"
    );
    assert!(scatter.contains("baseline: total CPU time per module (s)"));
    let quantile = std::fs::read_to_string(out.join("quantile.svg")).unwrap();
    assert_eq!(quantile.matches("<polyline").count(), 3);
    assert!(
        quantile.contains("s0 (3 modules)"),
        "m4 is not solved by s0"
    );
    assert!(
        quantile.contains("baseline (3 modules)"),
        "nor m3 by the baseline"
    );
}

#[test]
fn markdown_to_stdout_and_a_missing_baseline() {
    let d = tmp_dir("markdown");
    let [base, s0, _] = results(&d);
    let o = mpv(&[
        "eval",
        "--run",
        &format!("bl={}", base.display()),
        "--run",
        &format!("s0={}", s0.display()),
        "--baseline",
        "bl",
        "--format",
        "markdown",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("\n| bl | 4 | 8 | 6 | 1 | 1 | 0 | 8 |"),
        "{stdout}"
    );
    assert!(stdout.contains("speedup: bl's total CPU time"), "{stdout}");

    let o = mpv(&["eval", "--run", &format!("s0={}", s0.display())]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no run is named `baseline`"), "{err}");
}
