//! Running an [`ArrayPlan`] on Slurm: the job script, the resources each
//! array task asks for, `sbatch --array` and the array tasks still queued
//! (`squeue`). Each array task runs `mpv batch --array-task DIR --chunk I`,
//! a local batch over its chunk with the plan's limits.

use std::path::Path;
use std::process::Command;

use super::array::{self, ArrayPlan, Submission};
use crate::{Error, Result};

/// What one array task asks Slurm for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resources {
    /// `--cpus-per-task`: the chunk's `--jobs`.
    pub cpus: usize,
    /// `--mem` in MB: each job's address-space limit plus 256 MB for the batch.
    pub mem_mb: u64,
    /// `--time` in minutes: the chunk's rounds of `jobs` tasks at the CPU
    /// limit of a child plus 15 s each, and 5 minutes.
    pub time_min: u64,
}

/// The resources of the plan's largest chunk (every array task gets those).
pub fn resources(plan: &ArrayPlan) -> Resources {
    let cfg = plan.run.config("mpv".into(), "-".into());
    let limits = cfg.limits();
    let largest = plan.chunks.iter().map(Vec::len).max().unwrap_or(0) as u64;
    let jobs = cfg.jobs as u64;
    let rounds = largest.div_ceil(jobs);
    let secs = rounds * (limits.cpu_s + 15) + 300;
    Resources {
        cpus: cfg.jobs,
        mem_mb: jobs * cfg.memory_mb + 256,
        time_min: secs.div_ceil(60),
    }
}

/// Quotes a word for the POSIX shell.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The job script every array task runs.
pub fn job_script(plan: &ArrayPlan, dir: &Path) -> String {
    format!(
        "#!/bin/sh\n\
         # An array task of `mpv batch --slurm`: runs chunk $SLURM_ARRAY_TASK_ID of {plan}.\n\
         exec {mpv} batch --array-task {dir} --chunk \"$SLURM_ARRAY_TASK_ID\"\n",
        plan = array::plan_path(dir).display(),
        mpv = quote(&plan.slurm.mpv.to_string_lossy()),
        dir = quote(&dir.to_string_lossy()),
    )
}

/// The arguments of `sbatch` for the chunks `chunks` of the plan in `dir`.
pub fn sbatch_args(plan: &ArrayPlan, dir: &Path, chunks: &[usize]) -> Vec<String> {
    let r = resources(plan);
    let mut a = vec![
        "--parsable".to_string(),
        format!(
            "--array={}{}",
            array::array_spec(chunks),
            plan.slurm
                .max_running
                .map_or_else(String::new, |n| format!("%{n}"))
        ),
        "--job-name=mpv-batch".to_string(),
        format!("--output={}", dir.join("logs").join("%A_%a.log").display()),
        format!("--chdir={}", plan.slurm.workdir.display()),
        format!("--cpus-per-task={}", r.cpus),
        format!("--mem={}", r.mem_mb),
        format!("--time={}", r.time_min),
    ];
    if let Some(p) = &plan.slurm.partition {
        a.push(format!("--partition={p}"));
    }
    a.extend(plan.slurm.sbatch_args.iter().cloned());
    a.push(dir.join("job.sh").display().to_string());
    a
}

/// The job id `sbatch --parsable` printed (`ID` or `ID;CLUSTER`).
pub fn parse_job_id(stdout: &str) -> Option<u64> {
    stdout.trim().split(';').next()?.trim().parse().ok()
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Writes the job script, submits `chunks` as one job array and records the
/// submission in the plan (saved). `done` is the number of tasks done now.
pub fn submit(plan: &mut ArrayPlan, dir: &Path, chunks: &[usize], done: usize) -> Result<u64> {
    let script = dir.join("job.sh");
    std::fs::write(&script, job_script(plan, dir)).map_err(|e| Error::write(&script, e))?;
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).map_err(|e| Error::write(&logs, e))?;
    let args = sbatch_args(plan, dir, chunks);
    let out = Command::new("sbatch")
        .args(&args)
        .output()
        .map_err(|e| Error::Other(format!("cannot run sbatch (is Slurm installed?): {e}")))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(Error::Other(format!(
            "sbatch {} failed: {} (submit again with `mpv batch --collect {} --resume`)",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim(),
            dir.display()
        )));
    }
    let job_id = parse_job_id(&stdout)
        .ok_or_else(|| Error::Other(format!("sbatch printed no job id: {stdout}")))?;
    plan.submissions.push(Submission {
        job_id,
        chunks: chunks.to_vec(),
        at: now(),
        done_before: done,
    });
    plan.save(dir)?;
    Ok(job_id)
}

/// Array indices of the given jobs in `squeue -r -o '%F %K'` output (array
/// job id, array task id; one line per task).
pub fn parse_queued(stdout: &str, jobs: &[u64]) -> Vec<usize> {
    let mut out = Vec::new();
    for line in stdout.lines() {
        let mut w = line.split_whitespace();
        let (Some(job), Some(task)) = (w.next(), w.next()) else {
            continue;
        };
        if job.parse().is_ok_and(|j: u64| jobs.contains(&j)) {
            if let Ok(t) = task.parse() {
                out.push(t);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The plan's chunks Slurm still has pending or running (one `squeue`).
pub fn queued_chunks(plan: &ArrayPlan) -> Result<Vec<usize>> {
    let jobs: Vec<u64> = plan.submissions.iter().map(|s| s.job_id).collect();
    let user = std::env::var("USER").ok();
    let mut cmd = Command::new("squeue");
    cmd.args(["-h", "-r", "-o", "%F %K"]);
    if let Some(u) = &user {
        cmd.args(["-u", u]);
    }
    let out = cmd
        .output()
        .map_err(|e| Error::Other(format!("cannot run squeue: {e}")))?;
    if !out.status.success() {
        return Err(Error::Other(format!(
            "squeue failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(parse_queued(&String::from_utf8_lossy(&out.stdout), &jobs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::array::{split, RunSettings, SlurmSettings};
    use crate::batch::Task;

    fn plan(n: usize, chunks: usize, jobs: usize) -> ArrayPlan {
        let tasks: Vec<Task> = (0..n)
            .map(|i| Task {
                key: format!("m{i}"),
                file: format!("m{i}.c"),
                path: format!("m{i}.c").into(),
                set: "s".into(),
                rule: None,
                prp: Vec::new(),
                data_model: None,
                library_select: Vec::new(),
                expected: Vec::new(),
            })
            .collect();
        ArrayPlan {
            chunks: split(&tasks, chunks),
            run: RunSettings {
                jobs,
                time_limit: 2.0,
                memory_mb: 1024,
                wall_limit_s: None,
                verify_args: vec!["--strategy".into(), "s4".into()],
                witness_dir: None,
            },
            slurm: SlurmSettings {
                partition: Some("short".into()),
                max_running: Some(50),
                sbatch_args: vec!["--time=90".into()],
                mpv: "/opt/it's/mpv".into(),
                workdir: "/shared/work".into(),
            },
            submissions: Vec::new(),
        }
    }

    #[test]
    fn limits_map_onto_slurm_resources() {
        // 10 tasks in chunks of 3, 3, 2, 2; a child's CPU limit is 8 s.
        let r = resources(&plan(10, 4, 1));
        assert_eq!(
            r,
            Resources {
                cpus: 1,
                mem_mb: 1280,
                time_min: 7
            }
        );
        let r = resources(&plan(10, 4, 2));
        assert_eq!((r.cpus, r.mem_mb), (2, 2304));
    }

    #[test]
    fn sbatch_gets_the_array_and_the_user_arguments_last() {
        let p = plan(10, 4, 1);
        let a = sbatch_args(&p, Path::new("/shared/run"), &[1, 2]);
        assert_eq!(a[1], "--array=1-2%50");
        assert!(a.contains(&"--partition=short".to_string()));
        assert!(a.contains(&"--chdir=/shared/work".to_string()));
        assert!(a.contains(&"--output=/shared/run/logs/%A_%a.log".to_string()));
        let time = a.iter().position(|x| x == "--time=7").unwrap();
        let user = a.iter().position(|x| x == "--time=90").unwrap();
        assert!(time < user, "the user's --time overrides mpv's: {a:?}");
        assert_eq!(a.last().unwrap(), "/shared/run/job.sh");
    }

    #[test]
    fn the_job_script_runs_its_chunk() {
        let s = job_script(&plan(4, 2, 1), Path::new("/shared/run"));
        assert!(s.starts_with("#!/bin/sh\n"));
        assert!(s.contains(
            "exec '/opt/it'\\''s/mpv' batch --array-task '/shared/run' --chunk \"$SLURM_ARRAY_TASK_ID\""
        ));
    }

    #[test]
    fn job_ids_and_queued_tasks_are_parsed() {
        assert_eq!(parse_job_id("1234\n"), Some(1234));
        assert_eq!(parse_job_id("77;cluster\n"), Some(77));
        assert_eq!(parse_job_id("error"), None);
        let q = "12 0\n12 3\n13 1\n99 2\n14 N/A\n";
        assert_eq!(parse_queued(q, &[12, 13]), [0, 1, 3]);
    }
}
