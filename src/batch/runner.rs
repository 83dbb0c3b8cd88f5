//! The batch loop: `jobs` worker threads take tasks in order, each runs one
//! isolated `mpv verify` child at a time; the calling thread writes every
//! result line as it arrives and drives the progress display.

use std::collections::{BTreeMap, HashSet};
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use super::isolate::{self, Limits};
use super::progress::Progress;
use super::results::{self, ResultsFile};
use super::tasks::Task;
use crate::{Error, Result};

/// How a batch runs.
#[derive(Clone, Debug)]
pub struct Config {
    /// The mpv executable run as `mpv verify` for each task.
    pub verifier: PathBuf,
    /// Modules verified at once.
    pub jobs: usize,
    /// `mpv verify --time-limit` (CPU seconds of the analysis).
    pub time_limit: f64,
    /// Address-space limit of each child in MB.
    pub memory_mb: u64,
    /// Wall-clock limit of each child (default: from the CPU limit).
    pub wall_limit: Option<Duration>,
    /// Passed to every `mpv verify` after the batch's own arguments
    /// (property and strategy options: `--select`, `--properties`, ...).
    pub verify_args: Vec<OsString>,
    /// Witnesses go to this directory, under the task's own directory.
    pub witness_dir: Option<PathBuf>,
    pub out: PathBuf,
    pub resume: bool,
    /// Period of the plain progress lines when not on a terminal.
    pub progress_interval: Duration,
}

impl Config {
    /// The OS limits of a child: CPU a little above the analysis' own limit
    /// (20 % + 5 s, for parsing and the way out), wall-clock three times that
    /// plus 30 s unless given (children share cores with each other).
    pub fn limits(&self) -> Limits {
        let cpu_s = (self.time_limit * 1.2 + 5.0).ceil().max(1.0) as u64;
        Limits {
            cpu_s,
            memory_mb: self.memory_mb,
            wall: self
                .wall_limit
                .unwrap_or(Duration::from_secs(cpu_s * 3 + 30)),
        }
    }

    /// The arguments for every `mpv verify` as the results file records them.
    pub fn verify_args_text(&self) -> Vec<String> {
        self.verify_args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    /// How the line `m` of an earlier run was made differently (time or
    /// memory limit, verify arguments), if it was.
    fn differs_from(&self, m: &serde_json::Map<String, serde_json::Value>) -> Option<String> {
        let limits = m.get("limits")?;
        if limits.get("time_s").and_then(serde_json::Value::as_f64) != Some(self.time_limit) {
            return Some(format!("another --time-limit ({})", limits["time_s"]));
        }
        if limits.get("memory_mb").and_then(serde_json::Value::as_u64) != Some(self.memory_mb) {
            return Some(format!("another --memory-limit ({})", limits["memory_mb"]));
        }
        let args = m.get("verify_args")?;
        (args != &serde_json::json!(self.verify_args_text()))
            .then(|| format!("other verify arguments ({args})"))
    }

    /// The arguments of the child for `task`.
    pub fn child_args(&self, task: &Task) -> Vec<OsString> {
        let mut a: Vec<OsString> = vec!["verify".into(), task.path.clone().into()];
        for p in &task.prp {
            a.push("--prp".into());
            a.push(p.clone().into());
        }
        if !task.library_select.is_empty() {
            a.push("--library".into());
            a.push("--select".into());
            a.push(task.library_select.join(",").into());
        }
        a.push("--time-limit".into());
        a.push(self.time_limit.to_string().into());
        a.push("--format".into());
        a.push("json".into());
        if let Some(dir) = &self.witness_dir {
            let sub = std::path::Path::new(&task.file)
                .parent()
                .map(|p| {
                    p.components()
                        .filter(|c| matches!(c, std::path::Component::Normal(_)))
                        .collect::<PathBuf>()
                })
                .unwrap_or_default();
            a.push("--witness-dir".into());
            a.push(dir.join(sub).into());
        }
        let named = self.verify_args.iter().any(|x| x == "--data-model");
        if let (Some(m), false) = (task.data_model, named) {
            a.push("--data-model".into());
            a.push(m.name().to_ascii_lowercase().into());
        }
        a.extend(self.verify_args.iter().cloned());
        a
    }
}

/// What a batch did.
#[derive(Debug, Default)]
pub struct Summary {
    pub total: usize,
    /// Tasks already in the results file (`--resume`).
    pub skipped: usize,
    /// Tasks run now, by status.
    pub statuses: BTreeMap<String, usize>,
    /// Wall-clock time of this run.
    pub elapsed: Duration,
    /// Worker threads used.
    pub jobs: usize,
}

impl Summary {
    /// Tasks run now per hour of wall-clock time and per worker.
    pub fn per_hour_per_job(&self) -> f64 {
        let ran: usize = self.statuses.values().sum();
        let hours = self.elapsed.as_secs_f64() / 3600.0;
        if hours <= 0.0 || self.jobs == 0 {
            return 0.0;
        }
        ran as f64 / hours / self.jobs as f64
    }
}

/// Runs every task not yet in the results file.
pub fn run(tasks: &[Task], cfg: &Config) -> Result<Summary> {
    let start = std::time::Instant::now();
    cfg.limits().check_hard_limits().map_err(Error::Usage)?;
    let (mut out, previous) = ResultsFile::open(&cfg.out, cfg.resume)?;
    if let Some(other) = previous.iter().find_map(|m| cfg.differs_from(m)) {
        return Err(Error::Usage(format!(
            "{}: holds results made with {other}: --resume continues a batch \
             with the same limits and verify arguments; give another --out",
            cfg.out.display()
        )));
    }
    let done: HashSet<&str> = previous
        .iter()
        .filter_map(|m| m.get("key").and_then(serde_json::Value::as_str))
        .collect();
    let todo: Vec<&Task> = tasks
        .iter()
        .filter(|t| !done.contains(t.key.as_str()))
        .collect();
    let mut summary = Summary {
        total: tasks.len(),
        skipped: tasks.len() - todo.len(),
        ..Summary::default()
    };
    let limits = cfg.limits();
    let mut progress = Progress::new(tasks.len(), summary.skipped, cfg.progress_interval);
    let keys: HashSet<&str> = tasks.iter().map(|t| t.key.as_str()).collect();
    for m in &previous {
        if m.get("key")
            .and_then(serde_json::Value::as_str)
            .is_some_and(|k| keys.contains(k))
        {
            progress.count_previous(m);
        }
    }
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<serde_json::Value>();
    let mut failure = None;
    summary.jobs = cfg.jobs.max(1).min(todo.len().max(1));
    std::thread::scope(|s| {
        for _ in 0..summary.jobs {
            let tx = tx.clone();
            let (next, stop, todo) = (&next, &stop, &todo);
            s.spawn(move || loop {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(task) = todo.get(i) else { break };
                let o = isolate::run(&cfg.verifier, &cfg.child_args(task), &limits);
                if tx.send(results::line(task, &o, &limits, cfg)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        loop {
            match rx.recv_timeout(Duration::from_secs(1)) {
                Ok(line) => {
                    if let Err(e) = out.append(&line) {
                        stop.store(true, Ordering::Relaxed);
                        failure = Some(e);
                        break;
                    }
                    let status = line["status"].as_str().unwrap_or("?").to_string();
                    *summary.statuses.entry(status).or_default() += 1;
                    progress.record(&line);
                }
                Err(mpsc::RecvTimeoutError::Timeout) => progress.tick(),
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        // Dropping the receiver ends the workers at their next result.
        drop(rx);
    });
    progress.finish();
    summary.elapsed = start.elapsed();
    match failure {
        Some(e) => Err(e),
        None => Ok(summary),
    }
}
