//! The multi-property benchmark: `multi.tsv` (revisions × six rules; 08_1a is
//! the input's instrumented `label:LDV_ERROR`, the other five rules come
//! from mpv's library) under `baseline` and the SDC strategies, every module
//! in its own process (`mpv batch`), compared like the FSE'16 paper's
//! Table 2 and Fig. 2 (`mpv eval`, with its per-module cost table against
//! `baseline` and against separate processes per property). A wrong verdict
//! in any configuration fails the bench (`mpv report --fail-on-wrong`).
//!
//! Two settings (`MPV_BENCH_SETTINGS`, default `library,six`): `library`
//! checks the whole bundled library plus the input's label on every module
//! (19 properties, `mpv batch --whole-library`: what a user runs), `six` only
//! the manifest's rule columns.
//!
//!     cargo bench --bench multi                      # 150 revisions, 60 s, all configurations
//!     MPV_BENCH_SAMPLE=all MPV_BENCH_CONFIGS=s4 MPV_TIME_LIMIT=20 cargo bench --bench multi
//!
//! The sample (`MPV_BENCH_SAMPLE=N`, seed `MPV_BENCH_SEED`, default 1) holds
//! every revision with a violated rule and fixed-seed picks of the others.
//! `MPV_BENCH_CONFIGS` (default `baseline,s0,s1,s2,s3,s4`) lists the
//! configurations; `MPV_BENCH_RESUME=1` continues interrupted result files.
//! Files in `bench-out/`: `multi-tasks.tsv`, `multi-<setting>-<config>.jsonl`,
//! and the tables and plots in `multi-<setting>/`.

use std::process::Command;

#[path = "../tests/it/common.rs"]
mod common;

fn main() {
    let dir = common::corpus_dir();
    let limit = std::env::var("MPV_TIME_LIMIT").unwrap_or_else(|_| "60".into());
    let configs =
        std::env::var("MPV_BENCH_CONFIGS").unwrap_or_else(|_| "baseline,s0,s1,s2,s3,s4".into());
    let configs: Vec<&str> = configs.split(',').map(str::trim).collect();
    let header = std::fs::read_to_string(dir.join("multi.tsv"))
        .expect("multi.tsv")
        .lines()
        .next()
        .unwrap_or_default()
        .to_string();
    let mut rows = common::manifest("multi.tsv");
    let sample = std::env::var("MPV_BENCH_SAMPLE").unwrap_or_else(|_| "150".into());
    if sample != "all" {
        let n: usize = sample
            .parse()
            .expect("MPV_BENCH_SAMPLE is a number or `all`");
        let seed: u64 = std::env::var("MPV_BENCH_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(1);
        rows = sample_rows(rows, n, seed);
    }
    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("bench-out");
    std::fs::create_dir_all(&out).expect("bench-out");
    let tasks = out.join("multi-tasks.tsv");
    let mut text = header + "\n";
    for r in &rows {
        text.push_str(&r.join("\t"));
        text.push('\n');
    }
    std::fs::write(&tasks, text).expect("task list");
    let resume = std::env::var_os("MPV_BENCH_RESUME").is_some();
    let settings = std::env::var("MPV_BENCH_SETTINGS").unwrap_or_else(|_| "library,six".into());
    let mut wrong = Vec::new();
    for setting in settings.split(',').map(str::trim) {
        let whole_library = match setting {
            "library" => true,
            "six" => false,
            other => panic!("MPV_BENCH_SETTINGS: unknown setting `{other}` (library, six)"),
        };
        let cfg = Setting {
            name: setting,
            whole_library,
            tasks: &tasks,
            dir: &dir,
            out: &out,
            limit: &limit,
            resume,
        };
        wrong.extend(cfg.run(&configs, rows.len()));
    }
    assert!(wrong.is_empty(), "wrong verdicts in: {}", wrong.join(", "));
}

/// One setting of the bench: which properties every module is checked for.
struct Setting<'a> {
    name: &'a str,
    whole_library: bool,
    tasks: &'a std::path::Path,
    dir: &'a std::path::Path,
    out: &'a std::path::Path,
    limit: &'a str,
    resume: bool,
}

impl Setting<'_> {
    /// Runs every configuration and compares them; returns the
    /// configurations with a wrong verdict.
    fn run(&self, configs: &[&str], modules: usize) -> Vec<String> {
        let mpv = env!("CARGO_BIN_EXE_mpv");
        let mut runs = Vec::new();
        let mut wrong = Vec::new();
        for c in configs {
            let results = self.out.join(format!("multi-{}-{c}.jsonl", self.name));
            if !self.resume {
                let _ = std::fs::remove_file(&results);
            }
            let mut cmd = Command::new(mpv);
            cmd.args(["batch", "--manifest"])
                .arg(self.tasks)
                .arg("--root")
                .arg(self.dir)
                .args(["--time-limit", self.limit, "--out"])
                .arg(&results);
            if self.resume {
                cmd.arg("--resume");
            }
            if self.whole_library {
                cmd.arg("--whole-library");
            }
            let status = cmd
                .args(["--", "--strategy", c])
                .status()
                .expect("mpv batch runs");
            assert!(status.success(), "mpv batch failed for {c}");
            let report = Command::new(mpv)
                .arg("report")
                .arg(&results)
                .arg("--fail-on-wrong")
                .output()
                .expect("mpv report runs");
            println!(
                "== {} {c}\n{}",
                self.name,
                String::from_utf8_lossy(&report.stdout)
            );
            if !report.status.success() {
                wrong.push(format!("{} {c}", self.name));
            }
            runs.push(format!("{c}={}", results.display()));
        }
        if configs.contains(&"baseline") {
            let mut eval = Command::new(mpv);
            eval.arg("eval");
            for r in &runs {
                eval.args(["--run", r]);
            }
            eval.arg("--out-dir")
                .arg(self.out.join(format!("multi-{}", self.name)));
            let table = eval.output().expect("mpv eval runs");
            println!(
                "setting {}: time limit {} s per module, {modules} modules\n{}{}",
                self.name,
                self.limit,
                String::from_utf8_lossy(&table.stdout),
                String::from_utf8_lossy(&table.stderr)
            );
        }
        wrong
    }
}

/// Every row with a violated rule, then rows in a seeded hash order until
/// `n` rows are taken (in manifest order).
fn sample_rows(rows: Vec<Vec<String>>, n: usize, seed: u64) -> Vec<Vec<String>> {
    let hash = |s: &str| common::seeded_hash(s, seed);
    let violated = |r: &Vec<String>| r.iter().skip(2).any(|c| c == "false");
    let mut keep: Vec<bool> = rows.iter().map(violated).collect();
    let mut others: Vec<usize> = (0..rows.len()).filter(|&i| !keep[i]).collect();
    others.sort_by_key(|&i| hash(&rows[i][0]));
    let taken = keep.iter().filter(|k| **k).count();
    for &i in others.iter().take(n.saturating_sub(taken)) {
        keep[i] = true;
    }
    rows.into_iter()
        .zip(keep)
        .filter_map(|(r, k)| k.then_some(r))
        .collect()
}
