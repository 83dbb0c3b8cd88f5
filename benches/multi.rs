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
//!
//! CPU time on a shared 2-core host varies by a quarter between identical
//! runs of a sub-second module, more than the differences compared. So the
//! modules the cost comparison is about (`baseline` decides every property
//! and spends at least 0.2 s of analysis CPU) run `MPV_BENCH_REPEAT` times
//! in all (default 3), each repetition under every configuration back to
//! back, and each configuration keeps its least analysis CPU per module
//! (the module's cost with the least interference). A repetition that
//! gives other verdicts is reported and not used; a wrong verdict in any
//! repetition fails the bench too.
//! Files in `bench-out/`: `multi-tasks.tsv`, `multi-<setting>-<config>.jsonl`
//! (the kept runs), `multi-<setting>-<config>-repeats.jsonl` (every
//! repetition), and the tables and plots in `multi-<setting>/`.

use std::path::{Path, PathBuf};
use std::process::Command;

use mpv::eval::cost::TRIVIAL_S;
use mpv::eval::ModuleRun;
use mpv::report::Verdict;
use serde_json::Value;

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
    let mut text = format!("{header}\n");
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
            header: &header,
            rows: &rows,
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
    header: &'a str,
    rows: &'a [Vec<String>],
    tasks: &'a Path,
    dir: &'a Path,
    out: &'a Path,
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
            let results = self.results(c);
            if !self.resume {
                let _ = std::fs::remove_file(&results);
            }
            let _ = std::fs::remove_file(self.repeats(c));
            self.batch(self.tasks, &results, c, self.resume);
            runs.push(format!("{c}={}", results.display()));
        }
        let repeat: usize = std::env::var("MPV_BENCH_REPEAT")
            .ok()
            .map(|s| s.parse().expect("MPV_BENCH_REPEAT is a number"))
            .unwrap_or(3);
        if configs.contains(&"baseline") && repeat > 1 {
            self.repeat_costly(configs, repeat);
        }
        for c in configs {
            let repeats = self.repeats(c);
            let repeats_wrong = repeats.exists()
                && !Command::new(mpv)
                    .arg("report")
                    .arg(&repeats)
                    .arg("--fail-on-wrong")
                    .output()
                    .expect("mpv report runs")
                    .status
                    .success();
            if repeats_wrong {
                wrong.push(format!("{} {c} (a repetition)", self.name));
            }
            let report = Command::new(mpv)
                .arg("report")
                .arg(self.results(c))
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

    /// The result file of configuration `c`.
    fn results(&self, c: &str) -> PathBuf {
        self.out.join(format!("multi-{}-{c}.jsonl", self.name))
    }

    /// The file of configuration `c`'s repeated runs ([`Setting::repeat_costly`]).
    fn repeats(&self, c: &str) -> PathBuf {
        self.out
            .join(format!("multi-{}-{c}-repeats.jsonl", self.name))
    }

    /// Runs `mpv batch` over `manifest` under configuration `c`.
    fn batch(&self, manifest: &Path, results: &Path, c: &str, resume: bool) {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_mpv"));
        cmd.args(["batch", "--manifest"])
            .arg(manifest)
            .arg("--root")
            .arg(self.dir)
            .args(["--time-limit", self.limit, "--out"])
            .arg(results);
        if resume {
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
    }

    /// Runs the costly modules `repeat - 1` more times, every configuration
    /// back to back per module, and keeps each configuration's run of a
    /// module with the least analysis CPU among those with the first run's
    /// verdicts.
    fn repeat_costly(&self, configs: &[&str], repeat: usize) {
        let mut best: Vec<Vec<Value>> = configs.iter().map(|c| lines(&self.results(c))).collect();
        let costly: Vec<String> = best[configs.iter().position(|c| *c == "baseline").unwrap()]
            .iter()
            .filter(|v| costly(&module_run(v)))
            .filter_map(|v| v["file"].as_str().map(str::to_string))
            .collect();
        println!(
            "{}: {} costly modules, {repeat} runs each",
            self.name,
            costly.len()
        );
        let manifest = self.out.join("multi-repeat.tsv");
        let results = self.out.join("multi-repeat.jsonl");
        let mut repeats: Vec<String> = vec![String::new(); configs.len()];
        for _ in 1..repeat {
            for file in &costly {
                let row = self
                    .rows
                    .iter()
                    .find(|r| r[1] == *file)
                    .expect("a sampled row");
                let text = format!("{}\n{}\n", self.header, row.join("\t"));
                std::fs::write(&manifest, text).expect("repeat manifest");
                for ((c, kept), all) in configs.iter().zip(&mut best).zip(&mut repeats) {
                    let _ = std::fs::remove_file(&results);
                    self.batch(&manifest, &results, c, false);
                    let again = lines(&results).pop().expect("a result line");
                    all.push_str(&format!("{again}\n"));
                    let Some(old) = kept.iter_mut().find(|v| v["file"] == again["file"]) else {
                        continue;
                    };
                    let (was, now) = (module_run(old), module_run(&again));
                    if was.verdicts != now.verdicts {
                        println!(
                            "REPEAT DIFFERS: {file} under {c}: {:?} then {:?}",
                            was.verdicts, now.verdicts
                        );
                    } else if now.analysis_cpu_s < was.analysis_cpu_s {
                        *old = again;
                    }
                }
            }
        }
        for ((c, kept), all) in configs.iter().zip(&best).zip(&repeats) {
            let text: String = kept.iter().map(|v| format!("{v}\n")).collect();
            std::fs::write(self.results(c), text).expect("results");
            std::fs::write(self.repeats(c), all).expect("repeat results");
        }
    }
}

/// The JSON lines of a result file.
fn lines(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// A result line as `mpv eval` reads it (its verdicts, its CPU times).
fn module_run(v: &Value) -> ModuleRun {
    ModuleRun::from_line(v.as_object().unwrap_or(&serde_json::Map::new()))
}

/// Whether `mpv eval` counts the module as non-trivial: every property
/// decided, with at least [`TRIVIAL_S`] of analysis CPU.
fn costly(m: &ModuleRun) -> bool {
    m.analysis_cpu_s >= TRIVIAL_S
        && !m.verdicts.is_empty()
        && m.verdicts.values().all(|v| *v != Verdict::Unknown)
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
