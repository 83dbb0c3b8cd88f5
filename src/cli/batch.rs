//! `mpv batch`: verify many modules, each in its own `mpv verify` process,
//! results appended to a JSON-lines file; or the same split over a Slurm
//! job array (`--slurm`, `--collect`, `--status`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use crate::batch::array::{self, ArrayPlan};
use crate::batch::{self, manifest, slurm, tasks};
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
    /// Results file: one JSON line per task, appended (with `--collect`:
    /// the merged results of the array, written anew).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Continue the batch in `--out`: skip the tasks it already holds. With
    /// `--collect`: submit the chunks of the array with tasks missing again.
    #[arg(long)]
    resume: bool,
    /// Run the batch as a Slurm job array instead of here: the task list is
    /// split into `--array-size` chunks, each an array task running `mpv
    /// batch` over its chunk with the same limits, its results in `--out-dir`.
    #[arg(long, requires = "out_dir")]
    slurm: bool,
    /// The array's directory (plan, job script, results, logs): on a file
    /// system every node of the cluster sees.
    #[arg(long, requires = "slurm")]
    out_dir: Option<PathBuf>,
    /// Slurm partition of the array tasks.
    #[arg(long, requires = "slurm")]
    partition: Option<String>,
    /// Number of array tasks (chunks) (default: one per 10 tasks, at most 100).
    #[arg(long, requires = "slurm")]
    array_size: Option<usize>,
    /// Array tasks running at once (Slurm's `--array=...%N`).
    #[arg(long, requires = "slurm")]
    max_running: Option<usize>,
    /// One more `sbatch` argument (repeatable), after mpv's own, e.g.
    /// `--sbatch-arg=--account=ABC` or `--sbatch-arg=--time=120`; not `--array`.
    #[arg(long = "sbatch-arg", allow_hyphen_values = true, requires = "slurm")]
    sbatch_arg: Vec<String>,
    /// The mpv executable as the compute nodes see it (default: this one).
    #[arg(long, requires = "slurm")]
    slurm_mpv: Option<PathBuf>,
    /// Merge the results of the array in DIR into `--out`, report the tasks
    /// missing and failed (exit code 2 while tasks are missing).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["slurm", "status", "array_task"])]
    collect: Option<PathBuf>,
    /// Progress of the array in DIR from its results files: done/total,
    /// verdicts, ETA.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["slurm", "array_task"])]
    status: Option<PathBuf>,
    /// Run one chunk of the array in DIR (what each array task does).
    #[arg(long, value_name = "DIR", hide = true, requires = "chunk")]
    array_task: Option<PathBuf>,
    #[arg(long, hide = true)]
    chunk: Option<usize>,
    /// Modules verified at once (default: all cores; with `--slurm`, 1 per
    /// array task, each given `--cpus-per-task` of it).
    #[arg(long)]
    jobs: Option<usize>,
    /// CPU-time limit of each verification in seconds (`mpv verify --time-limit`);
    /// the OS stops the process a little after it.
    #[arg(long, default_value_t = 60.0, value_parser = super::positive_seconds)]
    time_limit: f64,
    /// Address-space limit of each verification process in MB.
    #[arg(long, default_value_t = 8192, value_parser = super::megabytes)]
    memory_limit: u64,
    /// Wall-clock limit of each verification process in seconds
    /// (default: three times the CPU limit plus 30 s).
    #[arg(long, value_parser = super::positive_seconds)]
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
    #[arg(long, default_value_t = 30.0, value_parser = super::positive_seconds)]
    progress_interval: f64,
    /// Check every rule of the bundled library on each module (`mpv verify
    /// --library`), not only a multi-rule manifest's rule columns; the
    /// columns still give the expected verdicts.
    #[arg(long)]
    whole_library: bool,
    /// Write the violation witnesses of every FALSE and the correctness
    /// witness of every TRUE into this directory, under each task's
    /// directory (`mpv verify --witness-dir`).
    #[arg(long)]
    witness_dir: Option<PathBuf>,
    /// Arguments after `--` go to every `mpv verify` (property and strategy options).
    #[arg(last = true)]
    verify_args: Vec<OsString>,
}

/// What `mpv batch` is asked to do.
enum Mode {
    /// Run the task list here, results in this file.
    Local(PathBuf),
    /// Submit the task list as a Slurm job array with this directory.
    Submit(PathBuf),
    /// Merge the array in `dir` (into `out`), resubmit the missing chunks.
    Collect {
        dir: PathBuf,
        out: Option<PathBuf>,
        resume: bool,
    },
    /// Progress of the array in this directory.
    Status(PathBuf),
    /// One chunk of an array (inside an array task).
    ArrayTask { dir: PathBuf, chunk: usize },
}

fn mode(a: &BatchArgs) -> Result<Mode> {
    let no_tasks = a.manifest.is_none() && a.paths.is_empty();
    let only_dir = |flag: &str| {
        if no_tasks {
            Ok(())
        } else {
            Err(Error::Usage(format!(
                "{flag} DIR takes its tasks from DIR: give no modules or --manifest"
            )))
        }
    };
    if let (Some(dir), Some(chunk)) = (&a.array_task, a.chunk) {
        return Ok(Mode::ArrayTask {
            dir: dir.clone(),
            chunk,
        });
    }
    if let Some(dir) = &a.collect {
        only_dir("--collect")?;
        return Ok(Mode::Collect {
            dir: dir.clone(),
            out: a.out.clone(),
            resume: a.resume,
        });
    }
    if let Some(dir) = &a.status {
        only_dir("--status")?;
        return Ok(Mode::Status(dir.clone()));
    }
    if let Some(dir) = &a.out_dir {
        if a.out.is_some() || a.resume {
            return Err(Error::Usage(
                "--slurm writes into --out-dir: merge with `mpv batch --collect DIR --out FILE`, \
                 resubmit with `--collect DIR --resume`"
                    .into(),
            ));
        }
        return Ok(Mode::Submit(dir.clone()));
    }
    match &a.out {
        Some(out) => Ok(Mode::Local(out.clone())),
        None => Err(Error::Usage(
            "give --out RESULTS.jsonl (or --slurm --out-dir DIR, --collect DIR, --status DIR)"
                .into(),
        )),
    }
}

/// The task list the arguments name (manifest, paths, sets, sample) and the
/// arguments of every `mpv verify`.
fn task_list(a: &BatchArgs) -> Result<(Vec<tasks::Task>, Vec<OsString>)> {
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
    let mut verify_args = a.verify_arg.clone();
    verify_args.extend(a.verify_args.iter().cloned());
    if a.whole_library {
        for t in &mut list {
            t.library_select.clear();
        }
        verify_args.insert(0, "--library".into());
    }
    Ok((list, verify_args))
}

fn current_exe() -> Result<PathBuf> {
    std::env::current_exe()
        .map_err(|e| Error::Other(format!("cannot find the mpv executable: {e}")))
}

pub fn run(a: BatchArgs) -> Result<ExitCode> {
    let (time_limit, wall_limit, interval) = (a.time_limit, a.wall_limit, a.progress_interval);
    let out = match mode(&a)? {
        Mode::Local(out) => out,
        Mode::Submit(dir) => return submit(&a, &dir, time_limit, wall_limit),
        Mode::Collect { dir, out, resume } => return collect(&dir, out.as_deref(), resume),
        Mode::Status(dir) => return status(&dir),
        Mode::ArrayTask { dir, chunk } => return array_task(&dir, chunk),
    };
    let (list, verify_args) = task_list(&a)?;
    let jobs = a.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let cfg = batch::Config {
        verifier: current_exe()?,
        jobs: jobs.max(1),
        time_limit,
        memory_mb: a.memory_limit,
        wall_limit: wall_limit.map(Duration::from_secs_f64),
        verify_args,
        witness_dir: a.witness_dir.clone(),
        out,
        resume: a.resume,
        progress_interval: Duration::from_secs_f64(interval),
    };
    run_local(&list, &cfg)?;
    Ok(ExitCode::SUCCESS)
}

/// Runs a task list here and prints what it did.
fn run_local(list: &[tasks::Task], cfg: &batch::Config) -> Result<()> {
    let s = batch::run(list, cfg)?;
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
        cfg.out.display()
    );
    if ran > 0 {
        eprintln!(
            "mpv batch: {ran} tasks in {:.0} s wall with {} jobs: {:.0} modules/hour/job",
            s.elapsed.as_secs_f64(),
            s.jobs,
            s.per_hour_per_job()
        );
    }
    Ok(())
}

fn array_dir(dir: &Path) -> Result<PathBuf> {
    std::path::absolute(dir).map_err(|e| Error::io(dir, e))
}

/// `--slurm`: the plan in `dir`, then one `sbatch --array` of every chunk.
fn submit(a: &BatchArgs, dir: &Path, time_limit: f64, wall_limit: Option<f64>) -> Result<ExitCode> {
    let dir = array_dir(dir)?;
    if array::plan_path(&dir).exists() {
        return Err(Error::Usage(format!(
            "{}: holds an array already: follow it with `mpv batch --status {0}`, \
             merge it with `--collect {0} --out FILE`, resubmit what is missing with \
             `--collect {0} --resume`, or remove the directory",
            dir.display()
        )));
    }
    if let Some(bad) = a
        .sbatch_arg
        .iter()
        .find(|x| x.starts_with("--array") || x.starts_with("-a"))
    {
        return Err(Error::Usage(format!(
            "--sbatch-arg {bad}: mpv gives the array indices itself (limit the tasks \
             running at once with --max-running N)"
        )));
    }
    let (list, verify_args) = task_list(a)?;
    if list.is_empty() {
        return Err(Error::Usage("no task to submit".into()));
    }
    let verify_args = verify_args
        .into_iter()
        .map(|s| {
            s.into_string()
                .map_err(|s| Error::Usage(format!("{s:?}: verify arguments must be UTF-8")))
        })
        .collect::<Result<Vec<String>>>()?;
    let size = a
        .array_size
        .unwrap_or_else(|| list.len().div_ceil(10).min(100))
        .max(1);
    let results_dir = dir.join("results");
    std::fs::create_dir_all(&results_dir).map_err(|e| Error::write(&results_dir, e))?;
    let mut plan = ArrayPlan {
        chunks: array::split(&list, size),
        run: array::RunSettings {
            jobs: a.jobs.unwrap_or(1).max(1),
            time_limit,
            memory_mb: a.memory_limit,
            wall_limit_s: wall_limit,
            verify_args,
            witness_dir: a.witness_dir.clone(),
        },
        slurm: array::SlurmSettings {
            partition: a.partition.clone(),
            max_running: a.max_running.filter(|&n| n > 0),
            sbatch_args: a.sbatch_arg.clone(),
            mpv: match &a.slurm_mpv {
                Some(p) => p.clone(),
                None => current_exe()?,
            },
            workdir: std::env::current_dir().map_err(|e| Error::io(".", e))?,
        },
        submissions: Vec::new(),
    };
    plan.save(&dir)?;
    let chunks: Vec<usize> = (0..plan.chunks.len()).collect();
    let job = slurm::submit(&mut plan, &dir, &chunks, 0)?;
    let r = slurm::resources(&plan);
    eprintln!(
        "mpv batch: {} tasks in {} chunks submitted as Slurm job array {job} \
         (each: --cpus-per-task={} --mem={} --time={})",
        list.len(),
        plan.chunks.len(),
        r.cpus,
        r.mem_mb,
        r.time_min
    );
    eprintln!(
        "mpv batch: progress `mpv batch --status {0}`, results `mpv batch --collect {0} --out FILE`",
        dir.display()
    );
    println!("{job}");
    Ok(ExitCode::SUCCESS)
}

/// `--array-task DIR --chunk I`: a local batch over chunk `I`, resumed.
fn array_task(dir: &Path, chunk: usize) -> Result<ExitCode> {
    let plan = ArrayPlan::load(dir)?;
    let Some(tasks) = plan.chunks.get(chunk) else {
        return Err(Error::Usage(format!(
            "--chunk {chunk}: the array in {} has {} chunks",
            dir.display(),
            plan.chunks.len()
        )));
    };
    let cfg = plan
        .run
        .config(current_exe()?, array::chunk_results(dir, chunk));
    run_local(tasks, &cfg)?;
    Ok(ExitCode::SUCCESS)
}

/// `--collect DIR [--out FILE] [--resume]`.
fn collect(dir: &Path, out: Option<&Path>, resume: bool) -> Result<ExitCode> {
    let dir = array_dir(dir)?;
    let mut plan = ArrayPlan::load(&dir)?;
    let c = array::collect(&plan, &dir)?;
    let total = plan.total();
    eprintln!(
        "mpv batch: {}/{total} tasks have a result in {}, {} missing, {} failed",
        c.lines.len(),
        dir.display(),
        c.missing_count(),
        c.failed.len()
    );
    for (chunk, keys) in &c.missing {
        eprintln!("  missing in chunk {chunk}: {}", keys.join("  "));
    }
    for (key, status) in &c.failed {
        eprintln!("  failed ({status}): {key}");
    }
    if c.duplicates > 0 || c.foreign > 0 {
        eprintln!(
            "mpv batch: left out {} repeated and {} foreign lines",
            c.duplicates, c.foreign
        );
    }
    if let Some(out) = out {
        array::write_results(out, &c.lines)?;
        eprintln!("mpv batch: {} lines in {}", c.lines.len(), out.display());
    }
    if !resume {
        return Ok(if c.missing.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(2)
        });
    }
    if c.missing.is_empty() {
        eprintln!("mpv batch: nothing to resume");
        return Ok(ExitCode::SUCCESS);
    }
    let queued = slurm::queued_chunks(&plan)?;
    let (running, again): (Vec<usize>, Vec<usize>) = c
        .incomplete_chunks()
        .into_iter()
        .partition(|i| queued.contains(i));
    if !running.is_empty() {
        eprintln!(
            "mpv batch: chunks {} are still queued or running: not submitted again",
            array::array_spec(&running)
        );
    }
    if !again.is_empty() {
        let job = slurm::submit(&mut plan, &dir, &again, c.lines.len())?;
        eprintln!(
            "mpv batch: incomplete chunks {} submitted again as Slurm job array {job}",
            array::array_spec(&again)
        );
        println!("{job}");
    }
    Ok(ExitCode::SUCCESS)
}

/// `--status DIR`: from the results files alone.
fn status(dir: &Path) -> Result<ExitCode> {
    let plan = ArrayPlan::load(dir)?;
    let c = array::collect(&plan, dir)?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let s = array::status(&plan, &c, now);
    let mut line = format!(
        "{}/{} done, TRUE {} FALSE {} UNKNOWN {}",
        s.done, s.total, s.verdicts[0], s.verdicts[1], s.verdicts[2]
    );
    for (k, n) in &s.failures {
        line += &format!(" {k} {n}");
    }
    let complete = plan.chunks.len() - c.missing.len();
    line += &format!(", chunks complete {complete}/{}", plan.chunks.len());
    if s.done < s.total {
        if let Some(eta) = s.eta {
            let t = eta.as_secs();
            line += &format!(", ETA {}h{:02}m{:02}s", t / 3600, t % 3600 / 60, t % 60);
        }
    }
    println!("{line}");
    Ok(ExitCode::SUCCESS)
}
