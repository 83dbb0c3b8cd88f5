//! `mpv batch`: verify many modules, each in its own `mpv verify` process,
//! results appended to a JSON-lines file.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use crate::batch::{self, manifest, tasks};
use crate::{Error, Result};

#[derive(clap::Args)]
pub struct BatchArgs {
    /// Modules (`.c`, `.i`), SV-COMP task definitions (`.yml`), or
    /// directories of either (scanned recursively).
    paths: Vec<PathBuf>,
    /// A TSV manifest (`set task rule property_file expected`, or
    /// `revision input RULE...`); see README "Batch runs".
    #[arg(long)]
    manifest: Option<PathBuf>,
    /// Directory the manifest's paths are relative to (default: the manifest's directory).
    #[arg(long, requires = "manifest")]
    root: Option<PathBuf>,
    /// Property file for every module (repeatable); added to a task definition's or manifest row's own.
    #[arg(long = "prp")]
    prp: Vec<PathBuf>,
    /// Results file: one JSON line per task, appended.
    #[arg(long)]
    out: PathBuf,
    /// Continue the batch in `--out`: skip the tasks it already holds.
    #[arg(long)]
    resume: bool,
    /// Modules verified at once (default: all cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// CPU-time limit of each verification in seconds (`mpv verify --time-limit`);
    /// the OS stops the process a little after it.
    #[arg(long, default_value_t = 60.0)]
    time_limit: f64,
    /// Address-space limit of each verification process in MB.
    #[arg(long, default_value_t = 8192)]
    memory_limit: u64,
    /// Wall-clock limit of each verification process in seconds
    /// (default: three times the CPU limit plus 30 s).
    #[arg(long)]
    wall_limit: Option<f64>,
    /// Only the tasks of these sets (repeatable).
    #[arg(long = "set")]
    sets: Vec<String>,
    /// Run a sample of N tasks, stratified by set, chosen with `--seed`.
    #[arg(long)]
    sample: Option<usize>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// One more argument for every `mpv verify` (repeatable), e.g.
    /// `--verify-arg=--select=label:ERROR`.
    #[arg(long = "verify-arg", allow_hyphen_values = true)]
    verify_arg: Vec<OsString>,
    /// Seconds between progress lines when standard error is not a terminal.
    #[arg(long, default_value_t = 30.0)]
    progress_interval: f64,
    /// Check every rule of the bundled library on each module (`mpv verify
    /// --library`), not only a multi-rule manifest's rule columns; the
    /// columns still give the expected verdicts.
    #[arg(long)]
    whole_library: bool,
    /// Write the violation witnesses of every FALSE into this directory,
    /// under each task's directory (`mpv verify --witness-dir`).
    #[arg(long)]
    witness_dir: Option<PathBuf>,
    /// Arguments after `--` go to every `mpv verify` (property and strategy options).
    #[arg(last = true)]
    verify_args: Vec<OsString>,
}

pub fn run(a: BatchArgs) -> Result<ExitCode> {
    let positive = |name: &str, v: f64| {
        if v.is_finite() && v > 0.0 {
            Ok(v)
        } else {
            Err(Error::Usage(format!(
                "{name} must be a positive number of seconds"
            )))
        }
    };
    let time_limit = positive("--time-limit", a.time_limit)?;
    let wall_limit = a
        .wall_limit
        .map(|w| positive("--wall-limit", w).map(Duration::from_secs_f64))
        .transpose()?;
    let interval = positive("--progress-interval", a.progress_interval)?;
    let mut list = Vec::new();
    if let Some(m) = &a.manifest {
        let root = match &a.root {
            Some(r) => r.clone(),
            None => m
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .map_or_else(|| PathBuf::from("."), PathBuf::from),
        };
        let mut rows = manifest::load(m, &root)?;
        for t in &mut rows {
            t.prp.extend(a.prp.iter().cloned());
        }
        list.extend(rows);
    }
    list.extend(tasks::from_paths(&a.paths, &a.prp)?);
    if a.manifest.is_none() && a.paths.is_empty() {
        return Err(Error::Usage(
            "nothing to verify: give modules, directories, .yml files or --manifest FILE".into(),
        ));
    }
    if !a.sets.is_empty() {
        for s in &a.sets {
            if !list.iter().any(|t| &t.set == s) {
                return Err(Error::Usage(format!("--set {s}: no task of that set")));
            }
        }
        list.retain(|t| a.sets.contains(&t.set));
    }
    tasks::check_unique(&list)?;
    if let Some(n) = a.sample {
        list = tasks::sample(list, n, a.seed);
    }
    let verifier = std::env::current_exe()
        .map_err(|e| Error::Other(format!("cannot find the mpv executable: {e}")))?;
    let jobs = a.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let mut verify_args = a.verify_arg;
    verify_args.extend(a.verify_args);
    if a.whole_library {
        for t in &mut list {
            t.library_select.clear();
        }
        verify_args.insert(0, "--library".into());
    }
    let cfg = batch::Config {
        verifier,
        jobs: jobs.max(1),
        time_limit,
        memory_mb: a.memory_limit.max(1),
        wall_limit,
        verify_args,
        witness_dir: a.witness_dir.clone(),
        out: a.out.clone(),
        resume: a.resume,
        progress_interval: Duration::from_secs_f64(interval),
    };
    let s = batch::run(&list, &cfg)?;
    let ran: usize = s.statuses.values().sum();
    let statuses: Vec<String> = s.statuses.iter().map(|(k, n)| format!("{k} {n}")).collect();
    eprintln!(
        "mpv batch: {} tasks, {} run now ({}), {} already in {}",
        s.total,
        ran,
        if statuses.is_empty() {
            "-".to_string()
        } else {
            statuses.join(", ")
        },
        s.skipped,
        a.out.display()
    );
    if ran > 0 {
        eprintln!(
            "mpv batch: {ran} tasks in {:.0} s wall with {} jobs: {:.0} modules/hour/job",
            s.elapsed.as_secs_f64(),
            s.jobs,
            s.per_hour_per_job()
        );
    }
    Ok(ExitCode::SUCCESS)
}
