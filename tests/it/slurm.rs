//! `mpv batch --slurm` on a real one-node Slurm cluster (`tests/slurm/cluster.sh`:
//! munged, slurmctld and slurmd on localhost, started for the test and
//! stopped after it). A 40-task sample of `single.tsv` at 2 s (copies of the
//! small programs of `tests/programs/batch` when the corpus is not there) as a
//! 4-task array gives after `--collect` exactly the verdicts of the same
//! sample run locally; with one array task cancelled mid-run, `--collect
//! --resume` submits its chunk again and the merged file has exactly one
//! line per task, with the same verdicts again.
//!
//! The test installs `slurm-wlm` and `munge` if they are missing (`.ci/setup`
//! does in CI); it is skipped, with the reason printed, only when they
//! cannot be installed and `MPV_REQUIRE_SLURM` is not set.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::common;

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/slurm/cluster.sh")
}

/// A running one-node cluster; stopped when dropped.
struct Cluster {
    dir: PathBuf,
    conf: PathBuf,
}

impl Cluster {
    /// `None` (with the reason printed) when Slurm cannot be installed here.
    fn start(dir: &Path) -> Option<Cluster> {
        let install = Command::new("bash").arg(script()).arg("install").output();
        let installed = install.as_ref().is_ok_and(|o| o.status.success());
        if !installed {
            let why = match &install {
                Ok(o) => String::from_utf8_lossy(&o.stderr).into_owned(),
                Err(e) => e.to_string(),
            };
            assert!(
                std::env::var_os("MPV_REQUIRE_SLURM").is_none(),
                "cannot install slurm-wlm and munge: {why}"
            );
            eprintln!("SKIPPED: slurm-wlm and munge cannot be installed here: {why}");
            return None;
        }
        let o = Command::new("bash")
            .arg(script())
            .arg("start")
            .arg(dir)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "the one-node cluster did not start: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        Some(Cluster {
            dir: dir.to_path_buf(),
            conf: dir.join("slurm.conf"),
        })
    }

    fn cmd(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.env("SLURM_CONF", &self.conf);
        c
    }

    fn mpv(&self, args: &[&str]) -> Output {
        self.cmd(env!("CARGO_BIN_EXE_mpv"))
            .args(args)
            .output()
            .unwrap()
    }

    /// Waits until Slurm has no pending or running task of `job`.
    fn wait(&self, job: &str) {
        let start = Instant::now();
        loop {
            let o = self
                .cmd("squeue")
                .args(["-h", "-j", job, "-o", "%i %T"])
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&o.stdout);
            if o.status.success() && text.trim().is_empty() {
                return;
            }
            assert!(
                start.elapsed() < Duration::from_secs(300),
                "job {job} still queued after 5 minutes: {text}"
            );
            std::thread::sleep(Duration::from_millis(500));
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(script())
            .arg("stop")
            .arg(&self.dir)
            .output();
    }
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "mpv failed ({}): {}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The tasks and batch options of the sample: 40 rows of `single.tsv` at
/// 2 s, or, when the corpus is not unpacked (or `MPV_SLURM_TEST_PROGRAMS` is
/// set), 40 copies of the small programs of `tests/programs/batch` in `tmp`.
fn sample(tmp: &Path) -> Vec<String> {
    let corpus =
        std::env::var_os("MPV_SLURM_TEST_PROGRAMS").is_none() && common::corpus_available();
    let mut a: Vec<String> = Vec::new();
    if corpus {
        let m = common::corpus_dir().join("single.tsv");
        a.extend(["--manifest".into(), m.display().to_string()]);
        a.extend(["--sample", "40", "--seed", "1"].map(String::from));
    } else {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/batch");
        let progs = tmp.join("programs");
        if !progs.exists() {
            eprintln!("no LDV corpus: the sample is 40 copies of tests/programs/batch/mods");
            std::fs::create_dir_all(&progs).unwrap();
            let mods = std::fs::read_dir(src.join("mods")).unwrap();
            let mods: Vec<PathBuf> = mods.map(|e| e.unwrap().path()).collect();
            for i in 0..40 {
                let m = &mods[i % mods.len()];
                let name = m.file_name().unwrap().to_str().unwrap();
                std::fs::copy(m, progs.join(format!("p{i:02}_{name}"))).unwrap();
            }
        }
        a.push(progs.display().to_string());
        a.extend(["--prp".into(), src.join("error.prp").display().to_string()]);
    }
    a.extend(["--time-limit", "2", "--memory-limit", "2048"].map(String::from));
    a
}

/// Verdicts by task key: `property=verdict` of every property.
/// Whether two runs' verdicts agree: the same tasks and properties, and
/// the same verdict for each, except that a property one run decided and
/// the other left UNKNOWN (`--time-limit` is CPU time: a task at its edge
/// may be decided on a quiet node and not on a loaded one) is allowed once
/// in ten tasks. TRUE against FALSE never is.
fn agree(got: &BTreeMap<String, Vec<String>>, want: &BTreeMap<String, Vec<String>>, what: &str) {
    let keys = |m: &BTreeMap<String, Vec<String>>| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(got), keys(want), "{what}: the same tasks");
    let mut at_the_limit = Vec::new();
    for (task, w) in want {
        let g = &got[task];
        assert_eq!(g.len(), w.len(), "{what}: {task}");
        for (a, b) in g.iter().zip(w) {
            let (pa, va) = a.split_once('=').unwrap();
            let (pb, vb) = b.split_once('=').unwrap();
            assert_eq!(pa, pb, "{what}: {task}");
            if va != vb {
                let unknown = "\"unknown\"";
                assert!(
                    va == unknown || vb == unknown,
                    "{what}: {task}: {a} against {b}"
                );
                at_the_limit.push(format!("{task}: {a} against {b}"));
            }
        }
    }
    assert!(
        at_the_limit.len() * 10 <= want.len(),
        "{what}: {at_the_limit:?}"
    );
}

fn verdicts(path: &Path) -> BTreeMap<String, Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut m = BTreeMap::new();
    for l in text.lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        let mut props: Vec<String> = v["properties"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| format!("{}={}", p["id"], p["verdict"]))
            .collect();
        props.sort();
        let key = v["key"].as_str().unwrap().to_string();
        assert!(
            m.insert(key.clone(), props).is_none(),
            "{}: two lines for {key}",
            path.display()
        );
    }
    m
}

fn submit(c: &Cluster, tmp: &Path, dir: &Path) -> String {
    let mut a = vec!["batch".to_string()];
    a.extend(sample(tmp));
    a.extend(["--slurm", "--array-size", "4", "--out-dir"].map(String::from));
    a.push(dir.display().to_string());
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    ok(&c.mpv(&a)).trim().to_string()
}

fn lines_in(p: &Path) -> usize {
    std::fs::read_to_string(p).map_or(0, |t| t.lines().count())
}

#[test]
fn slurm_array_gives_the_local_verdicts_and_resumes_a_cancelled_task() {
    let start = Instant::now();
    let tmp = std::env::temp_dir().join(format!("mpv-slurm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(tmp.join("cluster")).unwrap();
    let Some(cluster) = Cluster::start(&tmp.join("cluster")) else {
        return;
    };
    let s = |p: &Path| p.display().to_string();

    // The same sample, locally.
    let local = tmp.join("local.jsonl");
    let mut a = vec!["batch".to_string()];
    a.extend(sample(&tmp));
    a.extend(["--jobs".into(), "2".into(), "--out".into(), s(&local)]);
    ok(&cluster.mpv(&a.iter().map(String::as_str).collect::<Vec<_>>()));
    let want = verdicts(&local);
    let local_s = start.elapsed().as_secs_f64();

    // As a 4-task array, merged.
    let a_dir = tmp.join("array-a");
    let job = submit(&cluster, &tmp, &a_dir);
    cluster.wait(&job);
    let status = ok(&cluster.mpv(&["batch", "--status", &s(&a_dir)]));
    assert!(
        status.starts_with(&format!("{n}/{n} done", n = want.len())),
        "{status}"
    );
    let merged = tmp.join("a.jsonl");
    ok(&cluster.mpv(&["batch", "--collect", &s(&a_dir), "--out", &s(&merged)]));
    let got = verdicts(&merged);
    agree(&got, &want, "the array's verdicts are the local ones");
    let array_s = start.elapsed().as_secs_f64() - local_s;

    // One array task cancelled mid-run, then resumed.
    let b_dir = tmp.join("array-b");
    let job = submit(&cluster, &tmp, &b_dir);
    let chunk0 = b_dir.join("results/chunk-0000.jsonl");
    let plan: serde_json::Value =
        serde_json::from_slice(&std::fs::read(b_dir.join("plan.json")).unwrap()).unwrap();
    let chunk0_len = plan["chunks"][0].as_array().unwrap().len();
    let wait = Instant::now();
    while lines_in(&chunk0) == 0 {
        assert!(
            wait.elapsed() < Duration::from_secs(120),
            "chunk 0 never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let cancel = cluster
        .cmd("scancel")
        .arg(format!("{job}_0"))
        .output()
        .unwrap();
    assert!(cancel.status.success(), "scancel failed");
    cluster.wait(&job);
    let done0 = lines_in(&chunk0);
    assert!(
        done0 < chunk0_len,
        "chunk 0 finished ({done0} lines) before scancel reached it"
    );
    let c = cluster.mpv(&["batch", "--collect", &s(&b_dir)]);
    assert_eq!(c.status.code(), Some(2), "tasks are missing after scancel");
    let err = String::from_utf8_lossy(&c.stderr);
    assert!(err.contains("missing in chunk 0"), "{err}");
    let r = cluster.mpv(&["batch", "--collect", &s(&b_dir), "--resume"]);
    let again = ok(&r);
    let err = String::from_utf8_lossy(&r.stderr);
    cluster.wait(again.trim());
    let merged = tmp.join("b.jsonl");
    ok(&cluster.mpv(&["batch", "--collect", &s(&b_dir), "--out", &s(&merged)]));
    assert_eq!(lines_in(&merged), want.len(), "one line per task");
    agree(
        &verdicts(&merged),
        &want,
        "the resumed array's verdicts are the local ones",
    );
    eprintln!(
        "{} tasks: local {local_s:.1} s, array {array_s:.1} s; chunk 0 cancelled after \
         {done0}/{chunk0_len} tasks, resumed: {}; {:.1} s in all",
        want.len(),
        err.lines().last().unwrap_or(""),
        start.elapsed().as_secs_f64()
    );
    drop(cluster);
    let _ = std::fs::remove_dir_all(&tmp);
}
