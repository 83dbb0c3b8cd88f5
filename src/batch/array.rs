//! A batch split over the tasks of a job array (one machine per array task,
//! see [`super::slurm`]): the plan kept in a shared directory, the chunks,
//! and what the chunks' results files say (merged results, missing and
//! failed tasks, progress).
//!
//! The directory holds `plan.json` (the [`ArrayPlan`]: every chunk's tasks,
//! the batch settings, the submissions), `job.sh` (the job script),
//! `results/chunk-NNNN.jsonl` (one results file per chunk, written by a
//! plain `mpv batch` run with `--resume` semantics, so a chunk run again
//! after a kill continues where it stopped) and `logs/` (Slurm's output).
//! Chunks partition the task list, so a key has at most one line in all the
//! chunks' files together.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::results;
use super::tasks::Task;
use super::Config;
use crate::{Error, Result};

/// The batch settings every array task runs its chunk with: those of a
/// local `mpv batch`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RunSettings {
    /// Modules verified at once inside one array task (`--jobs`).
    pub jobs: usize,
    pub time_limit: f64,
    pub memory_mb: u64,
    /// Wall-clock limit of each verification in seconds, if given.
    pub wall_limit_s: Option<f64>,
    /// Arguments of every `mpv verify` after the batch's own.
    pub verify_args: Vec<String>,
    /// Where each verification writes its violation and correctness
    /// witnesses, if anywhere.
    #[serde(default)]
    pub witness_dir: Option<PathBuf>,
}

impl RunSettings {
    /// The local batch configuration of one chunk writing to `out`.
    pub fn config(&self, verifier: PathBuf, out: PathBuf) -> Config {
        Config {
            verifier,
            jobs: self.jobs.max(1),
            time_limit: self.time_limit,
            memory_mb: self.memory_mb,
            wall_limit: self.wall_limit_s.map(Duration::from_secs_f64),
            verify_args: self.verify_args.iter().map(OsString::from).collect(),
            witness_dir: self.witness_dir.clone(),
            out,
            resume: true,
            progress_interval: Duration::from_secs(60),
        }
    }
}

/// How the array is submitted.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SlurmSettings {
    pub partition: Option<String>,
    /// Array tasks running at once (`--array=...%N`), if limited.
    pub max_running: Option<usize>,
    /// More `sbatch` arguments, after mpv's own (so they override them).
    pub sbatch_args: Vec<String>,
    /// The mpv executable as the compute nodes see it.
    pub mpv: PathBuf,
    /// Working directory of the array tasks (task paths may be relative to it).
    pub workdir: PathBuf,
}

/// One `sbatch` of (some of) the plan's chunks.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Submission {
    pub job_id: u64,
    /// The chunk indices submitted (the array indices).
    pub chunks: Vec<usize>,
    /// Seconds since the Unix epoch.
    pub at: u64,
    /// Tasks done when it was submitted.
    pub done_before: usize,
}

/// A batch split into the chunks of a job array.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ArrayPlan {
    /// The tasks of each chunk; array index `i` runs `chunks[i]`.
    pub chunks: Vec<Vec<Task>>,
    pub run: RunSettings,
    pub slurm: SlurmSettings,
    pub submissions: Vec<Submission>,
}

/// Splits `tasks` into at most `n` non-empty chunks, round-robin: task `i`
/// goes to chunk `i % n`, so the sets of a manifest (which come in blocks)
/// spread over every chunk and the chunks take about the same time.
pub fn split(tasks: &[Task], n: usize) -> Vec<Vec<Task>> {
    let n = n.clamp(1, tasks.len().max(1));
    let mut chunks = vec![Vec::new(); n];
    for (i, t) in tasks.iter().enumerate() {
        chunks[i % n].push(t.clone());
    }
    chunks.retain(|c| !c.is_empty());
    chunks
}

/// Slurm's `--array` list of indices: runs as ranges (`0-3,5,7-9`).
pub fn array_spec(indices: &[usize]) -> String {
    let mut sorted = indices.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i;
        while j + 1 < sorted.len() && sorted[j + 1] == sorted[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            sorted[i].to_string()
        } else {
            format!("{}-{}", sorted[i], sorted[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

/// The plan file of an array directory.
pub fn plan_path(dir: &Path) -> PathBuf {
    dir.join("plan.json")
}

/// The results file of chunk `i`.
pub fn chunk_results(dir: &Path, i: usize) -> PathBuf {
    dir.join("results").join(format!("chunk-{i:04}.jsonl"))
}

impl ArrayPlan {
    pub fn total(&self) -> usize {
        self.chunks.iter().map(Vec::len).sum()
    }

    /// Reads `DIR/plan.json`.
    pub fn load(dir: &Path) -> Result<Self> {
        let p = plan_path(dir);
        let text = std::fs::read(&p).map_err(|e| Error::io(&p, e))?;
        serde_json::from_slice(&text).map_err(|e| {
            Error::Usage(format!(
                "{}: not the plan of an mpv batch array: {e}",
                p.display()
            ))
        })
    }

    /// Writes `DIR/plan.json` (through a temporary file and a rename, so a
    /// reader never sees half a plan).
    pub fn save(&self, dir: &Path) -> Result<()> {
        let p = plan_path(dir);
        let tmp = dir.join("plan.json.tmp");
        let text = serde_json::to_vec_pretty(self).map_err(|e| Error::Other(e.to_string()))?;
        std::fs::write(&tmp, text).map_err(|e| Error::write(&tmp, e))?;
        std::fs::rename(&tmp, &p).map_err(|e| Error::write(&p, e))
    }
}

/// What the chunks' results files hold.
#[derive(Debug, Default)]
pub struct Collected {
    /// One line per task that has one, in the order of the plan's chunks.
    pub lines: Vec<Map<String, Value>>,
    /// Keys of the tasks without a line, by chunk.
    pub missing: BTreeMap<usize, Vec<String>>,
    /// Keys and statuses of the lines whose status is not `ok`.
    pub failed: Vec<(String, String)>,
    /// Lines left out because their key had a line already.
    pub duplicates: usize,
    /// Lines whose key is not a task of the plan.
    pub foreign: usize,
}

impl Collected {
    pub fn missing_count(&self) -> usize {
        self.missing.values().map(Vec::len).sum()
    }

    /// Chunks with a task still missing.
    pub fn incomplete_chunks(&self) -> Vec<usize> {
        self.missing.keys().copied().collect()
    }
}

/// Reads the result lines of every chunk (a torn last line is not a line).
pub fn read_chunks(plan: &ArrayPlan, dir: &Path) -> Result<Vec<Vec<Map<String, Value>>>> {
    let mut out = Vec::new();
    for i in 0..plan.chunks.len() {
        let p = chunk_results(dir, i);
        out.push(if p.exists() {
            results::read(&p)?.into_iter().map(|(_, m)| m).collect()
        } else {
            Vec::new()
        });
    }
    Ok(out)
}

/// Merges the chunks' lines: the first line of each task key, tasks in plan
/// order; the tasks without a line; the lines that did not end `ok`.
pub fn merge(plan: &ArrayPlan, chunk_lines: Vec<Vec<Map<String, Value>>>) -> Collected {
    let mut by_key: HashMap<String, Map<String, Value>> = HashMap::new();
    let mut c = Collected::default();
    let known: std::collections::HashSet<&str> = plan
        .chunks
        .iter()
        .flatten()
        .map(|t| t.key.as_str())
        .collect();
    for line in chunk_lines.into_iter().flatten() {
        let Some(key) = line.get("key").and_then(Value::as_str).map(str::to_string) else {
            continue;
        };
        if !known.contains(key.as_str()) {
            c.foreign += 1;
            continue;
        }
        match by_key.entry(key) {
            Entry::Occupied(_) => c.duplicates += 1,
            Entry::Vacant(v) => {
                v.insert(line);
            }
        }
    }
    for (i, chunk) in plan.chunks.iter().enumerate() {
        for t in chunk {
            match by_key.remove(&t.key) {
                Some(line) => {
                    let status = line.get("status").and_then(Value::as_str).unwrap_or("?");
                    if status != "ok" {
                        c.failed.push((t.key.clone(), status.to_string()));
                    }
                    c.lines.push(line);
                }
                None => c.missing.entry(i).or_default().push(t.key.clone()),
            }
        }
    }
    c
}

/// Reads and merges the chunks of the array in `dir`.
pub fn collect(plan: &ArrayPlan, dir: &Path) -> Result<Collected> {
    Ok(merge(plan, read_chunks(plan, dir)?))
}

/// Writes merged lines as one results file (temporary file + rename).
pub fn write_results(path: &Path, lines: &[Map<String, Value>]) -> Result<()> {
    let mut text = Vec::new();
    for l in lines {
        serde_json::to_writer(&mut text, l).map_err(|e| Error::Other(e.to_string()))?;
        text.push(b'\n');
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp"));
    std::fs::write(&tmp, text).map_err(|e| Error::write(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| Error::write(path, e))
}

/// Progress of an array from its results files.
#[derive(Debug, PartialEq)]
pub struct Status {
    pub done: usize,
    pub total: usize,
    /// Property verdicts: TRUE, FALSE, UNKNOWN.
    pub verdicts: [usize; 3],
    /// Tasks whose status is not `ok`, by status.
    pub failures: BTreeMap<String, usize>,
    /// Time left at the rate since the last submission, once it has done a task.
    pub eta: Option<Duration>,
}

/// Counts a merged collection; `now` is seconds since the Unix epoch.
pub fn status(plan: &ArrayPlan, c: &Collected, now: u64) -> Status {
    let mut s = Status {
        done: c.lines.len(),
        total: plan.total(),
        verdicts: [0; 3],
        failures: BTreeMap::new(),
        eta: None,
    };
    for l in &c.lines {
        for p in l
            .get("properties")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            match p["verdict"].as_str() {
                Some("true") => s.verdicts[0] += 1,
                Some("false") => s.verdicts[1] += 1,
                _ => s.verdicts[2] += 1,
            }
        }
    }
    for (_, st) in &c.failed {
        *s.failures.entry(st.clone()).or_default() += 1;
    }
    if let Some(last) = plan.submissions.last() {
        let since = s.done.saturating_sub(last.done_before);
        let secs = now.saturating_sub(last.at);
        if since > 0 && secs > 0 {
            let left = s.total - s.done;
            s.eta = Some(Duration::from_secs_f64(
                secs as f64 * left as f64 / since as f64,
            ));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn task(i: usize) -> Task {
        let file = format!("m{i}.c");
        Task {
            key: Task::make_key(&file, None, &["p.prp".into()]),
            file,
            path: format!("m{i}.c").into(),
            set: if i < 5 { "a".into() } else { "b".into() },
            rule: None,
            prp: vec!["p.prp".into()],
            data_model: None,
            library_select: Vec::new(),
            expected: Vec::new(),
        }
    }

    fn plan(n_tasks: usize, n_chunks: usize) -> ArrayPlan {
        let tasks: Vec<Task> = (0..n_tasks).map(task).collect();
        ArrayPlan {
            chunks: split(&tasks, n_chunks),
            run: RunSettings {
                jobs: 1,
                time_limit: 2.0,
                memory_mb: 1024,
                wall_limit_s: None,
                verify_args: Vec::new(),
                witness_dir: None,
            },
            slurm: SlurmSettings {
                partition: None,
                max_running: None,
                sbatch_args: Vec::new(),
                mpv: "mpv".into(),
                workdir: ".".into(),
            },
            submissions: Vec::new(),
        }
    }

    fn line(key: &str, status: &str, verdict: &str) -> Map<String, Value> {
        json!({"key": key, "status": status, "properties": [{"verdict": verdict}]})
            .as_object()
            .unwrap()
            .clone()
    }

    #[test]
    fn split_partitions_round_robin() {
        let tasks: Vec<Task> = (0..10).map(task).collect();
        let c = split(&tasks, 4);
        assert_eq!(c.iter().map(Vec::len).collect::<Vec<_>>(), [3, 3, 2, 2]);
        assert_eq!(c[1][0].key, tasks[1].key);
        assert_eq!(c[1][1].key, tasks[5].key);
        let mut keys: Vec<&str> = c.iter().flatten().map(|t| t.key.as_str()).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), 10, "every task in exactly one chunk");
        assert_eq!(split(&tasks, 50).len(), 10, "no empty chunk");
        assert_eq!(split(&tasks, 0).len(), 1);
        assert!(split(&[], 4).is_empty());
    }

    #[test]
    fn array_specs_are_ranges() {
        assert_eq!(array_spec(&[0, 1, 2, 3]), "0-3");
        assert_eq!(array_spec(&[7, 0, 1, 3, 8, 9, 3]), "0-1,3,7-9");
        assert_eq!(array_spec(&[5]), "5");
    }

    #[test]
    fn merge_keeps_one_line_per_key_and_finds_the_missing() {
        let p = plan(6, 3); // chunks: [0,3] [1,4] [2,5]
        let k = |i: usize| task(i).key;
        let chunks = vec![
            vec![line(&k(0), "ok", "true"), line(&k(3), "timeout", "unknown")],
            vec![
                line(&k(1), "ok", "false"),
                line(&k(1), "ok", "true"),
                line("stray", "ok", "true"),
            ],
            vec![],
        ];
        let c = merge(&p, chunks);
        let keys: Vec<&str> = c.lines.iter().map(|l| l["key"].as_str().unwrap()).collect();
        assert_eq!(keys, [k(0), k(3), k(1)]);
        assert_eq!(
            c.lines[2]["properties"][0]["verdict"], "false",
            "first line kept"
        );
        assert_eq!(c.duplicates, 1);
        assert_eq!(c.foreign, 1);
        assert_eq!(c.failed, [(k(3), "timeout".to_string())]);
        assert_eq!(c.missing_count(), 3);
        assert_eq!(c.incomplete_chunks(), [1, 2]);
        assert_eq!(c.missing[&1], [k(4)]);
    }

    #[test]
    fn status_counts_and_estimates() {
        let mut p = plan(4, 2);
        p.submissions.push(Submission {
            job_id: 7,
            chunks: vec![0, 1],
            at: 1000,
            done_before: 0,
        });
        let k = |i: usize| task(i).key;
        let c = merge(
            &p,
            vec![vec![
                line(&k(0), "ok", "true"),
                line(&k(2), "crash", "unknown"),
            ]],
        );
        let s = status(&p, &c, 1100);
        assert_eq!((s.done, s.total), (2, 4));
        assert_eq!(s.verdicts, [1, 0, 1]);
        assert_eq!(s.failures.get("crash"), Some(&1));
        assert_eq!(s.eta, Some(Duration::from_secs(100)));
        assert_eq!(status(&p, &merge(&p, vec![]), 1100).eta, None);
    }

    #[test]
    fn plans_round_trip_through_the_directory() {
        let d = std::env::temp_dir().join(format!("mpv-array-plan-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let p = plan(5, 2);
        p.save(&d).unwrap();
        let q = ArrayPlan::load(&d).unwrap();
        assert_eq!(q.total(), 5);
        assert_eq!(q.chunks[1][0].key, p.chunks[1][0].key);
        assert_eq!(q.run, p.run);
        let out = d.join("merged.jsonl");
        write_results(&out, &[line("a", "ok", "true")]).unwrap();
        assert_eq!(results::read(&out).unwrap().len(), 1);
        let _ = std::fs::remove_dir_all(&d);
    }
}
