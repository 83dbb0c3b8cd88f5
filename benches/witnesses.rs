//! The violation witnesses of a batch: every FALSE result must come with a
//! YAML and a GraphML witness that pass the format check
//! (`tests/it/witness_format.rs`), and `mpv validate` must confirm at least
//! 99 % of the YAML ones (a witness saying its violation needs LDV's
//! assumptions is confirmed under them; the summary counts those).
//! Unconfirmed witnesses are listed with `mpv validate`'s line, to be
//! explained one by one.
//!
//!     cargo bench --bench witnesses      # all of single.tsv at 5 s with --witness-dir, then the check
//!     MPV_WITNESS_RESULTS=bench-out/single-w/results.jsonl cargo bench --bench witnesses
//!
//! `MPV_WITNESS_RESULTS` checks the witnesses of an existing results file
//! (paths in it are relative to the directory the batch ran in, this
//! package's root for the bench's own run). `MPV_TIME_LIMIT` (default 5) is
//! the batch's time limit, `MPV_VALIDATE_LIMIT` (default 20) each
//! validation's, `MPV_BENCH_JOBS` (default 2) the validations at a time.
//! Files: `bench-out/witnesses/` (the batch), `bench-out/witnesses.md` (the
//! unconfirmed ones).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

#[path = "../tests/it/common.rs"]
mod common;
#[path = "../tests/it/witness_format.rs"]
mod witness_format;

/// One FALSE result and its witnesses.
struct Witnessed {
    task: String,
    property: String,
    input: PathBuf,
    prp: Vec<PathBuf>,
    witnesses: Vec<PathBuf>,
}

/// What became of one FALSE result's witnesses.
enum Finding {
    /// Confirmed; whether under LDV's assumptions.
    Confirmed(bool),
    FormatError(String),
    Unconfirmed(String),
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = root.join("bench-out");
    std::fs::create_dir_all(&out).expect("bench-out");
    let results = match std::env::var_os("MPV_WITNESS_RESULTS") {
        Some(r) => PathBuf::from(r),
        None => run_batch(&out),
    };
    let text = std::fs::read_to_string(&results).expect("results file");
    let false_results = witnessed(&text, &common::corpus_dir());
    println!(
        "{} FALSE results in {}",
        false_results.len(),
        results.display()
    );
    let jobs: usize = env_or("MPV_BENCH_JOBS", 2);
    let limit: u64 = env_or("MPV_VALIDATE_LIMIT", 20);
    let next = Mutex::new(0usize);
    let findings = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let i = {
                    let mut n = next.lock().unwrap();
                    *n += 1;
                    *n - 1
                };
                let Some(w) = false_results.get(i) else {
                    break;
                };
                let f = check(w, limit);
                findings.lock().unwrap().push((i, f));
            });
        }
    });
    let mut findings = findings.into_inner().unwrap();
    findings.sort_by_key(|(i, _)| *i);
    report(&out, &false_results, &findings);
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `mpv batch` over all of single.tsv with witnesses: the results file.
fn run_batch(out: &Path) -> PathBuf {
    let dir = out.join("witnesses");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("witness directory");
    let tasks = dir.join("tasks.tsv");
    let mut text = String::from("set\ttask\trule\tproperty_file\texpected\n");
    for r in common::manifest("single.tsv") {
        text.push_str(&r.join("\t"));
        text.push('\n');
    }
    std::fs::write(&tasks, text).expect("task list");
    let results = dir.join("results.jsonl");
    let limit = std::env::var("MPV_TIME_LIMIT").unwrap_or_else(|_| "5".into());
    let status = Command::new(env!("CARGO_BIN_EXE_mpv"))
        .args(["batch", "--manifest"])
        .arg(&tasks)
        .arg("--root")
        .arg(common::corpus_dir())
        .args(["--time-limit", &limit, "--out"])
        .arg(&results)
        .arg("--witness-dir")
        .arg(dir.join("files"))
        .status()
        .expect("mpv batch runs");
    assert!(status.success(), "mpv batch failed");
    results
}

/// The FALSE results of a results file, with their inputs and witnesses.
fn witnessed(text: &str, corpus: &Path) -> Vec<Witnessed> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let file = v["file"].as_str().unwrap_or_default();
        let input = match v["path"].as_str() {
            Some(p) => PathBuf::from(p),
            None => corpus.join(file),
        };
        let prp: Vec<PathBuf> = v["prp"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p.as_str().map(PathBuf::from))
            .collect();
        for p in v["properties"].as_array().into_iter().flatten() {
            if p["verdict"] != "false" {
                continue;
            }
            out.push(Witnessed {
                task: file.to_string(),
                property: p["id"].as_str().unwrap_or_default().to_string(),
                input: input.clone(),
                prp: prp.clone(),
                witnesses: p["witnesses"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|w| w.as_str().map(PathBuf::from))
                    .collect(),
            });
        }
    }
    out
}

/// Checks both witnesses of one FALSE result and validates the YAML one.
fn check(w: &Witnessed, limit: u64) -> Finding {
    let with_ext = |ext: &str| {
        w.witnesses
            .iter()
            .find(|p| p.extension().is_some_and(|e| e == ext))
    };
    let (Some(yaml), Some(graphml)) = (with_ext("yml"), with_ext("graphml")) else {
        return Finding::FormatError(format!("witnesses missing: {:?}", w.witnesses));
    };
    let read = |p: &Path| std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()));
    let formats = read(yaml)
        .and_then(|t| witness_format::check_yaml(&t, &w.input).map_err(|e| format!("YAML: {e}")))
        .and_then(|_| read(graphml))
        .and_then(|t| {
            witness_format::check_graphml(&t, &w.input).map_err(|e| format!("GraphML: {e}"))
        });
    if let Err(e) = formats {
        return Finding::FormatError(e);
    }
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mpv"));
    cmd.arg("validate").arg("--witness").arg(yaml).arg(&w.input);
    for p in &w.prp {
        cmd.arg("--prp").arg(p);
    }
    if !w.property.starts_with("label:") {
        cmd.arg("--library");
    }
    let o = cmd
        .args(["--select", &w.property, "--time-limit", &limit.to_string()])
        .output()
        .expect("mpv validate runs");
    let said =
        String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    match o.status.success() && said.contains("confirmed (") {
        true => Finding::Confirmed(said.contains("under LDV's assumptions")),
        false => Finding::Unconfirmed(said.lines().last().unwrap_or_default().to_string()),
    }
}

/// Prints and writes the figures; fails on a format error or under 99 %.
fn report(out: &Path, all: &[Witnessed], findings: &[(usize, Finding)]) {
    let mut md = String::from("| task | property | finding |\n|---|---|---|\n");
    let (mut confirmed, mut format_errors, mut under_ldv) = (0, 0, 0);
    for (i, f) in findings {
        let w = &all[*i];
        let what = match f {
            Finding::Confirmed(ldv) => {
                confirmed += 1;
                under_ldv += usize::from(*ldv);
                continue;
            }
            Finding::FormatError(e) => {
                format_errors += 1;
                format!("format: {e}")
            }
            Finding::Unconfirmed(line) => format!("not confirmed: {line}"),
        };
        println!("{} {}: {what}", w.task, w.property);
        md.push_str(&format!(
            "| {} | {} | {} |\n",
            w.task,
            w.property,
            what.replace('|', "\\|")
        ));
    }
    let total = findings.len().max(1);
    let share = 100.0 * confirmed as f64 / total as f64;
    let summary = format!(
        "{} FALSE results: {confirmed} confirmed ({share:.1} %; {under_ldv} of them under LDV's assumptions), {format_errors} format errors, {} not confirmed",
        findings.len(),
        findings.len() - confirmed - format_errors
    );
    println!("{summary}");
    std::fs::write(out.join("witnesses.md"), format!("{summary}\n\n{md}")).expect("report");
    assert_eq!(format_errors, 0, "witnesses that fail the format check");
    assert!(
        share >= 99.0,
        "only {share:.1} % of the witnesses confirmed"
    );
}
